/* SPDX-License-Identifier: MIT */
/*
 * The `parallel` step through the real throng binary: its children run
 * concurrently within one user on the fast transport (three children of
 * 200 ms finish in well under 400 ms, each on a connection of its own,
 * at most `max` and `connections_per_user` at once), its own row spans
 * them (first start to last end) and fails with them, inside a `group`
 * too; the soup transport and a protocol without step_run_concurrent
 * (the `null` test protocol) run them one after another.  Against nginx:
 * over HTTP/1.1 a user uses one connection per concurrent child, kept
 * across iterations; over h2 the children go as concurrent streams on
 * the user's one connection ($connection, $connection_requests), within
 * the server's SETTINGS_MAX_CONCURRENT_STREAMS, and three children of
 * 200 ms on the h2 test server take less than 400 ms.  Load errors are
 * in tests/plans/bad/parallel-*.yaml.
 */
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 120
#define DELAY_MS 200

static void
handler (SoupServer *server, SoupServerMessage *message, const char *path, GHashTable *query,
         gpointer data)
{
    if (g_str_has_prefix (path, "/slow")) {
        throng_test_soup_server_respond_later (message, DELAY_MS, "slow\n");
        return;
    }
    if (strcmp (path, "/fail") == 0) {
        soup_server_message_set_status (message, 500, NULL);
        return;
    }
    soup_server_message_set_status (message, 200, NULL);
    soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "ok\n", 3);
}

static JsonNode *
run_plan (ThrongTestTmpdir *fixture, const ThrongTestPlan *plan)
{
    g_autofree char *yaml = throng_test_plan_yaml (plan);
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_summary (fixture->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    return root;
}

static gint64
step_int (JsonNode *root, guint step, const char *what)
{
    g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.%s", step, what);
    return throng_test_json_int (root, path);
}

static const char three_slow[] = "      - parallel:\n"
                                 "          name: assets\n"
                                 "          steps:\n"
                                 "            - http: { url: /slow/1 }\n"
                                 "            - http: { url: /slow/2 }\n"
                                 "            - http: { url: /slow/3 }\n";

/*
 * fast: three children of 200 ms take about 200 ms together, not 600;
 * each child took its 200 ms; one connection per child, kept.
 */
static void
test_elapsed_fast (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestSoupServer) server = throng_test_soup_server_start (NULL, handler, NULL);
    g_autoptr (JsonNode) root = run_plan (
        fixture, &(ThrongTestPlan){ .transport = "fast",
                                    .base_url = throng_test_soup_server_http_url (server),
                                    .users = 1,
                                    .iterations = 3,
                                    .steps = three_slow });

    /* the parallel's own row is not a request */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 9);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (step_int (root, 0, "stats.requests"), ==, 3);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.min"), >=, DELAY_MS * 1000);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.max"), <, 2 * DELAY_MS * 1000);
    for (guint child = 1; child <= 3; child++) {
        g_assert_cmpint (step_int (root, child, "stats.requests"), ==, 3);
        g_assert_cmpint (step_int (root, child, "stats.latency_us.min"), >=, DELAY_MS * 1000);
    }
    /* one connection per concurrent child, kept across the iterations */
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 3);
}

/*
 * h2: three children of 200 ms as three streams at once on the user's one
 * connection take less than 400 ms (the h2 test server's /slow).
 */
static void
test_elapsed_h2 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestH2Server) server = throng_test_h2_server_new (&error);
    g_autoptr (JsonNode) root = NULL;

    g_assert_no_error (error);
    root = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                 .base_url = throng_test_h2_server_url (server),
                                                 .http = "version: 2",
                                                 .users = 1,
                                                 .iterations = 3,
                                                 .steps = "      - http: { url: /ok }\n"
                                                          "      - parallel:\n"
                                                          "          steps:\n"
                                                          "            - http: { url: /slow }\n"
                                                          "            - http: { url: /slow }\n"
                                                          "            - http: { url: /slow }\n" });
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 12);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (step_int (root, 1, "stats.latency_us.min"), >=, DELAY_MS * 1000);
    g_assert_cmpint (step_int (root, 1, "stats.latency_us.max"), <, 2 * DELAY_MS * 1000);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpuint (throng_test_h2_server_connections (server), ==, 1);
}

