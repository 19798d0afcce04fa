/* SPDX-License-Identifier: MIT */
/*
 * Thresholds: parsing "SUBJECT.METRIC OP VALUE" at plan load with located
 * errors, and evaluating them against the final summary.  A threshold
 * names its subject by what the user sees in the summary: `total`, a
 * scenario's name, a protocol (every step of it) or a step's label when
 * that label is unique in the plan; inside a scenario or a step the
 * subject is implicit.
 */
#include "threshold.h"

#include "metrics.h"
#include "custom-metric-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    SUBJECT_TOTAL,
    SUBJECT_SCENARIO,
    SUBJECT_STEP,
    SUBJECT_PROTOCOL,
    SUBJECT_CUSTOM,             /* one of the plan's own metrics: `figure` of `protocol` (its name) */
} SubjectKind;

typedef enum {
    METRIC_PERCENTILE,
    METRIC_MIN,
    METRIC_MAX,
    METRIC_MEAN,
    METRIC_RPS,
    METRIC_REQUESTS,
    METRIC_ERRORS,
    METRIC_ERROR_RATE,
    METRIC_ERROR_CLASS,
    METRIC_CONNECTIONS,
    METRIC_HANDSHAKES_FULL,
    METRIC_HANDSHAKES_RESUMED,
    METRIC_ITERATIONS,
    METRIC_DROPPED,             /* open model: iterations due that found no free user */
    METRIC_DROPPED_RATE,        /* ... as a share of the iterations due */
    METRIC_CHECKS_RATE,         /* checks passed, as a share of checks made */
    METRIC_CHECKS_FAILS,        /* checks failed */
} MetricKind;

typedef enum {
    VALUE_DURATION,             /* µs */
    VALUE_RATIO,                /* a fraction, written as 1% or 0.01 */
    VALUE_NUMBER,
} ValueKind;

typedef enum { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE } Operator;

typedef struct {
    char *expression;
    SubjectKind subject;
    guint scenario;
    guint step;
    char *protocol;
    MetricKind metric;
    gdouble percentile;
    ThrongErrorClass error_class;
    Operator op;
    gdouble value;
    ValueKind value_kind;
    char *figure;               /* SUBJECT_CUSTOM: "p95", "rate", "count" … */
} Threshold;

struct _ThrongThresholds {
    GArray *items;              /* Threshold */
    ThrongThresholdResult *results;
    GPtrArray *actuals;         /* char*, owned */
};

static const char *const operator_texts[] = { "<", "<=", ">", ">=", "==", "!=" };

static void
threshold_clear (gpointer data)
{
    Threshold *threshold = data;

    g_free (threshold->expression);
    g_free (threshold->protocol);
    g_free (threshold->figure);
}

void
throng_thresholds_free (ThrongThresholds *thresholds)
{
    if (thresholds == NULL)
        return;
    g_array_unref (thresholds->items);
    g_free (thresholds->results);
    if (thresholds->actuals != NULL)
        g_ptr_array_unref (thresholds->actuals);
    g_free (thresholds);
}

guint
throng_thresholds_count (const ThrongThresholds *thresholds)
{
    return thresholds != NULL ? thresholds->items->len : 0;
}

/* --- parsing ---------------------------------------------------------------- */

