/* SPDX-License-Identifier: MIT */
/*
 * The csv reporter's side file of the plan's own metrics (`metrics_path`):
 * a JTL row is one sample, and a recorded value is no sample, so the
 * metrics go to a small CSV of their own, one row a metric with every
 * figure of the run's summary; a figure its kind has not is empty.
 */
#include "csv.h"

#define CSV_METRICS_HEADER                                                                        \
    "metric,type,count,invalid,sum,min,max,mean,p50,p90,p95,p99,value,rate\n"

static void
put_double (GString *out, gboolean present, gdouble value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append_c (out, ',');
    if (present)
        g_string_append (out, g_ascii_formatd (text, sizeof text, "%.15g", value));
}

/* A name as a CSV field: quoted when it must be (names are letters, digits and '_' today). */
static void
put_name (GString *out, const char *name)
{
    if (strpbrk (name, ",\"\r\n") == NULL) {
        g_string_append (out, name);
        return;
    }
    g_string_append_c (out, '"');
    for (const char *p = name; *p != '\0'; p++) {
        if (*p == '"')
            g_string_append_c (out, '"');
        g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

void
csv_metrics_write (GString *out, const ThrongSummary *summary)
{
    static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };
    static const gdouble percentiles[] = { 50, 90, 95, 99 };
    gint64 load_us = summary->load_us > 0 ? summary->load_us : summary->elapsed_us;
    gdouble seconds = (gdouble) load_us / G_USEC_PER_SEC;
    guint n = THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) ? summary->n_metrics : 0;

    g_string_append (out, CSV_METRICS_HEADER);
    for (guint m = 0; m < n; m++) {
        const ThrongCustomMetric *metric = &summary->metrics[m];
        gboolean any = metric->count > 0;
        gboolean trend = metric->kind == THRONG_CUSTOM_TREND && metric->histogram != NULL;
        gboolean spread = any && (trend || metric->kind == THRONG_CUSTOM_GAUGE);

        put_name (out, metric->name != NULL ? metric->name : "");
        g_string_append_printf (out, ",%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                                (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind]
                                                                            : "",
                                metric->count, metric->invalid);
        put_double (out, TRUE, metric->sum);
        put_double (out, spread, metric->min);
        put_double (out, spread, metric->max);
        put_double (out, any && trend, any ? metric->sum / (gdouble) metric->count : 0);
        for (guint p = 0; p < G_N_ELEMENTS (percentiles); p++)
            put_double (out, any && trend,
                        trend ? (gdouble) throng_histogram_percentile (metric->histogram,
                                                                        percentiles[p])
                                    / THRONG_CUSTOM_TREND_SCALE
                              : 0);
        put_double (out, any && metric->kind == THRONG_CUSTOM_GAUGE, metric->last);
        /* a rate's share of true; a counter's sum per second, as k6 reports both */
        if (metric->kind == THRONG_CUSTOM_RATE)
            put_double (out, any, any ? (gdouble) metric->trues / (gdouble) metric->count : 0);
        else
            put_double (out, metric->kind == THRONG_CUSTOM_COUNTER,
                        seconds > 0 ? metric->sum / seconds : 0);
        g_string_append_c (out, '\n');
    }
}
