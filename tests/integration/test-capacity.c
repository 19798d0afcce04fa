/* SPDX-License-Identifier: MIT */
/*
 * The capacity search (docs/capacity.md) against targets whose answer is
 * known.  A target of c slots and a fixed service time S (an in-process
 * SoupServer, throng_test_slots_*) has a hard capacity of c / S: below it
 * a request waits for nothing (arrivals are evenly spaced, so D/D/c), above
 * it the queue and the latency grow without bound.  With c = 4 and
 * S = 20 ms the search must land within ±5% of 200/s.  One worker making a
 * full TLS handshake per request against nginx saturates long before
 * nginx does: the search must say the generator is the limit and claim
 * no capacity.  Two shards split each level and find the same edge.
 */
#include "test-utils.h"

#include <math.h>
#include <string.h>

#define SLOTS 4
#define SERVICE_MS 20
#define CAPACITY (SLOTS * 1000.0 / SERVICE_MS)
/*
 * Below capacity a request takes S plus the machine's jitter; over it by a
 * share x, the wait grows by x per second held, so a level held T seconds
 * fails once x × T passes the margin (objective − S): 60 ms over 3 s,
 * a 2% overshoot at most, and room for a busy machine's 60 ms of jitter.
 */
#define SLO "p99 < 80ms"

typedef struct {
    char *dir;
    ThrongTestSlots *slots;
    ThrongTestSoupServer *server;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->dir = throng_test_tmpdir_new ();
    f->slots = throng_test_slots_new (SLOTS, SERVICE_MS);
    f->server = throng_test_soup_server_start (NULL, throng_test_slots_handler, f->slots);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    throng_test_soup_server_stop (f->server);
    throng_test_slots_free (f->slots);
    throng_test_tmpdir_free (f->dir);
}

/* A capacity scenario against the slots; @keys are the scenario's schedule keys. */
static char *
search_plan (Fixture *f, const char *slo, const char *keys)
{
    /* A shared two-core machine fires throng's timers 10-20 ms late now and then: the lag
     * limit is 50 ms rather than 10, as in /workload/saturation under the sanitizers. */
    return g_strdup_printf ("saturation: { lag: 50ms }\n"
                            "scenarios:\n"
                            "  - name: search\n"
                            "    executor: capacity\n"
                            "    slo: [ \"%s\", \"errors.rate < 1%%\" ]\n"
                            "%s"
                            "    steps:\n"
                            "      - http: { url: \"%s/work\" }\n",
                            slo, keys, throng_test_soup_server_http_url (f->server));
}

static void
print_curve (JsonNode *root)
{
    guint n = throng_test_json_length (root, "capacity.curve");

    g_test_message ("%s", throng_test_json_string (root, "capacity.message"));
    for (guint i = 0; i < n; i++) {
        g_autofree char *prefix = g_strdup_printf ("capacity.curve.%u", i);
        g_autofree char *rate = g_strconcat (prefix, ".rate", NULL);
        g_autofree char *p99 = g_strconcat (prefix, ".p99", NULL);
        g_autofree char *passed = g_strconcat (prefix, ".passed", NULL);
        g_test_message ("  %8.2f/s  p99 %8.1f ms  %s", throng_test_json_double (root, rate),
                        (gdouble) throng_test_json_int (root, p99) / 1000.0,
                        throng_test_json_bool (root, passed) ? "pass" : "fail");
    }
}

/* The levels are consistent with the verdict: every rate at or under the result passed, every
 * rate at or over the first failing one failed. */
