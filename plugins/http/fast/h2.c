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
 * library refuses, a flood) fails it and closes the connection, and
 * every stream on it.
 *
 * Several streams at once: the exchanges of a user's lanes (../lanes.c,
 * a `parallel` step) join the connection of the user's own exchange
 * (fast_h2_join), up to the server's SETTINGS_MAX_CONCURRENT_STREAMS.
 * The connection stays its owner's (in the owner's hands or pool); each
 * stream keeps its state in its exchange's FastUser (u->h2s); whichever
 * event comes, one pump reads for all, and h2_settle() ends each stream
 * that has an outcome, after detaching it.
 */
#include "fast.h"
#include "h2.h"
#include "../errors.h"

#include <string.h>
#include <nghttp2/nghttp2.h>

/* Our windows, as h2load's defaults (-w 30 -W 30): flow control never paces a download. */
#define H2_WINDOW ((1 << 30) - 1)
/* Small frames gathered for one write (h2_flush): a connection's memory, so not more. */
#define H2_WBUF 4096
/* PING and SETTINGS frames accepted between two frames of the stream: more is a flood. */
#define H2_CONTROL_MAX 1000

typedef enum {
    H2_OPEN,    /* the stream is in flight */
    H2_DONE,    /* closed cleanly with a final response */
    H2_FAILED,  /* the stream failed; the connection may go on */
    H2_REFUSED, /* the server did not process it (REFUSED_STREAM, above GOAWAY's last id) */
    H2_BROKEN,  /* the connection failed */
} H2Outcome;

/* H2_OPEN … H2_REFUSED: a stream's; H2_BROKEN: the connection's, shared by its streams. */
#define H2_STREAMS_MAX 128

/* One stream: the exchange of the FastUser that holds it (u->h2s). */
struct _FastH2Stream {
    FastUser *user;
    gint32 stream_id;
    H2Outcome outcome;
    guint status;
    gboolean got_head;
    gboolean remote_ended; /* the response's END_STREAM arrived */
    gsize header_bytes;
    guint64 content_length; /* the final head's Content-Length, 0 when none */
    guint64 body_bytes;
    const guint8 *body;
    gsize body_len;
    gsize body_off;
    ThrongErrorClass error_class;
    char message[160]; /* why it failed, naming the frame or error code */
};
typedef struct _FastH2Stream H2Stream;

