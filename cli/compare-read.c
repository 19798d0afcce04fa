/* SPDX-License-Identifier: MIT */
/*
 * A run file read for `throng compare`: through the SDK's reader, each
 * interval's median per row (the total, each scenario, step, group and
 * trend metric), then the summary's figures per row, and whether the run
 * can be compared at all (saturated, or incomplete).  Only the interval
 * medians are kept, not the interval histograms: a histogram is 13 KiB, a
 * median 8 bytes.
 */
#include "compare-private.h"

#include <throng/throng.h>

#include "results/runfile.h"

const char *const compare_figure_names[FIGURE_COUNT] = {
    "rps", "errors.rate", "checks.rate", "mean", "p50", "p90", "p95", "p99", "max",
};

const gdouble compare_curve_percents[COMPARE_CURVE_POINTS] = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85,
    90, 92, 94, 95, 96, 97, 98, 99, 99.5, 99.9, 99.99, 100,
};

/* One row's intervals while the file is read. */
typedef struct {
    GArray *series;
    GArray *series_time;
} Series;

static void
series_free (Series *series)
{
    g_clear_pointer (&series->series, g_array_unref);
    g_clear_pointer (&series->series_time, g_array_unref);
    g_free (series);
}

char *
compare_row_key (CompareKind kind, const char *scenario, const char *shown)
{
    return g_strdup_printf ("%d\x1f%s\x1f%s", (int) kind, scenario != NULL ? scenario : "",
                            shown != NULL ? shown : "");
}

char *
compare_row_key_of (const CompareRow *row)
{
    return compare_row_key (row->kind, row->scenario, row->shown);
}

/* Adds one interval's median of @histogram (values × @scale) under @key. */
static void
series_add (GHashTable *table, char *key, const ThrongHistogram *histogram, gdouble scale,
            gdouble time_s)
{
    g_autofree char *owned = key;

    if (histogram == NULL || throng_histogram_count (histogram) == 0)
        return;
    Series *series = g_hash_table_lookup (table, key);
    if (series == NULL) {
        series = g_new0 (Series, 1);
        series->series = g_array_new (FALSE, FALSE, sizeof (gdouble));
        series->series_time = g_array_new (FALSE, FALSE, sizeof (gdouble));
        g_hash_table_insert (table, g_steal_pointer (&owned), series);
    }
    gdouble median = (gdouble) throng_histogram_percentile (histogram, 50.0) / scale;
    g_array_append_val (series->series, median);
    g_array_append_val (series->series_time, time_s);
}

static ThrongStepKind
step_kind (const ThrongScenarioSummary *scenario, guint step)
{
    const ThrongScenarioJourney *journey = scenario->journey;

    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, step_info)
        || journey->step_info == NULL)
        return THRONG_STEP_REQUEST;
    return journey->step_info[step].kind;
}

static CompareKind
row_kind_of_step (const ThrongScenarioSummary *scenario, guint step)
{
    return step_kind (scenario, step) == THRONG_STEP_REQUEST ? COMPARE_STEP : COMPARE_GROUP;
}

static guint
metric_count (const ThrongSummary *summary)
{
    return THRONG_STRUCT_HAS (summary, ThrongSummary, n_metrics) ? summary->n_metrics : 0;
}

/* Every row's median of one interval. */
static void
read_interval (GHashTable *table, const ThrongSummary *snapshot)
{
    gdouble time_s = (gdouble) snapshot->elapsed_us / G_USEC_PER_SEC;

    series_add (table, compare_row_key (COMPARE_TOTAL, NULL, NULL), snapshot->total.latency, 1.0,
                time_s);
    for (guint s = 0; s < snapshot->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &snapshot->scenarios[s];
        series_add (table, compare_row_key (COMPARE_SCENARIO, scenario->name, NULL),
                    scenario->stats.latency, 1.0, time_s);
        for (guint i = 0; i < scenario->n_steps; i++) {
            g_autofree char *shown = throng_step_display_name (scenario, i);
            series_add (table, compare_row_key (row_kind_of_step (scenario, i), scenario->name, shown),
                        scenario->steps[i].stats.latency, 1.0, time_s);
        }
    }
    for (guint m = 0; m < metric_count (snapshot); m++) {
        const ThrongCustomMetric *metric = &snapshot->metrics[m];
        if (metric->kind == THRONG_CUSTOM_TREND)
            series_add (table, compare_row_key (COMPARE_METRIC, NULL, metric->name), metric->histogram,
                        THRONG_CUSTOM_TREND_SCALE, time_s);
    }
}