static gboolean
parse_metric (const char *text, Threshold *threshold)
{
    if (text[0] == 'p' && g_ascii_isdigit (text[1])) {
        char *end = NULL;
        gdouble p = g_ascii_strtod (text + 1, &end);
        if (end == NULL || *end != '\0' || p <= 0 || p > 100)
            return FALSE;
        threshold->metric = METRIC_PERCENTILE;
        threshold->percentile = p;
        return TRUE;
    }
    static const struct {
        const char *name;
        MetricKind kind;
    } names[] = {
        { "min", METRIC_MIN },
        { "max", METRIC_MAX },
        { "mean", METRIC_MEAN },
        { "avg", METRIC_MEAN },
        { "rps", METRIC_RPS },
        { "requests", METRIC_REQUESTS },
        { "errors", METRIC_ERRORS },
        { "errors.rate", METRIC_ERROR_RATE },
        { "connections", METRIC_CONNECTIONS },
        { "handshakes.full", METRIC_HANDSHAKES_FULL },
        { "handshakes.resumed", METRIC_HANDSHAKES_RESUMED },
        { "iterations", METRIC_ITERATIONS },
        { "dropped_iterations", METRIC_DROPPED },
        { "dropped_iterations.rate", METRIC_DROPPED_RATE },
        { "checks.rate", METRIC_CHECKS_RATE },
        { "checks.fails", METRIC_CHECKS_FAILS },
    };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
        if (strcmp (text, names[i].name) == 0) {
            threshold->metric = names[i].kind;
            return TRUE;
        }
    }
    if (g_str_has_prefix (text, "errors.")) {
        for (guint c = THRONG_ERROR_CONNECT; c <= THRONG_ERROR_VARIABLE; c++) {
            if (strcmp (text + strlen ("errors."), throng_error_class_name (c)) == 0) {
                threshold->metric = METRIC_ERROR_CLASS;
                threshold->error_class = c;
                return TRUE;
            }
        }
    }
    return FALSE;
}

static ValueKind
metric_value_kind (MetricKind metric)
{
    switch (metric) {
    case METRIC_PERCENTILE:
    case METRIC_MIN:
    case METRIC_MAX:
    case METRIC_MEAN:
        return VALUE_DURATION;
    case METRIC_ERROR_RATE:
    case METRIC_DROPPED_RATE:
    case METRIC_CHECKS_RATE:
        return VALUE_RATIO;
    default:
        return VALUE_NUMBER;
    }
}

/*
 * Splits "SUBJECT.METRIC" at the dot that starts a known metric: metrics
 * may contain dots themselves (errors.rate, p99.9), subjects too.
 */
static gboolean
split_subject (const char *left, char **subject, Threshold *threshold)
{
    Threshold probe = { 0 };

    if (parse_metric (left, &probe)) {
        *subject = NULL;
        *threshold = probe;
        return TRUE;
    }
    for (const char *dot = strchr (left, '.'); dot != NULL; dot = strchr (dot + 1, '.')) {
        memset (&probe, 0, sizeof probe);
        if (dot > left && parse_metric (dot + 1, &probe)) {
            *subject = g_strndup (left, (gsize) (dot - left));
            *threshold = probe;
            return TRUE;
        }
    }
    return FALSE;
}

static gboolean
parse_value (const ThrongNode *node, const char *text, Threshold *threshold, GError **error)
{
    threshold->value_kind = metric_value_kind (threshold->metric);
    if (threshold->value_kind == VALUE_DURATION) {
        gint64 us;
        g_autoptr (GError) local = NULL;
        if (!throng_parse_duration (text, &us, &local)) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                                   "threshold value '%s' must be a duration such as 200ms", text);
            return FALSE;
        }
        threshold->value = (gdouble) us;
        return TRUE;
    }

    g_autofree char *copy = g_strstrip (g_strdup (text));
    gsize length = strlen (copy);
    gdouble scale = 1.0;
    if (threshold->value_kind == VALUE_RATIO && length > 0 && copy[length - 1] == '%') {
        copy[--length] = '\0';
        scale = 0.01;
    } else if (threshold->metric == METRIC_RPS && g_str_has_suffix (copy, "/s")) {
        length -= 2;
        copy[length] = '\0';
    }
    char *end = NULL;
    gdouble value = g_ascii_strtod (copy, &end);
    if (length == 0 || end == NULL || *end != '\0' || !isfinite (value) || value < 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               threshold->value_kind == VALUE_RATIO
                                   ? "threshold value '%s' must be a percentage such as 1%%"
                                   : "threshold value '%s' must be a non-negative number",
                               text);
        return FALSE;
    }
    threshold->value = value * scale;
    return TRUE;
}

