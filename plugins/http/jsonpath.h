/* SPDX-License-Identifier: MIT */
/*
 * A JSONPath of members and indexes only (`$.a.b[0]`, `$['x y']`),
 * evaluated by scanning a body instead of parsing it (jsonpath.c).  The
 * value found reads as json-glib's would, but for numbers, which keep
 * the text the body gives them (`1e3` stays `1e3`).  The scan reads the
 * body only as far as the value: text after it is not checked.
 */
#pragma once

#include <glib.h>

typedef struct _HttpJsonPath HttpJsonPath;

typedef enum {
    HTTP_JSON_FOUND,   /* the value's text is in @out */
    HTTP_JSON_ABSENT,  /* the body is JSON as far as read, and the path selects nothing */
    HTTP_JSON_INVALID, /* the body is not JSON where the path leads */
} HttpJsonFound;

/* @text compiled, or NULL when it is not such a path (json-glib then evaluates it). */
HttpJsonPath *http_json_path_new (const char *text);
/* The same, with `[*]` and `.*` too: for http_json_path_find_all() only. */
HttpJsonPath *http_json_path_new_all (const char *text);
void http_json_path_free (HttpJsonPath *path);

/* Appends to @out the value @path selects in @body: a string's contents, other values' JSON text.
 */
HttpJsonFound http_json_path_find (const HttpJsonPath *path, const char *body, gsize length,
                                   GString *out);

/*
 * Appends to @out every value @path selects in @body, in document order, as
 * a compact JSON array (`[]` when none; strings and numbers as the body
 * writes them): an extractor's `all: true`.  The body is read to the end
 * of its first value; HTTP_JSON_INVALID (nothing appended) when that is
 * not JSON.
 */
HttpJsonFound http_json_path_find_all (const HttpJsonPath *path, const char *body, gsize length,
                                       GString *out);

/* Appends the unescaped contents of a JSON string, its quotes left out. */
void http_json_unescape (const char *text, gsize length, GString *out);
