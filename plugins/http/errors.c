/* SPDX-License-Identifier: MIT */
/*
 * Error classes of the http plugin: how the errors GLib, glib-networking
 * and libsoup report map onto ThrongErrorClass, their static messages, and
 * the success rule (a complete response with an expected status).  No
 * function here allocates: they run on the hot path.
 */
#include "errors.h"

#include <libsoup/soup.h>

static const char *const class_messages[] = {
    [THRONG_ERROR_NONE] = "ok",
    [THRONG_ERROR_CONNECT] = "connection refused or unreachable",
    [THRONG_ERROR_DNS] = "host name did not resolve",
    [THRONG_ERROR_TLS] = "TLS handshake failed",
    [THRONG_ERROR_CERTIFICATE] = "peer certificate did not verify",
    [THRONG_ERROR_TIMEOUT] = "timed out",
    [THRONG_ERROR_RESET] = "connection closed before the response was complete",
    [THRONG_ERROR_PROTOCOL] = "invalid HTTP response",
    [THRONG_ERROR_STATUS] = "unexpected status",
    [THRONG_ERROR_BODY_LIMIT] = "response body over max_body",
    [THRONG_ERROR_OTHER] = "request failed",
};

const char *
http_error_class_message (ThrongErrorClass error_class)
{
    if ((guint)error_class >= G_N_ELEMENTS (class_messages) || class_messages[error_class] == NULL)
        return class_messages[THRONG_ERROR_OTHER];
    return class_messages[error_class];
}

static ThrongErrorClass
io_error_class (int code)
{
    switch (code) {
    case G_IO_ERROR_CONNECTION_REFUSED:
    case G_IO_ERROR_HOST_UNREACHABLE:
    case G_IO_ERROR_NETWORK_UNREACHABLE:
        return THRONG_ERROR_CONNECT;
    case G_IO_ERROR_TIMED_OUT:
        return THRONG_ERROR_TIMEOUT;
    case G_IO_ERROR_CONNECTION_CLOSED: /* also BROKEN_PIPE, the same value */
    case G_IO_ERROR_PARTIAL_INPUT:
    case G_IO_ERROR_CLOSED:
        return THRONG_ERROR_RESET;
    case G_IO_ERROR_INVALID_DATA:
        return THRONG_ERROR_PROTOCOL;
    default:
        return THRONG_ERROR_OTHER;
    }
}

ThrongErrorClass
http_error_class_from_gerror (const GError *error)
{
    if (error == NULL)
        return THRONG_ERROR_NONE;
    if (error->domain == G_RESOLVER_ERROR)
        return THRONG_ERROR_DNS;
    if (error->domain == G_TLS_ERROR) {
        if (error->code == G_TLS_ERROR_BAD_CERTIFICATE)
            return THRONG_ERROR_CERTIFICATE;
        /* The peer closed without close_notify: a cut connection, as over plain TCP. */
        if (error->code == G_TLS_ERROR_EOF)
            return THRONG_ERROR_RESET;
        return THRONG_ERROR_TLS;
    }
    if (error->domain == G_IO_ERROR)
        return io_error_class (error->code);
    if (error->domain == SOUP_SESSION_ERROR)
        return THRONG_ERROR_PROTOCOL;
    return THRONG_ERROR_OTHER;
}

void
http_sample_set_response (ThrongSample *sample, const HttpStep *step, guint status)
{
    sample->status = (gint32)status;
    sample->message = soup_status_get_phrase (status);
    sample->error = http_step_expects (step, status) ? THRONG_ERROR_NONE : THRONG_ERROR_STATUS;
}

void
http_sample_set_error (ThrongSample *sample, ThrongErrorClass error_class)
{
    sample->error = error_class;
    sample->message = http_error_class_message (error_class);
}

gboolean
http_status_is_redirect (guint status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}
