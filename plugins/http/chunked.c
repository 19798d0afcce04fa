/* SPDX-License-Identifier: MIT */
/*
 * The chunked decoder (chunked.h): a byte-at-a-time state machine over
 * size lines and CRLFs that skips payload in bulk, so a body is counted
 * without being copied and a size line may arrive split across reads.
 */
#include "chunked.h"

#include <string.h>

enum {
    CHUNK_SIZE,    /* hex digits of a size line */
    CHUNK_BWS,     /* blanks after the size, before `;` or the line's end */
    CHUNK_EXT,     /* extension up to the end of the size line */
    CHUNK_SIZE_LF, /* LF after the size line's CR */
    CHUNK_DATA,    /* payload */
    CHUNK_DATA_CR, /* CR after payload */
    CHUNK_DATA_LF, /* LF after payload */
    CHUNK_TRAILER, /* trailer lines after the last chunk */
    CHUNK_TRAILER_LF,
};

/* 15 significant hex digits are under 2^60: a size past that is an attack, not a size. */
#define MAX_HEX_DIGITS 15

void
http_chunked_init (HttpChunked *chunked)
{
    memset (chunked, 0, sizeof *chunked);
    chunked->state = CHUNK_SIZE;
}

/* One byte of an extension or a trailer: TRUE while the response stays within its budget. */
static inline gboolean
meta_byte (HttpChunked *c)
{
    return ++c->meta <= HTTP_MAX_CHUNK_META;
}

HttpChunkedResult
http_chunked_feed (HttpChunked *c, const guint8 *data, gsize len, guint64 max_body, gsize *consumed)
{
    gsize i = 0;

    while (i < len) {
        guint8 ch = data[i];

        switch (c->state) {
        case CHUNK_SIZE:
            if (g_ascii_isxdigit (ch)) {
                /* line_len counts every digit; digits only the significant ones. */
                c->line_len++;
                if (c->chunk_left == 0 && ch == '0') {
                    /* Leading zeros are valid (RFC 9112 §7.1) but bounded like extensions. */
                    if (c->line_len > 1 && !meta_byte (c))
                        goto too_long;
                } else if (++c->digits > MAX_HEX_DIGITS) {
                    c->message = "chunk size too large";
                    goto bad;
                }
                c->chunk_left = c->chunk_left * 16 + g_ascii_xdigit_value (ch);
                i++;
                break;
            }
            if (c->line_len == 0) {
                c->message = "malformed chunk size";
                goto bad;
            }
            c->state = CHUNK_BWS;
            break;
        case CHUNK_BWS:
            i++;
            if (ch == ' ' || ch == '\t') {
                if (!meta_byte (c))
                    goto too_long;
            } else if (ch == ';') {
                c->state = CHUNK_EXT;
            } else if (ch == '\r') {
                c->state = CHUNK_SIZE_LF;
            } else if (ch == '\n') {
                goto size_line_done;
            } else {
                /* "5g": an extension starts with `;` (RFC 9112 §7.1.1). */
                c->message = "malformed chunk size";
                goto bad;
            }
            break;
        case CHUNK_EXT:
            i++;
            if (ch == '\r') {
                c->state = CHUNK_SIZE_LF;
            } else if (ch == '\n') {
                goto size_line_done;
            } else if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
                c->message = "control byte in a chunk extension";
                goto bad;
            } else if (!meta_byte (c)) {
                goto too_long;
            }
            break;
        case CHUNK_SIZE_LF:
            if (ch != '\n') {
                c->message = "malformed chunk size line";
                goto bad;
            }
            i++;
        size_line_done:
            c->digits = 0;
            c->line_len = 0;
            if (c->chunk_left == 0) {
                c->state = CHUNK_TRAILER;
                c->line_len = 0;
                break;
            }
            if (c->chunk_left > max_body || c->total > max_body - c->chunk_left) {
                *consumed = i;
                return HTTP_CHUNKED_LIMIT;
            }
            c->state = CHUNK_DATA;
            break;
        case CHUNK_DATA: {
            gsize n = MIN ((guint64)(len - i), c->chunk_left);
            if (c->keep != NULL)
                g_string_append_len (c->keep, (const char *)data + i, (gssize)n);
            i += n;
            c->chunk_left -= n;
            c->total += n;
            if (c->chunk_left == 0)
                c->state = CHUNK_DATA_CR;
            break;
        }
        case CHUNK_DATA_CR:
            i++;
            if (ch == '\r') {
                c->state = CHUNK_DATA_LF;
            } else if (ch == '\n') {
                c->state = CHUNK_SIZE;
            } else {
                c->message = "chunk longer than its size";
                goto bad;
            }
            break;
        case CHUNK_DATA_LF:
            if (ch != '\n') {
                c->message = "chunk longer than its size";
                goto bad;
            }
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
                    return HTTP_CHUNKED_DONE;
                }
                c->line_len = 0;
            } else if (ch == '\0') {
                c->message = "NUL byte in a trailer";
                goto bad;
            } else {
                c->line_len++;
                if (!meta_byte (c))
                    goto too_long;
            }
            break;
        case CHUNK_TRAILER_LF:
            if (ch != '\n') {
                c->message = "malformed trailer";
                goto bad;
            }
            i++;
            if (c->line_len == 0) {
                *consumed = i;
                return HTTP_CHUNKED_DONE;
            }
            c->line_len = 0;
            c->state = CHUNK_TRAILER;
            break;
        default:
            g_assert_not_reached ();
        }
    }
    *consumed = len;
    return HTTP_CHUNKED_MORE;

too_long:
    c->message = "chunk extensions or trailers too long";
bad:
    *consumed = i;
    return HTTP_CHUNKED_BAD;
}
