/* SPDX-License-Identifier: MIT */
/*
 * The plan's own metrics, k6's four kinds: declared in `metrics:`,
 * recorded by a step's `record:` once its extractors ran, counted in the
 * worker's block and merged exactly (a trend through the latencies'
 * histogram).  A value that is not what its kind takes is counted as
 * invalid, never as zero: a plan that records garbage says so in every
 * report.
 */
#include "custom-metric-private.h"

#include <math.h>
#include <string.h>

#include "metrics.h"
#include "template-private.h"
#include "user-private.h"

/* The largest trend value: the histogram's hour of µs over the scale. */
#define TREND_MAX (3600000000.0 / THRONG_CUSTOM_TREND_SCALE)

static const char *const kind_names[] = { "counter", "gauge", "rate", "trend", NULL };
static const char *const metric_keys[] = { "type", NULL };

const char *
throng_custom_kind_name (ThrongCustomMetricKind kind)
{
    return (guint) kind < G_N_ELEMENTS (kind_names) - 1 ? kind_names[kind] : "unknown";
}

gint
throng_custom_kind_from_name (const char *name)
{
    for (guint i = 0; kind_names[i] != NULL; i++)
        if (strcmp (kind_names[i], name) == 0)
            return (gint) i;
    return -1;
}

/* ---- the plan ----------------------------------------------------------- */

void
throng_plan_metric_free (gpointer data)
{
    ThrongPlanMetric *metric = data;

    g_free (metric->name);
    g_free (metric);
}

gboolean
throng_plan_read_metrics (GPtrArray *metrics, const ThrongNode *map, GError **error)
{
    if (map == NULL || throng_node_is_null (map))
        return TRUE;
    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map of metrics such as '{cart_value: {type: trend}}'", error))
        return FALSE;
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        const ThrongNode *spec = throng_node_child (map, i);
        const char *name = throng_node_scalar (key);
        const ThrongNode *type;
        const char *type_name;

        /* a dot would split `NAME.p95` in a threshold at the wrong place */
        if (!throng_scope_valid_name (name, strlen (name))) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' is not a metric name: a letter or '_', then letters, "
                                   "digits and '_'",
                                   name);
            return FALSE;
        }
        if (!throng_node_expect_kind (spec, THRONG_NODE_MAP,
                                      "a map such as '{type: trend}' for a metric", error)
            || !throng_node_check_keys (spec, metric_keys, "metric", error))
            return FALSE;
        type = throng_node_lookup (spec, "type");
        if (type == NULL) {
            throng_node_set_error (spec, error, THRONG_PLAN_ERROR_MISSING,
                                   "metric '%s' needs a type: counter, gauge, rate or trend",
                                   name);
            return FALSE;
        }
        if (!throng_node_get_string (type, &type_name, error))
            return FALSE;
        gint kind = throng_custom_kind_from_name (type_name);
        if (kind < 0) {
            const char *near = throng_node_suggest (type_name, kind_names);
            g_autofree char *hint
                = near != NULL ? g_strdup_printf ("; did you mean '%s'?", near) : g_strdup ("");
            throng_node_set_error (type, error, THRONG_PLAN_ERROR_INVALID,
                                   "unknown metric type '%s': counter, gauge, rate or trend%s",
                                   type_name, hint);
            return FALSE;
        }
        ThrongPlanMetric *metric = g_new0 (ThrongPlanMetric, 1);
        metric->name = g_strdup (name);
        metric->kind = (ThrongCustomMetricKind) kind;
        metric->node = key;
        g_ptr_array_add (metrics, metric);
    }
    return TRUE;
}

gboolean
throng_plan_check_metric_name (const ThrongPlanMetric *metric, const char *name, const char *what,
                               GError **error)
{
    if (name == NULL || strcmp (metric->name, name) != 0)
        return TRUE;
    throng_node_set_error (metric->node, error, THRONG_PLAN_ERROR_INVALID,
                           "metric '%s' has the name of %s: a threshold on '%s.…' would mean "
                           "either; rename one",
                           metric->name, what, metric->name);
    return FALSE;
}