static void
assert_curve (JsonNode *root)
{
    gdouble rate = throng_test_json_double (root, "capacity.rate");
    gdouble failing = throng_test_json_double (root, "capacity.failing_rate");
    guint n = throng_test_json_length (root, "capacity.curve");

    g_assert_cmpuint (n, >=, 4);
    for (guint i = 0; i < n; i++) {
        g_autofree char *at = g_strdup_printf ("capacity.curve.%u.rate", i);
        g_autofree char *passed = g_strdup_printf ("capacity.curve.%u.passed", i);
        g_autofree char *requests = g_strdup_printf ("capacity.curve.%u.requests", i);
        g_autofree char *failed = g_strdup_printf ("capacity.curve.%u.failed", i);
        gdouble level = throng_test_json_double (root, at);
        JsonNode *node = throng_test_json_get (root, failed);
        const char *why = node != NULL && JSON_NODE_HOLDS_VALUE (node)
                              ? json_node_get_string (node)
                              : NULL;
        /* A failure in a window where throng saturated at times is held again before it counts. */
        if (why != NULL && strstr (why, "held again") != NULL)
            continue;
        if (level <= rate)
            g_assert_true (throng_test_json_bool (root, passed));
        if (level >= failing)
            g_assert_false (throng_test_json_bool (root, passed));
        g_assert_cmpint (throng_test_json_int (root, requests), >, 0);
    }
}

static void
test_search (Fixture *f, gconstpointer data)
{
    /* 60, 120, 240 (fails), then halving the gap down to 2%: 8 levels of 3 s. */
    g_autofree char *yaml = search_plan (f, SLO, "    rate: { start: 60/s, max: 2000/s }\n"
                                            "    step: 3s\n"
                                            "    warm_up: 1s\n"
                                            "    max_users: 200\n");
    gint64 start = g_get_monotonic_time ();
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, 120, 0, NULL);
    gdouble seconds = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;

    print_curve (root);
    g_test_message ("search took %.1f s", seconds);
    g_assert_cmpstr (throng_test_json_string (root, "capacity.outcome"), ==, "found");
    g_assert_cmpstr (throng_test_json_string (root, "capacity.scenario"), ==, "search");
    gdouble rate = throng_test_json_double (root, "capacity.rate");
    gdouble failing = throng_test_json_double (root, "capacity.failing_rate");
    g_assert_cmpfloat (fabs (rate - CAPACITY) / CAPACITY, <=, 0.05);
    g_assert_cmpfloat (failing, >, rate);
    g_assert_cmpfloat ((failing - rate) / rate, <=, 0.02 + 1e-9);
    g_assert_cmpstr (throng_test_json_string (root, "capacity.objectives.0"), ==,
                     "search." SLO);
    assert_curve (root);
    g_assert_true (throng_test_json_has (root, "capacity.generator_limit"));
}

/* Two shards started together: each runs half of every level and finds the same edge. */
static void
test_shards (Fixture *f, gconstpointer data)
{
    g_autofree char *yaml = search_plan (f, SLO, "    rate: { start: 60/s, max: 2000/s }\n"
                                            "    step: 3s\n"
                                            "    precision: 5%\n"
                                            "    max_users: 200\n");
    g_autofree char *plan = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    const char *start_at = "+3s";
    ThrongTestProcess *shards[2];
    char *summaries[2];

    for (guint i = 0; i < 2; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/2", i);
        g_autofree char *name = g_strdup_printf ("shard%u.json", i);
        summaries[i] = g_build_filename (f->dir, name, NULL);
        g_autofree char *out = throng_test_out_arg ("json", summaries[i]);
        const char *argv[] = { "run", plan, "--quiet", "--out", out,
                               "--shard", shard, "--start-at", start_at, NULL };
        shards[i] = throng_test_spawn (argv, NULL);
    }
    for (guint i = 0; i < 2; i++) {
        int status = -1;
        g_autofree char *err = NULL;
        g_assert_true (throng_test_process_wait (shards[i], 120, &status, NULL, &err));
        if (status != 0)
            g_test_message ("shard %u: %s", i, err);
        g_assert_cmpint (status, ==, 0);
        throng_test_process_free (shards[i]);
    }
    for (guint i = 0; i < 2; i++) {
        g_autoptr (JsonNode) root = throng_test_json_load (summaries[i], NULL);
        g_assert_nonnull (root);
        print_curve (root);
        g_assert_cmpstr (throng_test_json_string (root, "capacity.outcome"), ==, "found");
        /* Rates are the whole run's; each shard sent about half of each level. */
        gdouble rate = throng_test_json_double (root, "capacity.rate");
        g_assert_cmpfloat (fabs (rate - CAPACITY) / CAPACITY, <=, 0.10);
        gdouble first = throng_test_json_double (root, "capacity.curve.0.rate");
        gdouble window = throng_test_json_double (root, "capacity.curve.0.window_s");
        gint64 requests = throng_test_json_int (root, "capacity.curve.0.requests");
        g_assert_cmpfloat (fabs ((gdouble) requests - first * window / 2) / (first * window / 2),
                           <=, 0.1);
        g_free (summaries[i]);
    }
}