/* `max: 2` over four children: two rounds; `connections_per_user: 2` bounds it the same way. */
static void
test_max (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestSoupServer) server = throng_test_soup_server_start (NULL, handler, NULL);
    static const char *const cases[][2] = {
        { "      - parallel:\n"
          "          max: 2\n"
          "          steps:\n"
          "            - http: { url: /slow/1 }\n"
          "            - http: { url: /slow/2 }\n"
          "            - http: { url: /slow/3 }\n"
          "            - http: { url: /slow/4 }\n",
          NULL },
        { "      - parallel:\n"
          "          steps:\n"
          "            - http: { url: /slow/1 }\n"
          "            - http: { url: /slow/2 }\n"
          "            - http: { url: /slow/3 }\n"
          "            - http: { url: /slow/4 }\n",
          "connections_per_user: 2" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (JsonNode) root = run_plan (
            fixture, &(ThrongTestPlan){ .transport = "fast",
                                        .base_url = throng_test_soup_server_http_url (server),
                                        .http = cases[i][1],
                                        .users = 1,
                                        .iterations = 2,
                                        .steps = cases[i][0] });

        g_test_message ("case %u: parallel %" G_GINT64_FORMAT " us", i,
                        step_int (root, 0, "stats.latency_us.min"));
        g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
        g_assert_cmpint (step_int (root, 0, "stats.latency_us.min"), >=, 2 * DELAY_MS * 1000);
        g_assert_cmpint (step_int (root, 0, "stats.latency_us.max"), <, 3 * DELAY_MS * 1000);
        g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 2);
    }
}

/*
 * One after another where the children cannot run at once: the soup
 * transport (one step of a user at a time), and a protocol without
 * step_run_concurrent (`null`).
 */
static void
test_sequential (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestSoupServer) server = throng_test_soup_server_start (NULL, handler, NULL);
    g_autoptr (JsonNode) soup = run_plan (
        fixture, &(ThrongTestPlan){ .transport = "soup",
                                    .base_url = throng_test_soup_server_http_url (server),
                                    .users = 1,
                                    .iterations = 2,
                                    .steps = three_slow });
    g_autoptr (JsonNode) null = run_plan (
        fixture, &(ThrongTestPlan){ .users = 2,
                                    .iterations = 2,
                                    .steps = "      - parallel:\n"
                                             "          steps:\n"
                                             "            - null: { delay: 50ms }\n"
                                             "            - null: { delay: 50ms }\n"
                                             "            - null: { delay: 50ms }\n" });

    g_assert_cmpint (throng_test_json_int (soup, "total.errors"), ==, 0);
    g_assert_cmpint (step_int (soup, 0, "stats.latency_us.min"), >=, 3 * DELAY_MS * 1000);
    g_assert_cmpint (throng_test_json_int (soup, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (null, "total.requests"), ==, 12);
    g_assert_cmpint (step_int (null, 0, "stats.requests"), ==, 4);
    g_assert_cmpint (step_int (null, 0, "stats.latency_us.min"), >=, 150000);
}

/* `throng validate` says that soup runs a parallel's requests one after another. */
static void
test_soup_note (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml
        = throng_test_plan_yaml (&(ThrongTestPlan){ .transport = "soup",
                                                    .base_url = "http://127.0.0.1:9",
                                                    .steps = three_slow });
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (throng_test_runv (30, &out, &err, "validate", plan, NULL), ==, 0);
    g_assert_nonnull (strstr (out, "transport soup runs the requests of a parallel step one "
                                   "after another"));
    g_free (g_steal_pointer (&out));
    g_free (g_steal_pointer (&err));
    g_free (g_steal_pointer (&yaml));
    g_free (g_steal_pointer (&plan));
    /* not for a soup scenario without one */
    yaml = throng_test_plan_yaml (&(ThrongTestPlan){ .transport = "soup",
                                                     .base_url = "http://127.0.0.1:9",
                                                     .steps = "      - http: { url: / }\n" });
    plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_assert_cmpint (throng_test_runv (30, &out, &err, "validate", plan, NULL), ==, 0);
    g_assert_null (strstr (out, "parallel"));
}

/*
 * Inside a group: the group spans the parallel (about one child's time,
 * not three), and a failing child fails the parallel and the group once
 * per iteration, while the other children succeed.
 */
