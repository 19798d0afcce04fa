/* SPDX-License-Identifier: MIT */
/*
 * Distributed runs on one machine: N shard processes of one plan started
 * at one --start-at against nginx, then `throng merge`.  The union must
 * be the unsharded run: nginx's access log, the shards' sum and the merge
 * agree; closed-model users are dealt 34/33/33 under disjoint global
 * numbers; each open-model arrival runs once, on shard k mod N (a sample
 * starts when its arrival was due, so its time names the arrival); merged
 * percentiles are those of one histogram of every sample.  Synthetic
 * shard summaries (tests/lib/shard-synth.c) give the merge exact figures:
 * a threshold that the shards' averaged p99 would pass and the merged p99
 * fails, and every refusal.  The Kubernetes manifests are parsed and
 * checked for the settings a sharded run depends on.
 */
#include "test-utils.h"

#include <string.h>

#include <throng/throng.h>

#include "node-private.h"
#include "shard-synth.h"

/* An RFC 3339 instant @seconds from now, whole seconds, UTC. */
static char *
start_at_in (guint seconds)
{
    g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
    g_autoptr (GDateTime) then = g_date_time_add_seconds (now, seconds + 1);
    return g_date_time_format (then, "%Y-%m-%dT%H:%M:%SZ");
}

/*
 * Runs shards 0…@n-1 of @plan at once, all at @at.  Shard i writes
 * DIR/TAG-i.jsonl through the plan's json reporter (@jsonl: `--set` of its
 * path, which the plan hash leaves out), or DIR/TAG-i.json by `--out`.
 */
static void
run_shards (const char *plan, guint n, const char *at, gboolean jsonl, const char *dir,
            const char *tag)
{
    g_autoptr (GPtrArray) processes = g_ptr_array_new_with_free_func (
        (GDestroyNotify) throng_test_process_free);

    for (guint i = 0; i < n; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/%u", i, n);
        const char *option = jsonl ? "--set" : "--out";
        g_autofree char *out = jsonl ? g_strdup_printf ("reporters.0.json.path=%s/%s-%u.jsonl",
                                                        dir, tag, i)
                                     : g_strdup_printf ("json=%s/%s-%u.json", dir, tag, i);
        const char *const argv[] = { "run", plan, "--quiet", "--shard", shard,
                                     "--start-at", at, option, out,
                                     NULL };
        g_ptr_array_add (processes, throng_test_spawn (argv, NULL));
    }
    for (guint i = 0; i < n; i++) {
        int status;
        g_autofree char *err = NULL;
        g_assert_true (throng_test_process_wait (g_ptr_array_index (processes, i), 120, &status,
                                                 NULL, &err));
        if (status != 0)
            g_test_message ("shard %u: %s", i, err);
        /* Thresholds are not judged per shard: 0 even though no shard alone passes them. */
        g_assert_cmpint (status, ==, 0);
    }
}

/* `throng merge FILES… ARGS…`: the exit status, stdout and stderr. */
static int
merge (const char *const *files, const char *const *args, char **out, char **err)
{
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();

    g_ptr_array_add (argv, "merge");
    for (const char *const *f = files; *f != NULL; f++)
        g_ptr_array_add (argv, (gpointer) *f);
    for (const char *const *a = args; a != NULL && *a != NULL; a++)
        g_ptr_array_add (argv, (gpointer) *a);
    g_ptr_array_add (argv, NULL);
    int status;
    g_assert_true (throng_test_run ((const char *const *) argv->pdata, NULL, 60, &status, out,
                                    err));
    return status;
}

/* The last line of a jsonl file, parsed (the summary). */
static JsonNode *
jsonl_summary (const char *path, GPtrArray *samples)
{
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    JsonNode *summary = NULL;

    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0')
            continue;
        g_autoptr (JsonParser) parser = json_parser_new ();
        g_assert_true (json_parser_load_from_data (parser, *line, -1, NULL));
        JsonNode *root = json_parser_get_root (parser);
        const char *type = throng_test_json_string (root, "type");
        if (strcmp (type, "sample") == 0 && samples != NULL)
            g_ptr_array_add (samples, json_node_copy (root));
        if (strcmp (type, "summary") == 0) {
            g_clear_pointer (&summary, json_node_unref);
            summary = json_node_copy (root);
        }
    }
    g_assert_nonnull (summary);
    return summary;
}

/* --- closed model: N = 1, 2, 3 --------------------------------------------------------------- */

