/* SPDX-License-Identifier: MIT */
/*
 * Tests of the html plugin's charts (plugins/html/svg.c) and interval
 * series (series.c), compiled in: ticks on linear, log and nines scales,
 * axis fitting, the SVG drawn for an empty series, one point, two points
 * and a log scale, compared with small expected fragments; the palette's
 * contrast; the 2,000-point cap with exact merging, of the samples' codes
 * and outcomes and of the per-step figures too; and the throughput chart
 * of a run with a thin error band, read back from its SVG path.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <throng/throng.h>

#include "page.h"
#include "series.h"
#include "svg.h"

static void
assert_ticks (SvgAxis axis, guint max_ticks, const gdouble *expected, guint n_expected)
{
    gdouble ticks[32];
    guint n = svg_ticks (&axis, ticks, max_ticks);

    g_assert_cmpuint (n, ==, n_expected);
    for (guint i = 0; i < n; i++)
        g_assert_cmpfloat_with_epsilon (ticks[i], expected[i], 1e-9 * MAX (1, fabs (expected[i])));
}

static void
test_ticks_linear (void)
{
    assert_ticks ((SvgAxis) { .min = 0, .max = 100 }, 7,
                  (const gdouble[]) { 0, 20, 40, 60, 80, 100 }, 6);
    assert_ticks ((SvgAxis) { .min = 0, .max = 7 }, 7, (const gdouble[]) { 0, 2, 4, 6 }, 4);
    assert_ticks ((SvgAxis) { .min = 0, .max = 0.3 }, 7,
                  (const gdouble[]) { 0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3 }, 7);
    /* A run of 20 s on the shared time axis. */
    assert_ticks ((SvgAxis) { .min = 0, .max = 20.4 }, 9,
                  (const gdouble[]) { 0, 5, 10, 15, 20 }, 5);
    /* A flat axis has its one value. */
    assert_ticks ((SvgAxis) { .min = 3, .max = 3 }, 7, (const gdouble[]) { 3 }, 1);
}

static void
test_ticks_log (void)
{
    assert_ticks ((SvgAxis) { .min = 1, .max = 10000, .scale = SVG_SCALE_LOG }, 7,
                  (const gdouble[]) { 1, 10, 100, 1000, 10000 }, 5);
    /* Within one decade, 1-2-5 steps. */
    assert_ticks ((SvgAxis) { .min = 0.1, .max = 1, .scale = SVG_SCALE_LOG }, 7,
                  (const gdouble[]) { 0.1, 0.2, 0.5, 1 }, 4);
    /* No ticks where a log scale has no meaning. */
    assert_ticks ((SvgAxis) { .min = 0, .max = 10, .scale = SVG_SCALE_LOG }, 7, NULL, 0);
}

static void
test_ticks_nines (void)
{
    assert_ticks ((SvgAxis) { .min = 0, .max = 99.99, .scale = SVG_SCALE_NINES }, 9,
                  (const gdouble[]) { 0, 90, 99, 99.9, 99.99 }, 5);
    SvgAxis axis = { .min = 0, .max = 99.9, .scale = SVG_SCALE_NINES };
    g_autofree char *label = svg_tick_label (&axis, 99.9);
    g_assert_cmpstr (label, ==, "99.9");
}

static void
test_axis_fit (void)
{
    SvgAxis linear = { 0 };
    svg_axis_fit (&linear, (const gdouble[]) { 3, 17, NAN }, 3);
    g_assert_cmpfloat (linear.min, ==, 0);
    g_assert_cmpfloat (linear.max, ==, 20);

    /* Latency from 0.4 ms to 1,009 ms: powers of ten around both. */
    SvgAxis log_axis = { .scale = SVG_SCALE_LOG };
    svg_axis_fit (&log_axis, (const gdouble[]) { 0.4, 1009, NAN, 0 }, 4);
    g_assert_cmpfloat_with_epsilon (log_axis.min, 0.1, 1e-12);
    g_assert_cmpfloat_with_epsilon (log_axis.max, 10000, 1e-9);

    SvgAxis nothing = { 0 };
    svg_axis_fit (&nothing, (const gdouble[]) { NAN }, 1);
    g_assert_cmpfloat (nothing.max, ==, 1);
}

