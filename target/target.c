/* SPDX-License-Identifier: MIT */
/*
 * The built-in target (see target.h): one SoupServer with a plain and a TLS
 * listener on 127.0.0.1, owned by a thread of its own that runs its own
 * GMainContext, so the load never shares a loop with the server it
 * measures.  The certificate is made at start-up with GnuTLS — a P-256 key
 * is cheap, so the target starts in a few milliseconds.  Everything the
 * server touches lives on its thread; the only state shared with callers is
 * the URLs and PEM (written before start returns, then read-only) and the
 * request counter (atomic).
 */
#include "target.h"
#include "listen.h"
#include "shop.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <libsoup/soup.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define TARGET_MAX_BYTES (64u * 1024 * 1024)
#define TARGET_MAX_DELAY_MS 60000u
#define TARGET_MAX_REDIRECTS 1000u
#define TARGET_CHUNK_SIZE (64u * 1024)
#define TARGET_LISTEN_BACKLOG 4096

struct _ThrongTarget {
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    GTlsCertificate *certificate;
    char *certificate_pem;
    char *http_url;
    char *https_url;
    GBytes *chunk;
    atomic_ullong requests;

    /* The start handshake: the server thread reports once that it listens
     * (or why it could not). */
    GMutex lock;
    GCond cond;
    gboolean ready;
    GError *start_error;

    /* Server-thread only. */
    SoupServer *server;
    ThrongSoupListener *http_listener;
    ThrongSoupListener *https_listener;
    GHashTable *delays;
};

/* A /delay/MS response waiting for its timer. */
typedef struct {
    ThrongTarget *target;
    SoupServerMessage *msg;
    GSource *timer;
    guint ms;
} Delay;

/* ------------------------------------------------------------------ */
/* The certificate                                                     */

static gboolean
tls_check (int rc, const char *what, GError **error)
{
    if (rc >= 0)
        return TRUE;
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "built-in target: cannot make its certificate (%s: %s)", what,
                 gnutls_strerror (rc));
    return FALSE;
}

/*
 * A self-signed certificate for 127.0.0.1 (and localhost), valid from an
 * hour ago — clocks drift — for 30 days.  Returns the PEM of the
 * certificate followed by its PKCS#8 key.
 */
