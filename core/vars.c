/* SPDX-License-Identifier: MIT */
/*
 * A user's variables and its check outcomes, on the user's worker.  A
 * variable's storage is kept and reused across iterations: once a value
 * of a given length has been seen, setting it again allocates nothing.
 * Check outcomes are counted in the worker's metrics block, merged on
 * the main thread like every other counter.
 */
#include "template-private.h"

#include <string.h>

#include "user-private.h"
#include "worker-private.h"

/* Here, not in user.c: what templates and the interpreter read calls nothing of the user's life. */
ThrongUserVars *
throng_user_get_vars (ThrongUser *user)
{
    return &user->vars;
}

void
throng_user_vars_init (ThrongUserVars *vars, guint n_vars)
{
    vars->vars = n_vars > 0 ? g_new0 (ThrongVarSlot, n_vars) : NULL;
    vars->n_vars = n_vars;
    for (guint i = 0; i < G_N_ELEMENTS (vars->rows); i++)
        vars->rows[i] = -1;
}

void
throng_user_vars_clear (ThrongUserVars *vars)
{
    for (guint i = 0; i < vars->n_vars; i++)
        g_free (vars->vars[i].value);
    g_clear_pointer (&vars->vars, g_free);
    vars->n_vars = 0;
}

void
throng_user_set_var (ThrongUser *user, gint slot, const char *value, gssize length)
{
    ThrongUserVars *vars;
    ThrongVarSlot *var;

    g_return_if_fail (user != NULL);
    vars = throng_user_get_vars (user);
    g_return_if_fail (slot >= 0 && (guint) slot < vars->n_vars);
    g_return_if_fail (value != NULL || length == 0);

    var = &vars->vars[slot];
    if (length < 0)
        length = (gssize) strlen (value);
    if ((gsize) length + 1 > var->capacity) {
        guint32 capacity = MAX (32, var->capacity);
        while (capacity < (gsize) length + 1)
            capacity *= 2;
        /* not g_realloc: the old value may be what is being set (a copy of itself) */
        char *storage = g_malloc (capacity);
        if (length > 0)
            memcpy (storage, value, length);
        g_free (var->value);
        var->value = storage;
        var->capacity = capacity;
    } else if (length > 0) {
        memmove (var->value, value, length);
    }
    var->value[length] = '\0';
    var->length = (guint32) length;
    var->set = TRUE;
}

const char *
throng_user_get_var (ThrongUser *user, gint slot, gsize *length)
{
    ThrongUserVars *vars;

    g_return_val_if_fail (user != NULL, NULL);
    vars = throng_user_get_vars (user);
    g_return_val_if_fail (slot >= 0 && (guint) slot < vars->n_vars, NULL);

    if (!vars->vars[slot].set)
        return NULL;
    if (length != NULL)
        *length = vars->vars[slot].length;
    return vars->vars[slot].value;
}

/* Unsets a variable (a `set` whose template could not expand); keeps its storage. */
void
throng_user_unset_var (ThrongUser *user, gint slot)
{
    ThrongUserVars *vars = throng_user_get_vars (user);

    if (slot >= 0 && (guint) slot < vars->n_vars)
        vars->vars[slot].set = FALSE;
}

void
throng_user_record_check (ThrongUser *user, guint check, gboolean passed)
{
    ThrongMetrics *metrics;

    g_return_if_fail (user != NULL);
    metrics = user->worker->metrics;
    if (metrics == NULL)
        return; /* the worker's last report went out: nothing more is counted */
    g_return_if_fail (check < metrics->first_check[user->scenario_index + 1]
                                  - metrics->first_check[user->scenario_index]);

    guint index = metrics->first_check[user->scenario_index] + check;
    if (passed)
        metrics->check_passes[index]++;
    else
        metrics->check_fails[index]++;
}
