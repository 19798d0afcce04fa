/* SPDX-License-Identifier: MIT */
/*
 * The remote_write reporter: its options and hooks.  It keeps the same
 * figures as the prometheus reporter (exposition.c: counters that only
 * grow, throng's histograms at fixed edges) and, at each snapshot, pushes
 * their page, every series stamped with the run's labels and the time, to
 * the endpoint through the sender's thread; nothing here waits for the
 * network.  drain (or close, where the core does not drain) pushes the
 * final summary's figures, waits up to flush_timeout for the sender and
 * says what was lost as a warning of the run.
 *
 * Every push carries the totals so far, so a push that is lost (the
 * endpoint down, the buffer full) loses points in time, never counts: the
 * totals are right as soon as one later push lands.  Only the final push
 * carries the run's own totals; the warning says when it did not land.
 */
#include <string.h>

#include "prometheus.h"
#include "push-sender.h"
#include "remote-write.h"

typedef struct {
    char *url;
    char *run_id;
    const ThrongNode *labels;
    const ThrongNode *buckets;
    guint64 buffer;
    gint64 timeout_us;
    gint64 backoff_max_us;
    gint64 flush_timeout_us;
} RemoteOptions;

static const ThrongOption remote_options[] = {
    { "url", THRONG_OPTION_STRING, G_STRUCT_OFFSET (RemoteOptions, url) },
    { "run_id", THRONG_OPTION_STRING, G_STRUCT_OFFSET (RemoteOptions, run_id) },
    { "labels", THRONG_OPTION_NODE, G_STRUCT_OFFSET (RemoteOptions, labels) },
    { "buckets", THRONG_OPTION_NODE, G_STRUCT_OFFSET (RemoteOptions, buckets) },
    { "buffer", THRONG_OPTION_UINT, G_STRUCT_OFFSET (RemoteOptions, buffer), .min = 1,
      .max = 10000000 },
    { "timeout", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (RemoteOptions, timeout_us),
      .min = G_USEC_PER_SEC, .max = 600 * G_USEC_PER_SEC },
    { "backoff_max", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (RemoteOptions, backoff_max_us),
      .min = 250 * G_TIME_SPAN_MILLISECOND, .max = 600 * G_USEC_PER_SEC },
    { "flush_timeout", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (RemoteOptions, flush_timeout_us),
      .min = 0, .max = 600 * G_USEC_PER_SEC },
    { NULL },
};

/* Labels the figures' series carry, or the reporter adds: `labels` may not set them. */
static const char *const own_labels[] = { "__name__", "run_id", "scenario", "step", "step_id",
                                          "status_class", "class", "le", "metric", "quantile",
                                          "check", "result", NULL };

#define MAX_BUCKETS 200

typedef struct {
    RemoteOptions options;
    GPtrArray *labels;          /* run_id, its value, then `labels`' pairs; NULL-terminated */
    GArray *edges_us;           /* gint64: the latency buckets' edges */
    PrometheusFigures *figures;
    RemoteChecks *checks;
    PushSender *sender;
    gint64 last_ms;             /* the last push's timestamp: each push's is later */
    guint64 pushes;
    guint64 unencoded;          /* pushes lost before they were sent: see push() */
} Remote;

static void
remote_free (gpointer self)
{
    Remote *remote = self;

    if (remote == NULL)
        return;
    if (remote->sender != NULL) {
        PushSenderReport report;

        push_sender_finish (remote->sender, 0, &report);
        g_free (report.last_error);
    }
    prometheus_figures_free (remote->figures);
    remote_checks_free (remote->checks);
    g_clear_pointer (&remote->labels, g_ptr_array_unref);
    g_clear_pointer (&remote->edges_us, g_array_unref);
    throng_options_clear (remote_options, &remote->options);
    g_free (remote);
}

/* Prometheus' label names: [a-zA-Z_][a-zA-Z0-9_]*, and never __reserved. */
static gboolean
valid_label_name (const char *name)
{
    if (!g_ascii_isalpha (name[0]) && name[0] != '_')
        return FALSE;
    for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != '_')
            return FALSE;
    return !g_str_has_prefix (name, "__");
}

