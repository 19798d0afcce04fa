/* SPDX-License-Identifier: MIT */
/*
 * Where a response's body ends (RFC 9112 §6.3), decided once for both
 * transports from the parsed head: none, a length, chunked, or until the
 * server closes; and the heads both refuse with class `protocol` (a
 * status outside 100–599, an unsolicited 101, Content-Length with
 * Transfer-Encoding, Content-Lengths that disagree or are not decimal,
 * chunked applied twice).  `fast` frames its body by it; `soup` lets
 * libsoup frame and refuses what this refuses (docs/failure-modes.md).
 */
#pragma once

#include <libsoup/soup.h>

typedef enum {
    HTTP_FRAMING_NONE,    /* no body: HEAD, 1xx, 204, 304, Content-Length: 0 */
    HTTP_FRAMING_LENGTH,  /* Content-Length bytes */
    HTTP_FRAMING_CHUNKED, /* chunked is the final transfer coding */
    HTTP_FRAMING_CLOSE,   /* until the server closes the connection */
} HttpFramingKind;

typedef struct {
    HttpFramingKind kind;
    guint64 length;     /* HTTP_FRAMING_LENGTH */
    gboolean keep_alive; /* the connection may carry the next request */
} HttpFraming;

/* Largest response head accepted (libsoup's limit too); beyond it, class `protocol`. */
#define HTTP_MAX_HEAD (64 * 1024)

/* Interim (1xx) responses accepted before the final one; more is class `protocol`. */
#define HTTP_MAX_INTERIM 32

/*
 * Empty lines (CRLF or LF) accepted before a status line, counted per
 * response: RFC 9112 §2.2 asks a client to ignore at least one, and a
 * server that sends an extra CRLF after `100 Continue` sends one there.
 */
#define HTTP_MAX_EMPTY_LINES 32

/* Largest Content-Length accepted: 2^63 - 1. */
#define HTTP_MAX_LENGTH ((guint64)G_MAXINT64)

/*
 * The framing of a final response (status 101 or 200–599 … see above) of
 * @version with @headers to a request that was HEAD when @head_only.
 * Returns NULL and fills @framing, or a static message for a head that
 * must be refused with class `protocol`; @framing is then untouched.
 */
const char *http_framing_from_head (SoupMessageHeaders *headers, SoupHTTPVersion version,
                                    guint status, gboolean head_only, HttpFraming *framing);

/*
 * The same decision from the field values themselves, each every line of
 * its field joined with ", " (NULL when absent): for a parser that reads
 * these fields without filling a SoupMessageHeaders.
 */
const char *http_framing_from_fields (const char *connection, const char *transfer_encoding,
                                      const char *content_length, SoupHTTPVersion version,
                                      guint status, gboolean head_only, HttpFraming *framing);

/* A Content-Length value, possibly a list ("2, 2"): all elements decimal and equal. */
gboolean http_content_length_parse (const char *value, guint64 *out);
