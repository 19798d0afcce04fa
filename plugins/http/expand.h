/* SPDX-License-Identifier: MIT */
/*
 * Templated requests, for both transports: which parts of a step (url,
 * header values, body, a body_file with `template: true`) have `${...}`,
 * compiled once while the plan loads, and their expansion for one user
 * into buffers that user reuses.  A part without `${` stays the plain
 * text it always was, so a step with no template costs what it did.
 *
 * A templated url keeps the origin (scheme, host, port) it has at load:
 * its expansion is a path and query on that origin (a relative one is
 * resolved against base_url), and one that names another origin fails
 * the step with class `variable`.
 */
#pragma once

#include <string.h>

#include "auth.h"
#include "http.h"

/* Where a header's expanded value lies in HttpRequestText.values. */
typedef struct {
    gsize offset;
    gsize length; /* without the NUL that ends it */
} HttpSpan;

/*
 * g_string_append_len() without its general insert when the bytes fit,
 * for the few-byte appends a templated request is made of (GLib 2.74
 * inlines none of g_string_append_len).
 */
static inline void
http_string_append (GString *out, const char *s, gsize length)
{
    if (G_LIKELY (out->len + length < out->allocated_len)) {
        memcpy (out->str + out->len, s, length);
        out->len += length;
        out->str[out->len] = '\0';
    } else {
        g_string_append_len (out, s, (gssize)length);
    }
}

/*
 * A header the plan did not write (Authorization from a url's
 * credentials, a built body's Content-Type), added after the step's
 * templates were compiled; @value is taken.
 */
void http_step_add_header (HttpStep *step, const char *name, char *value);
/* Whether the step's headers have @name, in any case. */
gboolean http_step_has_header (const HttpStep *step, const char *name);

/* Whether header @i of @step is expanded per request (a template, or credentials auth.h builds). */
static inline gboolean
http_step_header_varies (const HttpStep *step, guint i)
{
    return step->header_templates != NULL
           && (step->header_templates[i] != NULL || http_auth_builds_header (step, i));
}

/* A user's expansion of the step in flight; every buffer is reused. */
typedef struct {
    GString *url;    /* the url's expansion, when not an absolute path (resolved then) */
    GString *target; /* the path and query sent: the url is expanded here */
    GString *body;
    GString *values;  /* expanded header values, each ending in a NUL */
    GArray *spans;    /* HttpSpan: where each templated header's value is in values */
    GArray *headers;  /* HttpHeader borrowing the step's names and the values: what is sent */
    GString *message; /* why the expansion failed */
    GString *scratch; /* one substitution of a form or json body, before it is encoded */
    GString *cookies; /* the step's `cookies:` (jar.h), each "name=value; Path=/" and a NUL */
    GString *digest;  /* Digest credentials (auth.h): "user", NUL, "password", NUL */
} HttpRequestText;

void http_request_text_init (HttpRequestText *text);
void http_request_text_clear (HttpRequestText *text);

/*
 * @text with each `${...}` (and `$${`) replaced by `x`: what a templated
 * url is checked as at load (the host, port and scheme it must keep).
 * (transfer full)
 */
char *http_url_placeholder (const char *text);

/*
 * Compiles the parts of @step that have `${`, from the nodes that set
 * them (@url and @body: the nodes that set those options).  A part whose
 * template turns out literal (`$${` only) gets its text back.  Leaves
 * @options->url the text to check at load (the placeholder form when
 * templated) and @options->body the literal body.  No-op when @scope is
 * NULL (a core older than 0.3).
 */
gboolean http_step_templates_compile (HttpStep *step, ThrongScope *scope, HttpOptions *options,
                                      const ThrongNode *url, const ThrongNode *body,
                                      GError **error);

/* Reads body_file (with `template: true`, compiles it): a located error when it cannot. */
gboolean http_step_body_file (HttpStep *step, ThrongScope *scope, const char *path,
                              gboolean templated, const ThrongNode *where, GError **error);

void http_step_templates_free (HttpStep *step);

/* Whether http_request_expand() has anything to do for @step. */
static inline gboolean
http_request_expands (const HttpStep *step)
{
    return step->templated || step->cookies != NULL || step->auth != NULL;
}

/*
 * Expands @step's templates (and its cookies and credentials) for @user into @text.  FALSE when a variable
 * is unset or an expansion cannot be sent (another origin, a line break
 * in a header): @sample then fails with class `variable` and a message
 * saying which, and nothing may be sent.
 */
gboolean http_request_expand (const HttpStep *step, ThrongUser *user, HttpRequestText *text,
                              ThrongSample *sample);

/* The URL the request goes to, as a GUri (soup sends by GUri); (transfer full). */
GUri *http_request_uri (const HttpStep *step, const HttpRequestText *text);

/* What the request sends, after http_request_expand() succeeded. */
static inline const char *
http_request_target (const HttpStep *step, const HttpRequestText *text)
{
    return step->url_template != NULL ? text->target->str : step->target;
}

static inline const GArray *
http_request_headers (const HttpStep *step, const HttpRequestText *text)
{
    return step->header_templates != NULL ? text->headers : step->headers;
}

/* The body: NULL (and 0) when the step has none. */
static inline const char *
http_request_body (const HttpStep *step, const HttpRequestText *text, gsize *length)
{
    if (http_step_body_varies (step)) {
        *length = text->body->len;
        return text->body->str;
    }
    if (step->body == NULL) {
        *length = 0;
        return NULL;
    }
    return g_bytes_get_data (step->body, length);
}