/* Finds what @subject names; steps by label only when the label is unique. */
static gboolean
resolve_subject (const ThrongThresholdSubjects *subjects, const ThrongNode *node,
                 const char *subject, Threshold *threshold, GError **error)
{
    if (strcmp (subject, "total") == 0) {
        threshold->subject = SUBJECT_TOTAL;
        return TRUE;
    }
    for (guint s = 0; s < subjects->n_scenarios; s++) {
        if (strcmp (subjects->scenario_names[s], subject) == 0) {
            threshold->subject = SUBJECT_SCENARIO;
            threshold->scenario = s;
            return TRUE;
        }
    }
    guint matches = 0;
    for (guint s = 0; s < subjects->n_scenarios; s++) {
        for (guint i = 0; subjects->step_labels[s][i] != NULL; i++) {
            if (strcmp (subjects->step_labels[s][i], subject) == 0) {
                matches++;
                threshold->subject = SUBJECT_STEP;
                threshold->scenario = s;
                threshold->step = i;
            }
        }
    }
    if (matches == 1)
        return TRUE;
    if (matches > 1) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold subject '%s' is the label of %u steps; give the steps "
                               "distinct names or put the threshold in the step",
                               subject, matches);
        return FALSE;
    }
    for (guint s = 0; s < subjects->n_scenarios; s++) {
        for (guint i = 0; subjects->step_protocols[s][i] != NULL; i++) {
            if (strcmp (subjects->step_protocols[s][i], subject) == 0) {
                threshold->subject = SUBJECT_PROTOCOL;
                threshold->protocol = g_strdup (subject);
                return TRUE;
            }
        }
    }
    throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                           "threshold subject '%s' is not 'total', a scenario, a step label, a "
                           "protocol or a metric (metrics:) of this plan",
                           subject);
    return FALSE;
}

/* A threshold on a metric of the plan's own sits at the top level: the metric is the run's. */
static gboolean
refuse_custom_inside (const ThrongNode *node, const char *text, GError **error)
{
    throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                           "threshold '%s' names one of the plan's metrics, which belong to the "
                           "run: write it in the plan's top-level 'thresholds'",
                           text);
    return FALSE;
}

/*
 * "NAME.FIGURE" where NAME is one of the plan's metrics: 1 when parsed,
 * 0 on a located error, -1 when NAME is none of them (the threshold is
 * another kind).  The value is a plain number, negative too (a gauge may
 * go below 0); a rate's may be written as a percentage.
 */
static gint
parse_custom (const ThrongThresholdSubjects *subjects, const ThrongNode *node, const char *left,
              const char *right, Threshold *threshold, GError **error)
{
    const char *dot = strchr (left, '.');
    gint found = -1;
    gdouble unused;

    for (guint m = 0; dot != NULL && m < subjects->n_metrics && found < 0; m++)
        if (strlen (subjects->metric_names[m]) == (gsize) (dot - left)
            && strncmp (subjects->metric_names[m], left, (gsize) (dot - left)) == 0)
            found = (gint) m;
    if (found < 0)
        return -1;

    ThrongCustomMetric probe;
    throng_custom_metric_init (&probe, subjects->metric_names[found],
                               subjects->metric_kinds[found]);
    gboolean known = throng_custom_metric_figure (&probe, dot + 1, 1.0, &unused);
    throng_custom_metric_clear (&probe);
    if (!known) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s': a %s has no '%s' (it has %s)", left,
                               throng_custom_kind_name (subjects->metric_kinds[found]), dot + 1,
                               throng_custom_kind_figures (subjects->metric_kinds[found]));
        return 0;
    }
    g_autofree char *copy = g_strstrip (g_strdup (right));
    gsize length = strlen (copy);
    gdouble scale = 1.0;
    if (subjects->metric_kinds[found] == THRONG_CUSTOM_RATE && strcmp (dot + 1, "rate") == 0
        && length > 0 && copy[length - 1] == '%') {
        copy[--length] = '\0';
        scale = 0.01;
    }
    char *end = NULL;
    gdouble value = g_ascii_strtod (copy, &end);
    if (length == 0 || end == NULL || *end != '\0' || !isfinite (value)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "threshold value '%s' must be a number", right);
        return 0;
    }
    threshold->subject = SUBJECT_CUSTOM;
    threshold->protocol = g_strdup (subjects->metric_names[found]);
    threshold->figure = g_strdup (dot + 1);
    threshold->value = value * scale;
    threshold->value_kind = VALUE_NUMBER;
    threshold->expression = g_strdup_printf ("%s %s %s", left, operator_texts[threshold->op], right);
    return 1;
}

