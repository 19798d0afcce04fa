/* SPDX-License-Identifier: MIT */
/*
 * The redirect policy both transports follow, so that one plan gives the
 * same outcome on either: which statuses redirect, max_redirects, the
 * method and body rules of RFC 9110 §15.4, which Locations may be
 * followed (the cookies that travel with the hops are jar.h's).  A
 * transport keeps one HttpHop per user, asks http_hop_response() what a complete
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
    /*
     * The hop goes to another origin (scheme, host or port) than the
     * step's: Authorization stays behind, as curl and Go's client (k6)
     * leave it, so that credentials meant for one server never reach
     * another through its redirect.
     */
    gboolean other_origin;
} HttpHop;

/* The first hop of @step: its URL, method and body. */
void http_hop_start (HttpHop *hop, const HttpStep *step);

/* Releases what @hop holds (NULL-safe fields; the struct itself is the caller's). */
void http_hop_clear (HttpHop *hop);

/* Whether the current hop sends the step's header @name (see other_origin). */
static inline gboolean
http_hop_sends_header (const HttpHop *hop, const char *name)
{
    return !hop->other_origin || g_ascii_strcasecmp (name, "Authorization") != 0;
}

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
