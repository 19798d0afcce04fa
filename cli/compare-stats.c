/* SPDX-License-Identifier: MIT */
/*
 * The verdict on one row: are the two runs' latencies different?  Each
 * run is a series of interval medians (one a second, from the interval's
 * histogram; a median, as one slow answer moves a mean); neighbouring
 * intervals are correlated (a slow second is followed by a slow second),
 * so they are averaged in batches of consecutive intervals, the batch
 * doubled until the batch means show no lag-1 autocorrelation, and the
 * two runs' batch means compared with Welch's t-test.  A change is
 * "regressed" or "improved" only when the test is significant *and* the
 * change is at least the practical floor: two runs of one build differ by
 * more than their own intervals' noise (the machine, the target's state),
 * and such a difference is not a verdict.  A total or a scenario mixes
 * its steps, and the median of a mixture jumps between their modes: its
 * verdict is its steps'.  docs/compare.md, "Method".
 */
#include "compare-private.h"

#include <math.h>
#include <string.h>

/* Fewer batches than this in either run: too short to test. */
#define MIN_BATCHES 5

/*
 * Batches grow until the lag-1 autocorrelation of their means is below
 * this.  A bound from white noise's spread (1.96/√k) stops too early on
 * short runs: on simulated runs (ρ = 0.7, 60 s) the test then called 5.9%
 * of equal pairs different at α = 1%; with 0.1, 2.6%
 * (tests/unit/test-compare-stats.c).
 */
#define BATCH_LAG1 0.1

static gdouble
series_get (const GArray *series, guint i)
{
    return g_array_index (series, gdouble, i);
}

/*
 * The means of @batch consecutive values of @series; the first values
 * left over are dropped (they are the run's start, its warm-up).
 */
static GArray *
batch_means (const GArray *series, guint batch)
{
    guint n = series->len / batch;
    guint skip = series->len - n * batch;
    GArray *means = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), n);

    for (guint b = 0; b < n; b++) {
        gdouble sum = 0;
        for (guint i = 0; i < batch; i++)
            sum += series_get (series, skip + b * batch + i);
        gdouble mean = sum / batch;
        g_array_append_val (means, mean);
    }
    return means;
}

static gdouble
mean_of (const GArray *values)
{
    gdouble sum = 0;

    for (guint i = 0; i < values->len; i++)
        sum += series_get (values, i);
    return values->len > 0 ? sum / values->len : 0.0;
}

static gdouble
variance_of (const GArray *values)
{
    gdouble mean = mean_of (values), sum = 0;

    for (guint i = 0; i < values->len; i++)
        sum += (series_get (values, i) - mean) * (series_get (values, i) - mean);
    return values->len > 1 ? sum / (values->len - 1) : 0.0;
}

/* The lag-1 autocorrelation of @values (0 when they do not vary). */
static gdouble
lag1 (const GArray *values)
{
    gdouble mean = mean_of (values), num = 0, den = 0;

    for (guint i = 0; i < values->len; i++) {
        gdouble d = series_get (values, i) - mean;
        den += d * d;
        if (i + 1 < values->len)
            num += d * (series_get (values, i + 1) - mean);
    }
    return den > 0 ? num / den : 0.0;
}

guint
compare_batch_size (const GArray *series, guint min_batches)
{
    guint batch = 1;

    /* Doubled while the batch means are still correlated and halving them leaves enough. */
    while (series->len / (batch * 2) >= min_batches) {
        g_autoptr (GArray) means = batch_means (series, batch);
        if (lag1 (means) < BATCH_LAG1)
            break;
        batch *= 2;
    }
    return batch;
}

