/* SPDX-License-Identifier: MIT */
/*
 * Writes the shard summaries tests/bench/merge.sh merges, through the json
 * reporter (tests/lib/shard-synth.c): N shards of a plan of STEPS steps,
 * each step with REQUESTS pseudo-random latencies, as `mode: summary`
 * documents, or with INTERVALS > 0 as jsonl files of that many interval
 * lines before the summary.
 *
 *   throng-bench-shard-synth DIR N STEPS REQUESTS [INTERVALS]
 *
 * writes DIR/shard-I.json (or .jsonl) for I in 0 … N-1.
 */
#include <stdlib.h>

#include "shard-synth.h"

int
main (int argc, char **argv)
{
    if (argc < 5) {
        g_printerr ("usage: %s DIR N STEPS REQUESTS [INTERVALS]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    guint count = (guint) atoi (argv[2]);
    guint steps = (guint) atoi (argv[3]);
    guint requests = (guint) atoi (argv[4]);
    guint intervals = argc > 5 ? (guint) atoi (argv[5]) : 0;

    for (guint i = 0; i < count; i++) {
        g_autofree char *name
            = g_strdup_printf ("shard-%u.%s", i, intervals > 0 ? "jsonl" : "json");
        g_autofree char *path = g_build_filename (dir, name, NULL);
        ThrongTestShardSpec spec = {
            .path = path,
            .jsonl = intervals > 0,
            .intervals = intervals,
            .index = i,
            .count = count,
            .n_steps = steps,
            .synthetic_requests = requests,
        };
        throng_test_shard_write (&spec);
    }
    return 0;
}
