/* SPDX-License-Identifier: MIT */
/*
 * Reporter filters (docs/reporters.md, "Filters"): the real throng runs
 * against an in-process SoupServer that fails every FAIL_EVERY-th request
 * it receives, and the rows each filtered reporter wrote are checked
 * against the server's own count and against an unfiltered reporter of
 * the same run: errors only, scenarios and steps, a share that a rerun
 * keeps row for row, summaries that stay whole; and the located errors
 * of a bad filter.
 */
#include "test-utils.h"

#include <string.h>

#define FAIL_EVERY 7
#define RUN_TIMEOUT 60

typedef struct {
    ThrongTestSoupServer *soup;
    gint requests;              /* atomic: every request answered */
    gint failed;                /* atomic: those answered 500 */
    char *dir;
} Fixture;

/* Every FAIL_EVERY-th request the server receives is a 500; the others are 200. */
static void
handle (SoupServer *soup_server, SoupServerMessage *message, const char *path, GHashTable *query,
        gpointer data)
{
    Fixture *fixture = data;
    gint n = g_atomic_int_add (&fixture->requests, 1) + 1;

    if (n % FAIL_EVERY == 0) {
        g_atomic_int_inc (&fixture->failed);
        soup_server_message_set_status (message, 500, NULL);
        soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "no", 2);
        return;
    }
    soup_server_message_set_status (message, 200, NULL);
    soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "ok", 2);
}

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
    fixture->soup = throng_test_soup_server_start (NULL, handle, fixture);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    throng_test_soup_server_stop (fixture->soup);
    throng_test_tmpdir_free (fixture->dir);
}

/*
 * Two scenarios, "browse" (steps "home" and "search") and "buy" (step
 * "pay"), 2 users × 40 iterations each: 240 requests; then @reporters
 * (YAML lines indented by two).
 */
static char *
plan_yaml (Fixture *fixture, const char *reporters)
{
    return g_strdup_printf ("name: filters\n"
                            "defaults:\n"
                            "  http: { base_url: \"%s\" }\n"
                            "scenarios:\n"
                            "  - name: browse\n"
                            "    users: 2\n"
                            "    iterations: 40\n"
                            "    steps:\n"
                            "      - name: home\n"
                            "        http: { url: / }\n"
                            "      - name: search\n"
                            "        http: { url: /search }\n"
                            "  - name: buy\n"
                            "    users: 2\n"
                            "    iterations: 40\n"
                            "    steps:\n"
                            "      - name: pay\n"
                            "        http: { url: /pay }\n"
                            "reporters:\n"
                            "%s",
                            throng_test_soup_server_http_url (fixture->soup), reporters);
}

#define TOTAL_REQUESTS (2 * 40 * 2 + 2 * 40)

/*
 * Runs `throng ARGS…` in @fixture's directory, so the plan's relative
 * result paths and its error locations are relative to it.
 */
static int
run_in_dir (Fixture *fixture, const char *const *args, char **err)
{
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    ThrongTestSpawnOptions options = { .cwd = fixture->dir };

    g_ptr_array_add (argv, (gpointer) throng_test_exe ());
    for (guint i = 0; args[i] != NULL; i++)
        g_ptr_array_add (argv, (gpointer) args[i]);
    g_ptr_array_add (argv, NULL);
    return throng_test_process_run ((const char *const *) argv->pdata, &options, RUN_TIMEOUT,
                                    NULL, err);
}

