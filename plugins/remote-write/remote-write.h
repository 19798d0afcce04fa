/* SPDX-License-Identifier: MIT */
/*
 * Internals of the remote_write plugin shared between its files: the
 * reporter's vtable (remote-write.c), the checks' counters (checks.c) and
 * the encoding of the exposition text as a compressed WriteRequest
 * (series.c).  The figures and their series' names are the prometheus
 * plugin's (exposition.c); the sender is the one shared with influxdb
 * (plugins/common/push-sender.c).
 */
#pragma once

#include <throng/throng.h>

extern const ThrongReporter remote_write_reporter;

/* ---- checks.c -------------------------------------------------------- */

typedef struct _RemoteChecks RemoteChecks;

RemoteChecks *remote_checks_new (void);
void remote_checks_free (RemoteChecks *checks);

/* Adds a snapshot's interval (or, @replace, sets the final summary's counts). */
void remote_checks_take (RemoteChecks *checks, const ThrongSummary *summary, gboolean replace);

/* Appends the checks to @out in the text format, as the family throng_checks_total. */
void remote_checks_render (const RemoteChecks *checks, GString *out);

/* ---- series.c -------------------------------------------------------- */

/*
 * Encodes @text, a page in Prometheus' text format (version 0.0.4, as
 * exposition.c writes it), as a snappy-compressed WriteRequest: one time
 * series per line, each with the labels @labels adds (NAME, VALUE pairs,
 * NULL-terminated; they override the page's) and one sample at
 * @timestamp_ms.  Sets @n_series.  NULL with an error when @text does not
 * parse.
 */
GBytes *remote_write_encode (const char *text, gsize length, const char *const *labels,
                             gint64 timestamp_ms, guint *n_series, GError **error);

/*
 * Decodes a body remote_write_encode() made back to the text format, one
 * line per sample (`name{labels sorted} value timestamp`): for tests.
 */
char *remote_write_decode (GBytes *body, GError **error);
