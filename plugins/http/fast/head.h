/* SPDX-License-Identifier: MIT */
/*
 * A strict reader of the common response head: a status line
 * `HTTP/1.0` or `HTTP/1.1`, status 100-599 and a printable reason, then
 * `token: value` fields of printable ASCII, every line ended by CRLF
 * (RFC 9112 §4, §5).  It fills nothing: it notes where the four fields
 * throng's framing and cookies need lie.  Anything else (obs-fold, a bare
 * CR or LF, bytes past ASCII, a field repeated among those four, a line
 * libsoup would skip) is "not simple" and the caller hands the head to
 * libsoup, so the two readers never disagree about a head both accept.
 */
#pragma once

#include <glib.h>
#include <libsoup/soup.h>

typedef struct {
    guint16 offset; /* into the head; 0 when the field is absent */
    guint16 length;
} FastHeadField;

typedef struct {
    SoupHTTPVersion version;
    guint status;
    FastHeadField connection;
    FastHeadField transfer_encoding;
    FastHeadField content_length;
    gboolean set_cookie;
    gboolean coded; /* a Content-Encoding field: the body may need decoding */
} FastHead;

/*
 * Reads @head[0..len), a whole head ending with its empty line (at most
 * 64 KiB).  TRUE and fills @out when the head is simple; FALSE otherwise,
 * leaving @out in an unspecified state.
 */
gboolean fast_head_scan (const guint8 *head, gsize len, FastHead *out);
