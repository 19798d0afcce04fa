/* SPDX-License-Identifier: MIT */
/*
 * The engine: spreads a plan's users over worker threads, runs the main
 * thread's loop (signals, the one-second tick, worker reports), merges
 * what workers measured and hands it to the reporters.  Reporters only
 * ever run here, on the main thread.
 */
#include "engine.h"
#include "capacity-private.h"
#include "limits-private.h"

#include "metrics.h"
#include "results/reporter-set.h"
#include "results/run-info.h"
#include "saturation-private.h"
#include "schedule.h"
#include "summary-private.h"
#include "usage.h"
#include "worker.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    ThrongWorker *worker;
    guint *active;              /* per scenario, from its latest report */
    guint answered_tick;
    gboolean final;
} WorkerSlot;

typedef struct {
    ThrongPlan *plan;
    ThrongEngineOptions options;
    GMainLoop *loop;
    GArray *workers;            /* WorkerSlot */
    guint live_workers;
    guint ready_workers;        /* workers whose users are all created */
    GError *start_error;        /* a user could not be created: the run does not start */
    ThrongReporterSet *reporters;

    ThrongMetrics *total;
    ThrongMetrics *interval;
    guint tick;
    guint tick_pending;
    gint64 interval_start_us;

    gint64 start_us;
    /* When the last snapshot closed the last interval: the run's end, so
     * that the intervals' lengths add up to the summary's duration
     * whatever the reporters spend on that snapshot. */
    gint64 end_us;
    gint64 wall_offset_us;
    gint64 start_wall_us;
    gint64 planned_us;
    gint64 cpu_start_user_us;
    gint64 cpu_start_system_us;

    gint64 graceful_stop_us;    /* the longest of the scenarios' graceful_stop */
    ThrongSaturation saturation; /* whether throng itself was the bottleneck */
    ThrongCapacity *capacity;   /* executor capacity's search, or NULL */

    guint signals;
    gboolean started;           /* load may have been sent */
    gboolean interrupted;
    gboolean aborted;
    guint grace_source;
    guint tick_source;
    guint sigint_source;
    guint sigterm_source;
    guint sighup_source;        /* a dropped terminal or ssh session stops the run like SIGTERM */
    guint deadline_source;
    guint start_at_source;      /* --start-at: the countdown to the start */
    ThrongMemoryLimits memory;  /* limits-private.h: watched while the run goes */
    guint memory_source;
    char *memory_reached;       /* why the run was stopped short of the memory limit */
    char *abort_run;            /* the step whose `on_failure: abort-run` stopped the run */
    gint64 memory_reached_us;   /* when, from the start */

    ThrongRunInfoBuffer run_info;
    ThrongShardSummary shard;   /* --shard or --start-at: what the summary states */
    char *shard_clock;
    GPtrArray *shard_thresholds; /* char*, owned, NULL-terminated */
} ThrongEngine;

/* --- summaries ------------------------------------------------------------ */

static void
engine_cpu (ThrongEngine *engine, gint64 *user_us, gint64 *system_us)
{
    throng_usage_process (user_us, system_us);
    *user_us -= engine->cpu_start_user_us;
    *system_us -= engine->cpu_start_system_us;
}

/* A summary of @metrics as of now, with what the engine knows of the run. */
static void
engine_summary (ThrongEngine *engine, ThrongSummaryBuffer *buffer, ThrongMetrics *metrics,
                const guint *active, gint64 interval_us)
{
    ThrongSummaryRun run = {
        .plan = engine->plan,
        .start_us = engine->start_us,
        .end_us = engine->end_us,
        .start_wall_us = engine->start_wall_us,
        .wall_offset_us = engine->wall_offset_us,
        .planned_us = engine->planned_us,
        .workers = engine->workers->len,
        .interrupted = engine->interrupted,
        .started = engine->started,
    };

    engine_cpu (engine, &run.cpu_user_us, &run.cpu_system_us);
    throng_summary_buffer_fill (buffer, &run, metrics, active, interval_us);
}

static void
sum_active (ThrongEngine *engine, guint *active)
{
    guint n = engine->plan->scenarios->len;

    memset (active, 0, sizeof (guint) * MAX (n, 1));
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        for (guint s = 0; s < n; s++)
            active[s] += slot->active[s];
    }
}

/* --- reporters ------------------------------------------------------------- */

