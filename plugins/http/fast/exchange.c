/* SPDX-License-Identifier: MIT */
/*
 * One exchange of the fast transport (exchange.h): it takes a connection
 * from the pool or has connect.c open one, has session.c start the
 * session on a new one, and from then on calls the session's table only.
 * The files below report back through fast_exchange_events.  What ends
 * a hop is written once here, for both versions: the redirect, the
 * success rule, the protocol note, the journey's checks.
 */
#include "exchange.h"
#include "connect.h"
#include "cookies.h"
#include "pool.h"
#include "session.h"
#include "../errors.h"

#include <string.h>

/* Ends the exchange; the last thing any path does. */
static void
step_finish (FastUser *u)
{
    ThrongUser *user = u->user;
    ThrongSample *sample = u->sample;

    if (G_UNLIKELY (u->journey.active))
        http_journey_abort (&u->journey, u->step, u->sample);
    u->state = ST_IDLE;
    u->step = NULL;
    u->sample = NULL;
    u->read_yielded = FALSE;
    throng_user_step_done_sample (user, sample);
}

void
fast_exchange_release (FastUser *u)
{
    fast_lookup_abandon (u);
    /* A session that shares the connection with other exchanges keeps it. */
    if (u->conn != NULL && (u->conn->session == NULL || !u->conn->session->terminate (u)))
        fast_conn_close (u->conn, FALSE);
    u->conn = NULL;
}

static void
exchange_fail (FastUser *u, ThrongErrorClass error_class, const char *message)
{
    fast_exchange_release (u);
    http_sample_fail (u->sample, error_class, message);
    step_finish (u);
}

/* u->conn is open: the session runs the request on it, chosen first on a new connection. */
static void
exchange_ready (FastUser *u)
{
    const char *refusal = NULL;

    if (u->conn->session == NULL && !fast_session_start (u, &refusal)) {
        exchange_fail (u, THRONG_ERROR_PROTOCOL, refusal);
        return;
    }
    u->conn->session->submit (u);
}

void
fast_exchange_start (FastUser *u, gboolean fresh)
{
    if (!fresh) {
        FastConn *conn = fast_pool_take (u, fast_session_fits);
        if (conn != NULL) {
            if (G_UNLIKELY (fast_tracing ()))
                g_debug ("fast: reusing connection to %s:%u (%u exchanges)", conn->host, conn->port,
                         conn->exchanges);
            u->conn = conn;
            u->reused = TRUE;
            exchange_ready (u);
            return;
        }
        u->addr_try = 0;
    }
    fast_connect_open (u);
}

/* The connection was lost before the server could act: once more, on a new one. */
static void
exchange_again (FastUser *u)
{
    u->retried = TRUE;
    u->sample->retries++;
    fast_exchange_start (u, TRUE);
}

/* Sends the hop that http_hop_response() chose, on a connection to its origin. */
static void
redirect (FastUser *u)
{
    const HttpStep *step = u->step;
    GUri *next = u->hop.uri;
    const HttpRequestText *text = &u->journey.request;
    gssize body_len = fast_body_length (step, text, u->hop.method, u->hop.body);
    const char *body;
    gsize length;
    g_autofree char *target = NULL;

    u->head_only = strcmp (u->hop.method, "HEAD") == 0;
    u->tls = g_ascii_strcasecmp (g_uri_get_scheme (next), "https") == 0;
    u->host = g_uri_get_host (next);
    u->port = g_uri_get_port (next) > 0 ? g_uri_get_port (next) : (u->tls ? 443 : 80);
    if (u->tls && u->fs->credentials == NULL) {
        exchange_fail (u, THRONG_ERROR_TLS, "no TLS credentials for the redirect");
        return;
    }

    target = fast_uri_target (next);
    g_string_truncate (u->out, 0);
    fast_request_head_append (u->out, u->hop.method, u->host, u->port, u->tls, target,
                              http_request_headers (step, text), body_len, !u->fs->keep_alive,
                              &u->hop);
    fast_append_cookies (u, next);
    g_string_append (u->out, "\r\n");
    body = http_request_body (step, text, &length);
    if (body_len > 0)
        g_string_append_len (u->out, body, body_len);
    u->req = (const guint8 *)u->out->str;
    u->req_len = u->out->len;
    u->retried = FALSE;
    fast_exchange_start (u, FALSE);
}

static void
hop_done (FastUser *u, guint status, const char *protocol)
{
    /* Only a redirect's Location is read here: other answers do not build the headers. */
    SoupMessageHeaders *headers
        = http_status_is_redirect (status) ? fast_response_headers (&u->response) : NULL;

    if (http_hop_response (&u->hop, u->step, status, headers, u->sample)) {
        redirect (u);
        return;
    }
    if (protocol != NULL)
        http_sample_note_protocol (u->sample, protocol);
    /*
     * A head that head.c scanned is parsed into fields (a fifth of a
     * checked request's instructions) only for a rule that reads them or
     * a body that may need decoding; one h2 or libsoup built costs nothing.
     */
    if (G_UNLIKELY (u->journey.active))
        http_journey_end (&u->journey, u->step, u->user, status,
                          !u->response.headers_pending || u->response.coded
                                  || http_journey_reads_headers (&u->journey, u->step)
                              ? fast_response_headers (&u->response)
                              : NULL,
                          http_hop_uri (&u->hop, u->step), u->sample);
    step_finish (u);
}

const FastExchangeEvents fast_exchange_events = {
    .ready = exchange_ready,
    .hop_done = hop_done,
    .fail = exchange_fail,
    .again = exchange_again,
};

/* When the exchange in flight must end: its deadline, or its connect's if earlier. */
static gint64
exchange_deadline (const FastUser *u)
{
    gboolean connecting
        = u->state == ST_RESOLVING || u->state == ST_CONNECTING || u->state == ST_HANDSHAKING;

    return connecting && u->connect_deadline < u->deadline ? u->connect_deadline : u->deadline;
}

void
fast_timer_fired (ThrongTimer *timer, gpointer data)
{
    FastUser *u = data;
    gint64 deadline;

    u->timer_at = -1;
    if (u->state == ST_IDLE)
        return;
    deadline = exchange_deadline (u);
    if (g_get_monotonic_time () < deadline) {
        fast_timer_need (u, deadline);
        /* Last: the read may end the step, and the user with it. */
        if (u->read_yielded) {
            /* The budget ran out with TLS bytes waiting that no poll announces. */
            u->read_yielded = FALSE;
            if (u->conn != NULL && u->conn->session != NULL)
                u->conn->session->resume (u);
        }
        return;
    }
    exchange_fail (u, THRONG_ERROR_TIMEOUT,
                   deadline == u->connect_deadline && deadline < u->deadline ? "connect timed out"
                                                                             : "step timed out");
}

gboolean
fast_exchange_joinable (const FastUser *owner, const char *host, guint16 port, gboolean tls)
{
    const FastConn *conn = owner->conn;

    return conn != NULL && conn->session != NULL && conn->session->joinable != NULL
           && conn->session->joinable (owner, host, port, tls);
}

void
fast_exchange_join (FastUser *u, FastUser *owner)
{
    owner->conn->session->join (u, owner);
}
