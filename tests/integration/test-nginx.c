/* SPDX-License-Identifier: MIT */
/*
 * The real binary against nginx from a generated configuration: exact
 * request counts (users × iterations × steps) agreed by nginx's access
 * log, over HTTP and HTTPS, for both http transports; connections opened
 * as counted by both sides when keep-alive is off; and verification
 * against the test CA.
 */
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 240

typedef struct {
    const char *transport;
    gboolean https;
} Case;

typedef struct {
    ThrongTestNginx *nginx;
    char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    const Case *c = data;
    ThrongTestNginxConfig config = {
        .https = c->https,
        .locations = "location /post { return 200 \"posted\\n\"; }\n"
                     "    location /big { return 200 "
                     "\"0123456789012345678901234567890123456789012345678901234567890123\"; }",
    };

    f->dir = throng_test_tmpdir_new ();
    f->nginx = throng_test_nginx_require (&config);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    g_clear_pointer (&f->nginx, throng_test_nginx_stop);
    g_clear_pointer (&f->dir, throng_test_tmpdir_free);
}

static const char *
base_url (Fixture *f, const Case *c)
{
    return c->https ? throng_test_nginx_https_url (f->nginx) : throng_test_nginx_http_url (f->nginx);
}

/* The acceptance figure: 100 users × 100 iterations = 10,000 requests. */
static void
test_ten_thousand (Fixture *f, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *yaml = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    ThrongTestNginxLog log;
    gint64 started;

    if (f->nginx == NULL)
        return;
    yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "nginx-10k",
        .transport = c->transport,
        .base_url = base_url (f, c),
        .http = "tls: { verify: false }",
        .users = 100,
        .iterations = 100,
        .steps = "      - http: { url: / }\n",
    });
    started = g_get_monotonic_time ();
    summary = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    g_test_message ("run took %" G_GINT64_FORMAT " ms",
                    (g_get_monotonic_time () - started) / 1000);

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 10000);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.users"), ==, 100);

    g_assert_true (throng_test_nginx_log_wait (f->nginx, 10000, 5000, &log));
    g_assert_cmpuint (log.lines, ==, 10000);
    g_assert_cmpuint (log.status_2xx, ==, 10000);
    /* Keep-alive is on by default: each user opens at least one connection,
     * and the client's count of them is the server's. */
    g_test_message ("nginx saw %u connections, throng reports %" G_GINT64_FORMAT, log.connections,
                    throng_test_json_int (summary, "total.connections"));
    g_assert_cmpuint (log.connections, >=, 100);
    g_assert_cmpuint (log.connections, <, 10000);
    g_assert_cmpint (throng_test_json_int (summary, "total.connections"), ==, log.connections);
    if (c->https)
        g_assert_cmpuint (log.reused + log.not_reused, ==, 10000);
    else
        g_assert_cmpuint (log.reused + log.not_reused, ==, 0);
}

/* Two steps, so requests = users × iterations × steps, and methods show. */
static void
test_steps (Fixture *f, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *yaml = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autofree char *text = NULL;
    ThrongTestNginxLog log;
    guint posts = 0;

    if (f->nginx == NULL)
        return;
    yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "nginx-steps",
        .transport = c->transport,
        .base_url = base_url (f, c),
        .http = "tls: { verify: false }",
        .users = 7,
        .iterations = 13,
        .steps = "      - http: { url: /big }\n"
                 "      - http: { method: POST, url: /post, body: 'x=1' }\n",
    });
    summary = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, NULL);

    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 7 * 13 * 2);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.0.stats.requests"), ==, 91);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.1.stats.requests"), ==, 91);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    /* The 64-byte body of /big, 91 times, at least. */
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.steps.0.stats.bytes_received"),
                     >=, 91 * 64);

    g_assert_true (throng_test_nginx_log_wait (f->nginx, 182, 5000, &log));
    g_assert_cmpuint (log.lines, ==, 182);
    g_file_get_contents (throng_test_nginx_access_log (f->nginx), &text, NULL, NULL);
    for (const char *p = text; (p = strstr (p, " POST /post\n")) != NULL; p++)
        posts++;
    g_assert_cmpuint (posts, ==, 91);
}

/* keep_alive: false — one connection per request, counted alike by both. */
static void
test_no_keep_alive (Fixture *f, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *yaml = NULL;
    g_autoptr (JsonNode) summary = NULL;
    ThrongTestNginxLog log;

    if (f->nginx == NULL)
        return;
    yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "nginx-close",
        .transport = c->transport,
        .base_url = base_url (f, c),
        .http = "keep_alive: false, tls: { verify: false }",
        .users = 10,
        .iterations = 20,
        .steps = "      - http: { url: / }\n",
    });
    summary = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, NULL);

    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 200);
    g_assert_true (throng_test_nginx_log_wait (f->nginx, 200, 5000, &log));
    g_assert_cmpuint (log.lines, ==, 200);
    g_assert_cmpuint (log.connections, ==, 200);
    g_assert_cmpuint (log.max_connection_requests, ==, 1);
    g_assert_cmpint (throng_test_json_int (summary, "total.connections"), ==, 200);
}

/* HTTPS verified against the test CA (tls.ca_file) succeeds. */
static void
test_verify_ca (Fixture *f, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *tls = NULL;
    g_autofree char *yaml = NULL;
    g_autoptr (JsonNode) summary = NULL;
    ThrongTestNginxLog log;

    if (f->nginx == NULL)
        return;
    g_assert_true (c->https);
    tls = g_strdup_printf ("tls: { ca_file: \"%s\" }", throng_test_nginx_certs (f->nginx)->ca_cert);
    yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "nginx-ca",
        .transport = c->transport,
        .base_url = base_url (f, c),
        .http = tls,
        .users = 4,
        .iterations = 5,
        .steps = "      - http: { url: / }\n",
    });
    summary = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, NULL);

    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 20);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_true (throng_test_nginx_log_wait (f->nginx, 20, 5000, &log));
    g_assert_cmpuint (log.lines, ==, 20);
}

int
main (int argc, char **argv)
{
    static const Case cases[] = {
        { "fast", FALSE },
        { "fast", TRUE },
        { "soup", FALSE },
        { "soup", TRUE },
    };

    g_test_init (&argc, &argv, NULL);

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        const Case *c = &cases[i];
        const char *scheme = c->https ? "https" : "http";
        g_autofree char *ten = g_strdup_printf ("/nginx/%s/%s/10000", c->transport, scheme);
        g_autofree char *steps = g_strdup_printf ("/nginx/%s/%s/steps", c->transport, scheme);
        g_autofree char *close = g_strdup_printf ("/nginx/%s/%s/no-keep-alive", c->transport,
                                                  scheme);

        g_test_add (ten, Fixture, c, fixture_setup, test_ten_thousand, fixture_teardown);
        g_test_add (steps, Fixture, c, fixture_setup, test_steps, fixture_teardown);
        g_test_add (close, Fixture, c, fixture_setup, test_no_keep_alive, fixture_teardown);
        if (c->https) {
            g_autofree char *ca = g_strdup_printf ("/nginx/%s/https/verify-ca", c->transport);
            g_test_add (ca, Fixture, c, fixture_setup, test_verify_ca, fixture_teardown);
        }
    }
    return g_test_run ();
}