static gboolean
parse_threshold (const ThrongThresholdSubjects *subjects, const ThrongNode *node, gint scenario,
                 gint step, Threshold *threshold, GError **error)
{
    const char *text = throng_node_scalar (node);

    if (text == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "a threshold is a string such as \"p99 < 200ms\"");
        return FALSE;
    }

    /* The operator: the first of < <= > >= == != in the text. */
    const char *op_at = NULL;
    gsize op_length = 0;
    for (const char *p = text; *p != '\0' && op_at == NULL; p++) {
        for (guint o = 0; o < G_N_ELEMENTS (operator_texts); o++) {
            gsize length = strlen (operator_texts[o]);
            if (strncmp (p, operator_texts[o], length) == 0 && length >= op_length) {
                op_at = p;
                op_length = length;
                threshold->op = (Operator) o;
            }
        }
    }
    if (op_at == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s' has no comparison (<, <=, >, >=, ==, !=)", text);
        return FALSE;
    }

    g_autofree char *left = g_strstrip (g_strndup (text, (gsize) (op_at - text)));
    g_autofree char *right = g_strstrip (g_strdup (op_at + op_length));
    gsize left_length = strlen (left);
    if ((left_length > 0 && strchr ("=!<>", left[left_length - 1]) != NULL)
        || (right[0] != '\0' && strchr ("=!<>", right[0]) != NULL)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s': unknown comparison; use <, <=, >, >=, == or !=",
                               text);
        return FALSE;
    }
    /* threshold->op is the one found above; split_subject() below starts afresh */
    gint custom = parse_custom (subjects, node, left, right, threshold, error);
    if (custom >= 0)
        return custom == 1 && (scenario < 0 || refuse_custom_inside (node, text, error));

    g_autofree char *subject = NULL;
    if (!split_subject (left, &subject, threshold)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s': unknown metric in '%s' (known: pNN, min, max, "
                               "mean, rps, requests, errors, errors.rate, errors.CLASS, "
                               "connections, handshakes.full, handshakes.resumed, iterations, "
                               "dropped_iterations, dropped_iterations.rate, checks.rate, "
                               "checks.fails)",
                               text, left);
        return FALSE;
    }
    threshold->op = (Operator) 0;
    for (guint o = 0; o < G_N_ELEMENTS (operator_texts); o++)
        if (strlen (operator_texts[o]) == op_length
            && strncmp (op_at, operator_texts[o], op_length) == 0)
            threshold->op = (Operator) o;

    if (subject != NULL && (scenario >= 0 || step >= 0)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s' inside a scenario or step names its subject "
                               "already; write it without '%s.'",
                               text, subject);
        return FALSE;
    }
    gboolean checks = threshold->metric == METRIC_CHECKS_RATE
                      || threshold->metric == METRIC_CHECKS_FAILS;
    /* `checks.rate > 0.99` at the top level is every scenario's checks, as k6 writes it */
    if (subject == NULL && scenario < 0 && checks)
        subject = g_strdup ("total");
    if (subject == NULL && scenario < 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s' needs a subject at the top level, e.g. "
                               "\"total.%s\"",
                               text, left);
        return FALSE;
    }
    if (subject != NULL) {
        if (!resolve_subject (subjects, node, subject, threshold, error))
            return FALSE;
    } else if (step >= 0) {
        threshold->subject = SUBJECT_STEP;
        threshold->scenario = (guint) scenario;
        threshold->step = (guint) step;
    } else {
        threshold->subject = SUBJECT_SCENARIO;
        threshold->scenario = (guint) scenario;
    }
    if ((threshold->metric == METRIC_ITERATIONS || threshold->metric == METRIC_DROPPED
         || threshold->metric == METRIC_DROPPED_RATE || checks)
        && threshold->subject != SUBJECT_SCENARIO && threshold->subject != SUBJECT_TOTAL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "threshold '%s': %s belong to a scenario or the total", text,
                               threshold->metric == METRIC_ITERATIONS ? "iterations"
                               : checks                               ? "checks"
                                                                      : "dropped iterations");
        return FALSE;
    }
    if (!parse_value (node, right, threshold, error))
        return FALSE;

    /* Written out with its subject, as the summary prints it. */
    const char *subject_name = subject;
    if (subject_name == NULL) {
        subject_name = threshold->subject == SUBJECT_STEP
                           ? subjects->step_labels[threshold->scenario][threshold->step]
                           : subjects->scenario_names[threshold->scenario];
    }
    const char *metric_text
        = subject != NULL && g_str_has_prefix (left, subject) && left[strlen (subject)] == '.'
              ? left + strlen (subject) + 1
              : left;
    threshold->expression = g_strdup_printf ("%s.%s %s %s", subject_name, metric_text,
                                             operator_texts[threshold->op], right);
    return TRUE;
}

