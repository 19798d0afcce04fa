/* SPDX-License-Identifier: MIT */
/*
 * Getting a connection for the fast transport's exchange in flight: the
 * user's keep-alive pool, its resolved host addresses (each name looked
 * up once per user), the non-blocking connect with a fallback to the
 * next address, the TLS handshake with the session the policy offers,
 * and the deadlines of the connect and of the whole step.
 */
#include "fast.h"
#include "h2.h"

#include <string.h>
#include <netinet/in.h>
#include <gnutls/gnutls.h>

/* When the exchange in flight must end: its deadline, or its connect's if earlier. */
static gint64
exchange_deadline (const FastUser *u)
{
    gboolean connecting
        = u->state == ST_RESOLVING || u->state == ST_CONNECTING || u->state == ST_HANDSHAKING;

    return connecting && u->connect_deadline < u->deadline ? u->connect_deadline : u->deadline;
}

/*
 * Makes sure the timer fires no later than @when.  The timer is only ever
 * moved earlier: a timer that fires early finds the exchange's real
 * deadline still ahead and re-arms itself for it.  In a steady keep-alive
 * run that is one move in the reactor's heap per timeout period, not two
 * per request.
 */
void
fast_timer_need (FastUser *u, gint64 when)
{
    if (u->timer_at >= 0 && u->timer_at <= when)
        return;
    u->timer_at = when;
    throng_timer_rearm (u->timer, when);
}

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
fast_pool_remove (FastUser *u, FastConn *conn)
{
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn) {
            memmove (&u->pool[i], &u->pool[i + 1], (u->n_pool - i - 1) * sizeof u->pool[0]);
            u->n_pool--;
            return;
        }
    }
}

static void
pool_remove_at (FastUser *u, guint i)
{
    memmove (&u->pool[i], &u->pool[i + 1], (u->n_pool - i - 1) * sizeof u->pool[0]);
    u->n_pool--;
}

void
fast_pool_close_all (FastUser *u)
{
    while (u->n_pool > 0) {
        FastConn *conn = u->pool[--u->n_pool];
        fast_conn_close (conn, TRUE);
    }
}

static FastConn *
pool_take (FastUser *u)
{
    for (guint i = u->n_pool; i-- > 0;) {
        FastConn *conn = u->pool[i];
        if (conn->port == u->port && conn->is_tls == u->tls && strcmp (conn->host, u->host) == 0
            && fast_h2_conn_fits (conn, u->step->version)) {
            pool_remove_at (u, i);
            return conn;
        }
    }
    return NULL;
}

gboolean
fast_pool_holds (const FastUser *u, const FastConn *conn)
{
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn)
            return TRUE;
    }
    return FALSE;
}

void
fast_pool_put (FastUser *u, FastConn *conn)
{
    if (u->n_pool == POOL_MAX) {
        /* the oldest that no lane's stream still uses (h2.c) */
        guint i = 0;
        while (i < u->n_pool && fast_h2_in_use (u->pool[i]))
            i++;
        if (i == u->n_pool) {
            /* every one carries streams: @conn is not kept (h2.c closes it after its last) */
            if (!fast_h2_in_use (conn))
                fast_conn_close (conn, TRUE);
            return;
        }
        fast_conn_close (u->pool[i], TRUE);
        pool_remove_at (u, i);
    }
    u->pool[u->n_pool++] = conn;
    /* Watched while idle so that a server's close is seen before reuse. */
    fast_conn_watch (conn, G_IO_IN);
    /* Bytes already read ahead (a record past the response's end) will
     * never make the socket ready: look at them now, or the next request
     * would take them for its response. */
    if (fast_conn_pending (conn))
        fast_idle_event (u, conn);
    else
        fast_conn_idle (conn);
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

static void
connect_failed (FastUser *u, const FastError *error)
{
    /* "localhost" may resolve to ::1 first while the server listens on 127.0.0.1. */
    if (error->error_class == THRONG_ERROR_CONNECT && u->addr_try + 1 < u->host_entry->n_addrs) {
        u->addr_try++;
        g_debug ("fast: connect to %s failed (%s); trying its next address", u->host,
                 error->message);
        fast_exchange_start (u, TRUE);
        return;
    }
    fast_fail (u, error->error_class, error->message);
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
                                 u->port, u->tls, fast_conn_event, u, &error);
    if (u->conn == NULL) {
        connect_failed (u, &error);
        return;
    }
    u->state = ST_CONNECTING;
    if (u->conn->established)
        fast_connected (u);
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
        fast_fail (u, THRONG_ERROR_DNS, "host name did not resolve");
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

void
fast_handshake_step (FastUser *u)
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
        fast_fail (u, error.error_class, error.message);
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
    fast_request_ready (u);
}

