/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of templates (compiled at load, expanded per request), the
 * per-user variable store and data sets: every function and filter, the
 * `$${` escape, every compile error with its exact position, and the CSV
 * and JSON loaders with their errors.  A user here is the core's struct
 * with only what a template reads filled in.
 */
#include <string.h>

#include "dataset-private.h"
#include "metrics.h"
#include "template-private.h"
#include "user-private.h"
#include "worker-private.h"
#include "test-utils.h"

typedef struct {
    ThrongPlanVars *plan;
    ThrongData *data;
    ThrongScope *scope;
    GPtrArray *trees;
    ThrongUser *user;
    GRand *rand;
    GString *scratch;
} Env;

static const char users_csv[] = "username,password,\"full name\"\n"
                                "alice,\"p,1\",\"Alice \"\"A\"\" Smith\"\n"
                                "bob,p2,Bob\n";

static void
env_init (Env *env, const char *const *overrides, gboolean with_data)
{
    g_autoptr (GError) error = NULL;

    memset (env, 0, sizeof *env);
    env->plan = throng_plan_vars_new (overrides);
    if (with_data) {
        env->data = g_new0 (ThrongData, 1);
        env->data->sets[0] = throng_dataset_parse_csv ("users.csv", users_csv, strlen (users_csv),
                                                       NULL, &error);
        env->data->n_sets = 1;
        g_assert_no_error (error);
    }
    env->scope = throng_scope_new ("shop", env->plan, env->data);
    env->trees = g_ptr_array_new_with_free_func ((GDestroyNotify) throng_tree_free);
    env->rand = g_rand_new_with_seed (42);
    env->scratch = g_string_new (NULL);
}

/* The user, once every template is compiled (the scope knows its variables then). */
static ThrongUser *
env_user (Env *env)
{
    if (env->user == NULL) {
        env->user = g_new0 (ThrongUser, 1);
        throng_user_vars_init (&env->user->vars, throng_scope_n_vars (env->scope));
        env->user->vars.data = env->data;
        env->user->vars.run_id = 7;
        env->user->vars.worker_id = 3;
        env->user->vars.rand = env->rand;
        env->user->vars.scratch = env->scratch;
        env->user->iteration = 4;
    } else if (env->user->vars.n_vars < throng_scope_n_vars (env->scope)) {
        /* a variable declared since: a user of the scenario as it is now */
        ThrongUserVars old = env->user->vars;
        throng_user_vars_init (&env->user->vars, throng_scope_n_vars (env->scope));
        env->user->vars.data = old.data;
        memcpy (env->user->vars.rows, old.rows, sizeof old.rows);
        env->user->vars.run_id = old.run_id;
        env->user->vars.worker_id = old.worker_id;
        env->user->vars.rand = old.rand;
        env->user->vars.scratch = old.scratch;
        throng_user_vars_clear (&old);
    }
    return env->user;
}

static void
env_clear (Env *env)
{
    if (env->user != NULL) {
        throng_user_vars_clear (&env->user->vars);
        g_free (env->user);
    }
    throng_scope_free (env->scope);
    throng_data_free (env->data);
    throng_plan_vars_free (env->plan);
    g_ptr_array_unref (env->trees);
    g_rand_free (env->rand);
    g_string_free (env->scratch, TRUE);
}

/* The node of `v: TEXT` (TEXT as YAML writes it: quoted or not). */
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

static ThrongTemplate *
compile_ok (Env *env, const char *yaml_value)
{
    g_autoptr (GError) error = NULL;
    ThrongTemplate *tpl = throng_template_compile (env->scope, node_of (env, yaml_value), &error);

    g_assert_no_error (error);
    g_assert_nonnull (tpl);
    return tpl;
}

static char *
expand (Env *env, const ThrongTemplate *tpl)
{
    g_autoptr (GError) error = NULL;
    GString *out = g_string_new ("<");

    g_assert_true (throng_template_expand (tpl, env_user (env), out, &error));
    g_assert_no_error (error);
    return g_string_free (out, FALSE);
}

/* Compiles and expands @yaml_value; the result without the "<" the buffer started with. */
static void
assert_expands (Env *env, const char *yaml_value, const char *expected)
{
    ThrongTemplate *tpl = compile_ok (env, yaml_value);
    g_autofree char *got = expand (env, tpl);

    g_assert_cmpstr (got + 1, ==, expected);
    throng_template_free (tpl);
}

