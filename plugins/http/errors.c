/* SPDX-License-Identifier: MIT */
/*
 * Error classes of the http plugin (errors.h): how the errors GLib,
 * glib-networking, libsoup, the kernel and GnuTLS report map onto
 * ThrongErrorClass, their static messages, and the success rule (a
 * complete response with an expected status).  No function here
 * allocates: they run on the hot path.
 */
#include "errors.h"

#include <errno.h>
#include <gnutls/gnutls.h>
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

/*
 * glib-networking folds a connection cut under the first handshake (a
 * reset, a broken pipe, an EOF without close_notify) and a peer that does
 * not speak TLS into one code, G_TLS_ERROR_NOT_TLS, and keeps the cause
 * only at the end of its message ("Peer failed to perform TLS handshake:
 * Error receiving data: Connection reset by peer").  The causes are the
 * strings g_strerror() and gnutls_strerror() give in this process, in its
 * locale.
 */
static gboolean
tls_error_is_cut (const GError *error)
{
    const char *const causes[] = {
        g_strerror (ECONNRESET),
        g_strerror (EPIPE),
        gnutls_strerror (GNUTLS_E_PREMATURE_TERMINATION),
    };

    for (guint i = 0; i < G_N_ELEMENTS (causes); i++)
        if (g_str_has_suffix (error->message, causes[i]))
            return TRUE;
    return FALSE;
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
        if (error->code == G_TLS_ERROR_NOT_TLS && tls_error_is_cut (error))
            return THRONG_ERROR_RESET;
        return THRONG_ERROR_TLS;
    }
    if (error->domain == G_IO_ERROR)
        return io_error_class (error->code);
    if (error->domain == SOUP_SESSION_ERROR)
        return THRONG_ERROR_PROTOCOL;
    return THRONG_ERROR_OTHER;
}

ThrongErrorClass
http_error_class_from_errno (int errsv)
{
    switch (errsv) {
    case ECONNREFUSED:
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EADDRNOTAVAIL:
    case ENETDOWN:
    case EHOSTDOWN:
        return THRONG_ERROR_CONNECT;
    case ETIMEDOUT:
        return THRONG_ERROR_TIMEOUT;
    case ECONNRESET:
    case EPIPE:
    case ECONNABORTED:
        return THRONG_ERROR_RESET;
    default:
        return THRONG_ERROR_OTHER;
    }
}

ThrongErrorClass
http_error_class_from_gnutls (int code)
{
    switch (code) {
    case GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR:
    case GNUTLS_E_CERTIFICATE_ERROR:
        return THRONG_ERROR_CERTIFICATE;
    default:
        return THRONG_ERROR_TLS;
    }
}

/*
 * The one place that writes a sample's message: through the core's copy
 * (throng_sample_set_message), so that a message need not outlive the
 * step, and owned text (a message naming the URL, say) is a change here
 * alone.
 */
static void
sample_set_message (ThrongSample *sample, const char *message)
{
    throng_sample_set_message (sample, message);
}

void
http_sample_set_response (ThrongSample *sample, const HttpStep *step, guint status)
{
    sample->status = (gint32)status;
    sample->error = http_step_expects (step, status) ? THRONG_ERROR_NONE : THRONG_ERROR_STATUS;
    /* A static phrase outlives the run (sample.h): no copy per response,
     * and no message buffer for a user that only ever sees statuses. */
    sample->message = status == SOUP_STATUS_OK ? "OK" : soup_status_get_phrase (status);
}

void
http_sample_note_protocol (ThrongSample *sample, const char *protocol)
{
    sample->protocol = protocol;
}

void
http_sample_fail (ThrongSample *sample, ThrongErrorClass error_class, const char *message)
{
    sample->error = error_class;
    sample_set_message (sample, message != NULL ? message : http_error_class_message (error_class));
}
