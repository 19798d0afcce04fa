/* SPDX-License-Identifier: MIT */
/*
 * The arrival schedule of one open-model scenario on one worker, and the
 * pool of its idle users.  Private to the core.
 */
#pragma once

#include "worker.h"

typedef struct _ThrongArrivals ThrongArrivals;

/*
 * The arrivals of scenario @scenario_index that fall to @worker, whose
 * first user there is @first_user, a global user number (it owns the
 * shard's users first_user + n × workers × shards);
 * due from @start_us, none from @end_us on (0: the stages' end).
 */
ThrongArrivals *throng_arrivals_new (ThrongWorker *worker, guint scenario_index, guint first_user,
                                     gint64 start_us, gint64 end_us);
void throng_arrivals_free (gpointer arrivals);

guint throng_arrivals_get_scenario (const ThrongArrivals *arrivals);

/* Puts an idle user in the pool. */
void throng_arrivals_put (ThrongArrivals *arrivals, ThrongUser *user);

/* Takes an idle user out of the pool (it is ending). */
void throng_arrivals_remove (ThrongArrivals *arrivals, ThrongUser *user);

/* No arrival from now on; idle users are left to the caller. */
void throng_arrivals_stop (ThrongArrivals *arrivals);

/* TRUE once no arrival will come: a user whose iteration ends should end too. */
gboolean throng_arrivals_is_done (const ThrongArrivals *arrivals);
