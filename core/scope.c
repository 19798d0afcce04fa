/* SPDX-License-Identifier: MIT */
/*
 * Names while the plan loads: a scenario's scope (its variables' slots,
 * its checks, its data set's columns) and what every scenario shares
 * (the environment, read once with `-e` first, and the run-wide
 * counters).  A variable read before anything declares it takes its slot
 * at once; throng_scope_finish() then refuses reads nothing assigns, at
 * the read, with the nearest declared name.
 */
#include "template-private.h"

#include <string.h>

/* ---- what the plan shares --------------------------------------------------- */

gint
throng_plan_vars_setup_slot (ThrongPlanVars *vars, const char *expr, char **message)
{
    const char *name = expr + strlen ("setup.");

    if (vars->setup_loading) {
        *message = g_strdup_printf ("${%s} inside setup: setup's own variables are ${vars.%s}",
                                    expr, name);
        return -1;
    }
    if (vars->setup_scope == NULL) {
        *message = g_strdup_printf ("${%s}: the plan has no 'setup' to assign it ('setup' is a "
                                    "list of steps at the top level)",
                                    expr);
        return -1;
    }
    const ThrongScope *setup = vars->setup_scope;
    g_autoptr (GPtrArray) names = g_ptr_array_new ();
    for (guint i = 0; i < setup->vars->len; i++) {
        if (!g_array_index (setup->declared, gboolean, i))
            continue;
        if (strcmp (g_ptr_array_index (setup->vars, i), name) == 0) {
            vars->setup_read |= !vars->teardown_loading;
            return (gint) i;
        }
        g_ptr_array_add (names, g_ptr_array_index (setup->vars, i));
    }
    g_ptr_array_add (names, NULL);
    const char *suggestion = throng_node_suggest (name, (const char *const *) names->pdata);
    if (suggestion != NULL)
        *message = g_strdup_printf ("unknown variable ${%s}: setup never assigns '%s'; did you "
                                    "mean 'setup.%s'?",
                                    expr, name, suggestion);
    else
        *message = g_strdup_printf ("unknown variable ${%s}: setup never assigns '%s' (a 'set' "
                                    "or an 'extract' in its steps would)",
                                    expr, name);
    return -1;
}

ThrongPlanVars *
throng_plan_vars_new (const char *const *env_overrides)
{
    ThrongPlanVars *vars = g_new0 (ThrongPlanVars, 1);

    vars->overrides = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    vars->env = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    vars->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    vars->setup_values = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; env_overrides != NULL && env_overrides[i] != NULL; i++) {
        const char *eq = strchr (env_overrides[i], '=');
        /* main.c refuses an assignment without '='; the last one of a name wins */
        if (eq == NULL)
            continue;
        g_hash_table_replace (vars->overrides, g_strndup (env_overrides[i], eq - env_overrides[i]),
                              g_strdup (eq + 1));
    }
    return vars;
}

void
throng_plan_vars_free (ThrongPlanVars *vars)
{
    if (vars == NULL)
        return;
    g_hash_table_unref (vars->overrides);
    g_hash_table_unref (vars->env);
    g_hash_table_unref (vars->counters);
    g_ptr_array_unref (vars->setup_values);
    g_free (vars->builtin_http);
    g_free (vars->builtin_https);
    g_free (vars);
}

const char *
throng_plan_vars_env (ThrongPlanVars *vars, const char *name)
{
    gpointer value;

    if (g_hash_table_lookup_extended (vars->overrides, name, NULL, &value))
        return value;
    /* read once: every use in the plan sees the same value */
    if (!g_hash_table_lookup_extended (vars->env, name, NULL, &value)) {
        value = g_strdup (g_getenv (name));
        g_hash_table_insert (vars->env, g_strdup (name), value);
    }
    return value;
}

/* ---- a scenario's scope ----------------------------------------------------- */

static void
read_clear (gpointer data)
{
    ThrongScopeRead *read = data;

    g_free (read->name);
    g_free (read->where);
}

