/* SPDX-License-Identifier: MIT */
/*
 * Many mostly idle users (issue 12): 5000 users with a 1 s think time
 * against the built-in target, through the real throng binary.  Every
 * user must complete its iterations, and the test records how late the
 * users' think timers fire, measured from the samples themselves (the
 * next request of a user starts its think time after the previous one
 * ended): median and p99, printed; asserted only to stay under 100 ms,
 * so that a loaded machine cannot make it flake.  The core's own view
 * of the same thing (lag_p99_us) is printed next to it.
 */
#include "test-utils.h"

#include <stdlib.h>
#include <string.h>

#define USERS 5000
#define ITERATIONS 3
#define THINK_MS 1000

typedef struct {
    gint64 start_ms;
    gint64 elapsed_ms;
} Start;

static int
compare_start (gconstpointer a, gconstpointer b)
{
    const Start *x = a, *y = b;

    return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

static int
compare_int64 (gconstpointer a, gconstpointer b)
{
    const gint64 *x = a, *y = b;

    return (*x > *y) - (*x < *y);
}

/*
 * The csv reporter's rows, per user: `timeStamp` (ms since the epoch) and
 * `elapsed` (ms), keyed by `threadName` ("idle 1-U").
 */
static GHashTable *
read_samples (const char *path)
{
    g_autofree char *text = NULL;
    g_auto (GStrv) lines = NULL;
    GHashTable *users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_array_unref);

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    g_assert_true (g_str_has_prefix (lines[0], "timeStamp,elapsed,label,responseCode,"
                                               "responseMessage,threadName,"));
    for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        g_auto (GStrv) fields = g_strsplit (lines[i], ",", 7);
        g_assert_cmpuint (g_strv_length (fields), ==, 7);
        GArray *starts = g_hash_table_lookup (users, fields[5]);
        if (starts == NULL) {
            starts = g_array_new (FALSE, FALSE, sizeof (Start));
            g_hash_table_insert (users, g_strdup (fields[5]), starts);
        }
        Start start = { g_ascii_strtoll (fields[0], NULL, 10), g_ascii_strtoll (fields[1], NULL, 10) };
        g_array_append_val (starts, start);
    }
    return users;
}

static void
test_idle_users (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml = g_strdup_printf ("target: builtin\n"
                                             "scenarios:\n"
                                             "  - name: idle\n"
                                             "    users: %d\n"
                                             /* 1000 new connections a second: the
                                              * built-in target's listen queue is short */
                                             "    ramp_up: 5s\n"
                                             "    iterations: %d\n"
                                             "    think_time: %dms\n"
                                             "    http: {transport: fast, keep_alive: true}\n"
                                             "    steps:\n"
                                             "      - http: {url: \"${builtin.http}/\"}\n",
                                             USERS, ITERATIONS, THINK_MS);
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = g_strconcat ("csv=", csv, NULL);
    const char *extra[] = { "--out", csv_arg, NULL };
    g_autofree char *err = NULL;
    int status = -1;

    g_autoptr (JsonNode) root = throng_test_run_json (fixture->dir, yaml, extra, 240, &status, &err);
    if (status != 0)
        g_printerr ("%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);

    /* Every user completed every iteration (a failed request completes one too). */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, USERS * ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, USERS * ITERATIONS);

    g_autoptr (GHashTable) users = read_samples (csv);
    g_assert_cmpuint (g_hash_table_size (users), ==, USERS);
    g_autoptr (GArray) lateness = g_array_new (FALSE, FALSE, sizeof (gint64));
    GHashTableIter iter;
    GArray *starts;
    g_hash_table_iter_init (&iter, users);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &starts)) {
        g_assert_cmpuint (starts->len, ==, ITERATIONS);
        g_array_sort (starts, compare_start);
        for (guint i = 1; i < starts->len; i++) {
            const Start *before = &g_array_index (starts, Start, i - 1);
            const Start *next = &g_array_index (starts, Start, i);
            /* Whole milliseconds on both ends: within ±2 ms. */
            gint64 late = next->start_ms - (before->start_ms + before->elapsed_ms + THINK_MS);
            g_array_append_val (lateness, late);
        }
    }
    g_array_sort (lateness, compare_int64);
    gint64 median = g_array_index (lateness, gint64, lateness->len / 2);
    gint64 p99 = g_array_index (lateness, gint64, lateness->len * 99 / 100);
    g_test_message ("%d users, think %d ms: think timers late by median %" G_GINT64_FORMAT
                    " ms, p99 %" G_GINT64_FORMAT " ms, max %" G_GINT64_FORMAT
                    " ms (from the samples, +-2 ms); the core's schedule lag p99 %" G_GINT64_FORMAT
                    " us; client CPU %.1f us/request%s",
                    USERS, THINK_MS, median, p99, g_array_index (lateness, gint64, lateness->len - 1),
                    throng_test_json_int (root, "lag_p99_us"),
                    throng_test_json_double (root, "cpu.per_request_us"),
                    throng_test_json_bool (root, "saturated") ? ", flagged saturated" : "");
    g_assert_cmpint (p99, <, 100);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/idle-users/think-timers", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_idle_users, throng_test_tmpdir_teardown);
    return g_test_run ();
}
