/* SPDX-License-Identifier: MIT */
/*
 * The tests' synchronous HTTP client (http-client.h): a SoupSession per
 * request, so nothing is shared between tests.
 */
#include <libsoup/soup.h>
#include <string.h>

#include "http-client.h"

char *
throng_test_http_request (const char *method, const char *url, const char *content_type,
                          const char *body, guint *status, GError **error)
{
    g_autoptr (SoupSession) session = soup_session_new_with_options ("timeout", 10, NULL);
    g_autoptr (SoupMessage) message = soup_message_new (method, url);
    g_autoptr (GBytes) answer = NULL;

    if (message == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "bad URL %s", url);
        return NULL;
    }
    if (body != NULL) {
        g_autoptr (GBytes) bytes = g_bytes_new (body, strlen (body));

        soup_message_set_request_body_from_bytes (message, content_type, bytes);
    }
    answer = soup_session_send_and_read (session, message, NULL, error);
    if (answer == NULL)
        return NULL;
    *status = soup_message_get_status (message);
    /* An empty body (204) has no data at all: "" then, not NULL. */
    gsize size = 0;
    const char *data = g_bytes_get_data (answer, &size);
    return data != NULL ? g_strndup (data, size) : g_strdup ("");
}

JsonNode *
throng_test_http_get_json (const char *url, GError **error)
{
    guint status = 0;
    g_autofree char *text = throng_test_http_request ("GET", url, NULL, NULL, &status, error);
    g_autoptr (JsonParser) parser = NULL;

    if (text == NULL)
        return NULL;
    if (!SOUP_STATUS_IS_SUCCESSFUL (status)) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "GET %s: %u %s", url, status, text);
        return NULL;
    }
    parser = json_parser_new ();
    if (!json_parser_load_from_data (parser, text, -1, error))
        return NULL;
    return json_node_copy (json_parser_get_root (parser));
}

gboolean
throng_test_http_wait_ok (const char *url, guint timeout_ms)
{
    gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
    g_autofree char *last = NULL;

    do {
        guint status = 0;
        g_autoptr (GError) error = NULL;
        g_autofree char *text = throng_test_http_request ("GET", url, NULL, NULL, &status, &error);

        if (text != NULL && SOUP_STATUS_IS_SUCCESSFUL (status))
            return TRUE;
        g_free (last);
        last = text != NULL ? g_strdup_printf ("HTTP %u", status) : g_strdup (error->message);
        g_usleep (100 * 1000);
    } while (g_get_monotonic_time () < deadline);
    g_test_message ("GET %s: %s", url, last);
    return FALSE;
}

char *
throng_test_http_escape (const char *text)
{
    return g_uri_escape_string (text, NULL, FALSE);
}
