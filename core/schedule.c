/* SPDX-License-Identifier: MIT */
/*
 * A scenario's schedule as the plan writes it: its executor (closed model
 * with fixed or staged users, open model with a constant or staged
 * arrival rate), when it starts, how users pause and pace, and how long
 * iterations may outlive its end.  Parsed into ThrongPlanScenario with
 * located errors.  The maths at the end turn it into times (a user's
 * start, a stage's wish, an arrival's due time, a think time), which
 * user.c and arrivals.c arm as timers.
 */
#include "schedule.h"

#include "capacity-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RATE 10000000.0         /* iterations per second */
#define MAX_STAGES 1000

static const char *const executor_names[] = {
    [THRONG_EXECUTOR_USERS] = "users",
    [THRONG_EXECUTOR_RAMPING_USERS] = "ramping-users",
    [THRONG_EXECUTOR_CONSTANT_RATE] = "constant-arrival-rate",
    [THRONG_EXECUTOR_RAMPING_RATE] = "ramping-arrival-rate",
    [THRONG_EXECUTOR_CAPACITY] = "capacity",
};

gint64
throng_plan_scenario_length (const ThrongPlanScenario *scenario)
{
    if (scenario->stages != NULL && (scenario->executor == THRONG_EXECUTOR_RAMPING_USERS
                                     || scenario->executor == THRONG_EXECUTOR_RAMPING_RATE)) {
        gint64 total = 0;
        for (guint i = 0; i < scenario->stages->len; i++)
            total += g_array_index (scenario->stages, ThrongStage, i).duration_us;
        return total;
    }
    if (scenario->executor == THRONG_EXECUTOR_CAPACITY)
        return throng_capacity_plan_length (scenario->capacity);
    return scenario->duration_us;
}

gboolean
throng_schedule_is_open (const ThrongPlanScenario *scenario)
{
    return scenario->executor == THRONG_EXECUTOR_CONSTANT_RATE
           || scenario->executor == THRONG_EXECUTOR_RAMPING_RATE
           || scenario->executor == THRONG_EXECUTOR_CAPACITY;
}

/* "500/s", "30/m" or "2/h"; a number without a unit only when it is 0. */
gboolean
throng_schedule_parse_rate (const ThrongNode *node, gdouble *out, GError **error)
{
    const char *text = throng_node_scalar (node);
    gdouble per = 1.0;

    if (text == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a rate such as 500/s, got a %s",
                               throng_node_kind (node) == THRONG_NODE_MAP ? "map" : "list");
        return FALSE;
    }
    g_autofree char *copy = g_strstrip (g_strdup (text));
    char *slash = strchr (copy, '/');
    if (slash != NULL) {
        const char *unit = slash + 1;
        if (strcmp (unit, "s") == 0)
            per = 1.0;
        else if (strcmp (unit, "m") == 0)
            per = 60.0;
        else if (strcmp (unit, "h") == 0)
            per = 3600.0;
        else {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a rate such as 500/s, 30/m or 2/h, got '%s'", text);
            return FALSE;
        }
        *slash = '\0';
    }
    char *end = NULL;
    gdouble value = g_ascii_strtod (copy, &end);
    if (copy[0] == '\0' || end == NULL || *end != '\0' || !isfinite (value)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a rate such as 500/s, 30/m or 2/h, got '%s'", text);
        return FALSE;
    }
    if (slash == NULL && value != 0) {
        /* As durations: a number alone could be meant per second or per minute. */
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a rate such as 500/s, 30/m or 2/h, got '%s' (the unit "
                               "is missing; did you mean %s/s?)",
                               text, copy);
        return FALSE;
    }
    value /= per;
    if (value < 0 || value > MAX_RATE) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "rate must be between 0/s and %.0f/s, got '%s'", MAX_RATE, text);
        return FALSE;
    }
    *out = value;
    return TRUE;
}