static char *
target_make_certificate (char **out_cert_pem, GError **error)
{
    static const guint8 ip[4] = { 127, 0, 0, 1 };
    static const char cn[] = "127.0.0.1";
    static const char dns[] = "localhost";
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    gnutls_datum_t crt_pem = { NULL, 0 };
    gnutls_datum_t key_pem = { NULL, 0 };
    guint8 serial[16];
    guint8 key_id[64];
    size_t key_id_size = sizeof key_id;
    time_t now = time (NULL);
    char *pem = NULL;

    for (gsize i = 0; i < sizeof serial; i++)
        serial[i] = (guint8) g_random_int_range (0, 256);
    serial[0] = (serial[0] & 0x7f) | 0x01;

    if (tls_check (gnutls_x509_privkey_init (&key), "privkey_init", error) &&
        tls_check (gnutls_x509_privkey_generate (key, GNUTLS_PK_ECDSA,
                                                 GNUTLS_CURVE_TO_BITS (GNUTLS_ECC_CURVE_SECP256R1), 0),
                   "privkey_generate", error) &&
        tls_check (gnutls_x509_crt_init (&crt), "crt_init", error) &&
        tls_check (gnutls_x509_crt_set_version (crt, 3), "set_version", error) &&
        tls_check (gnutls_x509_crt_set_serial (crt, serial, sizeof serial), "set_serial", error) &&
        tls_check (gnutls_x509_crt_set_activation_time (crt, now - 3600), "set_activation_time",
                   error) &&
        tls_check (gnutls_x509_crt_set_expiration_time (crt, now + 30 * 86400),
                   "set_expiration_time", error) &&
        tls_check (gnutls_x509_crt_set_dn_by_oid (crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                                  sizeof cn - 1),
                   "set_dn", error) &&
        tls_check (gnutls_x509_crt_set_key (crt, key), "set_key", error) &&
        tls_check (gnutls_x509_crt_set_subject_alt_name (crt, GNUTLS_SAN_IPADDRESS, ip, sizeof ip,
                                                         GNUTLS_FSAN_APPEND),
                   "set_san_ip", error) &&
        tls_check (gnutls_x509_crt_set_subject_alt_name (crt, GNUTLS_SAN_DNSNAME, dns,
                                                         sizeof dns - 1, GNUTLS_FSAN_APPEND),
                   "set_san_dns", error) &&
        tls_check (gnutls_x509_crt_set_basic_constraints (crt, 0, -1), "set_basic_constraints",
                   error) &&
        tls_check (gnutls_x509_crt_set_key_usage (crt, GNUTLS_KEY_DIGITAL_SIGNATURE),
                   "set_key_usage", error) &&
        tls_check (gnutls_x509_crt_set_key_purpose_oid (crt, GNUTLS_KP_TLS_WWW_SERVER, 0),
                   "set_key_purpose", error) &&
        tls_check (gnutls_x509_crt_get_key_id (crt, 0, key_id, &key_id_size), "get_key_id",
                   error) &&
        tls_check (gnutls_x509_crt_set_subject_key_id (crt, key_id, key_id_size),
                   "set_subject_key_id", error) &&
        tls_check (gnutls_x509_crt_sign2 (crt, crt, key, GNUTLS_DIG_SHA256, 0), "sign", error) &&
        tls_check (gnutls_x509_crt_export2 (crt, GNUTLS_X509_FMT_PEM, &crt_pem), "crt_export",
                   error) &&
        tls_check (gnutls_x509_privkey_export2_pkcs8 (key, GNUTLS_X509_FMT_PEM, NULL,
                                                      GNUTLS_PKCS_PLAIN, &key_pem),
                   "privkey_export", error)) {
        *out_cert_pem = g_strndup ((const char *) crt_pem.data, crt_pem.size);
        pem = g_strdup_printf ("%.*s%.*s", (int) crt_pem.size, (const char *) crt_pem.data,
                               (int) key_pem.size, (const char *) key_pem.data);
    }

    if (key_pem.data != NULL) {
        /* The key's PEM held secret material. */
        memset (key_pem.data, 0, key_pem.size);
        gnutls_free (key_pem.data);
    }
    gnutls_free (crt_pem.data);
    if (crt != NULL)
        gnutls_x509_crt_deinit (crt);
    if (key != NULL)
        gnutls_x509_privkey_deinit (key);
    return pem;
}

/* ------------------------------------------------------------------ */
/* Routes (server thread)                                              */

static void
respond_text (SoupServerMessage *msg, guint status, const char *text)
{
    soup_server_message_set_status (msg, status, NULL);
    soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, text, strlen (text));
}

static void
respond_bad_request (SoupServerMessage *msg, const char *why)
{
    g_autofree char *text = g_strdup_printf ("%s\n", why);

    respond_text (msg, SOUP_STATUS_BAD_REQUEST, text);
}

/* Parses the decimal tail of "/route/N", refusing anything above @max. */
static gboolean
parse_tail (const char *tail, guint64 max, guint64 *out)
{
    return *tail != '\0' && g_ascii_string_to_unsigned (tail, 10, 0, max, out, NULL);
}

static void
route_bytes (ThrongTarget *target, SoupServerMessage *msg, const char *tail)
{
    SoupMessageBody *body;
    guint64 n;

    if (!parse_tail (tail, TARGET_MAX_BYTES, &n)) {
        respond_bad_request (msg, "/bytes/N: N must be 0 to 67108864");
        return;
    }
    soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
    soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg),
                                           "application/octet-stream", NULL);
    /* Slices of one shared chunk: a large body costs no copy. */
    body = soup_server_message_get_response_body (msg);
    while (n > 0) {
        gsize len = MIN (n, (guint64) TARGET_CHUNK_SIZE);
        g_autoptr (GBytes) slice = g_bytes_new_from_bytes (target->chunk, 0, len);

        soup_message_body_append_bytes (body, slice);
        n -= len;
    }
}

