/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 exchanges of the fast transport (h1.h): writing the request,
 * reading the response through the parser (response.c) within a budget
 * per wakeup, the keep-alive decision, a retry on a kept-alive
 * connection the server had closed, and a kept-alive connection that
 * stirs while idle.  An exchange ends through u->fs->events (hop_done,
 * fail, again), the last thing any path here does: that may start the
 * user's next step or free the user.
 */
#include "h1.h"
#include "connect.h"
#include "cookies.h"
#include "pool.h"
#include "../errors.h"

#include <string.h>

static void read_some (FastUser *u);

/*
 * The kept-alive connection of the exchange was gone before the server
 * saw the request: send it once more, on a new connection.
 */
static void
retry (FastUser *u, const char *why)
{
    g_debug ("fast: kept-alive connection to %s:%u %s; retrying on a new one", u->host, u->port,
             why);
    fast_conn_close (u->conn, FALSE);
    u->conn = NULL;
    u->fs->events->again (u);
}

static void
write_some (FastUser *u)
{
    FastConn *conn = u->conn;
    GIOCondition want;
    FastError error;
    gsize n;

    while (u->req_off < u->req_len) {
        FastIo r = fast_conn_write (conn, u->req + u->req_off, u->req_len - u->req_off, &n, &want,
                                    &error);
        switch (r) {
        case FAST_IO_OK:
            u->req_off += n;
            u->sample->bytes_sent += n;
            continue;
        case FAST_IO_AGAIN:
            fast_conn_watch (conn, want);
            return;
        case FAST_IO_EOF:
        case FAST_IO_RESET:
            /* A kept-alive connection the server closed while idle: try once on a new one. */
            if (u->reused && !u->retried) {
                retry (u, "closed while the request was sent");
                return;
            }
            u->fs->events->fail (u, THRONG_ERROR_RESET,
                                 "connection closed while sending the request");
            return;
        case FAST_IO_ERROR:
            u->fs->events->fail (u, error.error_class, error.message);
            return;
        }
    }
    u->state = ST_READING_HEAD;
    fast_response_start (&u->response, u->head_only, u->step->max_body);
    if (G_UNLIKELY (u->journey.active && u->journey.keep)) {
        http_journey_hop (&u->journey);
        u->response.body = u->journey.body;
    }
    fast_conn_watch (conn, G_IO_IN);
    if (fast_conn_pending (conn))
        read_some (u);
}

static void
h1_submit (FastUser *u)
{
    u->state = ST_WRITING;
    u->req_off = 0;
    u->got_bytes = FALSE;
    write_some (u);
}

/*
 * The response is complete; @stray: bytes followed it that nothing asked
 * for, so the connection is not trusted with the next request.
 */
static void
response_done (FastUser *u, gboolean stray)
{
    FastConn *conn = u->conn;
    const FastResponse *response = &u->response;

    u->conn = NULL;
    conn->exchanges++;
    if (conn->want_ticket)
        fast_save_ticket (u, conn);
    if (G_UNLIKELY (stray))
        g_atomic_int_inc (&u->fs->http->unsolicited_closes);
    if (u->fs->keep_alive && response->framing.keep_alive && !stray)
        fast_pool_put (u, conn);
    else
        fast_conn_close (conn, FALSE);

    u->fs->events->hop_done (u, response->status, NULL);
}

/*
 * The parser refused the response, or the server cut it short.  A refused
 * response whose head was read gives the sample its status; a cut one
 * does not, as on soup, where no status is known before the body ends.
 */
static void
response_failed (FastUser *u)
{
    if (u->response.status != 0 && u->response.error_class != THRONG_ERROR_RESET)
        u->sample->status = (gint32)u->response.status;
    u->fs->events->fail (u, u->response.error_class, u->response.message);
}

/* Hands @len bytes to the parser; FALSE once the exchange has ended (done or failed). */
static gboolean
deliver (FastUser *u, const guint8 *data, gsize len)
{
    for (;;) {
        gsize used = 0;

        switch (fast_response_feed (&u->response, data, len, &used)) {
        case FAST_RESPONSE_MORE:
            return TRUE;
        case FAST_RESPONSE_HEAD:
            u->state = ST_READING_BODY;
            if (u->response.set_cookie)
                fast_store_cookies (u);
            data += used;
            len -= used;
            continue; /* even with nothing left: a response without a body ends now */
        case FAST_RESPONSE_DONE:
            response_done (u, used < len);
            return FALSE;
        case FAST_RESPONSE_ERROR:
        default:
            response_failed (u);
            return FALSE;
        }
    }
}

