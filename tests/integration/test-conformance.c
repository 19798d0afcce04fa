/* SPDX-License-Identifier: MIT */
/*
 * The two http transports agree, over HTTP/1.1 and HTTP/2.  One table of
 * cases — every redirect code with and without a body, redirects to
 * another scheme, host and port, a loop, a missing, relative, invalid or
 * non-http Location, max_redirects reached, cookies across hosts and
 * beside a step's own Cookie header, kept per user, per iteration or not
 * at all, and set by a step's `cookies:`, credentials from `auth:` and a
 * url (and left behind on a redirect to another origin), content codings
 * (decoded for the checks, corrupt, cut, a bomb), expect_status,
 * connections per user and with keep_alive: false, responses later
 * than the step's timeout, a name that does not resolve, and every
 * fault of the fault suite — each run by the real
 * throng binary with `transport: fast` and `transport: soup`, over
 * HTTP/1.1, over h2 (ALPN) and, on fast, over h2c (the version is one
 * more dimension of each run, `runs` below).  Each run must give the
 * case's expected outcome (success, error class, status and, where the
 * shared code writes it, the message), and the redirect server must have
 * seen the same requests (method, path, body length, Cookie) from every
 * run, each over the protocol the run asked for.  Where the transports or
 * versions legitimately differ, the case says so (`soup_klass` and
 * `soup_message` where libsoup decides, asserted as they are, so that a
 * libsoup update that changes them is noticed; `below_http`) and
 * docs/failure-modes.md ("Where libsoup decides") and docs/http.md
 * ("Where the transports differ") say why.
 */
#include "fault-server.h"
#include "h2-server.h"
#include "test-utils.h"

#include <brotli/encode.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <libsoup/soup.h>
#include <string.h>
#include <zlib.h>
#ifdef HTTP_HAVE_ZSTD
#include <zstd.h>
#endif

#define RUN_TIMEOUT_S 60
/* Timers fire late on a loaded two-core machine: a generous upper slack. */
#define SLACK_MS 1500

/* ------------------------------------------------------------------ */
/* The redirect server: one route function, two servers               */

/*
 * libsoup 3.2's SoupServer serves HTTP/2 only behind a private switch
 * (soup_server_set_http2_enabled, not exported) and never h2c, so the
 * same routes are served over HTTP/1.1 by tests/lib/soup-server.h and
 * over HTTP/2 by tests/lib/h2-server.h, both calling route().
 *
 * Paths:
 *   /r/CODE/KIND  answers CODE with a Location chosen by KIND: rel (/final),
 *                 abs, none, ftp, bad (not a URL), nohost, host (localhost),
 *                 port (the other server of the same scheme), https (the
 *                 TLS port: another scheme from an http:// run, the same
 *                 from an https:// one), slow (/delay/3000);
 *   /loop         302 to itself;  /chain/N  302 to /chain/N-1, /chain/0 to /final;
 *   /cookie/same  sets c=1 and 302 to /final;  /cookie/host  sets c=1 and
 *                 302 to localhost;  /cookie/two  sets c=1 and d=2 (two
 *                 fields) and 302 to /final;
 *   /delay/MS     200 "ok" MS milliseconds later;
 *   /stall-body   200 and its head, then never the body;
 *   /large        200 with LARGE_RESPONSE_SIZE bytes of body;
 *   /final        200 "ok";  /close-seen  the same, its log line ending in
 *                 " close" when the request said Connection: close;
 *   /coded/NAME   200 with one of coded_bodies[] and its Content-Encoding,
 *                 whatever the request's Accept-Encoding, which the log
 *                 line ends with (" ae=VALUE") when the request had one.
 * Every request is logged as "METHOD PATH BODY-LENGTH COOKIE\tPROTOCOL\n"
 * (COOKIE "-" when none, followed by " auth=VALUE" when the request had
 * an Authorization field; PROTOCOL "HTTP/1.1" or "HTTP/2", as served), so
 * a test compares what each transport and version sent, and proves which
 * protocol carried it.
 */
typedef enum { SITE_H1, SITE_H2, N_SITES } SiteKind;

/* The ports of one protocol's servers: two per scheme. */
typedef struct {
    guint16 http_port, second_http_port;
    guint16 https_port, second_https_port;
} Site;

typedef struct {
    ThrongTestSoupServer *soup[2]; /* HTTP and HTTPS each */
    ThrongTestH2Server *h2c[2];    /* h2c (prior knowledge) */
    ThrongTestH2Server *h2[2];     /* h2 over TLS (ALPN) */
    Site sites[N_SITES];
    GMutex lock;
    GString *log;
} RedirectServer;

/* Where an h2 server's handler is: its site, scheme and port. */
typedef struct {
    RedirectServer *server;
    const Site *site;
    gboolean tls;
    guint16 port;
} H2Listener;

static RedirectServer redirect_server;

#define LARGE_RESPONSE_SIZE 100000
static char large_response[LARGE_RESPONSE_SIZE + 1]; /* filled before the servers start */
static H2Listener h2_listeners[4];

/* The JSON every well-coded body of /coded/ decodes to. */
#define CODED_JSON "{\"token\": \"abc123\", \"pad\": \"" \
    "throng throng throng throng throng throng throng throng throng throng\"}"
#define BOMB_SIZE (4 * 1024 * 1024)

/* A body as it goes on the wire under its Content-Encoding; made before the servers start. */
typedef struct {
    const char *name;
    const char *encoding;
    GBytes *body;
} CodedBody;

static CodedBody coded_bodies[] = {
    { "gzip", "gzip" },
    { "x-gzip", "x-gzip" },
    { "deflate", "deflate" },
    { "deflate-raw", "deflate" },
    { "br", "br" },
#ifdef HTTP_HAVE_ZSTD
    { "zstd", "zstd" },
#endif
    { "gzip-then-br", "gzip, br" },
    { "gzip-corrupt", "gzip" },
    { "gzip-cut", "gzip" },
    { "br-corrupt", "br" },
    { "gzip-bomb", "gzip" },
    { "unknown", "compress" },
};

