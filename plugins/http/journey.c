/* SPDX-License-Identifier: MIT */
/*
 * The journey half of an exchange (journey.h), the same for `fast` and
 * `soup`: expansion before the request, judgement after the response.
 */
#include "journey.h"
#include "errors.h"
#include "jar.h"

#include <string.h>

/* The kept body's buffer stays allocated between steps up to this size. */
#define HTTP_JOURNEY_BODY_HELD (256 * 1024)

/*
 * Nothing is allocated until a step needs it: a user that only runs
 * plain steps (most users of most plans) pays nothing for journeys.
 */
void
http_journey_init (HttpJourney *journey)
{
    memset (journey, 0, sizeof *journey);
}

static void
journey_ready (HttpJourney *journey)
{
    if (journey->body != NULL)
        return;
    http_request_text_init (&journey->request);
    http_judge_init (&journey->judge);
    journey->body = g_string_sized_new (0);
    journey->wire = g_string_sized_new (0);
}

void
http_journey_clear (HttpJourney *journey)
{
    http_request_text_clear (&journey->request);
    http_judge_clear (&journey->judge);
    if (journey->body != NULL)
        g_string_free (journey->body, TRUE);
    if (journey->wire != NULL)
        g_string_free (journey->wire, TRUE);
    journey->body = NULL;
    journey->wire = NULL;
}

gboolean
http_journey_begin (HttpJourney *journey, HttpStep *step, ThrongUser *user, ThrongSample *sample)
{
    journey_ready (journey);
    journey->active = TRUE;
    journey->debug
        = g_atomic_int_get (&step->debug_left) > 0 && g_atomic_int_add (&step->debug_left, -1) > 0;
    journey->keep = step->keep_body || journey->debug;
    journey->debug_user = throng_user_get_id (user);
    journey->coded = 0;
    g_string_truncate (journey->body, 0);
    if (http_request_expands (step) && !http_request_expand (step, user, &journey->request, sample)) {
        journey->active = FALSE;
        if (journey->debug)
            http_debug_response (journey->debug_user, step, 0, NULL, NULL, 0, sample);
        return FALSE;
    }
    return TRUE;
}

void
http_journey_print_request (const HttpJourney *journey, const HttpStep *step, SoupCookieJar *jar,
                            GUri *uri)
{
    g_autofree char *cookies = NULL;

    if (!journey->active || !journey->debug)
        return;
    /* The same call and condition as the transports' own: what the jar adds is what is sent. */
    if (jar != NULL && http_cookie_jar_used (jar))
        cookies = soup_cookie_jar_get_cookies (jar, uri, TRUE);
    http_debug_request (journey->debug_user, step, &journey->request, cookies);
}

static void
decoder_free (gpointer decoder)
{
    http_decoder_free (decoder);
}

/*
 * One decoder per worker thread, not per user: a body is decoded at once,
 * on the worker, so its users can share zlib's 40 KiB of state and
 * zstd's context.  Freed when the thread ends (plugins stay loaded).
 */
static GPrivate worker_decoder = G_PRIVATE_INIT (decoder_free);

/*
 * Checks and extractors read the body as the server meant it, whatever
 * Accept-Encoding the plan sent: both transports hand over the wire
 * bytes (soup with libsoup's own decoder removed), so they decode alike.
 */
static void
journey_decode (HttpJourney *journey, const HttpStep *step, SoupMessageHeaders *headers,
                ThrongSample *sample)
{
    const char *encoding = soup_message_headers_get_list (headers, "Content-Encoding");
    const char *message = NULL;
    GString *wire = journey->body;
    HttpDecoder *decoder;
    HttpDecodeResult result;

    if (!http_decode_applies (encoding))
        return;
    journey->body = journey->wire;
    journey->wire = wire;
    journey->coded = wire->len;
    decoder = g_private_get (&worker_decoder);
    result = http_decode (&decoder, encoding, wire, step->max_body, journey->body, &message);
    if (g_private_get (&worker_decoder) == NULL)
        g_private_set (&worker_decoder, decoder);
    if (result != HTTP_DECODE_OK) {
        /* A status failure stays one, as with a failing check. */
        if (sample->error == THRONG_ERROR_NONE)
            http_sample_fail (sample,
                              result == HTTP_DECODE_LIMIT         ? THRONG_ERROR_BODY_LIMIT
                              : result == HTTP_DECODE_UNSUPPORTED ? THRONG_ERROR_OTHER
                                                                  : THRONG_ERROR_PROTOCOL,
                              message);
        /* --http-debug shows the body as it came, not a part of its decoding. */
        journey->wire = journey->body;
        journey->body = wire;
        journey->coded = 0;
    }
    if (journey->wire->allocated_len > HTTP_JOURNEY_BODY_HELD) {
        g_string_free (journey->wire, TRUE);
        journey->wire = g_string_sized_new (0);
    }
}

void
http_journey_end (HttpJourney *journey, const HttpStep *step, ThrongUser *user, guint status,
                  SoupMessageHeaders *headers, GUri *uri, ThrongSample *sample)
{
    if (journey->keep && headers != NULL && journey->body->len > 0
        && (sample->error == THRONG_ERROR_NONE || sample->error == THRONG_ERROR_STATUS))
        journey_decode (journey, step, headers, sample);
    if (step->rules != NULL
        && (sample->error == THRONG_ERROR_NONE || sample->error == THRONG_ERROR_STATUS)) {
        HttpResponseView view = {
            .status = status,
            .headers = headers,
            .uri = uri,
            .body = journey->keep ? journey->body->str : NULL,
            .body_len = journey->keep ? journey->body->len : 0,
            .elapsed_us = g_get_monotonic_time () - sample->start_us,
            .sample = sample,
        };
        http_rules_judge (step->rules, user, &view, &journey->judge, sample);
    }
    if (journey->debug)
        http_debug_response (journey->debug_user, step, status, headers, journey->body,
                             journey->coded, sample);
    journey->active = FALSE;
    journey->keep = FALSE;
    /* A large body once kept is not held for the rest of the run. */
    if (journey->body->allocated_len > HTTP_JOURNEY_BODY_HELD) {
        g_string_free (journey->body, TRUE);
        journey->body = g_string_sized_new (0);
    }
}

void
http_journey_abort (HttpJourney *journey, const HttpStep *step, ThrongSample *sample)
{
    journey->active = FALSE;
    journey->keep = FALSE;
    if (journey->debug)
        http_debug_response (journey->debug_user, step, 0, NULL, NULL, 0, sample);
}
