/* SPDX-License-Identifier: MIT */
/*
 * The html report's document: header, verdict, summary table, charts over
 * time, latency distribution and errors, in that order, with the inline
 * CSS and script of assets.c.  Every figure comes from the summary and
 * the interval series; charts are drawn by svg.c, those per scenario,
 * step, code and metric put together by detail.c.
 */
#include "page.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "svg.h"

/* --- small formatting helpers ---------------------------------------------- */

static void
html_text (GString *out, const char *text)
{
    svg_append_escaped (out, text);
}

static void
html_ms (GString *out, gint64 us)
{
    svg_append_number (out, (gdouble) us / 1000.0, us >= 100000 ? 0 : us >= 1000 ? 1 : 3);
}

static void
html_time (GString *out, gint64 wall_us)
{
    time_t seconds = (time_t) (wall_us / G_USEC_PER_SEC);
    struct tm tm;
    char text[64];

    if (gmtime_r (&seconds, &tm) == NULL) {
        g_string_append (out, "?");
        return;
    }
    strftime (text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
    g_string_append (out, text);
}

static gdouble
html_seconds (gint64 us)
{
    return (gdouble) us / G_USEC_PER_SEC;
}

/* Rounded to the millisecond, as a json file would give it back. */
static gint64
html_ms_floor (gint64 wall_us)
{
    return wall_us - ((wall_us % 1000) + 1000) % 1000;
}

/* "status 12, timeout 3", or "—". */
static void
html_errors_by_class (GString *out, const ThrongStats *stats)
{
    guint64 counts[THRONG_ERROR_CLASS_SLOTS] = { 0 };
    gboolean any = FALSE;

    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
        counts[html_error_slot (c)] += stats->errors_by_class[c];
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        if (counts[c] == 0)
            continue;
        g_string_append_printf (out, "%s%s %" G_GUINT64_FORMAT, any ? ", " : "",
                                throng_error_class_name ((ThrongErrorClass) c), counts[c]);
        any = TRUE;
    }
    if (!any)
        g_string_append (out, "—");
}

/* --- header, verdict, tables ---------------------------------------------------- */

/* `setup:` or `teardown:` (NULL: none ran): a line of the header, outside every figure below. */
static void
html_phase (GString *out, const char *title, const char *when, const ThrongScenarioSummary *phase)
{
    if (phase == NULL)
        return;
    g_string_append_printf (out,
                            "<dt>%s</dt><dd>%" G_GUINT64_FORMAT " request%s, %" G_GUINT64_FORMAT
                            " failed, once %s the load (not in the figures below)</dd>\n",
                            title, phase->stats.requests, phase->stats.requests == 1 ? "" : "s",
                            phase->stats.errors, when);
}

static void
html_header (GString *out, const HtmlPage *page)
{
    const ThrongSummary *summary = page->summary;

    g_string_append (out, "<header>\n<h1>");
    html_text (out, page->title);
    g_string_append (out, "</h1>\n<dl class=\"run\">\n<dt>Plan</dt><dd>");
    html_text (out, summary->plan_name);
    g_string_append (out, " (<code>");
    html_text (out, summary->plan_file);
    g_string_append (out, "</code>)</dd>\n<dt>Plan SHA-256</dt><dd><code>");
    html_text (out, page->plan_sha256 != NULL ? page->plan_sha256 : "unknown");
    g_string_append (out, "</code></dd>\n<dt>throng</dt><dd>" THRONG_VERSION_STRING "</dd>\n"
                          "<dt>Start</dt><dd>");
    html_time (out, html_ms_floor (summary->start_wall_us));
    g_string_append (out, "</dd>\n<dt>End</dt><dd>");
    html_time (out, html_ms_floor (summary->end_wall_us));
    g_string_append (out, "</dd>\n<dt>Duration</dt><dd>");
    svg_append_number (out, html_seconds (summary->elapsed_us), 1);
    g_string_append_printf (out, " s%s</dd>\n<dt>Workers</dt><dd>%u</dd>\n<dt>Target</dt><dd>",
                            summary->interrupted ? " (interrupted)" : "", summary->workers);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        if (s > 0)
            g_string_append (out, "; ");
        g_string_append (out, "scenario <b>");
        html_text (out, scenario->name);
        g_string_append (out, "</b>");
        if (page->targets != NULL && page->targets[s] != NULL) {
            g_string_append (out, " on <code class=\"target\">");
            html_text (out, page->targets[s]);
            g_string_append (out, "</code>");
        }
        g_string_append_printf (out, ", %u users, %u step%s (", scenario->users,
                                scenario->n_steps, scenario->n_steps == 1 ? "" : "s");
        for (guint i = 0; i < scenario->n_steps; i++) {
            if (i > 0)
                g_string_append (out, ", ");
            html_text (out, scenario->steps[i].protocol);
        }
        g_string_append (out, ")");
    }
    g_string_append (out, "</dd>\n");
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, teardown)) {
        html_phase (out, "Setup", "before", summary->setup);
        html_phase (out, "Teardown", "after", summary->teardown);
    }
    g_string_append (out, "</dl>\n");
    g_string_append (out, HTML_PAGE_GENERATED_PREFIX "Generated ");
    g_string_append (out, page->generated);
    g_string_append (out, "</p>\n</header>\n");
}

