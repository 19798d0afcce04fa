/* SPDX-License-Identifier: MIT */
/*
 * `throng compare` on run files written by the json reporter itself from
 * chosen figures (tests/lib/run-synth.h): the table, JSON and JUnit
 * outputs byte for byte against tests/data/golden/expected/compare.*
 * (THRONG_GOLDEN_UPDATE=1 rewrites them), the exit statuses (0, 99), and
 * every refusal: runs of different plans, a saturated run, an incomplete
 * one, a bad --fail-on rule (located).  The slowed target is
 * test-compare-slowdown.c, which measures real runs.
 */
#include "run-synth.h"
#include "test-utils.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define RUN_TIMEOUT 60

static const char *const env[] = { "LC_ALL=C.UTF-8", "TZ=UTC", NULL };

/* Runs `throng compare @args…` in @dir; returns the exit status. */
static int
compare_in (const char *dir, const char *const *args, char **out, char **err)
{
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    ThrongTestSpawnOptions options = { .cwd = dir, .env = env };

    g_ptr_array_add (argv, (gpointer) throng_test_exe ());
    g_ptr_array_add (argv, (gpointer) "compare");
    for (const char *const *arg = args; *arg != NULL; arg++)
        g_ptr_array_add (argv, (gpointer) *arg);
    g_ptr_array_add (argv, NULL);
    return throng_test_process_run ((const char *const *) argv->pdata, &options, RUN_TIMEOUT,
                                    out, err);
}

/* Writes @spec to DIR/@name. */
static void
write_run (const char *dir, const char *name, ThrongTestRunSpec spec)
{
    g_autofree char *path = g_build_filename (dir, name, NULL);

    spec.path = path;
    throng_test_run_write (&spec);
}

/* The baseline of most cases: two steps in a group, a check, errors, a metric. */
static ThrongTestRunSpec
shop_run (guint seed)
{
    return (ThrongTestRunSpec) { .seed = seed, .group = TRUE, .check = TRUE, .metric = TRUE,
                                 .errors_every = 100 };
}

static void
golden_compare (const char *name, const char *actual)
{
    g_autofree char *relative = g_strdup_printf ("tests/data/golden/expected/%s", name);
    g_autofree char *path = throng_test_source_path (relative);
    g_autofree char *expected = NULL;
    g_autoptr (GError) error = NULL;

    if (g_getenv ("THRONG_GOLDEN_UPDATE") != NULL) {
        g_assert_true (g_file_set_contents (path, actual, -1, &error));
        g_test_message ("wrote %s", path);
        return;
    }
    if (!g_file_get_contents (path, &expected, NULL, &error))
        g_error ("%s: %s (THRONG_GOLDEN_UPDATE=1 writes it)", path, error->message);
    if (strcmp (expected, actual) != 0) {
        g_test_message ("%s differs; actual:\n%s\n(THRONG_GOLDEN_UPDATE=1 meson test -C BUILD "
                        "compare rewrites it when the change is meant)", relative, actual);
        g_test_fail ();
    }
}

static char *
read_output (const char *dir, const char *name)
{
    g_autofree char *path = g_build_filename (dir, name, NULL);
    char *text = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, &error));
    return text;
}

/*
 * Step 02 slower by 20% in the current run: it alone regresses, its p95
 * rule fails (99), the other rules pass; every output is the golden one.
 */
static void
test_golden (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const gdouble slower[] = { 1.0, 1.2 };
    ThrongTestRunSpec current = shop_run (2);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    current.scale = slower;
    write_run (fixture->dir, "baseline.jsonl", shop_run (1));
    write_run (fixture->dir, "current.jsonl", current);
    const char *args[] = { "baseline.jsonl", "current.jsonl", "--fail-on", "p95 +10%",
                           "--fail-on", "errors.rate +0.5pp", "--fail-on",
                           "shop / step 01 regressed", "--fail-on", "shop checks.rate -1pp",
                           "--out", "json=compare.json", "--out", "junit=compare.xml", "--out",
                           "html=compare.html", NULL };
    int status = compare_in (fixture->dir, args, &out, &err);
    g_assert_cmpstr (err, ==, "");
    g_assert_cmpint (status, ==, 99);
    g_assert_nonnull (strstr (out, "shop / step 02: regressed (median +"));
    g_assert_nonnull (strstr (out, "shop / step 01: no significant change"));
    golden_compare ("compare.stdout", out);
    g_autofree char *json = read_output (fixture->dir, "compare.json");
    g_autofree char *xml = read_output (fixture->dir, "compare.xml");
    g_autofree char *html = read_output (fixture->dir, "compare.html");
    golden_compare ("compare.json", json);
    golden_compare ("compare.xml", xml);
    /* The page: both runs drawn on each chart, and nothing fetched from elsewhere. */
    g_assert_cmpuint (throng_test_count (html, "<svg"), ==, 2 * throng_test_count (html, "<h2>"));
    g_assert_cmpuint (throng_test_count (html, "stroke=\"#1f77b4\""), ==,
                      throng_test_count (html, "stroke=\"#e6550d\""));
    g_assert_null (strstr (html, "src="));
    g_assert_null (strstr (html, "<script"));
}

