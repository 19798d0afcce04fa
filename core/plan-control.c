/* SPDX-License-Identifier: MIT */
/*
 * The control steps that pick or loop: `choose` (by weight), `if` (by a
 * condition), `repeat`, `while` and `foreach`.  Each reads its own keys
 * and its bodies through plan-steps.c's reader, one level deeper, so
 * nesting is counted there once.
 */
#include "plan-private.h"
#include "node-private.h"

#include <string.h>

#include "condition-private.h"
#include "template-private.h"

/* Bounds (docs/plan-reference.md). */
#define MAX_WEIGHT 1000000

static const char *const branch_keys[] = { "weight", "steps", NULL };
static const char *const repeat_keys[] = { "count", "as", NULL };
static const char *const while_keys[] = { "condition", "max", "steps", NULL };
static const char *const foreach_keys[] = { "in", "as", "max", "steps", NULL };

/* `as: NAME` of a repeat or a foreach: a variable the loop sets, its slot + 1 in *@out. */
static gboolean
read_index_var (ThrongStepReader *reader, const ThrongNode *map, guint *out, GError **error)
{
    const ThrongNode *as = throng_node_lookup (map, "as");
    const char *name;

    if (as == NULL)
        return TRUE;
    if (!throng_node_get_string (as, &name, error))
        return FALSE;
    gint slot = throng_scope_declare_var (reader->scenario->scope, name, as, error);
    if (slot < 0)
        return FALSE;
    *out = (guint) slot + 1;
    return TRUE;
}

/* A loop's count or bound: 1 … THRONG_PLAN_MAX_REPEAT. */
static gboolean
read_loop_count (const ThrongNode *node, const char *what, guint64 *out, GError **error)
{
    if (!throng_node_get_uint (node, out, error))
        return FALSE;
    if (*out < 1 || *out > THRONG_PLAN_MAX_REPEAT) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "%s must be between 1 and %d, got %s", what, THRONG_PLAN_MAX_REPEAT,
                               throng_node_scalar (node));
        return FALSE;
    }
    return TRUE;
}

/*
 * `repeat: N`, or `repeat: { count: N, as: i }` whose `vars.i` counts the
 * rounds from 0, as Gatling's repeat(n, "i") and JMeter's
 * __jm__Loop__idx do; `steps:` beside it either way.
 */
gboolean
throng_plan_read_repeat (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                         guint groups, guint nesting, ThrongAction *action, GError **error)
{
    const ThrongNode *count = throng_node_lookup (node, "repeat");
    const ThrongNode *body = throng_plan_step_body (node, "repeat", error);

    if (body == NULL)
        return FALSE;
    if (throng_node_kind (count) == THRONG_NODE_MAP) {
        const ThrongNode *map = count;
        if (!throng_node_check_keys (map, repeat_keys, "repeat", error)
            || !read_index_var (reader, map, &action->index_var, error))
            return FALSE;
        count = throng_node_lookup (map, "count");
        if (count == NULL) {
            throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING,
                                   "repeat needs 'count', as '{count: 4, as: i}'");
            return FALSE;
        }
    }
    if (!read_loop_count (count, "repeat", &action->count, error))
        return FALSE;
    action->kind = THRONG_ACTION_REPEAT;
    return throng_plan_read_step_list (reader, body, parent, groups, nesting + 1, action, error);
}

/*
 * `while: { condition, max, steps }`: the condition is asked before each
 * round; `max` is required, so that a condition that never turns false
 * cannot hold a user for ever (JMeter's While Controller is guarded by a
 * counter for the same reason).
 */
