/* SPDX-License-Identifier: MIT */
/*
 * The capacity search (capacity-private.h, docs/capacity.md): the
 * executor's keys, the level the workers read, and the search that picks
 * the levels.  The search doubles the rate from `rate.start` until a
 * level fails an objective (or `rate.max` passes), then bisects between
 * the highest passing and the lowest failing rate until they are within
 * `precision`.  Each level is held for `step`; its first `warm_up` is left
 * out, and the rest, the window, is judged with the threshold code on a
 * summary of the window alone.  After a failing level the arrivals pause
 * until the iterations in flight have ended, so that the next level does
 * not inherit the target's queue.  A window in which throng was its own
 * bottleneck ends the search: its verdict would be the generator's.
 */
#include "capacity-private.h"

#include <math.h>
#include <string.h>

#include "schedule.h"
#include "summary-private.h"
#include "threshold.h"
#include "worker.h"

#define DEFAULT_STEP_US (10 * G_USEC_PER_SEC)
#define DEFAULT_WARM_UP_US (1 * G_USEC_PER_SEC)
#define DEFAULT_PRECISION 0.02
#define DEFAULT_MAX_USERS 1000
/* The longest pause after a failing level, waiting for its iterations to end. */
#define MAX_PAUSE_TICKS 30
/* Levels a search may hold at most: the doublings, then the bisections. */
#define MAX_BISECTIONS 30

/* --- the plan's keys ------------------------------------------------------------ */

static gboolean
parse_share (const ThrongNode *node, gdouble *out, GError **error)
{
    const char *text = throng_node_scalar (node);
    g_autofree char *copy = text != NULL ? g_strstrip (g_strdup (text)) : NULL;
    gsize length = copy != NULL ? strlen (copy) : 0;
    char *end = NULL;

    if (length >= 2 && copy[length - 1] == '%') {
        copy[length - 1] = '\0';
        gdouble value = g_ascii_strtod (copy, &end);
        if (end != NULL && *end == '\0' && isfinite (value) && value >= 0.1 && value <= 50) {
            *out = value / 100.0;
            return TRUE;
        }
    }
    throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                           "precision must be a percentage from 0.1%% to 50%%, such as 2%%");
    return FALSE;
}