ThrongScope *
throng_scope_new (const char *scenario, ThrongPlanVars *plan, const ThrongData *data)
{
    ThrongScope *scope = g_new0 (ThrongScope, 1);

    scope->scenario = g_strdup (scenario);
    scope->plan = plan;
    scope->data = data;
    scope->vars = g_ptr_array_new_with_free_func (g_free);
    scope->declared = g_array_new (FALSE, TRUE, sizeof (gboolean));
    scope->reads = g_array_new (FALSE, TRUE, sizeof (ThrongScopeRead));
    g_array_set_clear_func (scope->reads, read_clear);
    scope->checks = g_ptr_array_new_with_free_func (g_free);
    return scope;
}

void
throng_scope_free (ThrongScope *scope)
{
    if (scope == NULL)
        return;
    g_free (scope->scenario);
    g_ptr_array_unref (scope->vars);
    g_array_unref (scope->declared);
    g_array_unref (scope->reads);
    g_ptr_array_unref (scope->checks);
    g_free (scope);
}

gboolean
throng_scope_valid_name (const char *name, gsize length)
{
    if (length == 0 || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
        return FALSE;
    for (gsize i = 1; i < length; i++) {
        if (!(g_ascii_isalnum (name[i]) || name[i] == '_'))
            return FALSE;
    }
    return TRUE;
}

static gint
slot_of (ThrongScope *scope, const char *name)
{
    for (guint i = 0; i < scope->vars->len; i++) {
        if (strcmp (scope->vars->pdata[i], name) == 0)
            return (gint) i;
    }
    g_ptr_array_add (scope->vars, g_strdup (name));
    gboolean no = FALSE;
    g_array_append_val (scope->declared, no);
    return (gint) scope->vars->len - 1;
}

gint
throng_scope_read_var (ThrongScope *scope, const char *name, char *where)
{
    ThrongScopeRead read = { g_strdup (name), where };

    g_array_append_val (scope->reads, read);
    return slot_of (scope, name);
}

gint
throng_scope_declare_var (ThrongScope *scope, const char *name, const ThrongNode *where,
                          GError **error)
{
    g_return_val_if_fail (scope != NULL, -1);
    g_return_val_if_fail (name != NULL, -1);
    g_return_val_if_fail (where != NULL, -1);
    g_return_val_if_fail (error == NULL || *error == NULL, -1);

    if (!throng_scope_valid_name (name, strlen (name))) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_INVALID,
                               "'%s' is not a variable name: a letter or '_', then letters, "
                               "digits and '_'",
                               name);
        return -1;
    }
    gint slot = slot_of (scope, name);
    g_array_index (scope->declared, gboolean, slot) = TRUE;
    return slot;
}

guint
throng_scope_add_check (ThrongScope *scope, const char *name)
{
    g_return_val_if_fail (scope != NULL, 0);
    g_return_val_if_fail (name != NULL, 0);

    for (guint i = 0; i < scope->checks->len; i++) {
        if (strcmp (scope->checks->pdata[i], name) == 0)
            return i;
    }
    g_ptr_array_add (scope->checks, g_strdup (name));
    return scope->checks->len - 1;
}

gboolean
throng_scope_finish (ThrongScope *scope, GError **error)
{
    for (guint r = 0; r < scope->reads->len; r++) {
        const ThrongScopeRead *read = &g_array_index (scope->reads, ThrongScopeRead, r);
        gint slot = slot_of (scope, read->name);

        if (g_array_index (scope->declared, gboolean, slot))
            continue;

        g_autoptr (GPtrArray) declared = g_ptr_array_new ();
        for (guint i = 0; i < scope->vars->len; i++) {
            if (g_array_index (scope->declared, gboolean, i))
                g_ptr_array_add (declared, scope->vars->pdata[i]);
        }
        g_ptr_array_add (declared, NULL);
        const char *suggestion
            = throng_node_suggest (read->name, (const char *const *) declared->pdata);
        g_autofree char *hint = suggestion != NULL
                                    ? g_strdup_printf ("; did you mean 'vars.%s'?", suggestion)
                                    : g_strdup ("");
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s: vars.%s is never set: no 'set' or 'extract' in scenario '%s' "
                     "assigns it%s",
                     read->where, read->name, scope->scenario, hint);
        return FALSE;
    }
    return TRUE;
}
