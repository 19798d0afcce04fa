/* SPDX-License-Identifier: MIT */
/*
 * How the console reporter writes: ANSI styles and human units, shared
 * by the live line (console.c) and the summary table (summary.c).
 */
#pragma once

#include <throng/throng.h>

/* ANSI styles, or empty strings when colour is off. */
typedef struct {
    const char *bold;
    const char *dim;
    const char *red;
    const char *yellow;
    const char *green;
    const char *reset;
} ConsoleStyle;

/*
 * Human units with three significant digits.  Each writes into @buf
 * (at least CONSOLE_UNIT_LEN bytes) and returns it.
 */
#define CONSOLE_UNIT_LEN 32
char *console_format_duration (char *buf, gdouble us);   /* 812µs, 1.23ms, 4.56s */
char *console_format_bytes (char *buf, gdouble bytes);   /* 512 B, 1.23 kB, 4.56 MB */
char *console_format_rate (char *buf, gdouble per_second); /* 0.25/s, 12.3/s, 4523/s */
char *console_format_number (char *buf, gdouble value);  /* 0.25, 12.3, 4523 */
