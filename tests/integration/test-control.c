/* SPDX-License-Identifier: MIT */
/*
 * Control steps end to end (docs/journeys.md): `if`/`else`, `on_failure`,
 * the loops' indices and `retry`, each run by the real throng binary
 * against an in-process server that logs every request it receives, in
 * order, so a test asserts which branch was taken, how many requests
 * went out and which index each carried.
 */
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 120

typedef struct {
    GMutex lock;
    GPtrArray *log; /* "PATH?QUERY" of each request, in the order received */
    guint flaky;    /* /flaky requests so far: every third one succeeds */
} Server;

typedef struct {
    char *dir;
    Server server;
    ThrongTestSoupServer *soup;
    const char *transport;
} Fixture;

static void
respond (SoupServerMessage *msg, guint status, const char *body)
{
    soup_server_message_set_status (msg, status, NULL);
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body,
                                      strlen (body));
}

static const char *
query_value (GHashTable *query, const char *key)
{
    return query != NULL ? g_hash_table_lookup (query, key) : NULL;
}

/*
 * /login?user=N: {"role": "admin"} for odd N, "guest" for even, 401 for
 * "bad" and in a user's second iteration (it=2); /status/NNN answers NNN; /items a list of three
 * ids; /flaky fails twice in three; anything else 200.
 */
static void
handler (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Server *s = data;
    G_GNUC_UNUSED g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
    const char *raw = g_uri_get_query (soup_server_message_get_uri (msg));

    g_ptr_array_add (
        s->log, g_strdup_printf ("%s%s%s", path, raw != NULL ? "?" : "", raw != NULL ? raw : ""));
    if (strcmp (path, "/login") == 0) {
        const char *user = query_value (query, "user");
        if (g_strcmp0 (user, "bad") == 0 || g_strcmp0 (query_value (query, "it"), "2") == 0)
            respond (msg, 401, "{\"error\": \"who?\"}");
        else
            respond (msg, 200,
                     user != NULL && atoi (user) % 2 == 1 ? "{\"role\": \"admin\"}"
                                                          : "{\"role\": \"guest\"}");
    } else if (g_str_has_prefix (path, "/status/")) {
        respond (msg, (guint)atoi (path + strlen ("/status/")), "{}");
    } else if (strcmp (path, "/items") == 0) {
        respond (msg, 200, "{\"items\": [{\"id\": 11}, {\"id\": \"b 2\"}, {\"id\": 33}]}");
    } else if (strcmp (path, "/pages") == 0) {
        gint page = atoi (query_value (query, "p") != NULL ? query_value (query, "p") : "0");
        g_autofree char *next = g_strdup_printf ("{\"next\": \"%s\"}",
                                                 page < 3 ? (page == 1 ? "2" : "3") : "");
        respond (msg, 200, next);
    } else if (strcmp (path, "/flaky") == 0) {
        respond (msg, ++s->flaky % 3 == 0 ? 200 : 503, "{}");
    } else {
        respond (msg, 200, "{}");
    }
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
    throng_test_soup_server_stop (f->soup);
    g_ptr_array_unref (f->server.log);
    g_mutex_clear (&f->server.lock);
    throng_test_tmpdir_free (f->dir);
}

/* Runs @steps for @users × @iterations; the summary, and throng's exit status checked. */
static JsonNode *
run (Fixture *f, guint users, guint iterations, const char *scenario_extra, const char *steps,
     int expected_status)
{
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->soup),
        .users = users,
        .iterations = iterations,
        .scenario_extra = scenario_extra,
        .steps = steps,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    JsonNode *root
        = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, expected_status, &err);

    throng_test_assert_no_glib_noise (err);
    return root;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
    return g_strcmp0 (*(const char *const *)a, *(const char *const *)b);
}