ThrongThresholds *
throng_thresholds_new (void)
{
    ThrongThresholds *thresholds = g_new0 (ThrongThresholds, 1);

    thresholds->items = g_array_new (FALSE, TRUE, sizeof (Threshold));
    g_array_set_clear_func (thresholds->items, threshold_clear);
    return thresholds;
}

gboolean
throng_thresholds_add_list (ThrongThresholds *thresholds, const ThrongThresholdSubjects *subjects,
                            const ThrongNode *list, gint scenario, gint step, GError **error)
{
    if (list == NULL || throng_node_is_null (list))
        return TRUE;
    if (throng_node_kind (list) != THRONG_NODE_SEQUENCE) {
        throng_node_set_error (list, error, THRONG_PLAN_ERROR_TYPE,
                               "thresholds must be a list of strings such as \"p99 < 200ms\"");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (list); i++) {
        Threshold threshold = { 0 };
        if (!parse_threshold (subjects, throng_node_child (list, i), scenario, step, &threshold,
                              error)) {
            threshold_clear (&threshold);
            return FALSE;
        }
        g_array_append_val (thresholds->items, threshold);
    }
    return TRUE;
}

/* --- evaluation ------------------------------------------------------------------ */

/*
 * Three significant digits of @value (< 999.5) with @unit, as the console
 * writes its figures (plugins/console/units.c): a threshold's actual value
 * reads like the table above it.
 */
static char *
format_3 (gdouble value, const char *unit)
{
    if (value < 9.995)
        return g_strdup_printf ("%.2f%s", value, unit);
    if (value < 99.95)
        return g_strdup_printf ("%.1f%s", value, unit);
    return g_strdup_printf ("%.0f%s", value, unit);
}

/* A count, or a number of another kind: whole values exactly, others to three digits. */
static char *
format_number (gdouble value, const char *unit)
{
    if (value < 0)
        value = 0;
    if (value >= 999.5 || value == floor (value))
        return g_strdup_printf ("%.0f%s", value, unit);
    return format_3 (value, unit);
}

static char *
format_value (const Threshold *threshold, gdouble value)
{
    switch (threshold->value_kind) {
    case VALUE_DURATION:
        if (value < 0)
            value = 0;
        if (value < 999.5 && value == floor (value))
            return g_strdup_printf ("%.0fµs", value);
        if (value < 999.5)
            return format_3 (value, "µs");
        if (value < 999.5e3)
            return format_3 (value / 1e3, "ms");
        if (value < 999.5e6)
            return format_3 (value / 1e6, "s");
        return g_strdup_printf ("%.0fs", value / 1e6);
    case VALUE_RATIO:
        /* Three digits, as a share of requests: 0.50%, 25.0%, 100%. */
        if (value <= 0)
            return g_strdup ("0%");
        return value * 100.0 < 999.5 ? format_3 (value * 100.0, "%")
                                     : g_strdup_printf ("%.0f%%", value * 100.0);
    case VALUE_NUMBER:
    default:
        return format_number (value, threshold->metric == METRIC_RPS ? "/s" : "");
    }
}

