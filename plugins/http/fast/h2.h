/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 for the fast transport, through libnghttp2's client session: the
 * ALPN a connection offers for a step's `version`, whether a pooled
 * connection fits a step, and the exchange of one request as one stream
 * on a connection that connect.c opened (TCP, TLS, session policy) and
 * that the user's pool keeps between steps, as for HTTP/1.1.  The
 * session lives on the FastConn (conn->h2) and dies with it.
 */
#pragma once

#include <gnutls/gnutls.h>
#include <glib.h>

typedef struct _FastH2 FastH2;
typedef struct _FastH2Stream FastH2Stream;
typedef struct _FastUser FastUser;
typedef struct _FastConn FastConn;

/* The ALPN protocols a TLS connection for @version offers; 0 (none) for 1.1. */
guint fast_h2_alpn (int version, const gnutls_datum_t **protocols);

/* TRUE when the pooled @conn may carry a request of a step of @version. */
gboolean fast_h2_conn_fits (const FastConn *conn, int version);

/*
 * u->conn is ready for the exchange in flight.  Returns FALSE when the
 * exchange is HTTP/1.1 (the caller writes it); TRUE when this took it:
 * the request went out as a stream, or the exchange failed (version 2
 * and ALPN did not pick h2).
 */
gboolean fast_h2_request_ready (FastUser *u);

/* u->conn, an HTTP/2 connection, is ready for @condition, or a yielded read goes on. */
void fast_h2_event (FastUser *u);

/* An event on @conn, an HTTP/2 connection, with streams in flight or none. */
void fast_h2_conn_event (FastConn *conn);

/*
 * TRUE when @owner's exchange in flight is a stream on an HTTP/2
 * connection to @host:@port that may take one more (the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS, no GOAWAY).
 */
gboolean fast_h2_joinable (const FastUser *owner, const char *host, guint16 port, gboolean tls);

/* Sends u's exchange as one more stream on @owner's connection (fast_h2_joinable said yes). */
void fast_h2_join (FastUser *u, FastUser *owner);

/*
 * u's exchange is ending early (its deadline, a failure of its own)
 * while other streams share its connection: resets its stream, detaches
 * it and leaves the connection to them (in its owner's pool).  FALSE when
 * u's stream is the connection's only one, or u->conn is not HTTP/2: the
 * caller closes the connection as before.
 */
gboolean fast_h2_abandon (FastUser *u);

/* TRUE while streams of lanes are in flight on @conn (its owner must not close it). */
gboolean fast_h2_in_use (const FastConn *conn);

/* Frees u->h2s (NULL is fine). */
void fast_h2_stream_free (FastH2Stream *stream);

/* A pooled HTTP/2 connection stirred: PING, SETTINGS, GOAWAY, a ticket, or the close. */
void fast_h2_idle_event (FastUser *u, FastConn *conn);

/* Frees the session (NULL is fine); fast_conn_close() calls it. */
void fast_h2_free (FastH2 *h2);