void
throng_plan_records_free (ThrongPlanRecords *records)
{
    if (records == NULL)
        return;
    for (guint i = 0; i < records->n_items; i++)
        throng_template_free (records->items[i].value);
    g_free (records->items);
    g_free (records);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongPlanRecords, throng_plan_records_free)

ThrongPlanRecords *
throng_plan_records_new (const GPtrArray *metrics, ThrongScope *scope, const ThrongNode *map,
                         GError **error)
{
    g_autoptr (ThrongPlanRecords) records = g_new0 (ThrongPlanRecords, 1);
    guint n;

    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map of metrics to values for record, such as "
                                  "'{cart_value: \"${vars.total}\"}'",
                                  error))
        return NULL;
    n = throng_node_n_children (map);
    if (n == 0) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING, "record names no metric");
        return NULL;
    }
    records->items = g_new0 (ThrongPlanRecord, n);
    for (guint i = 0; i < n; i++) {
        const ThrongNode *key = throng_node_key (map, i);
        const ThrongNode *value = throng_node_child (map, i);
        const char *name = throng_node_scalar (key);
        ThrongPlanRecord *record = &records->items[i];
        gint found = -1;

        for (guint m = 0; m < metrics->len && found < 0; m++)
            if (strcmp (((ThrongPlanMetric *) metrics->pdata[m])->name, name) == 0)
                found = (gint) m;
        if (found < 0) {
            g_autoptr (GPtrArray) names = g_ptr_array_new ();
            for (guint m = 0; m < metrics->len; m++)
                g_ptr_array_add (names, ((ThrongPlanMetric *) metrics->pdata[m])->name);
            g_ptr_array_add (names, NULL);
            const char *near = throng_node_suggest (name, (const char *const *) names->pdata);
            g_autofree char *hint
                = near != NULL ? g_strdup_printf ("; did you mean '%s'?", near)
                               : g_strdup ("; declare it in the plan's 'metrics:'");
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "record: no metric '%s' is declared%s", name, hint);
            return NULL;
        }
        record->metric = (guint) found;
        record->kind = ((ThrongPlanMetric *) metrics->pdata[found])->kind;
        ((ThrongPlanMetric *) metrics->pdata[found])->recorded = TRUE;
        records->n_items++;
        if (throng_node_is_null (value)) {
            if (record->kind != THRONG_CUSTOM_COUNTER) {
                throng_node_set_error (key, error, THRONG_PLAN_ERROR_MISSING,
                                       "record: metric '%s' is a %s and needs a value; only a "
                                       "counter's may be left out (it adds 1)",
                                       name, throng_custom_kind_name (record->kind));
                return NULL;
            }
            continue;
        }
        if (throng_node_kind (value) != THRONG_NODE_SCALAR) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                   "record: the value of '%s' is a number or a template such as "
                                   "\"${vars.total}\"",
                                   name);
            return NULL;
        }
        record->value = throng_template_compile (scope, value, error);
        if (record->value == NULL)
            return NULL;
    }
    return g_steal_pointer (&records);
}

/* ---- figures ------------------------------------------------------------ */

void
throng_custom_metric_init (ThrongCustomMetric *metric, const char *name,
                           ThrongCustomMetricKind kind)
{
    memset (metric, 0, sizeof *metric);
    metric->size = sizeof *metric;
    metric->name = name;
    metric->kind = kind;
    if (kind == THRONG_CUSTOM_TREND)
        metric->histogram = throng_histogram_new ();
}

void
throng_custom_metric_clear (ThrongCustomMetric *metric)
{
    g_clear_pointer (&metric->histogram, throng_histogram_free);
}

