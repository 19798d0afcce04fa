/* SPDX-License-Identifier: MIT */
/*
 * The one-shot timer source both transports keep per user: created once,
 * re-armed with g_source_set_ready_time() for each deadline, so that a
 * step allocates no timeout source.
 */
#include "http.h"

static gboolean
timer_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    /* Disarmed while it runs (a dispatching source wakes no one); the callback re-arms. */
    g_source_set_ready_time (source, -1);
    return callback (data);
}

GSourceFuncs http_timer_funcs = {
    .dispatch = timer_dispatch,
};