static void
route_status (SoupServerMessage *msg, const char *tail)
{
    g_autofree char *text = NULL;
    guint64 code;

    if (!parse_tail (tail, 599, &code) || code < 200) {
        respond_bad_request (msg, "/status/CODE: CODE must be 200 to 599");
        return;
    }
    soup_server_message_set_status (msg, (guint) code, NULL);
    if (code == SOUP_STATUS_NO_CONTENT || code == SOUP_STATUS_NOT_MODIFIED)
        return;
    text = g_strdup_printf ("%u %s\n", (guint) code, soup_status_get_phrase ((guint) code));
    soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, text, strlen (text));
}

static void
delay_free (Delay *delay)
{
    g_signal_handlers_disconnect_by_data (delay->msg, delay);
    if (delay->timer != NULL) {
        g_source_destroy (delay->timer);
        g_source_unref (delay->timer);
    }
    g_object_unref (delay->msg);
    g_free (delay);
}

static gboolean
on_delay_elapsed (gpointer user_data)
{
    Delay *delay = user_data;
    g_autofree char *text = g_strdup_printf ("delayed %u ms\n", delay->ms);
    g_autoptr (SoupServerMessage) msg = g_object_ref (delay->msg);

    /* Forget the delay before unpausing, so that a "finished" emitted on
     * the way cannot reach it; the context still holds this source while
     * it is dispatched. */
    g_source_unref (g_steal_pointer (&delay->timer));
    g_hash_table_remove (delay->target->delays, delay);
    respond_text (msg, SOUP_STATUS_OK, text);
    soup_server_message_unpause (msg);
    return G_SOURCE_REMOVE;
}

/* The client went away (or the server is closing) before the timer fired. */
static void
on_delay_abandoned (SoupServerMessage *msg, gpointer user_data)
{
    Delay *delay = user_data;

    g_hash_table_remove (delay->target->delays, delay);
}

static void
route_delay (ThrongTarget *target, SoupServerMessage *msg, const char *tail)
{
    Delay *delay;
    guint64 ms;

    if (!parse_tail (tail, TARGET_MAX_DELAY_MS, &ms)) {
        respond_bad_request (msg, "/delay/MS: MS must be 0 to 60000");
        return;
    }
    delay = g_new0 (Delay, 1);
    delay->target = target;
    delay->msg = g_object_ref (msg);
    delay->ms = (guint) ms;
    delay->timer = g_timeout_source_new ((guint) ms);
    g_source_set_callback (delay->timer, on_delay_elapsed, delay, NULL);
    g_signal_connect (msg, "disconnected", G_CALLBACK (on_delay_abandoned), delay);
    g_signal_connect (msg, "finished", G_CALLBACK (on_delay_abandoned), delay);
    g_hash_table_add (target->delays, delay);
    soup_server_message_pause (msg);
    g_source_attach (delay->timer, target->context);
}

static void
route_echo (SoupServerMessage *msg)
{
    SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
    const char *type = soup_message_headers_get_content_type (request_headers, NULL);
    g_autoptr (GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));

    soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
    soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg),
                                           type != NULL ? type : "application/octet-stream", NULL);
    if (g_bytes_get_size (body) > 0)
        soup_message_body_append_bytes (soup_server_message_get_response_body (msg), body);
}

static void
route_cookie (SoupServerMessage *msg)
{
    const char *cookie = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                       "Cookie");

    soup_message_headers_append (soup_server_message_get_response_headers (msg), "Set-Cookie",
                                 "throng=1; Path=/");
    respond_text (msg, SOUP_STATUS_OK, cookie != NULL ? cookie : "");
}