gboolean
throng_plan_read_while (ThrongStepReader *reader, const ThrongNode *node, gint parent, guint groups,
                        guint nesting, ThrongAction *action, GError **error)
{
    const ThrongNode *map = throng_node_lookup (node, "while");
    const ThrongNode *condition, *max, *body;

    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map for while, such as '{condition: \"vars.next != ''\", "
                                  "max: 10, steps: [...]}'",
                                  error)
        || !throng_node_check_keys (map, while_keys, "while", error))
        return FALSE;
    condition = throng_node_lookup (map, "condition");
    max = throng_node_lookup (map, "max");
    if (condition == NULL || max == NULL) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING, "while needs '%s': %s",
                               condition == NULL ? "condition" : "max",
                               condition == NULL ? "what must hold for another round"
                                                 : "the most rounds it runs, so that it ends");
        return FALSE;
    }
    body = throng_node_lookup (map, "steps");
    if (body == NULL) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING,
                               "while needs 'steps': the steps of a round");
        return FALSE;
    }
    if (!read_loop_count (max, "while's max", &action->count, error))
        return FALSE;
    action->kind = THRONG_ACTION_WHILE;
    reader->scenario->has_choose = TRUE;
    action->condition = throng_condition_compile (reader->scenario->scope, condition, error);
    if (action->condition == NULL)
        return FALSE;
    return throng_plan_read_step_list (reader, body, parent, groups, nesting + 1, action, error);
}

/*
 * `foreach: { in: vars.LIST, as: NAME, steps, max }`: once per element of
 * the list (a JSON array, as `extract: {..., all: true}` stores one), the
 * element in vars.NAME; at most `max` rounds.
 */
gboolean
throng_plan_read_foreach (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                          guint groups, guint nesting, ThrongAction *action, GError **error)
{
    const ThrongNode *map = throng_node_lookup (node, "foreach");
    const ThrongNode *in, *max, *body;
    const char *list;

    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map for foreach, such as '{in: vars.ids, as: id, steps: "
                                  "[...]}'",
                                  error)
        || !throng_node_check_keys (map, foreach_keys, "foreach", error))
        return FALSE;
    in = throng_node_lookup (map, "in");
    if (in == NULL || throng_node_lookup (map, "as") == NULL) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING,
                               "foreach needs '%s', as '{in: vars.ids, as: id, steps: [...]}'",
                               in == NULL ? "in" : "as");
        return FALSE;
    }
    if (!throng_node_get_string (in, &list, error))
        return FALSE;
    if (!g_str_has_prefix (list, "vars.")
        || !throng_scope_valid_name (list + 5, strlen (list + 5))) {
        throng_node_set_error (in, error, THRONG_PLAN_ERROR_INVALID,
                               "foreach's 'in' is a variable holding a list, as vars.ids (an "
                               "extractor with all: true stores one), got '%s'",
                               list);
        return FALSE;
    }
    const char *as;
    if (!throng_node_get_string (throng_node_lookup (map, "as"), &as, error))
        return FALSE;
    if (strcmp (list + 5, as) == 0) {
        throng_node_set_error (throng_node_lookup (map, "as"), error, THRONG_PLAN_ERROR_INVALID,
                               "foreach's 'as' names the list it walks; give the element its "
                               "own name");
        return FALSE;
    }
    action->count = THRONG_PLAN_MAX_REPEAT;
    max = throng_node_lookup (map, "max");
    body = throng_node_lookup (map, "steps");
    if (body == NULL) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING,
                               "foreach needs 'steps': the steps run for each element");
        return FALSE;
    }
    if ((max != NULL && !read_loop_count (max, "foreach's max", &action->count, error))
        || !read_index_var (reader, map, &action->index_var, error))
        return FALSE;
    action->list_slot
        = throng_scope_read_var (reader->scenario->scope, list + 5,
                                 g_strdup_printf ("%s:%u:%u", throng_node_file (in),
                                                  throng_node_line (in), throng_node_column (in)));
    action->kind = THRONG_ACTION_FOREACH;
    reader->scenario->has_choose = TRUE;
    return throng_plan_read_step_list (reader, body, parent, groups, nesting + 1, action, error);
}

