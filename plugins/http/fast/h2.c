/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 exchanges of the fast transport (h2.h), the session table
 * session.c gives a connection on which ALPN chose h2 (or h2c by prior
 * knowledge): this file moves bytes between nghttp2 (mem_recv/mem_send)
 * and the FastConn, and acts on what h2-stream.c's callbacks recorded,
 * deciding how each stream ends.
 *
 * A stream failure (RST_STREAM, a refused head) fails the step and keeps
 * the connection; a connection failure (a GOAWAY with an error, a frame
 * the library refuses, a flood) fails it and closes the connection, and
 * every stream on it.
 *
 * Several streams at once: the exchanges of a user's lanes (../lanes.c,
 * a `parallel` step) join the connection of the user's own exchange
 * (h2_join), up to the server's SETTINGS_MAX_CONCURRENT_STREAMS.  The
 * connection stays its owner's (in the owner's hands or pool); each
 * stream keeps its state in its exchange's FastUser (u->stream); whichever
 * event comes, one pump reads for all, and h2_settle() ends each stream
 * that has an outcome, after detaching it.
 */
#include "h2-private.h"
#include "connect.h"
#include "pool.h"
#include "../errors.h"

#include <string.h>

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
 * frames to their streams' samples, frame_bytes()).  Returns OK when it stopped for the budget or
 * an outcome, AGAIN with *@want, or how the connection ended.
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
            fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "%s flood: %s",
                           h2->last_control == NGHTTP2_PING ? "PING" : "SETTINGS",
                           nghttp2_strerror ((int)used));
            return FAST_IO_OK;
        }
        if (used < 0) {
            fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "%s", nghttp2_strerror ((int)used));
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
    FastH2 *h2 = h2_of (conn);
    FastUser *owner = h2->owner;
    H2Ending endings[H2_STREAMS_MAX];
    guint n = 0;
    gboolean close, owner_ended = FALSE;

    if (!gone && !h2->broken && h2->n_active > 0 && h2_session_over (h2))
        fast_h2_break (h2, THRONG_ERROR_PROTOCOL, "%s",
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
                && (!owner->fs->keep_alive || h2->goaway
                    || h2_session_over (h2)
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
            u->fs->events->hop_done (u, e->status, "h2");
            break;
        case H2_FAILED:
            if (e->got_head)
                u->sample->status = (gint32)e->status;
            u->fs->events->fail (u, e->error_class, e->message[0] != '\0' ? e->message : NULL);
            break;
        case H2_REFUSED:
        case H2_BROKEN:
        default:
            if ((e->outcome == H2_REFUSED || e->retry_safe) && !u->retried) {
                g_debug ("fast: %s; retrying on a new connection", e->message);
                u->fs->events->again (u);
                break;
            }
            u->fs->events->fail (u, e->error_class,
                                 e->message[0] != '\0' ? e->message : "HTTP/2 connection error");
            break;
        }
    }
}

