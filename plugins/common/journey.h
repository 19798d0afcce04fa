/* SPDX-License-Identifier: MIT */
/*
 * Reading a scenario's journey (checks, groups, the data set's state)
 * from a summary, for every reporter alike: a core older than 0.3, or a
 * summary read back from an older file, has none, and reads as a
 * journey with no checks and only request steps.
 */
#pragma once

#include <throng/throng.h>

/* The scenario's journey, or NULL when the core gave none. */
const ThrongScenarioJourney *journey_get (const ThrongScenarioSummary *scenario);

/* What step @index is, and how many groups enclose it (0 and REQUEST without a journey). */
ThrongStepKind journey_step_kind (const ThrongScenarioSummary *scenario, guint index);
guint journey_step_depth (const ThrongScenarioSummary *scenario, guint index);
/* The index of the group enclosing step @index, or -1. */
gint journey_step_parent (const ThrongScenarioSummary *scenario, guint index);

/* The scenario's checks together; FALSE when it has none. */
gboolean journey_checks_total (const ThrongScenarioSummary *scenario, guint64 *passes,
                               guint64 *fails);

/* Whether the scenario's data set ran out and its users stopped early. */
gboolean journey_data_exhausted (const ThrongScenarioSummary *scenario);

/* A step kind's name in result files: "request" or "group". */
const char *journey_step_kind_name (ThrongStepKind kind);

/*
 * Whether a step the run info gives @protocol for is a group: control
 * steps have no protocol (NULL) or the pseudo-protocol "group".
 */
gboolean journey_protocol_is_group (const char *protocol);
