/* SPDX-License-Identifier: MIT */
/* The console's end-of-run table (summary.c), printed by console.c's close. */
#pragma once

#include <stdio.h>

#include "style.h"

/* Writes the end-of-run summary of @summary to @out. */
void console_print_summary (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style);
/* Writes what a capacity search found and its curve, if the run had one (capacity.c). */
void console_print_capacity (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style);

/* Writes the table of the plan's own metrics, if it has any (metrics.c). */
void console_print_metrics (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style);
