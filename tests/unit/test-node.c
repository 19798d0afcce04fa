/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the plan's building blocks, without plugins: the YAML tree
 * (limits, refusals, `--set`, `${…}` expansion), the typed readers
 * (duration, size, bool, whole number, string), the key check with its
 * suggestions, and option tables (layering, NOT_IN_STEP, enums, ranges,
 * out-parameters left untouched on error).
 */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include <gmodule.h>
#include <throng/throng.h>
#include "node-private.h"
#include "plan-overrides.h"
#include "registry.h"
#include "test-utils.h"

/* ---- helpers ------------------------------------------------------------- */

static ThrongTree *
load (const char *yaml)
{
    g_autoptr (GError) error = NULL;
    ThrongTree *tree = throng_tree_load_data ("t.yaml", yaml, strlen (yaml), &error);

    g_assert_no_error (error);
    g_assert_nonnull (tree);
    return tree;
}

/* Asserts that loading @yaml fails with exactly @message and @code. */
static void
assert_load_error (const char *yaml, gssize length, int code, const char *message)
{
    g_autoptr (GError) error = NULL;

    if (length < 0)
        length = strlen (yaml);
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("t.yaml", yaml, length, &error);

    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, code);
    g_assert_cmpstr (error->message, ==, message);
}

/* The value under key `v` of a one-key plan "v: TEXT". */
static const ThrongNode *
value_of (ThrongTree *tree)
{
    const ThrongNode *node = throng_node_lookup (throng_tree_root (tree), "v");

    g_assert_nonnull (node);
    return node;
}

static ThrongTree *
load_value (const char *text)
{
    g_autofree char *yaml = g_strdup_printf ("v: %s\n", text);
    return load (yaml);
}

/* ---- tree ---------------------------------------------------------------- */

static void
test_tree_locations (void)
{
    g_autoptr (ThrongTree) tree = load ("name: x\nscenarios:\n  - users: 5\n    steps: []\n");
    const ThrongNode *root = throng_tree_root (tree);
    const ThrongNode *scenarios = throng_node_lookup (root, "scenarios");
    const ThrongNode *first = throng_node_child (scenarios, 0);
    const ThrongNode *users = throng_node_lookup (first, "users");

    g_assert_cmpint (throng_node_kind (root), ==, THRONG_NODE_MAP);
    g_assert_cmpuint (throng_node_n_children (root), ==, 2);
    g_assert_cmpstr (throng_node_scalar (throng_node_key (root, 1)), ==, "scenarios");
    g_assert_cmpint (throng_node_kind (scenarios), ==, THRONG_NODE_SEQUENCE);
    g_assert_null (throng_node_key (scenarios, 0));
    g_assert_cmpstr (throng_node_scalar (users), ==, "5");
    g_assert_cmpstr (throng_node_file (users), ==, "t.yaml");
    g_assert_cmpuint (throng_node_line (users), ==, 3);
    g_assert_cmpuint (throng_node_column (users), ==, 12);
    g_assert_cmpuint (throng_node_line (first), ==, 3);
    g_assert_cmpuint (throng_node_column (first), ==, 5);
    g_assert_null (throng_node_lookup (first, "nope"));
    g_assert_null (throng_node_child (first, 7));
    g_assert_null (throng_node_scalar (first));
    g_assert_cmpuint (throng_node_n_children (users), ==, 0);
}

static void
test_tree_null (void)
{
    g_autoptr (ThrongTree) tree = load ("a: ~\nb: null\nc:\nd: ''\ne: 'null'\nf: x\n");
    const ThrongNode *root = throng_tree_root (tree);

    g_assert_true (throng_node_is_null (throng_node_lookup (root, "a")));
    g_assert_true (throng_node_is_null (throng_node_lookup (root, "b")));
    g_assert_true (throng_node_is_null (throng_node_lookup (root, "c")));
    g_assert_false (throng_node_is_null (throng_node_lookup (root, "d")));
    g_assert_false (throng_node_is_null (throng_node_lookup (root, "e")));
    g_assert_false (throng_node_is_null (throng_node_lookup (root, "f")));
    g_assert_false (throng_node_is_null (root));
}

static void
test_tree_empty (void)
{
    const char *const empties[] = { "", "\n\n", "   \n", "# only a comment\n", "---\n", "~\n" };

    for (gsize i = 0; i < G_N_ELEMENTS (empties); i++)
        assert_load_error (empties[i], strlen (empties[i]), THRONG_PLAN_ERROR_SYNTAX,
                           "t.yaml:1:1: the plan is empty");
}

static void
test_tree_not_a_map (void)
{
    assert_load_error ("- a\n- b\n", -1, THRONG_PLAN_ERROR_TYPE,
                       "t.yaml:1:1: the plan must be a map of keys such as name, scenarios, "
                       "reporters");
    assert_load_error ("\n  hello\n", -1, THRONG_PLAN_ERROR_TYPE,
                       "t.yaml:2:3: the plan must be a map of keys such as name, scenarios, "
                       "reporters");
}

