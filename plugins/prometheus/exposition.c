/* SPDX-License-Identifier: MIT */
/*
 * The run's figures as Prometheus sees them: counters that only grow (the
 * snapshots' intervals added up, then the final summary's totals), gauges
 * from the last snapshot, and their text form.  The latency histograms
 * are throng's own, merged interval by interval; their `_bucket` series
 * are counted at edges of throng's buckets, so they are exact, not
 * estimated.  The requests counter's status_class comes from the samples
 * (the summaries keep no per-status counts).  Everything here runs on the
 * main thread.
 */
#include <string.h>

#include "prometheus.h"

/* Edges of throng's buckets (a multiple of the bucket width at that size). */
const gint64 prometheus_edges_us[] = {
    100, 250, 500, 1000, 2496, 4992, 9984, 24832, 49664, 99328, 249856, 499712, 999424,
    2490368, 4980736, 9961472, 29884416, 59768832,
};
const guint prometheus_n_edges = G_N_ELEMENTS (prometheus_edges_us);

/*
 * The values of the status_class label: 1xx … 5xx for a step that got a
 * status, the error class's name for one that failed without a status
 * (connect, timeout, tls …), and `none` for one that neither got a status
 * nor failed (a group, a protocol without statuses).  Bounded: 5 + one per
 * error class + 1.
 */
#define STATUS_SLOTS 5
#define N_CLASS_SLOTS (STATUS_SLOTS + THRONG_ERROR_CLASS_SLOTS)

typedef struct {
    char *label;
    guint64 requests;
    guint64 by_status_class[N_CLASS_SLOTS]; /* from the samples, never reset */
    guint64 errors_by_class[THRONG_ERROR_CLASS_SLOTS];
    guint64 bytes_sent;
    guint64 bytes_received;
    guint64 retry_attempts;
    ThrongHistogram *latency;
} StepFigures;

typedef struct {
    char *name;
    guint n_steps;
    StepFigures *steps;
    guint64 iterations;
    guint64 dropped_iterations;
    guint active_users;
} ScenarioFigures;

/* One of the plan's own metrics, added up over the snapshots (the final summary replaces it). */
typedef struct {
    char *name;
    ThrongCustomMetricKind kind;
    guint64 count;
    guint64 invalid;
    gdouble sum;
    guint64 trues;
    gdouble last;
    gint64 last_wall_us;
    ThrongHistogram *histogram;
} CustomFigures;

struct _PrometheusFigures {
    guint n_scenarios;
    ScenarioFigures *scenarios;
    GArray *custom;             /* CustomFigures, by name as snapshots first name them */
    gdouble cpu_share;
    gboolean saturated;
    gboolean finished;
    gint64 *edges_us;           /* the latency buckets' edges: prometheus_edges_us unless set */
    guint n_edges;
};

PrometheusFigures *
prometheus_figures_new (const ThrongRunInfo *run)
{
    PrometheusFigures *figures = g_new0 (PrometheusFigures, 1);

    figures->n_scenarios = run->n_scenarios;
    figures->scenarios = g_new0 (ScenarioFigures, run->n_scenarios);
    figures->custom = g_array_new (FALSE, TRUE, sizeof (CustomFigures));
    prometheus_figures_set_edges (figures, prometheus_edges_us, prometheus_n_edges);
    for (guint s = 0; s < run->n_scenarios; s++) {
        ScenarioFigures *scenario = &figures->scenarios[s];
        const char *const *labels = run->step_labels[s];

        scenario->name = g_strdup (run->scenario_names[s]);
        scenario->n_steps = labels != NULL ? g_strv_length ((char **) labels) : 0;
        scenario->steps = g_new0 (StepFigures, scenario->n_steps);
        for (guint i = 0; i < scenario->n_steps; i++) {
            scenario->steps[i].label = g_strdup (labels[i]);
            scenario->steps[i].latency = throng_histogram_new ();
        }
    }
    return figures;
}

