/* SPDX-License-Identifier: MIT */
/*
 * The hostile HTTP/2 server (h2-server.h).  nghttp2's server session
 * parses and answers; what it refuses to send (a PUSH_PROMISE to a
 * client that disabled push, a DATA frame cut short) is written as raw
 * frame bytes after its output.  Blocking sockets (under GnuTLS for the
 * TLS server), one thread per connection, each polling with a short timeout so that free() stops
 * them promptly.
 */
#include "h2-server.h"

#include <errno.h>
#include <gio/gio.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FLOOD_FRAMES 5000

struct _ThrongTestH2Server {
    int fd;
    gnutls_certificate_credentials_t credentials; /* NULL: h2c */
    char *url;
    gint stopping;
    guint connections;
    guint max_streams; /* SETTINGS_MAX_CONCURRENT_STREAMS; 0: not sent */
    ThrongTestH2Handler handler; /* NULL: the hostile routes */
    gpointer handler_data;
    GThread *acceptor;
    GMutex lock;
    GPtrArray *threads;
};

typedef enum {
    ACT_NONE,
    ACT_OK,
    ACT_RST,
    ACT_GOAWAY,
    ACT_WINDOW,
    ACT_HUGE_HEADERS,
    ACT_PUSH,
    ACT_PING_FLOOD,
    ACT_SETTINGS_FLOOD,
    ACT_CUT,
    ACT_H1_REPLY,
    ACT_TLS_CUT,
    ACT_SLOW,
    ACT_SIZED,
} Action;

#define QUEUE_MAX 64
#define SLOW_US (200 * 1000)

static const struct {
    const char *path;
    Action action;
} routes[] = {
    { "/ok", ACT_OK },
    { "/rst", ACT_RST },
    { "/goaway", ACT_GOAWAY },
    { "/window", ACT_WINDOW },
    { "/huge-headers", ACT_HUGE_HEADERS },
    { "/push", ACT_PUSH },
    { "/ping-flood", ACT_PING_FLOOD },
    { "/settings-flood", ACT_SETTINGS_FLOOD },
    { "/cut", ACT_CUT },
    { "/h1-reply", ACT_H1_REPLY },
    { "/tls-cut", ACT_TLS_CUT },
    { "/slow", ACT_SLOW },
};

/* A request to the handler, while it is read: the stream's user data. */
typedef struct {
    char *method;
    char *path;
    SoupMessageHeaders *headers;
    GString *cookie; /* the crumbs, joined */
    gsize body_length;
} Request;

/* The handler's answer, owned here until it is due and submitted. */
typedef struct {
    gint32 stream;
    gint64 due;
    guint status;
    SoupMessageHeaders *headers;
    const char *body; /* static; NULL: none */
    gsize body_size;
    gboolean stall_body;
} Reply;

typedef struct {
    ThrongTestH2Server *server;
    int fd;
    gnutls_session_t tls; /* NULL: h2c */
    nghttp2_session *session;
    Action path_action; /* of the request whose head is being read */
    Action pending;     /* to do once mem_recv returned */
    gint32 pending_stream;
    gsize path_size;    /* /size/N: N */
    gsize pending_size;
    gsize queue_size[QUEUE_MAX];
    Action queue[QUEUE_MAX]; /* requests whose heads one read brought, in order */
    gint32 queue_stream[QUEUE_MAX];
    guint n_queue;
    gint32 slow[QUEUE_MAX]; /* /slow streams, answered at slow_due */
    gint64 slow_due[QUEUE_MAX];
    guint n_slow;
    gboolean close_after;
    gboolean discard;   /* no longer HTTP/2: read and drop until the peer goes */
    GArray *handled;    /* streams whose request is complete, for the handler */
    GPtrArray *replies; /* Reply, waiting for their time */
    GHashTable *requests; /* stream id → Request: those open when the session ends are freed too */
    GPtrArray *cursors;   /* where each reply's body is at */
} Conn;

