/* SPDX-License-Identifier: MIT */
/*
 * The run file's `capacity` member: what a capacity search found and its
 * curve (docs/capacity.md).  A file of its own beside runfile-write.c,
 * which calls it once from the summary document.
 */
#include <throng/throng.h>

#include "jsonwrite-private.h"
#include "runfile-write-private.h"

static const char *const outcome_names[] = {
    [THRONG_CAPACITY_FOUND] = "found",
    [THRONG_CAPACITY_ABOVE_MAX] = "above-max",
    [THRONG_CAPACITY_BELOW_START] = "below-start",
    [THRONG_CAPACITY_GENERATOR_LIMIT] = "generator-limit",
    [THRONG_CAPACITY_INCOMPLETE] = "incomplete",
};

/*
 * "capacity": {"scenario", "outcome", "rate" (the highest passing rate,
 * per second; 0: none), "failing_rate", "generator_limit" (null unless the
 * generator was the limit), "objectives", "message", "curve": [{"rate",
 * "start_s", "window_s", "requests", "errors", "error_rate", "p50", "p99"
 * (µs, as every latency of the run file), "dropped", "passed", "saturated",
 * "failed"}]}; nothing when the run had no capacity search.
 */
void
throng_runfile_write_capacity (JsonWrite *out, const ThrongSummary *summary)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, capacity) || summary->capacity == NULL)
        return;
    const ThrongCapacityResult *result = summary->capacity;
    guint outcome = (guint) result->outcome < G_N_ELEMENTS (outcome_names)
                        ? (guint) result->outcome
                        : THRONG_CAPACITY_INCOMPLETE;

    jsonwrite_member (out, "capacity");
    jsonwrite_begin_object (out);
    jsonwrite_member_string (out, "scenario", result->scenario);
    jsonwrite_member_string (out, "outcome", outcome_names[outcome]);
    jsonwrite_member_double (out, "rate", result->rate);
    jsonwrite_member_double (out, "failing_rate", result->failing_rate);
    jsonwrite_member (out, "generator_limit");
    if (result->outcome == THRONG_CAPACITY_GENERATOR_LIMIT)
        jsonwrite_double (out, result->generator_limit);
    else
        jsonwrite_null (out);
    jsonwrite_member (out, "objectives");
    jsonwrite_begin_array (out);
    for (const char *const *o = result->objectives; o != NULL && *o != NULL; o++)
        jsonwrite_string (out, *o);
    jsonwrite_end_array (out);
    jsonwrite_member_string (out, "message", result->message);

    jsonwrite_member (out, "curve");
    jsonwrite_begin_array (out);
    for (guint i = 0; i < result->n_levels; i++) {
        const ThrongCapacityLevel *level = &result->levels[i];

        jsonwrite_begin_object (out);
        jsonwrite_member_double (out, "rate", level->rate);
        jsonwrite_member_double (out, "start_s", (gdouble) level->start_us / G_USEC_PER_SEC);
        jsonwrite_member_double (out, "window_s", (gdouble) level->window_us / G_USEC_PER_SEC);
        jsonwrite_member_int (out, "requests", (gint64) level->requests);
        jsonwrite_member_int (out, "errors", (gint64) level->errors);
        jsonwrite_member_double (out, "error_rate", level->error_rate);
        jsonwrite_member_int (out, "p50", level->p50_us);
        jsonwrite_member_int (out, "p99", level->p99_us);
        jsonwrite_member_int (out, "dropped", (gint64) level->dropped);
        jsonwrite_member_bool (out, "passed", level->passed);
        jsonwrite_member_bool (out, "saturated", level->saturated);
        jsonwrite_member_string (out, "failed", level->failed);
        jsonwrite_end_object (out);
    }
    jsonwrite_end_array (out);
    jsonwrite_end_object (out);
}
