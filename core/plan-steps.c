/* SPDX-License-Identifier: MIT */
/*
 * A scenario's `steps:` as a tree: protocol requests and the control
 * steps around them (`once`, `group`, `choose`, `repeat`, `set`,
 * `parallel`, `pause`), read
 * into the program user.c walks and the flat list of steps that have a
 * row in the reports (requests and groups, in plan order).  Nesting is
 * bounded; every key is checked, with suggestions.
 */
#include "plan-private.h"
#include "node-private.h"

#include <string.h>

#include "condition-private.h"
#include "template-private.h"

/* Bounds (docs/plan-reference.md). */
#define MAX_PARALLEL 100
#define DEFAULT_PARALLEL 6
#define MAX_PAUSE_US ((gint64) 3600 * G_USEC_PER_SEC)


/* Keys of a step besides its protocol key: the one list the reader and the suggestions use. */
static const char *const step_keys[] = {
    "name",  "thresholds", "once", "group", "steps", "choose",     "repeat", "set",     "parallel",
    "pause", "use",        "if",   "then",  "else",  "on_failure", "while",  "foreach", "retry",
    "record", NULL,
};
/* The keys that make a step a control step, and what each must come with. */
static const char *const control_keys[]
    = { "group", "choose", "repeat", "set", "parallel", "pause", "if", "while", "foreach", NULL };
static const char *const parallel_keys[] = { "name", "max", "steps", NULL };
static const char *const pause_keys[] = { "min", "max", NULL };

/*
 * Other tools' control constructs, as a plan ported from k6, JMeter,
 * Gatling, Locust or Artillery names them: not a protocol to look for,
 * but the nearest throng step to use instead.
 */
static const struct {
    const char *keys[8];
    const char *nearest;
} foreign_steps[] = {
    { { "when", "doIf", "doIfOrElse", "doIfEquals", "unless", NULL },
      "'if: CONDITION' with 'then: [...]' (and 'else: [...]') runs steps when a condition holds" },
    { { "switch", "randomSwitch", "uniformRandomSwitch", NULL },
      "'choose' picks among weighted branches; 'if' with 'then' and 'else' picks by a condition" },
    { { "loop", "during", "asLongAs", "forever", "repeatWhile", "doWhile", NULL },
      "'repeat: N' with 'steps' runs steps N times; 'while: {condition, max, steps}' while a "
      "condition holds" },
    { { "forEach", "each", "for", "loop_over", NULL },
      "'foreach: {in: vars.LIST, as: NAME, steps: [...]}' runs steps once per element of a list" },
    { { "exec", "function", "script", "call", "invoke", "feed", NULL },
      "a plan runs no code; 'group' with 'steps' names a sequence, 'set' assigns ${vars.*}" },
    { { "tryMax", "try", "retries", "max_retries", NULL },
      "'retry: {max: N, backoff: 100ms}' beside a request sends it again when it fails" },
    { { "sleep", "think", "think_time", "wait", "rendezvous", NULL },
      "'pause: 1s' (or { min, max }) pauses a user between steps" },
    { { "transaction", "transaction_controller", "exitHereIfFailed", NULL },
      "'group' with 'steps' times a sequence as one transaction" },
};

/* The hint for a key another tool uses for a control construct, or NULL. */
static const char *
foreign_step (const char *key)
{
    for (guint i = 0; i < G_N_ELEMENTS (foreign_steps); i++)
        for (guint k = 0; foreign_steps[i].keys[k] != NULL; k++)
            if (strcmp (foreign_steps[i].keys[k], key) == 0)
                return foreign_steps[i].nearest;
    return NULL;
}

typedef ThrongStepReader StepReader;


void
throng_plan_action_free (ThrongAction *action)
{
    if (action == NULL)
        return;
    for (guint i = 0; i < action->n_children; i++)
        throng_plan_action_free (action->children[i]);
    g_free (action->children);
    g_free (action->cumulative);
    for (guint i = 0; i < action->n_values; i++)
        throng_template_free (action->values[i]);
    g_free (action->values);
    g_free (action->slots);
    throng_condition_free (action->condition);
    g_free (action);
}

ThrongPlanProtocol *
throng_plan_scenario_protocol (ThrongPlanScenario *scenario, const ThrongProtocol *protocol)
{
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        if (entry->protocol == protocol)
            return entry;
    }
    return NULL;
}

