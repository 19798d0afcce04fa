/* SPDX-License-Identifier: MIT */
/*
 * `setup:` and `teardown:` end to end (docs/journeys.md, "Setup and
 * teardown"): the real throng binary against an in-process server that
 * logs every request it receives, in order, with its Authorization
 * header, so a test asserts that setup's login arrived once, before the
 * load, that every load request carried the token it extracted, that
 * teardown came last, that a failing setup sent no load, and that shards
 * other than 0 skip setup or refuse a plan that needs its values.
 */
#include "test-utils.h"

#include <signal.h>
#include <string.h>

#define RUN_TIMEOUT 120

typedef struct {
    GMutex lock;
    GPtrArray *log; /* "PATH?QUERY AUTHORIZATION" of each request, in the order received */
    guint logins;
} Server;

typedef struct {
    char *dir;
    Server server;
    ThrongTestSoupServer *soup;
    const char *transport;
} Fixture;

/* /login: a fresh token each time; /fail: 500; /slow: 200 after 20 s; anything else 200. */
static void
handler (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Server *s = data;
    G_GNUC_UNUSED g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
    const char *raw = g_uri_get_query (soup_server_message_get_uri (msg));
    const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                     "Authorization");
    g_autofree char *body = NULL;

    (void)soup;
    (void)query;
    g_ptr_array_add (s->log, g_strdup_printf ("%s%s%s %s", path, raw != NULL ? "?" : "",
                                              raw != NULL ? raw : "", auth != NULL ? auth : "-"));
    if (strcmp (path, "/slow") == 0) {
        throng_test_soup_server_respond_later (msg, 20000, "{}");
        return;
    }
    if (strcmp (path, "/login") == 0)
        body = g_strdup_printf ("{\"token\": \"tok-%u\"}", ++s->logins);
    else
        body = g_strdup ("{}");
    soup_server_message_set_status (msg, strcmp (path, "/fail") == 0 ? 500 : 200, NULL);
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body,
                                      strlen (body));
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->transport = data;
    f->dir = throng_test_tmpdir_new ();
    g_mutex_init (&f->server.lock);
    f->server.log = g_ptr_array_new_with_free_func (g_free);
    f->soup = throng_test_soup_server_start (NULL, handler, &f->server);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    (void)data;
    throng_test_soup_server_stop (f->soup);
    g_ptr_array_unref (f->server.log);
    g_mutex_clear (&f->server.lock);
    throng_test_tmpdir_free (f->dir);
}

/* A plan: `defaults:` naming the server and the transport, then @body. */
static char *
plan_yaml (Fixture *f, const char *body)
{
    return g_strdup_printf ("defaults:\n"
                            "  http: { base_url: \"%s\", transport: %s }\n"
                            "%s",
                            throng_test_soup_server_http_url (f->soup), f->transport, body);
}

/* How many requests the server logged whose line starts with @prefix. */
static guint
count_prefix (Fixture *f, const char *prefix)
{
    G_GNUC_UNUSED g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&f->server.lock);
    guint n = 0;

    for (guint i = 0; i < f->server.log->len; i++)
        n += g_str_has_prefix (f->server.log->pdata[i], prefix);
    return n;
}

static const char token_plan[] = "setup:\n"
                                 "  - name: login\n"
                                 "    http:\n"
                                 "      url: /login\n"
                                 "      extract: { token: { json: $.token } }\n"
                                 "  - set: { greeting: \"hello ${vars.token} u${user.id}\" }\n"
                                 "scenarios:\n"
                                 "  - name: load\n"
                                 "    users: 5\n"
                                 "    iterations: 3\n"
                                 "    steps:\n"
                                 "      - http:\n"
                                 "          url: /item?u=${user.id}&g=${setup.greeting|urlencode}\n"
                                 "          headers: { Authorization: \"Bearer ${setup.token}\" }\n"
                                 "teardown:\n"
                                 "  - http:\n"
                                 "      url: /logout\n"
                                 "      headers: { Authorization: \"Bearer ${setup.token}\" }\n";

/*
 * Setup's login arrives once, first; the 15 load requests carry the
 * token it extracted and the variable it set; teardown's logout arrives
 * once, last.  The load's summary counts the load alone.
 */