gboolean
throng_schedule_parse_think (const ThrongNode *node, ThrongThinkTime *out, GError **error)
{
    const char *text = throng_node_scalar (node);
    ThrongThinkTime think = { THRONG_THINK_CONSTANT, 0, 0 };
    const gint64 limit = (gint64) 3600 * G_USEC_PER_SEC;

    if (text == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a think time such as 100ms, 100ms..300ms or ~100ms");
        return FALSE;
    }
    g_autofree char *copy = g_strstrip (g_strdup (text));
    char *dots = strstr (copy, "..");
    g_autoptr (GError) local = NULL;

    if (dots != NULL) {
        *dots = '\0';
        g_strstrip (copy);
        char *upper = g_strstrip (dots + 2);
        think.kind = THRONG_THINK_UNIFORM;
        if (!throng_parse_duration (copy, &think.min_us, &local)
            || !throng_parse_duration (upper, &think.max_us, &local)) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a think time range such as 100ms..300ms, got '%s'",
                                   text);
            return FALSE;
        }
        if (think.max_us < think.min_us) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                                   "think_time range '%s' ends before it starts", text);
            return FALSE;
        }
    } else if (copy[0] == '~') {
        think.kind = THRONG_THINK_EXPONENTIAL;
        if (!throng_parse_duration (g_strstrip (copy + 1), &think.min_us, &local)) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected an exponential think time's mean such as ~100ms, "
                                   "got '%s'",
                                   text);
            return FALSE;
        }
    } else if (!throng_parse_duration (copy, &think.min_us, &local)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a think time such as 100ms, 100ms..300ms or ~100ms, "
                               "got '%s'",
                               text);
        return FALSE;
    }
    if (think.min_us < 0 || think.min_us > limit || think.max_us > limit) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "think_time must be between 0 and 1h, got '%s'", text);
        return FALSE;
    }
    *out = think;
    return TRUE;
}

static const ThrongNode *
find_key (const ThrongNode *map, const char *name)
{
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        if (g_strcmp0 (throng_node_scalar (key), name) == 0)
            return key;
    }
    return NULL;
}

static gboolean
refuse_key (const ThrongNode *map, const char *name, const char *executor, const char *instead,
            GError **error)
{
    const ThrongNode *key = find_key (map, name);

    if (key == NULL)
        return TRUE;
    throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                           "'%s' does not apply to executor %s%s%s", name, executor,
                           instead != NULL ? "; " : "", instead != NULL ? instead : "");
    return FALSE;
}

static gboolean
parse_stages (const ThrongNode *node, const char *target_key, GArray **out, GError **error)
{
    if (throng_node_kind (node) != THRONG_NODE_SEQUENCE || throng_node_n_children (node) == 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "stages must be a non-empty list such as "
                               "[{duration: 30s, %s: %s}]",
                               target_key, strcmp (target_key, "rate") == 0 ? "100/s" : "10");
        return FALSE;
    }
    if (throng_node_n_children (node) > MAX_STAGES) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_LIMIT,
                               "at most %d stages", MAX_STAGES);
        return FALSE;
    }
    g_autoptr (GArray) stages = g_array_new (FALSE, TRUE, sizeof (ThrongStage));
    const char *const keys[] = { "duration", target_key, NULL };
    gint64 total = 0;

    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *item = throng_node_child (node, i);
        ThrongStage stage = { 0 };

        if (!throng_node_check_keys (item, keys, "stage", error))
            return FALSE;
        const ThrongNode *duration = throng_node_lookup (item, "duration");
        const ThrongNode *target = throng_node_lookup (item, target_key);
        if (duration == NULL || target == NULL) {
            throng_node_set_error (item, error, THRONG_PLAN_ERROR_MISSING,
                                   "a stage needs both 'duration' and '%s'",
                                   duration == NULL ? "duration" : target_key);
            return FALSE;
        }
        if (!throng_node_get_duration (duration, &stage.duration_us, error))
            return FALSE;
        if (stage.duration_us <= 0) {
            throng_node_set_error (duration, error, THRONG_PLAN_ERROR_RANGE,
                                   "a stage's duration must be more than 0");
            return FALSE;
        }
        if (strcmp (target_key, "rate") == 0) {
            if (!throng_schedule_parse_rate (target, &stage.target, error))
                return FALSE;
        } else {
            guint64 users;
            if (!throng_node_get_uint (target, &users, error))
                return FALSE;
            if (users > THRONG_SCHEDULE_MAX_USERS) {
                throng_node_set_error (target, error, THRONG_PLAN_ERROR_RANGE,
                                       "users must be between 0 and %d, got %" G_GUINT64_FORMAT,
                                       THRONG_SCHEDULE_MAX_USERS, users);
                return FALSE;
            }
            stage.target = (gdouble) users;
        }
        total += stage.duration_us;
        if (total > THRONG_SCHEDULE_MAX_LENGTH_US) {
            throng_node_set_error (duration, error, THRONG_PLAN_ERROR_RANGE,
                                   "the stages last more than 30 days");
            return FALSE;
        }
        g_array_append_val (stages, stage);
    }
    *out = g_steal_pointer (&stages);
    return TRUE;
}