static gboolean
html_any_saturated (const HtmlPoint *points, guint n)
{
    for (guint i = 0; i < n; i++)
        if (points[i].saturated)
            return TRUE;
    return FALSE;
}

static void
html_verdict (GString *out, const HtmlPage *page, const HtmlPoint *points, guint n)
{
    const ThrongSummary *summary = page->summary;
    guint failed = 0;

    g_string_append (out, "<section id=\"verdict\">\n<h2>Verdict</h2>\n");
    if (summary->saturated || html_any_saturated (points, n))
        g_string_append (out, "<p class=\"banner\" id=\"saturation\"><b>The load generator "
                              "saturated.</b> In the shaded intervals throng itself was the "
                              "bottleneck (CPU or schedule lag past its limits): latencies there "
                              "include throng's own queueing.</p>\n");
    if (summary->n_thresholds == 0 || summary->thresholds == NULL) {
        g_string_append (out, "<p>No thresholds in the plan.</p>\n");
    } else {
        g_string_append (out, "<table class=\"thresholds\">\n<thead><tr><th>threshold</th>"
                              "<th>observed</th><th>result</th></tr></thead>\n<tbody>\n");
        for (guint i = 0; i < summary->n_thresholds; i++) {
            const ThrongThresholdResult *result = &summary->thresholds[i];
            failed += result->passed ? 0 : 1;
            g_string_append (out, "<tr><td class=\"name\"><code>");
            html_text (out, result->expression);
            g_string_append (out, "</code></td><td>");
            html_text (out, result->actual);
            g_string_append (out, result->passed ? "</td><td class=\"pass\">pass</td></tr>\n"
                                                 : "</td><td class=\"fail\">FAIL</td></tr>\n");
        }
        g_string_append (out, "</tbody>\n</table>\n");
    }
    g_string_append (out, "<p>Exit status: ");
    if (failed > 0)
        g_string_append_printf (out, "<b class=\"fail\">99</b> (%u threshold%s failed)", failed,
                                failed == 1 ? "" : "s");
    else if (summary->interrupted)
        g_string_append (out, "<b>130</b> if stopped by a signal (the run was interrupted "
                              "before its planned end)");
    else
        g_string_append (out, "<b class=\"pass\">0</b> (completed)");
    g_string_append (out, "</p>\n");
    for (const char *const *w = summary->warnings; w != NULL && *w != NULL; w++) {
        g_string_append (out, "<p class=\"note warning\">⚠ ");
        html_text (out, *w);
        g_string_append (out, "</p>\n");
    }
    g_string_append (out, "</section>\n");
}

