/* SPDX-License-Identifier: MIT */
/*
 * Integration tests of the http plugin's `soup` transport: the real
 * `throng` binary runs plans with `transport: soup` against an in-process
 * SoupServer (HTTP and HTTPS, on its own thread, 127.0.0.1, ephemeral
 * ports), and the summary it writes (--out json) is checked against what
 * the server counted: requests, connections, bytes, bodies and headers
 * received; and what is soup's own: TLS through GIO (verify off, the
 * system store, sessions per iteration, client certificates), the notes
 * `validate` prints and the plan errors.  What both transports must agree
 * on (redirects, expect_status, the body limit, keep_alive: false,
 * refused ports, DNS, timeouts, bad certificates) is the conformance
 * suite's: tests/integration/test-conformance.c.
 */
#include <string.h>
#include <libsoup/soup.h>

#include "test-utils.h"

#define RUN_TIMEOUT_S 60

/* ------------------------------------------------------------------ */
/* The server                                                          */

/* What the handler saw, on the server's thread, behind a lock. */
typedef struct {
    ThrongTestSoupServer *soup;

    GMutex lock;
    guint requests;
    GHashTable *peers; /* "address:port" of each client connection seen */
    char *last_method;
    char *last_body;
    char *last_content_type;
    char *last_custom;
} TestServer;

static void
handle (SoupServer *soup_server, SoupServerMessage *message, const char *path, GHashTable *query,
        gpointer data)
{
    TestServer *server = data;
    GInetSocketAddress *peer
        = G_INET_SOCKET_ADDRESS (soup_server_message_get_remote_address (message));
    g_autofree char *address = g_inet_address_to_string (g_inet_socket_address_get_address (peer));
    SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
    SoupMessageBody *body = soup_server_message_get_request_body (message);

    g_mutex_lock (&server->lock);
    server->requests++;
    g_hash_table_add (server->peers,
                      g_strdup_printf ("%s:%u", address, g_inet_socket_address_get_port (peer)));
    if (strcmp (path, "/echo") == 0) {
        g_free (server->last_method);
        g_free (server->last_body);
        g_free (server->last_content_type);
        g_free (server->last_custom);
        server->last_method = g_strdup (soup_server_message_get_method (message));
        server->last_body = g_strndup (body->data, body->length);
        server->last_content_type
            = g_strdup (soup_message_headers_get_one (headers, "Content-Type"));
        server->last_custom = g_strdup (soup_message_headers_get_one (headers, "X-Custom"));
    }
    g_mutex_unlock (&server->lock);

    if (g_str_has_prefix (path, "/bytes/")) {
        gsize n = (gsize)atoi (path + 7);
        soup_server_message_set_status (message, 200, NULL);
        soup_server_message_set_response (message, "application/octet-stream", SOUP_MEMORY_TAKE,
                                          g_malloc0 (n), n);
    } else {
        soup_server_message_set_status (message, 200, NULL);
        if (strcmp (path, "/echo") == 0)
            soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_COPY, body->data,
                                              (gsize)body->length);
        else
            soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "ok\n", 3);
    }
}

/* Starts a server; with @cert_file, HTTPS too (with that certificate and key). */
static TestServer *
test_server_start (const char *cert_file, const char *key_file)
{
    TestServer *server = g_new0 (TestServer, 1);
    g_autoptr (GTlsCertificate) certificate = NULL;
    g_autoptr (GError) error = NULL;

    g_mutex_init (&server->lock);
    server->peers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    if (cert_file != NULL) {
        certificate = g_tls_certificate_new_from_files (cert_file, key_file, &error);
        g_assert_no_error (error);
    }
    server->soup = throng_test_soup_server_start (certificate, handle, server);
    return server;
}

static void
test_server_stop (TestServer *server)
{
    if (server == NULL)
        return;
    /* First, so that no handler runs any more. */
    throng_test_soup_server_stop (server->soup);
    g_hash_table_unref (server->peers);
    g_free (server->last_method);
    g_free (server->last_body);
    g_free (server->last_content_type);
    g_free (server->last_custom);
    g_mutex_clear (&server->lock);
    g_free (server);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestServer, test_server_stop)