void
prometheus_figures_free (PrometheusFigures *figures)
{
    if (figures == NULL)
        return;
    for (guint s = 0; s < figures->n_scenarios; s++) {
        ScenarioFigures *scenario = &figures->scenarios[s];

        for (guint i = 0; i < scenario->n_steps; i++) {
            g_free (scenario->steps[i].label);
            throng_histogram_free (scenario->steps[i].latency);
        }
        g_free (scenario->steps);
        g_free (scenario->name);
    }
    g_free (figures->scenarios);
    for (guint m = 0; m < figures->custom->len; m++) {
        CustomFigures *custom = &g_array_index (figures->custom, CustomFigures, m);
        g_free (custom->name);
        throng_histogram_free (custom->histogram);
    }
    g_array_unref (figures->custom);
    g_free (figures->edges_us);
    g_free (figures);
}

void
prometheus_figures_set_edges (PrometheusFigures *figures, const gint64 *edges_us, guint n_edges)
{
    g_free (figures->edges_us);
    figures->edges_us = g_memdup2 (edges_us, n_edges * sizeof *edges_us);
    figures->n_edges = n_edges;
}

/* Adds (or, @replace, sets) one step's figures. */
static void
step_take (StepFigures *step, const ThrongStats *stats, gboolean replace)
{
    if (replace) {
        step->requests = 0;
        memset (step->errors_by_class, 0, sizeof step->errors_by_class);
        step->bytes_sent = step->bytes_received = 0;
        throng_histogram_reset (step->latency);
    }
    step->requests += stats->requests;
    for (guint c = 0; c < THRONG_ERROR_CLASS_SLOTS; c++)
        step->errors_by_class[c] += stats->errors_by_class[c];
    step->bytes_sent += stats->bytes_sent;
    step->bytes_received += stats->bytes_received;
    if (stats->latency != NULL)
        throng_histogram_merge (step->latency, stats->latency);
}

/* The plan's own metrics of @summary, added (or, @replace, set) by name. */
static void
custom_take (PrometheusFigures *figures, const ThrongSummary *summary, gboolean replace)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics))
        return;
    for (guint m = 0; m < summary->n_metrics; m++) {
        const ThrongCustomMetric *from = &summary->metrics[m];
        CustomFigures *to = NULL;

        for (guint k = 0; k < figures->custom->len && to == NULL; k++)
            if (g_strcmp0 (g_array_index (figures->custom, CustomFigures, k).name, from->name) == 0)
                to = &g_array_index (figures->custom, CustomFigures, k);
        if (to == NULL) {
            CustomFigures fresh = { .name = g_strdup (from->name), .kind = from->kind,
                                    .histogram = throng_histogram_new () };
            g_array_append_val (figures->custom, fresh);
            to = &g_array_index (figures->custom, CustomFigures, figures->custom->len - 1);
        }
        if (replace) {
            to->count = to->invalid = to->trues = 0;
            to->sum = 0;
            to->last_wall_us = 0;
            throng_histogram_reset (to->histogram);
        }
        to->count += from->count;
        to->invalid += from->invalid;
        to->sum += from->sum;
        to->trues += from->trues;
        if (from->count > 0 && from->last_wall_us >= to->last_wall_us) {
            to->last = from->last;
            to->last_wall_us = from->last_wall_us;
        }
        if (from->histogram != NULL)
            throng_histogram_merge (to->histogram, from->histogram);
    }
}

static void
figures_take (PrometheusFigures *figures, const ThrongSummary *summary, gboolean replace)
{
    custom_take (figures, summary, replace);
    for (guint s = 0; s < MIN (figures->n_scenarios, summary->n_scenarios); s++) {
        ScenarioFigures *scenario = &figures->scenarios[s];
        const ThrongScenarioSummary *from = &summary->scenarios[s];

        for (guint i = 0; i < MIN (scenario->n_steps, from->n_steps); i++) {
            StepFigures *step = &scenario->steps[i];
            step_take (step, &from->steps[i].stats, replace);
            step->retry_attempts = (replace ? 0 : step->retry_attempts)
                                   + throng_journey_step_retry_attempts (from, i);
        }
        if (replace)
            scenario->iterations = scenario->dropped_iterations = 0;
        scenario->iterations += from->iterations;
        scenario->dropped_iterations += from->dropped_iterations;
        scenario->active_users = from->active_users;
    }
    figures->cpu_share = summary->cpu_share;
    figures->saturated = summary->saturated;
}