/* The continued fraction of the regularized incomplete beta function (Lentz). */
static gdouble
beta_fraction (gdouble a, gdouble b, gdouble x)
{
    const gdouble tiny = 1e-300;
    gdouble c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);

    d = fabs (d) < tiny ? tiny : d;
    d = 1.0 / d;
    gdouble h = d;
    for (int m = 1; m <= 300; m++) {
        gdouble m2 = 2.0 * m;
        gdouble aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + aa * d;
        d = fabs (d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs (c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + aa * d;
        d = fabs (d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs (c) < tiny ? tiny : c;
        d = 1.0 / d;
        gdouble step = d * c;
        h *= step;
        if (fabs (step - 1.0) < 1e-12)
            break;
    }
    return h;
}

/* I_x(a, b). */
static gdouble
incomplete_beta (gdouble a, gdouble b, gdouble x)
{
    if (x <= 0)
        return 0.0;
    if (x >= 1)
        return 1.0;
    gdouble front = exp (lgamma (a + b) - lgamma (a) - lgamma (b) + a * log (x)
                         + b * log (1.0 - x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction (a, b, x) / a;
    return 1.0 - front * beta_fraction (b, a, 1.0 - x) / b;
}

/* P(|T| ≥ |t|) for Student's t with @df degrees of freedom. */
static gdouble
student_two_sided (gdouble t, gdouble df)
{
    return incomplete_beta (df / 2.0, 0.5, df / (df + t * t));
}

gdouble
compare_welch (const GArray *a, const GArray *b)
{
    gdouble va = variance_of (a) / a->len, vb = variance_of (b) / b->len;
    gdouble diff = mean_of (b) - mean_of (a);

    if (va + vb <= 0)
        return diff == 0 ? 1.0 : 0.0;
    gdouble t = diff / sqrt (va + vb);
    gdouble df = (va + vb) * (va + vb)
                 / (va * va / (a->len - 1) + vb * vb / (b->len - 1));
    return student_two_sided (t, df);
}

static void
untested (CompareTest *test, CompareVerdict verdict, const char *why)
{
    test->verdict = verdict;
    test->why = why;
    test->p_value = 1.0;
}

void
compare_test_row (CompareRow *row, const CompareMethod *method)
{
    CompareTest *test = &row->test;
    const CompareSide *before = &row->side[0], *after = &row->side[1];

    memset (test, 0, sizeof *test);
    if (!before->present || !after->present) {
        untested (test, VERDICT_NOT_COMPARABLE, before->present ? "only in the baseline"
                                                                : "only in the current run");
        return;
    }
    if (!before->has_latency || !after->has_latency) {
        untested (test, VERDICT_UNTESTED, "no values to test");
        return;
    }
    if (before->series->len < MIN_BATCHES || after->series->len < MIN_BATCHES) {
        untested (test, VERDICT_UNTESTED, "fewer than 5 intervals with values");
        return;
    }
    test->batch = MAX (compare_batch_size (before->series, MIN_BATCHES),
                       compare_batch_size (after->series, MIN_BATCHES));
    g_autoptr (GArray) a = batch_means (before->series, test->batch);
    g_autoptr (GArray) b = batch_means (after->series, test->batch);
    test->batches[0] = a->len;
    test->batches[1] = b->len;
    if (a->len < MIN_BATCHES || b->len < MIN_BATCHES) {
        untested (test, VERDICT_UNTESTED, "fewer than 5 batches of intervals");
        return;
    }
    gdouble base = mean_of (a);
    test->change = base > 0 ? mean_of (b) / base - 1.0 : 0.0;
    test->p_value = compare_welch (a, b);
    test->verdict = VERDICT_SAME;
    if (test->p_value < method->alpha && fabs (test->change) >= method->min_change)
        test->verdict = test->change > 0 ? VERDICT_REGRESSED : VERDICT_IMPROVED;
}

void
compare_roll_up (CompareRow *row, GPtrArray *rows)
{
    guint regressed = 0, improved = 0, tested = 0;

    if (row->test.verdict == VERDICT_NOT_COMPARABLE)
        return;
    for (guint i = 0; i < rows->len; i++) {
        const CompareRow *step = rows->pdata[i];
        if ((step->kind != COMPARE_STEP && step->kind != COMPARE_GROUP)
            || (row->kind == COMPARE_SCENARIO && g_strcmp0 (step->scenario, row->scenario) != 0))
            continue;
        regressed += step->test.verdict == VERDICT_REGRESSED;
        improved += step->test.verdict == VERDICT_IMPROVED;
        tested += step->test.verdict == VERDICT_SAME || step->test.verdict == VERDICT_REGRESSED
                  || step->test.verdict == VERDICT_IMPROVED;
    }
    if (tested == 0)
        return;
    row->test.verdict = regressed > 0  ? VERDICT_REGRESSED
                        : improved > 0 ? VERDICT_IMPROVED
                                       : VERDICT_SAME;
    row->test.why = regressed > 0   ? "a step regressed"
                    : improved > 0  ? "a step improved, none regressed"
                                    : "no step changed significantly";
}
