/* SPDX-License-Identifier: MIT */
/*
 * Parsing a scenario's schedule keys (executor, rate, stages, max_users,
 * start_after, think_time, pacing, graceful_stop) and the plan's
 * `saturation` limits.  Private to the core.
 */
#pragma once

#include "plan.h"

/*
 * Reads the schedule keys of scenario @map into @scenario, after the plain
 * keys (users, iterations, duration, ramp_up) are in it; checks that the
 * keys fit the executor.  Sets defaults (graceful_stop 10 s).
 */
gboolean throng_schedule_parse (const ThrongNode *map, ThrongPlanScenario *scenario,
                                GError **error);

/* "100ms", "100ms..300ms" (uniform) or "~100ms" (exponential, that mean). */
gboolean throng_schedule_parse_think (const ThrongNode *node, ThrongThinkTime *out,
                                      GError **error);

/* TRUE for the arrival-rate executors. */
gboolean throng_schedule_is_open (const ThrongPlanScenario *scenario);

/* `saturation: {cpu: 90%, lag: 10ms}`; @node may be NULL (the defaults). */
gboolean throng_schedule_parse_saturation (const ThrongNode *node, gdouble *cpu_share,
                                           gint64 *lag_us, GError **error);
