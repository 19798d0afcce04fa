/* SPDX-License-Identifier: MIT */
/*
 * What both transports share beyond the transport table: turning errors
 * into error classes, and the success rule.  A step succeeds when a
 * complete response arrived and its status is one the step expects;
 * otherwise its class says why (STATUS for an unexpected status, the
 * transport's class for anything else).
 */
#pragma once

#include "http.h"

/* The class of a GIO, GResolver, GTls or SoupSession error; CANCELLED is OTHER. */
ThrongErrorClass http_error_class_from_gerror (const GError *error);

/* A static one-line description of @error_class ("connection refused" …). */
const char *http_error_class_message (ThrongErrorClass error_class);

/*
 * A complete response arrived: sets the sample's status, its reason phrase
 * as the message (static), and the error to NONE when @step expects
 * @status, STATUS otherwise.
 */
void http_sample_set_response (ThrongSample *sample, const HttpStep *step, guint status);

/* Sets the sample's error and the class's static message; keeps the status. */
void http_sample_set_error (ThrongSample *sample, ThrongErrorClass error_class);

/* TRUE for the statuses a redirect follows: 301, 302, 303, 307, 308. */
gboolean http_status_is_redirect (guint status);

/*
 * Funcs of a one-shot, re-armable timer source: it dispatches its callback
 * once its ready time comes and disarms itself (timer.c).
 */
extern GSourceFuncs http_timer_funcs;