/*
 * Hands the interval's figures to the reporters.  The @last one, after
 * the workers finished, covers what completed since the last tick, so
 * that snapshots add up to the summary; it ends with the run's teardown,
 * so it does not count towards the saturation verdict, which stays on the
 * one-second intervals.
 */
static void
emit_snapshot (ThrongEngine *engine, gboolean last)
{
    ThrongSummaryBuffer buffer = { 0 };
    g_autofree guint *active = g_new0 (guint, MAX (engine->plan->scenarios->len, 1));
    gint64 now = g_get_monotonic_time ();

    sum_active (engine, active);
    if (last)
        engine->end_us = now;
    engine_summary (engine, &buffer, engine->interval, active, now - engine->interval_start_us);

    throng_saturation_judge_interval (&engine->saturation, &buffer.summary, engine->interval,
                                      now - engine->start_us, last, engine->tick_pending > 0,
                                      buffer.warnings);
    if (!last && engine->capacity != NULL)
        throng_capacity_tick (engine->capacity, &buffer.summary, engine->interval, now);
    throng_summary_buffer_finish (&buffer);
    throng_reporter_set_snapshot (engine->reporters, &buffer.summary);
    throng_summary_buffer_clear (&buffer);
    throng_metrics_reset (engine->interval);
    engine->interval_start_us = now;
    engine->tick_pending = 0;
}

/* --- worker reports ---------------------------------------------------------- */

static WorkerSlot *
find_slot (ThrongEngine *engine, ThrongWorker *worker)
{
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        if (slot->worker == worker)
            return slot;
    }
    g_assert_not_reached ();
}

static void abort_workers (ThrongEngine *engine);
static void stop_workers (ThrongEngine *engine);
static void engine_go (ThrongEngine *engine);

/*
 * --start-at: waits on the main loop (signals still stop the run), with a
 * countdown on a terminal unless --quiet, then starts the load.
 */
