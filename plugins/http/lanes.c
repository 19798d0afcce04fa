/* SPDX-License-Identifier: MIT */
/*
 * Concurrent steps of one virtual user (the children of a `parallel`):
 * each runs on a transport state that has nothing in flight, the user's
 * own first, then its lanes.  A lane is one more state of the same user
 * (transport->lane_new: its own connections, the user's cookies and TLS
 * session), made on first need and kept until the user goes, so an
 * HTTP/1.1 user holds at most `connections_per_user` connections busy at
 * once, as a browser does.  HTTP/2 steps (version 2 or auto) and
 * transports without lanes (soup) run on the user's own state only: one
 * at a time, one after another (docs/http.md, "parallel").
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

gboolean
http_lanes_run (HttpLanes **lanes, const HttpScenario *scenario, gpointer main,
                const HttpStep *step, ThrongSample *sample)
{
    const HttpTransport *transport = scenario->transport;
    guint most = (guint)scenario->options.connections_per_user;
    HttpLanes *l = *lanes;

    if (!busy (transport, main)) {
        transport->run (main, step, sample);
        return TRUE;
    }
    if (transport->lane_new == NULL || step->version != HTTP_VERSION_1_1 || most < 2)
        return FALSE;
    for (guint i = 0; l != NULL && i < l->n; i++) {
        if (!busy (transport, l->data[i])) {
            transport->run (l->data[i], step, sample);
            return TRUE;
        }
    }
    if (l != NULL && l->n + 1 >= most)
        return FALSE;
    if (l == NULL) {
        l = g_malloc0 (sizeof (HttpLanes) + (most - 1) * sizeof (gpointer));
        l->transport = transport;
        *lanes = l;
    }
    l->data[l->n] = transport->lane_new (main);
    transport->run (l->data[l->n++], step, sample);
    return TRUE;
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
