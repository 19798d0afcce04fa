/* SPDX-License-Identifier: MIT */
/*
 * What the soup transport judges of a response libsoup read, held to the
 * rules `fast` follows: interim responses within their bound and the
 * step's deadline, the framing of framing.c, a chunked body read below
 * libsoup's own decoder so that chunked.c can judge it, the class of an
 * error, and the hop's timings, bytes and connection reuse, from
 * SoupMessageMetrics.  Nothing here ends a step: a refusal is returned to
 * exchange.c, or, from a signal handler in the middle of libsoup's read,
 * goes through http_soup_cancel_step() (connect.c).
 */
#include "soup.h"

#include <string.h>

/*
 * Each 1xx response.  libsoup reads interim responses in a loop that may
 * not return to the worker's loop while TLS has bytes buffered, so the
 * bound and the step's deadline are checked here, as `fast` checks them
 * in its parser and its read loop.
 */
void
http_soup_got_informational (SoupMessage *message, gpointer data)
{
    SoupUser *user = data;

    if (user->freed || user->step == NULL)
        return;
    /* libsoup would switch protocols and wait; throng asked for no upgrade. */
    if (soup_message_get_status (message) == 101) {
        user->sample->status = 101;
        http_soup_cancel_step (user, THRONG_ERROR_PROTOCOL,
                               "101 Switching Protocols without an upgrade request");
    } else if (++user->interim > HTTP_MAX_INTERIM) {
        http_soup_cancel_step (user, THRONG_ERROR_PROTOCOL, "too many interim responses");
    } else if (g_get_monotonic_time () >= user->deadline_us) {
        http_soup_cancel_step (user, THRONG_ERROR_TIMEOUT, "step timed out");
    }
}

/*
 * libsoup sends a message again itself: with redirects and authentication
 * left to throng, only when a kept-alive connection closed before the
 * response (what `fast` retries too).  Counted, so that it is not hidden.
 */
void
http_soup_restarted (SoupMessage *message, gpointer data)
{
    SoupUser *user = data;

    if (user->freed || user->step == NULL)
        return;
    /* Sent again with the credentials a challenge asked for (auth: digest): not a retry. */
    if (soup_message_get_status (message) == SOUP_STATUS_UNAUTHORIZED)
        return;
    user->sample->retries++;
    g_debug ("soup: %s sent again on a new connection",
             g_uri_get_host (soup_message_get_uri (message)));
}

/* Adds the finished hop's metrics to the sample. */
void
http_soup_account_hop (SoupUser *user)
{
    SoupMessageMetrics *metrics = soup_message_get_metrics (user->message);
    ThrongSample *sample = user->sample;

    if (metrics == NULL)
        return;

    guint64 connect_start = soup_message_metrics_get_connect_start (metrics);
    guint64 connect_end = soup_message_metrics_get_connect_end (metrics);
    guint64 tls_start = soup_message_metrics_get_tls_start (metrics);
    guint64 response_start = soup_message_metrics_get_response_start (metrics);

    /* Time spent is counted for failed attempts too; connect.c counts the connection. */
    if (connect_start != 0) {
        guint64 tcp_end = tls_start != 0 ? tls_start : connect_end;
        if (tcp_end > connect_start)
            sample->connect_us += (gint64)(tcp_end - connect_start);
    } else {
        g_debug ("soup: connection to %s reused",
                 g_uri_get_host (soup_message_get_uri (user->message)));
    }
    if (tls_start != 0 && connect_end > tls_start) {
        sample->tls_us += (gint64)(connect_end - tls_start);
        /* glib-networking cannot say whether it resumed: every handshake counts as full. */
        sample->handshakes_full++;
    }
    /* The first hop's first byte, as on fast: a redirect's later answer does not move it. */
    if (response_start != 0 && (gint64)response_start > sample->start_us && sample->latency_us == 0)
        sample->latency_us = (gint64)response_start - sample->start_us;

    sample->bytes_sent += soup_message_metrics_get_request_header_bytes_sent (metrics)
                          + soup_message_metrics_get_request_body_bytes_sent (metrics);
    guint64 received = soup_message_metrics_get_response_header_bytes_received (metrics);
    guint64 body = soup_message_metrics_get_response_body_bytes_received (metrics);
    /* The body as read when the wire count is not final (a cut-off read). */
    sample->bytes_received += received + MAX (body, user->body_bytes);
}

