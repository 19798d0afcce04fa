/* SPDX-License-Identifier: MIT */
/*
 * `throng report RUN.jsonl [--out NAME=PATH]… [--set NAME.KEY=VALUE]…`: a
 * finished run's jsonl file handed to reporters as if the run were live.
 */
#pragma once

/* The whole command; @argv[0] is "report".  Returns the exit status. */
int throng_report_command (int argc, char **argv);