static void
html_stats_row (GString *out, const char *css, const char *name, const ThrongStats *stats,
                gdouble seconds)
{
    static const gdouble percentiles[] = { 50, 90, 95, 99 };
    gboolean any = stats->latency != NULL && throng_histogram_count (stats->latency) > 0;

    g_string_append_printf (out, "<tr class=\"%s\"><td class=\"name\">", css);
    html_text (out, name);
    g_string_append_printf (out, "</td><td>%" G_GUINT64_FORMAT "</td><td>", stats->requests);
    svg_append_number (out, seconds > 0 ? (gdouble) stats->requests / seconds : 0, 1);
    g_string_append_printf (out, "</td><td>%" G_GUINT64_FORMAT "</td><td>", stats->errors);
    html_errors_by_class (out, stats);
    g_string_append (out, "</td>");
    for (guint i = 0; i < G_N_ELEMENTS (percentiles); i++) {
        g_string_append (out, "<td>");
        if (any)
            html_ms (out, throng_histogram_percentile (stats->latency, percentiles[i]));
        else
            g_string_append (out, "—");
        g_string_append (out, "</td>");
    }
    g_string_append (out, "<td>");
    if (any)
        html_ms (out, throng_histogram_max (stats->latency));
    else
        g_string_append (out, "—");
    g_string_append (out, "</td></tr>\n");
}

/* The time rates are over: the load's, without a graceful stop's wait, as the console's. */
static gdouble
html_load_seconds (const ThrongSummary *summary)
{
    if (summary->size >= G_STRUCT_OFFSET (ThrongSummary, load_us) + sizeof (summary->load_us)
        && summary->load_us > 0)
        return html_seconds (summary->load_us);
    return html_seconds (summary->elapsed_us);
}

static void
html_summary_table (GString *out, const ThrongSummary *summary)
{
    gdouble seconds = html_load_seconds (summary);

    g_string_append (out, "<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\">\n"
                          "<thead><tr><th>scenario / step</th><th>requests</th><th>req/s</th>"
                          "<th>errors</th><th>errors by class</th><th>p50 ms</th><th>p90 ms</th>"
                          "<th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr></thead>\n<tbody>\n");
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        html_stats_row (out, "scenario", scenario->name, &scenario->stats, seconds);
        for (guint i = 0; i < scenario->n_steps; i++) {
            /* A group is a transaction; a step inside one is indented under it. */
            gboolean group = throng_step_kind_is_transaction (throng_journey_step_kind (scenario, i));
            guint depth = MIN (throng_journey_step_depth (scenario, i), 4);
            g_autofree char *css
                = group || depth > 0
                      ? g_strdup_printf ("step%s depth%u", group ? " group" : "", depth)
                      : g_strdup ("step");
            g_autofree char *name = throng_step_display_name (scenario, i);
            html_stats_row (out, css, name, &scenario->steps[i].stats, seconds);
        }
    }
    html_stats_row (out, "total", "total", &summary->total, seconds);
    g_string_append (out, "</tbody>\n</table>\n");
    /* Not errors, but the server saw these requests twice. */
    if (summary->total.retries > 0)
        g_string_append_printf (out, "<p class=\"note\">%" G_GUINT64_FORMAT " request(s) were sent "
                                "again on a new connection after a kept-alive one closed before "
                                "answering (retries); each counts once in <i>requests</i>.</p>\n",
                                summary->total.retries);
    if (throng_stats_get_not_sent (&summary->total) > 0)
        g_string_append_printf (out, "<p class=\"note\">%" G_GUINT64_FORMAT " step(s) were not "
                                "sent, a variable they needed being unset: errors of class "
                                "<i>variable</i>, not <i>requests</i>.</p>\n",
                                throng_stats_get_not_sent (&summary->total));
    if (throng_summary_get_retry_attempts (summary) > 0)
        g_string_append_printf (out, "<p class=\"note\">%" G_GUINT64_FORMAT " request(s) were "
                                "a step's <i>retry</i> after a failure, each counted in "
                                "<i>requests</i>.</p>\n",
                                throng_summary_get_retry_attempts (summary));
    g_string_append (out, "</section>\n");
}