static const char *
http_url (TestServer *server)
{
    return throng_test_soup_server_http_url (server->soup);
}

static const char *
https_url (TestServer *server)
{
    return throng_test_soup_server_https_url (server->soup);
}

static guint
server_requests (TestServer *server)
{
    g_mutex_lock (&server->lock);
    guint n = server->requests;
    g_mutex_unlock (&server->lock);
    return n;
}

static guint
server_connections (TestServer *server)
{
    g_mutex_lock (&server->lock);
    guint n = g_hash_table_size (server->peers);
    g_mutex_unlock (&server->lock);
    return n;
}

/* ------------------------------------------------------------------ */
/* Running plans                                                       */

typedef struct {
    char *dir;
    ThrongTestCerts *certs;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;

    fixture->dir = throng_test_tmpdir_new ();
    fixture->certs = throng_test_certs_new (fixture->dir, &error);
    g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    throng_test_certs_free (fixture->certs);
    throng_test_tmpdir_free (fixture->dir);
}

/*
 * Runs a one-scenario plan with transport soup against @base_url (may be
 * NULL): @http is more of its http map (may be NULL), @steps its steps
 * (YAML lines, already indented).  Asserts the run completed and returns
 * its summary.
 */
static JsonNode *
run_plan (Fixture *fixture, guint users, guint iterations, const char *base_url, const char *http,
          const char *steps)
{
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "soup-test",
        .transport = "soup",
        .base_url = base_url,
        .http = http,
        .users = users,
        .iterations = iterations,
        .steps = steps,
    });
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_summary (fixture->dir, yaml, NULL, RUN_TIMEOUT_S, 0, &err);

    throng_test_assert_no_glib_noise (err);
    return root;
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

static void
test_http_counts (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server = test_server_start (NULL, NULL);
    g_autoptr (JsonNode) root = run_plan (fixture, 4, 5, http_url (server), NULL,
                                          "      - http: { url: / }\n"
                                          "      - http: { url: /bytes/1000 }\n");

    /* users × iterations × steps, by both sides; one kept-alive connection per user. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 40);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (server_requests (server), ==, 40);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 4);
    g_assert_cmpuint (server_connections (server), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), >, 20 * 1000);
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_sent"), >, 40 * 30);
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.1.label"), ==,
                     "GET /bytes/1000");
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.bytes_received"), >=,
                     20 * 1000);
}

static void
test_post_body_headers (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server = test_server_start (NULL, NULL);
    g_autofree char *base_url = g_strdup_printf ("%s/", http_url (server));
    g_autoptr (JsonNode) root
        = run_plan (fixture, 1, 1, base_url, NULL,
                    "      - name: add to cart\n"
                    "        http:\n"
                    "          method: post\n"
                    "          url: echo\n"
                    "          body: '{\"id\": 7}'\n"
                    "          headers: { Content-Type: application/json, X-Custom: 'a b' }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.0.label"), ==,
                     "add to cart");
    g_assert_cmpstr (server->last_method, ==, "POST");
    g_assert_cmpstr (server->last_body, ==, "{\"id\": 7}");
    g_assert_cmpstr (server->last_content_type, ==, "application/json");
    g_assert_cmpstr (server->last_custom, ==, "a b");
}

static void
test_body_file (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server = test_server_start (NULL, NULL);
    g_free (throng_test_write_file (fixture->dir, "body.txt", "line 1\nline 2\n"));
    /* A path relative to the plan's directory; the step's header overrides the defaults'. */
    g_autoptr (JsonNode) root
        = run_plan (fixture, 1, 2, http_url (server), "headers: { X-Custom: scenario }",
                    "      - http: { method: PUT, url: /echo, body_file: "
                    "body.txt, headers: { x-custom: step } }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpstr (server->last_method, ==, "PUT");
    g_assert_cmpstr (server->last_body, ==, "line 1\nline 2\n");
    g_assert_cmpstr (server->last_custom, ==, "step");
}

static void
test_https_verify_off (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server
        = test_server_start (fixture->certs->self_signed_cert, fixture->certs->self_signed_key);
    g_autoptr (JsonNode) root = run_plan (fixture, 3, 4, https_url (server),
                                          "tls: { verify: false }", "      - http: { url: / }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 12);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (server_requests (server), ==, 12);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.handshake_us.max"), >, 0);
}