/* Runs the plan in @fixture's directory; asserts it exited 0. */
static void
run_plan (Fixture *fixture, const char *reporters)
{
    g_autofree char *yaml = plan_yaml (fixture, reporters);
    g_free (throng_test_write_plan (fixture->dir, "plan.yaml", yaml));
    g_autofree char *err = NULL;
    int status = run_in_dir (fixture,
                             (const char *const[]) { "run", "--quiet", "--overwrite", "plan.yaml",
                                                     NULL },
                             &err);

    if (status != 0)
        g_test_message ("stderr: %s", err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
}

/* The data rows of a csv reporter's file, each split at commas (no field here holds one). */
static GPtrArray *
csv_rows (Fixture *fixture, const char *name)
{
    g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;
    GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

    g_assert_true (g_file_get_contents (path, &text, NULL, &error));
    g_assert_no_error (error);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_assert_true (g_str_has_prefix (lines[0], "timeStamp,elapsed,label,responseCode"));
    for (guint i = 1; lines[i] != NULL; i++) {
        if (*lines[i] == '\0')
            continue;
        char **fields = g_strsplit (lines[i], ",", -1);
        g_assert_cmpuint (g_strv_length (fields), ==, 17);
        g_ptr_array_add (rows, fields);
    }
    g_assert_cmpuint (rows->len, ==, throng_test_csv_rows (path));
    return rows;
}

enum { CSV_LABEL = 2, CSV_CODE = 3, CSV_THREAD = 5, CSV_SUCCESS = 7 };

/*
 * `errors_only` beside an unfiltered csv and a json summary: the failures'
 * file has exactly the server's 500s, every row a failure; the full file
 * and the summary still count every request.
 */
static void
test_errors_only (Fixture *fixture, gconstpointer data)
{
    run_plan (fixture, "  - csv: { path: all.csv }\n"
                       "  - csv: { path: errors.csv, filter: { errors_only: true } }\n"
                       "  - json: { path: summary.json }\n");

    g_autoptr (GPtrArray) all = csv_rows (fixture, "all.csv");
    g_autoptr (GPtrArray) errors = csv_rows (fixture, "errors.csv");
    guint failed = (guint) g_atomic_int_get (&fixture->failed);

    g_assert_cmpint (g_atomic_int_get (&fixture->requests), ==, TOTAL_REQUESTS);
    g_assert_cmpuint (failed, ==, TOTAL_REQUESTS / FAIL_EVERY);
    g_assert_cmpuint (all->len, ==, TOTAL_REQUESTS);
    g_assert_cmpuint (errors->len, ==, failed);
    for (guint i = 0; i < errors->len; i++) {
        char **row = g_ptr_array_index (errors, i);
        g_assert_cmpstr (row[CSV_SUCCESS], ==, "false");
        g_assert_cmpstr (row[CSV_CODE], ==, "500");
    }
    guint failed_in_all = 0;
    for (guint i = 0; i < all->len; i++)
        failed_in_all += strcmp (((char **) g_ptr_array_index (all, i))[CSV_SUCCESS], "false") == 0;
    g_assert_cmpuint (failed_in_all, ==, failed);

    /* The summary is never filtered. */
    g_autofree char *path = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = throng_test_json_load (path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, TOTAL_REQUESTS);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, failed);
}

