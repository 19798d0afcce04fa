/* SPDX-License-Identifier: MIT */
/*
 * --http-debug (THRONG_DEBUG=http): the first requests of each step as
 * sent, after expansion, and their responses' status, headers and the
 * start of the body, so that a user sees why an extractor or a check
 * failed.  Printed on stderr from the worker, a whole exchange half at a
 * time, each line tagged with its user ("[u3] > GET …") so that users
 * that interleave can be told apart; debugging output, not a report.
 */
#include "journey.h"

#include <stdlib.h>
#include <string.h>

/* Requests printed per step by `THRONG_DEBUG=http`. */
#define DEBUG_DEFAULT 5
/* Body bytes printed per response. */
#define DEBUG_BODY 512

static gpointer
parse_debug (gpointer unused)
{
    const char *env = g_getenv ("THRONG_DEBUG");
    g_auto (GStrv) items = env != NULL ? g_strsplit (env, ",", -1) : NULL;
    guint n = 0;

    for (guint i = 0; items != NULL && items[i] != NULL; i++) {
        char *item = g_strstrip (items[i]);
        if (strcmp (item, "http") == 0)
            n = DEBUG_DEFAULT;
        else if (g_str_has_prefix (item, "http="))
            n = (guint)MIN (strtoul (item + 5, NULL, 10), (gulong)(G_MAXINT / 2));
    }
    return GUINT_TO_POINTER (n + 1);
}

guint
http_debug_requests (void)
{
    static GOnce once = G_ONCE_INIT;
    return GPOINTER_TO_UINT (g_once (&once, parse_debug, NULL)) - 1;
}

static void
append_headers (GString *out, const char *prefix, SoupMessageHeaders *headers)
{
    SoupMessageHeadersIter iter;
    const char *name, *value;

    soup_message_headers_iter_init (&iter, headers);
    while (soup_message_headers_iter_next (&iter, &name, &value))
        g_string_append_printf (out, "%s%s: %s\n", prefix, name, value);
}

/* A blank @mark line, then the start of @body, each line after "@mark ". */
static void
append_body (GString *out, char mark, const char *body, gsize length)
{
    gsize shown = MIN (length, DEBUG_BODY);

    if (length == 0)
        return;
    g_string_append_printf (out, "%c\n%c ", mark, mark);
    for (gsize i = 0; i < shown; i++) {
        char c = body[i];
        if (c == '\n' && i + 1 < shown)
            g_string_append_printf (out, "\n%c ", mark);
        else if (c == '\n' || c == '\r')
            continue;
        else if (c == '\t' || (guchar)c >= 0x20)
            g_string_append_c (out, c);
        else
            g_string_append_c (out, '.');
    }
    if (shown < length)
        g_string_append_printf (out, "… (%" G_GSIZE_FORMAT " bytes)", length);
    g_string_append_c (out, '\n');
}

/* Prints @text, whole lines, each after "[uID] ", in one write. */
static void
print_tagged (guint user_id, const GString *text)
{
    g_autoptr (GString) out = g_string_sized_new (text->len + 64);
    g_autofree char *tag = g_strdup_printf ("[u%u] ", user_id);

    for (const char *line = text->str; *line != '\0';) {
        const char *end = strchr (line, '\n');
        gsize length = end != NULL ? (gsize)(end - line) : strlen (line);

        g_string_append (out, tag);
        g_string_append_len (out, line, (gssize)length);
        g_string_append_c (out, '\n');
        line += length + (end != NULL ? 1 : 0);
    }
    g_printerr ("%s", out->str);
}

/*
 * The request's Cookie field joins the step's own one and the jar's
 * after "; ", or is the jar's alone at the end of the head, as both
 * transports send it (RFC 6265 §5.4: one Cookie field).
 */
void
http_debug_request (guint user_id, const HttpStep *step, const HttpRequestText *text,
                    const char *jar_cookies)
{
    g_autoptr (GString) out = g_string_new (NULL);
    const GArray *headers = http_request_headers (step, text);
    const char *body;
    gsize length;
    gboolean joined = FALSE;

    g_string_append_printf (out, "> %s %s://%s:%u%s\n", step->method, step->tls ? "https" : "http",
                            step->host, step->port, http_request_target (step, text));
    for (guint i = 0; i < headers->len; i++) {
        const HttpHeader *header = &g_array_index (headers, HttpHeader, i);
        gboolean cookie
            = jar_cookies != NULL && !joined && g_ascii_strcasecmp (header->name, "Cookie") == 0;

        g_string_append_printf (out, "> %s: %s%s%s\n", header->name, header->value,
                                cookie ? "; " : "", cookie ? jar_cookies : "");
        joined = joined || cookie;
    }
    if (jar_cookies != NULL && !joined)
        g_string_append_printf (out, "> Cookie: %s\n", jar_cookies);
    body = http_request_body (step, text, &length);
    append_body (out, '>', body, length);
    print_tagged (user_id, out);
}

void
http_debug_response (guint user_id, const HttpStep *step, guint status, SoupMessageHeaders *headers,
                     const GString *body, gsize coded, const ThrongSample *sample)
{
    g_autoptr (GString) out = g_string_new (NULL);

    if (status != 0) {
        g_string_append_printf (out, "< %u %s\n", status, soup_status_get_phrase (status));
        append_headers (out, "< ", headers);
        if (body != NULL)
            append_body (out, '<', body->str, body->len);
        /* The decoded size has no place in the sample: it is shown here. */
        if (body != NULL && coded > 0)
            g_string_append_printf (out, "! decoded %" G_GSIZE_FORMAT " bytes from %" G_GSIZE_FORMAT
                                         " (Content-Encoding: %s)\n",
                                    body->len, coded,
                                    soup_message_headers_get_list (headers, "Content-Encoding"));
    }
    if (sample->error == THRONG_ERROR_NONE)
        g_string_append (out, "! ok\n");
    else
        g_string_append_printf (out, "! %s: %s\n", throng_error_class_name (sample->error),
                                sample->message != NULL ? sample->message : "");
    print_tagged (user_id, out);
}
