/* SPDX-License-Identifier: MIT */
/*
 * A replay of `throng import har`'s plan with no hand edits (docs/har.md):
 * tests/data/har/login.har, Chromium signing in to login-app.py and
 * buying something (a CSRF token in a form, a session cookie, a redirect
 * after POST, JSON XHRs with an API token and the page's CSRF token, a
 * checkout redirected to a new order), is imported and replayed against a
 * fresh instance of the same app, whose tokens, session and ids all differ
 * from the recording's: every check passes and the run exits 0.  Against
 * an instance whose CSRF check rejects everything, and with
 * --no-correlate (every value sent as recorded), the plan's thresholds
 * fail it with exit status 99.
 */
#include "test-utils.h"

#include <signal.h>
#include <string.h>

#define RUN_TIMEOUT 60

typedef struct {
    char *dir;
    char *plan;
    ThrongTestProcess *app;
    char *url;
} Fixture;

/* Starts login-app.py on a free port, with @extra arguments; its URL in fixture->url. */
static gboolean
app_start (Fixture *fixture, const char *extra)
{
    g_autofree char *python = throng_test_require_program ("python3");
    g_autofree char *script = throng_test_source_path ("tests/data/har/login-app.py");
    g_autoptr (GError) error = NULL;

    if (python == NULL)
        return FALSE;
    for (guint attempt = 0; attempt < 3; attempt++) {
        guint16 port = throng_test_free_port ();
        g_autofree char *port_text = g_strdup_printf ("%u", port);
        const char *argv[] = { python, script, "--port", port_text, extra != NULL ? "--broken" : NULL,
                               extra, NULL };

        fixture->app = throng_test_process_spawn (argv, NULL, &error);
        g_assert_no_error (error);
        if (throng_test_wait_port (port, 10000)) {
            fixture->url = g_strdup_printf ("http://127.0.0.1:%u", port);
            return TRUE;
        }
        g_clear_pointer (&fixture->app, throng_test_process_free);
    }
    g_assert_not_reached ();
}

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
    fixture->plan = g_build_filename (fixture->dir, "login.yaml", NULL);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    if (fixture->app != NULL)
        throng_test_process_stop (fixture->app, SIGTERM, 2000);
    g_clear_pointer (&fixture->app, throng_test_process_free);
    g_free (fixture->url);
    g_free (fixture->plan);
    throng_test_tmpdir_free (fixture->dir);
}

