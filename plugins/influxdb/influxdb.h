/* SPDX-License-Identifier: MIT */
/*
 * Internals of the influxdb plugin shared between its files: the
 * reporter's vtable (influxdb.c), the line protocol (lines.c) and the
 * sender that posts batches from a thread of its own (sender.c).
 */
#pragma once

#include <throng/throng.h>

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

/* ---- sender.c -------------------------------------------------------- */

typedef struct _InfluxSender InfluxSender;

/*
 * How the sender posts: to @url (the whole write URL, query included),
 * with @authorization as the header's value (may be NULL), each attempt
 * bounded by @timeout_us; at most @max_points points wait to be sent
 * (older batches are dropped past that); a failed write is retried after
 * a backoff that doubles from 250 ms up to @backoff_max_us.
 */
typedef struct {
    const char *url;
    const char *authorization;
    gint64 timeout_us;
    guint64 max_points;
    gint64 backoff_max_us;
    /* The remote_write reporter shares this sender: its body's type and more headers. */
    const char *content_type;           /* NULL: line protocol's text/plain */
    const char *const *headers;         /* NULL or NULL-terminated NAME, VALUE pairs */
} InfluxSenderOptions;

/* What became of the points the sender was given. */
typedef struct {
    guint64 sent_points;
    guint64 dropped_points;     /* past the buffer's bound, refused by the database, or unsent at the end */
    guint64 dropped_requests;   /* the requests those points counted */
    guint64 failed_writes;      /* attempts that failed (each retried or dropped) */
    char *last_error;           /* why the last attempt failed, or NULL */
} InfluxSenderReport;

InfluxSender *influx_sender_start (const InfluxSenderOptions *options);

/*
 * Queues one batch of @n_points lines (transfer full) that count
 * @requests requests; never blocks on the network.
 */
void influx_sender_push (InfluxSender *sender, GBytes *lines, guint n_points, guint64 requests);

/*
 * Waits up to @timeout_us for everything queued to be written, then stops
 * the thread; fills @report (free its last_error).  Frees @sender.
 */
void influx_sender_finish (InfluxSender *sender, gint64 timeout_us, InfluxSenderReport *report);