/* Two runs of one build (different seeds): no verdict, no rule failed, 0. */
static void
test_same (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    write_run (fixture->dir, "a.jsonl", shop_run (1));
    write_run (fixture->dir, "b.jsonl", shop_run (2));
    const char *args[] = { "a.jsonl", "b.jsonl", "--fail-on", "p95 +10%", "--fail-on",
                           "regressed", "--quiet", "--out", "json=-", NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 0);
    g_autoptr (JsonParser) parser = json_parser_new ();
    g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
    JsonObject *root = json_node_get_object (json_parser_get_root (parser));
    g_assert_cmpstr (json_object_get_string_member (root, "verdict"), ==,
                     "no significant change");
    g_assert_cmpint (json_object_get_int_member (root, "failed_rules"), ==, 0);
    JsonArray *rows = json_object_get_array_member (root, "rows");
    g_assert_cmpuint (json_array_get_length (rows), ==, 6);
}

/*
 * A rule's sign says which way fails, zero included: with step 02 slower,
 * "-0%" (fail on any decrease) passes and "+0%" (on any increase) fails.
 */
static void
test_zero_limits (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const gdouble slower[] = { 1.0, 1.2 };
    ThrongTestRunSpec current = shop_run (2);

    current.scale = slower;
    write_run (fixture->dir, "a.jsonl", shop_run (1));
    write_run (fixture->dir, "b.jsonl", current);
    for (guint i = 0; i < 2; i++) {
        const char *rule = i == 0 ? "shop / step 02 p95 -0%" : "shop / step 02 p95 +0%";
        const char *args[] = { "a.jsonl", "b.jsonl", "--fail-on", rule, "--quiet", NULL };
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;

        g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, i == 0 ? 0 : 99);
    }
}

/* Summary documents have no intervals: figures and rules, but no test. */
static void
test_summary_only (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestRunSpec a = shop_run (1), b = shop_run (2);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    a.summary_only = b.summary_only = TRUE;
    write_run (fixture->dir, "a.json", a);
    write_run (fixture->dir, "b.json", b);
    const char *args[] = { "a.json", "b.json", "--fail-on", "p99 +50%", NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "shop / step 01: untested (fewer than 5 intervals"));
    g_assert_nonnull (strstr (out, "rule 'p99 +50%': passed"));
}

