/* SPDX-License-Identifier: MIT */
/*
 * Integration tests of the real `throng` binary through its command-line
 * contract: --version and --help, `validate` on good and bad plans,
 * `plugins`, runs against the built-in target and against a target this
 * process starts (so the server's own counter checks the client's), the
 * error classes of a refused port, an unknown host and a bad certificate
 * for both http transports, and the documented exit statuses.
 */
#include <throng/version.h>

#include "target.h"
#include "test-utils.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_TIMEOUT 60

static const char *const transports[] = { "fast", "soup" };

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/*
 * A plan error: exit 2 and exactly one line on stderr that begins with the
 * plan's path and, when @located, "LINE:COLUMN: ".
 */
static void
assert_plan_error (const char *plan, int status, const char *err, gboolean located,
                   const char *fragment)
{
    g_autofree char *prefix = g_strconcat (plan, ":", NULL);

    g_test_message ("stderr: %s", err);
    g_assert_cmpint (status, ==, 2);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpuint (throng_test_count_lines (err), ==, 1);
    g_assert_true (g_str_has_suffix (err, "\n"));
    g_assert_true (g_str_has_prefix (err, prefix));
    if (located) {
        g_autoptr (GRegex) regex = g_regex_new ("^.*:[0-9]+:[0-9]+: \\S", 0, 0, NULL);
        g_assert_true (g_regex_match (regex, err, 0, NULL));
    }
    if (fragment != NULL)
        g_assert_nonnull (strstr (err, fragment));
}

/* The step of the plans against the built-in target. */
#define BUILTIN_STEP "      - http: { url: \"${builtin.http}/\" }\n"

/* One user, one request to a port where nothing listens: a valid plan. */
static const char one_request_plan[] = "name: x\n"
                                       "scenarios:\n"
                                       "  - name: s\n"
                                       "    users: 1\n"
                                       "    iterations: 1\n"
                                       "    steps:\n"
                                       "      - http: { url: http://127.0.0.1:9/ }\n";

/* ------------------------------------------------------------------ */
/* The command line                                                    */

static void
test_version (void)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *expected
        = g_strdup_printf ("throng %s (plugin ABI %d)\n", THRONG_VERSION_STRING, THRONG_ABI_VERSION);
    int status = throng_test_runv (10, &out, &err, "--version", NULL);

    g_assert_cmpint (status, ==, 0);
    /* The release of the headers this was built with, which meson.build checks against its own. */
    g_assert_cmpstr (out, ==, expected);
    g_assert_cmpstr (err, ==, "");
}

static void
test_help (void)
{
    static const char *const commands[] = { "run", "validate", "plugins" };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (10, &out, &err, "--help", NULL);

    g_assert_cmpint (status, ==, 0);
    for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
        g_assert_nonnull (strstr (out, commands[i]));
    g_assert_nonnull (strstr (out, "\n  report RUN.jsonl "));

    for (gsize i = 0; i < G_N_ELEMENTS (commands); i++) {
        g_autofree char *cmd_out = NULL;
        g_autofree char *cmd_err = NULL;
        g_autofree char *usage = g_strdup_printf ("Usage:\n  throng %s [OPTION…]", commands[i]);

        status = throng_test_runv (10, &cmd_out, &cmd_err, commands[i], "--help", NULL);
        g_assert_cmpint (status, ==, 0);
        /* The program and the command, what it does, its exit statuses. */
        g_assert_true (g_str_has_prefix (cmd_out, usage));
        g_assert_true (strstr (cmd_out, "\n\nChecks PLAN") != NULL
                       || strstr (cmd_out, "\n\nLists every plugin") != NULL);
        g_assert_nonnull (strstr (cmd_out, "\nExit status: 0 "));
        throng_test_assert_no_glib_noise (cmd_err);
    }

    {
        g_autofree char *run_out = NULL;
        g_autofree char *run_err = NULL;

        throng_test_runv (10, &run_out, &run_err, "run", "--help", NULL);
        g_assert_nonnull (strstr (run_out, "--set"));
        g_assert_nonnull (strstr (run_out, "--workers"));
        g_assert_nonnull (strstr (run_out, "--out"));
        g_assert_nonnull (strstr (run_out, "--quiet"));
    }
}

static void
test_usage_errors (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", one_request_plan);
    const char *const *cases[] = {
        (const char *[]) { NULL },
        (const char *[]) { "bogus", NULL },
        (const char *[]) { "run", NULL },
        (const char *[]) { "validate", NULL },
        (const char *[]) { "run", plan, plan, NULL },
        (const char *[]) { "run", plan, "--no-such-option", NULL },
        (const char *[]) { "run", plan, "--workers", "100000", NULL },
        (const char *[]) { "run", plan, "--workers", "0", NULL },
        (const char *[]) { "run", plan, "-w", "-3", NULL },
        (const char *[]) { "run", plan, "--out", "nonsense", NULL },
        (const char *[]) { "run", plan, "--out", "nosuchreporter=x.out", NULL },
        (const char *[]) { "plugins", "extra", NULL },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status = -1;

        g_assert_true (throng_test_run (cases[i], NULL, 10, &status, &out, &err));
        g_test_message ("case %" G_GSIZE_FORMAT ": exit %d, stderr %s", i, status, err);
        g_assert_cmpint (status, ==, 2);
        g_assert_cmpstr (err, !=, "");
        throng_test_assert_no_glib_noise (err);
        /* An out-of-range value names the range and what was given. */
        if (g_strv_length ((char **) cases[i]) >= 4
            && (strcmp (cases[i][2], "--workers") == 0 || strcmp (cases[i][2], "-w") == 0)) {
            g_autofree char *expected = g_strdup_printf (
                "throng: --workers must be between 1 and 1024, got %s\n", cases[i][3]);
            g_assert_true (g_str_has_prefix (err, expected));
        }
    }
}

