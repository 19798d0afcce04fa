/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of conditions (`if`, `while`): what each operator answers
 * for numbers, strings, unset variables and the last status, and every
 * compile error at its exact column.  A user here is the core's struct
 * with only what a condition reads filled in.
 */
#include <string.h>

#include "condition-private.h"
#include "user-private.h"
#include "test-utils.h"

typedef struct Env Env;
static const char users_csv[] = "name,age\nalice,31\n";

struct Env {
    ThrongPlanVars *plan;
    ThrongData *data;
    ThrongScope *scope;
    GPtrArray *trees;
    ThrongUser *user;
    GString *scratch, *operand;
    gint role, count, ids;
};

/* The node of `v: TEXT` (TEXT as YAML writes it). */
static const ThrongNode *
node_of (Env *env, const char *yaml_value)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *yaml = g_strdup_printf ("v: %s\n", yaml_value);
    ThrongTree *tree = throng_tree_load_data ("t.yaml", yaml, strlen (yaml), &error);

    g_assert_no_error (error);
    g_ptr_array_add (env->trees, tree);
    return throng_node_lookup (throng_tree_root (tree), "v");
}

static void
env_init (Env *env)
{
    g_autoptr (GError) error = NULL;

    memset (env, 0, sizeof *env);
    env->plan = throng_plan_vars_new (NULL);
    env->data = g_new0 (ThrongData, 1);
    env->data->sets[0]
        = throng_dataset_parse_csv ("users.csv", users_csv, strlen (users_csv), NULL, &error);
    env->data->n_sets = 1;
    g_assert_no_error (error);
    env->scope = throng_scope_new ("shop", env->plan, env->data);
    env->trees = g_ptr_array_new_with_free_func ((GDestroyNotify)throng_tree_free);
    env->scratch = g_string_new (NULL);
    env->operand = g_string_new (NULL);
    const ThrongNode *where = node_of (env, "x");
    env->role = throng_scope_declare_var (env->scope, "role", where, &error);
    env->count = throng_scope_declare_var (env->scope, "count", where, &error);
    env->ids = throng_scope_declare_var (env->scope, "never_set", where, &error);
    g_assert_no_error (error);
    env->user = g_new0 (ThrongUser, 1);
    throng_user_vars_init (&env->user->vars, 16);
    env->user->vars.data = env->data;
    env->user->vars.rows[0] = 0;
    env->user->vars.scratch = env->scratch;
    env->user->vars.operand = env->operand;
    env->user->vars.last_status = 404;
    env->user->iteration = 2;
    throng_user_set_var (env->user, env->role, "admin", -1);
    throng_user_set_var (env->user, env->count, "10", -1);
}

static void
env_clear (Env *env)
{
    throng_user_vars_clear (&env->user->vars);
    g_free (env->user);
    throng_scope_free (env->scope);
    throng_data_free (env->data);
    throng_plan_vars_free (env->plan);
    g_ptr_array_unref (env->trees);
    g_string_free (env->scratch, TRUE);
    g_string_free (env->operand, TRUE);
}

static void
assert_holds (Env *env, const char *yaml_value, gboolean expected)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongCondition) condition
        = throng_condition_compile (env->scope, node_of (env, yaml_value), &error);

    g_test_message ("%s", yaml_value);
    g_assert_no_error (error);
    g_assert_cmpint (throng_condition_eval (condition, env->user), ==, expected);
}

static void
assert_refused (Env *env, const char *yaml_value, const char *expected)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongCondition) condition
        = throng_condition_compile (env->scope, node_of (env, yaml_value), &error);

    g_test_message ("%s", yaml_value);
    g_assert_null (condition);
    g_assert_nonnull (error);
    g_assert_cmpstr (error->message, ==, expected);
}

static void
test_eval (void)
{
    Env env;

    env_init (&env);
    /* strings, numbers, and numbers compared as numbers when both sides are */
    assert_holds (&env, "vars.role == \"admin\"", TRUE);
    assert_holds (&env, "vars.role != 'admin'", FALSE);
    assert_holds (&env, "vars.count > 9", TRUE);
    assert_holds (&env, "vars.count < 9.5", FALSE);
    assert_holds (&env, "vars.count >= 10 and vars.count <= 10.0", TRUE);
    assert_holds (&env, "vars.count == \"10\"", TRUE);
    assert_holds (&env, "vars.count < \"9\"", FALSE); /* "9" reads as a number too */
    assert_holds (&env, "vars.role < \"b\"", TRUE);   /* bytes: "admin" < "b" */
    assert_holds (&env, "data.name == 'alice' and data.age > 30", TRUE);
    assert_holds (&env, "iteration == 3", TRUE); /* as ${iteration}: from 1 */
    /* the last status */
    assert_holds (&env, "last.status == 404", TRUE);
    assert_holds (&env, "last.status >= 200 and last.status < 300", FALSE);
    assert_holds (&env, "last.status matches /^4\\d\\d$/", TRUE);
    /* and, or, not, parentheses: `and` binds tighter than `or` */
    assert_holds (&env, "true or false and false", TRUE);
    assert_holds (&env, "(true or false) and false", FALSE);
    assert_holds (&env, "not vars.role == 'guest'", TRUE);
    assert_holds (&env, "not not (vars.count == 10)", TRUE);
    /* exists, and an unset operand: every comparison with it is false */
    assert_holds (&env, "exists(vars.role)", TRUE);
    assert_holds (&env, "exists(vars.never_set)", FALSE);
    assert_holds (&env, "vars.never_set == ''", FALSE);
    assert_holds (&env, "vars.never_set != 'x'", FALSE);
    assert_holds (&env, "not exists(vars.never_set) or vars.never_set == 1", TRUE);
    /* matches, with an escaped slash */
    assert_holds (&env, "vars.role matches /^ad/", TRUE);
    assert_holds (&env, "'''a/b'' matches /a\\/b/'", TRUE);
    assert_holds (&env, "vars.role matches /^min/", FALSE);
    env_clear (&env);
}

