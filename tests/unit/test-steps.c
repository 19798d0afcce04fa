/* SPDX-License-Identifier: MIT */
/*
 * The step tree end to end, through the real throng binary and the
 * `null` test protocol: `once`, `group` (its own row, a transaction that
 * spans its children and fails with them, left out of the scenario's and
 * the run's requests), `repeat`, `choose` (weights over 10,000 draws),
 * `pause` anywhere but in `parallel`, data sets that stop or hand each
 * row to one user, and `-e` overriding
 * the environment for `${env.*}` anywhere in the plan.
 */
#include "dataset-private.h"
#include "plan.h"
#include "summary-private.h"
#include "template-private.h"
#include "test-utils.h"
#include "worker.h"

#include <string.h>

static JsonNode *
run_plan (ThrongTestTmpdir *fixture, const char *yaml, const char *const *extra)
{
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_summary (fixture->dir, yaml, extra, 120, 0, &err);

    throng_test_assert_no_glib_noise (err);
    return root;
}

static gint64
step_int (JsonNode *root, guint step, const char *what)
{
    g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.%s", step, what);
    return throng_test_json_int (root, path);
}

static void
test_tree (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (fixture,
                                          "scenarios:\n"
                                          "  - name: tree\n"
                                          "    users: 3\n"
                                          "    iterations: 4\n"
                                          "    steps:\n"
                                          "      - name: login\n"
                                          "        once: true\n"
                                          "        null: {}\n"
                                          "      - set: { q: 'x-${user.id}-${iteration}' }\n"
                                          "      - group: browse\n"
                                          "        steps:\n"
                                          "          - name: list\n"
                                          "            null: {delay: 5ms}\n"
                                          "          - repeat: 2\n"
                                          "            steps:\n"
                                          "              - name: item\n"
                                          "                null: {delay: 5ms, fail: status}\n"
                                          "      - group: empty-after-first\n"
                                          "        steps:\n"
                                          "          - name: once-inside\n"
                                          "            once: true\n"
                                          "            null: {}\n"
                                          "      - name: last\n"
                                          "        null: {}\n",
                                          NULL);

    /* steps in plan order, a group before its children */
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.0.label"), ==, "login");
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.1.label"), ==, "browse");
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.1.protocol"), ==, "group");
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.3.label"), ==, "item");
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.4.label"), ==,
                     "empty-after-first");
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==, 7);

    g_assert_cmpint (step_int (root, 0, "stats.requests"), ==, 3);      /* once per user */
    g_assert_cmpint (step_int (root, 1, "stats.requests"), ==, 3 * 4);  /* a transaction each */
    g_assert_cmpint (step_int (root, 1, "stats.errors"), ==, 3 * 4);    /* failed with a child */
    g_assert_cmpint (step_int (root, 1, "stats.errors_by_class.status"), ==, 3 * 4);
    g_assert_cmpint (step_int (root, 2, "stats.requests"), ==, 3 * 4);
    g_assert_cmpint (step_int (root, 3, "stats.requests"), ==, 3 * 4 * 2);
    /* a group whose children did not run has no transaction */
    g_assert_cmpint (step_int (root, 4, "stats.requests"), ==, 3);
    g_assert_cmpint (step_int (root, 5, "stats.requests"), ==, 3);
    g_assert_cmpint (step_int (root, 6, "stats.requests"), ==, 3 * 4);

    /* groups are not requests: the scenario and the total count requests only */
    gint64 requests = 3 + 12 + 24 + 3 + 12;
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.stats.requests"), ==, requests);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, requests);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 24);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 3 * 4);

    /* the transaction spans its three children (5 ms each) and what lies between */
    g_assert_cmpint (step_int (root, 1, "stats.latency_us.min"), >=,
                     step_int (root, 2, "stats.latency_us.min")
                         + 2 * step_int (root, 3, "stats.latency_us.min"));
    g_assert_cmpint (step_int (root, 1, "stats.latency_us.min"), >=, 15000);
}

