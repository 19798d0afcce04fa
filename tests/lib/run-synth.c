/* SPDX-License-Identifier: MIT */
/*
 * Run files written through the json reporter (run-synth.h).
 */
#include "run-synth.h"

#include <string.h>

#include "custom-metric-private.h"
#include "metrics.h"
#include "node-private.h"
#include "registry.h"

/* Requests of each step per interval. */
#define PER_INTERVAL 40

/* One summary or interval being built: scenario "shop", its steps, checks and metric. */
typedef struct {
    ThrongSummary summary;
    ThrongScenarioSummary scenario;
    ThrongStepSummary *steps;
    ThrongStepInfo *info;
    guint n_steps;          /* the group included */
    ThrongScenarioJourney journey;
    ThrongCheckSummary check;
    ThrongCustomMetric metric;
} Synth;

static void
synth_init (Synth *synth, const ThrongTestRunSpec *spec, char **labels, guint n_steps)
{
    memset (synth, 0, sizeof *synth);
    synth->n_steps = n_steps;
    synth->summary.size = sizeof (ThrongSummary);
    synth->summary.plan_name = "synthetic-run";
    synth->summary.plan_file = "synthetic-run.yaml";
    synth->summary.workers = 2;
    synth->steps = g_new0 (ThrongStepSummary, n_steps);
    synth->info = g_new0 (ThrongStepInfo, n_steps);
    throng_stats_init (&synth->summary.total);
    throng_stats_init (&synth->scenario.stats);
    synth->scenario.name = "shop";
    synth->scenario.users = 4;
    synth->scenario.active_users = 4;
    synth->scenario.steps = synth->steps;
    synth->scenario.n_steps = n_steps;
    for (guint i = 0; i < n_steps; i++) {
        synth->steps[i].label = labels[i];
        synth->steps[i].protocol = "http";
        throng_stats_init (&synth->steps[i].stats);
        gboolean grouped = spec->group && i > 0;
        synth->info[i].kind = spec->group && i == 0 ? THRONG_STEP_GROUP : THRONG_STEP_REQUEST;
        synth->info[i].parent = grouped ? 0 : -1;
        synth->info[i].depth = grouped ? 1 : 0;
    }
    synth->journey.size = sizeof (ThrongScenarioJourney);
    synth->journey.step_info = synth->info;
    if (spec->check) {
        synth->check.name = "status is 200";
        synth->journey.checks = &synth->check;
        synth->journey.n_checks = 1;
    }
    synth->scenario.journey = &synth->journey;
    synth->summary.scenarios = &synth->scenario;
    synth->summary.n_scenarios = 1;
    throng_custom_metric_init (&synth->metric, "cart_ms", THRONG_CUSTOM_TREND);
    if (spec->metric) {
        synth->summary.metrics = &synth->metric;
        synth->summary.n_metrics = 1;
    }
}

static void
synth_clear (Synth *synth)
{
    throng_stats_clear (&synth->summary.total);
    throng_stats_clear (&synth->scenario.stats);
    for (guint i = 0; i < synth->n_steps; i++)
        throng_stats_clear (&synth->steps[i].stats);
    throng_custom_metric_clear (&synth->metric);
    g_free (synth->steps);
    g_free (synth->info);
}

static void
record (ThrongStats *stats, gint64 value, gboolean failed)
{
    throng_histogram_record (stats->latency, value);
    stats->requests++;
    stats->bytes_sent += 100;
    stats->bytes_received += 1000;
    if (failed) {
        stats->errors++;
        stats->errors_by_class[THRONG_ERROR_STATUS]++;
    }
}

/* Adds the requests into the scenario and the total (a group's executions are in neither). */
static void
synth_finish (Synth *synth, const ThrongTestRunSpec *spec)
{
    for (guint i = 0; i < synth->n_steps; i++)
        if (synth->info[i].kind == THRONG_STEP_REQUEST)
            throng_stats_merge (&synth->scenario.stats, &synth->steps[i].stats);
    throng_stats_merge (&synth->summary.total, &synth->scenario.stats);
    synth->scenario.iterations = PER_INTERVAL;
    if (spec->check) {
        synth->check.fails = synth->scenario.stats.errors;
        synth->check.passes = synth->scenario.stats.requests - synth->check.fails;
    }
}

/* Adds @from (an interval) into @into (the summary). */
static void
synth_add (Synth *into, const Synth *from)
{
    throng_stats_merge (&into->summary.total, &from->summary.total);
    throng_stats_merge (&into->scenario.stats, &from->scenario.stats);
    for (guint i = 0; i < into->n_steps; i++)
        throng_stats_merge (&into->steps[i].stats, &from->steps[i].stats);
    throng_custom_metric_merge (&into->metric, &from->metric);
    into->scenario.iterations += from->scenario.iterations;
    into->check.passes += from->check.passes;
    into->check.fails += from->check.fails;
}

