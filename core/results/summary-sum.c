/* SPDX-License-Identifier: MIT */
/*
 * The summary adder (summary-sum.h): one storage for a summed summary and
 * the two rules, side by side so that what differs between them is read
 * in one place.
 */
#include "summary-sum.h"

#include <string.h>

#include "metrics.h"
#include "custom-metric-private.h"

struct _ThrongSummarySum {
    const ThrongSummary *shape;
    ThrongSummaryRule rule;
    ThrongSummary summary;
    GArray *scenarios;          /* ThrongScenarioSummary */
    GArray *steps;              /* ThrongStepSummary, every scenario's, in order */
    GArray *journeys;           /* ThrongScenarioJourney, per scenario */
    GPtrArray *checks;          /* GArray of ThrongCheckSummary, per scenario */
    GArray *retry_attempts;     /* guint64 per step, as steps */
    GArray *custom;             /* ThrongCustomMetric: the plan's own metrics, by name */
    GStringChunk *strings;      /* check names and error messages of the added summaries */
    gdouble cpu_weighted;       /* over time: the CPU share times each interval's length */
    guint count;
    const char *no_warnings[1];
};

static void
sum_clear_counts (ThrongSummarySum *sum)
{
    if (sum->scenarios == NULL)
        return;
    for (guint s = 0; s < sum->scenarios->len; s++)
        throng_stats_clear (&g_array_index (sum->scenarios, ThrongScenarioSummary, s).stats);
    for (guint i = 0; i < sum->steps->len; i++)
        throng_stats_clear (&g_array_index (sum->steps, ThrongStepSummary, i).stats);
    throng_stats_clear (&sum->summary.total);
    g_clear_pointer (&sum->scenarios, g_array_unref);
    g_clear_pointer (&sum->steps, g_array_unref);
    g_clear_pointer (&sum->journeys, g_array_unref);
    g_clear_pointer (&sum->checks, g_ptr_array_unref);
    g_clear_pointer (&sum->retry_attempts, g_array_unref);
    for (guint i = 0; i < sum->custom->len; i++)
        throng_custom_metric_clear (&g_array_index (sum->custom, ThrongCustomMetric, i));
    g_clear_pointer (&sum->custom, g_array_unref);
    g_clear_pointer (&sum->strings, g_string_chunk_free);
}

void
throng_summary_sum_reset (ThrongSummarySum *sum)
{
    const ThrongSummary *shape = sum->shape;

    sum_clear_counts (sum);
    sum->scenarios = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioSummary));
    sum->steps = g_array_new (FALSE, TRUE, sizeof (ThrongStepSummary));
    sum->journeys = g_array_new (FALSE, TRUE, sizeof (ThrongScenarioJourney));
    sum->checks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    sum->retry_attempts = g_array_new (FALSE, TRUE, sizeof (guint64));
    sum->strings = g_string_chunk_new (256);
    sum->custom = g_array_new (FALSE, TRUE, sizeof (ThrongCustomMetric));
    for (guint s = 0; s < shape->n_scenarios; s++) {
        const ThrongScenarioSummary *from = &shape->scenarios[s];
        ThrongScenarioSummary scenario = {
            .name = from->name,
            .n_steps = from->n_steps,
            /* Over time each interval's users replace the last; across shards they add. */
            .users = sum->rule == THRONG_SUMMARY_OVER_TIME ? from->users : 0,
            /* Known only if every added summary knows it. */
            .has_scheduled = TRUE,
        };
        ThrongScenarioJourney journey = {
            .size = sizeof (ThrongScenarioJourney),
            .step_info = from->journey != NULL ? from->journey->step_info : NULL,
        };
        throng_stats_init (&scenario.stats);
        g_array_append_val (sum->scenarios, scenario);
        g_array_append_val (sum->journeys, journey);
        g_ptr_array_add (sum->checks, g_array_new (FALSE, TRUE, sizeof (ThrongCheckSummary)));
        for (guint i = 0; i < from->n_steps; i++) {
            ThrongStepSummary step = { .label = from->steps[i].label,
                                       .protocol = from->steps[i].protocol };
            guint64 zero = 0;
            throng_stats_init (&step.stats);
            g_array_append_val (sum->steps, step);
            g_array_append_val (sum->retry_attempts, zero);
        }
    }
    memset (&sum->summary, 0, sizeof sum->summary);
    sum->summary.size = sizeof (ThrongSummary);
    sum->summary.plan_name = shape->plan_name;
    sum->summary.plan_file = shape->plan_file;
    sum->summary.start_wall_us = shape->start_wall_us;
    sum->summary.planned_us = shape->planned_us;
    throng_stats_init (&sum->summary.total);
    sum->cpu_weighted = 0;
    sum->count = 0;
}