static gboolean
send_all (Conn *c, const guint8 *data, gsize len)
{
    while (len > 0) {
        gssize n = c->tls != NULL ? gnutls_record_send (c->tls, data, len)
                                  : send (c->fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED))
            continue;
        if (n <= 0)
            return FALSE;
        data += n;
        len -= (gsize)n;
    }
    return TRUE;
}

static gboolean
drain (Conn *c)
{
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send (c->session, &data);
        if (n < 0)
            return FALSE;
        if (n == 0)
            return TRUE;
        if (!send_all (c, data, (gsize)n))
            return FALSE;
    }
}

/*
 * After a flood the server reads and drops until the client hangs up: the
 * client answers every frame (ACKs this server's session never asked for,
 * which it would refuse and close on), and a close with those unread
 * would reset the connection under the client while it is still writing
 * them, racing its own verdict on the flood.
 */
static void
flood_done (Conn *c)
{
    drain (c);
    c->discard = TRUE;
}

static void
frame_header (guint8 *out, guint32 length, guint8 type, guint8 flags, gint32 stream)
{
    out[0] = (guint8)(length >> 16);
    out[1] = (guint8)(length >> 8);
    out[2] = (guint8)length;
    out[3] = type;
    out[4] = flags;
    out[5] = (guint8)((guint32)stream >> 24) & 0x7f;
    out[6] = (guint8)((guint32)stream >> 16);
    out[7] = (guint8)((guint32)stream >> 8);
    out[8] = (guint8)stream;
}

static ssize_t
read_ok (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length, uint32_t *flags,
         nghttp2_data_source *source, void *data)
{
    memcpy (buf, "ok", 2);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 2;
}

static ssize_t
read_never (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
            uint32_t *flags, nghttp2_data_source *source, void *data)
{
    return NGHTTP2_ERR_DEFERRED;
}

/* /size/N: N bytes of 'x', the count left in the source's pointer (freed at the end). */
static ssize_t
read_sized (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
            uint32_t *flags, nghttp2_data_source *source, void *data)
{
    gsize *left = source->ptr;
    gsize n = MIN (*left, length);

    memset (buf, 'x', n);
    *left -= n;
    if (*left == 0) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        g_free (left);
    }
    return (ssize_t)n;
}