static void
connection_lost (FastUser *u, FastIo r, const FastError *error)
{
    /* A kept-alive connection the server closed before answering: send
     * again on a new one, once, when that cannot do anything twice — the
     * request did not all go out, or its method is idempotent. */
    gboolean safe = u->req_off < u->req_len || fast_method_is_idempotent (u->hop.method);
    if ((r == FAST_IO_EOF || r == FAST_IO_RESET) && u->reused && !u->retried && !u->got_bytes
        && safe) {
        retry (u, "closed before the response");
        return;
    }
    if (r != FAST_IO_EOF) {
        u->fs->events->fail (u, error->error_class, error->message);
        return;
    }
    /* The close ends a body read to the close; anything else it cuts short. */
    if (fast_response_eof (&u->response) == FAST_RESPONSE_DONE)
        response_done (u, FALSE);
    else
        response_failed (u);
}

/*
 * Reads and parses until the socket has nothing more, within a budget:
 * a server that sends faster than this reads must not hold the worker
 * (its other users, its timers) in this loop, nor outlive the step's
 * deadline.
 */
static void
read_some (FastUser *u)
{
    FastConn *conn = u->conn;
    guint8 *in_buffer = fast_in_buffer ();
    gsize budget = READ_BUDGET;
    GIOCondition want;
    FastError error;
    gsize n;

    u->read_yielded = FALSE;
    for (;;) {
        FastIo r = fast_conn_read (conn, in_buffer, IN_SIZE, &n, &want, &error);

        switch (r) {
        case FAST_IO_OK:
            if (!u->got_bytes) {
                u->got_bytes = TRUE;
                if (u->sample->latency_us == 0)
                    u->sample->latency_us = g_get_monotonic_time () - u->sample->start_us;
            }
            u->sample->bytes_received += n;
            if (G_UNLIKELY (conn->want_ticket))
                fast_save_ticket (u, conn);
            if (!deliver (u, in_buffer, n))
                return;
            if (n < IN_SIZE && !fast_conn_pending (conn))
                return;
            if (g_get_monotonic_time () >= u->deadline) {
                u->fs->events->fail (u, THRONG_ERROR_TIMEOUT, "step timed out");
                return;
            }
            budget = budget > n ? budget - n : 0;
            if (budget > 0)
                continue;
            /* Yield.  A plain socket stays readable; bytes TLS holds need the timer. */
            if (fast_conn_pending (conn)) {
                u->read_yielded = TRUE;
                fast_timer_need (u, g_get_monotonic_time ());
            }
            return;
        case FAST_IO_AGAIN:
            fast_conn_watch (conn, want);
            return;
        case FAST_IO_EOF:
        case FAST_IO_RESET:
        case FAST_IO_ERROR:
            connection_lost (u, r, &error);
            return;
        }
    }
}

static void
h1_resume (FastUser *u)
{
    if (u->state == ST_READING_HEAD || u->state == ST_READING_BODY)
        read_some (u);
}

/* A kept-alive connection stirred: a late TLS 1.3 ticket, or the server closing it. */
static void
h1_idle (FastUser *u, FastConn *conn)
{
    guint8 scratch[512];
    GIOCondition want;
    FastError error;
    gsize n;

    switch (fast_conn_read (conn, scratch, sizeof scratch, &n, &want, &error)) {
    case FAST_IO_AGAIN:
        if (conn->want_ticket)
            fast_save_ticket (u, conn);
        fast_conn_watch (conn, want);
        return;
    case FAST_IO_OK:
        /* Bytes nobody asked for (a body after a 204, a response to no
         * request): never read as the next request's response. */
        g_debug ("fast: %" G_GSIZE_FORMAT " bytes on an idle connection to %s:%u; closing it", n,
                 conn->host, conn->port);
        g_atomic_int_inc (&u->fs->http->unsolicited_closes);
        break;
    default:
        break;
    }
    fast_pool_remove (u, conn);
    fast_conn_close (conn, FALSE);
}

static void
h1_event (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastUser *u = data;

    if (conn != u->conn) {
        h1_idle (u, conn);
        return;
    }
    switch (u->state) {
    case ST_WRITING:
        write_some (u);
        break;
    case ST_READING_HEAD:
    case ST_READING_BODY:
        read_some (u);
        break;
    default:
        break;
    }
}

/* Nothing runs on the connection but u's exchange: the caller closes it. */
static gboolean
h1_terminate (FastUser *u)
{
    return FALSE;
}

static void
h1_connect (FastUser *u)
{
}

static gboolean
h1_busy (const FastConn *conn)
{
    return FALSE;
}

/* In the pool an HTTP/1.1 connection is idle, so it takes the next exchange. */
static gboolean
h1_room (const FastConn *conn)
{
    return TRUE;
}

const FastSession fast_h1_session = {
    .name = "http/1.1",
    .connect = h1_connect,
    .submit = h1_submit,
    .event = h1_event,
    .resume = h1_resume,
    .terminate = h1_terminate,
    .idle = h1_idle,
    .busy = h1_busy,
    .room = h1_room,
    .joinable = NULL,
    .join = NULL,
};
