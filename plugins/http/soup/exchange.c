/* SPDX-License-Identifier: MIT */
/*
 * One step of the soup transport: one SoupMessage per hop, sent with
 * soup_session_send_async on the user's session, its body read into the
 * user's reusable buffer and counted, never kept (unless a journey keeps
 * it), then the hop the shared redirect policy (redirect.c) chose.  A
 * chunked body is read below libsoup's decoder and fed to chunked.c
 * (response.c says why).  Every path that ends a step goes through
 * step_finish(), which drops the step's reference on the user and calls
 * throng_user_step_done_sample() last: that call may start the user's
 * next step or free it, so nothing of the user is touched after it.  A
 * callback that finds the user freed (http_soup_user_free came while the
 * step was in flight) releases what the step held and completes nothing.
 */
#include "soup.h"

static void hop_send (SoupUser *user);
static void body_read (SoupUser *user);
static void chunked_read (SoupUser *user, gsize n);

/* Drops the hop's message and stream; a stream not at its end is cut, not drained. */
static void
release_hop (SoupUser *user, gboolean at_eof)
{
    user->raw = NULL;
    if (user->stream != NULL) {
        if (!at_eof)
            g_cancellable_cancel (user->cancellable);
        /* With a cancelled cancellable the close does not wait for the rest of the body. */
        g_input_stream_close (user->stream, at_eof ? NULL : user->cancellable, NULL);
        g_clear_object (&user->stream);
    }
    if (user->message != NULL) {
        g_signal_handlers_disconnect_by_data (user->message, user);
        g_clear_object (&user->message);
    }
}

/* Ends the step: the sample is complete; releases the in-flight reference. */
static void
step_finish (SoupUser *user)
{
    ThrongUser *throng_user = user->user;
    ThrongSample *sample = user->sample;
    gboolean freed = user->freed;

    if (G_UNLIKELY (user->journey.active) && !freed)
        http_journey_abort (&user->journey, user->step, user->sample);
    user->journey.active = user->journey.keep = FALSE;
    http_hop_clear (&user->hop);
    user->step = NULL;
    user->sample = NULL;
    user->connecting = FALSE;
    if (!freed)
        g_source_set_ready_time (user->timer, -1);
    http_soup_user_unref (user);
    if (!freed)
        throng_user_step_done_sample (throng_user, sample);
}

/* Ends the step with @error_class; @message (static) NULL for the class's description. */
static void
step_fail (SoupUser *user, ThrongErrorClass error_class, const char *message)
{
    if (user->message != NULL)
        http_soup_account_hop (user);
    release_hop (user, FALSE);
    http_sample_fail (user->sample, error_class, message);
    step_finish (user);
}

static gboolean
fail_after_shutdown_cb (gpointer data)
{
    SoupUser *user = data;

    if (user->freed) {
        release_hop (user, FALSE);
        step_finish (user);
    } else {
        step_fail (user, user->cancel_class, user->cancel_message);
    }
    return G_SOURCE_REMOVE;
}

/*
 * Ends a step whose HTTP/2 connection connect.c shut down, once libsoup
 * has read that end: its read source, of default priority, is ready from
 * the shutdown on, so it runs before this idle.  Ended earlier, the
 * step's end could start the user's next request, and libsoup would
 * send it on that connection, which it still takes for open.
 */
static void
fail_after_shutdown (SoupUser *user)
{
    GSource *later = g_idle_source_new ();

    g_source_set_priority (later, G_PRIORITY_DEFAULT + 1);
    g_source_set_callback (later, fail_after_shutdown_cb, user, NULL);
    g_source_attach (later, user->context);
    g_source_unref (later);
}

/*
 * Ends the step on @error: our own cancel (a timeout, a bound), or what
 * went wrong, worded as `fast` words it where libsoup's error alone
 * would not say (docs/http.md).
 */
