/* SPDX-License-Identifier: MIT */
/*
 * What the command line adds to a plan file.  `--set PATH=VALUE` edits
 * the plan's tree as loaded, before the loader reads it (the loader's
 * edit hook); the value is located at "--set PATH":1:COLUMN, the column
 * of VALUE in the option's value.  `--out NAME=PATH` adds the reporter
 * NAME with the options {path: PATH} ({listen: ADDR} for prometheus,
 * {url: URL} for influxdb and remote_write), configured after the plan's
 * own by the loader (ThrongPlanOutput); its options tree is built, not
 * parsed, so any path survives as it is, located at "--out NAME":1:COLUMN.
 * Errors name the option they came from.
 */
#include "plan-overrides.h"

#include <string.h>

/* ---- --set -------------------------------------------------------------- */

static gboolean
parse_index (const char *text, guint *out)
{
    guint64 value;

    if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT, &value, NULL))
        return FALSE;
    *out = (guint) value;
    return TRUE;
}

gboolean
throng_cli_set (ThrongTree *tree, const char *assignment, GError **error)
{
    g_auto (GStrv) parts = NULL;
    g_autoptr (GString) walked = g_string_new (NULL);
    const char *equals;
    const ThrongNode *node;
    guint n;

    g_return_val_if_fail (tree != NULL, FALSE);
    g_return_val_if_fail (assignment != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    if (!g_utf8_validate (assignment, -1, NULL)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                     "--set: the assignment is not valid UTF-8");
        return FALSE;
    }
    equals = strchr (assignment, '=');
    if (equals == NULL || equals == assignment) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                     "--set %s: expected PATH=VALUE, such as scenarios.0.users=10", assignment);
        return FALSE;
    }

    g_autofree char *path = g_strndup (assignment, equals - assignment);
    const char *value = equals + 1;

    parts = g_strsplit (path, ".", -1);
    n = g_strv_length (parts);
    for (guint i = 0; i < n; i++) {
        if (parts[i][0] == '\0') {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                         "--set %s: '%s' has an empty component", assignment, path);
            return FALSE;
        }
    }

    /* walk to the parent of the last component */
    node = throng_tree_root (tree);
    for (guint i = 0; i < n; i++) {
        gboolean last = i + 1 == n;
        guint index = 0;
        const ThrongNode *child = NULL;

        if (node->kind == THRONG_NODE_SCALAR) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                         "--set %s: %s is a single value, not a map or a list", assignment,
                         walked->str);
            return FALSE;
        }
        if (node->kind == THRONG_NODE_SEQUENCE) {
            if (!parse_index (parts[i], &index)) {
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                             "--set %s: %s is a list; '%s' is not an index such as 0", assignment,
                             walked->str, parts[i]);
                return FALSE;
            }
            if (index < node->items->len)
                child = node->items->pdata[index];
        } else {
            for (index = 0; index < node->keys->len; index++) {
                const ThrongNode *key = node->keys->pdata[index];
                if (strcmp (key->text, parts[i]) == 0) {
                    child = node->items->pdata[index];
                    break;
                }
            }
        }

        if (walked->len > 0)
            g_string_append_c (walked, '.');
        g_string_append (walked, parts[i]);

        if (child == NULL && !(last && node->kind == THRONG_NODE_MAP)) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_MISSING,
                         "--set %s: the plan has no %s", assignment, walked->str);
            return FALSE;
        }
        if (!last) {
            node = child;
            continue;
        }

        if (child != NULL && child->kind != THRONG_NODE_SCALAR) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                         "--set %s: %s is a %s; --set replaces single values only", assignment,
                         walked->str, child->kind == THRONG_NODE_MAP ? "map" : "list");
            return FALSE;
        }

        /* A map without the key: index is its length, and the key is added. */
        g_autofree char *origin = g_strdup_printf ("--set %s", path);
        throng_tree_put_scalar (tree, node, index, parts[i], origin,
                                (guint) g_utf8_strlen (assignment, value - assignment) + 1,
                                value);
    }
    return TRUE;
}

gboolean
throng_cli_sets_apply (ThrongTree *tree, gpointer sets, GError **error)
{
    const char *const *assignments = sets;

    for (gsize i = 0; assignments != NULL && assignments[i] != NULL; i++)
        if (!throng_cli_set (tree, assignments[i], error))
            return FALSE;
    return TRUE;
}

gboolean
throng_cli_plan_wants_builtin_target (const char *path, const char *const *sets)
{
    g_autoptr (ThrongTree) tree = throng_tree_load_file (path, NULL);

    if (tree == NULL || throng_tree_root (tree) == NULL)
        return FALSE;
    if (!throng_cli_sets_apply (tree, (gpointer) sets, NULL))
        return FALSE;

    const ThrongNode *target = throng_node_lookup (throng_tree_root (tree), "target");
    return target != NULL && g_strcmp0 (throng_node_scalar (target), "builtin") == 0;
}

/* ---- --out -------------------------------------------------------------- */

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
    { "remote_write", "url" },
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
