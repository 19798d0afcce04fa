/* SPDX-License-Identifier: MIT */
/*
 * The connections libsoup opens for the soup transport's user, and the
 * step's deadlines.  A connection counts once TCP connected, as on
 * `fast`, and is remembered (weakly: libsoup alone decides when it goes)
 * by libsoup's id, so that a cancelled HTTP/2 stream can wake libsoup
 * through its connection.  One timer per user bounds the whole step
 * (timeout) and each connection attempt (connect_timeout); whatever ends
 * a step from throng's side goes through http_soup_cancel_step(), which
 * only cancels: the step then ends in exchange.c's callback, with the
 * class given here.
 */
#include "soup.h"

/* A connection of the user's session, by libsoup's id (http_soup_cancel_step). */
typedef struct {
    guint64 id;
    GWeakRef connection; /* GSocketConnection */
} UserConnection;

static void
user_connection_free (gpointer data)
{
    UserConnection *c = data;

    g_weak_ref_clear (&c->connection);
    g_free (c);
}

/* The connection, if it is still open; (transfer full) (nullable). */
static GSocketConnection *
user_connection_get (UserConnection *c)
{
    GSocketConnection *connection = g_weak_ref_get (&c->connection);

    if (connection != NULL && g_io_stream_is_closed (G_IO_STREAM (connection)))
        g_clear_object (&connection);
    return connection;
}

GPtrArray *
http_soup_connections_new (void)
{
    return g_ptr_array_new_with_free_func (user_connection_free);
}

void
http_soup_timer_arm (SoupUser *user)
{
    gint64 ready = user->deadline_us;

    if (user->connecting) {
        user->connect_deadline_us
            = g_get_monotonic_time () + user->scenario->options.connect_timeout_us;
        ready = MIN (ready, user->connect_deadline_us);
    }
    g_source_set_ready_time (user->timer, ready);
}

/*
 * Shuts the reading half of the user's connection @id down, if it is
 * open: see http_soup_cancel_step().  TRUE if it did.  Only that half:
 * libsoup 3.2.3 answers a cancelled stream with an RST_STREAM whenever
 * it notices the cancel before the connection's end (bytes that came
 * before the end are read first), and counts the connection in use
 * until that frame is written.  With the writing half shut, the write
 * fails and the connection stays in use for good: soup_session_abort()
 * (which closes idle connections only) passes it over, and the session's
 * dispose frees the connection manager with it still listed ("Disposing
 * connection ... while still connected", and a leak of the host's list
 * node in soup_connection_manager_free; later libsoups remove the
 * connections first).
 */
static gboolean
close_h2_connection (SoupUser *user, guint64 id)
{
    gboolean closed = FALSE;

    for (guint i = 0; i < user->connections->len; i++) {
        UserConnection *c = g_ptr_array_index (user->connections, i);
        g_autoptr (GSocketConnection) connection = c->id == id ? user_connection_get (c) : NULL;
        if (connection != NULL) {
            g_debug ("soup: closing HTTP/2 connection %" G_GUINT64_FORMAT
                     " to end a cancelled stream",
                     id);
            g_socket_shutdown (g_socket_connection_get_socket (connection), TRUE, FALSE, NULL);
            closed = TRUE;
        }
    }
    return closed;
}

/*
 * Ends the step in flight from throng's side: its callback (exchange.c)
 * then fails it with @error_class and @message (static; NULL for the
 * class's description).  The first cause wins.
 */
void
http_soup_cancel_step (SoupUser *user, ThrongErrorClass error_class, const char *message)
{
    if (user->step == NULL || user->cancel_class != THRONG_ERROR_NONE)
        return;
    user->cancel_class = error_class;
    user->cancel_message = message;
    g_cancellable_cancel (user->cancellable);
    /*
     * libsoup 3.2 looks at the cancellable of a message on an HTTP/2
     * stream only when bytes arrive on its connection: a server that
     * stays silent would hold the step to its response, past `timeout`.
     * Shutting the connection's reading half down wakes libsoup, which
     * then sees the cancel and the connection's end (and closes it, as
     * a cancel mid-response does over HTTP/1.1).  exchange.c lets
     * libsoup read that end before the step ends (shut_down): until
     * then the connection looks open, and the user's next request would
     * be sent on it.
     */
    if (user->message != NULL && soup_message_get_http_version (user->message) == SOUP_HTTP_2_0)
        user->shut_down
            = close_h2_connection (user, soup_message_get_connection_id (user->message));
}

