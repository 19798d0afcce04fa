/* SPDX-License-Identifier: MIT */
/*
 * JSON text written as it is built, the counterpart of jsontok.c: members
 * in the order they are added, compact or indented by two spaces, doubles
 * with the 15 digits that survive a round trip, invalid UTF-8 repaired.
 * The run-file writer (runfile-write.c) writes every line through it; a
 * tree of nodes per summary would only be walked once and thrown away.
 */
#pragma once

#include <glib.h>

#define JSONWRITE_MAX_DEPTH 32

typedef struct {
    GString *out;
    gboolean pretty;
    gboolean after_name;                    /* a member's name is written, its value not yet */
    guint depth;                            /* containers open */
    gboolean array[JSONWRITE_MAX_DEPTH];    /* per depth: an array, not an object */
    gboolean filled[JSONWRITE_MAX_DEPTH];   /* per depth: holds a member or element already */
} JsonWrite;

/* Writes one value (usually an object) into @out, at its end. */
void jsonwrite_init (JsonWrite *write, GString *out, gboolean pretty);

void jsonwrite_begin_object (JsonWrite *write);
void jsonwrite_end_object (JsonWrite *write);
void jsonwrite_begin_array (JsonWrite *write);
void jsonwrite_end_array (JsonWrite *write);

/* Inside an object: the next value's name. */
void jsonwrite_member (JsonWrite *write, const char *name);

void jsonwrite_int (JsonWrite *write, gint64 value);
/* A non-finite value is written as 0; a whole number keeps a ".0". */
void jsonwrite_double (JsonWrite *write, gdouble value);
void jsonwrite_bool (JsonWrite *write, gboolean value);
/* NULL is written as null. */
void jsonwrite_string (JsonWrite *write, const char *value);
void jsonwrite_null (JsonWrite *write);

/* A member and its value in one call: jsonwrite_member() then the value's writer. */
void jsonwrite_member_int (JsonWrite *write, const char *name, gint64 value);
void jsonwrite_member_double (JsonWrite *write, const char *name, gdouble value);
void jsonwrite_member_bool (JsonWrite *write, const char *name, gboolean value);
void jsonwrite_member_string (JsonWrite *write, const char *name, const char *value);

/* @value in decimal appended to @out, outside any JsonWrite. */
void jsonwrite_append_int (GString *out, gint64 value);
/* @text as a JSON string (NULL: null) appended to @out, outside any JsonWrite. */
void jsonwrite_append_string (GString *out, const char *text);