static void
test_closed (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (NULL);
    if (nginx == NULL)
        return;
    /* 100 users × 2 iterations; the threshold holds for the whole run only. */
    g_autofree char *yaml = g_strdup_printf (
        "name: shard-closed\n"
        "scenarios:\n"
        "  - name: c\n"
        "    users: 100\n"
        "    iterations: 2\n"
        "    http: { base_url: \"%s\" }\n"
        "    steps:\n"
        "      - http: { url: / }\n"
        "    thresholds: [\"requests == 200\"]\n"
        "reporters:\n"
        "  - json: { path: unused.jsonl, mode: jsonl, samples: true }\n",
        throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "closed.yaml", yaml);

    for (guint n = 1; n <= 3; n++) {
        g_autofree char *at = start_at_in (2);
        g_autofree char *tag = g_strdup_printf ("n%u", n);
        throng_test_nginx_log_clear (nginx);
        run_shards (plan, n, at, TRUE, fixture->dir, tag);

        g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
        g_autoptr (GPtrArray) samples = g_ptr_array_new_with_free_func (
            (GDestroyNotify) json_node_unref);
        g_autoptr (ThrongHistogram) all = throng_histogram_new ();
        gint64 sum = 0;
        g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
        for (guint i = 0; i < n; i++) {
            char *path = g_strdup_printf ("%s/%s-%u.jsonl", fixture->dir, tag, i);
            g_ptr_array_add (files, path);
            guint first = samples->len;
            g_autoptr (JsonNode) summary = jsonl_summary (path, samples);
            sum += throng_test_json_int (summary, "total.requests");
            g_assert_cmpint (throng_test_json_int (summary, "shard.index"), ==, i);
            g_assert_cmpint (throng_test_json_int (summary, "shard.count"), ==, n);
            g_assert_cmpuint (throng_test_json_length (summary, "thresholds"), ==, 0);
            g_assert_cmpstr (throng_test_json_string (summary, "shard.thresholds.0"), ==,
                             "c.requests == 200");
            /* 100 users over 3 shards: 34/33/33. */
            g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==,
                             (100 - i + n - 1) / n);
            /* Global user numbers: user u on shard u mod N, each once over the run. */
            for (guint k = first; k < samples->len; k++) {
                JsonNode *sample = g_ptr_array_index (samples, k);
                gint64 user = throng_test_json_int (sample, "user");
                g_assert_cmpint (user % n, ==, i);
                g_assert_cmpint (user, <, 100);
                g_hash_table_add (seen, GINT_TO_POINTER (user + 1));
                throng_histogram_record (all, throng_test_json_int (sample, "elapsed_us"));
            }
        }
        g_assert_cmpuint (g_hash_table_size (seen), ==, 100);
        g_assert_cmpuint (samples->len, ==, 200);
        g_assert_cmpint (sum, ==, 200);

        g_ptr_array_add (files, NULL);
        g_autofree char *merged_path = g_strdup_printf ("%s/%s-merged.json", fixture->dir, tag);
        g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
        const char *const args[] = { "--out", out_arg, NULL };
        g_autofree char *err = NULL;
        int status = merge ((const char *const *) files->pdata, args, NULL, &err);
        if (status != 0)
            g_test_message ("merge: %s", err);
        g_assert_cmpint (status, ==, 0);

        g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
        g_assert_nonnull (merged);
        ThrongTestNginxLog log;
        g_assert_true (throng_test_nginx_log_wait (nginx, 200, 5000, &log));
        g_assert_cmpint (throng_test_json_int (merged, "total.requests"), ==, log.lines);
        g_assert_cmpint (throng_test_json_int (merged, "total.requests"), ==, sum);
        /* Requests per protocol version sum like the rest (all HTTP/1.1 here). */
        g_assert_cmpint (json_object_get_int_member (
                             json_node_get_object (throng_test_json_get (merged, "total.protocols")),
                             "http/1.1"),
                         ==, sum);
        g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.users"), ==, 100);
        g_assert_cmpuint (throng_test_json_length (merged, "shards"), ==, n);
        g_assert_false (throng_test_json_bool (merged, "partial"));
        g_assert_true (throng_test_json_bool (merged, "thresholds.0.passed"));
        /* Exactly the percentiles of one histogram of every sample. */
        g_assert_cmpint (throng_test_json_int (merged, "total.latency_us.min"), ==,
                         throng_histogram_min (all));
        g_assert_cmpint (throng_test_json_int (merged, "total.latency_us.max"), ==,
                         throng_histogram_max (all));
        const struct {
            const char *path;
            gdouble p;
        } percentiles[] = { { "total.latency_us.p50", 50 }, { "total.latency_us.p90", 90 },
                            { "total.latency_us.p95", 95 }, { "total.latency_us.p99", 99 } };
        for (guint p = 0; p < G_N_ELEMENTS (percentiles); p++)
            g_assert_cmpint (throng_test_json_int (merged, percentiles[p].path), ==,
                             throng_histogram_percentile (all, percentiles[p].p));
    }
}

static gint
compare_int64 (gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
    return x < y ? -1 : x > y;
}

/* --- open model: 300/s for 10 s over 3 shards ------------------------------------------------- */

static void
test_open (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (NULL);
    if (nginx == NULL)
        return;
    g_autofree char *yaml = g_strdup_printf (
        "name: shard-open\n"
        "scenarios:\n"
        "  - name: o\n"
        "    executor: constant-arrival-rate\n"
        "    rate: 300/s\n"
        "    duration: 10s\n"
        "    max_users: 60\n"
        "    http: { base_url: \"%s\" }\n"
        "    steps:\n"
        "      - http: { url: / }\n"
        "reporters:\n"
        "  - json: { path: unused.jsonl, mode: jsonl, samples: true }\n",
        throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "open.yaml", yaml);
    g_autofree char *at = start_at_in (2);
    const guint n = 3;

    throng_test_nginx_log_clear (nginx);
    run_shards (plan, n, at, TRUE, fixture->dir, "open");
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
    gint64 requests = 0, dropped = 0;
    g_autoptr (GDateTime) start = g_date_time_new_from_iso8601 (at, NULL);
    gint64 start_ms = g_date_time_to_unix (start) * 1000;
    g_autofree guint8 *arrived = g_new0 (guint8, 3000);
    guint distinct = 0;
    for (guint i = 0; i < n; i++) {
        char *path = g_strdup_printf ("%s/open-%u.jsonl", fixture->dir, i);
        g_ptr_array_add (files, path);
        g_autoptr (GPtrArray) samples = g_ptr_array_new_with_free_func (
            (GDestroyNotify) json_node_unref);
        g_autoptr (JsonNode) summary = jsonl_summary (path, samples);
        /* An open-model sample starts when its arrival was due: at --start-at
         * + k / 300 s (written to the ms), so its time names its arrival k. */
        for (guint j = 0; j < samples->len; j++) {
            const char *time = throng_test_json_string (g_ptr_array_index (samples, j), "time");
            g_autoptr (GDateTime) when = g_date_time_new_from_iso8601 (time, NULL);
            gint64 ms = g_date_time_to_unix (when) * 1000
                        + g_date_time_get_microsecond (when) / 1000 - start_ms;
            gint64 k = (gint64) (ms * 0.3 + 0.5);
            g_assert_cmpint (k, >=, 0);
            g_assert_cmpint (k, <, 3000);
            /* Arrival k runs on shard k mod 3, and once. */
            g_assert_cmpint (k % 3, ==, i);
            g_assert_cmpuint (arrived[k], ==, 0);
            arrived[k] = 1;
            distinct++;
        }
        gint64 done = throng_test_json_int (summary, "total.requests");
        gint64 lost = throng_test_json_int (summary, "scenarios.0.dropped_iterations");
        /* Arrivals k < 3000 with k mod 3 == i: exactly 1000, run or dropped. */
        g_assert_cmpint (done + lost, ==, 1000);
        g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==, 20);
        requests += done;
        dropped += lost;
    }
    g_assert_cmpint (distinct, ==, requests);
    g_ptr_array_add (files, NULL);
    g_autofree char *merged_path = g_strdup_printf ("%s/open-merged.jsonl", fixture->dir);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    const char *const args[] = { "--out", out_arg, "--set", "json.mode=jsonl", NULL };
    g_assert_cmpint (merge ((const char *const *) files->pdata, args, NULL, NULL), ==, 0);
    g_autoptr (JsonNode) merged = jsonl_summary (merged_path, NULL);

    /* The shards' intervals, aligned on the run's seconds: one line a second,
     * each about 300 requests (100 from each shard), adding up to the total. */
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (merged_path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    gint64 interval_sum = 0, previous = 0;
    guint intervals = 0;
    g_autoptr (GArray) middle = g_array_new (FALSE, FALSE, sizeof (gint64));
    for (char **line = lines; *line != NULL; line++) {
        if (!g_str_has_prefix (*line, "{\"type\":\"interval\""))
            continue;
        g_autoptr (JsonParser) parser = json_parser_new ();
        g_assert_true (json_parser_load_from_data (parser, *line, -1, NULL));
        JsonNode *root = json_parser_get_root (parser);
        gint64 second = (gint64) throng_test_json_double (root, "elapsed_s");
        gint64 count = throng_test_json_int (root, "total.requests");
        g_assert_cmpint (second, >, previous);
        g_test_message ("second %" G_GINT64_FORMAT ": %" G_GINT64_FORMAT " requests", second,
                        count);
        if (second >= 2 && second <= 9)
            g_array_append_val (middle, count);
        previous = second;
        interval_sum += count;
        intervals++;
    }
    g_assert_cmpuint (intervals, >=, 10);
    g_assert_cmpuint (intervals, <=, 12);
    g_assert_cmpint (interval_sum, ==, requests);
    /* A second is about 300 requests; a tick that a busy machine delayed
     * moves one shard's interval into the next second, so the median. */
    g_assert_cmpuint (middle->len, >=, 6);
    g_array_sort (middle, compare_int64);
    gint64 median = g_array_index (middle, gint64, middle->len / 2);
    g_assert_cmpint (median, >=, 270);
    g_assert_cmpint (median, <=, 330);
    ThrongTestNginxLog log;
    g_assert_true (throng_test_nginx_log_wait (nginx, (guint) requests, 5000, &log));
    g_assert_cmpint (log.lines, ==, requests);
    g_assert_cmpint (throng_test_json_int (merged, "total.requests"), ==, requests);
    g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.dropped_iterations"), ==,
                     dropped);
    g_assert_cmpint (requests + dropped, ==, 3000);
    g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.users"), ==, 60);
}

