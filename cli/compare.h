/* SPDX-License-Identifier: MIT */
/*
 * `throng compare BASELINE CURRENT [--fail-on RULE]… [--out NAME=PATH]…`:
 * two runs' files compared step by step, with a verdict from a test on
 * their latencies and rules for CI (docs/compare.md).
 */
#pragma once

/* The whole command; @argv[0] is "compare".  Returns the exit status (docs/compare.md). */
int throng_compare_command (int argc, char **argv);
