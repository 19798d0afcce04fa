/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's response parser (response.h).  The head is
 * collected in its own buffer, up to FAST_MAX_HEAD bytes, and once its
 * empty line arrived read by head.c when it is simple (nearly every
 * response: no SoupMessageHeaders is filled then) or else by libsoup's
 * header parser, as every head was before head.c; body bytes are
 * counted where they lie.  Every refusal is decided on bytes alone, at
 * the byte that decides it, so any split of the input gives the same
 * outcome (the fuzzer checks exactly that).
 */
#include "response.h"

#include <string.h>

enum {
    RESPONSE_HEAD,
    RESPONSE_BODY,
    RESPONSE_DONE,
    RESPONSE_ERROR,
};

static const char status_prefix[] = "HTTP/";
#define STATUS_PREFIX_LEN (sizeof status_prefix - 1)

void
fast_response_init (FastResponse *r)
{
    memset (r, 0, sizeof *r);
    r->headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
}

void
fast_response_clear (FastResponse *r)
{
    g_clear_pointer (&r->head, g_free);
    r->head_cap = 0;
    g_clear_pointer (&r->headers, soup_message_headers_unref);
}

void
fast_response_start (FastResponse *r, gboolean head_only, guint64 max_body)
{
    r->head_only = head_only;
    r->max_body = max_body;
    r->state = RESPONSE_HEAD;
    r->head_len = 0;
    r->head_scanned = 0;
    r->interim = 0;
    r->empty_lines = 0;
    r->empty_cr = FALSE;
    r->status = 0;
    r->body_left = 0;
    r->body_bytes = 0;
    r->error_class = THRONG_ERROR_NONE;
    r->message = NULL;
    r->body = NULL;
    r->headers_pending = FALSE;
    r->set_cookie = FALSE;
    r->coded = FALSE;
}

SoupMessageHeaders *
fast_response_headers (FastResponse *r)
{
    if (r->headers_pending) {
        gboolean parsed;

        r->headers_pending = FALSE;
        soup_message_headers_clear (r->headers);
        /* head.c accepted these bytes, so libsoup does too (the fuzzer compares them). */
        parsed = soup_headers_parse_response ((const char *)r->head, r->head_len, r->headers,
                                              NULL, NULL, NULL);
        g_assert (parsed);
    }
    return r->headers;
}

SoupMessageHeaders *
fast_response_headers_reset (FastResponse *r)
{
    r->headers_pending = FALSE;
    soup_message_headers_clear (r->headers);
    return r->headers;
}

/* A field's value as framing.c reads it: NULL when absent; in @buf, NUL-ended. */
static const char *
field_value (const FastResponse *r, FastHeadField field, char *buf, gsize size)
{
    if (field.offset == 0)
        return NULL;
    if (field.length >= size)
        return NULL;
    memcpy (buf, r->head + field.offset, field.length);
    buf[field.length] = '\0';
    return buf;
}

/*
 * A simple head: status, version and framing from head.c's notes.  FALSE
 * when a framing value is too long for the stack (the caller asks libsoup).
 */
static gboolean
head_simple (FastResponse *r, const FastHead *head, const char **refused)
{
    char connection[256], te[256], cl[256];
    const char *values[3];

    values[0] = field_value (r, head->connection, connection, sizeof connection);
    values[1] = field_value (r, head->transfer_encoding, te, sizeof te);
    values[2] = field_value (r, head->content_length, cl, sizeof cl);
    if ((values[0] == NULL && head->connection.offset != 0)
        || (values[1] == NULL && head->transfer_encoding.offset != 0)
        || (values[2] == NULL && head->content_length.offset != 0))
        return FALSE;
    r->status = head->status;
    r->version = head->version;
    r->set_cookie = head->set_cookie;
    r->coded = head->coded;
    r->headers_pending = TRUE;
    *refused = http_framing_from_fields (values[0], values[1], values[2], head->version,
                                         head->status, r->head_only, &r->framing);
    return TRUE;
}

static FastResponseResult
fail (FastResponse *r, ThrongErrorClass error_class, const char *message)
{
    r->state = RESPONSE_ERROR;
    r->error_class = error_class;
    r->message = message;
    return FAST_RESPONSE_ERROR;
}

/*
 * The head in r->head[0..end) is complete: an interim response (skipped,
 * returns MORE) or the final one (HEAD), or a refusal (ERROR).
 */
