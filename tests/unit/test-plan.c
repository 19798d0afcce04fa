/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the plan loader.  The corpus under tests/plans/bad/ is one
 * test per file: its first line, "# expect: LINE:COL: message", is the
 * exact error (after the file's path) that loading it must give.  The
 * plans under tests/plans/good/ load with the values checked here.  Cases
 * a file cannot carry (an empty plan, invalid UTF-8, nesting generated to
 * any depth, `--set`, plugin_path, the built-in target's callback) are
 * written by the tests themselves.  Plans use the `null` protocol of
 * THRONG_TEST_PLUGIN_DIR and the build tree's console reporter.
 */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "metrics.h"
#include "plan.h"
#include "plan-overrides.h"
#include "threshold.h"
#include "test-utils.h"

static const char *
plugin_dir (void)
{
    const char *dir = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    g_assert_nonnull (dir);
    return dir;
}

static ThrongPlan *
load_plan (const char *path, const ThrongPlanLoadOptions *options, GError **error)
{
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();

    /* the plan's plugin data outlives the registry: modules stay loaded */
    return throng_plan_load (path, registry, options, error);
}

/* Asserts that @path fails to load with exactly "@path:@located". */
static void
assert_plan_error (const char *path, const ThrongPlanLoadOptions *options, int code,
                   const char *located)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, options, &error);
    g_autofree char *expected = g_strdup_printf ("%s:%s", path, located);

    g_assert_null (plan);
    g_assert_nonnull (error);
    g_assert_true (error->domain == THRONG_PLAN_ERROR);
    g_assert_cmpstr (error->message, ==, expected);
    if (code >= 0)
        g_assert_cmpint (error->code, ==, code);
}

/* ---- the corpus of bad plans --------------------------------------------- */

static char *
replace (const char *text, const char *from, const char *to)
{
    g_auto (GStrv) parts = g_strsplit (text, from, -1);
    return g_strjoinv (to, parts);
}

static void
test_bad_plan (gconstpointer data)
{
    const char *path = data;
    g_autofree char *contents = NULL;
    g_autoptr (GError) error = NULL;
    const char *prefix = "# expect: ";

    g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
    g_assert_true (g_str_has_prefix (contents, prefix));

    /* the registry's search path and the plan's directory vary with the build */
    g_autofree char *line
        = g_strndup (contents + strlen (prefix), strcspn (contents + strlen (prefix), "\n"));
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autofree char *search = throng_registry_describe_path (registry);
    g_autofree char *dir = g_path_get_dirname (path);
    g_autofree char *with_path = replace (line, "@PATH@", search);
    g_autofree char *expected = replace (with_path, "@DIR@", dir);

    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    assert_plan_error (path, &options, -1, expected);
    g_assert_null (strchr (expected, '\n'));
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

static void
add_bad_plans (void)
{
    g_autofree char *dir = throng_test_source_path ("tests/plans/bad");
    g_autoptr (GError) error = NULL;
    g_autoptr (GDir) listing = g_dir_open (dir, 0, &error);
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    const char *entry;

    g_assert_no_error (error);
    while ((entry = g_dir_read_name (listing)) != NULL) {
        if (g_str_has_suffix (entry, ".yaml"))
            g_ptr_array_add (names, g_strdup (entry));
    }
    g_ptr_array_sort (names, compare_names);
    /* the issue asks for at least 30; keep the corpus from shrinking unseen */
    g_assert_cmpuint (names->len, >=, 60);

    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".yaml"));
        g_autofree char *test = g_strdup_printf ("/plan/bad/%s", stem);

        g_test_add_data_func_full (test, g_build_filename (dir, name, NULL), test_bad_plan, g_free);
    }
}

/* ---- good plans ----------------------------------------------------------- */

static ThrongPlan *
load_good (const char *name, const ThrongPlanLoadOptions *options)
{
    g_autofree char *path = g_strdup_printf ("tests/plans/good/%s", name);
    g_autofree char *full = throng_test_source_path (path);
    g_autoptr (GError) error = NULL;
    ThrongPlan *plan = load_plan (full, options, &error);

    g_assert_no_error (error);
    g_assert_nonnull (plan);
    g_assert_cmpstr (plan->file, ==, full);
    return plan;
}

static ThrongPlanScenario *
scenario_at (ThrongPlan *plan, guint index)
{
    g_assert_cmpuint (index, <, plan->scenarios->len);
    return plan->scenarios->pdata[index];
}

static ThrongPlanStep *
step_at (ThrongPlanScenario *scenario, guint index)
{
    g_assert_cmpuint (index, <, scenario->steps->len);
    return scenario->steps->pdata[index];
}

