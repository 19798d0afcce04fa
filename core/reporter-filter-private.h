/* SPDX-License-Identifier: MIT */
/*
 * A reporter's `filter:`: which samples reach its `samples` hook.  Read
 * with the reporter's options when the plan loads (names checked against
 * the plan's scenarios and steps), applied on the main thread to each
 * batch before it is handed over.  Private to the core.
 */
#pragma once

#include "plan.h"

typedef struct _ThrongReporterFilter ThrongReporterFilter;

/*
 * Reads the `filter` map @node for the reporter @name of @plan (whose
 * scenarios are already read).  NULL with a located THRONG_PLAN_ERROR for
 * an unknown key, an unknown scenario or step (with the nearest name),
 * a bad percentage, or a filter that selects nothing.
 */
ThrongReporterFilter *throng_reporter_filter_new (const ThrongPlan *plan, const ThrongNode *node,
                                                  GError **error);
void throng_reporter_filter_free (ThrongReporterFilter *filter);

/*
 * The samples of @samples (@n of them) that @filter keeps, in their
 * order, in storage the filter owns and reuses (valid until its next
 * call); their number in *@n_kept.  Deterministic: a sample is kept or
 * not by its own fields, whatever batch it arrives in.
 */
const ThrongSample *throng_reporter_filter_apply (ThrongReporterFilter *filter,
                                                  const ThrongSample *samples, gsize n,
                                                  gsize *n_kept);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongReporterFilter, throng_reporter_filter_free)