/* A chart on 0..10 × 0..10 (or log 1..1000) over @n points. */
static char *
draw (guint n, const gdouble *x, const gdouble *y, SvgScale y_scale, SvgMode mode)
{
    SvgSeries series[] = { { .name = "s<1>", .y = y, .style = 0 } };
    SvgChart chart = {
        .id = "t",
        .title = "A & B",
        .mode = mode,
        .x = { .min = 0, .max = 10, .label = "time (s)" },
        .y = { .min = y_scale == SVG_SCALE_LOG ? 1 : 0, .max = y_scale == SVG_SCALE_LOG ? 1000 : 10,
               .scale = y_scale, .label = "value" },
        .n = n,
        .x0 = x,
        .x1 = x,
        .series = series,
        .n_series = 1,
        .empty = "nothing here",
    };
    GString *out = g_string_new (NULL);
    svg_chart_append (out, &chart);
    return g_string_free (out, FALSE);
}

static void
assert_contains (const char *text, const char *fragment)
{
    if (strstr (text, fragment) == NULL)
        g_error ("expected «%s» in:\n%s", fragment, text);
}

static void
test_chart_empty (void)
{
    gdouble x[] = { 1, 2, 3 };
    gdouble y[] = { NAN, NAN, NAN };
    g_autofree char *svg = draw (3, x, y, SVG_SCALE_LINEAR, SVG_MODE_LINES);
    g_autofree char *none = draw (0, x, y, SVG_SCALE_LINEAR, SVG_MODE_LINES);

    /* It says so rather than drawing a flat line. */
    assert_contains (svg, "<p class=\"empty\">No data: nothing here.</p>");
    g_assert_null (strstr (svg, "<svg"));
    assert_contains (none, "No data: nothing here.");
    assert_contains (svg, "<figcaption>A &amp; B</figcaption>");
}

static void
test_chart_one_point (void)
{
    gdouble x[] = { 5 };
    gdouble y[] = { 5 };
    g_autofree char *svg = draw (1, x, y, SVG_SCALE_LINEAR, SVG_MODE_LINES);

    /* x 5 of 10 → 72 + 800 / 2; y 5 of 10 → 12 + 216 / 2. */
    assert_contains (svg, "class=\"series t-s0\" stroke=\"#1f4e99\" d=\"M472,120\"/>");
    assert_contains (svg, "data-points=\"1\"");
    assert_contains (svg, "s&lt;1&gt;");
}

static void
test_chart_two_points (void)
{
    gdouble x[] = { 5, 10 };
    gdouble y[] = { 5, NAN };
    gdouble y2[] = { 5, 10 };
    g_autofree char *gap = draw (2, x, y, SVG_SCALE_LINEAR, SVG_MODE_LINES);
    g_autofree char *line = draw (2, x, y2, SVG_SCALE_LINEAR, SVG_MODE_LINES);

    assert_contains (line, "d=\"M472,120L872,12\"/>");
    /* A missing value is a gap, never a zero. */
    assert_contains (gap, "d=\"M472,120\"/>");
    /* Axis labels and ticks with their values. */
    assert_contains (line, ">time (s)</text>");
    assert_contains (line, "<text class=\"ytick\" x=\"66\" y=\"145.6\">4</text>");
}

static void
test_chart_log (void)
{
    gdouble x[] = { 0, 10 };
    gdouble y[] = { 10, 1000 };
    g_autofree char *svg = draw (2, x, y, SVG_SCALE_LOG, SVG_MODE_LINES);

    /* 10 on 1..1000 is a third of the way up: 12 + 216 × 2/3. */
    assert_contains (svg, "d=\"M72,156L872,12\"/>");
    assert_contains (svg, ">100</text>");
}

static void
test_chart_bars (void)
{
    gdouble x[] = { 5, 10 };
    gdouble y[] = { 5, 10 };
    g_autofree char *bars = draw (2, x, y, SVG_SCALE_LINEAR, SVG_MODE_BARS);

    assert_contains (bars, "d=\"M472,228V120H472V228M872,228V12H872V228\"/>");
}

/* A target line (configured users, a rate) is grey and dashed, without markers, and
 * does not count as data: a chart with only a target still says it has none. */