void
throng_plan_action_add_child (ThrongAction *into, ThrongAction *child)
{
    into->children = g_renew (ThrongAction *, into->children, into->n_children + 1);
    into->children[into->n_children++] = child;
}

static ThrongPlanStep *
add_step (ThrongPlanScenario *scenario, const ThrongNode *node, ThrongStepKind kind, gint parent,
          guint groups)
{
    ThrongPlanStep *step = g_new0 (ThrongPlanStep, 1);

    step->node = node;
    step->kind = kind;
    step->parent = parent;
    step->depth = groups;
    g_ptr_array_add (scenario->steps, step);
    return step;
}

/*
 * A protocol request: its name and its one protocol (whose options are
 * read later, when the protocol has seen the scenario).
 */
/*
 * A label with `${...}` is compiled as a template so that a misspelt name
 * in it is an error at its character; the reports show it as written (a
 * step's samples are one row whatever values it takes).
 */
static gboolean
check_label (StepReader *reader, const ThrongNode *name_node, const char *name, GError **error)
{
    ThrongTemplate *tpl;

    if (name_node == NULL || strstr (name, "${") == NULL)
        return TRUE;
    tpl = throng_template_compile (reader->scenario->scope, name_node, error);
    if (tpl == NULL)
        return FALSE;
    throng_template_free (tpl);
    return TRUE;
}

static gboolean
read_request (StepReader *reader, const ThrongNode *node, gint parent, guint groups,
              ThrongAction *action, GError **error)
{
    ThrongPlanLoader *loader = reader->loader;
    const ThrongNode *protocol_key = NULL;
    const ThrongProtocol *protocol = NULL;
    const char *name = NULL;

    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        const char *suggestion;
        const ThrongProtocol *found;

        if (strcmp (text, "name") == 0) {
            if (!throng_node_get_string (throng_node_child (node, i), &name, error)
                || !check_label (reader, throng_node_child (node, i), name, error))
                return FALSE;
            continue;
        }
        if (strcmp (text, "steps") == 0) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'steps' in a step needs 'group' or 'repeat' beside it");
            return FALSE;
        }
        if (strcmp (text, "then") == 0 || strcmp (text, "else") == 0) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' in a step needs 'if: CONDITION' beside it", text);
            return FALSE;
        }
        if (g_strv_contains (step_keys, text))
            continue;

        GError *local = NULL;
        found = throng_registry_get_protocol (loader->registry, text, &local);
        if (found == NULL
            && !g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
            g_propagate_error (error, local);
            return FALSE;
        }
        /* not a protocol, but close to a step key: a typo, not a second protocol */
        suggestion = found == NULL ? throng_node_suggest (text, step_keys) : NULL;
        if (suggestion != NULL) {
            g_error_free (local);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown key '%s' in step; did you mean '%s'?", text,
                                   suggestion);
            return FALSE;
        }
        if (protocol_key != NULL) {
            g_clear_error (&local);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "a step names exactly one protocol, but this one names '%s' "
                                   "and '%s'",
                                   throng_node_scalar (protocol_key), text);
            return FALSE;
        }
        if (found == NULL && foreign_step (text) != NULL) {
            g_clear_error (&local);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "'%s' is not a throng step (other tools' control construct): "
                                   "%s",
                                   text, foreign_step (text));
            return FALSE;
        }
        if (found == NULL) {
            throng_plan_plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, text, NULL, local,
                                      error);
            return FALSE;
        }
        protocol_key = key;
        protocol = found;
    }
    if (protocol_key == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "a step needs a key naming its protocol, such as 'http'");
        return FALSE;
    }

    ThrongPlanStep *step = add_step (reader->scenario, node, THRONG_STEP_REQUEST, parent, groups);
    step->on_failure = reader->on_failure;
    if (!throng_plan_read_on_failure (node, &step->on_failure, error)
        || !throng_plan_read_retry (node, step, error))
        return FALSE;
    step->label = g_strdup (name);
    step->protocol_name = throng_node_scalar (protocol_key);
    step->protocol = protocol;
    action->kind = THRONG_ACTION_REQUEST;
    action->step = reader->scenario->steps->len - 1;
    const ThrongNode *record = throng_node_lookup (node, "record");
    if (record != NULL && reader->scenario->phase) {
        /* The plan's metrics describe the load; setup's figures are apart from it. */
        throng_node_set_error (record, error, THRONG_PLAN_ERROR_INVALID,
                               "'record' in %s: the plan's metrics count the load only, and %s "
                               "is not part of it",
                               reader->scenario->name, reader->scenario->name);
        return FALSE;
    }
    if (record != NULL) {
        step->records = throng_plan_records_new (loader->plan->metrics, reader->scenario->scope,
                                                 record, error);
        if (step->records == NULL)
            return FALSE;
    }

    if (throng_plan_scenario_protocol (reader->scenario, protocol) == NULL) {
        ThrongPlanProtocol *entry = g_new0 (ThrongPlanProtocol, 1);
        entry->protocol = protocol;
        g_ptr_array_add (reader->scenario->protocols, entry);
    }
    return TRUE;
}