static void
test_in_group (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestSoupServer) server = throng_test_soup_server_start (NULL, handler, NULL);
    g_autoptr (JsonNode) root
        = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                .base_url = throng_test_soup_server_http_url (server),
                                                .users = 2,
                                                .iterations = 2,
                                                .steps = "      - group: page\n"
                                                         "        steps:\n"
                                                         "          - parallel:\n"
                                                         "              steps:\n"
                                                         "                - http: { url: /slow/1 }\n"
                                                         "                - http: { url: /fail }\n"
                                                         "                - http: { url: /slow/2 }\n"
                                                         "          - http: { url: /after }\n" });

    /* steps: 0 group, 1 parallel, 2-4 its children, 5 /after */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 16);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 4);
    g_assert_cmpint (step_int (root, 0, "stats.requests"), ==, 4);
    g_assert_cmpint (step_int (root, 0, "stats.errors"), ==, 4);
    g_assert_cmpint (step_int (root, 1, "stats.errors"), ==, 4);
    g_assert_cmpint (step_int (root, 2, "stats.errors"), ==, 0);
    g_assert_cmpint (step_int (root, 3, "stats.errors"), ==, 4);
    g_assert_cmpint (step_int (root, 5, "stats.errors"), ==, 0);
    g_assert_cmpint (step_int (root, 1, "stats.latency_us.max"), <, 2 * DELAY_MS * 1000);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.min"), >=, DELAY_MS * 1000);
    g_assert_cmpint (step_int (root, 0, "stats.latency_us.max"), <, 2 * DELAY_MS * 1000);
}

/*
 * A parallel at the deepest nesting a plan may have, inside seven groups:
 * while its children run it is a frame on the user's stack like the
 * groups around it, so the stack must have room for it (a missing frame
 * would be written past the stack's end, which the sanitizer run
 * catches), and every group fails with its failing child, once per
 * iteration.
 */
static void
test_deepest (ThrongTestTmpdir *fixture, gconstpointer data)
{
    /* Steps nest at most 8 levels (tests/plans/bad/nesting-too-deep.yaml): the parallel is the 8th. */
    enum { GROUPS = 7, ITERATIONS = 3 };
    g_autoptr (ThrongTestSoupServer) server = throng_test_soup_server_start (NULL, handler, NULL);
    g_autoptr (GString) steps = g_string_new (NULL);
    guint indent = 6;

    for (guint g = 0; g < GROUPS; g++, indent += 4)
        g_string_append_printf (steps, "%*s- group: g%u\n%*s  steps:\n", indent, "", g, indent, "");
    g_string_append_printf (steps,
                            "%*s- parallel:\n"
                            "%*s    steps:\n"
                            "%*s      - http: { url: /ok }\n"
                            "%*s      - http: { url: /fail }\n",
                            indent, "", indent, "", indent, "", indent, "");

    g_autoptr (JsonNode) root
        = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                .base_url = throng_test_soup_server_http_url (server),
                                                .users = 1,
                                                .iterations = ITERATIONS,
                                                .steps = steps->str });

    /* steps: 0 to GROUPS - 1 the groups, then the parallel and its two children */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2 * ITERATIONS);
    for (guint g = 0; g < GROUPS; g++) {
        g_assert_cmpint (step_int (root, g, "stats.requests"), ==, ITERATIONS);
        g_assert_cmpint (step_int (root, g, "stats.errors"), ==, ITERATIONS);
    }
    g_assert_cmpint (step_int (root, GROUPS, "stats.requests"), ==, ITERATIONS);
    g_assert_cmpint (step_int (root, GROUPS, "stats.errors"), ==, ITERATIONS);
    g_assert_cmpint (step_int (root, GROUPS + 1, "stats.errors"), ==, 0);
    g_assert_cmpint (step_int (root, GROUPS + 2, "stats.errors"), ==, ITERATIONS);
}

/* ------------------------------------------------------------------ */
/* Against nginx                                                       */

#define USERS 3
#define ITERATIONS 4

static const char nginx_steps[] = "      - http: { url: /page }\n"
                                  "      - parallel:\n"
                                  "          max: 6\n"
                                  "          steps:\n"
                                  "            - http: { url: /app.js }\n"
                                  "            - http: { url: /style.css }\n"
                                  "            - http: { url: /logo.png }\n";

/* HTTP/1.1: a user holds one connection per concurrent child (the page's reused for one). */
static void
test_nginx_http1 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestNginxConfig config = { 0 };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    ThrongTestNginxLog log;

    if (nginx == NULL)
        return;
    root = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                 .base_url = throng_test_nginx_http_url (nginx),
                                                 .users = USERS,
                                                 .iterations = ITERATIONS,
                                                 .steps = nginx_steps });
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, USERS * ITERATIONS * 4);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, USERS * ITERATIONS * 4, 5000, &log));
    g_assert_cmpuint (log.status_2xx, ==, USERS * ITERATIONS * 4);
    /* nginx answers at once, so a user needs 1 to 3 connections, never more */
    g_assert_cmpuint (log.connections, >=, USERS);
    g_assert_cmpuint (log.connections, <=, USERS * 3);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, log.connections);
}