gboolean
throng_capacity_parse (const ThrongNode *map, ThrongPlanScenario *scenario, GError **error)
{
    static const char *const rate_keys[] = { "start", "max", NULL };
    const ThrongNode *rate = throng_node_lookup (map, "rate");
    const ThrongNode *slo = throng_node_lookup (map, "slo");
    const ThrongNode *step = throng_node_lookup (map, "step");
    const ThrongNode *warm_up = throng_node_lookup (map, "warm_up");
    const ThrongNode *precision = throng_node_lookup (map, "precision");
    const ThrongNode *max_users = throng_node_lookup (map, "max_users");
    const ThrongNode *executor = throng_node_lookup (map, "executor");
    g_autofree ThrongCapacityPlan *plan = g_new0 (ThrongCapacityPlan, 1);

    plan->step_us = DEFAULT_STEP_US;
    plan->warm_up_us = DEFAULT_WARM_UP_US;
    plan->precision = DEFAULT_PRECISION;
    if (rate == NULL || throng_node_kind (rate) != THRONG_NODE_MAP) {
        throng_node_set_error (rate != NULL ? rate : executor, error,
                               rate != NULL ? THRONG_PLAN_ERROR_TYPE : THRONG_PLAN_ERROR_MISSING,
                               "executor capacity needs rate: {start: 50/s, max: 5000/s}");
        return FALSE;
    }
    if (!throng_node_check_keys (rate, rate_keys, "rate", error))
        return FALSE;
    const ThrongNode *start = throng_node_lookup (rate, "start");
    const ThrongNode *max = throng_node_lookup (rate, "max");
    if (start == NULL || max == NULL) {
        throng_node_set_error (rate, error, THRONG_PLAN_ERROR_MISSING,
                               "executor capacity needs rate: {start: 50/s, max: 5000/s}");
        return FALSE;
    }
    if (!throng_schedule_parse_rate (start, &plan->start_rate, error)
        || !throng_schedule_parse_rate (max, &plan->max_rate, error))
        return FALSE;
    if (plan->start_rate <= 0 || plan->max_rate < plan->start_rate) {
        throng_node_set_error (rate, error, THRONG_PLAN_ERROR_RANGE,
                               "rate.start must be more than 0/s and at most rate.max");
        return FALSE;
    }
    if (slo == NULL || throng_node_kind (slo) != THRONG_NODE_SEQUENCE
        || throng_node_n_children (slo) == 0) {
        throng_node_set_error (slo != NULL ? slo : executor, error,
                               slo != NULL ? THRONG_PLAN_ERROR_TYPE : THRONG_PLAN_ERROR_MISSING,
                               "executor capacity needs slo: a list of objectives such as "
                               "[\"p99 < 200ms\", \"errors.rate < 1%%\"]");
        return FALSE;
    }
    plan->slo = slo;
    if (step != NULL && !throng_node_get_duration (step, &plan->step_us, error))
        return FALSE;
    if (warm_up != NULL && !throng_node_get_duration (warm_up, &plan->warm_up_us, error))
        return FALSE;
    /* Levels are judged on the engine's one-second intervals. */
    if (plan->step_us < 2 * G_USEC_PER_SEC || plan->step_us > G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC) {
        throng_node_set_error (step != NULL ? step : executor, error, THRONG_PLAN_ERROR_RANGE,
                               "step must be between 2s and 1h");
        return FALSE;
    }
    if (plan->warm_up_us < 0 || plan->warm_up_us + G_USEC_PER_SEC > plan->step_us) {
        throng_node_set_error (warm_up != NULL ? warm_up : step, error,
                               THRONG_PLAN_ERROR_RANGE,
                               "warm_up must leave at least 1s of the step to judge");
        return FALSE;
    }
    if (precision != NULL && !parse_share (precision, &plan->precision, error))
        return FALSE;

    guint64 pool = DEFAULT_MAX_USERS;
    if (max_users != NULL && !throng_node_get_uint (max_users, &pool, error))
        return FALSE;
    if (pool < 1 || pool > THRONG_SCHEDULE_MAX_USERS) {
        throng_node_set_error (max_users, error, THRONG_PLAN_ERROR_RANGE,
                               "max_users must be between 1 and %d, got %" G_GUINT64_FORMAT,
                               THRONG_SCHEDULE_MAX_USERS, pool);
        return FALSE;
    }
    scenario->users = (guint) pool;
    scenario->iterations = 0;
    scenario->duration_us = 0;
    scenario->rate = plan->start_rate;
    g_mutex_init (&plan->lock);
    scenario->capacity = g_steal_pointer (&plan);
    return TRUE;
}

void
throng_capacity_plan_free (ThrongCapacityPlan *plan)
{
    if (plan == NULL)
        return;
    throng_thresholds_free (plan->objectives);
    g_mutex_clear (&plan->lock);
    g_free (plan);
}

static guint
doublings (const ThrongCapacityPlan *plan)
{
    return (guint) ceil (log2 (plan->max_rate / plan->start_rate)) + 1;
}

gint64
throng_capacity_plan_length (const ThrongCapacityPlan *plan)
{
    guint levels = doublings (plan) + MAX_BISECTIONS;

    /* Each level, a pause after each failing one (at most every bisection), and a margin. */
    return (gint64) levels * (plan->step_us + G_USEC_PER_SEC)
           + (gint64) MAX_BISECTIONS * MAX_PAUSE_TICKS * G_USEC_PER_SEC;
}

void
throng_capacity_level_get (ThrongCapacityPlan *plan, ThrongCapacityStep *out)
{
    g_mutex_lock (&plan->lock);
    *out = plan->level;
    g_mutex_unlock (&plan->lock);
}

/*
 * Called by a worker before it starts arrivals: one atomic read while the
 * level stays, the lock only when a new one was published.
 */
