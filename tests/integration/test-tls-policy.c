/* SPDX-License-Identifier: MIT */
/*
 * The TLS session policies of the fast transport, proven against nginx's
 * own log.  For TLS 1.2 and TLS 1.3 each, 10 users × 20 iterations × 2
 * requests run under per-iteration, per-thread (kept alive and closed
 * after each request), global and resumption off; throng's connection
 * and handshake counters must equal what nginx logged
 * (`$connection`, `$ssl_session_reused`).  The real `throng` binary runs
 * as a subprocess: glib-networking turns resumption off in any process
 * that called g_test_init(), and the policies must be seen from outside.
 *
 * Also here: a unit test of the session store itself (a user is never
 * offered another user's session), certificate failures (wrong host,
 * expired, self-signed) with verification on and off, a client
 * certificate nginx requires, and the key share a ClientHello carries.
 */
#include "test-utils.h"

#include <string.h>

/* The store is compiled into this test as it is into the plugin. */
#include "../../plugins/http/fast/resumption.c"

#define RUN_TIMEOUT 120
#define USERS 10
#define ITERATIONS 20
#define STEPS 2
#define REQUESTS (USERS * ITERATIONS * STEPS)

/* ------------------------------------------------------------------ */
/* The session store                                                   */

static GBytes *
bytes_for (const char *text)
{
    return g_bytes_new (text, strlen (text));
}

static void
assert_offer (FastSessions *sessions, FastSessionSlot *slot, const char *expected)
{
    GBytes *offer = fast_sessions_offer (sessions, slot);

    if (expected == NULL) {
        g_assert_null (offer);
        return;
    }
    g_assert_nonnull (offer);
    g_assert_cmpmem (g_bytes_get_data (offer, NULL), g_bytes_get_size (offer), expected,
                     strlen (expected));
    g_bytes_unref (offer);
}

static void
test_store_per_thread (void)
{
    FastSessions *sessions = fast_sessions_new (HTTP_SESSION_PER_THREAD, TRUE);
    FastSessionSlot a = { NULL }, b = { NULL };

    assert_offer (sessions, &a, NULL);
    fast_sessions_save (sessions, &a, bytes_for ("session-a1"));
    assert_offer (sessions, &a, "session-a1");
    assert_offer (sessions, &b, NULL);
    fast_sessions_save (sessions, &b, bytes_for ("session-b1"));
    assert_offer (sessions, &a, "session-a1");
    assert_offer (sessions, &b, "session-b1");
    /* A newer session replaces only its own user's. */
    fast_sessions_save (sessions, &a, bytes_for ("session-a2"));
    assert_offer (sessions, &a, "session-a2");
    assert_offer (sessions, &b, "session-b1");
    /* Iterations do not drop it under per-thread. */
    fast_sessions_iteration_begin (sessions, &a);
    assert_offer (sessions, &a, "session-a2");

    fast_session_slot_clear (&a);
    fast_session_slot_clear (&b);
    fast_sessions_free (sessions);
}

typedef struct {
    FastSessions *sessions;
    guint id;
    guint mismatches;
} StoreThread;

static gpointer
store_thread (gpointer data)
{
    StoreThread *t = data;
    FastSessionSlot slot = { NULL };

    for (guint i = 0; i < 2000; i++) {
        g_autofree char *mine = g_strdup_printf ("user-%u-session-%u", t->id, i);
        GBytes *offer;

        fast_sessions_save (t->sessions, &slot, bytes_for (mine));
        offer = fast_sessions_offer (t->sessions, &slot);
        if (offer == NULL || g_bytes_get_size (offer) != strlen (mine)
            || memcmp (g_bytes_get_data (offer, NULL), mine, strlen (mine)) != 0)
            t->mismatches++;
        if (offer != NULL)
            g_bytes_unref (offer);
    }
    fast_session_slot_clear (&slot);
    return NULL;
}

/* Many users on many threads at once: each only ever gets back its own newest session. */
static void
test_store_per_thread_concurrent (void)
{
    FastSessions *sessions = fast_sessions_new (HTTP_SESSION_PER_THREAD, TRUE);
    StoreThread threads[8];
    GThread *handles[8];

    for (guint i = 0; i < G_N_ELEMENTS (threads); i++) {
        threads[i] = (StoreThread){ sessions, i, 0 };
        handles[i] = g_thread_new ("store", store_thread, &threads[i]);
    }
    for (guint i = 0; i < G_N_ELEMENTS (threads); i++) {
        g_thread_join (handles[i]);
        g_assert_cmpuint (threads[i].mismatches, ==, 0);
    }
    fast_sessions_free (sessions);
}

