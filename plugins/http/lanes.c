/* SPDX-License-Identifier: MIT */
/*
 * Concurrent steps of one virtual user (the children of a `parallel`):
 * each runs on a transport state that has nothing in flight, the user's
 * own first, then its lanes.  A lane is one more state of the same user
 * (transport->lane_new: its own connections, the user's cookies and TLS
 * session), made on first need and kept until the user goes, so an
 * HTTP/1.1 user holds at most `connections_per_user` connections busy at
 * once, as a browser does.  An HTTP/2 step on a lane is one more stream
 * on the connection of the user's own exchange in flight
 * (transport->run_joined), up to the server's concurrent streams; until
 * there is one (the user's own exchange still connecting) it waits.
 * Transports without lanes (soup) run one step of a user at a time
 * (docs/http.md, "parallel").
 */
#include "http.h"

struct _HttpLanes {
    const HttpTransport *transport;
    guint n;
    gpointer data[];
};

static gboolean
busy (const HttpTransport *transport, gpointer data)
{
    return transport->busy (data);
}

/* A free lane, made when all are busy and there is room for one more; NULL otherwise. */
static gpointer
free_lane (HttpLanes **lanes, const HttpScenario *scenario, gpointer main)
{
    const HttpTransport *transport = scenario->transport;
    /* HTTP/1.1 lanes stop at connections_per_user; h2 ones (streams) at the parallel's max. */
    guint size = MAX ((guint)scenario->options.connections_per_user, scenario->max_parallel);
    HttpLanes *l = *lanes;

    for (guint i = 0; l != NULL && i < l->n; i++) {
        if (!busy (transport, l->data[i]))
            return l->data[i];
    }
    if (size < 2 || (l != NULL && l->n + 1 >= size))
        return NULL;
    if (l == NULL) {
        l = g_malloc0 (sizeof (HttpLanes) + (size - 1) * sizeof (gpointer));
        l->transport = transport;
        *lanes = l;
    }
    l->data[l->n] = transport->lane_new (main);
    return l->data[l->n++];
}

gboolean
http_lanes_run (HttpLanes **lanes, const HttpScenario *scenario, gpointer main,
                const HttpStep *step, ThrongSample *sample)
{
    const HttpTransport *transport = scenario->transport;
    /* `auto` over http:// is HTTP/1.1 */
    gboolean h1 = step->version == HTTP_VERSION_1_1
                  || (step->version == HTTP_VERSION_AUTO && !step->tls);
    gpointer lane;

    if (!busy (transport, main)) {
        transport->run (main, step, sample);
        return TRUE;
    }
    if (transport->lane_new == NULL)
        return FALSE;
    if (h1) {
        guint in_flight = 1;
        for (guint i = 0; *lanes != NULL && i < (*lanes)->n; i++)
            in_flight += busy (transport, (*lanes)->data[i]);
        if (in_flight >= scenario->options.connections_per_user)
            return FALSE;
        lane = free_lane (lanes, scenario, main);
        if (lane == NULL)
            return FALSE;
        transport->run (lane, step, sample);
        return TRUE;
    }
    /* h2: one more stream on the connection of the user's own exchange, or wait */
    if (transport->run_joined == NULL)
        return FALSE;
    lane = free_lane (lanes, scenario, main);
    return lane != NULL && transport->run_joined (lane, main, step, sample);
}

void
http_lanes_iteration_begin (HttpLanes *lanes)
{
    for (guint i = 0; lanes != NULL && i < lanes->n; i++) {
        if (lanes->transport->iteration_begin != NULL)
            lanes->transport->iteration_begin (lanes->data[i]);
    }
}

void
http_lanes_free (HttpLanes *lanes)
{
    if (lanes == NULL)
        return;
    for (guint i = 0; i < lanes->n; i++)
        lanes->transport->user_free (lanes->data[i]);
    g_free (lanes);
}