static void
assert_step (ThrongPlanScenario *scenario, guint index, const char *label)
{
    ThrongPlanStep *step = step_at (scenario, index);
    ThrongPlanProtocol *protocol = scenario->protocols->pdata[0];

    g_assert_cmpstr (step->label, ==, label);
    g_assert_cmpstr (step->protocol_name, ==, "null");
    g_assert_nonnull (step->protocol);
    g_assert_cmpstr (step->protocol->name, ==, "null");
    g_assert_nonnull (step->data);
    g_assert_true (step->protocol == protocol->protocol);
    g_assert_true (step->scenario_data == protocol->data);
    g_assert_cmpint (throng_node_kind (step->node), ==, THRONG_NODE_MAP);
}

static void
assert_console_reporter (ThrongPlan *plan)
{
    ThrongPlanReporter *reporter;

    g_assert_cmpuint (plan->reporters->len, ==, 1);
    reporter = plan->reporters->pdata[0];
    g_assert_cmpstr (reporter->name, ==, "console");
    g_assert_nonnull (reporter->reporter);
    g_assert_cmpstr (reporter->reporter->name, ==, "console");
    g_assert_nonnull (reporter->data);
    g_assert_nonnull (reporter->node);
}

static void
test_good_minimal (void)
{
    g_autoptr (ThrongPlan) plan = load_good ("minimal.yaml", NULL);
    ThrongPlanScenario *scenario;
    ThrongPlanReporter *reporter;

    g_assert_cmpstr (plan->name, ==, "minimal");
    g_assert_false (plan->builtin_target);
    g_assert_nonnull (plan->tree);
    g_assert_cmpuint (plan->scenarios->len, ==, 1);

    scenario = scenario_at (plan, 0);
    g_assert_cmpstr (scenario->name, ==, "scenario-1");
    g_assert_cmpuint (scenario->users, ==, 3);
    g_assert_cmpuint (scenario->iterations, ==, 1);
    g_assert_cmpint (scenario->duration_us, ==, 0);
    g_assert_cmpint (scenario->ramp_up_us, ==, 0);
    g_assert_cmpint (scenario->think_time_us, ==, 0);
    g_assert_cmpuint (scenario->steps->len, ==, 1);
    g_assert_cmpuint (scenario->protocols->len, ==, 1);
    g_assert_cmpuint (throng_node_line (scenario->node), ==, 3);
    assert_step (scenario, 0, "null 0ms");

    /* no reporters named: one console reporter with an empty options map */
    assert_console_reporter (plan);
    reporter = plan->reporters->pdata[0];
    g_assert_cmpint (throng_node_kind (reporter->node), ==, THRONG_NODE_MAP);
    g_assert_cmpuint (throng_node_n_children (reporter->node), ==, 0);
}

static void
test_good_full (void)
{
    g_autoptr (ThrongPlan) plan = load_good ("full.yaml", NULL);
    ThrongPlanScenario *browse, *second;

    g_assert_cmpstr (plan->name, ==, "checkout");
    g_assert_false (plan->builtin_target);
    g_assert_cmpuint (plan->scenarios->len, ==, 2);

    browse = scenario_at (plan, 0);
    g_assert_cmpstr (browse->name, ==, "browse");
    g_assert_cmpuint (browse->users, ==, 50);
    g_assert_cmpuint (browse->iterations, ==, 100);
    g_assert_cmpint (browse->duration_us, ==, 0);
    g_assert_cmpint (browse->ramp_up_us, ==, 5 * G_USEC_PER_SEC);
    g_assert_cmpint (browse->think_time_us, ==, 100 * 1000);
    g_assert_cmpuint (browse->steps->len, ==, 2);
    g_assert_cmpuint (browse->protocols->len, ==, 1);
    /* the scenario's null map (7ms) overrides defaults.null (5ms) */
    assert_step (browse, 0, "null 7ms");
    assert_step (browse, 1, "add to cart");

    second = scenario_at (plan, 1);
    g_assert_cmpstr (second->name, ==, "scenario-2");
    g_assert_cmpuint (second->users, ==, 2);
    g_assert_cmpuint (second->iterations, ==, 0);
    g_assert_cmpint (second->duration_us, ==, 90 * G_USEC_PER_SEC);
    g_assert_cmpint (second->ramp_up_us, ==, 30 * G_USEC_PER_SEC);
    g_assert_cmpint (second->think_time_us, ==, 0);
    assert_step (second, 0, "null 1ms");
    /* each scenario has its own protocol data */
    g_assert_true (((ThrongPlanProtocol *)second->protocols->pdata[0])->data
                   != ((ThrongPlanProtocol *)browse->protocols->pdata[0])->data);

    assert_console_reporter (plan);
}

