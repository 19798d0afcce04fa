/* SPDX-License-Identifier: MIT */
/*
 * A run's reporters driven as one: the engine during a run, `throng
 * report` replaying a jsonl file and `throng merge` writing shards' sum all
 * hand their summaries and samples to a set, so that the order of the
 * hooks, which reporter gets samples, the filter and what a failure prints
 * are decided here once.  Private to the core and the commands.
 */
#pragma once

#include <throng/reporter.h>

G_BEGIN_DECLS

typedef struct _ThrongReporterSet ThrongReporterSet;
struct _ThrongReporterFilter;
struct _ThrongSummaryBuffer;

/* @command prefixes every message ("throng", "throng report", …). */
ThrongReporterSet *throng_reporter_set_new (const char *command);
void throng_reporter_set_free (ThrongReporterSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongReporterSet, throng_reporter_set_free)

/*
 * A configured reporter (@data from its configure), in the order the
 * hooks are called; @filter (nullable) chooses the samples it gets.  The
 * set owns none of them.
 */
void throng_reporter_set_add (ThrongReporterSet *set, const char *name,
                              const ThrongReporter *reporter, gpointer data,
                              struct _ThrongReporterFilter *filter);

/* Whether any reporter records samples: without one, nobody collects them. */
gboolean throng_reporter_set_wants_samples (const ThrongReporterSet *set);

/*
 * Opens each reporter in turn; on the first failure, @error names it and
 * the ones already open stay open, for throng_reporter_set_close() with a
 * summary that says the run never started.
 */
gboolean throng_reporter_set_open (ThrongReporterSet *set, const ThrongRunInfo *info,
                                   GError **error);

/* Samples to the reporters that want them, each through its filter. */
void throng_reporter_set_samples (ThrongReporterSet *set, const ThrongSample *samples,
                                  gsize n_samples);
void throng_reporter_set_snapshot (ThrongReporterSet *set, const ThrongSummary *snapshot);

/*
 * The reporters' `drain` with the final summary in @buffer: the warnings
 * of what they sent in the background join @buffer's, each reporter seeing
 * those of the ones before it, and the summary they then close with.
 */
void throng_reporter_set_drain (ThrongReporterSet *set, struct _ThrongSummaryBuffer *buffer);

/*
 * Closes every open reporter with @summary; a reporter that cannot write
 * its results is printed on stderr and makes the result FALSE.
 */
gboolean throng_reporter_set_close (ThrongReporterSet *set, const ThrongSummary *summary);

G_END_DECLS
