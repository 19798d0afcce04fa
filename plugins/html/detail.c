/* SPDX-License-Identifier: MIT */
/*
 * The charts that break the run down, as JMeter's dashboard and Gatling's
 * report do: response codes per second and the latency of successes apart
 * from failures (from the samples), requests per second, mean latency and
 * failures per scenario and per step (from the intervals), and the plan's
 * own metrics over time; and the run's successes, failures and codes as
 * tables.  Charts with one line per scenario, step, code or metric are
 * drawn on a coarser grid when a run is long (HTML_DETAIL_POINTS), each
 * grid point adding whole points up exactly (counts over their seconds,
 * latency sums over their counts), so that the page stays small.
 */
#include "page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Grid points per chart with a line per scenario, step, code or metric. */
#define HTML_DETAIL_POINTS 500
/* Lines per such chart: the busiest ones; the tables have them all. */
#define HTML_DETAIL_SERIES 12

/* Why the codes and outcomes have no data, when no sample came. */
static const char *
html_no_samples (const HtmlPage *page)
{
    return page->samples ? "no sample was received (a run file written without samples: true, "
                           "or no request completed)"
                         : "samples were not collected (samples: false)";
}

/* The coarse grid: grid point g adds up points first[g] to first[g + 1] - 1. */
typedef struct {
    HtmlTime time;          /* x0, x1, shade, n: the grid's; points: the run's */
    guint *first;
    gdouble *seconds;
} HtmlGrid;

static void
html_grid_init (HtmlGrid *grid, const HtmlTime *time)
{
    guint width = (time->n + HTML_DETAIL_POINTS - 1) / HTML_DETAIL_POINTS;
    guint n = width > 0 ? (time->n + width - 1) / width : 0;

    grid->time = *time;
    grid->time.n = n;
    grid->time.x0 = g_new0 (gdouble, MAX (n, 1u));
    grid->time.x1 = g_new0 (gdouble, MAX (n, 1u));
    grid->time.shade = g_new0 (gboolean, MAX (n, 1u));
    grid->first = g_new0 (guint, n + 1);
    grid->seconds = g_new0 (gdouble, MAX (n, 1u));
    for (guint g = 0; g < n; g++) {
        grid->first[g] = g * width;
        grid->first[g + 1] = MIN ((g + 1) * width, time->n);
        grid->time.x0[g] = time->x0[grid->first[g]];
        grid->time.x1[g] = time->x1[grid->first[g + 1] - 1];
        for (guint i = grid->first[g]; i < grid->first[g + 1]; i++) {
            const HtmlPoint *point = &time->points[i];
            grid->time.shade[g] |= time->shade[i];
            grid->seconds[g] += (gdouble) (point->end_us - point->start_us) / G_USEC_PER_SEC;
        }
    }
}

static void
html_grid_clear (HtmlGrid *grid)
{
    g_free (grid->time.x0);
    g_free (grid->time.x1);
    g_free (grid->time.shade);
    g_free (grid->first);
    g_free (grid->seconds);
}

static gdouble
html_grid_rate (const HtmlGrid *grid, guint g, gdouble count)
{
    return grid->seconds[g] > 0 ? count / grid->seconds[g] : NAN;
}

/* Series names and values for one chart, freed together. */
typedef struct {
    SvgSeries series[HTML_DETAIL_SERIES + 1];
    char *names[HTML_DETAIL_SERIES + 1];
    guint n;
    gdouble *values;
    gsize stride;
} HtmlLines;

static void
html_lines_init (HtmlLines *lines, guint n_points)
{
    memset (lines, 0, sizeof *lines);
    lines->stride = MAX (n_points, 1u);
    lines->values = g_new0 (gdouble, lines->stride * (HTML_DETAIL_SERIES + 1));
}

/* A new line named @name (taken) drawn in @style; fill the values it returns. */
static gdouble *
html_lines_add (HtmlLines *lines, char *name, guint style)
{
    gdouble *y = &lines->values[lines->n * lines->stride];

    lines->names[lines->n] = name;
    lines->series[lines->n] = (SvgSeries) { .name = name, .y = y, .style = style };
    lines->n++;
    return y;
}

static void
html_lines_draw (GString *out, HtmlLines *lines, const HtmlTime *time, const char *id,
                 const char *title, const char *axis, SvgScale scale, const char *empty)
{
    SvgAxis y = { .label = axis, .scale = scale };

    svg_axis_fit (&y, lines->values, lines->stride * lines->n);
    html_time_chart (out, time, id, title, SVG_MODE_LINES, y, lines->series, lines->n, empty);
    for (guint i = 0; i < lines->n; i++)
        g_free (lines->names[i]);
    g_free (lines->values);
}

