/* SPDX-License-Identifier: MIT */
/*
 * The user's keep-alive pool (pool.h).  It calls what runs on a
 * connection only through the connection's own session table, so it sits
 * below h1.c and h2.c, which give connections back to it.
 */
#include "pool.h"
#include "session.h"

#include <string.h>

static void
pool_remove_at (FastUser *u, guint i)
{
    memmove (&u->pool[i], &u->pool[i + 1], (u->n_pool - i - 1) * sizeof u->pool[0]);
    u->n_pool--;
}

void
fast_pool_remove (FastUser *u, FastConn *conn)
{
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn) {
            pool_remove_at (u, i);
            return;
        }
    }
}

void
fast_pool_close_all (FastUser *u)
{
    while (u->n_pool > 0) {
        FastConn *conn = u->pool[--u->n_pool];
        fast_conn_close (conn, TRUE);
    }
}

FastConn *
fast_pool_take (FastUser *u, FastPoolFits fits)
{
    for (guint i = u->n_pool; i-- > 0;) {
        FastConn *conn = u->pool[i];
        if (conn->port == u->port && conn->is_tls == u->tls && strcmp (conn->host, u->host) == 0
            && fits (conn, u)) {
            pool_remove_at (u, i);
            return conn;
        }
    }
    return NULL;
}

gboolean
fast_pool_holds (const FastUser *u, const FastConn *conn)
{
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn)
            return TRUE;
    }
    return FALSE;
}

void
fast_pool_put (FastUser *u, FastConn *conn)
{
    if (u->n_pool == POOL_MAX) {
        /* the oldest that no lane's exchange still uses (h2.c) */
        guint i = 0;
        while (i < u->n_pool && u->pool[i]->session->busy (u->pool[i]))
            i++;
        if (i == u->n_pool) {
            /* every one carries streams: @conn is not kept (h2.c closes it after its last) */
            if (!conn->session->busy (conn))
                fast_conn_close (conn, TRUE);
            return;
        }
        fast_conn_close (u->pool[i], TRUE);
        pool_remove_at (u, i);
    }
    u->pool[u->n_pool++] = conn;
    /* Watched while idle so that a server's close is seen before reuse. */
    fast_conn_watch (conn, G_IO_IN);
    /* Bytes already read ahead (a record past the response's end) will
     * never make the socket ready: look at them now, or the next request
     * would take them for its response. */
    if (fast_conn_pending (conn))
        conn->session->idle (u, conn);
    else
        fast_conn_idle (conn);
}
