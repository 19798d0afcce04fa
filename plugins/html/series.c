/* SPDX-License-Identifier: MIT */
/*
 * The bounded series of interval points.  Memory stays O(cap): each point
 * keeps its latency histogram serialized (a few hundred bytes), and only
 * the point being filled holds a live histogram.
 */
#include "series.h"

#include <math.h>
#include <string.h>

struct _HtmlSeries {
    guint cap;
    guint width;            /* intervals per finished point */
    guint intervals;
    GArray *points;         /* HtmlPoint, finished ones then the open one */
    gboolean open;          /* whether the last point is still filling */
    ThrongHistogram *open_latency;
};

guint
html_error_slot (guint error_class)
{
    const char *name = throng_error_class_name ((ThrongErrorClass) error_class);

    for (guint c = THRONG_ERROR_NONE + 1; c < error_class; c++)
        if (strcmp (throng_error_class_name ((ThrongErrorClass) c), name) == 0)
            return c;
    return error_class;
}

gdouble
html_round15 (gdouble value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite (value))
        return 0;
    g_ascii_formatd (text, sizeof text, "%.15g", value);
    return g_ascii_strtod (text, NULL);
}

static void
html_point_clear (HtmlPoint *point)
{
    g_free (point->latency);
}

HtmlSeries *
html_series_new (guint cap)
{
    HtmlSeries *series = g_new0 (HtmlSeries, 1);

    series->cap = MAX (cap, 2u) & ~1u;
    series->width = 1;
    series->points = g_array_new (FALSE, TRUE, sizeof (HtmlPoint));
    g_array_set_clear_func (series->points, (GDestroyNotify) html_point_clear);
    return series;
}

void
html_series_free (HtmlSeries *series)
{
    if (series == NULL)
        return;
    g_array_unref (series->points);
    throng_histogram_free (series->open_latency);
    g_free (series);
}

static void
html_point_percentiles (HtmlPoint *point, const ThrongHistogram *latency)
{
    gboolean any = throng_histogram_count (latency) > 0;

    point->p50_us = any ? throng_histogram_percentile (latency, 50) : -1;
    point->p90_us = any ? throng_histogram_percentile (latency, 90) : -1;
    point->p99_us = any ? throng_histogram_percentile (latency, 99) : -1;
    point->max_us = any ? throng_histogram_max (latency) : -1;
}

/* Adds @from's figures to @into's, @from coming right after @into in time. */
static void
html_point_merge (HtmlPoint *into, const HtmlPoint *from)
{
    into->end_us = from->end_us;
    into->wall_end_us = from->wall_end_us;
    into->intervals += from->intervals;
    into->requests += from->requests;
    for (guint c = 0; c < THRONG_ERROR_CLASS_SLOTS; c++)
        into->errors[c] += from->errors[c];
    into->connections += from->connections;
    into->handshakes_full += from->handshakes_full;
    into->handshakes_resumed += from->handshakes_resumed;
    into->active_users = from->active_users;
    into->has_scheduled = from->has_scheduled;
    into->scheduled_users = from->scheduled_users;
    into->scheduled_rate = from->scheduled_rate;
    into->iterations += from->iterations;
    into->dropped += from->dropped;
    into->cpu_share_us += from->cpu_share_us;
    into->lag_p99_us = MAX (into->lag_p99_us, from->lag_p99_us);
    into->saturated |= from->saturated;
}

static ThrongHistogram *
html_histogram_load (const char *serialized)
{
    ThrongHistogram *histogram = serialized != NULL
                                     ? throng_histogram_deserialize (serialized, NULL) : NULL;
    return histogram != NULL ? histogram : throng_histogram_new ();
}

static void
html_series_close_open (HtmlSeries *series)
{
    if (!series->open)
        return;
    HtmlPoint *point = &g_array_index (series->points, HtmlPoint, series->points->len - 1);
    point->latency = throng_histogram_serialize (series->open_latency);
    html_point_percentiles (point, series->open_latency);
    g_clear_pointer (&series->open_latency, throng_histogram_free);
    series->open = FALSE;
}

