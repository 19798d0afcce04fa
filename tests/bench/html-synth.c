/* SPDX-License-Identifier: MIT */
/*
 * Writes a long run's jsonl file through the json reporter itself, for
 * tests/bench/html.sh: the plugin is loaded by the registry and driven as
 * the engine drives it, with INTERVALS one-second snapshots of STEPS steps
 * (two scenarios), each step's latencies drawn from a log-normal-ish mix
 * with a slow tail, and the summary as the merge of them all.
 *
 *   throng-bench-html-synth PATH [INTERVALS [STEPS]]   (default 3600 20)
 */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "node-private.h"
#include "registry.h"

#define SCENARIOS 2

typedef struct {
    ThrongSummary summary;
    ThrongScenarioSummary scenarios[SCENARIOS];
    ThrongStepSummary *steps;
} Run;

static void
run_init (Run *run, guint n_steps, char **labels)
{
    memset (run, 0, sizeof *run);
    run->summary.size = sizeof (ThrongSummary);
    run->summary.plan_name = "synthetic-hour";
    run->summary.plan_file = "synthetic-hour.yaml";
    run->summary.workers = 2;
    run->steps = g_new0 (ThrongStepSummary, n_steps);
    throng_stats_init (&run->summary.total);
    for (guint s = 0; s < SCENARIOS; s++) {
        ThrongScenarioSummary *scenario = &run->scenarios[s];
        scenario->name = s == 0 ? "browse" : "checkout";
        scenario->users = 50;
        scenario->n_steps = n_steps / SCENARIOS;
        scenario->steps = &run->steps[s * (n_steps / SCENARIOS)];
        throng_stats_init (&scenario->stats);
    }
    for (guint i = 0; i < n_steps; i++) {
        run->steps[i].label = labels[i];
        run->steps[i].protocol = "http";
        throng_stats_init (&run->steps[i].stats);
    }
    run->summary.scenarios = run->scenarios;
    run->summary.n_scenarios = SCENARIOS;
}

static void
run_clear (Run *run, guint n_steps)
{
    throng_stats_clear (&run->summary.total);
    for (guint s = 0; s < SCENARIOS; s++)
        throng_stats_clear (&run->scenarios[s].stats);
    for (guint i = 0; i < n_steps; i++)
        throng_stats_clear (&run->steps[i].stats);
    g_free (run->steps);
}

/* One interval of one step: about 50 requests, 2% of them failing. */
static void
fill_step (ThrongStats *stats, GRand *rand, guint step, guint interval)
{
    guint n = 40 + (guint) g_rand_int_range (rand, 0, 20);

    for (guint k = 0; k < n; k++) {
        gdouble base = 2000.0 * (1 + step % 5);
        gdouble value = base * g_rand_double_range (rand, 0.5, 1.5);
        if (g_rand_int_range (rand, 0, 100) == 0)
            value *= 20;    /* the tail */
        if (interval % 600 > 590)
            value *= 5;     /* a slow spell every ten minutes */
        throng_histogram_record (stats->latency, (gint64) value);
        stats->requests++;
        if (g_rand_int_range (rand, 0, 50) == 0) {
            stats->errors++;
            stats->errors_by_class[k % 2 == 0 ? THRONG_ERROR_STATUS : THRONG_ERROR_TIMEOUT]++;
        }
        stats->bytes_sent += 120;
        stats->bytes_received += 2048;
    }
}

