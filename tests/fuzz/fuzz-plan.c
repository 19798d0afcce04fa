/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the plan loader.  One input is one plan file; it
 * goes through every layer a user's plan reaches before any load is sent:
 * the YAML tree (throng_tree_load_data), every typed reader of
 * <throng/node.h> on every node, an option table of every type applied to
 * every map, `--set` and `${...}` expansion, and then the whole loader
 * (throng_plan_load in validate mode, with the test plugins' `null`
 * protocol and the build's own plugins) and the thresholds.  A loader
 * error is the expected outcome for most inputs; a crash, a sanitizer
 * report, a leak or a GLib critical or warning is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "plan.h"
#include "plan-overrides.h"
#include "threshold.h"

#include "fuzz-glib.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *plan_path;
static char *plan_dir;

/* A reader returns TRUE exactly when it leaves its error unset. */
#define CHECK(call, error)                                                                   \
    G_STMT_START                                                                             \
    {                                                                                        \
        gboolean ok_ = (call);                                                               \
        g_assert_true (ok_ == ((error) == NULL));                                            \
    }                                                                                        \
    G_STMT_END

/* ---- the tree and its readers --------------------------------------------- */

typedef struct {
    char *text;
    gboolean flag;
    guint64 count;
    gint64 wait_us;
    guint64 bytes;
    int choice;
    const ThrongNode *raw;
    guint64 inner;
    char *inner_text;
    gint64 custom_us;
} Fields;

static const char *const choices[] = { "one", "two", "three", NULL };

static gboolean
parse_custom (const ThrongNode *node, gpointer field, GError **error)
{
    return throng_node_get_duration (node, field, error);
}

static const ThrongOption inner_table[] = {
    { "users", THRONG_OPTION_UINT, offsetof (Fields, inner), .min = 1, .max = 1000 },
    { "name", THRONG_OPTION_STRING, offsetof (Fields, inner_text) },
    { NULL },
};

/* Named after keys plans really use, so that the corpus reaches them. */
static const ThrongOption table[] = {
    { "name", THRONG_OPTION_STRING, offsetof (Fields, text) },
    { "keep_alive", THRONG_OPTION_BOOL, offsetof (Fields, flag) },
    { "users", THRONG_OPTION_UINT, offsetof (Fields, count), .min = 1, .max = 1000000 },
    { "duration", THRONG_OPTION_DURATION, offsetof (Fields, wait_us), .min = 1000,
      .max = G_GINT64_CONSTANT (3600000000) },
    { "max_body", THRONG_OPTION_SIZE, offsetof (Fields, bytes), .min = 1, .max = 1 << 30 },
    { "executor", THRONG_OPTION_ENUM, offsetof (Fields, choice), .choices = choices },
    { "steps", THRONG_OPTION_NODE, offsetof (Fields, raw) },
    { "tls", THRONG_OPTION_TABLE, 0, .table = inner_table },
    { "think_time", THRONG_OPTION_CUSTOM, offsetof (Fields, custom_us), .parse = parse_custom },
    { "timeout", THRONG_OPTION_DURATION, offsetof (Fields, wait_us),
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { NULL },
};

static const char *const allowed_keys[] = { "name", "users", "steps", "http", NULL };

static void
read_everything (const ThrongNode *node, guint depth)
{
    g_autofree char *described = throng_node_describe (node);
    const char *text;
    gboolean flag;
    guint64 number;
    gint64 us;

    g_assert_nonnull (described);
    g_assert_cmpuint (throng_node_line (node), >=, 1);
    g_assert_cmpuint (throng_node_column (node), >=, 1);
    g_assert_nonnull (throng_node_file (node));
    g_assert_cmpuint (depth, <=, THRONG_TREE_MAX_DEPTH + 1);

    switch (throng_node_kind (node)) {
    case THRONG_NODE_SCALAR: {
        g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, e5 = NULL, e6 = NULL;

        g_assert_nonnull (throng_node_scalar (node));
        (void)throng_node_is_null (node);
        CHECK (throng_node_get_string (node, &text, &e1), e1);
        CHECK (throng_node_get_bool (node, &flag, &e2), e2);
        CHECK (throng_node_get_uint (node, &number, &e3), e3);
        CHECK (throng_node_get_duration (node, &us, &e4), e4);
        CHECK (throng_node_get_size (node, &number, &e5), e5);
        CHECK (throng_parse_duration (throng_node_scalar (node), &us, &e6), e6);
        (void)throng_node_suggest (throng_node_scalar (node), allowed_keys);
        break;
    }
    case THRONG_NODE_MAP: {
        Fields fields = { 0 };
        g_autoptr (GError) applied = NULL, checked = NULL, as_step = NULL;

        g_assert_null (throng_node_scalar (node));
        CHECK (throng_options_apply (node, table, &fields, FALSE, "fuzz options", &applied),
               applied);
        throng_options_clear (table, &fields);
        memset (&fields, 0, sizeof fields);
        CHECK (throng_options_apply (node, table, &fields, TRUE, "fuzz step", &as_step), as_step);
        if (fields.text != NULL || fields.inner_text != NULL) {
            Fields copy = fields;
            throng_options_copy_strings (table, &copy);
            throng_options_clear (table, &copy);
        }
        throng_options_clear (table, &fields);
        CHECK (throng_node_check_keys (node, allowed_keys, "fuzz", &checked), checked);
        for (guint i = 0; i < throng_node_n_children (node); i++) {
            const ThrongNode *key = throng_node_key (node, i);

            g_assert_nonnull (key);
            g_assert_true (throng_node_lookup (node, throng_node_scalar (key)) != NULL);
            read_everything (key, depth + 1);
            read_everything (throng_node_child (node, i), depth + 1);
        }
        break;
    }
    case THRONG_NODE_SEQUENCE:
        g_assert_null (throng_node_key (node, 0));
        for (guint i = 0; i < throng_node_n_children (node); i++)
            read_everything (throng_node_child (node, i), depth + 1);
        break;
    }
}

static const char *
lookup (const char *name, gpointer data, const ThrongNode *where, gsize offset, GError **error)
{
    if (strcmp (name, "builtin.http") == 0)
        return "http://127.0.0.1:1";
    if (strcmp (name, "fail") == 0)
        throng_node_set_error_at (where, offset, error, THRONG_PLAN_ERROR_INVALID, "no ${%s}", name);
    return NULL;
}

static void
fuzz_tree (const char *data, gsize size)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("fuzz.yaml", data, size, &error);
    static const char *const sets[]
        = { "scenarios.0.users=7", "name=set", "scenarios.0.steps.0.null.delay=1ms",
            "a.b.c=${builtin.http}", "scenarios.x=1", "=", NULL };

    if (tree == NULL) {
        g_assert_nonnull (error);
        g_assert_true (error->domain == THRONG_PLAN_ERROR);
        g_assert_null (strchr (error->message, '\n'));
        return;
    }
    g_assert_no_error (error);
    read_everything (throng_tree_root (tree), 1);

    for (gsize i = 0; sets[i] != NULL; i++) {
        g_autoptr (GError) set_error = NULL;
        CHECK (throng_cli_set (tree, sets[i], &set_error), set_error);
    }
    g_autoptr (GError) expand_error = NULL;
    CHECK (throng_tree_expand (tree, lookup, NULL, &expand_error), expand_error);
    read_everything (throng_tree_root (tree), 1);
}

/* ---- the whole loader ----------------------------------------------------- */

static void
fuzz_plan (const char *data, gsize size)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    ThrongPlanLoadOptions options = { .validate_only = TRUE };

    if (!g_file_set_contents (plan_path, data, (gssize)size, &error))
        g_error ("cannot write %s: %s", plan_path, error->message);

    g_autoptr (ThrongPlan) plan = throng_plan_load (plan_path, registry, &options, &error);
    if (plan == NULL) {
        g_assert_nonnull (error);
        g_assert_null (strchr (error->message, '\n'));
        return;
    }
    g_assert_no_error (error);
    g_assert_cmpuint (plan->scenarios->len, >=, 1);
    g_assert_cmpuint (plan->reporters->len, >=, 1);
    /* thresholds are part of the plan: a plan that loads has them parsed */
    g_assert_nonnull (plan->thresholds);
}

static void
remove_plan (void)
{
    g_unlink (plan_path);
    g_rmdir (plan_dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("throng-fuzz-XXXXXX", &error);
    const char *plugins = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    if (dir == NULL)
        g_error ("%s", error->message);
    plan_path = g_build_filename (dir, "plan.yaml", NULL);
    plan_dir = g_steal_pointer (&dir);
    atexit (remove_plan);
    /* the `null` protocol; the build's own plugins are found by the registry */
    g_setenv ("THRONG_PLUGIN_PATH", plugins != NULL ? plugins : FUZZ_TEST_PLUGIN_DIR, TRUE);
    fuzz_glib_init ();
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    /* Larger inputs only spend the fuzzer's time on the byte limit. */
    if (size > 64 * 1024)
        return -1;
    fuzz_tree ((const char *)data, size);
    fuzz_plan ((const char *)data, size);
    return 0;
}
