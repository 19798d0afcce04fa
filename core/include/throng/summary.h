/* SPDX-License-Identifier: MIT */
/*
 * What a run measured, as reporters receive it: counters and histograms
 * per step and per scenario, once a second (a snapshot) and at the end
 * (the summary).  All of it is owned by the core and valid only during
 * the reporter call that receives it.
 */
#pragma once

#include <glib.h>
#include <throng/histogram.h>
#include <throng/sample.h>

G_BEGIN_DECLS

/**
 * ThrongProtocolCount:
 * @name: a protocol version as samples name it (#ThrongSample.protocol:
 *   "http/1.1", "h2")
 * @requests: the requests counted here that went over it
 *
 * One entry of #ThrongStats.protocols.
 *
 * Since: 0.4
 */
typedef struct {
    const char *name;
    guint64 requests;
} ThrongProtocolCount;

/**
 * ThrongStats:
 * @requests: requests sent: steps completed (successes and failures),
 *   less those that never went out (class `variable`, counted by
 *   throng_stats_get_not_sent()).  The latency histogram holds exactly
 *   these.  On a group's or parallel's row: its executions, less those a
 *   request that was not sent broke.  Before 0.5 it counted those too
 * @errors: steps that failed (the sum of @errors_by_class), those not sent
 *   included: a step that could not go out is a failure of the plan
 * @errors_by_class: failures per #ThrongErrorClass
 * @bytes_sent: bytes written
 * @bytes_received: bytes read
 * @connections: connections opened
 * @handshakes_full: full TLS handshakes
 * @handshakes_resumed: resumed TLS handshakes
 * @latency: histogram of elapsed times (µs)
 * @handshake: histogram of TLS handshake times (µs), one value per step
 *   that made a handshake
 * @error_messages: (array fixed-size=THRONG_ERROR_CLASS_SLOTS) (nullable):
 *   for each class, the #ThrongSample.message of the first failure of that
 *   class that was counted here, or NULL; the array is NULL from a core
 *   older than 0.2.  Since: 0.2
 * @retries: requests the protocol sent again (the sum of
 *   #ThrongSample.retries); 0 from a core older than 0.2.  Since: 0.2
 * @protocols: (array length=n_protocols) (nullable): the requests per
 *   protocol version (#ThrongSample.protocol), in the order the versions
 *   were first seen; requests whose sample named none are in no entry, so
 *   the counts may sum to less than @requests.  NULL when no sample named
 *   one, and from a core older than 0.4 (the fields were a reserved slot).
 *   Since: 0.4
 * @n_protocols: how many entries @protocols has.  Since: 0.4
 *
 * Counters of one step, one scenario or the whole run.  The histograms
 * are the core's (transfer none): read them, never free or keep them.
 *
 * Since: 0.1
 */
typedef struct {
    guint64 requests;
    guint64 errors;
    guint64 errors_by_class[THRONG_ERROR_CLASS_SLOTS];
    guint64 bytes_sent;
    guint64 bytes_received;
    guint64 connections;
    guint64 handshakes_full;
    guint64 handshakes_resumed;
    ThrongHistogram *latency;
    ThrongHistogram *handshake;
    const char **error_messages;
    guint64 retries; /* in the place of a reserved pointer of 0.1 */
    /* 0.4: in the place of the reserved slots of 0.1, keeping the size */
    ThrongProtocolCount *protocols;
    guint n_protocols;
} ThrongStats;

/**
 * throng_stats_get_not_sent:
 * @stats: a #ThrongStats
 *
 * The steps counted in @stats that never went out (a variable they needed
 * was not set): they are among @stats' errors, under class `variable`, and
 * not among its requests.  So `requests` is what the server saw, and the
 * share of steps that failed is errors / (requests + not sent)
 * (throng_stats_get_error_rate()).
 *
 * Returns: how many
 *
 * Since: 0.5
 */
static inline guint64
throng_stats_get_not_sent (const ThrongStats *stats)
{
    return stats->errors_by_class[THRONG_ERROR_VARIABLE];
}

/**
 * throng_stats_get_error_rate:
 * @stats: a #ThrongStats
 *
 * The share of the steps counted in @stats that failed, those not sent
 * included in both terms: errors / (requests + not sent), 0 when there
 * were none.  The `errors.rate` threshold and every reporter use it.
 *
 * Returns: a share from 0 to 1
 *
 * Since: 0.5
 */