static void
test_tree_utf8 (void)
{
    assert_load_error ("name: ok\nx: caf\xc3\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:7: invalid UTF-8 (byte 0xc3); a plan must be UTF-8 text");
    assert_load_error ("n\xc3\xa9: \xff\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:5: invalid UTF-8 (byte 0xff); a plan must be UTF-8 text");
    assert_load_error ("a: b\0c\n", 7, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:5: a NUL byte; a plan must be UTF-8 text");
    /* UTF-16 with a byte order mark is refused too: a plan is UTF-8 */
    assert_load_error ("\xff\xfe"
                       "a\0:\0 \0b\0",
                       10, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:1: invalid UTF-8 (byte 0xff); a plan must be UTF-8 text");
}

static void
test_tree_syntax (void)
{
    assert_load_error ("a: [1, 2\nb: 3\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:2: did not find expected ',' or ']'");
    assert_load_error ("a: b: c\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:5: a second ': ' in one value; quote a value that contains ': '");
    assert_load_error ("a: \"x\x01\"\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:6: control characters are not allowed");
    assert_load_error ("a: 1\n---\nb: 2\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:1: a plan is one YAML document; this starts a second one");
    assert_load_error ("a: \"x\\0y\"\n", 10, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:4: a NUL character in a string is not supported");
}

static void
test_tree_keys (void)
{
    assert_load_error ("a: 1\nb: 2\na: 3\n", -1, THRONG_PLAN_ERROR_DUPLICATE_KEY,
                       "t.yaml:3:1: duplicate key 'a' (first at 1:1)");
    assert_load_error ("x:\n  - {u: 1, u: 2}\n", -1, THRONG_PLAN_ERROR_DUPLICATE_KEY,
                       "t.yaml:2:12: duplicate key 'u' (first at 2:6)");
    assert_load_error ("? [a, b]\n: 1\n", -1, THRONG_PLAN_ERROR_TYPE,
                       "t.yaml:1:3: a key must be plain text, not a list");
    assert_load_error ("{a: 1}: 2\n", -1, THRONG_PLAN_ERROR_TYPE,
                       "t.yaml:1:1: a key must be plain text, not a map");
    assert_load_error ("a: 1\n?\n: 2\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:2: a key cannot be empty");
    /* the same key in two different maps is fine, and so are 'a' and '"a "' */
    g_autoptr (ThrongTree) tree = load ("a: {x: 1}\nb: {x: 2}\nc: {'a': 1, 'a ': 2}\n");
    g_assert_nonnull (tree);
}

static void
test_tree_anchors (void)
{
    assert_load_error ("a: &x 1\nb: 2\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:4: anchors and aliases are not supported");
    assert_load_error ("a: 1\nb: *x\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:4: anchors and aliases are not supported");
    assert_load_error ("a: &x [1, *x]\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:1:4: anchors and aliases are not supported");
    assert_load_error ("x:\n  - &m {k: v}\n", -1, THRONG_PLAN_ERROR_SYNTAX,
                       "t.yaml:2:5: anchors and aliases are not supported");
}

static void
test_tree_depth (void)
{
    g_autoptr (GString) ok = g_string_new ("a: ");
    g_autoptr (GString) deep = g_string_new ("a: ");

    /* the root map is level 1, so 63 nested lists still load */
    for (guint i = 0; i < THRONG_TREE_MAX_DEPTH - 1; i++)
        g_string_append_c (ok, '[');
    for (guint i = 0; i < THRONG_TREE_MAX_DEPTH - 1; i++)
        g_string_append_c (ok, ']');
    g_autoptr (ThrongTree) tree = load (ok->str);
    g_assert_nonnull (tree);

    for (guint i = 0; i < 200000; i++)
        g_string_append_c (deep, '[');
    assert_load_error (deep->str, deep->len, THRONG_PLAN_ERROR_LIMIT,
                       "t.yaml:1:67: the plan nests deeper than 64 levels");
}

static void
test_tree_size (void)
{
    gsize length = THRONG_TREE_MAX_BYTES + 1;
    g_autofree char *big = g_malloc (length);

    memset (big, ' ', length);
    big[0] = 'a';
    big[1] = ':';
    assert_load_error (big, length, THRONG_PLAN_ERROR_LIMIT,
                       "t.yaml:1:1: the plan is larger than 64 MiB");
}

static void
test_tree_nodes (void)
{
    /* a flow list of short items: 1,000,001 nodes in about 2 MB */
    g_autoptr (GString) many = g_string_new ("a: [");

    for (guint i = 0; i < THRONG_TREE_MAX_NODES; i++)
        g_string_append (many, "0,");
    g_string_append (many, "0]\n");

    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("t.yaml", many->str, many->len, &error);
    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_LIMIT);
    g_assert_true (g_str_has_suffix (error->message, ": the plan has more than 1000000 nodes"));
}

static void
test_tree_file (void)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_file ("/nonexistent/plan.yaml", &error);

    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE);
    g_assert_cmpstr (error->message, ==, "/nonexistent/plan.yaml: No such file or directory");
    g_clear_error (&error);

    tree = throng_tree_load_file ("/", &error);
    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE);
    g_assert_cmpstr (error->message, ==, "/ is not a regular file (a directory)");
    g_clear_error (&error);

    /* an endless file is refused without reading it */
    tree = throng_tree_load_file ("/dev/zero", &error);
    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE);
    g_assert_cmpstr (error->message, ==, "/dev/zero is not a regular file (a character device)");
    g_clear_error (&error);

    /* a huge one without reading it whole (sparse: no disk is written) */
    g_autofree char *huge = NULL;
    int fd = g_file_open_tmp ("throng-huge-XXXXXX.yaml", &huge, NULL);
    g_assert_cmpint (fd, >=, 0);
    g_assert_cmpint (ftruncate (fd, 64 * 1024 * 1024 + 1), ==, 0);
    close (fd);
    tree = throng_tree_load_file (huge, &error);
    g_unlink (huge);
    g_assert_null (tree);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_LIMIT);
    g_assert_true (g_str_has_suffix (error->message, ":1:1: the plan is larger than 64 MiB"));
}

static void
assert_set_error (const char *assignment, const char *message)
{
    g_autoptr (ThrongTree) tree
        = load ("name: x\nscenarios:\n  - users: 5\n    steps: [{null: {}}]\n");
    g_autoptr (GError) error = NULL;

    g_assert_false (throng_cli_set (tree, assignment, &error));
    g_assert_nonnull (error);
    g_assert_true (error->domain == THRONG_PLAN_ERROR);
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_tree_set (void)
{
    g_autoptr (ThrongTree) tree
        = load ("name: x\nscenarios:\n  - users: 5\n    steps: [{null: {}}]\n");
    g_autoptr (GError) error = NULL;
    const ThrongNode *scenario;
    const ThrongNode *users;

    g_assert_true (throng_cli_set (tree, "scenarios.0.users=50", &error));
    g_assert_no_error (error);
    g_assert_true (throng_cli_set (tree, "scenarios.0.duration=10s", &error));
    g_assert_true (throng_cli_set (tree, "name=a=b", &error));
    g_assert_true (throng_cli_set (tree, "scenarios.0.steps.0.null.delay=5ms", &error));

    scenario = throng_node_child (throng_node_lookup (throng_tree_root (tree), "scenarios"), 0);
    users = throng_node_lookup (scenario, "users");
    g_assert_cmpstr (throng_node_scalar (users), ==, "50");
    g_assert_cmpstr (throng_node_file (users), ==, "--set scenarios.0.users");
    g_assert_cmpuint (throng_node_line (users), ==, 1);
    g_assert_cmpuint (throng_node_column (users), ==, 19);
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (scenario, "duration")), ==, "10s");
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (throng_tree_root (tree), "name")), ==,
                     "a=b");
    /* the original key order stays; a new key goes last */
    g_assert_cmpstr (throng_node_scalar (throng_node_key (scenario, 2)), ==, "duration");

    /* a later typed error names the option */
    guint64 value = 7;
    g_assert_true (throng_cli_set (tree, "scenarios.0.users=abc", &error));
    users = throng_node_lookup (scenario, "users");
    g_assert_false (throng_node_get_uint (users, &value, &error));
    g_assert_cmpstr (error->message, ==,
                     "--set scenarios.0.users:1:19: expected a whole number, got 'abc'");
    g_assert_cmpuint (value, ==, 7);

    /* an empty value is null, as in the file */
    g_assert_true (throng_cli_set (tree, "name=", NULL));
    g_assert_true (throng_node_is_null (throng_node_lookup (throng_tree_root (tree), "name")));
}

static void
test_tree_set_errors (void)
{
    assert_set_error ("scenarios.5.users=3",
                      "--set scenarios.5.users=3: the plan has no scenarios.5");
    assert_set_error ("defaults.http.base_url=x",
                      "--set defaults.http.base_url=x: the plan has no defaults");
    assert_set_error ("users", "--set users: expected PATH=VALUE, such as scenarios.0.users=10");
    assert_set_error ("=5", "--set =5: expected PATH=VALUE, such as scenarios.0.users=10");
    assert_set_error ("scenarios..users=3",
                      "--set scenarios..users=3: 'scenarios..users' has an empty component");
    assert_set_error (
        "scenarios.x.users=3",
        "--set scenarios.x.users=3: scenarios is a list; 'x' is not an index such as 0");
    assert_set_error ("name.first=3",
                      "--set name.first=3: name is a single value, not a map or a list");
    assert_set_error ("scenarios=3",
                      "--set scenarios=3: scenarios is a list; --set replaces single values only");
    assert_set_error (
        "scenarios.0=3",
        "--set scenarios.0=3: scenarios.0 is a map; --set replaces single values only");
    assert_set_error ("scenarios.1=3", "--set scenarios.1=3: the plan has no scenarios.1");
    assert_set_error ("name=\xff", "--set: the assignment is not valid UTF-8");
}