static void
respond_sized (Conn *c, gint32 stream, gsize size)
{
    nghttp2_nv nva[]
        = { { (uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE } };
    gsize *left = g_new (gsize, 1);
    nghttp2_data_provider provider = { .source.ptr = left, .read_callback = read_sized };

    *left = size;
    if (size == 0) {
        g_free (left);
        nghttp2_submit_response (c->session, stream, nva, 1, NULL);
        return;
    }
    nghttp2_submit_response (c->session, stream, nva, 1, &provider);
}

static void
respond (Conn *c, gint32 stream, const nghttp2_nv *extra, gsize n_extra, gboolean body)
{
    nghttp2_nv nva[1 + 200];
    nghttp2_data_provider provider = { .read_callback = body ? read_ok : read_never };

    nva[0] = (nghttp2_nv){ (uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE };
    for (gsize i = 0; i < n_extra; i++)
        nva[1 + i] = extra[i];
    nghttp2_submit_response (c->session, stream, nva, 1 + n_extra, &provider);
}

static void
act (Conn *c)
{
    gint32 stream = c->pending_stream;
    Action action = c->pending;
    guint8 raw[64];

    c->pending = ACT_NONE;
    switch (action) {
    case ACT_OK:
        respond (c, stream, NULL, 0, TRUE);
        break;
    case ACT_SIZED:
        respond_sized (c, stream, c->pending_size);
        break;
    case ACT_SLOW:
        if (c->n_slow < QUEUE_MAX) {
            c->slow[c->n_slow] = stream;
            c->slow_due[c->n_slow++] = g_get_monotonic_time () + SLOW_US;
        }
        break;
    case ACT_RST:
        nghttp2_submit_rst_stream (c->session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_INTERNAL_ERROR);
        break;
    case ACT_GOAWAY:
        if (stream == 1) {
            respond (c, stream, NULL, 0, TRUE);
            break;
        }
        nghttp2_submit_goaway (c->session, NGHTTP2_FLAG_NONE, stream - 2, NGHTTP2_NO_ERROR, NULL,
                               0);
        c->close_after = TRUE;
        break;
    case ACT_WINDOW:
        break;
    case ACT_HUGE_HEADERS: {
        static char value[1001];
        static char names[200][8];
        nghttp2_nv extra[200];
        memset (value, 'a', 1000);
        for (guint i = 0; i < 200; i++) {
            g_snprintf (names[i], sizeof names[i], "x-h%03u", i);
            extra[i] = (nghttp2_nv){ (uint8_t *)names[i], (uint8_t *)value, 6, 1000,
                                     NGHTTP2_NV_FLAG_NO_INDEX };
        }
        respond (c, stream, extra, 200, TRUE);
        break;
    }
    case ACT_PUSH: {
        /* Promised stream 2: :method GET, :scheme http, :path / (static table 2, 6, 4),
         * :authority "a" (a literal with name index 1). */
        static const guint8 block[] = { 0x82, 0x86, 0x84, 0x41, 0x01, 'a' };
        drain (c);
        frame_header (raw, 4 + sizeof block, NGHTTP2_PUSH_PROMISE, NGHTTP2_FLAG_END_HEADERS,
                      stream);
        raw[9] = 0, raw[10] = 0, raw[11] = 0, raw[12] = 2;
        memcpy (raw + 13, block, sizeof block);
        send_all (c, raw, 13 + sizeof block);
        respond (c, stream, NULL, 0, TRUE);
        break;
    }
    case ACT_PING_FLOOD:
        drain (c);
        for (guint i = 0; i < FLOOD_FRAMES; i++) {
            frame_header (raw, 8, NGHTTP2_PING, 0, 0);
            memset (raw + 9, 0, 8);
            if (!send_all (c, raw, 17))
                break;
        }
        respond (c, stream, NULL, 0, TRUE);
        flood_done (c);
        break;
    case ACT_SETTINGS_FLOOD:
        drain (c);
        for (guint i = 0; i < FLOOD_FRAMES; i++) {
            frame_header (raw, 0, NGHTTP2_SETTINGS, 0, 0);
            if (!send_all (c, raw, 9))
                break;
        }
        respond (c, stream, NULL, 0, TRUE);
        flood_done (c);
        break;
    case ACT_CUT:
        respond (c, stream, NULL, 0, FALSE);
        drain (c);
        frame_header (raw, 100, NGHTTP2_DATA, 0, stream);
        memset (raw + 9, 'x', 10);
        send_all (c, raw, 19);
        c->close_after = TRUE;
        break;
    case ACT_H1_REPLY: {
        static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        drain (c);
        send_all (c, (const guint8 *)reply, sizeof reply - 1);
        /* Kept open: a close with unread bytes would be a reset, racing the reply. */
        c->discard = TRUE;
        break;
    }
    case ACT_TLS_CUT:
        respond (c, stream, NULL, 0, FALSE);
        drain (c);
        frame_header (raw, 100, NGHTTP2_DATA, 0, stream);
        memset (raw + 9, 'x', 10);
        send_all (c, raw, 19);
        if (c->tls != NULL)
            gnutls_bye (c->tls, GNUTLS_SHUT_WR);
        c->discard = TRUE;
        break;
    case ACT_NONE:
    default:
        break;
    }
}

static int
on_header (nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
           size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *data)
{
    Conn *c = data;
    Request *request = frame->hd.type == NGHTTP2_HEADERS
                           ? nghttp2_session_get_stream_user_data (session, frame->hd.stream_id)
                           : NULL;

    if (request != NULL) {
        g_autofree char *n = g_strndup ((const char *)name, namelen);
        g_autofree char *v = g_strndup ((const char *)value, valuelen);
        if (strcmp (n, ":method") == 0)
            request->method = g_steal_pointer (&v);
        else if (strcmp (n, ":path") == 0)
            request->path = g_steal_pointer (&v);
        else if (strcmp (n, "cookie") == 0)
            g_string_append_printf (request->cookie, "%s%s", request->cookie->len > 0 ? "; " : "",
                                    v);
        else if (n[0] != ':')
            soup_message_headers_append (request->headers, n, v);
        return 0;
    }
    if (namelen != 5 || memcmp (name, ":path", 5) != 0)
        return 0;
    c->path_action = ACT_NONE;
    if (valuelen > 6 && memcmp (value, "/size/", 6) == 0) {
        c->path_action = ACT_SIZED;
        c->path_size = g_ascii_strtoull ((const char *)value + 6, NULL, 10);
        return 0;
    }
    for (guint i = 0; i < G_N_ELEMENTS (routes); i++)
        if (strlen (routes[i].path) == valuelen && memcmp (routes[i].path, value, valuelen) == 0)
            c->path_action = routes[i].action;
    return 0;
}

static int
on_frame_recv (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    Conn *c = data;

    /* The handler answers once the request's body is in. */
    if (c->server->handler != NULL) {
        if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA)
            && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
            && nghttp2_session_get_stream_user_data (session, frame->hd.stream_id) != NULL)
            g_array_append_val (c->handled, frame->hd.stream_id);
        return 0;
    }
    /* Acts once the head is in; a request body is never waited for. */
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST
        && c->n_queue < QUEUE_MAX) {
        c->queue[c->n_queue] = c->path_action != ACT_NONE ? c->path_action : ACT_OK;
        c->queue_size[c->n_queue] = c->path_size;
        c->queue_stream[c->n_queue++] = frame->hd.stream_id;
    }
    return 0;
}

