/* SPDX-License-Identifier: MIT */
/*
 * The sender the influxdb and remote_write reporters share (each passes
 * its log domain, which names the thread): a thread with its own main context and SoupSession that
 * posts queued batches one at a time, oldest first.  The main thread only
 * appends to the queue under a mutex and wakes the thread, so a slow or
 * dead database never slows the run.  The queue is bounded in points:
 * past the bound the oldest batches are dropped and counted.  A write that
 * fails for the network, a 5xx or a 429 goes back to the head of the
 * queue and is retried after a backoff, never sooner than the answer's
 * Retry-After (InfluxDB 2 sends one with 429 and 503); one the database
 * refuses (another 4xx: a bad database name, a bad token) is dropped at
 * once, since sending it again cannot help.
 */
#include <libsoup/soup.h>

#include "push-sender.h"

#define BACKOFF_FIRST_US (250 * G_TIME_SPAN_MILLISECOND)

typedef struct {
    GBytes *lines;
    guint points;
    guint64 requests;
} Batch;

struct _PushSender {
    char *log_domain;
    char *url;
    char *authorization;
    char *content_type;
    char **headers;             /* NAME, VALUE pairs */
    gint64 timeout_us;
    guint64 max_points;
    gint64 backoff_max_us;

    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;

    /* The sender thread's own. */
    SoupSession *session;
    GCancellable *cancellable;
    GSource *retry;             /* the backoff's timer, while one runs */
    gint64 backoff_us;
    gint64 retry_after_us;      /* the last answer's Retry-After, 0: none */
    gboolean flushing;          /* the run has ended: retry soon, the deadline bounds it */

    /* Shared, under @lock. */
    GMutex lock;
    GCond idle;                 /* signalled when the queue empties and nothing is in flight */
    GQueue queue;               /* of Batch, oldest at the head */
    guint64 queued_points;
    gboolean busy;              /* a batch is in flight */
    gboolean stopping;
    PushSenderReport report;
};

static void
batch_free (Batch *batch)
{
    g_bytes_unref (batch->lines);
    g_free (batch);
}

/* Counts @batch as lost and frees it; with the lock held. */
static void
drop_locked (PushSender *sender, Batch *batch)
{
    sender->report.dropped_points += batch->points;
    sender->report.dropped_requests += batch->requests;
    batch_free (batch);
}

/*
 * Drops the oldest batches until the queue is within its bound, keeping
 * the newest batch even when it alone is larger; with the lock held.
 */
static void
bound_locked (PushSender *sender)
{
    while (sender->queued_points > sender->max_points && g_queue_get_length (&sender->queue) > 1) {
        Batch *oldest = g_queue_pop_head (&sender->queue);

        sender->queued_points -= oldest->points;
        drop_locked (sender, oldest);
    }
}

static void send_next (PushSender *sender);

static gboolean
on_retry (gpointer data)
{
    PushSender *sender = data;

    g_clear_pointer (&sender->retry, g_source_unref);
    send_next (sender);
    return G_SOURCE_REMOVE;
}

static void
schedule_retry (PushSender *sender)
{
    gint64 wait_us;

    sender->backoff_us = sender->backoff_us == 0 || sender->flushing
                             ? BACKOFF_FIRST_US
                             : MIN (sender->backoff_us * 2, sender->backoff_max_us);
    /* The server's Retry-After is a floor, except once the run has ended (flush_timeout bounds it). */
    wait_us = sender->flushing ? sender->backoff_us
                               : MAX (sender->backoff_us, sender->retry_after_us);
    g_log (sender->log_domain, G_LOG_LEVEL_DEBUG, "retrying in %" G_GINT64_FORMAT " ms",
           wait_us / 1000);
    sender->retry = g_timeout_source_new ((guint) (wait_us / 1000));
    g_source_set_callback (sender->retry, on_retry, sender, NULL);
    g_source_attach (sender->retry, sender->context);
}

static void
set_error_locked (PushSender *sender, char *message)
{
    g_free (sender->report.last_error);
    sender->report.last_error = message;
    sender->report.failed_writes++;
}

/* Retry-After in seconds (RFC 9110 §10.2.3), at most an hour; 0 when absent or an HTTP date. */
static gint64
retry_after_us (SoupMessage *message)
{
    const char *value
        = soup_message_headers_get_one (soup_message_get_response_headers (message), "Retry-After");
    guint64 seconds;

    if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 0, 3600, &seconds, NULL))
        return 0;
    return (gint64) seconds * G_USEC_PER_SEC;
}

