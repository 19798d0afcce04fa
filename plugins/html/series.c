/* SPDX-License-Identifier: MIT */
/*
 * The bounded series of interval points.  Memory stays O(cap): each point
 * keeps its latency histograms serialized (a few hundred bytes each) and
 * a few counters per scenario, step and plan metric; only the point being
 * filled holds live histograms.
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
    ThrongHistogram *open_ok;
    ThrongHistogram *open_ko;
    guint n_units;          /* per point, fixed by the first snapshot */
    guint n_metrics;
    gboolean shaped;
    gboolean has_samples;
    HtmlOutcomes pending;   /* samples the next snapshot counts */
    HtmlOutcomes run;       /* every sample */
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
    g_free (point->units);
    g_free (point->metrics);
    if (point->codes != NULL)
        g_array_unref (point->codes);
    g_free (point->ok_latency);
    g_free (point->ko_latency);
}

static void
html_outcomes_init (HtmlOutcomes *outcomes)
{
    outcomes->codes = g_array_new (FALSE, FALSE, sizeof (HtmlCode));
    outcomes->ok = throng_histogram_new ();
    outcomes->ko = throng_histogram_new ();
}

static void
html_outcomes_clear (HtmlOutcomes *outcomes)
{
    g_clear_pointer (&outcomes->codes, g_array_unref);
    g_clear_pointer (&outcomes->ok, throng_histogram_free);
    g_clear_pointer (&outcomes->ko, throng_histogram_free);
}

static void
html_codes_add (GArray *codes, gint32 key, guint64 count)
{
    for (guint i = 0; i < codes->len; i++) {
        HtmlCode *code = &g_array_index (codes, HtmlCode, i);
        if (code->key == key) {
            code->count += count;
            return;
        }
    }
    HtmlCode code = { .key = key, .count = count };
    g_array_append_val (codes, code);
}

HtmlSeries *
html_series_new (guint cap)
{
    HtmlSeries *series = g_new0 (HtmlSeries, 1);

    series->cap = MAX (cap, 2u) & ~1u;
    series->width = 1;
    series->points = g_array_new (FALSE, TRUE, sizeof (HtmlPoint));
    g_array_set_clear_func (series->points, (GDestroyNotify) html_point_clear);
    html_outcomes_init (&series->pending);
    html_outcomes_init (&series->run);
    return series;
}