/* 10,000 iterations of a 70/20/10 choose: each branch within 2 points of its weight. */
static void
test_choose (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (fixture,
                                          "scenarios:\n"
                                          "  - name: mix\n"
                                          "    users: 10\n"
                                          "    iterations: 1000\n"
                                          "    steps:\n"
                                          "      - choose:\n"
                                          "          - weight: 70\n"
                                          "            steps: [ { name: browse, null: {} } ]\n"
                                          "          - weight: 20\n"
                                          "            steps: [ { name: search, null: {} } ]\n"
                                          "          - weight: 10\n"
                                          "            steps:\n"
                                          "              - name: checkout\n"
                                          "                null: {}\n"
                                          "              - name: pay\n"
                                          "                null: {}\n",
                                          NULL);
    const double weights[] = { 0.70, 0.20, 0.10 };

    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 10000);
    for (guint b = 0; b < 3; b++) {
        double share = step_int (root, b, "stats.requests") / 10000.0;
        g_test_message ("branch %u: %.4f (weight %.2f)", b, share, weights[b]);
        g_assert_cmpfloat (share, >=, weights[b] - 0.02);
        g_assert_cmpfloat (share, <=, weights[b] + 0.02);
    }
    /* a branch's steps all run */
    g_assert_cmpint (step_int (root, 3, "stats.requests"), ==, step_int (root, 2, "stats.requests"));
}

static char *
write_rows (ThrongTestTmpdir *fixture, guint rows)
{
    g_autoptr (GString) text = g_string_new ("id,name\n");
    g_autoptr (GError) error = NULL;
    char *path = g_build_filename (fixture->dir, "rows.csv", NULL);

    for (guint i = 1; i <= rows; i++)
        g_string_append_printf (text, "%u,\"user %u\"\n", i, i);
    g_assert_true (g_file_set_contents (path, text->str, text->len, &error));
    return path;
}

/* `stop`: the users end when the rows run out, not after their iterations. */
static void
test_data_stop (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *rows = write_rows (fixture, 5);
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - users: 2\n"
                                             "    iterations: 10\n"
                                             "    data: {file: '%s', on_exhausted: stop}\n"
                                             "    steps:\n"
                                             "      - set: {n: '${data.name}'}\n"
                                             "      - null: {}\n",
                                             rows);
    g_autoptr (JsonNode) root = run_plan (fixture, yaml, NULL);

    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 5);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 5);
    g_assert_cmpint (throng_test_json_int (root, "interrupted_iterations"), ==, 0);
}

/* `unique` + `per-user`: a row each, kept for every iteration; recycled otherwise. */
static void
test_data_unique (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *rows = write_rows (fixture, 3);
    g_autofree char *unique = g_strdup_printf ("scenarios:\n"
                                               "  - users: 3\n"
                                               "    iterations: 4\n"
                                               "    data: {file: '%s', mode: unique, advance: "
                                               "per-user}\n"
                                               "    steps:\n"
                                               "      - null: {}\n",
                                               rows);
    g_autoptr (JsonNode) root = run_plan (fixture, unique, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 12);

    g_autofree char *recycled = g_strdup_printf ("scenarios:\n"
                                                 "  - users: 2\n"
                                                 "    iterations: 10\n"
                                                 "    data: {file: '%s'}\n"
                                                 "    steps:\n"
                                                 "      - null: {}\n",
                                                 rows);
    g_autoptr (JsonNode) again = run_plan (fixture, recycled, NULL);
    g_assert_cmpint (throng_test_json_int (again, "total.requests"), ==, 20);
}

/* Every step `once`: a user stops after its first iteration instead of idling through empty ones. */
static void
test_all_once (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (fixture,
                                          "scenarios:\n"
                                          "  - users: 4\n"
                                          "    duration: 30s\n"
                                          "    steps:\n"
                                          "      - once: true\n"
                                          "        null: {}\n",
                                          NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 4);
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), <, 20.0);
}

/*
 * `pause` inside repeat, choose, once and at a group's edges: nothing
 * recorded for it (no row, no request), the iteration and a group that
 * ends with a pause each take at least the pauses' time, a uniform pause
 * stays within its bounds.
 */