/* Each refusal with the column of the character at fault ("v: " is 3 columns). */
static void
test_errors (void)
{
    Env env;

    env_init (&env);
    assert_refused (&env, "vars.role = 'admin'", "t.yaml:1:14: '=' compares nothing: write '=='");
    assert_refused (&env, "vars.a == 1 && vars.b == 2", "t.yaml:1:16: write 'and' for '&&'");
    assert_refused (&env, "'!exists(vars.role)'", "t.yaml:1:5: write 'not' for '!'");
    assert_refused (&env, "vars.role",
                    "t.yaml:1:4: a condition compares: write 'vars.role == VALUE' (or !=, <, "
                    "<=, >, >=, matches /REGEX/)");
    assert_refused (&env, "vars.rol == 1 and vasr.x == 2",
                    "t.yaml:1:22: unknown variable 'vasr.x'; did you mean 'vars.x'?");
    assert_refused (&env, "data.nmae == 1",
                    "t.yaml:1:9: 'nmae' is not a column of users.csv; did you mean 'data.name'?");
    assert_refused (&env, "last.header == 1",
                    "t.yaml:1:4: unknown name 'last.header': of the iteration's last request, a "
                    "template reads last.status, last.duration_ms, last.ttfb_ms, last.connect_ms "
                    "and last.tls_ms; extract what else it needs into vars");
    assert_refused (&env, "(vars.role == 1", "t.yaml:1:4: this '(' is not closed by ')'");
    assert_refused (&env, "vars.role == 1)", "t.yaml:1:18: this ')' closes no '('");
    assert_refused (&env, "vars.role == 1 vars.count == 2",
                    "t.yaml:1:19: expected 'and', 'or' or the end of the condition");
    assert_refused (&env, "vars.role matches '^a'",
                    "t.yaml:1:22: 'matches' takes a regex between slashes, as /^2\\d\\d$/");
    assert_refused (&env, "vars.role matches /(a/",
                    "t.yaml:1:23: invalid regex '(a' at character 2: missing terminating )");
    assert_refused (&env, "vars.role == \"${vars.x}\"",
                    "t.yaml:1:18: '${' in a condition: a string here is literal; compare with "
                    "the name itself, as vars.a == data.b");
    assert_refused (&env, "exists(data.name)",
                    "t.yaml:1:11: exists takes a variable, as exists(vars.token)");
    assert_refused (&env, "vars.role == 'abc", "t.yaml:1:17: this string is not closed by '");
    assert_refused (&env, "vars.role ==",
                    "t.yaml:1:16: the condition ends where a value was "
                    "expected");
    assert_refused (&env, "12ab == 1", "t.yaml:1:4: '12ab' is not a number");
    assert_refused (&env, "counter.orders > 3",
                    "t.yaml:1:4: 'counter.orders' counts up each time it is read: a condition "
                    "cannot read it (set: a variable from it first)");
    assert_refused (&env, "{a: 1}",
                    "t.yaml:1:4: expected a condition, such as 'vars.role == "
                    "\"admin\"', got a map");
    env_clear (&env);
}

/* A variable a condition reads that nothing sets is refused when the scenario is done. */
static void
test_undeclared (void)
{
    Env env;
    g_autoptr (GError) error = NULL;

    env_init (&env);
    g_autoptr (ThrongCondition) condition
        = throng_condition_compile (env.scope, node_of (&env, "exists(vars.tokn)"), &error);
    g_assert_no_error (error);
    g_assert_nonnull (condition); /* it compiles: the name is checked when the scenario ends */
    g_assert_false (throng_scope_finish (env.scope, &error));
    g_assert_nonnull (error);
    g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:11: vars.tokn is never set"));
    env_clear (&env);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/condition/eval", test_eval);
    g_test_add_func ("/condition/errors", test_errors);
    g_test_add_func ("/condition/undeclared", test_undeclared);
    return g_test_run ();
}