/*
 * A label two steps of a scenario share is a warning, located at the
 * second step, not an error: reporters keep the two apart by step_id.
 */
static void
test_validate_repeated_labels (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "har.yaml",
                                                    "name: har\n"
                                                    "defaults:\n"
                                                    "  http: { base_url: http://127.0.0.1:9 }\n"
                                                    "scenarios:\n"
                                                    "  - name: page\n"
                                                    "    users: 1\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: /static/app.css }\n"
                                                    "      - http: { url: / }\n"
                                                    "      - http: { url: /static/app.css }\n"
                                                    "  - name: other\n"
                                                    "    users: 1\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: /static/app.css }\n");
    g_autofree char *expected = g_strdup_printf (
        "%s:11:9: warning: scenario 'page': step 2 has the label 'GET /static/app.css' of step 0 "
        "(line 9); reporters keep them apart by step_id\n",
        plan);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (10, &out, &err, "validate", plan, NULL);

    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_str_has_suffix (out, ": ok\n"));
    /* One warning: the label of the other scenario's step is its own. */
    g_assert_cmpstr (err, ==, expected);
}

static void
test_validate_good (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "good.yaml",
                                                    "name: good\n"
                                                    "defaults:\n"
                                                    "  http:\n"
                                                    "    base_url: http://127.0.0.1:9\n"
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 5\n"
                                                    "    iterations: 2\n"
                                                    "    think_time: 10ms\n"
                                                    "    steps:\n"
                                                    "      - http: { url: / }\n"
                                                    "      - name: post\n"
                                                    "        http: { method: POST, url: /echo, body: x }\n"
                                                    "reporters:\n"
                                                    "  - console: {}\n");
    g_autofree char *expected = g_strconcat (plan, ": ok\n", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *out2 = NULL;
    g_autofree char *err2 = NULL;
    int status;

    status = throng_test_runv (10, &out, &err, "validate", plan, NULL);
    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_str_has_prefix (out, expected));
    throng_test_assert_no_glib_noise (err);

    /* --set goes through the same checks. */
    status = throng_test_runv (10, &out2, &err2, "validate", plan, "--set", "scenarios.0.users=7",
                               NULL);
    g_assert_cmpint (status, ==, 0);
}

typedef struct {
    const char *name;
    const char *yaml;
    const char *fragment; /* part of the message, or NULL */
} BadPlan;

static const BadPlan bad_plans[] = {
    { "zero-users",
      "name: x\nscenarios:\n  - name: s\n    users: 0\n    iterations: 1\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/ }\n",
      ":4:" },
    { "unknown-key", "name: x\nscenarioz: []\n", ":2:1:" },
    { "syntax", "name: [\n", NULL },
    { "empty", "", ":1:1:" },
    { "wrong-type",
      "name: x\nscenarios:\n  - name: s\n    users: many\n    iterations: 1\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/ }\n",
      ":4:" },
    { "bad-duration",
      "name: x\nscenarios:\n  - name: s\n    users: 1\n    duration: 10 parsecs\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/ }\n",
      ":5:" },
    { "duplicate-key",
      "name: x\nname: y\nscenarios:\n  - name: s\n    users: 1\n    iterations: 1\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/ }\n",
      ":2:" },
    { "unknown-protocol",
      "name: x\nscenarios:\n  - name: s\n    users: 1\n    iterations: 1\n"
      "    steps:\n      - gopher: { url: x }\n",
      ":7:" },
    { "bad-step-option",
      "name: x\nscenarios:\n  - name: s\n    users: 1\n    iterations: 1\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/, methd: GET }\n",
      ":7:" },
    { "unknown-reporter",
      "name: x\nscenarios:\n  - name: s\n    users: 1\n    iterations: 1\n"
      "    steps:\n      - http: { url: http://127.0.0.1:9/ }\nreporters:\n  - nosuch: {}\n",
      ":9:" },
    { "alias-bomb",
      "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
      NULL },
};