static void
assert_compile_error (Env *env, const char *yaml_value, const char *expected)
{
    g_autoptr (GError) error = NULL;
    ThrongTemplate *tpl = throng_template_compile (env->scope, node_of (env, yaml_value), &error);

    g_assert_null (tpl);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, expected);
}

/* ---- compiling and expanding ----------------------------------------------------- */

static void
test_literal (void)
{
    Env env;
    gsize length = 0;

    env_init (&env, NULL, FALSE);
    ThrongTemplate *plain = compile_ok (&env, "/items?page=1");
    g_assert_cmpstr (throng_template_get_literal (plain, &length), ==, "/items?page=1");
    g_assert_cmpuint (length, ==, 13);

    /* "$${" is a literal "${"; a lone "$" stays */
    ThrongTemplate *escaped = compile_ok (&env, "'cost: $5, $${vars.x} and $$'");
    g_assert_cmpstr (throng_template_get_literal (escaped, NULL), ==,
                     "cost: $5, ${vars.x} and $$");
    /* scenario.name is known at load: still a literal */
    ThrongTemplate *named = compile_ok (&env, "'/s/${scenario.name}'");
    g_assert_cmpstr (throng_template_get_literal (named, NULL), ==, "/s/shop");
    /* a run-time value is not */
    ThrongTemplate *dynamic = compile_ok (&env, "'/u/${user.id}'");
    g_assert_null (throng_template_get_literal (dynamic, NULL));
    /* expanding a literal appends it */
    g_autofree char *got = expand (&env, plain);
    g_assert_cmpstr (got, ==, "</items?page=1");

    throng_template_free (plain);
    throng_template_free (escaped);
    throng_template_free (named);
    throng_template_free (dynamic);
    throng_template_free (NULL);
    env_clear (&env);
}