void
fast_connected (FastUser *u)
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
        fast_request_ready (u);
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
    setup.n_alpn = fast_h2_alpn (u->step->version, &setup.alpn);
    GBytes *offer = fast_sessions_offer (u->fs->sessions, u->slot);
    gboolean ok = fast_conn_start_tls (conn, &setup, offer, &error);

    if (offer != NULL)
        g_bytes_unref (offer);
    if (!ok) {
        fast_fail (u, error.error_class, error.message);
        return;
    }
    u->phase_start = now;
    u->state = ST_HANDSHAKING;
    fast_handshake_step (u);
}

/* An idle connection stirred: a late TLS 1.3 ticket, or the server closing it. */
void
fast_idle_event (FastUser *u, FastConn *conn)
{
    guint8 scratch[512];
    GIOCondition want;
    FastError error;
    gsize n;

    if (conn->h2 != NULL) {
        fast_h2_idle_event (u, conn);
        return;
    }
    switch (fast_conn_read (conn, scratch, sizeof scratch, &n, &want, &error)) {
    case FAST_IO_AGAIN:
        if (conn->want_ticket)
            fast_save_ticket (u, conn);
        fast_conn_watch (conn, want);
        return;
    case FAST_IO_OK:
        /* Bytes nobody asked for (a body after a 204, a response to no
         * request): never read as the next request's response. */
        g_debug ("fast: %" G_GSIZE_FORMAT " bytes on an idle connection to %s:%u; closing it", n,
                 conn->host, conn->port);
        g_atomic_int_inc (&u->fs->http->unsolicited_closes);
        break;
    default:
        break;
    }
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn) {
            pool_remove_at (u, i);
            break;
        }
    }
    fast_conn_close (conn, FALSE);
}

void
fast_timer_fired (ThrongTimer *timer, gpointer data)
{
    FastUser *u = data;
    gint64 deadline;

    u->timer_at = -1;
    if (u->state == ST_IDLE)
        return;
    deadline = exchange_deadline (u);
    if (g_get_monotonic_time () < deadline) {
        fast_timer_need (u, deadline);
        /* Last: the read may end the step, and the user with it. */
        if (u->read_yielded)
            fast_read_resume (u);
        return;
    }
    fast_fail (u, THRONG_ERROR_TIMEOUT,
               deadline == u->connect_deadline && deadline < u->deadline ? "connect timed out"
                                                                         : "step timed out");
}

/*
 * Sends the current request on a kept-alive connection to the current
 * origin, or opens one (resolving the host the first time); @fresh
 * insists on a new connection.
 */
void
fast_exchange_start (FastUser *u, gboolean fresh)
{
    FastHost *h;

    if (!fresh) {
        FastConn *conn = pool_take (u);
        if (conn != NULL) {
            if (G_UNLIKELY (fast_tracing ()))
                g_debug ("fast: reusing connection to %s:%u (%u exchanges)", conn->host,
                         conn->port, conn->exchanges);
            u->conn = conn;
            u->reused = TRUE;
            fast_request_ready (u);
            return;
        }
        u->addr_try = 0;
    }
    u->reused = FALSE;
    h = host_entry (u, u->host);
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
