/* SPDX-License-Identifier: MIT */
/*
 * The run over time as the html page draws it: one point per interval,
 * bounded.  When a run has more intervals than the cap, neighbouring
 * points are merged in pairs (exactly: counters added, latency histograms
 * merged) and later intervals are gathered that many at a time.
 */
#pragma once

#include <throng/throng.h>

/* One scenario's or one step's figures over a point: the "units" of a
 * point are each scenario followed by its steps, scenario by scenario. */
typedef struct {
    guint64 requests;       /* a transaction's executions */
    guint64 errors;
    gdouble latency_sum_us; /* over @requests: a mean that adds up exactly when points merge */
} HtmlUnit;

/* One plan metric (`metrics:`) over a point. */
typedef struct {
    guint64 count;
    guint64 trues;
    gdouble sum;
    gdouble last;           /* a gauge's last value, when @count > 0 */
} HtmlMetricPoint;

/* How many responses had one code: an HTTP status (> 0), no status on a
 * success (0), or, for a failure without a status, minus its error slot. */
typedef struct {
    gint32 key;
    guint64 count;
} HtmlCode;

/* What the samples of a stretch of time add up to: their codes and the
 * latency of successes apart from failures (Gatling's OK and KO). */
typedef struct {
    GArray *codes;          /* HtmlCode, in the order first seen */
    ThrongHistogram *ok;
    ThrongHistogram *ko;
} HtmlOutcomes;

typedef struct {
    gint64 start_us;        /* elapsed time at the start of the first interval */
    gint64 end_us;          /* and at the end of the last */
    gint64 wall_end_us;     /* wall clock at the end, to the millisecond */
    guint intervals;        /* how many intervals this point holds */
    guint64 requests;
    guint64 errors[THRONG_ERROR_CLASS_SLOTS];   /* by html_error_slot() */
    guint64 connections;
    guint64 handshakes_full;
    guint64 handshakes_resumed;
    guint active_users;     /* at the end */
    gboolean has_scheduled; /* the snapshot carried what the schedule wants */
    guint scheduled_users;  /* closed-model scenarios together, at the end */
    gdouble scheduled_rate; /* open-model scenarios' arrivals due per second, at the end */
    guint64 iterations;     /* completed, every scenario */
    guint64 dropped;        /* open-model iterations due that found no free user */
    gdouble cpu_share_us;   /* Σ cpu_share × interval length */
    gint64 lag_p99_us;      /* the worst interval's */
    gboolean saturated;     /* any interval was */
    char *latency;          /* the merged histogram, serialized */
    gint64 p50_us, p90_us, p99_us, max_us;
    HtmlUnit *units;        /* html_series_n_units() of them */
    HtmlMetricPoint *metrics; /* html_series_n_metrics() of them */
    GArray *codes;          /* HtmlCode, from the samples the point's intervals counted */
    char *ok_latency;       /* their successes' latencies, serialized (NULL: none) */
    char *ko_latency;       /* and their failures' */
    gint64 ok_p50_us, ok_p99_us, ko_p50_us, ko_p99_us;  /* -1 when none */
} HtmlPoint;

typedef struct _HtmlSeries HtmlSeries;

HtmlSeries *html_series_new (guint cap);
void html_series_free (HtmlSeries *series);

/* Adds the interval @snapshot covers.  The figures are taken as the json
 * reporter writes them (times to the millisecond, shares to 15 digits),
 * so that a page built from its file is the same page. */
void html_series_add (HtmlSeries *series, const ThrongSummary *snapshot);

/* Counts one request's sample (not a transaction's, not one never sent)
 * into the interval the next snapshot closes: the core hands a worker's
 * samples over before the counters that include them, and a json file
 * keeps that order, so a page drawn from the file is the same. */
void html_series_add_sample (HtmlSeries *series, const ThrongSample *sample);

/* Whether any sample was counted: without samples (`samples: false`, or a
 * file written without them) the codes and outcomes charts have no data. */
gboolean html_series_has_samples (const HtmlSeries *series);

/* Every sample counted, the run's whole: codes and outcome histograms. */
const HtmlOutcomes *html_series_outcomes (const HtmlSeries *series);

/* Units and metrics per point, as the first snapshot had them. */
guint html_series_n_units (const HtmlSeries *series);
guint html_series_n_metrics (const HtmlSeries *series);

/* The points so far, the last one possibly holding fewer intervals. */
const HtmlPoint *html_series_points (HtmlSeries *series, guint *n_points);

/* Intervals per point: 1 until the cap was reached. */
guint html_series_width (const HtmlSeries *series);

/* Intervals added in all. */
guint html_series_intervals (const HtmlSeries *series);

/* The slot that counts errors of @error_class: classes that share a name
 * (those past the known ones read as "other") share the first one's slot. */
guint html_error_slot (guint error_class);

/* @value as it reads back from 15 significant digits, as the json reporter writes doubles. */
gdouble html_round15 (gdouble value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HtmlSeries, html_series_free)