const ThrongNode *
throng_plan_step_body (const ThrongNode *node, const char *control, GError **error)
{
    const ThrongNode *steps = throng_node_lookup (node, "steps");

    if (steps == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "'%s' needs 'steps' beside it: the steps it runs", control);
        return NULL;
    }
    return steps;
}

/* Keys a control step may have besides its own: `once`, and for a group `thresholds`. */
static gboolean
check_control_keys (const ThrongNode *node, const char *control, GError **error)
{
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);

        if (strcmp (text, control) == 0 || strcmp (text, "once") == 0)
            continue;
        if (strcmp (text, "steps") == 0
            && (strcmp (control, "group") == 0 || strcmp (control, "repeat") == 0))
            continue;
        if (strcmp (text, "steps") == 0
            && (strcmp (control, "while") == 0 || strcmp (control, "foreach") == 0)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'steps' goes inside %s's map, as '%s'", control,
                                   strcmp (control, "while") == 0
                                       ? "while: {condition: ..., max: 10, steps: [...]}"
                                       : "foreach: {in: vars.ids, as: id, steps: [...]}");
            return FALSE;
        }
        if ((strcmp (text, "thresholds") == 0 || strcmp (text, "on_failure") == 0)
            && strcmp (control, "group") == 0)
            continue;
        if ((strcmp (text, "then") == 0 || strcmp (text, "else") == 0)
            && strcmp (control, "if") == 0)
            continue;
        if (strcmp (text, "name") == 0 && strcmp (control, "group") == 0) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "a group is named by its 'group' key; 'name' is for requests");
            return FALSE;
        }
        if (g_strv_contains (control_keys, text)) {
            throng_node_set_error (
                key, error, THRONG_PLAN_ERROR_INVALID,
                "a step is one of a request, group, choose, repeat, set, parallel, "
                "pause, if, while or foreach; "
                "this one has '%s' and '%s'",
                control, text);
            return FALSE;
        }
        throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                               "'%s' does not go with '%s' in a step", text, control);
        return FALSE;
    }
    return TRUE;
}

static gboolean
read_group (StepReader *reader, const ThrongNode *node, gint parent, guint groups, guint nesting,
            ThrongAction *action, GError **error)
{
    const ThrongNode *name_node = throng_node_lookup (node, "group");
    const char *name;
    const ThrongNode *body = throng_plan_step_body (node, "group", error);

    if (body == NULL || !throng_node_get_string (name_node, &name, error))
        return FALSE;
    if (name[0] == '\0') {
        throng_node_set_error (name_node, error, THRONG_PLAN_ERROR_INVALID,
                               "a group's name cannot be empty");
        return FALSE;
    }
    if (!check_label (reader, name_node, name, error))
        return FALSE;
    ThrongPlanStep *step = add_step (reader->scenario, node, THRONG_STEP_GROUP, parent, groups);
    step->label = g_strdup (name);
    step->protocol_name = "group";
    step->on_failure = reader->on_failure;
    if (!throng_plan_read_on_failure (node, &step->on_failure, error))
        return FALSE;
    reader->scenario->n_groups++;
    action->kind = THRONG_ACTION_GROUP;
    action->step = reader->scenario->steps->len - 1;
    /* its children inherit it, and give it back when the group is read */
    ThrongOnFailure outer = reader->on_failure;
    reader->on_failure = step->on_failure;
    gboolean ok = throng_plan_read_step_list (reader, body, (gint) action->step, groups + 1,
                                              nesting + 1, action, error);
    reader->on_failure = outer;
    return ok;
}