static void
test_token (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, token_plan);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpuint (f->server.log->len, ==, 17);
    g_assert_cmpstr (f->server.log->pdata[0], ==, "/login -");
    for (guint i = 1; i <= 15; i++) {
        const char *line = f->server.log->pdata[i];
        g_assert_true (g_str_has_prefix (line, "/item?u="));
        g_assert_true (g_str_has_suffix (line, "&g=hello%20tok-1%20u0 Bearer tok-1"));
    }
    g_assert_cmpstr (f->server.log->pdata[16], ==, "/logout Bearer tok-1");
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 15);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.stats.requests"), ==, 15);
    /* setup and teardown: rows of their own, the load's figures without them */
    g_assert_cmpstr (throng_test_json_string (root, "setup.name"), ==, "setup");
    g_assert_cmpint (throng_test_json_int (root, "setup.stats.requests"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "setup.stats.errors"), ==, 0);
    g_assert_cmpstr (throng_test_json_string (root, "setup.steps.0.label"), ==, "login");
    g_assert_cmpint (throng_test_json_int (root, "setup.steps.0.stats.requests"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "teardown.stats.requests"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "teardown.iterations"), ==, 1);
}

/*
 * The console: a row for setup above the scenario, one for teardown below
 * it, their requests not in the load's row; the HTML report: a line each
 * in its header.
 */
static void
test_console (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, token_plan);
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_autofree char *html = g_build_filename (f->dir, "report.html", NULL);
    g_autofree char *html_out = throng_test_out_arg ("html", html);
    g_autofree char *page = NULL;

    g_assert_cmpint (
        throng_test_runv (RUN_TIMEOUT, &out, &err, "run", path, "--quiet", "--out", html_out, NULL),
        ==, 0);
    g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
    g_assert_nonnull (strstr (page, "<dt>Setup</dt><dd>1 request, 0 failed, once before the load"));
    g_assert_nonnull (
        strstr (page, "<dt>Teardown</dt><dd>1 request, 0 failed, once after the load"));
    const char *setup = strstr (out, "setup (once, not in the total)");
    const char *load = strstr (out, "load (5 users, 15 iterations)");
    const char *teardown = strstr (out, "teardown (once, not in the total)");
    g_assert_nonnull (setup);
    g_assert_nonnull (load);
    g_assert_nonnull (teardown);
    g_assert_true (setup < load && load < teardown);
    /* requests, then a rate: the load's row says 15, setup's 1 with no rate */
    g_assert_true (
        g_regex_match_simple ("setup \\(once, not in the total\\) +1 +- +0 ", out, 0, 0));
    g_assert_true (g_regex_match_simple ("load \\(5 users, 15 iterations\\) +15 ", out, 0, 0));
}

/*
 * A setup whose request fails stops there (its next step is not sent),
 * sends no load and no teardown, and exits 3.
 */
static void
test_failing_setup (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, "setup:\n"
                                          "  - http: { url: /fail }\n"
                                          "  - http: { url: /login }\n"
                                          "scenarios:\n"
                                          "  - users: 2\n"
                                          "    steps:\n"
                                          "      - http: { url: /item }\n"
                                          "teardown:\n"
                                          "  - http: { url: /logout }\n");
    g_autofree char *err = NULL;
    int status = -1;
    g_autoptr (JsonNode) root
        = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);

    g_assert_cmpint (status, ==, 3);
    g_assert_null (root);
    g_assert_nonnull (strstr (err, "throng: setup failed: 1 of its 1 request failed"));
    g_assert_nonnull (strstr (err, "no load was sent"));
    g_assert_cmpuint (f->server.log->len, ==, 1);
    g_assert_cmpstr (f->server.log->pdata[0], ==, "/fail -");
}

/*
 * Teardown runs after a load stopped by SIGINT, once, after the load's
 * last request; the exit status stays the interrupted load's, 130.
 */
static void
test_interrupted (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, "setup:\n"
                                          "  - http: { url: /login }\n"
                                          "scenarios:\n"
                                          "  - users: 2\n"
                                          "    duration: 1m\n"
                                          "    think_time: 50ms\n"
                                          "    steps:\n"
                                          "      - http: { url: /item }\n"
                                          "teardown:\n"
                                          "  - http: { url: /logout }\n");
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_auto (GStrv) args = throng_test_run_args (path, summary);
    g_autoptr (ThrongTestProcess) throng = throng_test_spawn ((const char *const *)args, NULL);
    g_autofree char *err = NULL;
    int status = -1;

    throng_test_wait_started ();
    g_assert_cmpuint (count_prefix (f, "/item"), >, 0);
    throng_test_process_signal (throng, SIGINT);
    g_assert_true (throng_test_process_wait (throng, 60, &status, NULL, &err));
    g_assert_cmpint (status, ==, 130);
    g_assert_cmpuint (count_prefix (f, "/login"), ==, 1);
    g_assert_cmpuint (count_prefix (f, "/logout"), ==, 1);
    g_assert_cmpstr (g_ptr_array_index (f->server.log, f->server.log->len - 1), ==, "/logout -");
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, count_prefix (f, "/item"));
    g_assert_cmpint (throng_test_json_int (root, "teardown.stats.requests"), ==, 1);
}

