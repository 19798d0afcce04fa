/* SPDX-License-Identifier: MIT */
/*
 * The console's table of the plan's own metrics (`metrics:`), one row a
 * metric with the figures its kind has, after the checks in the end-of-run
 * summary.  An invalid value (recorded text that was not a number) is
 * shown in red: it was counted, not taken as zero.
 */
#include <string.h>

#include "summary.h"

/* A value as the user recorded it: up to six significant digits, no unit. */
static char *
format_value (gdouble value)
{
    return g_strdup_printf ("%.6g", value);
}

static char *
describe (const ThrongCustomMetric *metric, gdouble seconds)
{
    g_autofree char *min = format_value (metric->min);
    g_autofree char *max = format_value (metric->max);

    if (metric->count == 0 && metric->kind != THRONG_CUSTOM_COUNTER)
        return g_strdup ("no value recorded");
    switch (metric->kind) {
    case THRONG_CUSTOM_COUNTER: {
        g_autofree char *sum = format_value (metric->sum);
        char rate[CONSOLE_UNIT_LEN];
        return g_strdup_printf ("%s  %s", sum,
                                console_format_rate (rate, seconds > 0 ? metric->sum / seconds : 0));
    }
    case THRONG_CUSTOM_GAUGE: {
        g_autofree char *last = format_value (metric->last);
        return g_strdup_printf ("value %s  min %s  max %s", last, min, max);
    }
    case THRONG_CUSTOM_RATE:
        return g_strdup_printf ("%.2f%%  %" G_GUINT64_FORMAT " true of %" G_GUINT64_FORMAT,
                                100.0 * (gdouble) metric->trues / (gdouble) metric->count,
                                metric->trues, metric->count);
    case THRONG_CUSTOM_TREND: {
        static const gdouble percentiles[] = { 50, 90, 95, 99 };
        g_autofree char *mean = format_value (metric->sum / (gdouble) metric->count);
        GString *text = g_string_new (NULL);
        g_string_append_printf (text, "min %s  mean %s", min, mean);
        for (guint p = 0; p < G_N_ELEMENTS (percentiles) && metric->histogram != NULL; p++) {
            g_autofree char *value = format_value (
                (gdouble) throng_histogram_percentile (metric->histogram, percentiles[p])
                / THRONG_CUSTOM_TREND_SCALE);
            g_string_append_printf (text, "  p%.0f %s", percentiles[p], value);
        }
        g_string_append_printf (text, "  max %s", max);
        return g_string_free (text, FALSE);
    }
    }
    return g_strdup ("");
}

void
console_print_metrics (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };
    gint64 load_us;
    int width = (int) strlen ("metrics");

    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) || summary->n_metrics == 0)
        return;
    load_us = summary->load_us > 0 ? summary->load_us : summary->elapsed_us;
    for (guint m = 0; m < summary->n_metrics; m++)
        width = MAX (width, (int) g_utf8_strlen (summary->metrics[m].name, -1));

    fprintf (out, "\n%s  %-*s  %-7s  %8s  %7s  figures%s\n", style->bold, width, "metrics", "type",
             "count", "invalid", style->reset);
    for (guint m = 0; m < summary->n_metrics; m++) {
        const ThrongCustomMetric *metric = &summary->metrics[m];
        g_autofree char *figures = describe (metric, (gdouble) load_us / G_USEC_PER_SEC);

        fprintf (out, "  %-*s  %-7s  %8" G_GUINT64_FORMAT "  %s%7" G_GUINT64_FORMAT "%s  %s\n",
                 width, metric->name,
                 (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind] : "?",
                 metric->count, metric->invalid > 0 ? style->red : "", metric->invalid,
                 metric->invalid > 0 ? style->reset : "", figures);
    }
}
