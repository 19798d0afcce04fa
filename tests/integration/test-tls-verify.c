/* SPDX-License-Identifier: MIT */
/*
 * A verdict on a server's certificate is never reused for another
 * certificate (plugins/http/fast/verified.h).  One HTTPS port whose
 * server changes its certificate from one connection to the next: good,
 * bad, good, bad (expired, another host's, self-signed).  One user runs
 * four iterations over a new connection each, without resumption, so
 * that every iteration is a full handshake on the same host:port: the
 * good ones pass, each bad one fails with class `certificate` and its own
 * message although the same host:port was just verified.  Both
 * transports, through the real binary.
 */
#include "test-utils.h"

#include <glib/gstdio.h>

#include <string.h>

#define RUN_TIMEOUT_S 60
#define ITERATIONS 4

typedef struct {
    char *dir;
    ThrongTestCerts *certs;
    GTlsCertificate *chain[2]; /* the certificate of even and of odd connections */
    gint accepted;             /* connections so far (atomic: the service's threads) */
    GSocketService *service;
    guint16 port;
    ThrongTestServerThread *thread;
} Fixture;

typedef struct {
    const char *name;
    gsize bad_cert; /* offsets into ThrongTestCerts */
    gsize bad_key;
    const char *message; /* what the fast transport says */
} BadCert;

static const BadCert bad_certs[] = {
    { "expired", G_STRUCT_OFFSET (ThrongTestCerts, expired_cert),
      G_STRUCT_OFFSET (ThrongTestCerts, expired_key), "certificate has expired" },
    { "wrong-host", G_STRUCT_OFFSET (ThrongTestCerts, wrong_host_cert),
      G_STRUCT_OFFSET (ThrongTestCerts, wrong_host_key),
      "certificate does not match the host name" },
    { "self-signed", G_STRUCT_OFFSET (ThrongTestCerts, self_signed_cert),
      G_STRUCT_OFFSET (ThrongTestCerts, self_signed_key), "certificate issuer is not trusted" },
};

typedef struct {
    const BadCert *bad;
    const char *transport;
} Case;

static const char *const transports[] = { "fast", "soup" };
static Case cases[G_N_ELEMENTS (transports) * G_N_ELEMENTS (bad_certs)];

/* On one of the service's threads: the handshake with this connection's
 * certificate, then one answer and close. */
static gboolean
serve (GThreadedSocketService *service, GSocketConnection *connection, GObject *source,
       gpointer data)
{
    Fixture *fixture = data;
    guint n = (guint)g_atomic_int_add (&fixture->accepted, 1);
    g_autoptr (GIOStream) tls = NULL;
    char head[4096];
    gsize got = 0;
    static const char answer[]
        = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

    tls = g_tls_server_connection_new (G_IO_STREAM (connection), fixture->chain[n % 2], NULL);
    if (tls == NULL || !g_tls_connection_handshake (G_TLS_CONNECTION (tls), NULL, NULL))
        return TRUE; /* the client refused the certificate, as it must for a bad one */
    GInputStream *in = g_io_stream_get_input_stream (tls);
    while (got < sizeof head - 1) {
        gssize r = g_input_stream_read (in, head + got, sizeof head - 1 - got, NULL, NULL);
        if (r <= 0)
            return TRUE;
        got += r;
        head[got] = '\0';
        if (strstr (head, "\r\n\r\n") != NULL)
            break;
    }
    g_output_stream_write_all (g_io_stream_get_output_stream (tls), answer, sizeof answer - 1, NULL,
                               NULL, NULL);
    g_io_stream_close (tls, NULL, NULL);
    return TRUE;
}

/* On the server thread, so that the listener's source belongs to its context. */
static void
service_start (gpointer data, gpointer unused)
{
    Fixture *fixture = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;

    fixture->service = g_threaded_socket_service_new (4);
    g_assert_true (g_socket_listener_add_address (G_SOCKET_LISTENER (fixture->service), any,
                                                  G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                                  &bound, &error));
    g_assert_no_error (error);
    fixture->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_signal_connect (fixture->service, "run", G_CALLBACK (serve), fixture);
    g_socket_service_start (fixture->service);
}

