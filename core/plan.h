/* SPDX-License-Identifier: MIT */
/*
 * The typed plan: what `throng run` executes, fully validated before any
 * load is sent.  The loader is the one place that turns the plan file,
 * its `--set` edits and the caller's reporters into a plan, thresholds
 * included.  Private to the core and the command line.
 */
#pragma once

#include <throng/throng.h>
#include "node-private.h"
#include "registry.h"
#include "shard.h"
#include "custom-metric-private.h"

/* What a failed step does next (docs/journeys.md, "When a step fails"). */
typedef enum {
    THRONG_ON_FAILURE_CONTINUE,         /* the next step, as if it had passed */
    THRONG_ON_FAILURE_NEXT_ITERATION,   /* the rest of the iteration is skipped */
    THRONG_ON_FAILURE_STOP_USER,        /* the user ends after this iteration's groups close */
    THRONG_ON_FAILURE_ABORT_RUN,        /* the whole run stops */
} ThrongOnFailure;

/*
 * A step with a row in the reports: a protocol request or a `group`.
 * Every one has an index in its scenario's steps, in plan order (a group
 * before its children): ThrongSample.step.
 */
typedef struct {
    char *label;                    /* `name`, the protocol's default label, or the group's name */
    const char *protocol_name;      /* the step's protocol key; "group" for a group */
    const ThrongProtocol *protocol; /* NULL for a group */
    const ThrongNode *node;         /* the step map */
    gpointer data;                  /* from protocol->step_new */
    gpointer scenario_data;         /* the protocol's data for this step's scenario */
    ThrongStepKind kind;
    gint parent;                    /* the enclosing group's index, or -1 */
    guint depth;                    /* how many groups enclose it */
    ThrongOnFailure on_failure;     /* its own, else its innermost group's, else the scenario's */
    guint retry_max;                /* request: sent again up to this many times when it fails */
    gint64 retry_backoff_us;        /* the wait before each retry */
    ThrongPlanRecords *records;     /* its `record:`, or NULL */
} ThrongPlanStep;

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

/* How deep groups, choose and repeat may nest (docs/plan-reference.md). */
#define THRONG_PLAN_MAX_NESTING 8

typedef enum {
    THRONG_ACTION_REQUEST,          /* run steps[step] */
    THRONG_ACTION_GROUP,            /* run the children, then record steps[step] as their transaction */
    THRONG_ACTION_SEQUENCE,         /* run the children (the scenario's steps, a branch of choose) */
    THRONG_ACTION_CHOOSE,           /* run one child, drawn by weight */
    THRONG_ACTION_REPEAT,           /* run the children `count` times */
    THRONG_ACTION_SET,              /* assign variables */
    THRONG_ACTION_PARALLEL,         /* run the children (requests) at most `count` at once, then record steps[step] */
    THRONG_ACTION_PAUSE,            /* wait `pause` on the user's timer; not a step: nothing recorded */
    THRONG_ACTION_IF,               /* run children[0] when `condition` holds, else children[1] if any */
    THRONG_ACTION_WHILE,            /* run the children while `condition` holds, at most `count` times */
    THRONG_ACTION_FOREACH,          /* run the children once per element of the list in `list_slot` */
} ThrongActionKind;

typedef struct _ThrongCondition ThrongCondition;

/*
 * What a user does in an iteration: a tree of these, read-only once the
 * plan has loaded, walked by user-steps.c with a stack of frames.
 */
typedef struct _ThrongAction ThrongAction;
struct _ThrongAction {
    ThrongActionKind kind;
    gboolean once;                  /* only in the user's first iteration */
    guint step;                     /* request, group: the index in the scenario's steps */
    ThrongAction **children;        /* group, sequence, repeat: the body; choose: the branches */
    guint n_children;
    guint64 count;                  /* repeat; while, foreach, parallel: its `max` */
    gboolean concurrent;            /* parallel: every child's protocol has step_run_concurrent */
    guint *cumulative;              /* choose: running sums of the branches' weights */
    guint total_weight;
    gint *slots;                    /* set: the variables, … */
    ThrongTemplate **values;        /* … their templates */
    guint n_values;
    ThrongThinkTime pause;          /* pause: how long (constant or uniform) */
    ThrongCondition *condition;     /* if, while */
    guint index_var;                /* repeat, foreach: the `as` variable's slot + 1; 0: none */
    gint list_slot;                 /* foreach: the variable holding the list */
};

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
    THRONG_EXECUTOR_CAPACITY,       /* open: a search for the highest rate meeting `slo` */
} ThrongExecutor;

/* One stage: reach @target (users, or iterations per second) linearly over @duration_us. */
typedef struct {
    gint64 duration_us;
    gdouble target;
} ThrongStage;

