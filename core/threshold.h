/* SPDX-License-Identifier: MIT */
/*
 * Thresholds: pass/fail conditions on a run's figures, written in the plan
 * as "SUBJECT.METRIC OP VALUE" ("checkout.p99 < 200ms",
 * "total.errors.rate < 1%") at the top level, or "METRIC OP VALUE" inside
 * a scenario or a step, where the subject is that scenario or step.
 * Parsed and checked when the plan loads; evaluated against the final
 * summary.  Private to the core.
 */
#pragma once

#include "plan.h"

/* ThrongThresholds is declared in plan.h: the plan holds its thresholds. */

/*
 * What a threshold may name: the run's scenarios and, per scenario, its
 * steps' labels and protocols (NULL-terminated).  The plan gives them when
 * it loads, `throng merge` from the shards' summary: thresholds judge a
 * summary of that shape, whoever made it.
 */
typedef struct {
    guint n_scenarios;
    const char *const *scenario_names;
    const char *const *const *step_labels;
    const char *const *const *step_protocols;
    /* the plan's own metrics (`metrics:`): "NAME.FIGURE" names one of them */
    guint n_metrics;
    const char *const *metric_names;
    const ThrongCustomMetricKind *metric_kinds;
} ThrongThresholdSubjects;

ThrongThresholds *throng_thresholds_new (void);

/*
 * Adds the thresholds of @list (a `thresholds` sequence; NULL adds none),
 * written at the top level (@scenario and @step -1), in scenario
 * @scenario, or in its step @step.  Errors are located plan errors:
 * unknown subject or metric, bad operator, a value of the wrong kind
 * ("p99 < 5%").
 */
gboolean throng_thresholds_add_list (ThrongThresholds *thresholds,
                                     const ThrongThresholdSubjects *subjects,
                                     const ThrongNode *list, gint scenario, gint step,
                                     GError **error);
/* Every `thresholds` list of @plan (top level, scenarios, steps); plan.c. */
ThrongThresholds *throng_thresholds_load (ThrongPlan *plan, GError **error);
void throng_thresholds_free (ThrongThresholds *thresholds);
guint throng_thresholds_count (const ThrongThresholds *thresholds);

/* Evaluates every threshold against @summary; returns the results (n = count). */
const ThrongThresholdResult *throng_thresholds_evaluate (ThrongThresholds *thresholds,
                                                         const ThrongSummary *summary);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongThresholds, throng_thresholds_free)
