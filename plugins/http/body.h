/* SPDX-License-Identifier: MIT */
/*
 * Bodies built from fields, for both transports: `form:` (a map sent as
 * application/x-www-form-urlencoded, a list value repeating its key),
 * `json:` (a YAML map or list sent as JSON: plain scalars keep their
 * type, strings are templates) and `multipart:` (a list of parts sent as
 * multipart/form-data, values templates, files read at load).  Compiled
 * at load into parts: literal text, already encoded, and templates
 * encoded as they expand.  A body without substitutions is its bytes
 * from load on, as a `body:` is.
 */
#pragma once

#include "http.h"

typedef enum {
    HTTP_BODY_PART_LITERAL,
    HTTP_BODY_PART_FORM,        /* a template, percent-encoded as it expands */
    HTTP_BODY_PART_JSON,        /* a template, JSON-escaped inside its quotes */
    HTTP_BODY_PART_RAW,         /* a template, as it expands (a multipart value) */
} HttpBodyPartKind;

typedef struct {
    HttpBodyPartKind kind;
    GString *text;              /* literal */
    ThrongTemplate *tpl;        /* form, json */
} HttpBodyPart;

/*
 * Reads @form, @json or @multipart (at most one, and not with a body or
 * body_file) into @step: its parts when a substitution varies the body,
 * else step->body; and the Content-Type that goes with it, unless the
 * step sets one.  Located errors.
 */
gboolean http_body_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *form,
                            const ThrongNode *json, const ThrongNode *multipart, GError **error);

/* multipart.c: the parts of a `multipart:` list into @b (body.c's builder); the boundary chosen. */
typedef struct _HttpBodyBuilder HttpBodyBuilder;
gboolean http_multipart_compile (HttpBodyBuilder *b, const ThrongNode *multipart, char **boundary,
                                 GError **error);
/* body.c, for multipart.c: the literal text at the end of the body; a template part appended. */
GString *http_body_builder_literal (HttpBodyBuilder *b);
gboolean http_body_builder_add_template (HttpBodyBuilder *b, const ThrongNode *node,
                                         HttpBodyPartKind kind, GError **error);
void http_body_free (HttpStep *step);

/* Appends the body of @step's parts for @user to @out; FALSE with the reason in @why. */
gboolean http_body_expand (const HttpStep *step, ThrongUser *user, GString *out, GString *scratch,
                           GString *why);
