/* SPDX-License-Identifier: MIT */
/*
 * One exchange of the fast transport on the connection connect.c found:
 * writing the request, reading the response head (libsoup's parser) and
 * counting its body, the keep-alive decision, a retry on a kept-alive
 * connection the server had closed, cookies, and the hop that the shared
 * redirect policy (redirect.c) chose.  Every path that ends an exchange
 * goes through step_finish(), which calls throng_user_step_done() last:
 * that call may start the user's next step or free the user, so nothing
 * of the user is touched after it.
 */
#include "fast.h"
#include "../errors.h"

#include <string.h>
#include <gnutls/gnutls.h>

static void read_some (FastUser *u);

static gboolean
method_is_idempotent (const char *method)
{
    static const char *const idempotent[] = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" };

    for (guint i = 0; i < G_N_ELEMENTS (idempotent); i++)
        if (strcmp (method, idempotent[i]) == 0)
            return TRUE;
    return FALSE;
}

/* Ends the exchange; the last thing any path does. */
static void
step_finish (FastUser *u)
{
    ThrongUser *user = u->user;

    u->state = ST_IDLE;
    u->step = NULL;
    u->sample = NULL;
    throng_user_step_done (user);
}

void
fast_fail (FastUser *u, ThrongErrorClass error_class, const char *message)
{
    fast_lookup_abandon (u);
    if (u->conn != NULL) {
        fast_conn_close (u->conn, FALSE);
        u->conn = NULL;
    }
    http_sample_fail (u->sample, error_class, message);
    step_finish (u);
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
    u->in_len = 0;
    u->in_scanned = 0;
    fast_conn_watch (conn, G_IO_IN);
    if (fast_conn_pending (conn))
        read_some (u);
}

void
fast_request_ready (FastUser *u)
{
    u->state = ST_WRITING;
    u->req_off = 0;
    u->got_bytes = FALSE;
    write_some (u);
}

/* The response */

static void
store_cookies (FastUser *u)
{
    GUri *uri = http_hop_uri (&u->hop, u->step);
    SoupMessageHeadersIter iter;
    const char *name, *value;

    if (u->jar == NULL)
        u->jar = http_cookie_jar_new ();
    soup_message_headers_iter_init (&iter, u->headers);
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        if (g_ascii_strcasecmp (name, "Set-Cookie") == 0)
            soup_cookie_jar_set_cookie (u->jar, uri, value);
    }
}

/* Appends the user's cookies for @uri as a Cookie line; FALSE when there are none. */
gboolean
fast_append_cookies (FastUser *u, GUri *uri)
{
    char *cookies;

    if (u->jar == NULL)
        return FALSE;
    cookies = soup_cookie_jar_get_cookies (u->jar, uri, TRUE);
    if (cookies == NULL)
        return FALSE;
    g_string_append (u->out, "Cookie: ");
    g_string_append (u->out, cookies);
    g_string_append (u->out, "\r\n");
    g_free (cookies);
    return TRUE;
}

/* Sends the hop that http_hop_response() chose, on a connection to its origin. */
static void
redirect (FastUser *u)
{
    const HttpStep *step = u->step;
    GUri *next = u->hop.uri;
    gssize body_len = fast_body_length (step, u->hop.method, u->hop.body);
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
                              step->headers, body_len, !u->fs->keep_alive);
    fast_append_cookies (u, next);
    g_string_append (u->out, "\r\n");
    if (body_len > 0)
        g_string_append_len (u->out, g_bytes_get_data (step->body, NULL), body_len);
    u->req = (const guint8 *)u->out->str;
    u->req_len = u->out->len;
    u->retried = FALSE;
    fast_exchange_start (u, FALSE);
}

static void
response_done (FastUser *u)
{
    FastConn *conn = u->conn;

    u->conn = NULL;
    conn->exchanges++;
    if (conn->want_ticket)
        fast_save_ticket (u, conn);
    if (u->close_after)
        fast_conn_close (conn, FALSE);
    else
        fast_pool_put (u, conn);

    if (http_hop_response (&u->hop, u->step, u->status, u->headers, u->sample))
        redirect (u);
    else
        step_finish (u);
}

/* Counts body bytes; FALSE once the exchange has ended (done or failed). */
static gboolean
body_feed (FastUser *u, const guint8 *data, gsize len)
{
    gsize used;

    if (len == 0)
        return TRUE;
    switch (u->body_kind) {
    case BODY_LENGTH:
        used = MIN (len, u->body_left);
        u->body_left -= used;
        u->body_bytes += used;
        if (u->body_left > 0)
            return TRUE;
        /* Bytes past the body: nothing was asked for, so the connection is not trusted. */
        if (len > used)
            u->close_after = TRUE;
        response_done (u);
        return FALSE;
    case BODY_CHUNKED:
        switch (fast_chunked_feed (&u->chunked, data, len, u->step->max_body, &used)) {
        case FAST_BODY_MORE:
            return TRUE;
        case FAST_BODY_DONE:
            if (len > used)
                u->close_after = TRUE;
            u->body_bytes = u->chunked.total;
            response_done (u);
            return FALSE;
        case FAST_BODY_LIMIT:
            u->sample->status = u->status;
            fast_fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            return FALSE;
        case FAST_BODY_BAD:
        default:
            u->sample->status = u->status;
            fast_fail (u, THRONG_ERROR_PROTOCOL, "malformed chunked body");
            return FALSE;
        }
    case BODY_EOF:
        u->body_bytes += len;
        if (u->body_bytes > u->step->max_body) {
            u->sample->status = u->status;
            fast_fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            return FALSE;
        }
        return TRUE;
    case BODY_NONE:
    default:
        g_assert_not_reached ();
    }
    return FALSE;
}

