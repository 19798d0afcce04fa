/* SPDX-License-Identifier: MIT */
/*
 * A scenario's schedule: parsing its keys (executor, rate, stages,
 * max_users, start_after, think_time, pacing, graceful_stop) and the
 * plan's `saturation` limits, and the maths the workers run on it (when
 * a user starts, whether a stage wants it, when an arrival is due, how
 * long a user thinks).  Private to the core.
 */
#pragma once

#include "plan.h"

/* Limits a plan's scenarios share, whichever key sets them. */
#define THRONG_SCHEDULE_MAX_USERS 1000000
#define THRONG_SCHEDULE_MAX_LENGTH_US (G_GINT64_CONSTANT (30) * 24 * 3600 * G_USEC_PER_SEC)

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

/* "500/s", "30/m" or "2/h" into iterations per second. */
gboolean throng_schedule_parse_rate (const ThrongNode *node, gdouble *out, GError **error);

/* TRUE for the arrival-rate executors. */
gboolean throng_schedule_is_open (const ThrongPlanScenario *scenario);

/* `saturation: {cpu: 90%, lag: 10ms}`; @node may be NULL (the defaults). */
gboolean throng_schedule_parse_saturation (const ThrongNode *node, gdouble *cpu_share,
                                           gint64 *lag_us, GError **error);

/*
 * The schedule's maths.  Times are µs from the scenario's start; none of
 * these reads a clock, so each is a pure function of the plan.
 */

/* When user @id of a closed-model scenario begins its first iteration, or -1 when it never does. */
gint64 throng_schedule_first_start (const ThrongPlanScenario *scenario, guint id);

/* Whether a ramping-users scenario wants user @id at @t: the stage level has reached id + 1. */
gboolean throng_schedule_stage_wants (const ThrongPlanScenario *scenario, guint id, gint64 t);

/* The first time at or after @t when the stages want user @id, or -1 when they never do again. */
gint64 throng_schedule_stage_next_wanted (const ThrongPlanScenario *scenario, guint id, gint64 t);

/* When arrival @k (from 0) of an arrival-rate scenario is due, or -1 past its end. */
gint64 throng_schedule_arrival_offset (const ThrongPlanScenario *scenario, guint64 k);

/*
 * What the schedule wants at @t from the scenario's start: in a closed
 * model the users that should be running (*@users; *@rate is 0), in an
 * open model the iterations per second due (*@rate; *@users is 0).  Both
 * are 0 before the start (@t < 0) and from the scenario's end on; a
 * scenario bounded by iterations only wants all its users until they finish.
 */
void throng_schedule_wanted (const ThrongPlanScenario *scenario, gint64 t, guint *users,
                             gdouble *rate);

/* One draw of @think, from @rand (the caller's, so that no lock is needed). */
gint64 throng_schedule_think (const ThrongThinkTime *think, GRand *rand);