static void
test_good_builtin_validate (void)
{
    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    g_autoptr (ThrongPlan) plan = load_good ("builtin.yaml", &options);
    ThrongPlanScenario *scenario = scenario_at (plan, 0);

    g_assert_true (plan->builtin_target);
    g_assert_cmpstr (scenario->name, ==, "demo https://127.0.0.1:1");
    /* other ${...} are left for run-time variables */
    g_assert_cmpstr (step_at (scenario, 0)->label, ==, "GET http://127.0.0.1:1/ and ${user.id}");
    /* `console:` with no value: the reporter gets the null node as it is */
    assert_console_reporter (plan);
    g_assert_true (throng_node_is_null (((ThrongPlanReporter *)plan->reporters->pdata[0])->node));
}

static void
test_good_builtin_run (void)
{
    ThrongPlanLoadOptions options = { .builtin_http = "http://127.0.0.1:4321",
                                      .builtin_https = "https://127.0.0.1:4322" };
    g_autoptr (ThrongPlan) plan = load_good ("builtin.yaml", &options);
    ThrongPlanScenario *scenario = scenario_at (plan, 0);

    g_assert_cmpstr (scenario->name, ==, "demo https://127.0.0.1:4322");
    g_assert_cmpstr (step_at (scenario, 0)->label, ==, "GET http://127.0.0.1:4321/ and ${user.id}");

    /* a validation expands them to a port nothing listens on, whatever it is given */
    options.validate_only = TRUE;
    g_autoptr (ThrongPlan) validated = load_good ("builtin.yaml", &options);
    g_assert_cmpstr (scenario_at (validated, 0)->name, ==, "demo https://127.0.0.1:1");
}

/* The command line asks before the plan loads whether to start the target. */
static void
test_builtin_wanted (void)
{
    g_autofree char *builtin = throng_test_source_path ("tests/plans/good/builtin.yaml");
    g_autofree char *minimal = throng_test_source_path ("tests/plans/good/minimal.yaml");
    const char *const set_builtin[] = { "target=builtin", NULL };
    const char *const set_bad[] = { "target", NULL };

    g_assert_true (throng_cli_plan_wants_builtin_target (builtin, NULL));
    g_assert_false (throng_cli_plan_wants_builtin_target (minimal, NULL));
    g_assert_true (throng_cli_plan_wants_builtin_target (minimal, set_builtin));
    /* what cannot be read is the load's to report */
    g_assert_false (throng_cli_plan_wants_builtin_target (builtin, set_bad));
    g_assert_false (throng_cli_plan_wants_builtin_target ("/nonexistent/plan.yaml", NULL));
}

/* ---- plans written by the tests ------------------------------------------ */

static const char minimal_plan[] = "scenarios:\n  - users: 3\n    steps:\n      - null: {}\n";

static void
test_file_missing (void)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan ("/nonexistent/dir/plan.yaml", NULL, &error);

    g_assert_null (plan);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE);
    g_assert_cmpstr (error->message, ==, "/nonexistent/dir/plan.yaml: No such file or directory");
}

static void
test_file_empty (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *const empties[]
        = { "", "\n", "   \n\n  \n", "# nothing but a comment\n\n# and another\n" };

    for (gsize i = 0; i < G_N_ELEMENTS (empties); i++) {
        g_autofree char *path = throng_test_write_plan (fixture->dir, "empty.yaml", empties[i]);
        assert_plan_error (path, NULL, THRONG_PLAN_ERROR_SYNTAX, "1:1: the plan is empty");
    }
}

static void
test_file_utf8 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (
        fixture->dir, "latin1.yaml",
        "name: caf\xc3\xa9\nscenarios:\n  - name: caf\xe9\n    users: 1\n");

    assert_plan_error (path, NULL, THRONG_PLAN_ERROR_SYNTAX,
                       "3:14: invalid UTF-8 (byte 0xe9); a plan must be UTF-8 text");
}

static void
test_file_deep (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (GString) yaml = g_string_new ("name: deep\nscenarios:\n");

    /* block maps, each key one level deeper than the last */
    for (guint i = 0; i < 100; i++) {
        for (guint j = 0; j < i + 1; j++)
            g_string_append (yaml, "  ");
        g_string_append_printf (yaml, "k%u:\n", i);
    }
    g_autofree char *path = throng_test_write_plan (fixture->dir, "deep.yaml", yaml->str);
    /* the root map is level 1 and the map at line 3 level 2: line 66 (k63) opens level 65 */
    assert_plan_error (path, NULL, THRONG_PLAN_ERROR_LIMIT,
                       "66:129: the plan nests deeper than 64 levels");
}

