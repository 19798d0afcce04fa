/* SPDX-License-Identifier: MIT */
/*
 * Reading what a run wrote: the JSON summary by dotted path ("total.requests",
 * "scenarios.0.steps.1.stats.errors_by_class.reset"), with the sums the
 * tests check on every summary, and the csv reporter's file by rows.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Parses the JSON file at @path.  Returns the root node (free with
 * json_node_unref()) or NULL with @error set.
 */
JsonNode *throng_test_json_load (const char *path, GError **error);

/*
 * The node at a dotted @path under @root: object members by name, array
 * elements by decimal index ("scenarios.0.stats.connections").  NULL if
 * any component is missing.  The node belongs to @root.
 */
JsonNode *throng_test_json_get (JsonNode *root, const char *path);

/* TRUE if @path exists under @root. */
gboolean throng_test_json_has (JsonNode *root, const char *path);

/*
 * The integer / number / string / boolean at @path.  Asserts (with the
 * path in the message) that it exists and has that type.  A missing
 * member of "errors_by_class" is an error, not 0: use
 * throng_test_json_int_or() for those.
 */
gint64 throng_test_json_int (JsonNode *root, const char *path);
gint64 throng_test_json_int_or (JsonNode *root, const char *path, gint64 fallback);
double throng_test_json_double (JsonNode *root, const char *path);
const char *throng_test_json_string (JsonNode *root, const char *path);
gboolean throng_test_json_bool (JsonNode *root, const char *path);
/* The number of elements of the array (or members of the object) at @path. */
guint throng_test_json_length (JsonNode *root, const char *path);

/*
 * What a summary's STATS object says about errors; @stats is its path
 * ("total", "scenarios.0.steps.1.stats").  The count of error class
 * @klass (0 when the class is absent, as the summary leaves out empty
 * classes), and the sum over every class.
 */
gint64 throng_test_summary_class (JsonNode *root, const char *stats, const char *klass);
gint64 throng_test_summary_class_sum (JsonNode *root, const char *stats);

/*
 * Asserts that the figures of @stats add up: the classes sum to its
 * errors, and there are no more errors than requests.
 */
void throng_test_summary_assert_totals (JsonNode *root, const char *stats);

/* The first of the summary's "warnings" that holds @fragment (owned by @root), or NULL. */
const char *throng_test_summary_find_warning (JsonNode *root, const char *fragment);

/* TRUE if one of the summary's "warnings" holds @fragment. */
gboolean throng_test_summary_has_warning (JsonNode *root, const char *fragment);

/* The summary's warnings as test messages, each after "@label: ". */
void throng_test_summary_print_warnings (JsonNode *root, const char *label);

/* ------------------------------------------------------------------ */
/* CSV samples                                                         */

/*
 * The rows of the csv reporter's file at @path after its header (0 for an
 * empty file).  Asserts that the file can be read and ends in a whole
 * line: a torn last row fails the test.
 */
guint throng_test_csv_rows (const char *path);

G_END_DECLS
