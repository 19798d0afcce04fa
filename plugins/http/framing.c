/* SPDX-License-Identifier: MIT */
/*
 * Response framing for both transports (framing.h).  Header values are
 * read as libsoup joins them: every line of a field, in order, joined
 * with ", ", so that a list on one line and the same list over two lines
 * frame alike (RFC 9110 §5.3).
 */
#include "framing.h"

#include <string.h>

/* One decimal element of a Content-Length list; blanks around it allowed. */
static gboolean
length_element (const char *start, const char *end, guint64 *out)
{
    guint64 n = 0;

    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (start == end)
        return FALSE;
    for (const char *p = start; p < end; p++) {
        guint digit;
        if (!g_ascii_isdigit (*p))
            return FALSE;
        digit = (guint)(*p - '0');
        if (n > (HTTP_MAX_LENGTH - digit) / 10)
            return FALSE;
        n = n * 10 + digit;
    }
    *out = n;
    return TRUE;
}

/*
 * @value is the one token @lower (lower case: letters and '-'), in any
 * case.  For a letter of @lower, (c | 0x20) equals it only when c is that
 * letter or its capital; '-' and the end are compared exactly.
 */
static gboolean
is_lone (const char *value, const char *lower)
{
    for (; *lower != '\0'; value++, lower++) {
        char c = *lower == '-' ? *value : (char)(*value | 0x20);
        if (c != *lower)
            return FALSE;
    }
    return *value == '\0';
}

/*
 * Whether the Connection list @value holds "close" and "keep-alive", as
 * soup_header_contains() answers; the value nearly every response sends,
 * a lone "keep-alive" or "close", is read without tokenizing the list (a
 * tenth of a keep-alive response's parsing went there).
 */
static void
connection_tokens (const char *value, gboolean *has_close, gboolean *has_keep_alive)
{
    if (is_lone (value, "keep-alive")) {
        *has_close = FALSE;
        *has_keep_alive = TRUE;
    } else if (is_lone (value, "close")) {
        *has_close = TRUE;
        *has_keep_alive = FALSE;
    } else {
        *has_close = soup_header_contains (value, "close");
        *has_keep_alive = soup_header_contains (value, "keep-alive");
    }
}

gboolean
http_content_length_parse (const char *value, guint64 *out)
{
    guint64 first = 0;
    gboolean have = FALSE;
    const char *p = value;

    /* RFC 9110 §8.6: a list of identical values may be read as one. */
    for (;;) {
        const char *comma = strchr (p, ',');
        const char *end = comma != NULL ? comma : p + strlen (p);
        guint64 n;

        if (!length_element (p, end, &n))
            return FALSE;
        if (have && n != first)
            return FALSE;
        first = n;
        have = TRUE;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *out = first;
    return TRUE;
}

/*
 * Where chunked stands in a Transfer-Encoding list: 1 when it is the
 * final coding, 0 when it is absent or not final (the body then runs to
 * the close), -1 when it appears more than once (RFC 9112 §6.1 forbids
 * it).  Codings are compared whole: "chunkedchunked" is not chunked.
 */
static int
chunked_position (const char *value)
{
    guint count = 0;
    gboolean last = FALSE;
    const char *p = value;

    while (*p != '\0') {
        const char *start, *end;
        const char *comma = strchr (p, ',');
        end = comma != NULL ? comma : p + strlen (p);
        start = p;
        while (start < end && (*start == ' ' || *start == '\t'))
            start++;
        const char *stop = end;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
            stop--;
        /* Parameters (";q=…") are not part of the coding's name. */
        const char *semi = memchr (start, ';', stop - start);
        if (semi != NULL)
            for (stop = semi; stop > start && (stop[-1] == ' ' || stop[-1] == '\t');)
                stop--;
        if (stop > start) {
            last = (gsize)(stop - start) == 7 && g_ascii_strncasecmp (start, "chunked", 7) == 0;
            count += last;
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    if (count > 1)
        return -1;
    return last ? 1 : 0;
}

const char *
http_framing_from_head (SoupMessageHeaders *headers, SoupHTTPVersion version, guint status,
                        gboolean head_only, HttpFraming *framing)
{
    return http_framing_from_fields (soup_message_headers_get_list (headers, "Connection"),
                                     soup_message_headers_get_list (headers, "Transfer-Encoding"),
                                     soup_message_headers_get_list (headers, "Content-Length"),
                                     version, status, head_only, framing);
}

const char *
http_framing_from_fields (const char *connection, const char *te, const char *cl,
                          SoupHTTPVersion version, guint status, gboolean head_only,
                          HttpFraming *framing)
{
    HttpFraming f = { HTTP_FRAMING_NONE, 0, TRUE };

    if (status < 100 || status > 599)
        return "status code outside 100-599";
    /* throng never asks to upgrade, so a switch is not an answer to its request. */
    if (status == 101)
        return "101 Switching Protocols without an upgrade request";

    /* As soup_message_headers_header_contains() reads the joined list. */
    gboolean has_close = FALSE, has_keep_alive = FALSE;
    if (connection != NULL)
        connection_tokens (connection, &has_close, &has_keep_alive);
    if (has_close || (version == SOUP_HTTP_1_0 && !has_keep_alive))
        f.keep_alive = FALSE;

    /* Both: the signature of request smuggling or response splitting (RFC 9112 §6.3). */
    if (te != NULL && cl != NULL)
        return "both Transfer-Encoding and Content-Length";
    if (cl != NULL && !http_content_length_parse (cl, &f.length))
        return "invalid Content-Length";

    if (head_only || status < 200 || status == 204 || status == 304) {
        f.kind = HTTP_FRAMING_NONE;
    } else if (te != NULL) {
        switch (chunked_position (te)) {
        case 1:
            f.kind = HTTP_FRAMING_CHUNKED;
            break;
        case 0:
            f.kind = HTTP_FRAMING_CLOSE;
            break;
        default:
            return "chunked applied more than once";
        }
    } else if (cl != NULL) {
        f.kind = f.length > 0 ? HTTP_FRAMING_LENGTH : HTTP_FRAMING_NONE;
    } else {
        f.kind = HTTP_FRAMING_CLOSE;
    }
    if (f.kind == HTTP_FRAMING_CLOSE)
        f.keep_alive = FALSE;
    *framing = f;
    return NULL;
}