static void
test_set (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", minimal_plan);
    const char *const sets[]
        = { "scenarios.0.users=7", "name=overridden", "scenarios.0.duration=10s",
            "scenarios.0.steps.0.null.delay=3ms", NULL };
    ThrongPlanLoadOptions options = { .edit = throng_cli_sets_apply, .edit_data = (gpointer) sets };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &options, &error);
    ThrongPlanScenario *scenario;

    g_assert_no_error (error);
    g_assert_cmpstr (plan->name, ==, "overridden");
    scenario = scenario_at (plan, 0);
    g_assert_cmpuint (scenario->users, ==, 7);
    g_assert_cmpuint (scenario->iterations, ==, 0);
    g_assert_cmpint (scenario->duration_us, ==, 10 * G_USEC_PER_SEC);
    g_assert_cmpstr (step_at (scenario, 0)->label, ==, "null 3ms");
}

static void
assert_set_error (const char *dir, const char *assignment, const char *message)
{
    g_autofree char *path = throng_test_write_plan (dir, "plan.yaml", minimal_plan);
    const char *const sets[] = { "name=fine", assignment, NULL };
    ThrongPlanLoadOptions options = { .edit = throng_cli_sets_apply, .edit_data = (gpointer) sets };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &options, &error);

    g_assert_null (plan);
    g_assert_nonnull (error);
    g_assert_true (error->domain == THRONG_PLAN_ERROR);
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_set_errors (ThrongTestTmpdir *fixture, gconstpointer data)
{
    assert_set_error (fixture->dir, "scenarios.3.users=1",
                      "--set scenarios.3.users=1: the plan has no scenarios.3");
    assert_set_error (fixture->dir, "defaults.null.delay=1ms",
                      "--set defaults.null.delay=1ms: the plan has no defaults");
    assert_set_error (fixture->dir, "users",
                      "--set users: expected PATH=VALUE, such as "
                      "scenarios.0.users=10");
    assert_set_error (fixture->dir, "scenarios.0.users=abc",
                      "--set scenarios.0.users:1:19: expected a whole number, got 'abc'");
    assert_set_error (fixture->dir, "scenarios.0.users=0",
                      "--set scenarios.0.users:1:19: users must be between 1 and 1000000, got 0");
    assert_set_error (fixture->dir, "scenarios.0.users=",
                      "--set scenarios.0.users:1:19: expected a whole number, got an empty value");
    assert_set_error (fixture->dir, "scenarios.0.usres=5",
                      "--set scenarios.0.usres:1:1: unknown key 'usres' in scenario; did you "
                      "mean 'users'?");
    assert_set_error (fixture->dir, "scenarios.0.steps.0.null.delay=soon",
                      "--set scenarios.0.steps.0.null.delay:1:32: expected a duration such as "
                      "250ms, 10s or 2m, got 'soon'");
    assert_set_error (fixture->dir, "scenarios.0.steps=none",
                      "--set scenarios.0.steps=none: scenarios.0.steps is a list; --set replaces "
                      "single values only");
}

static void
test_plugin_path (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *saved = g_strdup (g_getenv ("THRONG_PLUGIN_PATH"));
    g_autofree char *link = g_build_filename (fixture->dir, "plugins", NULL);
    g_autofree char *without = throng_test_write_plan (fixture->dir, "without.yaml", minimal_plan);
    g_autofree char *yaml = g_strconcat ("plugin_path: plugins\n", minimal_plan, NULL);
    g_autofree char *with = throng_test_write_plan (fixture->dir, "with.yaml", yaml);
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (symlink (plugin_dir (), link), ==, 0);
    g_unsetenv ("THRONG_PLUGIN_PATH");

    /* without it, null is nowhere the registry looks */
    g_autoptr (ThrongPlan) none = load_plan (without, NULL, &error);
    g_assert_null (none);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_UNKNOWN_KEY);
    g_assert_true (strstr (error->message, ":4:9: unknown protocol 'null': no plugin "
                                           "libthrong-null.so in ")
                   != NULL);
    g_clear_error (&error);

    /* relative to the plan's directory, and added before any lookup */
    g_autoptr (ThrongPlan) plan = load_plan (with, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (plan);
    g_assert_cmpstr (step_at (scenario_at (plan, 0), 0)->label, ==, "null 0ms");

    /* also when the plan's own path is relative */
    g_autofree char *cwd = g_get_current_dir ();
    g_assert_cmpint (g_chdir (fixture->dir), ==, 0);
    g_autoptr (ThrongPlan) relative = load_plan ("with.yaml", NULL, &error);
    g_assert_cmpint (g_chdir (cwd), ==, 0);
    g_assert_no_error (error);
    g_assert_nonnull (relative);

    g_setenv ("THRONG_PLUGIN_PATH", saved, TRUE);
}