static void
test_pause (ThrongTestTmpdir *fixture, gconstpointer data)
{
    gint64 start = g_get_monotonic_time ();
    g_autoptr (JsonNode) root = run_plan (fixture,
                                          "scenarios:\n"
                                          "  - users: 2\n"
                                          "    iterations: 2\n"
                                          "    steps:\n"
                                          "      - once: true\n"
                                          "        pause: 50ms\n"
                                          "      - group: waits\n"
                                          "        steps:\n"
                                          "          - name: first\n"
                                          "            null: {}\n"
                                          "          - repeat: 2\n"
                                          "            steps:\n"
                                          "              - pause: { min: 20ms, max: 30ms }\n"
                                          "          - choose:\n"
                                          "              - steps: [ { pause: 10ms } ]\n"
                                          "          - pause: 40ms\n",
                                          NULL);
    gint64 took_us = g_get_monotonic_time () - start;

    /* The group and its one request: pauses have no row. */
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 4);
    /* The group spans its pauses, the last one included: 2 × 20 + 10 + 40 ms at least. */
    g_assert_cmpint (step_int (root, 0, "stats.requests"), ==, 4);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.min"), >=, 90000);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.max"), <, 2000000);
    /* Each user: 50 ms once, then two iterations of at least 90 ms. */
    g_assert_cmpint (took_us, >=, 230000);
}

/*
 * An open-model iteration that begins with a pause: its first request is
 * measured from when it was due, the pause's end, not from the arrival
 * (which would put the pause in its latency).
 */
static void
test_pause_open (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (fixture,
                                          "scenarios:\n"
                                          "  - executor: constant-arrival-rate\n"
                                          "    rate: 10/s\n"
                                          "    duration: 1s\n"
                                          "    max_users: 20\n"
                                          "    steps:\n"
                                          "      - pause: 200ms\n"
                                          "      - name: after\n"
                                          "        null: {}\n",
                                          NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), >=, 5);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.max"), <, 100000);
}

/* `${env.*}` in a setting that is not a template; `-e` wins over the environment. */
static void
test_env (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *const extra[] = { "-e", "THRONG_TEST_PLAN=from-cli", NULL };
    const char *yaml = "name: '${env.THRONG_TEST_PLAN:-dflt}-${env.THRONG_TEST_UNSET:-x}'\n"
                       "scenarios:\n"
                       "  - users: 1\n"
                       "    steps:\n"
                       "      - null: {}\n";

    g_setenv ("THRONG_TEST_PLAN", "from-env", TRUE);
    g_unsetenv ("THRONG_TEST_UNSET");
    g_autoptr (JsonNode) cli = run_plan (fixture, yaml, extra);
    g_assert_cmpstr (throng_test_json_string (cli, "plan.name"), ==, "from-cli-x");
    g_autoptr (JsonNode) env = run_plan (fixture, yaml, NULL);
    g_assert_cmpstr (throng_test_json_string (env, "plan.name"), ==, "from-env-x");
    g_unsetenv ("THRONG_TEST_PLAN");
}

/*
 * The summary's journey, from a loaded plan and a metrics block: step
 * kinds, parents and depths, checks by name with their counts, the data
 * set's state; group rows kept out of the scenario's figures.
 */
