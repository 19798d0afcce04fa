/* SPDX-License-Identifier: MIT */
/*
 * The report's capacity section (docs/capacity.md): what the search
 * found, its curve drawn (rate → p50 and p99, the failing levels shaded)
 * and a row per level held.
 */
#include "page.h"
#include "svg.h"

#include <math.h>
#include <stdlib.h>

static int
by_rate (gconstpointer a, gconstpointer b)
{
    gdouble x = (*(const ThrongCapacityLevel *const *) a)->rate;
    gdouble y = (*(const ThrongCapacityLevel *const *) b)->rate;

    return x < y ? -1 : x > y ? 1 : 0;
}

static void
capacity_chart (GString *out, const ThrongCapacityResult *result)
{
    guint n = result->n_levels;
    g_autofree const ThrongCapacityLevel **levels = g_new0 (const ThrongCapacityLevel *, n);
    g_autofree gdouble *x = g_new0 (gdouble, n);
    g_autofree gdouble *p50 = g_new0 (gdouble, n);
    g_autofree gdouble *p99 = g_new0 (gdouble, n);
    g_autofree gboolean *failed = g_new0 (gboolean, n);

    for (guint i = 0; i < n; i++)
        levels[i] = &result->levels[i];
    qsort (levels, n, sizeof *levels, by_rate);
    for (guint i = 0; i < n; i++) {
        x[i] = levels[i]->rate;
        p50[i] = levels[i]->requests > 0 ? (gdouble) levels[i]->p50_us / 1000.0 : NAN;
        p99[i] = levels[i]->requests > 0 ? (gdouble) levels[i]->p99_us / 1000.0 : NAN;
        failed[i] = !levels[i]->passed;
    }
    const SvgSeries series[] = {
        { .name = "p50", .y = p50, .style = 0 },
        { .name = "p99", .y = p99, .style = 1 },
    };
    SvgChart chart = {
        .id = "capacity-curve",
        .title = "Latency by arrival rate (failing levels shaded)",
        .mode = SVG_MODE_LINES,
        .x = { .scale = SVG_SCALE_LINEAR, .label = "arrival rate (/s)", .unit = "/s" },
        .y = { .scale = SVG_SCALE_LOG, .label = "latency (ms)", .unit = " ms" },
        .n = n,
        .x0 = x,
        .x1 = x,
        .series = series,
        .n_series = G_N_ELEMENTS (series),
        .shade = failed,
        .empty = "no level held",
    };
    g_autofree gdouble *all = g_new0 (gdouble, 2 * n + 1);
    for (guint i = 0; i < n; i++) {
        all[i] = p50[i];
        all[n + i] = p99[i];
    }
    svg_axis_fit (&chart.x, x, n);
    svg_axis_fit (&chart.y, all, 2 * n);
    svg_chart_append (out, &chart);
}

void
html_capacity_append (GString *out, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, capacity) || summary->capacity == NULL)
        return;
    const ThrongCapacityResult *result = summary->capacity;
    g_autofree char *message = g_markup_escape_text (result->message != NULL ? result->message
                                                                             : "",
                                                     -1);

    g_string_append_printf (out, "<section id=\"capacity\">\n<h2>Capacity</h2>\n<p>%s</p>\n",
                            message);
    capacity_chart (out, result);
    g_string_append (out, "<table class=\"summary capacity\">\n<thead><tr><th>rate</th>"
                          "<th>p50</th><th>p99</th><th>errors</th><th>requests</th>"
                          "<th>verdict</th></tr></thead>\n<tbody>\n");
    for (guint i = 0; i < result->n_levels; i++) {
        const ThrongCapacityLevel *level = &result->levels[i];
        g_autofree char *why = g_markup_escape_text (level->failed != NULL ? level->failed : "",
                                                     -1);

        g_string_append_printf (out,
                                "<tr class=\"step%s\"><td>%.2f/s</td><td>%.1f ms</td>"
                                "<td>%.1f ms</td><td>%.2f%%</td><td>%" G_GUINT64_FORMAT
                                "</td><td class=\"name\">%s%s%s</td></tr>\n",
                                level->passed ? "" : " failed", level->rate,
                                (gdouble) level->p50_us / 1000.0, (gdouble) level->p99_us / 1000.0,
                                level->error_rate * 100.0, level->requests,
                                level->passed            ? "pass"
                                : level->saturated       ? "throng the limit"
                                                         : "fail",
                                level->failed != NULL ? ": " : "", why);
    }
    g_string_append (out, "</tbody>\n</table>\n</section>\n");
}
