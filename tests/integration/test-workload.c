/* SPDX-License-Identifier: MIT */
/*
 * Honest measurement against real servers: coordinated omission (an
 * in-process libsoup server that stalls one second in every five, driven
 * by the open and the closed model) and the saturation warning (throng
 * overloaded by full TLS handshakes against nginx on one worker, and a
 * light run that must not warn).
 */
#include "test-utils.h"

#include <libsoup/soup.h>
#include <string.h>

/* --- a target that stalls ------------------------------------------------- */

/*
 * From @first_stall_us after it starts, the server holds every request
 * that arrives during [k * period, k * period + stall) until the window
 * ends.  Requests outside the windows are answered at once.
 */
typedef struct {
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    SoupServer *server;
    guint16 port;
    gint64 origin_us;
    gint64 period_us;
    gint64 stall_us;
    GMutex lock;
    GCond ready;
    gboolean started;
    guint64 served;             /* atomic */
} StallServer;

typedef struct {
    SoupServerMessage *message;
    StallServer *server;
} Held;

static gboolean
release_held (gpointer data)
{
    Held *held = data;

    soup_server_message_set_status (held->message, 200, NULL);
    soup_server_message_set_response (held->message, "text/plain", SOUP_MEMORY_STATIC, "late\n", 5);
    soup_server_message_unpause (held->message);
    g_object_unref (held->message);
    g_free (held);
    return G_SOURCE_REMOVE;
}

static void
stall_handler (SoupServer *soup, SoupServerMessage *message, const char *path, GHashTable *query,
               gpointer data)
{
    StallServer *server = data;
    gint64 t = g_get_monotonic_time () - server->origin_us;

    g_atomic_pointer_add (&server->served, 1);
    if (t >= 0) {
        gint64 into = t % server->period_us;
        if (into < server->stall_us) {
            Held *held = g_new0 (Held, 1);
            held->message = g_object_ref (message);
            held->server = server;
            soup_server_message_pause (message);
            GSource *source = g_timeout_source_new ((guint) ((server->stall_us - into) / 1000) + 1);
            g_source_set_callback (source, release_held, held, NULL);
            g_source_attach (source, server->context);
            g_source_unref (source);
            return;
        }
    }
    soup_server_message_set_status (message, 200, NULL);
    soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "ok\n", 3);
}

static gpointer
stall_thread (gpointer data)
{
    StallServer *server = data;
    g_autoptr (GError) error = NULL;

    g_main_context_push_thread_default (server->context);
    server->server = soup_server_new ("server-header", "stall", NULL);
    soup_server_add_handler (server->server, NULL, stall_handler, server, NULL);
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_assert_true (soup_server_listen (server->server, address, 0, &error));
    g_assert_no_error (error);
    GSList *uris = soup_server_get_uris (server->server);
    server->port = (guint16) g_uri_get_port (uris->data);
    g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

    g_mutex_lock (&server->lock);
    server->started = TRUE;
    g_cond_signal (&server->ready);
    g_mutex_unlock (&server->lock);

    g_main_loop_run (server->loop);
    soup_server_disconnect (server->server);
    g_clear_object (&server->server);
    g_main_context_pop_thread_default (server->context);
    return NULL;
}

static StallServer *
stall_server_start (gint64 first_stall_us, gint64 period_us, gint64 stall_us)
{
    StallServer *server = g_new0 (StallServer, 1);

    server->context = g_main_context_new ();
    server->loop = g_main_loop_new (server->context, FALSE);
    server->period_us = period_us;
    server->stall_us = stall_us;
    server->origin_us = g_get_monotonic_time () + first_stall_us;
    g_mutex_init (&server->lock);
    g_cond_init (&server->ready);
    server->thread = g_thread_new ("stall-server", stall_thread, server);
    g_mutex_lock (&server->lock);
    while (!server->started)
        g_cond_wait (&server->ready, &server->lock);
    g_mutex_unlock (&server->lock);
    return server;
}

static gboolean
quit_loop (gpointer data)
{
    g_main_loop_quit (data);
    return G_SOURCE_REMOVE;
}

static void
stall_server_stop (StallServer *server)
{
    g_main_context_invoke (server->context, quit_loop, server->loop);
    g_thread_join (server->thread);
    g_main_loop_unref (server->loop);
    g_main_context_unref (server->context);
    g_mutex_clear (&server->lock);
    g_cond_clear (&server->ready);
    g_free (server);
}