static GBytes *
zlib_encode (const char *data, gsize len, int bits)
{
    z_stream z = { 0 };
    gsize cap = compressBound ((uLong)len) + 64;
    guint8 *out = g_malloc (cap);

    g_assert_cmpint (deflateInit2 (&z, 9, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    g_assert_cmpint (deflate (&z, Z_FINISH), ==, Z_STREAM_END);
    deflateEnd (&z);
    return g_bytes_new_take (out, z.total_out);
}

static GBytes *
brotli_encode (const char *data, gsize len)
{
    size_t size = BrotliEncoderMaxCompressedSize (len) + 64;
    guint8 *out = g_malloc (size);

    g_assert_true (BrotliEncoderCompress (BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                                          BROTLI_MODE_TEXT, len, (const uint8_t *)data, &size, out));
    return g_bytes_new_take (out, size);
}

static void
coded_bodies_make (void)
{
    const char *json = CODED_JSON;
    gsize len = strlen (json);

    for (guint i = 0; i < G_N_ELEMENTS (coded_bodies); i++) {
        CodedBody *c = &coded_bodies[i];
        const char *name = c->name;

        if (strcmp (name, "gzip") == 0 || strcmp (name, "x-gzip") == 0)
            c->body = zlib_encode (json, len, 15 + 16);
        else if (strcmp (name, "deflate") == 0)
            c->body = zlib_encode (json, len, 15);
        else if (strcmp (name, "deflate-raw") == 0)
            c->body = zlib_encode (json, len, -15);
        else if (strcmp (name, "br") == 0)
            c->body = brotli_encode (json, len);
#ifdef HTTP_HAVE_ZSTD
        else if (strcmp (name, "zstd") == 0) {
            size_t cap = ZSTD_compressBound (len);
            guint8 *out = g_malloc (cap);
            size_t n = ZSTD_compress (out, cap, json, len, 3);
            g_assert_false (ZSTD_isError (n));
            c->body = g_bytes_new_take (out, n);
        }
#endif
        else if (strcmp (name, "gzip-then-br") == 0) {
            g_autoptr (GBytes) gz = zlib_encode (json, len, 15 + 16);
            c->body = brotli_encode (g_bytes_get_data (gz, NULL), g_bytes_get_size (gz));
        } else if (strcmp (name, "gzip-corrupt") == 0) {
            /* A valid gzip header, then a deflate block type that does not exist (3). */
            static const char bad[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff";
            c->body = g_bytes_new_static (bad, sizeof bad - 1);
        } else if (strcmp (name, "gzip-cut") == 0) {
            g_autoptr (GBytes) gz = zlib_encode (json, len, 15 + 16);
            c->body = g_bytes_new_from_bytes (gz, 0, g_bytes_get_size (gz) / 2);
        } else if (strcmp (name, "br-corrupt") == 0) {
            c->body = g_bytes_new_static ("\xff\xff\xff\xff not brotli", 15);
        } else if (strcmp (name, "gzip-bomb") == 0) {
            g_autofree char *zeros = g_malloc0 (BOMB_SIZE);
            c->body = zlib_encode (zeros, BOMB_SIZE, 15 + 16);
        } else if (strcmp (name, "unknown") == 0) {
            c->body = g_bytes_new_static (json, len);
        }
        g_assert_nonnull (c->body);
    }
}

static const CodedBody *
coded_body (const char *name)
{
    for (guint i = 0; i < G_N_ELEMENTS (coded_bodies); i++)
        if (strcmp (coded_bodies[i].name, name) == 0)
            return &coded_bodies[i];
    return NULL;
}

static char *
location_for (const Site *site, gboolean tls, guint16 port, const char *kind)
{
    const char *scheme = tls ? "https" : "http";

    if (strcmp (kind, "rel") == 0)
        return g_strdup ("/final");
    if (strcmp (kind, "abs") == 0)
        return g_strdup_printf ("%s://127.0.0.1:%u/final", scheme, port);
    if (strcmp (kind, "ftp") == 0)
        return g_strdup ("ftp://127.0.0.1/final");
    if (strcmp (kind, "bad") == 0)
        return g_strdup ("http://[::1/final");
    if (strcmp (kind, "nohost") == 0)
        return g_strdup ("http:///final");
    if (strcmp (kind, "host") == 0)
        return g_strdup_printf ("%s://localhost:%u/final", scheme, port);
    if (strcmp (kind, "port") == 0)
        return g_strdup_printf (
            "%s://127.0.0.1:%u/final", scheme,
            tls ? (port == site->https_port ? site->second_https_port : site->https_port)
                : (port == site->http_port ? site->second_http_port : site->http_port));
    if (strcmp (kind, "https") == 0)
        return g_strdup_printf ("https://127.0.0.1:%u/final", site->https_port);
    if (strcmp (kind, "slow") == 0)
        return g_strdup ("/delay/3000");
    return NULL; /* "none" */
}

/*
 * The routes, for both servers: @exchange is the request, with the
 * answer to fill in; @protocol what carried it; @tls and @port the
 * listener it came to.
 */
static void
route (RedirectServer *server, const Site *site, gboolean tls, guint16 port, const char *protocol,
       ThrongTestH2Exchange *exchange)
{
    const char *path = exchange->path;
    SoupMessageHeaders *response = exchange->response_headers;
    g_autoptr (GString) cookies = g_string_new (NULL);
    g_autofree char *location = NULL;
    SoupMessageHeadersIter iter;
    const char *name, *value;

    /* Each Cookie field, so that two of them (RFC 6265 §5.4 allows one) show as "a | b". */
    soup_message_headers_iter_init (&iter, exchange->request_headers);
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        if (g_ascii_strcasecmp (name, "Cookie") != 0)
            continue;
        if (cookies->len > 0)
            g_string_append (cookies, " | ");
        g_string_append (cookies, value);
    }

    /* Credentials, where sent: after the cookies, so that lines without them read as before. */
    if ((value = soup_message_headers_get_one (exchange->request_headers, "Authorization")) != NULL)
        g_string_append_printf (cookies, "%s auth=%s", cookies->len > 0 ? "" : "-", value);

    if (g_str_has_prefix (path, "/coded/")) {
        const char *accept
            = soup_message_headers_get_one (exchange->request_headers, "Accept-Encoding");
        if (accept != NULL)
            g_string_append_printf (cookies, "%s ae=%s", cookies->len > 0 ? "" : "-", accept);
    }
    /* Only where asked: over HTTP/2 the field is never sent (header/connection). */
    if (strcmp (path, "/close-seen") == 0
        && soup_message_headers_header_contains (exchange->request_headers, "Connection", "close"))
        g_string_append (cookies, cookies->len > 0 ? " close" : "- close");

    g_mutex_lock (&server->lock);
    g_string_append_printf (server->log, "%s %s %" G_GSIZE_FORMAT " %s\t%s\n", exchange->method,
                            path, exchange->body_length, cookies->len > 0 ? cookies->str : "-",
                            protocol);
    g_mutex_unlock (&server->lock);

    exchange->status = 302;
    if (g_str_has_prefix (path, "/r/")) {
        const char *kind = strchr (path + 3, '/');
        exchange->status = (guint)g_ascii_strtoull (path + 3, NULL, 10);
        location = location_for (site, tls, port, kind != NULL ? kind + 1 : "none");
    } else if (strcmp (path, "/loop") == 0) {
        location = g_strdup ("/loop");
    } else if (g_str_has_prefix (path, "/chain/")) {
        int n = atoi (path + 7);
        location = n > 0 ? g_strdup_printf ("/chain/%d", n - 1) : g_strdup ("/final");
    } else if (g_str_has_prefix (path, "/cookie/")) {
        location = strcmp (path, "/cookie/host") == 0 ? location_for (site, tls, port, "host")
                                                      : g_strdup ("/final");
        soup_message_headers_append (response, "Set-Cookie", "c=1; Path=/");
        if (strcmp (path, "/cookie/two") == 0)
            soup_message_headers_append (response, "Set-Cookie", "d=2; Path=/");
    } else if (g_str_has_prefix (path, "/delay/")) {
        exchange->status = 200;
        exchange->delay_ms = (guint)g_ascii_strtoull (path + 7, NULL, 10);
        exchange->body = "ok\n";
    } else if (strcmp (path, "/stall-body") == 0) {
        exchange->status = 200;
        exchange->stall_body = TRUE;
    } else if (strcmp (path, "/large") == 0) {
        exchange->status = 200;
        exchange->body = large_response;
    } else if (g_str_has_prefix (path, "/coded/") && coded_body (path + 7) != NULL) {
        const CodedBody *coded = coded_body (path + 7);
        exchange->status = 200;
        exchange->body = g_bytes_get_data (coded->body, &exchange->body_size);
        soup_message_headers_replace (response, "Content-Encoding", coded->encoding);
        soup_message_headers_replace (response, "Content-Type", "application/json");
    } else if (strcmp (path, "/final") == 0 || strcmp (path, "/close-seen") == 0) {
        exchange->status = 200;
        exchange->body = "ok\n";
    } else {
        exchange->status = 404;
    }
    if (location != NULL)
        soup_message_headers_replace (response, "Location", location);
}

/* SoupServer's side: route() on an HTTP/1.x request. */
static void
soup_handle (SoupServer *soup, SoupServerMessage *message, const char *path, GHashTable *query,
             gpointer data)
{
    RedirectServer *server = data;
    GUri *uri = soup_server_message_get_uri (message);
    ThrongTestH2Exchange exchange = {
        .method = soup_server_message_get_method (message),
        .path = path,
        .request_headers = soup_server_message_get_request_headers (message),
        .body_length = (gsize)soup_server_message_get_request_body (message)->length,
        .response_headers = soup_server_message_get_response_headers (message),
    };

    route (server, &server->sites[SITE_H1], strcmp (g_uri_get_scheme (uri), "https") == 0,
           (guint16)g_uri_get_port (uri),
           soup_server_message_get_http_version (message) == SOUP_HTTP_1_0 ? "HTTP/1.0"
                                                                           : "HTTP/1.1",
           &exchange);
    if (exchange.delay_ms > 0) {
        throng_test_soup_server_respond_later (message, exchange.delay_ms, exchange.body);
        return;
    }
    /* Chunked with no chunk: libsoup writes the head and waits for a body that never comes. */
    if (exchange.stall_body)
        soup_message_headers_set_encoding (exchange.response_headers, SOUP_ENCODING_CHUNKED);
    soup_server_message_set_status (message, exchange.status, NULL);
    if (exchange.body != NULL) {
        /* A copy: setting the response replaces the header the type points into. */
        const char *type = soup_message_headers_get_content_type (exchange.response_headers, NULL);
        g_autofree char *content_type = g_strdup (type != NULL ? type : "text/plain");

        soup_server_message_set_response (
            message, content_type, SOUP_MEMORY_STATIC, exchange.body,
            exchange.body_size > 0 ? exchange.body_size : strlen (exchange.body));
    }
}

/* The nghttp2 server's side: route() on an HTTP/2 request. */
static void
h2_handle (ThrongTestH2Exchange *exchange, gpointer data)
{
    H2Listener *listener = data;

    route (listener->server, listener->site, listener->tls, listener->port, "HTTP/2", exchange);
    if (exchange->body != NULL
        && soup_message_headers_get_one (exchange->response_headers, "Content-Type") == NULL)
        soup_message_headers_replace (exchange->response_headers, "Content-Type", "text/plain");
}

static guint16
url_port (const char *url)
{
    g_autoptr (GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

    g_assert_nonnull (uri);
    g_assert_cmpint (g_uri_get_port (uri), >, 0);
    return (guint16)g_uri_get_port (uri);
}

static ThrongTestH2Server *
h2_server_start (RedirectServer *server, const ThrongTestCerts *certs, H2Listener *listener)
{
    g_autoptr (GError) error = NULL;
    ThrongTestH2Server *h2
        = certs != NULL
              ? throng_test_h2_server_new_tls (certs->server_cert, certs->server_key, &error)
              : throng_test_h2_server_new (&error);

    g_assert_no_error (error);
    listener->server = server;
    listener->site = &server->sites[SITE_H2];
    listener->tls = certs != NULL;
    listener->port = url_port (throng_test_h2_server_url (h2));
    throng_test_h2_server_set_handler (h2, h2_handle, listener);
    return h2;
}

/*
 * HTTP/1.1: two SoupServers, each over HTTP and HTTPS; HTTP/2: two h2c
 * and two h2 servers.  Ports are known before the first request, so
 * every handler reads its site unlocked.
 */
static void
redirect_server_start (RedirectServer *server, const ThrongTestCerts *certs)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GTlsCertificate) certificate
        = g_tls_certificate_new_from_files (certs->server_cert, certs->server_key, &error);
    Site *h1 = &server->sites[SITE_H1], *h2 = &server->sites[SITE_H2];

    g_assert_no_error (error);
    g_mutex_init (&server->lock);
    server->log = g_string_new (NULL);
    for (guint i = 0; i < 2; i++) {
        server->soup[i] = throng_test_soup_server_start (certificate, soup_handle, server);
        server->h2c[i] = h2_server_start (server, NULL, &h2_listeners[i]);
        server->h2[i] = h2_server_start (server, certs, &h2_listeners[2 + i]);
    }
    h1->http_port = url_port (throng_test_soup_server_http_url (server->soup[0]));
    h1->second_http_port = url_port (throng_test_soup_server_http_url (server->soup[1]));
    h1->https_port = url_port (throng_test_soup_server_https_url (server->soup[0]));
    h1->second_https_port = url_port (throng_test_soup_server_https_url (server->soup[1]));
    h2->http_port = h2_listeners[0].port;
    h2->second_http_port = h2_listeners[1].port;
    h2->https_port = h2_listeners[2].port;
    h2->second_https_port = h2_listeners[3].port;
}

static void
redirect_server_stop (RedirectServer *server)
{
    for (guint i = 0; i < 2; i++) {
        g_clear_pointer (&server->soup[i], throng_test_soup_server_stop);
        g_clear_pointer (&server->h2c[i], throng_test_h2_server_free);
        g_clear_pointer (&server->h2[i], throng_test_h2_server_free);
    }
    g_string_free (server->log, TRUE);
    g_mutex_clear (&server->lock);
}

/*
 * The requests logged since the last call, without their protocol,
 * each of which must be @protocol (NULL: not checked); (transfer full).
 */
static char *
redirect_server_take_log (RedirectServer *server, const char *protocol)
{
    g_autofree char *text = NULL;
    g_auto (GStrv) lines = NULL;
    GString *requests = g_string_new (NULL);

    g_mutex_lock (&server->lock);
    text = g_strdup (server->log->str);
    g_string_truncate (server->log, 0);
    g_mutex_unlock (&server->lock);

    lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        char *tab = strchr (lines[i], '\t');
        g_assert_nonnull (tab);
        *tab = '\0';
        if (protocol != NULL && strcmp (tab + 1, protocol) != 0)
            g_test_message ("%s came over %s, not %s", lines[i], tab + 1, protocol);
        if (protocol != NULL)
            g_assert_cmpstr (tab + 1, ==, protocol);
        g_string_append_printf (requests, "%s\n", lines[i]);
    }
    return g_string_free (requests, FALSE);
}

