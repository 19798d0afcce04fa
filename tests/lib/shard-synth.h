/* SPDX-License-Identifier: MIT */
/*
 * A shard's summary written without running anything: the json
 * reporter itself is loaded and handed a summary whose "shard" object and
 * latencies the caller chooses, so that `throng merge` can be tested on
 * exact figures (percentiles, a threshold that only the merge fails) and
 * on every refusal, and benchmarked on 64 shards of a 20-step plan.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * What to write; zero-initialise and set what you need.
 *
 * @path: the file (overwritten).
 * @jsonl: the json reporter's `mode: jsonl`, with @intervals interval lines
 *   before the summary line; otherwise a `mode: summary` document.
 * @index, @count: the shard (count 0: no "shard" object at all).
 * @plan_sha256: the shard's plan hash; NULL: "synthetic".
 * @throng_version: NULL: this throng's.
 * @start_wall_us: when the shard started; 0: a fixed instant.
 * @n_steps: steps of the one scenario "s" (labels "step 01"…); 0: 1.
 * @latencies, @n_latencies: recorded into every step (as one request
 *   each); with none, @synthetic_requests pseudo-random ones per step.
 * @thresholds: NULL-terminated expressions the shard leaves to the merge.
 * @saturated: the shard says its generator saturated.
 * @check: the name of a check of scenario "s" that each of its requests
 *   passes (in every interval and the summary); NULL: no check.
 */
typedef struct {
    const char *path;
    gboolean jsonl;
    guint intervals;
    guint index;
    guint count;
    const char *plan_sha256;
    const char *throng_version;
    gint64 start_wall_us;
    guint n_steps;
    const gint64 *latencies;
    gsize n_latencies;
    guint synthetic_requests;
    const char *const *thresholds;
    gboolean saturated;
    const char *check;
} ThrongTestShardSpec;

void throng_test_shard_write (const ThrongTestShardSpec *spec);

G_END_DECLS