static void
test_store_global (void)
{
    FastSessions *sessions = fast_sessions_new (HTTP_SESSION_GLOBAL, TRUE);
    FastSessionSlot a = { NULL }, b = { NULL };

    assert_offer (sessions, &b, NULL);
    fast_sessions_save (sessions, &a, bytes_for ("from-a"));
    assert_offer (sessions, &b, "from-a");
    /* The newest session received, whoever received it, is what everyone offers. */
    fast_sessions_save (sessions, &b, bytes_for ("from-b"));
    assert_offer (sessions, &a, "from-b");
    assert_offer (sessions, &b, "from-b");
    g_assert_null (a.own);
    g_assert_null (b.own);
    fast_sessions_iteration_begin (sessions, &a);
    assert_offer (sessions, &a, "from-b");
    fast_sessions_free (sessions);
}

static void
test_store_per_iteration (void)
{
    FastSessions *sessions = fast_sessions_new (HTTP_SESSION_PER_ITERATION, TRUE);
    FastSessionSlot a = { NULL }, b = { NULL };

    fast_sessions_save (sessions, &a, bytes_for ("a-iteration-0"));
    assert_offer (sessions, &a, "a-iteration-0");
    assert_offer (sessions, &b, NULL);
    fast_sessions_iteration_begin (sessions, &a);
    assert_offer (sessions, &a, NULL);
    fast_session_slot_clear (&a);
    fast_session_slot_clear (&b);
    fast_sessions_free (sessions);
}

static void
test_store_no_resumption (void)
{
    static const HttpSessionPolicy policies[] = {
        HTTP_SESSION_PER_THREAD,
        HTTP_SESSION_GLOBAL,
        HTTP_SESSION_PER_ITERATION,
    };

    for (guint i = 0; i < G_N_ELEMENTS (policies); i++) {
        FastSessions *sessions = fast_sessions_new (policies[i], FALSE);
        FastSessionSlot a = { NULL };

        fast_sessions_save (sessions, &a, bytes_for ("never"));
        assert_offer (sessions, &a, NULL);
        g_assert_null (a.own);
        fast_sessions_free (sessions);
    }
}

/* ------------------------------------------------------------------ */
/* nginx's view                                                        */

typedef struct {
    const char *protocol; /* nginx ssl_protocols */
    const char *policy;   /* tls.session */
    gboolean keep_alive;
    gboolean resumption;
    gboolean no_tickets; /* nginx resumes through its session cache only */
    guint connections;   /* what nginx must see */
    guint full;
    guint resumed;
} PolicyCase;

static char *
policy_plan (ThrongTestNginx *nginx, const char *ca_file, const char *policy, gboolean keep_alive,
             gboolean resumption)
{
    g_autofree char *http = g_strdup_printf (
        "keep_alive: %s, tls: { ca_file: '%s', session: %s, resumption: %s }",
        keep_alive ? "true" : "false", ca_file, policy, resumption ? "true" : "false");

    return throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "tls-policy",
        .transport = "fast",
        .base_url = throng_test_nginx_https_url (nginx),
        .http = http,
        .scenario = "policy",
        .users = USERS,
        .iterations = ITERATIONS,
        /* 200 ms between users: user 0 holds a session before user 1 starts. */
        .scenario_extra = "    ramp_up: 2s\n",
        .steps = "      - http: { url: /first }\n"
                 "      - http: { url: /second }\n",
    });
}