static void
test_summary_journey (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *rows = write_rows (fixture, 1);
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - users: 1\n"
                                             "    data: {file: '%s', on_exhausted: stop}\n"
                                             "    steps:\n"
                                             "      - name: first\n"
                                             "        null: {}\n"
                                             "      - group: outer\n"
                                             "        steps:\n"
                                             "          - choose:\n"
                                             "              - steps:\n"
                                             "                  - group: inner\n"
                                             "                    steps: [ { name: deep, null: {} } ]\n"
                                             "          - name: shallow\n"
                                             "            null: {}\n",
                                             rows);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = throng_plan_load (path, registry, &options, &error);

    g_assert_no_error (error);
    ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, 0);
    /* what a protocol would do in step_new */
    g_assert_cmpuint (throng_scope_add_check (scenario->scope, "status is 200"), ==, 0);
    g_assert_cmpuint (throng_scope_add_check (scenario->scope, "body has token"), ==, 1);

    g_autoptr (ThrongMetrics) metrics = throng_plan_metrics_new (plan);
    ThrongSample request = { .elapsed_us = 1000 };
    ThrongSample group = { .elapsed_us = 5000, .error = THRONG_ERROR_STATUS };
    throng_stats_record (throng_metrics_step (metrics, 0, 0), &request);
    throng_stats_record (throng_metrics_step (metrics, 0, 3), &request);
    throng_stats_record (throng_metrics_step (metrics, 0, 1), &group);
    metrics->check_passes[1] = 7;
    metrics->check_fails[1] = 2;

    guint row;
    g_assert_true (throng_dataset_next_row (scenario->data->sets[0], NULL, &row));
    g_assert_false (throng_dataset_next_row (scenario->data->sets[0], NULL, &row));

    ThrongSummaryBuffer buffer = { 0 };
    ThrongSummaryRun run = { .plan = plan, .workers = 1, .started = TRUE };
    throng_summary_buffer_fill (&buffer, &run, metrics, NULL, 0);
    throng_summary_buffer_finish (&buffer);

    const ThrongScenarioSummary *out = &buffer.summary.scenarios[0];
    g_assert_cmpuint (out->n_steps, ==, 5);
    g_assert_cmpstr (out->steps[1].label, ==, "outer");
    g_assert_cmpstr (out->steps[1].protocol, ==, "group");
    g_assert_cmpstr (out->steps[2].label, ==, "inner");
    g_assert_cmpstr (out->steps[3].label, ==, "deep");
    g_assert_cmpstr (out->steps[4].label, ==, "shallow");
    /* the group's sample is its own row only */
    g_assert_cmpuint (out->steps[1].stats.requests, ==, 1);
    g_assert_cmpuint (out->stats.requests, ==, 2);
    g_assert_cmpuint (out->stats.errors, ==, 0);
    g_assert_cmpuint (buffer.summary.total.requests, ==, 2);

    const ThrongScenarioJourney *journey = out->journey;
    g_assert_nonnull (journey);
    g_assert_cmpuint (journey->size, ==, sizeof (ThrongScenarioJourney));
    static const struct {
        ThrongStepKind kind;
        gint parent;
        guint depth;
    } expected[] = {
        { THRONG_STEP_REQUEST, -1, 0 }, { THRONG_STEP_GROUP, -1, 0 }, { THRONG_STEP_GROUP, 1, 1 },
        { THRONG_STEP_REQUEST, 2, 2 },  { THRONG_STEP_REQUEST, 1, 1 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
        g_assert_cmpint (journey->step_info[i].kind, ==, expected[i].kind);
        g_assert_cmpint (journey->step_info[i].parent, ==, expected[i].parent);
        g_assert_cmpuint (journey->step_info[i].depth, ==, expected[i].depth);
    }
    g_assert_cmpuint (journey->n_checks, ==, 2);
    g_assert_cmpstr (journey->checks[0].name, ==, "status is 200");
    g_assert_cmpstr (journey->checks[1].name, ==, "body has token");
    g_assert_cmpuint (journey->checks[1].passes, ==, 7);
    g_assert_cmpuint (journey->checks[1].fails, ==, 2);
    g_assert_true (journey->data_exhausted);
    throng_summary_buffer_clear (&buffer);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_setenv ("THRONG_PLUGIN_PATH", g_getenv ("THRONG_TEST_PLUGIN_DIR"), TRUE);

#define ADD(path, fn)                                                                             \
    g_test_add (path, ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, fn,                     \
                throng_test_tmpdir_teardown)
    ADD ("/steps/tree", test_tree);
    ADD ("/steps/choose/weights", test_choose);
    ADD ("/steps/data/stop", test_data_stop);
    ADD ("/steps/data/unique-per-user", test_data_unique);
    ADD ("/steps/once/all", test_all_once);
    ADD ("/steps/pause", test_pause);
    ADD ("/steps/pause/open", test_pause_open);
    ADD ("/steps/env", test_env);
    ADD ("/steps/summary/journey", test_summary_journey);
    return g_test_run ();
}
