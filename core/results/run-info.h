/* SPDX-License-Identifier: MIT */
/*
 * What reporters are told about a run before it starts (ThrongRunInfo),
 * built from a loaded plan, and the memory it points to.  Private to the
 * core.
 */
#pragma once

#include "plan.h"

G_BEGIN_DECLS

typedef struct {
    ThrongRunInfo info;
    GPtrArray *scenario_names;
    guint *scenario_users;      /* this shard's share of each scenario's users */
    GPtrArray *step_labels;     /* char** per scenario (shallow, NULL-terminated) */
    GPtrArray *step_protocols;
    GPtrArray *scenario_targets; /* char*, owned, NULL where unknown */
    GPtrArray *step_info;       /* const ThrongStepInfo*, the plan's */
} ThrongRunInfoBuffer;

/*
 * Everything @plan decides, the planned length included (0 when a
 * scenario is not bounded in time); workers, overwrite and quiet are the
 * caller's.  The buffer points into @plan, which must outlive it.
 */
void throng_run_info_buffer_fill (ThrongRunInfoBuffer *buffer, const ThrongPlan *plan);
void throng_run_info_buffer_clear (ThrongRunInfoBuffer *buffer);

G_END_DECLS
