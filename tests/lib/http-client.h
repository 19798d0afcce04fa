/* SPDX-License-Identifier: MIT */
/*
 * A synchronous HTTP client for tests that ask a real server what it
 * stored (Prometheus's and InfluxDB's query APIs): one GET or POST at a
 * time on the test's thread, answers read whole, JSON parsed.  Compiled
 * into the tests that need it (tests/meson.build, test_extra_sources).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Sends @method (GET or POST) to @url with @body (may be NULL) of type
 * @content_type; returns the response's body as a string and its status
 * in *@status, or NULL with @error when no response came.
 */
char *throng_test_http_request (const char *method, const char *url, const char *content_type,
                                const char *body, guint *status, GError **error);

/* GET @url and parse the answer as JSON; NULL with @error unless 2xx and JSON. */
JsonNode *throng_test_http_get_json (const char *url, GError **error);

/* Polls GET @url every 100 ms until it answers 2xx, up to @timeout_ms; TRUE when it did. */
gboolean throng_test_http_wait_ok (const char *url, guint timeout_ms);

/* @text percent-encoded for a query string. */
char *throng_test_http_escape (const char *text);

G_END_DECLS