static void
test_plugin_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *bad = g_build_filename (plugin_dir (), "bad", NULL);
    g_autofree char *yaml = g_strdup_printf ("plugin_path: [%s]\nscenarios:\n  - users: 1\n"
                                             "    steps:\n      - badabi: {}\n",
                                             bad);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, NULL, &error);

    /* a plugin that exists but is refused is not a plan error: it goes up unchanged */
    g_assert_null (plan);
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    g_assert_true (strstr (error->message, "libthrong-badabi.so") != NULL);
}

/* Step options after the first failing step are never parsed, and nothing leaks. */
static void
test_partial_plan (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (
        fixture->dir, "plan.yaml",
        "scenarios:\n"
        "  - users: 1\n    steps: [{null: {}}, {null: {delay: 1ms}}]\n"
        "  - users: 2\n    steps: [{null: {}}, {null: {delay: 1ms}}, {null: {delay: x}}]\n"
        "reporters:\n  - console: {}\n");

    assert_plan_error (path, NULL, THRONG_PLAN_ERROR_TYPE,
                       "5:62: expected a duration such as 250ms, 10s or 2m, got 'x'");
    throng_plan_free (NULL);
}

/* The schedule's keys (schedule.c) pass through the loader; `users` is then not required. */
static void
test_schedule (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (
        fixture->dir, "plan.yaml",
        "saturation: {cpu: 50%, lag: 20ms}\n"
        "scenarios:\n"
        "  - executor: constant-arrival-rate\n    rate: 100/s\n    duration: 2s\n"
        "    max_users: 8\n    steps: [{null: {}}]\n"
        "  - executor: ramping-users\n    stages: [{duration: 1s, users: 4}, {duration: 1s, users: "
        "0}]\n"
        "    think_time: 10ms..20ms\n    steps: [{null: {}}]\n");
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpfloat (plan->saturation_cpu, ==, 0.5);
    g_assert_cmpint (plan->saturation_lag_us, ==, 20000);
    g_assert_cmpint (scenario_at (plan, 0)->executor, ==, THRONG_EXECUTOR_CONSTANT_RATE);
    g_assert_cmpuint (scenario_at (plan, 0)->users, ==, 8);
    g_assert_cmpint (scenario_at (plan, 1)->executor, ==, THRONG_EXECUTOR_RAMPING_USERS);
    g_assert_cmpuint (scenario_at (plan, 1)->users, ==, 4);
    g_assert_cmpuint (scenario_at (plan, 1)->stages->len, ==, 2);
    g_assert_cmpint (scenario_at (plan, 1)->think_time_us, ==, 10000);
}

/* ---- what the command line adds ------------------------------------------ */

/*
 * `throng run --out …` (cli/plan-overrides.c): @outs read as the command
 * line reads them, then the plan loaded with them, validate only.  The
 * caller declares *@outputs before the plan, to free it after.
 */
static ThrongPlan *
load_outs (const char *path, const char *const *outs, ThrongCliOutputs **outputs, GError **error)
{
    *outputs = throng_cli_outputs_new (outs, error);
    if (*outputs == NULL)
        return NULL;

    ThrongPlanLoadOptions options = { .outputs = throng_cli_outputs_get (*outputs),
                                      .validate_only = TRUE };
    return load_plan (path, &options, error);
}

/*
 * `--out NAME=PATH` is a reporter of the plan, after the plan's own, with
 * the options {path: PATH} built (not parsed): quotes, backslashes, `~`
 * and `: ` reach the reporter as they were typed.
 */
