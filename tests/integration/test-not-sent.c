/* SPDX-License-Identifier: MIT */
/*
 * What a request is (docs/reporters.md): a step whose template could not
 * expand never goes out, so the summary's requests must equal what the
 * server received, and the step is counted as `not_sent` instead; a
 * step's `retry` attempts are counted as `retry_attempts`.  The server
 * counts every request it receives; one run per transport, then two
 * shards merged, whose figures must be the unsharded run's exactly.
 */
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 120
#define USERS 4
#define ITERATIONS 3

typedef struct {
    GMutex lock;
    guint received;
    guint used;           /* /use requests: those that carried a token */
    GHashTable *attempts; /* "user-iteration" → /flaky requests so far */
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

/*
 * /token?user=N: a token for odd N only, so even users never have one;
 * /flaky?key=K: 503 to the first two requests of each K, then 200.
 */
static void
handler (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Server *s = data;
    G_GNUC_UNUSED g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
    const char *user = query != NULL ? g_hash_table_lookup (query, "user") : NULL;
    const char *key = query != NULL ? g_hash_table_lookup (query, "key") : NULL;

    s->received++;
    if (strcmp (path, "/token") == 0) {
        respond (msg, 200, user != NULL && atoi (user) % 2 == 1 ? "{\"token\": \"t\"}" : "{}");
    } else if (strcmp (path, "/flaky") == 0 && key != NULL) {
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (s->attempts, key)) + 1;
        g_hash_table_insert (s->attempts, g_strdup (key), GUINT_TO_POINTER (n));
        respond (msg, n <= 2 ? 503 : 200, "{}");
    } else {
        s->used += strcmp (path, "/use") == 0;
        respond (msg, 200, "{}");
    }
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->transport = data;
    f->dir = throng_test_tmpdir_new ();
    g_mutex_init (&f->server.lock);
    f->server.attempts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    f->soup = throng_test_soup_server_start (NULL, handler, &f->server);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    throng_test_soup_server_stop (f->soup);
    g_hash_table_unref (f->server.attempts);
    g_mutex_clear (&f->server.lock);
    throng_test_tmpdir_free (f->dir);
}

static char *
plan_yaml (Fixture *f, const char *plan_extra)
{
    static const char steps[] = "      - name: token\n"
                                "        http: { url: \"/token?user=${user.id}\", extract: { tok: "
                                "{ json: \"$.token\" } } }\n"
                                "      - name: use\n"
                                "        http: { url: \"/use?t=${vars.tok}\" }\n"
                                "      - name: flaky\n"
                                "        http: { url: \"/flaky?key=${user.id}-${iteration}\" }\n"
                                "        retry: { max: 3 }\n";
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->soup),
        .users = USERS,
        .iterations = ITERATIONS,
        .steps = steps,
        .plan_extra = plan_extra,
    };
    return throng_test_plan_yaml (&plan);
}

/*
 * The figures every summary of this plan must show, whether one process
 * ran it or shards did: half the users never get a token, so their
 * /use is never sent; /flaky fails twice per iteration, then passes.
 */
static void
assert_figures (JsonNode *root, guint received)
{
    const gint64 iterations = USERS * ITERATIONS;
    const gint64 not_sent = iterations / 2;

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, received);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==,
                     iterations + not_sent + 3 * iterations);
    g_assert_cmpint (throng_test_json_int (root, "total.not_sent"), ==, not_sent);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.stats.not_sent"), ==, not_sent);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.not_sent"), ==,
                     not_sent);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.requests"), ==,
                     iterations - not_sent);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.not_sent"), ==, 0);
    /* not sent: errors of class variable */
    g_assert_cmpint (
        throng_test_json_int (root, "scenarios.0.steps.1.stats.errors_by_class.variable"), ==,
        not_sent);
    /* the extractor that found no token (check), the /use not sent, two 503s per iteration */
    gint64 errors = not_sent + not_sent + 2 * iterations;
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, errors);
    g_assert_cmpfloat_with_epsilon (
        throng_test_json_double (root, "total.error_rate"),
        (gdouble)errors / (gdouble)(throng_test_json_int (root, "total.requests") + not_sent),
        1e-9);
    /* retry attempts: two per iteration, on the flaky step only */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.2.stats.retry_attempts"), ==,
                     2 * iterations);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.retry_attempts"), ==,
                     0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.stats.retry_attempts"), ==,
                     2 * iterations);
    g_assert_cmpint (throng_test_json_int (root, "total.retry_attempts"), ==, 2 * iterations);
}

/* How many times @needle occurs in the file @dir/@name. */
static guint
count_in_file (const char *dir, const char *name, const char *needle)
{
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    return throng_test_count (text, needle);
}

/*
 * One process; its console (not --quiet) and every file reporter say
 * what the run file says.
 */