static void
request_free (Request *request)
{
    g_free (request->method);
    g_free (request->path);
    soup_message_headers_unref (request->headers);
    g_string_free (request->cookie, TRUE);
    g_free (request);
}

static int
on_begin_headers (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    Conn *c = data;
    Request *request;

    if (c->server->handler == NULL || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    request = g_new0 (Request, 1);
    request->headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
    request->cookie = g_string_new (NULL);
    nghttp2_session_set_stream_user_data (session, frame->hd.stream_id, request);
    g_hash_table_insert (c->requests, GINT_TO_POINTER (frame->hd.stream_id), request);
    return 0;
}

static int
on_data_chunk (nghttp2_session *session, uint8_t flags, int32_t stream, const uint8_t *data,
               size_t len, void *user_data)
{
    Request *request = nghttp2_session_get_stream_user_data (session, stream);

    if (request == NULL)
        return 0;
    request->body_length += len;
    nghttp2_session_consume (session, stream, len);
    return 0;
}

static int
on_stream_close (nghttp2_session *session, int32_t stream, uint32_t error_code, void *data)
{
    Conn *c = data;

    if (nghttp2_session_get_stream_user_data (session, stream) != NULL) {
        nghttp2_session_set_stream_user_data (session, stream, NULL);
        g_hash_table_remove (c->requests, GINT_TO_POINTER (stream));
    }
    return 0;
}

static void
reply_free (Reply *reply)
{
    soup_message_headers_unref (reply->headers);
    g_free (reply);
}

static ssize_t
read_static (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
             uint32_t *flags, nghttp2_data_source *source, void *data)
{
    const char **next = source->ptr; /* the rest of the static body and its end (Conn.cursors) */
    gsize n = MIN ((gsize)(next[1] - next[0]), length);

    memcpy (buf, next[0], n);
    next[0] += n;
    if (next[0] == next[1])
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static void
reply_submit (Conn *c, Reply *reply)
{
    g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GArray) nva = g_array_new (FALSE, FALSE, sizeof (nghttp2_nv));
    g_autofree char *status = g_strdup_printf ("%u", reply->status);
    const char **cursor = g_new (const char *, 2);
    nghttp2_data_provider provider
        = { .source.ptr = cursor, .read_callback = reply->stall_body ? read_never : read_static };
    nghttp2_nv nv
        = { (uint8_t *)":status", (uint8_t *)status, 7, strlen (status), NGHTTP2_NV_FLAG_NONE };
    SoupMessageHeadersIter iter;
    const char *name, *value;

    cursor[0] = reply->body;
    cursor[1] = reply->body != NULL ? reply->body + reply->body_size : NULL;
    /* Kept to the connection's end: a stream may be reset before its body's end. */
    g_ptr_array_add (c->cursors, cursor);
    g_array_append_val (nva, nv);
    soup_message_headers_iter_init (&iter, reply->headers);
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        char *lower = g_ascii_strdown (name, -1);
        g_ptr_array_add (strings, lower);
        nv = (nghttp2_nv){ (uint8_t *)lower, (uint8_t *)value, strlen (lower), strlen (value),
                           NGHTTP2_NV_FLAG_NONE };
        g_array_append_val (nva, nv);
    }
    /* A stream the client reset meanwhile refuses it: nothing to do then. */
    nghttp2_submit_response (c->session, reply->stream, (nghttp2_nv *)(void *)nva->data, nva->len,
                             reply->body != NULL || reply->stall_body ? &provider : NULL);
}

