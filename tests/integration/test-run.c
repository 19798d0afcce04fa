/* SPDX-License-Identifier: MIT */
/*
 * Integration tests of the real `throng` binary through its command-line
 * contract: --version and --help, `validate` on good and bad plans,
 * `plugins`, runs against the built-in target and against a target this
 * process starts (so the server's own counter checks the client's), the
 * error classes of a refused port, an unknown host and a bad certificate
 * for both http transports, and the documented exit statuses.
 */
#include "target.h"
#include "test-utils.h"

#include <signal.h>
#include <string.h>

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
    int status = throng_test_runv (10, &out, &err, "--version", NULL);

    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_str_has_prefix (out, "throng "));
    g_assert_nonnull (strstr (out, "0."));
    g_assert_cmpuint (throng_test_count_lines (out), ==, 1);
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

    for (gsize i = 0; i < G_N_ELEMENTS (commands); i++) {
        g_autofree char *cmd_out = NULL;
        g_autofree char *cmd_err = NULL;

        status = throng_test_runv (10, &cmd_out, &cmd_err, commands[i], "--help", NULL);
        g_assert_cmpint (status, ==, 0);
        g_assert_nonnull (strstr (cmd_out, "Usage:"));
        g_assert_nonnull (strstr (cmd_out, commands[i]));
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
    }
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

/* SIGINT (or SIGTERM) mid-run: exit 130, and the reporters still flush. */
static void
test_exit_interrupted (ThrongTestTmpdir *tmp, gconstpointer data)
{
    int signum = GPOINTER_TO_INT (data);
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "long",
        .target = "builtin",
        .users = 2,
        .duration = "60s",
        .scenario_extra = "    think_time: 10ms\n",
        .steps = BUILTIN_STEP,
    });
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
    g_test_add ("/run/validate/bad", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_validate_bad, throng_test_tmpdir_teardown);
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
    g_test_add ("/run/exit/overwrite", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_overwrite, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigint", ThrongTestTmpdir, GINT_TO_POINTER (SIGINT),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);
    g_test_add ("/run/exit/sigterm", ThrongTestTmpdir, GINT_TO_POINTER (SIGTERM),
                throng_test_tmpdir_setup, test_exit_interrupted, throng_test_tmpdir_teardown);

    return g_test_run ();
}