/* Imports login.har into fixture->plan (with @option, or none) and validates it. */
static char *
import_login (Fixture *fixture, const char *option)
{
    g_autofree char *har = throng_test_source_path ("tests/data/har/login.har");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;

    int status = throng_test_runv (RUN_TIMEOUT, &out, &err, "import", "har", har, "-o",
                                   fixture->plan, option, NULL);
    g_test_message ("import: %s", err);
    g_assert_cmpint (status, ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    status = throng_test_runv (RUN_TIMEOUT, &out, &err, "validate", fixture->plan, NULL);
    if (status != 0)
        g_test_message ("validate: %s%s", out, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_file_get_contents (fixture->plan, &text, NULL, NULL));
    return g_steal_pointer (&text);
}

/* Runs the plan against fixture->url; the exit status, and the summary in @result. */
static int
replay (Fixture *fixture, JsonNode **result)
{
    g_autofree char *base = g_strdup_printf ("defaults.http.base_url=%s", fixture->url);
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *out = throng_test_out_arg ("json", summary);
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;
    int status = -1;

    g_assert_true (throng_test_run ((const char *const[]) { "run", fixture->plan, "--quiet", "--set",
                                                            base, "--out", out, NULL },
                                    NULL, RUN_TIMEOUT, &status, NULL, &err));
    g_test_message ("run: %s", err);
    *result = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    return status;
}

/* The recording's correlations, found: each extractor and where it is sent. */
static void
test_plan (Fixture *fixture, gconstpointer data)
{
    g_autofree char *plan = import_login (fixture, NULL);
    static const char *const expected[] = {
        /* the login form's token, from its hidden input, sent in the POST's form */
        "csrf_token: { regex: \"name=\\\"csrf_token\\\"[^>]*?value=\\\"([^\\\"]*)\\\"\", group: 1 }",
        "body: \"csrf_token=${vars.csrf_token}&username=alice&password=wonderland\"",
        /* the account page's token (the login rotated it), from its <meta>, sent as a header */
        "csrf_token_2: { regex: \"name=\\\"csrf-token\\\"[^>]*?content=\\\"([^\\\"]*)\\\"\", group: 1 }",
        "\"X-CSRF-Token\": \"${vars.csrf_token_2}\"",
        /* a JSON member, sent as a bearer token; a form's hidden input, sent in a path */
        "api_token: { json: \"$.api_token\" }",
        "\"Authorization\": \"Bearer ${vars.api_token}\"",
        "url: \"/api/carts/${vars.cart}/items\"",
        "body: \"csrf_token=${vars.csrf_token_2}&cart=${vars.cart}\"",
        /* the redirect after the checkout's POST, to an order made up by it */
        "location: { header: \"Location\" }",
        "url: \"${vars.location}\"",
        "url: \"/api/orders/${vars.order}\"",
        "thresholds: [ \"checks.rate == 100%\", \"total.errors == 0\" ]",
        ("# Correlated: 6 values that responses gave, extracted and sent as ${vars.…}; 0 named "
         "in comments."),
    };

    for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
        if (strstr (plan, expected[i]) == NULL)
            g_test_message ("not in the plan: %s\n%s", expected[i], plan);
        g_assert_nonnull (strstr (plan, expected[i]));
    }
    /* The session cookie is the jar's, never a header of the plan. */
    g_assert_null (strstr (plan, "\"Cookie\""));
    g_assert_null (strstr (plan, "sid="));
}

/* A fresh app: new tokens, new session, new ids; the replay passes as it is. */
static void
test_fresh (Fixture *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) result = NULL;

    g_free (import_login (fixture, NULL));
    if (!app_start (fixture, NULL))
        return;
    g_assert_cmpint (replay (fixture, &result), ==, 0);
    g_assert_cmpint (throng_test_json_int (result, "total.requests"), ==, 8);
    g_assert_cmpint (throng_test_json_int (result, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.passes"), ==, 8);
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.fails"), ==, 0);
}

/* The app's CSRF check rejects everything: the checks fail and so does the run. */
static void
test_broken (Fixture *fixture, gconstpointer data)
{
    g_autoptr (JsonNode) result = NULL;

    g_free (import_login (fixture, NULL));
    if (!app_start (fixture, "csrf"))
        return;
    g_assert_cmpint (replay (fixture, &result), ==, 99);
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.fails"), >, 0);
}

/* Without the correlations the recorded tokens are stale: the replay fails. */
static void
test_not_correlated (Fixture *fixture, gconstpointer data)
{
    g_autofree char *plan = import_login (fixture, "--no-correlate");
    g_autoptr (JsonNode) result = NULL;

    g_assert_null (strstr (plan, "${vars."));
    g_assert_nonnull (strstr (plan, "thresholds: "));
    if (!app_start (fixture, NULL))
        return;
    g_assert_cmpint (replay (fixture, &result), ==, 99);
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.fails"), >, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/har-replay/plan", Fixture, NULL, fixture_setup, test_plan, fixture_teardown);
    g_test_add ("/har-replay/fresh", Fixture, NULL, fixture_setup, test_fresh, fixture_teardown);
    g_test_add ("/har-replay/broken", Fixture, NULL, fixture_setup, test_broken, fixture_teardown);
    g_test_add ("/har-replay/not-correlated", Fixture, NULL, fixture_setup, test_not_correlated,
                fixture_teardown);
    return g_test_run ();
}