/* The slot of a sample's status_class. */
static guint
status_class_slot (const ThrongSample *sample)
{
    if (sample->status >= 100 && sample->status <= 599)
        return (guint) sample->status / 100 - 1;
    /* A class this core cannot name is "other": one series, not several of the same labels. */
    if ((guint) sample->error >= THRONG_ERROR_CLASS_SLOTS
        || (sample->error != THRONG_ERROR_OTHER
            && strcmp (throng_error_class_name (sample->error), "other") == 0))
        return STATUS_SLOTS + THRONG_ERROR_OTHER;
    return STATUS_SLOTS + (guint) sample->error;
}

static const char *
status_class_name (guint slot)
{
    static const char *const names[STATUS_SLOTS] = { "1xx", "2xx", "3xx", "4xx", "5xx" };

    if (slot < STATUS_SLOTS)
        return names[slot];
    return throng_error_class_name ((ThrongErrorClass) (slot - STATUS_SLOTS));
}

void
prometheus_figures_add_samples (PrometheusFigures *figures, const ThrongSample *samples,
                                gsize n_samples)
{
    for (gsize i = 0; i < n_samples; i++) {
        const ThrongSample *sample = &samples[i];

        if (sample->scenario >= figures->n_scenarios)
            continue;
        ScenarioFigures *scenario = &figures->scenarios[sample->scenario];
        /* not a request: throng_not_sent_total counts it, from the stats */
        if (sample->step >= scenario->n_steps || (sample->flags & THRONG_SAMPLE_NOT_SENT))
            continue;
        scenario->steps[sample->step].by_status_class[status_class_slot (sample)]++;
    }
}

void
prometheus_figures_add_interval (PrometheusFigures *figures, const ThrongSummary *snapshot)
{
    figures_take (figures, snapshot, FALSE);
}

void
prometheus_figures_set_final (PrometheusFigures *figures, const ThrongSummary *summary)
{
    figures_take (figures, summary, TRUE);
    figures->finished = TRUE;
}

/*
 * The value at rank @rank (from 1) of @histogram: the midpoint of its
 * bucket, clamped to [min, max].  Asking for the percentile half a rank
 * below makes the core's ceiling land on @rank whatever the rounding.
 */
static gint64
value_at_rank (const ThrongHistogram *histogram, guint64 rank, guint64 count)
{
    return throng_histogram_percentile (histogram,
                                        100.0 * ((gdouble) rank - 0.5) / (gdouble) count);
}

/*
 * A binary search over ranks: the value at a rank lies in the same bucket
 * as the rank's true value (a midpoint, or min or max, which are in it),
 * and @edge_us starts a bucket, so "below the edge" is decided exactly.
 */
guint64
prometheus_count_below (const ThrongHistogram *histogram, gint64 edge_us, guint64 at_least)
{
    guint64 count = throng_histogram_count (histogram);
    guint64 low, high;

    if (count == 0 || throng_histogram_min (histogram) >= edge_us)
        return 0;
    if (throng_histogram_max (histogram) < edge_us)
        return count;
    /* value (low) < edge (rank 0 stands for "none"), value (high) >= edge (high is the max). */
    low = MIN (at_least, count - 1);
    high = count;
    while (high - low > 1) {
        guint64 middle = low + (high - low) / 2;

        if (value_at_rank (histogram, middle, count) < edge_us)
            low = middle;
        else
            high = middle;
    }
    return low;
}

