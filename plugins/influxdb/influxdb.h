/* SPDX-License-Identifier: MIT */
/*
 * Internals of the influxdb plugin shared between its files: the
 * reporter's vtable (influxdb.c) and the line protocol (lines.c).  The
 * sender that posts batches from a thread of its own is plugins/common's
 * push-sender.c, shared with the remote_write reporter.
 */
#pragma once

#include <throng/throng.h>

#include "push-sender.h"

extern const ThrongReporter influxdb_reporter;

/* ---- lines.c --------------------------------------------------------- */

/* Appends @text as a tag key or value, or a field key (commas, equals signs, spaces escaped). */
void lines_append_key (GString *out, const char *text);
/* Appends @text as a measurement name (commas and spaces escaped). */
void lines_append_measurement (GString *out, const char *text);
/* Appends ",KEY=VALUE" for a tag; an empty or NULL @value (forbidden in a tag) leaves it out. */
void lines_append_tag (GString *out, const char *key, const char *value);

/*
 * Fields, each preceded by the right separator: @first tells whether it
 * is the first field of the line (a space) or not (a comma).
 */
void lines_append_int (GString *out, gboolean *first, const char *key, guint64 value);
/* A float with @decimals digits after the point (a field's resolution: 3 for ms from µs). */
void lines_append_float (GString *out, gboolean *first, const char *key, gdouble value,
                         guint decimals);
void lines_append_bool (GString *out, gboolean *first, const char *key, gboolean value);
/* Ends the line with its timestamp in µs. */
void lines_end (GString *out, gint64 wall_us);
