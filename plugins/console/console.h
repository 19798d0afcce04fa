/* SPDX-License-Identifier: MIT */
/*
 * Internals of the console plugin shared between its files: the vtable
 * (console.c), the summary table (summary.c) and human units (units.c).
 */
#pragma once

#include <stdio.h>
#include <throng/throng.h>

extern const ThrongReporter console_reporter;

/* ANSI styles, or empty strings when colour is off. */
typedef struct {
    const char *bold;
    const char *dim;
    const char *red;
    const char *yellow;
    const char *green;
    const char *reset;
} ConsoleStyle;

/* Writes the end-of-run summary of @summary to @out. */
void console_print_summary (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style);

/*
 * Human units with three significant digits.  Each writes into @buf
 * (at least CONSOLE_UNIT_LEN bytes) and returns it.
 */
#define CONSOLE_UNIT_LEN 32
char *console_format_duration (char *buf, gdouble us);   /* 812µs, 1.23ms, 4.56s */
char *console_format_bytes (char *buf, gdouble bytes);   /* 512 B, 1.23 kB, 4.56 MB */
char *console_format_rate (char *buf, gdouble per_second); /* 0.25/s, 12.3/s, 4523/s */
char *console_format_number (char *buf, gdouble value);  /* 0.25, 12.3, 4523 */