void
throng_custom_metric_reset (ThrongCustomMetric *metric)
{
    ThrongHistogram *histogram = metric->histogram;
    const char *name = metric->name;
    ThrongCustomMetricKind kind = metric->kind;

    memset (metric, 0, sizeof *metric);
    metric->size = sizeof *metric;
    metric->name = name;
    metric->kind = kind;
    metric->histogram = histogram;
    if (histogram != NULL)
        throng_histogram_reset (histogram);
}

void
throng_custom_metric_merge (ThrongCustomMetric *into, const ThrongCustomMetric *from)
{
    if (from->count > 0) {
        into->min = into->count > 0 ? MIN (into->min, from->min) : from->min;
        into->max = into->count > 0 ? MAX (into->max, from->max) : from->max;
        /* a gauge is what was recorded last, whichever worker or shard recorded it */
        if (into->count == 0 || from->last_wall_us >= into->last_wall_us) {
            into->last = from->last;
            into->last_wall_us = from->last_wall_us;
        }
    }
    into->count += from->count;
    into->invalid += from->invalid;
    into->sum += from->sum;
    into->trues += from->trues;
    if (into->histogram != NULL && from->histogram != NULL)
        throng_histogram_merge (into->histogram, from->histogram);
}

/* @text as a number: all of it, finite; "1e3" and " 12.5 " are, "12ms" and "" are not. */
static gboolean
parse_number (const char *text, gsize length, gdouble *out)
{
    char buffer[64];
    char *end = NULL;
    gdouble value;

    while (length > 0 && g_ascii_isspace (*text))
        text++, length--;
    while (length > 0 && g_ascii_isspace (text[length - 1]))
        length--;
    /* Decimal only: strtod would read "0x10" as 16. */
    if (length == 0 || length >= sizeof buffer || memchr (text, 'x', length) != NULL
        || memchr (text, 'X', length) != NULL)
        return FALSE;
    memcpy (buffer, text, length);
    buffer[length] = '\0';
    value = g_ascii_strtod (buffer, &end);
    if (end != buffer + length || !isfinite (value))
        return FALSE;
    *out = value;
    return TRUE;
}

/* A rate's value: true or false (any case), 1 or 0. */
static gboolean
parse_truth (const char *text, gsize length, gboolean *out)
{
    if ((length == 4 && g_ascii_strncasecmp (text, "true", 4) == 0)
        || (length == 1 && text[0] == '1')) {
        *out = TRUE;
        return TRUE;
    }
    if ((length == 5 && g_ascii_strncasecmp (text, "false", 5) == 0)
        || (length == 1 && text[0] == '0')) {
        *out = FALSE;
        return TRUE;
    }
    return FALSE;
}

void
throng_custom_metric_add_text (ThrongCustomMetric *metric, const char *text, gsize length,
                               gint64 wall_us)
{
    gdouble value;

    if (metric->kind == THRONG_CUSTOM_RATE) {
        gboolean truth;
        if (!parse_truth (text, length, &truth)) {
            metric->invalid++;
            return;
        }
        value = truth ? 1.0 : 0.0;
        metric->trues += truth ? 1 : 0;
    } else if (!parse_number (text, length, &value)
               || (metric->kind == THRONG_CUSTOM_TREND && (value < 0 || value > TREND_MAX))) {
        metric->invalid++;
        return;
    }
    if (metric->count == 0 || value < metric->min)
        metric->min = value;
    if (metric->count == 0 || value > metric->max)
        metric->max = value;
    metric->count++;
    metric->sum += value;
    metric->last = value;
    metric->last_wall_us = wall_us;
    if (metric->histogram != NULL)
        throng_histogram_record (metric->histogram,
                                 (gint64) llround (value * THRONG_CUSTOM_TREND_SCALE));
}