/* `labels`: a map of scalars, each a label on every series (Prometheus' external labels). */
static gboolean
read_labels (Remote *remote, GError **error)
{
    const ThrongNode *labels = remote->options.labels;

    if (labels == NULL || throng_node_is_null (labels))
        return TRUE;
    if (throng_node_kind (labels) != THRONG_NODE_MAP) {
        throng_node_set_error (labels, error, THRONG_PLAN_ERROR_INVALID,
                               "labels: expected a map such as '{ env: staging }'");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (labels); i++) {
        const ThrongNode *key = throng_node_key (labels, i);
        const char *name = throng_node_scalar (key);
        const char *value = NULL;

        if (!throng_node_get_string (throng_node_child (labels, i), &value, error))
            return FALSE;
        if (g_strv_contains (own_labels, name)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "labels: '%s' is a label of throng's own", name);
            return FALSE;
        }
        if (!valid_label_name (name)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "labels: '%s' is not a Prometheus label name "
                                   "([a-zA-Z_][a-zA-Z0-9_]*)",
                                   name);
            return FALSE;
        }
        g_ptr_array_insert (remote->labels, (gint) remote->labels->len - 1, g_strdup (name));
        g_ptr_array_insert (remote->labels, (gint) remote->labels->len - 1, g_strdup (value));
    }
    return TRUE;
}

/*
 * The edge of throng's histogram buckets at or below @us (histogram.c:
 * below 128 µs one bucket per µs, above 64 buckets per power of two), so
 * that the `_bucket` counts at it are exact.
 */
static gint64
bucket_edge (gint64 us)
{
    guint bits = g_bit_storage ((guint64) us);
    guint shift = bits > 7 ? bits - 7 : 0;

    return (us >> shift) << shift;
}

static void
add_edge (GArray *edges, gint64 us)
{
    gint64 edge = bucket_edge (us);

    if (edges->len == 0 || g_array_index (edges, gint64, edges->len - 1) < edge)
        g_array_append_val (edges, edge);
}

/*
 * `buckets`: a list of durations, ascending; by default ten a decade
 * (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8) from 50 µs to 60 s, which keeps
 * histogram_quantile() within a few percent of throng's own percentiles
 * (docs/reporters.md gives the measured figures).
 */
static gboolean
read_buckets (Remote *remote, GError **error)
{
    const ThrongNode *buckets = remote->options.buckets;

    remote->edges_us = g_array_new (FALSE, FALSE, sizeof (gint64));
    if (buckets == NULL || throng_node_is_null (buckets)) {
        static const gint64 steps[] = { 100, 125, 150, 200, 250, 300, 400, 500, 600, 800 };

        for (gint64 decade = 1; decade <= G_USEC_PER_SEC * 10; decade *= 10)
            for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
                gint64 us = steps[i] * decade / 100;
                if (us >= 50 && us <= 60 * G_USEC_PER_SEC)
                    add_edge (remote->edges_us, us);
            }
        return TRUE;
    }
    if (throng_node_kind (buckets) != THRONG_NODE_SEQUENCE || throng_node_n_children (buckets) == 0
        || throng_node_n_children (buckets) > MAX_BUCKETS) {
        throng_node_set_error (buckets, error, THRONG_PLAN_ERROR_INVALID,
                               "buckets: expected a list of 1 to %u durations such as "
                               "[1ms, 5ms, 25ms, 100ms]",
                               MAX_BUCKETS);
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (buckets); i++) {
        const ThrongNode *child = throng_node_child (buckets, i);
        gint64 us;

        if (!throng_node_get_duration (child, &us, error))
            return FALSE;
        if (us <= 0 || (remote->edges_us->len > 0
                        && bucket_edge (us) <= g_array_index (remote->edges_us, gint64,
                                                              remote->edges_us->len - 1))) {
            throng_node_set_error (child, error, THRONG_PLAN_ERROR_INVALID,
                                   "buckets: each bound must be positive and more than 1%% "
                                   "above the one before");
            return FALSE;
        }
        add_edge (remote->edges_us, us);
    }
    return TRUE;
}