static gboolean
parse_duration_key (const ThrongNode *map, const char *name, gint64 min, gint64 max,
                    gint64 *out, GError **error)
{
    const ThrongNode *node = throng_node_lookup (map, name);
    gint64 value;

    if (node == NULL)
        return TRUE;
    if (!throng_node_get_duration (node, &value, error))
        return FALSE;
    if (value < min || value > max) {
        throng_node_set_error (
            node, error, THRONG_PLAN_ERROR_RANGE, "%s must be between %s and %s, got '%s'", name,
            min == 0 ? "0" : "1ms", max >= THRONG_SCHEDULE_MAX_LENGTH_US ? "30 days" : "1h",
            throng_node_scalar (node));
        return FALSE;
    }
    *out = value;
    return TRUE;
}

gboolean
throng_schedule_parse (const ThrongNode *map, ThrongPlanScenario *scenario, GError **error)
{
    const ThrongNode *executor = throng_node_lookup (map, "executor");
    const gint64 hour = (gint64) 3600 * G_USEC_PER_SEC;

    scenario->executor = THRONG_EXECUTOR_USERS;
    scenario->graceful_stop_us = 10 * G_USEC_PER_SEC;
    if (executor != NULL) {
        const char *name = throng_node_scalar (executor);
        guint i;
        if (name == NULL) {
            throng_node_set_error (executor, error, THRONG_PLAN_ERROR_TYPE,
                                   "executor must be a name: users, ramping-users, "
                                   "constant-arrival-rate, ramping-arrival-rate or capacity");
            return FALSE;
        }
        for (i = 0; i < G_N_ELEMENTS (executor_names); i++)
            if (g_strcmp0 (name, executor_names[i]) == 0)
                break;
        if (i == G_N_ELEMENTS (executor_names)) {
            throng_node_set_error (executor, error, THRONG_PLAN_ERROR_INVALID,
                                   "unknown executor '%s'; expected users, ramping-users, "
                                   "constant-arrival-rate, ramping-arrival-rate or capacity",
                                   name != NULL ? name : "");
            return FALSE;
        }
        scenario->executor = (ThrongExecutor) i;
    }
    const char *executor_name = executor_names[scenario->executor];

    if (!parse_duration_key (map, "start_after", 0, THRONG_SCHEDULE_MAX_LENGTH_US,
                             &scenario->start_after_us, error)
        || !parse_duration_key (map, "graceful_stop", 0, hour, &scenario->graceful_stop_us, error)
        || !parse_duration_key (map, "pacing", 0, hour, &scenario->pacing_us, error))
        return FALSE;

    const ThrongNode *think = throng_node_lookup (map, "think_time");
    if (think != NULL) {
        if (!throng_schedule_parse_think (think, &scenario->think, error))
            return FALSE;
        scenario->think_time_us = scenario->think.min_us;
    }

    const ThrongNode *stages = throng_node_lookup (map, "stages");
    const ThrongNode *rate = throng_node_lookup (map, "rate");
    const ThrongNode *max_users = throng_node_lookup (map, "max_users");
    static const char *const capacity_keys[] = { "slo", "step", "warm_up", "precision", NULL };

    for (guint i = 0; scenario->executor != THRONG_EXECUTOR_CAPACITY && capacity_keys[i]; i++)
        if (!refuse_key (map, capacity_keys[i], executor_name, "it is a key of executor capacity",
                         error))
            return FALSE;
    switch (scenario->executor) {
    case THRONG_EXECUTOR_CAPACITY:
        if (!refuse_key (map, "iterations", executor_name, "the search sets them", error)
            || !refuse_key (map, "duration", executor_name, "the search sets its length", error)
            || !refuse_key (map, "stages", executor_name, "the search sets the rate", error)
            || !refuse_key (map, "ramp_up", executor_name, "warm_up is its ramp", error)
            || !refuse_key (map, "pacing", executor_name, "the rate paces iterations", error)
            || !refuse_key (map, "users", executor_name, "use max_users", error))
            return FALSE;
        return throng_capacity_parse (map, scenario, error);
    case THRONG_EXECUTOR_USERS:
        if (!refuse_key (map, "stages", executor_name, "set executor: ramping-users", error)
            || !refuse_key (map, "rate", executor_name, "set executor: constant-arrival-rate",
                            error)
            || !refuse_key (map, "max_users", executor_name, "use users", error))
            return FALSE;
        return TRUE;
    case THRONG_EXECUTOR_RAMPING_USERS:
        if (!refuse_key (map, "iterations", executor_name, "stages set its length", error)
            || !refuse_key (map, "duration", executor_name, "stages set its length", error)
            || !refuse_key (map, "ramp_up", executor_name, "stages ramp it", error)
            || !refuse_key (map, "rate", executor_name, NULL, error)
            || !refuse_key (map, "max_users", executor_name, NULL, error)
            || !refuse_key (map, "users", executor_name, "stages give the users", error))
            return FALSE;
        if (stages == NULL) {
            throng_node_set_error (executor, error, THRONG_PLAN_ERROR_MISSING,
                                   "executor ramping-users needs stages, e.g. "
                                   "[{duration: 30s, users: 100}]");
            return FALSE;
        }
        if (!parse_stages (stages, "users", &scenario->stages, error))
            return FALSE;
        gdouble most = 0;
        for (guint i = 0; i < scenario->stages->len; i++)
            most = MAX (most, g_array_index (scenario->stages, ThrongStage, i).target);
        if (most < 1) {
            throng_node_set_error (stages, error, THRONG_PLAN_ERROR_RANGE,
                                   "no stage has any users");
            return FALSE;
        }
        scenario->users = (guint) most;
        scenario->iterations = 0;
        scenario->duration_us = 0;
        scenario->ramp_up_us = 0;
        return TRUE;
    case THRONG_EXECUTOR_CONSTANT_RATE:
    case THRONG_EXECUTOR_RAMPING_RATE: {
        gboolean ramping = scenario->executor == THRONG_EXECUTOR_RAMPING_RATE;
        if (!refuse_key (map, "iterations", executor_name, "the rate and length set them", error)
            || !refuse_key (map, "ramp_up", executor_name, NULL, error)
            || !refuse_key (map, "pacing", executor_name, "the rate paces iterations", error)
            || !refuse_key (map, "users", executor_name, "use max_users", error))
            return FALSE;
        if (ramping) {
            if (!refuse_key (map, "duration", executor_name, "stages set its length", error))
                return FALSE;
            if (stages == NULL) {
                throng_node_set_error (executor, error, THRONG_PLAN_ERROR_MISSING,
                                       "executor ramping-arrival-rate needs stages, e.g. "
                                       "[{duration: 30s, rate: 100/s}]");
                return FALSE;
            }
            if (!parse_stages (stages, "rate", &scenario->stages, error))
                return FALSE;
            scenario->rate = 0;
            if (rate != NULL && !throng_schedule_parse_rate (rate, &scenario->rate, error))
                return FALSE;
            scenario->duration_us = 0;
        } else {
            if (!refuse_key (map, "stages", executor_name, "set executor: ramping-arrival-rate",
                             error))
                return FALSE;
            if (rate == NULL || throng_node_lookup (map, "duration") == NULL) {
                throng_node_set_error (executor, error, THRONG_PLAN_ERROR_MISSING,
                                       "executor constant-arrival-rate needs rate and duration");
                return FALSE;
            }
            if (!throng_schedule_parse_rate (rate, &scenario->rate, error))
                return FALSE;
            if (scenario->rate <= 0) {
                throng_node_set_error (rate, error, THRONG_PLAN_ERROR_RANGE,
                                       "rate must be more than 0/s");
                return FALSE;
            }
        }
        if (max_users == NULL) {
            throng_node_set_error (executor, error, THRONG_PLAN_ERROR_MISSING,
                                   "executor %s needs max_users: the most iterations that may "
                                   "run at once",
                                   executor_name);
            return FALSE;
        }
        guint64 pool;
        if (!throng_node_get_uint (max_users, &pool, error))
            return FALSE;
        if (pool < 1 || pool > THRONG_SCHEDULE_MAX_USERS) {
            throng_node_set_error (max_users, error, THRONG_PLAN_ERROR_RANGE,
                                   "max_users must be between 1 and %d, got %" G_GUINT64_FORMAT,
                                   THRONG_SCHEDULE_MAX_USERS, pool);
            return FALSE;
        }
        scenario->users = (guint) pool;
        scenario->iterations = 0;
        return TRUE;
    }
    }
    return TRUE;
}

