/* SPDX-License-Identifier: MIT */
/*
 * A user's variables and its check outcomes, on the user's worker.  A
 * variable's storage is kept and reused across iterations: once a value
 * of a given length has been seen, setting it again allocates nothing.
 * Check outcomes are counted in the worker's metrics block, merged on
 * the main thread like every other counter.  A list is a variable whose
 * value is a JSON array's text (what `all: true` extracts); `foreach`
 * walks it in place.
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
    vars->last_elapsed_us = -1;
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

static gsize
skip_space (const char *s, gsize length, gsize i)
{
    while (i < length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* A JSON string's contents from @i (after its quote) into @out; the offset after its closing quote,
 * or 0. */
static gsize
unescape_string (const char *s, gsize length, gsize i, GString *out)
{
    while (i < length && s[i] != '"') {
        if (s[i] != '\\') {
            g_string_append_c (out, s[i++]);
            continue;
        }
        if (++i >= length)
            return 0;
        switch (s[i]) {
        case 'b':
            g_string_append_c (out, '\b');
            break;
        case 'f':
            g_string_append_c (out, '\f');
            break;
        case 'n':
            g_string_append_c (out, '\n');
            break;
        case 'r':
            g_string_append_c (out, '\r');
            break;
        case 't':
            g_string_append_c (out, '\t');
            break;
        case 'u': {
            char hex[5] = { 0 };
            if (i + 4 >= length)
                return 0;
            memcpy (hex, s + i + 1, 4);
            gunichar c = (gunichar) g_ascii_strtoull (hex, NULL, 16);
            i += 4;
            /* a surrogate pair: the second half follows as \uDCxx */
            if (c >= 0xD800 && c < 0xDC00 && i + 6 < length && s[i + 1] == '\\'
                && s[i + 2] == 'u') {
                memcpy (hex, s + i + 3, 4);
                gunichar low = (gunichar) g_ascii_strtoull (hex, NULL, 16);
                c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }
            g_string_append_unichar (out, c);
            break;
        }
        default:
            g_string_append_c (out, s[i]);
            break;
        }
        i++;
    }
    return i < length ? i + 1 : 0;
}

/* The end of the JSON value that starts at @i (not a string), or 0 when it does not end. */
static gsize
skip_value (const char *s, gsize length, gsize i)
{
    guint depth = 0;
    gboolean in_string = FALSE;

    for (; i < length; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = FALSE;
            continue;
        }
        if (c == '"')
            in_string = TRUE;
        else if (c == '[' || c == '{')
            depth++;
        else if ((c == ']' || c == '}') && depth > 0)
            depth--;
        else if (depth == 0
                 && (c == ',' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r'))
            return i;
        if (depth == 0 && (c == ']' || c == '}'))
            return i + 1;
    }
    return depth == 0 ? i : 0;
}

gboolean
throng_list_next (const char *list, gsize length, gsize *offset, GString *out)
{
    gsize i = skip_space (list, length, *offset);

    g_string_truncate (out, 0);
    if (*offset == 0) {
        if (i >= length || list[i] != '[')
            return FALSE;
        i = skip_space (list, length, i + 1);
    } else if (i < length && list[i] == ',') {
        i = skip_space (list, length, i + 1);
    }
    if (i >= length || list[i] == ']')
        return FALSE;
    gsize end = list[i] == '"' ? unescape_string (list, length, i + 1, out)
                               : skip_value (list, length, i);
    if (end == 0 || end == i)
        return FALSE;
    if (list[i] != '"')
        g_string_append_len (out, list + i, end - i);
    end = skip_space (list, length, end);
    if (end >= length || (list[end] != ',' && list[end] != ']'))
        return FALSE;
    *offset = end;
    return TRUE;
}
