/* SPDX-License-Identifier: MIT */
/*
 * What the two halves of `throng merge` share: merge.c reads and checks
 * the shards, judges the thresholds and hands the result to the
 * reporters; merge-sum.c adds the figures up.  Private to the command line.
 */
#pragma once

#include "plan.h"
#include "results/runfile.h"
#include "threshold.h"
#include "results/summary-sum.h"

typedef struct {
    const char *path;
    ThrongRunFile *file;
    const ThrongSummary *summary;
    ThrongShardSummary shard;   /* the file's "shard", or 0 of 1 for a run without one */
    const ThrongSummary *interval; /* its next interval not yet merged; NULL at the end */
    gboolean intervals_started;
} MergeInput;

/*
 * The scenarios' journeys, merged: checks summed by name, in the order
 * the shards list them; `data_exhausted` true when any shard's data set
 * ran out; the step tree (kind, parent, depth) is the first shard's, the
 * others agreeing with it (merge_check).
 */
typedef struct {
    GPtrArray *inputs;          /* MergeInput*, by shard index */
    guint count;
    gboolean partial;
    GString *missing;           /* "1, 4" */
    ThrongSummarySum *sum;      /* the shards' summaries added up */
    ThrongSummary *summary;     /* its sum, with what only a merge knows */
    GPtrArray *warnings;        /* char*, owned, NULL-terminated at the end */
    GArray *shards;             /* ThrongShardSummary */
    ThrongRunInfo info;
    GPtrArray *names;
    GArray *users;
    GPtrArray *labels;          /* per scenario, const char** (owned arrays) */
    GPtrArray *protocols;
    ThrongTree *thresholds_tree; /* the shards' thresholds, as a plan's list to locate errors */
    ThrongThresholds *thresholds;
    ThrongSummarySum *interval; /* the interval being merged */
    guint intervals;            /* merged intervals handed out */
} Merge;

/* Adds the checked inputs' summaries into merge->summary, and says what could not be added. */
void throng_merge_figures (Merge *merge);

/*
 * The shards' intervals that ended in the run's next second, merged; NULL
 * when every shard's are done (a ThrongReportNext; @data is the Merge).
 */
const ThrongSummary *throng_merge_next_interval (gpointer data);


