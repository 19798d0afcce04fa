/* SPDX-License-Identifier: MIT */
/*
 * The HTTP session table of the fast transport: what runs on an open
 * connection, as h2load's Session (connect, submit, read/write,
 * terminate).  h1.c (HTTP/1.1) and h2.c (HTTP/2 through nghttp2) each
 * fill one; session.c is the one place that knows the HTTP version: the
 * ALPN a new connection offers, which table a connection gets once it is
 * open, and whether a kept-alive connection suits a step.  Above it the
 * exchange calls the table only; below it a connection carries the table
 * chosen (conn->session) without knowing what it is.
 */
#pragma once

#include "fast.h"

typedef struct _FastSession {
    const char *name; /* what traces call it */
    /* Starts the session on u->conn, just opened: state in conn->session_data. */
    void (*connect) (FastUser *u);
    /* u->conn (open, new or kept-alive) is u's: sends the current hop's request. */
    void (*submit) (FastUser *u);
    /*
     * The connection's FastConnFunc once the session runs (data: its
     * owner, the user whose pool holds it): reads and writes for the
     * exchanges on it, or looks at it while it is idle in the pool.
     */
    FastConnFunc event;
    /* A read that yielded for the budget goes on (u's timer fired). */
    void (*resume) (FastUser *u);
    /*
     * u's exchange ends early (its deadline, a failure, the user freed)
     * while u->conn is still set.  TRUE when the session released the
     * connection itself (other exchanges use it; u->conn is NULL then);
     * FALSE: the caller closes it.
     */
    gboolean (*terminate) (FastUser *u);
    /* A kept-alive @conn stirred, or holds bytes no poll will announce. */
    void (*idle) (FastUser *u, FastConn *conn);
    /* TRUE while exchanges of others are in flight on @conn: its pool must not close it. */
    gboolean (*busy) (const FastConn *conn);
    /* TRUE when @conn may take one more exchange now. */
    gboolean (*room) (const FastConn *conn);
    /* Lanes (../lanes.c): TRUE when u may run as one more exchange on
     * @owner's connection in flight to @host:@port; then join sends it.
     * NULL when the session runs one exchange at a time. */
    gboolean (*joinable) (const FastUser *owner, const char *host, guint16 port, gboolean tls);
    void (*join) (FastUser *u, FastUser *owner);
} FastSession;

/* The ALPN protocols a new TLS connection for @step offers; 0 (none) for version 1.1. */
guint fast_session_alpn (const HttpStep *step, const gnutls_datum_t **protocols);

/*
 * u->conn was just opened for u's step: chooses its session from the
 * step's version and what ALPN selected, and starts it.  FALSE when no
 * session fits (version 2 and the server did not select h2), with the
 * reason in *@refusal (static).
 */
gboolean fast_session_start (FastUser *u, const char **refusal);

/* TRUE when the kept-alive @conn, with its session, may carry u's step (pool.h's FastPoolFits). */
gboolean fast_session_fits (const FastConn *conn, const FastUser *u);
