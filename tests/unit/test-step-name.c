/* SPDX-License-Identifier: MIT */
/*
 * throng_step_display_name(), the one name console, html and `throng
 * compare` show for a step: the label alone when it is the scenario's
 * only step of that label, else `LABEL [STEP_ID]` (docs/reporters.md,
 * "Steps that share a label").
 */
#include <throng/journey.h>

/* A scenario whose steps have @labels (NULL entries allowed), @n of them. */
static ThrongScenarioSummary
scenario_of (ThrongStepSummary *steps, const char *const *labels, guint n)
{
    for (guint i = 0; i < n; i++)
        steps[i] = (ThrongStepSummary) { .label = labels[i] };
    return (ThrongScenarioSummary) { .name = "page", .steps = steps, .n_steps = n };
}

static void
assert_name (const ThrongScenarioSummary *scenario, guint step, const char *expected)
{
    g_autofree char *name = throng_step_display_name (scenario, step);

    g_assert_cmpstr (name, ==, expected);
}

static void
test_unique (void)
{
    static const char *const labels[] = { "GET /", "GET /bytes/1024", "login" };
    ThrongStepSummary steps[3];
    ThrongScenarioSummary scenario = scenario_of (steps, labels, 3);

    assert_name (&scenario, 0, "GET /");
    assert_name (&scenario, 1, "GET /bytes/1024");
    assert_name (&scenario, 2, "login");
}

/* Every step of a repeated label is named with its step_id, from 0; the others alone. */
static void
test_repeated (void)
{
    static const char *const labels[] = { "GET /", "GET /bytes/1024", "GET /", "GET /" };
    ThrongStepSummary steps[4];
    ThrongScenarioSummary scenario = scenario_of (steps, labels, 4);

    assert_name (&scenario, 0, "GET / [0]");
    assert_name (&scenario, 1, "GET /bytes/1024");
    assert_name (&scenario, 2, "GET / [2]");
    assert_name (&scenario, 3, "GET / [3]");
}

/* A label is compared whole: a prefix or another case is another label. */
static void
test_exact (void)
{
    static const char *const labels[] = { "GET /", "GET /a", "get /" };
    ThrongStepSummary steps[3];
    ThrongScenarioSummary scenario = scenario_of (steps, labels, 3);

    assert_name (&scenario, 0, "GET /");
    assert_name (&scenario, 1, "GET /a");
    assert_name (&scenario, 2, "get /");
}

/* NULL reads as the empty label: alone "", repeated "[N]" with no space before. */
static void
test_null_and_empty (void)
{
    static const char *const alone[] = { NULL, "GET /" };
    static const char *const both[] = { NULL, "GET /", "" };
    ThrongStepSummary steps[3];
    ThrongScenarioSummary scenario = scenario_of (steps, alone, 2);

    assert_name (&scenario, 0, "");
    assert_name (&scenario, 1, "GET /");
    scenario = scenario_of (steps, both, 3);
    assert_name (&scenario, 0, "[0]");
    assert_name (&scenario, 1, "GET /");
    assert_name (&scenario, 2, "[2]");
}

/* A step past the scenario's last: NULL and a critical, never a read past the array. */
static void
test_out_of_range (void)
{
    static const char *const labels[] = { "GET /" };
    ThrongStepSummary steps[1];
    ThrongScenarioSummary scenario = scenario_of (steps, labels, 1);

    if (g_test_subprocess ()) {
        char *name = throng_step_display_name (&scenario, 1);
        g_assert_null (name);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_failed ();
    g_test_trap_assert_stderr ("*step < scenario->n_steps*");
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/step-name/unique", test_unique);
    g_test_add_func ("/step-name/repeated", test_repeated);
    g_test_add_func ("/step-name/exact", test_exact);
    g_test_add_func ("/step-name/null-and-empty", test_null_and_empty);
    g_test_add_func ("/step-name/out-of-range", test_out_of_range);
    return g_test_run ();
}