/* The figures of a histogram of values × @scale. */
static void
side_set_histogram (CompareSide *side, const ThrongHistogram *histogram, gdouble scale)
{
    if (histogram == NULL || throng_histogram_count (histogram) == 0)
        return;
    side->has_latency = TRUE;
    for (guint i = FIGURE_MEAN; i < FIGURE_COUNT; i++)
        side->has[i] = TRUE;
    side->figures[FIGURE_MEAN] = throng_histogram_mean (histogram) / scale;
    side->figures[FIGURE_P50] = (gdouble) throng_histogram_percentile (histogram, 50.0) / scale;
    side->figures[FIGURE_P90] = (gdouble) throng_histogram_percentile (histogram, 90.0) / scale;
    side->figures[FIGURE_P95] = (gdouble) throng_histogram_percentile (histogram, 95.0) / scale;
    side->figures[FIGURE_P99] = (gdouble) throng_histogram_percentile (histogram, 99.0) / scale;
    side->figures[FIGURE_MAX] = (gdouble) throng_histogram_max (histogram) / scale;
    for (guint i = 0; i < COMPARE_CURVE_POINTS; i++)
        side->curve[i] = (gdouble) throng_histogram_percentile (histogram,
                                                                compare_curve_percents[i])
                         / scale;
}

static void
side_set_stats (CompareSide *side, const ThrongStats *stats, gdouble seconds)
{
    side->present = TRUE;
    side->requests = stats->requests;
    side->errors = stats->errors;
    side->figures[FIGURE_RATE] = seconds > 0 ? (gdouble) stats->requests / seconds : 0.0;
    side->figures[FIGURE_ERROR_RATE] = throng_stats_get_error_rate (stats);
    side->has[FIGURE_RATE] = side->has[FIGURE_ERROR_RATE] = TRUE;
    side_set_histogram (side, stats->latency, 1.0);
}

/* A row; a step's or group's needs its @step_id and @shown name, the others -1 and NULL. */
static CompareRow *
row_new (CompareKind kind, const char *scenario, const char *name, gint step_id, char *shown)
{
    CompareRow *row = g_new0 (CompareRow, 1);

    row->kind = kind;
    row->scenario = g_strdup (scenario);
    row->name = g_strdup (name);
    row->step_id = step_id;
    row->shown = shown != NULL ? shown : g_strdup (name);
    switch (kind) {
    case COMPARE_TOTAL:
        row->title = g_strdup ("total");
        break;
    case COMPARE_SCENARIO:
        row->title = g_strdup (scenario);
        break;
    case COMPARE_STEP:
    case COMPARE_GROUP:
        row->title = g_strdup_printf ("%s / %s", scenario, row->shown);
        break;
    case COMPARE_METRIC:
        row->title = g_strdup_printf ("metric %s", name);
        break;
    }
    return row;
}

/* Moves the intervals read under @row's key into its baseline side. */
static void
row_take_series (CompareRow *row, GHashTable *table)
{
    g_autofree char *key = compare_row_key_of (row);
    Series *series = g_hash_table_lookup (table, key);
    CompareSide *side = &row->side[0];

    if (series != NULL) {
        side->series = g_steal_pointer (&series->series);
        side->series_time = g_steal_pointer (&series->series_time);
        return;
    }
    side->series = g_array_new (FALSE, FALSE, sizeof (gdouble));
    side->series_time = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
scenario_checks (const ThrongScenarioSummary *scenario, CompareSide *side)
{
    const ThrongScenarioJourney *journey = scenario->journey;

    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, n_checks)
        || journey->n_checks == 0)
        return;
    side->has_checks = side->has[FIGURE_CHECK_RATE] = TRUE;
    for (guint i = 0; i < journey->n_checks; i++) {
        side->check_passes += journey->checks[i].passes;
        side->check_fails += journey->checks[i].fails;
    }
    guint64 all = side->check_passes + side->check_fails;
    side->figures[FIGURE_CHECK_RATE] = all > 0 ? (gdouble) side->check_passes / (gdouble) all
                                               : 1.0;
}

static void
read_metric (CompareRow *row, const ThrongCustomMetric *metric, gdouble seconds)
{
    CompareSide *side = &row->side[0];

    side->present = TRUE;
    side->requests = metric->count;
    switch (metric->kind) {
    case THRONG_CUSTOM_COUNTER:
        side->figures[FIGURE_RATE] = seconds > 0 ? metric->sum / seconds : 0.0;
        side->has[FIGURE_RATE] = TRUE;
        break;
    case THRONG_CUSTOM_GAUGE:
        side->figures[FIGURE_MEAN] = metric->last;
        side->has[FIGURE_MEAN] = TRUE;
        break;
    case THRONG_CUSTOM_RATE:
        side->figures[FIGURE_MEAN] = metric->count > 0 ? (gdouble) metric->trues
                                                             / (gdouble) metric->count
                                                       : 0.0;
        side->has[FIGURE_MEAN] = TRUE;
        break;
    case THRONG_CUSTOM_TREND:
        side_set_histogram (side, metric->histogram, THRONG_CUSTOM_TREND_SCALE);
        break;
    }
}

