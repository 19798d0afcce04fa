/* SPDX-License-Identifier: MIT */
/*
 * A small strict JSON tokenizer for reading the json reporter's jsonl
 * files back (runfile.c): one pass over a line into a flat array of
 * tokens, reused from line to line, with no allocation per value.  An
 * hour-long run is some fifty megabytes of JSON; json-glib's tree of
 * nodes and hash tables took seconds over it, this takes a fraction.
 */
#pragma once

#include <glib.h>

typedef enum {
    JSONTOK_OBJECT,
    JSONTOK_ARRAY,
    JSONTOK_STRING,     /* start and end exclude the quotes; may hold escapes */
    JSONTOK_NUMBER,
    JSONTOK_TRUE,
    JSONTOK_FALSE,
    JSONTOK_NULL,
} JsonTokType;

typedef struct {
    JsonTokType type;
    guint start;        /* offsets into the text */
    guint end;
    guint size;         /* objects: members; arrays: elements */
    guint next;         /* the index of the first token after this value */
    gboolean escaped;   /* strings: holds a backslash */
} JsonTok;

typedef struct {
    const char *text;
    gsize length;
    GArray *toks;       /* JsonTok; toks[0] is the root */
} JsonToks;

void jsontok_init (JsonToks *toks);
void jsontok_clear (JsonToks *toks);

/*
 * Tokenizes @text (@length bytes, not NUL-terminated): exactly one JSON
 * value, surrounded by white space at most.  Returns FALSE when it is not
 * valid JSON (a line cut short, another format); the tokens are then
 * meaningless.
 */
gboolean jsontok_parse (JsonToks *toks, const char *text, gsize length);

/* The value of member @name of the object at @index; -1 when absent, or @index is no object. */
gint jsontok_member (const JsonToks *toks, gint index, const char *name);

/* The @i-th element of the array at @index, or -1. */
gint jsontok_element (const JsonToks *toks, gint index, guint i);

/* Elements of the array (members of the object) at @index; 0 for anything else or -1. */
guint jsontok_length (const JsonToks *toks, gint index);

/* The number at @index, or 0 when it is not a number. */
gdouble jsontok_double (const JsonToks *toks, gint index);

/* The number at @index as an integer (exact for integers written as such), or 0. */
gint64 jsontok_int (const JsonToks *toks, gint index);

/* TRUE exactly when the value at @index is `true`. */
gboolean jsontok_bool (const JsonToks *toks, gint index);

/* The string at @index, unescaped, copied into @chunk; NULL when it is not a string. */
const char *jsontok_string (const JsonToks *toks, gint index, GStringChunk *chunk);

/* Whether the string at @index equals @text (compared unescaped). */
gboolean jsontok_string_equals (const JsonToks *toks, gint index, const char *text);