/* Reads, writes, and settles: the one loop of an HTTP/2 connection with streams in flight. */
static void
h2_pump (FastConn *conn)
{
    FastH2 *h2 = h2_of (conn);
    GIOCondition want_in = G_IO_IN, want_out = 0;
    FastError error;
    FastIo r;

    for (guint i = 0; i < h2->n_active; i++)
        h2->active[i]->user->read_yielded = FALSE;
    r = h2_read (conn, h2, &want_in, &error);
    if (r == FAST_IO_EOF || r == FAST_IO_RESET || r == FAST_IO_ERROR) {
        h2_settle (conn, TRUE, r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
                   r == FAST_IO_ERROR       ? error.message
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
                h2_settle (conn, TRUE, r == FAST_IO_ERROR ? error.error_class : THRONG_ERROR_RESET,
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

/* Streams the connection may still open: the server's limit, ours, and a GOAWAY. */
static gboolean
h2_room (const FastConn *conn)
{
    const FastH2 *h2 = h2_of (conn);
    guint32 limit = nghttp2_session_get_remote_settings (h2->session,
                                                         NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);

    return h2->settings_seen && !h2->goaway && !h2->broken
           && h2->n_active < MIN (limit, H2_STREAMS_MAX);
}

/* Starts u's exchange as a stream on u->conn (its session: h2). */
static void
h2_submit (FastUser *u)
{
    FastConn *conn = u->conn;
    FastH2 *h2 = h2_of (conn);

    if (u->stream == NULL)
        u->stream = g_new0 (H2Stream, 1);
    u->state = ST_READING_HEAD;
    if (!fast_h2_submit (u, h2, u->stream))
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

static void
h2_connect (FastUser *u)
{
    FastConn *conn = u->conn;

    conn->session_data = fast_h2_new (u);
    conn->session_free = fast_h2_free;
    g_debug ("fast: %s on %s:%u", conn->is_tls ? "h2 (ALPN)" : "h2c (prior knowledge)", u->host,
             u->port);
}

static void
h2_resume (FastUser *u)
{
    if (h2_of (u->conn)->n_active > 0)
        h2_pump (u->conn);
}

/* A kept-alive connection stirred: PING, SETTINGS, GOAWAY, a ticket, or the close. */
static void
h2_idle (FastUser *u, FastConn *conn)
{
    FastH2 *h2 = h2_of (conn);
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

/* Streams of several exchanges may share the connection: the connection decides, not a user. */
static void
h2_event (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastH2 *h2 = h2_of (conn);

    if (h2->n_active > 0)
        h2_pump (conn);
    else
        h2_idle (h2->owner, conn);
}

static gboolean
h2_joinable (const FastUser *owner, const char *host, guint16 port, gboolean tls)
{
    const FastConn *conn = owner->conn;

    return h2_of (conn)->n_active > 0
           && (owner->state == ST_READING_HEAD || owner->state == ST_READING_BODY) && h2_room (conn)
           && conn->port == port && conn->is_tls == tls && strcmp (conn->host, host) == 0;
}

static void
h2_join (FastUser *u, FastUser *owner)
{
    FastConn *conn = owner->conn;

    /* No g_debug here: formatting it costs more than the stream (GLib formats first). */
    u->conn = conn;
    u->reused = TRUE;
    h2_submit (u);
}

/*
 * u's exchange is ending early while other streams share its connection:
 * resets its stream, detaches it and leaves the connection to them (in
 * its owner's pool).  FALSE when u's stream is the connection's only one:
 * the caller closes the connection.
 */
static gboolean
h2_terminate (FastUser *u)
{
    FastConn *conn = u->conn;
    FastH2 *h2 = h2_of (conn);
    H2Stream *stream = u->stream;
    GIOCondition want_out = 0;
    FastError error;

    if (stream == NULL || (h2->n_active <= 1 && h2->owner == u))
        return FALSE;
    for (guint i = 0; i < h2->n_active; i++) {
        if (h2->active[i] == stream) {
            nghttp2_submit_rst_stream (h2->session, NGHTTP2_FLAG_NONE, stream->stream_id,
                                       NGHTTP2_CANCEL);
            remove_active (h2, i);
            break;
        }
    }
    u->conn = NULL;
    if (h2->owner == u)
        fast_pool_put (u, conn);
    if (h2->n_active > 0 && !h2->broken && h2_flush (conn, h2, &want_out, &error) == FAST_IO_AGAIN)
        fast_conn_watch (conn, G_IO_IN | want_out);
    return TRUE;
}

/* TRUE while streams of lanes are in flight on @conn (its owner must not close it). */
static gboolean
h2_busy (const FastConn *conn)
{
    return h2_of (conn)->n_active > 0;
}

const FastSession fast_h2_session = {
    .name = "h2",
    .connect = h2_connect,
    .submit = h2_submit,
    .event = h2_event,
    .resume = h2_resume,
    .terminate = h2_terminate,
    .idle = h2_idle,
    .busy = h2_busy,
    .room = h2_room,
    .joinable = h2_joinable,
    .join = h2_join,
};
