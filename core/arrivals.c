/* SPDX-License-Identifier: MIT */
/*
 * Open-model arrivals on one worker: a reactor timer that, at each
 * arrival's due time, takes an idle user from the scenario's pool and
 * begins its iteration, or counts the arrival as dropped when every user
 * is busy.  Arrival k of a scenario belongs to shard k mod N (shard.h);
 * the shard's j-th arrival (k = j × N + I) belongs to the worker that owns
 * the shard's pool slot j mod pool, so shards and workers share one
 * schedule, the unsharded one, without talking to each other.  Under
 * executor capacity the schedule is the level the search publishes
 * (capacity-private.h): arrival k of a level is due at its start plus
 * k / rate, numbered from 0 again in each level, split the same way.
 */
#include "arrivals-private.h"

#include "capacity-private.h"
#include "schedule.h"
#include "template-private.h"
#include "user-private.h"
#include "worker-private.h"

/* Arrivals started in one dispatch before the loop gets a turn. */
#define ARRIVAL_BUDGET 256
/* Executor capacity: how soon a new level is seen, whatever the old level's pace. */
#define LEVEL_POLL_US (10 * 1000)

struct _ThrongArrivals {
    ThrongWorker *worker;
    const ThrongPlanScenario *scenario;
    guint scenario_index;
    guint first_slot;           /* the worker owns the shard's slots first_slot + n * workers */
    guint n_workers;
    guint pool;                 /* the shard's users of the scenario's pool */
    guint shard_index;
    guint shard_count;
    gint64 start_us;
    gint64 end_us;
    guint64 next;               /* the next arrival's index j, counted over the shard's arrivals */
    gboolean done;
    GPtrArray *idle;            /* ThrongUser*, not owned */
    ThrongReactorTimer timer;
    ThrongCapacityPlan *capacity; /* executor capacity: where the levels come from; else NULL */
    ThrongCapacityStep level;   /* the level followed */
};

static gboolean
arrivals_owns (const ThrongArrivals *arrivals, guint64 j)
{
    guint slot = (guint) (j % arrivals->pool);

    return slot >= arrivals->first_slot && (slot - arrivals->first_slot) % arrivals->n_workers == 0;
}

static void
arrivals_finish (ThrongArrivals *arrivals)
{
    arrivals->done = TRUE;
    throng_reactor_timer_cancel (&arrivals->timer);
    /* Idle users end now; busy ones when their iteration does. */
    while (arrivals->idle->len > 0)
        throng_user_finish (g_ptr_array_index (arrivals->idle, arrivals->idle->len - 1), TRUE);
}

/* Executor capacity: follows the level the search publishes; FALSE once the search is over. */
static gboolean
arrivals_follow_level (ThrongArrivals *arrivals)
{
    /* Arrivals of the old level not yet started are not started. */
    if (throng_capacity_level_follow (arrivals->capacity, &arrivals->level))
        arrivals->next = arrivals->first_slot;
    return !arrivals->level.done;
}

/* When arrival @k is due (monotonic): 0 to wait for a level, -1 when none will come. */
static gint64
arrivals_due (const ThrongArrivals *arrivals, guint64 k)
{
    if (arrivals->capacity != NULL) {
        if (arrivals->level.rate <= 0)
            return 0;
        return arrivals->level.start_us
               + (gint64) ((gdouble) k / arrivals->level.rate * G_USEC_PER_SEC);
    }
    gint64 offset = throng_schedule_arrival_offset (arrivals->scenario, k);
    return offset < 0 ? -1 : arrivals->start_us + offset;
}

