/* SPDX-License-Identifier: MIT */
/*
 * Internals of the json plugin shared between its files: the reporter's
 * vtable (json.c) and the documents it writes (document.c).
 */
#pragma once

#include <json-glib/json-glib.h>
#include <throng/throng.h>

extern const ThrongReporter json_reporter;

/*
 * The summary document of docs/reporters.md.  @type, when not NULL, is
 * written first as "type" (the jsonl mode's "summary" line).  @plan_sha256
 * (may be NULL) is the plan file's hash, written as plan.sha256.  @targets
 * (may be NULL, as may each of its n_scenarios elements) is what each
 * scenario loads, written as scenarios[].target.
 */
JsonNode *json_document_summary (const ThrongSummary *summary, const char *type,
                                 const char *plan_sha256, const char *const *targets);

/* One jsonl "interval" object: the stats of the snapshot's interval. */
JsonNode *json_document_interval (const ThrongSummary *snapshot);

/* capacity.c: the summary's `capacity` member, when the run searched for one. */
void json_add_capacity (JsonBuilder *builder, const ThrongSummary *summary);

/* The last second formatted for sample times; zero-initialise. */
typedef struct {
    gboolean valid;
    gint64 second;
    char prefix[32];
} JsonTimeCache;

/* Appends one jsonl "sample" object (no newline). */
void json_document_append_sample (GString *out, JsonTimeCache *cache, const ThrongSample *sample,
                                  const char *scenario, const char *label);

/*
 * Appends @root as JSON text: compact, or @pretty with two-space indents.
 * Members keep the order they were added in.
 */
void json_document_write (GString *out, JsonNode *root, gboolean pretty);

/* ISO 8601 in UTC with milliseconds: "2026-12-02T14:20:01.123Z". */
char *json_document_time (gint64 wall_us);