ThrongSummarySum *
throng_summary_sum_new (const ThrongSummary *shape, ThrongSummaryRule rule)
{
    ThrongSummarySum *sum = g_new0 (ThrongSummarySum, 1);

    sum->shape = shape;
    sum->rule = rule;
    throng_summary_sum_reset (sum);
    return sum;
}

void
throng_summary_sum_free (ThrongSummarySum *sum)
{
    if (sum == NULL)
        return;
    sum_clear_counts (sum);
    g_free (sum);
}

/* throng_stats_merge(), with the error messages it took from @from copied into the sum. */
static void
stats_add (ThrongSummarySum *sum, ThrongStats *into, const ThrongStats *from)
{
    throng_stats_merge (into, from);
    for (guint i = 0; into->error_messages != NULL && i < THRONG_ERROR_CLASS_SLOTS; i++)
        if (from->error_messages != NULL && into->error_messages[i] != NULL
            && into->error_messages[i] == from->error_messages[i])
            into->error_messages[i] = g_string_chunk_insert_const (sum->strings,
                                                                   from->error_messages[i]);
}

/* A scenario's checks, matched by name (the summaries list the same checks in the same order:
 * the same place is looked at first). */
static void
checks_add (ThrongSummarySum *sum, guint s, const ThrongScenarioJourney *from)
{
    ThrongScenarioJourney *into = &g_array_index (sum->journeys, ThrongScenarioJourney, s);
    GArray *checks = g_ptr_array_index (sum->checks, s);

    into->data_exhausted |= from->data_exhausted;
    for (guint c = 0; c < from->n_checks; c++) {
        const ThrongCheckSummary *add = &from->checks[c];
        ThrongCheckSummary *found = NULL;

        if (c < checks->len
            && g_strcmp0 (g_array_index (checks, ThrongCheckSummary, c).name, add->name) == 0)
            found = &g_array_index (checks, ThrongCheckSummary, c);
        for (guint k = 0; found == NULL && k < checks->len; k++)
            if (g_strcmp0 (g_array_index (checks, ThrongCheckSummary, k).name, add->name) == 0)
                found = &g_array_index (checks, ThrongCheckSummary, k);
        if (found == NULL) {
            ThrongCheckSummary check = {
                .name = add->name != NULL ? g_string_chunk_insert_const (sum->strings, add->name)
                                          : NULL,
            };
            g_array_append_val (checks, check);
            found = &g_array_index (checks, ThrongCheckSummary, checks->len - 1);
        }
        found->passes += add->passes;
        found->fails += add->fails;
    }
}

/*
 * The plan's own metrics, matched by name: the same under both rules, as
 * every figure of theirs adds up (a gauge's value is the one recorded
 * last, by its wall time, whichever process recorded it).
 */
static void
custom_add (ThrongSummarySum *sum, const ThrongSummary *add)
{
    if (!THRONG_STRUCT_HAS (add, ThrongSummary, n_metrics))
        return;
    for (guint m = 0; m < add->n_metrics; m++) {
        const ThrongCustomMetric *from = &add->metrics[m];
        ThrongCustomMetric *found = NULL;

        for (guint k = 0; found == NULL && k < sum->custom->len; k++)
            if (g_strcmp0 (g_array_index (sum->custom, ThrongCustomMetric, k).name, from->name) == 0)
                found = &g_array_index (sum->custom, ThrongCustomMetric, k);
        if (found == NULL) {
            ThrongCustomMetric metric;
            throng_custom_metric_init (&metric,
                                       g_string_chunk_insert_const (sum->strings, from->name),
                                       from->kind);
            g_array_append_val (sum->custom, metric);
            found = &g_array_index (sum->custom, ThrongCustomMetric, sum->custom->len - 1);
        }
        if (found->kind == from->kind)
            throng_custom_metric_merge (found, from);
    }
}

