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

/* A pooled HTTP/2 connection stirred: PING, SETTINGS, GOAWAY, a ticket, or the close. */
void fast_h2_idle_event (FastUser *u, FastConn *conn);

/* Frees the session (NULL is fine); fast_conn_close() calls it. */
void fast_h2_free (FastH2 *h2);