static void
test_chart_target (void)
{
    gdouble x[] = { 5, 10 };
    gdouble measured[] = { NAN, NAN };
    gdouble target[] = { 5, 10 };
    SvgSeries series[] = {
        { .name = "active users", .y = measured, .style = 0 },
        { .name = "configured", .y = target, .style = 1, .target = TRUE },
    };
    SvgChart chart = {
        .id = "u", .title = "users", .mode = SVG_MODE_LINES,
        .x = { .min = 0, .max = 10 }, .y = { .min = 0, .max = 10 },
        .n = 2, .x0 = x, .x1 = x, .series = series, .n_series = 2, .empty = "none",
    };
    g_autoptr (GString) out = g_string_new (NULL);

    svg_chart_append (out, &chart);
    assert_contains (out->str, "No data: none.");
    measured[1] = 4;
    g_string_truncate (out, 0);
    svg_chart_append (out, &chart);
    assert_contains (out->str, "<path fill=\"none\" class=\"series u-s1\" stroke=\"#595959\" "
                               "stroke-dasharray=\"5 5\" d=\"M472,120L872,12\"/>");
    /* One marker path, the measured series'. */
    g_assert_null (strstr (out->str, "stroke-dasharray=\"none\" class=\"series u-s1\""));
}

/* WCAG 2 relative luminance and contrast against white. */
static gdouble
channel (guint value)
{
    gdouble c = value / 255.0;
    return c <= 0.03928 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static void
test_palette_contrast (void)
{
    for (guint s = 0; s < SVG_N_STYLES; s++) {
        guint r, g, b;
        g_assert_cmpint (sscanf (svg_style_colour (s), "#%02x%02x%02x", &r, &g, &b), ==, 3);
        gdouble l = 0.2126 * channel (r) + 0.7152 * channel (g) + 0.0722 * channel (b);
        gdouble contrast = 1.05 / (l + 0.05);
        g_assert_cmpfloat (contrast, >=, 4.5);
        /* Each style also differs without colour: no two share a dash pattern. */
        for (guint t = 0; t < s; t++)
            g_assert_cmpstr (svg_style_dash (s), !=, svg_style_dash (t));
    }
}

/* One snapshot of a second, with @requests requests of @latency_us each. */
static void
add_interval (HtmlSeries *series, guint i, guint64 requests, gint64 latency_us)
{
    g_autoptr (ThrongHistogram) latency = throng_histogram_new ();
    ThrongSummary snapshot = { .size = sizeof (ThrongSummary) };

    throng_histogram_record_n (latency, latency_us, requests);
    snapshot.elapsed_us = (gint64) (i + 1) * G_USEC_PER_SEC;
    snapshot.interval_us = G_USEC_PER_SEC;
    snapshot.end_wall_us = G_GINT64_CONSTANT (1700000000000000) + snapshot.elapsed_us;
    snapshot.total.requests = requests;
    snapshot.total.latency = latency;
    snapshot.saturated = i == 4321;
    html_series_add (series, &snapshot);
}

static void
test_series_cap (void)
{
    g_autoptr (HtmlSeries) series = html_series_new (SVG_MAX_POINTS);
    guint64 requests = 0;

    for (guint i = 0; i < 5000; i++) {
        add_interval (series, i, i % 7 + 1, (gint64) (i + 1) * 100);
        requests += i % 7 + 1;
    }
    guint n;
    const HtmlPoint *points = html_series_points (series, &n);
    g_assert_cmpuint (n, <=, SVG_MAX_POINTS);
    g_assert_cmpuint (html_series_width (series), ==, 4);
    g_assert_cmpuint (n, ==, 1250);
    g_assert_cmpuint (html_series_intervals (series), ==, 5000);

    /* Merged exactly: nothing lost, contiguous in time, the histograms merged. */
    guint64 seen = 0;
    guint intervals = 0, saturated = 0;
    for (guint i = 0; i < n; i++) {
        seen += points[i].requests;
        intervals += points[i].intervals;
        saturated += points[i].saturated;
        g_assert_cmpint (points[i].start_us, ==, i > 0 ? points[i - 1].end_us : 0);
        g_assert_cmpuint (points[i].intervals, ==, 4);
        /* Values 100 µs apart, four per point: the max is the last interval's. */
        g_assert_cmpint (points[i].max_us, ==, (gint64) (i * 4 + 4) * 100);
    }
    g_assert_cmpuint (seen, ==, requests);
    g_assert_cmpuint (intervals, ==, 5000);
    g_assert_cmpuint (saturated, ==, 1);
    g_assert_true (points[4321 / 4].saturated);
}

static void
test_series_short (void)
{
    g_autoptr (HtmlSeries) series = html_series_new (SVG_MAX_POINTS);

    for (guint i = 0; i < 20; i++)
        add_interval (series, i, 10, 1000);
    guint n;
    const HtmlPoint *points = html_series_points (series, &n);
    /* Below the cap, one point per interval. */
    g_assert_cmpuint (n, ==, 20);
    g_assert_cmpuint (html_series_width (series), ==, 1);
    g_assert_cmpint (points[19].end_us, ==, 20 * G_USEC_PER_SEC);
    g_assert_cmpint (points[0].p50_us, ==, 1000);
}

/* An interval of @length_us, one scenario of two steps, with @requests requests (of which
 * @timeouts timed out) after as many samples: 200s and timeouts, 1 ms and 5 s. */
static void
add_detailed_interval (HtmlSeries *series, guint i, gint64 length_us, guint64 requests,
                       guint64 timeouts)
{
    g_autoptr (ThrongHistogram) latency = throng_histogram_new ();
    ThrongSummary snapshot = { .size = sizeof (ThrongSummary) };
    ThrongStepSummary steps[2] = { { .label = "same" }, { .label = "same" } };
    ThrongScenarioSummary scenario = { .name = "s", .steps = steps, .n_steps = 2 };

    for (guint64 k = 0; k < requests; k++) {
        ThrongSample sample = { .elapsed_us = k < timeouts ? 5000000 : 1000 };
        sample.status = k < timeouts ? 0 : 200;
        sample.error = k < timeouts ? THRONG_ERROR_TIMEOUT : THRONG_ERROR_NONE;
        html_series_add_sample (series, &sample);
        throng_histogram_record (latency, sample.elapsed_us);
    }
    snapshot.elapsed_us = (gint64) (i + 1) * length_us;
    snapshot.interval_us = length_us;
    snapshot.total.requests = requests;
    snapshot.total.errors = timeouts;
    snapshot.total.errors_by_class[THRONG_ERROR_TIMEOUT] = timeouts;
    snapshot.total.latency = latency;
    scenario.stats = snapshot.total;
    steps[0].stats = snapshot.total;
    steps[1].stats.requests = 1;
    snapshot.scenarios = &scenario;
    snapshot.n_scenarios = 1;
    html_series_add (series, &snapshot);
}

static void
test_series_detail (void)
{
    g_autoptr (HtmlSeries) series = html_series_new (SVG_MAX_POINTS);
    guint64 requests = 0, timeouts = 0;

    for (guint i = 0; i < 5000; i++) {
        add_detailed_interval (series, i, G_USEC_PER_SEC, i % 5 + 1, i % 10 == 0);
        requests += i % 5 + 1;
        timeouts += i % 10 == 0;
    }
    g_assert_true (html_series_has_samples (series));
    g_assert_cmpuint (html_series_n_units (series), ==, 3);
    guint n;
    const HtmlPoint *points = html_series_points (series, &n);
    g_assert_cmpuint (n, ==, 1250);
    /* The samples' codes and outcomes, and the steps' figures, merged exactly. */
    guint64 ok = 0, ko = 0, scenario = 0, second = 0;
    gdouble sum = 0;
    for (guint i = 0; i < n; i++) {
        for (guint c = 0; c < points[i].codes->len; c++) {
            const HtmlCode *code = &g_array_index (points[i].codes, HtmlCode, c);
            g_assert_true (code->key == 200 || code->key == -(gint32) THRONG_ERROR_TIMEOUT);
            if (code->key == 200)
                ok += code->count;
            else
                ko += code->count;
        }
        scenario += points[i].units[0].requests;
        second += points[i].units[2].requests;
        sum += points[i].units[0].latency_sum_us;
        /* Every fourth-point holds one interval whose number is a multiple of 10. */
        g_assert_cmpint (points[i].ko_p50_us, ==, i % 5 == 0 || i % 5 == 2 ? 5000000 : -1);
        g_assert_cmpint (points[i].ok_p99_us, ==, 1000);
    }
    g_assert_cmpuint (ok, ==, requests - timeouts);
    g_assert_cmpuint (ko, ==, timeouts);
    g_assert_cmpuint (scenario, ==, requests);
    g_assert_cmpuint (second, ==, 5000);
    g_assert_cmpfloat_with_epsilon (sum, (gdouble) (requests - timeouts) * 1000 + (gdouble) timeouts * 5e6, 1e-3);
    const HtmlOutcomes *outcomes = html_series_outcomes (series);
    g_assert_cmpuint (throng_histogram_count (outcomes->ok), ==, requests - timeouts);
    g_assert_cmpuint (throng_histogram_count (outcomes->ko), ==, timeouts);
}

/* The figures of the path a chart draws for its series @index: "M x,y L x,y …". */
static GArray *
path_points (const char *svg, const char *chart, guint index)
{
    g_autofree char *needle = g_strdup_printf ("class=\"series %s-s%u\" stroke=", chart, index);
    const char *path = strstr (svg, needle);
    g_assert_nonnull (path);
    const char *d = strstr (path, " d=\"");
    g_assert_nonnull (d);
    GArray *points = g_array_new (FALSE, FALSE, sizeof (gdouble));
    for (const char *p = d + 4; *p == 'M' || *p == 'L';) {
        char *end = NULL;
        gdouble x = g_ascii_strtod (p + 1, &end);
        g_assert_true (*end == ',');
        gdouble y = g_ascii_strtod (end + 1, &end);
        g_array_append_val (points, x);
        g_array_append_val (points, y);
        p = end;
    }
    return points;
}

/*
 * 12,000 requests a second, of which 0.999 a second time out: the timeout
 * line sits where 0.999 does on the axis, at the bottom, not along the
 * total as the edge of a band stacked on the successes would.
 */
static void
test_throughput_thin_band (void)
{
    g_autoptr (HtmlSeries) series = html_series_new (SVG_MAX_POINTS);
    const gint64 length_us = 1001001; /* 12,012 requests and 1 timeout in it */

    for (guint i = 0; i < 30; i++)
        add_detailed_interval (series, i, length_us, 12012, 1);
    guint n;
    const HtmlPoint *points = html_series_points (series, &n);
    g_autofree gdouble *x0 = g_new0 (gdouble, n);
    g_autofree gdouble *x1 = g_new0 (gdouble, n);
    g_autofree gboolean *shade = g_new0 (gboolean, n);
    for (guint i = 0; i < n; i++) {
        x0[i] = (gdouble) points[i].start_us / G_USEC_PER_SEC;
        x1[i] = (gdouble) points[i].end_us / G_USEC_PER_SEC;
    }
    HtmlTime time = { .points = points, .n = n, .x0 = x0, .x1 = x1, .shade = shade,
                      .end_s = x1[n - 1] };
    g_autoptr (GString) out = g_string_new (NULL);
    html_chart_throughput (out, &time);

    assert_contains (out->str, "data-names=\"all requests/s|succeeded/s|timeout\"");
    /* The axis: 0 to 15,000 (the 1-2-5 ceiling above 12,000) over 216 units from y 12. */
    assert_contains (out->str, ">15000</text>");
    gdouble bottom = 12 + 216;
    g_autoptr (GArray) all = path_points (out->str, "throughput", 0);
    g_autoptr (GArray) timeout = path_points (out->str, "throughput", 2);
    g_assert_cmpuint (timeout->len, ==, 2 * n);
    for (guint i = 0; i < n; i++) {
        gdouble all_value = (bottom - g_array_index (all, gdouble, 2 * i + 1)) / 216 * 15000;
        gdouble timeout_value = (bottom - g_array_index (timeout, gdouble, 2 * i + 1)) / 216 * 15000;
        /* Within the 0.1 unit the path is printed to: 7 requests a second on this axis. */
        g_assert_cmpfloat (fabs (all_value - 12000), <=, 7);
        g_assert_cmpfloat (fabs (timeout_value - 0.999), <=, 7);
    }
    /* The read-out says the same. */
    assert_contains (out->str, " data-v2=\"0.999 0.999 ");
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/svg/ticks/linear", test_ticks_linear);
    g_test_add_func ("/svg/ticks/log", test_ticks_log);
    g_test_add_func ("/svg/ticks/nines", test_ticks_nines);
    g_test_add_func ("/svg/axis/fit", test_axis_fit);
    g_test_add_func ("/svg/chart/empty", test_chart_empty);
    g_test_add_func ("/svg/chart/one-point", test_chart_one_point);
    g_test_add_func ("/svg/chart/two-points", test_chart_two_points);
    g_test_add_func ("/svg/chart/log", test_chart_log);
    g_test_add_func ("/svg/chart/bars", test_chart_bars);
    g_test_add_func ("/svg/chart/target", test_chart_target);
    g_test_add_func ("/svg/palette/contrast", test_palette_contrast);
    g_test_add_func ("/svg/series/cap", test_series_cap);
    g_test_add_func ("/svg/series/short", test_series_short);
    g_test_add_func ("/svg/series/detail", test_series_detail);
    g_test_add_func ("/html/throughput/thin-band", test_throughput_thin_band);
    return g_test_run ();
}
