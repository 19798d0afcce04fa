/* SPDX-License-Identifier: MIT */
/*
 * A user's cookies, for both transports: the jar (libsoup's, so that both
 * apply RFC 6265 alike), when it is emptied (the `cookie_jar` option), and
 * the cookies a step sets itself (`cookies:`), which go into the jar as a
 * Set-Cookie of the step's origin would.
 */
#pragma once

#include "http.h"

#include <libsoup/soup.h>

/*
 * A user's cookie jar: accepts every cookie, sends each by the domain and
 * path rules of the URL it goes to, so cookies set by one host of a
 * redirect chain reach only the hosts they were set for.
 */
SoupCookieJar *http_cookie_jar_new (void);

/*
 * FALSE while no cookie was ever stored in @jar (made by
 * http_cookie_jar_new) since it was made or last emptied: a request need
 * not ask it for a Cookie header, which costs libsoup a walk of the URI
 * and the jar even when empty.
 */
gboolean http_cookie_jar_used (SoupCookieJar *jar);

/*
 * Empties @jar (a new iteration under `cookie_jar: per-iteration`); costs
 * nothing when it holds no cookie.
 */
void http_cookie_jar_clear (SoupCookieJar *jar);

/* A step's `cookies:` entry: a literal name, a value that may be a template. */
typedef struct {
    char *name;
    char *value;         /* the literal value, when tpl is NULL */
    ThrongTemplate *tpl;
} HttpStepCookie;

/*
 * Reads a step's `cookies:` map (@node, may be NULL) into step->cookies:
 * names literal tokens, values scalars (templates).  Refused under
 * `cookie_jar: off`, where no jar would keep them.  Located errors.
 */
gboolean http_step_cookies_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *node,
                                    GError **error);
void http_step_cookies_free (HttpStep *step);

/*
 * The step's cookies for @user into @out, each "name=value; Path=/"
 * ending in a NUL: FALSE with the reason in @why when a value is unset or
 * cannot be sent (a ';' or a control byte).
 */
gboolean http_step_cookies_expand (const HttpStep *step, ThrongUser *user, GString *out,
                                   GString *why);

/* Stores the cookies http_step_cookies_expand() made (@expanded) in @jar, for the step's origin. */
void http_step_cookies_store (const HttpStep *step, const GString *expanded, SoupCookieJar *jar);