static gboolean
read_set (StepReader *reader, const ThrongNode *node, ThrongAction *action, GError **error)
{
    const ThrongNode *map = throng_node_lookup (node, "set");
    guint n;

    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map of variables for set, such as '{q: \"shoe-${user.id}\"}'",
                                  error))
        return FALSE;
    n = throng_node_n_children (map);
    if (n == 0) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_MISSING, "set names no variable");
        return FALSE;
    }
    action->kind = THRONG_ACTION_SET;
    action->slots = g_new0 (gint, n);
    action->values = g_new0 (ThrongTemplate *, n);
    for (guint i = 0; i < n; i++) {
        const ThrongNode *key = throng_node_key (map, i);
        gint slot = throng_scope_declare_var (reader->scenario->scope, throng_node_scalar (key),
                                              key, error);
        if (slot < 0)
            return FALSE;
        ThrongTemplate *value
            = throng_template_compile (reader->scenario->scope, throng_node_child (map, i), error);
        if (value == NULL)
            return FALSE;
        action->slots[i] = slot;
        action->values[i] = value;
        action->n_values++;
    }
    return TRUE;
}

/* One bound of a pause: a duration from 0 to 1 h. */
static gboolean
read_pause_bound (const ThrongNode *node, gint64 *out_us, GError **error)
{
    gint64 us;

    if (throng_node_kind (node) != THRONG_NODE_SCALAR) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a duration for pause, such as 1.5s");
        return FALSE;
    }
    if (!throng_node_get_duration (node, &us, error))
        return FALSE;
    if (us < 0 || us > MAX_PAUSE_US) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "pause must be between 0 and 1h, got '%s'",
                               throng_node_scalar (node));
        return FALSE;
    }
    *out_us = us;
    return TRUE;
}

/*
 * `pause: 1.5s` (a fixed wait) or `pause: {min: 1s, max: 3s}` (uniform):
 * the user waits on its timer; nothing is sent or recorded.
 */
static gboolean
read_pause (const ThrongNode *node, ThrongAction *action, GError **error)
{
    const ThrongNode *value = throng_node_lookup (node, "pause");
    ThrongThinkTime pause = { THRONG_THINK_CONSTANT, 0, 0 };

    if (throng_node_kind (value) == THRONG_NODE_MAP) {
        const ThrongNode *min = throng_node_lookup (value, "min");
        const ThrongNode *max = throng_node_lookup (value, "max");

        if (!throng_node_check_keys (value, pause_keys, "pause", error))
            return FALSE;
        if (min == NULL || max == NULL) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_MISSING,
                                   "a random pause needs both 'min' and 'max', such as "
                                   "'{min: 1s, max: 3s}'");
            return FALSE;
        }
        if (!read_pause_bound (min, &pause.min_us, error)
            || !read_pause_bound (max, &pause.max_us, error))
            return FALSE;
        if (pause.max_us < pause.min_us) {
            throng_node_set_error (max, error, THRONG_PLAN_ERROR_RANGE,
                                   "pause's max (%s) is below its min (%s)",
                                   throng_node_scalar (max), throng_node_scalar (min));
            return FALSE;
        }
        pause.kind = THRONG_THINK_UNIFORM;
    } else if (throng_node_kind (value) != THRONG_NODE_SCALAR) {
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a duration such as 1.5s, or a range such as "
                               "'{min: 1s, max: 3s}', for pause");
        return FALSE;
    } else if (!read_pause_bound (value, &pause.min_us, error)) {
        return FALSE;
    }
    action->kind = THRONG_ACTION_PAUSE;
    action->pause = pause;
    return TRUE;
}

/*
 * `parallel: {name, max, steps}`: its children are protocol requests (a
 * control step inside is refused where it stands), run at most `max` at
 * once; the parallel has its own row, like a group, with its children
 * under it.
 */