gboolean
throng_plan_read_choose (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                         guint groups, guint nesting, ThrongAction *action, GError **error)
{
    const ThrongNode *branches = throng_node_lookup (node, "choose");
    guint64 total = 0;

    if (!throng_node_expect_kind (branches, THRONG_NODE_SEQUENCE,
                                  "a list of branches for choose, such as "
                                  "'[{weight: 70, steps: [...]}, ...]'",
                                  error))
        return FALSE;
    if (throng_node_n_children (branches) == 0) {
        throng_node_set_error (branches, error, THRONG_PLAN_ERROR_MISSING,
                               "choose has no branches");
        return FALSE;
    }
    action->kind = THRONG_ACTION_CHOOSE;
    action->cumulative = g_new0 (guint, throng_node_n_children (branches));
    for (guint b = 0; b < throng_node_n_children (branches); b++) {
        const ThrongNode *branch = throng_node_child (branches, b);
        const ThrongNode *weight_node, *steps;
        guint64 weight = 1;

        if (!throng_node_expect_kind (branch, THRONG_NODE_MAP,
                                      "a map for a branch of choose, such as "
                                      "'{weight: 70, steps: [...]}'",
                                      error)
            || !throng_node_check_keys (branch, branch_keys, "choose branch", error))
            return FALSE;
        weight_node = throng_node_lookup (branch, "weight");
        if (weight_node != NULL) {
            if (!throng_node_get_uint (weight_node, &weight, error))
                return FALSE;
            if (weight < 1 || weight > MAX_WEIGHT) {
                throng_node_set_error (weight_node, error, THRONG_PLAN_ERROR_RANGE,
                                       "a weight must be between 1 and %d, got %s", MAX_WEIGHT,
                                       throng_node_scalar (weight_node));
                return FALSE;
            }
        }
        steps = throng_node_lookup (branch, "steps");
        if (steps == NULL) {
            throng_node_set_error (branch, error, THRONG_PLAN_ERROR_MISSING,
                                   "a branch of choose needs 'steps'");
            return FALSE;
        }
        total += weight;
        action->cumulative[b] = (guint) total;

        ThrongAction *sequence = g_new0 (ThrongAction, 1);
        sequence->kind = THRONG_ACTION_SEQUENCE;
        throng_plan_action_add_child (action, sequence);
        if (!throng_plan_read_step_list (reader, steps, parent, groups, nesting + 1, sequence,
                                         error))
            return FALSE;
    }
    action->total_weight = (guint) total;
    reader->scenario->has_choose = TRUE;
    return TRUE;
}

/*
 * `if: CONDITION` with `then: [steps]` and, optionally, `else: [steps]`:
 * each branch a sequence, one level deeper, so a branch's requests keep
 * their rows under the groups around the `if`.
 */
gboolean
throng_plan_read_if (ThrongStepReader *reader, const ThrongNode *node, gint parent, guint groups,
                     guint nesting, ThrongAction *action, GError **error)
{
    const ThrongNode *then = throng_node_lookup (node, "then");
    const ThrongNode *otherwise = throng_node_lookup (node, "else");

    if (then == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "'if' needs 'then' beside it: the steps it runs when the "
                               "condition holds");
        return FALSE;
    }
    action->kind = THRONG_ACTION_IF;
    reader->scenario->has_choose = TRUE;
    action->condition = throng_condition_compile (reader->scenario->scope,
                                                  throng_node_lookup (node, "if"), error);
    if (action->condition == NULL)
        return FALSE;
    for (guint b = 0; b < (otherwise != NULL ? 2u : 1u); b++) {
        ThrongAction *sequence = g_new0 (ThrongAction, 1);
        sequence->kind = THRONG_ACTION_SEQUENCE;
        throng_plan_action_add_child (action, sequence);
        if (!throng_plan_read_step_list (reader, b == 0 ? then : otherwise, parent, groups,
                                         nesting + 1, sequence, error))
            return FALSE;
    }
    return TRUE;
}