gboolean
throng_capacity_level_follow (ThrongCapacityPlan *plan, ThrongCapacityStep *level)
{
    if ((guint) g_atomic_int_get (&plan->published) == level->generation)
        return FALSE;
    throng_capacity_level_get (plan, level);
    return TRUE;
}

gint64
throng_capacity_level_set (ThrongCapacityPlan *plan, gdouble rate, gint64 start_us,
                           gboolean done)
{
    gint64 now = g_get_monotonic_time ();

    g_mutex_lock (&plan->lock);
    ThrongCapacityStep *level = &plan->level;
    /*
     * Not before now: workers may have started the old level's arrivals due
     * up to now, and they see the new level before their next one.  Those
     * are arrivals k <= x of the old level: the new numbers start past them.
     */
    start_us = MAX (start_us, now);
    if (level->generation > 0 && level->rate > 0 && start_us > level->start_us)
        level->first_arrival += (guint64) floor ((gdouble) (start_us - level->start_us)
                                                 * level->rate / G_USEC_PER_SEC)
                                + 1;
    level->generation++;
    level->rate = rate;
    level->start_us = start_us;
    level->done = done;
    g_atomic_int_set (&plan->published, (gint) level->generation);
    g_mutex_unlock (&plan->lock);
    return start_us;
}

/* --- the search ------------------------------------------------------------------ */

typedef enum {
    SEARCH_UP,                  /* doubling until a level fails */
    SEARCH_NARROW,              /* bisecting between lo and hi */
    SEARCH_DONE,
} SearchPhase;

struct _ThrongCapacity {
    ThrongPlan *plan;
    guint scenario_index;
    const ThrongPlanScenario *scenario;
    ThrongCapacityPlan *settings;
    SearchPhase phase;
    gdouble rate;               /* the level held, or to hold after the pause */
    gboolean pausing;           /* between a failing level and the next */
    guint pause_ticks;
    gint64 level_start_us;
    guint ticks;                /* complete intervals of the level so far */
    guint step_ticks;
    guint warm_up_ticks;
    ThrongMetrics *window;
    gint64 window_start_us;
    gint64 window_us;
    guint window_intervals;
    guint saturated_intervals;
    gboolean held_again;        /* the level is held a second time (a doubtful failure) */
    gdouble lo;                 /* highest passing rate; 0: none yet */
    gdouble hi;                 /* lowest failing rate; 0: none yet */

    ThrongCapacityResult result;
    GArray *levels;             /* ThrongCapacityLevel */
    GPtrArray *strings;         /* what the levels and the result point to */
    GPtrArray *objectives;      /* char*, NULL-terminated */
};

ThrongCapacity *
throng_capacity_new (ThrongPlan *plan, gint64 start_us)
{
    for (guint s = 0; s < plan->scenarios->len; s++) {
        ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        if (scenario->executor != THRONG_EXECUTOR_CAPACITY)
            continue;
        ThrongCapacity *capacity = g_new0 (ThrongCapacity, 1);
        capacity->plan = plan;
        capacity->scenario_index = s;
        capacity->scenario = scenario;
        capacity->settings = scenario->capacity;
        capacity->rate = capacity->settings->start_rate;
        capacity->step_ticks = (guint) ((capacity->settings->step_us + G_USEC_PER_SEC / 2)
                                        / G_USEC_PER_SEC);
        capacity->warm_up_ticks = (guint) ((capacity->settings->warm_up_us + G_USEC_PER_SEC / 2)
                                           / G_USEC_PER_SEC);
        capacity->warm_up_ticks = MIN (capacity->warm_up_ticks, capacity->step_ticks - 1);
        capacity->window = throng_plan_metrics_new (plan);
        capacity->levels = g_array_new (FALSE, TRUE, sizeof (ThrongCapacityLevel));
        capacity->strings = g_ptr_array_new_with_free_func (g_free);
        capacity->objectives = g_ptr_array_new_with_free_func (g_free);
        capacity->level_start_us = start_us + scenario->start_after_us;
        capacity->result.outcome = THRONG_CAPACITY_INCOMPLETE;
        capacity->level_start_us = throng_capacity_level_set (
            capacity->settings, capacity->rate, capacity->level_start_us, FALSE);
        return capacity;
    }
    return NULL;
}

