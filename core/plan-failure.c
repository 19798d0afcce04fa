/* SPDX-License-Identifier: MIT */
/*
 * What a failed step does next, as the plan says beside the step:
 * `on_failure` (on a request, a group or the scenario; a step without one
 * takes its group's, then the scenario's) and `retry` (on a request).
 * user.c acts on both when a step's sample is an error.
 */
#include "plan-private.h"
#include "node-private.h"

#include <string.h>

/* Bounds (docs/plan-reference.md). */
#define MAX_RETRY 100
#define MAX_BACKOFF_US ((gint64) 3600 * G_USEC_PER_SEC)

static const char *const retry_keys[] = { "max", "backoff", NULL };
static const char *const on_failure_names[]
    = { "continue", "next-iteration", "stop-user", "abort-run", NULL };

/*
 * `retry: { max: N, backoff: D }` beside a request: sent again up to N
 * times while it fails, D apart (Gatling's tryMax); each attempt is a
 * sample of its own.
 */
gboolean
throng_plan_read_retry (const ThrongNode *node, ThrongPlanStep *step, GError **error)
{
    const ThrongNode *map = throng_node_lookup (node, "retry");
    const ThrongNode *max, *backoff;
    guint64 n;

    if (map == NULL)
        return TRUE;
    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map for retry, such as '{max: 3, backoff: 100ms}'", error)
        || !throng_node_check_keys (map, retry_keys, "retry", error))
        return FALSE;
    max = throng_node_lookup (map, "max");
    if (max == NULL) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING,
                               "retry needs 'max': how many times a failed step is sent again");
        return FALSE;
    }
    if (!throng_node_get_uint (max, &n, error))
        return FALSE;
    if (n < 1 || n > MAX_RETRY) {
        throng_node_set_error (max, error, THRONG_PLAN_ERROR_RANGE,
                               "retry's max must be between 1 and %d, got %s", MAX_RETRY,
                               throng_node_scalar (max));
        return FALSE;
    }
    backoff = throng_node_lookup (map, "backoff");
    if (backoff != NULL) {
        if (!throng_node_get_duration (backoff, &step->retry_backoff_us, error))
            return FALSE;
        if (step->retry_backoff_us < 0 || step->retry_backoff_us > MAX_BACKOFF_US) {
            throng_node_set_error (backoff, error, THRONG_PLAN_ERROR_RANGE,
                                   "retry's backoff must be between 0 and 1h, got '%s'",
                                   throng_node_scalar (backoff));
            return FALSE;
        }
    }
    step->retry_max = (guint) n;
    return TRUE;
}

/* `on_failure: NAME` at @node, when there is one. */
gboolean
throng_plan_read_on_failure (const ThrongNode *node, ThrongOnFailure *out, GError **error)
{
    const ThrongNode *value = throng_node_lookup (node, "on_failure");
    const char *name;

    if (value == NULL)
        return TRUE;
    if (!throng_node_get_string (value, &name, error))
        return FALSE;
    for (guint i = 0; on_failure_names[i] != NULL; i++) {
        if (strcmp (name, on_failure_names[i]) == 0) {
            *out = (ThrongOnFailure) i;
            return TRUE;
        }
    }
    const char *suggestion = throng_node_suggest (name, on_failure_names);
    if (suggestion != NULL)
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_INVALID,
                               "unknown on_failure '%s'; did you mean '%s'?", name, suggestion);
    else
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_INVALID,
                               "unknown on_failure '%s'; it is continue, next-iteration, "
                               "stop-user or abort-run",
                               name);
    return FALSE;
}