static inline gdouble
throng_stats_get_error_rate (const ThrongStats *stats)
{
    guint64 steps = stats->requests + throng_stats_get_not_sent (stats);
    return steps > 0 ? (gdouble) stats->errors / (gdouble) steps : 0.0;
}

/**
 * ThrongStepSummary:
 * @label: the step's label (its `name`, or the protocol's default label)
 * @protocol: the protocol's name
 * @stats: the step's figures
 *
 * One step of a scenario, in plan order (the index of #ThrongSample.step).
 *
 * Since: 0.1
 */
typedef struct {
    const char *label;
    const char *protocol;
    ThrongStats stats;
} ThrongStepSummary;

/**
 * ThrongCheckSummary:
 * @name: the check's name, as throng_scope_add_check() got it
 * @passes: how often it passed
 * @fails: how often it failed
 *
 * One check of a scenario (docs/journeys.md).
 *
 * Since: 0.3
 */
typedef struct {
    const char *name;
    guint64 passes;
    guint64 fails;
    /*< private >*/
    gpointer reserved[2];
} ThrongCheckSummary;

/**
 * ThrongStepKind:
 * @THRONG_STEP_REQUEST: a protocol step: its stats count requests
 * @THRONG_STEP_GROUP: a `group` (a transaction): one sample per execution,
 *   elapsed from its first child's start to its last child's end, failed
 *   when a child failed.  Its samples are not requests: the scenario's and
 *   the run's stats leave them out
 * @THRONG_STEP_PARALLEL: a `parallel` step: its children (requests) run
 *   concurrently; one sample per execution, from its first child's start
 *   to its last child's end, failed when a child failed.  Like a group's,
 *   its samples are not requests.  A reporter that does not know this
 *   value shows it as a group.  Since 0.3
 *
 * Values are only ever appended.
 *
 * Since: 0.3
 */
typedef enum {
    THRONG_STEP_REQUEST,
    THRONG_STEP_GROUP,
    THRONG_STEP_PARALLEL,
} ThrongStepKind;

/**
 * ThrongStepInfo:
 * @kind: what the step is
 * @parent: the index (in the scenario's steps) of the group that encloses
 *   the step, or -1 at the top level
 * @depth: how many groups enclose it
 *
 * Since: 0.3
 */
typedef struct {
    ThrongStepKind kind;
    gint parent;
    guint depth;
    /*< private >*/
    guint reserved[3];
} ThrongStepInfo;

/**
 * ThrongScenarioJourney:
 * @size: sizeof (ThrongScenarioJourney) as the core was built
 * @checks: (array length=n_checks): the scenario's checks, in the order
 *   they were added; over the interval in a snapshot, the run in the summary
 * @n_checks: how many
 * @step_info: (array length=n_steps): per step of the scenario, in the
 *   order of #ThrongScenarioSummary.steps
 * @data_exhausted: TRUE when the scenario's data set ran out of rows with
 *   `on_exhausted: stop` and its users ended early
 * @retry_attempts: (array length=n_steps) (nullable): per step, in the
 *   order of #ThrongScenarioSummary.steps, the samples that were an attempt
 *   of the step's `retry:` after a failed one (each is also a request, or
 *   not sent, and an error when it failed, in the step's stats); NULL
 *   from a core older than 0.5.  Read it through
 *   throng_journey_step_retry_attempts().  Since: 0.5
 * @retry_attempts_total: their sum over the scenario.  Since: 0.5
 *
 * What a scenario's journey adds to its summary.
 *
 * Since: 0.3
 */
typedef struct {
    gsize size;
    const ThrongCheckSummary *checks;
    guint n_checks;
    const ThrongStepInfo *step_info;
    gboolean data_exhausted;
    const guint64 *retry_attempts;
    guint64 retry_attempts_total;
} ThrongScenarioJourney;