static gboolean
parse_share (const ThrongNode *node, gdouble *out, GError **error)
{
    const char *text = throng_node_scalar (node);
    g_autofree char *copy = text != NULL ? g_strstrip (g_strdup (text)) : NULL;
    gsize length = copy != NULL ? strlen (copy) : 0;

    if (length < 2 || copy[length - 1] != '%') {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a percentage such as 90%%");
        return FALSE;
    }
    copy[length - 1] = '\0';
    char *end = NULL;
    gdouble value = g_ascii_strtod (copy, &end);
    if (end == NULL || *end != '\0' || !isfinite (value) || value <= 0 || value > 100) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "expected a percentage over 0%% and at most 100%%, got '%s'", text);
        return FALSE;
    }
    *out = value / 100.0;
    return TRUE;
}

gboolean
throng_schedule_parse_saturation (const ThrongNode *node, gdouble *cpu_share, gint64 *lag_us,
                                  GError **error)
{
    const char *const keys[] = { "cpu", "lag", NULL };

    *cpu_share = 0.9;
    *lag_us = 10 * 1000;
    if (node == NULL || throng_node_is_null (node))
        return TRUE;
    if (!throng_node_check_keys (node, keys, "saturation", error))
        return FALSE;
    const ThrongNode *cpu = throng_node_lookup (node, "cpu");
    const ThrongNode *lag = throng_node_lookup (node, "lag");
    gdouble share = *cpu_share;
    gint64 lag_value = *lag_us;
    if (cpu != NULL && !parse_share (cpu, &share, error))
        return FALSE;
    if (lag != NULL && !throng_node_get_duration (lag, &lag_value, error))
        return FALSE;
    *cpu_share = share;
    *lag_us = lag_value;
    return TRUE;
}

