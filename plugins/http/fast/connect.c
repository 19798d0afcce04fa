/* SPDX-License-Identifier: MIT */
/*
 * New connections of the fast transport (connect.h): DNS once per host
 * and user, a non-blocking connect per address until one answers, and
 * the TLS handshake.  It owns the connection's FastConnFunc until the
 * connection is open; then the exchange gives it to the session that
 * runs on it (session.c).  The handshake's counters (full or resumed,
 * its time) go to the sample of the exchange that opened it.
 */
#include "connect.h"

#include <string.h>
#include <netinet/in.h>
#include <gnutls/gnutls.h>

void
fast_lookup_abandon (FastUser *u)
{
    if (u->lookup == NULL)
        return;
    u->lookup->user = NULL;
    g_cancellable_cancel (u->lookup->cancellable);
    u->lookup = NULL;
}

void
fast_save_ticket (FastUser *u, FastConn *conn)
{
    GBytes *data = fast_conn_take_session (conn);

    if (data == NULL)
        return;
    conn->want_ticket = FALSE;
    fast_sessions_save (u->fs->sessions, u->slot, data);
}

static FastHost *
host_entry (FastUser *u, const char *name)
{
    FastHost *h;

    for (guint i = 0; i < u->hosts->len; i++) {
        h = g_ptr_array_index (u->hosts, i);
        if (strcmp (h->name, name) == 0)
            return h;
    }
    h = g_new0 (FastHost, 1);
    h->name = g_strdup (name);
    if (g_hostname_is_ip_address (name)) {
        g_autoptr (GInetAddress) ia = g_inet_address_new_from_string (name);
        if (ia != NULL) {
            g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (ia, 0);
            if (g_socket_address_to_native (sa, &h->addrs[0], sizeof h->addrs[0], NULL)) {
                h->lens[0] = g_socket_address_get_native_size (sa);
                h->n_addrs = 1;
                h->literal = TRUE;
            }
        }
    }
    g_ptr_array_add (u->hosts, h);
    return h;
}

void
fast_host_free (gpointer data)
{
    FastHost *h = data;

    g_free (h->name);
    g_free (h);
}

/* Connect and handshake */

static void connect_event (FastConn *conn, GIOCondition condition, gpointer data);
static void connected (FastUser *u);

static void
connect_failed (FastUser *u, const FastError *error)
{
    /* "localhost" may resolve to ::1 first while the server listens on 127.0.0.1. */
    if (error->error_class == THRONG_ERROR_CONNECT && u->addr_try + 1 < u->host_entry->n_addrs) {
        u->addr_try++;
        g_debug ("fast: connect to %s failed (%s); trying its next address", u->host,
                 error->message);
        fast_connect_open (u);
        return;
    }
    u->fs->events->fail (u, error->error_class, error->message);
}

static void
connect_start (FastUser *u)
{
    FastHost *h = u->host_entry;
    guint index = (h->preferred + u->addr_try) % h->n_addrs;
    struct sockaddr_storage addr = h->addrs[index];
    guint16 port = g_htons (u->port);
    FastError error;

    if (addr.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&addr)->sin6_port = port;
    else
        ((struct sockaddr_in *)&addr)->sin_port = port;
    u->phase_start = g_get_monotonic_time ();
    u->conn = fast_conn_connect (u->user, (struct sockaddr *)&addr, h->lens[index], u->host,
                                 u->port, u->tls, connect_event, u, &error);
    if (u->conn == NULL) {
        connect_failed (u, &error);
        return;
    }
    u->state = ST_CONNECTING;
    if (u->conn->established)
        connected (u);
}

static void
on_resolved (GObject *source, GAsyncResult *result, gpointer data)
{
    FastLookup *lookup = data;
    FastUser *u = lookup->user;
    FastHost *h = lookup->host;
    GList *addresses = g_resolver_lookup_by_name_finish (G_RESOLVER (source), result, NULL);

    g_object_unref (lookup->cancellable);
    g_free (lookup);
    if (u == NULL) {
        g_resolver_free_addresses (addresses);
        return;
    }
    u->lookup = NULL;
    for (GList *l = addresses; l != NULL && h->n_addrs < HOST_ADDRS_MAX; l = l->next) {
        g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (l->data, 0);
        guint i = h->n_addrs;
        if (g_socket_address_to_native (sa, &h->addrs[i], sizeof h->addrs[i], NULL)) {
            h->lens[i] = g_socket_address_get_native_size (sa);
            h->n_addrs++;
        }
    }
    g_resolver_free_addresses (addresses);
    if (h->n_addrs == 0) {
        u->fs->events->fail (u, THRONG_ERROR_DNS, "host name did not resolve");
        return;
    }
    connect_start (u);
}

