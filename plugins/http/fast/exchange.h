/* SPDX-License-Identifier: MIT */
/*
 * One exchange of the fast transport, whatever HTTP version carries it:
 * a connection for it (kept-alive from the pool, or a new one), the
 * session on that connection (session.h), the hops that the shared
 * redirect policy (../redirect.c) chooses, the step's deadline, and the
 * end.  Every path that ends an exchange goes through the step's finish,
 * which calls throng_user_step_done_sample() last: that call may start
 * the user's next step or free the user, so nothing of the user is
 * touched after it.
 */
#pragma once

#include "fast.h"

/* The calls up from connect.c, h1.c and h2.c (fast.h): the scenario's fs->events. */
extern const FastExchangeEvents fast_exchange_events;

/*
 * Sends the current request on a kept-alive connection to the current
 * origin, or opens one (resolving the host the first time); @fresh
 * insists on a new connection.
 */
void fast_exchange_start (FastUser *u, gboolean fresh);

/* u's exchange will not go on (the user is freed): drops its lookup and its connection. */
void fast_exchange_release (FastUser *u);

/* The user's timer callback: ends the exchange whose deadline passed, or resumes a yielded read. */
void fast_timer_fired (ThrongTimer *timer, gpointer data);

/*
 * Lanes (../lanes.c): TRUE when a request to @host:@port may run as one
 * more exchange on the connection of @owner's exchange in flight (an h2
 * stream); fast_exchange_join() then sends u's.
 */
gboolean fast_exchange_joinable (const FastUser *owner, const char *host, guint16 port,
                                 gboolean tls);
void fast_exchange_join (FastUser *u, FastUser *owner);