/* --- data sets with mode: unique -------------------------------------------------------------- */

/*
 * 6 users share 4 unique rows, one each: unsharded, 4 users run an
 * iteration and 2 find the rows exhausted.  Over 2 shards each shard
 * has 3 users and its slice of 2 rows (r mod 2 == I): 2 + 2 iterations,
 * the same 4 rows.  Unsliced, each shard would hand out 3 rows, 6 in all.
 */
static void
test_unique_rows (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_free (throng_test_write_file (fixture->dir, "rows.csv", "id\n1\n2\n3\n4\n"));
    g_autofree char *plan = throng_test_write_plan (
        fixture->dir, "unique.yaml",
        "scenarios:\n"
        "  - name: u\n"
        "    users: 6\n"
        "    iterations: 1\n"
        "    data: { file: rows.csv, mode: unique, advance: per-user, on_exhausted: stop }\n"
        "    steps:\n"
        "      - null: {}\n");
    const char *const env[] = { NULL };
    gint64 iterations = 0;
    g_setenv ("THRONG_PLUGIN_PATH", g_getenv ("THRONG_TEST_PLUGIN_DIR"), TRUE);
    for (guint i = 0; i < 2; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/2", i);
        g_autofree char *path = g_strdup_printf ("%s/unique-%u.json", fixture->dir, i);
        g_autofree char *out_arg = throng_test_out_arg ("json", path);
        const char *const argv[] = { "run", plan, "--quiet", "--shard", shard, "--out", out_arg,
                                     NULL };
        int status;
        g_autofree char *err = NULL;
        g_assert_true (throng_test_run (argv, env, 60, &status, NULL, &err));
        if (status != 0)
            g_test_message ("%s", err);
        g_assert_cmpint (status, ==, 0);
        g_autoptr (JsonNode) summary = throng_test_json_load (path, NULL);
        g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==, 3);
        g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.iterations"), ==, 2);
        iterations += throng_test_json_int (summary, "scenarios.0.iterations");
    }
    g_unsetenv ("THRONG_PLUGIN_PATH");
    g_assert_cmpint (iterations, ==, 4);
}

/* --- ${arrival}: the unsharded schedule's number, whichever shard runs it --------------------- */

/*
 * 100/s for 3 s over 3 shards: 300 arrivals, each sending `/a/${arrival}`.
 * nginx's log (`$connection … $uri`) must hold each number 1…300 at most
 * once, every one that was not dropped; a connection belongs to one shard
 * process, so the numbers on one connection share (arrival − 1) mod 3.
 * A closed model has no arrivals: a plan reading ${arrival} is refused.
 */
