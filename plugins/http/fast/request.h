/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's HTTP/1.1 request head.  A step's head is written
 * once, at load, as a plan: literal text with holes where only a request
 * knows what goes (a templated url's target, a templated header's value,
 * a templated body's length).  Per request the plan is walked with one
 * append per part, no formatting and no allocation beyond the buffer's
 * growth.  A head with every value known (a plain step, a redirect) is
 * the same writer without holes, so both agree on every line.
 */
#pragma once

#include <glib.h>
#include "../expand.h"
#include "../redirect.h"

/* @body_len for a templated body: its length is a hole. */
#define FAST_BODY_LENGTH_HOLE (-2)

typedef struct {
    guint8 kind;    /* FastPartKind */
    guint32 header; /* FAST_PART_HEADER: the header's index in the step's list */
    guint32 offset; /* FAST_PART_TEXT: the text's place in the plan's text */
    guint32 length;
} FastPart;

typedef struct {
    char *text; /* every literal part's bytes */
    FastPart *parts;
    guint n_parts;
} FastHeadPlan;

/*
 * Appends to @out a request head without its final empty line: request
 * line, Host (unless @headers has one), @headers, User-Agent (unless
 * given), Content-Length when @body_len is not -1, and `Connection:
 * close` when @close; of a redirect's @hop (may be NULL), only the
 * headers it sends (http_hop_sends_header).  The caller appends optional
 * lines, then "\r\n" and the body.
 */
void fast_request_head_append (GString *out, const char *method, const char *host, guint16 port,
                               gboolean tls, const char *target, const GArray *headers,
                               gssize body_len, gboolean close, const HttpHop *hop);

/*
 * Writes @step's head as fast_request_head_append() would, with holes for
 * its templated parts: the target when the url is templated, each header
 * whose value is, and the Content-Length value when @body_len is
 * FAST_BODY_LENGTH_HOLE (the body is templated).
 */
void fast_head_plan_init (FastHeadPlan *plan, const HttpStep *step, gssize body_len,
                          gboolean close);
void fast_head_plan_clear (FastHeadPlan *plan);

/* Appends @plan's head with its holes filled from @text (http_request_expand() succeeded). */
void fast_head_plan_append (const FastHeadPlan *plan, GString *out, const HttpRequestText *text);

/*
 * The Content-Length a request of @step with @method sends: the body's
 * size when @with_body and the step has one, 0 for a bodiless method
 * that takes one (POST, PUT, PATCH), -1 for none.  Both versions ask it
 * (HTTP/1.1 writes the line, h2 the field), so it lives with the request.
 */
gssize fast_body_length (const HttpStep *step, const HttpRequestText *text, const char *method,
                         gboolean with_body);

/* GET, HEAD, PUT, DELETE, OPTIONS, TRACE: a request that may be sent twice. */
gboolean fast_method_is_idempotent (const char *method);