static gboolean
on_start_at (gpointer data)
{
    ThrongEngine *engine = data;
    gint64 left = engine->options.start_at_wall_us - g_get_real_time ();
    gboolean countdown = !engine->options.quiet && isatty (STDERR_FILENO);

    engine->start_at_source = 0;
    if (engine->interrupted)
        return G_SOURCE_REMOVE;
    if (left <= 0) {
        if (countdown)
            g_printerr ("\rthrong: starting now%20s\n", "");
        engine_go (engine);
        if (engine->live_workers == 0)
            g_main_loop_quit (engine->loop);
        return G_SOURCE_REMOVE;
    }
    if (countdown)
        g_printerr ("\rthrong: starting in %" G_GINT64_FORMAT " s ",
                    (left + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
    /* Wake on each whole second to come, and on the instant itself. */
    gint64 step = left % G_USEC_PER_SEC != 0 ? left % G_USEC_PER_SEC : G_USEC_PER_SEC;
    engine->start_at_source = g_timeout_add ((guint) ((step + 999) / 1000), on_start_at, engine);
    return G_SOURCE_REMOVE;
}

static void
on_ready (ThrongEngine *engine, ThrongWorkerReport *report)
{
    engine->ready_workers++;
    if (report->error != NULL) {
        if (engine->start_error == NULL)
            engine->start_error = g_steal_pointer (&report->error);
        g_clear_error (&report->error);
        abort_workers (engine);
        return;
    }
    if (engine->ready_workers < engine->workers->len || engine->start_error != NULL
        || engine->interrupted)
        return;
    /* Every user exists: only now do reporters open, so that a run that
     * cannot start leaves nothing behind but its error. */
    if (!throng_reporter_set_open (engine->reporters, &engine->run_info.info, &engine->start_error)) {
        abort_workers (engine);
        return;
    }
    if (engine->options.start_at_wall_us > 0) {
        on_start_at (engine);
        return;
    }
    engine_go (engine);
}

static void
on_report (ThrongWorkerReport *report, gpointer data)
{
    ThrongEngine *engine = data;
    WorkerSlot *slot = find_slot (engine, report->worker);

    if (report->ready) {
        on_ready (engine, report);
        return;
    }
    if (report->abort_run != NULL) {
        /* the first one stops the run; those that crossed it on the way change nothing */
        if (engine->abort_run == NULL) {
            engine->abort_run = g_strdup (report->abort_run);
            engine->interrupted = TRUE;
            g_printerr ("\nthrong: %s, whose on_failure is abort-run; stopping the run\n",
                        report->abort_run);
            stop_workers (engine);
            abort_workers (engine);
        }
        return;
    }

    if (report->samples != NULL)
        throng_reporter_set_samples (engine->reporters,
                                     (const ThrongSample *) report->samples->samples->data,
                                     report->samples->samples->len);
    if (report->metrics != NULL) {
        throng_metrics_merge (engine->total, report->metrics);
        throng_metrics_merge (engine->interval, report->metrics);
        memcpy (slot->active, report->metrics->active_users,
                sizeof (guint) * engine->plan->scenarios->len);
    }
    if (report->final) {
        /* The last report of a worker: its blocks are freed, not recycled. */
        slot->final = TRUE;
        memset (slot->active, 0, sizeof (guint) * engine->plan->scenarios->len);
        if (report->metrics != NULL)
            throng_metrics_free (report->metrics);
        throng_sample_batch_free (report->samples);
        if (engine->tick_pending > 0 && slot->answered_tick != engine->tick)
            engine->tick_pending--;
        engine->live_workers--;
    } else {
        throng_worker_recycle (report->worker, report->metrics, report->samples);
        if (report->tick != 0 && report->tick == engine->tick && engine->tick_pending > 0) {
            slot->answered_tick = report->tick;
            engine->tick_pending--;
            if (engine->tick_pending == 0)
                emit_snapshot (engine, FALSE);
        }
    }
    /* A shard whose workers have no users still waits for --start-at, so
     * that its summary starts with the others'. */
    if (engine->live_workers == 0 && (engine->start_at_source == 0 || engine->interrupted))
        g_main_loop_quit (engine->loop);
}

static gboolean
on_tick (gpointer data)
{
    ThrongEngine *engine = data;

    /* A worker that has not answered within a second is itself a sign of
     * saturation; the snapshot goes out with what arrived. */
    if (engine->tick_pending > 0)
        emit_snapshot (engine, FALSE);
    engine->tick++;
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        if (!slot->final) {
            engine->tick_pending++;
            throng_worker_flush (slot->worker, engine->tick);
        }
    }
    return G_SOURCE_CONTINUE;
}

/* --- stopping ----------------------------------------------------------------- */

static void
abort_workers (ThrongEngine *engine)
{
    if (engine->aborted)
        return;
    engine->aborted = TRUE;
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        if (!slot->final)
            throng_worker_abort (slot->worker);
    }
}

/* Asks every worker still running to stop its users at their next iteration. */
static void
stop_workers (ThrongEngine *engine)
{
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        if (!slot->final)
            throng_worker_stop (slot->worker);
    }
}

static gboolean
on_grace_over (gpointer data)
{
    ThrongEngine *engine = data;

    engine->grace_source = 0;
    abort_workers (engine);
    return G_SOURCE_REMOVE;
}

static void
start_grace (ThrongEngine *engine)
{
    if (engine->grace_source == 0)
        engine->grace_source = g_timeout_add ((guint) (engine->graceful_stop_us / 1000) + 1,
                                              on_grace_over, engine);
}

static gboolean
on_deadline (gpointer data)
{
    ThrongEngine *engine = data;

    /* Users stop at their next iteration by themselves; this only bounds
     * how long an iteration in flight may still take. */
    engine->deadline_source = 0;
    start_grace (engine);
    return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer data)
{
    ThrongEngine *engine = data;

    engine->signals++;
    engine->interrupted = TRUE;
    if (engine->signals == 1) {
        g_printerr ("\nthrong: stopping; iterations in flight may take up to %.1f s to finish "
                    "(interrupt again to stop now)\n",
                    (gdouble) engine->graceful_stop_us / G_USEC_PER_SEC);
        stop_workers (engine);
        start_grace (engine);
    } else {
        abort_workers (engine);
    }
    return G_SOURCE_CONTINUE;
}

/*
 * Every 20 ms while the run goes (a read of /proc/self/statm, a few
 * microseconds): past its share of a memory limit (limits-private.h)
 * the run stops at once, so that the kernel's kill or a
 * failed g_malloc() does not take the results measured so far with it.
 * Steps in flight are cancelled, not waited for: they are what grows.
 */
