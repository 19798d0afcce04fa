/* SPDX-License-Identifier: MIT */
/*
 * Internals of the prometheus plugin shared between its files: the
 * reporter's vtable (prometheus.c), the run's figures so far and their
 * text form (exposition.c), and the server that hands the latest text to
 * scrapers from a thread of its own (server.c).
 */
#pragma once

#include <gio/gio.h>
#include <throng/throng.h>

extern const ThrongReporter prometheus_reporter;

/* ---- exposition.c ---------------------------------------------------- */

/*
 * The bucket edges of the latency histograms, in µs: the edges of
 * throng's own histogram buckets nearest below 0.1 ms, 0.25 ms, 0.5 ms,
 * 1 ms, 2.5 ms … 10 s, 30 s, 60 s, so that every `_bucket` count is
 * exact (docs/reporters.md lists them).
 */
extern const gint64 prometheus_edges_us[];
extern const guint prometheus_n_edges;

typedef struct _PrometheusFigures PrometheusFigures;

/* Empty figures for the run @run describes (its scenarios and steps). */
PrometheusFigures *prometheus_figures_new (const ThrongRunInfo *run);
void prometheus_figures_free (PrometheusFigures *figures);

/*
 * Renders the latency histograms at @edges_us (µs, ascending, each an edge
 * of throng's buckets so that the counts stay exact) instead of
 * prometheus_edges_us.  Copied.
 */
void prometheus_figures_set_edges (PrometheusFigures *figures, const gint64 *edges_us,
                                   guint n_edges);

/* Counts a batch of samples by their status_class (the requests counter's label). */
void prometheus_figures_add_samples (PrometheusFigures *figures, const ThrongSample *samples,
                                     gsize n_samples);

/* Adds a snapshot's interval to the run so far and takes its gauges. */
void prometheus_figures_add_interval (PrometheusFigures *figures, const ThrongSummary *snapshot);

/* Replaces the figures so far by the final summary's, which are the run's own. */
void prometheus_figures_set_final (PrometheusFigures *figures, const ThrongSummary *summary);

/* The figures in the Prometheus text format (version 0.0.4). */
GBytes *prometheus_figures_render (const PrometheusFigures *figures);

/*
 * How many values of @histogram are below @edge_us, which must be an edge
 * of its buckets (one of prometheus_edges_us); exact.  @at_least is a
 * count already known to be below (0, or the count of a lower edge).
 */
guint64 prometheus_count_below (const ThrongHistogram *histogram, gint64 edge_us,
                                guint64 at_least);

/* ---- server.c -------------------------------------------------------- */

typedef struct _PrometheusServer PrometheusServer;

/*
 * Starts a thread that serves GET /metrics on @address, and returns once
 * it listens; NULL with an error (the port is taken, say) otherwise.
 */
PrometheusServer *prometheus_server_start (GSocketAddress *address, GError **error);

/* Serves @text from now on (transfer full).  @final: the run has ended. */
void prometheus_server_publish (PrometheusServer *server, GBytes *text, gboolean final);

/* How many scrapes have received the final text so far. */
guint prometheus_server_final_scrapes (PrometheusServer *server);

/*
 * Waits until @scrapes scrapes (0: none, wait the whole time) have
 * received the final text, @linger_us has passed, or the user sends
 * SIGINT or SIGTERM; returns how many scrapes received it.
 */
guint prometheus_server_linger (PrometheusServer *server, gint64 linger_us, guint scrapes);

/* Stops the thread and closes the socket.  NULL is allowed. */
void prometheus_server_stop (PrometheusServer *server);
