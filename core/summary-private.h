/* SPDX-License-Identifier: MIT */
/*
 * Building the summaries and snapshots reporters receive from a block of
 * metrics.  Private to the core; engine.c calls it.
 */
#pragma once

#include "metrics.h"
#include "plan.h"

/* A ThrongSummary and the memory it points to. */
typedef struct _ThrongSummaryBuffer {
    ThrongSummary summary;
    ThrongScenarioSummary *scenarios;
    ThrongStepSummary *steps;
    ThrongScenarioJourney *journeys;    /* one per scenario */
    ThrongCheckSummary *checks;         /* every check of every scenario */
    GPtrArray *warnings;        /* char*, owned; the caller adds its own before finishing */
} ThrongSummaryBuffer;

/* What a summary states about the run besides the metrics. */
typedef struct {
    const ThrongPlan *plan;
    gint64 start_us;            /* monotonic start of the load */
    gint64 end_us;              /* monotonic end of the load; 0: now */
    gint64 start_wall_us;
    gint64 wall_offset_us;      /* wall clock minus monotonic clock */
    gint64 planned_us;
    gint64 cpu_user_us;         /* the process's, since the start */
    gint64 cpu_system_us;
    guint workers;
    gboolean interrupted;
    gboolean started;           /* FALSE: no load was ever sent */
} ThrongSummaryRun;

/*
 * Fills @buffer (zeroed) with a summary of @metrics as of now: @active
 * users per scenario (NULL: none), @interval_us the length a snapshot
 * covers (0 for the run's summary).  The steps' histograms stay owned by
 * @metrics; the scenarios' and the total's belong to @buffer.
 */
void throng_summary_buffer_fill (ThrongSummaryBuffer *buffer, const ThrongSummaryRun *run,
                                 ThrongMetrics *metrics, const guint *active, gint64 interval_us);

/* Terminates the warnings and points the summary at them; call last. */
void throng_summary_buffer_finish (ThrongSummaryBuffer *buffer);
/* Appends @warnings (transfer full, NULL-terminated; may be NULL) to a finished summary. */
void throng_summary_buffer_add_warnings (ThrongSummaryBuffer *buffer, char **warnings);

void throng_summary_buffer_clear (ThrongSummaryBuffer *buffer);