const char *
throng_custom_kind_figures (ThrongCustomMetricKind kind)
{
    switch (kind) {
    case THRONG_CUSTOM_COUNTER:
        return "count, rate (per second), invalid";
    case THRONG_CUSTOM_GAUGE:
        return "value, min, max, invalid";
    case THRONG_CUSTOM_RATE:
        return "rate, count, invalid";
    case THRONG_CUSTOM_TREND:
        return "pNN, min, max, mean, count, invalid";
    }
    return "invalid";
}

gboolean
throng_custom_metric_figure (const ThrongCustomMetric *metric, const char *figure, gdouble load_s,
                             gdouble *out)
{
    ThrongCustomMetricKind kind = metric->kind;

    if (strcmp (figure, "invalid") == 0) {
        *out = (gdouble) metric->invalid;
        return TRUE;
    }
    switch (kind) {
    case THRONG_CUSTOM_COUNTER:
        /* k6's Counter: `count` is the sum, `rate` the sum per second */
        if (strcmp (figure, "count") == 0) {
            *out = metric->sum;
            return TRUE;
        }
        if (strcmp (figure, "rate") == 0) {
            *out = load_s > 0 ? metric->sum / load_s : 0.0;
            return TRUE;
        }
        return FALSE;
    case THRONG_CUSTOM_GAUGE:
        if (strcmp (figure, "value") == 0)
            *out = metric->last;
        else if (strcmp (figure, "min") == 0)
            *out = metric->min;
        else if (strcmp (figure, "max") == 0)
            *out = metric->max;
        else
            return FALSE;
        return TRUE;
    case THRONG_CUSTOM_RATE:
        if (strcmp (figure, "rate") == 0)
            *out = metric->count > 0 ? (gdouble) metric->trues / (gdouble) metric->count : 0.0;
        else if (strcmp (figure, "count") == 0)
            *out = (gdouble) metric->count;
        else
            return FALSE;
        return TRUE;
    case THRONG_CUSTOM_TREND:
        if (figure[0] == 'p' && g_ascii_isdigit (figure[1])) {
            char *end = NULL;
            gdouble p = g_ascii_strtod (figure + 1, &end);
            if (end == NULL || *end != '\0' || p <= 0 || p > 100)
                return FALSE;
            *out = metric->histogram != NULL && metric->count > 0
                       ? (gdouble) throng_histogram_percentile (metric->histogram, p)
                             / THRONG_CUSTOM_TREND_SCALE
                       : 0.0;
        } else if (strcmp (figure, "min") == 0) {
            *out = metric->min;
        } else if (strcmp (figure, "max") == 0) {
            *out = metric->max;
        } else if (strcmp (figure, "mean") == 0 || strcmp (figure, "avg") == 0) {
            *out = metric->count > 0 ? metric->sum / (gdouble) metric->count : 0.0;
        } else if (strcmp (figure, "count") == 0) {
            *out = (gdouble) metric->count;
        } else {
            return FALSE;
        }
        return TRUE;
    }
    return FALSE;
}

/* ---- recording ---------------------------------------------------------- */

void
throng_custom_record (ThrongUser *user, const ThrongPlanRecords *records)
{
    ThrongMetrics *metrics = user->worker->metrics;
    GString *scratch = user->vars.scratch;
    gint64 wall_us = g_get_monotonic_time () + user->worker->setup.wall_offset_us;

    if (metrics == NULL)
        return; /* the worker's last report went out: nothing more is counted */
    for (guint i = 0; i < records->n_items; i++) {
        const ThrongPlanRecord *record = &records->items[i];
        ThrongCustomMetric *metric = &metrics->custom[record->metric];

        if (record->value == NULL) {
            throng_custom_metric_add_text (metric, "1", 1, wall_us);
            continue;
        }
        g_string_truncate (scratch, 0);
        /* a variable not set is a value that could not be read: invalid, not zero */
        if (!throng_template_expand (record->value, user, scratch, NULL)) {
            metric->invalid++;
            continue;
        }
        throng_custom_metric_add_text (metric, scratch->str, scratch->len, wall_us);
    }
}
