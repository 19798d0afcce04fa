/* SPDX-License-Identifier: MIT */
/*
 * The plan's scenarios and their steps: the core's scenario keys (the
 * schedule's are read by schedule.c), names unique in the plan, each
 * step's one protocol, and each protocol seeing its scenario options once
 * and then each of its steps.  Keys that name no setting must name a
 * protocol the registry finds, or the error says what was meant.
 */
#include "plan-private.h"

#include <string.h>

#include "capacity-private.h"
#include "schedule.h"
#include "template-private.h"

/* Bounds of the core's scenario settings (docs/plan-reference.md). */
#define MAX_ITERATIONS G_GINT64_CONSTANT (1000000000000)
#define MIN_DURATION_US (1000)
#define MAX_RAMP_UP_US (G_GINT64_CONSTANT (24) * 3600 * G_USEC_PER_SEC)

typedef struct {
    char *name;
    guint64 users;
    guint64 iterations;
    gint64 duration_us;
    gint64 ramp_up_us;
    const ThrongNode *steps;
    const ThrongNode *data;
    const ThrongNode *other; /* protocol maps and thresholds: read from the tree */
} ScenarioFields;

/*
 * The core's own scenario keys.  Those of the schedule (executor, rate,
 * stages, max_users, start_after, think_time, pacing, graceful_stop) are
 * read by schedule.c, which also decides which of them fit together.
 */