/**
 * ThrongScenarioSummary:
 * @name: the scenario's name
 * @users: configured (largest) number of users
 * @active_users: users running now (snapshots) or at the end (summary)
 * @iterations: iterations completed
 * @stats: all steps together
 * @steps: (array length=n_steps): per step
 * @dropped_iterations: arrival-rate scenarios: iterations that were due
 *   but found no free user, so never ran
 * @scheduled_users: closed-model scenarios (`users`, `ramping-users`): how
 *   many users the plan's schedule (its ramp-up or stages) wants running at
 *   the time of the snapshot or summary; 0 before the scenario's
 *   `start_after`, from its end on, and in open-model scenarios.  A
 *   scenario bounded by `iterations` only wants all its users until they
 *   finish.  Read it only when @has_scheduled.  Since: 0.2
 * @has_scheduled: TRUE when @scheduled_users and @scheduled_rate are
 *   filled; FALSE from a core older than 0.2 (the fields were reserved
 *   slots, always zero), and in a summary rebuilt from a file that lacks
 *   them.  Since: 0.2
 * @scheduled_rate: open-model scenarios (`constant-arrival-rate`,
 *   `ramping-arrival-rate`): the iterations per second the schedule wants
 *   started at that time, the rate its stages have reached; 0 outside the
 *   scenario's time and in closed-model scenarios.  Since: 0.2
 * @journey: (nullable): checks, groups and the data set's state; NULL from
 *   a core older than 0.3 (the field was a reserved slot).  Since: 0.3
 *
 * The three fields of 0.2 and the one of 0.3 took reserved slots, so the struct's size (the
 * stride of #ThrongSummary.scenarios) is that of 0.1.
 *
 * Since: 0.1
 */
typedef struct {
    const char *name;
    guint users;
    guint active_users;
    guint64 iterations;
    ThrongStats stats;
    const ThrongStepSummary *steps;
    guint n_steps;
    guint64 dropped_iterations;
    guint scheduled_users;
    gboolean has_scheduled;
    gdouble scheduled_rate;
    const ThrongScenarioJourney *journey;
} ThrongScenarioSummary;

/**
 * ThrongThresholdResult:
 * @expression: the threshold as written in the plan, with its subject made
 *   explicit ("checkout.p99 < 200ms")
 * @actual: the measured value, in the threshold's unit ("184ms", "0.3%")
 * @passed: whether the condition held
 *
 * Since: 0.1
 */
typedef struct {
    const char *expression;
    const char *actual;
    gboolean passed;
    /*< private >*/
    gpointer reserved[2];
} ThrongThresholdResult;

/**
 * ThrongShardSummary:
 * @size: sizeof (ThrongShardSummary) as the core was built
 * @index: the shard's index I (from 0)
 * @count: the number of shards N
 * @plan_sha256: SHA-256 of the normalised plan as it ran (after `--set`
 *   and variables): equal in every shard of one run
 * @throng_version: the version of the throng that ran the shard
 * @start_wall_us: when the shard's load started, µs since the epoch
 * @start_at_wall_us: the `--start-at` instant, or 0 when none was given
 * @late_us: how late the shard reached @start_at_wall_us (0 when on time
 *   or without one); over a second, its schedule starts from when it
 *   reached it, not from @start_at_wall_us
 * @clock: the clock @start_wall_us was read from, and its synchronisation
 * @thresholds: (array zero-terminated=1) (nullable): the plan's thresholds,
 *   written out with their subjects, left to `throng merge` to judge (a
 *   shard's p99 is not the run's)
 * @file: in a merged summary's @shards, the file the shard was read from
 * @requests: in @shards, the shard's requests
 * @cpu_user_us: in @shards, the shard's user CPU time
 * @cpu_system_us: in @shards, its system CPU time
 * @cpu_share: in @shards, its CPU share (#ThrongSummary.cpu_share)
 * @lag_p99_us: in @shards, its scheduling lag p99
 * @saturated: in @shards, whether that shard's generator saturated
 * @workers: in @shards, its worker threads
 *
 * One shard of a distributed run (docs/distributed.md).
 *
 * Since: 0.3
 */
typedef struct {
    gsize size;
    guint index;
    guint count;
    const char *plan_sha256;
    const char *throng_version;
    gint64 start_wall_us;
    gint64 start_at_wall_us;
    gint64 late_us;
    const char *clock;
    const char *const *thresholds;
    const char *file;
    guint64 requests;
    gint64 cpu_user_us;
    gint64 cpu_system_us;
    gdouble cpu_share;
    gint64 lag_p99_us;
    gboolean saturated;
    guint workers;
    /*< private >*/
    gpointer reserved[4];
} ThrongShardSummary;

