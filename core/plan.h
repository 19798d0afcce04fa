/* SPDX-License-Identifier: MIT */
/*
 * The typed plan: what `throng run` executes, fully validated before any
 * load is sent.  The loader is the one place that turns the plan file,
 * the command line's `--set` and `--out` and its run flags into a plan,
 * thresholds included.  Private to the core.
 */
#pragma once

#include <throng/throng.h>
#include "node-private.h"
#include "registry.h"
#include "shard.h"

typedef struct {
    char *label;                    /* `name`, or the protocol's default label */
    const char *protocol_name;      /* the step's protocol key */
    const ThrongProtocol *protocol;
    const ThrongNode *node;         /* the step map */
    gpointer data;                  /* from protocol->step_new */
    gpointer scenario_data;         /* the protocol's data for this step's scenario */
} ThrongPlanStep;

/* The protocol data of one scenario, one per protocol its steps use. */
typedef struct {
    const ThrongProtocol *protocol;
    gpointer data;                  /* from protocol->scenario_new */
} ThrongPlanProtocol;

/* How a scenario's iterations are started (docs/workload-models.md). */
typedef enum {
    THRONG_EXECUTOR_USERS,          /* closed: `users` for `iterations` or a `duration` (default) */
    THRONG_EXECUTOR_RAMPING_USERS,  /* closed: `stages` of user counts */
    THRONG_EXECUTOR_CONSTANT_RATE,  /* open: `rate` iterations per second for `duration` */
    THRONG_EXECUTOR_RAMPING_RATE,   /* open: `stages` of rates, from `rate` (default 0) */
} ThrongExecutor;

/* One stage: reach @target (users, or iterations per second) linearly over @duration_us. */
typedef struct {
    gint64 duration_us;
    gdouble target;
} ThrongStage;

typedef enum {
    THRONG_THINK_CONSTANT,      /* min_us */
    THRONG_THINK_UNIFORM,       /* uniformly in [min_us, max_us] ("100ms..300ms") */
    THRONG_THINK_EXPONENTIAL,   /* exponentially distributed with mean min_us ("~100ms") */
} ThrongThinkKind;

typedef struct {
    ThrongThinkKind kind;
    gint64 min_us;
    gint64 max_us;
} ThrongThinkTime;

typedef struct {
    char *name;
    const ThrongNode *node;
    guint users;                    /* closed models: users (largest stage); open: max_users */
    guint64 iterations;             /* per user; 0 when the scenario runs for a duration */
    gint64 duration_us;             /* 0 when the scenario runs for a number of iterations */
    gint64 ramp_up_us;
    gint64 think_time_us;           /* pause after each step */
    GPtrArray *steps;               /* ThrongPlanStep* */
    GPtrArray *protocols;           /* ThrongPlanProtocol* */
    ThrongExecutor executor;
    GArray *stages;                 /* ThrongStage; NULL unless a ramping executor */
    gdouble rate;                   /* per second: constant rate, or a ramp's start rate */
    gint64 start_after_us;          /* offset of the scenario's start from the run's */
    ThrongThinkTime think;          /* think_time_us is think.min_us */
    gint64 pacing_us;               /* minimum length of an iteration; 0: none */
    gint64 graceful_stop_us;        /* how long iterations in flight may run past the end */
} ThrongPlanScenario;

/* The scenario's length from its own start (duration, or the sum of its stages); 0 when unbounded in time. */
gint64 throng_plan_scenario_length (const ThrongPlanScenario *scenario);

typedef struct {
    char *name;
    const ThrongReporter *reporter;
    const ThrongNode *node;
    gpointer data;                  /* from reporter->configure */
} ThrongPlanReporter;

/* The plan's pass/fail conditions, parsed with it (threshold.h). */
typedef struct _ThrongThresholds ThrongThresholds;

typedef struct {
    char *file;
    ThrongTree *tree;
    char *name;
    gboolean builtin_target;        /* `target: builtin` */
    GPtrArray *scenarios;           /* ThrongPlanScenario* */
    GPtrArray *reporters;           /* ThrongPlanReporter*: the plan's (a console when it names
                                     * none), then those of `--out` */
    gdouble saturation_cpu;         /* `saturation.cpu`: share of the workers' cores (default 0.9) */
    gint64 saturation_lag_us;       /* `saturation.lag`: scheduling lag p99 (default 10 ms) */
    ThrongThresholds *thresholds;   /* every `thresholds` list of the plan; never NULL */
    guint workers;                  /* --workers; 0: the number of CPUs */
    gboolean quiet;                 /* --quiet: no live progress */
    gboolean overwrite;             /* --overwrite: reporters may replace result files */
    ThrongShard shard;              /* --shard: the part of the plan this process runs */
} ThrongPlan;

/* What the command line adds to the plan file; a zeroed struct adds nothing. */
typedef struct {
    const char *const *sets;        /* NULL-terminated `--set PATH=VALUE`, applied in order */
    /*
     * NULL-terminated `--out NAME=PATH` as given: the reporter NAME with
     * the options {path: PATH}, configured like the plan's own; errors
     * name the option ("--out x: expected NAME=PATH, …").
     */
    const char *const *outs;
    guint workers;                  /* copied to the plan */
    gboolean quiet;                 /* copied to the plan */
    gboolean overwrite;             /* copied to the plan */
    gboolean validate_only;         /* passed to every protocol's scenario_new */
    /*
     * Called once when the plan says `target: builtin` (and not
     * validate_only), before any protocol sees its options: starts the
     * target and returns its base URLs (transfer full).  Under
     * validate_only the variables expand to "http://127.0.0.1:1" and
     * "https://127.0.0.1:1".
     */
    gboolean (*start_target) (gpointer data, char **http_url, char **https_url, GError **error);
    gpointer start_target_data;
} ThrongPlanLoadOptions;

/*
 * Loads and validates @path: YAML, --set overrides, `${builtin.http}` and
 * `${builtin.https}`, every key and value, plugins found through
 * @registry (the plan's plugin_path is added to it first, relative to the
 * plan's directory), every protocol's scenario and step options, every
 * reporter's options (--out reporters included) and every threshold.
 * Errors are THRONG_PLAN_ERROR (exit 2), or THRONG_REGISTRY_ERROR_LOAD
 * when a plugin exists but was refused (exit 3), or the start_target
 * callback's error.
 */
ThrongPlan *throng_plan_load (const char *path, ThrongRegistry *registry,
                              const ThrongPlanLoadOptions *options, GError **error);
void throng_plan_free (ThrongPlan *plan);

/*
 * Makes @plan run only @shard of itself (shard.c); fails when an
 * open-model pool (max_users) is smaller than the number of shards.
 */
gboolean throng_plan_set_shard (ThrongPlan *plan, const ThrongShard *shard, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongPlan, throng_plan_free)