/* The handler's answers to the requests completed by the last read. */
static void
handle_requests (Conn *c)
{
    for (guint i = 0; i < c->handled->len; i++) {
        gint32 stream = g_array_index (c->handled, gint32, i);
        Request *request = nghttp2_session_get_stream_user_data (c->session, stream);
        Reply *reply;
        ThrongTestH2Exchange exchange;

        if (request == NULL) /* reset by the client meanwhile */
            continue;
        reply = g_new0 (Reply, 1);
        exchange = (ThrongTestH2Exchange){
            .method = request->method != NULL ? request->method : "",
            .path = request->path != NULL ? request->path : "",
            .request_headers = request->headers,
            .body_length = request->body_length,
            .response_headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE),
        };

        if (request->cookie->len > 0)
            soup_message_headers_replace (request->headers, "Cookie", request->cookie->str);
        c->server->handler (&exchange, c->server->handler_data);
        reply->stream = stream;
        reply->status = exchange.status != 0 ? exchange.status : 404;
        reply->headers = exchange.response_headers;
        reply->body = strcmp (exchange.method, "HEAD") != 0 && exchange.body != NULL
                              && exchange.body[0] != '\0'
                          ? exchange.body
                          : NULL;
        if (reply->body != NULL)
            reply->body_size
                = exchange.body_size > 0 ? exchange.body_size : strlen (exchange.body);
        reply->stall_body = exchange.stall_body;
        reply->due = g_get_monotonic_time () + (gint64)exchange.delay_ms * 1000;
        g_ptr_array_add (c->replies, reply);
    }
    g_array_set_size (c->handled, 0);
}

/* Submits the replies that are due. */
static void
replies_due (Conn *c)
{
    gint64 now = g_get_monotonic_time ();

    for (guint i = 0; i < c->replies->len;) {
        Reply *reply = g_ptr_array_index (c->replies, i);
        if (reply->due > now) {
            i++;
            continue;
        }
        reply_submit (c, reply);
        g_ptr_array_remove_index_fast (c->replies, i);
    }
}

/* The blocking TLS handshake, offering ALPN h2 only. */
static gboolean
tls_start (Conn *c)
{
    static const gnutls_datum_t h2 = { (unsigned char *)"h2", 2 };
    int r;

    /* NO_SIGNAL: a client that closed first must fail the send, not kill the test (SIGPIPE),
     * as the plain send() above already says with MSG_NOSIGNAL. */
    gnutls_init (&c->tls, GNUTLS_SERVER | GNUTLS_NO_SIGNAL);
    gnutls_set_default_priority (c->tls);
    gnutls_credentials_set (c->tls, GNUTLS_CRD_CERTIFICATE, c->server->credentials);
    gnutls_alpn_set_protocols (c->tls, &h2, 1, 0);
    gnutls_transport_set_int (c->tls, c->fd);
    gnutls_handshake_set_timeout (c->tls, 5000);
    do
        r = gnutls_handshake (c->tls);
    while (r < 0 && !gnutls_error_is_fatal (r));
    return r == GNUTLS_E_SUCCESS;
}