static gboolean
read_parallel (StepReader *reader, const ThrongNode *node, gint parent, guint groups,
               ThrongAction *action, GError **error)
{
    const ThrongNode *map = throng_node_lookup (node, "parallel");
    const ThrongNode *max_node, *body, *name_node;
    const char *name = "parallel";
    guint64 max = DEFAULT_PARALLEL;

    if (!throng_node_expect_kind (map, THRONG_NODE_MAP,
                                  "a map for parallel, such as '{max: 6, steps: [...]}'", error)
        || !throng_node_check_keys (map, parallel_keys, "parallel", error))
        return FALSE;
    name_node = throng_node_lookup (map, "name");
    if (name_node != NULL
        && (!throng_node_get_string (name_node, &name, error)
            || !check_label (reader, name_node, name, error)))
        return FALSE;
    max_node = throng_node_lookup (map, "max");
    if (max_node != NULL) {
        if (!throng_node_get_uint (max_node, &max, error))
            return FALSE;
        if (max < 1 || max > MAX_PARALLEL) {
            throng_node_set_error (max_node, error, THRONG_PLAN_ERROR_RANGE,
                                   "parallel's max must be between 1 and %d, got %s", MAX_PARALLEL,
                                   throng_node_scalar (max_node));
            return FALSE;
        }
    }
    body = throng_plan_step_body (map, "parallel", error);
    if (body == NULL
        || !throng_node_expect_kind (body, THRONG_NODE_SEQUENCE, "a list of steps", error))
        return FALSE;
    if (throng_node_n_children (body) == 0) {
        throng_node_set_error (body, error, THRONG_PLAN_ERROR_MISSING,
                               "the list of steps is empty");
        return FALSE;
    }

    ThrongPlanStep *step = add_step (reader->scenario, node, THRONG_STEP_PARALLEL, parent, groups);
    step->on_failure = reader->on_failure;
    step->label = g_strdup (name);
    step->protocol_name = "parallel";
    action->kind = THRONG_ACTION_PARALLEL;
    action->step = reader->scenario->steps->len - 1;
    action->count = max;
    action->concurrent = TRUE;

    for (guint i = 0; i < throng_node_n_children (body); i++) {
        const ThrongNode *child = throng_node_child (body, i);

        if (!throng_node_expect_kind (child, THRONG_NODE_MAP,
                                      "a map for step, such as 'http: {url: /app.js}'", error))
            return FALSE;
        for (guint k = 0; k < throng_node_n_children (child); k++) {
            const ThrongNode *key = throng_node_key (child, k);
            const char *text = throng_node_scalar (key);

            if (g_strv_contains (control_keys, text) || strcmp (text, "once") == 0
                || strcmp (text, "steps") == 0 || strcmp (text, "on_failure") == 0
                || strcmp (text, "retry") == 0) {
                throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                       "'%s' cannot go in parallel: its steps are protocol "
                                       "requests, such as 'http: {url: /app.js}'",
                                       text);
                return FALSE;
            }
        }
        ThrongAction *request = g_new0 (ThrongAction, 1);
        throng_plan_action_add_child (action, request);
        if (!read_request (reader, child, (gint) action->step, groups + 1, request, error))
            return FALSE;
        const ThrongPlanStep *read = g_ptr_array_index (reader->scenario->steps, request->step);
        if (read->protocol->size < G_STRUCT_OFFSET (ThrongProtocol, step_run_concurrent)
                                       + sizeof read->protocol->step_run_concurrent
            || read->protocol->step_run_concurrent == NULL)
            action->concurrent = FALSE;
    }
    guint most = (guint) MIN (max, (guint64) action->n_children);
    if (!action->concurrent)
        most = 1;
    reader->scenario->max_parallel = MAX (reader->scenario->max_parallel, most);
    return TRUE;
}

