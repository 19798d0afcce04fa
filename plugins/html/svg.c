/* SPDX-License-Identifier: MIT */
/*
 * Inline SVG charts: scales and their ticks, then the drawing of axes,
 * series, markers, shaded intervals and the legend.  Everything is
 * printed with g_ascii_formatd, so a page does not change with the locale.
 */
#include "svg.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* The drawing area inside the viewBox. */
#define SVG_WIDTH 900.0
#define SVG_HEIGHT 280.0
#define SVG_LEFT 72.0
#define SVG_RIGHT 28.0
#define SVG_TOP 12.0
#define SVG_BOTTOM 52.0
#define SVG_PLOT_W (SVG_WIDTH - SVG_LEFT - SVG_RIGHT)
#define SVG_PLOT_H (SVG_HEIGHT - SVG_TOP - SVG_BOTTOM)

/* Markers per series: enough to tell series apart in grey, few enough to keep lines readable. */
#define SVG_MARKERS 12

/*
 * Each colour has a contrast of at least 4.5:1 on white (WCAG AA for
 * text, so also for lines); test-svg computes it.  Dashes and markers
 * tell series apart without colour.
 */
static const struct {
    const char *colour;
    const char *dash;
} svg_styles[SVG_N_STYLES] = {
    { "#1f4e99", "" },          /* blue, solid */
    { "#b3261e", "7 3" },       /* red, dashed */
    { "#1b6e20", "2 3" },       /* green, dotted */
    { "#6a3d9a", "9 3 2 3" },   /* purple, dash-dot */
    { "#8a4b00", "4 2" },       /* brown, short dashes */
    { "#005f73", "12 4" },      /* teal, long dashes */
};

#define SVG_TARGET_COLOUR "#595959"
#define SVG_TARGET_DASH "5 5"

const char *
svg_style_colour (guint style)
{
    return svg_styles[style % SVG_N_STYLES].colour;
}

/* Past the sixth style, dash and marker shift by one against the colour. */
static guint
svg_style_shape (guint style)
{
    return (style + style / SVG_N_STYLES) % SVG_N_STYLES;
}

const char *
svg_style_dash (guint style)
{
    return svg_styles[svg_style_shape (style)].dash;
}

void
svg_append_escaped (GString *out, const char *text)
{
    for (const char *p = text != NULL ? text : ""; *p != '\0'; p++) {
        switch (*p) {
        case '&':
            g_string_append (out, "&amp;");
            break;
        case '<':
            g_string_append (out, "&lt;");
            break;
        case '>':
            g_string_append (out, "&gt;");
            break;
        case '"':
            g_string_append (out, "&quot;");
            break;
        case '\'':
            g_string_append (out, "&#39;");
            break;
        default:
            g_string_append_c (out, *p);
        }
    }
}