static gboolean
on_memory_check (gpointer data)
{
    ThrongEngine *engine = data;
    char *reached = throng_limits_memory_check (&engine->memory);

    if (reached == NULL)
        return G_SOURCE_CONTINUE;
    engine->memory_source = 0;
    engine->memory_reached = reached;
    engine->memory_reached_us = g_get_monotonic_time () - engine->start_us;
    engine->interrupted = TRUE;
    g_printerr ("\nthrong: %s; stopping the run now to keep the results measured so far\n",
                reached);
    stop_workers (engine);
    abort_workers (engine);
    return G_SOURCE_REMOVE;
}

/* --- setup ----------------------------------------------------------------------- */

/* Every user is created: the run starts now, and so does its clock. */
static void
engine_go (ThrongEngine *engine)
{
    throng_usage_process (&engine->cpu_start_user_us, &engine->cpu_start_system_us);
    engine->start_us = g_get_monotonic_time ();
    engine->start_wall_us = g_get_real_time ();
    engine->wall_offset_us = engine->start_wall_us - engine->start_us;
    if (engine->options.start_at_wall_us > 0) {
        gint64 late = MAX (0, engine->start_wall_us - engine->options.start_at_wall_us);
        /* A little late, the schedule still counts from the agreed instant
         * (its first arrivals catch up), so the shards' schedules stay one;
         * over a second late, it starts from now and says so. */
        if (late <= G_USEC_PER_SEC) {
            engine->start_us -= late;
            engine->start_wall_us -= late;
        }
        engine->shard.late_us = late;
    }
    engine->shard.start_wall_us = engine->start_wall_us;
    engine->interval_start_us = engine->start_us;
    engine->saturation.interval_cpu_us = 0;
    engine->started = TRUE;
    engine->capacity = throng_capacity_new (engine->plan, engine->start_us);

    engine->tick_source = g_timeout_add (1000, on_tick, engine);
    if (throng_limits_memory_init (&engine->memory))
        engine->memory_source = g_timeout_add (20, on_memory_check, engine);
    if (engine->planned_us > 0)
        engine->deadline_source = g_timeout_add_seconds (
            (guint) ((engine->planned_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC), on_deadline,
            engine);
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        if (!slot->final)
            throng_worker_go (slot->worker, engine->start_us, engine->wall_offset_us);
    }
}

/*
 * What @scenario's steps load, as their protocols describe it: the
 * distinct descriptions in step order, joined; NULL when none could tell.
 */
static void
build_run_info (ThrongEngine *engine)
{
    ThrongPlan *plan = engine->plan;

    throng_run_info_buffer_fill (&engine->run_info, plan);
    engine->run_info.info.workers = engine->workers->len;
    engine->run_info.info.overwrite = engine->options.overwrite;
    engine->run_info.info.quiet = engine->options.quiet;
    engine->planned_us = engine->run_info.info.planned_us;
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        engine->graceful_stop_us = MAX (engine->graceful_stop_us, scenario->graceful_stop_us);
    }
    /* A shard, or a run that waited for --start-at, says so in its summary. */
    if (plan->shard.count > 0 || engine->options.start_at_wall_us > 0) {
        ThrongShardSummary *shard = &engine->shard;
        shard->size = sizeof (ThrongShardSummary);
        throng_shard_get (&plan->shard, &shard->index, &shard->count);
        engine->shard_clock = throng_shard_clock_source ();
        shard->plan_sha256 = plan->shard_hash;
        shard->throng_version = THRONG_VERSION_STRING;
        shard->clock = engine->shard_clock;
        shard->start_at_wall_us = engine->options.start_at_wall_us;
    }
}

/* The plan's reporters, in its order; opens none. */
static void
prepare_reporters (ThrongEngine *engine)
{
    ThrongPlan *plan = engine->plan;

    engine->reporters = throng_reporter_set_new ("throng");
    for (guint r = 0; r < plan->reporters->len; r++) {
        const ThrongPlanReporter *plan_reporter = g_ptr_array_index (plan->reporters, r);

        throng_reporter_set_add (engine->reporters, plan_reporter->name, plan_reporter->reporter,
                                 plan_reporter->data, plan_reporter->filter);
    }
}