struct _FastH2 {
    nghttp2_session *session;
    FastUser *owner;   /* whose hands or pool hold the connection; its buffer reads */
    const guint8 *out; /* what mem_send returned and h2->wbuf has not taken */
    gsize out_len;
    guint8 wbuf[H2_WBUF]; /* frames gathered for one write */
    gsize wbuf_len;
    gsize wbuf_off; /* written so far */
    gboolean goaway; /* the server sent GOAWAY: no new stream on this connection */
    /* The server's first SETTINGS came: until then its stream limit is unknown
     * (nghttp2 says unlimited), and streams joined then could be refused. */
    gboolean settings_seen;
    GArray *nva;     /* nghttp2_nv, reused per request */
    GString *text;   /* the request's lower-case names, reused */
    char *authority; /* the connection's host and port, every stream's :authority */
    gsize authority_len;
    H2Stream *active[H2_STREAMS_MAX]; /* the streams in flight */
    guint n_active;
    /* the connection's failure, which ends every stream on it */
    gboolean broken;
    ThrongErrorClass error_class;
    char message[160];
    guint control_frames;
    guint8 last_control; /* the type of the last PING or SETTINGS frame */
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

static gboolean h2_has_room (const FastConn *conn);

gboolean
fast_h2_conn_fits (const FastConn *conn, int version)
{
    switch (version) {
    case HTTP_VERSION_2:
        return conn->h2 != NULL && h2_has_room (conn);
    case HTTP_VERSION_AUTO:
        /* Whatever the connection speaks; a new one over http:// is HTTP/1.1. */
        return conn->h2 == NULL || h2_has_room (conn);
    default:
        return conn->h2 == NULL;
    }
}

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

/*
 * Records the connection's failure, which every stream on it shares
 * (a stream that already has an outcome keeps it); the first stands.
 */
static void h2_break (FastH2 *h2, ThrongErrorClass error_class, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

static void
h2_break (FastH2 *h2, ThrongErrorClass error_class, const char *format, ...)
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

/*
 * TRUE when every stream in flight has an outcome, or the connection has:
 * reading on could only be for streams that are over.  (Stopping at the
 * first stream's end would leave the others' bytes in TLS buffers that no
 * poll announces.)
 */
static gboolean
h2_all_ended (const FastH2 *h2)
{
    if (h2->broken)
        return TRUE;
    for (guint i = 0; i < h2->n_active; i++) {
        if (h2->active[i]->outcome == H2_OPEN)
            return FALSE;
    }
    return TRUE;
}

/* TRUE when a stream or the connection has an outcome to act on. */
static gboolean
h2_has_outcome (const FastH2 *h2)
{
    if (h2->broken)
        return TRUE;
    for (guint i = 0; i < h2->n_active; i++) {
        if (h2->active[i]->outcome != H2_OPEN)
            return TRUE;
    }
    return FALSE;
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
            h2_break (h2, THRONG_ERROR_PROTOCOL,
                      "%s flood: over %d control frames during one request",
                      frame->hd.type == NGHTTP2_PING ? "PING" : "SETTINGS", H2_CONTROL_MAX);
        return 0;
    case NGHTTP2_GOAWAY:
        h2->goaway = TRUE;
        g_debug ("fast: GOAWAY from %s:%u (last stream %d, %s)", h2->owner->host,
                 h2->owner->port, frame->goaway.last_stream_id,
                 nghttp2_http2_strerror (frame->goaway.error_code));
        for (guint i = 0; i < h2->n_active; i++) {
            H2Stream *each = h2->active[i];
            if (each->stream_id > frame->goaway.last_stream_id)
                h2_end (each, H2_REFUSED, THRONG_ERROR_PROTOCOL,
                        "GOAWAY (%s): stream %d above the last stream id %d",
                        nghttp2_http2_strerror (frame->goaway.error_code), each->stream_id,
                        frame->goaway.last_stream_id);
        }
        if (frame->goaway.error_code != NGHTTP2_NO_ERROR)
            h2_break (h2, THRONG_ERROR_PROTOCOL, "GOAWAY from the server: %s",
                      nghttp2_http2_strerror (frame->goaway.error_code));
        return 0;
    case NGHTTP2_RST_STREAM:
        if (s != NULL) {
            /* RFC 9113 §8.1: a complete response, then "stop sending the request". */
            if (frame->rst_stream.error_code == NGHTTP2_NO_ERROR && s->got_head
                && s->remote_ended)
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
        h2_break (h2, THRONG_ERROR_PROTOCOL,
                  "PUSH_PROMISE although push is disabled (PROTOCOL_ERROR)");
        return 0;
    }
    if (s != NULL)
        h2_end (s, H2_FAILED, THRONG_ERROR_PROTOCOL, "invalid %s frame: %s", name,
                nghttp2_strerror (lib_error_code));
    else
        h2_break (h2, THRONG_ERROR_PROTOCOL, "invalid %s frame: %s", name,
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
    h2_break (h2, THRONG_ERROR_PROTOCOL, "the server broke HTTP/2: GOAWAY (%s) sent%s%.*s",
              nghttp2_http2_strerror (goaway->error_code), goaway->opaque_data_len > 0 ? ", " : "",
              (int)MIN (goaway->opaque_data_len, 80), (const char *)goaway->opaque_data);
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

static FastH2 *
h2_new (FastUser *u)
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
    /* A stream joins only a connection to its own host and port (fast_h2_joinable). */
    v6 = strchr (u->host, ':') != NULL && u->host[0] != '[';
    if (u->port != (u->tls ? 443 : 80))
        h2->authority = g_strdup_printf ("%s%s%s:%u", v6 ? "[" : "", u->host, v6 ? "]" : "",
                                         u->port);
    else
        h2->authority = g_strdup_printf ("%s%s%s", v6 ? "[" : "", u->host, v6 ? "]" : "");
    h2->authority_len = strlen (h2->authority);
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
static gboolean
h2_submit (FastUser *u, FastH2 *h2, H2Stream *st)
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
        fast_fail (u, THRONG_ERROR_PROTOCOL, nghttp2_strerror (id));
        return FALSE;
    }
    st->stream_id = id;
    h2->active[h2->n_active++] = st;
    if (G_UNLIKELY (u->journey.active && u->journey.keep))
        http_journey_hop (&u->journey);
    h2->control_frames = 0;
    return TRUE;
}

/* I/O */

/*
 * Writes what nghttp2 has to send.  nghttp2 hands out one frame per
 * mem_send call: small frames are gathered in h2->wbuf and written
 * together, one system call for the HEADERS of every stream a `parallel`
 * started (h2load does the same); a frame as large as the buffer (a
 * request body's DATA) is written from nghttp2's own.  AGAIN leaves the
 * rest in h2->wbuf and h2->out.
 */
static FastIo
h2_flush (FastConn *conn, FastH2 *h2, GIOCondition *want, FastError *error)
{
    for (;;) {
        gsize n;
        FastIo r;

        while (h2->wbuf_len < H2_WBUF) {
            if (h2->out_len == 0) {
                const uint8_t *data;
                ssize_t len = nghttp2_session_mem_send (h2->session, &data);
                if (len < 0) {
                    error->error_class = THRONG_ERROR_PROTOCOL;
                    error->message = nghttp2_strerror ((int)len);
                    return FAST_IO_ERROR;
                }
                if (len == 0)
                    break;
                h2->out = data;
                h2->out_len = (gsize)len;
            }
            if (h2->wbuf_len == 0 && h2->out_len >= H2_WBUF)
                break;
            n = MIN (h2->out_len, H2_WBUF - h2->wbuf_len);
            memcpy (h2->wbuf + h2->wbuf_len, h2->out, n);
            h2->wbuf_len += n;
            h2->out += n;
            h2->out_len -= n;
        }
        if (h2->wbuf_off < h2->wbuf_len) {
            r = fast_conn_write (conn, h2->wbuf + h2->wbuf_off, h2->wbuf_len - h2->wbuf_off, &n,
                                 want, error);
            if (r != FAST_IO_OK)
                return r;
            h2->wbuf_off += n;
            if (h2->wbuf_off == h2->wbuf_len)
                h2->wbuf_off = h2->wbuf_len = 0;
            continue;
        }
        h2->wbuf_off = h2->wbuf_len = 0;
        if (h2->out_len == 0)
            return FAST_IO_OK;
        r = fast_conn_write (conn, h2->out, h2->out_len, &n, want, error);
        if (r != FAST_IO_OK)
            return r;
        h2->out += n;
        h2->out_len -= n;
    }
}

/*
 * Reads within the budget and feeds nghttp2 (whose callbacks count the
 * frames to their streams' samples, frame_bytes()).  Returns OK when it stopped for the budget or an
 * outcome, AGAIN with *@want, or how the connection ended.
 */
static FastIo
h2_read (FastConn *conn, FastH2 *h2, GIOCondition *want, FastError *error)
{
    FastUser *owner = h2->owner;
    gsize budget = READ_BUDGET;

    for (;;) {
        gsize n;
        guint8 *in = fast_in_buffer ();
        FastIo r = fast_conn_read (conn, in, IN_SIZE, &n, want, error);
        ssize_t used;

        if (r != FAST_IO_OK)
            return r;
        if (G_UNLIKELY (conn->want_ticket))
            fast_save_ticket (owner, conn);
        used = nghttp2_session_mem_recv (h2->session, in, n);
        if (used == NGHTTP2_ERR_FLOODED) {
            /* nghttp2's own bound: more ACKs owed than it queues. */
            h2_break (h2, THRONG_ERROR_PROTOCOL, "%s flood: %s",
                      h2->last_control == NGHTTP2_PING ? "PING" : "SETTINGS",
                      nghttp2_strerror ((int)used));
            return FAST_IO_OK;
        }
        if (used < 0) {
            h2_break (h2, THRONG_ERROR_PROTOCOL, "%s", nghttp2_strerror ((int)used));
            return FAST_IO_OK;
        }
        /* Every outcome, or nghttp2 gave up the session: its GOAWAY goes out next. */
        if (h2_all_ended (h2) || !nghttp2_session_want_read (h2->session))
            return FAST_IO_OK;
        if (n < IN_SIZE && !fast_conn_pending (conn)) {
            *want = G_IO_IN;
            return FAST_IO_AGAIN;
        }
        budget = budget > n ? budget - n : 0;
        if (budget == 0) {
            if (fast_conn_pending (conn) && h2->n_active > 0) {
                FastUser *u = h2->active[0]->user;
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

static void
remove_active (FastH2 *h2, guint i)
{
    h2->active[i] = h2->active[--h2->n_active];
}

/* What a stream ended with, copied out before its user may start the next one. */
typedef struct {
    FastUser *user;
    H2Outcome outcome;
    ThrongErrorClass error_class;
    guint status;
    gboolean got_head;
    gboolean retry_safe; /* a lost connection: sent again when that cannot do anything twice */
    char message[160];
} H2Ending;

/*
 * Ends the streams that have an outcome, all of them when the
 * connection is @gone (closed under them, @lost_class and @lost_message
 * saying how) or broken: detaches them, gives the connection back to its
 * owner (or closes it once), and only then completes each exchange, since
 * a completion may start new streams, on this connection or another.
 * Nothing of the connection is touched after the completions.
 */
static void
h2_settle (FastConn *conn, gboolean gone, ThrongErrorClass lost_class, const char *lost_message)
{
    FastH2 *h2 = conn->h2;
    FastUser *owner = h2->owner;
    H2Ending endings[H2_STREAMS_MAX];
    guint n = 0;
    gboolean close, owner_ended = FALSE;

    if (!gone && !h2->broken && h2->n_active > 0 && h2_session_over (h2))
        h2_break (h2, THRONG_ERROR_PROTOCOL, "%s",
                  h2->message[0] != '\0' ? h2->message : "HTTP/2 session ended by a GOAWAY");
    for (guint i = h2->n_active; i-- > 0;) {
        H2Stream *st = h2->active[i];
        H2Ending *e;

        if (!gone && !h2->broken && st->outcome == H2_OPEN)
            continue;
        e = &endings[n++];
        e->user = st->user;
        e->outcome = st->outcome;
        e->error_class = st->error_class;
        e->status = st->status;
        e->got_head = st->got_head;
        e->retry_safe = FALSE;
        g_strlcpy (e->message, st->message, sizeof e->message);
        if (st->outcome == H2_OPEN || (gone && st->outcome == H2_DONE && !h2->broken)) {
            /* the connection's end is the stream's */
            if (gone) {
                e->retry_safe = st->user->reused && !st->user->retried && !st->got_head
                                && st->outcome == H2_OPEN
                                && fast_method_is_idempotent (st->user->hop.method);
                if (st->outcome == H2_OPEN) {
                    e->outcome = H2_BROKEN;
                    e->error_class = lost_class;
                    g_strlcpy (e->message, lost_message, sizeof e->message);
                }
            } else {
                e->outcome = H2_BROKEN;
                e->error_class = h2->error_class;
                g_strlcpy (e->message,
                           h2->message[0] != '\0' ? h2->message : "HTTP/2 connection error",
                           sizeof e->message);
            }
        }
        if (st->outcome == H2_DONE || st->outcome == H2_FAILED || st->outcome == H2_REFUSED)
            conn->exchanges++;
        owner_ended |= st->user == owner;
        st->user->conn = NULL;
        remove_active (h2, i);
    }
    if (n == 0)
        return;

    close = gone || h2->broken
            || (h2->n_active == 0
                && (!owner->fs->keep_alive || h2->goaway || h2_session_over (h2)
                    /* its owner's full pool did not keep it while lanes used it */
                    || (!owner_ended && owner->conn != conn && !fast_pool_holds (owner, conn))));
    if (close) {
        gboolean polite = !gone && !h2->broken;
        fast_pool_remove (owner, conn);
        if (owner->conn == conn)
            owner->conn = NULL;
        fast_conn_close (conn, polite);
    } else if (owner_ended) {
        fast_pool_put (owner, conn);
    }

    for (guint i = 0; i < n; i++) {
        H2Ending *e = &endings[i];
        FastUser *u = e->user;

        /* a failure too went over h2; a retry's new exchange says its own */
        http_sample_note_protocol (u->sample, "h2");
        switch (e->outcome) {
        case H2_DONE:
            fast_hop_done (u, e->status, "h2");
            break;
        case H2_FAILED:
            if (e->got_head)
                u->sample->status = (gint32)e->status;
            fast_fail (u, e->error_class, e->message[0] != '\0' ? e->message : NULL);
            break;
        case H2_REFUSED:
        case H2_BROKEN:
        default:
            if ((e->outcome == H2_REFUSED || e->retry_safe) && !u->retried) {
                g_debug ("fast: %s; retrying on a new connection", e->message);
                u->retried = TRUE;
                u->sample->retries++;
                fast_exchange_start (u, TRUE);
                break;
            }
            fast_fail (u, e->error_class,
                       e->message[0] != '\0' ? e->message : "HTTP/2 connection error");
            break;
        }
    }
}

/* Reads, writes, and settles: the one loop of an HTTP/2 connection with streams in flight. */
static void
h2_pump (FastConn *conn)
{
    FastH2 *h2 = conn->h2;
    GIOCondition want_in = G_IO_IN, want_out = 0;
    FastError error;
    FastIo r;

    for (guint i = 0; i < h2->n_active; i++)
        h2->active[i]->user->read_yielded = FALSE;
    r = h2_read (conn, h2, &want_in, &error);
    if (r == FAST_IO_EOF || r == FAST_IO_RESET || r == FAST_IO_ERROR) {
        h2_settle (conn, TRUE, r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
                   r == FAST_IO_ERROR     ? error.message
                   : h2->message[0] != '\0' ? h2->message
                                            : "HTTP/2 connection closed before the response was "
                                              "complete");
        return;
    }
    /* Even a finished stream's WINDOW_UPDATE and SETTINGS ACK go out now. */
    if (!h2->broken) {
        r = h2_flush (conn, h2, &want_out, &error);
        if (r == FAST_IO_ERROR || r == FAST_IO_RESET || r == FAST_IO_EOF) {
            gboolean open = FALSE;
            for (guint i = 0; i < h2->n_active; i++)
                open |= h2->active[i]->outcome == H2_OPEN;
            if (open) {
                h2_settle (conn, TRUE,
                           r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
                           r == FAST_IO_ERROR ? error.message
                                              : "connection closed while sending the request");
                return;
            }
            h2->goaway = TRUE;
        }
    }
    if (h2_has_outcome (h2) || h2_session_over (h2)) {
        h2_settle (conn, FALSE, THRONG_ERROR_NONE, NULL);
        return;
    }
    fast_conn_watch (conn, want_in | (r == FAST_IO_AGAIN ? want_out : 0));
}

/* Starts u's exchange as a stream on u->conn, an HTTP/2 connection. */
static void
h2_start (FastUser *u)
{
    FastConn *conn = u->conn;
    FastH2 *h2 = conn->h2;

    if (u->h2s == NULL)
        u->h2s = g_new0 (H2Stream, 1);
    u->state = ST_READING_HEAD;
    if (!h2_submit (u, h2, u->h2s))
        return;
    if (h2->n_active == 1) {
        h2_pump (conn);
        return;
    }
    /*
     * Others are in flight: the connection's next event sends it, with
     * every other stream a `parallel` starts meanwhile (the core starts
     * them in one pass), one write for all where a write each cost a
     * system call per request; and reads for all.
     */
    fast_conn_watch (conn, G_IO_IN | G_IO_OUT);
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
    h2_start (u);
    return TRUE;
}

void
fast_h2_event (FastUser *u)
{
    if (u->conn != NULL && u->conn->h2 != NULL && u->conn->h2->n_active > 0)
        h2_pump (u->conn);
}

void
fast_h2_conn_event (FastConn *conn)
{
    if (conn->h2->n_active > 0)
        h2_pump (conn);
    else
        fast_h2_idle_event (conn->h2->owner, conn);
}

void
fast_h2_idle_event (FastUser *u, FastConn *conn)
{
    FastH2 *h2 = conn->h2;
    GIOCondition want = G_IO_IN, want_out = 0;
    FastError error;
    FastIo r;

    if (h2->n_active > 0) {
        h2_pump (conn);
        return;
    }
    /* No stream is open: anything recorded is about the connection. */
    r = h2_read (conn, h2, &want, &error);
    if (r == FAST_IO_OK || r == FAST_IO_AGAIN)
        r = h2_flush (conn, h2, &want_out, &error);
    if ((r == FAST_IO_OK || r == FAST_IO_AGAIN) && !h2->broken && !h2->goaway
        && !h2_session_over (h2)) {
        fast_conn_watch (conn, want | (r == FAST_IO_AGAIN ? want_out : 0));
        return;
    }
    fast_pool_remove (u, conn);
    fast_conn_close (conn, FALSE);
}

/* Streams the connection may still open: the server's limit, ours, and a GOAWAY. */
static gboolean
h2_has_room (const FastConn *conn)
{
    const FastH2 *h2 = conn->h2;
    guint32 limit = nghttp2_session_get_remote_settings (h2->session,
                                                         NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);

    return h2->settings_seen && !h2->goaway && !h2->broken
           && h2->n_active < MIN (limit, H2_STREAMS_MAX);
}

gboolean
fast_h2_joinable (const FastUser *owner, const char *host, guint16 port, gboolean tls)
{
    const FastConn *conn = owner->conn;

    return conn != NULL && conn->h2 != NULL && conn->h2->n_active > 0
           && (owner->state == ST_READING_HEAD || owner->state == ST_READING_BODY)
           && h2_has_room (conn) && conn->port == port && conn->is_tls == tls
           && strcmp (conn->host, host) == 0;
}

void
fast_h2_join (FastUser *u, FastUser *owner)
{
    FastConn *conn = owner->conn;

    /* No g_debug here: formatting it costs more than the stream (GLib formats first). */
    u->conn = conn;
    u->reused = TRUE;
    h2_start (u);
}

gboolean
fast_h2_abandon (FastUser *u)
{
    FastConn *conn = u->conn;
    FastH2 *h2 = conn != NULL ? conn->h2 : NULL;
    GIOCondition want_out = 0;
    FastError error;

    if (h2 == NULL || u->h2s == NULL || (h2->n_active <= 1 && h2->owner == u))
        return FALSE;
    for (guint i = 0; i < h2->n_active; i++) {
        if (h2->active[i] == u->h2s) {
            nghttp2_submit_rst_stream (h2->session, NGHTTP2_FLAG_NONE, u->h2s->stream_id,
                                       NGHTTP2_CANCEL);
            remove_active (h2, i);
            break;
        }
    }
    u->conn = NULL;
    if (h2->owner == u)
        fast_pool_put (u, conn);
    if (h2->n_active > 0 && !h2->broken
        && h2_flush (conn, h2, &want_out, &error) == FAST_IO_AGAIN)
        fast_conn_watch (conn, G_IO_IN | want_out);
    return TRUE;
}

gboolean
fast_h2_in_use (const FastConn *conn)
{
    return conn->h2 != NULL && conn->h2->n_active > 0;
}

void
fast_h2_stream_free (FastH2Stream *stream)
{
    g_free (stream);
}