/* `scenarios` and `steps`, alone and together, against the unfiltered file of the same run. */
static void
test_scenarios_steps (Fixture *fixture, gconstpointer data)
{
    run_plan (fixture, "  - csv: { path: all.csv }\n"
                       "  - csv: { path: buy.csv, filter: { scenarios: [ buy ] } }\n"
                       "  - csv: { path: search.csv, filter: { steps: [ search ] } }\n"
                       "  - csv: { path: both.csv,\n"
                       "      filter: { scenarios: [ browse ], steps: [ home ],\n"
                       "                errors_only: true } }\n");

    g_autoptr (GPtrArray) all = csv_rows (fixture, "all.csv");
    g_autoptr (GPtrArray) buy = csv_rows (fixture, "buy.csv");
    g_autoptr (GPtrArray) search = csv_rows (fixture, "search.csv");
    g_autoptr (GPtrArray) both = csv_rows (fixture, "both.csv");
    guint expect_both = 0;

    for (guint i = 0; i < all->len; i++) {
        char **row = g_ptr_array_index (all, i);
        expect_both += strcmp (row[CSV_LABEL], "home") == 0
                       && strcmp (row[CSV_SUCCESS], "false") == 0;
    }
    g_assert_cmpuint (all->len, ==, TOTAL_REQUESTS);
    g_assert_cmpuint (buy->len, ==, 2 * 40);
    for (guint i = 0; i < buy->len; i++) {
        char **row = g_ptr_array_index (buy, i);
        g_assert_true (g_str_has_prefix (row[CSV_THREAD], "buy "));
        g_assert_cmpstr (row[CSV_LABEL], ==, "pay");
    }
    g_assert_cmpuint (search->len, ==, 2 * 40);
    for (guint i = 0; i < search->len; i++)
        g_assert_cmpstr (((char **) g_ptr_array_index (search, i))[CSV_LABEL], ==, "search");
    g_assert_cmpuint (both->len, ==, expect_both);
    for (guint i = 0; i < both->len; i++) {
        char **row = g_ptr_array_index (both, i);
        g_assert_cmpstr (row[CSV_LABEL], ==, "home");
        g_assert_cmpstr (row[CSV_SUCCESS], ==, "false");
        g_assert_true (g_str_has_prefix (row[CSV_THREAD], "browse "));
    }
}

/*
 * The keys ("scenario/user/iteration/step") of the sample lines of a json
 * reporter's jsonl file, and in *@requests the total of its summary line.
 */
static GHashTable *
jsonl_keys (Fixture *fixture, const char *name, gint64 *requests)
{
    g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;
    GHashTable *keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

    g_assert_true (g_file_get_contents (path, &text, NULL, &error));
    g_assert_no_error (error);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    *requests = -1;
    for (guint i = 0; lines[i] != NULL; i++) {
        g_autoptr (JsonParser) parser = json_parser_new ();

        if (*lines[i] == '\0')
            continue;
        g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
        JsonNode *root = json_parser_get_root (parser);
        const char *type = throng_test_json_string (root, "type");
        if (strcmp (type, "summary") == 0)
            *requests = throng_test_json_int (root, "total.requests");
        if (strcmp (type, "sample") != 0)
            continue;
        char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%s",
                                     throng_test_json_string (root, "scenario"),
                                     throng_test_json_int (root, "user"),
                                     throng_test_json_int (root, "iteration"),
                                     throng_test_json_string (root, "step"));
        g_assert_true (g_hash_table_add (keys, key)); /* each request once */
    }
    return keys;
}

/*
 * `sample: 25%`: about a quarter of the requests, each one a request of
 * the unfiltered file, and a rerun keeps exactly the same ones although
 * the workers interleave differently; the jsonl summary line is whole.
 */
static void
test_sample_share (Fixture *fixture, gconstpointer data)
{
    const char *reporters
        = "  - json: { path: all.jsonl, mode: jsonl, samples: true }\n"
          "  - json: { path: share.jsonl, mode: jsonl, samples: true, filter: { sample: 25% } }\n";
    gint64 all_requests, share_requests, again_requests;

    run_plan (fixture, reporters);
    g_autoptr (GHashTable) all = jsonl_keys (fixture, "all.jsonl", &all_requests);
    g_autoptr (GHashTable) share = jsonl_keys (fixture, "share.jsonl", &share_requests);
    run_plan (fixture, reporters);
    g_autoptr (GHashTable) again = jsonl_keys (fixture, "share.jsonl", &again_requests);

    g_assert_cmpuint (g_hash_table_size (all), ==, TOTAL_REQUESTS);
    g_assert_cmpint (all_requests, ==, TOTAL_REQUESTS);
    g_assert_cmpint (share_requests, ==, TOTAL_REQUESTS);
    g_assert_cmpint (again_requests, ==, TOTAL_REQUESTS);
    /* 240 draws at 25%: the share's standard deviation is under 7 rows. */
    g_assert_cmpuint (g_hash_table_size (share), >=, TOTAL_REQUESTS / 4 - 30);
    g_assert_cmpuint (g_hash_table_size (share), <=, TOTAL_REQUESTS / 4 + 30);

    GHashTableIter iter;
    gpointer key;
    g_hash_table_iter_init (&iter, share);
    while (g_hash_table_iter_next (&iter, &key, NULL)) {
        g_assert_true (g_hash_table_contains (all, key));
        g_assert_true (g_hash_table_contains (again, key));
    }
    g_assert_cmpuint (g_hash_table_size (again), ==, g_hash_table_size (share));
}