static void
test_validate_bad (ThrongTestTmpdir *tmp, gconstpointer data)
{
    for (gsize i = 0; i < G_N_ELEMENTS (bad_plans); i++) {
        g_autofree char *name = g_strconcat (bad_plans[i].name, ".yaml", NULL);
        g_autofree char *plan = throng_test_write_plan (tmp->dir, name, bad_plans[i].yaml);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status;

        g_test_message ("bad plan %s", bad_plans[i].name);
        status = throng_test_runv (10, &out, &err, "validate", plan, NULL);
        assert_plan_error (plan, status, err, TRUE, bad_plans[i].fragment);
        g_assert_cmpstr (out, ==, "");

        /* `run` refuses it the same way, before any load. */
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        status = throng_test_runv (10, &out, &err, "run", plan, "--quiet", NULL);
        assert_plan_error (plan, status, err, TRUE, bad_plans[i].fragment);
    }
}

static void
test_validate_missing_file (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = g_build_filename (tmp->dir, "absent.yaml", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (10, &out, &err, "validate", plan, NULL);

    assert_plan_error (plan, status, err, FALSE, NULL);
}

/*
 * Files that are not regular files — a FIFO with no writer (it used to
 * block `throng validate` until killed), a directory, a device — are
 * refused at once, with one line naming the file (located at the plan
 * value that names it), wherever a plan or a command names a file.
 */
static void
test_not_regular_files (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *fifo = g_build_filename (tmp->dir, "fifo", NULL);
    g_autofree char *body_plan = NULL, *data_plan = NULL, *tls_plan = NULL;
    struct {
        const char *argv[6];
        const char *message;
    } cases[] = {
        { { "validate", fifo }, "is not a regular file (a FIFO)" },
        { { "run", fifo, "--quiet" }, "is not a regular file (a FIFO)" },
        { { "validate", tmp->dir }, "is not a regular file (a directory)" },
        { { "validate", "/dev/zero" }, "/dev/zero is not a regular file (a character device)" },
        { { "validate", NULL }, ":7:54: fifo is not a regular file (a FIFO)\n" },
        { { "validate", NULL }, ":4:19: fifo is not a regular file (a FIFO)\n" },
        { { "validate", NULL }, ":5:21: fifo is not a regular file (a FIFO)\n" },
        { { "merge", fifo, fifo }, "is not a regular file (a FIFO)" },
        { { "report", fifo, "--out", "json=-" }, "is not a regular file (a FIFO)" },
        { { "import", "har", fifo }, "is not a regular file (a FIFO)" },
    };

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    body_plan = throng_test_write_plan (tmp->dir, "body.yaml",
                                        "name: x\n"
                                        "scenarios:\n"
                                        "  - name: s\n"
                                        "    users: 1\n"
                                        "    iterations: 1\n"
                                        "    steps:\n"
                                        "      - http: { url: http://127.0.0.1:9/, body_file: fifo }\n");
    data_plan = throng_test_write_plan (tmp->dir, "data.yaml",
                                        "name: x\n"
                                        "scenarios:\n"
                                        "  - users: 1\n"
                                        "    data: { file: fifo }\n"
                                        "    steps:\n"
                                        "      - http: { url: http://127.0.0.1:9/ }\n");
    tls_plan = throng_test_write_plan (tmp->dir, "tls.yaml",
                                       "name: x\n"
                                       "defaults:\n"
                                       "  http:\n"
                                       "    base_url: https://127.0.0.1:9\n"
                                       "    tls: { ca_file: fifo }\n"
                                       "scenarios:\n"
                                       "  - users: 1\n"
                                       "    steps:\n"
                                       "      - http: { url: / }\n");
    cases[4].argv[1] = body_plan;
    cases[5].argv[1] = data_plan;
    cases[6].argv[1] = tls_plan;

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status = -1;
        gint64 start = g_get_monotonic_time ();

        /* Blocking on the FIFO would end in the 10 s kill, and fail here. */
        g_assert_true (throng_test_run (cases[i].argv, NULL, 10, &status, &out, &err));
        g_test_message ("%s %s: exit %d in %" G_GINT64_FORMAT " ms, stderr %s", cases[i].argv[0],
                        cases[i].argv[1], status, (g_get_monotonic_time () - start) / 1000, err);
        g_assert_cmpint (status, ==, 2);
        g_assert_nonnull (strstr (err, cases[i].message));
        /* One line. */
        g_assert_true (g_str_has_suffix (err, "\n"));
        g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
        throng_test_assert_no_glib_noise (err);
    }
}

static void
test_validate_bad_set (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", one_request_plan);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (10, &out, &err, "validate", plan, "--set", "scenarios.0.users=0",
                                   NULL);

    g_test_message ("stderr: %s", err);
    g_assert_cmpint (status, ==, 2);
    g_assert_cmpuint (throng_test_count_lines (err), ==, 1);
    throng_test_assert_no_glib_noise (err);
}

