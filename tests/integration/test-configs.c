/* SPDX-License-Identifier: MIT */
/*
 * The example plans in configs/ are part of the documentation, so they
 * must keep working: every one validates with the real binary, and the
 * demo runs to completion in under 15 s with a summary on stdout and no
 * errors.
 */
#include "test-utils.h"

#include <string.h>

static GPtrArray *
list_plans (void)
{
    g_autofree char *dir_path = throng_test_source_path ("configs");
    g_autoptr (GError) error = NULL;
    g_autoptr (GDir) dir = g_dir_open (dir_path, 0, &error);
    GPtrArray *plans = g_ptr_array_new_with_free_func (g_free);
    const char *name;

    g_assert_no_error (error);
    while ((name = g_dir_read_name (dir)) != NULL) {
        if (g_str_has_suffix (name, ".yaml") || g_str_has_suffix (name, ".yml"))
            g_ptr_array_add (plans, g_build_filename (dir_path, name, NULL));
    }
    g_ptr_array_sort (plans, (GCompareFunc) g_strcmp0);
    return plans;
}

static void
test_validate_all (void)
{
    g_autoptr (GPtrArray) plans = list_plans ();
    gboolean has_demo = FALSE;

    g_assert_cmpuint (plans->len, >=, 1);
    for (guint i = 0; i < plans->len; i++) {
        const char *plan = g_ptr_array_index (plans, i);
        g_autofree char *expected = g_strconcat (plan, ": ok\n", NULL);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status;

        g_test_message ("validating %s", plan);
        status = throng_test_runv (30, &out, &err, "validate", plan, NULL);
        if (status != 0)
            g_test_message ("%s", err);
        g_assert_cmpint (status, ==, 0);
        g_assert_true (g_str_has_prefix (out, expected));
        throng_test_assert_no_glib_noise (err);
        has_demo |= g_str_has_suffix (plan, "/demo.yaml");
    }
    g_assert_true (has_demo);
}

static void
test_demo (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_source_path ("configs/demo.yaml");
    g_autofree char *json = g_build_filename (tmp->dir, "demo.json", NULL);
    g_autofree char *out_arg = g_strconcat ("json=", json, NULL);
    const char *argv[] = { "run", plan, "--out", out_arg, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    gint64 started = g_get_monotonic_time ();
    gint64 elapsed;
    int status = -1;

    /* Killed at 20 s so a hang fails here rather than at meson's timeout;
     * the 15 s promise is checked on the clock. */
    g_assert_true (throng_test_run (argv, NULL, 20, &status, &out, &err));
    elapsed = g_get_monotonic_time () - started;
    g_test_message ("demo took %" G_GINT64_FORMAT " ms; stdout:\n%s", elapsed / 1000, out);
    if (status != 0)
        g_test_message ("stderr:\n%s", err);

    g_assert_cmpint (status, ==, 0);
    g_assert_cmpint (elapsed, <, 15 * G_USEC_PER_SEC);
    throng_test_assert_no_glib_noise (err);
    /* The console summary: a table of requests and one of latencies. */
    g_assert_nonnull (strstr (out, "requests"));
    g_assert_nonnull (strstr (out, "latency"));
    g_assert_nonnull (strstr (out, "p99"));

    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (throng_test_json_string (summary, "plan.name"), ==, "demo");
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 100);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_false (throng_test_json_bool (summary, "interrupted"));
}

/*
 * The journey (docs/journeys.md) runs against the built-in shop with no
 * error: every user logs in once with its own account, and the shop
 * accepts each later request's token; every check passes.
 */
static void
test_journey (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_source_path ("configs/journey.yaml");
    g_autofree char *json = g_build_filename (tmp->dir, "journey.json", NULL);
    g_autofree char *out_arg = g_strconcat ("json=", json, NULL);
    const char *argv[] = { "run", plan, "--quiet", "--out", out_arg, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    int status = -1;

    g_assert_true (throng_test_run (argv, NULL, 20, &status, &out, &err));
    if (status != 0)
        g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 100);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.0.stats.requests"), ==, 20);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.checks.fails"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.checks.passes"), >, 100);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/configs/validate", test_validate_all);
    g_test_add ("/configs/demo", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_demo,
                throng_test_tmpdir_teardown);
    g_test_add ("/configs/journey", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_journey,
                throng_test_tmpdir_teardown);
    return g_test_run ();
}
