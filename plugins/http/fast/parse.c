/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 framing for the fast transport (parse.h).  The chunked
 * decoder is a byte-at-a-time state machine over size lines and CRLFs
 * that skips payload in bulk, so a body is counted without being copied
 * and a size line may arrive split across reads.
 */
#include "parse.h"

#include <string.h>

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

void
fast_request_head_append (GString *out, const char *method, const char *host, guint16 port,
                          gboolean tls, const char *target, const GArray *headers, gssize body_len,
                          gboolean close)
{
    g_string_append_printf (out, "%s %s HTTP/1.1\r\n", method, target);
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
                || (close && g_ascii_strcasecmp (h->name, "Connection") == 0))
                continue;
            g_string_append_printf (out, "%s: %s\r\n", h->name, h->value);
        }
    }
    if (!headers_have (headers, "User-Agent"))
        g_string_append (out, "User-Agent: throng/" THRONG_VERSION_STRING "\r\n");
    if (body_len >= 0)
        g_string_append_printf (out, "Content-Length: %" G_GSSIZE_FORMAT "\r\n", body_len);
    if (close)
        g_string_append (out, "Connection: close\r\n");
}

char *
fast_uri_target (GUri *uri)
{
    const char *path = g_uri_get_path (uri);
    const char *query = g_uri_get_query (uri);

    if (path == NULL || path[0] == '\0')
        path = "/";
    if (query != NULL)
        return g_strconcat (path, "?", query, NULL);
    return g_strdup (path);
}

gsize
fast_head_end (const guint8 *buf, gsize len, gsize from)
{
    /* Restart 3 bytes back: the terminator may straddle two reads. */
    gsize i = from > 3 ? from - 3 : 0;

    for (; i < len; i++) {
        const guint8 *nl = memchr (buf + i, '\n', len - i);
        if (nl == NULL)
            return 0;
        i = nl - buf;
        /* "\n\n" or "\n\r\n" after this LF ends the head. */
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

gboolean
fast_parse_content_length (const char *value, guint64 *out)
{
    guint64 n = 0;
    const char *p = value;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!g_ascii_isdigit (*p))
        return FALSE;
    for (; g_ascii_isdigit (*p); p++) {
        guint digit = *p - '0';
        if (n > (G_MAXUINT64 - digit) / 10)
            return FALSE;
        n = n * 10 + digit;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '\0')
        return FALSE;
    *out = n;
    return TRUE;
}

enum {
    CHUNK_SIZE,    /* hex digits of a size line */
    CHUNK_EXT,     /* extension up to the end of the size line */
    CHUNK_SIZE_LF, /* LF after the size line's CR */
    CHUNK_DATA,    /* payload */
    CHUNK_DATA_CR, /* CR after payload */
    CHUNK_DATA_LF, /* LF after payload */
    CHUNK_TRAILER, /* trailer lines after the last chunk */
    CHUNK_TRAILER_LF,
};

/* A chunk size line longer than this is an attack, not a size. */
#define MAX_HEX_DIGITS 15
#define MAX_TRAILER_LINE 8192

void
fast_chunked_init (FastChunked *chunked)
{
    memset (chunked, 0, sizeof *chunked);
    chunked->state = CHUNK_SIZE;
}

FastBodyResult
fast_chunked_feed (FastChunked *c, const guint8 *data, gsize len, guint64 max_body, gsize *consumed)
{
    gsize i = 0;

    while (i < len) {
        guint8 ch = data[i];

        switch (c->state) {
        case CHUNK_SIZE:
            if (g_ascii_isxdigit (ch)) {
                if (++c->digits > MAX_HEX_DIGITS)
                    goto bad;
                c->chunk_left = c->chunk_left * 16 + g_ascii_xdigit_value (ch);
                i++;
                break;
            }
            if (c->digits == 0)
                goto bad;
            c->state = CHUNK_EXT;
            break;
        case CHUNK_EXT:
            i++;
            if (ch == '\r')
                c->state = CHUNK_SIZE_LF;
            else if (ch == '\n')
                goto size_line_done;
            else if (ch != ';' && ch != ' ' && ch != '\t' && ch < 0x20)
                goto bad;
            break;
        case CHUNK_SIZE_LF:
            if (ch != '\n')
                goto bad;
            i++;
        size_line_done:
            c->digits = 0;
            if (c->chunk_left == 0) {
                c->state = CHUNK_TRAILER;
                c->line_len = 0;
                break;
            }
            if (c->chunk_left > max_body || c->total > max_body - c->chunk_left) {
                *consumed = i;
                return FAST_BODY_LIMIT;
            }
            c->state = CHUNK_DATA;
            break;
        case CHUNK_DATA: {
            gsize n = MIN ((guint64)(len - i), c->chunk_left);
            i += n;
            c->chunk_left -= n;
            c->total += n;
            if (c->chunk_left == 0)
                c->state = CHUNK_DATA_CR;
            break;
        }
        case CHUNK_DATA_CR:
            i++;
            if (ch == '\r')
                c->state = CHUNK_DATA_LF;
            else if (ch == '\n')
                c->state = CHUNK_SIZE;
            else
                goto bad;
            break;
        case CHUNK_DATA_LF:
            if (ch != '\n')
                goto bad;
            i++;
            c->state = CHUNK_SIZE;
            break;
        case CHUNK_TRAILER:
            i++;
            if (ch == '\r') {
                c->state = CHUNK_TRAILER_LF;
            } else if (ch == '\n') {
                if (c->line_len == 0) {
                    *consumed = i;
                    return FAST_BODY_DONE;
                }
                c->line_len = 0;
            } else if (++c->line_len > MAX_TRAILER_LINE) {
                goto bad;
            }
            break;
        case CHUNK_TRAILER_LF:
            if (ch != '\n')
                goto bad;
            i++;
            if (c->line_len == 0) {
                *consumed = i;
                return FAST_BODY_DONE;
            }
            c->line_len = 0;
            c->state = CHUNK_TRAILER;
            break;
        default:
            g_assert_not_reached ();
        }
    }
    *consumed = len;
    return FAST_BODY_MORE;

bad:
    *consumed = i;
    return FAST_BODY_BAD;
}
