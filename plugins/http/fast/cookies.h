/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's cookies: a response's Set-Cookie fields into the
 * user's jar, and the jar's cookies into a request's head.  HTTP/1.1
 * (h1.c) and h2 (h2-stream.c) store them as their heads arrive, the
 * exchange and the user's step add them to the requests they write; so
 * this sits below all of them and calls none.
 */
#pragma once

#include "fast.h"

/* Keeps the response's Set-Cookie headers (u->response.headers) in the user's jar. */
void fast_store_cookies (FastUser *u);

/* Appends the user's cookies for @uri to u->out as a Cookie line; FALSE when there are none. */
gboolean fast_append_cookies (FastUser *u, GUri *uri);