void
html_series_free (HtmlSeries *series)
{
    if (series == NULL)
        return;
    g_array_unref (series->points);
    throng_histogram_free (series->open_latency);
    throng_histogram_free (series->open_ok);
    throng_histogram_free (series->open_ko);
    html_outcomes_clear (&series->pending);
    html_outcomes_clear (&series->run);
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

static void
html_point_outcome_percentiles (HtmlPoint *point, const ThrongHistogram *ok,
                                const ThrongHistogram *ko)
{
    gboolean any_ok = throng_histogram_count (ok) > 0;
    gboolean any_ko = throng_histogram_count (ko) > 0;

    point->ok_p50_us = any_ok ? throng_histogram_percentile (ok, 50) : -1;
    point->ok_p99_us = any_ok ? throng_histogram_percentile (ok, 99) : -1;
    point->ko_p50_us = any_ko ? throng_histogram_percentile (ko, 50) : -1;
    point->ko_p99_us = any_ko ? throng_histogram_percentile (ko, 99) : -1;
}

/* A serialized histogram, or NULL for an empty one (most points have no failure). */
static char *
html_histogram_keep (const ThrongHistogram *histogram)
{
    return throng_histogram_count (histogram) > 0 ? throng_histogram_serialize (histogram) : NULL;
}

/* Adds @from's figures to @into's, @from coming right after @into in time. */
static void
html_point_merge (HtmlPoint *into, const HtmlPoint *from, guint n_units, guint n_metrics)
{
    for (guint u = 0; u < n_units && into->units != NULL && from->units != NULL; u++) {
        into->units[u].requests += from->units[u].requests;
        into->units[u].errors += from->units[u].errors;
        into->units[u].latency_sum_us += from->units[u].latency_sum_us;
    }
    for (guint m = 0; m < n_metrics && into->metrics != NULL && from->metrics != NULL; m++) {
        HtmlMetricPoint *metric = &into->metrics[m];
        const HtmlMetricPoint *later = &from->metrics[m];
        if (later->count > 0)
            metric->last = later->last;
        metric->count += later->count;
        metric->trues += later->trues;
        metric->sum += later->sum;
    }
    for (guint c = 0; from->codes != NULL && c < from->codes->len; c++) {
        const HtmlCode *code = &g_array_index (from->codes, HtmlCode, c);
        if (into->codes == NULL)
            into->codes = g_array_new (FALSE, FALSE, sizeof (HtmlCode));
        html_codes_add (into->codes, code->key, code->count);
    }
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
    point->ok_latency = html_histogram_keep (series->open_ok);
    point->ko_latency = html_histogram_keep (series->open_ko);
    html_point_outcome_percentiles (point, series->open_ok, series->open_ko);
    g_clear_pointer (&series->open_latency, throng_histogram_free);
    g_clear_pointer (&series->open_ok, throng_histogram_free);
    g_clear_pointer (&series->open_ko, throng_histogram_free);
    series->open = FALSE;
}

/* @into's serialized histogram, with @from's added (either may be NULL: empty). */
static void
html_histogram_text_merge (char **into, const char *from)
{
    if (from == NULL)
        return;
    if (*into == NULL) {
        *into = g_strdup (from);
        return;
    }
    g_autoptr (ThrongHistogram) merged = html_histogram_load (*into);
    g_autoptr (ThrongHistogram) other = html_histogram_load (from);
    throng_histogram_merge (merged, other);
    g_free (*into);
    *into = throng_histogram_serialize (merged);
}

/* Halves the number of points: each pair becomes one, exactly.  A point
 * moved or merged away is zeroed, so that nothing is freed twice. */
static void
html_series_halve (HtmlSeries *series)
{
    guint n = series->points->len;
    guint kept = 0;

    for (guint i = 0; i < n; i += 2, kept++) {
        HtmlPoint *first = &g_array_index (series->points, HtmlPoint, i);
        HtmlPoint merged = *first;
        memset (first, 0, sizeof *first);
        if (i + 1 < n) {
            HtmlPoint *second = &g_array_index (series->points, HtmlPoint, i + 1);
            html_histogram_text_merge (&merged.latency, second->latency);
            html_histogram_text_merge (&merged.ok_latency, second->ok_latency);
            html_histogram_text_merge (&merged.ko_latency, second->ko_latency);
            html_point_merge (&merged, second, series->n_units, series->n_metrics);
            g_autoptr (ThrongHistogram) latency = html_histogram_load (merged.latency);
            g_autoptr (ThrongHistogram) ok = html_histogram_load (merged.ok_latency);
            g_autoptr (ThrongHistogram) ko = html_histogram_load (merged.ko_latency);
            html_point_percentiles (&merged, latency);
            html_point_outcome_percentiles (&merged, ok, ko);
            html_point_clear (second);
            memset (second, 0, sizeof *second);
        }
        g_array_index (series->points, HtmlPoint, kept) = merged;
    }
    g_array_set_size (series->points, kept);
    series->width *= 2;
}

static guint
html_snapshot_n_units (const ThrongSummary *snapshot)
{
    guint n = 0;

    for (guint s = 0; s < snapshot->n_scenarios; s++)
        n += 1 + snapshot->scenarios[s].n_steps;
    return n;
}

static void
html_unit_fill (HtmlUnit *unit, const ThrongStats *stats)
{
    unit->requests = stats->requests;
    unit->errors = stats->errors;
    unit->latency_sum_us = stats->latency != NULL
                               ? throng_histogram_mean (stats->latency)
                                     * (gdouble) throng_histogram_count (stats->latency)
                               : 0;
}

/* The point's units and metrics from @snapshot, in the shape the first snapshot fixed. */
static void
html_point_detail (HtmlSeries *series, HtmlPoint *point, const ThrongSummary *snapshot)
{
    guint n_metrics = THRONG_STRUCT_HAS (snapshot, ThrongSummary, n_metrics) && snapshot->metrics
                          ? snapshot->n_metrics : 0;

    if (!series->shaped) {
        series->n_units = html_snapshot_n_units (snapshot);
        series->n_metrics = n_metrics;
        series->shaped = TRUE;
    }
    point->units = g_new0 (HtmlUnit, MAX (series->n_units, 1u));
    guint u = 0;
    for (guint s = 0; s < snapshot->n_scenarios && u < series->n_units; s++) {
        const ThrongScenarioSummary *scenario = &snapshot->scenarios[s];
        html_unit_fill (&point->units[u++], &scenario->stats);
        for (guint i = 0; i < scenario->n_steps && u < series->n_units; i++)
            html_unit_fill (&point->units[u++], &scenario->steps[i].stats);
    }
    point->metrics = g_new0 (HtmlMetricPoint, MAX (series->n_metrics, 1u));
    for (guint m = 0; m < MIN (n_metrics, series->n_metrics); m++) {
        const ThrongCustomMetric *metric = &snapshot->metrics[m];
        /* As the json reporter writes them: doubles to 15 digits. */
        point->metrics[m] = (HtmlMetricPoint) {
            .count = metric->count,
            .trues = metric->trues,
            .sum = html_round15 (metric->sum),
            .last = html_round15 (metric->last),
        };
    }
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

    html_point_detail (series, &point, snapshot);
    point.codes = g_steal_pointer (&series->pending.codes);
    series->pending.codes = g_array_new (FALSE, FALSE, sizeof (HtmlCode));

    if (series->open) {
        HtmlPoint *last = &g_array_index (series->points, HtmlPoint, series->points->len - 1);
        html_point_merge (last, &point, series->n_units, series->n_metrics);
        html_point_clear (&point);
    } else {
        if (series->points->len == series->cap)
            html_series_halve (series);
        g_array_append_val (series->points, point);
        series->open_latency = throng_histogram_new ();
        series->open_ok = throng_histogram_new ();
        series->open_ko = throng_histogram_new ();
        series->open = TRUE;
    }
    if (snapshot->total.latency != NULL)
        throng_histogram_merge (series->open_latency, snapshot->total.latency);
    throng_histogram_merge (series->open_ok, series->pending.ok);
    throng_histogram_merge (series->open_ko, series->pending.ko);
    throng_histogram_reset (series->pending.ok);
    throng_histogram_reset (series->pending.ko);
    if (g_array_index (series->points, HtmlPoint, series->points->len - 1).intervals
        >= series->width)
        html_series_close_open (series);
}

void
html_series_add_sample (HtmlSeries *series, const ThrongSample *sample)
{
    gboolean failed = sample->error != THRONG_ERROR_NONE;
    gint32 key = sample->status > 0 ? sample->status
                 : failed          ? -(gint32) html_error_slot (sample->error)
                                   : 0;

    series->has_samples = TRUE;
    html_codes_add (series->pending.codes, key, 1);
    html_codes_add (series->run.codes, key, 1);
    throng_histogram_record (failed ? series->pending.ko : series->pending.ok, sample->elapsed_us);
    throng_histogram_record (failed ? series->run.ko : series->run.ok, sample->elapsed_us);
}

gboolean
html_series_has_samples (const HtmlSeries *series)
{
    return series->has_samples;
}

const HtmlOutcomes *
html_series_outcomes (const HtmlSeries *series)
{
    return &series->run;
}

guint
html_series_n_units (const HtmlSeries *series)
{
    return series->n_units;
}

guint
html_series_n_metrics (const HtmlSeries *series)
{
    return series->n_metrics;
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
