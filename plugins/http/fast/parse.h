/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 framing for the fast transport: finding where a response head
 * ends, and decoding a chunked body without keeping it (the request head
 * is request.h's).  The response parser (response.c) puts these together with
 * the head reader (head.c, libsoup's for the rest) and the framing rule
 * of ../framing.c.
 */
#pragma once

#include <glib.h>
#include "../http.h"
#include "../framing.h"

/* Largest response head accepted; beyond it the response is malformed. */
#define FAST_MAX_HEAD HTTP_MAX_HEAD

/* The path and query of @uri as sent on a request line ("/" when empty); (transfer full). */
char *fast_uri_target (GUri *uri);

/*
 * Offset just past the empty line ending the head in @buf[0..len), or 0
 * when it has not arrived.  @from is how many bytes were already searched
 * (the search restarts a few bytes before it).
 */
gsize fast_head_end (const guint8 *buf, gsize len, gsize from);

typedef enum {
    FAST_BODY_MORE,  /* everything given was consumed; more is needed */
    FAST_BODY_DONE,  /* the body ended; *consumed says where */
    FAST_BODY_BAD,   /* not valid chunked encoding; `message` says how */
    FAST_BODY_LIMIT, /* the body is larger than allowed */
} FastBodyResult;

/* Bytes of chunk extensions and trailers one response may carry, together. */
#define FAST_MAX_CHUNK_META (64 * 1024)

/* A chunked-encoding decoder that only counts the payload's bytes. */
typedef struct {
    int state;
    guint64 chunk_left;
    guint64 total;       /* payload bytes so far */
    guint digits;        /* significant hex digits of the current size line */
    guint line_len;      /* length of the current trailer line */
    guint64 meta;        /* extension and trailer bytes so far */
    const char *message; /* why, on FAST_BODY_BAD (static) */
    GString *keep;       /* when not NULL, the payload is appended to it */
} FastChunked;

void fast_chunked_init (FastChunked *chunked);

/*
 * Consumes @data[0..len).  On FAST_BODY_DONE, *@consumed is the number of
 * bytes that belonged to the body; otherwise it is @len (or where the
 * error was met).  A size line is hex digits (leading zeros allowed),
 * optional blanks, then `;` and an extension or the line's end; CRLF and
 * a bare LF both end a line.
 */
FastBodyResult fast_chunked_feed (FastChunked *chunked, const guint8 *data, gsize len,
                                  guint64 max_body, gsize *consumed);