/* ------------------------------------------------------------------ */
/* The fault server (tests/lib/fault-server.c), as a child process     */

typedef enum {
    ON_REDIRECT,
    ON_HTTP,
    ON_HTTPS,
    ON_EXPIRED,
    ON_WRONG_HOST,
    ON_SELF_SIGNED,
    ON_TLS_DROP,
    ON_TLS_HANG,
    ON_BACKLOG,
    ON_RESET_ACCEPT,
    ON_CLOSED_HTTP,
    ON_CLOSED_HTTPS,
    ON_UNRESOLVABLE, /* a name in .invalid (RFC 6761 §6.4): no resolver answers it */
} Listener;

static ThrongTestFaultServer *fault_server;

/* Its listeners, in the order of the Listener values from ON_HTTP. */
static void
fault_server_start (const ThrongTestCerts *certs)
{
    g_autofree char *https = g_strdup_printf ("https:%s:%s", certs->server_cert, certs->server_key);
    g_autofree char *expired
        = g_strdup_printf ("https:%s:%s", certs->expired_cert, certs->expired_key);
    g_autofree char *wrong
        = g_strdup_printf ("https:%s:%s", certs->wrong_host_cert, certs->wrong_host_key);
    g_autofree char *self
        = g_strdup_printf ("https:%s:%s", certs->self_signed_cert, certs->self_signed_key);
    const char *listeners[] = { FAULT_KIND_HTTP,     https, expired, wrong, self, FAULT_KIND_TLS_DROP,
                                FAULT_KIND_TLS_HANG, FAULT_KIND_BACKLOG, FAULT_KIND_RESET_ACCEPT,
                                NULL };

    fault_server = throng_test_fault_server_start (listeners);
}

static guint16
fault_port (Listener on)
{
    return throng_test_fault_server_port (fault_server, on - ON_HTTP);
}

/*
 * The protocol of a run: HTTP/1.1 (over http:// for the redirect
 * server), h2 through ALPN over https://, or h2c by prior knowledge over
 * http://.
 */
typedef enum { PROTO_H1, PROTO_H2, PROTO_H2C } Proto;

static gboolean
listener_is_tls (Listener on)
{
    return on != ON_REDIRECT && on != ON_HTTP && on != ON_BACKLOG && on != ON_CLOSED_HTTP
           && on != ON_UNRESOLVABLE;
}

static char *
listener_url (Listener on, Proto proto)
{
    const Site *h2 = &redirect_server.sites[SITE_H2];

    switch (on) {
    case ON_REDIRECT:
        if (proto == PROTO_H2)
            return g_strdup_printf ("https://127.0.0.1:%u", h2->https_port);
        return g_strdup_printf ("http://127.0.0.1:%u",
                                proto == PROTO_H2C ? h2->http_port
                                                   : redirect_server.sites[SITE_H1].http_port);
    case ON_HTTP:
    case ON_BACKLOG:
        return g_strdup_printf ("http://127.0.0.1:%u", fault_port (on));
    case ON_CLOSED_HTTP:
        return g_strdup_printf ("http://127.0.0.1:%u", throng_test_free_port ());
    case ON_CLOSED_HTTPS:
        return g_strdup_printf ("https://127.0.0.1:%u", throng_test_free_port ());
    case ON_UNRESOLVABLE:
        return g_strdup ("http://nosuch.invalid");
    default:
        return g_strdup_printf ("https://127.0.0.1:%u", fault_port (on));
    }
}

/* ------------------------------------------------------------------ */
/* The cases                                                           */

typedef struct {
    const char *name;
    Listener on;
    const char *path;
    const char *step_extra; /* more options of the step: ", method: POST, body: hello" */
    const char *klass;      /* the sample's error class; NULL: success */
    guint status;           /* the sample's status (0: no response) */
    const char *message;  /* the sample's message, when shared code writes it; NULL: not compared */
    const char *requests; /* what the redirect server saw; NULL: not compared */
    const char *timeout;  /* the step's timeout; NULL: 5s */
    const char *connect_timeout; /* NULL: 5s */
    gint64 min_ms, max_ms;       /* bounds of the elapsed time, when max_ms > 0 */
    /*
     * Where libsoup decides, out of throng's sight, and soup differs
     * (docs/failure-modes.md, "Where libsoup decides"): soup's class,
     * SOUP_SUCCEEDS for a success, and its message when @soup_message is
     * set.  Asserted as they are today, so that a libsoup that decides
     * otherwise fails this test and the table is read again.
     */
    const char *soup_klass;
    guint iterations;       /* 0: 1; every sample must have the case's outcome */
    const char *think_time; /* NULL: none */
    gint64 connections;     /* connections opened in the run, when > 0; NONE_OPENED: none */
    gint64 retries;         /* requests sent again in the run, when > 0 */
    const char *soup_message; /* with @soup_klass: soup's message, asserted */
    /*
     * On fast, a summary warning that contains this; soup warns of none
     * (libsoup closes such connections without telling, docs/http.md).
     */
    const char *fast_warning;
    /*
     * Over HTTP/2: every case of the redirect server runs over h2 and
     * h2c too (each has an h2 meaning); the fault
     * server speaks HTTP/1.1 only, so one of its cases runs over h2 only
     * when its fault comes before any HTTP byte (@below_http: TCP or
     * TLS), over h2c on an http:// listener, h2 on an https:// one.
     */
    gboolean below_http;
    guint users;              /* 0: 1; each runs the iterations */
    const char *http;         /* more of defaults.http: "keep_alive: false"; NULL: none */
    /* Over HTTP/1.1 only: the case has no HTTP/2 meaning (or soup refuses it there). */
    gboolean http1_only;
    const char *userinfo; /* "user:password@" in the step's url; NULL: none */
} Case;

#define NONE_OPENED (-1)

#define SOUP_SUCCEEDS "(success)"

#define FOLLOW ", follow_redirects: true"
#define POST FOLLOW ", method: POST, body: hello"
#define PUT FOLLOW ", method: PUT, body: hello"
/* LARGE_BODY: test_case() writes it beside the plan. */
#define LARGE_BODY "large.bin"
#define LARGE_BODY_SIZE 200000
#define POST_LARGE FOLLOW ", method: POST, body_file: " LARGE_BODY
#define HEAD FOLLOW ", method: HEAD"
#define SCHEME_MESSAGE "redirect to a scheme other than http or https"

#define FINAL_5 "GET /final 0 -\nGET /final 0 -\nGET /final 0 -\nGET /final 0 -\nGET /final 0 -\n"
#define FINAL_20 FINAL_5 FINAL_5 FINAL_5 FINAL_5
#define CLOSE_1 "GET /close-seen 0 - close\n"
#define CLOSE_5 CLOSE_1 CLOSE_1 CLOSE_1 CLOSE_1 CLOSE_1

/* A step that reads the body: checks on its text and its JSON, and an extractor. */
#define READS_JSON                                                                        \
    ", check: [ { body_contains: abc123 }, { json: \"$.token\", equals: abc123 } ]," \
    " extract: { token: { json: \"$.pad\" } }"

/* The summary's warning of connections closed for bytes nobody asked for. */
#define UNSOLICITED "closed because the server sent bytes nobody asked for"