static void
test_plugins (void)
{
    const ThrongTestPluginInfo *expected = throng_test_builtin_plugins;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_auto (GStrv) lines = NULL;
    int status = throng_test_runv (10, &out, &err, "plugins", NULL);

    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
    lines = g_strsplit (out, "\n", -1);
    for (gsize i = 0; expected[i].name != NULL; i++) {
        gboolean found = FALSE;

        for (gsize l = 0; lines[l] != NULL && !found; l++) {
            g_auto (GStrv) fields = g_strsplit_set (lines[l], " \t", -1);
            g_autoptr (GPtrArray) words = g_ptr_array_new ();

            for (gsize f = 0; fields[f] != NULL; f++)
                if (*fields[f] != '\0')
                    g_ptr_array_add (words, fields[f]);
            if (words->len < 4 || g_strcmp0 (words->pdata[0], expected[i].name) != 0)
                continue;
            found = TRUE;
            g_assert_cmpstr (words->pdata[1], ==, expected[i].kind);
            /* The last word is the file, which exists and is named for the plugin. */
            {
                const char *path = words->pdata[words->len - 1];
                g_autofree char *base = g_path_get_basename (path);
                g_autofree char *file = g_strdup_printf ("libthrong-%s.so", expected[i].name);

                g_assert_true (g_path_is_absolute (path));
                g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
                g_assert_cmpstr (base, ==, file);
            }
        }
        if (!found)
            g_error ("`throng plugins` does not list %s:\n%s", expected[i].name, out);
    }
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */

/* The built-in target: USERS × ITERATIONS × 3 steps, over HTTP and HTTPS. */
static void
test_builtin (ThrongTestTmpdir *tmp, gconstpointer data)
{
    const char *transport = data;
    g_autofree char *yaml = g_strdup_printf ("name: builtin-%s\n"
                                             "target: builtin\n"
                                             "defaults:\n"
                                             "  http: { transport: %s, tls: { verify: false } }\n"
                                             "scenarios:\n"
                                             "  - name: plain\n"
                                             "    users: 4\n"
                                             "    iterations: 5\n"
                                             "    http: { base_url: \"${builtin.http}\" }\n"
                                             "    steps:\n"
                                             "      - http: { url: / }\n"
                                             "      - http: { url: /bytes/1000 }\n"
                                             "      - http: { method: POST, url: /echo, body: hi }\n"
                                             "  - name: tls\n"
                                             "    users: 3\n"
                                             "    iterations: 7\n"
                                             "    http: { base_url: \"${builtin.https}\" }\n"
                                             "    steps:\n"
                                             "      - http: { url: / }\n"
                                             "      - http: { url: /status/204 }\n"
                                             "      - http: { url: /delay/1 }\n",
                                             transport, transport);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (tmp->dir, yaml, NULL, RUN_TIMEOUT, 0,
                                                            &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "version"), ==, 1);
    g_assert_false (throng_test_json_bool (summary, "interrupted"));
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 4 * 5 * 3 + 3 * 7 * 3);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_cmpuint (throng_test_json_length (summary, "total.errors_by_class"), ==, 0);
    g_assert_cmpuint (throng_test_json_length (summary, "scenarios"), ==, 2);

    g_assert_cmpstr (throng_test_json_string (summary, "scenarios.0.name"), ==, "plain");
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==, 4);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.requests"), ==, 60);
    g_assert_cmpuint (throng_test_json_length (summary, "scenarios.0.steps"), ==, 3);
    for (int s = 0; s < 3; s++) {
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%d.stats.requests", s);
        g_assert_cmpint (throng_test_json_int (summary, path), ==, 20);
    }
    /* Plain HTTP: no handshakes; at least one connection per user. */
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.handshakes.full"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.connections"), >=, 4);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.connections"), <=, 60);

    g_assert_cmpstr (throng_test_json_string (summary, "scenarios.1.name"), ==, "tls");
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.1.stats.requests"), ==, 63);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.1.stats.errors"), ==, 0);
    for (int s = 0; s < 3; s++) {
        g_autofree char *path = g_strdup_printf ("scenarios.1.steps.%d.stats.requests", s);
        g_assert_cmpint (throng_test_json_int (summary, path), ==, 21);
    }
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.1.stats.handshakes.full") +
                         throng_test_json_int (summary, "scenarios.1.stats.handshakes.resumed"),
                     >=, 3);
    g_assert_cmpint (throng_test_json_int (summary, "total.bytes_received"), >, 20 * 1000);
}

/*
 * A target this process runs: the server's own count must equal the
 * client's, so neither side can be wrong without the test noticing.
 */
static void
test_external_target (ThrongTestTmpdir *tmp, gconstpointer data)
{
    const char *transport = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTarget) target = throng_target_start (&error);
    g_autofree char *yaml = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;

    g_assert_no_error (error);
    yaml = g_strdup_printf ("name: external-%s\n"
                            "defaults:\n"
                            "  http: { transport: %s, tls: { verify: false } }\n"
                            "scenarios:\n"
                            "  - name: http\n"
                            "    users: 10\n"
                            "    iterations: 10\n"
                            "    steps:\n"
                            "      - http: { url: \"%s/\" }\n"
                            "      - http: { url: \"%s/bytes/10\" }\n"
                            "  - name: https\n"
                            "    users: 5\n"
                            "    iterations: 4\n"
                            "    steps:\n"
                            "      - http: { url: \"%s/\" }\n",
                            transport, transport, throng_target_http_url (target),
                            throng_target_http_url (target), throng_target_https_url (target));
    summary = throng_test_run_summary (tmp->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_target_requests (target), ==, 10 * 10 * 2 + 5 * 4);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 220);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
}