/* The first messages of one step's failures of one class, or "—". */
static void
html_first_messages (GString *out, GHashTable *messages, gint64 key)
{
    GPtrArray *kept = g_hash_table_lookup (messages, &key);

    g_string_append (out, "<td class=\"name\">");
    if (kept == NULL || kept->len == 0)
        g_string_append (out, "—");
    for (guint m = 0; kept != NULL && m < kept->len; m++) {
        if (m > 0)
            g_string_append (out, "<br>");
        html_text (out, g_ptr_array_index (kept, m));
    }
    g_string_append (out, "</td>");
}

static void
html_errors_table (GString *out, const ThrongSummary *summary, GHashTable *messages)
{
    g_string_append (out, "<section id=\"errors\">\n<h2>Errors</h2>\n");
    if (summary->total.errors == 0) {
        g_string_append (out, "<p>No step failed.</p>\n</section>\n");
        return;
    }
    g_string_append (out, "<table class=\"errors\">\n<thead><tr><th>scenario</th><th>step</th>"
                          "<th>class</th><th>count</th><th>share of the step's requests</th>");
    if (messages != NULL)
        g_string_append (out, "<th>first messages</th>");
    g_string_append (out, "</tr></thead>\n<tbody>\n");
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        for (guint i = 0; i < scenario->n_steps; i++) {
            const ThrongStats *stats = &scenario->steps[i].stats;
            guint64 counts[THRONG_ERROR_CLASS_SLOTS] = { 0 };
            for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
                counts[html_error_slot (c)] += stats->errors_by_class[c];
            for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
                if (counts[c] == 0)
                    continue;
                g_string_append (out, "<tr><td class=\"name\">");
                html_text (out, scenario->name);
                g_string_append (out, "</td><td class=\"name\">");
                g_autofree char *name = throng_step_display_name (scenario, i);
                html_text (out, name);
                g_string_append_printf (out, "</td><td class=\"name\">%s</td><td>%"
                                        G_GUINT64_FORMAT "</td><td>",
                                        throng_error_class_name ((ThrongErrorClass) c), counts[c]);
                svg_append_number (out, 100.0 * (gdouble) counts[c]
                                            / (gdouble) MAX (stats->requests, 1u), 2);
                g_string_append (out, "%</td>");
                if (messages != NULL)
                    html_first_messages (out, messages, html_message_key (s, i, c));
                g_string_append (out, "</tr>\n");
            }
        }
    }
    g_string_append (out, "</tbody>\n</table>\n");
    if (messages == NULL)
        g_string_append (out, "<p class=\"note\">Messages were not kept (<code>messages: "
                              "false</code>).</p>\n");
    g_string_append (out, "</section>\n");
}

/* --- charts over time ------------------------------------------------------------ */

void
html_time_chart (GString *out, const HtmlTime *time, const char *id, const char *title,
                 SvgMode mode, SvgAxis y, const SvgSeries *series, guint n_series,
                 const char *empty)
{
    SvgChart chart = {
        .id = id,
        .title = title,
        .mode = mode,
        .x = { .min = 0, .max = time->end_s, .label = "elapsed time (s)", .unit = NULL },
        .y = y,
        .n = time->n,
        .x0 = time->x0,
        .x1 = time->x1,
        .series = series,
        .n_series = n_series,
        .shade = time->shade,
        .wall_zero_us = time->wall_zero_us,
        .empty = empty,
        .zoom = TRUE,
    };
    svg_chart_append (out, &chart);
}

gdouble
html_rate (const HtmlPoint *point, guint64 count)
{
    gdouble seconds = html_seconds (point->end_us - point->start_us);
    return seconds > 0 ? (gdouble) count / seconds : NAN;
}

/*
 * Lines, not stacked areas: a band stacked on the successes has its top
 * edge on the total, so a thin one (one timeout a second under 12,000
 * successes) would draw its colour along 12,000.  Each line here is at its
 * own value.  Steps not sent are not requests, so they have no line.
 */