static const Case cases[] = {
    /* Each redirect code, without and with a body (RFC 9110 §15.4). */
    { "redirect/301-get", ON_REDIRECT, "/r/301/rel", FOLLOW, NULL, 200, "OK",
      "GET /r/301/rel 0 -\nGET /final 0 -\n" },
    { "redirect/301-post", ON_REDIRECT, "/r/301/rel", POST, NULL, 200, "OK",
      "POST /r/301/rel 5 -\nGET /final 0 -\n" },
    { "redirect/301-put", ON_REDIRECT, "/r/301/rel", PUT, NULL, 200, "OK",
      "PUT /r/301/rel 5 -\nPUT /final 5 -\n" },
    { "redirect/302-get", ON_REDIRECT, "/r/302/rel", FOLLOW, NULL, 200, "OK",
      "GET /r/302/rel 0 -\nGET /final 0 -\n" },
    { "redirect/302-post", ON_REDIRECT, "/r/302/rel", POST, NULL, 200, "OK",
      "POST /r/302/rel 5 -\nGET /final 0 -\n" },
    { "redirect/303-get", ON_REDIRECT, "/r/303/rel", FOLLOW, NULL, 200, "OK",
      "GET /r/303/rel 0 -\nGET /final 0 -\n" },
    { "redirect/303-post", ON_REDIRECT, "/r/303/rel", POST, NULL, 200, "OK",
      "POST /r/303/rel 5 -\nGET /final 0 -\n" },
    { "redirect/303-put", ON_REDIRECT, "/r/303/rel", PUT, NULL, 200, "OK",
      "PUT /r/303/rel 5 -\nGET /final 0 -\n" },
    { "redirect/303-head", ON_REDIRECT, "/r/303/rel", HEAD, NULL, 200, "OK",
      "HEAD /r/303/rel 0 -\nHEAD /final 0 -\n" },
    { "redirect/307-get", ON_REDIRECT, "/r/307/rel", FOLLOW, NULL, 200, "OK",
      "GET /r/307/rel 0 -\nGET /final 0 -\n" },
    { "redirect/307-post", ON_REDIRECT, "/r/307/rel", POST, NULL, 200, "OK",
      "POST /r/307/rel 5 -\nPOST /final 5 -\n" },
    { "redirect/308-get", ON_REDIRECT, "/r/308/rel", FOLLOW, NULL, 200, "OK",
      "GET /r/308/rel 0 -\nGET /final 0 -\n" },
    { "redirect/308-post", ON_REDIRECT, "/r/308/rel", POST, NULL, 200, "OK",
      "POST /r/308/rel 5 -\nPOST /final 5 -\n" },
    /* A body larger than HTTP/2's initial window (65,535 bytes), sent twice. */
    { "redirect/307-post-large", ON_REDIRECT, "/r/307/rel", POST_LARGE, NULL, 200, "OK",
      "POST /r/307/rel 200000 -\nPOST /final 200000 -\n" },
    /* max_body, and the same body within it. */
    { "limit/max-body", ON_REDIRECT, "/large", ", max_body: 64KiB", "body-limit", 200,
      "response body over max_body",
      "GET /large 0 -\n" },
    { "limit/max-body-fits", ON_REDIRECT, "/large", ", max_body: 1MiB", NULL, 200, "OK",
      "GET /large 0 -\n" },
    /* Not followed: the redirect is the response. */
    { "redirect/not-followed", ON_REDIRECT, "/r/302/rel", NULL, NULL, 302, "Found",
      "GET /r/302/rel 0 -\n" },
    { "redirect/not-followed-unexpected", ON_REDIRECT, "/r/302/rel", ", expect_status: '200'",
      "status", 302, "Found", "GET /r/302/rel 0 -\n" },
    /* Where the Location goes. */
    { "location/absolute", ON_REDIRECT, "/r/302/abs", FOLLOW, NULL, 200, "OK",
      "GET /r/302/abs 0 -\nGET /final 0 -\n" },
    /* Another origin: a second connection, kept alive beside the first and reused. */
    { "location/other-host", ON_REDIRECT, "/r/307/host", POST, NULL, 200, "OK",
      "POST /r/307/host 5 -\nPOST /final 5 -\n" "POST /r/307/host 5 -\nPOST /final 5 -\n"
      "POST /r/307/host 5 -\nPOST /final 5 -\n",
      .iterations = 3, .connections = 2 },
    { "location/other-port", ON_REDIRECT, "/r/308/port", POST, NULL, 200, "OK",
      "POST /r/308/port 5 -\nPOST /final 5 -\n" },
    { "location/other-scheme", ON_REDIRECT, "/r/302/https", FOLLOW, NULL, 200, "OK",
      "GET /r/302/https 0 -\nGET /final 0 -\n" },
    { "location/missing", ON_REDIRECT, "/r/302/none", FOLLOW, NULL, 302, "Found",
      "GET /r/302/none 0 -\n" },
    { "location/unsupported-scheme", ON_REDIRECT, "/r/302/ftp", FOLLOW, "protocol", 302,
      SCHEME_MESSAGE, "GET /r/302/ftp 0 -\n" },
    { "location/invalid", ON_REDIRECT, "/r/302/bad", FOLLOW, "protocol", 302,
      "redirect Location is not a valid URL", "GET /r/302/bad 0 -\n" },
    { "location/no-host", ON_REDIRECT, "/r/301/nohost", FOLLOW, "protocol", 301,
      "redirect Location has no host", "GET /r/301/nohost 0 -\n" },
    /* How many. */
    /* Every hop on the one kept-alive connection, iteration after iteration. */
    { "count/loop", ON_REDIRECT, "/loop", FOLLOW ", max_redirects: 3", "protocol", 302,
      "too many redirects",
      "GET /loop 0 -\nGET /loop 0 -\nGET /loop 0 -\nGET /loop 0 -\n"
      "GET /loop 0 -\nGET /loop 0 -\nGET /loop 0 -\nGET /loop 0 -\n",
      .iterations = 2, .connections = 1 },
    { "count/max-reached", ON_REDIRECT, "/chain/2", FOLLOW ", max_redirects: 2", "protocol", 302,
      "too many redirects", "GET /chain/2 0 -\nGET /chain/1 0 -\nGET /chain/0 0 -\n" },
    { "count/max-exact", ON_REDIRECT, "/chain/1", FOLLOW ", max_redirects: 2", NULL, 200, "OK",
      "GET /chain/1 0 -\nGET /chain/0 0 -\nGET /final 0 -\n" },
    { "count/zero", ON_REDIRECT, "/chain/0", FOLLOW ", max_redirects: 0", "protocol", 302,
      "too many redirects", "GET /chain/0 0 -\n" },
    /* Cookies follow the jar's domain rules across the hops. */
    { "cookie/same-host", ON_REDIRECT, "/cookie/same", FOLLOW, NULL, 200, "OK",
      "GET /cookie/same 0 -\nGET /final 0 c=1\n" },
    { "cookie/other-host", ON_REDIRECT, "/cookie/host", FOLLOW, NULL, 200, "OK",
      "GET /cookie/host 0 -\nGET /final 0 -\n" },
    /* A step's own Cookie header and the jar's cookies go in one field (RFC 6265 §5.4). */
    { "cookie/step-header", ON_REDIRECT, "/cookie/same", FOLLOW ", headers: { Cookie: \"pre=1\" }",
      NULL, 200, "OK", "GET /cookie/same 0 pre=1\nGET /final 0 pre=1; c=1\n" },
    /* Two Set-Cookie fields in one response (HTTP/2 sends each as a field of its own). */
    { "cookie/two", ON_REDIRECT, "/cookie/two", FOLLOW, NULL, 200, "OK",
      "GET /cookie/two 0 -\nGET /final 0 c=1; d=2\n" },
    /* per-user: the jar is the user's, kept from one iteration to the next (sorted: two users). */
    { "cookie/per-user", ON_REDIRECT, "/cookie/same", FOLLOW, NULL, 200, "OK",
      "GET /cookie/same 0 -\nGET /cookie/same 0 -\n"
      "GET /cookie/same 0 c=1\nGET /cookie/same 0 c=1\n"
      "GET /final 0 c=1\nGET /final 0 c=1\nGET /final 0 c=1\nGET /final 0 c=1\n",
      .users = 2, .iterations = 2, .http = "cookie_jar: per-user" },
    /* The default, per-iteration: each iteration begins with an empty jar (k6's). */
    { "cookie/per-iteration", ON_REDIRECT, "/cookie/same", FOLLOW, NULL, 200, "OK",
      "GET /cookie/same 0 -\nGET /final 0 c=1\nGET /cookie/same 0 -\nGET /final 0 c=1\n",
      .iterations = 2 },
    /* off: Set-Cookie is not kept, even within the step's own redirects. */
    { "cookie/off", ON_REDIRECT, "/cookie/two", FOLLOW, NULL, 200, "OK",
      "GET /cookie/two 0 -\nGET /final 0 -\nGET /cookie/two 0 -\nGET /final 0 -\n",
      .iterations = 2, .http = "cookie_jar: off" },
    /* off: the step's own Cookie header goes out as written, once, on every hop. */
    { "cookie/off-step-header", ON_REDIRECT, "/cookie/same",
      FOLLOW ", headers: { Cookie: \"pre=1\" }", NULL, 200, "OK",
      "GET /cookie/same 0 pre=1\nGET /final 0 pre=1\n", .http = "cookie_jar: off" },
    /* A step's cookies: in the jar for its origin, beside the server's, by the jar's rules. */
    { "cookie/step-cookies", ON_REDIRECT, "/cookie/same", FOLLOW ", cookies: { s: v }", NULL, 200,
      "OK", "GET /cookie/same 0 s=v\nGET /final 0 s=v; c=1\n" },
    { "cookie/step-cookies-other-host", ON_REDIRECT, "/cookie/host",
      FOLLOW ", cookies: { s: \"${user.id}\" }", NULL, 200, "OK",
      "GET /cookie/host 0 s=1\nGET /final 0 -\n" },
    /* And the step's own Cookie header first, then the jar's, in one field. */
    { "cookie/step-cookies-and-header", ON_REDIRECT, "/final",
      ", cookies: { s: v }, headers: { Cookie: \"pre=1\" }", NULL, 200, "OK",
      "GET /final 0 pre=1; s=v\n" },
    /* Credentials: the exact bytes, on every hop of the same origin. */
    { "auth/basic", ON_REDIRECT, "/r/302/rel",
      FOLLOW ", auth: { basic: { user: \"u${user.id}\", password: \"p:w\" } }", NULL, 200, "OK",
      "GET /r/302/rel 0 - auth=Basic dTE6cDp3\nGET /final 0 - auth=Basic dTE6cDp3\n" },
    { "auth/bearer", ON_REDIRECT, "/final", ", auth: { bearer: \"t-${iteration}\" }", NULL, 200,
      "OK", "GET /final 0 - auth=Bearer t-1\nGET /final 0 - auth=Bearer t-2\n",
      .iterations = 2 },
    /* Another origin (host, port or scheme): credentials stay behind, as curl and k6 leave them. */
    { "auth/other-host", ON_REDIRECT, "/r/302/host", FOLLOW ", auth: { bearer: t }", NULL, 200,
      "OK", "GET /r/302/host 0 - auth=Bearer t\nGET /final 0 -\n" },
    { "auth/other-port", ON_REDIRECT, "/r/307/port",
      POST ", headers: { Authorization: \"Basic eDp5\" }", NULL, 200, "OK",
      "POST /r/307/port 5 - auth=Basic eDp5\nPOST /final 5 -\n" },
    { "auth/url-credentials", ON_REDIRECT, "/final", ", auth: null", NULL, 200, "OK",
      "GET /final 0 - auth=Basic YTpi\n", .userinfo = "a:b@" },

    /* expect_status: a status outside it fails as `status`, one inside it (a list, a range) passes. */
    { "status/unexpected", ON_REDIRECT, "/r/404/none", NULL, "status", 404, "Not Found",
      "GET /r/404/none 0 -\n" },
    { "status/not-the-expected", ON_REDIRECT, "/r/204/none", ", expect_status: 200", "status", 204,
      "No Content", "GET /r/204/none 0 -\n" },
    { "status/in-list", ON_REDIRECT, "/r/404/none", ", expect_status: '2xx,404'", NULL, 404,
      "Not Found", "GET /r/404/none 0 -\n" },
    { "status/in-range", ON_REDIRECT, "/r/503/none", ", expect_status: 500-599", NULL, 503,
      "Service Unavailable", "GET /r/503/none 0 -\n" },

    /* Connections: one per user, kept alive; with keep_alive: false, one per request. */
    { "connection/per-user", ON_REDIRECT, "/final", NULL, NULL, 200, "OK", FINAL_20,
      .users = 4, .iterations = 5, .connections = 4 },
    /* soup refuses keep_alive: false over HTTP/2 at load (docs/http.md). */
    { "connection/keep-alive-off", ON_REDIRECT, "/close-seen", NULL, NULL, 200, "OK",
      CLOSE_5 CLOSE_5, .users = 2, .iterations = 5, .connections = 10,
      .http = "keep_alive: false", .http1_only = TRUE },
    /*
     * A header HTTP/2 forbids (RFC 9113 §8.2.2): sent over HTTP/1.1,
     * left out over h2 by both transports, where the server would
     * otherwise refuse the stream as malformed.
     */
    { "header/connection", ON_REDIRECT, "/final", ", headers: { Connection: close }", NULL, 200,
      "OK", "GET /final 0 -\n" },

    /* A response later than the step's timeout: `timeout` on every version; nothing waits,
     * and the next iteration's request goes out (and times out) alike. */
    { "timeout/slow-response", ON_REDIRECT, "/delay/3000", NULL, "timeout", 0, "step timed out",
      "GET /delay/3000 0 -\nGET /delay/3000 0 -\n", "400ms", NULL, 390, 400 + SLACK_MS,
      .iterations = 2 },
    { "timeout/slow-response-post", ON_REDIRECT, "/delay/3000", POST, "timeout", 0,
      "step timed out", "POST /delay/3000 5 -\n", "400ms", NULL, 390, 400 + SLACK_MS },
    { "timeout/stalled-body", ON_REDIRECT, "/stall-body", NULL, "timeout", 0, "step timed out",
      "GET /stall-body 0 -\n", "400ms", NULL, 390, 400 + SLACK_MS },
    /* The timeout bounds the step, every hop of it. */
    /* 1.5 s: the first hop must be answered and followed before it ends, on a busy machine too. */
    { "timeout/slow-after-redirect", ON_REDIRECT, "/r/302/slow", FOLLOW, "timeout", 0,
      "step timed out", "GET /r/302/slow 0 -\nGET /delay/3000 0 -\n", "1500ms", NULL, 1490,
      1500 + SLACK_MS },

    /*
     * Content codings (docs/http.md, "Compressed responses"): a body a
     * rule reads is decoded first, whatever the request's Accept-Encoding
     * (neither transport adds one: the server's log shows none), so the
     * checks and the extractor see the JSON; one that does not decode is
     * `protocol`, one that decodes past max_body `body-limit`; a step
     * that reads no body decodes nothing.
     */
    { "coded/gzip", ON_REDIRECT, "/coded/gzip", READS_JSON, NULL, 200, "OK",
      "GET /coded/gzip 0 -\n" },
    { "coded/x-gzip", ON_REDIRECT, "/coded/x-gzip", READS_JSON, NULL, 200, "OK",
      "GET /coded/x-gzip 0 -\n" },
    { "coded/deflate", ON_REDIRECT, "/coded/deflate", READS_JSON, NULL, 200, "OK",
      "GET /coded/deflate 0 -\n" },
    { "coded/deflate-raw", ON_REDIRECT, "/coded/deflate-raw", READS_JSON, NULL, 200, "OK",
      "GET /coded/deflate-raw 0 -\n" },
    { "coded/br", ON_REDIRECT, "/coded/br", READS_JSON, NULL, 200, "OK", "GET /coded/br 0 -\n" },
#ifdef HTTP_HAVE_ZSTD
    { "coded/zstd", ON_REDIRECT, "/coded/zstd", READS_JSON, NULL, 200, "OK",
      "GET /coded/zstd 0 -\n" },
#endif
    { "coded/gzip-then-br", ON_REDIRECT, "/coded/gzip-then-br", READS_JSON, NULL, 200, "OK",
      "GET /coded/gzip-then-br 0 -\n" },
    { "coded/accept-identity", ON_REDIRECT, "/coded/gzip",
      READS_JSON ", headers: { Accept-Encoding: identity }", NULL, 200, "OK",
      "GET /coded/gzip 0 - ae=identity\n" },
    { "coded/gzip-corrupt", ON_REDIRECT, "/coded/gzip-corrupt", READS_JSON, "protocol", 200,
      "content coding gzip: corrupt data", "GET /coded/gzip-corrupt 0 -\n" },
    { "coded/gzip-cut", ON_REDIRECT, "/coded/gzip-cut", READS_JSON, "protocol", 200,
      "content coding gzip: the body ends mid-stream", "GET /coded/gzip-cut 0 -\n" },
    { "coded/br-corrupt", ON_REDIRECT, "/coded/br-corrupt", READS_JSON, "protocol", 200,
      "content coding br: corrupt data", "GET /coded/br-corrupt 0 -\n" },
    /* An unexpected status stays the step's class, as with a failing check. */
    { "coded/corrupt-status-stays", ON_REDIRECT, "/coded/gzip-corrupt",
      READS_JSON ", expect_status: 404", "status", 200, "OK", "GET /coded/gzip-corrupt 0 -\n" },
    { "coded/corrupt-unread", ON_REDIRECT, "/coded/gzip-corrupt", NULL, NULL, 200, "OK",
      "GET /coded/gzip-corrupt 0 -\nGET /coded/gzip-corrupt 0 -\n", .iterations = 2 },
    /* 4 MiB of zeros in 4 KiB of gzip: decoding stops at max_body. */
    { "coded/bomb", ON_REDIRECT, "/coded/gzip-bomb", READS_JSON ", max_body: 1MiB", "body-limit",
      200, "decoded response body over max_body", "GET /coded/gzip-bomb 0 -\n" },
    { "coded/bomb-fits", ON_REDIRECT, "/coded/gzip-bomb",
      ", max_body: 8MiB, check: [ { body_regex: '^\\x00+$' } ]", NULL, 200, "OK",
      "GET /coded/gzip-bomb 0 -\n" },
    /* A coding neither decoder knows: the body as it came (as libsoup and curl leave it). */
    { "coded/unknown", ON_REDIRECT, "/coded/unknown", READS_JSON, NULL, 200, "OK",
      "GET /coded/unknown 0 -\n" },

    /* The fault suite's faults (tests/integration/test-faults.c). */
    { "fault/refused", ON_CLOSED_HTTP, "/ok", NULL, "connect", 0, NULL, NULL, NULL, NULL, 0,
      SLACK_MS, .below_http = TRUE, .iterations = 3, .connections = NONE_OPENED },
    { "fault/dns", ON_UNRESOLVABLE, "/", NULL, "dns", 0, "host name did not resolve",
      .below_http = TRUE, .iterations = 2, .connections = NONE_OPENED },
    { "fault/status-500", ON_HTTP, FAULT_PATH_STATUS_500, NULL, "status", 500,
      "Internal Server Error" },
    { "fault/status-503", ON_HTTP, FAULT_PATH_STATUS_503, NULL, "status", 503,
      "Service Unavailable" },
    { "fault/never-answers", ON_HTTP, FAULT_PATH_HANG, NULL, "timeout", 0, "step timed out", NULL,
      "400ms", NULL, 390, 400 + SLACK_MS },
    { "fault/stalls-body", ON_HTTP, FAULT_PATH_STALL_BODY, NULL, "timeout", 0, "step timed out",
      NULL, "400ms", NULL, 390, 400 + SLACK_MS },
    /* libsoup parses a head cut by a close as a whole one and reports its parse error,
     * the one a garbled head gets: soup cannot see the difference (no head bytes reach it). */
    { "fault/closes-mid-headers", ON_HTTP, FAULT_PATH_CLOSE_HEADERS, NULL, "reset", 0, NULL, NULL,
      NULL, NULL, 0, SLACK_MS, "protocol", .soup_message = "invalid HTTP response" },
    { "fault/closes-mid-body", ON_HTTP, FAULT_PATH_CLOSE_BODY, NULL, "reset", 0 },
    { "fault/reset", ON_HTTP, FAULT_PATH_RESET, NULL, "reset", 0 },
    { "fault/reset-mid-body", ON_HTTP, FAULT_PATH_RESET_BODY, NULL, "reset", 0 },
    { "fault/garbage", ON_HTTP, FAULT_PATH_GARBAGE, NULL, "protocol", 0 },
    { "fault/huge-body", ON_HTTP, FAULT_PATH_HUGE, ", max_body: 64KiB", "body-limit", 200 },
    { "fault/endless-chunked", ON_HTTP, FAULT_PATH_ENDLESS_CHUNKED, ", max_body: 1MiB",
      "body-limit", 200 },
    { "fault/endless-close", ON_HTTP, FAULT_PATH_ENDLESS_CLOSE, ", max_body: 1MiB", "body-limit",
      200 },
    { "fault/tls-refused", ON_CLOSED_HTTPS, "/ok", NULL, "connect", 0, .below_http = TRUE },
    { "fault/tls-status-503", ON_HTTPS, FAULT_PATH_STATUS_503, NULL, "status", 503,
      "Service Unavailable" },
    { "fault/tls-never-answers", ON_HTTPS, FAULT_PATH_HANG, NULL, "timeout", 0, "step timed out",
      NULL, "400ms", NULL, 390, 400 + SLACK_MS },
    { "fault/tls-stalls-body", ON_HTTPS, FAULT_PATH_STALL_BODY, NULL, "timeout", 0,
      "step timed out", NULL, "400ms", NULL, 390, 400 + SLACK_MS },
    { "fault/tls-closes-mid-headers", ON_HTTPS, FAULT_PATH_CLOSE_HEADERS, NULL, "reset", 0 },
    { "fault/tls-closes-mid-body", ON_HTTPS, FAULT_PATH_CLOSE_BODY, NULL, "reset", 0 },
    { "fault/tls-reset", ON_HTTPS, FAULT_PATH_RESET, NULL, "reset", 0 },
    { "fault/tls-garbage", ON_HTTPS, FAULT_PATH_GARBAGE, NULL, "protocol", 0 },
    { "fault/tls-endless-chunked", ON_HTTPS, FAULT_PATH_ENDLESS_CHUNKED, ", max_body: 1MiB",
      "body-limit", 200 },
    { "fault/tls-dropped-mid-handshake", ON_TLS_DROP, "/ok", NULL, "reset", 0, .below_http = TRUE },
    { "fault/certificate-expired", ON_EXPIRED, "/ok", NULL, "certificate", 0, .below_http = TRUE },
    { "fault/certificate-wrong-host", ON_WRONG_HOST, "/ok", NULL, "certificate", 0,
      .below_http = TRUE },
    { "fault/certificate-self-signed", ON_SELF_SIGNED, "/ok", NULL, "certificate", 0,
      .below_http = TRUE },
    { "fault/connect-timeout-tcp", ON_BACKLOG, "/ok", NULL, "timeout", 0, "connect timed out", NULL,
      "10s", "300ms", 290, 300 + SLACK_MS, .below_http = TRUE, .iterations = 2 },
    { "fault/connect-timeout-tls", ON_TLS_HANG, "/ok", NULL, "timeout", 0, "connect timed out",
      NULL, "10s", "300ms", 290, 300 + SLACK_MS, .below_http = TRUE },
    { "fault/step-timeout-bounds-connect", ON_BACKLOG, "/ok", NULL, "timeout", 0, "step timed out",
      NULL, "300ms", "10s", 290, 300 + SLACK_MS, .below_http = TRUE },
    { .name = "fault/tls-dropped-counts-one-connection", .on = ON_TLS_DROP, .path = "/ok",
      .klass = "reset", .connections = 1, .below_http = TRUE },

    /* Hostile servers (docs/failure-modes.md, "Hostile servers"). */
    { .name = "hostile/interim-flood", .on = ON_HTTP, .path = FAULT_PATH_INTERIM_FLOOD,
      .klass = "protocol", .message = "too many interim responses", .timeout = "1s",
      .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/tls-interim-flood", .on = ON_HTTPS, .path = FAULT_PATH_INTERIM_FLOOD,
      .klass = "protocol", .message = "too many interim responses", .timeout = "1s",
      .max_ms = 1000 + SLACK_MS },
    /* A body faster than throng reads: the worker is given back, and the deadline holds. */
    { .name = "hostile/endless-body-step-timeout", .on = ON_HTTP, .path = FAULT_PATH_TINY_CHUNKS,
      .step_extra = ", max_body: 100GiB", .klass = "timeout", .message = "step timed out",
      .status = 0, .timeout = "1s", .min_ms = 990, .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/tls-endless-body-step-timeout", .on = ON_HTTPS,
      .path = FAULT_PATH_TINY_CHUNKS, .step_extra = ", max_body: 100GiB", .klass = "timeout",
      .message = "step timed out", .timeout = "1s", .min_ms = 990, .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/interim-many", .on = ON_HTTP, .path = FAULT_PATH_INTERIM_MANY,
      .klass = "protocol", .message = "too many interim responses", .timeout = "1s",
      .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/early-hints", .on = ON_HTTP, .path = FAULT_PATH_EARLY_HINTS, .status = 200,
      .message = "OK", .iterations = 2, .connections = 1 },
    /*
     * Chunked bodies: soup reads them below libsoup's decoder through
     * chunked.c, as fast does, so both judge every chunk line alike
     * (libsoup's decoder would take "zz" as the last chunk, "5g" as 5,
     * end at the last chunk without the trailers or its empty line, and
     * wait for a 2^56-byte chunk).
     */
    { .name = "hostile/chunk-ext-endless", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_EXT_ENDLESS,
      .klass = "protocol", .status = 200, .message = "chunk extensions or trailers too long",
      .timeout = "1s", .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/tls-chunk-ext-endless", .on = ON_HTTPS, .path = FAULT_PATH_CHUNK_EXT_ENDLESS,
      .klass = "protocol", .status = 200, .message = "chunk extensions or trailers too long",
      .timeout = "1s", .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/trailer-endless", .on = ON_HTTP, .path = FAULT_PATH_TRAILER_ENDLESS,
      .klass = "protocol", .status = 200, .message = "chunk extensions or trailers too long",
      .timeout = "1s", .max_ms = 1000 + SLACK_MS },
    { .name = "hostile/chunk-zz", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_ZZ, .klass = "protocol",
      .status = 200, .message = "malformed chunk size", .timeout = "1s" },
    { .name = "hostile/tls-chunk-zz", .on = ON_HTTPS, .path = FAULT_PATH_CHUNK_ZZ,
      .klass = "protocol", .status = 200, .message = "malformed chunk size", .timeout = "1s" },
    { .name = "hostile/chunk-5g", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_5G, .klass = "protocol",
      .status = 200, .message = "malformed chunk size", .timeout = "1s" },
    /* At once, when the size line arrives: well within the step's timeout. */
    { .name = "hostile/chunk-15-digits", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_15_DIGITS,
      .klass = "body-limit", .status = 200, .message = "response body over max_body",
      .timeout = "3s", .max_ms = SLACK_MS },
    { .name = "hostile/chunk-no-final-crlf", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_NO_FINAL_CRLF,
      .klass = "reset", .message = "connection closed before the response was complete" },
    { .name = "hostile/tls-chunk-no-final-crlf", .on = ON_HTTPS,
      .path = FAULT_PATH_CHUNK_NO_FINAL_CRLF, .klass = "reset",
      .message = "connection closed before the response was complete" },
    { .name = "hostile/chunk-leading-zeros", .on = ON_HTTP, .path = FAULT_PATH_CHUNK_ZEROS,
      .status = 200, .message = "OK" },
    { .name = "hostile/content-length-twice", .on = ON_HTTP, .path = FAULT_PATH_CL_TWICE,
      .status = 200, .message = "OK" },
    { .name = "hostile/content-length-disagree", .on = ON_HTTP, .path = FAULT_PATH_CL_DISAGREE,
      .klass = "protocol", .status = 200, .message = "invalid Content-Length" },
    { .name = "hostile/content-length-negative", .on = ON_HTTP, .path = FAULT_PATH_CL_NEGATIVE,
      .klass = "protocol", .status = 200, .message = "invalid Content-Length" },
    { .name = "hostile/content-length-and-chunked", .on = ON_HTTP, .path = FAULT_PATH_CL_TE,
      .klass = "protocol", .status = 200,
      .message = "both Transfer-Encoding and Content-Length" },
    /* chunked, then identity: read to the close (RFC 9112 §6.3); libsoup cannot, so soup refuses. */
    { .name = "hostile/te-list-two-lines", .on = ON_HTTP, .path = FAULT_PATH_TE_TWO_LINES,
      .status = 200, .message = "OK", .soup_klass = "protocol",
      .soup_message = "transfer coding libsoup frames otherwise" },
    { .name = "hostile/te-list-one-line", .on = ON_HTTP, .path = FAULT_PATH_TE_ONE_LINE,
      .status = 200, .message = "OK", .soup_klass = "protocol",
      .soup_message = "transfer coding libsoup frames otherwise" },
    /* chunked is final, so fast reads it (the gzip coding is counted, not decoded); libsoup
     * knows no coding list but "chunked" and refuses the head before any body stream exists. */
    { .name = "hostile/te-gzip-chunked", .on = ON_HTTP, .path = FAULT_PATH_TE_GZIP_CHUNKED,
      .status = 200, .message = "OK", .iterations = 2, .soup_klass = "protocol",
      .soup_message = "transfer coding libsoup frames otherwise" },
    { .name = "hostile/no-status-line", .on = ON_HTTP, .path = FAULT_PATH_NO_STATUS,
      .klass = "protocol" },
    { .name = "hostile/http09", .on = ON_HTTP, .path = FAULT_PATH_HTTP09, .klass = "protocol" },
    { .name = "hostile/head-too-large", .on = ON_HTTP, .path = FAULT_PATH_HEAD_TOO_LARGE,
      .klass = "protocol" },
    { .name = "hostile/unsolicited-101", .on = ON_HTTP, .path = FAULT_PATH_STATUS_101,
      .klass = "protocol", .status = 101,
      .message = "101 Switching Protocols without an upgrade request", .timeout = "1s" },
    { .name = "hostile/status-600", .on = ON_HTTP, .path = FAULT_PATH_STATUS_600,
      .klass = "protocol", .status = 600, .message = "status code outside 100-599" },
    { .name = "hostile/bare-lf", .on = ON_HTTP, .path = FAULT_PATH_BARE_LF, .status = 200,
      .message = "OK", .iterations = 2, .connections = 1 },
    { .name = "hostile/http10-keep-alive-no-length", .on = ON_HTTP,
      .path = FAULT_PATH_HTTP10_NO_LENGTH, .status = 200, .message = "OK", .iterations = 2,
      .connections = 2 },
    { .name = "hostile/no-content-with-body", .on = ON_HTTP, .path = FAULT_PATH_NO_CONTENT_BODY,
      .status = 204, .message = "No Content", .iterations = 2, .connections = 2,
      .fast_warning = UNSOLICITED },
    /* Every third request on a connection is closed unanswered: retried once, on a new one. */
    { .name = "hostile/close-every-third", .on = ON_HTTP, .path = FAULT_PATH_CLOSE_THIRD,
      .status = 200, .message = "OK", .iterations = 9, .connections = 5, .retries = 4 },
    /* RFC 9112 §2.2: empty lines before a status line are ignored, after a 100 too. */
    { .name = "hostile/empty-line-before-status", .on = ON_HTTP, .path = FAULT_PATH_EMPTY_LINE_BEFORE,
      .status = 200, .message = "OK", .iterations = 2, .connections = 1 },
    { .name = "hostile/continue-then-empty-line", .on = ON_HTTP,
      .path = FAULT_PATH_CONTINUE_EMPTY_LINE, .status = 200, .message = "OK", .iterations = 2,
      .connections = 1 },
    { .name = "hostile/bytes-on-idle-connection", .on = ON_HTTP, .path = FAULT_PATH_STRAY_AFTER,
      .status = 200, .message = "OK", .iterations = 2, .think_time = "400ms", .connections = 2,
      .fast_warning = UNSOLICITED },
    { .name = "hostile/tls-bytes-on-idle-connection", .on = ON_HTTPS, .path = FAULT_PATH_STRAY_AFTER,
      .status = 200, .message = "OK", .iterations = 2, .think_time = "400ms", .connections = 2,
      .fast_warning = UNSOLICITED },
    /*
     * Whether the reset lands before the ClientHello or under it is a
     * race; either way the connection was cut: `reset`, and the
     * connections are not compared.  No GLib message either way
     * (/faults/soup/tls-reset-storm meets the race a few thousand times).
     */
    { .name = "hostile/tls-reset-after-accept", .on = ON_RESET_ACCEPT, .path = "/ok",
      .klass = "reset", .below_http = TRUE },
};

