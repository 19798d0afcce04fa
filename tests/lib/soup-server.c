/* SPDX-License-Identifier: MIT */
/*
 * The in-process SoupServer fixture (see soup-server.h): created, listened
 * and disconnected on its own thread, and the delayed answer that stall
 * and delay routes share.
 */
#include "soup-server.h"

#include "listen.h"

#include <string.h>

struct _ThrongTestSoupServer {
    ThrongTestServerThread *thread;
    SoupServer *soup;
    ThrongSoupListener *http_listener;
    ThrongSoupListener *https_listener;
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
 * request, or makes the clients retry their SYN after a second.  The
 * built-in target's listener (target/listen.c) accepts.
 */
static char *
server_listen (ThrongTestSoupServer *server, ThrongSoupListener **listener,
               GTlsCertificate *certificate)
{
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GError) error = NULL;

    *listener = throng_soup_listen (server->soup, address, 4096, certificate, &error);
    g_assert_no_error (error);
    return g_strdup_printf ("%s://127.0.0.1:%u", certificate != NULL ? "https" : "http",
                            throng_soup_listener_port (*listener));
}

/* On the server's thread, its context the default: the listeners' sources go there. */
static void
server_start (gpointer user_data, gpointer unused)
{
    ThrongTestSoupServer *server = user_data;

    server->soup = soup_server_new (NULL, NULL);
    soup_server_add_handler (server->soup, NULL, server->handler, server->data, NULL);
    server->http_url = server_listen (server, &server->http_listener, NULL);
    if (server->certificate != NULL)
        server->https_url = server_listen (server, &server->https_listener, server->certificate);
}

static void
server_finish (gpointer user_data, gpointer unused)
{
    ThrongTestSoupServer *server = user_data;

    soup_server_disconnect (server->soup);
    g_clear_pointer (&server->http_listener, throng_soup_listener_free);
    g_clear_pointer (&server->https_listener, throng_soup_listener_free);
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

/* --- a target of known capacity ---------------------------------------------- */

/*
 * The queue is kept in ideal time: each slot is free from a time of its
 * own, a request is served by the slot free first, from when it arrives
 * or that slot frees, for exactly the service time.  A timer that fires
 * late (a busy machine) delays that one answer, not the slot's next
 * request, so the capacity is exactly slots / service time.
 */
struct _ThrongTestSlots {
    guint service_ms;
    GArray *free_at;            /* gint64 per slot, monotonic µs; the server's thread only */
    gint served;                /* atomic */
};

typedef struct {
    ThrongTestSlots *slots;
    SoupServerMessage *message;
    gboolean finished;          /* the client gave up */
} SlotEntry;

static void
slot_entry_finished (SoupServerMessage *message, gpointer user_data)
{
    ((SlotEntry *) user_data)->finished = TRUE;
}

static gboolean
slot_served (gpointer user_data)
{
    SlotEntry *entry = user_data;

    if (!entry->finished) {
        soup_server_message_set_status (entry->message, 200, NULL);
        soup_server_message_set_response (entry->message, "text/plain", SOUP_MEMORY_STATIC,
                                          "ok", 2);
        soup_server_message_unpause (entry->message);
        g_atomic_int_inc (&entry->slots->served);
    }
    g_signal_handlers_disconnect_by_data (entry->message, entry);
    g_object_unref (entry->message);
    g_free (entry);
    return G_SOURCE_REMOVE;
}

ThrongTestSlots *
throng_test_slots_new (guint slots, guint service_ms)
{
    ThrongTestSlots *target = g_new0 (ThrongTestSlots, 1);

    target->service_ms = service_ms;
    target->free_at = g_array_new (FALSE, TRUE, sizeof (gint64));
    g_array_set_size (target->free_at, slots);
    return target;
}

void
throng_test_slots_handler (SoupServer *server, SoupServerMessage *message, const char *path,
                           GHashTable *query, gpointer data)
{
    ThrongTestSlots *slots = data;
    SlotEntry *entry = g_new0 (SlotEntry, 1);
    gint64 now = g_get_monotonic_time ();
    guint first = 0;

    for (guint i = 1; i < slots->free_at->len; i++)
        if (g_array_index (slots->free_at, gint64, i) < g_array_index (slots->free_at, gint64, first))
            first = i;
    gint64 *free_at = &g_array_index (slots->free_at, gint64, first);
    *free_at = MAX (now, *free_at) + (gint64) slots->service_ms * 1000;

    entry->slots = slots;
    entry->message = g_object_ref (message);
    g_signal_connect (message, "finished", G_CALLBACK (slot_entry_finished), entry);
    soup_server_message_pause (message);
    GSource *source = g_timeout_source_new (0);
    g_source_set_ready_time (source, *free_at);
    g_source_set_callback (source, slot_served, entry, NULL);
    g_source_attach (source, g_main_context_get_thread_default ());
    g_source_unref (source);
}

guint64
throng_test_slots_served (ThrongTestSlots *slots)
{
    return (guint64) g_atomic_int_get (&slots->served);
}

void
throng_test_slots_free (ThrongTestSlots *slots)
{
    if (slots == NULL)
        return;
    g_array_unref (slots->free_at);
    g_free (slots);
}
