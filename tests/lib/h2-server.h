/* SPDX-License-Identifier: MIT */
/*
 * A hostile HTTP/2 server for the tests: h2c (prior knowledge), or h2
 * over TLS (GnuTLS, ALPN h2), on 127.0.0.1, built on nghttp2's server session, one thread per
 * connection, running in the test's process while the test runs
 * `throng` as a subprocess against it.  With a route handler
 * (throng_test_h2_server_set_handler) it serves the test's routes, well;
 * without one, the request's path picks what it does wrong:
 *
 *   /ok            200 "ok"
 *   /rst           RST_STREAM (INTERNAL_ERROR) on the stream; the connection goes on
 *   /goaway        200 on a connection's first stream; on any later one a
 *                  GOAWAY (NO_ERROR) whose last stream id is the one before,
 *                  the stream unanswered, then the close
 *   /window        never sends WINDOW_UPDATE (the server reads request
 *                  bodies without consuming them), never answers
 *   /huge-headers  a response whose header block is 200 fields of 1000 bytes
 *   /push          a PUSH_PROMISE although the client disabled push, then 200
 *   /ping-flood    5000 PINGs, then 200
 *   /settings-flood 5000 SETTINGS, then 200
 *   /cut           a DATA frame header announcing 100 bytes, 10 of them, then the close
 *   /h1-reply      an HTTP/1.1 response where frames were due; then reads and drops
 *                  everything until the client closes
 *   /tls-cut       (TLS) HEADERS, then a DATA frame header announcing 100 bytes and
 *                  10 of them, then a TLS close_notify and the close
 *   /slow          200 "ok" 200 ms later (the connection's other streams served meanwhile)
 *   /size/N        200 with N bytes of body, no other field than :status
 */
#pragma once

#include <glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

typedef struct _ThrongTestH2Server ThrongTestH2Server;

/* Listens on a free 127.0.0.1 port and serves h2c until freed. */
ThrongTestH2Server *throng_test_h2_server_new (GError **error);

/* The same over TLS with @cert_file and @key_file (PEM), ALPN h2. */
ThrongTestH2Server *throng_test_h2_server_new_tls (const char *cert_file, const char *key_file,
                                                   GError **error);

/* "http://127.0.0.1:PORT", or "https://…" for a TLS server */
const char *throng_test_h2_server_url (ThrongTestH2Server *server);

/*
 * From now on, new connections' SETTINGS say MAX_CONCURRENT_STREAMS
 * @max_streams (0: no limit sent, the default).  Call before the client
 * connects.
 */
void throng_test_h2_server_set_max_streams (ThrongTestH2Server *server, guint max_streams);

/*
 * One request as a route handler (throng_test_h2_server_set_handler)
 * sees it, once its body is in, and the answer the handler fills in.
 */
typedef struct {
    const char *method;
    const char *path;
    SoupMessageHeaders *request_headers; /* Cookie crumbs joined by "; " (RFC 9113 §8.2.3) */
    gsize body_length;
    /* The answer: */
    guint status;                         /* 0: 404 */
    SoupMessageHeaders *response_headers; /* sent with names in lower case */
    const char *body;                     /* (nullable) a static string; none for HEAD */
    guint delay_ms;                       /* answered this much later (other streams go on) */
    gboolean stall_body;                  /* the head, then never the body nor its end */
    gsize body_size;                      /* of @body, when it may hold NULs; 0: strlen */
} ThrongTestH2Exchange;

typedef void (*ThrongTestH2Handler) (ThrongTestH2Exchange *exchange, gpointer data);

/*
 * From now on every request goes to @handler (@data), on a connection's
 * thread (what it shares needs a lock), instead of the hostile routes
 * above.  Request bodies are consumed, so their windows reopen.  Call
 * before the client connects.
 */
void throng_test_h2_server_set_handler (ThrongTestH2Server *server, ThrongTestH2Handler handler,
                                        gpointer data);

/* Connections accepted so far. */
guint throng_test_h2_server_connections (ThrongTestH2Server *server);

/* Stops accepting, closes every connection, joins its threads, frees.  NULL is fine. */
void throng_test_h2_server_free (ThrongTestH2Server *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestH2Server, throng_test_h2_server_free)

G_END_DECLS