/* --- the maths the workers run ------------------------------------------------ */

/* The stage level (users or rate) at @t into a ramping scenario, rising from @start_level. */
static gdouble
stage_level (const GArray *stages, gdouble start_level, gint64 t)
{
    gdouble level = start_level;
    gint64 begin = 0;

    for (guint i = 0; i < stages->len; i++) {
        const ThrongStage *stage = &g_array_index (stages, ThrongStage, i);
        if (t < begin + stage->duration_us)
            return level + (stage->target - level) * (gdouble) (t - begin)
                               / (gdouble) stage->duration_us;
        level = stage->target;
        begin += stage->duration_us;
    }
    return level;
}

gboolean
throng_schedule_stage_wants (const ThrongPlanScenario *scenario, guint id, gint64 t)
{
    return stage_level (scenario->stages, 0.0, t) >= (gdouble) id + 1.0 - 1e-9;
}

gint64
throng_schedule_stage_next_wanted (const ThrongPlanScenario *scenario, guint id, gint64 t)
{
    gdouble need = (gdouble) id + 1.0;
    gdouble level = 0.0;
    gint64 begin = 0;

    for (guint i = 0; i < scenario->stages->len; i++) {
        const ThrongStage *stage = &g_array_index (scenario->stages, ThrongStage, i);
        gint64 end = begin + stage->duration_us;
        if (end > t && stage->target >= need - 1e-9) {
            gint64 from = MAX (t, begin);
            if (stage_level (scenario->stages, 0.0, from) >= need - 1e-9)
                return from;
            /* Rising through `need` inside this stage. */
            gdouble crossing = (gdouble) begin + (need - level) / (stage->target - level)
                                                     * (gdouble) stage->duration_us;
            gint64 when = (gint64) ceil (crossing);
            return MAX (when, from);
        }
        level = stage->target;
        begin = end;
    }
    return -1;
}