/* --- codes and outcomes ------------------------------------------------------------ */

static char *
html_code_name (gint32 key)
{
    if (key > 0)
        return g_strdup_printf ("%d", key);
    if (key == 0)
        return g_strdup ("no status");
    return g_strdup (throng_error_class_name ((ThrongErrorClass) -key));
}

static gint
html_code_compare (gconstpointer a, gconstpointer b)
{
    const HtmlCode *x = a, *y = b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The run's codes, the most frequent first (ties by code). */
static GArray *
html_codes_sorted (const HtmlOutcomes *outcomes)
{
    GArray *codes = g_array_copy (outcomes->codes);

    g_array_sort (codes, html_code_compare);
    return codes;
}

static guint64
html_point_code (const HtmlPoint *point, gint32 key)
{
    for (guint c = 0; point->codes != NULL && c < point->codes->len; c++)
        if (g_array_index (point->codes, HtmlCode, c).key == key)
            return g_array_index (point->codes, HtmlCode, c).count;
    return 0;
}

static void
html_chart_codes (GString *out, const HtmlPage *page, const HtmlTime *time)
{
    g_autoptr (GArray) codes = html_codes_sorted (html_series_outcomes (page->series));
    gboolean samples = html_series_has_samples (page->series);
    HtmlGrid grid;
    HtmlLines lines;

    html_grid_init (&grid, time);
    html_lines_init (&lines, grid.time.n);
    /* The busiest codes, then the rest together. */
    guint shown = codes->len > HTML_DETAIL_SERIES ? HTML_DETAIL_SERIES - 1 : codes->len;
    for (guint c = 0; samples && c < codes->len && c <= shown; c++) {
        gboolean rest = c == shown;
        guint end = rest ? codes->len : c + 1;
        gdouble *y = html_lines_add (&lines,
                                     rest ? g_strdup ("other codes")
                                          : html_code_name (g_array_index (codes, HtmlCode, c).key),
                                     c);
        for (guint g = 0; g < grid.time.n; g++) {
            guint64 count = 0;
            for (guint i = grid.first[g]; i < grid.first[g + 1]; i++)
                for (guint k = c; k < end; k++)
                    count += html_point_code (&time->points[i],
                                              g_array_index (codes, HtmlCode, k).key);
            y[g] = html_grid_rate (&grid, g, (gdouble) count);
        }
    }
    html_lines_draw (out, &lines, &grid.time, "codes",
                     "Response codes per second (a failure without a status by its error class)",
                     "responses per second (/s)", SVG_SCALE_LINEAR,
                     samples ? "no request completed" : html_no_samples (page));
    html_grid_clear (&grid);
}

/* Successes' and failures' p50 and p99 per point, at the run's own grain. */
static void
html_chart_outcome_latency (GString *out, const HtmlPage *page, const HtmlTime *time)
{
    static const char *const names[] = { "succeeded p50", "succeeded p99", "failed p50",
                                         "failed p99" };
    gsize stride = MAX (time->n, 1u);
    g_autofree gdouble *values = g_new0 (gdouble, stride * 4);
    SvgSeries series[4];
    gboolean samples = html_series_has_samples (page->series);
    /* Failures without a line when none failed: a legend entry for nothing says nothing. */
    guint n_series = samples ? 4 : 0;
    gboolean any_failed = FALSE;

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        gint64 figures[] = { point->ok_p50_us, point->ok_p99_us, point->ko_p50_us,
                             point->ko_p99_us };
        for (guint k = 0; k < 4; k++)
            values[k * stride + i] = figures[k] >= 0 ? (gdouble) figures[k] / 1000.0 : NAN;
        any_failed |= point->ko_p50_us >= 0;
    }
    if (!any_failed && n_series > 0)
        n_series = 2;
    for (guint k = 0; k < 4; k++)
        series[k] = (SvgSeries) { .name = names[k], .y = &values[k * stride],
                                  .style = k < 2 ? 2 * k : 2 * k - 3 };
    const HtmlOutcomes *outcomes = html_series_outcomes (page->series);
    gint64 p50 = throng_histogram_count (outcomes->ok) > 0
                     ? throng_histogram_percentile (outcomes->ok, 50) : 0;
    gint64 max = MAX (throng_histogram_max (outcomes->ok), throng_histogram_max (outcomes->ko));
    gboolean log_scale = p50 > 0 && (gdouble) max / (gdouble) p50 > 50;
    SvgAxis y = {
        .scale = log_scale ? SVG_SCALE_LOG : SVG_SCALE_LINEAR,
        .label = log_scale ? "latency (ms, log scale)" : "latency (ms)",
    };
    svg_axis_fit (&y, values, stride * 4);
    html_time_chart (out, time, "outcome-latency",
                     "Latency of successes and of failures (p50, p99)", SVG_MODE_LINES, y,
                     series, n_series, samples ? "no request completed" : html_no_samples (page));
}