/* Different plan hashes: refused (6) with the way out named; --force compares. */
static void
test_refuse_plan (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestRunSpec b = shop_run (2);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    b.plan_sha256 = "another-plan";
    write_run (fixture->dir, "a.jsonl", shop_run (1));
    write_run (fixture->dir, "b.jsonl", b);
    const char *args[] = { "a.jsonl", "b.jsonl", NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 6);
    g_assert_cmpstr (out, ==, "");
    g_assert_nonnull (strstr (err, "a.jsonl and b.jsonl are runs of different plans"));
    g_assert_nonnull (strstr (err, "--force"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    const char *forced[] = { "a.jsonl", "b.jsonl", "--force", NULL };
    g_assert_cmpint (compare_in (fixture->dir, forced, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "different plans (compared with --force)"));
}

typedef struct {
    const char *name;
    ThrongTestRunSpec current;
    const char *why;
} NotComparableCase;

static const NotComparableCase not_comparable_cases[] = {
    { "saturated", { .seed = 2, .saturated = TRUE }, "the current run (b.jsonl) saturated" },
    { "interrupted", { .seed = 2, .interrupted = TRUE },
      "the current run (b.jsonl) is incomplete: the run was interrupted" },
    { "killed", { .seed = 2, .no_summary = TRUE },
      "the current run (b.jsonl) is incomplete: the file has no summary line" },
};

/* A saturated or incomplete run: every verdict "not comparable", the reason said, 6. */
static void
test_not_comparable (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const NotComparableCase *c = data;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    write_run (fixture->dir, "a.jsonl", (ThrongTestRunSpec) { .seed = 1 });
    write_run (fixture->dir, "b.jsonl", c->current);
    const char *args[] = { "a.jsonl", "b.jsonl", "--fail-on", "p95 +1000%", "--out",
                           "junit=c.xml", NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 6);
    g_assert_nonnull (strstr (err, c->why));
    g_assert_nonnull (strstr (out, "total: not comparable"));
    g_assert_nonnull (strstr (out, "shop / step 01: not comparable"));
    g_assert_null (strstr (out, "no significant change ("));
    g_autofree char *xml = read_output (fixture->dir, "c.xml");
    g_assert_nonnull (strstr (xml, "type=\"not-comparable\""));
}

typedef struct {
    const char *rule;
    const char *message;        /* in the error, after "throng compare: " */
    const char *caret;          /* the line under the rule */
} BadRuleCase;

static const BadRuleCase bad_rules[] = {
    { "p95 +10x", "--fail-on 'p95 +10x', column 8: p95 takes a change in % (relative), ms, s or "
      "µs, not 'x'", "         ^" },
    { "p95 10%", "column 5: the change '10%' must begin with +", "      ^^^" },
    { "p42 +10%", "column 1: unknown figure 'p42': one of rps, errors.rate", "  ^^^" },
    { "errors.rate +5ms", "errors.rate takes a change in % (relative) or pp", "                ^^" },
    { "+10%", "column 1: a rule is FIGURE CHANGE", "  ^^^^" },
    { "", "column 1: an empty rule", "  ^" },
    { "p95 +%", "column 5: '+%' is not a number with a unit", "      ^^" },
    { "nowhere / step p95 +10%", "column 1: neither run has a row 'nowhere / step'",
      "  ^^^^^^^^^^^^^^" },
};

/* A bad rule: 2, the error at its column, nothing compared. */
static void
test_bad_rule (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const BadRuleCase *c = data;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    write_run (fixture->dir, "a.jsonl", (ThrongTestRunSpec) { .seed = 1 });
    write_run (fixture->dir, "b.jsonl", (ThrongTestRunSpec) { .seed = 2 });
    const char *args[] = { "a.jsonl", "b.jsonl", "--fail-on", c->rule, NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 2);
    g_assert_cmpstr (out, ==, "");
    g_test_message ("%s", err);
    g_assert_true (g_str_has_prefix (err, "throng compare: --fail-on '"));
    g_assert_nonnull (strstr (err, c->message));
    g_autofree char *caret = g_strconcat ("\n", c->caret, "\n", NULL);
    g_assert_true (g_str_has_suffix (err, caret));
}

/*
 * Two steps of one label (`GET /`, step_ids 0 and 1; the second 20% slower
 * in the current run): two rows named `shop / GET / [0]` and `shop / GET /
 * [1]` as every reporter names them, matched by step_id, each with its own
 * verdict; a rule names one by that name, and the label alone (or the
 * `#2` of before 0.5) is refused with the names it could mean.
 */
static void
test_shared_label (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const char *const labels[] = { "GET /", "GET /", "login" };
    static const gdouble slower[] = { 1.0, 1.2, 1.0 };
    ThrongTestRunSpec baseline = { .seed = 1, .n_steps = 3, .labels = labels };
    ThrongTestRunSpec current = { .seed = 2, .n_steps = 3, .labels = labels, .scale = slower };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    write_run (fixture->dir, "a.jsonl", baseline);
    write_run (fixture->dir, "b.jsonl", current);
    const char *args[] = { "a.jsonl", "b.jsonl", "--fail-on", "shop / GET / [1] p95 +10%",
                           "--fail-on", "shop / GET / [0] p95 +10%", "--fail-on",
                           "shop / login p95 +10%", "--out", "json=c.json", NULL };
    g_assert_cmpint (compare_in (fixture->dir, args, &out, &err), ==, 99);
    g_assert_cmpstr (err, ==, "");
    g_assert_nonnull (strstr (out, "\nshop / GET / [0]: no significant change"));
    g_assert_nonnull (strstr (out, "\nshop / GET / [1]: regressed"));
    g_assert_nonnull (strstr (out, "\nshop / login: no significant change"));
    g_assert_nonnull (strstr (out, "rule 'shop / GET / [1] p95 +10%': FAILED: shop / GET / [1] p95"));
    g_assert_nonnull (strstr (out, "rule 'shop / GET / [0] p95 +10%': passed: shop / GET / [0] p95"));
    g_autofree char *json = read_output (fixture->dir, "c.json");
    g_assert_nonnull (strstr (json, "\"title\" : \"shop / GET / [1]\",\n      \"scenario\" : \"shop\",\n"
                                    "      \"name\" : \"GET /\",\n      \"step_id\" : 1,"));

    static const char *const refused[][2] = {
        { "shop / GET / p95 +10%", "neither run has a row 'shop / GET /'" },
        { "shop / GET / #2 p95 +10%", "neither run has a row 'shop / GET / #2'" },
        { "shop / GET / [2] p95 +10%", "neither run has a row 'shop / GET / [2]'" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
        const char *bad[] = { "a.jsonl", "b.jsonl", "--fail-on", refused[i][0], NULL };
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        g_assert_cmpint (compare_in (fixture->dir, bad, &out, &err), ==, 2);
        g_test_message ("%s", err);
        g_assert_cmpstr (out, ==, "");
        g_assert_nonnull (strstr (err, refused[i][1]));
        g_assert_nonnull (strstr (err, "steps that share a label are named by their step_id "
                                       "(from 0): 'shop / GET / [0]', 'shop / GET / [1]'\n"));
        g_autofree char *caret = g_strdup_printf ("\n  %s\n  ^", refused[i][0]);
        g_assert_nonnull (strstr (err, caret));
    }
}

/* Usage errors and unreadable files: 2 and 3. */
static void
test_usage (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    write_run (fixture->dir, "a.jsonl", (ThrongTestRunSpec) { .seed = 1 });
    const char *one[] = { "a.jsonl", NULL };
    g_assert_cmpint (compare_in (fixture->dir, one, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "two run files are required"));
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&out, g_free);
    const char *missing[] = { "a.jsonl", "missing.jsonl", NULL };
    g_assert_cmpint (compare_in (fixture->dir, missing, &out, &err), ==, 3);
    g_assert_nonnull (strstr (err, "missing.jsonl"));
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&out, g_free);
    const char *bad_out[] = { "a.jsonl", "a.jsonl", "--out", "csv=x.csv", NULL };
    g_assert_cmpint (compare_in (fixture->dir, bad_out, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "unknown output 'csv' (json, junit or html)"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/compare/golden", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_golden,
                throng_test_tmpdir_teardown);
    g_test_add ("/compare/zero-limits", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_zero_limits, throng_test_tmpdir_teardown);
    g_test_add ("/compare/same", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_same,
                throng_test_tmpdir_teardown);
    g_test_add ("/compare/summary-only", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_summary_only, throng_test_tmpdir_teardown);
    g_test_add ("/compare/refuse/plan", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_refuse_plan, throng_test_tmpdir_teardown);
    g_test_add ("/compare/shared-label", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_shared_label, throng_test_tmpdir_teardown);
    g_test_add ("/compare/usage", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_usage,
                throng_test_tmpdir_teardown);
    for (guint i = 0; i < G_N_ELEMENTS (not_comparable_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/compare/refuse/%s",
                                                 not_comparable_cases[i].name);
        g_test_add (path, ThrongTestTmpdir, &not_comparable_cases[i], throng_test_tmpdir_setup,
                    test_not_comparable, throng_test_tmpdir_teardown);
    }
    for (guint i = 0; i < G_N_ELEMENTS (bad_rules); i++) {
        g_autofree char *path = g_strdup_printf ("/compare/refuse/rule/%u", i);
        g_test_add (path, ThrongTestTmpdir, &bad_rules[i], throng_test_tmpdir_setup,
                    test_bad_rule, throng_test_tmpdir_teardown);
    }
    return g_test_run ();
}