static void
on_sent (GObject *source, GAsyncResult *result, gpointer data)
{
    Batch *batch = data;
    SoupMessage *message = soup_session_get_async_result_message (SOUP_SESSION (source), result);
    PushSender *sender = g_object_get_data (G_OBJECT (message), "throng-sender");
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) answer = soup_session_send_and_read_finish (SOUP_SESSION (source), result,
                                                                   &error);
    guint status = answer != NULL ? soup_message_get_status (message) : 0;
    gboolean retry = FALSE;

    sender->retry_after_us = answer != NULL ? retry_after_us (message) : 0;

    g_mutex_lock (&sender->lock);
    sender->busy = FALSE;
    if (answer != NULL && SOUP_STATUS_IS_SUCCESSFUL (status)) {
        sender->report.sent_points += batch->points;
        sender->backoff_us = 0;
        batch_free (batch);
    } else {
        if (answer == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            /* Stopped at the end: why the earlier attempts failed says more. */
            set_error_locked (sender, sender->report.last_error != NULL
                                          ? g_strdup (sender->report.last_error)
                                          : g_strdup ("unanswered when flush_timeout ran out"));
        else if (answer == NULL)
            set_error_locked (sender, g_strdup (error->message));
        else
            set_error_locked (sender,
                              g_strdup_printf ("HTTP %u %s: %.*s", status,
                                               soup_message_get_reason_phrase (message),
                                               (int) MIN (g_bytes_get_size (answer), 200),
                                               (const char *) g_bytes_get_data (answer, NULL)));
        retry = !sender->stopping
                && (answer == NULL || status >= 500 || status == 429 /* Too Many Requests */);
        if (retry) {
            g_queue_push_head (&sender->queue, batch);
            sender->queued_points += batch->points;
            bound_locked (sender);
        } else
            drop_locked (sender, batch);
    }
    if (g_queue_is_empty (&sender->queue))
        g_cond_broadcast (&sender->idle);
    gboolean stopping = sender->stopping;
    g_mutex_unlock (&sender->lock);
    g_object_unref (message);

    if (stopping)
        g_main_loop_quit (sender->loop);
    else if (retry)
        schedule_retry (sender);
    else
        send_next (sender);
}

/* Posts the oldest batch, unless one is in flight or a backoff runs.  On the sender's thread. */
static void
send_next (PushSender *sender)
{
    Batch *batch;

    g_mutex_lock (&sender->lock);
    if (sender->busy || sender->retry != NULL || sender->stopping) {
        g_mutex_unlock (&sender->lock);
        return;
    }
    batch = g_queue_pop_head (&sender->queue);
    if (batch == NULL) {
        g_cond_broadcast (&sender->idle);
        g_mutex_unlock (&sender->lock);
        return;
    }
    sender->queued_points -= batch->points;
    sender->busy = TRUE;
    g_mutex_unlock (&sender->lock);

    SoupMessage *message = soup_message_new ("POST", sender->url);
    soup_message_set_request_body_from_bytes (message, sender->content_type, batch->lines);
    if (sender->authorization != NULL)
        soup_message_headers_replace (soup_message_get_request_headers (message), "Authorization",
                                      sender->authorization);
    for (guint i = 0; sender->headers[i] != NULL && sender->headers[i + 1] != NULL; i += 2)
        soup_message_headers_replace (soup_message_get_request_headers (message),
                                      sender->headers[i], sender->headers[i + 1]);
    g_object_set_data (G_OBJECT (message), "throng-sender", sender);
    soup_session_send_and_read_async (sender->session, message, G_PRIORITY_DEFAULT,
                                      sender->cancellable, on_sent, batch);
}

static gboolean
on_wake (gpointer data)
{
    send_next (data);
    return G_SOURCE_REMOVE;
}

/* The run has ended: a backoff in progress is cut short. */
static gboolean
on_flush (gpointer data)
{
    PushSender *sender = data;

    sender->flushing = TRUE;
    if (sender->retry != NULL) {
        g_source_destroy (sender->retry);
        g_clear_pointer (&sender->retry, g_source_unref);
    }
    send_next (sender);
    return G_SOURCE_REMOVE;
}

/*
 * Runs @fn on the sender's thread.  Not g_main_context_invoke(), which
 * runs it on the caller's thread when the context happens to be free (the
 * thread not yet in its loop, say).
 */
static void
run_on_sender (PushSender *sender, GSourceFunc fn)
{
    GSource *source = g_idle_source_new ();

    g_source_set_callback (source, fn, sender, NULL);
    g_source_attach (source, sender->context);
    g_source_unref (source);
}