static void
test_arrival (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (NULL);
    if (nginx == NULL)
        return;
    g_autofree char *yaml = g_strdup_printf (
        "name: shard-arrival\n"
        "scenarios:\n"
        "  - name: o\n"
        "    executor: constant-arrival-rate\n"
        "    rate: 100/s\n"
        "    duration: 3s\n"
        "    max_users: 30\n"
        "    http: { base_url: \"%s\" }\n"
        "    steps:\n"
        "      - http: { url: \"/a/${arrival}\" }\n",
        throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "arrival.yaml", yaml);
    g_autofree char *at = start_at_in (2);
    const guint n = 3, arrivals = 300;

    throng_test_nginx_log_clear (nginx);
    run_shards (plan, n, at, FALSE, fixture->dir, "arrival");
    gint64 requests = 0, dropped = 0;
    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("%s/arrival-%u.json", fixture->dir, i);
        g_autoptr (JsonNode) summary = throng_test_json_load (path, NULL);
        requests += throng_test_json_int (summary, "total.requests");
        dropped += throng_test_json_int (summary, "scenarios.0.dropped_iterations");
    }
    g_assert_cmpint (requests + dropped, ==, arrivals);

    ThrongTestNginxLog log;
    g_assert_true (throng_test_nginx_log_wait (nginx, (guint) requests, 5000, &log));
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (throng_test_nginx_access_log (nginx), &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_autofree guint8 *seen = g_new0 (guint8, arrivals + 1);
    g_autoptr (GHashTable) shard_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    guint logged = 0;
    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0')
            continue;
        g_auto (GStrv) fields = g_strsplit (*line, " ", -1);
        g_assert_cmpuint (g_strv_length (fields), >=, 6);
        g_assert_true (g_str_has_prefix (fields[5], "/a/"));
        guint64 arrival = g_ascii_strtoull (fields[5] + 3, NULL, 10);
        g_assert_cmpuint (arrival, >=, 1);
        g_assert_cmpuint (arrival, <=, arrivals);
        g_assert_cmpuint (seen[arrival], ==, 0);
        seen[arrival] = 1;
        logged++;
        /* One connection, one shard: arrival k + 1 runs on shard k mod N. */
        gpointer shard = GUINT_TO_POINTER ((guint) ((arrival - 1) % n) + 1);
        gpointer known = g_hash_table_lookup (shard_of, fields[0]);
        if (known != NULL)
            g_assert_cmpuint (GPOINTER_TO_UINT (known), ==, GPOINTER_TO_UINT (shard));
        else
            g_hash_table_insert (shard_of, g_strdup (fields[0]), shard);
    }
    g_assert_cmpuint (logged, ==, requests);
    g_test_message ("%u arrivals logged, %" G_GINT64_FORMAT " dropped", logged, dropped);

    g_autofree char *closed = throng_test_write_plan (
        fixture->dir, "closed-arrival.yaml",
        "scenarios:\n"
        "  - name: c\n"
        "    users: 2\n"
        "    steps:\n"
        "      - http: { url: \"http://127.0.0.1:1/a/${arrival}\" }\n");
    int status;
    g_autofree char *err = NULL;
    g_assert_true (throng_test_run ((const char *const[]) { "validate", closed, NULL }, NULL, 30,
                                    &status, NULL, &err));
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "closed-arrival.yaml:5:"));
    g_assert_nonnull (strstr (err, "${arrival} numbers the arrivals of an arrival-rate scenario"));
}

/* --- journeys: checks and groups through the merge ------------------------------------------- */

/*
 * 6 users × 2 iterations over 3 shards, a group of two requests: `/`
 * passes both checks, `/missing` (404 from nginx) fails "status is 200",
 * which the two steps share as one check.  The merge sums each check by
 * name over the shards, keeps the group's place in the step tree, and
 * judges `checks.rate`, which the shards carried without judging: 36 of
 * 48 checks pass, 0.75, so "checks.rate > 0.8" fails the merge with 99.
 */
static void
test_journey (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    const ThrongTestNginxConfig config = { .locations = "location /missing { return 404; }" };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;
    g_autofree char *yaml = g_strdup_printf (
        "name: shard-journey\n"
        "scenarios:\n"
        "  - name: j\n"
        "    users: 6\n"
        "    iterations: 2\n"
        "    http: { base_url: \"%s\" }\n"
        "    steps:\n"
        "      - group: browse\n"
        "        steps:\n"
        "          - name: home\n"
        "            http:\n"
        "              url: /\n"
        "              check: [ { status: 200 }, { header: Content-Type, exists: true } ]\n"
        "          - name: missing\n"
        "            http: { url: /missing, check: [ { status: 200 } ] }\n"
        "    thresholds: [\"checks.rate > 0.8\"]\n",
        throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "journey.yaml", yaml);
    g_autofree char *at = start_at_in (2);
    const guint n = 3;

    run_shards (plan, n, at, FALSE, fixture->dir, "journey");
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
    gint64 passes[2] = { 0 }, fails[2] = { 0 };
    for (guint i = 0; i < n; i++) {
        char *path = g_strdup_printf ("%s/journey-%u.json", fixture->dir, i);
        g_ptr_array_add (files, path);
        g_autoptr (JsonNode) shard = throng_test_json_load (path, NULL);
        g_assert_cmpuint (throng_test_json_length (shard, "scenarios.0.checks.list"), ==, 2);
        for (guint c = 0; c < 2; c++) {
            g_autofree char *p = g_strdup_printf ("scenarios.0.checks.list.%u.passes", c);
            g_autofree char *f = g_strdup_printf ("scenarios.0.checks.list.%u.fails", c);
            passes[c] += throng_test_json_int (shard, p);
            fails[c] += throng_test_json_int (shard, f);
        }
    }
    /* Two iterations of each of 6 users, one request of each step per iteration. */
    g_assert_cmpint (passes[0], ==, 12);
    g_assert_cmpint (fails[0], ==, 12);
    g_assert_cmpint (passes[1] + fails[1], ==, 12);

    g_ptr_array_add (files, NULL);
    g_autofree char *merged_path = g_strdup_printf ("%s/journey-merged.json", fixture->dir);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    const char *const args[] = { "--out", out_arg, NULL };
    g_autofree char *err = NULL;
    g_assert_cmpint (merge ((const char *const *) files->pdata, args, NULL, &err), ==, 99);
    g_assert_nonnull (strstr (err, "checks.rate > 0.8"));

    g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
    g_assert_cmpuint (throng_test_json_length (merged, "scenarios.0.checks.list"), ==, 2);
    g_assert_cmpstr (throng_test_json_string (merged, "scenarios.0.checks.list.0.name"), ==,
                     "status is 200");
    for (guint c = 0; c < 2; c++) {
        g_autofree char *p = g_strdup_printf ("scenarios.0.checks.list.%u.passes", c);
        g_autofree char *f = g_strdup_printf ("scenarios.0.checks.list.%u.fails", c);
        g_assert_cmpint (throng_test_json_int (merged, p), ==, passes[c]);
        g_assert_cmpint (throng_test_json_int (merged, f), ==, fails[c]);
    }
    g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.checks.passes"), ==,
                     passes[0] + passes[1]);
    g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.checks.fails"), ==,
                     fails[0] + fails[1]);
    g_assert_false (throng_test_json_bool (merged, "thresholds.0.passed"));
    g_assert_false (throng_test_json_bool (merged, "scenarios.0.data_exhausted"));
    /* The group and its two children keep their places. */
    g_assert_cmpstr (throng_test_json_string (merged, "scenarios.0.steps.0.kind"), ==, "group");
    g_assert_cmpint (throng_test_json_int (merged, "scenarios.0.steps.0.depth"), ==, 0);
    for (guint s = 1; s <= 2; s++) {
        g_autofree char *kind = g_strdup_printf ("scenarios.0.steps.%u.kind", s);
        g_autofree char *parent = g_strdup_printf ("scenarios.0.steps.%u.parent", s);
        g_autofree char *depth = g_strdup_printf ("scenarios.0.steps.%u.depth", s);
        g_assert_cmpstr (throng_test_json_string (merged, kind), ==, "request");
        g_assert_cmpint (throng_test_json_int (merged, parent), ==, 0);
        g_assert_cmpint (throng_test_json_int (merged, depth), ==, 1);
    }
    /* The HTML report of the merge lists the checks as a run's does. */
    g_autofree char *html = g_build_filename (fixture->dir, "journey.html", NULL);
    g_autofree char *html_arg = throng_test_out_arg ("html", html);
    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "report", merged_path, "--out", html_arg,
                                       NULL),
                     ==, 0);
    g_autofree char *page = NULL;
    g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
    g_assert_nonnull (strstr (page, "status is 200"));

    /* A shard whose step tree differs (its "home" outside the group) is refused. */
    const char *moved = g_ptr_array_index (files, 1);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (moved, &text, NULL, NULL));
    char *parent = strstr (text, "\"parent\": 0,");
    g_assert_nonnull (parent);
    memcpy (parent, "\"parent\":-1,", strlen ("\"parent\":-1,"));
    g_assert_true (g_file_set_contents (moved, text, -1, NULL));
    g_autofree char *refused = NULL;
    g_assert_cmpint (merge ((const char *const *) files->pdata, NULL, NULL, &refused), ==, 2);
    g_assert_nonnull (strstr (refused, "disagree on the place of step \"home\""));
}