static gint64
run_p99 (ThrongTestTmpdir *fixture, const char *yaml, gint64 *requests)
{
    int status = -1;
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_json (fixture->dir, yaml, NULL, 60, &status, &err);

    if (status != 0)
        g_printerr ("%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    *requests = throng_test_json_int (root, "total.requests");
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    return throng_test_json_int (root, "total.latency_us.p99");
}

/*
 * The classic demonstration: a closed-model user that is stuck in a stall
 * sends nothing, so the stall costs it one slow sample; an open-model
 * schedule keeps arriving, and every arrival during the stall waits.
 */
static void
test_coordinated_omission (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *model = data;
    StallServer *server = stall_server_start (2 * G_USEC_PER_SEC, 5 * G_USEC_PER_SEC,
                                              G_USEC_PER_SEC);
    g_autofree char *yaml = NULL;
    gint64 requests = 0;

    if (strcmp (model, "open") == 0)
        yaml = g_strdup_printf ("scenarios:\n"
                                "  - executor: constant-arrival-rate\n"
                                "    rate: 100/s\n"
                                "    duration: 10s\n"
                                "    max_users: 300\n"
                                "    http: {base_url: 'http://127.0.0.1:%u'}\n"
                                "    steps:\n"
                                "      - http: {url: /}\n",
                                server->port);
    else
        yaml = g_strdup_printf ("scenarios:\n"
                                "  - users: 10\n"
                                "    duration: 10s\n"
                                "    think_time: 10ms\n"
                                "    http: {base_url: 'http://127.0.0.1:%u'}\n"
                                "    steps:\n"
                                "      - http: {url: /}\n",
                                server->port);
    gint64 p99 = run_p99 (fixture, yaml, &requests);
    stall_server_stop (server);

    g_test_message ("%s model: %" G_GINT64_FORMAT " requests, p99 %" G_GINT64_FORMAT " µs", model,
                    requests, p99);
    if (strcmp (model, "open") == 0) {
        /* 1000 arrivals, 200 of them in the two stalls, waiting 0–1 s. */
        g_assert_cmpint (ABS (requests - 1000), <=, 10);
        g_assert_cmpint (p99, >=, 900 * 1000);
    } else {
        /* Ten users stuck once per stall: 20 slow samples among thousands. */
        g_assert_cmpint (requests, >, 2000);
        g_assert_cmpint (p99, <, 100 * 1000);
    }
}

/* --- saturation ---------------------------------------------------------------- */

/* Runs @plan with "@URL@" replaced by nginx's HTTPS base URL, on one worker. */
static JsonNode *
run_against_nginx (ThrongTestTmpdir *fixture, const char *plan, ThrongTestNginx *nginx)
{
    g_auto (GStrv) parts = g_strsplit (plan, "@URL@", -1);
    g_autofree char *yaml = g_strjoinv (throng_test_nginx_https_url (nginx), parts);
    const char *extra[] = { "--workers", "1", NULL };
    int status = -1;
    g_autofree char *err = NULL;
    JsonNode *root = throng_test_run_json (fixture->dir, yaml, extra, 60, &status, &err);

    if (status != 0)
        g_printerr ("%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    return root;
}

static gboolean
has_saturation_warning (JsonNode *root)
{
    guint n = throng_test_json_length (root, "warnings");

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("warnings.%u", i);
        if (strstr (throng_test_json_string (root, path), "load generator saturated") != NULL)
            return TRUE;
    }
    return FALSE;
}

static void
test_saturation (ThrongTestTmpdir *fixture, gconstpointer data)
{
    if (!throng_test_require_nginx ())
        return;
    ThrongTestNginxConfig config = { .https = TRUE, .master_process = TRUE };
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_start (&config, &error);
    g_assert_no_error (error);

    /* As many full handshakes as one worker can make: every iteration
     * reconnects and never resumes. */
    g_autoptr (JsonNode) heavy = run_against_nginx (fixture,
                                                    "scenarios:\n"
                                                    "  - users: 200\n"
                                                    "    duration: 3s\n"
                                                    "    http:\n"
                                                    "      base_url: '@URL@'\n"
                                                    "      tls: {verify: false, session: "
                                                    "per-iteration, resumption: false}\n"
                                                    "    steps:\n"
                                                    "      - http: {url: /}\n",
                                                    nginx);
    g_test_message ("heavy: %" G_GINT64_FORMAT " full handshakes",
                    throng_test_json_int (heavy, "total.handshakes.full"));
    g_assert_cmpint (throng_test_json_int (heavy, "total.handshakes.full"), >, 100);
    g_assert_true (has_saturation_warning (heavy));

    /* A modest rate over kept-alive connections leaves throng idle. */
    g_autoptr (JsonNode) light = run_against_nginx (fixture,
                                                    "scenarios:\n"
                                                    "  - executor: constant-arrival-rate\n"
                                                    "    rate: 50/s\n"
                                                    "    duration: 3s\n"
                                                    "    max_users: 10\n"
                                                    "    http:\n"
                                                    "      base_url: '@URL@'\n"
                                                    "      tls: {verify: false}\n"
                                                    "    steps:\n"
                                                    "      - http: {url: /}\n",
                                                    nginx);
    g_assert_cmpint (throng_test_json_int (light, "total.requests"), >=, 148);
    g_assert_false (has_saturation_warning (light));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, data)                                                                       \
    g_test_add (path, ThrongTestTmpdir, data, throng_test_tmpdir_setup, fn,                     \
                throng_test_tmpdir_teardown)
    ADD ("/workload/coordinated-omission/open", test_coordinated_omission, "open");
    ADD ("/workload/coordinated-omission/closed", test_coordinated_omission, "closed");
    ADD ("/workload/saturation", test_saturation, NULL);
    return g_test_run ();
}
