/* SPDX-License-Identifier: MIT */
/*
 * The redirect policy (redirect.h): one decision per complete response,
 * the same for both transports.  A failed redirect is a `protocol` error
 * with the redirect's status kept in the sample, as a k6 or JMeter user
 * reads it: the request failed, and the message says why.
 */
#include "redirect.h"
#include "errors.h"

#include <string.h>

void
http_hop_start (HttpHop *hop, const HttpStep *step)
{
    g_clear_pointer (&hop->uri, g_uri_unref);
    hop->method = step->method;
    hop->body = TRUE;
    hop->count = 0;
    hop->other_origin = FALSE;
}

static int
port_of (GUri *uri)
{
    int port = g_uri_get_port (uri);

    if (port > 0)
        return port;
    return g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0 ? 443 : 80;
}

void
http_hop_clear (HttpHop *hop)
{
    g_clear_pointer (&hop->uri, g_uri_unref);
}

gboolean
http_status_is_redirect (guint status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static gboolean
scheme_is_http (const char *scheme)
{
    return scheme != NULL
           && (g_ascii_strcasecmp (scheme, "http") == 0
               || g_ascii_strcasecmp (scheme, "https") == 0);
}

/* Fails the step on a redirect it cannot follow: the status stays, the class is `protocol`. */
static gboolean
redirect_fail (ThrongSample *sample, guint status, const char *message)
{
    sample->status = (gint32)status;
    http_sample_fail (sample, THRONG_ERROR_PROTOCOL, message);
    return FALSE;
}

/*
 * RFC 9110 §15.4: 303 continues with GET (a HEAD stays HEAD); 301 and 302
 * may turn a POST into a GET, which every browser, k6 and JMeter do; 307
 * and 308 repeat the method and body.  A rewritten method drops the body.
 */
static void
rewrite_method (HttpHop *hop, guint status)
{
    gboolean to_get = (status == 303 && strcmp (hop->method, "HEAD") != 0)
                      || ((status == 301 || status == 302) && strcmp (hop->method, "POST") == 0);

    if (!to_get)
        return;
    hop->method = "GET";
    hop->body = FALSE;
}

gboolean
http_hop_response (HttpHop *hop, const HttpStep *step, guint status, SoupMessageHeaders *headers,
                   ThrongSample *sample)
{
    const char *location = NULL;
    GUri *next;

    /* Every response names its protocol; an h2 exchange then says "h2"
     * (http_sample_note_protocol).  An HTTP/1.0 answer counts as http/1.1:
     * the request went out as one. */
    sample->protocol = "http/1.1";
    if (step->follow_redirects && http_status_is_redirect (status))
        location = soup_message_headers_get_one (headers, "Location");
    if (location == NULL) {
        http_sample_set_response (sample, step, status);
        return FALSE;
    }

    next = g_uri_parse_relative (http_hop_uri (hop, step), location, G_URI_FLAGS_ENCODED, NULL);
    if (next == NULL)
        return redirect_fail (sample, status, "redirect Location is not a valid URL");
    if (!scheme_is_http (g_uri_get_scheme (next))) {
        g_uri_unref (next);
        return redirect_fail (sample, status, "redirect to a scheme other than http or https");
    }
    if (g_uri_get_host (next) == NULL || g_uri_get_host (next)[0] == '\0') {
        g_uri_unref (next);
        return redirect_fail (sample, status, "redirect Location has no host");
    }
    if (hop->count >= step->max_redirects) {
        g_uri_unref (next);
        return redirect_fail (sample, status, "too many redirects");
    }

    g_debug ("redirect %u of %u: %u to %s", hop->count + 1, step->max_redirects, status, location);
    g_clear_pointer (&hop->uri, g_uri_unref);
    hop->uri = next;
    hop->count++;
    hop->other_origin = g_ascii_strcasecmp (g_uri_get_scheme (next), g_uri_get_scheme (step->uri)) != 0
                        || g_ascii_strcasecmp (g_uri_get_host (next), g_uri_get_host (step->uri)) != 0
                        || port_of (next) != port_of (step->uri);
    rewrite_method (hop, status);
    return TRUE;
}
