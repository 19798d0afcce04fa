/* SPDX-License-Identifier: MIT */
/*
 * One "sample" line of the json reporter's jsonl file read back into a
 * ThrongSample (runfile.c hands batches of them to reporters that want
 * samples).
 */
#pragma once

#include <throng/throng.h>

#include "jsontok-private.h"

/*
 * Fills @sample from the sample object at the root of @toks: its scenario
 * and step found by name in @info, its strings (message, url) copied into
 * @strings.  @run_start_wall_us is the run's start: @sample's start_us
 * counts from it (the live value, a monotonic time, is not in the file).
 * Returns FALSE, leaving @sample unspecified, when the scenario or step is
 * not one of @info's.
 */
gboolean throng_sample_line_read (const JsonToks *toks, const ThrongRunInfo *info,
                                  gint64 run_start_wall_us, GStringChunk *strings,
                                  ThrongSample *sample);

/* "2026-12-02T14:36:30.365Z" (as the json reporter writes times) → µs since the epoch; 0 if not. */
gint64 throng_sample_line_time (const char *text, gsize length);