static void
test_policy (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const PolicyCase *c = data;
    ThrongTestNginxConfig config = {
        .https = TRUE,
        .ssl_protocols = c->protocol,
        .session_tickets = !c->no_tickets,
    };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *err = NULL;
    ThrongTestNginxLog server;

    if (nginx == NULL)
        return;
    plan = policy_plan (nginx, throng_test_nginx_certs (nginx)->ca_cert, c->policy, c->keep_alive,
                        c->resumption);
    root = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, REQUESTS);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);

    /* nginx logs a request once it completes; wait for all of them. */
    g_assert_true (throng_test_nginx_log_wait (nginx, REQUESTS, 5000, &server));
    /* Each connection is a TLS one, begun with a full or a resumed handshake. */
    g_assert_cmpuint (server.connections_not_reused + server.connections_reused, ==,
                      server.connections);
    g_test_message ("%s %s keep_alive=%d resumption=%d: nginx %u connections, %u full, %u "
                    "resumed; throng %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT
                    " / %" G_GINT64_FORMAT,
                    c->protocol, c->policy, c->keep_alive, c->resumption, server.connections,
                    server.connections_not_reused, server.connections_reused,
                    throng_test_json_int (root, "total.connections"),
                    throng_test_json_int (root, "total.handshakes.full"),
                    throng_test_json_int (root, "total.handshakes.resumed"));
    g_assert_cmpuint (server.lines, ==, REQUESTS);
    g_assert_cmpuint (server.status_2xx, ==, REQUESTS);

    /* What the policy promises, as the server saw it. */
    g_assert_cmpuint (server.connections, ==, c->connections);
    g_assert_cmpuint (server.connections_not_reused, ==, c->full);
    g_assert_cmpuint (server.connections_reused, ==, c->resumed);

    /* throng counted exactly what the server saw. */
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, server.connections);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==,
                     server.connections_not_reused);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.resumed"), ==,
                     server.connections_reused);
}

static const PolicyCase policy_cases[] = {
    /* JMeter 5.0's default: every iteration reconnects with a full handshake. */
    { "TLSv1.2", "per-iteration", TRUE, TRUE, FALSE, USERS *ITERATIONS, USERS *ITERATIONS, 0 },
    { "TLSv1.3", "per-iteration", TRUE, TRUE, FALSE, USERS *ITERATIONS, USERS *ITERATIONS, 0 },
    /* Each user keeps its connection: one full handshake per user. */
    { "TLSv1.2", "per-thread", TRUE, TRUE, FALSE, USERS, USERS, 0 },
    { "TLSv1.3", "per-thread", TRUE, TRUE, FALSE, USERS, USERS, 0 },
    /* Closed after each request: each user resumes its own session. */
    { "TLSv1.2", "per-thread", FALSE, TRUE, FALSE, REQUESTS, USERS, REQUESTS - USERS },
    { "TLSv1.3", "per-thread", FALSE, TRUE, FALSE, REQUESTS, USERS, REQUESTS - USERS },
    /* The same through TLS 1.2 session IDs and nginx's cache, without tickets. */
    { "TLSv1.2", "per-thread", FALSE, TRUE, TRUE, REQUESTS, USERS, REQUESTS - USERS },
    /* One store for everyone: only the very first handshake is full. */
    { "TLSv1.2", "global", TRUE, TRUE, FALSE, USERS, 1, USERS - 1 },
    { "TLSv1.3", "global", TRUE, TRUE, FALSE, USERS, 1, USERS - 1 },
    { "TLSv1.2", "global", FALSE, TRUE, FALSE, REQUESTS, 1, REQUESTS - 1 },
    { "TLSv1.3", "global", FALSE, TRUE, FALSE, REQUESTS, 1, REQUESTS - 1 },
    /* Never offered: every handshake full. */
    { "TLSv1.2", "per-thread", FALSE, FALSE, FALSE, REQUESTS, REQUESTS, 0 },
    { "TLSv1.3", "per-thread", FALSE, FALSE, FALSE, REQUESTS, REQUESTS, 0 },
    { "TLSv1.3", "global", TRUE, FALSE, FALSE, USERS, USERS, 0 },
};

/* ------------------------------------------------------------------ */
/* Certificates                                                        */

typedef enum {
    CERT_WRONG_HOST,
    CERT_EXPIRED,
    CERT_SELF_SIGNED,
} BadCert;

static char *
small_plan (const char *url, const char *tls_yaml, guint iterations)
{
    g_autofree char *http = g_strdup_printf ("tls: %s", tls_yaml);

    return throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "tls-cert",
        .transport = "fast",
        .base_url = url,
        .http = http,
        .scenario = "cert",
        .users = 1,
        .iterations = iterations,
        .steps = "      - http: { url: / }\n",
    });
}

