/* SPDX-License-Identifier: MIT */
/*
 * A user's kept-alive connections (at most POOL_MAX), each with the
 * session that runs on it.  The exchange takes one that suits its step;
 * h1.c and h2.c give one back when an exchange on it ends.  While a
 * connection idles here its watch stays on, so that a server's close (or
 * a late TLS ticket) is seen before the connection is reused.
 */
#pragma once

#include "fast.h"

/* TRUE when @conn may carry u's next exchange (session.c answers). */
typedef gboolean (*FastPoolFits) (const FastConn *conn, const FastUser *u);

/* Takes out the newest connection to u's current origin that @fits, or NULL. */
FastConn *fast_pool_take (FastUser *u, FastPoolFits fits);
/* Keeps @conn (its session chosen) in u's pool, closing the oldest idle one when full. */
void fast_pool_put (FastUser *u, FastConn *conn);
/* TRUE when @conn is in u's pool. */
gboolean fast_pool_holds (const FastUser *u, const FastConn *conn);
/* Takes @conn out of the pool if it is there. */
void fast_pool_remove (FastUser *u, FastConn *conn);
void fast_pool_close_all (FastUser *u);