/* --- synthetic shards: exact figures and refusals --------------------------------------------- */

static char *
synth (const char *dir, const char *name, ThrongTestShardSpec spec)
{
    char *path = g_build_filename (dir, name, NULL);
    spec.path = path;
    throng_test_shard_write (&spec);
    return path;
}

/*
 * docs/distributed.md's worked example: shard 0 answered 1,000 requests
 * in 1 ms, shard 1 answered 20 in 100 ms.  Their p99s are 1 ms and
 * 100 ms, whose average (50.5 ms) passes "p99 < 60ms"; the run's p99 is
 * 100 ms (20 of 1,020 requests, 2%, are slow), and the merge fails it.
 */
static void
test_threshold (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    gint64 fast[1000], slow[20];
    for (guint i = 0; i < G_N_ELEMENTS (fast); i++)
        fast[i] = 1000;
    for (guint i = 0; i < G_N_ELEMENTS (slow); i++)
        slow[i] = 100000;
    const char *const thresholds[] = { "s.p99 < 60ms", "total.requests == 1020", NULL };
    g_autofree char *a = synth (fixture->dir, "a.json",
                                (ThrongTestShardSpec) { .index = 0, .count = 2,
                                                        .latencies = fast, .n_latencies = 1000,
                                                        .thresholds = thresholds });
    g_autofree char *b = synth (fixture->dir, "b.json",
                                (ThrongTestShardSpec) { .index = 1, .count = 2,
                                                        .latencies = slow, .n_latencies = 20,
                                                        .thresholds = thresholds,
                                                        .saturated = TRUE });
    g_autoptr (JsonNode) shard_a = throng_test_json_load (a, NULL);
    g_autoptr (JsonNode) shard_b = throng_test_json_load (b, NULL);
    gint64 average = (throng_test_json_int (shard_a, "scenarios.0.stats.latency_us.p99")
                      + throng_test_json_int (shard_b, "scenarios.0.stats.latency_us.p99"))
                     / 2;
    g_assert_cmpint (average, <, 60000);

    g_autofree char *merged_path = g_build_filename (fixture->dir, "merged.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    const char *const files[] = { a, b, NULL };
    const char *const args[] = { "--out", out_arg, NULL };
    g_autofree char *err = NULL;
    g_assert_cmpint (merge (files, args, NULL, &err), ==, 99);
    g_assert_nonnull (strstr (err, "s.p99 < 60ms"));
    g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
    g_autoptr (ThrongHistogram) all = throng_histogram_new ();
    throng_histogram_record_n (all, 1000, 1000);
    throng_histogram_record_n (all, 100000, 20);
    gint64 p99 = throng_test_json_int (merged, "scenarios.0.stats.latency_us.p99");
    g_assert_cmpint (p99, ==, throng_histogram_percentile (all, 99));
    g_assert_cmpint (p99, >, 60000);
    g_assert_false (throng_test_json_bool (merged, "thresholds.0.passed"));
    g_assert_true (throng_test_json_bool (merged, "thresholds.1.passed"));
    /* CPU and saturation stay per shard, and the summary names the saturated one. */
    g_assert_false (throng_test_json_bool (merged, "shards.0.saturated"));
    g_assert_true (throng_test_json_bool (merged, "shards.1.saturated"));
    g_assert_true (throng_test_summary_has_warning (merged, "saturated on shard 1 of 2"));
    /* The merged file reads back as a run: `throng report` draws it. */
    g_autofree char *html = g_build_filename (fixture->dir, "merged.html", NULL);
    g_autofree char *html_arg = throng_test_out_arg ("html", html);
    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "report", merged_path, "--out", html_arg,
                                       NULL),
                     ==, 0);
}

/*
 * jsonl shards whose intervals carry a check: the merge streams the
 * intervals, reading each shard's next one before the merged interval is
 * handed out, and every merged interval still names its check once, with
 * both shards' passes (5 requests of the one step per shard and interval).
 */