/* Stops sending: cancels what is in flight, and quits now or when its callback has run. */
static gboolean
on_stop (gpointer data)
{
    PushSender *sender = data;
    gboolean busy;

    g_mutex_lock (&sender->lock);
    sender->stopping = TRUE;
    busy = sender->busy;
    g_mutex_unlock (&sender->lock);
    if (sender->retry != NULL) {
        g_source_destroy (sender->retry);
        g_clear_pointer (&sender->retry, g_source_unref);
    }
    g_cancellable_cancel (sender->cancellable);
    if (!busy)
        g_main_loop_quit (sender->loop);
    return G_SOURCE_REMOVE;
}

static gpointer
sender_main (gpointer data)
{
    PushSender *sender = data;

    g_main_context_push_thread_default (sender->context);
    sender->session = soup_session_new_with_options (
        "timeout", (guint) MAX (1, sender->timeout_us / G_USEC_PER_SEC), "user-agent",
        "throng/" THRONG_VERSION_STRING, NULL);
    g_main_loop_run (sender->loop);
    g_clear_object (&sender->session);
    g_main_context_pop_thread_default (sender->context);
    return NULL;
}

PushSender *
push_sender_start (const PushSenderOptions *options)
{
    PushSender *sender = g_new0 (PushSender, 1);

    sender->log_domain = g_strdup (options->log_domain != NULL ? options->log_domain : G_LOG_DOMAIN);
    sender->url = g_strdup (options->url);
    sender->authorization = g_strdup (options->authorization);
    sender->content_type = g_strdup (options->content_type != NULL ? options->content_type
                                                                   : "text/plain; charset=utf-8");
    sender->headers = options->headers != NULL ? g_strdupv ((char **) options->headers)
                                               : g_new0 (char *, 1);
    sender->timeout_us = options->timeout_us;
    sender->max_points = options->max_points;
    sender->backoff_max_us = MAX (options->backoff_max_us, BACKOFF_FIRST_US);
    g_mutex_init (&sender->lock);
    g_cond_init (&sender->idle);
    g_queue_init (&sender->queue);
    sender->cancellable = g_cancellable_new ();
    sender->context = g_main_context_new ();
    sender->loop = g_main_loop_new (sender->context, FALSE);
    sender->thread = g_thread_new (sender->log_domain, sender_main, sender);
    return sender;
}

void
push_sender_push (PushSender *sender, GBytes *lines, guint n_points, guint64 requests)
{
    Batch *batch = g_new0 (Batch, 1);

    batch->lines = lines;
    batch->points = n_points;
    batch->requests = requests;
    g_mutex_lock (&sender->lock);
    g_queue_push_tail (&sender->queue, batch);
    sender->queued_points += n_points;
    bound_locked (sender);
    g_mutex_unlock (&sender->lock);
    run_on_sender (sender, on_wake);
}

void
push_sender_finish (PushSender *sender, gint64 timeout_us, PushSenderReport *report)
{
    gint64 deadline = g_get_monotonic_time () + timeout_us;

    run_on_sender (sender, on_flush);
    g_mutex_lock (&sender->lock);
    while ((sender->busy || !g_queue_is_empty (&sender->queue))
           && g_cond_wait_until (&sender->idle, &sender->lock, deadline))
        ;
    g_mutex_unlock (&sender->lock);

    run_on_sender (sender, on_stop);
    g_thread_join (sender->thread);

    /* Whatever is still queued was never written. */
    Batch *batch;
    while ((batch = g_queue_pop_head (&sender->queue)) != NULL)
        drop_locked (sender, batch);
    *report = sender->report;

    g_main_loop_unref (sender->loop);
    g_main_context_unref (sender->context);
    g_object_unref (sender->cancellable);
    g_mutex_clear (&sender->lock);
    g_cond_clear (&sender->idle);
    g_free (sender->log_domain);
    g_free (sender->url);
    g_free (sender->authorization);
    g_free (sender->content_type);
    g_strfreev (sender->headers);
    g_free (sender);
}

char **
push_reporter_drain (gpointer reporter, PushSender *sender, PushFinishFunc finish,
                     const ThrongSummary *summary)
{
    if (sender == NULL)
        return NULL;
    char *warning = finish (reporter, summary);
    if (warning == NULL)
        return NULL;
    char **warnings = g_new0 (char *, 2);
    warnings[0] = warning;
    return warnings;
}

gboolean
push_reporter_close (gpointer reporter, PushSender *sender, PushFinishFunc finish,
                     const ThrongSummary *summary)
{
    if (sender == NULL)
        return TRUE;
    g_autofree char *warning = finish (reporter, summary);
    if (warning != NULL)
        g_printerr ("throng: warning: %s\n", warning);
    return TRUE;
}
