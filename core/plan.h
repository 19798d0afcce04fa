/* SPDX-License-Identifier: MIT */
/*
 * The typed plan: what `throng run` executes, fully validated before any
 * load is sent.  Private to the core.
 */
#pragma once

#include <throng/throng.h>
#include "node-private.h"
#include "registry.h"

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

typedef struct {
    char *name;
    const ThrongNode *node;
    guint users;
    guint64 iterations;             /* per user; 0 when the scenario runs for a duration */
    gint64 duration_us;             /* 0 when the scenario runs for a number of iterations */
    gint64 ramp_up_us;
    gint64 think_time_us;           /* pause after each step */
    GPtrArray *steps;               /* ThrongPlanStep* */
    GPtrArray *protocols;           /* ThrongPlanProtocol* */
} ThrongPlanScenario;

typedef struct {
    char *name;
    const ThrongReporter *reporter;
    const ThrongNode *node;
    gpointer data;                  /* from reporter->configure */
} ThrongPlanReporter;

typedef struct {
    char *file;
    ThrongTree *tree;
    char *name;
    gboolean builtin_target;        /* `target: builtin` */
    GPtrArray *scenarios;           /* ThrongPlanScenario* */
    GPtrArray *reporters;           /* ThrongPlanReporter*; a console reporter when the plan names none */
} ThrongPlan;

typedef struct {
    const char *const *sets;        /* NULL-terminated `--set` assignments, applied in order */
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
 * plan's directory), every protocol's scenario and step options and every
 * reporter's options.  Errors are THRONG_PLAN_ERROR (exit 2), or
 * THRONG_REGISTRY_ERROR_LOAD when a plugin exists but was refused (exit 3),
 * or the start_target callback's error.
 */
ThrongPlan *throng_plan_load (const char *path, ThrongRegistry *registry,
                              const ThrongPlanLoadOptions *options, GError **error);
void throng_plan_free (ThrongPlan *plan);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongPlan, throng_plan_free)