static void
test_out (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", minimal_plan);
    g_autofree char *odd = g_build_filename (fixture->dir, "a \"b\" \\c: ~ #d.json", NULL);
    g_autofree char *out_json = g_strconcat ("json=", odd, NULL);
    g_autofree char *csv_tilde = g_strdup ("csv=~");
    const char *const outs[] = { out_json, csv_tilde, NULL };
    g_autoptr (ThrongCliOutputs) outputs = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_outs (path, outs, &outputs, &error);
    const ThrongPlanReporter *json, *csv;
    const ThrongNode *value;

    g_assert_no_error (error);
    g_assert_cmpuint (plan->reporters->len, ==, 3);
    g_assert_cmpstr (((ThrongPlanReporter *)plan->reporters->pdata[0])->name, ==, "console");
    json = plan->reporters->pdata[1];
    csv = plan->reporters->pdata[2];
    g_assert_cmpstr (json->name, ==, "json");
    g_assert_nonnull (json->data);
    value = throng_node_lookup (json->node, "path");
    g_assert_nonnull (value);
    g_assert_cmpstr (throng_node_scalar (value), ==, odd);
    g_assert_cmpstr (throng_node_file (value), ==, "--out json");
    g_assert_cmpuint (throng_node_line (value), ==, 1);
    g_assert_cmpuint (throng_node_column (value), ==, 6);
    /* `~` is a file name here, not YAML's null */
    value = throng_node_lookup (csv->node, "path");
    g_assert_false (throng_node_is_null (value));
    g_assert_cmpstr (throng_node_scalar (value), ==, "~");
}

static void
assert_out_error (const char *dir, const char *out, const char *message)
{
    g_autofree char *path = throng_test_write_plan (dir, "plan.yaml", minimal_plan);
    const char *const outs[] = { "csv=fine.csv", out, NULL };
    g_autoptr (ThrongCliOutputs) outputs = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_outs (path, outs, &outputs, &error);

    g_assert_null (plan);
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_out_errors (ThrongTestTmpdir *fixture, gconstpointer data)
{
    assert_out_error (fixture->dir, "nonsense",
                      "--out nonsense: expected NAME=PATH, e.g. --out csv=results.csv");
    assert_out_error (fixture->dir, "=x.csv",
                      "--out =x.csv: expected NAME=PATH, e.g. --out csv=results.csv");
    assert_out_error (fixture->dir, "csv=",
                      "--out csv=: expected NAME=PATH, e.g. --out csv=results.csv");
    assert_out_error (fixture->dir, "jsn=x.out",
                      "--out jsn=x.out: unknown reporter 'jsn'; did you mean 'json'?");
    /* a protocol is not a reporter */
    assert_out_error (fixture->dir, "null=x.out",
                      "--out null=x.out: 'null' is a protocol plugin, not a reporter");
}

/* An unknown reporter with no near name lists the reporters there are, in order. */
static void
test_reporter_unknown_lists (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml = g_strconcat (minimal_plan, "reporters:\n  - nosuch: {}\n", NULL);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    const char *const outs[] = { "nosuch=x.out", NULL };
    const char *const no_outs[] = { NULL };
    g_autofree char *plain = throng_test_write_plan (fixture->dir, "plain.yaml", minimal_plan);

    for (guint i = 0; i < 2; i++) {
        g_autoptr (ThrongCliOutputs) outputs = NULL;
        g_autoptr (GError) error = NULL;
        g_autoptr (ThrongPlan) plan = load_outs (i == 0 ? path : plain, i == 0 ? no_outs : outs,
                                                 &outputs, &error);

        g_assert_null (plan);
        g_assert_nonnull (error);
        g_test_message ("%s", error->message);
        const char *list = strstr (error->message, "; available reporters: ");
        g_assert_nonnull (list);
        g_assert_nonnull (strstr (list, " console, "));
        g_assert_nonnull (strstr (list, " csv, "));
        g_assert_nonnull (strstr (list, " json"));
        g_assert_cmpstr (strstr (error->message, "unknown reporter 'nosuch'"), !=, NULL);
    }
}

/* A reporter that refuses {path: …} says so at the option, as it would in a plan. */
static void
test_out_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", minimal_plan);
    const char *const outs[] = { "console=x.txt", NULL };
    g_autoptr (ThrongCliOutputs) outputs = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_outs (path, outs, &outputs, &error);

    g_assert_null (plan);
    g_assert_nonnull (error);
    g_assert_true (error->domain == THRONG_PLAN_ERROR);
    g_test_message ("%s", error->message);
    g_assert_true (g_str_has_prefix (error->message, "--out console:1:1: unknown key 'path'"));
}

/* The thresholds are part of the loaded plan (the run flags are the command line's). */
static void
test_thresholds_loaded (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml = g_strconcat (minimal_plan, "thresholds:\n  - total.p99 < 1s\n"
                                                       "  - scenario-1.errors == 0\n", NULL);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    ThrongPlanLoadOptions none = { 0 };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &none, &error);

    g_assert_no_error (error);
    g_assert_nonnull (plan->thresholds);
    g_assert_cmpuint (throng_thresholds_count (plan->thresholds), ==, 2);
}

