/* SPDX-License-Identifier: MIT */
/*
 * `--shard I/N`: which part of a plan this process runs, so that N
 * processes started with the same plan and the same `--start-at` together
 * run exactly the unsharded plan (docs/distributed.md has the rule of
 * every field).  Closed-model user u runs on shard u mod N and keeps its
 * global number u; open-model arrival k runs on shard k mod N.  The rules
 * are pure functions of (index, count); a count of 0 (a zeroed plan)
 * means "not sharded", as 1 does.  Private to the core.
 */
#pragma once

#include <glib.h>

#include "node-private.h"

typedef struct {
    guint index;
    guint count;                /* 0 or 1: the whole plan */
} ThrongShard;

/* The largest N: a shard per Kubernetes pod, with room. */
#define THRONG_SHARD_MAX 10000

/*
 * Parses "I/N" (0 ≤ I < N ≤ THRONG_SHARD_MAX) or "k8s/N", whose index is
 * the environment's JOB_COMPLETION_INDEX (what Kubernetes sets in an
 * Indexed Job).  @origin names the source in messages ("--shard",
 * "THRONG_SHARD").  Errors are THRONG_PLAN_ERROR_INVALID; @out is written
 * only on success.
 */
gboolean throng_shard_parse (const char *text, const char *origin, ThrongShard *out,
                             GError **error);

/* N, with 0 read as 1. */
guint throng_shard_count (const ThrongShard *shard);

/* Whether the run is split at all (N > 1). */
gboolean throng_shard_is_split (const ThrongShard *shard);

/*
 * The shard's (index, count), for what must be sliced the same way in
 * another module (data sets with `mode: unique` take rows r with
 * r mod count == index).  A zeroed shard gives (0, 1).
 */
void throng_shard_get (const ThrongShard *shard, guint *index, guint *count);

/* How many of @total global users (or pool slots) fall to the shard: ⌈(total − I) / N⌉. */
guint throng_shard_users (const ThrongShard *shard, guint total);

/* The global number of the shard's @local-th user: local × N + I. */
guint throng_shard_global_user (const ThrongShard *shard, guint local);

/*
 * A per-shard counter made unique across shards by interleaving: the
 * shard's @local-th value (from 0) is local × N + I, so N shards never
 * hand out the same value (`counter.*` of journeys).
 */
guint64 throng_shard_interleave (const ThrongShard *shard, guint64 local);

/*
 * SHA-256 (hex) of the plan's tree as it will run: after `--set` and
 * `${env.*}`, before `${builtin.*}` (the loader takes it between the two),
 * normalised (kinds, keys in order, scalars and
 * whether they were quoted; not whitespace, comments or locations), so
 * that the shards of one run can prove they ran the same plan.  The
 * top-level `reporters` are left out: where a shard writes is not its load.
 */
char *throng_shard_plan_hash (const ThrongNode *root);

/*
 * The clock the start instant is read from, for the summary:
 * "CLOCK_REALTIME (NTP synchronized, max error 3 ms)" or
 * "CLOCK_REALTIME (not synchronized)".
 */
char *throng_shard_clock_source (void);

/*
 * `--start-at`: RFC 3339 ("2026-12-03T14:00:00Z", "…+01:00") or "+30s"
 * (any duration, from @now_wall_us).  Writes µs since the epoch.
 */
gboolean throng_start_at_parse (const char *text, gint64 now_wall_us, gint64 *out_wall_us,
                                GError **error);