static gboolean
timer_fired (gpointer data)
{
    SoupUser *user = data;

    http_soup_cancel_step (user, THRONG_ERROR_TIMEOUT,
                           user->connecting && user->connect_deadline_us < user->deadline_us
                               ? "connect timed out"
                               : "step timed out");
    /* Cancelled: the step ends in its callback, which may wait for sources of lower priority. */
    g_source_set_ready_time (user->timer, -1);
    return G_SOURCE_CONTINUE;
}

/* Unarmed, on the user's context; (transfer full). */
GSource *
http_soup_timer_new (SoupUser *user)
{
    GSource *timer = g_source_new (&http_timer_funcs, sizeof (GSource));

    g_source_set_callback (timer, timer_fired, user, NULL);
    g_source_set_ready_time (timer, -1);
    g_source_attach (timer, user->context);
    return timer;
}

/*
 * The peer's address of a connection TCP just opened, read now so that
 * GSocket keeps it; FALSE (and @error) when the peer already reset the
 * connection.  glib-networking 2.74 reads the address again when the TLS
 * handshake starts and unrefs what it got without checking for NULL: a
 * reset that lands before that read is a GLib-GObject critical
 * (fixed upstream by glib-networking merge request 280, first tagged in
 * 2.90.alpha).  Once read here, the
 * address is GSocket's cached copy, so later reads succeed whatever the
 * peer does; libsoup reads it right after this anyway.
 */
static gboolean
connection_peer_known (GIOStream *connection, GError **error)
{
    g_autoptr (GSocketAddress) peer = NULL;

    if (!G_IS_SOCKET_CONNECTION (connection))
        return TRUE;
    peer = g_socket_connection_get_remote_address (G_SOCKET_CONNECTION (connection), error);
    return peer != NULL;
}

void
http_soup_network_event (SoupMessage *message, GSocketClientEvent event, GIOStream *connection,
                         gpointer data)
{
    SoupUser *user = data;

    if (user->freed || user->step == NULL)
        return;
    /* A connection counts once TCP connected, whatever TLS does next, as on `fast`. */
    if (event == G_SOCKET_CLIENT_CONNECTED) {
        g_autoptr (GError) reset = NULL;
        UserConnection *c;

        /* Reset already: ended here, before libsoup hands the dead socket to TLS
         * (GSocketClient checks the cancellable before it returns the connection). */
        if (!connection_peer_known (connection, &reset)) {
            ThrongErrorClass error_class = http_error_class_from_gerror (reset);
            g_debug ("soup: connection reset as it opened: %s", reset->message);
            user->sample->connections_opened++;
            http_soup_cancel_step (
                user, error_class == THRONG_ERROR_OTHER ? THRONG_ERROR_RESET : error_class, NULL);
            return;
        }
        c = g_new0 (UserConnection, 1);
        /* Those libsoup closed or dropped are forgotten as new ones come. */
        for (guint i = user->connections->len; i-- > 0;) {
            g_autoptr (GSocketConnection) open
                = user_connection_get (g_ptr_array_index (user->connections, i));
            if (open == NULL)
                g_ptr_array_remove_index_fast (user->connections, i);
        }
        c->id = soup_message_get_connection_id (message);
        g_weak_ref_init (&c->connection, connection);
        g_ptr_array_add (user->connections, c);
        user->sample->connections_opened++;
        g_debug ("soup: connection to %s opened", g_uri_get_host (soup_message_get_uri (message)));
    }
    if (event == G_SOCKET_CLIENT_RESOLVING && !user->connecting) {
        user->connecting = TRUE;
        http_soup_timer_arm (user);
    } else if (event == G_SOCKET_CLIENT_COMPLETE && user->connecting) {
        user->connecting = FALSE;
        http_soup_timer_arm (user);
    }
}