static void
lookup_start (FastUser *u, FastHost *h)
{
    FastLookup *lookup = g_new0 (FastLookup, 1);
    gboolean push = g_main_context_get_thread_default () != u->context;

    if (u->resolver == NULL)
        u->resolver = g_resolver_get_default ();
    lookup->user = u;
    lookup->host = h;
    lookup->cancellable = g_cancellable_new ();
    u->lookup = lookup;
    u->state = ST_RESOLVING;
    /* The callback runs on the thread-default context of this call: the worker's. */
    if (push)
        g_main_context_push_thread_default (u->context);
    g_resolver_lookup_by_name_async (u->resolver, h->name, lookup->cancellable, on_resolved,
                                     lookup);
    if (push)
        g_main_context_pop_thread_default (u->context);
}

static void
handshake_step (FastUser *u)
{
    FastConn *conn = u->conn;
    GIOCondition want;
    FastError error;

    switch (fast_conn_handshake (conn, &want, &error)) {
    case FAST_IO_OK:
        break;
    case FAST_IO_AGAIN:
        fast_conn_watch (conn, want);
        return;
    default:
        u->fs->events->fail (u, error.error_class, error.message);
        return;
    }

    u->sample->tls_us += g_get_monotonic_time () - u->phase_start;
    if (gnutls_session_is_resumed (conn->tls)) {
        u->sample->handshakes_resumed++;
        g_debug ("fast: TLS handshake with %s:%u resumed", u->host, u->port);
    } else {
        u->sample->handshakes_full++;
        g_debug ("fast: TLS handshake with %s:%u full", u->host, u->port);
    }
    /*
     * TLS 1.3 tickets arrive after the handshake, with the first records
     * read; TLS 1.2 has its session now (and a resumed one is already
     * the one stored).
     */
    if (gnutls_protocol_get_version (conn->tls) == GNUTLS_TLS1_3)
        conn->want_ticket = TRUE;
    else if (!gnutls_session_is_resumed (conn->tls))
        fast_save_ticket (u, conn);
    u->fs->events->ready (u);
}

static void
connected (FastUser *u)
{
    FastConn *conn = u->conn;
    const HttpTlsOptions *tls = u->fs->tls;
    FastError error;
    gint64 now;

    if (!fast_conn_connect_finish (conn, &error)) {
        fast_conn_close (conn, FALSE);
        u->conn = NULL;
        connect_failed (u, &error);
        return;
    }
    now = g_get_monotonic_time ();
    u->host_entry->preferred = (u->host_entry->preferred + u->addr_try) % u->host_entry->n_addrs;
    u->addr_try = 0;
    u->sample->connections_opened++;
    u->sample->connect_us += now - u->phase_start;
    g_debug ("fast: connection to %s:%u opened in %" G_GINT64_FORMAT " us", u->host, u->port,
             now - u->phase_start);
    if (!u->tls) {
        u->fs->events->ready (u);
        return;
    }

    const char *name = tls->server_name != NULL ? tls->server_name : u->host;
    FastTlsSetup setup = {
        .credentials = u->fs->credentials,
        .priority = u->fs->priority,
        .server_name = tls->server_name != NULL || !u->host_entry->literal ? name : NULL,
        .verify_name = tls->verify ? name : NULL,
        .verified = u->fs->verified,
    };
    const FastStep *fstep = u->step->transport_data;
    setup.alpn = fstep->alpn;
    setup.n_alpn = fstep->n_alpn;
    GBytes *offer = fast_sessions_offer (u->fs->sessions, u->slot);
    gboolean ok = fast_conn_start_tls (conn, &setup, offer, &error);

    if (offer != NULL)
        g_bytes_unref (offer);
    if (!ok) {
        u->fs->events->fail (u, error.error_class, error.message);
        return;
    }
    u->phase_start = now;
    u->state = ST_HANDSHAKING;
    handshake_step (u);
}

/* The FastConnFunc of a connection until it is open. */
static void
connect_event (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastUser *u = data;

    switch (u->state) {
    case ST_CONNECTING:
        connected (u);
        break;
    case ST_HANDSHAKING:
        handshake_step (u);
        break;
    default:
        break;
    }
}

/* Also the next address's try, after a refused one: u->addr_try says which. */
void
fast_connect_open (FastUser *u)
{
    FastHost *h = host_entry (u, u->host);

    u->reused = FALSE;
    u->host_entry = h;
    if (u->addr_try == 0) {
        u->connect_deadline = g_get_monotonic_time () + u->fs->connect_timeout_us;
        fast_timer_need (u, MIN (u->connect_deadline, u->deadline));
    }
    if (h->n_addrs == 0) {
        lookup_start (u, h);
        return;
    }
    connect_start (u);
}