static void
step_fail_error (SoupUser *user, const GError *error)
{
    ThrongErrorClass error_class;
    const char *refused;
    HttpFraming framing;

    g_debug ("soup: step failed: %s (%s %d)", error->message, g_quark_to_string (error->domain),
             error->code);
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
        && user->cancel_class != THRONG_ERROR_NONE) {
        if (user->shut_down)
            fail_after_shutdown (user);
        else
            step_fail (user, user->cancel_class, user->cancel_message);
        return;
    }
    error_class = http_soup_error_class (user, error);
    /* libsoup refused a head: say which rule it broke, if it broke one of ours. */
    if (error->domain == SOUP_SESSION_ERROR && user->message != NULL
        && soup_message_get_status (user->message) != 0
        && (refused = http_soup_framing_refusal (user, &framing)) != NULL) {
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_PROTOCOL, refused);
        return;
    }
    /* libsoup ends an oversized head as it ends a cut one (PARTIAL_INPUT); its size tells them
     * apart. */
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && user->stream == NULL
        && http_soup_head_bytes (user) >= HTTP_MAX_HEAD) {
        step_fail (user, THRONG_ERROR_PROTOCOL, "response head too large");
        return;
    }
    step_fail (user, error_class, NULL);
}

/* The body of the current hop was read to its end. */
static void
hop_complete (SoupUser *user)
{
    guint status = soup_message_get_status (user->message);
    SoupMessageHeaders *headers = soup_message_get_response_headers (user->message);
    gboolean follow;

    gboolean h2 = soup_message_get_http_version (user->message) == SOUP_HTTP_2_0;

    g_input_stream_close (user->stream, NULL, NULL);
    g_clear_object (&user->stream);
    http_soup_account_hop (user);
    follow = http_hop_response (&user->hop, user->step, status, headers, user->sample);
    /* Before the checks: a `protocol` check reads it, as on fast. */
    if (!follow && h2)
        http_sample_note_protocol (user->sample, "h2");
    if (!follow && G_UNLIKELY (user->journey.active))
        http_journey_end (&user->journey, user->step, user->user, status, headers,
                          http_hop_uri (&user->hop, user->step), user->sample);
    release_hop (user, TRUE);
    if (follow) {
        hop_send (user);
        return;
    }
    step_finish (user);
}

static void
body_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
    SoupUser *user = data;
    g_autoptr (GError) error = NULL;
    gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

    if (user->freed) {
        release_hop (user, FALSE);
        step_finish (user);
        return;
    }
    if (n < 0) {
        step_fail_error (user, error);
        return;
    }
    if (user->raw != NULL) {
        chunked_read (user, (gsize)n);
        return;
    }
    if (n == 0) {
        hop_complete (user);
        return;
    }
    user->body_bytes += (guint64)n;
    if (G_UNLIKELY (user->journey.active && user->journey.keep)
        && user->body_bytes <= user->step->max_body)
        g_string_append_len (user->journey.body, (const char *)user->buffer, n);
    if (user->body_bytes > user->step->max_body) {
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_BODY_LIMIT, NULL);
        return;
    }
    body_read (user);
}

static void
body_read (SoupUser *user)
{
    gboolean pushed = http_soup_push_context (user);
    g_input_stream_read_async (user->raw != NULL ? user->raw : user->stream, user->buffer,
                               SOUP_READ_BUFFER, G_PRIORITY_DEFAULT, user->cancellable,
                               body_read_done, user);
    http_soup_pop_context (user, pushed);
}

/* @n bytes of a chunked body in the user's buffer, or the connection's end (0). */
static void
chunked_read (SoupUser *user, gsize n)
{
    HttpChunkedResult result;
    gsize used;

    if (n == 0) {
        /* The last chunk or its empty line never came: `fast` says the same. */
        step_fail (user, THRONG_ERROR_RESET, NULL);
        return;
    }
    result = http_chunked_feed (&user->chunked, user->buffer, n, user->step->max_body, &used);
    user->body_bytes = user->chunked.total;
    switch (result) {
    case HTTP_CHUNKED_MORE:
        body_read (user);
        return;
    case HTTP_CHUNKED_DONE:
        http_soup_chunked_end (user, used < n);
        hop_complete (user);
        return;
    case HTTP_CHUNKED_LIMIT:
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_BODY_LIMIT, NULL);
        return;
    case HTTP_CHUNKED_BAD:
    default:
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_PROTOCOL, user->chunked.message);
        return;
    }
}

