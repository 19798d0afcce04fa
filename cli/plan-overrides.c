/* SPDX-License-Identifier: MIT */
/*
 * What the command line's `--out NAME=PATH` adds to a plan: the reporter
 * NAME with the options {path: PATH} ({listen: ADDR} for prometheus,
 * {url: URL} for influxdb), configured after the plan's own by
 * the loader (ThrongPlanOutput).  The options tree is built, not parsed,
 * so any path survives as it is; PATH is located at "--out NAME":1:COLUMN,
 * the column of PATH in the option's value, as `--set` locates its values.
 * Errors name the option they came from.
 */
#include "plan-overrides.h"

#include <string.h>

struct _ThrongCliOutputs {
    GArray *outputs;            /* ThrongPlanOutput, ended by a zeroed one */
    GPtrArray *trees;           /* ThrongTree*: what the outputs' options point into */
    GPtrArray *strings;         /* their names and origins */
};

void
throng_cli_outputs_free (ThrongCliOutputs *outputs)
{
    if (outputs == NULL)
        return;
    g_array_unref (outputs->outputs);
    g_ptr_array_unref (outputs->trees);
    g_ptr_array_unref (outputs->strings);
    g_free (outputs);
}

/*
 * The option that `--out NAME=VALUE` gives VALUE to: the one that says
 * where a reporter writes.  A file for most; the reporters that serve or
 * send say where with an address.
 */
static const struct {
    const char *reporter;
    const char *key;
} out_keys[] = {
    { "prometheus", "listen" },
    { "influxdb", "url" },
};

const char *
throng_cli_out_key (const char *reporter)
{
    for (gsize i = 0; i < G_N_ELEMENTS (out_keys); i++)
        if (strcmp (reporter, out_keys[i].reporter) == 0)
            return out_keys[i].key;
    return "path";
}

/* One `--out NAME=PATH`. */
static gboolean
add_output (ThrongCliOutputs *outputs, const char *out, GError **error)
{
    const char *equals = strchr (out, '=');

    if (!g_utf8_validate (out, -1, NULL)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                     "--out: the argument is not valid UTF-8");
        return FALSE;
    }
    if (equals == NULL || equals == out || equals[1] == '\0') {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "--out %s: expected NAME=PATH, e.g. --out csv=results.csv", out);
        return FALSE;
    }

    char *name = g_strndup (out, (gsize) (equals - out));
    char *origin = g_strdup_printf ("--out %s", out);
    g_autofree char *file = g_strdup_printf ("--out %s", name);
    guint column = (guint) g_utf8_strlen (out, equals + 1 - out) + 1;
    ThrongTree *tree = throng_tree_new_pair (file, throng_cli_out_key (name), equals + 1,
                                             column);
    ThrongPlanOutput output = { .name = name, .options = throng_tree_root (tree),
                                .origin = origin };

    g_ptr_array_add (outputs->strings, name);
    g_ptr_array_add (outputs->strings, origin);
    g_ptr_array_add (outputs->trees, tree);
    g_array_append_val (outputs->outputs, output);
    return TRUE;
}

ThrongCliOutputs *
throng_cli_outputs_new (const char *const *outs, GError **error)
{
    ThrongCliOutputs *outputs = g_new0 (ThrongCliOutputs, 1);

    outputs->outputs = g_array_new (TRUE, TRUE, sizeof (ThrongPlanOutput));
    outputs->trees = g_ptr_array_new_with_free_func ((GDestroyNotify) throng_tree_free);
    outputs->strings = g_ptr_array_new_with_free_func (g_free);
    for (gsize i = 0; outs != NULL && outs[i] != NULL; i++) {
        if (!add_output (outputs, outs[i], error)) {
            throng_cli_outputs_free (outputs);
            return NULL;
        }
    }
    return outputs;
}

const ThrongPlanOutput *
throng_cli_outputs_get (const ThrongCliOutputs *outputs)
{
    return (const ThrongPlanOutput *) outputs->outputs->data;
}