/* The class of @error, knowing that it may be our own cancel. */
ThrongErrorClass
http_soup_error_class (SoupUser *user, const GError *error)
{
    ThrongErrorClass error_class = http_error_class_from_gerror (error);
    /* Once the request went out, the handshake was over: a TLS error now is
     * the peer closing in the middle of the response, as on plain HTTP. */
    if (error_class == THRONG_ERROR_TLS && user->message != NULL) {
        SoupMessageMetrics *metrics = soup_message_get_metrics (user->message);
        if (metrics != NULL && soup_message_metrics_get_request_header_bytes_sent (metrics) > 0)
            error_class = THRONG_ERROR_RESET;
    }
    return error_class;
}

/* The response head libsoup read so far, in bytes (0 when it cannot say). */
guint64
http_soup_head_bytes (SoupUser *user)
{
    SoupMessageMetrics *metrics
        = user->message != NULL ? soup_message_get_metrics (user->message) : NULL;

    return metrics != NULL ? soup_message_metrics_get_response_header_bytes_received (metrics) : 0;
}

/*
 * Why the head libsoup read breaks the framing rule `fast` follows
 * (framing.c), or NULL and its @framing: a head that rule refuses, or a
 * body libsoup frames otherwise than RFC 9112 §6.3 says (chunked or not,
 * or not at all), which is refused rather than counted wrong
 * (docs/http.md).
 */
const char *
http_soup_framing_refusal (SoupUser *user, HttpFraming *framing)
{
    SoupMessage *message = user->message;
    SoupMessageHeaders *headers = soup_message_get_response_headers (message);
    guint status = soup_message_get_status (message);
    gboolean head_only = strcmp (user->hop.method, "HEAD") == 0;
    SoupEncoding encoding;
    const char *refused = http_framing_from_head (headers, soup_message_get_http_version (message),
                                                  status, head_only, framing);

    if (refused != NULL || framing->kind == HTTP_FRAMING_NONE)
        return refused;
    encoding = soup_message_headers_get_encoding (headers);
    if (encoding == SOUP_ENCODING_UNRECOGNIZED
        || (framing->kind == HTTP_FRAMING_CHUNKED) != (encoding == SOUP_ENCODING_CHUNKED))
        return "transfer coding libsoup frames otherwise";
    return NULL;
}

/*
 * The stream below libsoup's chunked decoder, when the hop's body is
 * chunked and libsoup's own decoder would read it straight from there
 * (HTTP/1.x, no content decoding between): the connection's buffered
 * stream, which holds what libsoup read past the head.  libsoup's
 * decoder reads a chunk size with strtoul ("zz" is the last chunk, "5g"
 * a chunk of 5), waits for a 2^60-byte chunk, and takes a close after
 * the last chunk as the body's end; reading these bytes through
 * chunked.c instead judges them as `fast` does.  NULL when the streams
 * are not the ones this was written against (another libsoup): then
 * libsoup decodes, and tests/integration/test-conformance.c notices.
 */
static guint
    client_eof_signal; /* SoupClientInputStream's "eof", once http_soup_chunked_source() found it */

GInputStream *
http_soup_chunked_source (SoupUser *user)
{
    static gsize types_known;
    static GType client_type, body_type, buffered_type;
    GInputStream *body, *buffered;

    if (soup_message_get_http_version (user->message) == SOUP_HTTP_2_0)
        return NULL;
    /* libsoup made one of each before it returned an HTTP/1 body stream: all are registered. */
    if (g_once_init_enter (&types_known)) {
        client_type = g_type_from_name ("SoupClientInputStream");
        body_type = g_type_from_name ("SoupBodyInputStream");
        buffered_type = g_type_from_name ("SoupFilterInputStream");
        if (client_type != 0)
            client_eof_signal = g_signal_lookup ("eof", client_type);
        g_once_init_leave (&types_known, 1);
    }
    if (G_OBJECT_TYPE (user->stream) != client_type || client_eof_signal == 0)
        return NULL;
    body = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (user->stream));
    if (G_OBJECT_TYPE (body) != body_type || body_type == 0)
        return NULL;
    buffered = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (body));
    if (G_OBJECT_TYPE (buffered) != buffered_type || buffered_type == 0)
        return NULL;
    return buffered;
}

/*
 * The chunked body ended where chunked.c says.  libsoup's decoder read
 * none of it: the client stream's "eof" tells libsoup's message that its
 * body is done, as the decoder's own end would, so that the connection
 * is kept or closed by libsoup's rules.  Bytes after the body in the
 * same read (@surplus) are no response's: the connection then closes,
 * as on `fast`, by the request's Connection field that libsoup reads
 * when it ends the message (as libsoup does itself after a head it
 * cannot parse).
 */
void
http_soup_chunked_end (SoupUser *user, gboolean surplus)
{
    if (surplus)
        soup_message_headers_replace (soup_message_get_request_headers (user->message),
                                      "Connection", "close");
    user->raw = NULL;
    g_signal_emit (user->stream, client_eof_signal, 0);
}
