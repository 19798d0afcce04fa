/* SPDX-License-Identifier: MIT */
/*
 * The HTTP/1.1 request head of the fast transport (request.h): one
 * writer for every head, which either knows each value or leaves a hole
 * for it, and the per-request walk of a step's plan; and what both HTTP
 * versions ask of a request (its body's length, whether it may be sent
 * twice).
 */
#include "request.h"

#include <string.h>

typedef enum {
    FAST_PART_TEXT,
    FAST_PART_TARGET,
    FAST_PART_HEADER,
    FAST_PART_LENGTH,
} FastPartKind;

typedef struct {
    GString *text;
    GArray *parts; /* FastPart; NULL when every value is known */
    gsize mark;    /* where the literal run not yet in @parts starts */
} HeadWriter;

/* Ends the literal run so far as a part. */
static void
writer_flush (HeadWriter *w)
{
    FastPart part = { .kind = FAST_PART_TEXT };

    if (w->parts == NULL || w->text->len == w->mark)
        return;
    part.offset = (guint32)w->mark;
    part.length = (guint32)(w->text->len - w->mark);
    g_array_append_val (w->parts, part);
    w->mark = w->text->len;
}

static void
writer_hole (HeadWriter *w, FastPartKind kind, guint header)
{
    FastPart part = { .kind = (guint8)kind, .header = header };

    g_assert (w->parts != NULL);
    writer_flush (w);
    g_array_append_val (w->parts, part);
}

static gboolean
headers_have (const GArray *headers, const char *name)
{
    if (headers == NULL)
        return FALSE;
    for (guint i = 0; i < headers->len; i++) {
        const HttpHeader *h = &g_array_index (headers, HttpHeader, i);
        if (g_ascii_strcasecmp (h->name, name) == 0)
            return TRUE;
    }
    return FALSE;
}

/*
 * The one writer of a head.  @target NULL is a hole; so is each header
 * of @holes (a step) that varies per request, and the Content-Length value when
 * @body_len is FAST_BODY_LENGTH_HOLE.
 */
static void
head_write (HeadWriter *w, const char *method, const char *host, guint16 port, gboolean tls,
            const char *target, const GArray *headers, const HttpStep *holes,
            gssize body_len, gboolean close, const HttpHop *hop)
{
    GString *out = w->text;

    g_string_append (out, method);
    g_string_append_c (out, ' ');
    if (target != NULL)
        g_string_append (out, target);
    else
        writer_hole (w, FAST_PART_TARGET, 0);
    g_string_append (out, " HTTP/1.1\r\n");
    if (!headers_have (headers, "Host")) {
        gboolean v6 = strchr (host, ':') != NULL && host[0] != '[';
        g_string_append_printf (out, "Host: %s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
        if (port != (tls ? 443 : 80))
            g_string_append_printf (out, ":%u", port);
        g_string_append (out, "\r\n");
    }
    if (headers != NULL) {
        for (guint i = 0; i < headers->len; i++) {
            const HttpHeader *h = &g_array_index (headers, HttpHeader, i);
            /* The transport frames the body and the connection itself. */
            if (g_ascii_strcasecmp (h->name, "Content-Length") == 0
                || (close && g_ascii_strcasecmp (h->name, "Connection") == 0)
                || (hop != NULL && !http_hop_sends_header (hop, h->name)))
                continue;
            g_string_append (out, h->name);
            g_string_append (out, ": ");
            if (holes != NULL && http_step_header_varies (holes, i))
                writer_hole (w, FAST_PART_HEADER, i);
            else
                g_string_append (out, h->value);
            g_string_append (out, "\r\n");
        }
    }
    if (!headers_have (headers, "User-Agent"))
        g_string_append (out, "User-Agent: throng/" THRONG_VERSION_STRING "\r\n");
    if (body_len == FAST_BODY_LENGTH_HOLE) {
        g_string_append (out, "Content-Length: ");
        writer_hole (w, FAST_PART_LENGTH, 0);
        g_string_append (out, "\r\n");
    } else if (body_len >= 0) {
        g_string_append_printf (out, "Content-Length: %" G_GSSIZE_FORMAT "\r\n", body_len);
    }
    if (close)
        g_string_append (out, "Connection: close\r\n");
    writer_flush (w);
}

void
fast_request_head_append (GString *out, const char *method, const char *host, guint16 port,
                          gboolean tls, const char *target, const GArray *headers, gssize body_len,
                          gboolean close, const HttpHop *hop)
{
    HeadWriter w = { .text = out, .parts = NULL, .mark = out->len };

    g_assert (target != NULL && body_len != FAST_BODY_LENGTH_HOLE);
    head_write (&w, method, host, port, tls, target, headers, NULL, body_len, close, hop);
}

void
fast_head_plan_init (FastHeadPlan *plan, const HttpStep *step, gssize body_len, gboolean close)
{
    HeadWriter w = {
        .text = g_string_sized_new (256),
        .parts = g_array_new (FALSE, FALSE, sizeof (FastPart)),
        .mark = 0,
    };

    head_write (&w, step->method, step->host, step->port, step->tls,
                step->url_template != NULL ? NULL : step->target, step->headers,
                step, body_len, close, NULL);
    plan->n_parts = w.parts->len;
    plan->parts = (FastPart *)(void *)g_array_free (w.parts, FALSE);
    plan->text = g_string_free (w.text, FALSE);
}

void
fast_head_plan_clear (FastHeadPlan *plan)
{
    g_clear_pointer (&plan->text, g_free);
    g_clear_pointer (&plan->parts, g_free);
    plan->n_parts = 0;
}

/* @value in decimal, written backwards from @end (24 bytes suffice); returns the first digit. */
static char *
format_length (char *end, gsize value)
{
    char *p = end;

    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    return p;
}

void
fast_head_plan_append (const FastHeadPlan *plan, GString *out, const HttpRequestText *text)
{
    for (guint i = 0; i < plan->n_parts; i++) {
        const FastPart *part = &plan->parts[i];

        switch ((FastPartKind)part->kind) {
        case FAST_PART_TEXT:
            http_string_append (out, plan->text + part->offset, part->length);
            break;
        case FAST_PART_TARGET:
            http_string_append (out, text->target->str, text->target->len);
            break;
        case FAST_PART_HEADER: {
            const HttpSpan *span = &g_array_index (text->spans, HttpSpan, part->header);
            http_string_append (out, text->values->str + span->offset, span->length);
            break;
        }
        case FAST_PART_LENGTH: {
            char digits[24], *end = digits + sizeof digits;
            char *first = format_length (end, text->body->len);
            http_string_append (out, first, (gsize)(end - first));
            break;
        }
        }
    }
}

static gboolean
method_has_body (const char *method)
{
    return strcmp (method, "POST") == 0 || strcmp (method, "PUT") == 0
           || strcmp (method, "PATCH") == 0;
}

gssize
fast_body_length (const HttpStep *step, const HttpRequestText *text, const char *method,
                  gboolean with_body)
{
    if (!with_body)
        return -1;
    if (http_step_body_varies (step) && text != NULL)
        return (gssize)text->body->len;
    if (step->body != NULL)
        return (gssize)g_bytes_get_size (step->body);
    return method_has_body (method) ? 0 : -1;
}

gboolean
fast_method_is_idempotent (const char *method)
{
    static const char *const idempotent[] = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" };

    for (guint i = 0; i < G_N_ELEMENTS (idempotent); i++)
        if (strcmp (method, idempotent[i]) == 0)
            return TRUE;
    return FALSE;
}