static void
test_functions (void)
{
    Env env;

    env_init (&env, NULL, FALSE);
    assert_expands (&env, "'u${user.id}-i${iteration}-w${worker.id}-${scenario.name}'",
                    "u7-i5-w3-shop");
    assert_expands (&env, "'${random.int(5, 5)}|${ random.int(-3,-3) }'", "5|-3");

    ThrongTemplate *dice = compile_ok (&env, "'${random.int(1,6)}'");
    gboolean seen[7] = { FALSE };
    for (guint i = 0; i < 600; i++) {
        g_autofree char *got = expand (&env, dice);
        gint64 value = g_ascii_strtoll (got + 1, NULL, 10);
        g_assert_cmpint (value, >=, 1);
        g_assert_cmpint (value, <=, 6);
        seen[value] = TRUE;
    }
    for (guint v = 1; v <= 6; v++)
        g_assert_true (seen[v]);
    throng_template_free (dice);

    ThrongTemplate *text = compile_ok (&env, "'${random.string(12)}'");
    g_autofree char *word = expand (&env, text);
    g_assert_cmpuint (strlen (word + 1), ==, 12);
    for (const char *p = word + 1; *p != '\0'; p++)
        g_assert_true (g_ascii_isalnum (*p));
    throng_template_free (text);

    ThrongTemplate *uuid = compile_ok (&env, "'${uuid}'");
    g_autofree char *a = expand (&env, uuid);
    g_autofree char *b = expand (&env, uuid);
    g_assert_true (g_regex_match_simple (
        "^<[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", a, 0, 0));
    g_assert_cmpstr (a, !=, b);
    throng_template_free (uuid);

    gint64 before = g_get_real_time ();
    ThrongTemplate *times = compile_ok (&env, "'${time.unix} ${time.unix_ms} ${time.iso}'");
    g_autofree char *now = expand (&env, times);
    g_auto (GStrv) parts = g_strsplit (now + 1, " ", -1);
    g_assert_cmpuint (g_strv_length (parts), ==, 3);
    gint64 unix_s = g_ascii_strtoll (parts[0], NULL, 10);
    gint64 unix_ms = g_ascii_strtoll (parts[1], NULL, 10);
    g_assert_cmpint (unix_s, >=, before / G_USEC_PER_SEC);
    g_assert_cmpint (unix_s, <=, before / G_USEC_PER_SEC + 5);
    g_assert_cmpint (unix_ms / 1000, >=, unix_s - 1);
    g_assert_cmpint (unix_ms / 1000, <=, unix_s + 1);
    g_assert_true (g_regex_match_simple (
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$", parts[2], 0, 0));
    throng_template_free (times);

    /* a counter is run-wide: two templates, and two scopes, share it */
    ThrongTemplate *first = compile_ok (&env, "'${counter.orders}'");
    ThrongTemplate *second = compile_ok (&env, "'n=${counter.orders}'");
    ThrongScope *other = throng_scope_new ("other", env.plan, NULL);
    g_autoptr (GError) error = NULL;
    ThrongTemplate *third
        = throng_template_compile (other, node_of (&env, "'${counter.orders}'"), &error);
    g_assert_no_error (error);
    g_autofree char *c1 = expand (&env, first);
    g_autofree char *c2 = expand (&env, second);
    g_autofree char *c3 = expand (&env, third);
    g_assert_cmpstr (c1, ==, "<1");
    g_assert_cmpstr (c2, ==, "<n=2");
    g_assert_cmpstr (c3, ==, "<3");
    throng_template_free (first);
    throng_template_free (second);
    throng_template_free (third);
    throng_scope_free (other);
    env_clear (&env);
}

static void
test_filters (void)
{
    const char *const overrides[] = { "SECRET=a b&c/\xc3\xa9", NULL };
    Env env;

    env_init (&env, overrides, TRUE);
    /* on a value known at load, the filter is applied at load */
    assert_expands (&env, "'${env.SECRET | urlencode}'", "a%20b%26c%2F%C3%A9");
    assert_expands (&env, "'${env.SECRET|base64}'", "YSBiJmMvw6k=");
    gint slot = throng_scope_declare_var (env.scope, "q", node_of (&env, "q"), NULL);
    ThrongTemplate *json = compile_ok (&env, "'{\"q\": \"${vars.q | json}\"}'");
    ThrongTemplate *url = compile_ok (&env, "'/s?q=${vars.q|urlencode}'");
    ThrongTemplate *b64 = compile_ok (&env, "'${vars.q | base64}'");
    ThrongUser *user = env_user (&env);

    /* a user without a row yet: data.* is not set */
    ThrongTemplate *name = compile_ok (&env, "'${data.username}'");
    g_autoptr (GError) error = NULL;
    g_autoptr (GString) none = g_string_new (NULL);
    g_assert_false (throng_template_expand (name, user, none, &error));
    g_assert_error (error, THRONG_TEMPLATE_ERROR, THRONG_TEMPLATE_ERROR_UNSET);
    g_assert_cmpstr (error->message, ==, "data.username is not set");
    throng_template_free (name);

    env.user->vars.rows[0] = 0;
    assert_expands (&env, "'${data.username | base64}:${data.full name | json}'",
                    "YWxpY2U=:Alice \\\"A\\\" Smith");
    assert_expands (&env, "'${data.password}'", "p,1");
    env.user->vars.rows[0] = 1;
    assert_expands (&env, "'${data.username}'", "bob");

    throng_user_set_var (user, slot, "say \"hi\"\n\\ \t\x01 \xc3\xa9", -1);
    g_autofree char *j = expand (&env, json);
    g_assert_cmpstr (j, ==, "<{\"q\": \"say \\\"hi\\\"\\n\\\\ \\t\\u0001 \xc3\xa9\"}");
    g_autofree char *u = expand (&env, url);
    g_assert_cmpstr (u, ==, "</s?q=say%20%22hi%22%0A%5C%20%09%01%20%C3%A9");

    /* base64 in chunks: a long value encodes as one */
    g_autofree char *lng = g_strnfill (1000, 'x');
    throng_user_set_var (user, slot, lng, 1000);
    g_autofree char *b = expand (&env, b64);
    g_autofree char *expected = g_base64_encode ((const guchar *) lng, 1000);
    g_assert_cmpstr (b + 1, ==, expected);

    throng_template_free (json);
    throng_template_free (url);
    throng_template_free (b64);
    env_clear (&env);
}

static void
test_env (void)
{
    const char *const overrides[] = { "BASE=http://override:1", "TWICE=1", "TWICE=2", NULL };
    Env env;

    g_setenv ("THRONG_TEST_TEMPLATE_VAR", "from-env", TRUE);
    g_setenv ("BASE", "http://process:1", TRUE);
    env_init (&env, overrides, FALSE);
    assert_expands (&env, "'${env.BASE}/x'", "http://override:1/x");
    assert_expands (&env, "'${env.TWICE}'", "2");
    assert_expands (&env, "'${env.THRONG_TEST_TEMPLATE_VAR}'", "from-env");
    /* read once: a change after the first read is not seen */
    g_setenv ("THRONG_TEST_TEMPLATE_VAR", "changed", TRUE);
    assert_expands (&env, "'${env.THRONG_TEST_TEMPLATE_VAR}'", "from-env");
    g_unsetenv ("THRONG_TEST_NOT_SET");
    assert_expands (&env, "'${env.THRONG_TEST_NOT_SET:-http://127.0.0.1:8080}'",
                    "http://127.0.0.1:8080");
    assert_expands (&env, "'${env.THRONG_TEST_NOT_SET:-}'", "");
    assert_compile_error (&env, "'url: ${env.THRONG_TEST_NOT_SET}'",
                          "t.yaml:1:12: environment variable THRONG_TEST_NOT_SET is not set; set "
                          "it, give -e THRONG_TEST_NOT_SET=VALUE, or write a default: "
                          "${env.THRONG_TEST_NOT_SET:-VALUE}");
    g_unsetenv ("BASE");
    env_clear (&env);
}

static void
test_vars (void)
{
    Env env;
    g_autoptr (GError) error = NULL;

    env_init (&env, NULL, FALSE);
    /* read before it is declared: the slot is the same */
    ThrongTemplate *tpl = compile_ok (&env, "'Bearer ${vars.token}'");
    gint slot = throng_scope_declare_var (env.scope, "token", node_of (&env, "token"), &error);
    g_assert_no_error (error);
    g_assert_cmpint (slot, ==, 0);
    g_assert_cmpint (throng_scope_declare_var (env.scope, "token", node_of (&env, "x"), NULL), ==,
                     0);
    g_assert_true (throng_scope_finish (env.scope, &error));

    ThrongUser *user = env_user (&env);
    GString *out = g_string_new (NULL);
    g_assert_false (throng_template_expand (tpl, user, out, &error));
    g_assert_error (error, THRONG_TEMPLATE_ERROR, THRONG_TEMPLATE_ERROR_UNSET);
    g_assert_cmpstr (error->message, ==, "vars.token is not set");
    g_clear_error (&error);
    g_assert_null (throng_user_get_var (user, slot, NULL));

    throng_user_set_var (user, slot, "abcdef", 3);
    gsize length = 0;
    g_assert_cmpstr (throng_user_get_var (user, slot, &length), ==, "abc");
    g_assert_cmpuint (length, ==, 3);
    const char *storage = throng_user_get_var (user, slot, NULL);
    /* a value that fits reuses the storage, even the value's own tail */
    throng_user_set_var (user, slot, storage + 1, 2);
    g_assert_true (throng_user_get_var (user, slot, NULL) == storage);
    g_assert_cmpstr (storage, ==, "bc");
    throng_user_set_var (user, slot, "", 0);
    g_assert_cmpstr (throng_user_get_var (user, slot, NULL), ==, "");

    g_string_truncate (out, 0);
    throng_user_set_var (user, slot, "t0k", -1);
    g_assert_true (throng_template_expand (tpl, user, out, &error));
    g_assert_cmpstr (out->str, ==, "Bearer t0k");
    throng_user_unset_var (user, slot);
    g_assert_null (throng_user_get_var (user, slot, NULL));

    g_string_free (out, TRUE);
    throng_template_free (tpl);
    env_clear (&env);
}

static void
test_never_set (void)
{
    Env env;
    g_autoptr (GError) error = NULL;

    env_init (&env, NULL, FALSE);
    throng_scope_declare_var (env.scope, "token", node_of (&env, "token"), NULL);
    ThrongTemplate *tpl = compile_ok (&env, "'Bearer ${vars.tokn}'");
    g_assert_false (throng_scope_finish (env.scope, &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:14: vars.tokn is never set: no 'set' or 'extract' in scenario "
                     "'shop' assigns it; did you mean 'vars.token'?");
    throng_template_free (tpl);

    g_clear_error (&error);
    g_assert_cmpint (throng_scope_declare_var (env.scope, "2x", node_of (&env, "x"), &error), ==,
                     -1);
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:4: '2x' is not a variable name: a letter or '_', then letters, "
                     "digits and '_'");

    g_assert_cmpuint (throng_scope_add_check (env.scope, "status is 200"), ==, 0);
    g_assert_cmpuint (throng_scope_add_check (env.scope, "$.token exists"), ==, 1);
    g_assert_cmpuint (throng_scope_add_check (env.scope, "status is 200"), ==, 0);
    g_assert_cmpuint (throng_scope_n_checks (env.scope), ==, 2);
    env_clear (&env);
}

/* Every compile error, with its message and the column of the character it names. */
static void
test_errors (void)
{
    static const struct {
        const char *value;
        const char *message;
    } cases[] = {
        { "'/u/${usr.id}'", "t.yaml:1:10: unknown variable 'usr.id'; did you mean 'user.id'?" },
        { "'${var.token}'", "t.yaml:1:7: unknown variable 'var.token'; did you mean 'vars.token'?" },
        { "'${iteraton}'", "t.yaml:1:7: unknown variable 'iteraton'; did you mean 'iteration'?" },
        { "'${user.name}'",
          "t.yaml:1:7: unknown variable 'user.name'; a template reads vars.NAME, data.COLUMN, "
          "env.NAME, user.id, iteration, arrival, scenario.name, worker.id, random.int(A, B), "
          "random.string(N), uuid, time.unix, time.unix_ms, time.iso, counter.NAME or last.NAME" },
        { "'${time.unx}'", "t.yaml:1:7: unknown variable 'time.unx'; did you mean 'time.unix'?" },
        { "'${random.integer(1,2)}'",
          "t.yaml:1:7: unknown variable 'random.integer(1,2)'; did you mean 'random.int(A, B)'?" },
        { "'a ${vars.x'", "t.yaml:1:7: '${' is not closed by '}' (write '$${' for a literal '${')" },
        { "'${ }'", "t.yaml:1:5: empty ${}: write a variable, as ${vars.token}" },
        { "'${vars.q | urlencod}'",
          "t.yaml:1:16: unknown filter 'urlencod'; did you mean 'urlencode'?" },
        { "'${vars.q | upper}'",
          "t.yaml:1:16: unknown filter 'upper'; the filters are urlencode, json and base64" },
        { "'${vars.q | json | base64}'", "t.yaml:1:21: one filter per substitution" },
        { "'${random.int(1)}'",
          "t.yaml:1:18: expected two integers, 'A, B' between the parentheses, got '1'" },
        { "'${random.int(x, 2)}'",
          "t.yaml:1:18: expected two integers, 'A, B' between the parentheses, got 'x, 2'" },
        { "'${random.int(5, 1)}'", "t.yaml:1:18: random.int(A, B) needs A <= B, got 5 > 1" },
        { "'${random.string(0)}'",
          "t.yaml:1:21: random.string(N) needs N between 1 and 4096, got 0" },
        { "'${random.string(3}'", "t.yaml:1:22: expected ')' to close random.string(" },
        { "'${vars.a-b}'",
          "t.yaml:1:12: 'a-b' is not a variable name: a letter or '_', then letters, digits and "
          "'_'" },
        { "'${counter.}'",
          "t.yaml:1:15: '' is not a counter name: a letter or '_', then letters, digits and '_'" },
        { "'${data.username}'",
          "t.yaml:1:7: data.username: scenario 'shop' has no data set (add 'data: {file: ...}')" },
        { "'${builtin.http}'", "t.yaml:1:7: ${builtin.http} needs 'target: builtin' in the plan" },
        { "'${builtin.ftp}'",
          "t.yaml:1:7: unknown variable ${builtin.ftp}; the built-in target offers "
          "${builtin.http} and ${builtin.https}" },
        { "'${env.}'", "t.yaml:1:7: env. needs a variable name, as ${env.HOME}" },
        /* plain scalars count from their first character, double quotes like single */
        { "x${uid}", "t.yaml:1:7: unknown variable 'uid'; did you mean 'uuid'?" },
        { "\"ab ${uid}\"", "t.yaml:1:10: unknown variable 'uid'; did you mean 'uuid'?" },
    };
    Env env;

    env_init (&env, NULL, FALSE);
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        assert_compile_error (&env, cases[i].value, cases[i].message);
    env_clear (&env);

    env_init (&env, NULL, TRUE);
    assert_compile_error (&env, "'${data.usename}'",
                          "t.yaml:1:12: 'usename' is not a column of users.csv; did you mean "
                          "'data.username'?");
    assert_compile_error (&env, "'${data.zzzzzzzz}'",
                          "t.yaml:1:12: 'zzzzzzzz' is not a column of users.csv; its columns are "
                          "username, password, full name");
    env_clear (&env);

    /* a block scalar: lines counted after the indicator */
    env_init (&env, NULL, FALSE);
    assert_compile_error (&env, "|\n  line one\n  two ${nope}\n",
                          "t.yaml:3:7: unknown variable 'nope'; a template reads vars.NAME, "
                          "data.COLUMN, env.NAME, user.id, iteration, arrival, scenario.name, "
                          "worker.id, random.int(A, B), random.string(N), uuid, time.unix, "
                          "time.unix_ms, time.iso, counter.NAME or last.NAME");
    env_clear (&env);
}

static void
test_compile_text (void)
{
    static const char body[] = "{\n  \"id\": ${user.id},\n  \"x\": ${vars.}\n}\n";
    Env env;
    g_autoptr (GError) error = NULL;

    env_init (&env, NULL, FALSE);
    const ThrongNode *where = node_of (&env, "body.json");
    ThrongTemplate *tpl
        = throng_template_compile_text (env.scope, where, "body.json", body, 22, &error);
    g_assert_no_error (error);
    g_autofree char *got = expand (&env, tpl);
    g_assert_cmpstr (got, ==, "<{\n  \"id\": 7,\n");
    throng_template_free (tpl);

    g_assert_null (
        throng_template_compile_text (env.scope, where, "body.json", body, strlen (body), &error));
    g_assert_cmpstr (error->message, ==,
                     "body.json:3:15: '' is not a variable name: a letter or '_', then letters, "
                     "digits and '_'");
    g_clear_error (&error);
    /* without an origin, at the node that names the text */
    g_assert_null (throng_template_compile_text (env.scope, where, NULL, "${nope", 6, &error));
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:4: '${' is not closed by '}' (write '$${' for a literal '${')");
    env_clear (&env);
}

/* ---- data sets ----------------------------------------------------------------------- */

static void
test_csv (void)
{
    static const char text[] = "\xef\xbb\xbf"
                               "a,b\r\n"
                               "1,\"x,y\"\r\n"
                               "\"multi\nline\",\"q\"\"q\"\r\n"
                               ",\n"
                               "\n";
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongDataSet) data = throng_dataset_parse_csv ("t.csv", text, strlen (text), NULL, &error);
    gsize length;

    g_assert_no_error (error);
    g_assert_cmpuint (data->n_columns, ==, 2);
    g_assert_cmpuint (data->n_rows, ==, 3);
    g_assert_cmpstr (data->columns[0], ==, "a");
    g_assert_cmpint (throng_dataset_column (data, "b"), ==, 1);
    g_assert_cmpint (throng_dataset_column (data, "c"), ==, -1);
    g_assert_cmpstr (throng_dataset_cell (data, 0, 1, &length), ==, "x,y");
    g_assert_cmpuint (length, ==, 3);
    g_assert_cmpstr (throng_dataset_cell (data, 1, 0, &length), ==, "multi\nline");
    g_assert_cmpstr (throng_dataset_cell (data, 1, 1, &length), ==, "q\"q");
    g_assert_cmpstr (throng_dataset_cell (data, 2, 0, &length), ==, "");
    g_assert_cmpuint (length, ==, 0);
}

static void
test_csv_errors (void)
{
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        { "", "users.csv: the file is empty; a data file starts with a header row (or the plan names its columns: columns: [a, b])" },
        { "\n\n", "users.csv: the file is empty; a data file starts with a header row (or the plan names its columns: columns: [a, b])" },
        { "a,b\n", "users.csv: no rows after the header" },
        /* the record's first line, quoted newlines counted */
        { "a,b\n1,\"2\n3\"\n4,5,6\n", "users.csv:4: 3 fields, the header has 2" },
        { "a,b\n1\n", "users.csv:2: 1 field, the header has 2" },
        { "a,b\n1,\"open\n", "users.csv:2: a quoted field is not closed" },
        { "a,a\n1,2\n", "users.csv:1: column 'a' appears twice" },
        { "a,,c\n1,2,3\n", "users.csv:1: column 2 has no name" },
        { "a\n\xff\n", "users.csv: not valid UTF-8" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (GError) error = NULL;
        g_autoptr (ThrongDataSet) data
            = throng_dataset_parse_csv ("users.csv", cases[i].text, strlen (cases[i].text), NULL, &error);
        g_assert_null (data);
        g_assert_nonnull (error);
        g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_json (void)
{
    static const char text[]
        = "[{\"user\": \"al\\\"ice\", \"n\": 7, \"ok\": true, \"none\": null, \"o\": {\"a\":1}},"
          " {\"n\": 8.5, \"user\": \"bob\", \"ok\": false, \"none\": \"x\", \"o\": [1]}]";
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongDataSet) data
        = throng_dataset_parse_json ("u.json", text, strlen (text), &error);
    gsize length;

    g_assert_no_error (error);
    g_assert_cmpuint (data->n_columns, ==, 5);
    g_assert_cmpuint (data->n_rows, ==, 2);
    g_assert_cmpstr (data->columns[1], ==, "n");
    g_assert_cmpstr (throng_dataset_cell (data, 0, 0, &length), ==, "al\"ice");
    g_assert_cmpstr (throng_dataset_cell (data, 0, 1, &length), ==, "7");
    g_assert_cmpstr (throng_dataset_cell (data, 0, 2, &length), ==, "true");
    g_assert_cmpstr (throng_dataset_cell (data, 0, 3, &length), ==, "");
    g_assert_cmpstr (throng_dataset_cell (data, 0, 4, &length), ==, "{\"a\":1}");
    /* columns by name, whatever the order of the keys */
    g_assert_cmpstr (throng_dataset_cell (data, 1, 0, &length), ==, "bob");
    g_assert_cmpstr (throng_dataset_cell (data, 1, 1, &length), ==, "8.5");

    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        { "[", "u.json: not valid JSON" },
        { "{}", "u.json: expected an array of objects" },
        { "[]", "u.json: the array is empty" },
        { "[{\"a\": 1}, 2]", "u.json: element 2 is not an object" },
        { "[{\"a\": 1}, {\"a\": 1, \"b\": 2}]", "u.json: element 2 has 2 keys, the first has 1" },
        { "[{\"a\": 1}, {\"b\": 2}]", "u.json: element 2 has no key 'a'" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (GError) local = NULL;
        g_autoptr (ThrongDataSet) bad
            = throng_dataset_parse_json ("u.json", cases[i].text, strlen (cases[i].text), &local);
        g_assert_null (bad);
        g_assert_cmpstr (local->message, ==, cases[i].message);
    }
}

static ThrongDataSet *
rows_1_to (guint n)
{
    g_autoptr (GString) text = g_string_new ("n\n");
    g_autoptr (GError) error = NULL;

    for (guint i = 1; i <= n; i++)
        g_string_append_printf (text, "%u\n", i);
    ThrongDataSet *data = throng_dataset_parse_csv ("n.csv", text->str, text->len, NULL, &error);
    g_assert_no_error (error);
    return data;
}

static void
test_rows (void)
{
    g_autoptr (GRand) rand = g_rand_new_with_seed (1);
    guint row;

    /* sequential, recycled: wraps around */
    g_autoptr (ThrongDataSet) seq = rows_1_to (3);
    for (guint i = 0; i < 7; i++) {
        g_assert_true (throng_dataset_next_row (seq, rand, &row));
        g_assert_cmpuint (row, ==, i % 3);
    }
    g_assert_false (throng_dataset_is_exhausted (seq));

    /* sequential, stop: three rows, then none */
    g_autoptr (ThrongDataSet) stop = rows_1_to (3);
    stop->stop = TRUE;
    for (guint i = 0; i < 3; i++)
        g_assert_true (throng_dataset_next_row (stop, rand, &row));
    g_assert_false (throng_dataset_next_row (stop, rand, &row));
    g_assert_true (throng_dataset_is_exhausted (stop));

    /* unique, in a slice: rows 1, 4, 7 of 0..9 for slice 1 of 3 */
    g_autoptr (ThrongDataSet) unique = rows_1_to (10);
    unique->mode = THRONG_DATA_UNIQUE;
    unique->stop = TRUE;
    throng_dataset_set_slice (unique, 1, 3);
    for (guint expected = 1; expected < 10; expected += 3) {
        g_assert_true (throng_dataset_next_row (unique, rand, &row));
        g_assert_cmpuint (row, ==, expected);
    }
    g_assert_false (throng_dataset_next_row (unique, rand, &row));

    /* random: every row, never exhausted */
    g_autoptr (ThrongDataSet) random = rows_1_to (4);
    random->mode = THRONG_DATA_RANDOM;
    random->stop = TRUE;
    gboolean seen[4] = { FALSE };
    for (guint i = 0; i < 200; i++) {
        g_assert_true (throng_dataset_next_row (random, rand, &row));
        g_assert_cmpuint (row, <, 4);
        seen[row] = TRUE;
    }
    g_assert_true (seen[0] && seen[1] && seen[2] && seen[3]);
}

/* Check outcomes land in the worker's metrics block, per scenario, and merge like counters. */
static void
test_record_check (void)
{
    const guint steps[] = { 1, 1 };
    const guint checks[] = { 1, 2 };
    g_autoptr (ThrongMetrics) total = throng_metrics_new_full (2, steps, checks);
    ThrongWorker *worker = g_new0 (ThrongWorker, 1);
    ThrongUser *user = g_new0 (ThrongUser, 1);

    worker->metrics = throng_metrics_new_full (2, steps, checks);
    user->worker = worker;
    user->scenario_index = 1;
    throng_user_record_check (user, 0, TRUE);
    throng_user_record_check (user, 1, TRUE);
    throng_user_record_check (user, 1, FALSE);
    throng_user_record_check (user, 1, TRUE);
    g_assert_cmpuint (worker->metrics->first_check[1], ==, 1);
    g_assert_cmpuint (worker->metrics->check_passes[0], ==, 0);
    g_assert_cmpuint (worker->metrics->check_passes[1], ==, 1);
    g_assert_cmpuint (worker->metrics->check_passes[2], ==, 2);
    g_assert_cmpuint (worker->metrics->check_fails[2], ==, 1);

    throng_metrics_merge (total, worker->metrics);
    throng_metrics_merge (total, worker->metrics);
    g_assert_cmpuint (total->check_passes[2], ==, 4);
    g_assert_cmpuint (total->check_fails[2], ==, 2);
    throng_metrics_reset (worker->metrics);
    g_assert_cmpuint (worker->metrics->check_passes[2], ==, 0);

    /* after the worker's last report, nothing is counted and nothing breaks */
    g_clear_pointer (&worker->metrics, throng_metrics_free);
    throng_user_record_check (user, 0, FALSE);
    g_free (user);
    g_free (worker);
}

/* A list variable's elements as foreach reads them: strings unescaped, the rest as JSON text. */
static void
test_list (void)
{
    static const struct {
        const char *list;
        const char *elements; /* joined with '|' */
    } cases[] = {
        { "[11, \"b 2\", 33]", "11|b 2|33" },
        { " [ \"a\\\"q\" ,{\"x\": [1, \"]\"]}, [2,3], true, null, -1.5e3 ] ", "a\"q|{\"x\": [1, \"]\"]}|[2,3]|true|null|-1.5e3" },
        { "[\"\\u00e9\\ud83d\\ude00\\n\"]", "\u00e9\xf0\x9f\x98\x80\n" },
        { "[]", "" },
        { "not a list", "" },
        { "[1, 2", "1" },
        { "[1 2]", "" },
    };
    g_autoptr (GString) out = g_string_new (NULL);

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (GString) joined = g_string_new (NULL);
        gsize offset = 0;

        while (throng_list_next (cases[i].list, strlen (cases[i].list), &offset, out))
            g_string_append_printf (joined, "%s%s", joined->len > 0 ? "|" : "", out->str);
        g_test_message ("%s", cases[i].list);
        g_assert_cmpstr (joined->str, ==, cases[i].elements);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/template/literal", test_literal);
    g_test_add_func ("/template/functions", test_functions);
    g_test_add_func ("/template/filters", test_filters);
    g_test_add_func ("/template/env", test_env);
    g_test_add_func ("/template/vars", test_vars);
    g_test_add_func ("/template/never-set", test_never_set);
    g_test_add_func ("/template/errors", test_errors);
    g_test_add_func ("/template/compile-text", test_compile_text);
    g_test_add_func ("/template/record-check", test_record_check);
    g_test_add_func ("/dataset/csv", test_csv);
    g_test_add_func ("/dataset/csv-errors", test_csv_errors);
    g_test_add_func ("/dataset/json", test_json);
    g_test_add_func ("/dataset/rows", test_rows);
    g_test_add_func ("/vars/list", test_list);
    return g_test_run ();
}
