/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's response parser: bytes in, one response out —
 * interim 1xx heads skipped (at most HTTP_MAX_INTERIM), and empty lines
 * before any status line (at most HTTP_MAX_EMPTY_LINES), the final head
 * read by head.c (or libsoup, when it is not simple), its framing decided
 * by framing.c, and the body
 * counted, never kept.  It does no I/O and reads no clock, so that the
 * fuzzer (tests/fuzz/fuzz-response.c) and the parser's table
 * (tests/unit/test-http-parse.c) drive it as the exchange does, and the
 * outcome does not depend on how the bytes were split.
 */
#pragma once

#include <glib.h>
#include <libsoup/soup.h>
#include <throng/sample.h>

#include "../chunked.h"
#include "../framing.h"
#include "head.h"
#include "parse.h"

typedef enum {
    FAST_RESPONSE_MORE,  /* all the input was taken; more is needed */
    FAST_RESPONSE_HEAD,  /* the final head was parsed: status, headers and framing are set */
    FAST_RESPONSE_DONE,  /* the response is complete */
    FAST_RESPONSE_ERROR, /* error_class and message say why */
} FastResponseResult;

typedef struct {
    /* the request's */
    gboolean head_only;
    guint64 max_body;

    int state;
    guint8 *head; /* the head so far, and a NUL: grown on demand up to FAST_MAX_HEAD + 1 bytes */
    gsize head_cap;
    gsize head_len;
    gsize head_scanned;
    guint interim;
    guint empty_lines; /* before a status line, in this response (HTTP_MAX_EMPTY_LINES) */
    gboolean empty_cr; /* an empty line's CR came; its LF must follow */
    /*
     * The final head's fields.  A simple head (head.h) is not parsed into
     * them until fast_response_headers() asks; h2.c fills them itself.
     */
    SoupMessageHeaders *headers;
    gboolean headers_pending; /* TRUE: built from head[0..head_len) on demand */
    gboolean set_cookie;      /* the final head has a Set-Cookie field */
    gboolean coded;           /* a pending head has a Content-Encoding field */
    gboolean soup_only;       /* tests: every head through libsoup, as before head.c */

    /* the final head's */
    SoupHTTPVersion version;
    guint status; /* 0 until the final head */
    HttpFraming framing;

    /* the body */
    guint64 body_left;
    guint64 body_bytes;

    /* the body's bytes are appended here when not NULL (set after fast_response_start) */
    GString *body;

    /* on FAST_RESPONSE_ERROR */
    ThrongErrorClass error_class;
    const char *message; /* static */

    /* Last, after what every response touches (a user's lines are cold
     * when a worker holds thousands): only a chunked body uses it. */
    HttpChunked chunked;
} FastResponse;

void fast_response_init (FastResponse *r);
void fast_response_clear (FastResponse *r);

/* Readies @r for the response to a new request. */
void fast_response_start (FastResponse *r, gboolean head_only, guint64 max_body);

/*
 * Takes @data[0..len); *@consumed says how much.  After HEAD, feed the
 * rest (even none: a response without a body is DONE then).  After DONE,
 * bytes past *@consumed are not the response's.  MORE consumes all.
 */
FastResponseResult fast_response_feed (FastResponse *r, const guint8 *data, gsize len,
                                       gsize *consumed);

/* The server closed: DONE when that ends the body, else ERROR. */
FastResponseResult fast_response_eof (FastResponse *r);

/*
 * The final head's fields (transfer none), parsed by libsoup on the
 * first call after a simple head: for cookies, redirects, extractors,
 * checks and --http-debug, not for every response.
 */
SoupMessageHeaders *fast_response_headers (FastResponse *r);

/*
 * Empties the headers for a head that another reader fills (h2.c), so
 * that fast_response_headers() returns what it put there and not an
 * earlier HTTP/1.1 head of the same user.
 */
SoupMessageHeaders *fast_response_headers_reset (FastResponse *r);

/* TRUE once the head was seen and before the response ended. */
static inline gboolean
fast_response_in_body (const FastResponse *r)
{
    return r->status != 0;
}
