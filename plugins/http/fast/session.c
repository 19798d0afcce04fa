/* SPDX-License-Identifier: MIT */
/*
 * The HTTP version of the fast transport, decided here and nowhere else
 * (session.h): a step's `version` (1.1, 2, auto) becomes the ALPN a new
 * TLS connection offers, the session a connection gets once it is open
 * (HTTP/1.1 or h2, from ALPN over TLS, from the step over http://), and
 * the rule for reusing a kept-alive one.  A connection keeps the session
 * it got for its life: an HTTP/1.1 connection never turns into h2.
 */
#include "session.h"
#include "h1.h"
#include "h2.h"

#include <string.h>

static const gnutls_datum_t alpn_h2[] = { { (unsigned char *)"h2", 2 } };
static const gnutls_datum_t alpn_auto[]
    = { { (unsigned char *)"h2", 2 }, { (unsigned char *)"http/1.1", 8 } };

guint
fast_session_alpn (const HttpStep *step, const gnutls_datum_t **protocols)
{
    switch (step->version) {
    case HTTP_VERSION_2:
        *protocols = alpn_h2;
        return G_N_ELEMENTS (alpn_h2);
    case HTTP_VERSION_AUTO:
        *protocols = alpn_auto;
        return G_N_ELEMENTS (alpn_auto);
    default:
        *protocols = NULL;
        return 0;
    }
}

static gboolean
alpn_selected_h2 (FastConn *conn)
{
    gnutls_datum_t proto = { NULL, 0 };

    return gnutls_alpn_get_selected_protocol (conn->tls, &proto) == 0 && proto.size == 2
           && memcmp (proto.data, "h2", 2) == 0;
}

gboolean
fast_session_start (FastUser *u, const char **refusal)
{
    FastConn *conn = u->conn;
    int version = u->step->version;
    const FastSession *session = &fast_h1_session;

    if (version != HTTP_VERSION_1_1) {
        /* Over TLS the server chooses (ALPN); h2c only by prior knowledge (version: 2). */
        gboolean h2 = conn->is_tls ? alpn_selected_h2 (conn) : version == HTTP_VERSION_2;
        if (!h2 && conn->is_tls && version == HTTP_VERSION_2) {
            *refusal = "the server did not select h2 through ALPN (version: 2 requires it; "
                       "version: auto falls back to HTTP/1.1)";
            return FALSE;
        }
        if (h2)
            session = &fast_h2_session;
    }
    conn->session = session;
    conn->func = session->event;
    conn->func_data = u;
    session->connect (u);
    return TRUE;
}

gboolean
fast_session_fits (const FastConn *conn, const FastUser *u)
{
    gboolean h2 = conn->session == &fast_h2_session;

    switch (u->step->version) {
    case HTTP_VERSION_2:
        return h2 && conn->session->room (conn);
    case HTTP_VERSION_AUTO:
        /* Whatever the connection speaks; a new one over http:// is HTTP/1.1. */
        return conn->session->room (conn);
    default:
        return !h2;
    }
}