static const ThrongOption scenario_options[] = {
    { "name", THRONG_OPTION_STRING, offsetof (ScenarioFields, name) },
    { "users", THRONG_OPTION_UINT, offsetof (ScenarioFields, users), .min = 1,
      .max = THRONG_SCHEDULE_MAX_USERS },
    { "iterations", THRONG_OPTION_UINT, offsetof (ScenarioFields, iterations), .min = 1,
      .max = MAX_ITERATIONS },
    { "duration", THRONG_OPTION_DURATION, offsetof (ScenarioFields, duration_us),
      .min = MIN_DURATION_US, .max = THRONG_SCHEDULE_MAX_LENGTH_US },
    { "ramp_up", THRONG_OPTION_DURATION, offsetof (ScenarioFields, ramp_up_us), .min = 0,
      .max = MAX_RAMP_UP_US },
    { "steps", THRONG_OPTION_NODE, offsetof (ScenarioFields, steps) },
    { "data", THRONG_OPTION_NODE, offsetof (ScenarioFields, data) },
    { "executor", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "rate", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "stages", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "max_users", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "start_after", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "think_time", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "pacing", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "graceful_stop", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    /* read by plan-steps.c, the default of the scenario's steps */
    { "on_failure", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    /* read and checked by threshold.c, from the tree */
    { "thresholds", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    /* executor capacity's, read by capacity.c */
    { "slo", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "step", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "warm_up", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { "precision", THRONG_OPTION_NODE, offsetof (ScenarioFields, other) },
    { NULL },
};

static const char *const scenario_keys[] = {
    "name",     "users",         "iterations", "duration",  "ramp_up",     "steps",
    "executor", "rate",          "stages",     "max_users", "start_after", "think_time",
    "pacing",   "graceful_stop", "thresholds", "data",      "on_failure", "slo",
    "step",     "warm_up",       "precision",  NULL,
};

static gboolean
is_one_of (const char *key, const char *const *keys)
{
    return g_strv_contains (keys, key);
}

void
throng_plan_scenario_free (gpointer data)
{
    ThrongPlanScenario *scenario = data;

    /* steps before their scenario data: a step may point into it */
    for (guint i = 0; i < scenario->steps->len; i++) {
        ThrongPlanStep *step = scenario->steps->pdata[i];
        if (step->data != NULL && step->protocol->step_free != NULL)
            step->protocol->step_free (step->data);
        g_free (step->label);
        throng_plan_records_free (step->records);
        g_free (step);
    }
    g_ptr_array_unref (scenario->steps);
    throng_plan_action_free (scenario->program);
    g_free (scenario->step_info);
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        if (entry->data != NULL && entry->protocol->scenario_free != NULL)
            entry->protocol->scenario_free (entry->data);
        g_free (entry);
    }
    g_ptr_array_unref (scenario->protocols);
    /* after the protocols' data, which may keep the scope */
    throng_scope_free (scenario->scope);
    throng_data_free (scenario->data);
    if (scenario->stages != NULL)
        g_array_unref (scenario->stages);
    throng_capacity_plan_free (scenario->capacity);
    g_free (scenario->name);
    g_free (scenario);
}

/* Each protocol the steps use sees the scenario once, then each of its steps. */
gboolean
throng_plan_build_steps (ThrongPlanLoader *loader, ThrongPlanScenario *scenario, GError **error)
{
    for (guint i = 0; i < scenario->protocols->len; i++) {
        ThrongPlanProtocol *entry = scenario->protocols->pdata[i];
        const char *name = entry->protocol->name;
        ThrongScenarioSetup setup = {
            .size = sizeof setup,
            .name = scenario->name,
            .defaults = loader->defaults != NULL
                            ? throng_plan_protocol_map (throng_node_lookup (loader->defaults, name))
                            : NULL,
            .options = throng_plan_protocol_map (throng_node_lookup (scenario->node, name)),
            .users = scenario->users,
            .validate_only = loader->validate_only,
            .scope = scenario->scope,
            .max_parallel = scenario->max_parallel,
        };

        entry->data = entry->protocol->scenario_new (&setup, error);
        if (entry->data == NULL)
            return FALSE;
    }

    for (guint i = 0; i < scenario->steps->len; i++) {
        ThrongPlanStep *step = scenario->steps->pdata[i];
        if (step->kind != THRONG_STEP_REQUEST)
            continue;
        ThrongPlanProtocol *entry = throng_plan_scenario_protocol (scenario, step->protocol);
        const ThrongNode *options = throng_node_lookup (step->node, step->protocol_name);
        g_autofree char *label = NULL;

        step->scenario_data = entry->data;
        step->data = step->protocol->step_new (entry->data, options, &label, error);
        if (step->data == NULL)
            return FALSE;
        if (step->label == NULL)
            step->label = label != NULL ? g_steal_pointer (&label) : g_strdup (step->protocol_name);
    }
    /* every step has been read: reads of variables nothing assigns are errors now */
    return throng_scope_finish (scenario->scope, error);
}

/* A key that is neither a scenario setting nor a protocol the registry finds. */
static void
unknown_scenario_key (ThrongPlanLoader *loader, const ThrongNode *key, GError *local,
                      GError **error)
{
    const char *text = throng_node_scalar (key);
    const char *suggestion = throng_node_suggest (text, scenario_keys);

    if (!g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND)) {
        g_propagate_error (error, local);
        return;
    }
    if (suggestion != NULL) {
        g_error_free (local);
        throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                               "unknown key '%s' in scenario; did you mean '%s'?", text,
                               suggestion);
        return;
    }
    g_autofree char *prefix
        = g_strdup_printf ("unknown key '%s' in scenario: not a scenario setting, and", text);
    throng_plan_plugin_error (loader, key, THRONG_PLUGIN_KIND_PROTOCOL, text, prefix, local, error);
}

static const ThrongNode *
key_node (const ThrongNode *map, const char *name)
{
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        if (strcmp (throng_node_scalar (key), name) == 0)
            return key;
    }
    return NULL;
}

/* Whichever of the keys @a and @b of @map comes second. */
static const ThrongNode *
second_of (const ThrongNode *map, const ThrongNode *a, const ThrongNode *b)
{
    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        if (key == a)
            return b;
        if (key == b)
            return a;
    }
    return b;
}