static void
route_redirect (SoupServerMessage *msg, const char *tail)
{
    g_autofree char *location = NULL;
    guint64 n;

    if (!parse_tail (tail, TARGET_MAX_REDIRECTS, &n)) {
        respond_bad_request (msg, "/redirect/N: N must be 0 to 1000");
        return;
    }
    location = n == 0 ? g_strdup ("/") : g_strdup_printf ("/redirect/%" G_GUINT64_FORMAT, n - 1);
    /* A relative Location, as most servers send; clients resolve it. */
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Location",
                                  location);
    respond_text (msg, SOUP_STATUS_FOUND, "redirect\n");
}

static void
on_request (SoupServer *server,
            SoupServerMessage *msg,
            const char *path,
            GHashTable *query,
            gpointer user_data)
{
    ThrongTarget *target = user_data;

    atomic_fetch_add_explicit (&target->requests, 1, memory_order_relaxed);

    if (strcmp (path, "/") == 0)
        respond_text (msg, SOUP_STATUS_OK, "throng built-in target\n");
    else if (g_str_has_prefix (path, "/bytes/"))
        route_bytes (target, msg, path + strlen ("/bytes/"));
    else if (g_str_has_prefix (path, "/status/"))
        route_status (msg, path + strlen ("/status/"));
    else if (g_str_has_prefix (path, "/delay/"))
        route_delay (target, msg, path + strlen ("/delay/"));
    else if (strcmp (path, "/echo") == 0)
        route_echo (msg);
    else if (strcmp (path, "/cookie") == 0)
        route_cookie (msg);
    else if (g_str_has_prefix (path, "/redirect/"))
        route_redirect (msg, path + strlen ("/redirect/"));
    else if (!throng_target_shop_route (msg, path, query))
        respond_text (msg, SOUP_STATUS_NOT_FOUND, "not found\n");
}

/* ------------------------------------------------------------------ */
/* The server thread                                                   */

/*
 * Our own listening socket (listen.c), for its backlog: GSocket's default
 * of 10 drops the SYNs of a burst of new connections (a journey's users
 * logging in at once), which the clients then retry after 1, 3 and 7 s —
 * latency that is the target's accept queue, not its work.
 */
static char *
listen_on_loopback (ThrongTarget *target, ThrongSoupListener **listener,
                    GTlsCertificate *certificate, GError **error)
{
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);

    *listener = throng_soup_listen (target->server, address, TARGET_LISTEN_BACKLOG, certificate,
                                    error);
    if (*listener == NULL)
        return NULL;
    return g_strdup_printf ("%s://127.0.0.1:%u", certificate != NULL ? "https" : "http",
                            throng_soup_listener_port (*listener));
}

static void
target_report_started (ThrongTarget *target, GError *error)
{
    g_mutex_lock (&target->lock);
    target->start_error = error;
    target->ready = TRUE;
    g_cond_signal (&target->cond);
    g_mutex_unlock (&target->lock);
}

static gpointer
target_thread (gpointer user_data)
{
    ThrongTarget *target = user_data;
    GError *error = NULL;

    g_main_context_push_thread_default (target->context);

    target->delays = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) delay_free, NULL);
    target->server = soup_server_new ("server-header", "throng-target", NULL);
    soup_server_add_handler (target->server, NULL, on_request, target, NULL);

    target->http_url = listen_on_loopback (target, &target->http_listener, NULL, &error);
    if (target->http_url != NULL)
        target->https_url = listen_on_loopback (target, &target->https_listener,
                                                target->certificate, &error);

    target_report_started (target, error);
    if (error == NULL)
        g_main_loop_run (target->loop);

    /* Teardown on the thread that owns the server: pending delays first
     * (their messages stay paused; closing the connections ends them),
     * then the listeners and connections, then whatever the closing
     * queued on the context. */
    g_hash_table_remove_all (target->delays);
    soup_server_disconnect (target->server);
    g_clear_pointer (&target->http_listener, throng_soup_listener_free);
    g_clear_pointer (&target->https_listener, throng_soup_listener_free);
    g_clear_object (&target->server);
    while (g_main_context_iteration (target->context, FALSE))
        ;
    g_clear_pointer (&target->delays, g_hash_table_unref);

    g_main_context_pop_thread_default (target->context);
    return NULL;
}

