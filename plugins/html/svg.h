/* SPDX-License-Identifier: MIT */
/*
 * Charts as inline SVG, drawn from plain arrays of numbers: axes with
 * ticks and units, linear, logarithmic and "nines" scales, lines and
 * bars, shaded intervals, a plot the page's script can zoom.  Knows
 * nothing of throng's summaries; page.c and detail.c turn those into
 * arrays.
 */
#pragma once

#include <glib.h>

/* The most values of one series a chart draws; series.c merges intervals to stay under it. */
#define SVG_MAX_POINTS 2000

/* How many colours, dashes and markers there are.  Style s has colour
 * s mod 6 and dash and marker (s + s / 6) mod 6: the first 36 differ. */
#define SVG_N_STYLES 6

typedef enum {
    SVG_SCALE_LINEAR,
    SVG_SCALE_LOG,
    /* Percentiles: the distance of 90, 99, 99.9 … from 100 on a log scale. */
    SVG_SCALE_NINES,
} SvgScale;

typedef struct {
    gdouble min;
    gdouble max;
    SvgScale scale;
    const char *label;  /* with its unit: "latency (ms)" */
    const char *unit;   /* appended to tick labels: " s", "%"; may be NULL */
} SvgAxis;

typedef enum {
    SVG_MODE_LINES,     /* one line per series, a point at each x1 */
    SVG_MODE_BARS,      /* one bar from x0 to x1 per value (first series only) */
} SvgMode;

typedef struct {
    const char *name;
    const gdouble *y;   /* n values; NAN for none */
    guint style;        /* picks colour, dash and marker (svg_style_colour ()) */
    gboolean target;    /* a dashed grey target line, not a measurement */
} SvgSeries;

/*
 * One chart.  Each of the n points covers [x0[i], x1[i]] on the x axis;
 * lines are drawn through the x1 ends.  @shade, when not NULL, marks
 * points whose interval is shaded from top to bottom (saturated).  When
 * @wall_zero_us is not 0, time ticks also read as UTC wall-clock times,
 * x being seconds after it.  A @zoom chart draws its series in an inner
 * svg whose viewBox the page's script narrows (assets.c), its time ticks
 * in a group the script labels again, and says its x axis in data-t.
 */
typedef struct {
    const char *id;
    const char *title;
    SvgMode mode;
    SvgAxis x;
    SvgAxis y;
    guint n;
    const gdouble *x0;
    const gdouble *x1;
    const SvgSeries *series;
    guint n_series;
    const gboolean *shade;
    gint64 wall_zero_us;
    const char *empty;  /* what to say when there is nothing to draw */
    gboolean zoom;
} SvgChart;

/*
 * Up to @max_ticks "nice" tick values within the axis (1, 2, 5 × 10^k
 * steps; powers of ten on a log scale; 0, 90, 99, 99.9 … on nines).
 * Returns how many it wrote to @ticks.
 */
guint svg_ticks (const SvgAxis *axis, gdouble *ticks, guint max_ticks);

/*
 * Sets @axis' min and max to hold @values (NAN skipped): on a linear
 * scale from 0 to a nice ceiling; on a log scale between powers of ten
 * around the positive values.  An axis with nothing to hold gets 0..1
 * (log: 1..10).
 */
void svg_axis_fit (SvgAxis *axis, const gdouble *values, gsize n);

/* A tick label: the value in few digits, then the axis' unit. */
char *svg_tick_label (const SvgAxis *axis, gdouble value);

/* Whether every series of @chart is empty (no finite value). */
gboolean svg_chart_is_empty (const SvgChart *chart);

/* Appends @chart as one <figure> holding a <svg>, its legend and title. */
void svg_chart_append (GString *out, const SvgChart *chart);

/* The style of series @style: colour, stroke-dasharray ("" for solid). */
const char *svg_style_colour (guint style);
const char *svg_style_dash (guint style);

/* Appends @text with &, <, > and quotes escaped. */
void svg_append_escaped (GString *out, const char *text);

/* Appends @value with at most @decimals decimals, trailing zeros dropped; locale-independent. */
void svg_append_number (GString *out, gdouble value, guint decimals);
