/* SPDX-License-Identifier: MIT */
/*
 * The summary's capacity section: what a capacity search found, in one
 * line, and its curve, a row per level held (docs/capacity.md).
 */
#include "summary.h"

void
console_print_capacity (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, capacity) || summary->capacity == NULL)
        return;
    const ThrongCapacityResult *result = summary->capacity;
    gboolean found = result->outcome == THRONG_CAPACITY_FOUND
                     || result->outcome == THRONG_CAPACITY_ABOVE_MAX;

    fprintf (out, "\n%s  capacity%s  %s%s%s\n", style->bold, style->reset,
             found ? style->green : style->yellow, result->message != NULL ? result->message : "",
             style->reset);
    fprintf (out, "    %10s  %9s  %9s  %7s  %9s  %s\n", "rate", "p50", "p99", "err%", "requests",
             "verdict");
    for (guint i = 0; i < result->n_levels; i++) {
        const ThrongCapacityLevel *level = &result->levels[i];
        char rate[CONSOLE_UNIT_LEN], p50[CONSOLE_UNIT_LEN], p99[CONSOLE_UNIT_LEN];

        fprintf (out, "    %10s  %9s  %9s  %6.2f%%  %9" G_GUINT64_FORMAT "  %s%s%s%s%s\n",
                 console_format_rate (rate, level->rate),
                 console_format_duration (p50, (gdouble) level->p50_us),
                 console_format_duration (p99, (gdouble) level->p99_us),
                 level->error_rate * 100.0, level->requests,
                 level->passed ? style->green : style->red,
                 level->passed ? "pass" : level->saturated ? "throng the limit" : "FAIL",
                 style->reset, level->failed != NULL ? ": " : "",
                 level->failed != NULL ? level->failed : "");
    }
}