/* SIGINT while setup runs: no load, no teardown, the exit status of an interrupted run. */
static void
test_interrupted_setup (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, "setup:\n"
                                          "  - http: { url: /slow, timeout: 60s }\n"
                                          "scenarios:\n"
                                          "  - users: 2\n"
                                          "    steps:\n"
                                          "      - http: { url: /item }\n"
                                          "teardown:\n"
                                          "  - http: { url: /logout }\n");
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_auto (GStrv) args = throng_test_run_args (path, summary);
    g_autoptr (ThrongTestProcess) throng = throng_test_spawn ((const char *const *)args, NULL);
    g_autofree char *err = NULL;
    int status = -1;

    throng_test_wait_started ();
    g_assert_cmpuint (count_prefix (f, "/slow"), ==, 1);
    throng_test_process_signal (throng, SIGINT);
    g_assert_true (throng_test_process_wait (throng, 60, &status, NULL, &err));
    g_assert_cmpint (status, ==, 130);
    g_assert_nonnull (strstr (err, "setup was interrupted; no load was sent"));
    g_assert_cmpuint (f->server.log->len, ==, 1);
    g_assert_false (g_file_test (summary, G_FILE_TEST_EXISTS));
}

/* Runs @yaml as shard @index of 3 (one after the other: no --start-at needed); its exit status. */
static int
run_shard (Fixture *f, const char *yaml, guint index, char **err, gboolean *has_setup)
{
    g_autofree char *shard = g_strdup_printf ("%u/3", index);
    const char *const extra[] = { "--shard", shard, NULL };
    int status = -1;
    g_autoptr (JsonNode) root
        = throng_test_run_json (f->dir, yaml, extra, RUN_TIMEOUT, &status, err);

    if (has_setup != NULL)
        *has_setup = root != NULL && json_object_has_member (json_node_get_object (root), "setup");
    return status;
}

/*
 * In three shards setup and teardown run once in all, on shard 0, when
 * nothing reads ${setup.*}; a shard other than 0 refuses a plan that does.
 */
static void
test_shards (Fixture *f, gconstpointer data)
{
    (void)data;
    g_autofree char *yaml = plan_yaml (f, "setup:\n"
                                          "  - http: { url: /login }\n"
                                          "scenarios:\n"
                                          "  - users: 3\n"
                                          "    steps:\n"
                                          "      - http: { url: /item }\n"
                                          "teardown:\n"
                                          "  - http: { url: /logout }\n");
    for (guint i = 0; i < 3; i++) {
        g_autofree char *err = NULL;
        gboolean has_setup = FALSE;
        g_assert_cmpint (run_shard (f, yaml, i, &err, &has_setup), ==, 0);
        g_assert_true (has_setup == (i == 0));
    }
    g_assert_cmpuint (count_prefix (f, "/login"), ==, 1);
    g_assert_cmpuint (count_prefix (f, "/item"), ==, 3);
    g_assert_cmpuint (count_prefix (f, "/logout"), ==, 1);

    g_autofree char *reads = plan_yaml (f, token_plan);
    g_autofree char *err = NULL;
    g_assert_cmpint (run_shard (f, reads, 1, &err, NULL), ==, 3);
    g_assert_nonnull (strstr (err, "shard 1/3 cannot run this plan: it reads ${setup.*}"));
    g_assert_cmpuint (f->server.log->len, ==, 5);

    /* Only teardown reads ${setup.*}: shard 1 runs its load, without either. */
    g_autofree char *teardown_reads
        = plan_yaml (f, "setup:\n"
                        "  - http: { url: /login, extract: { token: { json: $.token } } }\n"
                        "scenarios:\n"
                        "  - users: 3\n"
                        "    steps:\n"
                        "      - http: { url: /item }\n"
                        "teardown:\n"
                        "  - http: { url: \"/logout?t=${setup.token}\" }\n");
    g_autofree char *err2 = NULL;
    g_assert_cmpint (run_shard (f, teardown_reads, 1, &err2, NULL), ==, 0);
    g_assert_cmpuint (f->server.log->len, ==, 6);
    g_assert_cmpstr (g_ptr_array_index (f->server.log, 5), ==, "/item -");
}

int
main (int argc, char **argv)
{
    static const ThrongTestTransportCase cases[] = {
        THRONG_TEST_CASE ("token", test_token, TRUE),
        THRONG_TEST_CASE ("console", test_console, FALSE),
        THRONG_TEST_CASE ("failing-setup", test_failing_setup, FALSE),
        THRONG_TEST_CASE ("shards", test_shards, FALSE),
        THRONG_TEST_CASE ("interrupted", test_interrupted, FALSE),
        THRONG_TEST_CASE ("interrupted-setup", test_interrupted_setup, FALSE),
    };

    g_test_init (&argc, &argv, NULL);
    throng_test_add_transport_cases ("/setup", Fixture, fixture_setup, fixture_teardown,
                                     cases);
    return g_test_run ();
}