static gboolean
check_scenario_name (ThrongPlanLoader *loader, ThrongPlanScenario *scenario, const ThrongNode *at,
                     GError **error)
{
    const ThrongNode *first;

    if (scenario->name[0] == '\0') {
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "a scenario name cannot be empty");
        return FALSE;
    }
    first = g_hash_table_lookup (loader->scenario_names, scenario->name);
    if (first != NULL) {
        /* a scenario without a name is "scenario-N": say so, or the clash is a puzzle */
        gboolean defaulted = throng_node_kind (at) == THRONG_NODE_MAP;
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_DUPLICATE_KEY,
                               "duplicate scenario name '%s'%s (first at %u:%u)", scenario->name,
                               defaulted ? ", the default name of this scenario" : "",
                               throng_node_line (first), throng_node_column (first));
        return FALSE;
    }
    g_hash_table_insert (loader->scenario_names, scenario->name, (gpointer)at);
    return TRUE;
}

static gboolean
read_scenario (ThrongPlanLoader *loader, const ThrongNode *node, guint index, GError **error)
{
    g_autoptr (GArray) table = NULL;
    ScenarioFields fields = { 0 };
    gboolean ok;

    if (!throng_node_expect_kind (node, THRONG_NODE_MAP, "a map for scenario", error))
        return FALSE;

    /* Other keys name protocols: their values are those protocols' scenario options. */
    table = g_array_new (TRUE, TRUE, sizeof (ThrongOption));
    g_array_append_vals (table, scenario_options, G_N_ELEMENTS (scenario_options) - 1);
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        GError *local = NULL;

        if (is_one_of (text, scenario_keys))
            continue;
        if (throng_registry_get_protocol (loader->registry, text, &local) == NULL) {
            unknown_scenario_key (loader, key, local, error);
            return FALSE;
        }
        ThrongOption option = { text, THRONG_OPTION_NODE, offsetof (ScenarioFields, other) };
        g_array_append_val (table, option);
    }

    ok = throng_options_apply (node, (const ThrongOption *)table->data, &fields, FALSE, "scenario",
                               error);

    ThrongPlanScenario *scenario = g_new0 (ThrongPlanScenario, 1);
    scenario->node = node;
    scenario->steps = g_ptr_array_new ();
    scenario->protocols = g_ptr_array_new ();
    scenario->name = fields.name != NULL ? g_steal_pointer (&fields.name)
                                         : g_strdup_printf ("scenario-%u", index + 1);
    g_ptr_array_add (loader->plan->scenarios, scenario);
    if (!ok)
        return FALSE;

    const ThrongNode *name_node = throng_node_lookup (node, "name");
    if (!check_scenario_name (loader, scenario, name_node != NULL ? name_node : node, error))
        return FALSE;

    scenario->users = (guint)fields.users;

    const ThrongNode *iterations_key = key_node (node, "iterations");
    const ThrongNode *duration_key = key_node (node, "duration");
    if (iterations_key != NULL && duration_key != NULL) {
        /* at the second of the two, which is where the user changed their mind */
        throng_node_set_error (second_of (node, iterations_key, duration_key), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "a scenario runs either for iterations or for a duration, not both");
        return FALSE;
    }
    scenario->iterations = duration_key != NULL     ? 0
                           : iterations_key != NULL ? fields.iterations
                                                    : 1;
    scenario->duration_us = fields.duration_us;
    scenario->ramp_up_us = fields.ramp_up_us;

    if (duration_key != NULL && scenario->ramp_up_us >= scenario->duration_us) {
        const ThrongNode *ramp_up = throng_node_lookup (node, "ramp_up");
        throng_node_set_error (ramp_up, error, THRONG_PLAN_ERROR_RANGE,
                               "ramp_up must be shorter than the duration (%s), got %s",
                               throng_node_scalar (throng_node_lookup (node, "duration")),
                               throng_node_scalar (ramp_up));
        return FALSE;
    }

    /* the executor may replace users, iterations and duration */
    if (!throng_schedule_parse (node, scenario, error))
        return FALSE;
    if (scenario->executor == THRONG_EXECUTOR_USERS && scenario->users == 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'users' in scenario '%s'", scenario->name);
        return FALSE;
    }

    if (fields.steps == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'steps' in scenario '%s'", scenario->name);
        return FALSE;
    }
    if (!throng_node_expect_kind (fields.steps, THRONG_NODE_SEQUENCE, "a list of steps", error))
        return FALSE;
    if (throng_node_n_children (fields.steps) == 0) {
        throng_node_set_error (fields.steps, error, THRONG_PLAN_ERROR_MISSING,
                               "scenario '%s' has no steps", scenario->name);
        return FALSE;
    }
    if (fields.data != NULL && !throng_node_is_null (fields.data)) {
        g_autofree char *plan_dir = g_path_get_dirname (loader->plan->file);
        g_autofree char *absolute_dir = g_canonicalize_filename (plan_dir, NULL);
        scenario->data = throng_data_load (fields.data, absolute_dir, scenario->users,
                                           scenario->name, error);
        if (scenario->data == NULL)
            return FALSE;
    }
    scenario->scope = throng_scope_new (scenario->name, loader->plan->vars, scenario->data);
    scenario->scope->open_model = throng_schedule_is_open (scenario);
    if (!throng_plan_read_steps (loader, scenario, fields.steps, error)
        || !throng_plan_build_steps (loader, scenario, error))
        return FALSE;

    /* scenario options of a protocol no step uses */
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *text = throng_node_scalar (key);
        const ThrongProtocol *protocol;

        if (is_one_of (text, scenario_keys))
            continue;
        protocol = throng_plan_find_protocol (loader, key, error);
        if (protocol == NULL)
            return FALSE;
        if (throng_plan_scenario_protocol (scenario, protocol) == NULL
            && !throng_plan_check_unused_protocol (
                loader, protocol, scenario->name,
                throng_plan_protocol_map (throng_node_child (node, i)), error))
            return FALSE;
    }
    return TRUE;
}

