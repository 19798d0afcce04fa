/* SPDX-License-Identifier: MIT */
/*
 * The built-in target: an in-process HTTP and HTTPS server on 127.0.0.1,
 * on ephemeral ports, with a self-signed certificate made at start-up,
 * running on its own thread so that it never shares a loop with the load.
 * It serves the demo plan and the tests.  Private to the core.
 *
 * Routes (any method):
 *   /                 200, a short text body
 *   /bytes/N          200, N bytes of body (N <= 64 MiB)
 *   /status/CODE      that status, a short body
 *   /delay/MS         200 after MS milliseconds (MS <= 60000)
 *   /echo             200, the request body echoed
 *   /cookie           200 with Set-Cookie: throng=1; echoes the request's Cookie header
 *   /redirect/N       302 to /redirect/N-1, and /redirect/0 → /
 */
#pragma once

#include <glib.h>

typedef struct _ThrongTarget ThrongTarget;

ThrongTarget *throng_target_start (GError **error);
/* "http://127.0.0.1:PORT" and "https://127.0.0.1:PORT", no trailing slash. */
const char *throng_target_http_url (ThrongTarget *target);
const char *throng_target_https_url (ThrongTarget *target);
/* The PEM of the self-signed certificate, for clients that want to verify it. */
const char *throng_target_certificate_pem (ThrongTarget *target);
/* Requests served so far (all routes, both listeners). */
guint64 throng_target_requests (ThrongTarget *target);
void throng_target_stop (ThrongTarget *target);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTarget, throng_target_stop)
