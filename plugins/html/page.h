/* SPDX-License-Identifier: MIT */
/*
 * The html report as one document: what it is drawn from and the call
 * that writes it.
 */
#pragma once

#include <throng/throng.h>

#include "series.h"
#include "svg.h"

typedef struct {
    const char *title;
    const char *plan_sha256;    /* NULL when the core did not give it */
    const char *const *targets; /* per scenario of the summary, what it loads; NULL, or an
                                 * element NULL, when not known */
    const char *generated;      /* when the page was written, for its one line that varies */
    HtmlSeries *series;
    const ThrongSummary *summary;
    GHashTable *messages;       /* html_message_key() → GPtrArray of strings; NULL if not kept */
    gboolean samples;           /* the reporter asked for samples (`samples: true`) */
} HtmlPage;

/* Distinct messages kept per step and error class: the first ones seen. */
#define HTML_MESSAGES 3

/* The key of a step's failures of one class (an html_error_slot()). */
static inline gint64
html_message_key (guint scenario, guint step, guint slot)
{
    return ((gint64) scenario << 40) | ((gint64) step << 8) | (gint64) slot;
}

/* The line that carries the generation time starts with this, alone on its line. */
#define HTML_PAGE_GENERATED_PREFIX "<p class=\"generated\">"

/* The page's inline CSS and script (assets.c). */
extern const char html_style[];
extern const char html_script[];

/* The time axis every chart over time shares: one point per interval (or
 * per merged intervals), each covering [x0, x1] in elapsed seconds. */
typedef struct {
    const HtmlPoint *points;
    guint n;
    gdouble *x0;
    gdouble *x1;
    gboolean *shade;
    gint64 wall_zero_us;
    gdouble end_s;
} HtmlTime;

/* Appends one chart over time (page.c). */
void html_time_chart (GString *out, const HtmlTime *time, const char *id, const char *title,
                      SvgMode mode, SvgAxis y, const SvgSeries *series, guint n_series,
                      const char *empty);

/* @count over @point's length, per second; NAN for a point of no length. */
gdouble html_rate (const HtmlPoint *point, guint64 count);

/* The requests per second chart: all, succeeded and each error class, each
 * a line at its own value (page.c). */
void html_chart_throughput (GString *out, const HtmlTime *time);

/* detail.c: response codes per second, and the latency of successes apart
 * from failures, over time (from the samples). */
void html_outcome_charts (GString *out, const HtmlPage *page, const HtmlTime *time);
/* detail.c: charts over time per scenario, per step and of the plan's metrics. */
void html_detail_charts (GString *out, const HtmlPage *page, const HtmlTime *time);
/* The run's latency of successes and failures, and its response codes, as tables. */
void html_outcomes_append (GString *out, const HtmlPage *page);

/* Appends the whole document. */
void html_page_append (GString *out, const HtmlPage *page);

/* checks.c: the checks section (nothing when no scenario has checks). */
void html_checks_append (GString *out, const ThrongSummary *summary);
/* The plan's own metrics, when it declares any (metrics.c). */
void html_metrics_append (GString *out, const ThrongSummary *summary);
/* capacity.c: what a capacity search found, its curve drawn; nothing without one. */
void html_capacity_append (GString *out, const ThrongSummary *summary);