void
html_chart_throughput (GString *out, const HtmlTime *time)
{
    SvgSeries series[THRONG_ERROR_CLASS_SLOTS + 1];
    gsize stride = MAX (time->n, 1u);
    g_autofree gdouble *values = g_new0 (gdouble, stride * (THRONG_ERROR_CLASS_SLOTS + 1));
    gdouble *all = values, *succeeded = &values[stride];
    guint n_series = 2;

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        guint64 errors = 0;
        for (guint e = 0; e < THRONG_ERROR_CLASS_SLOTS; e++)
            errors += e != THRONG_ERROR_VARIABLE ? point->errors[e] : 0;
        all[i] = html_rate (point, point->requests);
        succeeded[i] = html_rate (point, point->requests - MIN (errors, point->requests));
    }
    series[0] = (SvgSeries) { .name = "all requests/s", .y = all, .style = 0 };
    series[1] = (SvgSeries) { .name = "succeeded/s", .y = succeeded, .style = 2 };
    /* Then one line per error class that occurred: red dashed, then the styles after green. */
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        gboolean any = FALSE;
        if (c == THRONG_ERROR_VARIABLE)
            continue;
        for (guint i = 0; i < time->n && !any; i++)
            any = time->points[i].errors[c] > 0;
        if (!any)
            continue;
        gdouble *y = &values[n_series * stride];
        for (guint i = 0; i < time->n; i++)
            y[i] = html_rate (&time->points[i], time->points[i].errors[c]);
        series[n_series] = (SvgSeries) {
            .name = throng_error_class_name ((ThrongErrorClass) c),
            .y = y,
            .style = n_series == 2 ? 1 : n_series + 1,
        };
        n_series++;
    }
    SvgAxis y = { .label = "requests per second (/s)", .unit = NULL };
    svg_axis_fit (&y, values, stride * n_series);
    html_time_chart (out, time, "throughput",
                     "Requests per second: all, succeeded, and failed by class",
                     SVG_MODE_LINES, y, series, n_series, "no interval was recorded");
}

static void
html_chart_latency (GString *out, const HtmlTime *time, const ThrongSummary *summary)
{
    g_autofree gdouble *values = g_new0 (gdouble, (gsize) MAX (time->n, 1u) * 4);
    static const char *const names[] = { "p50", "p90", "p99", "max" };
    SvgSeries series[4];

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        gint64 figures[] = { point->p50_us, point->p90_us, point->p99_us, point->max_us };
        for (guint k = 0; k < 4; k++)
            values[(gsize) k * time->n + i] = figures[k] >= 0 ? (gdouble) figures[k] / 1000.0 : NAN;
    }
    for (guint k = 0; k < 4; k++)
        series[k] = (SvgSeries) { .name = names[k], .y = &values[(gsize) k * time->n], .style = k };

    /* A log scale once the tail dwarfs the median, else the median is a flat line at 0. */
    const ThrongHistogram *latency = summary->total.latency;
    gint64 p50 = latency != NULL ? throng_histogram_percentile (latency, 50) : 0;
    gint64 max = latency != NULL ? throng_histogram_max (latency) : 0;
    gboolean log_scale = p50 > 0 && (gdouble) max / (gdouble) p50 > 50;
    SvgAxis y = {
        .scale = log_scale ? SVG_SCALE_LOG : SVG_SCALE_LINEAR,
        .label = log_scale ? "latency (ms, log scale)" : "latency (ms)",
    };
    svg_axis_fit (&y, values, (gsize) time->n * 4);
    html_time_chart (out, time, "latency", "Latency over time", SVG_MODE_LINES, y, series, 4,
                     "no step completed");
}

/*
 * Active users, and what the closed-model schedule wanted (ramp-up,
 * stages) as a dashed target line.  The target is drawn only when the
 * figures carry it and it ever wanted a user: an open-model run has none.
 */
static void
html_chart_users (GString *out, const HtmlTime *time)
{
    g_autofree gdouble *values = g_new0 (gdouble, (gsize) MAX (time->n, 1u) * 2);
    gdouble *users = values;
    gdouble *scheduled = &values[time->n];
    gboolean any_scheduled = FALSE;

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        users[i] = point->active_users;
        scheduled[i] = point->has_scheduled ? (gdouble) point->scheduled_users : NAN;
        any_scheduled |= point->has_scheduled && point->scheduled_users > 0;
    }
    SvgSeries series[] = {
        { .name = "active users", .y = users, .style = 0 },
        { .name = "scheduled users", .y = scheduled, .style = 1, .target = TRUE },
    };
    guint n_series = any_scheduled ? 2 : 1;
    SvgAxis y = { .label = "users" };
    svg_axis_fit (&y, values, (gsize) time->n * n_series);
    html_time_chart (out, time, "users", "Active users", SVG_MODE_LINES, y, series, n_series,
                     "no interval was recorded");
}