/* The rows of @summary, in its order, each with the intervals read under its key. */
static void
read_rows (CompareRun *run, const ThrongSummary *summary, GHashTable *table)
{
    gint64 load_us = summary->load_us > 0 ? summary->load_us : summary->elapsed_us;
    gdouble seconds = (gdouble) load_us / G_USEC_PER_SEC;
    CompareRow *row = row_new (COMPARE_TOTAL, NULL, NULL, -1, NULL);

    side_set_stats (&row->side[0], &summary->total, seconds);
    row_take_series (row, table);
    g_ptr_array_add (run->rows, row);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        row = row_new (COMPARE_SCENARIO, scenario->name, NULL, -1, NULL);
        side_set_stats (&row->side[0], &scenario->stats, seconds);
        scenario_checks (scenario, &row->side[0]);
        row_take_series (row, table);
        g_ptr_array_add (run->rows, row);
        for (guint i = 0; i < scenario->n_steps; i++) {
            row = row_new (row_kind_of_step (scenario, i), scenario->name,
                           scenario->steps[i].label, (gint) i,
                           throng_step_display_name (scenario, i));
            side_set_stats (&row->side[0], &scenario->steps[i].stats, seconds);
            row_take_series (row, table);
            g_ptr_array_add (run->rows, row);
        }
    }
    for (guint m = 0; m < metric_count (summary); m++) {
        row = row_new (COMPARE_METRIC, NULL, summary->metrics[m].name, -1, NULL);
        read_metric (row, &summary->metrics[m], seconds);
        row_take_series (row, table);
        g_ptr_array_add (run->rows, row);
    }
}

/* Whether the run ran as planned: not stopped early, every shard there. */
static void
read_completeness (CompareRun *run, ThrongRunFile *file, const ThrongSummary *summary)
{
    const char *why = NULL;

    if (!throng_run_file_has_summary (file))
        why = "the file has no summary line (the run was killed before its end)";
    else if (summary->never_started)
        why = "the run never started";
    else if (summary->interrupted)
        why = "the run was interrupted before its planned end";
    else if (summary->partial)
        why = "a merged run with shards missing";
    run->incomplete = why != NULL;
    run->incomplete_why = g_strdup (why);
    run->saturated = summary->saturated;
}

static char *
format_start (gint64 wall_us)
{
    if (wall_us <= 0)
        return NULL;
    g_autoptr (GDateTime) time = g_date_time_new_from_unix_utc (wall_us / G_USEC_PER_SEC);
    return time != NULL ? g_date_time_format (time, "%Y-%m-%dT%H:%M:%SZ") : NULL;
}

gboolean
compare_run_read (CompareRun *run, const char *path, GError **error)
{
    g_autoptr (ThrongRunFile) file = throng_run_file_open (path, error);

    if (file == NULL)
        return FALSE;
    g_autoptr (GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) series_free);
    const ThrongSummary *snapshot;
    const ThrongSample *samples;
    gsize n_samples;
    while ((snapshot = throng_run_file_next (file, &samples, &n_samples)) != NULL
           || n_samples > 0) {
        if (snapshot == NULL)
            continue;
        read_interval (table, snapshot);
        run->intervals++;
    }
    const ThrongSummary *summary = throng_run_file_summary (file);
    const ThrongRunInfo *info = throng_run_file_info (file);
    run->path = g_strdup (path);
    run->plan_name = g_strdup (summary->plan_name != NULL ? summary->plan_name : path);
    run->plan_sha256 = g_strdup (THRONG_STRUCT_HAS (info, ThrongRunInfo, plan_sha256)
                                 ? info->plan_sha256 : NULL);
    run->start = format_start (summary->start_wall_us);
    run->duration_s = (gdouble) summary->elapsed_us / G_USEC_PER_SEC;
    run->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) compare_row_free);
    read_completeness (run, file, summary);
    read_rows (run, summary, table);
    return TRUE;
}

void
compare_side_clear (CompareSide *side)
{
    g_clear_pointer (&side->series, g_array_unref);
    g_clear_pointer (&side->series_time, g_array_unref);
}

void
compare_row_free (CompareRow *row)
{
    if (row == NULL)
        return;
    compare_side_clear (&row->side[0]);
    compare_side_clear (&row->side[1]);
    g_free (row->scenario);
    g_free (row->name);
    g_free (row->shown);
    g_free (row->title);
    g_free (row);
}

void
compare_run_clear (CompareRun *run)
{
    g_clear_pointer (&run->rows, g_ptr_array_unref);
    g_free (run->path);
    g_free (run->plan_name);
    g_free (run->plan_sha256);
    g_free (run->start);
    g_free (run->incomplete_why);
}
