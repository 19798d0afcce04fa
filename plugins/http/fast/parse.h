/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 framing for the fast transport: finding where a response head
 * ends (the request head is request.h's; a chunked body is decoded by
 * ../chunked.h, shared with soup).  The response parser (response.c) puts
 * these together with the head reader (head.c, libsoup's for the rest)
 * and the framing rule of ../framing.c.
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
