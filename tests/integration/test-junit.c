/* SPDX-License-Identifier: MIT */
/*
 * The junit reporter: a run with thresholds that pass and fail, in two
 * scenarios, writes a file that xmllint validates against the JUnit schema
 * Jenkins reads (tests/data/junit.xsd), with one suite per scenario, one
 * more for the run's own thresholds, and the failed threshold's message
 * saying what was measured against what was wanted; a plan without
 * thresholds has a case per scenario, and a failed check names its step.
 */
#include <string.h>

#include "test-utils.h"

static const char plan_yaml[] =
    "name: ci\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
    "thresholds:\n"
    "  - \"browse.p99 < 1us\"\n"
    "  - \"total.errors.rate < 50%\"\n"
    "  - \"http.requests > 0\"\n"
    "scenarios:\n"
    "  - name: browse\n"
    "    users: 1\n"
    "    iterations: 20\n"
    "    thresholds: [\"p50 < 10s\"]\n"
    "    steps:\n"
    "      - name: \"home <page> & more\"\n"
    "        http: { url: / }\n"
    "        thresholds: [\"errors.timeout == 0\"]\n"
    "  - name: missing\n"
    "    users: 1\n"
    "    iterations: 5\n"
    "    steps:\n"
    "      - http: { url: /status/404 }\n";

/* xmllint's answer to an XPath @expression over @path, stripped. */
static char *
xpath (const char *xmllint, const char *path, const char *expression)
{
    return throng_test_tool_output ((const char *const[]) { xmllint, "--xpath", expression, path,
                                                            NULL },
                                    30);
}

static void
assert_xpath (const char *xmllint, const char *path, const char *expression, const char *expected)
{
    g_autofree char *got = xpath (xmllint, path, expression);

    g_test_message ("%s -> %s", expression, got);
    g_assert_cmpstr (got, ==, expected);
}

static void
test_thresholds (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *xmllint = throng_test_require_program ("xmllint");
    if (xmllint == NULL)
        return;
    g_autofree char *xml = g_build_filename (fixture->dir, "results.xml", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("junit", xml);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (
        fixture->dir, plan_yaml, (const char *const[]) { "--out", out_arg, NULL }, 120, 99, &err);
    throng_test_assert_no_glib_noise (err);

    /* The file is JUnit XML as Jenkins's schema has it. */
    g_autofree char *xsd = throng_test_source_path ("tests/data/junit.xsd");
    g_free (throng_test_tool_output (
        (const char *const[]) { xmllint, "--noout", "--schema", xsd, xml, NULL }, 30));

    /* One suite per scenario, one for `total` and the protocol's threshold. */
    assert_xpath (xmllint, xml, "count(/testsuites/testsuite)", "3");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[1]/@name)", "browse");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[2]/@name)", "missing");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[3]/@name)", "ci");
    assert_xpath (xmllint, xml, "string(/testsuites/@tests)", "6");
    assert_xpath (xmllint, xml, "string(/testsuites/@failures)", "1");
    /* browse: its own two thresholds, the step's (found by its label), the plan's p99. */
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[1]/@tests)", "3");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[1]/@failures)", "1");
    assert_xpath (xmllint, xml, "count(//testsuite[1]/testcase[@name='home <page> & more.errors.timeout == 0'])",
                  "1");
    /* missing: no threshold about it, no check: one passing case of its own, not tests="0". */
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[2]/@tests)", "1");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[2]/testcase/@name)", "missing");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[3]/@tests)", "2");
    assert_xpath (xmllint, xml, "count(//testcase[failure])", "1");

    /* The failure says what was measured, against the limit it passed. */
    g_autofree char *message
        = xpath (xmllint, xml, "string(//testcase[@name='browse.p99 < 1us']/failure/@message)");
    g_autofree char *actual
        = g_strdup_printf ("browse.p99=%s >= 1us",
                           throng_test_json_string (summary, "thresholds.0.actual"));
    g_assert_cmpstr (throng_test_json_string (summary, "thresholds.0.expression"), ==,
                     "browse.p99 < 1us");
    g_assert_cmpstr (message, ==, actual);

    /* The suites' figures are the run's. */
    g_autofree char *requests = g_strdup_printf (
        "%" G_GINT64_FORMAT, throng_test_json_int (summary, "scenarios.0.stats.requests"));
    assert_xpath (xmllint, xml,
                  "string(/testsuites/testsuite[1]/properties/property[@name='requests']/@value)",
                  requests);
    g_assert_cmpstr (requests, ==, "20");
}

