/* SPDX-License-Identifier: MIT */
/*
 * The report's section of the plan's own metrics (`metrics:`): one row a
 * metric, its kind, how many values it took and refused, and the figures
 * of its kind, as the console's end-of-run table shows them.
 */
#include "page.h"

static void
metrics_value (GString *out, gdouble value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    g_ascii_formatd (text, sizeof text, "%.6g", value);
    g_string_append (out, text);
}

static void
metrics_figures (GString *out, const ThrongCustomMetric *metric, gdouble seconds)
{
    if (metric->count == 0 && metric->kind != THRONG_CUSTOM_COUNTER) {
        g_string_append (out, "no value recorded");
        return;
    }
    switch (metric->kind) {
    case THRONG_CUSTOM_COUNTER:
        g_string_append (out, "sum ");
        metrics_value (out, metric->sum);
        g_string_append (out, ", ");
        metrics_value (out, seconds > 0 ? metric->sum / seconds : 0);
        g_string_append (out, "/s");
        return;
    case THRONG_CUSTOM_GAUGE:
        g_string_append (out, "value ");
        metrics_value (out, metric->last);
        g_string_append (out, ", min ");
        metrics_value (out, metric->min);
        g_string_append (out, ", max ");
        metrics_value (out, metric->max);
        return;
    case THRONG_CUSTOM_RATE:
        g_string_append_printf (out, "%.2f%% (%" G_GUINT64_FORMAT " true of %" G_GUINT64_FORMAT ")",
                                100.0 * (gdouble) metric->trues / (gdouble) metric->count,
                                metric->trues, metric->count);
        return;
    case THRONG_CUSTOM_TREND: {
        static const gdouble percentiles[] = { 50, 90, 95, 99 };
        g_string_append (out, "min ");
        metrics_value (out, metric->min);
        g_string_append (out, ", mean ");
        metrics_value (out, metric->sum / (gdouble) metric->count);
        for (guint p = 0; p < G_N_ELEMENTS (percentiles) && metric->histogram != NULL; p++) {
            g_string_append_printf (out, ", p%.0f ", percentiles[p]);
            metrics_value (out, (gdouble) throng_histogram_percentile (metric->histogram,
                                                                        percentiles[p])
                                    / THRONG_CUSTOM_TREND_SCALE);
        }
        g_string_append (out, ", max ");
        metrics_value (out, metric->max);
        return;
    }
    }
}

void
html_metrics_append (GString *out, const ThrongSummary *summary)
{
    static const char *const kinds[] = { "counter", "gauge", "rate", "trend" };
    gint64 load_us;

    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) || summary->n_metrics == 0)
        return;
    load_us = summary->load_us > 0 ? summary->load_us : summary->elapsed_us;
    g_string_append (out, "<section id=\"metrics\">\n<h2>Metrics of the plan</h2>\n"
                          "<table class=\"summary metrics\">\n<thead><tr><th>metric</th>"
                          "<th>type</th><th>count</th><th>invalid</th><th>figures</th></tr>"
                          "</thead>\n<tbody>\n");
    for (guint m = 0; m < summary->n_metrics; m++) {
        const ThrongCustomMetric *metric = &summary->metrics[m];
        g_autofree char *name = g_markup_escape_text (metric->name != NULL ? metric->name : "", -1);

        g_string_append_printf (out,
                                "<tr class=\"step%s\"><td class=\"name\">%s</td><td>%s</td>"
                                "<td>%" G_GUINT64_FORMAT "</td><td>%" G_GUINT64_FORMAT
                                "</td><td class=\"name\">",
                                metric->invalid > 0 ? " failed" : "", name,
                                (guint) metric->kind < G_N_ELEMENTS (kinds) ? kinds[metric->kind]
                                                                            : "?",
                                metric->count, metric->invalid);
        metrics_figures (out, metric, (gdouble) load_us / G_USEC_PER_SEC);
        g_string_append (out, "</td></tr>\n");
    }
    g_string_append (out, "</tbody>\n</table>\n</section>\n");
}