void
html_outcome_charts (GString *out, const HtmlPage *page, const HtmlTime *time)
{
    html_chart_outcome_latency (out, page, time);
    html_chart_codes (out, page, time);
}

/* --- per scenario and per step -------------------------------------------------------- */

/* Where scenario @s' unit is in a point's units (its steps follow it). */
static guint
html_unit_of (const ThrongSummary *summary, guint s)
{
    guint u = 0;

    for (guint k = 0; k < s; k++)
        u += 1 + summary->scenarios[k].n_steps;
    return u;
}

typedef enum {
    HTML_UNIT_RATE,
    HTML_UNIT_MEAN,
    HTML_UNIT_FAILURES,
} HtmlUnitFigure;

static void
html_unit_line (gdouble *y, const HtmlGrid *grid, guint unit, HtmlUnitFigure figure)
{
    for (guint g = 0; g < grid->time.n; g++) {
        guint64 requests = 0, errors = 0;
        gdouble sum = 0;
        for (guint i = grid->first[g]; i < grid->first[g + 1]; i++) {
            const HtmlUnit *u = &grid->time.points[i].units[unit];
            requests += u->requests;
            errors += u->errors;
            sum += u->latency_sum_us;
        }
        switch (figure) {
        case HTML_UNIT_RATE:
            y[g] = html_grid_rate (grid, g, (gdouble) requests);
            break;
        case HTML_UNIT_MEAN:
            y[g] = requests > 0 ? sum / (gdouble) requests / 1000.0 : NAN;
            break;
        case HTML_UNIT_FAILURES:
            y[g] = html_grid_rate (grid, g, (gdouble) errors);
            break;
        }
    }
}

typedef struct {
    guint unit;
    guint64 requests;
    guint64 errors;
    char *name;
} HtmlStepLine;

static gint
html_step_line_compare (gconstpointer a, gconstpointer b)
{
    const HtmlStepLine *x = a, *y = b;

    if (x->requests != y->requests)
        return x->requests > y->requests ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

static void
html_step_line_clear (gpointer data)
{
    g_free (((HtmlStepLine *) data)->name);
}

static void
html_by_scenario (GString *out, const ThrongSummary *summary, const HtmlGrid *grid)
{
    static const struct {
        HtmlUnitFigure figure;
        const char *id, *title, *axis;
    } charts[] = {
        { HTML_UNIT_RATE, "scenario-rps", "Requests per second by scenario",
          "requests per second (/s)" },
        { HTML_UNIT_MEAN, "scenario-latency", "Mean latency by scenario", "latency (ms)" },
    };
    HtmlLines lines;

    for (guint c = 0; c < G_N_ELEMENTS (charts); c++) {
        html_lines_init (&lines, grid->time.n);
        for (guint s = 0; s < summary->n_scenarios && s < HTML_DETAIL_SERIES; s++)
            html_unit_line (html_lines_add (&lines, g_strdup (summary->scenarios[s].name), s), grid,
                            html_unit_of (summary, s), charts[c].figure);
        html_lines_draw (out, &lines, &grid->time, charts[c].id, charts[c].title, charts[c].axis,
                         SVG_SCALE_LINEAR, "no interval was recorded");
    }
}

static void
html_by_step (GString *out, const ThrongSummary *summary, const HtmlGrid *grid)
{
    g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (HtmlStepLine));
    guint64 any_errors = 0;
    HtmlLines lines;

    g_array_set_clear_func (steps, html_step_line_clear);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        for (guint i = 0; i < scenario->n_steps; i++) {
            g_autofree char *step = throng_step_display_name (scenario, i);
            HtmlStepLine line = {
                .unit = html_unit_of (summary, s) + 1 + i,
                .requests = scenario->steps[i].stats.requests,
                .errors = scenario->steps[i].stats.errors,
                .name = summary->n_scenarios > 1
                            ? g_strdup_printf ("%s / %s", scenario->name, step)
                            : g_steal_pointer (&step),
            };
            any_errors += line.errors;
            g_array_append_val (steps, line);
        }
    }
    g_array_sort (steps, html_step_line_compare);
    guint shown = MIN (steps->len, HTML_DETAIL_SERIES);
    if (steps->len > shown)
        g_string_append_printf (out, "<p class=\"note\">The %u steps with the most requests of "
                                "%u; the summary table has every step.</p>\n", shown, steps->len);

    static const struct {
        HtmlUnitFigure figure;
        const char *id, *title, *axis;
    } charts[] = {
        { HTML_UNIT_RATE, "step-rps", "Requests per second by step (a group: its executions)",
          "requests per second (/s)" },
        { HTML_UNIT_MEAN, "step-latency", "Mean latency by step", "latency (ms)" },
        { HTML_UNIT_FAILURES, "step-failures", "Failures per second by step",
          "failures per second (/s)" },
    };
    for (guint c = 0; c < G_N_ELEMENTS (charts); c++) {
        if (charts[c].figure == HTML_UNIT_FAILURES && any_errors == 0)
            break;
        html_lines_init (&lines, grid->time.n);
        for (guint k = 0; k < shown; k++) {
            const HtmlStepLine *line = &g_array_index (steps, HtmlStepLine, k);
            if (charts[c].figure == HTML_UNIT_FAILURES && line->errors == 0)
                continue;
            /* A step keeps its style from chart to chart. */
            html_unit_line (html_lines_add (&lines, g_strdup (line->name), k), grid, line->unit,
                            charts[c].figure);
        }
        html_lines_draw (out, &lines, &grid->time, charts[c].id, charts[c].title, charts[c].axis,
                         SVG_SCALE_LINEAR, "no interval was recorded");
    }
}

