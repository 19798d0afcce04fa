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
    g_autoptr (GError) error = NULL;

    f->dir = throng_test_tmpdir_new ();
    if (!throng_test_require_nginx ())
        return;
    f->nginx = throng_test_nginx_start (&config, &error);
    g_assert_no_error (error);
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
    int status = -1;
    gint64 started;

    if (f->nginx == NULL)
        return;
    yaml = g_strdup_printf ("name: nginx-10k\n"
                            "defaults:\n"
                            "  http:\n"
                            "    transport: %s\n"
                            "    base_url: %s\n"
                            "    tls: { verify: false }\n"
                            "scenarios:\n"
                            "  - name: load\n"
                            "    users: 100\n"
                            "    iterations: 100\n"
                            "    steps:\n"
                            "      - http: { url: / }\n",
                            c->transport, base_url (f, c));
    started = g_get_monotonic_time ();
    summary = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);
    g_test_message ("run took %" G_GINT64_FORMAT " ms",
                    (g_get_monotonic_time () - started) / 1000);

    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (summary);
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
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autofree char *text = NULL;
    ThrongTestNginxLog log;
    int status = -1;
    guint posts = 0;

    if (f->nginx == NULL)
        return;
    yaml = g_strdup_printf ("name: nginx-steps\n"
                            "defaults:\n"
                            "  http:\n"
                            "    transport: %s\n"
                            "    base_url: %s\n"
                            "    tls: { verify: false }\n"
                            "scenarios:\n"
                            "  - name: two-steps\n"
                            "    users: 7\n"
                            "    iterations: 13\n"
                            "    steps:\n"
                            "      - http: { url: /big }\n"
                            "      - http: { method: POST, url: /post, body: 'x=1' }\n",
                            c->transport, base_url (f, c));
    summary = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);

    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (summary);
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
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    ThrongTestNginxLog log;
    int status = -1;

    if (f->nginx == NULL)
        return;
    yaml = g_strdup_printf ("name: nginx-close\n"
                            "defaults:\n"
                            "  http:\n"
                            "    transport: %s\n"
                            "    base_url: %s\n"
                            "    keep_alive: false\n"
                            "    tls: { verify: false }\n"
                            "scenarios:\n"
                            "  - name: close\n"
                            "    users: 10\n"
                            "    iterations: 20\n"
                            "    steps:\n"
                            "      - http: { url: / }\n",
                            c->transport, base_url (f, c));
    summary = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);

    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (summary);
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
    g_autofree char *yaml = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = NULL;
    ThrongTestNginxLog log;
    int status = -1;

    if (f->nginx == NULL)
        return;
    g_assert_true (c->https);
    yaml = g_strdup_printf ("name: nginx-ca\n"
                            "defaults:\n"
                            "  http:\n"
                            "    transport: %s\n"
                            "    base_url: %s\n"
                            "    tls: { ca_file: \"%s\" }\n"
                            "scenarios:\n"
                            "  - name: verified\n"
                            "    users: 4\n"
                            "    iterations: 5\n"
                            "    steps:\n"
                            "      - http: { url: / }\n",
                            c->transport, base_url (f, c),
                            throng_test_nginx_certs (f->nginx)->ca_cert);
    summary = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);

    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (summary);
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