typedef struct _ThrongData ThrongData;

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
    ThrongAction *program;          /* a sequence: what each iteration runs */
    guint max_frames;               /* the deepest stack of containers the program needs, root included */
    gboolean has_choose;            /* some iteration may differ from the next: a choose, an if, a
                                     * while or a foreach (one that sent nothing may not end the user) */
    ThrongScope *scope;             /* variables and checks; after the protocols' data when freed */
    ThrongData *data;               /* `data:`, or NULL */
    guint64 first_user_id;          /* user.id of the scenario's user 0, minus one */
    guint n_groups;                 /* steps of kind group */
    guint max_parallel;             /* the most children any `parallel` runs at once; 0: none */
    ThrongStepInfo *step_info;      /* per step: kind, parent, depth (the summaries' journey) */
    gboolean keeps_vars;            /* `setup:`: its user's variables become ${setup.*} */
    gboolean phase;                 /* `setup:` or `teardown:`, not one of the plan's scenarios */
    struct _ThrongCapacityPlan *capacity; /* executor capacity: its settings and live level
                                           * (capacity-private.h); else NULL */
} ThrongPlanScenario;

/* The scenario's length from its own start (duration, or the sum of its stages); 0 when unbounded in time. */
gint64 throng_plan_scenario_length (const ThrongPlanScenario *scenario);

typedef struct {
    char *name;
    const ThrongReporter *reporter;
    const ThrongNode *node;
    gpointer data;                  /* from reporter->configure */
    /* The reporter's `filter:` (reporter-filter-private.h), or NULL: every sample. */
    struct _ThrongReporterFilter *filter;
    ThrongNode *options;            /* owned: the options without `filter`, or NULL */
} ThrongPlanReporter;

/* What templates share across the plan (template-private.h). */
typedef struct _ThrongPlanVars ThrongPlanVars;

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
    ThrongPlanVars *vars;           /* the environment and counters templates share */
    ThrongShard shard;              /* --shard: the part of the plan this process runs */
    char *shard_hash;               /* throng_shard_plan_hash() of the plan with `${env.*}`
                                     * expanded, `${builtin.*}` not */
    GPtrArray *metrics;             /* ThrongPlanMetric*: the plan's own (`metrics:`); never NULL */
    ThrongPlanScenario *setup;      /* `setup:` as one user's one iteration, or NULL (phase.c) */
    ThrongPlanScenario *teardown;   /* `teardown:`, or NULL */
} ThrongPlan;

/*
 * A reporter the caller adds after the plan's own (the command line's
 * `--out NAME=PATH`), configured and checked like them.
 */
typedef struct {
    const char *name;               /* the reporter plugin's */
    const ThrongNode *options;      /* a map, in a tree that outlives the plan */
    const char *origin;             /* what its errors begin with: "--out csv=x.csv" */
} ThrongPlanOutput;

/* What the command line adds to the plan file; a zeroed struct adds nothing. */
typedef struct {
    /*
     * Called with the plan's tree as read from the file, before anything
     * reads it, to edit it (the command line's `--set`); may be NULL.
     * FALSE with @error set stops the load.
     */
    gboolean (*edit) (ThrongTree *tree, gpointer data, GError **error);
    gpointer edit_data;
    const ThrongPlanOutput *outputs; /* ended by one whose name is NULL; may be NULL */
    gboolean validate_only;         /* passed to every protocol's scenario_new */
    /* NULL-terminated `-e NAME=VALUE`: what `${env.NAME}` reads before the environment */
    const char *const *envs;
    /*
     * What `${builtin.http}` and `${builtin.https}` expand to in a plan
     * that says `target: builtin`: the base URLs of the target the caller
     * started.
     * NULL, or under validate_only: "http://127.0.0.1:1" and
     * "https://127.0.0.1:1".  The loader starts nothing.
     */
    const char *builtin_http;
    const char *builtin_https;
} ThrongPlanLoadOptions;

/*
 * Loads and validates @path: YAML, the caller's edit, `${builtin.http}` and
 * `${builtin.https}`, every key and value, plugins found through
 * @registry (the plan's plugin_path is added to it first, relative to the
 * plan's directory), every protocol's scenario and step options, every
 * reporter's options (--out reporters included) and every threshold.
 * Errors are THRONG_PLAN_ERROR (exit 2), or THRONG_REGISTRY_ERROR_LOAD
 * when a plugin exists but was refused (exit 3).
 */
ThrongPlan *throng_plan_load (const char *path, ThrongRegistry *registry,
                              const ThrongPlanLoadOptions *options, GError **error);

/*
 * One warning a step whose label an earlier step of its scenario has
 * (`FILE:LINE:COLUMN: warning: …`): reporters keep the two apart by their
 * step_id (docs/reporters.md), but a filter's `steps` that names the label
 * keeps both, and a top-level threshold cannot name it.  For `throng
 * validate`; (transfer full), possibly empty.
 */
GPtrArray *throng_plan_label_warnings (const ThrongPlan *plan);
void throng_plan_free (ThrongPlan *plan);

/*
 * Makes @plan run only @shard of itself (shard.c); fails when an
 * open-model pool (max_users) is smaller than the number of shards.
 */
gboolean throng_plan_set_shard (ThrongPlan *plan, const ThrongShard *shard, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongPlan, throng_plan_free)
