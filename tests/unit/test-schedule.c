/* SPDX-License-Identifier: MIT */
/*
 * Tests of the schedule's maths (core/schedule.c), without a clock: when
 * users start in a ramp-up, when a ramping-users stage wants a user, when
 * an arrival is due in the constant and ramping arrival-rate executors,
 * and the think-time draws' bounds and mean.
 */
#include "schedule.h"

static void
scenario_clear (ThrongPlanScenario *scenario)
{
    g_clear_pointer (&scenario->stages, g_array_unref);
}

static void
add_stage (ThrongPlanScenario *scenario, gint64 duration_ms, gdouble target)
{
    ThrongStage stage = { .duration_us = duration_ms * 1000, .target = target };

    if (scenario->stages == NULL)
        scenario->stages = g_array_new (FALSE, FALSE, sizeof (ThrongStage));
    g_array_append_val (scenario->stages, stage);
}

static void
test_first_start (void)
{
    ThrongPlanScenario scenario = {
        .executor = THRONG_EXECUTOR_USERS, .users = 4, .ramp_up_us = 2 * G_USEC_PER_SEC,
    };

    /* User i of n starts at ramp_up * i / n. */
    g_assert_cmpint (throng_schedule_first_start (&scenario, 0), ==, 0);
    g_assert_cmpint (throng_schedule_first_start (&scenario, 1), ==, 500 * 1000);
    g_assert_cmpint (throng_schedule_first_start (&scenario, 3), ==, 1500 * 1000);
    scenario.ramp_up_us = 0;
    g_assert_cmpint (throng_schedule_first_start (&scenario, 3), ==, 0);

    /* Ramping users: when the rising level reaches id + 1; never past the peak. */
    scenario.executor = THRONG_EXECUTOR_RAMPING_USERS;
    add_stage (&scenario, 1000, 4);
    add_stage (&scenario, 1000, 0);
    g_assert_cmpint (throng_schedule_first_start (&scenario, 0), ==, 250 * 1000);
    g_assert_cmpint (throng_schedule_first_start (&scenario, 3), ==, 1000 * 1000);
    g_assert_cmpint (throng_schedule_first_start (&scenario, 4), ==, -1);
    scenario_clear (&scenario);
}

static void
test_stage_wants (void)
{
    ThrongPlanScenario scenario = { .executor = THRONG_EXECUTOR_RAMPING_USERS, .users = 4 };

    add_stage (&scenario, 1000, 4);    /* up to 4 over 1 s */
    add_stage (&scenario, 1000, 4);    /* hold */
    add_stage (&scenario, 1000, 0);    /* down to 0 */
    add_stage (&scenario, 1000, 2);    /* up to 2 again */

    g_assert_false (throng_schedule_stage_wants (&scenario, 1, 400 * 1000));
    g_assert_true (throng_schedule_stage_wants (&scenario, 1, 500 * 1000));
    g_assert_true (throng_schedule_stage_wants (&scenario, 3, 1500 * 1000));
    /* Ramping down: user 3 (the fourth) goes first, as soon as the level drops. */
    g_assert_false (throng_schedule_stage_wants (&scenario, 3, 2100 * 1000));
    g_assert_true (throng_schedule_stage_wants (&scenario, 0, 2700 * 1000));

    /* Wanted again when the last stage climbs back through its level. */
    g_assert_cmpint (throng_schedule_stage_next_wanted (&scenario, 1, 2600 * 1000), ==,
                     4000 * 1000);
    g_assert_cmpint (throng_schedule_stage_next_wanted (&scenario, 0, 3000 * 1000), ==,
                     3500 * 1000);
    /* Already wanted: now. */
    g_assert_cmpint (throng_schedule_stage_next_wanted (&scenario, 0, 1200 * 1000), ==,
                     1200 * 1000);
    /* User 2 (the third) never again after the hold. */
    g_assert_cmpint (throng_schedule_stage_next_wanted (&scenario, 2, 2600 * 1000), ==, -1);
    scenario_clear (&scenario);
}