/* The head libsoup read, held to http_soup_framing_refusal(); FALSE when the step ended. */
static gboolean
framing_agrees (SoupUser *user, HttpFraming *framing)
{
    const char *refused = http_soup_framing_refusal (user, framing);

    if (refused == NULL)
        return TRUE;
    user->sample->status = (gint32)soup_message_get_status (user->message);
    step_fail (user, THRONG_ERROR_PROTOCOL, refused);
    return FALSE;
}

static void
hop_sent (GObject *source, GAsyncResult *result, gpointer data)
{
    SoupUser *user = data;
    g_autoptr (GError) error = NULL;
    HttpFraming framing;

    user->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
    if (user->freed) {
        release_hop (user, FALSE);
        step_finish (user);
        return;
    }
    if (user->stream == NULL) {
        step_fail_error (user, error);
        return;
    }
    user->connecting = FALSE;
    if (user->step->version == HTTP_VERSION_2
        && soup_message_get_http_version (user->message) != SOUP_HTTP_2_0) {
        step_fail (user, THRONG_ERROR_PROTOCOL,
                   "the server did not select h2 through ALPN (version: 2 requires it; "
                   "version: auto falls back to HTTP/1.1)");
        return;
    }
    if (!framing_agrees (user, &framing))
        return;
    if (framing.kind == HTTP_FRAMING_CHUNKED
        && (user->raw = http_soup_chunked_source (user)) != NULL) {
        http_chunked_init (&user->chunked);
        if (G_UNLIKELY (user->journey.active && user->journey.keep))
            user->chunked.keep = user->journey.body;
    }
    http_soup_timer_arm (user);
    body_read (user);
}

/*
 * "starting", after the cookie jar's handler, which replaces the request's
 * Cookie field by the jar's cookies or removes it: the step's own Cookie
 * (@data) goes back in, with the jar's after "; ", so that the request
 * carries one Cookie field (RFC 6265 §5.4), as on the fast transport.
 */
static void
merge_own_cookie (SoupMessage *message, gpointer data)
{
    SoupMessageHeaders *headers = soup_message_get_request_headers (message);
    const char *jar = soup_message_headers_get_one (headers, "Cookie");
    g_autofree char *merged = jar != NULL ? g_strconcat (data, "; ", jar, NULL) : NULL;

    soup_message_headers_replace (headers, "Cookie", merged != NULL ? merged : data);
}

/*
 * A challenge to a step with auth: { digest: ... }: libsoup's auth manager
 * answers it with the credentials expanded when the step began, once.  A
 * challenge of another scheme is not answered (the plan asked for Digest:
 * its password is not sent in Basic's clear text), nor a second one (the
 * credentials were refused): the 401 is then the step's response.
 */
static gboolean
digest_authenticate (SoupMessage *message, SoupAuth *auth, gboolean retrying, gpointer data)
{
    SoupUser *user = data;
    const GString *credentials = user->journey.request.digest;

    if (retrying || user->freed || user->step == NULL
        || g_ascii_strcasecmp (soup_auth_get_scheme_name (auth), "Digest") != 0)
        return FALSE;
    soup_auth_authenticate (auth, credentials->str, credentials->str + strlen (credentials->str) + 1);
    return TRUE;
}

