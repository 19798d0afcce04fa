/* SPDX-License-Identifier: MIT */
/*
 * What both transports do around one exchange of a journey step, so that
 * they cannot disagree: before sending, expand the step's templates (or
 * fail with class `variable`, sending nothing), decide whether the body
 * is kept and whether --http-debug prints the exchange; after the final
 * response, print it and judge it by the step's extractors and checks.
 * A step with none of these costs one test of http_journey_needed().
 */
#pragma once

#include "decode.h"
#include "expand.h"
#include "rules.h"

typedef struct {
    HttpRequestText request;
    HttpJudge judge;
    GString *body;   /* the final response's body, while `keep`; decoded by http_journey_end() */
    GString *wire;   /* the body as it came, while http_journey_end() decodes it into `body` */
    gsize coded;     /* the body's length on the wire when it was decoded, else 0 */
    gboolean keep;   /* this exchange keeps the body (a rule or the debug print reads it) */
    gboolean debug;  /* this exchange is printed */
    guint debug_user; /* the user's id, which each line printed begins with */
    gboolean active; /* http_journey_begin() ran for the exchange in flight */
} HttpJourney;

/* Allocates nothing: the buffers come with the first step that needs them. */
void http_journey_init (HttpJourney *journey);
void http_journey_clear (HttpJourney *journey);

/* Whether @step needs http_journey_begin() at all. */
static inline gboolean
http_journey_needed (const HttpStep *step)
{
    return http_request_expands (step) || step->rules != NULL
           || g_atomic_int_get ((gint *)&step->debug_left) > 0;
}

/*
 * Readies @journey for @step's exchange: expands, decides `keep` and
 * `debug`.  FALSE when the expansion failed: @sample has failed with
 * class `variable` and the transport completes the step without sending.
 * The transport then stores the step's cookies and calls
 * http_journey_print_request().
 */
gboolean http_journey_begin (HttpJourney *journey, HttpStep *step, ThrongUser *user,
                             ThrongSample *sample);

/*
 * When debugging, prints the request as it is sent to @uri: with the
 * Cookie field that @jar (may be NULL) adds, joined to the step's own
 * one after "; " as both transports join them.  Called once the step's
 * own `cookies:` are in the jar.
 */
void http_journey_print_request (const HttpJourney *journey, const HttpStep *step,
                                 SoupCookieJar *jar, GUri *uri);

/* A hop begins: the body kept is the final response's only. */
static inline void
http_journey_hop (HttpJourney *journey)
{
    if (journey->keep)
        g_string_truncate (journey->body, 0);
}

/*
 * Whether http_journey_end() reads the response's headers: only a step
 * with extractors or checks, or an exchange --http-debug prints.  A
 * transport that builds SoupMessageHeaders on demand (fast) passes NULL
 * otherwise, so a templated step does not pay for parsing them.
 */
static inline gboolean
http_journey_reads_headers (const HttpJourney *journey, const HttpStep *step)
{
    return (step->rules != NULL && step->rules->needs_headers) || journey->debug;
}

/*
 * The exchange ended with a complete final response (@status, @headers,
 * from @uri): decodes a kept body by its Content-Encoding (decode.h; a
 * body that does not decode fails @sample with class `protocol`, one
 * that decodes past max_body with `body-limit`, zstd without libzstd
 * with `other`; a status failure stays one), prints it when
 * debugging, and judges it unless the step failed for another reason
 * than its status.  @headers may be NULL when
 * http_journey_reads_headers() is FALSE.
 */
void http_journey_end (HttpJourney *journey, const HttpStep *step, ThrongUser *user, guint status,
                       SoupMessageHeaders *headers, GUri *uri, ThrongSample *sample);

/* The exchange ended without a response: prints how, when debugging. */
void http_journey_abort (HttpJourney *journey, const HttpStep *step, ThrongSample *sample);

/* debug.c: --http-debug; every line begins "[uID] ", the user's id in its scenario. */

/* How many requests of each step THRONG_DEBUG asks to print: `http` is 5, `http=N` is N. */
guint http_debug_requests (void);
/* @jar_cookies: what the user's jar adds to the Cookie field, or NULL. */
void http_debug_request (guint user_id, const HttpStep *step, const HttpRequestText *text,
                         const char *jar_cookies);
/* @coded: the body's length before http_journey_end() decoded it, 0 when it did not. */
void http_debug_response (guint user_id, const HttpStep *step, guint status,
                          SoupMessageHeaders *headers, const GString *body, gsize coded,
                          const ThrongSample *sample);