static void
test_bad_certificate (ThrongTestTmpdir *fixture, gconstpointer data)
{
    BadCert which = GPOINTER_TO_INT (data);
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestCerts) certs = throng_test_certs_new (fixture->dir, &error);
    g_autoptr (ThrongTestNginx) nginx = NULL;
    ThrongTestNginxConfig config = { .https = TRUE };
    const char *const verify_values[] = { "true", "false" };

    g_assert_no_error (error);
    switch (which) {
    case CERT_WRONG_HOST:
        config.cert_file = certs->wrong_host_cert;
        config.key_file = certs->wrong_host_key;
        break;
    case CERT_EXPIRED:
        config.cert_file = certs->expired_cert;
        config.key_file = certs->expired_key;
        break;
    case CERT_SELF_SIGNED:
        config.cert_file = certs->self_signed_cert;
        config.key_file = certs->self_signed_key;
        break;
    }
    nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;

    for (guint v = 0; v < G_N_ELEMENTS (verify_values); v++) {
        g_autofree char *tls
            = g_strdup_printf ("{ ca_file: '%s', verify: %s }", certs->ca_cert, verify_values[v]);
        g_autofree char *plan = small_plan (throng_test_nginx_https_url (nginx), tls, 3);
        g_autofree char *err = NULL;
        g_autoptr (JsonNode) root
            = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);

        throng_test_assert_no_glib_noise (err);
        g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 3);
        if (v == 0) {
            g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 3);
            g_assert_cmpint (throng_test_json_int (root, "total.errors_by_class.certificate"), ==,
                             3);
        } else {
            g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
            g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full")
                                 + throng_test_json_int (root, "total.handshakes.resumed"),
                             ==, throng_test_json_int (root, "total.connections"));
        }
    }
}

/* The valid certificate verifies through tls.ca_file, by IP address and by name (SNI). */
static void
test_good_certificate (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&(ThrongTestNginxConfig){
        .https = TRUE,
    });
    const char *ca;

    if (nginx == NULL)
        return;
    ca = throng_test_nginx_certs (nginx)->ca_cert;

    for (guint by_name = 0; by_name < 2; by_name++) {
        g_autofree char *url = by_name ? g_strdup_printf ("https://localhost:%u",
                                                          throng_test_nginx_https_port (nginx))
                                       : g_strdup (throng_test_nginx_https_url (nginx));
        g_autofree char *tls = g_strdup_printf ("{ ca_file: '%s' }", ca);
        g_autofree char *plan = small_plan (url, tls, 2);
        g_autoptr (JsonNode) root
            = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, NULL);

        g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
        g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
        g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
        g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 1);
    }
}

/* Without tls.ca_file the system trust store does not know the test CA. */
static void
test_system_trust (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&(ThrongTestNginxConfig){
        .https = TRUE,
    });
    g_autofree char *plan = NULL;
    g_autoptr (JsonNode) root = NULL;

    if (nginx == NULL)
        return;
    plan = small_plan (throng_test_nginx_https_url (nginx), "{ verify: true }", 1);
    root = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, NULL);
    g_assert_cmpint (throng_test_json_int (root, "total.errors_by_class.certificate"), ==, 1);
}

static void
test_client_certificate (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestCerts) certs = throng_test_certs_new (fixture->dir, &error);
    g_autoptr (ThrongTestNginx) nginx = NULL;

    g_assert_no_error (error);
    nginx = throng_test_nginx_require (&(ThrongTestNginxConfig){
        .https = TRUE,
        .cert_file = certs->server_cert,
        .key_file = certs->server_key,
        .client_ca_file = certs->ca_cert,
    });
    if (nginx == NULL)
        return;

    for (guint with_cert = 0; with_cert < 2; with_cert++) {
        g_autofree char *tls
            = with_cert ? g_strdup_printf ("{ ca_file: '%s', cert_file: '%s', key_file: '%s' }",
                                           certs->ca_cert, certs->client_cert, certs->client_key)
                        : g_strdup_printf ("{ ca_file: '%s' }", certs->ca_cert);
        g_autofree char *plan = small_plan (throng_test_nginx_https_url (nginx), tls, 4);
        g_autofree char *err = NULL;
        g_autoptr (JsonNode) root
            = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);

        throng_test_assert_no_glib_noise (err);
        g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
        if (with_cert) {
            g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
        } else {
            /* nginx answers 400 "No required SSL certificate was sent". */
            g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 4);
        }
    }
}

/* A priority string GnuTLS refuses is a plan error, before any load. */
static void
test_bad_priority (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *plan_text
        = small_plan ("https://127.0.0.1:9", "{ priority: 'NORMAL:+NOPE' }", 1);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", plan_text);
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, NULL, &err, "validate", plan, NULL);

    g_assert_cmpint (status, ==, 2);
    g_assert_nonnull (strstr (err, "priority"));
}