static void
test_interval_checks (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autofree char *a = synth (fixture->dir, "a.jsonl",
                                (ThrongTestShardSpec) { .index = 0, .count = 2, .jsonl = TRUE,
                                                        .intervals = 3, .synthetic_requests = 10,
                                                        .check = "status is 200" });
    g_autofree char *b = synth (fixture->dir, "b.jsonl",
                                (ThrongTestShardSpec) { .index = 1, .count = 2, .jsonl = TRUE,
                                                        .intervals = 3, .synthetic_requests = 10,
                                                        .check = "status is 200" });
    g_autofree char *merged_path = g_build_filename (fixture->dir, "merged.jsonl", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    const char *const files[] = { a, b, NULL };
    const char *const args[] = { "--out", out_arg, "--set", "json.mode=jsonl", NULL };
    g_assert_cmpint (merge (files, args, NULL, NULL), ==, 0);

    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (merged_path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    guint intervals = 0;
    for (guint i = 0; lines[i] != NULL; i++) {
        if (!g_str_has_prefix (lines[i], "{\"type\":\"interval\""))
            continue;
        g_autoptr (GError) error = NULL;
        g_autoptr (JsonNode) interval = json_from_string (lines[i], &error);
        g_assert_no_error (error);
        g_assert_cmpuint (throng_test_json_length (interval, "scenarios.0.checks.list"), ==, 1);
        g_assert_cmpstr (throng_test_json_string (interval, "scenarios.0.checks.list.0.name"), ==,
                         "status is 200");
        g_assert_cmpint (throng_test_json_int (interval, "scenarios.0.checks.list.0.passes"), ==,
                         10);
        intervals++;
    }
    g_assert_cmpuint (intervals, ==, 3);
}

typedef struct {
    const char *name;
    ThrongTestShardSpec a, b;
    const char *message;
} Refusal;

static void
test_refusals (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    const Refusal refusals[] = {
        { "plan", { .count = 2 }, { .index = 1, .count = 2, .plan_sha256 = "other" },
          "ran different plans" },
        { "version", { .count = 2 }, { .index = 1, .count = 2, .throng_version = "0.2.9" },
          "written by throng 0.2.9" },
        { "mixed", { .count = 2 }, { .index = 1, .count = 3 }, "mixed shard counts" },
        { "duplicate", { .count = 2 }, { .count = 2 }, "are both shard 0/2" },
        { "missing", { .count = 3 }, { .index = 1, .count = 3 },
          "shard 2 of 3 missing" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (refusals); i++) {
        g_autofree char *name_a = g_strdup_printf ("%s-a.json", refusals[i].name);
        g_autofree char *name_b = g_strdup_printf ("%s-b.json", refusals[i].name);
        g_autofree char *a = synth (fixture->dir, name_a, refusals[i].a);
        g_autofree char *b = synth (fixture->dir, name_b, refusals[i].b);
        const char *const files[] = { a, b, NULL };
        g_autofree char *err = NULL;
        g_test_message ("refusal: %s", refusals[i].name);
        g_assert_cmpint (merge (files, NULL, NULL, &err), ==, 2);
        if (strstr (err, refusals[i].message) == NULL)
            g_error ("%s: expected '%s' in: %s", refusals[i].name, refusals[i].message, err);
    }

    /* --allow-partial merges what is there and says the result is partial. */
    g_autofree char *p0 = synth (fixture->dir, "p0.jsonl",
                                 (ThrongTestShardSpec) { .count = 3, .jsonl = TRUE,
                                                         .intervals = 3,
                                                         .synthetic_requests = 10 });
    g_autofree char *p1 = synth (fixture->dir, "p1.json",
                                 (ThrongTestShardSpec) { .index = 1, .count = 3,
                                                         .synthetic_requests = 10,
                                                         .start_wall_us = G_GINT64_CONSTANT (
                                                             1796300000500000) });
    g_autofree char *merged_path = g_build_filename (fixture->dir, "partial.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", merged_path);
    const char *const partial_files[] = { p0, p1, NULL };
    const char *const partial_args[] = { "--allow-partial", "--out", out_arg, NULL };
    g_autofree char *partial_out = NULL;
    g_assert_cmpint (merge (partial_files, partial_args, &partial_out, NULL), ==, 0);
    g_assert_nonnull (strstr (partial_out, "(partial)"));
    g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
    g_assert_true (throng_test_json_bool (merged, "partial"));
    g_assert_cmpint (throng_test_json_int (merged, "total.requests"), ==, 20);
    g_assert_true (throng_test_summary_has_warning (merged, "shard 2 of 3 missing"));
    /* Shards that started half a second apart: merged, with a warning. */
    g_assert_true (throng_test_summary_has_warning (merged, "started 0.500 s apart"));

    /* Files that are no summary of a shard. */
    g_autofree char *other = throng_test_write_file (fixture->dir, "other.json",
                                                     "{\n  \"name\": \"not throng\"\n}\n");
    g_autofree char *text = throng_test_write_file (fixture->dir, "text.json", "hello\n");
    g_autofree char *whole = synth (fixture->dir, "whole.json", (ThrongTestShardSpec) {
                                                                    .count = 1 });
    g_autofree char *contents = NULL;
    gsize length;
    g_assert_true (g_file_get_contents (whole, &contents, &length, NULL));
    contents[length / 2] = '\0';
    g_autofree char *cut = throng_test_write_file (fixture->dir, "cut.json", contents);
    /* JSON is UTF-8: a label with other bytes is no JSON, not a label to hand to reporters. */
    g_autofree char *whole_text = NULL;
    g_assert_true (g_file_get_contents (whole, &whole_text, NULL, NULL));
    char *label = strstr (whole_text, "\"step 01\"");
    g_assert_nonnull (label);
    label[5] = '\x9f';
    g_autofree char *not_utf8 = throng_test_write_file (fixture->dir, "not-utf8.json", whole_text);
    g_autofree char *killed = synth (fixture->dir, "killed.jsonl",
                                     (ThrongTestShardSpec) { .count = 1, .jsonl = TRUE,
                                                             .intervals = 2 });
    /* A jsonl file whose run was killed: its intervals, no summary line. */
    g_autofree char *killed_text = NULL;
    g_assert_true (g_file_get_contents (killed, &killed_text, NULL, NULL));
    *strstr (killed_text, "{\"type\":\"summary\"") = '\0';
    g_assert_true (g_file_set_contents (killed, killed_text, -1, NULL));
    /* A shard count no --shard can give: refused, not used to size the merge. */
    g_autofree char *huge = synth (fixture->dir, "huge.json",
                                   (ThrongTestShardSpec) { .count = G_MAXUINT });
    const struct {
        const char *path;
        const char *message;
    } bad[] = {
        { huge, "shard 0/4294967295 is not a valid shard" },
        { other, "not a throng summary" },
        { text, "not a throng jsonl file" },
        { cut, "not a complete JSON document" },
        { not_utf8, "not a complete JSON document" },
        { killed, "no summary" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
        const char *const files[] = { bad[i].path, NULL };
        g_autofree char *err = NULL;
        g_assert_cmpint (merge (files, NULL, NULL, &err), ==, 2);
        if (strstr (err, bad[i].message) == NULL)
            g_error ("%s: expected '%s' in: %s", bad[i].path, bad[i].message, err);
    }
    /* One whole run is the one shard of itself. */
    const char *const one[] = { whole, NULL };
    g_assert_cmpint (merge (one, NULL, NULL, NULL), ==, 0);
}

/* --- the command line ----------------------------------------------------------------------- */

static void
test_arguments (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autofree char *plan = throng_test_write_plan (
        fixture->dir, "p.yaml",
        "scenarios:\n  - name: o\n    executor: constant-arrival-rate\n    rate: 10/s\n"
        "    duration: 1s\n    max_users: 2\n    steps:\n"
        "      - http: { url: http://127.0.0.1:1/ }\n");
    const struct {
        const char *shard;
        const char *env_index;
        const char *message;
    } cases[] = {
        { "3/3", NULL, "the index must be below N" },
        { "x/3", NULL, "expected I/N" },
        { "0/0", NULL, "expected I/N" },
        { "k8s/3", NULL, "JOB_COMPLETION_INDEX is not set" },
        { "k8s/3", "JOB_COMPLETION_INDEX=5", "JOB_COMPLETION_INDEX is '5'" },
        { "0/3", NULL, "max_users 2, fewer than the 3 shards" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        const char *const argv[] = { "run", plan, "--quiet", "--shard", cases[i].shard, NULL };
        const char *const env[] = { cases[i].env_index, NULL };
        int status;
        g_autofree char *err = NULL;
        g_assert_true (throng_test_run (argv, env, 30, &status, NULL, &err));
        g_assert_cmpint (status, ==, 2);
        if (strstr (err, cases[i].message) == NULL)
            g_error ("--shard %s: expected '%s' in: %s", cases[i].shard, cases[i].message, err);
    }
    const char *const bad_time[] = { "run", plan, "--start-at", "14:00", NULL };
    int status;
    g_autofree char *err = NULL;
    g_assert_true (throng_test_run (bad_time, NULL, 30, &status, NULL, &err));
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "RFC 3339"));

    /* k8s/N takes its index from the Job; THRONG_SHARD stands for --shard. */
    g_autofree char *summary = g_build_filename (fixture->dir, "k8s.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", summary);
    const char *const k8s[] = { "run", plan, "--quiet", "--shard", "k8s/2", "--out", out_arg,
                                NULL };
    const char *const k8s_env[] = { "JOB_COMPLETION_INDEX=1", NULL };
    g_assert_true (throng_test_run (k8s, k8s_env, 60, &status, NULL, NULL));
    g_assert_cmpint (status, ==, 0);
    g_autoptr (JsonNode) root = throng_test_json_load (summary, NULL);
    g_assert_cmpint (throng_test_json_int (root, "shard.index"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "shard.count"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.users"), ==, 1);
    /* Arrivals 1, 3, 5, 7, 9 of 10: all fail (nothing listens), all counted. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests")
                         + throng_test_json_int (root, "scenarios.0.dropped_iterations"),
                     ==, 5);
    g_assert_nonnull (throng_test_json_get (root, "shard.clock"));
    g_assert_cmpuint (strlen (throng_test_json_string (root, "shard.plan_sha256")), ==, 64);

    /* --out json=-: the summary ends standard output, as in a pod's log. */
    const char *const to_log[] = { "run", plan, "--quiet", "--shard", "0/2", "--out", "json=-",
                                   NULL };
    g_autofree char *log = NULL;
    g_assert_true (throng_test_run (to_log, NULL, 60, &status, &log, NULL));
    g_assert_cmpint (status, ==, 0);
    const char *document = g_strrstr (log, "\n{\n");
    g_assert_nonnull (document);
    g_autoptr (JsonParser) parser = json_parser_new ();
    g_assert_true (json_parser_load_from_data (parser, document + 1, -1, NULL));
    g_assert_cmpint (throng_test_json_int (json_parser_get_root (parser), "shard.index"), ==, 0);

    /* A late shard starts anyway and says how late it was. */
    g_autofree char *late_summary = g_build_filename (fixture->dir, "late.json", NULL);
    g_autofree char *late_arg = throng_test_out_arg ("json", late_summary);
    const char *const late[] = { "run", plan, "--quiet", "--start-at", "2020-01-01T00:00:00Z",
                                 "--out", late_arg, NULL };
    const char *const env[] = { "THRONG_SHARD=0/1", NULL };
    g_assert_true (throng_test_run (late, env, 60, &status, NULL, NULL));
    g_assert_cmpint (status, ==, 0);
    g_autoptr (JsonNode) late_root = throng_test_json_load (late_summary, NULL);
    g_assert_cmpint (throng_test_json_int (late_root, "shard.count"), ==, 1);
    g_assert_cmpfloat (throng_test_json_double (late_root, "shard.late_s"), >, 1e8);
    g_assert_true (throng_test_summary_has_warning (late_root, "after --start-at"));
}

/* --- the Kubernetes manifests ----------------------------------------------------------------- */

static const ThrongNode *
node_at (const ThrongNode *node, const char *path)
{
    g_auto (GStrv) parts = g_strsplit (path, ".", -1);
    for (char **p = parts; node != NULL && *p != NULL; p++) {
        if (throng_node_kind (node) == THRONG_NODE_SEQUENCE)
            node = throng_node_child (node, (guint) g_ascii_strtoull (*p, NULL, 10));
        else
            node = throng_node_lookup (node, *p);
    }
    if (node == NULL)
        g_error ("the manifest has no %s", path);
    return node;
}

static const char *
text_at (const ThrongNode *root, const char *path)
{
    const char *text = throng_node_scalar (node_at (root, path));
    g_assert_nonnull (text);
    return text;
}

/*
 * The Job as run.sh renders it for @n shards, parsed: results in the
 * pods' logs, or with @pvc on that claim, under the Job's index.
 */
static void
check_job (const char *dir, guint n, const char *pvc)
{
    g_autofree char *script = throng_test_source_path ("deploy/kubernetes/run.sh");
    g_autofree char *count = g_strdup_printf ("%u", n);
    const char *const argv[] = { "bash", script, "--render", "plan.yaml", count, NULL };
    g_autofree char *pvc_env = g_strdup_printf ("THRONG_RESULTS_PVC=%s", pvc != NULL ? pvc : "");
    const char *const spawn_env[] = { pvc_env, NULL };
    ThrongTestSpawnOptions options = { .env = spawn_env };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_process_run (argv, &options, 30, &out, &err);
    if (status != 0)
        g_error ("run.sh --render: %s", err);
    g_autofree char *path = throng_test_write_file (dir, "job.yaml", out);
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_file (path, &error);
    g_assert_no_error (error);
    const ThrongNode *root = throng_tree_root (tree);

    g_assert_cmpstr (text_at (root, "kind"), ==, "Job");
    g_assert_cmpstr (text_at (root, "spec.completionMode"), ==, "Indexed");
    /* A retried shard would send its load twice. */
    g_assert_cmpstr (text_at (root, "spec.backoffLimit"), ==, "0");
    g_assert_cmpstr (text_at (root, "spec.completions"), ==, count);
    g_assert_cmpstr (text_at (root, "spec.parallelism"), ==, count);
    g_assert_nonnull (node_at (root, "spec.template.spec.affinity.podAntiAffinity"));
    g_assert_cmpstr (text_at (root, "spec.template.spec.restartPolicy"), ==, "Never");
    const ThrongNode *container = node_at (root, "spec.template.spec.containers.0");
    g_assert_cmpstr (text_at (container, "securityContext.readOnlyRootFilesystem"), ==, "true");
    g_assert_cmpstr (text_at (container, "securityContext.runAsNonRoot"), ==, "true");
    /* Whole cores: requests equal limits, in whole numbers. */
    const char *cpu = text_at (container, "resources.requests.cpu");
    g_assert_true (g_ascii_isdigit (cpu[0]) && strspn (cpu, "0123456789") == strlen (cpu));
    g_assert_cmpstr (text_at (container, "resources.limits.cpu"), ==, cpu);

    /* --shard k8s/N with the same N; the output named by the Job's index. */
    const ThrongNode *args = node_at (container, "args");
    g_autofree char *shard = g_strdup_printf ("k8s/%u", n);
    gboolean has_shard = FALSE, has_start = FALSE, has_out = FALSE;
    for (guint i = 0; i < throng_node_n_children (args); i++) {
        const char *arg = throng_node_scalar (throng_node_child (args, i));
        const char *next = i + 1 < throng_node_n_children (args)
                               ? throng_node_scalar (throng_node_child (args, i + 1)) : "";
        has_shard |= strcmp (arg, "--shard") == 0 && strcmp (next, shard) == 0;
        has_start |= strcmp (arg, "--start-at") == 0;
        has_out |= strcmp (arg, "--out") == 0
                   && (pvc != NULL ? strstr (next, "shard-$(JOB_COMPLETION_INDEX).json") != NULL
                                   : strcmp (next, "json=-") == 0);
    }
    if (pvc != NULL)
        g_assert_cmpstr (
            text_at (root, "spec.template.spec.volumes.1.persistentVolumeClaim.claimName"), ==,
            pvc);
    g_assert_true (has_shard);
    g_assert_true (has_start);
    g_assert_true (has_out);
    /* $(JOB_COMPLETION_INDEX) in args expands only from a declared variable. */
    const ThrongNode *env = node_at (container, "env");
    gboolean declared = FALSE;
    for (guint i = 0; i < throng_node_n_children (env); i++) {
        const ThrongNode *var = throng_node_child (env, i);
        if (g_strcmp0 (throng_node_scalar (throng_node_lookup (var, "name")),
                       "JOB_COMPLETION_INDEX") == 0)
            declared = strstr (text_at (var, "valueFrom.fieldRef.fieldPath"),
                               "job-completion-index") != NULL;
    }
    g_assert_true (declared);
}

static void
test_manifests (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    check_job (fixture->dir, 4, NULL);
    check_job (fixture->dir, 17, "results");

    g_autofree char *shellcheck = g_find_program_in_path ("shellcheck");
    if (shellcheck == NULL) {
        g_test_message ("shellcheck is not installed: run.sh not linted");
        return;
    }
    g_autofree char *script = throng_test_source_path ("deploy/kubernetes/run.sh");
    const char *const argv[] = { shellcheck, script, NULL };
    g_autofree char *out = NULL;
    int status = throng_test_process_run (argv, NULL, 60, &out, NULL);
    if (status != 0)
        g_error ("shellcheck run.sh:\n%s", out);
}

/* --- target: builtin ------------------------------------------------------------------------ */

/*
 * Each shard starts its own built-in target on its own ports; the plan
 * hash is taken before `${builtin.*}` enters the plan, so the shards merge.
 */
static void
test_builtin (ThrongTestTmpdir *fixture, gconstpointer data)
{
    (void) data;
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "builtin.yaml",
        "name: shard-builtin\n"
        "target: builtin\n"
        "scenarios:\n"
        "  - name: browse\n"
        "    users: 2\n"
        "    iterations: 3\n"
        "    http: { base_url: \"${builtin.http}\" }\n"
        "    steps:\n"
        "      - http: { url: / }\n");
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < 2; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/2", i);
        char *path = g_strdup_printf ("%s/builtin-%u.json", fixture->dir, i);
        g_autofree char *out = throng_test_out_arg ("json", path);
        g_assert_cmpint (throng_test_runv (60, NULL, NULL, "run", plan, "--quiet", "--shard", shard,
                                           "--out", out, NULL), ==, 0);
        g_ptr_array_add (files, path);
    }
    g_ptr_array_add (files, NULL);
    g_autofree char *err = NULL;
    g_autofree char *out = NULL;
    int status = merge ((const char *const *) files->pdata, NULL, &out, &err);
    if (status != 0)
        g_test_message ("merge: %s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (out, "merged 2 of 2 shards: 6 requests, 0 errors"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
#define ADD(path, fn)                                                                              \
    g_test_add (path, ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, fn,                       \
                throng_test_tmpdir_teardown)
    ADD ("/shard/arguments", test_arguments);
    ADD ("/shard/manifests", test_manifests);
    ADD ("/shard/merge/threshold", test_threshold);
    ADD ("/shard/merge/refusals", test_refusals);
    ADD ("/shard/merge/interval-checks", test_interval_checks);
    ADD ("/shard/closed", test_closed);
    ADD ("/shard/unique-rows", test_unique_rows);
    ADD ("/shard/open", test_open);
    ADD ("/shard/journey", test_journey);
    ADD ("/shard/arrival", test_arrival);
    ADD ("/shard/builtin", test_builtin);
    return g_test_run ();
}