/* A label value as the text format wants it: backslash, double quote and newline escaped. */
static void
append_label (GString *out, const char *name, const char *value)
{
    g_string_append_printf (out, "%s=\"", name);
    for (const char *p = value != NULL ? value : ""; *p != '\0'; p++) {
        if (*p == '\\' || *p == '"')
            g_string_append_c (out, '\\');
        if (*p == '\n')
            g_string_append (out, "\\n");
        else
            g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

static void
append_family (GString *out, const char *name, const char *type, const char *help)
{
    g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * NAME{scenario="…",step="…",step_id="…" (no closing brace: the caller may
 * add labels).  Two steps of a scenario may share a label (a HAR import
 * has two `GET /static/app.css`): step_id, the step's index in its
 * scenario (ThrongSample.step), keeps their series apart, where two
 * series of the same labels would be one to Prometheus.
 */
static void
append_series (GString *out, const char *name, const ScenarioFigures *scenario,
               const StepFigures *step)
{
    g_string_append_printf (out, "%s{", name);
    append_label (out, "scenario", scenario->name);
    if (step != NULL) {
        g_string_append_c (out, ',');
        append_label (out, "step", step->label);
        /* Two steps may share a label: the index tells them apart (ThrongSample.step). */
        g_string_append_printf (out, ",step_id=\"%u\"", (guint) (step - scenario->steps));
    }
}

static void
append_uint (GString *out, guint64 value)
{
    g_string_append_printf (out, " %" G_GUINT64_FORMAT "\n", value);
}

static void
append_double (GString *out, gdouble value)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append_printf (out, " %s\n", g_ascii_dtostr (buffer, sizeof buffer, value));
}

/* µs as seconds, exactly: "0.002496". */
static void
append_seconds_label (GString *out, gint64 us)
{
    g_string_append_printf (out, "le=\"%" G_GINT64_FORMAT ".%06" G_GINT64_FORMAT "\"",
                            us / G_USEC_PER_SEC, us % G_USEC_PER_SEC);
}

#define FOR_EACH_STEP(figures, scenario, step)                                                    \
    for (const ScenarioFigures *scenario = (figures)->scenarios;                                  \
         scenario < (figures)->scenarios + (figures)->n_scenarios; scenario++)                    \
        for (const StepFigures *step = scenario->steps; step < scenario->steps + scenario->n_steps; \
             step++)

static void
render_requests (GString *out, const PrometheusFigures *figures)
{
    append_family (out, "throng_requests_total", "counter",
                   "Steps completed, by status_class: 1xx to 5xx from the response's status, "
                   "the error class when there was none (connect, timeout ...), none for "
                   "steps without either.");
    FOR_EACH_STEP (figures, scenario, step) {
        for (guint slot = 0; slot < N_CLASS_SLOTS; slot++) {
            if (step->by_status_class[slot] == 0)
                continue;
            append_series (out, "throng_requests_total", scenario, step);
            g_string_append_c (out, ',');
            append_label (out, "status_class", status_class_name (slot));
            g_string_append_c (out, '}');
            append_uint (out, step->by_status_class[slot]);
        }
    }

    append_family (out, "throng_errors_total", "counter",
                   "Failed steps by error class (connect, dns, tls, timeout, status ...).");
    FOR_EACH_STEP (figures, scenario, step) {
        for (guint c = 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
            if (step->errors_by_class[c] == 0)
                continue;
            append_series (out, "throng_errors_total", scenario, step);
            g_string_append_c (out, ',');
            append_label (out, "class", throng_error_class_name ((ThrongErrorClass) c));
            g_string_append_c (out, '}');
            append_uint (out, step->errors_by_class[c]);
        }
    }

    append_family (out, "throng_not_sent_total", "counter",
                   "Steps that never went out (a variable they needed was not set): among "
                   "throng_errors_total as class variable, never in throng_requests_total.");
    FOR_EACH_STEP (figures, scenario, step) {
        append_series (out, "throng_not_sent_total", scenario, step);
        g_string_append_c (out, '}');
        append_uint (out, step->errors_by_class[THRONG_ERROR_VARIABLE]);
    }

    append_family (out, "throng_retry_attempts_total", "counter",
                   "Requests that were a step's retry after a failed attempt; each is also in "
                   "throng_requests_total.");
    FOR_EACH_STEP (figures, scenario, step) {
        append_series (out, "throng_retry_attempts_total", scenario, step);
        g_string_append_c (out, '}');
        append_uint (out, step->retry_attempts);
    }

    append_family (out, "throng_sent_bytes_total", "counter", "Bytes written, headers included.");
    FOR_EACH_STEP (figures, scenario, step) {
        append_series (out, "throng_sent_bytes_total", scenario, step);
        g_string_append_c (out, '}');
        append_uint (out, step->bytes_sent);
    }
    append_family (out, "throng_received_bytes_total", "counter", "Bytes read, headers included.");
    FOR_EACH_STEP (figures, scenario, step) {
        append_series (out, "throng_received_bytes_total", scenario, step);
        g_string_append_c (out, '}');
        append_uint (out, step->bytes_received);
    }
}

static void
render_latency (GString *out, const PrometheusFigures *figures)
{
    const char *name = "throng_request_duration_seconds";

    append_family (out, name, "histogram",
                   "Elapsed time of steps; bucket bounds are edges of throng's histogram.");
    FOR_EACH_STEP (figures, scenario, step) {
        guint64 below = 0;
        guint64 count = throng_histogram_count (step->latency);
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        for (guint e = 0; e < figures->n_edges; e++) {
            below = prometheus_count_below (step->latency, figures->edges_us[e], below);
            append_series (out, "throng_request_duration_seconds_bucket", scenario, step);
            g_string_append_c (out, ',');
            append_seconds_label (out, figures->edges_us[e]);
            g_string_append_c (out, '}');
            append_uint (out, below);
        }
        append_series (out, "throng_request_duration_seconds_bucket", scenario, step);
        g_string_append (out, ",le=\"+Inf\"}");
        append_uint (out, count);
        append_series (out, "throng_request_duration_seconds_sum", scenario, step);
        g_string_append_c (out, '}');
        g_ascii_formatd (buffer, sizeof buffer, "%.6f",
                         throng_histogram_mean (step->latency) * (gdouble) count / G_USEC_PER_SEC);
        g_string_append_printf (out, " %s\n", buffer);
        append_series (out, "throng_request_duration_seconds_count", scenario, step);
        g_string_append_c (out, '}');
        append_uint (out, count);
    }
}

static void
render_scenarios (GString *out, const PrometheusFigures *figures)
{
    append_family (out, "throng_iterations_total", "counter", "Iterations completed.");
    for (guint s = 0; s < figures->n_scenarios; s++) {
        append_series (out, "throng_iterations_total", &figures->scenarios[s], NULL);
        g_string_append_c (out, '}');
        append_uint (out, figures->scenarios[s].iterations);
    }
    append_family (out, "throng_dropped_iterations_total", "counter",
                   "Open-model iterations that were due but found every user busy.");
    for (guint s = 0; s < figures->n_scenarios; s++) {
        append_series (out, "throng_dropped_iterations_total", &figures->scenarios[s], NULL);
        g_string_append_c (out, '}');
        append_uint (out, figures->scenarios[s].dropped_iterations);
    }
    append_family (out, "throng_active_users", "gauge", "Users running at the last snapshot.");
    for (guint s = 0; s < figures->n_scenarios; s++) {
        append_series (out, "throng_active_users", &figures->scenarios[s], NULL);
        g_string_append_c (out, '}');
        append_uint (out, figures->scenarios[s].active_users);
    }
}

/* `metric` labels, one family per kind: a plan's metric names are never metric names here. */
static void
render_custom (GString *out, const PrometheusFigures *figures)
{
    static const struct {
        const char *name;
        const char *type;
        const char *help;
        ThrongCustomMetricKind kind;
    } families[] = {
        { "throng_custom_counter_total", "counter", "A counter of the plan's metrics: its sum.",
          THRONG_CUSTOM_COUNTER },
        { "throng_custom_gauge", "gauge", "A gauge of the plan's metrics: its last value.",
          THRONG_CUSTOM_GAUGE },
        { "throng_custom_rate_true_total", "counter",
          "A rate of the plan's metrics: the values that were true.", THRONG_CUSTOM_RATE },
        { "throng_custom_rate_values_total", "counter",
          "A rate of the plan's metrics: the values recorded.", THRONG_CUSTOM_RATE },
        { "throng_custom_trend", "summary",
          "A trend of the plan's metrics: its quantiles, from throng's histogram (1 %).",
          THRONG_CUSTOM_TREND },
    };
    static const gdouble quantiles[] = { 0.5, 0.9, 0.95, 0.99 };

    if (figures->custom->len == 0)
        return;
    for (guint f = 0; f < G_N_ELEMENTS (families); f++) {
        append_family (out, families[f].name, families[f].type, families[f].help);
        for (guint m = 0; m < figures->custom->len; m++) {
            const CustomFigures *custom = &g_array_index (figures->custom, CustomFigures, m);
            if (custom->kind != families[f].kind)
                continue;
            if (custom->kind == THRONG_CUSTOM_TREND) {
                for (guint q = 0; q < G_N_ELEMENTS (quantiles); q++) {
                    g_string_append_printf (out, "%s{", families[f].name);
                    append_label (out, "metric", custom->name);
                    g_string_append_printf (out, ",quantile=\"%g\"}", quantiles[q]);
                    append_double (out, custom->count > 0
                                            ? (gdouble) throng_histogram_percentile (
                                                  custom->histogram, quantiles[q] * 100.0)
                                                  / THRONG_CUSTOM_TREND_SCALE
                                            : 0.0);
                }
                g_string_append_printf (out, "%s_sum{", families[f].name);
                append_label (out, "metric", custom->name);
                g_string_append_c (out, '}');
                append_double (out, custom->sum);
                g_string_append_printf (out, "%s_count{", families[f].name);
                append_label (out, "metric", custom->name);
                g_string_append_c (out, '}');
                append_uint (out, custom->count);
                continue;
            }
            g_string_append_printf (out, "%s{", families[f].name);
            append_label (out, "metric", custom->name);
            g_string_append_c (out, '}');
            if (custom->kind == THRONG_CUSTOM_RATE)
                append_uint (out, strcmp (families[f].name, "throng_custom_rate_true_total") == 0
                                     ? custom->trues
                                     : custom->count);
            else
                append_double (out, custom->kind == THRONG_CUSTOM_GAUGE ? custom->last : custom->sum);
        }
    }
    append_family (out, "throng_custom_invalid_total", "counter",
                   "Values the plan's metrics refused: not a number, an unset variable.");
    for (guint m = 0; m < figures->custom->len; m++) {
        const CustomFigures *custom = &g_array_index (figures->custom, CustomFigures, m);
        g_string_append (out, "throng_custom_invalid_total{");
        append_label (out, "metric", custom->name);
        g_string_append_c (out, '}');
        append_uint (out, custom->invalid);
    }
}

GBytes *
prometheus_figures_render (const PrometheusFigures *figures)
{
    GString *out = g_string_sized_new (4096);

    render_requests (out, figures);
    render_latency (out, figures);
    render_scenarios (out, figures);
    render_custom (out, figures);
    append_family (out, "throng_cpu_share", "gauge",
                   "throng's CPU time over the last interval (the run, once finished), as a "
                   "share of its workers' cores.");
    g_string_append (out, "throng_cpu_share");
    append_double (out, figures->cpu_share);
    append_family (out, "throng_saturated", "gauge",
                   "1 when the load generator was saturated: figures may describe throng.");
    g_string_append (out, "throng_saturated");
    append_uint (out, figures->saturated ? 1 : 0);
    append_family (out, "throng_run_finished", "gauge",
                   "1 once the run has ended and the figures are final.");
    g_string_append (out, "throng_run_finished");
    append_uint (out, figures->finished ? 1 : 0);
    return g_string_free_to_bytes (out);
}