static void
target_free (ThrongTarget *target)
{
    g_clear_pointer (&target->loop, g_main_loop_unref);
    g_clear_pointer (&target->context, g_main_context_unref);
    g_clear_object (&target->certificate);
    g_free (target->certificate_pem);
    g_free (target->http_url);
    g_free (target->https_url);
    g_clear_pointer (&target->chunk, g_bytes_unref);
    g_clear_error (&target->start_error);
    g_mutex_clear (&target->lock);
    g_cond_clear (&target->cond);
    g_free (target);
}

ThrongTarget *
throng_target_start (GError **error)
{
    ThrongTarget *target;
    g_autofree char *pem = NULL;
    guint8 *pattern;

    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    target = g_new0 (ThrongTarget, 1);
    g_mutex_init (&target->lock);
    g_cond_init (&target->cond);
    atomic_init (&target->requests, 0);

    pem = target_make_certificate (&target->certificate_pem, error);
    if (pem == NULL) {
        target_free (target);
        return NULL;
    }
    target->certificate = g_tls_certificate_new_from_pem (pem, -1, error);
    if (target->certificate == NULL) {
        g_prefix_error (error, "built-in target: ");
        target_free (target);
        return NULL;
    }

    pattern = g_malloc (TARGET_CHUNK_SIZE);
    for (gsize i = 0; i < TARGET_CHUNK_SIZE; i++)
        pattern[i] = (guint8) ("abcdefghijklmnopqrstuvwxyz0123456789"[i % 36]);
    target->chunk = g_bytes_new_take (pattern, TARGET_CHUNK_SIZE);

    target->context = g_main_context_new ();
    target->loop = g_main_loop_new (target->context, FALSE);
    target->thread = g_thread_try_new ("throng-target", target_thread, target, error);
    if (target->thread == NULL) {
        target_free (target);
        return NULL;
    }

    g_mutex_lock (&target->lock);
    while (!target->ready)
        g_cond_wait (&target->cond, &target->lock);
    g_mutex_unlock (&target->lock);

    if (target->start_error != NULL) {
        g_thread_join (target->thread);
        g_propagate_error (error, g_steal_pointer (&target->start_error));
        target_free (target);
        return NULL;
    }
    return target;
}

const char *
throng_target_http_url (ThrongTarget *target)
{
    g_return_val_if_fail (target != NULL, NULL);
    return target->http_url;
}

const char *
throng_target_https_url (ThrongTarget *target)
{
    g_return_val_if_fail (target != NULL, NULL);
    return target->https_url;
}

const char *
throng_target_certificate_pem (ThrongTarget *target)
{
    g_return_val_if_fail (target != NULL, NULL);
    return target->certificate_pem;
}

guint64
throng_target_requests (ThrongTarget *target)
{
    g_return_val_if_fail (target != NULL, 0);
    return atomic_load_explicit (&target->requests, memory_order_relaxed);
}

static gboolean
quit_loop (gpointer user_data)
{
    g_main_loop_quit (user_data);
    return G_SOURCE_REMOVE;
}

void
throng_target_stop (ThrongTarget *target)
{
    GSource *source;

    if (target == NULL)
        return;
    /* Quit from inside the loop: a quit sent before the thread reached
     * g_main_loop_run() would otherwise be lost. */
    source = g_idle_source_new ();
    g_source_set_callback (source, quit_loop, target->loop, NULL);
    g_source_attach (source, target->context);
    g_source_unref (source);
    g_thread_join (target->thread);
    target_free (target);
}