static void
arrivals_fired (ThrongReactorTimer *timer, gpointer data)
{
    ThrongArrivals *arrivals = data;
    ThrongWorker *worker = arrivals->worker;
    gint64 now = g_get_monotonic_time ();

    /* Ready in the same loop iteration as the worker's last user ending. */
    if (arrivals->done || worker->finished)
        return;
    if (arrivals->capacity != NULL && !arrivals_follow_level (arrivals)) {
        arrivals_finish (arrivals);
        return;
    }

    for (guint budget = ARRIVAL_BUDGET; budget > 0; budget--) {
        if (worker->stopping) {
            arrivals_finish (arrivals);
            return;
        }
        /* The shard's j-th arrival is arrival j × N + I of the unsharded schedule. */
        guint64 k = arrivals->next * arrivals->shard_count + arrivals->shard_index;
        gint64 due = arrivals_due (arrivals, k);
        if (due < 0 || due >= arrivals->end_us) {
            arrivals_finish (arrivals);
            return;
        }
        if (due == 0 || due > now) {
            throng_reactor_timer_arm (timer, arrivals->capacity == NULL ? due
                                             : due == 0 ? now + LEVEL_POLL_US
                                                        : MIN (due, now + LEVEL_POLL_US));
            return;
        }
        do
            arrivals->next++;
        while (!arrivals_owns (arrivals, arrivals->next));

        throng_histogram_record (worker->metrics->lag, now - due);
        if (arrivals->idle->len == 0) {
            /* Every user of the pool is busy: the iteration is not run, and
             * says so, rather than start late and hide the delay. */
            worker->metrics->dropped[arrivals->scenario_index]++;
            continue;
        }
        ThrongUser *user = g_ptr_array_steal_index_fast (arrivals->idle, arrivals->idle->len - 1);
        /* ${arrival}: k from 1, the same number whichever shard runs it. */
        throng_user_get_vars (user)->arrival = arrivals->level.first_arrival + k + 1;
        throng_user_arrive (user, due);
    }
    /* The budget is spent: the rest after the loop's other work. */
    throng_reactor_timer_arm (timer, 0);
}

ThrongArrivals *
throng_arrivals_new (ThrongWorker *worker, guint scenario_index, guint first_user,
                     gint64 start_us, gint64 end_us)
{
    ThrongArrivals *arrivals = g_new0 (ThrongArrivals, 1);

    arrivals->worker = worker;
    arrivals->scenario = g_ptr_array_index (worker->setup.plan->scenarios, scenario_index);
    arrivals->scenario_index = scenario_index;
    throng_shard_get (&worker->setup.plan->shard, &arrivals->shard_index, &arrivals->shard_count);
    arrivals->pool = throng_shard_users (&worker->setup.plan->shard, arrivals->scenario->users);
    /* User ids are global (shard.h): the shard's slot of user u is (u − I) / N. */
    arrivals->first_slot = (first_user - arrivals->shard_index) / arrivals->shard_count;
    arrivals->n_workers = worker->setup.n_workers;
    arrivals->start_us = start_us;
    arrivals->end_us = end_us;
    arrivals->next = arrivals->first_slot;
    arrivals->idle = g_ptr_array_new ();
    arrivals->capacity = arrivals->scenario->capacity;
    throng_reactor_timer_init (&arrivals->timer, worker->reactor, arrivals_fired, arrivals);
    throng_reactor_timer_arm (&arrivals->timer, start_us);
    return arrivals;
}

void
throng_arrivals_free (gpointer data)
{
    ThrongArrivals *arrivals = data;

    throng_reactor_timer_cancel (&arrivals->timer);
    g_ptr_array_unref (arrivals->idle);
    g_free (arrivals);
}

guint
throng_arrivals_get_scenario (const ThrongArrivals *arrivals)
{
    return arrivals->scenario_index;
}

void
throng_arrivals_put (ThrongArrivals *arrivals, ThrongUser *user)
{
    g_ptr_array_add (arrivals->idle, user);
}

void
throng_arrivals_remove (ThrongArrivals *arrivals, ThrongUser *user)
{
    g_ptr_array_remove_fast (arrivals->idle, user);
}

void
throng_arrivals_stop (ThrongArrivals *arrivals)
{
    arrivals->done = TRUE;
}

gboolean
throng_arrivals_is_done (const ThrongArrivals *arrivals)
{
    return arrivals->done;
}
