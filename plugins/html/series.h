/* SPDX-License-Identifier: MIT */
/*
 * The run over time as the html page draws it: one point per interval,
 * bounded.  When a run has more intervals than the cap, neighbouring
 * points are merged in pairs (exactly: counters added, latency histograms
 * merged) and later intervals are gathered that many at a time.
 */
#pragma once

#include <throng/throng.h>

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
} HtmlPoint;

typedef struct _HtmlSeries HtmlSeries;

HtmlSeries *html_series_new (guint cap);
void html_series_free (HtmlSeries *series);

/* Adds the interval @snapshot covers.  The figures are taken as the json
 * reporter writes them (times to the millisecond, shares to 15 digits),
 * so that a page built from its file is the same page. */
void html_series_add (HtmlSeries *series, const ThrongSummary *snapshot);

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