/* --- the plan's metrics ------------------------------------------------------------------ */

static void
html_metric_line (gdouble *y, const HtmlGrid *grid, guint m, ThrongCustomMetricKind kind)
{
    for (guint g = 0; g < grid->time.n; g++) {
        guint64 count = 0, trues = 0;
        gdouble sum = 0, last = NAN;
        for (guint i = grid->first[g]; i < grid->first[g + 1]; i++) {
            const HtmlMetricPoint *point = &grid->time.points[i].metrics[m];
            count += point->count;
            trues += point->trues;
            sum += point->sum;
            if (point->count > 0)
                last = point->last;
        }
        switch (kind) {
        case THRONG_CUSTOM_COUNTER:
            y[g] = html_grid_rate (grid, g, sum);
            break;
        case THRONG_CUSTOM_GAUGE:
            y[g] = last;
            break;
        case THRONG_CUSTOM_RATE:
            y[g] = count > 0 ? 100.0 * (gdouble) trues / (gdouble) count : NAN;
            break;
        case THRONG_CUSTOM_TREND:
            y[g] = count > 0 ? sum / (gdouble) count : NAN;
            break;
        }
    }
}

static void
html_metric_charts (GString *out, const ThrongSummary *summary, const HtmlGrid *grid, guint n)
{
    static const struct {
        ThrongCustomMetricKind kind;
        const char *id, *title, *axis;
    } charts[] = {
        { THRONG_CUSTOM_COUNTER, "metric-counters", "Counters: their sum per second",
          "per second (/s)" },
        { THRONG_CUSTOM_GAUGE, "metric-gauges", "Gauges: the last value of each interval",
          "value" },
        { THRONG_CUSTOM_RATE, "metric-rates", "Rates: the share of true values", "true (%)" },
        { THRONG_CUSTOM_TREND, "metric-trends",
          "Trends: the mean of each interval (the table below has their percentiles)", "mean" },
    };
    HtmlLines lines;

    for (guint c = 0; c < G_N_ELEMENTS (charts); c++) {
        html_lines_init (&lines, grid->time.n);
        for (guint m = 0; m < n && lines.n < HTML_DETAIL_SERIES; m++)
            if (summary->metrics[m].kind == charts[c].kind)
                html_metric_line (html_lines_add (&lines, g_strdup (summary->metrics[m].name),
                                                  lines.n),
                                  grid, m, charts[c].kind);
        if (lines.n == 0) {
            g_free (lines.values);
            continue;
        }
        html_lines_draw (out, &lines, &grid->time, charts[c].id, charts[c].title, charts[c].axis,
                         SVG_SCALE_LINEAR, "no value was recorded");
    }
}

