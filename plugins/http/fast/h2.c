/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 exchanges of the fast transport (h2.h).  libnghttp2 does the
 * framing, HPACK and flow control in memory (mem_recv/mem_send); this
 * file moves bytes between it and the FastConn, turns a stream into an
 * exchange (headers into u->response.headers, so that cookies and the
 * redirect policy are HTTP/1.1's own), and decides how a stream ends.
 *
 * nghttp2 calls back from inside mem_recv/mem_send, where the session
 * must not be freed; so callbacks only record the stream's outcome, and
 * h2_settle() acts on it once the library call returned.  A stream
 * failure (RST_STREAM, a refused head) fails the step and keeps the
 * connection; a connection failure (a GOAWAY with an error, a frame the
 * library refuses, a flood) fails it and closes the connection.  A user
 * runs one exchange at a time, so at most one stream is open and the
 * server's SETTINGS_MAX_CONCURRENT_STREAMS cannot be exceeded.
 */
#include "fast.h"
#include "h2.h"
#include "../errors.h"

#include <string.h>
#include <nghttp2/nghttp2.h>

/* Our windows, as h2load's defaults (-w 30 -W 30): flow control never paces a download. */
#define H2_WINDOW ((1 << 30) - 1)
/* PING and SETTINGS frames accepted between two frames of the stream: more is a flood. */
#define H2_CONTROL_MAX 1000

typedef enum {
    H2_OPEN,    /* the stream is in flight */
    H2_DONE,    /* closed cleanly with a final response */
    H2_FAILED,  /* the stream failed; the connection may go on */
    H2_REFUSED, /* the server did not process it (REFUSED_STREAM, above GOAWAY's last id) */
    H2_BROKEN,  /* the connection failed */
} H2Outcome;

struct _FastH2 {
    nghttp2_session *session;
    FastUser *user;    /* the connection's owner */
    const guint8 *out; /* what mem_send returned and the socket has not taken */
    gsize out_len;
    gboolean goaway; /* the server sent GOAWAY: no new stream on this connection */
    GArray *nva;     /* nghttp2_nv, reused per request */
    GString *text;   /* the request's :authority and lower-case names, reused */

    /* the stream in flight */
    gint32 stream_id;
    H2Outcome outcome;
    guint status;
    gboolean got_head;
    gboolean remote_ended; /* the response's END_STREAM arrived */
    gsize header_bytes;
    guint64 body_bytes;
    const guint8 *body;
    gsize body_len;
    gsize body_off;
    guint control_frames;
    guint8 last_control; /* the type of the last PING or SETTINGS frame */
    ThrongErrorClass error_class;
    char message[160]; /* why it failed, naming the frame or error code */
};

static const gnutls_datum_t alpn_h2[] = { { (unsigned char *)"h2", 2 } };
static const gnutls_datum_t alpn_auto[]
    = { { (unsigned char *)"h2", 2 }, { (unsigned char *)"http/1.1", 8 } };

guint
fast_h2_alpn (int version, const gnutls_datum_t **protocols)
{
    switch (version) {
    case HTTP_VERSION_2:
        *protocols = alpn_h2;
        return G_N_ELEMENTS (alpn_h2);
    case HTTP_VERSION_AUTO:
        *protocols = alpn_auto;
        return G_N_ELEMENTS (alpn_auto);
    default:
        *protocols = NULL;
        return 0;
    }
}

gboolean
fast_h2_conn_fits (const FastConn *conn, int version)
{
    switch (version) {
    case HTTP_VERSION_2:
        return conn->h2 != NULL && !conn->h2->goaway;
    case HTTP_VERSION_AUTO:
        /* Whatever the connection speaks; a new one over http:// is HTTP/1.1. */
        return conn->h2 == NULL || !conn->h2->goaway;
    default:
        return conn->h2 == NULL;
    }
}

/*
 * Records the stream's end; the first outcome stands (a connection that
 * breaks after a stream failed is not reused: h2_release() sees it).
 */
static void h2_end (FastH2 *h2, H2Outcome outcome, ThrongErrorClass error_class, const char *format,
                    ...) G_GNUC_PRINTF (4, 5);

static void
h2_end (FastH2 *h2, H2Outcome outcome, ThrongErrorClass error_class, const char *format, ...)
{
    va_list args;

    if (h2->outcome != H2_OPEN)
        return;
    h2->outcome = outcome;
    h2->error_class = error_class;
    if (format == NULL) {
        h2->message[0] = '\0';
        return;
    }
    va_start (args, format);
    g_vsnprintf (h2->message, sizeof h2->message, format, args);
    va_end (args);
}

/* Callbacks: they record, never end the exchange (see the top of the file). */

/* Refuses the rest of the response: the stream ends, the connection goes on. */
static void
h2_cancel (FastH2 *h2)
{
    nghttp2_submit_rst_stream (h2->session, NGHTTP2_FLAG_NONE, h2->stream_id, NGHTTP2_CANCEL);
}

static int
on_begin_headers (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    FastH2 *h2 = data;

    if (frame->hd.type == NGHTTP2_HEADERS && frame->hd.stream_id == h2->stream_id) {
        soup_message_headers_clear (h2->user->response.headers);
        h2->header_bytes = 0;
    }
    return 0;
}

static int
on_header (nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
           size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *data)
{
    FastH2 *h2 = data;
    FastUser *u = h2->user;

    if (frame->hd.stream_id != h2->stream_id || h2->outcome != H2_OPEN)
        return 0;
    /* RFC 9113 §6.5.2: each field counts its name, its value and 32. */
    h2->header_bytes += namelen + valuelen + 32;
    if (h2->header_bytes > HTTP_MAX_HEAD) {
        h2_end (h2, H2_FAILED, THRONG_ERROR_PROTOCOL,
                "HEADERS: header block over %d bytes (RST_STREAM sent)", HTTP_MAX_HEAD);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    if (namelen == 7 && memcmp (name, ":status", 7) == 0) {
        h2->status = valuelen == 3 ? (guint)g_ascii_strtoull ((const char *)value, NULL, 10) : 0;
        return 0;
    }
    if (namelen > 0 && name[0] == ':')
        return 0;
    soup_message_headers_append (u->response.headers, (const char *)name, (const char *)value);
    return 0;
}

static int
on_frame_recv (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    FastH2 *h2 = data;
    FastUser *u = h2->user;

    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA)
        && frame->hd.stream_id == h2->stream_id && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        h2->remote_ended = TRUE;
    switch (frame->hd.type) {
    case NGHTTP2_PING:
    case NGHTTP2_SETTINGS:
        h2->last_control = frame->hd.type;
        if (++h2->control_frames > H2_CONTROL_MAX)
            h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL,
                    "%s flood: over %d control frames during one request",
                    frame->hd.type == NGHTTP2_PING ? "PING" : "SETTINGS", H2_CONTROL_MAX);
        return 0;
    case NGHTTP2_GOAWAY:
        h2->goaway = TRUE;
        g_debug ("fast: GOAWAY from %s:%u (last stream %d, %s)", u->host, u->port,
                 frame->goaway.last_stream_id, nghttp2_http2_strerror (frame->goaway.error_code));
        if (h2->stream_id > frame->goaway.last_stream_id)
            h2_end (h2, H2_REFUSED, THRONG_ERROR_PROTOCOL,
                    "GOAWAY (%s): stream %d above the last stream id %d",
                    nghttp2_http2_strerror (frame->goaway.error_code), h2->stream_id,
                    frame->goaway.last_stream_id);
        else if (frame->goaway.error_code != NGHTTP2_NO_ERROR)
            h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL, "GOAWAY from the server: %s",
                    nghttp2_http2_strerror (frame->goaway.error_code));
        return 0;
    case NGHTTP2_RST_STREAM:
        if (frame->hd.stream_id == h2->stream_id) {
            /* RFC 9113 §8.1: a complete response, then "stop sending the request". */
            if (frame->rst_stream.error_code == NGHTTP2_NO_ERROR && h2->got_head
                && h2->remote_ended)
                h2_end (h2, H2_DONE, THRONG_ERROR_NONE, NULL);
            else if (frame->rst_stream.error_code == NGHTTP2_REFUSED_STREAM)
                h2_end (h2, H2_REFUSED, THRONG_ERROR_PROTOCOL,
                        "RST_STREAM (REFUSED_STREAM) from the server");
            else
                h2_end (h2, H2_FAILED, THRONG_ERROR_PROTOCOL, "RST_STREAM (%s) from the server",
                        nghttp2_http2_strerror (frame->rst_stream.error_code));
        }
        return 0;
    case NGHTTP2_HEADERS:
        if (frame->hd.stream_id != h2->stream_id || h2->outcome != H2_OPEN)
            return 0;
        h2->control_frames = 0;
        if (u->sample->latency_us == 0)
            u->sample->latency_us = g_get_monotonic_time () - u->sample->start_us;
        /* 1xx other than 101: interim, the final head follows (nghttp2 bounds them). */
        if (h2->status >= 100 && h2->status < 200)
            return 0;
        if (h2->status < 200 || h2->status > 599) {
            h2_end (h2, H2_FAILED, THRONG_ERROR_PROTOCOL, "HEADERS: status %u out of range",
                    h2->status);
            h2_cancel (h2);
            return 0;
        }
        h2->got_head = TRUE;
        u->state = ST_READING_BODY;
        /* As over HTTP/1.1: a declared length over max_body fails at the head. */
        if ((guint64)soup_message_headers_get_content_length (u->response.headers)
            > u->step->max_body) {
            h2_end (h2, H2_FAILED, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            h2_cancel (h2);
            return 0;
        }
        if (soup_message_headers_get_one (u->response.headers, "Set-Cookie") != NULL)
            fast_store_cookies (u);
        return 0;
    case NGHTTP2_DATA:
        if (frame->hd.stream_id == h2->stream_id)
            h2->control_frames = 0;
        return 0;
    default:
        return 0;
    }
}