static gpointer
remote_configure (const ThrongNode *options, GError **error)
{
    Remote *remote = g_new0 (Remote, 1);

    remote->options.url = g_strdup ("http://127.0.0.1:9090/api/v1/write");
    remote->options.buffer = 100000;
    remote->options.timeout_us = 5 * G_USEC_PER_SEC;
    remote->options.backoff_max_us = 10 * G_USEC_PER_SEC;
    remote->options.flush_timeout_us = 10 * G_USEC_PER_SEC;
    remote->labels = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (remote->labels, NULL);
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, remote_options, &remote->options, FALSE,
                                  "remote_write options", error)) {
        remote_free (remote);
        return NULL;
    }
    if (!read_labels (remote, error) || !read_buckets (remote, error)) {
        remote_free (remote);
        return NULL;
    }
    g_autoptr (GUri) uri = g_uri_parse (remote->options.url, G_URI_FLAGS_NONE, NULL);
    if (uri == NULL
        || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0
            && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0)
        || g_uri_get_host (uri) == NULL) {
        const ThrongNode *at = options != NULL ? throng_node_lookup (options, "url") : NULL;
        throng_node_set_error (at != NULL ? at : options, error, THRONG_PLAN_ERROR_INVALID,
                               "url: '%s' is not an http:// or https:// URL such as "
                               "http://127.0.0.1:9090/api/v1/write",
                               remote->options.url);
        remote_free (remote);
        return NULL;
    }
    if (remote->options.run_id != NULL && *remote->options.run_id == '\0') {
        const ThrongNode *at = throng_node_lookup (options, "run_id");
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "run_id: Prometheus drops a label with an empty value");
        remote_free (remote);
        return NULL;
    }
    return remote;
}

/* A run's identifier when the plan gives none: its start, UTC, and 4 random hex digits. */
static char *
generate_run_id (void)
{
    g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
    g_autofree char *when = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

    return g_strdup_printf ("%s-%04x", when, g_random_int_range (0, 0x10000));
}

static gboolean
remote_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Remote *remote = self;
    g_autofree char *authorization = NULL;
    const char *token = g_getenv ("THRONG_REMOTE_WRITE_TOKEN");

    if (remote->options.run_id == NULL)
        remote->options.run_id = generate_run_id ();
    g_ptr_array_insert (remote->labels, 0, g_strdup ("run_id"));
    g_ptr_array_insert (remote->labels, 1, g_strdup (remote->options.run_id));
    remote->figures = prometheus_figures_new (run);
    prometheus_figures_set_edges (remote->figures, (const gint64 *) remote->edges_us->data,
                                  remote->edges_us->len);
    remote->checks = remote_checks_new ();
    if (token != NULL && *token != '\0')
        authorization = g_strdup_printf ("Bearer %s", token);

    PushSenderOptions sender = {
        .log_domain = G_LOG_DOMAIN,
        .url = remote->options.url,
        .authorization = authorization,
        .timeout_us = remote->options.timeout_us,
        .max_points = remote->options.buffer,
        .backoff_max_us = remote->options.backoff_max_us,
        .content_type = "application/x-protobuf",
        .headers = (const char *const[]) { "Content-Encoding", "snappy",
                                           "X-Prometheus-Remote-Write-Version", "0.1.0", NULL },
    };
    remote->sender = push_sender_start (&sender);
    if (!run->quiet)
        g_printerr ("throng: remote_write: run_id=\"%s\"\n", remote->options.run_id);
    (void) error;
    return TRUE;
}

static gboolean
remote_wants_samples (gpointer self)
{
    return TRUE; /* the requests counter's status_class comes from the samples */
}

static void
remote_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Remote *remote = self;

    if (remote->figures != NULL)
        prometheus_figures_add_samples (remote->figures, samples, n_samples);
}

/*
 * Queues the figures so far; @requests is what the push carries that no
 * later push will (the run's total requests for the final one, else 0).
 */