/* The proof's plan, as written in docs/capacity.md: run by tests/bench/capacity.sh (-m perf). */
static void
test_accuracy (Fixture *f, gconstpointer data)
{
    if (!g_test_perf ()) {
        g_test_skip ("the accuracy measurement runs with -m perf (tests/bench/capacity.sh)");
        return;
    }
    g_autofree char *yaml = search_plan (f, "p99 < 50ms", "    rate: { start: 50/s, max: 5000/s }\n"
                                            "    step: 5s\n");
    gint64 start = g_get_monotonic_time ();
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, 600, 0, NULL);
    gdouble seconds = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;

    print_curve (root);
    g_print ("capacity-bench: expected %.1f found %.2f failing %.2f error %+.2f%% "
             "levels %u time %.1f s outcome %s\n",
             CAPACITY, throng_test_json_double (root, "capacity.rate"),
             throng_test_json_double (root, "capacity.failing_rate"),
             (throng_test_json_double (root, "capacity.rate") - CAPACITY) / CAPACITY * 100,
             throng_test_json_length (root, "capacity.curve"), seconds,
             throng_test_json_string (root, "capacity.outcome"));
}

/*
 * throng made the bottleneck: one worker, a full TLS handshake for every
 * request against nginx (which makes them several times faster on this
 * machine).  The search must stop at throng's limit and not call it the
 * target's capacity.
 */
static void
test_generator_limit (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestNginxConfig config = { .https = TRUE, .master_process = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);

    if (nginx == NULL)
        return;
    g_autofree char *yaml = g_strdup_printf (
        "scenarios:\n"
        "  - name: heavy\n"
        "    executor: capacity\n"
        "    slo: [ \"p99 < 500ms\" ]\n"
        "    rate: { start: 250/s, max: 64000/s }\n"
        "    step: 2s\n"
        "    max_users: 2000\n"
        "    http:\n"
        "      base_url: '%s'\n"
        "      tls: {verify: false, session: per-iteration, resumption: false}\n"
        "    steps:\n"
        "      - http: {url: /}\n",
        throng_test_nginx_https_url (nginx));
    const char *extra[] = { "--workers", "1", NULL };
    g_autoptr (JsonNode) root = throng_test_run_summary (fixture->dir, yaml, extra, 180, 0, NULL);

    print_curve (root);
    throng_test_summary_print_warnings (root, "heavy");
    g_assert_cmpstr (throng_test_json_string (root, "capacity.outcome"), ==, "generator-limit");
    gdouble limit = throng_test_json_double (root, "capacity.generator_limit");
    g_assert_cmpfloat (limit, >=, 250);
    g_assert_cmpfloat (throng_test_json_double (root, "capacity.rate"), <, limit);
    g_assert_nonnull (strstr (throng_test_json_string (root, "capacity.message"),
                              "the generator is the limit at"));
    g_assert_true (throng_test_summary_has_warning (root, "the generator is the limit at"));
    guint n = throng_test_json_length (root, "capacity.curve");
    g_autofree char *last = g_strdup_printf ("capacity.curve.%u.saturated", n - 1);
    g_assert_true (throng_test_json_bool (root, last));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/capacity/search", Fixture, NULL, fixture_setup, test_search, fixture_teardown);
    g_test_add ("/capacity/shards", Fixture, NULL, fixture_setup, test_shards, fixture_teardown);
    g_test_add ("/capacity/accuracy", Fixture, NULL, fixture_setup, test_accuracy,
                fixture_teardown);
    g_test_add ("/capacity/generator-limit", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_generator_limit, throng_test_tmpdir_teardown);
    return g_test_run ();
}
