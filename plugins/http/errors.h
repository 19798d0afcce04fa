/* SPDX-License-Identifier: MIT */
/*
 * How an exchange ends, for both transports: the success rule, the error
 * classes of every failure a transport meets (GLib, libsoup, errno,
 * GnuTLS), and the one place that writes a sample's message.  A step
 * succeeds when a complete response arrived and its status is one the
 * step expects; otherwise its class says why (STATUS for an unexpected
 * status, the failure's class for anything else).
 */
#pragma once

#include "http.h"

/* The class of a GIO, GResolver, GTls or SoupSession error; CANCELLED is OTHER. */
ThrongErrorClass http_error_class_from_gerror (const GError *error);

/* The class of a socket call's errno (fast transport). */
ThrongErrorClass http_error_class_from_errno (int errsv);

/* The class of a fatal GnuTLS handshake error (fast transport). */
ThrongErrorClass http_error_class_from_gnutls (int code);

/* A static one-line description of @error_class ("connection refused" …). */
const char *http_error_class_message (ThrongErrorClass error_class);

/*
 * A complete response arrived: sets the sample's status, its reason phrase
 * as the message (static), and the error to NONE when @step expects
 * @status, STATUS otherwise.
 */
void http_sample_set_response (ThrongSample *sample, const HttpStep *step, guint status);

/*
 * The step failed with @error_class; @message (static) says how, NULL for
 * the class's own description.  Keeps the status.
 */
void http_sample_fail (ThrongSample *sample, ThrongErrorClass error_class, const char *message);

/*
 * The exchange that set the sample's status went over @protocol ("h2", a
 * static string): the sample says so (#ThrongSample.protocol).  Without
 * it, a response's sample says "http/1.1" (http_hop_response).
 */
void http_sample_note_protocol (ThrongSample *sample, const char *protocol);

/* TRUE for the statuses a redirect follows: 301, 302, 303, 307, 308. */
gboolean http_status_is_redirect (guint status);