/* The same plan with --workers 1 and --set: the counts follow. */
static void
test_workers_and_set (ThrongTestTmpdir *tmp, gconstpointer data)
{
    const char *const extra[] = { "--workers", "1", "--set", "scenarios.0.users=6", "--set",
                                  "scenarios.0.iterations=3", NULL };
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "set",
        .target = "builtin",
        .steps = BUILTIN_STEP,
    });
    g_autoptr (JsonNode) summary = throng_test_run_summary (tmp->dir, yaml, extra, RUN_TIMEOUT, 0,
                                                            NULL);

    g_assert_cmpint (throng_test_json_int (summary, "workers"), ==, 1);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 18);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==, 6);
}

typedef struct {
    const char *transport;
    const char *kind;
} ErrorCase;

/*
 * Every request fails with one error class; the run itself completes
 * (exit 0) and reports each failure under that class.
 */
static void
test_error_class (ThrongTestTmpdir *tmp, gconstpointer data)
{
    const ErrorCase *c = data;
    g_autofree char *url = NULL;
    g_autofree char *name = NULL;
    g_autofree char *step = NULL;
    g_autofree char *yaml = NULL;
    g_autofree char *err = NULL;
    g_autofree char *class_path = NULL;
    g_autoptr (JsonNode) summary = NULL;
    const char *builtin = NULL;

    if (strcmp (c->kind, "connect") == 0) {
        url = g_strdup_printf ("http://127.0.0.1:%u/", throng_test_free_port ());
    } else if (strcmp (c->kind, "dns") == 0) {
        url = g_strdup ("http://nosuch.invalid/");
    } else {
        /* The built-in target's self-signed certificate, verified (the default). */
        url = g_strdup ("${builtin.https}/");
        builtin = "builtin";
    }
    name = g_strconcat ("error-", c->kind, NULL);
    step = g_strdup_printf ("      - http: { url: \"%s\" }\n", url);
    yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = name,
        .target = builtin,
        .transport = c->transport,
        .http = "timeout: 20s",
        .users = 2,
        .iterations = 3,
        .steps = step,
    });
    summary = throng_test_run_summary (tmp->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    class_path = g_strconcat ("total.errors_by_class.", c->kind, NULL);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 6);
    g_assert_cmpint (throng_test_json_int_or (summary, class_path, 0), ==, 6);
    g_assert_cmpuint (throng_test_json_length (summary, "total.errors_by_class"), ==, 1);
}

/* A reporter that cannot open its file: the run does not start (3). */
static void
test_exit_not_started (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "x",
        .target = "builtin",
        .steps = BUILTIN_STEP,
    });
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", yaml);
    g_autofree char *bad = g_build_filename (tmp->dir, "no", "such", "dir", "out.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", bad);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, &out, &err, "run", plan, "--quiet", "--out",
                                   out_arg, NULL);

    g_test_message ("stderr: %s", err);
    g_assert_cmpint (status, ==, 3);
    /* the reporter's own error, prefixed once with the reporter's name */
    g_assert_true (g_str_has_prefix (err, "throng: reporter json: "));
    g_assert_nonnull (strstr (err, bad));
    throng_test_assert_no_glib_noise (err);
}

/* A failed threshold: the run completes, its results are written, exit 99. */
static void
test_exit_thresholds (ThrongTestTmpdir *tmp, gconstpointer data)
{
    gboolean failing = GPOINTER_TO_INT (data);
    g_autofree char *url = failing ? g_strdup_printf ("http://127.0.0.1:%u/", throng_test_free_port ())
                                   : g_strdup ("${builtin.http}/");
    g_autofree char *step = g_strdup_printf ("      - http: { url: \"%s\" }\n", url);
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "thresholds",
        .target = "builtin",
        .users = 2,
        .iterations = 5,
        .steps = step,
        .plan_extra = "thresholds:\n"
                      "  - total.errors.rate < 1%\n",
    });
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (tmp->dir, yaml, NULL, RUN_TIMEOUT,
                                                            failing ? 99 : 0, &err);

    g_test_message ("stderr: %s", err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 10);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, failing ? 10 : 0);
}

/*
 * A saturated open-model run fails its dropped_iterations thresholds
 * (count and rate), and every actual value reads like the console's
 * figures: a duration in µs/ms/s with three digits, a rate with /s.
 */