static gpointer
conn_thread (gpointer data)
{
    Conn *c = data;
    nghttp2_session_callbacks *callbacks;
    nghttp2_option *option;
    guint8 buf[16384];
    gboolean ok;

    nghttp2_session_callbacks_new (&callbacks);
    nghttp2_session_callbacks_set_on_header_callback (callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback (callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_begin_headers_callback (callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback (callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback (callbacks, on_stream_close);
    nghttp2_option_new (&option);
    /* Without a handler request bodies are never consumed, so no
     * WINDOW_UPDATE goes out (/window); a handler's requests are (on_data_chunk). */
    nghttp2_option_set_no_auto_window_update (option, 1);
    nghttp2_option_set_max_send_header_block_length (option, 1 << 20);
    nghttp2_session_server_new2 (&c->session, callbacks, c, option);
    nghttp2_session_callbacks_del (callbacks);
    nghttp2_option_del (option);
    if (c->server->max_streams > 0) {
        nghttp2_settings_entry limit = { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
                                         c->server->max_streams };
        nghttp2_submit_settings (c->session, NGHTTP2_FLAG_NONE, &limit, 1);
    } else {
        nghttp2_submit_settings (c->session, NGHTTP2_FLAG_NONE, NULL, 0);
    }
    ok = c->server->credentials == NULL || tls_start (c);

    while (ok && !g_atomic_int_get (&c->server->stopping)) {
        struct pollfd pfd = { c->fd, POLLIN, 0 };
        gssize n;

        replies_due (c);
        for (guint i = 0; i < c->n_slow;) {
            if (g_get_monotonic_time () < c->slow_due[i]) {
                i++;
                continue;
            }
            respond (c, c->slow[i], NULL, 0, TRUE);
            c->slow[i] = c->slow[--c->n_slow];
            c->slow_due[i] = c->slow_due[c->n_slow];
        }
        if ((!c->discard && !drain (c)) || c->close_after)
            break;
        if ((c->tls == NULL || gnutls_record_check_pending (c->tls) == 0)
            && poll (&pfd, 1, 50) <= 0)
            continue;
        if (c->tls != NULL) {
            do
                n = gnutls_record_recv (c->tls, buf, sizeof buf);
            while (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED);
        } else {
            n = recv (c->fd, buf, sizeof buf, 0);
        }
        if (n <= 0)
            break;
        if (c->discard)
            continue;
        if (nghttp2_session_mem_recv (c->session, buf, (gsize)n) < 0)
            break;
        handle_requests (c);
        replies_due (c);
        for (guint i = 0; i < c->n_queue && !c->close_after && !c->discard; i++) {
            c->pending = c->queue[i];
            c->pending_stream = c->queue_stream[i];
            c->pending_size = c->queue_size[i];
            act (c);
        }
        c->n_queue = 0;
        if (!nghttp2_session_want_read (c->session) && !nghttp2_session_want_write (c->session))
            break;
    }
    if (ok && !c->discard)
        drain (c);
    nghttp2_session_del (c->session);
    g_array_unref (c->handled);
    g_ptr_array_unref (c->replies);
    g_hash_table_unref (c->requests);
    g_ptr_array_unref (c->cursors);
    if (c->tls != NULL)
        gnutls_deinit (c->tls);
    close (c->fd);
    g_free (c);
    return NULL;
}

static gpointer
accept_thread (gpointer data)
{
    ThrongTestH2Server *server = data;

    while (!g_atomic_int_get (&server->stopping)) {
        struct pollfd pfd = { server->fd, POLLIN, 0 };
        int fd;

        if (poll (&pfd, 1, 50) <= 0)
            continue;
        fd = accept (server->fd, NULL, NULL);
        if (fd < 0)
            continue;
        /* Frames go out in several writes: Nagle would hold one for the client's delayed ACK. */
        setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof (int));
        Conn *c = g_new0 (Conn, 1);
        c->server = server;
        c->fd = fd;
        c->handled = g_array_new (FALSE, FALSE, sizeof (gint32));
        c->replies = g_ptr_array_new_with_free_func ((GDestroyNotify)reply_free);
        c->requests
            = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)request_free);
        c->cursors = g_ptr_array_new_with_free_func (g_free);
        g_mutex_lock (&server->lock);
        server->connections++;
        g_ptr_array_add (server->threads, g_thread_new ("h2-conn", conn_thread, c));
        g_mutex_unlock (&server->lock);
    }
    return NULL;
}

static ThrongTestH2Server *
server_new (gnutls_certificate_credentials_t credentials, GError **error)
{
    ThrongTestH2Server *server;
    struct sockaddr_in addr = { .sin_family = AF_INET };
    socklen_t len = sizeof addr;
    int one = 1;
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind (fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen (fd, 64) < 0
        || getsockname (fd, (struct sockaddr *)&addr, &len) < 0) {
        int saved = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "h2 server: %s",
                     g_strerror (saved));
        if (fd >= 0)
            close (fd);
        if (credentials != NULL)
            gnutls_certificate_free_credentials (credentials);
        return NULL;
    }
    server = g_new0 (ThrongTestH2Server, 1);
    server->fd = fd;
    server->credentials = credentials;
    server->url = g_strdup_printf ("%s://127.0.0.1:%u", credentials != NULL ? "https" : "http",
                                   ntohs (addr.sin_port));
    server->threads = g_ptr_array_new ();
    g_mutex_init (&server->lock);
    server->acceptor = g_thread_new ("h2-accept", accept_thread, server);
    return server;
}