/* The server's log joined with spaces, sorted when @sorted (users interleave). */
static char *
log_text (Fixture *f, gboolean sorted)
{
    g_autoptr (GPtrArray) copy = g_ptr_array_new ();

    for (guint i = 0; i < f->server.log->len; i++)
        g_ptr_array_add (copy, f->server.log->pdata[i]);
    if (sorted)
        g_ptr_array_sort (copy, compare_strings);
    g_ptr_array_add (copy, NULL);
    return g_strjoinv (" ", (char **)copy->pdata);
}

/*
 * Users 1 and 3 log in as admins, 2 and 4 as guests: each takes its
 * branch, the else branch included, and a condition on last.status sees
 * the answer just received.
 */
static void
test_if (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http:\n"
                                "          url: /login?user=${user.id}\n"
                                "          extract: { role: { json: $.role } }\n"
                                "      - if: vars.role == \"admin\" and last.status == 200\n"
                                "        then:\n"
                                "          - http: { url: \"/admin?u=${user.id}\" }\n"
                                "        else:\n"
                                "          - http: { url: \"/shop?u=${user.id}\" }\n"
                                "      - http: { url: /status/503, expect_status: 503 }\n"
                                "      - if: last.status >= 500 or not exists(vars.role)\n"
                                "        then:\n"
                                "          - http: { url: \"/degraded?u=${user.id}\" }\n";
    g_autoptr (JsonNode) root = run (f, 4, 1, NULL, steps, 0);
    g_autofree char *log = log_text (f, TRUE);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpstr (log, ==,
                     "/admin?u=1 /admin?u=3 /degraded?u=1 /degraded?u=2 /degraded?u=3 "
                     "/degraded?u=4 /login?user=1 /login?user=2 /login?user=3 /login?user=4 "
                     "/shop?u=2 /shop?u=4 /status/503 /status/503 /status/503 /status/503");
}

/* An iteration that sent nothing (its if did not hold) does not end the user: the next may send. */
static void
test_if_later (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - if: iteration >= 2\n"
                                "        then: [ { http: { url: \"/late?it=${iteration}\" } } ]\n";
    g_autoptr (JsonNode) root = run (f, 1, 3, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);

    g_assert_cmpstr (log, ==, "/late?it=2 /late?it=3");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 3);
}

/*
 * The login fails in each user's second iteration: with next-iteration
 * (the group's, inherited by the login) the server sees nothing else of
 * that iteration, the third runs whole, and the group's row fails once.
 */
static void
test_on_failure_next_iteration (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - group: journey\n"
          "        on_failure: next-iteration\n"
          "        steps:\n"
          "          - http: { url: \"/login?user=${user.id}&it=${iteration}\" }\n"
          "          - http: { url: \"/cart?it=${iteration}\" }\n"
          "      - http: { url: \"/after?it=${iteration}\" }\n";
    g_autoptr (JsonNode) root = run (f, 1, 3, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);

    g_assert_cmpstr (log, ==,
                     "/login?user=1&it=1 /cart?it=1 /after?it=1 /login?user=1&it=2 "
                     "/login?user=1&it=3 /cart?it=3 /after?it=3");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.errors"), ==, 1);
}

/*
 * The scenario says stop-user; a step's own `continue` overrides it.
 * Each user's second login fails: the step after it still goes out
 * (continue), the /cart whose failure stops the user is its last request.
 */
static void
test_on_failure_stop_user (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: \"/login?user=${user.id}&it=${iteration}\" }\n"
          "        on_failure: continue\n"
          "      - http: { url: \"/status/20${iteration}?u=${user.id}\", expect_status: 201 }\n"
          "      - http: { url: \"/after?u=${user.id}&it=${iteration}\" }\n";
    g_autoptr (JsonNode) root = run (f, 2, 3, "    on_failure: stop-user\n", steps, 0);
    g_autofree char *log = log_text (f, TRUE);

    /* iteration 1: /status/201 is expected; 2: /status/202 is not, and the user stops */
    g_assert_cmpstr (log, ==,
                     "/after?u=1&it=1 /after?u=2&it=1 /login?user=1&it=1 /login?user=1&it=2 "
                     "/login?user=2&it=1 /login?user=2&it=2 /status/201?u=1 /status/201?u=2 "
                     "/status/202?u=1 /status/202?u=2");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 4);
}