static void
test_one_run (Fixture *f, gconstpointer data)
{
    g_autofree char *reporters
        = g_strdup_printf ("reporters:\n"
                           "  - console: {}\n"
                           "  - json: { path: \"%1$s/run.jsonl\", mode: jsonl, samples: true }\n"
                           "  - csv: { path: \"%1$s/run.csv\" }\n"
                           "  - junit: { path: \"%1$s/run.xml\" }\n"
                           "  - html: { path: \"%1$s/run.html\" }\n",
                           f->dir);
    g_autofree char *yaml = plan_yaml (f, reporters);
    g_autofree char *plan = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_autofree char *json_arg = throng_test_out_arg ("json", summary);
    g_autofree char *out = NULL, *err = NULL;

    g_assert_cmpint (
        throng_test_runv (RUN_TIMEOUT, &out, &err, "run", plan, "--out", json_arg, NULL), ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_autoptr (JsonNode) root = throng_test_json_load (summary, NULL);
    g_assert_cmpuint (f->server.used, ==, USERS * ITERATIONS / 2);
    assert_figures (root, f->server.received);

    g_assert_nonnull (strstr (out, "not sent"));
    g_assert_nonnull (strstr (out, "s / use: 6"));
    g_assert_nonnull (strstr (out, "retry attempts"));
    g_assert_nonnull (strstr (out, "s / flaky: 24"));

    /* a sample per step, sent or not; the JTL keeps the row (docs/reporters.md, csv) */
    g_assert_cmpuint (count_in_file (f->dir, "run.jsonl", "\"not_sent\":true"), ==, 6);
    g_assert_cmpuint (count_in_file (f->dir, "run.jsonl", "\"retry\":true"), ==, 24);
    g_assert_cmpuint (count_in_file (f->dir, "run.csv", "Non HTTP response code: not sent"), ==, 6);
    g_assert_cmpuint (count_in_file (f->dir, "run.xml", "name=\"not_sent\" value=\"6\""), ==, 1);
    g_assert_cmpuint (count_in_file (f->dir, "run.xml", "name=\"retry_attempts\" value=\"24\""), ==,
                      1);
    g_assert_cmpuint (count_in_file (f->dir, "run.xml", "name=\"requests\" value=\"54\""), ==, 1);
    g_assert_cmpuint (count_in_file (f->dir, "run.html", "6 step(s) were not sent"), ==, 1);
    g_assert_cmpuint (count_in_file (f->dir, "run.html", "24 request(s) were a step"), ==, 1);
}

/* An RFC 3339 instant @seconds from now, whole seconds, UTC. */
static char *
start_at_in (guint seconds)
{
    g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
    g_autoptr (GDateTime) then = g_date_time_add_seconds (now, seconds + 1);
    return g_date_time_format (then, "%Y-%m-%dT%H:%M:%SZ");
}

/* Two shards of the plan, then `throng merge`: the figures are the unsharded run's. */
static void
test_merge (Fixture *f, gconstpointer data)
{
    g_autofree char *yaml = plan_yaml (f, NULL);
    g_autofree char *plan = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *at = start_at_in (2);
    g_autoptr (GPtrArray) processes
        = g_ptr_array_new_with_free_func ((GDestroyNotify)throng_test_process_free);
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
    const guint n = 2;
    gint64 not_sent = 0, retry_attempts = 0;

    for (guint i = 0; i < n; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/%u", i, n);
        char *path = g_strdup_printf ("%s/shard-%u.json", f->dir, i);
        g_autofree char *out = throng_test_out_arg ("json", path);
        const char *const argv[]
            = { "run", plan, "--quiet", "--shard", shard, "--start-at", at, "--out", out, NULL };

        g_ptr_array_add (files, path);
        g_ptr_array_add (processes, throng_test_spawn (argv, NULL));
    }
    for (guint i = 0; i < n; i++) {
        int status;
        g_autofree char *err = NULL;
        g_assert_true (throng_test_process_wait (g_ptr_array_index (processes, i), RUN_TIMEOUT,
                                                 &status, NULL, &err));
        g_assert_cmpint (status, ==, 0);
        g_autoptr (JsonNode) shard = throng_test_json_load (g_ptr_array_index (files, i), NULL);
        not_sent += throng_test_json_int (shard, "total.not_sent");
        retry_attempts += throng_test_json_int (shard, "total.retry_attempts");
    }
    /* each shard ran users of both kinds: the merge adds, it does not take one */
    g_assert_cmpint (not_sent, ==, USERS * ITERATIONS / 2);
    g_assert_cmpint (retry_attempts, ==, 2 * USERS * ITERATIONS);

    g_ptr_array_add (files, NULL);
    g_autofree char *merged_path = g_build_filename (f->dir, "merged.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_ptr_array_add (argv, "merge");
    for (guint i = 0; i < n; i++)
        g_ptr_array_add (argv, g_ptr_array_index (files, i));
    g_ptr_array_add (argv, "--out");
    g_ptr_array_add (argv, out_arg);
    g_ptr_array_add (argv, NULL);
    int status;
    g_autofree char *merge_out = NULL, *merge_err = NULL;
    g_assert_true (throng_test_run ((const char *const *)argv->pdata, NULL, 60, &status, &merge_out,
                                    &merge_err));
    if (status != 0)
        g_test_message ("merge: %s", merge_err);
    g_assert_cmpint (status, ==, 0);

    g_assert_nonnull (strstr (merge_out, "36 errors (6 not sent)"));
    g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
    assert_figures (merged, f->server.received);
}

int
main (int argc, char **argv)
{
    static const char *const transports[] = { "fast", "soup" };

    g_test_init (&argc, &argv, NULL);
    for (guint t = 0; t < G_N_ELEMENTS (transports); t++) {
        g_autofree char *one = g_strdup_printf ("/not-sent/run/%s", transports[t]);
        g_autofree char *merge = g_strdup_printf ("/not-sent/merge/%s", transports[t]);
        g_test_add (one, Fixture, transports[t], fixture_setup, test_one_run, fixture_teardown);
        g_test_add (merge, Fixture, transports[t], fixture_setup, test_merge, fixture_teardown);
    }
    return g_test_run ();
}