/*
 * Open-model runs: iterations per second against the arrival rate the
 * schedule wanted (dashed), and the iterations dropped for want of a free
 * user.  Drawn only when some interval had an arrival rate due.
 */
static void
html_chart_arrivals (GString *out, const HtmlTime *time)
{
    gboolean any_rate = FALSE, any_dropped = FALSE;

    for (guint i = 0; i < time->n; i++) {
        any_rate |= time->points[i].has_scheduled && time->points[i].scheduled_rate > 0;
        any_dropped |= time->points[i].dropped > 0;
    }
    if (!any_rate)
        return;
    g_autofree gdouble *values = g_new0 (gdouble, (gsize) MAX (time->n, 1u) * 3);
    gdouble *scheduled = values;
    gdouble *completed = &values[time->n];
    gdouble *dropped = &values[2 * (gsize) time->n];
    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        scheduled[i] = point->has_scheduled ? point->scheduled_rate : NAN;
        completed[i] = html_rate (point, point->iterations);
        dropped[i] = html_rate (point, point->dropped);
    }
    SvgSeries series[] = {
        { .name = "scheduled arrivals/s", .y = scheduled, .style = 1, .target = TRUE },
        { .name = "iterations completed/s", .y = completed, .style = 0 },
        { .name = "iterations dropped/s", .y = dropped, .style = 2 },
    };
    guint n_series = any_dropped ? 3 : 2;
    SvgAxis y = { .label = "iterations per second (/s)" };
    svg_axis_fit (&y, values, (gsize) time->n * n_series);
    html_time_chart (out, time, "arrivals", "Arrival rate (arrival-rate scenarios)",
                     SVG_MODE_LINES, y, series, n_series, "no interval was recorded");
}

static void
html_chart_connections (GString *out, const HtmlTime *time)
{
    g_autofree gdouble *values = g_new0 (gdouble, (gsize) MAX (time->n, 1u) * 3);

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        values[i] = html_rate (point, point->connections);
        values[time->n + i] = html_rate (point, point->handshakes_full);
        values[2 * (gsize) time->n + i] = html_rate (point, point->handshakes_resumed);
    }
    SvgSeries series[] = {
        { .name = "connections opened/s", .y = values, .style = 0 },
        { .name = "full TLS handshakes/s", .y = &values[time->n], .style = 1 },
        { .name = "resumed TLS handshakes/s", .y = &values[2 * (gsize) time->n], .style = 2 },
    };
    SvgAxis y = { .label = "per second (/s)" };
    svg_axis_fit (&y, values, (gsize) time->n * 3);
    html_time_chart (out, time, "connections", "Connections and TLS handshakes",
                     SVG_MODE_LINES, y, series, 3, "no interval was recorded");
}

static void
html_chart_self (GString *out, const HtmlTime *time)
{
    g_autofree gdouble *cpu = g_new0 (gdouble, MAX (time->n, 1u));
    g_autofree gdouble *lag = g_new0 (gdouble, MAX (time->n, 1u));

    for (guint i = 0; i < time->n; i++) {
        const HtmlPoint *point = &time->points[i];
        gint64 length = point->end_us - point->start_us;
        cpu[i] = length > 0 ? 100.0 * point->cpu_share_us / (gdouble) length : NAN;
        lag[i] = (gdouble) point->lag_p99_us / 1000.0;
    }
    SvgSeries cpu_series[] = { { .name = "throng CPU (% of its cores)", .y = cpu, .style = 3 } };
    SvgAxis cpu_axis = { .label = "CPU (%)", .unit = "%" };
    svg_axis_fit (&cpu_axis, cpu, time->n);
    cpu_axis.max = MAX (cpu_axis.max, 100);
    html_time_chart (out, time, "cpu", "throng's own CPU share", SVG_MODE_LINES, cpu_axis,
                     cpu_series, 1, "no interval was recorded");

    SvgSeries lag_series[] = { { .name = "schedule lag p99 (ms)", .y = lag, .style = 4 } };
    SvgAxis lag_axis = { .label = "lag (ms)" };
    svg_axis_fit (&lag_axis, lag, time->n);
    html_time_chart (out, time, "lag", "throng's schedule lag", SVG_MODE_LINES, lag_axis,
                     lag_series, 1, "no interval was recorded");
}