/* What a scenario (or all of them) ran, dropped and checked, for the metrics beyond stats. */
typedef struct {
    guint64 iterations;
    guint64 dropped;
    guint64 check_passes;
    guint64 check_fails;
} Iterations;

static void
add_checks (Iterations *iterations, const ThrongScenarioSummary *scenario)
{
    if (scenario->journey == NULL)
        return;
    for (guint c = 0; c < scenario->journey->n_checks; c++) {
        iterations->check_passes += scenario->journey->checks[c].passes;
        iterations->check_fails += scenario->journey->checks[c].fails;
    }
}

static gdouble
measure (const Threshold *threshold, const ThrongStats *stats, const Iterations *iterations,
         gdouble elapsed_s)
{
    switch (threshold->metric) {
    case METRIC_PERCENTILE:
        return (gdouble) throng_histogram_percentile (stats->latency, threshold->percentile);
    case METRIC_MIN:
        return (gdouble) throng_histogram_min (stats->latency);
    case METRIC_MAX:
        return (gdouble) throng_histogram_max (stats->latency);
    case METRIC_MEAN:
        return throng_histogram_mean (stats->latency);
    case METRIC_RPS:
        return elapsed_s > 0 ? (gdouble) stats->requests / elapsed_s : 0.0;
    case METRIC_REQUESTS:
        return (gdouble) stats->requests;
    case METRIC_ERRORS:
        return (gdouble) stats->errors;
    case METRIC_ERROR_RATE:
        /* steps that never went out are errors of the plan, not requests (summary.h) */
        return throng_stats_get_error_rate (stats);
    case METRIC_ERROR_CLASS:
        return (gdouble) stats->errors_by_class[threshold->error_class];
    case METRIC_CONNECTIONS:
        return (gdouble) stats->connections;
    case METRIC_HANDSHAKES_FULL:
        return (gdouble) stats->handshakes_full;
    case METRIC_HANDSHAKES_RESUMED:
        return (gdouble) stats->handshakes_resumed;
    case METRIC_ITERATIONS:
        return (gdouble) iterations->iterations;
    case METRIC_DROPPED:
        return (gdouble) iterations->dropped;
    case METRIC_DROPPED_RATE:
        return iterations->dropped > 0
                   ? (gdouble) iterations->dropped
                         / (gdouble) (iterations->dropped + iterations->iterations)
                   : 0.0;
    case METRIC_CHECKS_RATE:
        /* no check made, none failed: a rate of 1, as "nothing to object to" */
        return iterations->check_fails > 0
                   ? (gdouble) iterations->check_passes
                         / (gdouble) (iterations->check_passes + iterations->check_fails)
                   : 1.0;
    case METRIC_CHECKS_FAILS:
        return (gdouble) iterations->check_fails;
    }
    return 0.0;
}

static gboolean
compare (Operator op, gdouble actual, gdouble wanted)
{
    switch (op) {
    case OP_LT:
        return actual < wanted;
    case OP_LE:
        return actual <= wanted;
    case OP_GT:
        return actual > wanted;
    case OP_GE:
        return actual >= wanted;
    case OP_EQ:
        return actual == wanted;
    case OP_NE:
        return actual != wanted;
    }
    return FALSE;
}

/*
 * A metric of the plan's own, found by name (a merged summary's order is
 * its first shard's).  A summary without it (a shard's file from a throng
 * before 0.5) measures nothing: the threshold fails and says so.
 */