/**
 * ThrongCustomMetricKind:
 * @THRONG_CUSTOM_COUNTER: a sum of the values recorded (k6's Counter)
 * @THRONG_CUSTOM_GAUGE: the last value recorded, with the smallest and
 *   the largest (k6's Gauge)
 * @THRONG_CUSTOM_RATE: the share of values that were true (k6's Rate)
 * @THRONG_CUSTOM_TREND: the distribution of the values, in a histogram
 *   (k6's Trend)
 *
 * Values are only ever appended; a reader that meets one it does not know
 * shows the metric's @count and @invalid only.
 *
 * Since: 0.5
 */
typedef enum {
    THRONG_CUSTOM_COUNTER,
    THRONG_CUSTOM_GAUGE,
    THRONG_CUSTOM_RATE,
    THRONG_CUSTOM_TREND,
} ThrongCustomMetricKind;

/**
 * THRONG_CUSTOM_TREND_SCALE:
 *
 * A trend's histogram holds each value times this (rounded), so that the
 * histogram's integers keep three decimals: a trend of milliseconds is
 * kept in µs, like the latencies.  Divide what the histogram returns by
 * it.  A trend takes values from 0 to 3 600 000 (one hour of µs over the
 * scale); others are counted in @invalid.
 *
 * Since: 0.5
 */
#define THRONG_CUSTOM_TREND_SCALE 1000.0

/**
 * ThrongCustomMetric:
 * @size: sizeof (ThrongCustomMetric) as the core was built: the stride of
 *   #ThrongSummary.metrics
 * @name: the metric's name, as the plan declares it
 * @kind: its kind
 * @count: values recorded (valid ones)
 * @invalid: values refused: not a number (for a rate: not true, false, 1
 *   or 0), a template that could not expand (a variable not set), or a
 *   trend's value outside its range; never counted as zero
 * @sum: the sum of the values (a counter's total)
 * @min: the smallest value (gauge, trend); 0 when @count is 0
 * @max: the largest value (gauge, trend)
 * @last: a gauge's last value
 * @last_wall_us: when it was recorded, µs since the epoch: merging keeps
 *   the later one
 * @trues: a rate's true values (its rate is @trues / @count)
 * @histogram: (nullable): a trend's values times
 *   %THRONG_CUSTOM_TREND_SCALE; NULL for the other kinds.  The core's
 *   (transfer none)
 *
 * One metric of the plan's own, with its figures.
 *
 * Since: 0.5
 */
typedef struct {
    gsize size;
    const char *name;
    ThrongCustomMetricKind kind;
    guint64 count;
    guint64 invalid;
    gdouble sum;
    gdouble min;
    gdouble max;
    gdouble last;
    gint64 last_wall_us;
    guint64 trues;
    ThrongHistogram *histogram;
} ThrongCustomMetric;

/**
 * ThrongCapacityOutcome:
 * @THRONG_CAPACITY_FOUND: a level failed the objectives and the search
 *   narrowed in on the edge: #ThrongCapacityResult.rate is the highest
 *   passing rate, #ThrongCapacityResult.failing_rate the lowest failing one
 * @THRONG_CAPACITY_ABOVE_MAX: every level up to the plan's `rate.max`
 *   passed: the capacity is at least #ThrongCapacityResult.rate
 * @THRONG_CAPACITY_BELOW_START: the first level (`rate.start`) failed: the
 *   capacity is below it; #ThrongCapacityResult.rate is 0
 * @THRONG_CAPACITY_GENERATOR_LIMIT: throng itself saturated (CPU or lag
 *   over the plan's `saturation` limits, or iterations dropped for want of
 *   users) at #ThrongCapacityResult.generator_limit before the target
 *   failed: no capacity is claimed; #ThrongCapacityResult.rate is the
 *   highest rate that passed below it, a lower bound
 * @THRONG_CAPACITY_INCOMPLETE: the run ended (interrupted, or its time
 *   bound reached) before the search did
 *
 * Values are only ever appended; a reader that meets one it does not know
 * treats it as @THRONG_CAPACITY_INCOMPLETE.
 *
 * Since: 0.6
 */