void
throng_capacity_free (ThrongCapacity *capacity)
{
    if (capacity == NULL)
        return;
    throng_metrics_free (capacity->window);
    g_array_unref (capacity->levels);
    g_ptr_array_unref (capacity->strings);
    g_ptr_array_unref (capacity->objectives);
    g_free (capacity);
}

static const char *
keep (ThrongCapacity *capacity, char *text)
{
    g_ptr_array_add (capacity->strings, text);
    return text;
}

/* "196/s", "12.5/s", "41,000/s": the figure people read. */
static char *
format_rate (gdouble rate)
{
    if (rate < 10)
        return g_strdup_printf ("%.2f/s", rate);
    if (rate < 1000)
        return g_strdup_printf ("%.0f/s", rate);
    guint64 whole = (guint64) llround (rate);
    GString *text = g_string_new (NULL);
    g_string_printf (text, "%" G_GUINT64_FORMAT, whole);
    for (gssize at = (gssize) text->len - 3; at > 0; at -= 3)
        g_string_insert_c (text, at, ',');
    g_string_append (text, "/s");
    return g_string_free (text, FALSE);
}

static void
publish (ThrongCapacity *capacity, gdouble rate, gint64 now_us, gboolean done)
{
    capacity->level_start_us = throng_capacity_level_set (capacity->settings, rate, now_us, done);
    capacity->ticks = 0;
    capacity->window_us = 0;
    capacity->window_intervals = 0;
    capacity->saturated_intervals = 0;
    throng_metrics_reset (capacity->window);
}

static void
finish_search (ThrongCapacity *capacity, ThrongCapacityOutcome outcome, gint64 now_us)
{
    capacity->phase = SEARCH_DONE;
    capacity->result.outcome = outcome;
    publish (capacity, 0, now_us, TRUE);
}

/*
 * The window judged: the objectives on a summary of the window alone,
 * whether throng was the limit in it.  Appends the level to the curve.
 */
static ThrongCapacityLevel *
judge_window (ThrongCapacity *capacity, const ThrongSummary *snapshot, gint64 now_us)
{
    ThrongSummaryBuffer buffer = { 0 };
    ThrongSummaryRun run = {
        .plan = capacity->plan,
        .start_us = capacity->window_start_us,
        .end_us = now_us,
        .start_wall_us = snapshot->start_wall_us,
        .workers = snapshot->workers,
        .started = TRUE,
    };
    ThrongCapacityLevel level = {
        .rate = capacity->rate,
        .window_us = capacity->window_us,
        .passed = TRUE,
    };

    throng_summary_buffer_fill (&buffer, &run, capacity->window, NULL, capacity->window_us);
    throng_summary_buffer_finish (&buffer);
    const ThrongScenarioSummary *row = &buffer.summary.scenarios[capacity->scenario_index];
    level.start_us = capacity->level_start_us - (now_us - snapshot->elapsed_us);
    level.requests = row->stats.requests;
    level.errors = row->stats.errors;
    level.error_rate = throng_stats_get_error_rate (&row->stats);
    level.p50_us = throng_histogram_percentile (row->stats.latency, 50.0);
    level.p99_us = throng_histogram_percentile (row->stats.latency, 99.0);
    level.dropped = capacity->window->dropped[capacity->scenario_index];

    ThrongThresholds *objectives = capacity->settings->objectives;
    const ThrongThresholdResult *results = throng_thresholds_evaluate (objectives,
                                                                       &buffer.summary);
    if (capacity->objectives->len == 0) {
        for (guint i = 0; i < throng_thresholds_count (objectives); i++)
            g_ptr_array_add (capacity->objectives, g_strdup (results[i].expression));
        g_ptr_array_add (capacity->objectives, NULL);
    }
    for (guint i = 0; i < throng_thresholds_count (objectives) && level.passed; i++) {
        if (results[i].passed)
            continue;
        level.passed = FALSE;
        level.failed = keep (capacity, g_strdup_printf ("%s: %s", results[i].expression,
                                                        results[i].actual));
    }
    if (level.requests == 0 && level.passed) {
        level.passed = FALSE;
        level.failed = "no request completed in the window";
    }
    /* throng was the limit: most of the window's intervals saturated, or
     * iterations dropped for want of a free user while the objectives held
     * (with the target over its capacity, drops follow from its queue). */
    if (capacity->saturated_intervals * 2 > capacity->window_intervals) {
        level.saturated = TRUE;
        level.failed = keep (capacity, g_strdup_printf (
                                           "throng saturated in %u of %u intervals",
                                           capacity->saturated_intervals,
                                           capacity->window_intervals));
    } else if (level.dropped > 0 && level.passed) {
        level.saturated = TRUE;
        level.failed = keep (capacity, g_strdup_printf (
                                           "%" G_GUINT64_FORMAT " iterations dropped: all %u "
                                           "users busy (raise max_users)",
                                           level.dropped, capacity->scenario->users));
    }
    if (level.saturated)
        level.passed = FALSE;
    else if (!level.passed && capacity->saturated_intervals > 0 && !capacity->held_again)
        level.failed = keep (capacity, g_strdup_printf ("%s; held again, throng saturated in %u "
                                                        "of %u intervals",
                                                        level.failed,
                                                        capacity->saturated_intervals,
                                                        capacity->window_intervals));
    throng_summary_buffer_clear (&buffer);
    g_array_append_val (capacity->levels, level);
    return &g_array_index (capacity->levels, ThrongCapacityLevel, capacity->levels->len - 1);
}