static void
test_arrival_offset_constant (void)
{
    ThrongPlanScenario scenario = {
        .executor = THRONG_EXECUTOR_CONSTANT_RATE, .rate = 200.0, .duration_us = G_USEC_PER_SEC,
    };

    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 0), ==, 0);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 1), ==, 5000);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 199), ==, 995000);
    /* Exactly `rate × duration` arrivals: the 201st would be due at the end. */
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 200), ==, -1);
}

static void
test_arrival_offset_ramping (void)
{
    ThrongPlanScenario scenario = { .executor = THRONG_EXECUTOR_RAMPING_RATE, .rate = 0.0 };

    add_stage (&scenario, 1000, 200);  /* 0 → 200/s: 100 arrivals */
    add_stage (&scenario, 500, 200);   /* 200/s for 0.5 s: 100 more */

    /* On the ramp, arrival k is due when 100 t² reaches k: t = sqrt (k / 100). */
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 0), ==, 0);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 25), ==, 500 * 1000);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 100), ==, 1000 * 1000);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 150), ==, 1250 * 1000);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 199), ==, 1495 * 1000);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 200), ==, -1);
    /* Due times never go backwards. */
    for (guint64 k = 1; k < 200; k++)
        g_assert_cmpint (throng_schedule_arrival_offset (&scenario, k), >=,
                         throng_schedule_arrival_offset (&scenario, k - 1));
    scenario_clear (&scenario);
}

/* What the schedule wants at a time agrees with when users start and arrivals are due. */
static void
test_wanted (void)
{
    ThrongPlanScenario scenario = {
        .executor = THRONG_EXECUTOR_USERS, .users = 4, .ramp_up_us = 2 * G_USEC_PER_SEC,
        .duration_us = 10 * G_USEC_PER_SEC,
    };
    guint users;
    gdouble rate;

    /* Closed, ramp-up: user i of 4 starts at 0.5 s × i. */
    throng_schedule_wanted (&scenario, -1, &users, &rate);
    g_assert_cmpuint (users, ==, 0);
    throng_schedule_wanted (&scenario, 0, &users, &rate);
    g_assert_cmpuint (users, ==, 1);
    throng_schedule_wanted (&scenario, 499999, &users, &rate);
    g_assert_cmpuint (users, ==, 1);
    throng_schedule_wanted (&scenario, 500000, &users, &rate);
    g_assert_cmpuint (users, ==, 2);
    g_assert_cmpfloat (rate, ==, 0.0);
    /* Each user counts from the time throng_schedule_first_start() gives it. */
    for (guint id = 0; id < 4; id++) {
        gint64 start = throng_schedule_first_start (&scenario, id);
        throng_schedule_wanted (&scenario, start, &users, &rate);
        g_assert_cmpuint (users, ==, id + 1);
        if (start > 0) {
            throng_schedule_wanted (&scenario, start - 1, &users, &rate);
            g_assert_cmpuint (users, ==, id);
        }
    }
    throng_schedule_wanted (&scenario, 9 * G_USEC_PER_SEC, &users, &rate);
    g_assert_cmpuint (users, ==, 4);
    /* The scenario's end: nothing wanted. */
    throng_schedule_wanted (&scenario, 10 * G_USEC_PER_SEC, &users, &rate);
    g_assert_cmpuint (users, ==, 0);
    /* Bounded by iterations only: every user until they finish. */
    scenario.duration_us = 0;
    scenario.iterations = 5;
    throng_schedule_wanted (&scenario, (gint64) 3600 * G_USEC_PER_SEC, &users, &rate);
    g_assert_cmpuint (users, ==, 4);

    /* Ramping users: the stage level, as throng_schedule_stage_wants() reads it. */
    scenario = (ThrongPlanScenario) { .executor = THRONG_EXECUTOR_RAMPING_USERS, .users = 4 };
    add_stage (&scenario, 1000, 4);
    add_stage (&scenario, 1000, 0);
    for (gint64 t = 0; t < 2000 * 1000; t += 50 * 1000) {
        throng_schedule_wanted (&scenario, t, &users, &rate);
        for (guint id = 0; id < 4; id++)
            g_assert_cmpint (throng_schedule_stage_wants (&scenario, id, t), ==, id < users);
    }
    throng_schedule_wanted (&scenario, 1000 * 1000, &users, &rate);
    g_assert_cmpuint (users, ==, 4);
    throng_schedule_wanted (&scenario, 2000 * 1000, &users, &rate);
    g_assert_cmpuint (users, ==, 0);
    scenario_clear (&scenario);

    /* Constant rate, for its duration only. */
    scenario = (ThrongPlanScenario) { .executor = THRONG_EXECUTOR_CONSTANT_RATE, .users = 10,
                                      .rate = 200.0, .duration_us = G_USEC_PER_SEC };
    throng_schedule_wanted (&scenario, 999999, &users, &rate);
    g_assert_cmpfloat (rate, ==, 200.0);
    g_assert_cmpuint (users, ==, 0);
    throng_schedule_wanted (&scenario, G_USEC_PER_SEC, &users, &rate);
    g_assert_cmpfloat (rate, ==, 0.0);

    /* Ramping rate: from `rate`, linearly through the stages. */
    scenario = (ThrongPlanScenario) { .executor = THRONG_EXECUTOR_RAMPING_RATE, .users = 10,
                                      .rate = 100.0 };
    add_stage (&scenario, 1000, 200);  /* 100 → 200/s */
    add_stage (&scenario, 500, 200);   /* hold */
    throng_schedule_wanted (&scenario, 0, &users, &rate);
    g_assert_cmpfloat_with_epsilon (rate, 100.0, 1e-9);
    throng_schedule_wanted (&scenario, 500 * 1000, &users, &rate);
    g_assert_cmpfloat_with_epsilon (rate, 150.0, 1e-9);
    throng_schedule_wanted (&scenario, 1200 * 1000, &users, &rate);
    g_assert_cmpfloat_with_epsilon (rate, 200.0, 1e-9);
    throng_schedule_wanted (&scenario, 1500 * 1000, &users, &rate);
    g_assert_cmpfloat (rate, ==, 0.0);
    /* The rate's integral up to t is the number of arrivals due by then. */
    gdouble due = 0;
    for (gint64 t = 0; t < 1500 * 1000; t += 1000) {
        throng_schedule_wanted (&scenario, t, &users, &rate);
        due += rate / 1000.0;
    }
    g_assert_cmpfloat (ABS (due - 250.0), <, 0.1);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 249), >=, 0);
    g_assert_cmpint (throng_schedule_arrival_offset (&scenario, 250), ==, -1);
    scenario_clear (&scenario);
}