static void
service_stop (gpointer data, gpointer unused)
{
    Fixture *fixture = data;

    g_socket_service_stop (fixture->service);
    g_socket_listener_close (G_SOCKET_LISTENER (fixture->service));
    g_clear_object (&fixture->service);
}

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    const Case *c = data;
    g_autoptr (GError) error = NULL;
    g_autofree char *pki = NULL;
    const char *bad_cert;

    fixture->dir = throng_test_tmpdir_new ();
    pki = g_build_filename (fixture->dir, "pki", NULL);
    g_assert_no_errno (g_mkdir (pki, 0700));
    fixture->certs = throng_test_certs_new (pki, &error);
    g_assert_no_error (error);
    bad_cert = G_STRUCT_MEMBER (const char *, fixture->certs, c->bad->bad_cert);
    fixture->chain[0] = g_tls_certificate_new_from_files (fixture->certs->server_cert,
                                                          fixture->certs->server_key, &error);
    g_assert_no_error (error);
    fixture->chain[1] = g_tls_certificate_new_from_files (
        bad_cert, G_STRUCT_MEMBER (const char *, fixture->certs, c->bad->bad_key), &error);
    g_assert_no_error (error);
    fixture->thread
        = throng_test_server_thread_start ("tls-verify", service_start, service_stop, fixture);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    g_clear_pointer (&fixture->thread, throng_test_server_thread_stop);
    g_clear_object (&fixture->chain[0]);
    g_clear_object (&fixture->chain[1]);
    g_clear_pointer (&fixture->certs, throng_test_certs_free);
    throng_test_tmpdir_free (g_steal_pointer (&fixture->dir));
}

static void
test_changed_certificate (Fixture *fixture, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u", fixture->port);
    g_autofree char *http = g_strdup_printf (
        "keep_alive: false, tls: { ca_file: \"%s\", resumption: false }", fixture->certs->ca_cert);
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "changed-certificate",
        .transport = c->transport,
        .base_url = url,
        .http = http,
        .iterations = ITERATIONS,
        .steps = "      - http: { url: / }\n",
    });
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    const char *extra[] = { "--out", csv_arg, NULL };
    g_autofree char *err = NULL;
    g_autofree char *rows = NULL;
    g_autoptr (JsonNode) root = NULL;

    g_test_message ("plan:\n%s", yaml);
    root = throng_test_run_summary (fixture->dir, yaml, extra, RUN_TIMEOUT_S, 0, &err);
    g_test_message ("stderr:\n%s", err);
    throng_test_assert_no_glib_noise (err);

    /* Every iteration a handshake of its own: good, bad, good, bad. */
    g_assert_cmpint (g_atomic_int_get (&fixture->accepted), ==, ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, ITERATIONS);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, ITERATIONS / 2);
    g_assert_cmpint (throng_test_summary_class (root, "total", "certificate"), ==, ITERATIONS / 2);

    g_assert_true (g_file_get_contents (csv, &rows, NULL, NULL));
    g_test_message ("samples:\n%s", rows);
    if (strcmp (c->transport, "fast") == 0) {
        g_autofree char *failure = g_strconcat (",certificate: ", c->bad->message, ",", NULL);
        guint n = 0;
        for (const char *p = strstr (rows, failure); p != NULL; p = strstr (p + 1, failure))
            n++;
        g_assert_cmpuint (n, ==, ITERATIONS / 2);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        for (gsize i = 0; i < G_N_ELEMENTS (bad_certs); i++) {
            Case *c = &cases[t * G_N_ELEMENTS (bad_certs) + i];
            g_autofree char *path = g_strdup_printf ("/tls-verify/%s/changed-to-%s", transports[t],
                                                     bad_certs[i].name);

            c->bad = &bad_certs[i];
            c->transport = transports[t];
            g_test_add (path, Fixture, c, fixture_setup, test_changed_certificate,
                        fixture_teardown);
        }
    }
    return g_test_run ();
}
