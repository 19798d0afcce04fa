/* SPDX-License-Identifier: MIT */
/*
 * A finished run read back from the json reporter's jsonl file: the run's
 * shape, each interval as the snapshot reporters received, and the final
 * summary, rebuilt as the same SDK structs (histograms included), so that
 * any reporter can be driven from the file as if the run were live.
 */
#pragma once

#include <throng/throng.h>
#include <throng/runfile.h>

/* What the SDK's reader (<throng/runfile.h>) keeps to the core and the commands. */

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
