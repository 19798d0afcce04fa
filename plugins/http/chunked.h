/* SPDX-License-Identifier: MIT */
/*
 * The chunked transfer coding (RFC 9112 §7.1), decoded once for both
 * transports: `fast` feeds it the bytes after a head, `soup` the bytes
 * libsoup's connection stream holds after one (soup/response.c), so a
 * chunk size, a chunk's end, the last chunk and the trailers are judged
 * alike whichever transport read them.  It counts the payload and keeps
 * it only when asked; it does no I/O.
 */
#pragma once

#include <glib.h>

typedef enum {
    HTTP_CHUNKED_MORE,  /* everything given was consumed; more is needed */
    HTTP_CHUNKED_DONE,  /* the body ended; *consumed says where */
    HTTP_CHUNKED_BAD,   /* not valid chunked encoding; `message` says how */
    HTTP_CHUNKED_LIMIT, /* the body is larger than allowed */
} HttpChunkedResult;

/* Bytes of chunk extensions and trailers one response may carry, together. */
#define HTTP_MAX_CHUNK_META (64 * 1024)

/* A chunked-encoding decoder that only counts the payload's bytes. */
typedef struct {
    int state;
    guint64 chunk_left;
    guint64 total;       /* payload bytes so far */
    guint digits;        /* significant hex digits of the current size line */
    guint line_len;      /* length of the current trailer line */
    guint64 meta;        /* extension and trailer bytes so far */
    const char *message; /* why, on HTTP_CHUNKED_BAD (static) */
    GString *keep;       /* when not NULL, the payload is appended to it */
} HttpChunked;

void http_chunked_init (HttpChunked *chunked);

/*
 * Consumes @data[0..len).  On HTTP_CHUNKED_DONE, *@consumed is the number of
 * bytes that belonged to the body; otherwise it is @len (or where the
 * error was met).  A size line is hex digits (leading zeros allowed),
 * optional blanks, then `;` and an extension or the line's end; CRLF and
 * a bare LF both end a line.
 */
HttpChunkedResult http_chunked_feed (HttpChunked *chunked, const guint8 *data, gsize len,
                                     guint64 max_body, gsize *consumed);