static void
evaluate_custom (ThrongThresholds *thresholds, guint i, const Threshold *threshold,
                 const ThrongSummary *summary, gdouble load_s)
{
    const ThrongCustomMetric *metric = NULL;
    gdouble actual = 0.0;
    char *text;

    if (THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics))
        for (guint m = 0; m < summary->n_metrics && metric == NULL; m++)
            if (g_strcmp0 (summary->metrics[m].name, threshold->protocol) == 0)
                metric = &summary->metrics[m];
    /*
     * A figure of the values (a percentile, a gauge's, a rate) with no value
     * recorded judges nothing: it fails, as a step that never ran does; a
     * count or `invalid` is a figure of its own.
     */
    if (metric != NULL && metric->count == 0 && strcmp (threshold->figure, "invalid") != 0
        && !(metric->kind == THRONG_CUSTOM_COUNTER || strcmp (threshold->figure, "count") == 0)) {
        text = g_strdup ("no value recorded");
        thresholds->results[i].passed = FALSE;
    } else if (metric != NULL
               && throng_custom_metric_figure (metric, threshold->figure, load_s, &actual)) {
        gboolean rate = metric->kind == THRONG_CUSTOM_RATE && strcmp (threshold->figure, "rate") == 0;
        text = rate ? g_strdup_printf ("%.4g (%.3g%%)", actual, actual * 100.0)
                    : g_strdup_printf ("%.6g", actual);
        thresholds->results[i].passed = compare (threshold->op, actual, threshold->value);
    } else {
        text = g_strdup ("not measured");
        thresholds->results[i].passed = FALSE;
    }
    g_ptr_array_add (thresholds->actuals, text);
    thresholds->results[i].expression = threshold->expression;
    thresholds->results[i].actual = text;
}

const ThrongThresholdResult *
throng_thresholds_evaluate (ThrongThresholds *thresholds, const ThrongSummary *summary)
{
    /* Rates over the time the load ran, as the reporters show them. */
    gint64 load_us = summary->load_us > 0 ? summary->load_us : summary->elapsed_us;
    gdouble load_s = (gdouble) load_us / G_USEC_PER_SEC;

    g_free (thresholds->results);
    if (thresholds->actuals != NULL)
        g_ptr_array_unref (thresholds->actuals);
    thresholds->actuals = g_ptr_array_new_with_free_func (g_free);
    thresholds->results = g_new0 (ThrongThresholdResult, MAX (thresholds->items->len, 1));

    for (guint i = 0; i < thresholds->items->len; i++) {
        const Threshold *threshold = &g_array_index (thresholds->items, Threshold, i);
        ThrongStats merged = { 0 };
        const ThrongStats *stats = NULL;
        Iterations iterations = { 0 };

        switch (threshold->subject) {
        case SUBJECT_TOTAL:
            stats = &summary->total;
            for (guint s = 0; s < summary->n_scenarios; s++) {
                iterations.iterations += summary->scenarios[s].iterations;
                iterations.dropped += summary->scenarios[s].dropped_iterations;
                add_checks (&iterations, &summary->scenarios[s]);
            }
            break;
        case SUBJECT_SCENARIO:
            stats = &summary->scenarios[threshold->scenario].stats;
            iterations.iterations = summary->scenarios[threshold->scenario].iterations;
            iterations.dropped = summary->scenarios[threshold->scenario].dropped_iterations;
            add_checks (&iterations, &summary->scenarios[threshold->scenario]);
            break;
        case SUBJECT_STEP:
            stats = &summary->scenarios[threshold->scenario].steps[threshold->step].stats;
            break;
        case SUBJECT_CUSTOM:
            evaluate_custom (thresholds, i, threshold, summary, load_s);
            continue;
        case SUBJECT_PROTOCOL:
            throng_stats_init (&merged);
            for (guint s = 0; s < summary->n_scenarios; s++)
                for (guint k = 0; k < summary->scenarios[s].n_steps; k++)
                    if (g_strcmp0 (summary->scenarios[s].steps[k].protocol, threshold->protocol)
                        == 0)
                        throng_stats_merge (&merged, &summary->scenarios[s].steps[k].stats);
            stats = &merged;
            break;
        }

        gdouble actual = measure (threshold, stats, &iterations, load_s);
        char *text = format_value (threshold, actual);
        g_ptr_array_add (thresholds->actuals, text);
        thresholds->results[i].expression = threshold->expression;
        thresholds->results[i].actual = text;
        thresholds->results[i].passed = compare (threshold->op, actual, threshold->value);
        if (threshold->subject == SUBJECT_PROTOCOL)
            throng_stats_clear (&merged);
    }
    return thresholds->results;
}
