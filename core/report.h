/* SPDX-License-Identifier: MIT */
/*
 * `throng report RUN.jsonl [--out NAME=PATH]… [--set NAME.KEY=VALUE]…`: a
 * finished run's jsonl file handed to reporters as if the run were live.
 */
#pragma once

#include <throng/throng.h>

/* The whole command; @argv[0] is "report".  Returns the exit status. */
int throng_report_command (int argc, char **argv);

/*
 * Hands one finished @summary to the reporters @specs ("NAME=PATH",
 * NULL-terminated) through configure, open and close, as `throng report`
 * does with a file (what `throng merge` writes).  Messages begin
 * "throng @command: ".  Returns 0, 2 (a bad spec), 3 (a reporter could not
 * open) or 4 (one could not write).
 */
int throng_report_summary (const char *command, const ThrongRunInfo *info,
                           const ThrongSummary *summary, const char *const *specs,
                           gboolean overwrite);
