/* SPDX-License-Identifier: MIT */
/*
 * A run's file written without running anything, for `throng compare`:
 * the json reporter itself is loaded and handed intervals and a summary
 * (the intervals add up to it) whose latencies follow from a seed, a
 * scale per step and a drift shared by neighbouring intervals, so that
 * two files can differ in exactly one step, one flag or one plan hash,
 * and the comparison's outputs are the same bytes every time.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * What to write; zero-initialise and set what you need.
 *
 * @path: the file (overwritten).
 * @summary_only: a `mode: summary` document (no intervals); else jsonl.
 * @intervals: interval lines, one a second; 0: 20.
 * @plan_sha256: NULL: "synthetic-plan".
 * @seed: the pseudo-random values' seed.
 * @n_steps: steps "step 01"… of scenario "shop" (their latencies about
 *   10 ms × their number); 0: 2.
 * @scale: NULL, or @n_steps factors on each step's latencies.
 * @labels: NULL, or @n_steps labels in place of "step 01"… (two may be
 *   one label, as a HAR import's two `GET /static/app.css`).
 * @group: the steps are inside a group "browse" (its latency their sum).
 * @errors_every: 0, or the first step fails every Nth request.
 * @check: NULL, or a check "status is 200" that fails with the errors.
 * @metric: a trend metric "cart_ms" recorded once per iteration.
 * @saturated, @interrupted: the summary says so.
 * @no_summary: the summary line is left out (a run killed before its end).
 */
typedef struct {
    const char *path;
    gboolean summary_only;
    guint intervals;
    const char *plan_sha256;
    guint seed;
    guint n_steps;
    const gdouble *scale;
    const char *const *labels;
    gboolean group;
    guint errors_every;
    gboolean check;
    gboolean metric;
    gboolean saturated;
    gboolean interrupted;
    gboolean no_summary;
} ThrongTestRunSpec;

void throng_test_run_write (const ThrongTestRunSpec *spec);

G_END_DECLS