void
throng_summary_sum_add (ThrongSummarySum *sum, const ThrongSummary *add)
{
    ThrongSummary *into = &sum->summary;
    gboolean over_time = sum->rule == THRONG_SUMMARY_OVER_TIME;

    /* The same under both rules: work done adds up, the worst of a measure of strain wins. */
    into->cpu_user_us += add->cpu_user_us;
    into->cpu_system_us += add->cpu_system_us;
    into->samples_dropped += add->samples_dropped;
    into->interrupted_iterations += add->interrupted_iterations;
    into->lag_p99_us = MAX (into->lag_p99_us, add->lag_p99_us);
    into->loop_delay_max_us = MAX (into->loop_delay_max_us, add->loop_delay_max_us);
    into->saturated |= add->saturated;
    into->interrupted |= add->interrupted;
    stats_add (sum, &into->total, &add->total);
    into->retry_attempts += throng_summary_get_retry_attempts (add);
    if (over_time) {
        /* One process, later: its clock and its workers are the latest interval's. */
        into->end_wall_us = add->end_wall_us;
        into->elapsed_us = add->elapsed_us;
        into->workers = add->workers;
        sum->cpu_weighted += add->cpu_share * (gdouble) add->interval_us;
    } else {
        /* Several processes at once: as long as the longest, as strained as the most. */
        into->end_wall_us = MAX (into->end_wall_us, add->end_wall_us);
        into->planned_us = MAX (into->planned_us, add->planned_us);
        into->interval_us = MAX (into->interval_us, add->interval_us);
        into->workers += add->workers;
        into->cpu_share = MAX (into->cpu_share, add->cpu_share);
    }

    guint base = 0;
    for (guint s = 0; s < MIN (add->n_scenarios, sum->scenarios->len); s++) {
        ThrongScenarioSummary *to = &g_array_index (sum->scenarios, ThrongScenarioSummary, s);
        const ThrongScenarioSummary *from = &add->scenarios[s];

        to->iterations += from->iterations;
        to->dropped_iterations += from->dropped_iterations;
        if (over_time) {
            to->active_users = from->active_users;
            to->scheduled_users = from->scheduled_users;
            to->scheduled_rate = from->scheduled_rate;
            to->has_scheduled = from->has_scheduled;
        } else {
            /* Each shard runs its share of the users and of the rate. */
            to->users += from->users;
            to->active_users += from->active_users;
            to->scheduled_users += from->scheduled_users;
            to->scheduled_rate += from->scheduled_rate;
            to->has_scheduled &= from->has_scheduled;
        }
        stats_add (sum, &to->stats, &from->stats);
        if (from->journey != NULL)
            checks_add (sum, s, from->journey);
        for (guint i = 0; i < MIN (from->n_steps, to->n_steps); i++) {
            stats_add (sum, &g_array_index (sum->steps, ThrongStepSummary, base + i).stats,
                       &from->steps[i].stats);
            g_array_index (sum->retry_attempts, guint64, base + i)
                += throng_journey_step_retry_attempts (from, i);
        }
        g_array_index (sum->journeys, ThrongScenarioJourney, s).retry_attempts_total
            += throng_journey_retry_attempts (from);
        base += to->n_steps;
    }
    custom_add (sum, add);
    sum->count++;
}

guint
throng_summary_sum_count (const ThrongSummarySum *sum)
{
    return sum->count;
}

ThrongSummary *
throng_summary_sum_get (ThrongSummarySum *sum)
{
    ThrongSummary *summary = &sum->summary;
    guint base = 0;

    /* Pointers into the arrays only now that they stop growing. */
    for (guint s = 0; s < sum->scenarios->len; s++) {
        ThrongScenarioSummary *scenario = &g_array_index (sum->scenarios, ThrongScenarioSummary, s);
        ThrongScenarioJourney *journey = &g_array_index (sum->journeys, ThrongScenarioJourney, s);
        GArray *checks = g_ptr_array_index (sum->checks, s);

        scenario->steps = scenario->n_steps > 0
                              ? &g_array_index (sum->steps, ThrongStepSummary, base)
                              : NULL;
        base += scenario->n_steps;
        journey->retry_attempts = scenario->n_steps > 0
                                      ? &g_array_index (sum->retry_attempts, guint64,
                                                        base - scenario->n_steps)
                                      : NULL;
        journey->checks = (const ThrongCheckSummary *) checks->data;
        journey->n_checks = checks->len;
        scenario->journey = journey;
    }
    summary->scenarios = (const ThrongScenarioSummary *) sum->scenarios->data;
    summary->n_scenarios = sum->scenarios->len;
    summary->metrics = sum->custom->len > 0 ? (const ThrongCustomMetric *) sum->custom->data : NULL;
    summary->n_metrics = sum->custom->len;
    if (summary->warnings == NULL)
        summary->warnings = sum->no_warnings;
    /* Each interval's share weighted by its length, over the run so far. */
    if (sum->rule == THRONG_SUMMARY_OVER_TIME)
        summary->cpu_share = summary->elapsed_us > 0
                                 ? sum->cpu_weighted / (gdouble) summary->elapsed_us
                                 : 0.0;
    return summary;
}

ThrongScenarioSummary *
throng_summary_sum_scenario (ThrongSummarySum *sum, guint s)
{
    g_return_val_if_fail (s < sum->scenarios->len, NULL);
    return &g_array_index (sum->scenarios, ThrongScenarioSummary, s);
}
