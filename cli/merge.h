/* SPDX-License-Identifier: MIT */
/*
 * `throng merge SHARD.json… [--out NAME=PATH]… [--allow-partial]`: the
 * summaries of a run's shards (`throng run --shard I/N`) made into the
 * summary of the one run they are, exactly.  Private to the core.
 */
#pragma once

/* The whole command; @argv[0] is "merge".  Returns the exit status (0, 2, 3, 4 or 99). */
int throng_merge_command (int argc, char **argv);