static void
test_thresholds_dropped (ThrongTestTmpdir *tmp, gconstpointer data)
{
    const char *yaml = "scenarios:\n"
                       "  - name: open\n"
                       "    executor: constant-arrival-rate\n"
                       "    rate: 100/s\n"
                       "    duration: 1s\n"
                       "    max_users: 2\n"
                       "    steps:\n"
                       "      - null: { delay: 100ms }\n"
                       "thresholds:\n"
                       "  - total.dropped_iterations == 0\n"
                       "  - open.dropped_iterations.rate < 1%\n"
                       "  - open.p99 < 10s\n"
                       "  - open.rps > 1000\n"
                       "  - open.iterations > 0\n";
    /* The null protocol of the test plugins: a step that only waits. */
    g_setenv ("THRONG_PLUGIN_PATH", g_getenv ("THRONG_TEST_PLUGIN_DIR"), TRUE);
    g_autoptr (JsonNode) summary = throng_test_run_summary (tmp->dir, yaml, NULL, RUN_TIMEOUT, 99,
                                                            NULL);
    g_unsetenv ("THRONG_PLUGIN_PATH");

    gint64 dropped = throng_test_json_int (summary, "dropped_iterations");
    gint64 iterations = throng_test_json_int (summary, "scenarios.0.iterations");
    g_assert_cmpint (dropped, >, 0);
    g_assert_cmpint (dropped, ==, throng_test_json_int (summary, "scenarios.0.dropped_iterations"));
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (summary, "dropped_iterations_rate"),
                                    (double) dropped / (double) (dropped + iterations), 1e-9);

    g_assert_cmpstr (throng_test_json_string (summary, "thresholds.0.expression"), ==,
                     "total.dropped_iterations == 0");
    g_assert_false (throng_test_json_bool (summary, "thresholds.0.passed"));
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, dropped);
    g_assert_cmpstr (throng_test_json_string (summary, "thresholds.0.actual"), ==, count);
    g_assert_false (throng_test_json_bool (summary, "thresholds.1.passed"));
    g_assert_true (g_str_has_suffix (throng_test_json_string (summary, "thresholds.1.actual"),
                                     "%"));

    /* A null step of 100 ms: p99 around 100ms, never "1e+02ms". */
    g_autoptr (GRegex) duration = g_regex_new ("^[0-9]{3}ms$", 0, 0, NULL);
    const char *p99 = throng_test_json_string (summary, "thresholds.2.actual");
    g_test_message ("p99 %s", p99);
    g_assert_true (g_regex_match (duration, p99, 0, NULL));
    g_assert_true (throng_test_json_bool (summary, "thresholds.2.passed"));
    g_autoptr (GRegex) rate = g_regex_new ("^[0-9.]+/s$", 0, 0, NULL);
    g_assert_true (g_regex_match (rate, throng_test_json_string (summary, "thresholds.3.actual"), 0,
                                  NULL));
    g_autofree char *ran = g_strdup_printf ("%" G_GINT64_FORMAT, iterations);
    g_assert_cmpstr (throng_test_json_string (summary, "thresholds.4.actual"), ==, ran);
}

/* An existing result file is kept unless --overwrite. */
static void
test_overwrite (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "x",
        .target = "builtin",
        .iterations = 2,
        .steps = BUILTIN_STEP,
    });
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", yaml);
    g_autofree char *json = throng_test_write_file (tmp->dir, "out.json", "precious");
    g_autofree char *out_arg = throng_test_out_arg ("json", json);
    g_autofree char *kept = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    int status;

    status = throng_test_runv (RUN_TIMEOUT, NULL, NULL, "run", plan, "--quiet", "--out", out_arg,
                               NULL);
    g_assert_cmpint (status, !=, 0);
    g_file_get_contents (json, &kept, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (kept, ==, "precious");

    status = throng_test_runv (RUN_TIMEOUT, NULL, NULL, "run", plan, "--quiet", "--out", out_arg,
                               "--overwrite", NULL);
    g_assert_cmpint (status, ==, 0);
    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 2);
}

/* A minute of two users against the built-in target, for the tests that stop it early. */
static char *
long_run_yaml (const char *think_time)
{
    g_autofree char *extra = g_strdup_printf ("    think_time: %s\n", think_time);

    return throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "long",
        .target = "builtin",
        .users = 2,
        .duration = "60s",
        .scenario_extra = extra,
        .steps = BUILTIN_STEP,
    });
}

/*
 * SIGINT, SIGTERM or SIGHUP (a dropped terminal) mid-run: exit 130, and the
 * reporters still flush.  SIGPIPE sent from outside is ignored: the run
 * goes on until the SIGTERM that follows it.
 */
