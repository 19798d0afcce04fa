/* SPDX-License-Identifier: MIT */
/*
 * One line of a run file (a summary or an interval) rebuilt as a
 * ThrongSummary with copies of its strings: the half of the run-file
 * reader that knows the schema's members (docs/reporters.md).  Private to
 * runfile.c.
 */
#pragma once

#include <throng/summary.h>

#include "jsontok-private.h"

G_BEGIN_DECLS

/* A summary or snapshot rebuilt from one line, and the strings it points to. */
typedef struct {
    GStringChunk *strings;  /* NULL while the store is empty */
    ThrongSummary summary;
    GArray *scenarios;      /* ThrongScenarioSummary */
    GArray *steps;          /* ThrongStepSummary, every scenario's, in order */
    GPtrArray *warnings;    /* owned strings, then NULL */
    GArray *thresholds;     /* ThrongThresholdResult */
    const char *plan_sha256;
    GPtrArray *targets;     /* per scenario, its "target" (in @strings) or NULL */
    GArray *journeys;       /* ThrongScenarioJourney, per scenario */
    GArray *checks;         /* ThrongCheckSummary, every scenario's, in order */
    GArray *step_info;      /* ThrongStepInfo, as @steps */
    GArray *retry_attempts; /* guint64, as @steps (ThrongScenarioJourney) */
    const char *throng_version;
    ThrongShardSummary shard; /* a shard's "shard" object; size 0 when absent */
    GPtrArray *shard_thresholds; /* its "thresholds", in @strings, NULL-terminated */
    GArray *shards;         /* ThrongShardSummary: a merged run's "shards" */
    GArray *custom;         /* ThrongCustomMetric: the plan's own "metrics" (since 0.5) */
    ThrongCapacityResult capacity; /* "capacity" (since 0.6); size 0 when absent */
    GArray *capacity_levels;    /* ThrongCapacityLevel: its "curve" */
    GPtrArray *capacity_objectives; /* its "objectives", in @strings, NULL-terminated */
} RunStore;

/* Rebuilds @store from the line in @toks; an @interval line has no thresholds of its own. */
void throng_run_store_read (const JsonToks *toks, GString *scratch, RunStore *store,
                            gboolean interval);
void throng_run_store_clear (RunStore *store);

/* A string member of @object, in @scratch (overwritten by the next call), or NULL. */
const char *throng_run_store_member_text (const JsonToks *toks, GString *scratch, gint object,
                                          const char *name);

G_END_DECLS