static gboolean
read_one (StepReader *reader, const ThrongNode *node, gint parent, guint groups, guint nesting,
          ThrongAction *action, GError **error)
{
    const char *control = NULL;
    const ThrongNode *once;

    if (!throng_node_expect_kind (node, THRONG_NODE_MAP, "a map for step, such as 'http: {url: /}'",
                                  error))
        return FALSE;
    once = throng_node_lookup (node, "once");
    if (once != NULL && !throng_node_get_bool (once, &action->once, error))
        return FALSE;
    for (guint i = 0; control_keys[i] != NULL && control == NULL; i++) {
        if (throng_node_lookup (node, control_keys[i]) != NULL)
            control = control_keys[i];
    }
    if (control == NULL)
        return read_request (reader, node, parent, groups, action, error);
    if (!check_control_keys (node, control, error))
        return FALSE;
    if (strcmp (control, "set") == 0)
        return read_set (reader, node, action, error);
    if (strcmp (control, "pause") == 0)
        return read_pause (node, action, error);
    if (strcmp (control, "parallel") == 0 && nesting < THRONG_PLAN_MAX_NESTING) {
        /* The user's stack holds a parallel's frame too while its children run. */
        if (nesting + 2 > reader->scenario->max_frames)
            reader->scenario->max_frames = nesting + 2;
        return read_parallel (reader, node, parent, groups, action, error);
    }
    /* containers: a new level */
    if (nesting >= THRONG_PLAN_MAX_NESTING) {
        const ThrongNode *at = node;
        for (guint i = 0; i < throng_node_n_children (node); i++) {
            if (strcmp (throng_node_scalar (throng_node_key (node, i)), control) == 0)
                at = throng_node_key (node, i);
        }
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_LIMIT,
                               "steps nest more than %d levels deep (group, choose, repeat, if, "
                               "while, foreach and parallel each open a level)",
                               THRONG_PLAN_MAX_NESTING);
        return FALSE;
    }
    if (nesting + 2 > reader->scenario->max_frames)
        reader->scenario->max_frames = nesting + 2;
    if (strcmp (control, "group") == 0)
        return read_group (reader, node, parent, groups, nesting, action, error);
    if (strcmp (control, "repeat") == 0)
        return throng_plan_read_repeat (reader, node, parent, groups, nesting, action, error);
    if (strcmp (control, "if") == 0)
        return throng_plan_read_if (reader, node, parent, groups, nesting, action, error);
    if (strcmp (control, "while") == 0)
        return throng_plan_read_while (reader, node, parent, groups, nesting, action, error);
    if (strcmp (control, "foreach") == 0)
        return throng_plan_read_foreach (reader, node, parent, groups, nesting, action, error);
    return throng_plan_read_choose (reader, node, parent, groups, nesting, action, error);
}

/*
 * `- use: NAME`: the fragment's steps, read in place as if the scenario
 * listed them (each scenario reads its own copy, with its own protocols'
 * settings).  An unknown name and a fragment that uses itself, directly
 * or not, are located errors.
 */
static gboolean
read_use (StepReader *reader, const ThrongNode *node, gint parent, guint groups, guint nesting,
          ThrongAction *into, GError **error)
{
    ThrongPlanLoader *loader = reader->loader;
    const ThrongNode *use = throng_node_lookup (node, "use");
    const char *name;

    if (throng_node_n_children (node) != 1) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "a 'use' step has no other key: the fragment's steps are the step");
        return FALSE;
    }
    if (!throng_node_get_string (use, &name, error))
        return FALSE;
    const ThrongNode *steps
        = loader->fragments != NULL ? throng_node_lookup (loader->fragments, name) : NULL;
    if (steps == NULL) {
        g_autoptr (GPtrArray) names = g_ptr_array_new ();
        for (guint i = 0;
             loader->fragments != NULL && i < throng_node_n_children (loader->fragments); i++)
            g_ptr_array_add (names,
                             (gpointer) throng_node_scalar (throng_node_key (loader->fragments, i)));
        g_ptr_array_add (names, NULL);
        const char *suggestion = throng_node_suggest (name, (const char *const *)names->pdata);
        if (suggestion != NULL)
            throng_node_set_error (use, error, THRONG_PLAN_ERROR_INVALID,
                                   "no fragment named '%s'; did you mean '%s'?", name, suggestion);
        else
            throng_node_set_error (use, error, THRONG_PLAN_ERROR_INVALID,
                                   "no fragment named '%s' (fragments: is a top-level map of "
                                   "names to lists of steps)",
                                   name);
        return FALSE;
    }
    for (guint i = 0; i < loader->fragments_open->len; i++) {
        if (strcmp (loader->fragments_open->pdata[i], name) != 0)
            continue;
        g_autoptr (GString) path = g_string_new (NULL);
        for (guint k = i; k < loader->fragments_open->len; k++)
            g_string_append_printf (path, "%s → ", (const char *) loader->fragments_open->pdata[k]);
        g_string_append (path, name);
        throng_node_set_error (use, error, THRONG_PLAN_ERROR_INVALID,
                               "fragment '%s' uses itself (%s)", name, path->str);
        return FALSE;
    }
    g_hash_table_add (loader->fragments_used, (gpointer) name);
    g_ptr_array_add (loader->fragments_open, (gpointer) name);
    gboolean ok = throng_plan_read_step_list (reader, steps, parent, groups, nesting, into, error);
    g_ptr_array_remove_index (loader->fragments_open, loader->fragments_open->len - 1);
    return ok;
}