/* Each case runs on each of these that its listener allows (case_runs). */
static const struct {
    const char *transport;
    Proto proto;
} runs[] = {
    { "fast", PROTO_H1 }, { "soup", PROTO_H1 }, { "fast", PROTO_H2 },
    { "soup", PROTO_H2 }, { "fast", PROTO_H2C },
    /* soup refuses h2c at load: /conformance/h2c-on-soup checks that once */
};

static const char *
proto_name (Proto proto)
{
    return proto == PROTO_H1 ? "http/1.1" : proto == PROTO_H2 ? "h2" : "h2c";
}

static gboolean
case_runs (const Case *c, Proto proto)
{
    if (proto == PROTO_H1)
        return TRUE;
    if (c->http1_only)
        return FALSE;
    if (c->on == ON_REDIRECT)
        return TRUE;
    return c->below_http && (proto == PROTO_H2) == listener_is_tls (c->on);
}

static ThrongTestCerts *certs;

/* What one run gave: the one sample's row of the CSV, and the summary's figures. */
typedef struct {
    gboolean success;
    char *klass; /* NULL on success */
    guint status;
    char *message; /* what follows "class: " in failureMessage, or the responseMessage */
    gint64 elapsed_ms;
    char *requests; /* what the redirect server saw */
} Outcome;

