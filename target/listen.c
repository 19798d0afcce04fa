/* SPDX-License-Identifier: MIT */
/* A SoupServer served from a listening socket of our own (listen.h). */
#include "listen.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

struct _ThrongSoupListener {
    SoupServer *server;
    GSocket *socket;
    GSocket *anchor;
    GTlsCertificate *certificate;
    GSource *source;   /* the listening socket's, or NULL while accepting is paused */
    GSource *resume;   /* after an accept failed for want of descriptors: when to try again */
};

/* What libsoup's own listener offers in ALPN when HTTP/2 is off. */
static const char *const advertised_protocols[] = { "http/1.1", "http/1.0", NULL };

static GIOStream *
wrap_tls (ThrongSoupListener *listener, GIOStream *connection)
{
    g_autoptr (GError) error = NULL;
    /* "database" NULL as libsoup's own listener passes it: left unset, it is the
     * system's trust store, copied into every connection's credentials. */
    GIOStream *tls = g_initable_new (g_tls_backend_get_server_connection_type (g_tls_backend_get_default ()),
                                     NULL, &error, "base-io-stream", connection, "certificate",
                                     listener->certificate, "database", NULL, NULL);

    if (tls == NULL) {
        g_debug ("no TLS for an accepted connection: %s", error->message);
        return NULL;
    }
    /* libsoup's listener does the same: clients that just close are common. */
    g_tls_connection_set_require_close_notify (G_TLS_CONNECTION (tls), FALSE);
    g_tls_connection_set_advertised_protocols (G_TLS_CONNECTION (tls), advertised_protocols);
    return tls;
}

static void
serve (ThrongSoupListener *listener, GSocket *socket)
{
    g_autoptr (GSocketConnection) connection = NULL;
    g_autoptr (GSocketAddress) local = g_socket_get_local_address (socket, NULL);
    g_autoptr (GSocketAddress) remote = g_socket_get_remote_address (socket, NULL);
    g_autoptr (GIOStream) stream = NULL;

    if (local == NULL || remote == NULL)
        return; /* the client already went away */
    g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
    connection = g_socket_connection_factory_create_connection (socket);
    stream = listener->certificate != NULL ? wrap_tls (listener, G_IO_STREAM (connection))
                                           : g_object_ref (G_IO_STREAM (connection));
    if (stream != NULL)
        soup_server_accept_iostream (listener->server, stream, local, remote, NULL);
}

static gboolean on_incoming (GSocket *socket, GIOCondition condition, gpointer user_data);

static void
watch_socket (ThrongSoupListener *listener)
{
    listener->source = g_socket_create_source (listener->socket, G_IO_IN, NULL);
    g_source_set_callback (listener->source, G_SOURCE_FUNC (on_incoming), listener, NULL);
    g_source_attach (listener->source, g_main_context_get_thread_default ());
}

static gboolean
on_resume (gpointer user_data)
{
    ThrongSoupListener *listener = user_data;

    g_clear_pointer (&listener->resume, g_source_unref);
    watch_socket (listener);
    return G_SOURCE_REMOVE;
}

static gboolean
on_incoming (GSocket *socket, GIOCondition condition, gpointer user_data)
{
    ThrongSoupListener *listener = user_data;

    /* Everything waiting: a burst of users connects at once. */
    for (;;) {
        g_autoptr (GError) error = NULL;
        g_autoptr (GSocket) accepted = g_socket_accept (socket, NULL, &error);

        if (accepted != NULL) {
            serve (listener, accepted);
            continue;
        }
        if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            return G_SOURCE_CONTINUE;
        /*
         * Out of descriptors (or another lasting failure): the connection
         * stays queued and the socket readable, so watching on would spin.
         * Try again in 100 ms, when connections may have closed.
         */
        g_debug ("accept: %s; trying again in 100 ms", error->message);
        g_clear_pointer (&listener->source, g_source_unref);
        listener->resume = g_timeout_source_new (100);
        g_source_set_callback (listener->resume, on_resume, listener, NULL);
        g_source_attach (listener->resume, g_main_context_get_thread_default ());
        return G_SOURCE_REMOVE;
    }
}

/*
 * A SoupServer keeps a connection alive after a response only while it
 * has a listener of its own (libsoup 3.2's request_finished() checks), so
 * it gets one on a socket that is bound and listening on a loopback port
 * nobody is told of, and so never accepts anything: nothing to leak.
 */
static GSocket *
anchor_listen (SoupServer *server, GError **error)
{
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                               G_SOCKET_PROTOCOL_TCP, error);

    if (socket == NULL)
        return NULL;
    g_socket_set_listen_backlog (socket, 1);
    if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error)
        || !soup_server_listen_socket (server, socket, 0, error))
        return NULL;
    return g_steal_pointer (&socket);
}

ThrongSoupListener *
throng_soup_listen (SoupServer *server,
                    GSocketAddress *address,
                    int backlog,
                    GTlsCertificate *certificate,
                    GError **error)
{
    g_autoptr (GSocket) socket
        = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                        G_SOCKET_PROTOCOL_TCP, error);
    g_autoptr (GSocket) anchor = NULL;
    ThrongSoupListener *listener;

    if (socket == NULL)
        return NULL;
    g_socket_set_listen_backlog (socket, backlog);
    g_socket_set_blocking (socket, FALSE);
    if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error))
        return NULL;
    anchor = anchor_listen (server, error);
    if (anchor == NULL)
        return NULL;

    listener = g_new0 (ThrongSoupListener, 1);
    listener->server = g_object_ref (server);
    listener->socket = g_steal_pointer (&socket);
    listener->anchor = g_steal_pointer (&anchor);
    listener->certificate = certificate != NULL ? g_object_ref (certificate) : NULL;
    watch_socket (listener);
    return listener;
}

guint16
throng_soup_listener_port (ThrongSoupListener *listener)
{
    g_autoptr (GSocketAddress) local = g_socket_get_local_address (listener->socket, NULL);

    return local != NULL ? g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)) : 0;
}

void
throng_soup_listener_free (ThrongSoupListener *listener)
{
    if (listener == NULL)
        return;
    if (listener->source != NULL) {
        g_source_destroy (listener->source);
        g_source_unref (listener->source);
    }
    if (listener->resume != NULL) {
        g_source_destroy (listener->resume);
        g_source_unref (listener->resume);
    }
    g_socket_close (listener->socket, NULL);
    g_object_unref (listener->socket);
    g_object_unref (listener->anchor);
    g_clear_object (&listener->certificate);
    g_object_unref (listener->server);
    g_free (listener);
}