static void
hop_send (SoupUser *user)
{
    const HttpStep *step = user->step;
    const HttpOptions *options = &user->scenario->options;
    const HttpRequestText *text = &user->journey.request;
    const GArray *sent = http_request_headers (step, text);
    SoupMessageHeaders *headers;
    gboolean pushed;

    user->message = soup_message_new_from_uri (user->hop.method, http_hop_uri (&user->hop, step));
    user->body_bytes = 0;
    if (user->journey.active)
        http_journey_hop (&user->journey);
    /*
     * IDEMPOTENT: libsoup would otherwise open a new connection for every
     * POST.  NO_REDIRECT: redirects are ours to count and bound.
     */
    soup_message_set_flags (user->message,
                            SOUP_MESSAGE_IDEMPOTENT | SOUP_MESSAGE_COLLECT_METRICS
                                | SOUP_MESSAGE_NO_REDIRECT
                                | (user->new_connection ? SOUP_MESSAGE_NEW_CONNECTION : 0));
    user->new_connection = FALSE;
    headers = soup_message_get_request_headers (user->message);
    for (guint i = 0; i < sent->len; i++) {
        const HttpHeader *header = &g_array_index (sent, HttpHeader, i);
        if (!http_hop_sends_header (&user->hop, header->name))
            continue;
        soup_message_headers_replace (headers, header->name, header->value);
        if (user->jar != NULL && g_ascii_strcasecmp (header->name, "Cookie") == 0)
            g_signal_connect_data (user->message, "starting", G_CALLBACK (merge_own_cookie),
                                   g_strdup (header->value),
                                   (GClosureNotify)(void (*) (void))g_free, G_CONNECT_AFTER);
    }
    if (!options->keep_alive)
        soup_message_headers_replace (headers, "Connection", "close");
    if (user->hop.body && http_step_body_varies (step)) {
        g_autoptr (GBytes) body = g_bytes_new (text->body->str, text->body->len);
        soup_message_set_request_body_from_bytes (user->message, NULL, body);
    } else if (user->hop.body && step->body != NULL) {
        soup_message_set_request_body_from_bytes (user->message, NULL, step->body);
    }
    if (user->shared->certificate != NULL)
        soup_message_set_tls_client_certificate (user->message, user->shared->certificate);
    g_signal_connect (user->message, "network-event", G_CALLBACK (http_soup_network_event), user);
    g_signal_connect (user->message, "got-informational", G_CALLBACK (http_soup_got_informational),
                      user);
    g_signal_connect (user->message, "restarted", G_CALLBACK (http_soup_restarted), user);
    if (step->auth != NULL && step->auth->kind == HTTP_AUTH_DIGEST && !user->hop.other_origin)
        g_signal_connect (user->message, "authenticate", G_CALLBACK (digest_authenticate), user);
    user->interim = 0;

    pushed = http_soup_push_context (user);
    soup_session_send_async (user->session, user->message, G_PRIORITY_DEFAULT, user->cancellable,
                             hop_sent, user);
    http_soup_pop_context (user, pushed);
}

void
http_soup_run (gpointer data, const HttpStep *step, ThrongSample *sample)
{
    SoupUser *user = data;

    g_return_if_fail (user->step == NULL);

    if (G_UNLIKELY (http_journey_needed (step))
        && !http_journey_begin (&user->journey, (HttpStep *)step, user->user, sample)) {
        sample->resource = step->url;
        throng_user_step_done_sample (user->user, sample);
        return;
    }
    if (step->cookies != NULL && user->jar != NULL)
        http_step_cookies_store (step, user->journey.request.cookies, user->jar);

    /* Only after a cancel: a cancellable cannot be reused once cancelled. */
    if (g_cancellable_is_cancelled (user->cancellable)) {
        g_clear_object (&user->cancellable);
        user->cancellable = g_cancellable_new ();
    }
    user->refs++;
    user->step = step;
    user->sample = sample;
    http_hop_start (&user->hop, step);
    if (step->url_template != NULL)
        user->hop.uri = http_request_uri (step, &user->journey.request);
    user->cancel_class = THRONG_ERROR_NONE;
    user->cancel_message = NULL;
    user->shut_down = FALSE;
    user->connecting = FALSE;
    /* From when the request is really sent, as in `fast`: a late start is lag, not the server. */
    user->deadline_us = g_get_monotonic_time () + step->timeout_us;
    sample->resource = step->url;
    http_soup_timer_arm (user);
    if (G_UNLIKELY (user->journey.active))
        http_journey_print_request (&user->journey, step, user->jar,
                                    http_hop_uri (&user->hop, step));
    hop_send (user);
}