/*
 * HTTPS: a user's lanes offer the user's own session, so under
 * `per-thread` each user makes one full handshake and every further
 * connection of its resumes; under `per-iteration` every iteration closes
 * them all and begins with a full handshake (nginx's $ssl_session_reused
 * on each connection's first line).
 */
static void
test_nginx_tls (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *policy = data;
    guint full = strcmp (policy, "per-iteration") == 0 ? USERS * ITERATIONS : USERS;
    ThrongTestNginxConfig config = { .https = TRUE };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *http = NULL;
    ThrongTestNginxLog log;

    if (nginx == NULL)
        return;
    http = g_strdup_printf ("tls: { ca_file: '%s', session: %s }",
                            throng_test_nginx_certs (nginx)->ca_cert, policy);
    root = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                 .base_url = throng_test_nginx_https_url (nginx),
                                                 .http = http,
                                                 .users = USERS,
                                                 .iterations = ITERATIONS,
                                                 .steps = nginx_steps });
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, USERS * ITERATIONS * 4, 5000, &log));
    g_test_message ("%u connections, %u full, %u resumed", log.connections,
                    log.connections_not_reused, log.connections_reused);
    g_assert_cmpuint (log.connections_not_reused, ==, full);
    g_assert_cmpuint (log.connections_reused, ==, log.connections - full);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, log.connections);
}

/*
 * h2: the children are streams on the user's one connection, the page's
 * (nginx: one $connection per user, ITERATIONS * 4 requests on each).
 * With nginx's http2_max_concurrent_streams at 2, the third child waits
 * for a stream to end instead of being refused (REFUSED_STREAM would be
 * retried on a new connection, counted in retries).
 */
static void
test_nginx_h2 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    gboolean limited = GPOINTER_TO_INT (data);
    ThrongTestNginxConfig config = {
        .https = TRUE,
        .http2 = TRUE,
        .http_extra = limited ? "  http2_max_concurrent_streams 2;\n" : NULL,
    };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *http = NULL;
    ThrongTestNginxLog log;

    if (nginx == NULL)
        return;
    http = g_strdup_printf ("version: 2, tls: { ca_file: '%s' }",
                            throng_test_nginx_certs (nginx)->ca_cert);
    root = run_plan (fixture, &(ThrongTestPlan){ .transport = "fast",
                                                 .base_url = throng_test_nginx_https_url (nginx),
                                                 .http = http,
                                                 .users = USERS,
                                                 .iterations = ITERATIONS,
                                                 .steps = nginx_steps });
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, USERS * ITERATIONS * 4);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (nginx, USERS * ITERATIONS * 4, 5000, &log));
    g_assert_cmpuint (log.http2, ==, USERS * ITERATIONS * 4);
    g_assert_cmpuint (log.connections, ==, USERS);
    g_assert_cmpuint (log.max_connection_requests, ==, ITERATIONS * 4);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, USERS);
    g_assert_cmpint (throng_test_json_int (root, "total.retries"), ==, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    /* the `null` test protocol */
    g_setenv ("THRONG_PLUGIN_PATH", g_getenv ("THRONG_TEST_PLUGIN_DIR"), TRUE);

#define ADD(path, func)                                                                            \
    g_test_add (path, ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, func,                      \
                throng_test_tmpdir_teardown)
    ADD ("/parallel/elapsed/fast", test_elapsed_fast);
    ADD ("/parallel/elapsed/h2", test_elapsed_h2);
    ADD ("/parallel/max", test_max);
    ADD ("/parallel/sequential", test_sequential);
    ADD ("/parallel/soup-note", test_soup_note);
    ADD ("/parallel/in-group", test_in_group);
    ADD ("/parallel/deepest", test_deepest);
    ADD ("/parallel/nginx/http1", test_nginx_http1);
    g_test_add ("/parallel/nginx/tls/per-thread", ThrongTestTmpdir, "per-thread",
                throng_test_tmpdir_setup, test_nginx_tls, throng_test_tmpdir_teardown);
    g_test_add ("/parallel/nginx/tls/per-iteration", ThrongTestTmpdir, "per-iteration",
                throng_test_tmpdir_setup, test_nginx_tls, throng_test_tmpdir_teardown);
    g_test_add ("/parallel/nginx/h2", ThrongTestTmpdir, GINT_TO_POINTER (FALSE),
                throng_test_tmpdir_setup, test_nginx_h2, throng_test_tmpdir_teardown);
    g_test_add ("/parallel/nginx/h2-max-streams", ThrongTestTmpdir, GINT_TO_POINTER (TRUE),
                throng_test_tmpdir_setup, test_nginx_h2, throng_test_tmpdir_teardown);
#undef ADD
    return g_test_run ();
}