gboolean
throng_plan_read_step_list (StepReader *reader, const ThrongNode *list, gint parent, guint groups,
                            guint nesting, ThrongAction *into, GError **error)
{
    if (!throng_node_expect_kind (list, THRONG_NODE_SEQUENCE, "a list of steps", error))
        return FALSE;
    if (throng_node_n_children (list) == 0) {
        throng_node_set_error (list, error, THRONG_PLAN_ERROR_MISSING,
                               "the list of steps is empty");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (list); i++) {
        const ThrongNode *child = throng_node_child (list, i);

        if (throng_node_kind (child) == THRONG_NODE_MAP
            && throng_node_lookup (child, "use") != NULL) {
            if (!read_use (reader, child, parent, groups, nesting, into, error))
                return FALSE;
            continue;
        }
        ThrongAction *action = g_new0 (ThrongAction, 1);
        throng_plan_action_add_child (into, action);
        if (!read_one (reader, child, parent, groups, nesting, action, error))
            return FALSE;
    }
    return TRUE;
}

gboolean
throng_plan_check_fragments (ThrongPlanLoader *loader, const ThrongNode *fragments, GError **error)
{
    if (fragments == NULL)
        return TRUE;
    if (!throng_node_expect_kind (fragments, THRONG_NODE_MAP,
                                  "a map of fragment names to lists of steps", error))
        return FALSE;
    for (guint i = 0; i < throng_node_n_children (fragments); i++) {
        const ThrongNode *steps = throng_node_child (fragments, i);
        if (!throng_node_expect_kind (steps, THRONG_NODE_SEQUENCE, "a list of steps", error))
            return FALSE;
        if (throng_node_n_children (steps) == 0) {
            throng_node_set_error (steps, error, THRONG_PLAN_ERROR_MISSING,
                                   "fragment '%s' has no steps",
                                   throng_node_scalar (throng_node_key (fragments, i)));
            return FALSE;
        }
    }
    loader->fragments = fragments;
    return TRUE;
}

/* A fragment nothing uses was never read, so never checked: it is a mistake, said. */
gboolean
throng_plan_check_fragments_used (ThrongPlanLoader *loader, GError **error)
{
    for (guint i = 0; loader->fragments != NULL && i < throng_node_n_children (loader->fragments);
         i++) {
        const ThrongNode *key = throng_node_key (loader->fragments, i);
        if (!g_hash_table_contains (loader->fragments_used, throng_node_scalar (key))) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "fragment '%s' is never used (no step says use: %s)",
                                   throng_node_scalar (key), throng_node_scalar (key));
            return FALSE;
        }
    }
    return TRUE;
}

gboolean
throng_plan_read_steps (ThrongPlanLoader *loader, ThrongPlanScenario *scenario,
                        const ThrongNode *steps, GError **error)
{
    /* Setup stops at its first failure, as k6's setup() at a throw: what
     * follows a failed login would only fail too (and the run aborts). */
    StepReader reader = { loader, scenario,
                          scenario->keeps_vars ? THRONG_ON_FAILURE_NEXT_ITERATION
                                               : THRONG_ON_FAILURE_CONTINUE };

    if (!throng_plan_read_on_failure (scenario->node, &reader.on_failure, error))
        return FALSE;

    scenario->program = g_new0 (ThrongAction, 1);
    scenario->program->kind = THRONG_ACTION_SEQUENCE;
    scenario->max_frames = 1;
    if (!throng_plan_read_step_list (&reader, steps, -1, 0, 0, scenario->program, error))
        return FALSE;

    scenario->step_info = g_new0 (ThrongStepInfo, MAX (scenario->steps->len, 1));
    gboolean any_request = FALSE;
    for (guint i = 0; i < scenario->steps->len; i++) {
        const ThrongPlanStep *step = scenario->steps->pdata[i];
        scenario->step_info[i].kind = step->kind;
        scenario->step_info[i].parent = step->parent;
        scenario->step_info[i].depth = step->depth;
        any_request |= step->kind == THRONG_STEP_REQUEST;
    }
    if (!any_request) {
        throng_node_set_error (steps, error, THRONG_PLAN_ERROR_MISSING,
                               "%s%s%s sends nothing: no step names a protocol",
                               scenario->phase ? "" : "scenario '", scenario->name,
                               scenario->phase ? "" : "'");
        return FALSE;
    }
    return TRUE;
}