int
main (int argc, char **argv)
{
    if (argc < 2) {
        g_printerr ("usage: %s PATH [INTERVALS [STEPS]]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    guint intervals = argc > 2 ? (guint) atoi (argv[2]) : 3600;
    guint n_steps = argc > 3 ? (guint) atoi (argv[3]) : 20;
    n_steps = MAX (SCENARIOS, n_steps - n_steps % SCENARIOS);
    const gint64 start_wall = G_GINT64_CONSTANT (1764684000000000);
    g_autoptr (GError) error = NULL;

    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    const ThrongReporter *json = throng_registry_get_reporter (registry, "json", &error);
    if (json == NULL)
        g_error ("%s", error->message);
    g_autofree char *yaml = g_strdup_printf ("path: \"%s\"\nmode: jsonl\noverwrite: true\n", path);
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("synth", yaml, strlen (yaml), &error);
    gpointer state = tree != NULL ? json->configure (throng_tree_root (tree), &error) : NULL;
    if (state == NULL)
        g_error ("%s", error->message);

    char **labels = g_new0 (char *, n_steps + 1);
    const char **per_scenario[SCENARIOS];
    const char *protocols[64] = { 0 };
    for (guint i = 0; i < n_steps; i++)
        labels[i] = g_strdup_printf ("step %02u", i + 1);
    for (guint i = 0; i < MIN (n_steps, 63u); i++)
        protocols[i] = "http";
    for (guint s = 0; s < SCENARIOS; s++) {
        per_scenario[s] = g_new0 (const char *, n_steps / SCENARIOS + 1);
        memcpy (per_scenario[s], &labels[s * (n_steps / SCENARIOS)],
                sizeof (char *) * (n_steps / SCENARIOS));
    }
    const char *const names[] = { "browse", "checkout" };
    const guint users[] = { 50, 50 };
    const char *const *const protocol_lists[] = { protocols, protocols };
    ThrongRunInfo info = {
        .size = sizeof (ThrongRunInfo),
        .plan_name = "synthetic-hour",
        .plan_file = "synthetic-hour.yaml",
        .n_scenarios = SCENARIOS,
        .scenario_names = names,
        .scenario_users = users,
        .step_labels = (const char *const *const *) per_scenario,
        .step_protocols = protocol_lists,
        .planned_us = (gint64) intervals * G_USEC_PER_SEC,
        .workers = 2,
        .overwrite = TRUE,
    };
    if (!json->open (state, &info, &error))
        g_error ("%s", error->message);

    g_autoptr (GRand) rand = g_rand_new_with_seed (13);
    Run total;
    run_init (&total, n_steps, labels);
    for (guint i = 0; i < intervals; i++) {
        Run snapshot;
        run_init (&snapshot, n_steps, labels);
        for (guint step = 0; step < n_steps; step++) {
            fill_step (&snapshot.steps[step].stats, rand, step, i);
            ThrongScenarioSummary *scenario = &snapshot.scenarios[step / (n_steps / SCENARIOS)];
            throng_stats_merge (&scenario->stats, &snapshot.steps[step].stats);
            throng_stats_merge (&total.steps[step].stats, &snapshot.steps[step].stats);
        }
        for (guint s = 0; s < SCENARIOS; s++) {
            snapshot.scenarios[s].active_users = 50;
            snapshot.scenarios[s].iterations = snapshot.scenarios[s].stats.requests / 10;
            throng_stats_merge (&snapshot.summary.total, &snapshot.scenarios[s].stats);
            throng_stats_merge (&total.scenarios[s].stats, &snapshot.scenarios[s].stats);
            total.scenarios[s].iterations += snapshot.scenarios[s].iterations;
        }
        throng_stats_merge (&total.summary.total, &snapshot.summary.total);
        snapshot.summary.start_wall_us = start_wall;
        snapshot.summary.elapsed_us = (gint64) (i + 1) * G_USEC_PER_SEC;
        snapshot.summary.end_wall_us = start_wall + snapshot.summary.elapsed_us;
        snapshot.summary.interval_us = G_USEC_PER_SEC;
        snapshot.summary.load_us = G_USEC_PER_SEC;
        snapshot.summary.cpu_user_us = 150000;
        snapshot.summary.cpu_system_us = 50000;
        snapshot.summary.cpu_share = i % 600 > 590 ? 0.97 : 0.2;
        snapshot.summary.saturated = snapshot.summary.cpu_share > 0.9;
        snapshot.summary.lag_p99_us = 800;
        json->snapshot (state, &snapshot.summary);
        run_clear (&snapshot, n_steps);
    }
    total.summary.start_wall_us = start_wall;
    total.summary.elapsed_us = (gint64) intervals * G_USEC_PER_SEC;
    total.summary.end_wall_us = start_wall + total.summary.elapsed_us;
    total.summary.load_us = total.summary.elapsed_us;
    total.summary.cpu_user_us = (gint64) intervals * 150000;
    total.summary.cpu_system_us = (gint64) intervals * 50000;
    total.summary.cpu_share = 0.22;
    total.summary.saturated = TRUE;
    const char *warnings[] = { "a synthetic run (tests/bench/html-synth.c)", NULL };
    total.summary.warnings = warnings;
    if (!json->close (state, &total.summary, &error))
        g_error ("%s", error->message);
    json->free (state);
    run_clear (&total, n_steps);
    for (guint s = 0; s < SCENARIOS; s++)
        g_free (per_scenario[s]);
    g_strfreev (labels);
    return 0;
}