/* Halves the number of points: each pair becomes one, exactly. */
static void
html_series_halve (HtmlSeries *series)
{
    guint n = series->points->len;
    guint kept = 0;

    for (guint i = 0; i < n; i += 2, kept++) {
        HtmlPoint *first = &g_array_index (series->points, HtmlPoint, i);
        HtmlPoint merged = *first;
        first->latency = NULL;
        if (i + 1 < n) {
            HtmlPoint *second = &g_array_index (series->points, HtmlPoint, i + 1);
            g_autoptr (ThrongHistogram) latency = html_histogram_load (merged.latency);
            g_autoptr (ThrongHistogram) other = html_histogram_load (second->latency);
            throng_histogram_merge (latency, other);
            html_point_merge (&merged, second);
            g_free (merged.latency);
            merged.latency = throng_histogram_serialize (latency);
            html_point_percentiles (&merged, latency);
            g_clear_pointer (&second->latency, g_free);
        }
        g_array_index (series->points, HtmlPoint, kept) = merged;
    }
    g_array_set_size (series->points, kept);
    series->width *= 2;
}

void
html_series_add (HtmlSeries *series, const ThrongSummary *snapshot)
{
    HtmlPoint point = { 0 };
    guint active = 0;

    for (guint s = 0; s < snapshot->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &snapshot->scenarios[s];
        active += scenario->active_users;
        point.iterations += scenario->iterations;
        point.dropped += scenario->dropped_iterations;
        if (scenario->has_scheduled) {
            point.has_scheduled = TRUE;
            point.scheduled_users += scenario->scheduled_users;
            /* As the json reporter writes it, so that a page from its file is the same. */
            point.scheduled_rate += html_round15 (scenario->scheduled_rate);
        }
    }
    point.start_us = snapshot->elapsed_us - snapshot->interval_us;
    point.end_us = snapshot->elapsed_us;
    /* The json reporter writes wall times to the millisecond. */
    point.wall_end_us = snapshot->end_wall_us - ((snapshot->end_wall_us % 1000) + 1000) % 1000;
    point.intervals = 1;
    point.requests = snapshot->total.requests;
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
        point.errors[html_error_slot (c)] += snapshot->total.errors_by_class[c];
    point.connections = snapshot->total.connections;
    point.handshakes_full = snapshot->total.handshakes_full;
    point.handshakes_resumed = snapshot->total.handshakes_resumed;
    point.active_users = active;
    point.cpu_share_us = html_round15 (snapshot->cpu_share) * (gdouble) snapshot->interval_us;
    point.lag_p99_us = snapshot->lag_p99_us;
    point.saturated = snapshot->saturated;
    series->intervals++;

    if (series->open) {
        HtmlPoint *last = &g_array_index (series->points, HtmlPoint, series->points->len - 1);
        html_point_merge (last, &point);
    } else {
        if (series->points->len == series->cap)
            html_series_halve (series);
        g_array_append_val (series->points, point);
        series->open_latency = throng_histogram_new ();
        series->open = TRUE;
    }
    if (snapshot->total.latency != NULL)
        throng_histogram_merge (series->open_latency, snapshot->total.latency);
    if (g_array_index (series->points, HtmlPoint, series->points->len - 1).intervals
        >= series->width)
        html_series_close_open (series);
}

const HtmlPoint *
html_series_points (HtmlSeries *series, guint *n_points)
{
    /* A point still filling is drawn as it is; further intervals would reopen nothing, so
     * callers read the series only once the run is over. */
    html_series_close_open (series);
    *n_points = series->points->len;
    return (const HtmlPoint *) series->points->data;
}

guint
html_series_width (const HtmlSeries *series)
{
    return series->width;
}

guint
html_series_intervals (const HtmlSeries *series)
{
    return series->intervals;
}