void
html_detail_charts (GString *out, const HtmlPage *page, const HtmlTime *time)
{
    const ThrongSummary *summary = page->summary;
    guint steps = 0;
    HtmlGrid grid;

    for (guint s = 0; s < summary->n_scenarios; s++)
        steps += summary->scenarios[s].n_steps;
    /* The points' units have the summary's shape (a file could disagree: then no charts). */
    gboolean units = time->n > 0
                     && html_series_n_units (page->series) == html_unit_of (summary,
                                                                            summary->n_scenarios);
    guint n_metrics = THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) && time->n > 0
                          ? MIN (summary->n_metrics, html_series_n_metrics (page->series)) : 0;

    html_grid_init (&grid, time);
    if (units && (summary->n_scenarios > 1 || steps > 1)) {
        g_string_append (out, "<h3 id=\"by-step\">By scenario and step</h3>\n");
        if (grid.time.n < time->n)
            g_string_append_printf (out, "<p class=\"note\">One point per %u points of the charts "
                                    "above: these charts have a line each.</p>\n",
                                    grid.first[1]);
        if (summary->n_scenarios > 1)
            html_by_scenario (out, summary, &grid);
        if (steps > 1)
            html_by_step (out, summary, &grid);
    }
    if (n_metrics > 0) {
        g_string_append (out, "<h3 id=\"metrics-over-time\">Metrics of the plan</h3>\n");
        html_metric_charts (out, summary, &grid, n_metrics);
    }
    html_grid_clear (&grid);
}

/* --- the run's outcomes as tables ----------------------------------------------------------- */

static void
html_outcome_row (GString *out, const char *name, const ThrongHistogram *latency)
{
    static const gdouble percentiles[] = { 50, 90, 95, 99, 100 };
    guint64 count = throng_histogram_count (latency);

    g_string_append_printf (out, "<tr class=\"step\"><td class=\"name\">%s</td><td>%"
                            G_GUINT64_FORMAT "</td>", name, count);
    for (guint i = 0; i < G_N_ELEMENTS (percentiles); i++) {
        g_string_append (out, "<td>");
        if (count > 0) {
            gint64 us = throng_histogram_percentile (latency, percentiles[i]);
            svg_append_number (out, (gdouble) us / 1000.0, us >= 100000 ? 0 : us >= 1000 ? 1 : 3);
        } else {
            g_string_append (out, "—");
        }
        g_string_append (out, "</td>");
    }
    g_string_append (out, "</tr>\n");
}

void
html_outcomes_append (GString *out, const HtmlPage *page)
{
    const HtmlOutcomes *outcomes = html_series_outcomes (page->series);

    g_string_append (out, "<section id=\"outcomes\">\n<h2>Successes, failures and response "
                          "codes</h2>\n");
    if (!html_series_has_samples (page->series)) {
        g_string_append_printf (out, "<p class=\"empty\">No data: %s.</p>\n</section>\n",
                                html_no_samples (page));
        return;
    }
    /* Gatling's OK and KO: a failure's latency (a timeout, a refused connection) says little
     * of the service's, and mixed in it moves the percentiles. */
    g_string_append (out, "<table class=\"summary outcomes\">\n<thead><tr><th>requests</th>"
                          "<th>count</th><th>p50 ms</th><th>p90 ms</th><th>p95 ms</th>"
                          "<th>p99 ms</th><th>max ms</th></tr></thead>\n<tbody>\n");
    html_outcome_row (out, "succeeded", outcomes->ok);
    html_outcome_row (out, "failed", outcomes->ko);
    g_string_append (out, "</tbody>\n</table>\n");

    g_autoptr (GArray) codes = html_codes_sorted (outcomes);
    guint64 total = 0;
    for (guint c = 0; c < codes->len; c++)
        total += g_array_index (codes, HtmlCode, c).count;
    g_string_append (out, "<table class=\"summary codes\">\n<thead><tr><th>code</th>"
                          "<th>responses</th><th>share</th></tr></thead>\n<tbody>\n");
    for (guint c = 0; c < codes->len; c++) {
        const HtmlCode *code = &g_array_index (codes, HtmlCode, c);
        g_autofree char *name = html_code_name (code->key);
        g_string_append_printf (out, "<tr class=\"step%s\"><td class=\"name\">%s</td><td>%"
                                G_GUINT64_FORMAT "</td><td>", code->key >= 400 || code->key < 0
                                ? " failed" : "", name, code->count);
        svg_append_number (out, 100.0 * (gdouble) code->count / (gdouble) MAX (total, 1u), 2);
        g_string_append (out, "%</td></tr>\n");
    }
    g_string_append (out, "</tbody>\n</table>\n");
    if (page->summary->samples_dropped > 0)
        g_string_append_printf (out, "<p class=\"note\">%" G_GUINT64_FORMAT " samples were not "
                                "recorded (the reporters fell behind): these tables and the codes "
                                "and outcomes charts miss them.</p>\n",
                                page->summary->samples_dropped);
    g_string_append (out, "</section>\n");
}
