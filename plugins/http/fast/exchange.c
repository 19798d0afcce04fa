/* SPDX-License-Identifier: MIT */
/*
 * One exchange of the fast transport on the connection connect.c found:
 * writing the request, reading the response through the parser
 * (response.c) within a budget per wakeup, the keep-alive decision, a
 * retry on a kept-alive connection the server had closed, cookies, and
 * the hop that the shared redirect policy (redirect.c) chose.  Every path that ends an exchange
 * goes through fast_step_finish(), which calls throng_user_step_done() last:
 * that call may start the user's next step or free the user, so nothing
 * of the user is touched after it.
 */
#include "fast.h"
#include "h2.h"
#include "../errors.h"

#include <string.h>
#include <gnutls/gnutls.h>

static void read_some (FastUser *u);

gboolean
fast_method_is_idempotent (const char *method)
{
    static const char *const idempotent[] = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" };

    for (guint i = 0; i < G_N_ELEMENTS (idempotent); i++)
        if (strcmp (method, idempotent[i]) == 0)
            return TRUE;
    return FALSE;
}

/* Ends the exchange; the last thing any path does. */
void
fast_step_finish (FastUser *u)
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
fast_fail (FastUser *u, ThrongErrorClass error_class, const char *message)
{
    fast_lookup_abandon (u);
    if (u->conn != NULL && !fast_h2_abandon (u))
        fast_conn_close (u->conn, FALSE);
    u->conn = NULL;
    http_sample_fail (u->sample, error_class, message);
    fast_step_finish (u);
}

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
    u->retried = TRUE;
    u->sample->retries++;
    fast_exchange_start (u, TRUE);
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
            fast_fail (u, THRONG_ERROR_RESET, "connection closed while sending the request");
            return;
        case FAST_IO_ERROR:
            fast_fail (u, error.error_class, error.message);
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

void
fast_request_ready (FastUser *u)
{
    if (u->step->version != HTTP_VERSION_1_1 && fast_h2_request_ready (u))
        return;
    u->state = ST_WRITING;
    u->req_off = 0;
    u->got_bytes = FALSE;
    write_some (u);
}

/* The response */

void
fast_store_cookies (FastUser *u)
{
    GUri *uri = http_hop_uri (&u->hop, u->step);
    SoupMessageHeadersIter iter;
    const char *name, *value;

    if (u->jar == NULL)
        u->jar = http_cookie_jar_new ();
    soup_message_headers_iter_init (&iter, fast_response_headers (&u->response));
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        if (g_ascii_strcasecmp (name, "Set-Cookie") == 0)
            soup_cookie_jar_set_cookie (u->jar, uri, value);
    }
}

/* Where the head in @out has a Cookie field (the step's own header): the end of its value, or -1. */
static gssize
cookie_field_end (const GString *out)
{
    for (const char *line = strstr (out->str, "\r\n"); line != NULL;
         line = strstr (line + 2, "\r\n")) {
        if (g_ascii_strncasecmp (line + 2, "Cookie:", 7) == 0) {
            const char *end = strstr (line + 2, "\r\n");
            return end != NULL ? end - out->str : -1;
        }
    }
    return -1;
}

/*
 * Appends the user's cookies for @uri to the head in u->out; FALSE when
 * there are none.  A request carries one Cookie field (RFC 6265 §5.4):
 * when the step sends its own, the jar's cookies join it after "; ", as
 * the soup transport's jar does; otherwise they make a Cookie line.
 */
gboolean
fast_append_cookies (FastUser *u, GUri *uri)
{
    char *cookies;
    gssize own;

    if (u->jar == NULL)
        return FALSE;
    cookies = soup_cookie_jar_get_cookies (u->jar, uri, TRUE);
    if (cookies == NULL)
        return FALSE;
    own = cookie_field_end (u->out);
    if (own >= 0) {
        g_string_insert (u->out, own, cookies);
        g_string_insert (u->out, own, "; ");
    } else {
        g_string_append (u->out, "Cookie: ");
        g_string_append (u->out, cookies);
        g_string_append (u->out, "\r\n");
    }
    g_free (cookies);
    return TRUE;
}

/* Sends the hop that http_hop_response() chose, on a connection to its origin. */
void
fast_redirect (FastUser *u)
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
        fast_fail (u, THRONG_ERROR_TLS, "no TLS credentials for the redirect");
        return;
    }

    target = fast_uri_target (next);
    g_string_truncate (u->out, 0);
    fast_request_head_append (u->out, u->hop.method, u->host, u->port, u->tls, target,
                              http_request_headers (step, text), body_len, !u->fs->keep_alive);
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

    fast_hop_done (u, response->status, NULL);
}

void
fast_hop_done (FastUser *u, guint status, const char *protocol)
{
    /* Only a redirect's Location is read here: other answers do not build the headers. */
    SoupMessageHeaders *headers
        = http_status_is_redirect (status) ? fast_response_headers (&u->response) : NULL;

    if (http_hop_response (&u->hop, u->step, status, headers, u->sample)) {
        fast_redirect (u);
        return;
    }
    if (protocol != NULL)
        http_sample_note_protocol (u->sample, protocol);
    if (G_UNLIKELY (u->journey.active))
        http_journey_end (&u->journey, u->step, u->user, status,
                          http_journey_reads_headers (&u->journey, u->step)
                              ? fast_response_headers (&u->response)
                              : NULL,
                          http_hop_uri (&u->hop, u->step), u->sample);
    fast_step_finish (u);
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
    fast_fail (u, u->response.error_class, u->response.message);
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
        fast_fail (u, error->error_class, error->message);
        return;
    }
    /* The close ends a body read to the close; anything else it cuts short. */
    if (fast_response_eof (&u->response) == FAST_RESPONSE_DONE)
        response_done (u, FALSE);
    else
        response_failed (u);
}

/*
 * What one read brings: the worker thread's, not the user's, since every
 * byte is parsed (the head copied, the body counted) before the read
 * returns, and most users are idle (docs/memory.md).
 */
static _Thread_local guint8 in_buffer[IN_SIZE];

guint8 *
fast_in_buffer (void)
{
    return in_buffer;
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
                fast_fail (u, THRONG_ERROR_TIMEOUT, "step timed out");
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

void
fast_read_resume (FastUser *u)
{
    u->read_yielded = FALSE;
    if (u->conn != NULL && u->conn->h2 != NULL) {
        fast_h2_event (u);
        return;
    }
    if (u->conn != NULL && (u->state == ST_READING_HEAD || u->state == ST_READING_BODY))
        read_some (u);
}

void
fast_conn_event (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastUser *u = data;

    if (conn->h2 != NULL) {
        /* streams of several exchanges may share it: the connection decides */
        fast_h2_conn_event (conn);
        return;
    }
    if (conn != u->conn) {
        fast_idle_event (u, conn);
        return;
    }
    switch (u->state) {
    case ST_CONNECTING:
        fast_connected (u);
        break;
    case ST_HANDSHAKING:
        fast_handshake_step (u);
        break;
    case ST_WRITING:
        write_some (u);
        break;
    case ST_READING_HEAD:
    case ST_READING_BODY:
        read_some (u);
        break;
    case ST_IDLE:
    case ST_RESOLVING:
    default:
        break;
    }
}