static void
test_exit_interrupted (ThrongTestTmpdir *tmp, gconstpointer data)
{
    int signum = GPOINTER_TO_INT (data);
    g_autofree char *yaml = long_run_yaml ("10ms");
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", yaml);
    g_autofree char *json = g_build_filename (tmp->dir, "summary.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", json);
    g_autoptr (ThrongTestProcess) proc
        = throng_test_spawn ((const char *const[]) { "run", plan, "--quiet", "--out", out_arg, NULL },
                             NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = NULL;
    gint64 started;
    int status = -1;

    throng_test_wait_started ();
    if (signum == SIGPIPE) {
        throng_test_process_signal (proc, SIGPIPE);
        g_usleep (500 * 1000);
        g_assert_nonnull (throng_test_process_pid (proc));
        signum = SIGTERM;
    }
    started = g_get_monotonic_time ();
    throng_test_process_signal (proc, signum);
    g_assert_true (throng_test_process_wait (proc, 20, &status, NULL, NULL));
    g_test_message ("stopped %" G_GINT64_FORMAT " ms after the signal",
                    (g_get_monotonic_time () - started) / 1000);

    g_assert_cmpint (status, ==, 130);
    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_true (throng_test_json_bool (summary, "interrupted"));
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
}

/*
 * SIGKILL, which no handler sees (the kernel's answer to a memory limit):
 * the csv rows and the jsonl intervals written up to the last complete
 * second are on disk, since both reporters write their buffers at every
 * interval and not only when full (64 KiB: about thirty intervals).
 */
static void
test_exit_killed (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *yaml = long_run_yaml ("100ms");
    g_autofree char *jsonl = g_build_filename (tmp->dir, "run.jsonl", NULL);
    g_autofree char *csv = g_build_filename (tmp->dir, "samples.csv", NULL);
    g_autofree char *with_reporters = g_strdup_printf ("%sreporters:\n"
                                                      "  - csv: { path: '%s' }\n"
                                                      "  - json: { path: '%s', mode: jsonl }\n",
                                                      yaml, csv, jsonl);
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", with_reporters);
    g_autoptr (ThrongTestProcess) proc
        = throng_test_spawn ((const char *const[]) { "run", plan, "--quiet", NULL }, NULL);
    g_autofree char *lines = NULL, *rows = NULL;
    int status = -1;

    throng_test_wait_started ();
    g_usleep (3500 * 1000);
    throng_test_process_signal (proc, SIGKILL);
    g_assert_true (throng_test_process_wait (proc, 20, &status, NULL, NULL));
    g_assert_cmpint (status, ==, 128 + SIGKILL);

    g_assert_true (g_file_get_contents (jsonl, &lines, NULL, NULL));
    g_assert_true (g_file_get_contents (csv, &rows, NULL, NULL));
    g_test_message ("after the kill: %u jsonl lines, %u csv lines", throng_test_count_lines (lines),
                    throng_test_count_lines (rows));
    /* the run's header line and at least two intervals; the csv header and their rows */
    g_assert_cmpuint (throng_test_count_lines (lines), >=, 3);
    g_assert_cmpuint (throng_test_count_lines (rows), >=, 1 + 2 * 2 * 5);
}

/*
 * A dropped terminal: throng writes to a pseudo-terminal whose other side
 * closes, then gets SIGHUP, as from a closed ssh session.  The run stops
 * as for SIGTERM (exit 130, the JSON summary written); the console's
 * summary has no reader left, which is not a failed result (exit 4).
 */
static void
test_exit_hangup (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *yaml = long_run_yaml ("10ms");
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml", yaml);
    g_autofree char *json = g_build_filename (tmp->dir, "summary.json", NULL);
    g_autofree char *out_arg = throng_test_out_arg ("json", json);
    g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
    g_autoptr (GSubprocess) proc = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = NULL;
    int master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);

    g_assert_cmpint (master, >=, 0);
    g_assert_cmpint (grantpt (master), ==, 0);
    g_assert_cmpint (unlockpt (master), ==, 0);
    int terminal = open (ptsname (master), O_RDWR | O_NOCTTY | O_CLOEXEC);
    g_assert_cmpint (terminal, >=, 0);
    g_subprocess_launcher_take_stdout_fd (launcher, terminal);
    g_subprocess_launcher_take_stderr_fd (launcher, dup (terminal));
    proc = g_subprocess_launcher_spawn (launcher, &error, throng_test_exe (), "run", plan, "--out",
                                        out_arg, NULL);
    g_assert_no_error (error);
    g_clear_object (&launcher);   /* closes our copies of the terminal */

    throng_test_wait_started ();
    close (master);
    g_usleep (200 * 1000);
    g_subprocess_send_signal (proc, SIGHUP);

    gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
    while (g_subprocess_get_identifier (proc) != NULL && g_get_monotonic_time () < deadline)
        g_usleep (10 * 1000);
    if (g_subprocess_get_identifier (proc) != NULL) {
        g_subprocess_force_exit (proc);
        g_subprocess_wait (proc, NULL, NULL);
        g_error ("throng did not stop within 20 s of SIGHUP");
    }
    g_subprocess_wait (proc, NULL, NULL);
    g_assert_true (g_subprocess_get_if_exited (proc));
    g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 130);
    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_true (throng_test_json_bool (summary, "interrupted"));
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), >, 0);
}

/*
 * Standard output closed or full: every command that writes to it exits 4
 * with one line on stderr, whether the console reporter or main wrote.
 */
