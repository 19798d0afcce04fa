/* SPDX-License-Identifier: MIT */
/*
 * The redirect policy both transports follow, so that one plan gives the
 * same outcome on either: which statuses redirect, max_redirects, the
 * method and body rules of RFC 9110 §15.4, which Locations may be
 * followed, and the cookie jar each user keeps across hosts.  A transport
 * keeps one HttpHop per user, asks http_hop_response() what a complete
 * response means, and sends what the hop says.
 */
#pragma once

#include "http.h"

#include <libsoup/soup.h>

/* Where the step in flight goes next, and how. */
typedef struct {
    GUri *uri;          /* NULL: the step's own URL; else the last Location followed */
    const char *method; /* the step's method, or "GET" once a redirect rewrote it */
    gboolean body;      /* the hop sends the step's body (FALSE once the method was rewritten) */
    guint count;        /* redirects followed so far */
} HttpHop;

/* The first hop of @step: its URL, method and body. */
void http_hop_start (HttpHop *hop, const HttpStep *step);

/* Releases what @hop holds (NULL-safe fields; the struct itself is the caller's). */
void http_hop_clear (HttpHop *hop);

/* The URL of the current hop. */
static inline GUri *
http_hop_uri (const HttpHop *hop, const HttpStep *step)
{
    return hop->uri != NULL ? hop->uri : step->uri;
}

/*
 * A complete response of @status with @headers ended the current hop.
 * Returns TRUE when the step goes on: @hop then describes the next request
 * (URL, method, whether the body goes with it).  Returns FALSE when the
 * response ends the step: the sample's status, error class and message
 * are then set, either by the success rule (http_sample_set_response) or
 * as a `protocol` failure of the redirect (too many redirects, a Location
 * that is not an http or https URL with a host).
 *
 * A redirect without a Location is an ordinary response, as in browsers,
 * k6 and JMeter.
 */
gboolean http_hop_response (HttpHop *hop, const HttpStep *step, guint status,
                            SoupMessageHeaders *headers, ThrongSample *sample);

/*
 * A user's cookie jar: accepts every cookie, sends each by the domain and
 * path rules of the URL it goes to, so cookies set by one host of a
 * redirect chain reach only the hosts they were set for.
 */
SoupCookieJar *http_cookie_jar_new (void);

/*
 * FALSE while no cookie was ever stored in @jar (made by
 * http_cookie_jar_new): a request need not ask it for a Cookie header,
 * which costs libsoup a walk of the URI and the jar even when empty.
 */
gboolean http_cookie_jar_used (SoupCookieJar *jar);
