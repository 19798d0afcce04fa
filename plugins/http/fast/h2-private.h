/* SPDX-License-Identifier: MIT */
/*
 * What h2.c and h2-stream.c share: the state of one HTTP/2 connection
 * (FastH2, the session's data on its FastConn) and of one stream
 * (H2Stream, the exchange's u->stream), and the calls h2.c makes into
 * h2-stream.c.  h2-stream.c records what nghttp2 reports; h2.c moves
 * bytes and acts on the records; h2-stream.c never calls h2.c.
 */
#pragma once

#include "h2.h"

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

/* One stream: the exchange of the FastUser that holds it (u->stream). */
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
typedef struct _FastH2 FastH2;

struct _FastH2 {
    nghttp2_session *session;
    FastUser *owner;   /* whose hands or pool hold the connection; its buffer reads */
    const guint8 *out; /* what mem_send returned and h2->wbuf has not taken */
    gsize out_len;
    guint8 wbuf[H2_WBUF]; /* frames gathered for one write */
    gsize wbuf_len;
    gsize wbuf_off;  /* written so far */
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

static inline FastH2 *
h2_of (const FastConn *conn)
{
    return conn->session_data;
}

/* A new session for u->conn, its SETTINGS queued; freed by fast_h2_free(). */
FastH2 *fast_h2_new (FastUser *u);
void fast_h2_free (gpointer h2);

/*
 * Records the connection's failure, which every stream on it shares
 * (a stream that already has an outcome keeps it); the first stands.
 */
void fast_h2_break (FastH2 *h2, ThrongErrorClass error_class, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

/*
 * Submits u's current hop as the stream @st on @h2.  FALSE when nghttp2
 * refused it: the exchange failed then (u->fs->events->fail).
 */
gboolean fast_h2_submit (FastUser *u, FastH2 *h2, H2Stream *st);