static void
test_think (void)
{
    g_autoptr (GRand) rand = g_rand_new_with_seed (42);
    ThrongThinkTime constant = { .kind = THRONG_THINK_CONSTANT, .min_us = 7000 };
    ThrongThinkTime uniform = { .kind = THRONG_THINK_UNIFORM, .min_us = 10000, .max_us = 20000 };
    ThrongThinkTime exponential = { .kind = THRONG_THINK_EXPONENTIAL, .min_us = 10000 };
    gdouble uniform_sum = 0, exponential_sum = 0;
    const guint n = 20000;

    g_assert_cmpint (throng_schedule_think (&constant, rand), ==, 7000);
    for (guint i = 0; i < n; i++) {
        gint64 u = throng_schedule_think (&uniform, rand);
        gint64 e = throng_schedule_think (&exponential, rand);
        g_assert_cmpint (u, >=, 10000);
        g_assert_cmpint (u, <=, 20000);
        g_assert_cmpint (e, >=, 0);
        uniform_sum += (gdouble) u;
        exponential_sum += (gdouble) e;
    }
    /* Means within 3% (a seeded draw: the same every run). */
    g_assert_cmpfloat (ABS (uniform_sum / n - 15000.0), <, 450.0);
    g_assert_cmpfloat (ABS (exponential_sum / n - 10000.0), <, 300.0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/schedule/first-start", test_first_start);
    g_test_add_func ("/schedule/stage-wants", test_stage_wants);
    g_test_add_func ("/schedule/arrival-offset/constant", test_arrival_offset_constant);
    g_test_add_func ("/schedule/arrival-offset/ramping", test_arrival_offset_ramping);
    g_test_add_func ("/schedule/wanted", test_wanted);
    g_test_add_func ("/schedule/think", test_think);
    return g_test_run ();
}
