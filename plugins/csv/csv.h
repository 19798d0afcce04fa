/* SPDX-License-Identifier: MIT */
/* The csv reporter's vtable, shared between plugin.c and csv.c. */
#pragma once

#include <string.h>
#include <throng/throng.h>

extern const ThrongReporter csv_reporter;

/* The side file of the plan's own metrics (metrics.c): its header and a row a metric. */
void csv_metrics_write (GString *out, const ThrongSummary *summary);