/*
 * A plan without thresholds: each scenario's suite has a case (a check,
 * or the scenario's own), and a failed check names the step whose
 * requests failed it, `GET / [1]` as every reporter names a step whose
 * label another step of its scenario has (issue 33).
 */
static void
test_checks (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *xmllint = throng_test_require_program ("xmllint");
    if (xmllint == NULL)
        return;
    g_autofree char *xml = g_build_filename (fixture->dir, "results.xml", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("junit", xml);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (
        fixture->dir,
        "name: ci-checks\n"
        "target: builtin\n"
        "defaults:\n"
        "  http: { base_url: \"${builtin.http}\", transport: soup }\n"
        "scenarios:\n"
        "  - name: browse\n"
        "    users: 1\n"
        "    iterations: 10\n"
        "    steps:\n"
        "      - http: { url: / }\n"
        "      - http: { url: /, check: [ { body_contains: \"no such text\" } ] }\n"
        "  - name: quiet\n"
        "    users: 1\n"
        "    iterations: 3\n"
        "    steps:\n"
        "      - http: { url: / }\n",
        (const char *const[]) { "--out", out_arg, NULL }, 120, 0, &err);
    throng_test_assert_no_glib_noise (err);

    g_autofree char *xsd = throng_test_source_path ("tests/data/junit.xsd");
    g_free (throng_test_tool_output (
        (const char *const[]) { xmllint, "--noout", "--schema", xsd, xml, NULL }, 30));
    assert_xpath (xmllint, xml, "count(/testsuites/testsuite)", "2");
    assert_xpath (xmllint, xml, "string(/testsuites/@tests)", "2");
    assert_xpath (xmllint, xml, "string(/testsuites/@failures)", "1");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[1]/@tests)", "1");
    assert_xpath (xmllint, xml, "string(/testsuites/testsuite[2]/@tests)", "1");
    assert_xpath (xmllint, xml, "count(/testsuites/testsuite[2]/testcase[@name='quiet'][not(failure)])",
                  "1");
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.1.stats.errors"), ==, 10);
    assert_xpath (xmllint, xml, "string(//testcase[failure]/failure/@message)",
                  "10 of 10 failed (100.00%) in GET / [1]: 10");
    g_autofree char *requests = g_strdup_printf (
        "%" G_GINT64_FORMAT, throng_test_json_int (summary, "scenarios.0.stats.requests"));
    assert_xpath (xmllint, xml,
                  "string(/testsuites/testsuite[1]/properties/property[@name='requests']/@value)",
                  requests);
}

/* Without a path the reporter is refused at plan load, located. */
static void
test_needs_path (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"http://127.0.0.1:1/\" }\n"
                                                    "reporters:\n"
                                                    "  - junit: { overwrite: true }\n");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (30, &out, &err, "validate", plan, NULL);

    g_test_message ("%s", err);
    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "plan.yaml:7:"));
    g_assert_nonnull (strstr (err, "path"));
}

/* An existing file is kept unless overwriting is allowed, and the run does not start. */
static void
test_existing_file (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *xml = throng_test_write_file (fixture->dir, "results.xml", "keep me\n");
    g_autofree char *out_arg = throng_test_out_arg ("junit", xml);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", plan_yaml);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *contents = NULL;
    int status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", "--out", out_arg, NULL);

    g_test_message ("%s", err);
    g_assert_cmpint (status, !=, 0);
    g_assert_cmpint (status, !=, 99);
    g_assert_true (g_file_get_contents (xml, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "keep me\n");
}

/* `throng plugins` lists the three reporters of issue 18 (they are not in throng_test_builtin_plugins yet). */
static void
test_plugins_listed (void)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (30, &out, &err, "plugins", NULL);

    g_assert_cmpint (status, ==, 0);
    for (const char *const *name = (const char *const[]) { "junit", "prometheus", "influxdb", NULL };
         *name != NULL; name++) {
        g_autofree char *pattern
            = g_strdup_printf ("(?m)^%s +reporter +\\S+ +\\S*libthrong-%s\\.so$", *name, *name);
        if (!g_regex_match_simple (pattern, out, 0, 0))
            g_error ("`throng plugins` does not list the %s reporter:\n%s", *name, out);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/junit/thresholds", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_thresholds, throng_test_tmpdir_teardown);
    g_test_add ("/junit/checks", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_checks,
                throng_test_tmpdir_teardown);
    g_test_add ("/junit/needs-path", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_needs_path, throng_test_tmpdir_teardown);
    g_test_add ("/junit/existing-file", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_existing_file, throng_test_tmpdir_teardown);
    g_test_add_func ("/junit/plugins-listed", test_plugins_listed);
    return g_test_run ();
}