/* One interval's requests; @drift is the interval's shared factor. */
static void
synth_interval (Synth *synth, const ThrongTestRunSpec *spec, GRand *rand, gdouble drift,
                guint *request)
{
    guint first = spec->group ? 1 : 0;

    for (guint k = 0; k < PER_INTERVAL; k++) {
        gint64 sum = 0;
        for (guint i = first; i < synth->n_steps; i++) {
            guint step = i - first;
            gdouble scale = spec->scale != NULL ? spec->scale[step] : 1.0;
            gdouble value = 10000.0 * (step + 1) * scale * drift
                            * (0.9 + 0.2 * g_rand_double (rand));
            gboolean failed = step == 0 && spec->errors_every > 0
                              && ++*request % spec->errors_every == 0;
            record (&synth->steps[i].stats, (gint64) value, failed);
            sum += (gint64) value;
        }
        if (spec->group)
            record (&synth->steps[0].stats, sum, FALSE);
        if (spec->metric) {
            g_autofree char *text = g_strdup_printf ("%d", 3 + g_rand_int_range (rand, 0, 4));
            throng_custom_metric_add_text (&synth->metric, text, strlen (text), 0);
        }
    }
    synth_finish (synth, spec);
}

/* Removes the last line of @path: the summary a killed run never wrote. */
static void
drop_last_line (const char *path)
{
    g_autofree char *text = NULL;
    gsize length;

    g_assert_true (g_file_get_contents (path, &text, &length, NULL));
    g_assert_true (length > 1);
    gsize end = length - 1;
    while (end > 0 && text[end - 1] != '\n')
        end--;
    g_assert_true (g_file_set_contents (path, text, (gssize) end, NULL));
}

void
throng_test_run_write (const ThrongTestRunSpec *spec)
{
    guint n_requests = spec->n_steps > 0 ? spec->n_steps : 2;
    guint n_steps = n_requests + (spec->group ? 1 : 0);
    guint intervals = spec->intervals > 0 ? spec->intervals : 20;
    const gint64 start = G_GINT64_CONSTANT (1796300000000000);
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    const ThrongReporter *json = throng_registry_get_reporter (registry, "json", &error);
    g_assert_no_error (error);
    g_autofree char *yaml = g_strdup_printf ("path: \"%s\"\nmode: %s\noverwrite: true\n",
                                             spec->path,
                                             spec->summary_only ? "summary" : "jsonl");
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("run-synth", yaml, strlen (yaml), &error);
    g_assert_no_error (error);
    gpointer state = json->configure (throng_tree_root (tree), &error);
    g_assert_no_error (error);

    char **labels = g_new0 (char *, n_steps + 1);
    const char **protocols = g_new0 (const char *, n_steps + 1);
    for (guint i = 0; i < n_steps; i++) {
        labels[i] = spec->labels != NULL            ? g_strdup (spec->labels[i])
                    : spec->group && i == 0 ? g_strdup ("browse")
                                            : g_strdup_printf ("step %02u",
                                                               i + 1 - (spec->group ? 1 : 0));
        protocols[i] = spec->group && i == 0 ? "group" : "http";
    }
    const char *const names[] = { "shop" };
    const guint users[] = { 4 };
    const char *const *const label_lists[] = { (const char *const *) labels };
    const char *const *const protocol_lists[] = { protocols };
    ThrongRunInfo info = {
        .size = sizeof (ThrongRunInfo),
        .plan_name = "synthetic-run",
        .plan_file = "synthetic-run.yaml",
        .n_scenarios = 1,
        .scenario_names = names,
        .scenario_users = users,
        .step_labels = label_lists,
        .step_protocols = protocol_lists,
        .workers = 2,
        .overwrite = TRUE,
        .plan_sha256 = spec->plan_sha256 != NULL ? spec->plan_sha256 : "synthetic-plan",
    };
    g_assert_true (json->open (state, &info, &error));

    g_autoptr (GRand) rand = g_rand_new_with_seed (spec->seed);
    Synth total;
    synth_init (&total, spec, labels, n_steps);
    gdouble drift = 0;
    guint request = 0;
    for (guint t = 0; t < intervals; t++) {
        Synth snapshot;
        synth_init (&snapshot, spec, labels, n_steps);
        /* An AR(1) drift, ρ = 0.5, ±2%: neighbouring seconds alike, as in a real run. */
        drift = 0.5 * drift + 0.02 * (g_rand_double (rand) * 2 - 1);
        synth_interval (&snapshot, spec, rand, 1.0 + drift, &request);
        snapshot.summary.start_wall_us = start;
        snapshot.summary.elapsed_us = (gint64) (t + 1) * G_USEC_PER_SEC;
        snapshot.summary.end_wall_us = start + snapshot.summary.elapsed_us;
        snapshot.summary.interval_us = G_USEC_PER_SEC;
        snapshot.summary.load_us = G_USEC_PER_SEC;
        snapshot.summary.saturated = spec->saturated && t == intervals / 2;
        if (!spec->summary_only)
            json->snapshot (state, &snapshot.summary);
        synth_add (&total, &snapshot);
        synth_clear (&snapshot);
    }
    total.summary.start_wall_us = start;
    total.summary.elapsed_us = (gint64) intervals * G_USEC_PER_SEC;
    total.summary.end_wall_us = start + total.summary.elapsed_us;
    total.summary.load_us = total.summary.elapsed_us;
    total.summary.planned_us = total.summary.elapsed_us;
    total.summary.cpu_user_us = 300000;
    total.summary.cpu_system_us = 100000;
    total.summary.cpu_share = spec->saturated ? 0.97 : 0.2;
    total.summary.saturated = spec->saturated;
    total.summary.interrupted = spec->interrupted;
    const char *warnings[] = { NULL };
    total.summary.warnings = warnings;
    g_assert_true (json->close (state, &total.summary, &error));
    json->free (state);
    synth_clear (&total);
    g_free (protocols);
    g_strfreev (labels);
    if (spec->no_summary && !spec->summary_only)
        drop_last_line (spec->path);
}
