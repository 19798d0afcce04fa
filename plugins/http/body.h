/* SPDX-License-Identifier: MIT */
/*
 * Bodies built from fields, for both transports: `form:` (a map sent as
 * application/x-www-form-urlencoded, a list value repeating its key) and
 * `json:` (a YAML map or list sent as JSON: plain scalars keep their
 * type, strings are templates).  Compiled at load into parts: literal
 * text, already encoded, and templates encoded as they expand.  A body
 * without substitutions is its bytes from load on, as a `body:` is.
 */
#pragma once

#include "http.h"

typedef enum {
    HTTP_BODY_PART_LITERAL,
    HTTP_BODY_PART_FORM,        /* a template, percent-encoded as it expands */
    HTTP_BODY_PART_JSON,        /* a template, JSON-escaped inside its quotes */
} HttpBodyPartKind;

typedef struct {
    HttpBodyPartKind kind;
    GString *text;              /* literal */
    ThrongTemplate *tpl;        /* form, json */
} HttpBodyPart;

/*
 * Reads @form or @json (at most one, and not with a body or body_file)
 * into @step: its parts when a substitution varies the body, else
 * step->body; and the Content-Type that goes with it, unless the step
 * sets one.  Located errors.
 */
gboolean http_body_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *form,
                            const ThrongNode *json, GError **error);
void http_body_free (HttpStep *step);

/* Appends the body of @step's parts for @user to @out; FALSE with the reason in @why. */
gboolean http_body_expand (const HttpStep *step, ThrongUser *user, GString *out, GString *scratch,
                           GString *why);