/* A bad filter: `throng validate` exits 2 with this located message. */
typedef struct {
    const char *name;
    const char *reporter;
    const char *message;
} BadFilter;

static const BadFilter bad_filters[] = {
    { "unknown-scenario", "  - csv: { path: x.csv, filter: { scenarios: [ bui ] } }\n",
      "plan.yaml:20:48: no scenario 'bui' in this plan; did you mean 'buy'?" },
    { "unknown-step", "  - csv: { path: x.csv, filter: { steps: [ serch ] } }\n",
      "plan.yaml:20:44: no step 'serch' in this plan; did you mean 'search'?" },
    { "step-of-other-scenario",
      "  - csv: { path: x.csv, filter: { scenarios: [ buy ], steps: [ home ] } }\n",
      "plan.yaml:20:64: no step 'home' in the scenarios selected; there is 'pay'" },
    { "percentage-range", "  - csv: { path: x.csv, filter: { sample: 120% } }\n",
      "plan.yaml:20:43: sample must be above 0% and at most 100% (the finest is 0.0001%), "
      "got '120%'" },
    { "percentage-form", "  - csv: { path: x.csv, filter: { sample: 0.1 } }\n",
      "plan.yaml:20:43: sample must be a percentage such as 10% or 0.5%, got '0.1'" },
    { "unknown-key", "  - csv: { path: x.csv, filter: { error_only: true } }\n",
      "plan.yaml:20:35: unknown key 'error_only' in filter; did you mean 'errors_only'?" },
    { "empty-list", "  - csv: { path: x.csv, filter: { steps: [] } }\n",
      "plan.yaml:20:42: an empty list selects nothing; leave the key out to keep all" },
    { "summary-reporter", "  - json: { path: s.json, filter: { errors_only: true } }\n",
      "plan.yaml:20:35: the json reporter takes no samples with these options, so there is "
      "nothing to filter: a filter chooses the samples a reporter receives, never its summary" },
};

static void
test_bad_filter (Fixture *fixture, gconstpointer data)
{
    const BadFilter *bad = data;
    g_autofree char *yaml = plan_yaml (fixture, bad->reporter);
    g_free (throng_test_write_plan (fixture->dir, "plan.yaml", yaml));
    g_autofree char *err = NULL;
    g_autofree char *expected = g_strdup_printf ("%s\n", bad->message);
    int status = run_in_dir (fixture, (const char *const[]) { "validate", "plan.yaml", NULL },
                             &err);

    g_assert_cmpint (status, ==, 2);
    g_assert_cmpstr (err, ==, expected);
    g_assert_cmpint (g_atomic_int_get (&fixture->requests), ==, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add ("/filters/errors-only", Fixture, NULL, fixture_setup, test_errors_only,
                fixture_teardown);
    g_test_add ("/filters/scenarios-steps", Fixture, NULL, fixture_setup, test_scenarios_steps,
                fixture_teardown);
    g_test_add ("/filters/sample-share", Fixture, NULL, fixture_setup, test_sample_share,
                fixture_teardown);
    for (gsize i = 0; i < G_N_ELEMENTS (bad_filters); i++) {
        g_autofree char *name = g_strdup_printf ("/filters/bad/%s", bad_filters[i].name);
        g_test_add (name, Fixture, &bad_filters[i], fixture_setup, test_bad_filter,
                    fixture_teardown);
    }
    return g_test_run ();
}