/* abort-run: the first failure stops the run, with exit status 108, before the next request. */
static void
test_on_failure_abort_run (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: \"/login?user=${user.id}&it=${iteration}\" }\n"
          "        name: login\n"
          "        on_failure: abort-run\n"
          "      - http: { url: \"/after?it=${iteration}\" }\n";
    g_autoptr (JsonNode) root = run (f, 1, 50, NULL, steps, 108);
    g_autofree char *log = log_text (f, FALSE);

    g_assert_cmpstr (log, ==, "/login?user=1&it=1 /after?it=1 /login?user=1&it=2");
    g_assert_true (throng_test_json_bool (root, "interrupted"));
}

/*
 * repeat's index from 0; foreach over every id a JSONPath found (a
 * string with a space among them); while over the pages until the server
 * says there is no next one, and a while whose condition never turns
 * false stopped by its max.
 */
static void
test_loops (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - repeat: { count: 3, as: i }\n"
          "        steps: [ { http: { url: \"/page?i=${vars.i}\" } } ]\n"
          "      - http:\n"
          "          url: /items\n"
          "          extract: { ids: { json: \"$.items[*].id\", all: true } }\n"
          "      - foreach:\n"
          "          in: vars.ids\n"
          "          as: id\n"
          "          steps: [ { http: { url: \"/item?id=${vars.id | urlencode}\" } } ]\n"
          "      - set: { p: \"1\" }\n"
          "      - while:\n"
          "          condition: vars.p != \"\"\n"
          "          max: 10\n"
          "          steps:\n"
          "            - http: { url: \"/pages?p=${vars.p}\", extract: { p: { json: $.next } } }\n"
          "      - while: { condition: \"true\", max: 2, steps: [ { http: { url: /bounded } } ] }\n";
    g_autoptr (JsonNode) root = run (f, 1, 2, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);
    static const char once[] = "/page?i=0 /page?i=1 /page?i=2 /items /item?id=11 /item?id=b%202 "
                               "/item?id=33 /pages?p=1 /pages?p=2 /pages?p=3 /bounded /bounded";
    g_autofree char *twice = g_strdup_printf ("%s %s", once, once);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpstr (log, ==, twice);
}

/*
 * /flaky fails twice in three.  With max 3 and a backoff, each iteration
 * sends it three times, the last passes, and the failed attempts are
 * errors in the step's row; the backoffs are in the run's time.
 */
static void
test_retry (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http: { url: /flaky }\n"
                                "        retry: { max: 3, backoff: 100ms }\n"
                                "      - http: { url: \"/after?it=${iteration}\" }\n";
    g_autoptr (JsonNode) root = run (f, 1, 2, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);

    g_assert_cmpstr (log, ==, "/flaky /flaky /flaky /after?it=1 /flaky /flaky /flaky /after?it=2");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 4);
    /* the server failed the first two attempts of each iteration: two retries each */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.retry_attempts"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.retry_attempts"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.retry_attempts"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 8);
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), >=, 0.4);
}

/* A retry that runs out leaves the failure to on_failure: here the iteration ends. */
static void
test_retry_exhausted (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http: { url: /flaky }\n"
                                "        retry: { max: 1 }\n"
                                "        on_failure: next-iteration\n"
                                "      - http: { url: \"/after?it=${iteration}\" }\n";
    g_autoptr (JsonNode) root = run (f, 1, 3, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);

    g_assert_cmpstr (log, ==, "/flaky /flaky /flaky /after?it=2 /flaky /flaky");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.retry_attempts"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 3);
}

/*
 * A long backoff does not hold the run: when the scenario's time and its
 * graceful stop are up, a user waiting to retry ends there, as a user in
 * a pause does; and a step that never went out (a variable not set) is
 * not retried at all.
 */
