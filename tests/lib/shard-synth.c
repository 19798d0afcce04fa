/* SPDX-License-Identifier: MIT */
/*
 * Shard summaries written through the json reporter (shard-synth.h).
 */
#include "shard-synth.h"

#include <string.h>

#include "metrics.h"
#include "node-private.h"
#include "registry.h"

typedef struct {
    ThrongSummary summary;
    ThrongScenarioSummary scenario;
    ThrongStepSummary *steps;
    guint n_steps;
    ThrongScenarioJourney journey;
    ThrongCheckSummary check;
} Synth;

static void
synth_init (Synth *synth, guint n_steps, char **labels)
{
    memset (synth, 0, sizeof *synth);
    synth->n_steps = n_steps;
    synth->summary.size = sizeof (ThrongSummary);
    synth->summary.plan_name = "synthetic-shards";
    synth->summary.plan_file = "synthetic-shards.yaml";
    synth->summary.workers = 2;
    synth->steps = g_new0 (ThrongStepSummary, n_steps);
    throng_stats_init (&synth->summary.total);
    throng_stats_init (&synth->scenario.stats);
    synth->scenario.name = "s";
    synth->scenario.users = 10;
    synth->scenario.steps = synth->steps;
    synth->scenario.n_steps = n_steps;
    for (guint i = 0; i < n_steps; i++) {
        synth->steps[i].label = labels[i];
        synth->steps[i].protocol = "http";
        throng_stats_init (&synth->steps[i].stats);
    }
    synth->summary.scenarios = &synth->scenario;
    synth->summary.n_scenarios = 1;
}

static void
synth_clear (Synth *synth)
{
    throng_stats_clear (&synth->summary.total);
    throng_stats_clear (&synth->scenario.stats);
    for (guint i = 0; i < synth->n_steps; i++)
        throng_stats_clear (&synth->steps[i].stats);
    g_free (synth->steps);
}

static void
record (Synth *synth, guint step, gint64 value)
{
    ThrongStats *stats = &synth->steps[step].stats;

    throng_histogram_record (stats->latency, value);
    stats->requests++;
    stats->bytes_sent += 100;
    stats->bytes_received += 1000;
}

/*
 * Adds the steps up into the scenario and the total, and counts
 * iterations; with @check, a check that every request passed.
 */
static void
synth_finish (Synth *synth, const char *check)
{
    for (guint i = 0; i < synth->n_steps; i++)
        throng_stats_merge (&synth->scenario.stats, &synth->steps[i].stats);
    throng_stats_merge (&synth->summary.total, &synth->scenario.stats);
    synth->scenario.iterations = synth->n_steps > 0 ? synth->steps[0].stats.requests : 0;
    if (check == NULL)
        return;
    synth->check.name = check;
    synth->check.passes = synth->scenario.stats.requests;
    synth->journey.size = sizeof (ThrongScenarioJourney);
    synth->journey.checks = &synth->check;
    synth->journey.n_checks = 1;
    synth->scenario.journey = &synth->journey;
}

void
throng_test_shard_write (const ThrongTestShardSpec *spec)
{
    guint n_steps = MAX (spec->n_steps, 1);
    gint64 start = spec->start_wall_us != 0 ? spec->start_wall_us
                                            : G_GINT64_CONSTANT (1796300000000000);
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    const ThrongReporter *json = throng_registry_get_reporter (registry, "json", &error);
    g_assert_no_error (error);

    g_autofree char *yaml = g_strdup_printf ("path: \"%s\"\nmode: %s\noverwrite: true\n",
                                             spec->path, spec->jsonl ? "jsonl" : "summary");
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("shard-synth", yaml, strlen (yaml),
                                                        &error);
    g_assert_no_error (error);
    gpointer state = json->configure (throng_tree_root (tree), &error);
    g_assert_no_error (error);

    char **labels = g_new0 (char *, n_steps + 1);
    const char **protocols = g_new0 (const char *, n_steps + 1);
    for (guint i = 0; i < n_steps; i++) {
        labels[i] = g_strdup_printf ("step %02u", i + 1);
        protocols[i] = "http";
    }
    const char *const names[] = { "s" };
    const guint users[] = { 10 };
    const char *const *const label_lists[] = { (const char *const *) labels };
    const char *const *const protocol_lists[] = { protocols };
    ThrongRunInfo info = {
        .size = sizeof (ThrongRunInfo),
        .plan_name = "synthetic-shards",
        .plan_file = "synthetic-shards.yaml",
        .n_scenarios = 1,
        .scenario_names = names,
        .scenario_users = users,
        .step_labels = label_lists,
        .step_protocols = protocol_lists,
        .workers = 2,
        .overwrite = TRUE,
        .plan_sha256 = "synthetic-file",
    };
    g_assert_true (json->open (state, &info, &error));

    g_autoptr (GRand) rand = g_rand_new_with_seed (7 + spec->index);
    for (guint t = 0; spec->jsonl && t < spec->intervals; t++) {
        Synth snapshot;
        synth_init (&snapshot, n_steps, labels);
        for (guint i = 0; i < n_steps; i++)
            for (guint k = 0; k < 5; k++)
                record (&snapshot, i, 1000 + g_rand_int_range (rand, 0, 20000));
        synth_finish (&snapshot, spec->check);
        snapshot.scenario.active_users = 10;
        snapshot.summary.start_wall_us = start;
        snapshot.summary.elapsed_us = (gint64) (t + 1) * G_USEC_PER_SEC;
        snapshot.summary.end_wall_us = start + snapshot.summary.elapsed_us;
        snapshot.summary.interval_us = G_USEC_PER_SEC;
        snapshot.summary.load_us = G_USEC_PER_SEC;
        json->snapshot (state, &snapshot.summary);
        synth_clear (&snapshot);
    }

    Synth total;
    synth_init (&total, n_steps, labels);
    for (guint i = 0; i < n_steps; i++) {
        for (gsize k = 0; k < spec->n_latencies; k++)
            record (&total, i, spec->latencies[k]);
        for (guint k = 0; k < spec->synthetic_requests; k++)
            record (&total, i, 500 + g_rand_int_range (rand, 0, 200000));
    }
    synth_finish (&total, spec->check);
    ThrongShardSummary shard = {
        .size = sizeof (ThrongShardSummary),
        .index = spec->index,
        .count = spec->count,
        .plan_sha256 = spec->plan_sha256 != NULL ? spec->plan_sha256 : "synthetic",
        .throng_version = spec->throng_version != NULL ? spec->throng_version
                                                       : THRONG_VERSION_STRING,
        .start_wall_us = start,
        .clock = "CLOCK_REALTIME (synthetic)",
        .thresholds = spec->thresholds,
    };
    total.summary.start_wall_us = start;
    total.summary.elapsed_us = 10 * G_USEC_PER_SEC;
    total.summary.end_wall_us = start + total.summary.elapsed_us;
    total.summary.load_us = total.summary.elapsed_us;
    total.summary.cpu_user_us = 300000;
    total.summary.cpu_system_us = 100000;
    total.summary.cpu_share = spec->saturated ? 0.97 : 0.2;
    total.summary.saturated = spec->saturated;
    total.summary.shard = spec->count > 0 ? &shard : NULL;
    const char *warnings[] = { NULL };
    total.summary.warnings = warnings;
    g_assert_true (json->close (state, &total.summary, &error));
    json->free (state);
    synth_clear (&total);
    g_free (protocols);
    g_strfreev (labels);
}
