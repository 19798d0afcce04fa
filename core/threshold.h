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
 * Reads every `thresholds` list of @plan's tree (top level, scenarios,
 * steps); the plan loader calls it once its scenarios and steps are read.  Errors are located plan errors: unknown subject or metric, bad
 * operator, a value of the wrong kind ("p99 < 5%").
 */
ThrongThresholds *throng_thresholds_load (ThrongPlan *plan, GError **error);
void throng_thresholds_free (ThrongThresholds *thresholds);
guint throng_thresholds_count (const ThrongThresholds *thresholds);

/* Evaluates every threshold against @summary; returns the results (n = count). */
const ThrongThresholdResult *throng_thresholds_evaluate (ThrongThresholds *thresholds,
                                                         const ThrongSummary *summary);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongThresholds, throng_thresholds_free)
