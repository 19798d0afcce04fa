/* SPDX-License-Identifier: MIT */
/*
 * nghttp2's side of the fast transport's HTTP/2 (h2-private.h): the
 * client session's set-up, the callbacks through which it reports frames,
 * and a request submitted as a stream.  A callback runs inside
 * mem_recv/mem_send, where the session must not be freed nor an exchange
 * end; so callbacks only record: a stream's outcome in its H2Stream, the
 * connection's failure in FastH2 (fast_h2_break), the head's fields in
 * u->response.headers (so that cookies and the redirect policy are
 * HTTP/1.1's own), bytes in each stream's sample.  h2.c acts on them once
 * the library call returned.
 */
#include "h2-private.h"
#include "cookies.h"
#include "pool.h"
#include "../errors.h"

#include <string.h>

/* The stream in flight with @stream_id, or NULL. */
static H2Stream *
stream_of (FastH2 *h2, gint32 stream_id)
{
    for (guint i = 0; i < h2->n_active; i++) {
        if (h2->active[i]->stream_id == stream_id)
            return h2->active[i];
    }
    return NULL;
}

/* Records a stream's end; the first outcome stands. */
static void h2_end (H2Stream *s, H2Outcome outcome, ThrongErrorClass error_class,
                    const char *format, ...) G_GNUC_PRINTF (4, 5);

static void
h2_end (H2Stream *s, H2Outcome outcome, ThrongErrorClass error_class, const char *format, ...)
{
    va_list args;

    if (s == NULL || s->outcome != H2_OPEN)
        return;
    s->outcome = outcome;
    s->error_class = error_class;
    if (format == NULL) {
        s->message[0] = '\0';
        return;
    }
    va_start (args, format);
    g_vsnprintf (s->message, sizeof s->message, format, args);
    va_end (args);
}

void
fast_h2_break (FastH2 *h2, ThrongErrorClass error_class, const char *format, ...)
{
    va_list args;

    if (h2->broken)
        return;
    h2->broken = TRUE;
    h2->error_class = error_class;
    va_start (args, format);
    g_vsnprintf (h2->message, sizeof h2->message, format, args);
    va_end (args);
}

/* Callbacks: they record, never end an exchange (see the top of the file). */

/*
 * Bytes per stream (docs/http.md): a frame's payload and its 9-byte
 * header go to the sample of the stream it belongs to; a frame of the
 * connection (SETTINGS, PING, WINDOW_UPDATE on stream 0, GOAWAY) or of a
 * stream no longer in flight to the sample of a stream in flight, if any
 * (uncounted otherwise, as the client preface's 24 bytes always are).
 */
static ThrongSample *
frame_sample (FastH2 *h2, gint32 stream_id)
{
    H2Stream *s = stream_id != 0 ? stream_of (h2, stream_id) : NULL;

    if (s == NULL)
        s = h2->n_active > 0 ? h2->active[0] : NULL;
    return s != NULL ? s->user->sample : NULL;
}

/* Every frame received, CONTINUATION included, before its payload is read. */
static int
on_begin_frame (nghttp2_session *session, const nghttp2_frame_hd *hd, void *data)
{
    ThrongSample *sample = frame_sample (data, hd->stream_id);

    if (sample != NULL)
        sample->bytes_received += hd->length + 9;
    return 0;
}

/* Refuses the rest of the response: the stream ends, the connection goes on. */
static void
h2_cancel (FastH2 *h2, H2Stream *s)
{
    nghttp2_submit_rst_stream (h2->session, NGHTTP2_FLAG_NONE, s->stream_id, NGHTTP2_CANCEL);
}

static int
on_begin_headers (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    H2Stream *s = stream_of (data, frame->hd.stream_id);

    if (frame->hd.type == NGHTTP2_HEADERS && s != NULL) {
        fast_response_headers_reset (&s->user->response);
        s->header_bytes = 0;
        s->content_length = 0;
    }
    return 0;
}

/*
 * Whether a response field goes into u->response.headers: all of them
 * for a journey (checks and extractors read any), otherwise only those
 * the exchange reads (cookies, a redirect's Location; on_header reads the
 * length itself); the rest would cost a copy each and be read by nobody.
 * HTTP/2 names are lower case.
 */
static gboolean
header_kept (const FastUser *u, const uint8_t *name, size_t namelen)
{
    if (G_UNLIKELY (u->journey.active))
        return TRUE;
    switch (namelen) {
    case 8:
        return memcmp (name, "location", 8) == 0;
    case 10:
        return memcmp (name, "set-cookie", 10) == 0;
    default:
        return FALSE;
    }
}