static void
test_exit_stdout_unwritable (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml",
                                                    "target: builtin\n"
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 1\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"${builtin.http}/\" }\n");
    static const char *const redirects[] = { ">&-", ">/dev/full" };
    static const char *const commands[] = { "run", "run --quiet", "validate", "plugins",
                                            "--version" };

    for (gsize r = 0; r < G_N_ELEMENTS (redirects); r++) {
        for (gsize c = 0; c < G_N_ELEMENTS (commands); c++) {
            g_autofree char *line = g_strdup_printf (
                "exec \"$0\" %s %s %s", commands[c],
                g_str_has_prefix (commands[c], "run") || strcmp (commands[c], "validate") == 0
                    ? plan
                    : "",
                redirects[r]);
            /* The shell closes or redirects the descriptor. */
            const char *argv[] = { "/bin/sh", "-c", line, throng_test_exe (), NULL };
            g_autofree char *err = NULL;
            int status = throng_test_process_run (argv, NULL, RUN_TIMEOUT, NULL, &err);

            g_test_message ("%s: exit %d, stderr %s", line, status, err);
            g_assert_cmpint (status, ==, 4);
            g_assert_cmpuint (throng_test_count_lines (err), ==, 1);
            g_assert_nonnull (strstr (err, "standard output"));
        }
    }
}

/*
 * A run of one request has no complete interval: saturation is not judged
 * (even with a 1% CPU limit that any run passes), and the CPU share shown
 * never exceeds 100% although start-up counts in the process's CPU time.
 */
static void
test_saturation_short_run (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (tmp->dir, "plan.yaml",
                                                    "target: builtin\n"
                                                    "saturation: { cpu: 1% }\n"
                                                    "defaults:\n"
                                                    "  http: { tls: { verify: false } }\n"
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 1\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"${builtin.https}/\" }\n");
    g_autofree char *json = g_build_filename (tmp->dir, "summary.json", NULL);
    g_autofree char *out_arg = g_strconcat ("json=", json, NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = NULL;

    int status = throng_test_runv (RUN_TIMEOUT, &out, &err, "run", plan, "-w", "1", "--out",
                                   out_arg, NULL);
    g_test_message ("stdout: %s\nstderr: %s", out, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_null (strstr (out, "saturated"));
    g_assert_null (strstr (out, "SATURATED"));
    summary = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_false (throng_test_json_bool (summary, "saturated"));
    g_assert_cmpfloat (throng_test_json_double (summary, "cpu_share"), <=, 1.0);
}

int
main (int argc, char **argv)
{
    static const char *const kinds[] = { "connect", "dns", "certificate" };
    static ErrorCase error_cases[G_N_ELEMENTS (transports) * G_N_ELEMENTS (kinds)];

    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/run/version", test_version);
    g_test_add_func ("/run/help", test_help);
    g_test_add_func ("/run/plugins", test_plugins);
    g_test_add ("/run/usage/errors", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_usage_errors, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/good", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_good, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/repeated-labels", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_repeated_labels, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/bad", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_bad, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/not-regular-files", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_not_regular_files, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/missing-file", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_missing_file, throng_test_tmpdir_teardown);
    g_test_add ("/run/validate/bad-set", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_bad_set, throng_test_tmpdir_teardown);

    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        g_autofree char *builtin = g_strdup_printf ("/run/builtin/%s", transports[t]);
        g_autofree char *external = g_strdup_printf ("/run/external-target/%s", transports[t]);

        g_test_add (builtin, ThrongTestTmpdir, transports[t], throng_test_tmpdir_setup,
                    test_builtin, throng_test_tmpdir_teardown);
        g_test_add (external, ThrongTestTmpdir, transports[t], throng_test_tmpdir_setup,
                    test_external_target, throng_test_tmpdir_teardown);
        for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++) {
            ErrorCase *c = &error_cases[t * G_N_ELEMENTS (kinds) + k];
            g_autofree char *path = NULL;

            c->transport = transports[t];
            c->kind = kinds[k];
            path = g_strdup_printf ("/run/error/%s/%s", c->kind, c->transport);
            g_test_add (path, ThrongTestTmpdir, c, throng_test_tmpdir_setup, test_error_class,
                        throng_test_tmpdir_teardown);
        }
    }
    g_test_add ("/run/workers-and-set", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_workers_and_set, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/not-started", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_exit_not_started, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/thresholds-pass", ThrongTestTmpdir, GINT_TO_POINTER (FALSE),
                throng_test_tmpdir_setup, test_exit_thresholds, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/thresholds-fail", ThrongTestTmpdir, GINT_TO_POINTER (TRUE),
                throng_test_tmpdir_setup, test_exit_thresholds, throng_test_tmpdir_teardown);
    g_test_add ("/run/thresholds/dropped-iterations", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_thresholds_dropped, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/overwrite", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_overwrite, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigkill-keeps-intervals", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_exit_killed, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigint", ThrongTestTmpdir, GINT_TO_POINTER (SIGINT),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigterm", ThrongTestTmpdir, GINT_TO_POINTER (SIGTERM),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);
    g_test_add ("/run/saturation/short-run", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_saturation_short_run, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sighup", ThrongTestTmpdir, GINT_TO_POINTER (SIGHUP),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/hangup", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_exit_hangup, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigpipe-ignored", ThrongTestTmpdir, GINT_TO_POINTER (SIGPIPE),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/stdout-unwritable", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_exit_stdout_unwritable, throng_test_tmpdir_teardown);

    return g_test_run ();
}