/* The level after @level, or the end of the search. */
static void
next_level (ThrongCapacity *capacity, const ThrongCapacityLevel *level, gint64 now_us)
{
    const ThrongCapacityPlan *settings = capacity->settings;

    if (level->saturated) {
        capacity->result.generator_limit = level->rate;
        finish_search (capacity, THRONG_CAPACITY_GENERATOR_LIMIT, now_us);
        return;
    }
    /* A failure in a window where throng saturated at times may be throng's: the level is
     * held once more before it counts. */
    if (!level->passed && capacity->saturated_intervals > 0 && !capacity->held_again) {
        capacity->held_again = TRUE;
        capacity->pausing = TRUE;
        capacity->pause_ticks = 0;
        publish (capacity, 0, now_us, FALSE);
        return;
    }
    capacity->held_again = FALSE;
    if (level->passed)
        capacity->lo = level->rate;
    else
        capacity->hi = level->rate;

    if (capacity->phase == SEARCH_UP) {
        if (level->passed && level->rate >= settings->max_rate) {
            finish_search (capacity, THRONG_CAPACITY_ABOVE_MAX, now_us);
            return;
        }
        if (!level->passed && capacity->lo == 0) {
            finish_search (capacity, THRONG_CAPACITY_BELOW_START, now_us);
            return;
        }
        if (level->passed) {
            capacity->rate = MIN (level->rate * 2, settings->max_rate);
        } else {
            capacity->phase = SEARCH_NARROW;
        }
    }
    if (capacity->phase == SEARCH_NARROW) {
        if ((capacity->hi - capacity->lo) / capacity->lo <= settings->precision) {
            finish_search (capacity, THRONG_CAPACITY_FOUND, now_us);
            return;
        }
        capacity->rate = (capacity->lo + capacity->hi) / 2;
    }
    if (!level->passed) {
        /* The target's queue drains before the next level starts. */
        capacity->pausing = TRUE;
        capacity->pause_ticks = 0;
        publish (capacity, 0, now_us, FALSE);
        return;
    }
    publish (capacity, capacity->rate, now_us, FALSE);
}

