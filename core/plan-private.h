/* SPDX-License-Identifier: MIT */
/*
 * What the plan loader's files share while one plan loads: the loader's
 * state and the helpers every part of the plan needs (finding a plugin
 * with a located error, checking a protocol's options).  plan.c runs the
 * load; plan-scenario.c reads scenarios and steps, plan-reporter.c the
 * reporters (the caller's too).  Never installed, never included outside
 * the loader.
 */
#pragma once

#include "plan.h"

/*
 * The plan as the caller sees it, plus what only the loader needs to
 * keep: the trees behind reporters' options that no plan file holds (the
 * default console's empty map, the `--out` reporters' {path: PATH}).
 */
typedef struct {
    ThrongPlan plan;
    GPtrArray *option_trees; /* ThrongTree*, owned */
} ThrongPlanPrivate;

typedef struct {
    ThrongPlan *plan;
    ThrongRegistry *registry;
    gboolean validate_only;
    const ThrongNode *defaults; /* the `defaults` map, or NULL */
    char *http_url;
    char *https_url;
    GHashTable *scenario_names; /* name → the node that gave it */
    const ThrongNode *fragments; /* the `fragments` map, or NULL */
    GHashTable *fragments_used; /* names of the fragments some `use` step named */
    GPtrArray *fragments_open;  /* the fragments being read, outermost first: a cycle's path */
} ThrongPlanLoader;

/* ---- plan.c: plugins ------------------------------------------------------- */

/*
 * Hands @local (a registry error, consumed) up: a NOT_FOUND becomes a plan
 * error at @at, "PREFIX no plugin libthrong-NAME.so in DIRS; did you mean
 * …?", where a NULL @prefix is "unknown protocol 'NAME':" (or reporter);
 * anything else (a plugin that exists but was refused) goes up as it is.
 */
void throng_plan_plugin_error (ThrongPlanLoader *loader, const ThrongNode *at,
                               ThrongPluginKind kind, const char *name, const char *prefix,
                               GError *local, GError **error);
/*
 * What to tell a user who named @name, a plugin of @kind that does not
 * exist: "; did you mean 'NEAR'?", or for a reporter "; available
 * reporters: A, B", or "".  NULL, with *@other_kind set, when @name is a
 * plugin of the other kind.
 */
char *throng_plan_plugin_hint (ThrongPlanLoader *loader, ThrongPluginKind kind, const char *name,
                               gboolean *other_kind);
/* The protocol named by the scalar @key, or NULL with a located error. */
const ThrongProtocol *throng_plan_find_protocol (ThrongPlanLoader *loader, const ThrongNode *key,
                                                 GError **error);
/* The map given for a protocol, or NULL when it is absent or empty (`http:`). */
const ThrongNode *throng_plan_protocol_map (const ThrongNode *node);
/* Checks a protocol's defaults and @options where no step of a scenario uses it. */
gboolean throng_plan_check_unused_protocol (ThrongPlanLoader *loader,
                                            const ThrongProtocol *protocol, const char *name,
                                            const ThrongNode *options, GError **error);

/* The loader's own tree for options no plan file holds; owned by the plan. */
ThrongTree *throng_plan_keep_tree (ThrongPlan *plan, ThrongTree *tree);

/* ---- plan-scenario.c ---------------------------------------------------------- */

/* The entry of @protocol in @scenario's protocols, or NULL. */
ThrongPlanProtocol *throng_plan_scenario_protocol (ThrongPlanScenario *scenario,
                                                  const ThrongProtocol *protocol);

/*
 * Each protocol @scenario's steps use sees the scenario once, then each of
 * its steps; then the scope is finished (reads of names nothing assigns).
 */
gboolean throng_plan_build_steps (ThrongPlanLoader *loader, ThrongPlanScenario *scenario,
                                  GError **error);

/* plan-phase.c: `setup:` or `teardown:` (@key) at @node, when given, into *@out. */
gboolean throng_plan_read_phase (ThrongPlanLoader *loader, const ThrongNode *node,
                                 const char *key, ThrongPlanScenario **out, GError **error);

/* ---- plan-steps.c ------------------------------------------------------------- */