/*
 * Threshold values read like the console's figures: durations in µs, ms
 * or s with three digits, shares as percentages, rates with /s, counts
 * whole; never "2e+03ms".  Dropped iterations are counted and shared.
 */
static void
test_thresholds_format (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml = g_strconcat (minimal_plan,
                                         "thresholds:\n"
                                         "  - total.min < 1s\n"
                                         "  - total.max < 1s\n"
                                         "  - total.errors.rate < 1%\n"
                                         "  - total.rps > 1\n"
                                         "  - total.requests > 1\n"
                                         "  - total.dropped_iterations == 0\n"
                                         "  - scenario-1.dropped_iterations.rate < 1%\n",
                                         NULL);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &options, &error);
    static const gint64 elapsed_us[] = { 2000, 2000, 2000, 12345678 };
    ThrongScenarioSummary scenario = { .name = "scenario-1", .users = 3, .iterations = 4,
                                       .dropped_iterations = 1 };
    ThrongSummary summary = { .size = sizeof summary, .elapsed_us = 10 * G_USEC_PER_SEC,
                              .scenarios = &scenario, .n_scenarios = 1 };

    g_assert_no_error (error);
    throng_stats_init (&scenario.stats);
    throng_stats_init (&summary.total);
    for (guint i = 0; i < G_N_ELEMENTS (elapsed_us); i++) {
        ThrongSample sample = { .elapsed_us = elapsed_us[i],
                                .error = i == 3 ? THRONG_ERROR_TIMEOUT : THRONG_ERROR_NONE };
        throng_stats_record (&scenario.stats, &sample);
        throng_stats_record (&summary.total, &sample);
    }

    const ThrongThresholdResult *results = throng_thresholds_evaluate (plan->thresholds, &summary);
    static const char *const patterns[] = {
        "^2\\.[0-9]{2}ms$",  /* 2000 µs, within the histogram's 1% */
        "^12\\.[0-9]s$",     /* 12.3 s */
        "^25\\.0%$",         /* 1 failure in 4 */
        "^0\\.40/s$",        /* 4 requests in 10 s */
        "^4$",
        "^1$",
        "^20\\.0%$",         /* 1 dropped of 5 due */
    };
    for (guint i = 0; i < G_N_ELEMENTS (patterns); i++) {
        g_test_message ("%s: actual %s", results[i].expression, results[i].actual);
        g_assert_true (g_regex_match_simple (patterns[i], results[i].actual, 0, 0));
    }
    g_assert_false (results[5].passed);
    g_assert_false (results[6].passed);
    throng_stats_clear (&scenario.stats);
    throng_stats_clear (&summary.total);
}

/* `checks.rate` and `checks.fails` judge the checks of the summary's journeys. */
static void
test_thresholds_checks (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *yaml = g_strconcat (minimal_plan,
                                         "thresholds:\n"
                                         "  - checks.rate > 0.99\n"
                                         "  - scenario-1.checks.rate > 90%\n"
                                         "  - total.checks.fails == 0\n",
                                         NULL);
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &options, &error);
    ThrongCheckSummary checks[] = { { .name = "status is 200", .passes = 90, .fails = 1 },
                                    { .name = "$.token exists", .passes = 9, .fails = 0 } };
    ThrongScenarioJourney journey = { .size = sizeof journey, .checks = checks, .n_checks = 2 };
    ThrongScenarioSummary scenario = { .name = "scenario-1", .users = 1, .journey = &journey };
    ThrongSummary summary = { .size = sizeof summary, .elapsed_us = G_USEC_PER_SEC,
                              .scenarios = &scenario, .n_scenarios = 1 };

    g_assert_no_error (error);
    throng_stats_init (&scenario.stats);
    throng_stats_init (&summary.total);
    const ThrongThresholdResult *results = throng_thresholds_evaluate (plan->thresholds, &summary);
    g_assert_cmpstr (results[0].expression, ==, "total.checks.rate > 0.99");
    g_assert_cmpstr (results[0].actual, ==, "99.0%");
    g_assert_false (results[0].passed); /* 99 of 100 is not more than 0.99 */
    g_assert_cmpstr (results[1].expression, ==, "scenario-1.checks.rate > 90%");
    g_assert_true (results[1].passed);
    g_assert_cmpstr (results[2].actual, ==, "1");
    g_assert_false (results[2].passed);

    /* no check made: nothing failed */
    journey.n_checks = 0;
    results = throng_thresholds_evaluate (plan->thresholds, &summary);
    g_assert_true (results[0].passed);
    g_assert_true (results[2].passed);
    /* a summary without journeys (a core older than 0.3) likewise */
    scenario.journey = NULL;
    results = throng_thresholds_evaluate (plan->thresholds, &summary);
    g_assert_true (results[0].passed);
    throng_stats_clear (&scenario.stats);
    throng_stats_clear (&summary.total);
}