void
throng_capacity_tick (ThrongCapacity *capacity, const ThrongSummary *snapshot,
                      ThrongMetrics *interval, gint64 now_us)
{
    if (capacity == NULL || capacity->phase == SEARCH_DONE)
        return;
    /* Only intervals wholly inside the level count (start_after). */
    if (now_us - snapshot->interval_us < capacity->level_start_us - 1000)
        return;
    if (capacity->pausing) {
        const ThrongScenarioSummary *row = &snapshot->scenarios[capacity->scenario_index];
        if (row->active_users > 0 && ++capacity->pause_ticks < MAX_PAUSE_TICKS)
            return;
        capacity->pausing = FALSE;
        publish (capacity, capacity->rate, now_us, FALSE);
        return;
    }
    capacity->ticks++;
    if (capacity->ticks == capacity->warm_up_ticks + 1)
        capacity->window_start_us = now_us - snapshot->interval_us;
    if (capacity->ticks > capacity->warm_up_ticks) {
        throng_metrics_merge (capacity->window, interval);
        capacity->window_us += snapshot->interval_us;
        capacity->window_intervals++;
        if (snapshot->saturated)
            capacity->saturated_intervals++;
    }
    if (capacity->ticks < capacity->step_ticks)
        return;
    next_level (capacity, judge_window (capacity, snapshot, now_us), now_us);
}

void
throng_capacity_finish (ThrongCapacity *capacity, ThrongSummary *summary, GPtrArray *warnings)
{
    ThrongCapacityResult *result = &capacity->result;
    g_autofree char *rate = format_rate (capacity->lo);
    g_autofree char *failing = format_rate (capacity->hi);
    g_autofree char *limit = format_rate (result->generator_limit);

    if (capacity->objectives->len == 0) {
        for (guint i = 0; i < throng_thresholds_count (capacity->settings->objectives); i++)
            g_ptr_array_add (capacity->objectives,
                             g_strdup (throng_node_scalar (throng_node_child (
                                 capacity->settings->slo, i))));
        g_ptr_array_add (capacity->objectives, NULL);
    }
    result->size = sizeof *result;
    result->scenario = capacity->scenario->name;
    result->rate = capacity->lo;
    result->failing_rate = capacity->hi;
    result->objectives = (const char *const *) capacity->objectives->pdata;
    result->levels = (const ThrongCapacityLevel *) capacity->levels->data;
    result->n_levels = capacity->levels->len;
    g_autofree char *slo = g_strjoinv (", ", (char **) capacity->objectives->pdata);
    switch (result->outcome) {
    case THRONG_CAPACITY_FOUND:
        result->message = keep (capacity, g_strdup_printf ("capacity %s (%s); first failing "
                                                           "level %s",
                                                           rate, slo, failing));
        break;
    case THRONG_CAPACITY_ABOVE_MAX:
        result->message = keep (capacity, g_strdup_printf ("capacity at least %s (%s): every "
                                                           "level up to rate.max passed",
                                                           rate, slo));
        break;
    case THRONG_CAPACITY_BELOW_START:
        result->message = keep (capacity, g_strdup_printf ("capacity below %s (%s): the first "
                                                           "level failed",
                                                           failing, slo));
        break;
    case THRONG_CAPACITY_GENERATOR_LIMIT:
        result->message = keep (capacity, g_strdup_printf ("the generator is the limit at %s; "
                                                           "add workers or shards (no capacity "
                                                           "found: %s passed below it)",
                                                           limit, capacity->lo > 0 ? rate
                                                                                    : "no level"));
        break;
    case THRONG_CAPACITY_INCOMPLETE:
    default:
        result->message = keep (capacity, g_strdup_printf ("capacity search incomplete: the run "
                                                           "ended first (%s passed so far)",
                                                           capacity->lo > 0 ? rate : "no level"));
        break;
    }
    /* The result is the summary's; only a search that found no capacity is a warning. */
    if (result->outcome == THRONG_CAPACITY_GENERATOR_LIMIT
        || result->outcome == THRONG_CAPACITY_INCOMPLETE)
        g_ptr_array_add (warnings, g_strdup_printf ("scenario %s: %s", result->scenario,
                                                    result->message));
    summary->capacity = result;
}
