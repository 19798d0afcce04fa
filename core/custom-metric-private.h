/* SPDX-License-Identifier: MIT */
/*
 * The plan's own metrics (`metrics:` at the top, `record:` in a step):
 * declared and checked when the plan loads, recorded by a worker into its
 * own block after a step's extractors ran, merged on the main thread like
 * every other figure.  Private to the core.
 */
#pragma once

#include <throng/throng.h>

#include "node-private.h"

struct _ThrongUser;

/* One metric the plan declares; plan->metrics holds them in the plan's order. */
typedef struct {
    char *name;
    ThrongCustomMetricKind kind;
    const ThrongNode *node;         /* its key in `metrics:`, for located errors */
    gboolean recorded;              /* some step's `record:` names it */
} ThrongPlanMetric;

/* One entry of a step's `record:`. */
typedef struct {
    guint metric;                   /* index in plan->metrics */
    ThrongCustomMetricKind kind;
    ThrongTemplate *value;          /* NULL: a counter's `name:` with no value adds 1 */
} ThrongPlanRecord;

/* A step's `record:`, compiled. */
typedef struct {
    ThrongPlanRecord *items;
    guint n_items;
} ThrongPlanRecords;

/* The name of @kind as plans write it ("counter", …). */
const char *throng_custom_kind_name (ThrongCustomMetricKind kind);
/* The kind written @name, or -1. */
gint throng_custom_kind_from_name (const char *name);

/* Reads the top-level `metrics:` map (NULL: none) into @metrics (ThrongPlanMetric*). */
gboolean throng_plan_read_metrics (GPtrArray *metrics, const ThrongNode *map, GError **error);
void throng_plan_metric_free (gpointer metric);
/* Compiles a step's `record:` map against @scope; NULL with a located error. */
ThrongPlanRecords *throng_plan_records_new (const GPtrArray *metrics, ThrongScope *scope,
                                            const ThrongNode *map, GError **error);
void throng_plan_records_free (ThrongPlanRecords *records);
/*
 * A metric named like something a threshold's subject may name (`total`,
 * a scenario, a step's label, a protocol) would make `NAME.count` mean two
 * things: a located error at the metric when @name, which is @what ("a
 * scenario's name" …), is its name.
 */
gboolean throng_plan_check_metric_name (const ThrongPlanMetric *metric, const char *name,
                                        const char *what, GError **error);

/* ---- figures ------------------------------------------------------------ */

void throng_custom_metric_init (ThrongCustomMetric *metric, const char *name,
                                ThrongCustomMetricKind kind);
void throng_custom_metric_clear (ThrongCustomMetric *metric);
void throng_custom_metric_reset (ThrongCustomMetric *metric);
/* Adds @from into @into, the same metric: sums, extremes, the later gauge, histograms exactly. */
void throng_custom_metric_merge (ThrongCustomMetric *into, const ThrongCustomMetric *from);
/*
 * Records the text @value (@length bytes) into @metric at @wall_us: a
 * number (a rate: true, false, 1 or 0), or one more invalid value.
 */
void throng_custom_metric_add_text (ThrongCustomMetric *metric, const char *value, gsize length,
                                    gint64 wall_us);
/*
 * The figure @figure of @metric, as a threshold names it ("count", "p95",
 * "rate", "value" …; docs/plan-reference.md), over @load_s seconds (a
 * counter's rate per second).  FALSE when the kind has no such figure.
 */
gboolean throng_custom_metric_figure (const ThrongCustomMetric *metric, const char *figure,
                                      gdouble load_s, gdouble *out);
/* The figures @kind has, for an error message: "count, rate, invalid". */
const char *throng_custom_kind_figures (ThrongCustomMetricKind kind);

/* Runs @records for @user after its step completed, into its worker's block. */
void throng_custom_record (struct _ThrongUser *user, const ThrongPlanRecords *records);