static void
outcome_clear (Outcome *outcome)
{
    g_free (outcome->klass);
    g_free (outcome->message);
    g_free (outcome->requests);
}

/* The fields of one CSV line (RFC 4180 quoting); (transfer full). */
static GPtrArray *
csv_fields (const char *line)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
    GString *field = g_string_new (NULL);
    gboolean quoted = FALSE;

    for (const char *p = line;; p++) {
        if (quoted) {
            if (*p == '"' && p[1] == '"') {
                g_string_append_c (field, '"');
                p++;
            } else if (*p == '"') {
                quoted = FALSE;
            } else {
                g_assert_cmpint (*p, !=, '\0');
                g_string_append_c (field, *p);
            }
        } else if (*p == '"') {
            quoted = TRUE;
        } else if (*p == ',' || *p == '\0') {
            g_ptr_array_add (fields, g_string_free (field, FALSE));
            if (*p == '\0')
                break;
            field = g_string_new (NULL);
        } else {
            g_string_append_c (field, *p);
        }
    }
    return fields;
}

static int
compare_lines (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

/* JMeter's columns, as plugins/csv writes them. */
enum { COL_ELAPSED = 1, COL_CODE = 3, COL_RESPONSE_MESSAGE = 4, COL_SUCCESS = 7, COL_FAILURE = 8 };

static void
run_case (const Case *c, const char *transport, Proto proto, const char *dir, Outcome *outcome)
{
    g_autofree char *origin = listener_url (c->on, proto);
    const char *host = strstr (origin, "://") + 3;
    /* "http://" USERINFO "127.0.0.1:PORT" */
    g_autofree char *base = g_strdup_printf ("%.*s%s%s", (int)(host - origin), origin,
                                             c->userinfo != NULL ? c->userinfo : "", host);
    g_autofree char *csv = g_build_filename (dir, "samples.csv", NULL);
    g_autofree char *csv_arg = g_strconcat ("csv=", csv, NULL);
    const char *extra[] = { "--out", csv_arg, "--overwrite", NULL };
    guint iterations = c->iterations > 0 ? c->iterations : 1;
    guint users = c->users > 0 ? c->users : 1;
    guint samples = users * iterations;
    g_autofree char *yaml
        = g_strdup_printf ("name: conformance\n"
                           "defaults:\n"
                           "  http:\n"
                           "    transport: %s\n"
                           "    version: \"%s\"\n"
                           "    timeout: %s\n"
                           "    connect_timeout: %s\n"
                           "    tls: { ca_file: \"%s\" }\n"
                           "%s%s%s"
                           "scenarios:\n"
                           "  - name: s\n"
                           "    users: %u\n"
                           "    iterations: %u\n"
                           "%s%s%s"
                           "    steps:\n"
                           "      - http: { url: \"%s%s\"%s }\n",
                           transport, proto == PROTO_H1 ? "1.1" : "2",
                           c->timeout != NULL ? c->timeout : "5s",
                           c->connect_timeout != NULL ? c->connect_timeout : "5s", certs->ca_cert,
                           c->http != NULL ? "    " : "", c->http != NULL ? c->http : "",
                           c->http != NULL ? "\n" : "", users, iterations, c->think_time != NULL ? "    think_time: " : "",
                           c->think_time != NULL ? c->think_time : "",
                           c->think_time != NULL ? "\n" : "", base, c->path,
                           c->step_extra != NULL ? c->step_extra : "");
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_auto (GStrv) lines = NULL;
    g_autoptr (GPtrArray) row = NULL;
    const char *failure, *colon;
    int status = -1;

    g_free (redirect_server_take_log (&redirect_server, NULL));
    root = throng_test_run_json (dir, yaml, extra, RUN_TIMEOUT_S, &status, &err);
    if (status != 0 || root == NULL)
        g_test_message ("plan:\n%s\nstderr:\n%s", yaml, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, samples);
    if (c->connections != 0)
        g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==,
                         c->connections == NONE_OPENED ? 0 : c->connections);
    if (c->retries > 0)
        g_assert_cmpint (throng_test_json_int (root, "total.retries"), ==, c->retries);
    if (c->fast_warning != NULL)
        g_assert_true (throng_test_summary_has_warning (root, c->fast_warning)
                       == (strcmp (transport, "fast") == 0));

    g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, samples + 2); /* header, the rows, "" */
    /* Every sample alike: the first stands for them. */
    for (guint i = 2; i <= samples; i++) {
        g_autoptr (GPtrArray) first = csv_fields (lines[1]);
        g_autoptr (GPtrArray) other = csv_fields (lines[i]);
        g_assert_cmpstr (g_ptr_array_index (other, COL_SUCCESS), ==,
                         g_ptr_array_index (first, COL_SUCCESS));
        g_assert_cmpstr (g_ptr_array_index (other, COL_CODE), ==,
                         g_ptr_array_index (first, COL_CODE));
        g_assert_cmpstr (g_ptr_array_index (other, COL_FAILURE), ==,
                         g_ptr_array_index (first, COL_FAILURE));
    }
    row = csv_fields (lines[1]);
    g_assert_cmpuint (row->len, >, COL_FAILURE);

    outcome->success = strcmp (g_ptr_array_index (row, COL_SUCCESS), "true") == 0;
    outcome->status = (guint)g_ascii_strtoull (g_ptr_array_index (row, COL_CODE), NULL, 10);
    outcome->elapsed_ms = g_ascii_strtoll (g_ptr_array_index (row, COL_ELAPSED), NULL, 10);
    failure = g_ptr_array_index (row, COL_FAILURE);
    colon = strstr (failure, ": ");
    if (!outcome->success)
        outcome->klass = colon != NULL ? g_strndup (failure, colon - failure) : g_strdup (failure);
    /* A response, expected or not, is described by its reason phrase; a failure by its message. */
    if (outcome->success || strcmp (outcome->klass, "status") == 0)
        outcome->message = g_strdup (g_ptr_array_index (row, COL_RESPONSE_MESSAGE));
    else
        outcome->message = g_strdup (colon != NULL ? colon + 2 : "");
    /* The redirect server says which protocol carried each request. */
    outcome->requests
        = redirect_server_take_log (&redirect_server, proto == PROTO_H1 ? "HTTP/1.1" : "HTTP/2");
    /* Users interleave: their requests are compared as a set. */
    if (users > 1) {
        g_auto (GStrv) requests = g_strsplit (outcome->requests, "\n", -1);
        guint n = g_strv_length (requests);

        g_assert_true (n > 0 && requests[n - 1][0] == '\0');
        qsort (requests, n - 1, sizeof (char *), compare_lines);
        g_free (outcome->requests);
        outcome->requests = g_strjoinv ("\n", requests);
    }
    g_test_message ("%s on %s over %s: %s %s %u \"%s\" in %" G_GINT64_FORMAT " ms", c->name,
                    transport, proto_name (proto),
                    outcome->success ? "ok" : "failed",
                    outcome->klass != NULL ? outcome->klass : "", outcome->status, outcome->message,
                    outcome->elapsed_ms);
}

