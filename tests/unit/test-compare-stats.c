/* SPDX-License-Identifier: MIT */
/*
 * The statistics behind `throng compare`'s verdicts (cli/compare-stats.c):
 * Welch's p-value against a value worked by hand, the batch size on white
 * and on autocorrelated series, and the whole test's false-alarm rate and
 * power measured on simulated runs whose interval medians are an AR(1)
 * process, as a real run's are (docs/compare.md, "Method").
 */
#include "compare-private.h"

#include <math.h>
#include <string.h>

static GArray *
series_of (const gdouble *values, guint n)
{
    GArray *series = g_array_new (FALSE, FALSE, sizeof (gdouble));

    g_array_append_vals (series, values, n);
    return series;
}

/* a = 1…5, b = 3…7: t = 2 on 8 degrees of freedom, p = 0.0805 (two-sided). */
static void
test_welch (void)
{
    static const gdouble a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
    g_autoptr (GArray) x = series_of (a, 5);
    g_autoptr (GArray) y = series_of (b, 5);

    g_assert_cmpfloat_with_epsilon (compare_welch (x, y), 0.08052, 1e-4);
    g_assert_cmpfloat_with_epsilon (compare_welch (y, x), 0.08052, 1e-4);
    g_assert_cmpfloat_with_epsilon (compare_welch (x, x), 1.0, 1e-12);
}

/* An AR(1) series of @n values around @mean: x' = ρ x + e, e uniform with sd @sd·mean. */
static GArray *
ar1 (GRand *rand, guint n, gdouble mean, gdouble rho, gdouble sd)
{
    GArray *series = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), n);
    gdouble x = 0;

    for (guint i = 0; i < n; i++) {
        /* A uniform on [-√3, √3] has variance 1. */
        x = rho * x + sd * sqrt (3.0) * (2 * g_rand_double (rand) - 1);
        gdouble value = mean * (1 + x);
        g_array_append_val (series, value);
    }
    return series;
}

static void
test_batch_size (void)
{
    g_autoptr (GRand) rand = g_rand_new_with_seed (11);
    g_autoptr (GArray) white = ar1 (rand, 120, 100, 0.0, 0.05);
    g_autoptr (GArray) sticky = ar1 (rand, 120, 100, 0.9, 0.05);

    g_assert_cmpuint (compare_batch_size (white, 5), <=, 2);
    g_assert_cmpuint (compare_batch_size (sticky, 5), >=, 4);
    /* Never fewer than 5 batches. */
    g_assert_cmpuint (120 / compare_batch_size (sticky, 5), >=, 5);
}

/* The verdict on two simulated runs of @n intervals. */
static CompareVerdict
verdict (GRand *rand, guint n, gdouble rho, gdouble shift, const CompareMethod *method)
{
    CompareRow row = { .kind = COMPARE_STEP };

    for (guint s = 0; s < 2; s++) {
        row.side[s].present = TRUE;
        row.side[s].has_latency = TRUE;
        row.side[s].series = ar1 (rand, n, s == 0 ? 10000 : 10000 * (1 + shift), rho, 0.03);
    }
    compare_test_row (&row, method);
    g_array_unref (row.side[0].series);
    g_array_unref (row.side[1].series);
    return row.test.verdict;
}

/*
 * Equal runs, ρ = 0.7 between neighbouring seconds, 60 s each, the floor
 * off so that only the test speaks: at α = 0.01 the batched test calls
 * 26 of 1,000 pairs different (short series leave some correlation in the
 * batch means: the test is not exact, hence the floor); with the floor of
 * 5%, 4.  A 20% shift is found in all.
 */
static void
test_false_alarms (void)
{
    g_autoptr (GRand) rand = g_rand_new_with_seed (5);
    const CompareMethod pure = { .alpha = 0.01, .min_change = 0 };
    const CompareMethod floored = { .alpha = 0.01, .min_change = 0.05 };
    guint alarms = 0, floored_alarms = 0, found = 0;

    for (guint i = 0; i < 1000; i++) {
        alarms += verdict (rand, 60, 0.7, 0, &pure) != VERDICT_SAME;
        floored_alarms += verdict (rand, 60, 0.7, 0, &floored) != VERDICT_SAME;
        found += verdict (rand, 60, 0.7, 0.2, &floored) == VERDICT_REGRESSED;
    }
    g_test_message ("false alarms in 1000 equal pairs: %u without the floor, %u with it; "
                    "a 20%% slowdown found in %u of 1000", alarms, floored_alarms, found);
    g_assert_cmpuint (alarms, <, 30);
    g_assert_cmpuint (floored_alarms, <=, 5);
    g_assert_cmpuint (found, ==, 1000);
}

/* Too few intervals: untested, whatever the figures. */
static void
test_too_short (void)
{
    g_autoptr (GRand) rand = g_rand_new_with_seed (3);
    const CompareMethod method = { .alpha = 0.01, .min_change = 0.05 };

    g_assert_cmpint (verdict (rand, 4, 0, 0.5, &method), ==, VERDICT_UNTESTED);
    g_assert_cmpint (verdict (rand, 5, 0, 0.5, &method), ==, VERDICT_REGRESSED);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/compare/stats/welch", test_welch);
    g_test_add_func ("/compare/stats/batch-size", test_batch_size);
    g_test_add_func ("/compare/stats/false-alarms", test_false_alarms);
    g_test_add_func ("/compare/stats/too-short", test_too_short);
    return g_test_run ();
}
