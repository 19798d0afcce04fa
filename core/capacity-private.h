/* SPDX-License-Identifier: MIT */
/*
 * The `capacity` executor: an open-model scenario whose arrival rate is
 * not written in the plan but chosen, level by level, by a search on the
 * main thread for the highest rate that meets the scenario's `slo`
 * (docs/capacity.md).  Two halves meet in one small shared record, the
 * level: the search (main thread) publishes a rate and when it starts,
 * the workers' arrivals (arrivals.c) read it and take their exact share
 * of it, arrival k of the level going to shard k mod N as in every open
 * model.  A coordinator drives levels by publishing them the same way
 * (throng_capacity_level_set()) instead of the local search.  Private to
 * the core.
 */
#pragma once

#include "metrics.h"
#include "plan.h"

G_BEGIN_DECLS

/* The level the workers run: a rate from a start, until the next one replaces it. */
typedef struct {
    guint generation;           /* changes with every level published */
    gdouble rate;               /* the whole run's iterations per second; 0: a pause */
    gint64 start_us;            /* monotonic: arrival k of the level is due at start + k / rate */
    guint64 first_arrival;      /* ${arrival} of the level's arrival 0, less one */
    gboolean done;              /* the search is over: no more arrivals */
} ThrongCapacityStep;

/* A capacity scenario's settings and its live level (ThrongPlanScenario.capacity). */
typedef struct _ThrongCapacityPlan {
    gdouble start_rate;         /* `rate.start` */
    gdouble max_rate;           /* `rate.max` */
    gint64 step_us;             /* `step`: how long each level is held */
    gint64 warm_up_us;          /* `warm_up`: its first part, left out of the verdict */
    gdouble precision;          /* `precision`: stop when (failing − passing) / passing is below */
    const ThrongNode *slo;      /* the `slo` list, read into @objectives once the plan's
                                 * scenarios are known (plan.c) */
    ThrongThresholds *objectives;
    GMutex lock;                /* guards @level: written on the main thread, read by workers */
    ThrongCapacityStep level;
    gint published;             /* @level's generation, read without the lock */
} ThrongCapacityPlan;

/* Reads the capacity executor's keys of scenario @map into @scenario (schedule.c calls it). */
gboolean throng_capacity_parse (const ThrongNode *map, ThrongPlanScenario *scenario,
                                GError **error);
void throng_capacity_plan_free (ThrongCapacityPlan *plan);

/* The longest a search can last: every level it may hold, its pauses included. */
gint64 throng_capacity_plan_length (const ThrongCapacityPlan *plan);

/* The level now (any thread). */
void throng_capacity_level_get (ThrongCapacityPlan *plan, ThrongCapacityStep *out);

/* Updates @level to the published one when that changed (TRUE); cheap when it did not. */
gboolean throng_capacity_level_follow (ThrongCapacityPlan *plan, ThrongCapacityStep *level);

/*
 * Publishes a level: @rate from @start_us (monotonic), or the end of the
 * search (@done).  The search calls it; so would a coordinator's control
 * channel, with the level every shard must run.  A start before now is
 * moved to now; returns the start the level got.
 */
gint64 throng_capacity_level_set (ThrongCapacityPlan *plan, gdouble rate, gint64 start_us,
                                gboolean done);

/* The search, on the main thread. */
typedef struct _ThrongCapacity ThrongCapacity;

/* The search of @plan's capacity scenario, its first level published from @start_us; NULL
 * when the plan has none. */
ThrongCapacity *throng_capacity_new (ThrongPlan *plan, gint64 start_us);
void throng_capacity_free (ThrongCapacity *capacity);

/*
 * One complete interval's @snapshot (after the saturation verdict) and its
 * @interval metrics, ending at @now_us: the level's window grows, and at
 * the level's end it is judged and the next level published.
 */
void throng_capacity_tick (ThrongCapacity *capacity, const ThrongSummary *snapshot,
                           ThrongMetrics *interval, gint64 now_us);

/* Points @summary at the search's result (owned by @capacity) and adds its line to @warnings. */
void throng_capacity_finish (ThrongCapacity *capacity, ThrongSummary *summary,
                             GPtrArray *warnings);

G_END_DECLS