static void
test_https_ca_file (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server
        = test_server_start (fixture->certs->server_cert, fixture->certs->server_key);
    g_autofree char *http = g_strdup_printf ("tls: { ca_file: '%s' }", fixture->certs->ca_cert);
    g_autoptr (JsonNode) root
        = run_plan (fixture, 2, 3, https_url (server), http, "      - http: { url: / }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (server_requests (server), ==, 6);
}

static void
test_https_per_iteration (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server
        = test_server_start (fixture->certs->server_cert, fixture->certs->server_key);
    g_autofree char *http = g_strdup_printf ("tls: { ca_file: '%s', session: per-iteration }",
                                             fixture->certs->ca_cert);
    g_autoptr (JsonNode) root = run_plan (fixture, 2, 3, https_url (server), http,
                                          "      - http: { url: / }\n"
                                          "      - http: { url: / }\n");

    /* A new connection, and a handshake, at every iteration; the second step reuses it. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 12);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 6);
    g_assert_cmpuint (server_connections (server), ==, 6);
}

/*
 * A self-signed certificate, checked against the system's store (no
 * ca_file): soup's own store, a `certificate` failure before any request.
 * Expired, wrong-host and self-signed against a CA are the conformance
 * suite's (fault/certificate-*).
 */
static void
test_https_system_store (Fixture *fixture, gconstpointer data)
{
    g_autoptr (TestServer) server = test_server_start (fixture->certs->self_signed_cert,
                                                       fixture->certs->self_signed_key);
    g_autoptr (JsonNode) root
        = run_plan (fixture, 1, 2, https_url (server), NULL, "      - http: { url: / }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_cmpint (throng_test_summary_class (root, "total", "certificate"), ==, 2);
    g_assert_cmpuint (server_requests (server), ==, 0);
}

/*
 * data: "with" offers the client certificate nginx requires, "without"
 * does not (nginx then answers 400).  nginx, not the in-process server:
 * SoupServer 3.2 drops every handshake that carries a client certificate.
 */
static void
test_client_certificate (Fixture *fixture, gconstpointer data)
{
    const ThrongTestCerts *certs = fixture->certs;
    gboolean with = strcmp (data, "with") == 0;
    ThrongTestNginxConfig config = {
        .https = TRUE,
        .cert_file = certs->server_cert,
        .key_file = certs->server_key,
        .client_ca_file = certs->ca_cert,
    };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    ThrongTestNginxLog log;

    if (nginx == NULL)
        return;

    g_autofree char *client = with ? g_strdup_printf (", cert_file: '%s', key_file: '%s'",
                                                      certs->client_cert, certs->client_key)
                                   : g_strdup ("");
    g_autofree char *http = g_strdup_printf ("tls: { ca_file: '%s'%s }", certs->ca_cert, client);
    g_autoptr (JsonNode) root = run_plan (fixture, 1, 2, throng_test_nginx_https_url (nginx), http,
                                          "      - http: { url: / }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_true (throng_test_nginx_log_wait (nginx, 2, 5000, &log));
    g_assert_cmpuint (log.lines, ==, 2);
    if (with) {
        g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
        g_assert_cmpuint (log.status_2xx, ==, 2);
    } else {
        g_assert_cmpint (throng_test_summary_class (root, "total", "status"), ==, 2);
        g_assert_cmpuint (log.status_2xx, ==, 0);
    }
}

static void
test_validate_notes (Fixture *fixture, gconstpointer data)
{
    g_autofree char *plan
        = throng_test_write_plan (fixture->dir, "notes.yaml",
                                  "name: notes\n"
                                  "scenarios:\n"
                                  "  - name: s\n"
                                  "    users: 1\n"
                                  "    iterations: 1\n"
                                  "    http: { transport: soup, base_url: 'https://127.0.0.1:1', "
                                  "tls: { session: global, resumption: false } }\n"
                                  "    steps:\n"
                                  "      - http: { url: / }\n");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT_S, &out, &err, "validate", plan, NULL);
    g_autofree char *all = g_strconcat (out, err, NULL);

    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (all, "global behaves as per-thread"));
    g_assert_nonnull (strstr (all, "every TLS connection it opens counts as a full handshake"));
    g_assert_nonnull (strstr (all, "tls.resumption: false is not honoured"));
}

/* data: "YAML for the scenario's http map|YAML step|expected message fragment". */
static void
test_plan_error (Fixture *fixture, gconstpointer data)
{
    g_auto (GStrv) parts = g_strsplit (data, "|", 3);
    g_autofree char *yaml = g_strdup_printf ("name: bad\n"
                                             "scenarios:\n"
                                             "  - name: s\n"
                                             "    users: 1\n"
                                             "    iterations: 1\n"
                                             "    http: { transport: soup%s%s }\n"
                                             "    steps:\n"
                                             "      - http: { %s }\n",
                                             *parts[0] ? ", " : "", parts[0], parts[1]);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "bad.yaml", yaml);
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT_S, NULL, &err, "validate", plan, NULL);

    g_assert_cmpint (status, ==, 2);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (strstr (err, "bad.yaml:"));
    if (strstr (err, parts[2]) == NULL)
        g_error ("expected '%s' in: %s", parts[2], err);
}