static FastResponseResult
head_parsed (FastResponse *r, gsize end)
{
    SoupHTTPVersion version;
    guint status;
    gboolean parsed;
    const char *refused = NULL;
    FastHead simple;

    /* libsoup reads the status code with strtoul, which wants a string that ends. */
    r->head[end] = '\0';
    /* head.c refuses a NUL as any control byte, so only libsoup's way needs the check. */
    if (!r->soup_only && fast_head_scan (r->head, end, &simple)) {
        if (simple.status < 200) {
            /* 100-199 but 101: interim, as below. */
            if (simple.status != 101) {
                if (++r->interim > HTTP_MAX_INTERIM)
                    return fail (r, THRONG_ERROR_PROTOCOL, "too many interim responses");
                r->head_len = 0;
                r->head_scanned = 0;
                return FAST_RESPONSE_MORE;
            }
        }
        if (head_simple (r, &simple, &refused))
            goto framed;
    }
    /* libsoup would end the head at a NUL and read no further. */
    if (memchr (r->head, '\0', end) != NULL)
        return fail (r, THRONG_ERROR_PROTOCOL, "NUL byte in the response head");
    r->headers_pending = FALSE;
    soup_message_headers_clear (r->headers);
    parsed = soup_headers_parse_response ((const char *)r->head, end, r->headers, &version,
                                          &status, NULL);
    if (!parsed)
        return fail (r, THRONG_ERROR_PROTOCOL, "malformed response head");
    if (status >= 100 && status < 200 && status != 101) {
        /* 100 Continue, 103 Early Hints: the real response follows, within a bound. */
        if (++r->interim > HTTP_MAX_INTERIM)
            return fail (r, THRONG_ERROR_PROTOCOL, "too many interim responses");
        r->head_len = 0;
        r->head_scanned = 0;
        return FAST_RESPONSE_MORE;
    }
    r->status = status;
    r->version = version;
    r->set_cookie = soup_message_headers_get_one (r->headers, "Set-Cookie") != NULL;
    refused = http_framing_from_head (r->headers, version, status, r->head_only, &r->framing);
framed:
    if (refused != NULL)
        return fail (r, THRONG_ERROR_PROTOCOL, refused);
    if (r->framing.kind == HTTP_FRAMING_LENGTH) {
        if (r->framing.length > r->max_body)
            return fail (r, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
        r->body_left = r->framing.length;
    } else if (r->framing.kind == HTTP_FRAMING_CHUNKED) {
        http_chunked_init (&r->chunked);
        r->chunked.keep = r->body;
    }
    r->state = RESPONSE_BODY;
    return FAST_RESPONSE_HEAD;
}

/*
 * Room for @need head bytes and a NUL.  Most heads are a few hundred
 * bytes and most users idle: a buffer of the limit per connection would be
 * 64 KiB of every idle user's memory, so it grows by doubling instead.
 */
static void
head_reserve (FastResponse *r, gsize need)
{
    gsize cap = r->head_cap;

    if (need + 1 <= cap)
        return;
    cap = MAX (cap, 1024);
    while (cap < need + 1)
        cap *= 2;
    cap = MIN (cap, (gsize) FAST_MAX_HEAD + 1);
    r->head = g_realloc (r->head, cap);
    r->head_cap = cap;
}

/*
 * Before a status line: skips empty lines (CRLF or a bare LF, as the head
 * accepts both) from @data[*taken..len), and moves *@taken past them.
 * FALSE, with the response failed, at a CR that no LF follows or past
 * HTTP_MAX_EMPTY_LINES: byte by byte, so a line split over reads counts
 * once.
 */
static gboolean
skip_empty_lines (FastResponse *r, const guint8 *data, gsize len, gsize *taken)
{
    gsize i = *taken;

    for (; i < len; i++) {
        if (r->empty_cr) {
            if (data[i] != '\n') {
                *taken = i;
                fail (r, THRONG_ERROR_PROTOCOL, "no HTTP status line");
                return FALSE;
            }
            r->empty_cr = FALSE;
        } else if (data[i] == '\r') {
            r->empty_cr = TRUE;
            continue;
        } else if (data[i] != '\n') {
            break;
        }
        if (++r->empty_lines > HTTP_MAX_EMPTY_LINES) {
            *taken = i + 1;
            fail (r, THRONG_ERROR_PROTOCOL, "too many empty lines before the status line");
            return FALSE;
        }
    }
    *taken = i;
    return TRUE;
}

/* Head bytes: where the next head ends, if it does within @data[0..len). */
static FastResponseResult
head_feed (FastResponse *r, const guint8 *data, gsize len, gsize *consumed)
{
    gsize taken = 0;

    for (;;) {
        gsize room, n, old, end = 0;
        FastResponseResult result;

        if (r->head_len == 0) {
            if (!skip_empty_lines (r, data, len, &taken)) {
                *consumed = taken;
                return FAST_RESPONSE_ERROR;
            }
            if (taken == len) {
                *consumed = len;
                return FAST_RESPONSE_MORE;
            }
        }
        room = FAST_MAX_HEAD - r->head_len;
        n = MIN (len - taken, room);
        old = r->head_len;

        /* A head that arrives whole is found where it lies, and only it is copied. */
        if (old == 0) {
            end = fast_head_end (data + taken, n, 0);
            if (end != 0)
                n = end;
        }
        head_reserve (r, old + n);
        memcpy (r->head + old, data + taken, n);
        r->head_len += n;
        /* Not "HTTP/": an HTTP/0.9 answer or garbage, refused at the first byte that shows it. */
        if (old < STATUS_PREFIX_LEN
            && memcmp (r->head, status_prefix, MIN (r->head_len, STATUS_PREFIX_LEN)) != 0) {
            *consumed = taken + n;
            return fail (r, THRONG_ERROR_PROTOCOL, "no HTTP status line");
        }
        if (old > 0)
            end = fast_head_end (r->head, r->head_len, r->head_scanned);
        if (end == 0) {
            r->head_scanned = r->head_len;
            taken += n;
            if (r->head_len == FAST_MAX_HEAD) {
                *consumed = taken;
                return fail (r, THRONG_ERROR_PROTOCOL, "response head too large");
            }
            g_assert (taken == len);
            *consumed = len;
            return FAST_RESPONSE_MORE;
        }
        /* The head ends inside the bytes just copied; what follows is not the head's. */
        taken += end - old;
        r->head_len = end;
        result = head_parsed (r, end);
        if (result != FAST_RESPONSE_MORE) {
            *consumed = taken;
            return result;
        }
        if (taken == len) {
            *consumed = len;
            return FAST_RESPONSE_MORE;
        }
    }
}

static FastResponseResult
body_feed (FastResponse *r, const guint8 *data, gsize len, gsize *consumed)
{
    HttpChunkedResult result;
    gsize used;

    switch (r->framing.kind) {
    case HTTP_FRAMING_NONE:
        *consumed = 0;
        r->state = RESPONSE_DONE;
        return FAST_RESPONSE_DONE;
    case HTTP_FRAMING_LENGTH:
        used = (gsize)MIN ((guint64)len, r->body_left);
        if (r->body != NULL)
            g_string_append_len (r->body, (const char *)data, (gssize)used);
        r->body_left -= used;
        r->body_bytes += used;
        *consumed = used;
        if (r->body_left > 0)
            return FAST_RESPONSE_MORE;
        r->state = RESPONSE_DONE;
        return FAST_RESPONSE_DONE;
    case HTTP_FRAMING_CHUNKED:
        result = http_chunked_feed (&r->chunked, data, len, r->max_body, &used);
        r->body_bytes = r->chunked.total;
        switch (result) {
        case HTTP_CHUNKED_MORE:
            *consumed = len;
            return FAST_RESPONSE_MORE;
        case HTTP_CHUNKED_DONE:
            *consumed = used;
            r->state = RESPONSE_DONE;
            return FAST_RESPONSE_DONE;
        case HTTP_CHUNKED_LIMIT:
            *consumed = used;
            return fail (r, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
        case HTTP_CHUNKED_BAD:
        default:
            *consumed = used;
            return fail (r, THRONG_ERROR_PROTOCOL, r->chunked.message);
        }
    case HTTP_FRAMING_CLOSE:
    default:
        /* The limit is met at the same byte however the body was split. */
        if (len > r->max_body - r->body_bytes) {
            *consumed = (gsize)(r->max_body - r->body_bytes);
            r->body_bytes = r->max_body;
            return fail (r, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
        }
        *consumed = len;
        r->body_bytes += len;
        if (r->body != NULL)
            g_string_append_len (r->body, (const char *)data, (gssize)len);
        return FAST_RESPONSE_MORE;
    }
}

FastResponseResult
fast_response_feed (FastResponse *r, const guint8 *data, gsize len, gsize *consumed)
{
    switch (r->state) {
    case RESPONSE_HEAD:
        if (len == 0) {
            *consumed = 0;
            return FAST_RESPONSE_MORE;
        }
        return head_feed (r, data, len, consumed);
    case RESPONSE_BODY:
        return body_feed (r, data, len, consumed);
    case RESPONSE_DONE:
        *consumed = 0;
        return FAST_RESPONSE_DONE;
    case RESPONSE_ERROR:
    default:
        *consumed = 0;
        return FAST_RESPONSE_ERROR;
    }
}

FastResponseResult
fast_response_eof (FastResponse *r)
{
    switch (r->state) {
    case RESPONSE_BODY:
        if (r->framing.kind == HTTP_FRAMING_CLOSE) {
            r->state = RESPONSE_DONE;
            return FAST_RESPONSE_DONE;
        }
        if (r->framing.kind == HTTP_FRAMING_NONE) {
            r->state = RESPONSE_DONE;
            return FAST_RESPONSE_DONE;
        }
        break;
    case RESPONSE_DONE:
        return FAST_RESPONSE_DONE;
    case RESPONSE_ERROR:
        return FAST_RESPONSE_ERROR;
    default:
        break;
    }
    return fail (r, THRONG_ERROR_RESET, "connection closed before the response was complete");
}
