/* SPDX-License-Identifier: MIT */
/*
 * The command line's vocabulary applied to a plan: `--set PATH=VALUE`
 * edits the plan's tree before the loader reads it, `--out NAME=PATH`
 * becomes a reporter the loader adds after the plan's own.  Private to
 * the command line.
 */
#pragma once

#include "node-private.h"
#include "plan.h"

/*
 * Applies one `--set PATH=VALUE` override: PATH is dot-separated map keys
 * and sequence indices (`scenarios.0.users`).  Every component but the
 * last must exist; the last may name a new key of an existing map.  The
 * value replaces a scalar (or is added) as a plain scalar whose location
 * is "--set PATH":1:COLUMN.  Errors name the option: "--set
 * scenarios.5.users=3: the plan has no scenarios.5".
 */
gboolean throng_cli_set (ThrongTree *tree, const char *assignment, GError **error);

/*
 * Every `--set` of @sets (NULL-terminated `const char *const *`, may be
 * NULL), in order: a ThrongPlanLoadOptions.edit, with @sets as edit_data.
 */
gboolean throng_cli_sets_apply (ThrongTree *tree, gpointer sets, GError **error);

/*
 * Whether the plan at @path, with the `--set PATH=VALUE` of @sets
 * (NULL-terminated, may be NULL) applied, says `target: builtin`: the
 * command line starts the target before the plan loads.  FALSE also when
 * the file or a --set cannot be read; the load then says why.
 */
gboolean throng_cli_plan_wants_builtin_target (const char *path, const char *const *sets);

typedef struct _ThrongCliOutputs ThrongCliOutputs;

/*
 * Reads @outs (NULL-terminated `--out` values as given; may be NULL).
 * Fails with a THRONG_PLAN_ERROR naming the option ("--out x: expected
 * NAME=PATH, …") when one is not NAME=PATH.
 */
ThrongCliOutputs *throng_cli_outputs_new (const char *const *outs, GError **error);

/* For ThrongPlanLoadOptions.outputs; valid until @outputs is freed, which must outlive the plan. */
const ThrongPlanOutput *throng_cli_outputs_get (const ThrongCliOutputs *outputs);

/*
 * The option `--out NAME=VALUE` sets for the reporter NAME: "listen" for
 * prometheus, "url" for influxdb, "path" for every other.
 */
const char *throng_cli_out_key (const char *reporter);

void throng_cli_outputs_free (ThrongCliOutputs *outputs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongCliOutputs, throng_cli_outputs_free)