static int
on_header (nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
           size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *data)
{
    H2Stream *s = stream_of (data, frame->hd.stream_id);

    if (s == NULL || s->outcome != H2_OPEN)
        return 0;
    /* RFC 9113 §6.5.2: each field counts its name, its value and 32. */
    s->header_bytes += namelen + valuelen + 32;
    if (s->header_bytes > HTTP_MAX_HEAD) {
        h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL,
                "HEADERS: header block over %d bytes (RST_STREAM sent)", HTTP_MAX_HEAD);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    if (namelen == 7 && memcmp (name, ":status", 7) == 0) {
        s->status = valuelen == 3 ? (guint)g_ascii_strtoull ((const char *)value, NULL, 10) : 0;
        return 0;
    }
    if (namelen > 0 && name[0] == ':')
        return 0;
    if (namelen == 14 && memcmp (name, "content-length", 14) == 0)
        s->content_length = g_ascii_strtoull ((const char *)value, NULL, 10);
    if (!header_kept (s->user, name, namelen))
        return 0;
    soup_message_headers_append (s->user->response.headers, (const char *)name,
                                 (const char *)value);
    return 0;
}

static int
on_frame_recv (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    FastH2 *h2 = data;
    H2Stream *s = frame->hd.stream_id != 0 ? stream_of (h2, frame->hd.stream_id) : NULL;
    FastUser *u = s != NULL ? s->user : NULL;

    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) && s != NULL
        && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        s->remote_ended = TRUE;
    switch (frame->hd.type) {
    case NGHTTP2_PING:
    case NGHTTP2_SETTINGS:
        if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
            h2->settings_seen = TRUE;
        h2->last_control = frame->hd.type;
        if (++h2->control_frames > H2_CONTROL_MAX)
            fast_h2_break (h2, THRONG_ERROR_PROTOCOL,
                           "%s flood: over %d control frames during one request",
                           frame->hd.type == NGHTTP2_PING ? "PING" : "SETTINGS", H2_CONTROL_MAX);
        return 0;
    case NGHTTP2_GOAWAY:
        h2->goaway = TRUE;
        g_debug ("fast: GOAWAY from %s:%u (last stream %d, %s)", h2->owner->host, h2->owner->port,
                 frame->goaway.last_stream_id, nghttp2_http2_strerror (frame->goaway.error_code));
        for (guint i = 0; i < h2->n_active; i++) {
            H2Stream *each = h2->active[i];
            if (each->stream_id > frame->goaway.last_stream_id)
                h2_end (each, H2_REFUSED, THRONG_ERROR_PROTOCOL,
                        "GOAWAY (%s): stream %d above the last stream id %d",
                        nghttp2_http2_strerror (frame->goaway.error_code), each->stream_id,
                        frame->goaway.last_stream_id);
        }
        if (frame->goaway.error_code != NGHTTP2_NO_ERROR)
            fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "GOAWAY from the server: %s",
                           nghttp2_http2_strerror (frame->goaway.error_code));
        return 0;
    case NGHTTP2_RST_STREAM:
        if (s != NULL) {
            /* RFC 9113 §8.1: a complete response, then "stop sending the request". */
            if (frame->rst_stream.error_code == NGHTTP2_NO_ERROR && s->got_head && s->remote_ended)
                h2_end (s, H2_DONE, THRONG_ERROR_NONE, NULL);
            else if (frame->rst_stream.error_code == NGHTTP2_REFUSED_STREAM)
                h2_end (s, H2_REFUSED, THRONG_ERROR_PROTOCOL,
                        "RST_STREAM (REFUSED_STREAM) from the server");
            else
                h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "RST_STREAM (%s) from the server",
                        nghttp2_http2_strerror (frame->rst_stream.error_code));
        }
        return 0;
    case NGHTTP2_HEADERS:
        if (s == NULL || s->outcome != H2_OPEN)
            return 0;
        h2->control_frames = 0;
        if (u->sample->latency_us == 0)
            u->sample->latency_us = g_get_monotonic_time () - u->sample->start_us;
        /* 1xx other than 101: interim, the final head follows (nghttp2 bounds them). */
        if (s->status >= 100 && s->status < 200)
            return 0;
        if (s->status < 200 || s->status > 599) {
            h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "HEADERS: status %u out of range",
                    s->status);
            h2_cancel (h2, s);
            return 0;
        }
        s->got_head = TRUE;
        u->state = ST_READING_BODY;
        /* As over HTTP/1.1: a declared length over max_body fails at the head. */
        if (s->content_length > u->step->max_body) {
            h2_end (s, H2_FAILED, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            h2_cancel (h2, s);
            return 0;
        }
        if (soup_message_headers_get_one (u->response.headers, "Set-Cookie") != NULL)
            fast_store_cookies (u);
        return 0;
    case NGHTTP2_DATA:
        if (s != NULL)
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
    H2Stream *s = stream_of (h2, stream_id);

    if (s == NULL || s->outcome != H2_OPEN)
        return 0;
    s->body_bytes += len;
    if (G_UNLIKELY (s->user->journey.active && s->user->journey.keep)
        && s->body_bytes <= s->user->step->max_body)
        g_string_append_len (s->user->journey.body, (const char *)data, (gssize)len);
    if (s->body_bytes > s->user->step->max_body) {
        h2_end (s, H2_FAILED, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
        h2_cancel (h2, s);
    }
    return 0;
}

static int
on_stream_close (nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *data)
{
    H2Stream *s = stream_of (data, stream_id);

    if (s == NULL)
        return 0;
    if (error_code == NGHTTP2_REFUSED_STREAM)
        h2_end (s, H2_REFUSED, THRONG_ERROR_PROTOCOL, "stream %d refused (REFUSED_STREAM)",
                stream_id);
    else if (error_code != NGHTTP2_NO_ERROR)
        h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "stream closed with %s",
                nghttp2_http2_strerror (error_code));
    else if (!s->got_head)
        h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "stream ended without a final response");
    else
        h2_end (s, H2_DONE, THRONG_ERROR_NONE, NULL);
    return 0;
}