typedef enum {
    THRONG_CAPACITY_FOUND,
    THRONG_CAPACITY_ABOVE_MAX,
    THRONG_CAPACITY_BELOW_START,
    THRONG_CAPACITY_GENERATOR_LIMIT,
    THRONG_CAPACITY_INCOMPLETE,
} ThrongCapacityOutcome;

/**
 * ThrongCapacityLevel:
 * @rate: the arrival rate held, iterations per second of the whole run
 *   (every shard together)
 * @start_us: when the level began, µs from the load's start
 * @window_us: how long its steady window (after the warm-up) lasted
 * @requests: requests completed in the window
 * @errors: failed steps in the window
 * @error_rate: their share (throng_stats_get_error_rate())
 * @p50_us: the window's median latency, µs
 * @p99_us: its 99th percentile, µs
 * @dropped: iterations due in the window that found no free user
 * @passed: whether every objective held over the window
 * @saturated: whether throng itself was the limit in the window
 * @failed: (nullable): when the level failed, the first objective that did
 *   not hold, with its measured value ("p99 < 50ms: 212ms"), or why throng
 *   was the limit
 *
 * One level of a capacity search, a point of its curve.
 *
 * Since: 0.6
 */
typedef struct {
    gdouble rate;
    gint64 start_us;
    gint64 window_us;
    guint64 requests;
    guint64 errors;
    gdouble error_rate;
    gint64 p50_us;
    gint64 p99_us;
    guint64 dropped;
    gboolean passed;
    gboolean saturated;
    const char *failed;
    /*< private >*/
    gpointer reserved[2];
} ThrongCapacityLevel;

/**
 * ThrongCapacityResult:
 * @size: sizeof (ThrongCapacityResult) as the core was built
 * @scenario: the name of the scenario whose executor is `capacity`
 * @outcome: how the search ended
 * @rate: the highest rate that met every objective, iterations per second
 *   of the whole run; 0 when none did
 * @failing_rate: the lowest rate above @rate that failed an objective; 0
 *   when none did
 * @generator_limit: with %THRONG_CAPACITY_GENERATOR_LIMIT, the rate at
 *   which throng saturated; else 0
 * @objectives: (array zero-terminated=1): the objectives as judged
 *   ("checkout.p99 < 50ms")
 * @levels: (array length=n_levels): every level held, in the order held
 * @n_levels: how many
 * @message: one line for people: "capacity 196/s (p99 < 50ms), first
 *   failing 199/s", or "the generator is the limit at 41,000/s; add
 *   workers or shards"
 *
 * What a capacity search found (docs/capacity.md).
 *
 * Since: 0.6
 */
typedef struct {
    gsize size;
    const char *scenario;
    ThrongCapacityOutcome outcome;
    gdouble rate;
    gdouble failing_rate;
    gdouble generator_limit;
    const char *const *objectives;
    const ThrongCapacityLevel *levels;
    guint n_levels;
    const char *message;
} ThrongCapacityResult;