gint64
throng_schedule_first_start (const ThrongPlanScenario *scenario, guint id)
{
    switch (scenario->executor) {
    case THRONG_EXECUTOR_USERS:
        /* Linear ramp-up: user i of n starts at ramp_up * i / n. */
        if (scenario->ramp_up_us > 0 && scenario->users > 1)
            return scenario->ramp_up_us * (gint64) id / (gint64) scenario->users;
        return 0;
    case THRONG_EXECUTOR_RAMPING_USERS:
        return throng_schedule_stage_next_wanted (scenario, id, 0);
    case THRONG_EXECUTOR_CONSTANT_RATE:
    case THRONG_EXECUTOR_RAMPING_RATE:
    default:
        return 0;
    }
}

/*
 * Constant rate: k / rate.  Ramping: the time at which the rate's
 * integral over the stages reaches k.
 */
gint64
throng_schedule_arrival_offset (const ThrongPlanScenario *scenario, guint64 k)
{
    gdouble n = (gdouble) k;

    if (scenario->executor == THRONG_EXECUTOR_CONSTANT_RATE) {
        gdouble t = n / scenario->rate * G_USEC_PER_SEC;
        return t < (gdouble) scenario->duration_us ? (gint64) t : -1;
    }

    gdouble rate = scenario->rate;
    gdouble done = 0.0;             /* arrivals due before this stage */
    gdouble begin = 0.0;            /* the stage's start, s */
    for (guint i = 0; i < scenario->stages->len; i++) {
        const ThrongStage *stage = &g_array_index (scenario->stages, ThrongStage, i);
        gdouble length = (gdouble) stage->duration_us / G_USEC_PER_SEC;
        gdouble in_stage = (rate + stage->target) / 2.0 * length;
        if (n < done + in_stage) {
            gdouble left = n - done;
            gdouble slope = (stage->target - rate) / length;
            gdouble tau;
            if (fabs (slope) < 1e-12)
                tau = left / rate;
            else
                tau = (-rate + sqrt (MAX (0.0, rate * rate + 2.0 * slope * left))) / slope;
            return (gint64) ((begin + tau) * G_USEC_PER_SEC);
        }
        done += in_stage;
        begin += length;
        rate = stage->target;
    }
    return -1;
}

void
throng_schedule_wanted (const ThrongPlanScenario *scenario, gint64 t, guint *users,
                        gdouble *rate)
{
    gint64 length = throng_plan_scenario_length (scenario);

    *users = 0;
    *rate = 0.0;
    if (t < 0 || (length > 0 && t >= length))
        return;
    switch (scenario->executor) {
    case THRONG_EXECUTOR_USERS:
        /* The users throng_schedule_first_start() has started by @t: user i
         * starts at ramp_up * i / n (integer division), so i started iff
         * ramp_up * i < (t + 1) * n. */
        if (scenario->ramp_up_us > 0 && scenario->users > 1) {
            guint64 reach = ((guint64) t + 1) * scenario->users;
            guint64 started = (reach + (guint64) scenario->ramp_up_us - 1)
                              / (guint64) scenario->ramp_up_us;
            *users = (guint) MIN (started, (guint64) scenario->users);
        } else {
            *users = scenario->users;
        }
        return;
    case THRONG_EXECUTOR_RAMPING_USERS:
        /* As throng_schedule_stage_wants(): user id is wanted once the level reaches id + 1. */
        *users = (guint) MIN (floor (stage_level (scenario->stages, 0.0, t) + 1e-9),
                              (gdouble) scenario->users);
        return;
    case THRONG_EXECUTOR_CONSTANT_RATE:
        *rate = scenario->rate;
        return;
    case THRONG_EXECUTOR_RAMPING_RATE:
        *rate = stage_level (scenario->stages, scenario->rate, t);
        return;
    case THRONG_EXECUTOR_CAPACITY: {
        /* Not a function of the plan: the level the search holds now. */
        ThrongCapacityStep level;
        throng_capacity_level_get (scenario->capacity, &level);
        *rate = level.done ? 0.0 : level.rate;
        return;
    }
    }
}

gint64
throng_schedule_think (const ThrongThinkTime *think, GRand *rand)
{
    switch (think->kind) {
    case THRONG_THINK_UNIFORM:
        return think->min_us
               + (gint64) (g_rand_double (rand) * (gdouble) (think->max_us - think->min_us));
    case THRONG_THINK_EXPONENTIAL:
        /* 1 - U is in (0, 1], so the log is finite. */
        return (gint64) (-log (1.0 - g_rand_double (rand)) * (gdouble) think->min_us);
    case THRONG_THINK_CONSTANT:
    default:
        return think->min_us;
    }
}