static int
on_invalid_frame (nghttp2_session *session, const nghttp2_frame *frame, int lib_error_code,
                  void *data)
{
    FastH2 *h2 = data;
    H2Stream *s = frame->hd.stream_id != 0 ? stream_of (h2, frame->hd.stream_id) : NULL;
    static const char *const names[]
        = { "DATA",         "HEADERS", "PRIORITY", "RST_STREAM",    "SETTINGS",
            "PUSH_PROMISE", "PING",    "GOAWAY",   "WINDOW_UPDATE", "CONTINUATION" };
    const char *name = frame->hd.type < G_N_ELEMENTS (names) ? names[frame->hd.type] : "unknown";

    /* Our SETTINGS said ENABLE_PUSH 0: nghttp2 refuses any promise as a connection error. */
    if (frame->hd.type == NGHTTP2_PUSH_PROMISE) {
        fast_h2_break (h2, THRONG_ERROR_PROTOCOL,
                       "PUSH_PROMISE although push is disabled (PROTOCOL_ERROR)");
        return 0;
    }
    if (s != NULL)
        h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "invalid %s frame: %s", name,
                nghttp2_strerror (lib_error_code));
    else
        fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "invalid %s frame: %s", name,
                       nghttp2_strerror (lib_error_code));
    return 0;
}

static int
on_error (nghttp2_session *session, int lib_error_code, const char *msg, size_t len, void *data)
{
    FastH2 *h2 = data;

    /* The library's own words for a connection error it answers with GOAWAY. */
    if (!h2->broken)
        g_snprintf (h2->message, sizeof h2->message, "%.*s", (int)len, msg);
    return 0;
}

/* nghttp2 answers a connection error with a GOAWAY of its own: that names what went wrong. */
static int
on_frame_send (nghttp2_session *session, const nghttp2_frame *frame, void *data)
{
    FastH2 *h2 = data;
    const nghttp2_goaway *goaway = &frame->goaway;
    ThrongSample *sample = frame_sample (h2, frame->hd.stream_id);

    /* A header block sent as HEADERS and CONTINUATION counts one frame header. */
    if (sample != NULL)
        sample->bytes_sent += frame->hd.length + 9;
    if (frame->hd.type != NGHTTP2_GOAWAY || goaway->error_code == NGHTTP2_NO_ERROR)
        return 0;
    fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "the server broke HTTP/2: GOAWAY (%s) sent%s%.*s",
                   nghttp2_http2_strerror (goaway->error_code),
                   goaway->opaque_data_len > 0 ? ", " : "", (int)MIN (goaway->opaque_data_len, 80),
                   (const char *)goaway->opaque_data);
    return 0;
}

static ssize_t
read_body (nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
           uint32_t *flags, nghttp2_data_source *source, void *data)
{
    H2Stream *s = stream_of (data, stream_id);
    gsize n;

    if (s == NULL)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    n = MIN (length, s->body_len - s->body_off);
    memcpy (buf, s->body + s->body_off, n);
    s->body_off += n;
    if (s->body_off == s->body_len)
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
    nghttp2_session_callbacks_set_on_begin_frame_callback (callbacks, on_begin_frame);
    nghttp2_option_new (&options);
    /* Headers are counted against HTTP_MAX_HEAD in on_header; nghttp2 bounds each field. */
    nghttp2_option_set_max_send_header_block_length (options, 256 * 1024);
    return NULL;
}

