/* SPDX-License-Identifier: MIT */
/*
 * A finished run read back from the json reporter's jsonl file: the run's
 * shape, each interval as the snapshot reporters received, and the final
 * summary, rebuilt as the same SDK structs (histograms included), so that
 * any reporter can be driven from the file as if the run were live.
 */
#pragma once

#include <throng/throng.h>

typedef struct _ThrongRunFile ThrongRunFile;

/* The schema version of the json reporter this reader understands. */
#define THRONG_RUN_FILE_VERSION 1

/*
 * Opens @path and reads what a reporter needs before the first interval
 * (from the summary line, or when the run has none, the last interval).
 * @path may also be a `mode: summary` document (one JSON object over
 * many lines): then it holds the summary and no interval.
 * Fails with "PATH:LINE: …" when the file is not a throng jsonl file, or
 * holds no interval and no summary.
 */
ThrongRunFile *throng_run_file_open (const char *path, GError **error);
void throng_run_file_free (ThrongRunFile *file);

/* What a reporter's open receives; valid until the file is freed. */
const ThrongRunInfo *throng_run_file_info (ThrongRunFile *file);

/*
 * Makes throng_run_file_next() hand out the file's samples too (a reporter
 * wants them).  Without it, sample lines are passed over unparsed.
 */
void throng_run_file_want_samples (ThrongRunFile *file);

/*
 * The next interval as a snapshot; or NULL with a batch of samples, in
 * file order, in *@samples and *@n_samples; or NULL and 0 at the end.
 * What it returns is valid until the next call.  Lines it cannot use (a
 * truncated last line, a newer version, not JSON) are skipped and noted.
 */
const ThrongSummary *throng_run_file_next (ThrongRunFile *file, const ThrongSample **samples,
                                           gsize *n_samples);

/*
 * The final summary, after the last interval.  When the file has no usable
 * summary line (a run killed before it ended) the summary adds up the
 * intervals, and says so in its warnings, as it does for skipped lines.
 */
const ThrongSummary *throng_run_file_summary (ThrongRunFile *file);

/*
 * The summary line as read when the file was opened, without reading the
 * intervals (they stay for throng_run_file_next()); NULL when the file
 * has no summary.  Unlike throng_run_file_summary(), its warnings do not
 * include lines skipped later.
 */
const ThrongSummary *throng_run_file_head (ThrongRunFile *file);

/* Whether the file holds the run's summary (not only intervals of a run killed before its end). */
gboolean throng_run_file_has_summary (ThrongRunFile *file);

/* The "throng_version" of the summary, or NULL. */
const char *throng_run_file_throng_version (ThrongRunFile *file);

/* What was skipped so far, one "PATH:LINE: why" each; NULL-terminated. */
const char *const *throng_run_file_skipped (ThrongRunFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongRunFile, throng_run_file_free)