static gboolean
push (Remote *remote, guint64 requests)
{
    g_autoptr (GBytes) page = prometheus_figures_render (remote->figures);
    g_autoptr (GError) error = NULL;
    gsize length;
    const char *text = g_bytes_get_data (page, &length);
    g_autoptr (GString) all = g_string_new_len (text, (gssize) length);
    guint n_series = 0;
    /* Prometheus refuses a second sample at the same time with another value. */
    gint64 now_ms = MAX (g_get_real_time () / 1000, remote->last_ms + 1);

    remote_checks_render (remote->checks, all);
    GBytes *body = remote_write_encode (all->str, all->len,
                                        (const char *const *) remote->labels->pdata, now_ms,
                                        &n_series, &error);
    if (body == NULL) {
        /* The page is exposition.c's own: a failure here is a bug, not the user's. */
        g_critical ("remote_write: %s", error->message);
        remote->unencoded++;
        return FALSE;
    }
    remote->last_ms = now_ms;
    remote->pushes++;
    push_sender_push (remote->sender, body, n_series, requests);
    return TRUE;
}

static void
remote_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Remote *remote = self;

    if (remote->sender == NULL)
        return;
    prometheus_figures_add_interval (remote->figures, snapshot);
    remote_checks_take (remote->checks, snapshot, FALSE);
    push (remote, 0);
}

/* Pushes the final figures, waits up to flush_timeout, and says what was lost (NULL: nothing). */
static char *
remote_finish (gpointer self, const ThrongSummary *summary)
{
    Remote *remote = self;
    PushSenderReport report;
    gboolean started = !(THRONG_STRUCT_HAS (summary, ThrongSummary, never_started)
                         && summary->never_started);
    guint64 requests = summary->total.requests;
    char *warning = NULL;
    gboolean final_encoded = TRUE;

    if (started) {
        prometheus_figures_set_final (remote->figures, summary);
        remote_checks_take (remote->checks, summary, TRUE);
        /* Never 0, so that dropped_requests tells whether the final push landed. */
        final_encoded = push (remote, MAX (requests, 1));
    }
    push_sender_finish (g_steal_pointer (&remote->sender),
                          started ? remote->options.flush_timeout_us : 0, &report);
    g_debug ("%" G_GUINT64_FORMAT " samples written, %" G_GUINT64_FORMAT " failed pushes",
             report.sent_points, report.failed_writes);
    if (started
        && (report.dropped_points > 0 || report.failed_writes > 0 || remote->unencoded > 0)) {
        /* An encoding failure is throng's bug, but its data is as lost as a refused push's. */
        g_autofree char *unencoded
            = remote->unencoded > 0
                  ? g_strdup_printf (", %" G_GUINT64_FORMAT " pushes could not be encoded",
                                     remote->unencoded)
                  : g_strdup ("");

        warning = g_strdup_printf (
            "remote_write: %" G_GUINT64_FORMAT " push attempts failed%s and %" G_GUINT64_FORMAT
            " of %" G_GUINT64_FORMAT " samples were not stored; %s; last error: %s",
            report.failed_writes, unencoded, report.dropped_points,
            report.dropped_points + report.sent_points,
            report.dropped_requests > 0 || !final_encoded
                ? "the final totals were NOT written (the stored counters stop short of the "
                  "run's)"
                : "the final totals were written",
            report.last_error != NULL ? report.last_error : "none");
    }
    g_free (report.last_error);
    return warning;
}

static char **
remote_drain (gpointer self, const ThrongSummary *summary)
{
    return push_reporter_drain (self, ((Remote *) self)->sender, remote_finish, summary);
}

static gboolean
remote_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    return push_reporter_close (self, ((Remote *) self)->sender, remote_finish, summary);
}

const ThrongReporter remote_write_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "remote_write",
    .configure = remote_configure,
    .open = remote_open,
    .samples = remote_samples,
    .snapshot = remote_snapshot,
    .close = remote_close,
    .free = remote_free,
    .wants_samples = remote_wants_samples,
    .drain = remote_drain,
};