int
main (int argc, char **argv)
{
    static const char *const plan_errors[][2] = {
        { "relative-url", "|url: /x|url '/x' is relative and no base_url is set" },
        { "base-url-scheme", "base_url: 'ftp://h'|url: /|base_url 'ftp://h' is not an absolute" },
        { "url-scheme", "|url: 'ftp://h/'|is not http:// or https://" },
        { "method", "|url: 'http://h/', method: 'G T'|is not a valid HTTP method" },
        { "expect", "|url: 'http://h/', expect_status: 2xy|'2xy' is not a status" },
        { "expect-range", "|url: 'http://h/', expect_status: 299-200|not a status range" },
        { "header-name", "|url: 'http://h/', headers: { 'a b': c }|not a valid header name" },
        { "ca-file", "tls: { ca_file: missing.pem }|url: 'https://h/'|cannot read 'missing.pem'" },
        { "cert-without-key", "tls: { cert_file: bad.yaml }|url: 'https://h/'|needs tls.key_file" },
        { "ca-not-pem", "tls: { ca_file: bad.yaml }|url: 'https://h/'|bad.yaml" },
        { "body-both", "|url: 'http://h/', body: x, body_file: bad.yaml|exclude each other" },
        { "body-file", "|url: 'http://h/', body_file: nope.bin|cannot read 'nope.bin'" },
        { "in-step", "|url: 'http://h/', keep_alive: false|is a scenario setting" },
        { "priority", "tls: { priority: 'NORMAL:+NOPE' }|url: 'https://h/'|priority" },
        { "no-url", "|method: GET|needs a url" },
    };

    g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, data)                                                                        \
    g_test_add ("/http-soup/" path, Fixture, data, fixture_setup, fn, fixture_teardown)
    ADD ("http/counts", test_http_counts, NULL);
    ADD ("http/post-body-headers", test_post_body_headers, NULL);
    ADD ("http/body-file", test_body_file, NULL);
    ADD ("https/verify-off", test_https_verify_off, NULL);
    ADD ("https/ca-file", test_https_ca_file, NULL);
    ADD ("https/per-iteration", test_https_per_iteration, NULL);
    ADD ("https/client-certificate/with", test_client_certificate, "with");
    ADD ("https/client-certificate/without", test_client_certificate, "without");
    ADD ("https/certificate/system-store", test_https_system_store, NULL);
    ADD ("validate/notes", test_validate_notes, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (plan_errors); i++) {
        g_autofree char *path = g_strdup_printf ("/http-soup/plan/%s", plan_errors[i][0]);
        g_test_add (path, Fixture, plan_errors[i][1], fixture_setup, test_plan_error,
                    fixture_teardown);
    }
#undef ADD
    return g_test_run ();
}