static gboolean
head_done (FastUser *u, SoupHTTPVersion version, gsize head_len)
{
    SoupMessageHeaders *headers = u->headers;
    guint status = u->status;
    gsize rest = u->in_len - head_len;

    u->close_after
        = !u->fs->keep_alive
          || soup_message_headers_header_contains (headers, "Connection", "close")
          || (version == SOUP_HTTP_1_0
              && !soup_message_headers_header_contains (headers, "Connection", "keep-alive"));
    if (soup_message_headers_get_one (headers, "Set-Cookie") != NULL)
        store_cookies (u);

    u->body_bytes = 0;
    if (u->head_only || status == 204 || status == 304 || status < 200) {
        u->body_kind = BODY_NONE;
        if (status == 101)
            u->close_after = TRUE;
    } else {
        switch (soup_message_headers_get_encoding (headers)) {
        case SOUP_ENCODING_CHUNKED:
            u->body_kind = BODY_CHUNKED;
            fast_chunked_init (&u->chunked);
            break;
        case SOUP_ENCODING_CONTENT_LENGTH: {
            const char *value = soup_message_headers_get_list (headers, "Content-Length");
            if (value == NULL || !fast_parse_content_length (value, &u->body_left)) {
                u->sample->status = status;
                fast_fail (u, THRONG_ERROR_PROTOCOL, "invalid Content-Length");
                return FALSE;
            }
            if (u->body_left > u->step->max_body) {
                u->sample->status = status;
                fast_fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
                return FALSE;
            }
            u->body_kind = u->body_left > 0 ? BODY_LENGTH : BODY_NONE;
            break;
        }
        case SOUP_ENCODING_EOF:
            u->body_kind = BODY_EOF;
            u->close_after = TRUE;
            break;
        case SOUP_ENCODING_NONE:
            u->body_kind = BODY_NONE;
            break;
        default:
            u->sample->status = status;
            fast_fail (u, THRONG_ERROR_PROTOCOL, "unsupported transfer encoding");
            return FALSE;
        }
    }

    if (u->body_kind == BODY_NONE) {
        if (rest > 0)
            u->close_after = TRUE;
        response_done (u);
        return FALSE;
    }
    u->state = ST_READING_BODY;
    return body_feed (u, u->in + head_len, rest);
}

/* Takes @n new bytes at u->in + u->in_len; FALSE once the exchange has ended. */
static gboolean
consume (FastUser *u, gsize n)
{
    if (u->state == ST_READING_BODY)
        return body_feed (u, u->in, n);

    u->in_len += n;
    for (;;) {
        gsize end = fast_head_end (u->in, u->in_len, u->in_scanned);
        SoupHTTPVersion version;
        guint status;

        if (end == 0) {
            u->in_scanned = u->in_len;
            return TRUE;
        }
        soup_message_headers_clear (u->headers);
        /* libsoup reads the status code with strtoul, which wants a string
         * that ends; the byte is put back after parsing. */
        guint8 saved = u->in[end];
        u->in[end] = '\0';
        gboolean parsed = soup_headers_parse_response ((const char *)u->in, end, u->headers,
                                                       &version, &status, NULL);
        u->in[end] = saved;
        if (!parsed) {
            fast_fail (u, THRONG_ERROR_PROTOCOL, "malformed response head");
            return FALSE;
        }
        if (status >= 100 && status < 200 && status != 101) {
            /* An interim response (100 Continue, 103 Early Hints): the real one follows. */
            memmove (u->in, u->in + end, u->in_len - end);
            u->in_len -= end;
            u->in_scanned = 0;
            continue;
        }
        u->status = status;
        return head_done (u, version, end);
    }
}

static void
connection_lost (FastUser *u, FastIo r, const FastError *error)
{
    /* A kept-alive connection the server closed before answering: send
     * again on a new one, once, when that cannot do anything twice — the
     * request did not all go out, or its method is idempotent. */
    gboolean safe = u->req_off < u->req_len || method_is_idempotent (u->hop.method);
    if ((r == FAST_IO_EOF || r == FAST_IO_RESET) && u->reused && !u->retried && !u->got_bytes
        && safe) {
        retry (u, "closed before the response");
        return;
    }
    if (r == FAST_IO_EOF)
        fast_fail (u, THRONG_ERROR_RESET, "connection closed before the response was complete");
    else
        fast_fail (u, error->error_class, error->message);
}

static void
read_some (FastUser *u)
{
    FastConn *conn = u->conn;
    GIOCondition want;
    FastError error;
    gsize n;

    for (;;) {
        gsize space;
        FastIo r;

        if (u->state == ST_READING_BODY) {
            u->in_len = 0; /* body bytes are counted, not kept */
        } else if (u->in_len == u->in_size) {
            if (u->in_size >= FAST_MAX_HEAD) {
                fast_fail (u, THRONG_ERROR_PROTOCOL, "response head too large");
                return;
            }
            u->in_size *= 2;
            u->in = g_realloc (u->in, u->in_size + 1);
        }
        space = u->in_size - u->in_len;
        r = fast_conn_read (conn, u->in + u->in_len, space, &n, &want, &error);
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
            if (!consume (u, n))
                return;
            if (n == space || fast_conn_pending (conn))
                continue;
            return;
        case FAST_IO_AGAIN:
            fast_conn_watch (conn, want);
            return;
        case FAST_IO_EOF:
            if (u->state == ST_READING_BODY && u->body_kind == BODY_EOF) {
                response_done (u);
                return;
            }
            connection_lost (u, r, &error);
            return;
        case FAST_IO_RESET:
        case FAST_IO_ERROR:
            connection_lost (u, r, &error);
            return;
        }
    }
}

void
fast_conn_event (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastUser *u = data;

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
