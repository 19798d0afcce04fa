/* SPDX-License-Identifier: MIT */
/*
 * The push thread the influxdb and remote_write reporters share
 * (push-sender.c): batches queued by the main thread, posted one at a
 * time from a thread of its own, retried with a backoff, bounded in
 * points.  Also the two reporters' drain and close around it, which are
 * the same but for the warning each one words.  Private to the plugins,
 * never installed.
 */
#pragma once

#include <throng/throng.h>

typedef struct _PushSender PushSender;

/*
 * How the sender posts: to @url (the whole write URL, query included),
 * with @authorization as the header's value (may be NULL), each attempt
 * bounded by @timeout_us; at most @max_points points wait to be sent
 * (older batches are dropped past that); a failed write is retried after
 * a backoff that doubles from 250 ms up to @backoff_max_us.
 */
typedef struct {
    const char *url;
    const char *authorization;
    gint64 timeout_us;
    guint64 max_points;
    gint64 backoff_max_us;
    /* The domain the sender logs in and names its thread after: the reporter's G_LOG_DOMAIN. */
    const char *log_domain;
    /* The body's type and more headers (remote_write's protobuf and its version header). */
    const char *content_type;           /* NULL: line protocol's text/plain */
    const char *const *headers;         /* NULL or NULL-terminated NAME, VALUE pairs */
} PushSenderOptions;

/* What became of the points the sender was given. */
typedef struct {
    guint64 sent_points;
    guint64 dropped_points;     /* past the buffer's bound, refused by the database, or unsent at the end */
    guint64 dropped_requests;   /* the requests those points counted */
    guint64 failed_writes;      /* attempts that failed (each retried or dropped) */
    char *last_error;           /* why the last attempt failed, or NULL */
} PushSenderReport;

PushSender *push_sender_start (const PushSenderOptions *options);

/*
 * Queues one batch of @n_points lines (transfer full) that count
 * @requests requests; never blocks on the network.
 */
void push_sender_push (PushSender *sender, GBytes *lines, guint n_points, guint64 requests);

/*
 * Waits up to @timeout_us for everything queued to be written, then stops
 * the thread; fills @report (free its last_error).  Frees @sender.
 */
void push_sender_finish (PushSender *sender, gint64 timeout_us, PushSenderReport *report);

/*
 * What a pushing reporter does at its end: pushes what the snapshots
 * missed, calls push_sender_finish() on its sender (which it forgets) and
 * returns what was lost as a warning (NULL: nothing lost).
 */
typedef char *(*PushFinishFunc) (gpointer reporter, const ThrongSummary *summary);

/*
 * The reporter's drain, in a run: @finish's warning goes into the
 * summary's warnings, which every reporter shows.  Returns NULL (nothing
 * to say) when @sender is NULL (finished already) or nothing was lost.
 */
char **push_reporter_drain (gpointer reporter, PushSender *sender, PushFinishFunc finish,
                            const ThrongSummary *summary);

/*
 * The reporter's close: a run has drained it already (@sender NULL);
 * `throng report` and `throng merge` do not drain, so it finishes here
 * and prints the warning on stderr.  Always TRUE: losses are not errors.
 */
gboolean push_reporter_close (gpointer reporter, PushSender *sender, PushFinishFunc finish,
                              const ThrongSummary *summary);
