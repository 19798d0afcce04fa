/* SPDX-License-Identifier: MIT */
/*
 * Turning a block of metrics into the ThrongSummary reporters receive:
 * per step, per scenario and in total, with the run's clock, CPU and
 * state, in memory the buffer owns until it is cleared.
 */
#include "summary-private.h"

#include <string.h>

#include "dataset-private.h"
#include "schedule.h"
#include "template-private.h"

/*
 * 0.2 appended the scheduled figures in ThrongScenarioSummary's reserved
 * slots: the struct keeps the size of 0.1, which is the stride of the
 * scenarios array a 0.1 plugin walks.
 */
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (offsetof (ThrongScenarioSummary, scheduled_users) == 280);
G_STATIC_ASSERT (sizeof (ThrongScenarioSummary) == 304);
#endif

/* Checks, the steps' kinds and nesting, and the data set's state of scenario @s. */
static void
fill_journey (ThrongSummaryBuffer *buffer, guint s, const ThrongPlanScenario *scenario,
              const ThrongMetrics *metrics)
{
    ThrongScenarioJourney *journey = &buffer->journeys[s];
    guint first = metrics->first_check[s];

    journey->size = sizeof *journey;
    journey->n_checks = metrics->first_check[s + 1] - first;
    journey->checks = &buffer->checks[first];
    for (guint c = 0; c < journey->n_checks; c++) {
        ThrongCheckSummary *check = &buffer->checks[first + c];
        check->name = scenario->scope != NULL && c < throng_scope_n_checks (scenario->scope)
                          ? g_ptr_array_index (scenario->scope->checks, c)
                          : "";
        check->passes = metrics->check_passes[first + c];
        check->fails = metrics->check_fails[first + c];
    }
    journey->step_info = scenario->step_info;
    /* borrowed like the steps' stats */
    journey->retry_attempts = &metrics->retried[metrics->first_step[s]];
    journey->retry_attempts_total = 0;
    for (guint i = 0; i < scenario->steps->len; i++)
        journey->retry_attempts_total += journey->retry_attempts[i];
    journey->data_exhausted
        = scenario->data != NULL && throng_data_is_exhausted (scenario->data);
}

void
throng_summary_buffer_fill (ThrongSummaryBuffer *buffer, const ThrongSummaryRun *run,
                            ThrongMetrics *metrics, const guint *active, gint64 interval_us)
{
    const ThrongPlan *plan = run->plan;
    ThrongSummary *summary = &buffer->summary;
    gint64 now = run->end_us != 0 ? run->end_us : g_get_monotonic_time ();
    guint n_steps = metrics->first_step[metrics->n_scenarios];

    summary->size = sizeof (ThrongSummary);
    summary->plan_name = plan->name;
    summary->plan_file = plan->file;
    summary->start_wall_us = run->start_wall_us;
    summary->end_wall_us = now + run->wall_offset_us;
    summary->elapsed_us = now - run->start_us;
    summary->planned_us = run->planned_us;
    summary->interval_us = interval_us;
    summary->cpu_user_us = run->cpu_user_us;
    summary->cpu_system_us = run->cpu_system_us;
    summary->workers = run->workers;
    summary->interrupted = run->interrupted;

    buffer->scenarios = g_new0 (ThrongScenarioSummary, MAX (metrics->n_scenarios, 1));
    buffer->steps = g_new0 (ThrongStepSummary, MAX (n_steps, 1));
    buffer->journeys = g_new0 (ThrongScenarioJourney, MAX (metrics->n_scenarios, 1));
    buffer->checks = g_new0 (ThrongCheckSummary, MAX (metrics->first_check[metrics->n_scenarios], 1));
    throng_stats_init (&summary->total);
    for (guint s = 0; s < metrics->n_scenarios; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        ThrongScenarioSummary *out = &buffer->scenarios[s];

        out->name = scenario->name;
        out->users = throng_shard_users (&plan->shard, scenario->users);
        out->active_users = active != NULL ? active[s] : 0;
        out->iterations = metrics->iterations[s];
        out->dropped_iterations = metrics->dropped[s];
        /* What the schedule wants now, at the end of the interval or the run. */
        throng_schedule_wanted (scenario, summary->elapsed_us - scenario->start_after_us,
                                &out->scheduled_users, &out->scheduled_rate);
        /* A shard's part: users u < wanted with u mod N == I; a rate's Nth. */
        out->scheduled_users = throng_shard_users (&plan->shard, out->scheduled_users);
        out->scheduled_rate /= throng_shard_count (&plan->shard);
        out->has_scheduled = TRUE;
        out->steps = &buffer->steps[metrics->first_step[s]];
        out->n_steps = scenario->steps->len;
        throng_stats_init (&out->stats);
        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            ThrongStepSummary *step_out = &buffer->steps[metrics->first_step[s] + i];

            step_out->label = step->label;
            step_out->protocol = step->protocol_name;
            step_out->stats = *throng_metrics_step (metrics, s, i);
            /* a group's samples are transactions, not requests: its own row only */
            if (step->kind == THRONG_STEP_REQUEST)
                throng_stats_merge (&out->stats, &step_out->stats);
        }
        fill_journey (buffer, s, scenario, metrics);
        out->journey = &buffer->journeys[s];
        summary->retry_attempts += buffer->journeys[s].retry_attempts_total;
        throng_stats_merge (&summary->total, &out->stats);
    }
    summary->scenarios = buffer->scenarios;
    summary->n_scenarios = metrics->n_scenarios;
    summary->lag_p99_us = throng_histogram_percentile (metrics->lag, 99.0);
    summary->loop_delay_max_us = metrics->loop_delay_max_us;
    summary->samples_dropped = metrics->samples_dropped;
    if (interval_us > 0)
        summary->load_us = interval_us;
    else if (metrics->last_done_us > 0)
        summary->load_us = metrics->last_done_us - run->start_us;
    summary->interrupted_iterations = metrics->interrupted;
    summary->never_started = !run->started;
    /* borrowed like the steps' stats: the block outlives the reporters' call */
    summary->metrics = metrics->n_custom > 0 ? metrics->custom : NULL;
    summary->n_metrics = metrics->n_custom;

    buffer->warnings = g_ptr_array_new_with_free_func (g_free);
}

void
throng_summary_buffer_finish (ThrongSummaryBuffer *buffer)
{
    g_ptr_array_add (buffer->warnings, NULL);
    buffer->summary.warnings = (const char *const *) buffer->warnings->pdata;
}

void
throng_summary_buffer_add_warnings (ThrongSummaryBuffer *buffer, char **warnings)
{
    if (warnings == NULL)
        return;
    /* Before the terminator that throng_summary_buffer_finish() added. */
    g_ptr_array_set_size (buffer->warnings, buffer->warnings->len - 1);
    for (char **w = warnings; *w != NULL; w++)
        g_ptr_array_add (buffer->warnings, *w);
    g_free (warnings);
    throng_summary_buffer_finish (buffer);
}

void
throng_summary_buffer_clear (ThrongSummaryBuffer *buffer)
{
    for (guint i = 0; i < buffer->summary.n_scenarios; i++)
        throng_stats_clear (&buffer->scenarios[i].stats);
    throng_stats_clear (&buffer->summary.total);
    g_free (buffer->scenarios);
    g_free (buffer->steps);
    g_free (buffer->journeys);
    g_free (buffer->checks);
    if (buffer->warnings != NULL)
        g_ptr_array_unref (buffer->warnings);
    memset (buffer, 0, sizeof *buffer);
}