static void
html_charts_over_time (GString *out, const HtmlPage *page, const HtmlPoint *points, guint n)
{
    HtmlTime time = {
        .points = points,
        .n = n,
        .x0 = g_new0 (gdouble, MAX (n, 1u)),
        .x1 = g_new0 (gdouble, MAX (n, 1u)),
        .shade = g_new0 (gboolean, MAX (n, 1u)),
        .wall_zero_us = html_ms_floor (page->summary->start_wall_us),
    };
    for (guint i = 0; i < n; i++) {
        time.x0[i] = html_seconds (points[i].start_us);
        time.x1[i] = html_seconds (points[i].end_us);
        time.shade[i] = points[i].saturated;
    }
    time.end_s = n > 0 ? time.x1[n - 1] : html_seconds (page->summary->elapsed_us);
    if (time.end_s <= 0)
        time.end_s = 1;

    g_string_append (out, "<section id=\"over-time\">\n<h2>Over time</h2>\n"
                          "<p class=\"note\">Drag across a chart to zoom every chart over time to "
                          "that stretch; double-click to see the whole run again.</p>\n"
                          "<button type=\"button\" id=\"unzoom\" hidden>Show the whole run"
                          "</button>\n");
    guint width = html_series_width (page->series);
    if (width > 1)
        g_string_append_printf (out, "<p class=\"note\" id=\"merged\">This run had %u intervals; "
                                "to keep the page small each point merges %u neighbouring "
                                "intervals (at most %u points per series).</p>\n",
                                html_series_intervals (page->series), width, SVG_MAX_POINTS);
    if (html_any_saturated (points, n))
        g_string_append (out, "<p class=\"note\">Shaded bands mark intervals in which throng "
                              "was saturated.</p>\n");
    html_chart_throughput (out, &time);
    html_chart_latency (out, &time, page->summary);
    html_outcome_charts (out, page, &time);
    html_chart_users (out, &time);
    html_chart_arrivals (out, &time);
    html_chart_connections (out, &time);
    html_chart_self (out, &time);
    html_detail_charts (out, page, &time);
    g_string_append (out, "</section>\n");
    g_free (time.x0);
    g_free (time.x1);
    g_free (time.shade);
}

/* --- latency distribution -------------------------------------------------------- */

/* The share of @histogram's values at or below @value, by bisecting its percentiles. */
static gdouble
html_rank (const ThrongHistogram *histogram, gint64 value)
{
    gdouble lo = 0, hi = 100;

    if (throng_histogram_percentile (histogram, 100) <= value)
        return 1.0;
    if (throng_histogram_percentile (histogram, 0) > value)
        return 0.0;
    for (guint i = 0; i < 40; i++) {
        gdouble mid = (lo + hi) / 2;
        if (throng_histogram_percentile (histogram, mid) <= value)
            lo = mid;
        else
            hi = mid;
    }
    return lo / 100.0;
}

#define HTML_BINS 40