static const char *
expand_lookup (const char *name, gpointer data, const ThrongNode *where, gsize offset,
               GError **error)
{
    guint *calls = data;

    (*calls)++;
    if (strcmp (name, "builtin.http") == 0)
        return "http://127.0.0.1:8080";
    if (strcmp (name, "bad") == 0)
        throng_node_set_error_at (where, offset, error, THRONG_PLAN_ERROR_INVALID,
                                  "no such variable '%s'", name);
    return NULL;
}

static void
test_tree_expand (void)
{
    g_autoptr (ThrongTree) tree
        = load ("a: ${builtin.http}/x\nb: ['pre ${builtin.http} ${user.id} ${builtin.http}']\n"
                "c: {d: '${unterminated'}\n${builtin.http}: key\ne: '$${builtin.http} ${builtin.http}'\n");
    g_autoptr (GError) error = NULL;
    const ThrongNode *root = throng_tree_root (tree);
    guint calls = 0;

    g_assert_true (throng_tree_expand (tree, expand_lookup, &calls, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (root, "a")), ==,
                     "http://127.0.0.1:8080/x");
    g_assert_cmpstr (throng_node_scalar (throng_node_child (throng_node_lookup (root, "b"), 0)), ==,
                     "pre http://127.0.0.1:8080 ${user.id} http://127.0.0.1:8080");
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (throng_node_lookup (root, "c"), "d")),
                     ==, "${unterminated");
    /* keys are left as written */
    g_assert_cmpstr (throng_node_scalar (throng_node_key (root, 3)), ==, "${builtin.http}");
    /* "$${" is left for the template compiler to unescape */
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (root, "e")), ==,
                     "$${builtin.http} http://127.0.0.1:8080");
    g_assert_cmpuint (calls, ==, 5);

    g_autoptr (ThrongTree) bad = load ("a: x\nb: 'y ${bad}'\n");
    g_assert_false (throng_tree_expand (bad, expand_lookup, &calls, &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
    /* at the "${", counted inside the quotes */
    g_assert_cmpstr (error->message, ==, "t.yaml:2:7: no such variable 'bad'");
}

/* ---- typed readers ------------------------------------------------------- */

static void
test_duration_valid (void)
{
    static const struct {
        const char *text;
        gint64 us;
    } cases[] = {
        { "0", 0 },
        { "0s", 0 },
        { "0.0", 0 },
        { "250ms", 250000 },
        { "10s", 10 * G_USEC_PER_SEC },
        { "2m", 120 * G_USEC_PER_SEC },
        { "1h", G_GINT64_CONSTANT (3600000000) },
        { "1.5s", 1500000 },
        { "500us", 500 },
        { "0.5ms", 500 },
        { "10 s", 10 * G_USEC_PER_SEC },
        { "1.0000019s", 1000001 },
        { "007ms", 7000 },
        { "2562047788h", G_GINT64_CONSTANT (2562047788) * 3600 * G_USEC_PER_SEC },
        { "9223372036854775807us", G_MAXINT64 },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (GError) error = NULL;
        gint64 us = -1;

        g_assert_true (throng_parse_duration (cases[i].text, &us, &error));
        g_assert_no_error (error);
        g_assert_cmpint (us, ==, cases[i].us);

        g_autoptr (ThrongTree) tree = load_value (cases[i].text);
        us = -1;
        g_assert_true (throng_node_get_duration (value_of (tree), &us, &error));
        g_assert_cmpint (us, ==, cases[i].us);
    }
}

static void
test_duration_invalid (void)
{
    static const struct {
        const char *text;
        int code;
        const char *message;
    } cases[] = {
        { "ten", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got 'ten'" },
        { "10", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '10' (the unit is missing: us, ms, "
          "s, m or h)" },
        { "-5s", THRONG_PLAN_ERROR_RANGE, "a duration cannot be negative, got '-5s'" },
        { "-0.5s", THRONG_PLAN_ERROR_RANGE, "a duration cannot be negative, got '-0.5s'" },
        { "5x", THRONG_PLAN_ERROR_TYPE, "expected a duration such as 250ms, 10s or 2m, got '5x'" },
        { "5S", THRONG_PLAN_ERROR_TYPE, "expected a duration such as 250ms, 10s or 2m, got '5S'" },
        { "1.s", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '1.s'" },
        { ".5s", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '.5s'" },
        { "1e3s", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '1e3s'" },
        { "s", THRONG_PLAN_ERROR_TYPE, "expected a duration such as 250ms, 10s or 2m, got 's'" },
        { "", THRONG_PLAN_ERROR_TYPE, "expected a duration such as 250ms, 10s or 2m, got ''" },
        { "+5s", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '+5s'" },
        { "5s ", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '5s '" },
        { "0 ", THRONG_PLAN_ERROR_TYPE, "expected a duration such as 250ms, 10s or 2m, got '0 '" },
        { "1m30s", THRONG_PLAN_ERROR_TYPE,
          "expected a duration such as 250ms, 10s or 2m, got '1m30s'" },
        { "2562047789h", THRONG_PLAN_ERROR_RANGE, "'2562047789h' is too large for a duration" },
        { "9223372036854775808us", THRONG_PLAN_ERROR_RANGE,
          "'9223372036854775808us' is too large for a duration" },
        { "99999999999999999999999s", THRONG_PLAN_ERROR_RANGE,
          "'99999999999999999999999s' is too large for a duration" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (GError) error = NULL;
        gint64 us = 42;

        g_assert_false (throng_parse_duration (cases[i].text, &us, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, cases[i].code);
        g_assert_cmpstr (error->message, ==, cases[i].message);
        g_assert_cmpint (us, ==, 42);
    }
}

static void
test_duration_node (void)
{
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        { "ten", "t.yaml:1:4: expected a duration such as 250ms, 10s or 2m, got 'ten'" },
        { "'5 minutes'",
          "t.yaml:1:4: expected a duration such as 250ms, 10s or 2m, got '5 minutes'" },
        { "-1s", "t.yaml:1:4: a duration cannot be negative, got '-1s'" },
        { "", "t.yaml:1:3: expected a duration such as 250ms, 10s or 2m, got an empty value" },
        { "~", "t.yaml:1:4: expected a duration such as 250ms, 10s or 2m, got null" },
        { "[1s]", "t.yaml:1:4: expected a duration such as 250ms, 10s or 2m, got a list" },
        { "{a: 1s}", "t.yaml:1:4: expected a duration such as 250ms, 10s or 2m, got a map" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autoptr (ThrongTree) tree = load_value (cases[i].text);
        g_autoptr (GError) error = NULL;
        gint64 us = 42;

        g_assert_false (throng_node_get_duration (value_of (tree), &us, &error));
        g_assert_cmpstr (error->message, ==, cases[i].message);
        g_assert_cmpint (us, ==, 42);
    }
}

static void
test_size (void)
{
    static const struct {
        const char *text;
        guint64 bytes;
    } good[] = {
        { "0", 0 },
        { "512", 512 },
        { "512B", 512 },
        { "64k", 64000 },
        { "64K", 64000 },
        { "64kB", 64000 },
        { "64KB", 64000 },
        { "64KiB", 65536 },
        { "16MiB", 16 * 1024 * 1024 },
        { "2MB", 2000000 },
        { "2M", 2000000 },
        { "1G", 1000000000 },
        { "1GiB", 1073741824 },
        { "1.5k", 1500 },
        { "1.5KiB", 1536 },
        { "10 MB", 10000000 },
        { "18446744073709551615", G_MAXUINT64 },
        { "17179869183GiB", G_GUINT64_CONSTANT (17179869183) * 1073741824 },
    };
    static const struct {
        const char *text;
        int code;
        const char *message;
    } bad[] = {
        { "abc", THRONG_PLAN_ERROR_TYPE, "expected a size such as 512, 64k or 16MiB, got 'abc'" },
        { "12X", THRONG_PLAN_ERROR_TYPE, "expected a size such as 512, 64k or 16MiB, got '12X'" },
        { "12kib", THRONG_PLAN_ERROR_TYPE,
          "expected a size such as 512, 64k or 16MiB, got '12kib'" },
        { "1T", THRONG_PLAN_ERROR_TYPE, "expected a size such as 512, 64k or 16MiB, got '1T'" },
        { "-1k", THRONG_PLAN_ERROR_RANGE, "a size cannot be negative, got '-1k'" },
        { "20000000000G", THRONG_PLAN_ERROR_RANGE, "'20000000000G' is too large for a size" },
        { "17179869184GiB", THRONG_PLAN_ERROR_RANGE, "'17179869184GiB' is too large for a size" },
        { "18446744073709551616", THRONG_PLAN_ERROR_RANGE,
          "'18446744073709551616' is too large for a size" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (good); i++) {
        g_autoptr (GError) error = NULL;
        guint64 bytes = 1;

        g_assert_true (throng_parse_size (good[i].text, &bytes, &error));
        g_assert_no_error (error);
        g_assert_cmpuint (bytes, ==, good[i].bytes);
    }
    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
        g_autoptr (GError) error = NULL;
        guint64 bytes = 1;

        g_assert_false (throng_parse_size (bad[i].text, &bytes, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, bad[i].code);
        g_assert_cmpstr (error->message, ==, bad[i].message);
        g_assert_cmpuint (bytes, ==, 1);
    }

    g_autoptr (ThrongTree) tree = load_value ("lots");
    g_autoptr (GError) error = NULL;
    guint64 bytes = 3;
    g_assert_false (throng_node_get_size (value_of (tree), &bytes, &error));
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:4: expected a size such as 512, 64k or 16MiB, got 'lots'");
    g_assert_cmpuint (bytes, ==, 3);
}

static void
test_bool (void)
{
    static const struct {
        const char *text;
        gboolean value;
    } good[] = {
        { "true", TRUE }, { "false", FALSE }, { "yes", TRUE },    { "no", FALSE },   { "on", TRUE },
        { "off", FALSE }, { "True", TRUE },   { "FALSE", FALSE }, { "'yes'", TRUE },
    };
    static const struct {
        const char *text;
        const char *message;
    } bad[] = {
        { "maybe", "t.yaml:1:4: expected true or false, got 'maybe'" },
        { "1", "t.yaml:1:4: expected true or false, got '1'" },
        { "", "t.yaml:1:3: expected true or false, got an empty value" },
        { "{x: 1}", "t.yaml:1:4: expected true or false, got a map" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (good); i++) {
        g_autoptr (ThrongTree) tree = load_value (good[i].text);
        g_autoptr (GError) error = NULL;
        gboolean value = !good[i].value;

        g_assert_true (throng_node_get_bool (value_of (tree), &value, &error));
        g_assert_no_error (error);
        g_assert_cmpint (value, ==, good[i].value);
    }
    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
        g_autoptr (ThrongTree) tree = load_value (bad[i].text);
        g_autoptr (GError) error = NULL;
        gboolean value = 7;

        g_assert_false (throng_node_get_bool (value_of (tree), &value, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE);
        g_assert_cmpstr (error->message, ==, bad[i].message);
        g_assert_cmpint (value, ==, 7);
    }
}

static void
test_uint (void)
{
    static const struct {
        const char *text;
        guint64 value;
    } good[] = {
        { "0", 0 },
        { "42", 42 },
        { "007", 7 },
        { "'12'", 12 },
        { "18446744073709551615", G_MAXUINT64 },
    };
    static const struct {
        const char *text;
        int code;
        const char *message;
    } bad[] = {
        { "abc", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got 'abc'" },
        { "-1", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '-1'" },
        { "+1", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '+1'" },
        { "1.5", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '1.5'" },
        { "1e3", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '1e3'" },
        { "0x10", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '0x10'" },
        { "1_000", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got '1_000'" },
        { "' 1'", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got ' 1'" },
        { "", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:3: expected a whole number, got an empty value" },
        { "[1]", THRONG_PLAN_ERROR_TYPE, "t.yaml:1:4: expected a whole number, got a list" },
        { "18446744073709551616", THRONG_PLAN_ERROR_RANGE,
          "t.yaml:1:4: '18446744073709551616' is too large for a whole number (at most "
          "18446744073709551615)" },
        { "12345678901234567890123456789012345678901234567890", THRONG_PLAN_ERROR_RANGE,
          "t.yaml:1:4: '12345678901234567890123456789012345678901234567890' is too large for a "
          "whole number (at most 18446744073709551615)" },
        { "this is a rather long text that goes on and on", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a whole number, got 'this is a rather long text that goes on …'" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (good); i++) {
        g_autoptr (ThrongTree) tree = load_value (good[i].text);
        g_autoptr (GError) error = NULL;
        guint64 value = 99;

        g_assert_true (throng_node_get_uint (value_of (tree), &value, &error));
        g_assert_no_error (error);
        g_assert_cmpuint (value, ==, good[i].value);
    }
    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
        g_autoptr (ThrongTree) tree = load_value (bad[i].text);
        g_autoptr (GError) error = NULL;
        guint64 value = 99;

        g_assert_false (throng_node_get_uint (value_of (tree), &value, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, bad[i].code);
        g_assert_cmpstr (error->message, ==, bad[i].message);
        g_assert_cmpuint (value, ==, 99);
    }
}

static void
test_string (void)
{
    g_autoptr (ThrongTree) tree = load ("a: hello\nb: ''\nc:\nd: [x]\ne: 12\n");
    const ThrongNode *root = throng_tree_root (tree);
    g_autoptr (GError) error = NULL;
    const char *out = "untouched";

    g_assert_true (throng_node_get_string (throng_node_lookup (root, "a"), &out, &error));
    g_assert_cmpstr (out, ==, "hello");
    g_assert_true (throng_node_get_string (throng_node_lookup (root, "b"), &out, &error));
    g_assert_cmpstr (out, ==, "");
    g_assert_true (throng_node_get_string (throng_node_lookup (root, "e"), &out, &error));
    g_assert_cmpstr (out, ==, "12");

    out = "untouched";
    g_assert_false (throng_node_get_string (throng_node_lookup (root, "c"), &out, &error));
    g_assert_cmpstr (error->message, ==, "t.yaml:3:3: expected a string, got an empty value");
    g_assert_cmpstr (out, ==, "untouched");
    g_clear_error (&error);
    g_assert_false (throng_node_get_string (throng_node_lookup (root, "d"), &out, &error));
    g_assert_cmpstr (error->message, ==, "t.yaml:4:4: expected a string, got a list");
    g_assert_cmpstr (out, ==, "untouched");
}

static void
test_set_error (void)
{
    g_autoptr (ThrongTree) tree = load ("a:\n  b: 1\n");
    const ThrongNode *b
        = throng_node_lookup (throng_node_lookup (throng_tree_root (tree), "a"), "b");
    g_autoptr (GError) error = NULL;

    throng_node_set_error (b, &error, THRONG_PLAN_ERROR_INVALID, "bad %s %d", "thing", 3);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, "t.yaml:2:6: bad thing 3");
    /* a NULL error location is allowed, as everywhere in GLib */
    throng_node_set_error (b, NULL, THRONG_PLAN_ERROR_INVALID, "ignored");
}

/* ---- keys ---------------------------------------------------------------- */

static const char *const scenario_keys[] = {
    "name", "users", "iterations", "duration", "ramp_up", "think_time", "steps", NULL,
};

static void
test_suggest (void)
{
    static const struct {
        const char *word;
        const char *suggestion;
    } cases[] = {
        { "usres", "users" }, /* a swap */
        { "user", "users" },  /* a deletion */
        { "Users", "users" }, /* case */
        { "iteratons", "iterations" },
        { "iter", "iterations" }, /* a prefix */
        { "ramp", "ramp_up" },
        { "rampup", "ramp_up" },
        { "think", "think_time" },
        { "durations", "duration" },
        { "stpes", "steps" },
        { "nmae", "name" },
        { "xyz", NULL },
        { "a", NULL },
        { "timeout", NULL },
        { "executor", NULL },
        { "iterationsandmore", "iterations" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
        g_assert_cmpstr (throng_node_suggest (cases[i].word, scenario_keys), ==,
                         cases[i].suggestion);
}

static void
test_check_keys (void)
{
    g_autoptr (ThrongTree) tree = load ("a: {users: 1, usres: 2}\nb: {xyz: 1}\nc: [1]\nd: {}\n");
    const ThrongNode *root = throng_tree_root (tree);
    g_autoptr (GError) error = NULL;

    g_assert_true (
        throng_node_check_keys (throng_node_lookup (root, "d"), scenario_keys, "scenario", &error));
    g_assert_false (
        throng_node_check_keys (throng_node_lookup (root, "a"), scenario_keys, "scenario", &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_UNKNOWN_KEY);
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:15: unknown key 'usres' in scenario; did you mean 'users'?");
    g_clear_error (&error);

    g_assert_false (
        throng_node_check_keys (throng_node_lookup (root, "b"), scenario_keys, NULL, &error));
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:2:5: unknown key 'xyz' (valid keys: name, users, iterations, "
                     "duration, ramp_up, think_time, steps)");
    g_clear_error (&error);

    g_assert_false (
        throng_node_check_keys (throng_node_lookup (root, "c"), scenario_keys, "scenario", &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE);
    g_assert_cmpstr (error->message, ==, "t.yaml:3:4: expected a map for scenario, got a list");
}

/* ---- option tables ------------------------------------------------------- */

typedef enum { POLICY_PER_THREAD, POLICY_GLOBAL, POLICY_PER_ITERATION } Policy;

typedef struct {
    char *base_url;
    gboolean keep_alive;
    guint64 retries;
    gint64 timeout_us;
    guint64 max_body;
    struct {
        gboolean verify;
        char *ca_file;
        int session;
    } tls;
    char *method;
    const ThrongNode *headers;
    guint64 custom;
} Options;

static const char *const policies[] = { "per-thread", "global", "per-iteration", NULL };

static const ThrongOption tls_table[] = {
    { "verify", THRONG_OPTION_BOOL, offsetof (Options, tls.verify) },
    { "ca_file", THRONG_OPTION_STRING, offsetof (Options, tls.ca_file) },
    { "session", THRONG_OPTION_ENUM, offsetof (Options, tls.session), .choices = policies },
    { NULL },
};

/* An even number, to see a CUSTOM parser's error come through. */
static gboolean
parse_even (const ThrongNode *node, gpointer field, GError **error)
{
    guint64 value;

    if (!throng_node_get_uint (node, &value, error))
        return FALSE;
    if (value % 2 != 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "expected an even number, got %s", throng_node_scalar (node));
        return FALSE;
    }
    *(guint64 *)field = value;
    return TRUE;
}

static const ThrongOption table[] = {
    { "base_url", THRONG_OPTION_STRING, offsetof (Options, base_url),
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { "keep_alive", THRONG_OPTION_BOOL, offsetof (Options, keep_alive),
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { "retries", THRONG_OPTION_UINT, offsetof (Options, retries), .min = 1, .max = 10 },
    { "timeout", THRONG_OPTION_DURATION, offsetof (Options, timeout_us), .min = 1000,
      .max = G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC },
    { "max_body", THRONG_OPTION_SIZE, offsetof (Options, max_body), .min = 0,
      .max = 64 * 1024 * 1024 },
    { "tls", THRONG_OPTION_TABLE, offsetof (Options, tls), .table = tls_table,
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { "method", THRONG_OPTION_STRING, offsetof (Options, method) },
    { "headers", THRONG_OPTION_NODE, offsetof (Options, headers) },
    { "even", THRONG_OPTION_CUSTOM, offsetof (Options, custom), .parse = parse_even },
    { NULL },
};

static void
options_clear (Options *options)
{
    throng_options_clear (table, options);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

static void
test_options_layers (void)
{
    g_autoptr (ThrongTree) tree = load (
        "defaults: {base_url: 'http://a', keep_alive: true, retries: 3, method: GET,\n"
        "           tls: {verify: true, ca_file: /ca.pem, session: global}}\n"
        "scenario: {base_url: 'http://b', timeout: 2s, tls: {verify: no}, headers: {X: 1}}\n"
        "step: {method: POST, max_body: 1MiB, even: 4}\n");
    const ThrongNode *root = throng_tree_root (tree);
    g_autoptr (GError) error = NULL;
    g_auto (Options) options = { .timeout_us = 30 * G_USEC_PER_SEC };

    g_assert_true (throng_options_apply (throng_node_lookup (root, "defaults"), table, &options,
                                         FALSE, "http options", &error));
    g_assert_true (throng_options_apply (throng_node_lookup (root, "scenario"), table, &options,
                                         FALSE, "http options", &error));

    /* a scenario's copy, as a protocol makes one per scenario before its steps */
    g_auto (Options) step = options;
    throng_options_copy_strings (table, &step);
    g_assert_true (step.base_url != options.base_url);
    g_assert_true (throng_options_apply (throng_node_lookup (root, "step"), table, &step, TRUE,
                                         "http options", &error));
    g_assert_no_error (error);

    g_assert_cmpstr (options.base_url, ==, "http://b");
    g_assert_true (options.keep_alive);
    g_assert_cmpuint (options.retries, ==, 3);
    g_assert_cmpint (options.timeout_us, ==, 2 * G_USEC_PER_SEC);
    g_assert_false (options.tls.verify);
    g_assert_cmpstr (options.tls.ca_file, ==, "/ca.pem");
    g_assert_cmpint (options.tls.session, ==, POLICY_GLOBAL);
    g_assert_cmpstr (options.method, ==, "GET");
    g_assert_nonnull (options.headers);
    g_assert_cmpstr (throng_node_scalar (throng_node_lookup (options.headers, "X")), ==, "1");

    g_assert_cmpstr (step.method, ==, "POST");
    g_assert_cmpstr (step.base_url, ==, "http://b");
    g_assert_cmpuint (step.max_body, ==, 1024 * 1024);
    g_assert_cmpuint (step.custom, ==, 4);
    g_assert_cmpstr (options.method, ==, "GET");

    /* NULL and null maps apply nothing */
    g_assert_true (throng_options_apply (NULL, table, &options, FALSE, "http options", &error));
    g_autoptr (ThrongTree) empty = load ("x:\n");
    g_assert_true (throng_options_apply (throng_node_lookup (throng_tree_root (empty), "x"), table,
                                         &options, FALSE, "http options", &error));

    throng_options_clear (table, &options);
    g_assert_null (options.base_url);
    g_assert_null (options.tls.ca_file);
    g_assert_null (options.method);
}

static void
assert_options_error (const char *yaml, gboolean in_step, int code, const char *message)
{
    g_autoptr (ThrongTree) tree = load (yaml);
    g_autoptr (GError) error = NULL;
    g_auto (Options) options = { .retries = 5, .timeout_us = 77, .max_body = 88, .custom = 2 };

    options.method = g_strdup ("HEAD");
    g_assert_false (throng_options_apply (throng_node_lookup (throng_tree_root (tree), "o"), table,
                                          &options, in_step, "http options", &error));
    g_assert_error (error, THRONG_PLAN_ERROR, code);
    g_assert_cmpstr (error->message, ==, message);
    /* the failing key leaves its field as it was */
    g_assert_cmpuint (options.retries, ==, 5);
    g_assert_cmpint (options.timeout_us, ==, 77);
    g_assert_cmpuint (options.max_body, ==, 88);
    g_assert_cmpuint (options.custom, ==, 2);
    g_assert_cmpint (options.tls.session, ==, 0);
    g_assert_cmpstr (options.method, ==, "HEAD");
}

static void
test_options_errors (void)
{
    assert_options_error ("o: {tls: {verify: false}}", TRUE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:5: 'tls' is a scenario setting; set it in defaults.http or in "
                          "the scenario's http map");
    assert_options_error ("o: {keep_alive: false}", TRUE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:5: 'keep_alive' is a scenario setting; set it in "
                          "defaults.http or in the scenario's http map");
    assert_options_error ("o: {retries: 0}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:14: retries must be between 1 and 10, got 0");
    assert_options_error ("o: {retries: 11}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:14: retries must be between 1 and 10, got 11");
    assert_options_error ("o: {retries: many}", FALSE, THRONG_PLAN_ERROR_TYPE,
                          "t.yaml:1:14: expected a whole number, got 'many'");
    assert_options_error ("o: {timeout: 2h}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:14: timeout must be between 1ms and 1h, got 2h");
    assert_options_error ("o: {timeout: 500us}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:14: timeout must be between 1ms and 1h, got 500us");
    assert_options_error ("o: {timeout: -1s}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:14: a duration cannot be negative, got '-1s'");
    assert_options_error ("o: {max_body: 1GiB}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:15: max_body must be at most 64MiB, got 1GiB");
    assert_options_error ("o: {max_body: 99999999999999G}", FALSE, THRONG_PLAN_ERROR_RANGE,
                          "t.yaml:1:15: '99999999999999G' is too large for a size");
    assert_options_error ("o: {tls: {session: glob}}", FALSE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:20: session must be one of per-thread, global, "
                          "per-iteration, got 'glob'; did you mean 'global'?");
    assert_options_error ("o: {tls: {session: shared}}", FALSE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:20: session must be one of per-thread, global, "
                          "per-iteration, got 'shared'");
    assert_options_error ("o: {tls: {session: [a]}}", FALSE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:20: session must be one of per-thread, global, "
                          "per-iteration, got a list");
    assert_options_error ("o: {tls: {verfy: false}}", FALSE, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                          "t.yaml:1:11: unknown key 'verfy' in http.tls; did you mean 'verify'?");
    assert_options_error ("o: {tls: true}", FALSE, THRONG_PLAN_ERROR_TYPE,
                          "t.yaml:1:10: expected a map for http.tls, got 'true'");
    assert_options_error ("o: {metod: GET}", FALSE, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                          "t.yaml:1:5: unknown key 'metod' in http options; did you mean "
                          "'method'?");
    assert_options_error ("o: {method: {a: b}}", FALSE, THRONG_PLAN_ERROR_TYPE,
                          "t.yaml:1:13: expected a string, got a map");
    assert_options_error ("o: {even: 3}", FALSE, THRONG_PLAN_ERROR_INVALID,
                          "t.yaml:1:11: expected an even number, got 3");
    assert_options_error ("o: [method]", FALSE, THRONG_PLAN_ERROR_TYPE,
                          "t.yaml:1:4: expected a map for http options, got a list");
}

/* Keys before the failing one are applied: the caller discards the struct. */
static void
test_options_partial (void)
{
    g_autoptr (ThrongTree) tree = load ("o: {method: PUT, retries: 0, timeout: 1s}\n");
    g_autoptr (GError) error = NULL;
    g_auto (Options) options = { .retries = 5 };

    g_assert_false (throng_options_apply (throng_node_lookup (throng_tree_root (tree), "o"), table,
                                          &options, FALSE, "http options", &error));
    g_assert_cmpstr (error->message, ==, "t.yaml:1:27: retries must be between 1 and 10, got 0");
    g_assert_cmpstr (options.method, ==, "PUT");
    g_assert_cmpuint (options.retries, ==, 5);
    g_assert_cmpint (options.timeout_us, ==, 0);
}

static void
test_options_no_context (void)
{
    g_autoptr (ThrongTree) tree = load ("o: {base_url: x}\n");
    g_autoptr (GError) error = NULL;
    g_auto (Options) options = { 0 };

    g_assert_false (throng_options_apply (throng_node_lookup (throng_tree_root (tree), "o"), table,
                                          &options, TRUE, NULL, &error));
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:1:5: 'base_url' is a scenario setting; set it in the plan's "
                     "defaults or in the scenario");
    g_assert_null (options.base_url);
}

/* ---- error domains -------------------------------------------------------- */

/* "throng-WORD[-WORD…]-error-quark", lower case, nothing else: what GLib's convention reads. */
static void
assert_quark_well_formed (const char *function, GQuark quark)
{
    const char *text = g_quark_to_string (quark);
    g_autofree char *expected = g_strdelimit (g_strdup (function), "_", '-');

    g_test_message ("%s: \"%s\"", function, text);
    g_assert_true (g_regex_match_simple ("^throng(-[a-z0-9]+)*-error-quark$", text, 0, 0));
    /* the domain's string is the function's name, so the two can be found from each other */
    g_assert_cmpstr (text, ==, expected);
}

/*
 * Every error domain the SDK declares (a THRONG_API function returning a
 * GQuark, found by reading the installed headers, so a new domain is
 * tested without being listed here), called through the symbol the
 * executable exports to plugins; and the core's private registry domain.
 */
static void
test_error_quarks (void)
{
    g_autofree char *dir = throng_test_source_path ("core/include/throng");
    g_autoptr (GError) error = NULL;
    g_autoptr (GDir) listing = g_dir_open (dir, 0, &error);
    g_autoptr (GRegex) declaration
        = g_regex_new ("THRONG_API\\s+GQuark\\s+(\\w+)\\s*\\(\\s*void\\s*\\)", 0, 0, NULL);
    GModule *self = g_module_open (NULL, 0);
    const char *entry;
    guint found = 0;

    g_assert_no_error (error);
    g_assert_nonnull (self);
    while ((entry = g_dir_read_name (listing)) != NULL) {
        g_autofree char *path = g_build_filename (dir, entry, NULL);
        g_autofree char *text = NULL;
        g_autoptr (GMatchInfo) match = NULL;

        g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
        g_regex_match (declaration, text, 0, &match);
        for (; g_match_info_matches (match); g_match_info_next (match, NULL)) {
            g_autofree char *function = g_match_info_fetch (match, 1);
            GQuark (*get_quark) (void) = NULL;

            if (!g_module_symbol (self, function, (gpointer *) &get_quark) || get_quark == NULL)
                g_error ("%s: %s is declared but not exported", entry, function);
            assert_quark_well_formed (function, get_quark ());
            found++;
        }
    }
    /* the plan's and the histogram's, at least */
    g_assert_cmpuint (found, >=, 2);
    g_assert_true (THRONG_PLAN_ERROR == g_quark_from_string ("throng-plan-error-quark"));
    g_assert_true (THRONG_HISTOGRAM_ERROR == g_quark_from_string ("throng-histogram-error-quark"));
    assert_quark_well_formed ("throng_registry_error_quark", THRONG_REGISTRY_ERROR);
    g_module_close (self);
}

/* ---- decimal numbers, CUSTOM ownership (SDK 0.2) ------------------------ */

static void
test_double (void)
{
    static const struct {
        const char *text;
        double value;
    } good[] = {
        { "99.9", 99.9 }, { "0", 0 },          { "-0.5", -0.5 },  { "2", 2 },
        { "1e-3", 1e-3 }, { "2.5E+2", 250 },   { "'12.25'", 12.25 }, { "007.50", 7.5 },
    };
    static const struct {
        const char *text;
        int code;
        const char *message;
    } bad[] = {
        { "abc", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got 'abc'" },
        { "1,5", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '1,5'" },
        { ".5", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '.5'" },
        { "5.", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '5.'" },
        { "+1", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '+1'" },
        { "nan", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got 'nan'" },
        { "inf", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got 'inf'" },
        { "0x10", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '0x10'" },
        { "1e", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '1e'" },
        { "10%", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got '10%'" },
        { "~", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got null" },
        { "[1]", THRONG_PLAN_ERROR_TYPE,
          "t.yaml:1:4: expected a decimal number such as 99.9, got a list" },
        { "1e999", THRONG_PLAN_ERROR_RANGE, "t.yaml:1:4: '1e999' is too large for a decimal number" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (good); i++) {
        g_autoptr (ThrongTree) tree = load_value (good[i].text);
        g_autoptr (GError) error = NULL;
        double value = -1;

        g_assert_true (throng_node_get_double (throng_node_lookup (throng_tree_root (tree), "v"),
                                               &value, &error));
        g_assert_no_error (error);
        g_assert_cmpfloat_with_epsilon (value, good[i].value, 1e-12);
    }
    for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
        g_autoptr (ThrongTree) tree = load_value (bad[i].text);
        g_autoptr (GError) error = NULL;
        double value = 42;

        g_assert_false (throng_node_get_double (throng_node_lookup (throng_tree_root (tree), "v"),
                                                &value, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, bad[i].code);
        g_assert_cmpstr (error->message, ==, bad[i].message);
        g_assert_cmpfloat (value, ==, 42);
    }
}

/* A CUSTOM field that owns memory: a list of words, "a b c". */
typedef struct {
    GStrv words;
    GStrv nullable; /* ACCEPT_NULL: ~ empties it */
    guint64 plain;  /* a 0.1-style CUSTOM entry, no hooks */
} Owned;

static guint words_cleared;

static gboolean
parse_words (const ThrongNode *node, gpointer field, GError **error)
{
    const char *text;

    /* With @clear set, the core has emptied the field: nothing to free here. */
    g_assert_null (*(GStrv *)field);
    if (throng_node_is_null (node))
        return TRUE;
    if (!throng_node_get_string (node, &text, error))
        return FALSE;
    *(GStrv *)field = g_strsplit (text, " ", -1);
    return TRUE;
}

static void
clear_words (gpointer field)
{
    if (*(GStrv *)field != NULL)
        words_cleared++;
    g_clear_pointer ((GStrv *)field, g_strfreev);
}

static void
copy_words (gpointer field)
{
    *(GStrv *)field = g_strdupv (*(GStrv *)field);
}

static gboolean
parse_plain (const ThrongNode *node, gpointer field, GError **error)
{
    /* Without ACCEPT_NULL a null never gets here. */
    g_assert_false (throng_node_is_null (node));
    return throng_node_get_uint (node, field, error);
}

static const ThrongOption owned_table[] = {
    { .name = "words", .type = THRONG_OPTION_CUSTOM, .offset = offsetof (Owned, words),
      .parse = parse_words, .clear = clear_words, .copy = copy_words },
    { .name = "nullable", .type = THRONG_OPTION_CUSTOM, .offset = offsetof (Owned, nullable),
      .parse = parse_words, .clear = clear_words, .copy = copy_words,
      .flags = THRONG_OPTION_FLAG_ACCEPT_NULL },
    { .name = "plain", .type = THRONG_OPTION_CUSTOM, .offset = offsetof (Owned, plain),
      .parse = parse_plain },
    { .name = NULL },
};

static void
test_options_custom_owned (void)
{
    g_autoptr (ThrongTree) tree = load ("defaults: {words: a b, nullable: x y}\n"
                                        "scenario: {words: c d e, nullable: ~}\n"
                                        "step: {words: f}\n"
                                        "null: {words: ~}\n"
                                        "empty:\n  plain:\n");
    const ThrongNode *root = throng_tree_root (tree);
    g_autoptr (GError) error = NULL;
    Owned scenario = { 0 }, step;

    words_cleared = 0;
    g_assert_true (throng_options_apply (throng_node_lookup (root, "defaults"), owned_table,
                                         &scenario, FALSE, "t options", &error));
    g_assert_true (throng_options_apply (throng_node_lookup (root, "scenario"), owned_table,
                                         &scenario, FALSE, "t options", &error));
    g_assert_no_error (error);
    /* The later layer replaced both values; the core cleared the earlier ones. */
    g_assert_cmpuint (words_cleared, ==, 2);
    g_assert_cmpstrv (scenario.words, ((const char *const[]) { "c", "d", "e", NULL }));
    g_assert_null (scenario.nullable);

    /* copy_strings copies, so the step and the scenario clear independently */
    step = scenario;
    throng_options_copy_strings (owned_table, &step);
    g_assert_true (step.words != scenario.words);
    g_assert_true (throng_options_apply (throng_node_lookup (root, "step"), owned_table, &step,
                                         TRUE, "t options", &error));
    g_assert_cmpstrv (step.words, ((const char *const[]) { "f", NULL }));
    g_assert_cmpstrv (scenario.words, ((const char *const[]) { "c", "d", "e", NULL }));

    /* Without ACCEPT_NULL, ~ and an empty value are refused before the parser. */
    g_assert_false (throng_options_apply (throng_node_lookup (root, "null"), owned_table, &step,
                                          TRUE, "t options", &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE);
    g_assert_cmpstr (error->message, ==, "t.yaml:4:15: expected a value for words, got null");
    g_clear_error (&error);
    g_assert_cmpstrv (step.words, ((const char *const[]) { "f", NULL }));
    g_assert_false (throng_options_apply (throng_node_lookup (root, "empty"), owned_table, &step,
                                          TRUE, "t options", &error));
    g_assert_cmpstr (error->message, ==,
                     "t.yaml:6:9: expected a value for plain, got an empty value");

    throng_options_clear (owned_table, &step);
    throng_options_clear (owned_table, &scenario);
    g_assert_null (step.words);
    g_assert_null (scenario.words);
}

/*
 * A plugin built against 0.1 headers: entries of the 0.1 size, passed to
 * the entry points under their 0.1 names.  Its table is walked with its
 * own stride, a null still reaches its parser, and nothing past the 0.1
 * fields is read.
 */
typedef struct {
    const char *name;
    ThrongOptionType type;
    gsize offset;
    gint64 min;
    gint64 max;
    const char *const *choices;
    const ThrongOption *table;
    gboolean (*parse) (const ThrongNode *node, gpointer field, GError **error);
    guint flags;
} OptionV01;

typedef struct {
    char *name;
    guint64 count;
    gboolean saw_null;
    char *last;
} V01Fields;

static gboolean
parse_v01 (const ThrongNode *node, gpointer field, GError **error)
{
    *(gboolean *)field = throng_node_is_null (node);
    return TRUE;
}

static void
test_options_v01_table (void)
{
    static const OptionV01 v01[] = {
        { "name", THRONG_OPTION_STRING, offsetof (V01Fields, name), 0, 0, NULL, NULL, NULL, 0 },
        { "count", THRONG_OPTION_UINT, offsetof (V01Fields, count), 1, 9, NULL, NULL, NULL, 0 },
        { "null", THRONG_OPTION_CUSTOM, offsetof (V01Fields, saw_null), 0, 0, NULL, NULL,
          parse_v01, 0 },
        { "last", THRONG_OPTION_STRING, offsetof (V01Fields, last), 0, 0, NULL, NULL, NULL, 0 },
        { NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 },
    };
    const ThrongOption *v01_table = (const ThrongOption *)v01;
    g_autoptr (ThrongTree) tree = load ("o: {name: a, count: 3, null: ~, last: z}\n"
                                        "bad: {count: 10}\n");
    const ThrongNode *root = throng_tree_root (tree);
    g_autoptr (GError) error = NULL;
    V01Fields fields = { 0 }, copy;

    g_assert_cmpuint (sizeof (OptionV01), <, sizeof (ThrongOption));
    g_assert_true ((throng_options_apply) (throng_node_lookup (root, "o"), v01_table, &fields, FALSE,
                                           "v01 options", &error));
    g_assert_no_error (error);
    g_assert_cmpstr (fields.name, ==, "a");
    g_assert_cmpuint (fields.count, ==, 3);
    g_assert_true (fields.saw_null);
    g_assert_cmpstr (fields.last, ==, "z");
    g_assert_false ((throng_options_apply) (throng_node_lookup (root, "bad"), v01_table, &fields,
                                            FALSE, "v01 options", &error));
    g_assert_cmpstr (error->message, ==, "t.yaml:2:14: count must be between 1 and 9, got 10");

    copy = fields;
    (throng_options_copy_strings) (v01_table, &copy);
    g_assert_true (copy.last != fields.last);
    (throng_options_clear) (v01_table, &copy);
    (throng_options_clear) (v01_table, &fields);
    g_assert_null (fields.name);
    g_assert_null (fields.last);
    g_assert_null (copy.last);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/node/tree/locations", test_tree_locations);
    g_test_add_func ("/node/tree/null", test_tree_null);
    g_test_add_func ("/node/tree/empty", test_tree_empty);
    g_test_add_func ("/node/tree/not-a-map", test_tree_not_a_map);
    g_test_add_func ("/node/tree/utf8", test_tree_utf8);
    g_test_add_func ("/node/tree/syntax", test_tree_syntax);
    g_test_add_func ("/node/tree/keys", test_tree_keys);
    g_test_add_func ("/node/tree/anchors", test_tree_anchors);
    g_test_add_func ("/node/tree/depth", test_tree_depth);
    g_test_add_func ("/node/tree/size", test_tree_size);
    g_test_add_func ("/node/tree/nodes", test_tree_nodes);
    g_test_add_func ("/node/tree/file", test_tree_file);
    g_test_add_func ("/node/tree/set", test_tree_set);
    g_test_add_func ("/node/tree/set-errors", test_tree_set_errors);
    g_test_add_func ("/node/tree/expand", test_tree_expand);
    g_test_add_func ("/node/duration/valid", test_duration_valid);
    g_test_add_func ("/node/duration/invalid", test_duration_invalid);
    g_test_add_func ("/node/duration/node", test_duration_node);
    g_test_add_func ("/node/size", test_size);
    g_test_add_func ("/node/bool", test_bool);
    g_test_add_func ("/node/uint", test_uint);
    g_test_add_func ("/node/string", test_string);
    g_test_add_func ("/node/set-error", test_set_error);
    g_test_add_func ("/node/keys/suggest", test_suggest);
    g_test_add_func ("/node/keys/check", test_check_keys);
    g_test_add_func ("/node/options/layers", test_options_layers);
    g_test_add_func ("/node/options/errors", test_options_errors);
    g_test_add_func ("/node/options/partial", test_options_partial);
    g_test_add_func ("/node/options/no-context", test_options_no_context);
    g_test_add_func ("/node/error-quarks", test_error_quarks);
    g_test_add_func ("/node/double", test_double);
    g_test_add_func ("/node/options/custom-owned", test_options_custom_owned);
    g_test_add_func ("/node/options/v01-table", test_options_v01_table);

    return g_test_run ();
}