static int
on_data_chunk (nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
               size_t len, void *user_data)
{
    FastH2 *h2 = user_data;

    if (stream_id != h2->stream_id || h2->outcome != H2_OPEN)
        return 0;
    h2->body_bytes += len;
    if (G_UNLIKELY (h2->user->journey.active && h2->user->journey.keep)
        && h2->body_bytes <= h2->user->step->max_body)
        g_string_append_len (h2->user->journey.body, (const char *)data, (gssize)len);
    if (h2->body_bytes > h2->user->step->max_body) {
        h2_end (h2, H2_FAILED, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
        h2_cancel (h2);
    }
    return 0;
}

static int
on_stream_close (nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *data)
{
    FastH2 *h2 = data;

    if (stream_id != h2->stream_id)
        return 0;
    if (error_code == NGHTTP2_REFUSED_STREAM)
        h2_end (h2, H2_REFUSED, THRONG_ERROR_PROTOCOL, "stream %d refused (REFUSED_STREAM)",
                stream_id);
    else if (error_code != NGHTTP2_NO_ERROR)
        h2_end (h2, H2_FAILED, THRONG_ERROR_PROTOCOL, "stream closed with %s",
                nghttp2_http2_strerror (error_code));
    else if (!h2->got_head)
        h2_end (h2, H2_FAILED, THRONG_ERROR_PROTOCOL, "stream ended without a final response");
    else
        h2_end (h2, H2_DONE, THRONG_ERROR_NONE, NULL);
    return 0;
}

static int
on_invalid_frame (nghttp2_session *session, const nghttp2_frame *frame, int lib_error_code,
                  void *data)
{
    FastH2 *h2 = data;
    static const char *const names[]
        = { "DATA",         "HEADERS", "PRIORITY", "RST_STREAM",    "SETTINGS",
            "PUSH_PROMISE", "PING",    "GOAWAY",   "WINDOW_UPDATE", "CONTINUATION" };
    const char *name = frame->hd.type < G_N_ELEMENTS (names) ? names[frame->hd.type] : "unknown";

    /* Our SETTINGS said ENABLE_PUSH 0: nghttp2 refuses any promise as a connection error. */
    if (frame->hd.type == NGHTTP2_PUSH_PROMISE) {
        h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL,
                "PUSH_PROMISE although push is disabled (PROTOCOL_ERROR)");
        return 0;
    }

    h2_end (h2, frame->hd.stream_id == h2->stream_id ? H2_FAILED : H2_BROKEN, THRONG_ERROR_PROTOCOL,
            "invalid %s frame: %s", name, nghttp2_strerror (lib_error_code));
    return 0;
}

