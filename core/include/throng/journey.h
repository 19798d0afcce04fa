/* SPDX-License-Identifier: MIT */
/*
 * Reading a scenario's journey from a summary: its checks, what each step
 * is (a request, a group, a parallel) and where it sits, whether its data
 * set ran out.  Every reader checks that the core filled the part it
 * reads, so a reporter calling them works with a summary from any core
 * (one older than 0.3 has no journey: no checks, only request steps) and
 * with one read back from an older run file.
 */
#pragma once

#include <throng/summary.h>

G_BEGIN_DECLS

/**
 * throng_journey_get:
 * @scenario: a scenario of a summary a reporter received
 *
 * Returns: (nullable): the scenario's journey, or %NULL when the core
 *   gave none
 *
 * Since: 0.4
 */
THRONG_API const ThrongScenarioJourney *throng_journey_get (const ThrongScenarioSummary *scenario);

/**
 * throng_journey_step_kind:
 * @scenario: a scenario of a summary
 * @index: a step of it
 *
 * Returns: what step @index is; %THRONG_STEP_REQUEST without a journey
 *
 * Since: 0.4
 */
THRONG_API ThrongStepKind throng_journey_step_kind (const ThrongScenarioSummary *scenario,
                                                    guint index);

/**
 * throng_journey_step_depth:
 * @scenario: a scenario of a summary
 * @index: a step of it
 *
 * Returns: how many groups enclose step @index (0 without a journey)
 *
 * Since: 0.4
 */
THRONG_API guint throng_journey_step_depth (const ThrongScenarioSummary *scenario, guint index);

/**
 * throng_journey_step_parent:
 * @scenario: a scenario of a summary
 * @index: a step of it
 *
 * Returns: the index of the group enclosing step @index, or -1
 *
 * Since: 0.4
 */
THRONG_API gint throng_journey_step_parent (const ThrongScenarioSummary *scenario, guint index);

/**
 * throng_journey_checks_total:
 * @scenario: a scenario of a summary
 * @passes: (out): the passes of all its checks
 * @fails: (out): their failures
 *
 * Returns: %FALSE when the scenario has no checks
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_journey_checks_total (const ThrongScenarioSummary *scenario,
                                                 guint64 *passes, guint64 *fails);

/**
 * throng_journey_data_exhausted:
 * @scenario: a scenario of a summary
 *
 * Returns: whether its data set ran out and its users stopped early
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_journey_data_exhausted (const ThrongScenarioSummary *scenario);

/**
 * throng_journey_step_retry_attempts:
 * @scenario: a scenario of a summary
 * @index: a step's index in it
 *
 * Returns: the step's samples that were an attempt of its `retry:` after
 *   a failed one (#ThrongScenarioJourney.retry_attempts); 0 when the
 *   summary does not say
 *
 * Since: 0.5
 */
THRONG_API guint64 throng_journey_step_retry_attempts (const ThrongScenarioSummary *scenario,
                                                       guint index);

/**
 * throng_journey_retry_attempts:
 * @scenario: a scenario of a summary
 *
 * Returns: the scenario's retry attempts, all steps together; 0 when the
 *   summary does not say
 *
 * Since: 0.5
 */
THRONG_API guint64 throng_journey_retry_attempts (const ThrongScenarioSummary *scenario);

/**
 * throng_summary_get_retry_attempts:
 * @summary: a summary
 *
 * Returns: the run's retry attempts (#ThrongSummary.retry_attempts); 0
 *   when @summary is older than 0.5
 *
 * Since: 0.5
 */
THRONG_API guint64 throng_summary_get_retry_attempts (const ThrongSummary *summary);

/**
 * throng_step_kind_name:
 * @kind: a step kind
 *
 * Returns: its name in result files: "request", "group" or "parallel"
 *
 * Since: 0.4
 */
THRONG_API const char *throng_step_kind_name (ThrongStepKind kind);

/**
 * throng_step_kind_is_transaction:
 * @kind: a step kind
 *
 * Returns: whether a step of @kind is a group or a parallel: its sample
 *   spans its children's, it is not a request
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_step_kind_is_transaction (ThrongStepKind kind);

/**
 * throng_step_protocol_is_group:
 * @protocol: (nullable): the protocol #ThrongRunInfo gives a step
 *
 * Returns: whether that step is a group: control steps have no protocol
 *   (%NULL) or the pseudo-protocol "group"
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_step_protocol_is_group (const char *protocol);

/**
 * throng_step_display_name:
 * @scenario: a scenario of a summary or snapshot
 * @step: a step's index in it (its step_id, #ThrongSample.step)
 *
 * The name every reporter shows for a step: its label alone when no other
 * step of @scenario has that label, else `LABEL [STEP_ID]` (`GET / [2]`),
 * the step_id from 0 as the `step_id` column, label or tag of csv, json,
 * prometheus, influxdb and remote_write carries it.  A %NULL label reads
 * as the empty one (a repeated one gives `[2]`).  docs/reporters.md,
 * "Steps that share a label".
 *
 * Returns: (transfer full): the name, to free with g_free(); %NULL when
 *   @step is not a step of @scenario
 *
 * Since: 0.5
 */
THRONG_API char *throng_step_display_name (const ThrongScenarioSummary *scenario, guint step);

G_END_DECLS