FastH2 *
fast_h2_new (FastUser *u)
{
    static GOnce once = G_ONCE_INIT;
    FastH2 *h2 = g_new0 (FastH2, 1);
    gboolean v6;
    const nghttp2_settings_entry settings[] = {
        { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100 },
        { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW },
        { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HTTP_MAX_HEAD },
    };

    g_once (&once, callbacks_once, NULL);
    h2->owner = u;
    h2->nva = g_array_new (FALSE, FALSE, sizeof (nghttp2_nv));
    h2->text = g_string_sized_new (256);
    /* A stream joins only a connection to its own host and port (h2_joinable, h2.c). */
    v6 = strchr (u->host, ':') != NULL && u->host[0] != '[';
    if (u->port != (u->tls ? 443 : 80))
        h2->authority
            = g_strdup_printf ("%s%s%s:%u", v6 ? "[" : "", u->host, v6 ? "]" : "", u->port);
    else
        h2->authority = g_strdup_printf ("%s%s%s", v6 ? "[" : "", u->host, v6 ? "]" : "");
    h2->authority_len = strlen (h2->authority);
    nghttp2_session_client_new2 (&h2->session, callbacks, h2, options);
    nghttp2_submit_settings (h2->session, NGHTTP2_FLAG_NONE, settings, G_N_ELEMENTS (settings));
    nghttp2_session_set_local_window_size (h2->session, NGHTTP2_FLAG_NONE, 0, H2_WINDOW);
    return h2;
}

void
fast_h2_free (gpointer data)
{
    FastH2 *h2 = data;

    if (h2 == NULL)
        return;
    nghttp2_session_del (h2->session);
    g_array_unref (h2->nva);
    g_string_free (h2->text, TRUE);
    g_free (h2->authority);
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
gboolean
fast_h2_submit (FastUser *u, FastH2 *h2, H2Stream *st)
{
    const HttpStep *step = u->step;
    const HttpRequestText *request = &u->journey.request;
    const GArray *headers = http_request_headers (step, request);
    GUri *uri = http_hop_uri (&u->hop, step);
    gssize body_len = fast_body_length (step, request, u->hop.method, u->hop.body);
    g_autofree char *target = uri != step->uri ? fast_uri_target (uri) : NULL;
    g_autofree char *cookies = u->jar != NULL && http_cookie_jar_used (u->jar)
                                   ? soup_cookie_jar_get_cookies (u->jar, uri, TRUE)
                                   : NULL;
    GString *text = h2->text;
    gsize length = 0, *names;
    guint n_headers = headers != NULL ? headers->len : 0;
    gsize body_size = 0;
    const char *body = http_request_body (step, request, &body_size);
    char number[24];
    nghttp2_data_provider provider = { .read_callback = read_body };
    gint32 id;

    /* Offsets, not pointers, while the string may still grow. */
    names = g_newa (gsize, n_headers + 1);
    g_string_truncate (text, 0);
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
    nv_add (h2->nva, ":authority", 10, h2->authority, h2->authority_len);
    const char *path = target != NULL ? target : http_request_target (step, request);
    nv_add (h2->nva, ":path", 5, path, strlen (path));
    gboolean agent = FALSE;
    for (guint i = 0; i < n_headers; i++) {
        const HttpHeader *h = &g_array_index (headers, HttpHeader, i);
        const char *name = text->str + names[i];
        if (header_dropped (name) || !http_hop_sends_header (&u->hop, h->name))
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

    memset (st, 0, sizeof *st);
    st->user = u;
    st->outcome = H2_OPEN;
    st->body = body_len > 0 ? (const guint8 *)body : NULL;
    st->body_len = body_len > 0 ? (gsize)body_len : 0;
    id = nghttp2_submit_request (h2->session, NULL, (const nghttp2_nv *)h2->nva->data, h2->nva->len,
                                 body_len > 0 ? &provider : NULL, NULL);
    if (id < 0) {
        if (h2->n_active > 0) {
            /* others are in flight on it: the connection stays, in its owner's pool */
            if (h2->owner == u)
                fast_pool_put (u, u->conn);
            u->conn = NULL;
        }
        u->fs->events->fail (u, THRONG_ERROR_PROTOCOL, nghttp2_strerror (id));
        return FALSE;
    }
    st->stream_id = id;
    h2->active[h2->n_active++] = st;
    if (G_UNLIKELY (u->journey.active && u->journey.keep))
        http_journey_hop (&u->journey);
    h2->control_frames = 0;
    return TRUE;
}
