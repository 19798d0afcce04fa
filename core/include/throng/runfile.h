/* SPDX-License-Identifier: MIT */
/*
 * The run file: what the json reporter writes (`mode: jsonl`, or a `mode:
 * summary` document) and what `throng report`, `throng merge` and any
 * reporter or tool read back, under one schema version.
 *
 * Read: the run's shape, each interval as the snapshot reporters received,
 * the samples, and the final summary, rebuilt as the same structs a live
 * run hands to reporters, histograms included.  A reporter or a tool can
 * so be driven from a file as if the run were live.
 *
 * Write (since 0.5): the same lines and documents the json reporter
 * writes, byte for byte, appended to a #GString the caller owns; the
 * caller decides where they go.  docs/reporters.md documents the schema.
 */
#pragma once

#include <throng/sample.h>
#include <throng/summary.h>
#include <throng/reporter.h>

G_BEGIN_DECLS

/**
 * THRONG_RUN_FILE_VERSION:
 *
 * The version of the run-file schema that the writer (the json reporter's
 * too) puts on every line ("version") and that this reader reads; a line
 * of a newer version is skipped and named.  Bumped only when a field
 * changes meaning or disappears; a field added does not bump it.
 *
 * Since: 0.4
 */
#define THRONG_RUN_FILE_VERSION 1

/**
 * ThrongRunFile:
 *
 * An open run file.
 *
 * Since: 0.4
 */
typedef struct _ThrongRunFile ThrongRunFile;

/**
 * throng_run_file_open:
 * @path: a jsonl file the json reporter wrote, or its `mode: summary` document
 * @error: where a failure is described, as "PATH:LINE: …"
 *
 * Opens @path and reads what a reporter needs before the first interval
 * (from the summary line, or when the run has none, the last interval).
 *
 * Returns: (transfer full) (nullable): the file, or %NULL when it is not a
 *   throng run file or holds no interval and no summary
 *
 * Since: 0.4
 */
THRONG_API ThrongRunFile *throng_run_file_open (const char *path, GError **error);

/**
 * throng_run_file_free:
 * @file: (nullable): a file
 *
 * Since: 0.4
 */
THRONG_API void throng_run_file_free (ThrongRunFile *file);

/**
 * throng_run_file_info:
 * @file: a file
 *
 * Returns: what a reporter's open receives; valid until the file is freed
 *
 * Since: 0.4
 */
THRONG_API const ThrongRunInfo *throng_run_file_info (ThrongRunFile *file);

/**
 * throng_run_file_want_samples:
 * @file: a file
 *
 * Makes throng_run_file_next() hand out the file's samples too; without
 * it, sample lines are passed over unparsed.
 *
 * Since: 0.4
 */
THRONG_API void throng_run_file_want_samples (ThrongRunFile *file);

/**
 * throng_run_file_next:
 * @file: a file
 * @samples: (out): a batch of samples, in file order
 * @n_samples: (out): how many
 *
 * Lines it cannot use (a truncated last line, a newer version, not JSON)
 * are skipped and noted (throng_run_file_skipped()).
 *
 * Returns: (nullable): the next interval as a snapshot; or %NULL with a
 *   batch of samples; or %NULL and 0 samples at the end.  Valid until the
 *   next call.
 *
 * Since: 0.4
 */
THRONG_API const ThrongSummary *throng_run_file_next (ThrongRunFile *file,
                                                      const ThrongSample **samples,
                                                      gsize *n_samples);

/**
 * throng_run_file_summary:
 * @file: a file
 *
 * Reads what throng_run_file_next() has not read yet.  When the file has
 * no usable summary line (a run killed before it ended) the summary adds
 * up the intervals and says so in its warnings, as it does for skipped
 * lines.
 *
 * Returns: the final summary; valid until the file is freed
 *
 * Since: 0.4
 */
THRONG_API const ThrongSummary *throng_run_file_summary (ThrongRunFile *file);

/**
 * throng_run_file_skipped:
 * @file: a file
 *
 * Returns: (array zero-terminated=1): what was skipped so far, one
 *   "PATH:LINE: why" each
 *
 * Since: 0.4
 */
THRONG_API const char *const *throng_run_file_skipped (ThrongRunFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongRunFile, throng_run_file_free)

/**
 * ThrongRunFileWriter:
 *
 * What writes one run's file: the run's scenario and step names (a
 * sample carries only their indices), its plan's hash and its targets,
 * and the second last formatted for sample times.  Not thread-safe; a
 * reporter uses it from its hooks, on the main thread.
 *
 * Since: 0.5
 */
typedef struct _ThrongRunFileWriter ThrongRunFileWriter;

/**
 * ThrongRunFileLayout:
 * @THRONG_RUN_FILE_LINE: the jsonl summary line: compact, `"type":
 *   "summary"` first, the last line of a `mode: jsonl` file
 * @THRONG_RUN_FILE_DOCUMENT: a `mode: summary` file: the summary alone,
 *   indented by two spaces, without "type"
 *
 * How throng_run_file_writer_append_summary() lays the summary out.
 *
 * Since: 0.5
 */
typedef enum {
    THRONG_RUN_FILE_LINE,
    THRONG_RUN_FILE_DOCUMENT,
} ThrongRunFileLayout;

/**
 * throng_run_file_writer_new:
 * @run: (nullable): what the reporter's open received; copied.  %NULL
 *   writes samples without scenario and step names, and the summary
 *   without plan.sha256 and targets.
 *
 * Returns: (transfer full): a writer
 *
 * Since: 0.5
 */
THRONG_API ThrongRunFileWriter *throng_run_file_writer_new (const ThrongRunInfo *run);

/**
 * throng_run_file_writer_free:
 * @writer: (nullable): a writer
 *
 * Since: 0.5
 */
THRONG_API void throng_run_file_writer_free (ThrongRunFileWriter *writer);

/**
 * throng_run_file_writer_append_sample:
 * @writer: a writer
 * @out: where the line is appended
 * @sample: a sample of the run @writer was made for
 *
 * Appends one jsonl "sample" line, its newline included.
 *
 * Since: 0.5
 */
THRONG_API void throng_run_file_writer_append_sample (ThrongRunFileWriter *writer, GString *out,
                                                      const ThrongSample *sample);

/**
 * throng_run_file_writer_append_interval:
 * @writer: a writer
 * @out: where the line is appended
 * @snapshot: what a reporter's snapshot hook received
 *
 * Appends one jsonl "interval" line, its newline included.
 *
 * Since: 0.5
 */
THRONG_API void throng_run_file_writer_append_interval (ThrongRunFileWriter *writer, GString *out,
                                                        const ThrongSummary *snapshot);

/**
 * throng_run_file_writer_append_summary:
 * @writer: a writer
 * @out: where the summary is appended
 * @summary: what a reporter's close hook received
 * @layout: the jsonl line, or a document of its own
 *
 * Appends the run's summary, its final newline included; either layout
 * reads back with throng_run_file_open().
 *
 * Since: 0.5
 */
THRONG_API void throng_run_file_writer_append_summary (ThrongRunFileWriter *writer, GString *out,
                                                       const ThrongSummary *summary,
                                                       ThrongRunFileLayout layout);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongRunFileWriter, throng_run_file_writer_free)

G_END_DECLS
