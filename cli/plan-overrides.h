/* SPDX-License-Identifier: MIT */
/*
 * `--out NAME=PATH` made into the reporters the plan loader adds after the
 * plan's own.  Private to the command line.
 */
#pragma once

#include "node-private.h"
#include "plan.h"

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
