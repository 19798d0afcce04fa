/* SPDX-License-Identifier: MIT */
/*
 * The /metrics server: a SoupServer on a thread and main context of its
 * own, so that a scrape never waits for the main thread and the main
 * thread never waits for a scrape.  The two share one thing, the latest
 * text, behind a mutex held only to swap or take a reference to it.
 */
#include <glib-unix.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <sys/socket.h>

#include "listen.h"
#include "prometheus.h"

struct _PrometheusServer {
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    SoupServer *soup;           /* the server thread's, from start to the end of its loop */
    ThrongSoupListener *listener;
    GSocketAddress *address;

    /* Shared with the server thread. */
    GMutex lock;
    GCond changed;
    GBytes *text;
    gboolean final;
    guint final_scrapes;        /* scrapes that received the final text */
    gboolean interrupted;       /* SIGINT or SIGTERM during the linger */

    /* The start's outcome, handed back to prometheus_server_start(). */
    gboolean started;
    GError *start_error;
};

static void
on_metrics (SoupServer *soup, SoupServerMessage *message, const char *path, GHashTable *query,
            gpointer user_data)
{
    PrometheusServer *server = user_data;
    const char *method = soup_server_message_get_method (message);
    g_autoptr (GBytes) text = NULL;

    if (g_strcmp0 (path, "/metrics") != 0) {
        soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
        return;
    }
    if (g_strcmp0 (method, "GET") != 0 && g_strcmp0 (method, "HEAD") != 0) {
        soup_server_message_set_status (message, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
        return;
    }
    g_mutex_lock (&server->lock);
    text = server->text != NULL ? g_bytes_ref (server->text) : g_bytes_new_static ("", 0);
    if (server->final) {
        server->final_scrapes++;
        g_cond_broadcast (&server->changed);
    }
    g_mutex_unlock (&server->lock);

    soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
    soup_message_headers_set_content_type (soup_server_message_get_response_headers (message),
                                           "text/plain; version=0.0.4; charset=utf-8", NULL);
    soup_message_body_append_bytes (soup_server_message_get_response_body (message), text);
}

static gpointer
server_main (gpointer data)
{
    PrometheusServer *server = data;
    GError *error = NULL;

    g_main_context_push_thread_default (server->context);
    server->soup = soup_server_new ("server-header", "throng ", NULL);
    soup_server_add_handler (server->soup, NULL, on_metrics, server, NULL);
    /* SOMAXCONN: a scraper connects once in a while, not in bursts. */
    server->listener = throng_soup_listen (server->soup, server->address, SOMAXCONN, NULL, &error);
    gboolean listening = server->listener != NULL;

    g_mutex_lock (&server->lock);
    server->started = TRUE;
    server->start_error = error;
    g_cond_broadcast (&server->changed);
    g_mutex_unlock (&server->lock);

    if (listening)
        g_main_loop_run (server->loop);
    soup_server_disconnect (server->soup);
    g_clear_pointer (&server->listener, throng_soup_listener_free);
    g_clear_object (&server->soup);
    g_main_context_pop_thread_default (server->context);
    return NULL;
}

PrometheusServer *
prometheus_server_start (GSocketAddress *address, GError **error)
{
    PrometheusServer *server = g_new0 (PrometheusServer, 1);

    g_mutex_init (&server->lock);
    g_cond_init (&server->changed);
    server->address = g_object_ref (address);
    server->context = g_main_context_new ();
    server->loop = g_main_loop_new (server->context, FALSE);
    server->thread = g_thread_new ("throng-prometheus", server_main, server);

    g_mutex_lock (&server->lock);
    while (!server->started)
        g_cond_wait (&server->changed, &server->lock);
    g_mutex_unlock (&server->lock);
    if (server->start_error != NULL) {
        g_propagate_error (error, g_steal_pointer (&server->start_error));
        prometheus_server_stop (server);
        return NULL;
    }
    return server;
}

void
prometheus_server_publish (PrometheusServer *server, GBytes *text, gboolean final)
{
    GBytes *old;

    g_mutex_lock (&server->lock);
    old = server->text;
    server->text = text;
    server->final = final;
    g_mutex_unlock (&server->lock);
    g_clear_pointer (&old, g_bytes_unref);
}

guint
prometheus_server_final_scrapes (PrometheusServer *server)
{
    guint scrapes;

    g_mutex_lock (&server->lock);
    scrapes = server->final_scrapes;
    g_mutex_unlock (&server->lock);
    return scrapes;
}

static gboolean
on_signal (gpointer data)
{
    PrometheusServer *server = data;

    g_mutex_lock (&server->lock);
    server->interrupted = TRUE;
    g_cond_broadcast (&server->changed);
    g_mutex_unlock (&server->lock);
    return G_SOURCE_CONTINUE;
}

guint
prometheus_server_linger (PrometheusServer *server, gint64 linger_us, guint scrapes)
{
    gint64 deadline = g_get_monotonic_time () + linger_us;
    guint got;
    /* The run's own handlers are gone by now: Ctrl-C ends the wait, not throng. */
    GSource *sources[] = { g_unix_signal_source_new (SIGINT), g_unix_signal_source_new (SIGTERM) };

    for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
        g_source_set_callback (sources[i], on_signal, server, NULL);
        g_source_attach (sources[i], server->context);
    }
    g_mutex_lock (&server->lock);
    while (!server->interrupted && (scrapes == 0 || server->final_scrapes < scrapes)
           && g_cond_wait_until (&server->changed, &server->lock, deadline))
        ;
    got = server->final_scrapes;
    g_mutex_unlock (&server->lock);
    for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
        g_source_destroy (sources[i]);
        g_source_unref (sources[i]);
    }
    return got;
}

static gboolean
quit_loop (gpointer data)
{
    g_main_loop_quit (data);
    return G_SOURCE_REMOVE;
}

void
prometheus_server_stop (PrometheusServer *server)
{
    if (server == NULL)
        return;
    g_main_context_invoke (server->context, quit_loop, server->loop);
    g_thread_join (server->thread);
    g_main_loop_unref (server->loop);
    g_main_context_unref (server->context);
    g_object_unref (server->address);
    g_clear_pointer (&server->text, g_bytes_unref);
    g_clear_error (&server->start_error);
    g_mutex_clear (&server->lock);
    g_cond_clear (&server->changed);
    g_free (server);
}