void
svg_append_number (GString *out, gdouble value, guint decimals)
{
    char format[8];
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    if (!isfinite (value))
        value = 0;
    g_snprintf (format, sizeof format, "%%.%uf", MIN (decimals, 9u));
    g_ascii_formatd (text, sizeof text, format, value);
    if (strchr (text, '.') != NULL) {
        char *end = text + strlen (text) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
    g_string_append (out, strcmp (text, "-0") == 0 ? "0" : text);
}

/* --- scales -------------------------------------------------------------- */

static gdouble
svg_nines (gdouble percentile)
{
    gdouble rest = 1.0 - CLAMP (percentile, 0.0, 99.9999) / 100.0;
    return -log10 (rest);
}

/* Where @value falls on @axis, from 0 (min) to 1 (max). */
static gdouble
svg_fraction (const SvgAxis *axis, gdouble value)
{
    gdouble lo = axis->min, hi = axis->max, v = value;

    switch (axis->scale) {
    case SVG_SCALE_LOG:
        lo = log10 (MAX (lo, 1e-9));
        hi = log10 (MAX (hi, 1e-9));
        v = log10 (MAX (v, axis->min > 0 ? axis->min : 1e-9));
        break;
    case SVG_SCALE_NINES:
        lo = svg_nines (lo);
        hi = svg_nines (hi);
        v = svg_nines (v);
        break;
    case SVG_SCALE_LINEAR:
        break;
    }
    if (hi <= lo)
        return 0.5;
    return CLAMP ((v - lo) / (hi - lo), 0.0, 1.0);
}

static gdouble
svg_x (const SvgChart *chart, gdouble value)
{
    return SVG_LEFT + svg_fraction (&chart->x, value) * SVG_PLOT_W;
}

static gdouble
svg_y (const SvgChart *chart, gdouble value)
{
    return SVG_TOP + (1.0 - svg_fraction (&chart->y, value)) * SVG_PLOT_H;
}

/* The smallest of 1, 2, 5 × 10^k at least @raw. */
static gdouble
svg_nice_step (gdouble raw)
{
    gdouble power = pow (10.0, floor (log10 (raw)));
    gdouble fraction = raw / power;

    if (fraction <= 1.0 + 1e-9)
        return power;
    if (fraction <= 2.0 + 1e-9)
        return 2.0 * power;
    if (fraction <= 5.0 + 1e-9)
        return 5.0 * power;
    return 10.0 * power;
}

guint
svg_ticks (const SvgAxis *axis, gdouble *ticks, guint max_ticks)
{
    guint n = 0;

    if (max_ticks == 0 || !(axis->max >= axis->min))
        return 0;
    switch (axis->scale) {
    case SVG_SCALE_LINEAR: {
        gdouble range = axis->max - axis->min;
        if (range <= 0) {
            ticks[n++] = axis->min;
            break;
        }
        gdouble step = svg_nice_step (range / (gdouble) MAX (max_ticks - 1, 1));
        gdouble first = ceil (axis->min / step - 1e-9) * step;
        while (first + (gdouble) n * step <= axis->max + step * 1e-9 && n < max_ticks) {
            gdouble tick = first + (gdouble) n * step;
            ticks[n++] = fabs (tick) < step * 1e-9 ? 0.0 : tick;
        }
        break;
    }
    case SVG_SCALE_LOG: {
        if (axis->min <= 0)
            break;
        gint lo = (gint) ceil (log10 (axis->min) - 1e-9);
        gint hi = (gint) floor (log10 (axis->max) + 1e-9);
        /* Within one decade, 1-2-5 steps say more than a lone power of ten. */
        static const gdouble within[] = { 1, 2, 5 };
        gboolean fine = hi - lo < 2;
        for (gint e = lo - 1; e <= hi && n < max_ticks; e++)
            for (guint m = 0; m < (fine ? G_N_ELEMENTS (within) : 1) && n < max_ticks; m++) {
                gdouble tick = within[m] * pow (10.0, e);
                if (tick >= axis->min * (1 - 1e-9) && tick <= axis->max * (1 + 1e-9))
                    ticks[n++] = tick;
            }
        break;
    }
    case SVG_SCALE_NINES: {
        static const gdouble nines[] = { 0, 90, 99, 99.9, 99.99, 99.999, 99.9999 };
        for (guint i = 0; i < G_N_ELEMENTS (nines) && n < max_ticks; i++)
            if (nines[i] >= axis->min - 1e-9 && nines[i] <= axis->max + 1e-9)
                ticks[n++] = nines[i];
        break;
    }
    }
    return n;
}

void
svg_axis_fit (SvgAxis *axis, const gdouble *values, gsize n)
{
    gdouble lo = INFINITY, hi = 0;

    for (gsize i = 0; i < n; i++) {
        if (!isfinite (values[i]))
            continue;
        hi = MAX (hi, values[i]);
        if (values[i] > 0)
            lo = MIN (lo, values[i]);
    }
    if (axis->scale == SVG_SCALE_LOG) {
        if (!isfinite (lo) || hi <= 0) {
            axis->min = 1;
            axis->max = 10;
            return;
        }
        axis->min = pow (10.0, floor (log10 (lo) + 1e-9));
        axis->max = pow (10.0, ceil (log10 (hi) - 1e-9));
        if (axis->max <= axis->min)
            axis->max = axis->min * 10;
        return;
    }
    axis->min = 0;
    if (hi <= 0) {
        axis->max = 1;
        return;
    }
    /* A ceiling on the 1-2-5 grid the ticks use, so the top line is labelled. */
    gdouble step = svg_nice_step (hi / 5.0);
    axis->max = ceil (hi / step - 1e-9) * step;
}

char *
svg_tick_label (const SvgAxis *axis, gdouble value)
{
    GString *out = g_string_new (NULL);
    gdouble magnitude = fabs (value);
    guint decimals = magnitude == 0 || magnitude >= 10 ? 0 : magnitude >= 1 ? 1 : 3;

    if (axis->scale == SVG_SCALE_NINES)
        decimals = 4;
    svg_append_number (out, value, decimals);
    if (axis->unit != NULL)
        g_string_append (out, axis->unit);
    return g_string_free (out, FALSE);
}

/* --- drawing ------------------------------------------------------------- */

gboolean
svg_chart_is_empty (const SvgChart *chart)
{
    for (guint s = 0; s < chart->n_series; s++) {
        if (chart->series[s].target)
            continue;
        for (guint i = 0; i < chart->n; i++)
            if (isfinite (chart->series[s].y[i]))
                return FALSE;
    }
    return TRUE;
}

static void
svg_point (GString *out, gdouble x, gdouble y)
{
    svg_append_number (out, x, 1);
    g_string_append_c (out, ',');
    svg_append_number (out, y, 1);
}

static void
svg_wall_clock (GString *out, gint64 wall_zero_us, gdouble seconds)
{
    time_t t = (time_t) (wall_zero_us / G_USEC_PER_SEC + (gint64) floor (seconds));
    struct tm tm;
    char text[16];

    if (gmtime_r (&t, &tm) == NULL)
        return;
    strftime (text, sizeof text, "%H:%M:%S", &tm);
    g_string_append (out, text);
}

static void
svg_axes (GString *out, const SvgChart *chart)
{
    gdouble ticks[16];
    guint n;

    /* Horizontal grid and y labels. */
    n = svg_ticks (&chart->y, ticks, 7);
    for (guint i = 0; i < n; i++) {
        gdouble y = svg_y (chart, ticks[i]);
        g_autofree char *label = svg_tick_label (&chart->y, ticks[i]);
        g_string_append (out, "<line class=\"grid\" x1=\"");
        svg_append_number (out, SVG_LEFT, 1);
        g_string_append (out, "\" x2=\"");
        svg_append_number (out, SVG_LEFT + SVG_PLOT_W, 1);
        g_string_append (out, "\" y1=\"");
        svg_append_number (out, y, 1);
        g_string_append (out, "\" y2=\"");
        svg_append_number (out, y, 1);
        g_string_append (out, "\"/><text class=\"ytick\" x=\"");
        svg_append_number (out, SVG_LEFT - 6, 1);
        g_string_append (out, "\" y=\"");
        svg_append_number (out, y + 4, 1);
        g_string_append (out, "\">");
        svg_append_escaped (out, label);
        g_string_append (out, "</text>\n");
    }
    /* Vertical ticks and x labels, with the wall clock under time. */
    if (chart->zoom)
        g_string_append (out, "<g class=\"xaxis\">");
    n = svg_ticks (&chart->x, ticks, 9);
    for (guint i = 0; i < n; i++) {
        gdouble x = svg_x (chart, ticks[i]);
        g_autofree char *label = svg_tick_label (&chart->x, ticks[i]);
        g_string_append (out, "<line class=\"tick\" x1=\"");
        svg_append_number (out, x, 1);
        g_string_append (out, "\" x2=\"");
        svg_append_number (out, x, 1);
        g_string_append (out, "\" y1=\"");
        svg_append_number (out, SVG_TOP + SVG_PLOT_H, 1);
        g_string_append (out, "\" y2=\"");
        svg_append_number (out, SVG_TOP + SVG_PLOT_H + 5, 1);
        g_string_append (out, "\"/><text class=\"xtick\" x=\"");
        svg_append_number (out, x, 1);
        g_string_append (out, "\" y=\"");
        svg_append_number (out, SVG_TOP + SVG_PLOT_H + 17, 1);
        g_string_append (out, "\">");
        svg_append_escaped (out, label);
        if (chart->wall_zero_us != 0) {
            g_string_append (out, "<tspan class=\"wall\" x=\"");
            svg_append_number (out, x, 1);
            g_string_append (out, "\" dy=\"12\">");
            svg_wall_clock (out, chart->wall_zero_us, ticks[i]);
            g_string_append (out, "</tspan>");
        }
        g_string_append (out, "</text>\n");
    }
    if (chart->zoom)
        g_string_append (out, "</g>\n");
    g_string_append_printf (out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" "
                            "height=\"%d\"/>\n", (int) SVG_LEFT, (int) SVG_TOP, (int) SVG_PLOT_W,
                            (int) SVG_PLOT_H);
    g_string_append (out, "<text class=\"ylabel\" transform=\"translate(14,");
    svg_append_number (out, SVG_TOP + SVG_PLOT_H / 2, 1);
    g_string_append (out, ") rotate(-90)\">");
    svg_append_escaped (out, chart->y.label);
    g_string_append (out, "</text><text class=\"xlabel\" x=\"");
    svg_append_number (out, SVG_LEFT + SVG_PLOT_W / 2, 1);
    g_string_append (out, "\" y=\"");
    svg_append_number (out, SVG_HEIGHT - 4, 1);
    g_string_append (out, "\">");
    svg_append_escaped (out, chart->x.label);
    if (chart->wall_zero_us != 0)
        g_string_append (out, " · wall clock UTC");
    g_string_append (out, "</text>\n");
}

/* Saturated intervals: one band per run of consecutive shaded points. */
static void
svg_shading (GString *out, const SvgChart *chart)
{
    if (chart->shade == NULL)
        return;
    for (guint i = 0; i < chart->n; i++) {
        if (!chart->shade[i])
            continue;
        guint j = i;
        while (j + 1 < chart->n && chart->shade[j + 1])
            j++;
        gdouble x0 = svg_x (chart, chart->x0[i]);
        gdouble x1 = svg_x (chart, chart->x1[j]);
        g_string_append (out, "<rect class=\"sat\" x=\"");
        svg_append_number (out, x0, 1);
        g_string_append_printf (out, "\" y=\"%d\" width=\"", (int) SVG_TOP);
        svg_append_number (out, MAX (x1 - x0, 1.0), 1);
        g_string_append_printf (out, "\" height=\"%d\"><title>saturated</title></rect>\n",
                                (int) SVG_PLOT_H);
        i = j;
    }
}

static void
svg_series_attributes (GString *out, const SvgChart *chart, guint s, const char *extra_class)
{
    const SvgSeries *series = &chart->series[s];
    const char *colour = series->target ? SVG_TARGET_COLOUR : svg_style_colour (series->style);
    const char *dash = series->target ? SVG_TARGET_DASH : svg_style_dash (series->style);

    g_string_append_printf (out, " class=\"series %s-s%u%s\" stroke=\"%s\"", chart->id, s,
                            extra_class, colour);
    if (*dash != '\0')
        g_string_append_printf (out, " stroke-dasharray=\"%s\"", dash);
}

/* A marker of @style centred on (x, y): circle, square, triangle, diamond, plus, cross. */
static void
svg_marker (GString *out, guint style, gdouble x, gdouble y)
{
    static const char *const shapes[SVG_N_STYLES] = {
        "m-3,0a3,3 0 1,0 6,0a3,3 0 1,0 -6,0", "m-3,-3h6v6h-6z", "m0,-4l4,7h-8z",
        "m0,-4l4,4l-4,4l-4,-4z", "m-4,0h8m-4,-4v8", "m-3,-3l6,6m0,-6l-6,6",
    };
    g_string_append (out, "M");
    svg_point (out, x, y);
    g_string_append (out, shapes[svg_style_shape (style)]);
}

static void
svg_lines (GString *out, const SvgChart *chart)
{
    guint every = MAX (1u, chart->n / SVG_MARKERS);

    for (guint s = 0; s < chart->n_series; s++) {
        const SvgSeries *series = &chart->series[s];
        gboolean pen_down = FALSE;

        g_string_append (out, "<path fill=\"none\"");
        svg_series_attributes (out, chart, s, "");
        g_string_append (out, " d=\"");
        for (guint i = 0; i < chart->n; i++) {
            if (!isfinite (series->y[i])) {
                pen_down = FALSE;
                continue;
            }
            g_string_append_c (out, pen_down ? 'L' : 'M');
            svg_point (out, svg_x (chart, chart->x1[i]), svg_y (chart, series->y[i]));
            pen_down = TRUE;
        }
        g_string_append (out, "\"/>\n");
        if (series->target)
            continue;
        /* Markers, staggered per series so that they do not sit on each other. */
        g_string_append (out, "<path fill=\"none\" stroke-dasharray=\"none\"");
        svg_series_attributes (out, chart, s, " mk");
        g_string_append (out, " d=\"");
        for (guint i = (s * every / MAX (chart->n_series, 1u)) % every; i < chart->n; i += every)
            if (isfinite (series->y[i]))
                svg_marker (out, series->style, svg_x (chart, chart->x1[i]),
                            svg_y (chart, series->y[i]));
        g_string_append (out, "\"/>\n");
    }
}

static void
svg_bars (GString *out, const SvgChart *chart)
{
    if (chart->n_series == 0)
        return;
    const SvgSeries *series = &chart->series[0];
    gdouble base = svg_y (chart, chart->y.min);

    g_string_append_printf (out, "<path fill=\"%s\" fill-opacity=\"0.35\"",
                            svg_style_colour (series->style));
    svg_series_attributes (out, chart, 0, "");
    g_string_append (out, " d=\"");
    for (guint i = 0; i < chart->n; i++) {
        if (!isfinite (series->y[i]) || series->y[i] <= 0)
            continue;
        gdouble x0 = svg_x (chart, chart->x0[i]);
        gdouble x1 = svg_x (chart, chart->x1[i]);
        gdouble top = svg_y (chart, series->y[i]);
        g_string_append_c (out, 'M');
        svg_point (out, x0, base);
        g_string_append (out, "V");
        svg_append_number (out, top, 1);
        g_string_append (out, "H");
        svg_append_number (out, x1, 1);
        g_string_append (out, "V");
        svg_append_number (out, base, 1);
    }
    g_string_append (out, "\"/>\n");
}

static void
svg_legend (GString *out, const SvgChart *chart)
{
    g_string_append (out, "<ul class=\"legend\">");
    for (guint s = 0; s < chart->n_series; s++) {
        const SvgSeries *series = &chart->series[s];
        const char *colour = series->target ? SVG_TARGET_COLOUR : svg_style_colour (series->style);
        const char *dash = series->target ? SVG_TARGET_DASH : svg_style_dash (series->style);

        g_string_append_printf (out, "<li><button type=\"button\" data-series=\"%s-s%u\">"
                                "<svg width=\"34\" height=\"12\" aria-hidden=\"true\">"
                                "<path d=\"M2,6H32\" stroke=\"%s\" stroke-width=\"2\" "
                                "stroke-dasharray=\"%s\"/>", chart->id, s, colour,
                                *dash != '\0' ? dash : "none");
        if (!series->target) {
            g_string_append_printf (out, "<path fill=\"none\" stroke=\"%s\" d=\"", colour);
            svg_marker (out, series->style, 17, 6);
            g_string_append (out, "\"/>");
        }
        g_string_append (out, "</svg>");
        svg_append_escaped (out, series->name);
        g_string_append (out, "</button></li>");
    }
    g_string_append (out, "</ul>\n");
}

/* A value in three significant figures, for a read-out. */
static void
svg_append_figure (GString *out, gdouble value)
{
    gdouble magnitude = fabs (value);

    if (!isfinite (value)) {
        g_string_append (out, "-");
        return;
    }
    svg_append_number (out, value, magnitude >= 100 || magnitude == 0 ? 0 : magnitude >= 10 ? 1
                                    : magnitude >= 1 ? 2 : 3);
}

/*
 * What the page's script shows on hover: each point's x in the viewBox,
 * its x value, and each series' name and values.  Line charts only.
 */
static void
svg_readout (GString *out, const SvgChart *chart)
{
    if (chart->mode == SVG_MODE_BARS)
        return;
    g_string_append (out, " data-px=\"");
    for (guint i = 0; i < chart->n; i++) {
        if (i > 0)
            g_string_append_c (out, ' ');
        svg_append_number (out, svg_x (chart, chart->x1[i]), 1);
    }
    g_string_append (out, "\" data-x=\"");
    for (guint i = 0; i < chart->n; i++) {
        if (i > 0)
            g_string_append_c (out, ' ');
        svg_append_figure (out, chart->x1[i]);
    }
    g_string_append (out, "\" data-xlabel=\"");
    svg_append_escaped (out, chart->x.label);
    g_string_append (out, "\" data-names=\"");
    for (guint s = 0; s < chart->n_series; s++) {
        if (s > 0)
            g_string_append_c (out, '|');
        svg_append_escaped (out, chart->series[s].name);
    }
    g_string_append (out, "\"");
    for (guint s = 0; s < chart->n_series; s++) {
        g_string_append_printf (out, " data-v%u=\"", s);
        for (guint i = 0; i < chart->n; i++) {
            if (i > 0)
                g_string_append_c (out, ' ');
            svg_append_figure (out, chart->series[s].y[i]);
        }
        g_string_append (out, "\"");
    }
}

void
svg_chart_append (GString *out, const SvgChart *chart)
{
    g_string_append_printf (out, "<figure class=\"chart\" id=\"%s\">\n<figcaption>", chart->id);
    svg_append_escaped (out, chart->title);
    g_string_append (out, "</figcaption>\n");
    if (chart->n == 0 || svg_chart_is_empty (chart)) {
        g_string_append (out, "<p class=\"empty\">No data: ");
        svg_append_escaped (out, chart->empty != NULL ? chart->empty : "nothing was measured");
        g_string_append (out, ".</p>\n</figure>\n");
        return;
    }
    g_string_append_printf (out, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" role=\"img\" "
                            "aria-label=\"", (int) SVG_WIDTH, (int) SVG_HEIGHT);
    svg_append_escaped (out, chart->title);
    g_string_append_printf (out, "\" data-points=\"%u\"", chart->n);
    if (chart->zoom) {
        g_string_append (out, " data-t=\"");
        svg_append_number (out, chart->x.min, 3);
        g_string_append_c (out, ' ');
        svg_append_number (out, chart->x.max, 3);
        g_string_append_printf (out, "\" data-wall=\"%" G_GINT64_FORMAT "\"",
                                chart->wall_zero_us / 1000);
    }
    svg_readout (out, chart);
    g_string_append (out, ">\n");
    if (!chart->zoom)
        svg_shading (out, chart);
    svg_axes (out, chart);
    if (chart->zoom) {
        /* The plot area again, in the outer viewBox' units until the script narrows it. */
        g_string_append_printf (out, "<svg class=\"zoom\" x=\"%d\" y=\"%d\" width=\"%d\" "
                                "height=\"%d\" viewBox=\"%d %d %d %d\" "
                                "preserveAspectRatio=\"none\">\n",
                                (int) SVG_LEFT, (int) SVG_TOP, (int) SVG_PLOT_W, (int) SVG_PLOT_H,
                                (int) SVG_LEFT, (int) SVG_TOP, (int) SVG_PLOT_W, (int) SVG_PLOT_H);
        svg_shading (out, chart);
    }
    if (chart->mode == SVG_MODE_BARS)
        svg_bars (out, chart);
    else
        svg_lines (out, chart);
    if (chart->zoom)
        g_string_append (out, "</svg>\n");
    g_string_append (out, "</svg>\n");
    svg_legend (out, chart);
    g_string_append (out, "</figure>\n");
}