/* The group nginx says the key exchange used ($ssl_curve), through the
 * default priority, GnuTLS's own NORMAL, and a server without X25519. */
typedef struct {
    const char *tls;      /* tls options beside ca_file; "" for none */
    const char *server;   /* nginx http-level directives; NULL for none */
    const char *body;     /* what a check of /curve's body asks for */
    guint check_failures; /* of ITERATIONS */
} KeyShareCase;

static void
test_key_share (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const KeyShareCase *c = data;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&(ThrongTestNginxConfig){
        .https = TRUE,
        /* TLS 1.2's ECDHE would name a group too, without a key share. */
        .ssl_protocols = "TLSv1.3",
        .http_extra = c->server,
        .locations = "location = /curve { return 200 \"$ssl_curve\\n\"; }",
    });
    g_autofree char *http = NULL;
    g_autofree char *steps = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;

    if (nginx == NULL)
        return;
    http = g_strdup_printf ("tls: { ca_file: '%s'%s }", throng_test_nginx_certs (nginx)->ca_cert,
                            c->tls);
    steps = g_strdup_printf ("      - http: { url: /curve, check: [ { body_contains: '%s' } ] }\n",
                             c->body);
    plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "key-share",
        .transport = "fast",
        .base_url = throng_test_nginx_https_url (nginx),
        .http = http,
        .scenario = "curve",
        .users = 1,
        .iterations = ITERATIONS,
        .steps = steps,
    });
    root = throng_test_run_summary (fixture->dir, plan, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, c->check_failures);
    g_assert_cmpint (throng_test_summary_class (root, "total", "check"), ==, c->check_failures);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 1);
}

static const KeyShareCase key_share_cases[] = {
    /* The default: X25519, as browsers, curl, Go and Java send. */
    { "", NULL, "X25519", 0 },
    /* A check that can fail: the same run, asked for P-256. */
    { "", NULL, "prime256v1", ITERATIONS },
    /* GnuTLS's own NORMAL puts P-256 first. */
    { ", priority: NORMAL", NULL, "prime256v1", 0 },
    /* A server without X25519 asks for P-256 in a HelloRetryRequest. */
    { "", "ssl_ecdh_curve prime256v1;", "prime256v1", 0 },
};

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/tls/store/per-thread", test_store_per_thread);
    g_test_add_func ("/tls/store/per-thread-concurrent", test_store_per_thread_concurrent);
    g_test_add_func ("/tls/store/global", test_store_global);
    g_test_add_func ("/tls/store/per-iteration", test_store_per_iteration);
    g_test_add_func ("/tls/store/no-resumption", test_store_no_resumption);

#define ADD(path, fn, data)                                                                        \
    g_test_add (path, ThrongTestTmpdir, data, throng_test_tmpdir_setup, fn,                        \
                throng_test_tmpdir_teardown)
    for (guint i = 0; i < G_N_ELEMENTS (policy_cases); i++) {
        const PolicyCase *c = &policy_cases[i];
        g_autofree char *path = g_strdup_printf (
            "/tls/policy/%s/%s%s%s%s", strcmp (c->protocol, "TLSv1.2") == 0 ? "tls12" : "tls13",
            c->policy, c->keep_alive ? "" : "/close", c->resumption ? "" : "/no-resumption",
            c->no_tickets ? "/session-id" : "");
        ADD (path, test_policy, c);
    }

    ADD ("/tls/certificate/wrong-host", test_bad_certificate, GINT_TO_POINTER (CERT_WRONG_HOST));
    ADD ("/tls/certificate/expired", test_bad_certificate, GINT_TO_POINTER (CERT_EXPIRED));
    ADD ("/tls/certificate/self-signed", test_bad_certificate, GINT_TO_POINTER (CERT_SELF_SIGNED));
    ADD ("/tls/certificate/valid", test_good_certificate, NULL);
    ADD ("/tls/certificate/system-trust", test_system_trust, NULL);
    ADD ("/tls/certificate/client", test_client_certificate, NULL);
    ADD ("/tls/priority/invalid", test_bad_priority, NULL);
    ADD ("/tls/key-share/default", test_key_share, &key_share_cases[0]);
    ADD ("/tls/key-share/check-fails", test_key_share, &key_share_cases[1]);
    ADD ("/tls/key-share/normal", test_key_share, &key_share_cases[2]);
    ADD ("/tls/key-share/retry", test_key_share, &key_share_cases[3]);
#undef ADD

    return g_test_run ();
}