static void
add_run_warnings (ThrongEngine *engine, ThrongSummaryBuffer *buffer)
{
    ThrongSummary *summary = &buffer->summary;

    throng_saturation_judge_run (&engine->saturation, summary, buffer->warnings);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        if (scenario->dropped_iterations > 0)
            g_ptr_array_add (buffer->warnings,
                             g_strdup_printf ("scenario %s: %" G_GUINT64_FORMAT " iterations "
                                              "dropped: every one of its %u users was busy when "
                                              "they were due (raise max_users)",
                                              scenario->name, scenario->dropped_iterations,
                                              scenario->users));
    }
    for (guint s = 0; s < engine->plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (engine->plan->scenarios, s);

        for (guint p = 0; p < scenario->protocols->len; p++) {
            const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, p);
            g_autoptr (GPtrArray) warnings = NULL;

            if (!THRONG_STRUCT_HAS (protocol->protocol, ThrongProtocol, scenario_warnings)
                || protocol->protocol->scenario_warnings == NULL)
                continue;
            warnings = g_ptr_array_new_with_free_func (g_free);
            protocol->protocol->scenario_warnings (protocol->data, warnings);
            for (guint w = 0; w < warnings->len; w++)
                g_ptr_array_add (buffer->warnings,
                                 g_strdup_printf ("scenario %s: %s", scenario->name,
                                                  (const char *) g_ptr_array_index (warnings, w)));
        }
    }
    if (engine->memory_reached != NULL)
        g_ptr_array_add (buffer->warnings,
                         g_strdup_printf ("the run was stopped at %.1f s: %s; the results up to "
                                          "then are complete, steps in flight were cancelled",
                                          (gdouble) engine->memory_reached_us / G_USEC_PER_SEC,
                                          engine->memory_reached));
    if (engine->abort_run != NULL)
        g_ptr_array_add (buffer->warnings,
                         g_strdup_printf ("the run was aborted: %s, whose on_failure is "
                                          "abort-run; steps in flight were cancelled",
                                          engine->abort_run));
    if (engine->options.builtin_target)
        g_ptr_array_add (buffer->warnings,
                         g_strdup ("the built-in target runs inside throng: its CPU time is "
                                   "counted in throng's"));
    if (engine->total->samples_dropped > 0)
        g_ptr_array_add (buffer->warnings,
                         g_strdup_printf ("%" G_GUINT64_FORMAT " samples were not recorded by "
                                          "reporters that fell behind (counters and histograms "
                                          "are complete)",
                                          engine->total->samples_dropped));
    if (summary->interrupted_iterations > 0)
        g_ptr_array_add (buffer->warnings,
                         g_strdup_printf ("%" G_GUINT64_FORMAT " iteration%s interrupted by the "
                                          "end of the run or of %s scenario: steps in flight were "
                                          "cancelled and are not counted",
                                          summary->interrupted_iterations,
                                          summary->interrupted_iterations == 1 ? "" : "s",
                                          summary->interrupted_iterations == 1 ? "its" : "their"));
}

/*
 * Closes the reporters of a run that never started (a reporter could not
 * open, a user could not be created): the summary says so, so that they
 * release what they opened and print nothing; the error is all the user
 * reads.
 */
static void
close_never_started (ThrongEngine *engine)
{
    ThrongSummaryBuffer buffer = { 0 };

    g_assert (!engine->started);
    engine_summary (engine, &buffer, engine->total, NULL, 0);
    throng_summary_buffer_finish (&buffer);
    throng_reporter_set_close (engine->reporters, &buffer.summary);
    throng_summary_buffer_clear (&buffer);
}

static void
engine_clear (ThrongEngine *engine)
{
    for (guint w = 0; w < engine->workers->len; w++) {
        WorkerSlot *slot = &g_array_index (engine->workers, WorkerSlot, w);
        g_free (slot->active);
    }
    g_array_unref (engine->workers);
    throng_reporter_set_free (engine->reporters);
    g_free (engine->memory_reached);
    g_free (engine->abort_run);
    throng_metrics_free (engine->total);
    throng_metrics_free (engine->interval);
    throng_capacity_free (engine->capacity);
    throng_run_info_buffer_clear (&engine->run_info);
    g_clear_pointer (&engine->shard_clock, g_free);
    g_clear_pointer (&engine->shard_thresholds, g_ptr_array_unref);
    g_clear_pointer (&engine->loop, g_main_loop_unref);
}