/**
 * ThrongSummary:
 * @size: sizeof (ThrongSummary) as the core was built
 * @plan_name: the plan's `name`
 * @plan_file: the plan's path
 * @start_wall_us: when the load started, µs since the epoch
 * @end_wall_us: when it ended (snapshots: now)
 * @elapsed_us: monotonic time since the start
 * @planned_us: the run's planned length when it is known, else 0
 * @interval_us: for a snapshot, the length of the interval its stats cover;
 *   0 in the final summary
 * @cpu_user_us: throng's user CPU time since the start (whole process)
 * @cpu_system_us: its system CPU time
 * @workers: worker threads
 * @total: every scenario together
 * @scenarios: (array length=n_scenarios): per scenario
 * @warnings: (array zero-terminated=1): human-readable warnings about the
 *   run itself (e.g. the load generator saturated)
 * @interrupted: TRUE when the run was stopped before its planned end
 * @thresholds: (array length=n_thresholds): in the final summary, every
 *   threshold of the plan and its outcome; NULL in snapshots
 * @n_thresholds: how many
 * @samples_dropped: samples that reporters did not receive because they
 *   fell behind (counters and histograms still include them)
 * @cpu_share: throng's CPU time over the interval (snapshot) or the run
 *   (summary), as a share of the cores its workers may use (1.0 = all)
 * @lag_p99_us: p99 of how late iterations and timed steps started against
 *   their schedule, over the interval or the run
 * @loop_delay_max_us: the largest delay of a worker's event loop seen
 * @saturated: @cpu_share or @lag_p99_us passed their limits, or a worker
 *   did not report within the second: the figures may describe throng
 *   rather than the target
 * @load_us: how long the load ran, the time request rates are over: in the
 *   summary, from the start to the completion of the last step counted, so
 *   that waiting for steps that were then cancelled (a graceful stop after
 *   Ctrl-C or at the end of a scenario's `duration`) is left out; in a
 *   snapshot, @interval_us.  Since 0.2
 * @interrupted_iterations: iterations cut short because the run or their
 *   scenario ended while they ran: the step in flight was cancelled (and
 *   is not counted) or the iteration's remaining steps never ran (k6's
 *   "interrupted iterations").  Since 0.2
 * @never_started: TRUE when no load was ever sent because the run failed
 *   to start (a reporter's `open` failed, a protocol could not create a
 *   user, or the run was interrupted first): the figures are empty and a
 *   reporter should write no results, only release what `open` took.
 *   Since 0.2
 * @shard: (nullable): in the summary of a run given `--shard` or
 *   `--start-at`, what that shard states about itself; NULL otherwise.
 *   Appended: read it only when @size covers it.  Since: 0.3
 * @shards: (array length=n_shards) (nullable): in a summary made by
 *   `throng merge`, each shard merged, by index.  Since: 0.3
 * @n_shards: how many
 * @partial: a merged summary that lacks some shards (`--allow-partial`):
 *   its figures are not the whole run's.  Since: 0.3
 * @metrics: (array length=n_metrics) (nullable): the plan's own metrics
 *   (its `metrics:` map), in the plan's order; over the interval in a
 *   snapshot, the run in the summary.  Appended: read it only when @size
 *   covers it.  Since: 0.5
 * @n_metrics: how many.  Since: 0.5
 * @retry_attempts: the samples of the whole run that were an attempt of a
 *   step's `retry:` (#ThrongScenarioJourney.retry_attempts); over the
 *   interval in a snapshot.  Appended: read it only when @size covers it.
 * @setup: (nullable): the plan's `setup:` steps, run by one user before
 *   the load, as a scenario named "setup" (its steps, checks, stats); in
 *   none of @scenarios, @total nor the thresholds.  NULL when the plan has
 *   none, in snapshots, and on a shard other than 0.  Appended: read it
 *   only when @size covers it.  Since: 0.5
 * @teardown: (nullable): `teardown:`, run after the load, likewise.
 *   Since: 0.5
 * @capacity: (nullable): in the summary of a run with a scenario whose
 *   executor is `capacity`, what its search found; NULL otherwise and in
 *   snapshots.  Appended: read it only when @size covers it.  Since: 0.6
 *
 * In snapshots, @cpu_user_us and @cpu_system_us cover the interval; in the
 * summary, the run.
 *
 * In a snapshot, the stats cover the last interval only; in the summary,
 * the whole run.
 *
 * Since: 0.1
 */
typedef struct {
    gsize size;
    const char *plan_name;
    const char *plan_file;
    gint64 start_wall_us;
    gint64 end_wall_us;
    gint64 elapsed_us;
    gint64 planned_us;
    gint64 interval_us;
    gint64 cpu_user_us;
    gint64 cpu_system_us;
    guint workers;
    ThrongStats total;
    const ThrongScenarioSummary *scenarios;
    guint n_scenarios;
    const char *const *warnings;
    gboolean interrupted;
    const ThrongThresholdResult *thresholds;
    guint n_thresholds;
    guint64 samples_dropped;
    gdouble cpu_share;
    gint64 lag_p99_us;
    gint64 loop_delay_max_us;
    gboolean saturated;
    gint64 load_us;
    guint64 interrupted_iterations;
    gboolean never_started;
    const ThrongShardSummary *shard;
    const ThrongShardSummary *shards;
    guint n_shards;
    gboolean partial;
    const ThrongCustomMetric *metrics;
    guint n_metrics;
    guint64 retry_attempts;
    const ThrongScenarioSummary *setup;
    const ThrongScenarioSummary *teardown;
    const ThrongCapacityResult *capacity;
} ThrongSummary;

G_END_DECLS