static int
on_error (nghttp2_session *session, int lib_error_code, const char *msg, size_t len, void *data)
{
    FastH2 *h2 = data;

    /* The library's own words for a connection error it answers with GOAWAY. */
    if (h2->outcome == H2_OPEN)
        g_snprintf (h2->message, sizeof h2->message, "%.*s", (int)len, msg);
    return 0;
}

/* nghttp2 answers a connection error with a GOAWAY of its own: that names what went wrong. */
static int
on_frame_send (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    FastH2 *h2 = data;
    const nghttp2_goaway *goaway = &frame->goaway;

    if (frame->hd.type != NGHTTP2_GOAWAY || goaway->error_code == NGHTTP2_NO_ERROR)
        return 0;
    h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL, "the server broke HTTP/2: GOAWAY (%s) sent%s%.*s",
            nghttp2_http2_strerror (goaway->error_code), goaway->opaque_data_len > 0 ? ", " : "",
            (int)MIN (goaway->opaque_data_len, 80), (const char *)goaway->opaque_data);
    return 0;
}

static ssize_t
read_body (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
           uint32_t *flags, nghttp2_data_source *source, void *data)
{
    FastH2 *h2 = data;
    gsize n = MIN (length, h2->body_len - h2->body_off);

    memcpy (buf, h2->body + h2->body_off, n);
    h2->body_off += n;
    if (h2->body_off == h2->body_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static nghttp2_session_callbacks *callbacks;
static nghttp2_option *options;

static gpointer
callbacks_once (gpointer unused)
{
    nghttp2_session_callbacks_new (&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback (callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback (callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback (callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback (callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback (callbacks, on_stream_close);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback (callbacks, on_invalid_frame);
    nghttp2_session_callbacks_set_error_callback2 (callbacks, on_error);
    nghttp2_session_callbacks_set_on_frame_send_callback (callbacks, on_frame_send);
    nghttp2_option_new (&options);
    /* Headers are counted against HTTP_MAX_HEAD in on_header; nghttp2 bounds each field. */
    nghttp2_option_set_max_send_header_block_length (options, 256 * 1024);
    return NULL;
}

static FastH2 *
h2_new (FastUser *u)
{
    static GOnce once = G_ONCE_INIT;
    FastH2 *h2 = g_new0 (FastH2, 1);
    const nghttp2_settings_entry settings[] = {
        { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100 },
        { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW },
        { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HTTP_MAX_HEAD },
    };

    g_once (&once, callbacks_once, NULL);
    h2->user = u;
    h2->nva = g_array_new (FALSE, FALSE, sizeof (nghttp2_nv));
    h2->text = g_string_sized_new (256);
    nghttp2_session_client_new2 (&h2->session, callbacks, h2, options);
    nghttp2_submit_settings (h2->session, NGHTTP2_FLAG_NONE, settings, G_N_ELEMENTS (settings));
    nghttp2_session_set_local_window_size (h2->session, NGHTTP2_FLAG_NONE, 0, H2_WINDOW);
    return h2;
}

void
fast_h2_free (FastH2 *h2)
{
    if (h2 == NULL)
        return;
    nghttp2_session_del (h2->session);
    g_array_unref (h2->nva);
    g_string_free (h2->text, TRUE);
    g_free (h2);
}

/* The request */

static void
nv_add (GArray *nva, const char *name, gsize name_len, const char *value, gsize value_len)
{
    nghttp2_nv nv
        = { (uint8_t *)name, (uint8_t *)value, name_len, value_len, NGHTTP2_NV_FLAG_NONE };
    g_array_append_val (nva, nv);
}

/* Headers HTTP/2 forbids (RFC 9113 §8.2.2) or that the transport writes itself. */
static gboolean
header_dropped (const char *name)
{
    static const char *const dropped[]
        = { "host",    "connection", "keep-alive",    "proxy-connection", "transfer-encoding",
            "upgrade", "te",         "content-length" };

    for (guint i = 0; i < G_N_ELEMENTS (dropped); i++)
        if (g_ascii_strcasecmp (name, dropped[i]) == 0)
            return TRUE;
    return FALSE;
}

/*
 * Submits the current hop as a stream.  Names go in lower case through
 * h2->text, whose text nghttp2 copies at submission; u->out is left to
 * the HTTP/1.1 request a retry on another connection may still send.
 */
static gboolean
h2_submit (FastUser *u, FastH2 *h2)
{
    const HttpStep *step = u->step;
    const HttpRequestText *request = &u->journey.request;
    const GArray *headers = http_request_headers (step, request);
    GUri *uri = http_hop_uri (&u->hop, step);
    gssize body_len = fast_body_length (step, request, u->hop.method, u->hop.body);
    g_autofree char *target = uri != step->uri ? fast_uri_target (uri) : NULL;
    g_autofree char *cookies
        = u->jar != NULL ? soup_cookie_jar_get_cookies (u->jar, uri, TRUE) : NULL;
    gboolean v6 = strchr (u->host, ':') != NULL && u->host[0] != '[';
    GString *text = h2->text;
    gsize authority, length = 0, *names;
    guint n_headers = headers != NULL ? headers->len : 0;
    gsize body_size = 0;
    const char *body = http_request_body (step, request, &body_size);
    char number[24];
    nghttp2_data_provider provider = { .read_callback = read_body };
    gint32 id;

    /* Offsets, not pointers, while the string may still grow. */
    names = g_newa (gsize, n_headers + 1);
    g_string_truncate (text, 0);
    authority = 0;
    g_string_append_printf (text, "%s%s%s", v6 ? "[" : "", u->host, v6 ? "]" : "");
    if (u->port != (u->tls ? 443 : 80))
        g_string_append_printf (text, ":%u", u->port);
    g_string_append_c (text, '\0');
    for (guint i = 0; i < n_headers; i++) {
        const HttpHeader *h = &g_array_index (headers, HttpHeader, i);
        names[i] = text->len;
        g_string_append (text, h->name);
        g_string_ascii_down (text);
        g_string_append_c (text, '\0');
    }
    if (body_len >= 0)
        length = g_snprintf (number, sizeof number, "%" G_GSSIZE_FORMAT, body_len);

    g_array_set_size (h2->nva, 0);
    nv_add (h2->nva, ":method", 7, u->hop.method, strlen (u->hop.method));
    nv_add (h2->nva, ":scheme", 7, u->tls ? "https" : "http", u->tls ? 5 : 4);
    nv_add (h2->nva, ":authority", 10, text->str + authority, strlen (text->str + authority));
    const char *path = target != NULL ? target : http_request_target (step, request);
    nv_add (h2->nva, ":path", 5, path, strlen (path));
    gboolean agent = FALSE;
    for (guint i = 0; i < n_headers; i++) {
        const HttpHeader *h = &g_array_index (headers, HttpHeader, i);
        const char *name = text->str + names[i];
        if (header_dropped (name))
            continue;
        agent |= strcmp (name, "user-agent") == 0;
        nv_add (h2->nva, name, strlen (name), h->value, strlen (h->value));
    }
    if (!agent)
        nv_add (h2->nva, "user-agent", 10, "throng/" THRONG_VERSION_STRING,
                strlen ("throng/" THRONG_VERSION_STRING));
    if (cookies != NULL)
        nv_add (h2->nva, "cookie", 6, cookies, strlen (cookies));
    if (body_len >= 0)
        nv_add (h2->nva, "content-length", 14, number, length);

    h2->body = body_len > 0 ? (const guint8 *)body : NULL;
    h2->body_len = body_len > 0 ? (gsize)body_len : 0;
    h2->body_off = 0;
    id = nghttp2_submit_request (h2->session, NULL, (const nghttp2_nv *)h2->nva->data, h2->nva->len,
                                 body_len > 0 ? &provider : NULL, NULL);
    if (id < 0) {
        fast_fail (u, THRONG_ERROR_PROTOCOL, nghttp2_strerror (id));
        return FALSE;
    }
    h2->stream_id = id;
    h2->outcome = H2_OPEN;
    h2->status = 0;
    h2->got_head = FALSE;
    h2->remote_ended = FALSE;
    h2->header_bytes = 0;
    h2->body_bytes = 0;
    if (G_UNLIKELY (u->journey.active && u->journey.keep))
        http_journey_hop (&u->journey);
    h2->control_frames = 0;
    h2->message[0] = '\0';
    return TRUE;
}

/* I/O */

/* Writes what nghttp2 has to send; AGAIN leaves the rest in h2->out. */
static FastIo
h2_flush (FastConn *conn, FastH2 *h2, ThrongSample *sample, GIOCondition *want, FastError *error)
{
    for (;;) {
        gsize n;
        FastIo r;

        if (h2->out_len == 0) {
            const uint8_t *data;
            ssize_t len = nghttp2_session_mem_send (h2->session, &data);
            if (len < 0) {
                error->error_class = THRONG_ERROR_PROTOCOL;
                error->message = nghttp2_strerror ((int)len);
                return FAST_IO_ERROR;
            }
            if (len == 0)
                return FAST_IO_OK;
            h2->out = data;
            h2->out_len = (gsize)len;
        }
        r = fast_conn_write (conn, h2->out, h2->out_len, &n, want, error);
        if (r != FAST_IO_OK)
            return r;
        h2->out += n;
        h2->out_len -= n;
        if (sample != NULL)
            sample->bytes_sent += n;
    }
}

/*
 * Reads within the budget and feeds nghttp2.  Returns OK when it stopped
 * for the budget or an outcome, AGAIN with *@want, or how the connection
 * ended.
 */
static FastIo
h2_read (FastUser *u, FastConn *conn, FastH2 *h2, GIOCondition *want, FastError *error)
{
    gsize budget = READ_BUDGET;

    for (;;) {
        gsize n;
        guint8 *in = fast_in_buffer ();
        FastIo r = fast_conn_read (conn, in, IN_SIZE, &n, want, error);
        ssize_t used;

        if (r != FAST_IO_OK)
            return r;
        if (u->sample != NULL)
            u->sample->bytes_received += n;
        if (G_UNLIKELY (conn->want_ticket))
            fast_save_ticket (u, conn);
        used = nghttp2_session_mem_recv (h2->session, in, n);
        if (used == NGHTTP2_ERR_FLOODED) {
            /* nghttp2's own bound: more ACKs owed than it queues. */
            h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL, "%s flood: %s",
                    h2->last_control == NGHTTP2_PING ? "PING" : "SETTINGS",
                    nghttp2_strerror ((int)used));
            return FAST_IO_OK;
        }
        if (used < 0) {
            h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL, "%s", nghttp2_strerror ((int)used));
            return FAST_IO_OK;
        }
        /* An outcome, or nghttp2 gave up the session: its GOAWAY goes out next. */
        if (h2->outcome != H2_OPEN || !nghttp2_session_want_read (h2->session))
            return FAST_IO_OK;
        if (n < IN_SIZE && !fast_conn_pending (conn)) {
            *want = G_IO_IN;
            return FAST_IO_AGAIN;
        }
        budget = budget > n ? budget - n : 0;
        if (budget == 0) {
            if (fast_conn_pending (conn)) {
                u->read_yielded = TRUE;
                fast_timer_need (u, g_get_monotonic_time ());
            }
            *want = G_IO_IN;
            return FAST_IO_AGAIN;
        }
    }
}

/* The session is over when nghttp2 wants neither to read nor to write (after a GOAWAY). */
static gboolean
h2_session_over (FastH2 *h2)
{
    return !nghttp2_session_want_read (h2->session) && !nghttp2_session_want_write (h2->session);
}

/* Gives back u->conn after a stream ended: to the pool when it can carry more, else closed. */
static void
h2_release (FastUser *u)
{
    FastConn *conn = u->conn;

    u->conn = NULL;
    conn->exchanges++;
    if (u->fs->keep_alive && !conn->h2->goaway && !h2_session_over (conn->h2))
        fast_pool_put (u, conn);
    else
        fast_conn_close (conn, TRUE);
}

/* Acts on the stream's outcome, outside any nghttp2 call. */
static void
h2_settle (FastUser *u, FastH2 *h2)
{
    char message[sizeof h2->message];
    ThrongErrorClass error_class = h2->error_class;
    guint status = h2->status;

    g_strlcpy (message, h2->message, sizeof message);
    switch (h2->outcome) {
    case H2_OPEN:
        return;
    case H2_DONE:
        h2_release (u);
        fast_hop_done (u, status, "h2");
        return;
    case H2_FAILED:
        if (h2->got_head)
            u->sample->status = (gint32)status;
        h2_release (u);
        fast_fail (u, error_class, message[0] != '\0' ? message : NULL);
        return;
    case H2_REFUSED:
        if (!u->retried) {
            g_debug ("fast: %s; retrying on a new connection", message);
            h2_release (u);
            u->retried = TRUE;
            u->sample->retries++;
            fast_exchange_start (u, TRUE);
            return;
        }
        h2_release (u);
        fast_fail (u, error_class, message);
        return;
    case H2_BROKEN:
    default:
        fast_fail (u, error_class, message[0] != '\0' ? message : "HTTP/2 connection error");
        return;
    }
}

/* Reads, writes, and settles: the one loop of an HTTP/2 exchange. */
static void
h2_pump (FastUser *u)
{
    FastConn *conn = u->conn;
    FastH2 *h2 = conn->h2;
    GIOCondition want_in = G_IO_IN, want_out = 0;
    FastError error;
    FastIo r;

    u->read_yielded = FALSE;
    r = h2_read (u, conn, h2, &want_in, &error);
    if (r == FAST_IO_EOF || r == FAST_IO_RESET || r == FAST_IO_ERROR) {
        /* As over HTTP/1.1: sent again only when that cannot do anything twice. */
        gboolean safe = u->reused && !u->retried && !h2->got_head && h2->outcome == H2_OPEN
                        && fast_method_is_idempotent (u->hop.method);
        if ((r == FAST_IO_EOF || r == FAST_IO_RESET) && safe) {
            g_debug ("fast: kept-alive h2 connection to %s:%u closed; retrying", u->host, u->port);
            fast_conn_close (conn, FALSE);
            u->conn = NULL;
            u->retried = TRUE;
            u->sample->retries++;
            fast_exchange_start (u, TRUE);
            return;
        }
        if (h2->outcome == H2_OPEN || h2->outcome == H2_DONE) {
            if (h2->outcome == H2_OPEN)
                fast_fail (u, r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
                           r == FAST_IO_ERROR ? error.message
                           : h2->message[0] != '\0'
                               ? h2->message
                               : "HTTP/2 connection closed before the response was complete");
            else
                h2_settle (u, h2);
            return;
        }
        /* The outcome was recorded before the close: it stands. */
        h2_settle (u, h2);
        return;
    }
    if (h2->outcome == H2_OPEN || h2->outcome == H2_FAILED || h2->outcome == H2_DONE) {
        /* Even a finished stream's WINDOW_UPDATE and SETTINGS ACK go out now. */
        r = h2_flush (conn, h2, u->sample, &want_out, &error);
        if (r == FAST_IO_ERROR || r == FAST_IO_RESET || r == FAST_IO_EOF) {
            if (h2->outcome == H2_OPEN) {
                fast_fail (u, r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
                           r == FAST_IO_ERROR ? error.message
                                              : "connection closed while sending the request");
                return;
            }
            h2->goaway = TRUE;
        }
    }
    if (h2->outcome == H2_OPEN && h2_session_over (h2))
        h2_end (h2, H2_BROKEN, THRONG_ERROR_PROTOCOL, "%s",
                h2->message[0] != '\0' ? h2->message : "HTTP/2 session ended by a GOAWAY");
    if (h2->outcome != H2_OPEN) {
        h2_settle (u, h2);
        return;
    }
    fast_conn_watch (conn, want_in | (r == FAST_IO_AGAIN ? want_out : 0));
}

gboolean
fast_h2_request_ready (FastUser *u)
{
    FastConn *conn = u->conn;
    int version = u->step->version;

    if (conn->h2 == NULL) {
        const char *selected = NULL;
        gnutls_datum_t proto = { NULL, 0 };

        if (conn->is_tls && gnutls_alpn_get_selected_protocol (conn->tls, &proto) == 0
            && proto.size == 2 && memcmp (proto.data, "h2", 2) == 0)
            selected = "h2";
        if (selected == NULL && conn->is_tls && version == HTTP_VERSION_2) {
            fast_fail (u, THRONG_ERROR_PROTOCOL,
                       "the server did not select h2 through ALPN (version: 2 requires it; "
                       "version: auto falls back to HTTP/1.1)");
            return TRUE;
        }
        if (selected == NULL && !(version == HTTP_VERSION_2 && !conn->is_tls))
            return FALSE;
        if (conn->exchanges > 0)
            return FALSE; /* an HTTP/1.1 connection already: it stays one */
        conn->h2 = h2_new (u);
        g_debug ("fast: %s on %s:%u", conn->is_tls ? "h2 (ALPN)" : "h2c (prior knowledge)", u->host,
                 u->port);
    }
    conn->h2->user = u;
    u->state = ST_READING_HEAD;
    if (!h2_submit (u, conn->h2))
        return TRUE;
    h2_pump (u);
    return TRUE;
}

void
fast_h2_event (FastUser *u)
{
    if (u->state == ST_READING_HEAD || u->state == ST_READING_BODY)
        h2_pump (u);
}

void
fast_h2_idle_event (FastUser *u, FastConn *conn)
{
    FastH2 *h2 = conn->h2;
    GIOCondition want = G_IO_IN, want_out = 0;
    FastError error;
    FastIo r;

    /* No stream is open: anything recorded is about the connection. */
    h2->stream_id = -1;
    h2->outcome = H2_OPEN;
    r = h2_read (u, conn, h2, &want, &error);
    if (r == FAST_IO_OK || r == FAST_IO_AGAIN)
        r = h2_flush (conn, h2, NULL, &want_out, &error);
    if ((r == FAST_IO_OK || r == FAST_IO_AGAIN) && h2->outcome == H2_OPEN && !h2->goaway
        && !h2_session_over (h2)) {
        fast_conn_watch (conn, want | (r == FAST_IO_AGAIN ? want_out : 0));
        return;
    }
    fast_pool_remove (u, conn);
    fast_conn_close (conn, FALSE);
}