gboolean
throng_engine_run_load (ThrongPlan *plan, const ThrongEngineOptions *options,
                        ThrongRunResult *result, GError **error)
{
    ThrongEngine engine = { 0 };
    guint n_scenarios = plan->scenarios->len;
    guint n_workers = options->workers > 0 ? options->workers : (guint) g_get_num_processors ();
    guint64 total_users = 0;

    memset (result, 0, sizeof *result);
    engine.plan = plan;
    engine.options = *options;
    for (guint s = 0; s < n_scenarios; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        total_users += throng_shard_users (&plan->shard, scenario->users);
    }
    /* More workers than users would only idle. */
    n_workers = (guint) MAX (1, MIN ((guint64) n_workers, total_users));

    engine.loop = g_main_loop_new (NULL, FALSE);
    engine.workers = g_array_new (FALSE, TRUE, sizeof (WorkerSlot));
    engine.total = throng_plan_metrics_new (plan);
    engine.interval = throng_plan_metrics_new (plan);
    g_array_set_size (engine.workers, n_workers);
    throng_saturation_init (&engine.saturation, MAX (1, MIN (n_workers, (guint) g_get_num_processors ())),
                            plan->saturation_cpu, plan->saturation_lag_us);
    build_run_info (&engine);

    /* A summary of a run that never starts must have sane times too. */
    throng_usage_process (&engine.cpu_start_user_us, &engine.cpu_start_system_us);
    engine.start_us = g_get_monotonic_time ();
    engine.start_wall_us = g_get_real_time ();
    engine.wall_offset_us = engine.start_wall_us - engine.start_us;
    prepare_reporters (&engine);

    ThrongWorkerSetup setup = {
        .plan = plan,
        .main_context = g_main_context_default (),
        .report_func = on_report,
        .report_data = &engine,
        .want_samples = throng_reporter_set_wants_samples (engine.reporters),
    };
    for (guint w = 0; w < n_workers; w++) {
        WorkerSlot *slot = &g_array_index (engine.workers, WorkerSlot, w);
        setup.index = w;
        setup.n_workers = n_workers;
        slot->worker = throng_worker_new (&setup);
        slot->active = g_new0 (guint, MAX (n_scenarios, 1));
    }
    /* Users of every scenario dealt round-robin, so that the remainder of
     * users / workers is spread too and each worker gets a share of every
     * scenario.  A shard runs the users u with u mod N == I, under their
     * global numbers (shard.h). */
    guint next = 0;
    guint shard_index, shard_count;
    throng_shard_get (&plan->shard, &shard_index, &shard_count);
    for (guint s = 0; s < n_scenarios; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        for (guint u = shard_index; u < scenario->users; u += shard_count) {
            WorkerSlot *slot = &g_array_index (engine.workers, WorkerSlot, next);
            throng_worker_add_user (slot->worker, s, u);
            next = (next + 1) % n_workers;
        }
    }

    engine.live_workers = n_workers;
    engine.sigint_source = g_unix_signal_add (SIGINT, on_signal, &engine);
    engine.sigterm_source = g_unix_signal_add (SIGTERM, on_signal, &engine);
    engine.sighup_source = g_unix_signal_add (SIGHUP, on_signal, &engine);
    /* Workers create their users and report ready; then the reporters open
     * and engine_go() starts the load. */
    for (guint w = 0; w < n_workers; w++)
        throng_worker_start (g_array_index (engine.workers, WorkerSlot, w).worker);
    g_debug ("engine: %u worker%s started, %" G_GUINT64_FORMAT " user%s", n_workers,
             n_workers == 1 ? "" : "s", total_users, total_users == 1 ? "" : "s");

    g_main_loop_run (engine.loop);

    g_source_remove (engine.sigint_source);
    g_source_remove (engine.sigterm_source);
    g_source_remove (engine.sighup_source);
    if (engine.tick_source != 0)
        g_source_remove (engine.tick_source);
    if (engine.deadline_source != 0)
        g_source_remove (engine.deadline_source);
    if (engine.start_at_source != 0)
        g_source_remove (engine.start_at_source);
    if (engine.grace_source != 0)
        g_source_remove (engine.grace_source);
    if (engine.memory_source != 0)
        g_source_remove (engine.memory_source);
    throng_limits_memory_clear (&engine.memory);

    for (guint w = 0; w < n_workers; w++) {
        WorkerSlot *slot = &g_array_index (engine.workers, WorkerSlot, w);
        throng_worker_join (slot->worker);
        slot->worker = NULL;
    }
    g_debug ("engine: %u worker%s stopped%s", n_workers, n_workers == 1 ? "" : "s",
             engine.interrupted ? " (interrupted)" : "");
    /* Reports the workers queued after their final one cannot exist; but
     * sample batches sent just before it may still be pending. */
    while (g_main_context_iteration (NULL, FALSE))
        ;
    if (engine.started)
        emit_snapshot (&engine, TRUE);

    if (engine.start_error != NULL) {
        engine.interrupted = TRUE;
        close_never_started (&engine);
        g_propagate_error (error, g_steal_pointer (&engine.start_error));
        engine_clear (&engine);
        return FALSE;
    }

    /* Teardown, before the summary that shows it is built. */
    const ThrongScenarioSummary *teardown = NULL;
    g_autofree char *teardown_warning = NULL;
    if (options->after_load != NULL)
        options->after_load (options->after_load_data, &teardown, &teardown_warning);

    ThrongSummaryBuffer buffer = { 0 };
    engine_summary (&engine, &buffer, engine.total, NULL, 0);
    add_run_warnings (&engine, &buffer);
    if (engine.capacity != NULL)
        throng_capacity_finish (engine.capacity, &buffer.summary, buffer.warnings);
    if (teardown_warning != NULL)
        g_ptr_array_add (buffer.warnings, g_steal_pointer (&teardown_warning));
    buffer.summary.setup = options->setup;
    buffer.summary.teardown = teardown;
    if (engine.shard.size > 0) {
        if (engine.shard.late_us > G_USEC_PER_SEC)
            g_ptr_array_add (buffer.warnings,
                             g_strdup_printf ("started %.1f s after --start-at: this shard's "
                                              "schedule counts from when it started",
                                              (gdouble) engine.shard.late_us / G_USEC_PER_SEC));
        buffer.summary.shard = &engine.shard;
    }
    throng_summary_buffer_finish (&buffer);
    if (options->thresholds != NULL && plan->shard.count > 0) {
        /* A shard's p99 is not the run's: the thresholds go to the merge. */
        const ThrongThresholdResult *results
            = throng_thresholds_evaluate (options->thresholds, &buffer.summary);
        engine.shard_thresholds = g_ptr_array_new_with_free_func (g_free);
        for (guint i = 0; i < throng_thresholds_count (options->thresholds); i++)
            g_ptr_array_add (engine.shard_thresholds, g_strdup (results[i].expression));
        g_ptr_array_add (engine.shard_thresholds, NULL);
        engine.shard.thresholds = (const char *const *) engine.shard_thresholds->pdata;
    } else if (options->thresholds != NULL) {
        buffer.summary.thresholds = throng_thresholds_evaluate (options->thresholds,
                                                                &buffer.summary);
        buffer.summary.n_thresholds = throng_thresholds_count (options->thresholds);
        for (guint i = 0; i < buffer.summary.n_thresholds; i++)
            if (!buffer.summary.thresholds[i].passed)
                result->thresholds_failed++;
    }

    result->outcome = engine.memory_reached != NULL ? THRONG_RUN_OUT_OF_MEMORY
                      : engine.abort_run != NULL    ? THRONG_RUN_ABORTED
                      : engine.interrupted          ? THRONG_RUN_INTERRUPTED
                                                    : THRONG_RUN_COMPLETED;
    result->requests = buffer.summary.total.requests;
    result->errors = buffer.summary.total.errors;
    result->samples_dropped = engine.total->samples_dropped;
    throng_reporter_set_drain (engine.reporters, &buffer);
    result->reporter_failed = !throng_reporter_set_close (engine.reporters, &buffer.summary);

    if (options->keep != NULL) {
        options->keep->buffer = buffer;
        options->keep->metrics = g_steal_pointer (&engine.total);
        options->keep->filled = TRUE;
    } else {
        throng_summary_buffer_clear (&buffer);
    }
    engine_clear (&engine);
    return TRUE;
}

void
throng_engine_kept_clear (ThrongEngineKept *kept)
{
    if (!kept->filled)
        return;
    throng_summary_buffer_clear (&kept->buffer);
    throng_metrics_free (kept->metrics);
    memset (kept, 0, sizeof *kept);
}
