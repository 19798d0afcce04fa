/* SPDX-License-Identifier: MIT */
/*
 * `throng report RUN.jsonl [--out NAME=PATH]… [--set NAME.KEY=VALUE]…`: a
 * finished run's jsonl file handed to reporters as if the run were live.
 */
#pragma once

#include <throng/throng.h>

/* The whole command; @argv[0] is "report".  Returns the exit status. */
int throng_report_command (int argc, char **argv);

/* The next snapshot to hand the reporters, or NULL at the end; valid until the next call. */
typedef const ThrongSummary *(*ThrongReportNext) (gpointer data);

/*
 * Hands a finished run to the reporters @specs ("NAME=PATH",
 * NULL-terminated, each given the options "NAME.KEY=VALUE" of @sets, which
 * may be NULL) through configure, open, a snapshot for each that @next
 * (may be NULL) returns, and close with @summary, as `throng report` does
 * with a file (what `throng merge` writes).  Messages begin "throng
 * @command: ".  Returns 0, 2 (a bad spec), 3 (a reporter could not open)
 * or 4 (one could not write).
 */
int throng_report_summary (const char *command, const ThrongRunInfo *info, ThrongReportNext next,
                           gpointer next_data, const ThrongSummary *summary,
                           const char *const *specs, const char *const *sets,
                           gboolean overwrite);