ThrongTestH2Server *
throng_test_h2_server_new (GError **error)
{
    return server_new (NULL, error);
}

ThrongTestH2Server *
throng_test_h2_server_new_tls (const char *cert_file, const char *key_file, GError **error)
{
    gnutls_certificate_credentials_t credentials;
    int r = gnutls_certificate_allocate_credentials (&credentials);

    if (r == 0)
        r = gnutls_certificate_set_x509_key_file (credentials, cert_file, key_file,
                                                  GNUTLS_X509_FMT_PEM);
    if (r < 0) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "h2 server: %s", gnutls_strerror (r));
        gnutls_certificate_free_credentials (credentials);
        return NULL;
    }
    return server_new (credentials, error);
}

const char *
throng_test_h2_server_url (ThrongTestH2Server *server)
{
    return server->url;
}

void
throng_test_h2_server_set_max_streams (ThrongTestH2Server *server, guint max_streams)
{
    server->max_streams = max_streams;
}

void
throng_test_h2_server_set_handler (ThrongTestH2Server *server, ThrongTestH2Handler handler,
                                   gpointer data)
{
    server->handler = handler;
    server->handler_data = data;
}

guint
throng_test_h2_server_connections (ThrongTestH2Server *server)
{
    guint n;

    g_mutex_lock (&server->lock);
    n = server->connections;
    g_mutex_unlock (&server->lock);
    return n;
}

void
throng_test_h2_server_free (ThrongTestH2Server *server)
{
    if (server == NULL)
        return;
    g_atomic_int_set (&server->stopping, 1);
    g_thread_join (server->acceptor);
    for (guint i = 0; i < server->threads->len; i++)
        g_thread_join (g_ptr_array_index (server->threads, i));
    g_ptr_array_unref (server->threads);
    g_mutex_clear (&server->lock);
    close (server->fd);
    if (server->credentials != NULL)
        gnutls_certificate_free_credentials (server->credentials);
    g_free (server->url);
    g_free (server);
}
