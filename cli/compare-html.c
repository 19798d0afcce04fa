/* SPDX-License-Identifier: MIT */
/*
 * `throng compare --out html=PATH`: one self-contained page (inline SVG,
 * no script) that draws, for every row with latencies in both runs, the
 * two runs on the same axes: latency by percentile, and the mean of
 * each interval over the run's time.  The html reporter's charts belong
 * to that plugin, which the program does not link; these are two small
 * line charts of their own.
 */
#include "compare-private.h"

#include <math.h>

#define CHART_W 460.0
#define CHART_H 220.0
#define PAD_L 56.0
#define PAD_B 28.0
#define PAD_T 10.0
#define PAD_R 10.0

static const char *const colours[2] = { "#1f77b4", "#e6550d" };

static void
append_escaped (GString *out, const char *text)
{
    g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

    g_string_append (out, escaped);
}

static void
append_number (GString *out, const char *format, gdouble value)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, format, value));
}

/* A point at (@x, @y) of [0, 1]² in the plot area. */
static void
append_point (GString *out, gdouble x, gdouble y)
{
    append_number (out, "%.1f", PAD_L + x * (CHART_W - PAD_L - PAD_R));
    g_string_append_c (out, ',');
    append_number (out, "%.1f", CHART_H - PAD_B - y * (CHART_H - PAD_B - PAD_T));
    g_string_append_c (out, ' ');
}

static void
append_label (GString *out, gdouble x, gdouble y, const char *anchor, const char *text)
{
    g_string_append (out, "<text x=\"");
    append_number (out, "%.1f", x);
    g_string_append (out, "\" y=\"");
    append_number (out, "%.1f", y);
    g_string_append_printf (out, "\" text-anchor=\"%s\">", anchor);
    append_escaped (out, text);
    g_string_append (out, "</text>\n");
}

/* The frame, the y axis from 0 to @y_max (µs, or a metric's unit) and the x labels. */
static void
append_frame (GString *out, const char *title, gdouble y_max, gboolean us,
              const char *const *x_labels, const gdouble *x_at, guint n_x)
{
    g_string_append (out, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"460\" "
                     "height=\"220\" viewBox=\"0 0 460 220\" font-size=\"10\">\n");
    g_string_append_printf (out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
                            "fill=\"none\" stroke=\"#999\"/>\n", PAD_L, PAD_T,
                            CHART_W - PAD_L - PAD_R, CHART_H - PAD_B - PAD_T);
    for (guint i = 0; i <= 4; i++) {
        gdouble y = CHART_H - PAD_B - i / 4.0 * (CHART_H - PAD_B - PAD_T);
        g_autofree char *label = compare_format_figure (FIGURE_P50, y_max * i / 4.0, us);
        append_label (out, PAD_L - 4, y + 3, "end", label);
    }
    /* The last label ends at the frame's edge, where a centred one would be cut. */
    for (guint i = 0; i < n_x; i++)
        append_label (out, PAD_L + x_at[i] * (CHART_W - PAD_L - PAD_R), CHART_H - PAD_B + 14,
                      i + 1 == n_x ? "end" : "middle", x_labels[i]);
    g_string_append (out, "<title>");
    append_escaped (out, title);
    g_string_append (out, "</title>\n");
}

/* Where percentile @p sits on the "nines" axis: 0 at p0, 1 at p99.99. */
static gdouble
nines (gdouble p)
{
    gdouble q = MIN (p, 99.99);

    return -log10 (1.0 - q / 100.0) / 4.0;
}

static void
append_curve_chart (GString *out, const CompareRow *row)
{
    static const char *const x_labels[] = { "p0", "p90", "p99", "p99.9", "p99.99" };
    static const gdouble x_at[] = { 0, 0.25, 0.5, 0.75, 1 };
    gdouble y_max = 0;

    for (guint s = 0; s < 2; s++)
        for (guint i = 0; i + 1 < COMPARE_CURVE_POINTS; i++)
            y_max = MAX (y_max, row->side[s].curve[i]);
    y_max = y_max > 0 ? y_max * 1.05 : 1.0;
    append_frame (out, "latency by percentile", y_max, row->kind != COMPARE_METRIC, x_labels,
                  x_at, G_N_ELEMENTS (x_labels));
    for (guint s = 0; s < 2; s++) {
        g_string_append_printf (out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                                "points=\"", colours[s]);
        for (guint i = 0; i + 1 < COMPARE_CURVE_POINTS; i++)
            append_point (out, nines (compare_curve_percents[i]), row->side[s].curve[i] / y_max);
        g_string_append (out, "\"/>\n");
    }
    g_string_append (out, "</svg><figcaption>latency by percentile</figcaption></figure>\n");
}

static void
append_series_chart (GString *out, const CompareRow *row)
{
    gdouble y_max = 0, t_max = 0;

    for (guint s = 0; s < 2; s++) {
        const CompareSide *side = &row->side[s];
        for (guint i = 0; i < side->series->len; i++) {
            y_max = MAX (y_max, g_array_index (side->series, gdouble, i));
            t_max = MAX (t_max, g_array_index (side->series_time, gdouble, i));
        }
    }
    y_max = y_max > 0 ? y_max * 1.05 : 1.0;
    t_max = t_max > 0 ? t_max : 1.0;
    g_autofree char *end = g_strdup_printf ("%.0f s", t_max);
    const char *x_labels[] = { "0 s", end };
    const gdouble x_at[] = { 0, 1 };
    append_frame (out, "median per interval", y_max, row->kind != COMPARE_METRIC, x_labels, x_at,
                  2);
    for (guint s = 0; s < 2; s++) {
        const CompareSide *side = &row->side[s];
        g_string_append_printf (out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1\" "
                                "points=\"", colours[s]);
        for (guint i = 0; i < side->series->len; i++)
            append_point (out, g_array_index (side->series_time, gdouble, i) / t_max,
                          g_array_index (side->series, gdouble, i) / y_max);
        g_string_append (out, "\"/>\n");
    }
    g_string_append (out, "</svg><figcaption>median per interval, over the run</figcaption>"
                     "</figure>\n");
}

char *
compare_html (const CompareResult *result)
{
    GString *out = g_string_new ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                                 "<title>throng compare</title><style>"
                                 "body{font:14px system-ui,sans-serif;margin:2em}"
                                 "figure{display:inline-block;margin:0 .5em 1em 0}"
                                 "figcaption{font-size:12px;color:#555}"
                                 ".b{color:#1f77b4}.c{color:#e6550d}"
                                 "</style></head><body>\n<h1>throng compare</h1>\n<p>");
    g_string_append (out, "<span class=\"b\">■ baseline</span> ");
    append_escaped (out, result->runs[0]->path);
    g_string_append (out, " &#160; <span class=\"c\">■ current</span> ");
    append_escaped (out, result->runs[1]->path);
    g_string_append (out, "</p>\n");
    if (result->not_comparable) {
        g_string_append (out, "<p><strong>Not comparable:</strong> ");
        append_escaped (out, result->not_comparable_why);
        g_string_append (out, "</p>\n");
    }
    for (guint i = 0; i < result->rows->len; i++) {
        const CompareRow *row = result->rows->pdata[i];
        if (!row->side[0].has_latency || !row->side[1].has_latency)
            continue;
        g_string_append (out, "<h2>");
        append_escaped (out, row->title);
        g_string_append (out, " — ");
        append_escaped (out, compare_verdict_name (row->test.verdict));
        g_string_append (out, "</h2>\n");
        append_curve_chart (out, row);
        append_series_chart (out, row);
    }
    g_string_append (out, "</body></html>\n");
    return g_string_free (out, FALSE);
}