static void
html_distribution (GString *out, const ThrongSummary *summary)
{
    const ThrongHistogram *latency = summary->total.latency;
    guint64 count = latency != NULL ? throng_histogram_count (latency) : 0;

    g_string_append (out, "<section id=\"distribution\">\n<h2>Latency distribution</h2>\n");

    /* Bars on log-spaced bins between powers of ten around min and max. */
    gdouble x0[HTML_BINS], x1[HTML_BINS], bars[HTML_BINS];
    SvgAxis x = { .scale = SVG_SCALE_LOG, .label = "latency (ms, log scale)" };
    gdouble range[2] = { count > 0 ? MAX (throng_histogram_min (latency), 1) / 1000.0 : NAN,
                         count > 0 ? MAX (throng_histogram_max (latency), 1) / 1000.0 : NAN };
    svg_axis_fit (&x, range, 2);
    gdouble step = (log10 (x.max) - log10 (x.min)) / HTML_BINS;
    gdouble below = 0;
    for (guint i = 0; i < HTML_BINS && count > 0; i++) {
        x0[i] = pow (10.0, log10 (x.min) + step * i);
        x1[i] = pow (10.0, log10 (x.min) + step * (i + 1));
        gdouble rank = html_rank (latency, (gint64) floor (x1[i] * 1000.0));
        bars[i] = (rank - below) * (gdouble) count;
        below = rank;
    }
    SvgSeries bar_series[] = { { .name = "requests per bin", .y = bars, .style = 0 } };
    SvgAxis bar_y = { .label = "requests" };
    svg_axis_fit (&bar_y, bars, count > 0 ? HTML_BINS : 0);
    SvgChart histogram = {
        .id = "histogram", .title = "Latency histogram", .mode = SVG_MODE_BARS,
        .x = x, .y = bar_y, .n = count > 0 ? HTML_BINS : 0, .x0 = x0, .x1 = x1,
        .series = bar_series, .n_series = 1, .empty = "no step completed",
    };
    svg_chart_append (out, &histogram);

    /* Percentiles up to the last one the count can support, on the nines scale. */
    static const gdouble steps[] = { 0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92, 94, 95,
                                     96, 97, 98, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999 };
    gdouble px[G_N_ELEMENTS (steps)], py[G_N_ELEMENTS (steps)];
    guint n = 0;
    gdouble supported = count > 0 ? 100.0 * (1.0 - 1.0 / (gdouble) count) : 0;
    for (guint i = 0; i < G_N_ELEMENTS (steps) && count > 0; i++) {
        if (steps[i] > supported && i > 0)
            break;
        px[n] = steps[i];
        py[n++] = (gdouble) throng_histogram_percentile (latency, steps[i]) / 1000.0;
    }
    SvgSeries curve_series[] = { { .name = "latency at percentile", .y = py, .style = 1 } };
    SvgAxis curve_y = { .scale = SVG_SCALE_LOG, .label = "latency (ms, log scale)" };
    svg_axis_fit (&curve_y, py, n);
    SvgChart curve = {
        .id = "percentiles", .title = "Latency by percentile", .mode = SVG_MODE_LINES,
        .x = { .min = 0, .max = n > 0 ? MAX (px[n - 1], 90) : 90, .scale = SVG_SCALE_NINES,
               .label = "percentile", .unit = NULL },
        .y = curve_y, .n = n, .x0 = px, .x1 = px, .series = curve_series, .n_series = 1,
        .empty = "no step completed",
    };
    svg_chart_append (out, &curve);
    g_string_append (out, "</section>\n");
}

void
html_page_append (GString *out, const HtmlPage *page)
{
    guint n = 0;
    const HtmlPoint *points = html_series_points (page->series, &n);

    g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                          "<meta name=\"generator\" content=\"throng " THRONG_VERSION_STRING "\">\n"
                          "<title>");
    html_text (out, page->title);
    g_string_append (out, "</title>\n<style>\n");
    g_string_append (out, html_style);
    g_string_append (out, "</style>\n</head>\n<body>\n");
    html_header (out, page);
    html_verdict (out, page, points, n);
    html_summary_table (out, page->summary);
    html_charts_over_time (out, page, points, n);
    html_distribution (out, page->summary);
    html_outcomes_append (out, page);
    html_checks_append (out, page->summary);
    html_metrics_append (out, page->summary);
    html_capacity_append (out, page->summary);
    html_errors_table (out, page->summary, page->messages);
    g_string_append (out, "<script>\n");
    g_string_append (out, html_script);
    g_string_append (out, "</script>\n</body>\n</html>\n");
}
