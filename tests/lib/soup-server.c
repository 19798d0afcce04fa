/* SPDX-License-Identifier: MIT */
/*
 * The in-process SoupServer fixture (see soup-server.h): created, listened
 * and disconnected on its own thread, and the delayed answer that stall
 * and delay routes share.
 */
#include "soup-server.h"

#include <string.h>

struct _ThrongTestSoupServer {
    ThrongTestServerThread *thread;
    SoupServer *soup;
    GTlsCertificate *certificate;
    SoupServerCallback handler;
    gpointer data;
    char *http_url;
    char *https_url;
};

/*
 * Listens on 127.0.0.1 at a port the kernel picks with a deep backlog:
 * GSocket's default of 10 overflows when a test's users all connect at
 * once, and the kernel then resets connections that already sent their
 * request, or makes the clients retry their SYN after a second.
 */
static void
server_listen (SoupServer *soup, SoupServerListenOptions options)
{
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GError) error = NULL;
    g_autoptr (GSocket) socket
        = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);

    g_assert_no_error (error);
    g_socket_set_listen_backlog (socket, 4096);
    g_assert_true (g_socket_bind (socket, address, TRUE, &error));
    g_assert_true (g_socket_listen (socket, &error));
    g_assert_true (soup_server_listen_socket (soup, socket, options, &error));
    g_assert_no_error (error);
}

/* On the server's thread, its context the default: the listeners' sources go there. */
static void
server_start (gpointer user_data, gpointer unused)
{
    ThrongTestSoupServer *server = user_data;
    GSList *uris;

    server->soup = soup_server_new ("tls-certificate", server->certificate, NULL);
    soup_server_add_handler (server->soup, NULL, server->handler, server->data, NULL);
    server_listen (server->soup, 0);
    if (server->certificate != NULL)
        server_listen (server->soup, SOUP_SERVER_LISTEN_HTTPS);
    uris = soup_server_get_uris (server->soup);
    for (GSList *l = uris; l != NULL; l = l->next) {
        GUri *uri = l->data;
        char *url = g_strdup_printf ("%s://127.0.0.1:%d", g_uri_get_scheme (uri),
                                     g_uri_get_port (uri));

        if (strcmp (g_uri_get_scheme (uri), "https") == 0)
            server->https_url = url;
        else
            server->http_url = url;
    }
    g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
    g_assert_nonnull (server->http_url);
}

static void
server_finish (gpointer user_data, gpointer unused)
{
    ThrongTestSoupServer *server = user_data;

    soup_server_disconnect (server->soup);
    g_clear_object (&server->soup);
}

ThrongTestSoupServer *
throng_test_soup_server_start (GTlsCertificate *certificate, SoupServerCallback handler,
                               gpointer data)
{
    ThrongTestSoupServer *server = g_new0 (ThrongTestSoupServer, 1);

    server->certificate = certificate != NULL ? g_object_ref (certificate) : NULL;
    server->handler = handler;
    server->data = data;
    server->thread = throng_test_server_thread_start ("soup-server", server_start, server_finish,
                                                      server);
    return server;
}

void
throng_test_soup_server_stop (ThrongTestSoupServer *server)
{
    if (server == NULL)
        return;
    throng_test_server_thread_stop (server->thread);
    g_clear_object (&server->certificate);
    g_free (server->http_url);
    g_free (server->https_url);
    g_free (server);
}

const char *
throng_test_soup_server_http_url (ThrongTestSoupServer *server)
{
    return server->http_url;
}

const char *
throng_test_soup_server_https_url (ThrongTestSoupServer *server)
{
    return server->https_url;
}

typedef struct {
    SoupServerMessage *message;
    const char *body;
    gboolean finished;
} Delayed;

static void
delayed_finished (SoupServerMessage *message, gpointer user_data)
{
    ((Delayed *) user_data)->finished = TRUE;
}

static gboolean
delayed_respond (gpointer user_data)
{
    Delayed *delayed = user_data;

    if (!delayed->finished) {
        soup_server_message_set_status (delayed->message, 200, NULL);
        soup_server_message_set_response (delayed->message, "text/plain", SOUP_MEMORY_STATIC,
                                          delayed->body, strlen (delayed->body));
        soup_server_message_unpause (delayed->message);
    }
    g_signal_handlers_disconnect_by_data (delayed->message, delayed);
    g_object_unref (delayed->message);
    g_free (delayed);
    return G_SOURCE_REMOVE;
}

void
throng_test_soup_server_respond_later (SoupServerMessage *message, guint delay_ms, const char *body)
{
    Delayed *delayed = g_new0 (Delayed, 1);
    GSource *source = g_timeout_source_new (delay_ms);

    delayed->message = g_object_ref (message);
    delayed->body = body;
    g_signal_connect (message, "finished", G_CALLBACK (delayed_finished), delayed);
    soup_server_message_pause (message);
    g_source_set_callback (source, delayed_respond, delayed, NULL);
    /* The handler's thread runs the server's context as its default. */
    g_source_attach (source, g_main_context_get_thread_default ());
    g_source_unref (source);
}