static void
test_case (gconstpointer data)
{
    const Case *c = data;
    g_autofree char *dir = throng_test_tmpdir_new ();
    Outcome outcomes[G_N_ELEMENTS (runs)] = { { 0 } };
    const Outcome *first = &outcomes[0];

    if (c->step_extra != NULL && strstr (c->step_extra, LARGE_BODY) != NULL) {
        g_autofree char *path = g_build_filename (dir, LARGE_BODY, NULL);
        g_autofree char *body = g_malloc (LARGE_BODY_SIZE);
        memset (body, 'x', LARGE_BODY_SIZE);
        g_assert_true (g_file_set_contents (path, body, LARGE_BODY_SIZE, NULL));
    }

    for (gsize t = 0; t < G_N_ELEMENTS (runs); t++) {
        const char *transport = runs[t].transport;
        Outcome *o = &outcomes[t];
        const char *klass
            = c->soup_klass != NULL && strcmp (transport, "soup") == 0 ? c->soup_klass : c->klass;

        if (!case_runs (c, runs[t].proto))
            continue;
        if (g_strcmp0 (klass, SOUP_SUCCEEDS) == 0)
            klass = NULL;

        run_case (c, transport, runs[t].proto, dir, o);
        /* The case's outcome, on each transport. */
        g_assert_cmpint (o->success, ==, klass == NULL);
        g_assert_cmpstr (o->klass, ==, klass);
        /* Where soup's class differs, so may its status (none when it saw a cut connection). */
        if (klass == c->klass)
            g_assert_cmpuint (o->status, ==, c->status);
        /* A difference is the class's: soup's own message then is its own too. */
        if (c->message != NULL && klass == c->klass)
            g_assert_cmpstr (o->message, ==, c->message);
        if (c->soup_message != NULL && strcmp (transport, "soup") == 0)
            g_assert_cmpstr (o->message, ==, c->soup_message);
        if (c->on == ON_REDIRECT && c->requests != NULL)
            g_assert_cmpstr (o->requests, ==, c->requests);
        if (c->max_ms > 0) {
            g_assert_cmpint (o->elapsed_ms, >=, c->min_ms);
            g_assert_cmpint (o->elapsed_ms, <=, c->max_ms);
        }
    }
    /* And the same on every run, but where the case lists a difference. */
    for (gsize t = 1; t < G_N_ELEMENTS (runs); t++) {
        if (!case_runs (c, runs[t].proto))
            continue;
        if (c->soup_klass == NULL) {
            g_assert_cmpstr (outcomes[t].klass, ==, first->klass);
            g_assert_cmpuint (outcomes[t].status, ==, first->status);
        }
        g_assert_cmpstr (outcomes[t].requests, ==, first->requests);
    }

    for (gsize t = 0; t < G_N_ELEMENTS (runs); t++)
        outcome_clear (&outcomes[t]);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/*
 * The run the table leaves out: h2c on soup, which libsoup does not
 * speak, is refused at load, and the server sees nothing.
 */
static void
test_h2c_on_soup (void)
{
    g_autofree char *dir = throng_test_tmpdir_new ();
    g_autofree char *base = listener_url (ON_REDIRECT, PROTO_H2C);
    g_autofree char *yaml = g_strdup_printf ("name: conformance\n"
                                             "defaults:\n"
                                             "  http: { transport: soup, version: \"2\" }\n"
                                             "scenarios:\n"
                                             "  - name: s\n"
                                             "    users: 1\n"
                                             "    iterations: 1\n"
                                             "    steps:\n"
                                             "      - http: { url: \"%s/final\" }\n",
                                             base);
    g_autofree char *err = NULL;
    g_autofree char *requests = NULL;
    g_autoptr (JsonNode) root = NULL;
    int status = -1;

    g_free (redirect_server_take_log (&redirect_server, NULL));
    root = throng_test_run_json (dir, yaml, NULL, RUN_TIMEOUT_S, &status, &err);
    g_test_message ("stderr: %s", err);
    g_assert_cmpint (status, !=, 0);
    g_assert_null (root);
    g_assert_nonnull (strstr (err, "version: 2 over http:// is h2c, which libsoup does not speak; "
                                   "use transport: fast"));
    requests = redirect_server_take_log (&redirect_server, NULL);
    g_assert_cmpstr (requests, ==, "");
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

int
main (int argc, char **argv)
{
    g_autofree char *dir = NULL;
    g_autofree char *pki = NULL;
    g_autoptr (GError) error = NULL;
    int result;

    g_test_init (&argc, &argv, NULL);

    dir = throng_test_tmpdir_new ();
    pki = g_build_filename (dir, "pki", NULL);
    g_assert_no_errno (g_mkdir (pki, 0700));
    certs = throng_test_certs_new (pki, &error);
    g_assert_no_error (error);
    memset (large_response, 'x', LARGE_RESPONSE_SIZE);
    coded_bodies_make ();
    redirect_server_start (&redirect_server, certs);
    fault_server_start (certs);

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *path = g_strconcat ("/conformance/", cases[i].name, NULL);
        g_test_add_data_func (path, &cases[i], test_case);
    }
    g_test_add_func ("/conformance/h2c-on-soup", test_h2c_on_soup);
    result = g_test_run ();

    g_clear_pointer (&fault_server, throng_test_fault_server_stop);
    redirect_server_stop (&redirect_server);
    g_clear_pointer (&certs, throng_test_certs_free);
    for (guint i = 0; i < G_N_ELEMENTS (coded_bodies); i++)
        g_clear_pointer (&coded_bodies[i].body, g_bytes_unref);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
    return result;
}