static void
test_retry_stops (Fixture *f, gconstpointer data)
{
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->soup),
        .duration = "1s",
        .scenario_extra = "    graceful_stop: 0s\n",
        .steps = "      - http: { url: /status/500 }\n"
                 "        retry: { max: 5, backoff: 1h }\n",
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    gint64 start = g_get_monotonic_time ();
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, NULL);
    gint64 took_ms = (g_get_monotonic_time () - start) / 1000;

    g_test_message ("the run took %" G_GINT64_FORMAT " ms", took_ms);
    g_assert_cmpint (took_ms, <, 20000);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.requests"), ==, 1);

    static const char unsent[] = "      - http: { url: \"/never?t=${vars.token}\" }\n"
                                 "        retry: { max: 3 }\n"
                                 "      - http: { url: /after, extract: { token: { json: $.t } } }\n";
    g_autoptr (JsonNode) again = run (f, 1, 1, NULL, unsent, 0);
    g_assert_cmpint (throng_test_json_int (again, "scenarios.0.steps.0.stats.retry_attempts"), ==, 0);
    g_assert_cmpint (throng_test_json_int (again, "scenarios.0.steps.0.stats.not_sent"), ==, 1);
}

/*
 * Control steps inside each other inside a group: a failure deep in a
 * foreach's if, with next-iteration, closes every frame (the group's row
 * fails once per iteration) and sends nothing more in that iteration.
 */
static void
test_nested (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - group: shop\n"
          "        steps:\n"
          "          - http: { url: /items, extract: { ids: { json: \"$.items[*].id\", all: true } } }\n"
          "          - foreach:\n"
          "              in: vars.ids\n"
          "              as: id\n"
          "              steps:\n"
          "                - if: vars.id == 33\n"
          "                  then:\n"
          "                    - http: { url: /status/500 }\n"
          "                      on_failure: next-iteration\n"
          "                  else:\n"
          "                    - repeat: { count: 2, as: n }\n"
          "                      steps: [ { http: { url: \"/item?id=${vars.id | urlencode}&n=${vars.n}\" } } ]\n"
          "      - http: { url: /after }\n";
    g_autoptr (JsonNode) root = run (f, 1, 2, NULL, steps, 0);
    g_autofree char *log = log_text (f, FALSE);
    static const char once[]
        = "/items /item?id=11&n=0 /item?id=11&n=1 /item?id=b%202&n=0 /item?id=b%202&n=1 /status/500";
    g_autofree char *twice = g_strdup_printf ("%s %s", once, once);

    g_assert_cmpstr (log, ==, twice);
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.0.label"), ==, "shop");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.requests"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.errors"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, 2);
}

int
main (int argc, char **argv)
{
    static const ThrongTestTransportCase cases[] = {
        THRONG_TEST_CASE ("if", test_if, TRUE),
        THRONG_TEST_CASE ("if-later", test_if_later, FALSE),
        THRONG_TEST_CASE ("on-failure-next-iteration", test_on_failure_next_iteration, TRUE),
        THRONG_TEST_CASE ("on-failure-stop-user", test_on_failure_stop_user, FALSE),
        THRONG_TEST_CASE ("on-failure-abort-run", test_on_failure_abort_run, FALSE),
        THRONG_TEST_CASE ("loops", test_loops, TRUE),
        THRONG_TEST_CASE ("retry", test_retry, TRUE),
        THRONG_TEST_CASE ("nested", test_nested, TRUE),
        THRONG_TEST_CASE ("retry-exhausted", test_retry_exhausted, FALSE),
        THRONG_TEST_CASE ("retry-stops", test_retry_stops, FALSE),
    };

    g_test_init (&argc, &argv, NULL);
    throng_test_add_transport_cases ("/control", Fixture, fixture_setup, fixture_teardown,
                                     cases);
    return g_test_run ();
}