gboolean
throng_plan_read_scenarios (ThrongPlanLoader *loader, const ThrongNode *scenarios, GError **error)
{
    const ThrongNode *root = throng_tree_root (loader->plan->tree);

    if (scenarios == NULL) {
        throng_node_set_error (root, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'scenarios'");
        return FALSE;
    }
    if (!throng_node_expect_kind (scenarios, THRONG_NODE_SEQUENCE, "a list of scenarios", error))
        return FALSE;
    if (throng_node_n_children (scenarios) == 0) {
        throng_node_set_error (scenarios, error, THRONG_PLAN_ERROR_MISSING,
                               "the plan has no scenarios");
        return FALSE;
    }
    guint64 users = 0;
    for (guint i = 0; i < throng_node_n_children (scenarios); i++) {
        if (!read_scenario (loader, throng_node_child (scenarios, i), i, error))
            return FALSE;
        /* user.id is unique in the run: the scenarios' users numbered one after the other */
        ThrongPlanScenario *scenario = g_ptr_array_index (loader->plan->scenarios, i);
        scenario->first_user_id = users;
        users += scenario->users;
    }
    return TRUE;
}

static void
add_label_warnings (const ThrongPlanScenario *scenario, GPtrArray *warnings)
{
    g_autoptr (GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; i < scenario->steps->len; i++) {
        const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
        gpointer index;

        if (!g_hash_table_lookup_extended (first, step->label, NULL, &index)) {
            g_hash_table_insert (first, step->label, GUINT_TO_POINTER (i));
            continue;
        }
        const ThrongPlanStep *earlier = g_ptr_array_index (scenario->steps,
                                                           GPOINTER_TO_UINT (index));
        g_ptr_array_add (warnings,
                         g_strdup_printf ("%s:%u:%u: warning: scenario '%s': step %u has the "
                                          "label '%s' of step %u (line %u); reporters keep "
                                          "them apart by step_id",
                                          throng_node_file (step->node),
                                          throng_node_line (step->node),
                                          throng_node_column (step->node), scenario->name, i,
                                          step->label, GPOINTER_TO_UINT (index),
                                          throng_node_line (earlier->node)));
    }
}

GPtrArray *
throng_plan_label_warnings (const ThrongPlan *plan)
{
    GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);

    if (plan->setup != NULL)
        add_label_warnings (plan->setup, warnings);
    for (guint s = 0; s < plan->scenarios->len; s++)
        add_label_warnings (g_ptr_array_index (plan->scenarios, s), warnings);
    if (plan->teardown != NULL)
        add_label_warnings (plan->teardown, warnings);
    return warnings;
}
