/* SPDX-License-Identifier: MIT */
/*
 * New connections for the fast transport's exchange in flight: the
 * user's resolved host addresses (each name looked up once per user), the
 * non-blocking connect with a fallback to the next address, and the TLS
 * handshake offering the session the policy allows and the ALPN
 * protocols session.c chose for the step (FastStep).  What runs on the connection is
 * not this file's concern: it reports u->fs->events->ready (u->conn is
 * open) or ->fail.
 */
#pragma once

#include "fast.h"

/*
 * Opens a connection to u's current origin for the exchange in flight,
 * resolving the host the first time.  u->addr_try 0 starts with the
 * address that last connected and arms the connect's deadline.
 */
void fast_connect_open (FastUser *u);
/* A lookup in flight no longer reports to u (u's exchange ended, or u is freed). */
void fast_lookup_abandon (FastUser *u);
void fast_host_free (gpointer data);
/* Saves @conn's TLS session (a TLS 1.3 ticket that arrived) for u's next connections. */
void fast_save_ticket (FastUser *u, FastConn *conn);