/*
 * A threshold on a figure of a metric's values judges nothing when no
 * value was recorded: it fails, saying so; a counter's sum and `invalid`
 * are figures of their own and pass at 0.
 */
static void
test_thresholds_no_value (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const char yaml[]
        = "metrics: { wait: { type: trend }, orders: { type: counter } }\n"
          "thresholds: [ \"wait.p95 < 200\", \"wait.invalid == 0\", \"orders.count == 0\" ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - null: {}\n"
          "        record: { wait: \"1\", orders: }\n";
    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    ThrongPlanLoadOptions options = { .validate_only = TRUE };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongPlan) plan = load_plan (path, &options, &error);
    ThrongCustomMetric metrics[] = {
        { .size = sizeof (ThrongCustomMetric), .name = "wait", .kind = THRONG_CUSTOM_TREND },
        { .size = sizeof (ThrongCustomMetric), .name = "orders", .kind = THRONG_CUSTOM_COUNTER },
    };
    ThrongSummary summary = { .size = sizeof summary, .elapsed_us = G_USEC_PER_SEC,
                              .metrics = metrics, .n_metrics = 2 };

    g_assert_no_error (error);
    throng_stats_init (&summary.total);
    const ThrongThresholdResult *results = throng_thresholds_evaluate (plan->thresholds, &summary);
    g_assert_cmpstr (results[0].actual, ==, "no value recorded");
    g_assert_false (results[0].passed);
    g_assert_true (results[1].passed);
    g_assert_true (results[2].passed);
    throng_stats_clear (&summary.total);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_setenv ("THRONG_PLUGIN_PATH", plugin_dir (), TRUE);

    add_bad_plans ();
    g_test_add_func ("/plan/good/minimal", test_good_minimal);
    g_test_add_func ("/plan/good/full", test_good_full);
    g_test_add_func ("/plan/good/builtin-validate", test_good_builtin_validate);
    g_test_add_func ("/plan/good/builtin-run", test_good_builtin_run);
    g_test_add_func ("/plan/builtin/wanted", test_builtin_wanted);
    g_test_add_func ("/plan/file/missing", test_file_missing);
    g_test_add ("/plan/file/empty", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_file_empty, throng_test_tmpdir_teardown);
    g_test_add ("/plan/file/utf8", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_file_utf8,
                throng_test_tmpdir_teardown);
    g_test_add ("/plan/file/deep", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_file_deep,
                throng_test_tmpdir_teardown);
    g_test_add ("/plan/set/ok", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_set,
                throng_test_tmpdir_teardown);
    g_test_add ("/plan/out/ok", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_out,
                throng_test_tmpdir_teardown);
    g_test_add ("/plan/out/errors", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_out_errors, throng_test_tmpdir_teardown);
    g_test_add ("/plan/reporter/unknown-lists", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_reporter_unknown_lists, throng_test_tmpdir_teardown);
    g_test_add ("/plan/out/refused", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_out_refused, throng_test_tmpdir_teardown);
    g_test_add ("/plan/thresholds-loaded", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_thresholds_loaded, throng_test_tmpdir_teardown);
    g_test_add ("/plan/thresholds/format", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_thresholds_format, throng_test_tmpdir_teardown);
    g_test_add ("/plan/thresholds/no-value", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_thresholds_no_value, throng_test_tmpdir_teardown);
    g_test_add ("/plan/thresholds/checks", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_thresholds_checks, throng_test_tmpdir_teardown);
    g_test_add ("/plan/set/errors", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_set_errors, throng_test_tmpdir_teardown);
    g_test_add ("/plan/plugin-path/relative", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_plugin_path, throng_test_tmpdir_teardown);
    g_test_add ("/plan/plugin-path/refused", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_plugin_refused, throng_test_tmpdir_teardown);
    g_test_add ("/plan/partial", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_partial_plan, throng_test_tmpdir_teardown);
    g_test_add ("/plan/schedule", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_schedule,
                throng_test_tmpdir_teardown);

    return g_test_run ();
}