/*
 * Reads @steps (a non-empty list) into @scenario's program and steps,
 * declaring its protocols (whose options build_steps reads later).
 */
gboolean throng_plan_read_steps (ThrongPlanLoader *loader, ThrongPlanScenario *scenario,
                                 const ThrongNode *steps, GError **error);
void throng_plan_action_free (ThrongAction *action);

/*
 * What reads a list of steps, shared by plan-steps.c (requests, groups,
 * set, pause, parallel, use) and plan-control.c (choose, if, repeat,
 * while, foreach).  @parent is the enclosing group's step, @groups how
 * many groups enclose, @nesting how many levels are open.
 */
typedef struct {
    ThrongPlanLoader *loader;
    ThrongPlanScenario *scenario;
    ThrongOnFailure on_failure; /* what the groups around the step being read say, or the scenario */
} ThrongStepReader;

#define THRONG_PLAN_MAX_REPEAT 1000000

gboolean throng_plan_read_step_list (ThrongStepReader *reader, const ThrongNode *list, gint parent,
                                     guint groups, guint nesting, ThrongAction *into,
                                     GError **error);
void throng_plan_action_add_child (ThrongAction *into, ThrongAction *child);
/* The `steps:` of @node (a step or a control's map), or NULL with "'CONTROL' needs 'steps'". */
const ThrongNode *throng_plan_step_body (const ThrongNode *node, const char *control,
                                         GError **error);

/* plan-failure.c: `on_failure: NAME` at @node into *@out, untouched when @node has none. */
gboolean throng_plan_read_on_failure (const ThrongNode *node, ThrongOnFailure *out,
                                      GError **error);
/* `retry: {max, backoff}` beside the request @node, into @step. */
gboolean throng_plan_read_retry (const ThrongNode *node, ThrongPlanStep *step, GError **error);

/* plan-control.c: each reads the control step @node into @action. */
gboolean throng_plan_read_choose (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                                  guint groups, guint nesting, ThrongAction *action,
                                  GError **error);
gboolean throng_plan_read_if (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                              guint groups, guint nesting, ThrongAction *action, GError **error);
gboolean throng_plan_read_repeat (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                                  guint groups, guint nesting, ThrongAction *action,
                                  GError **error);
gboolean throng_plan_read_while (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                                 guint groups, guint nesting, ThrongAction *action,
                                 GError **error);
gboolean throng_plan_read_foreach (ThrongStepReader *reader, const ThrongNode *node, gint parent,
                                   guint groups, guint nesting, ThrongAction *action,
                                   GError **error);

/* Reads the `scenarios` list into loader->plan->scenarios, steps and protocol data included. */
gboolean throng_plan_read_scenarios (ThrongPlanLoader *loader, const ThrongNode *scenarios,
                                     GError **error);
void throng_plan_scenario_free (gpointer scenario);

/* ---- plan-reporter.c ---------------------------------------------------------- */

/* Reads the `reporters` list, or adds the console reporter when the plan names none. */
gboolean throng_plan_read_reporters (ThrongPlanLoader *loader, const ThrongNode *reporters,
                                     GError **error);
/*
 * Adds @reporter, found as @name, with @options (which must live as long
 * as the plan), and lets it check them.
 */
gboolean throng_plan_add_reporter (ThrongPlanLoader *loader, const ThrongReporter *reporter,
                                   const char *name, const ThrongNode *options, GError **error);
void throng_plan_reporter_free (gpointer reporter);
/* Adds the caller's reporters (ThrongPlanLoadOptions.outputs), after the plan's own. */
gboolean throng_plan_add_outputs (ThrongPlanLoader *loader, const ThrongPlanLoadOptions *options,
                                  GError **error);

/*
 * `fragments:` (plan-steps.c): a map of names to lists of steps that any
 * scenario's `- use: NAME` step stands for.  Checked when read; one no
 * scenario uses is an error after the scenarios are read.
 */
gboolean throng_plan_check_fragments (ThrongPlanLoader *loader, const ThrongNode *fragments,
                                      GError **error);
gboolean throng_plan_check_fragments_used (ThrongPlanLoader *loader, GError **error);
