/* SPDX-License-Identifier: MIT */
/*
 * The summary's `capacity` member: what a capacity search found and its
 * curve (docs/capacity.md).  Self-contained, so that it moves with the
 * run-file writer: one call from the summary document.
 */
#include "json-reporter.h"

static const char *const outcome_names[] = {
    [THRONG_CAPACITY_FOUND] = "found",
    [THRONG_CAPACITY_ABOVE_MAX] = "above-max",
    [THRONG_CAPACITY_BELOW_START] = "below-start",
    [THRONG_CAPACITY_GENERATOR_LIMIT] = "generator-limit",
    [THRONG_CAPACITY_INCOMPLETE] = "incomplete",
};

static void
member_double (JsonBuilder *builder, const char *name, gdouble value)
{
    json_builder_set_member_name (builder, name);
    json_builder_add_double_value (builder, value);
}

static void
member_int (JsonBuilder *builder, const char *name, gint64 value)
{
    json_builder_set_member_name (builder, name);
    json_builder_add_int_value (builder, value);
}

/*
 * "capacity": {"scenario", "outcome", "rate" (the highest passing rate,
 * per second; 0: none), "failing_rate", "generator_limit" (null unless the
 * generator was the limit), "objectives", "message", "curve": [{"rate",
 * "start_s", "window_s", "requests", "errors", "error_rate", "p50", "p99"
 * (µs, as every latency of the run file), "dropped", "passed", "saturated",
 * "failed"}]}; nothing when the run had no capacity search.
 */
void
json_add_capacity (JsonBuilder *builder, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, capacity) || summary->capacity == NULL)
        return;
    const ThrongCapacityResult *result = summary->capacity;
    guint outcome = (guint) result->outcome < G_N_ELEMENTS (outcome_names)
                        ? (guint) result->outcome
                        : THRONG_CAPACITY_INCOMPLETE;

    json_builder_set_member_name (builder, "capacity");
    json_builder_begin_object (builder);
    json_builder_set_member_name (builder, "scenario");
    json_builder_add_string_value (builder, result->scenario);
    json_builder_set_member_name (builder, "outcome");
    json_builder_add_string_value (builder, outcome_names[outcome]);
    member_double (builder, "rate", result->rate);
    member_double (builder, "failing_rate", result->failing_rate);
    json_builder_set_member_name (builder, "generator_limit");
    if (result->outcome == THRONG_CAPACITY_GENERATOR_LIMIT)
        json_builder_add_double_value (builder, result->generator_limit);
    else
        json_builder_add_null_value (builder);
    json_builder_set_member_name (builder, "objectives");
    json_builder_begin_array (builder);
    for (const char *const *o = result->objectives; o != NULL && *o != NULL; o++)
        json_builder_add_string_value (builder, *o);
    json_builder_end_array (builder);
    json_builder_set_member_name (builder, "message");
    json_builder_add_string_value (builder, result->message);

    json_builder_set_member_name (builder, "curve");
    json_builder_begin_array (builder);
    for (guint i = 0; i < result->n_levels; i++) {
        const ThrongCapacityLevel *level = &result->levels[i];

        json_builder_begin_object (builder);
        member_double (builder, "rate", level->rate);
        member_double (builder, "start_s", (gdouble) level->start_us / G_USEC_PER_SEC);
        member_double (builder, "window_s", (gdouble) level->window_us / G_USEC_PER_SEC);
        member_int (builder, "requests", (gint64) level->requests);
        member_int (builder, "errors", (gint64) level->errors);
        member_double (builder, "error_rate", level->error_rate);
        member_int (builder, "p50", level->p50_us);
        member_int (builder, "p99", level->p99_us);
        member_int (builder, "dropped", (gint64) level->dropped);
        json_builder_set_member_name (builder, "passed");
        json_builder_add_boolean_value (builder, level->passed);
        json_builder_set_member_name (builder, "saturated");
        json_builder_add_boolean_value (builder, level->saturated);
        json_builder_set_member_name (builder, "failed");
        if (level->failed != NULL)
            json_builder_add_string_value (builder, level->failed);
        else
            json_builder_add_null_value (builder);
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
    json_builder_end_object (builder);
}
