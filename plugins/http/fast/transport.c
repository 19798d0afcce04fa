/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's `fast` transport: HTTP/1.1 over non-blocking sockets
 * on the user's worker loop, TLS through GnuTLS directly, responses
 * parsed with libsoup's header parser.  This file owns the per-scenario
 * TLS set-up, the per-step request template and the per-user state
 * machine (resolve, connect, handshake, write, read head, read body,
 * redirect, keep-alive pool).  Connections are in fast-conn.c, framing in
 * fast-parse.c, the session policies in fast-session.c.
 *
 * A user runs one exchange at a time.  Every path that ends an exchange
 * goes through step_finish(), which calls throng_user_step_done() last:
 * that call may start the user's next step or free the user, so nothing
 * of the user is touched after it.
 */
#include "../http.h"
#include "../errors.h"
#include "../redirect.h"
#include "conn.h"
#include "parse.h"
#include "session.h"

#include <string.h>
#include <netinet/in.h>
#include <libsoup/soup.h>
#include <gnutls/gnutls.h>

#define POOL_MAX 4       /* idle connections kept per user (one per origin in practice) */
#define HOST_ADDRS_MAX 4 /* addresses tried per host name */
#define IN_INITIAL (16 * 1024)

typedef struct {
    FastSessions *sessions;
    gnutls_certificate_credentials_t credentials; /* made by the first step that may need TLS */
    gnutls_priority_t priority;
    gboolean keep_alive;
    gint64 connect_timeout_us;
    const HttpTlsOptions *tls;
} FastScenario;

typedef struct {
    char *request; /* head, empty line and body: what is sent when nothing is added */
    gsize request_len;
    gsize head_len;     /* where a Cookie line goes */
    gboolean head_only; /* HEAD: the response has no body */
} FastStep;

typedef struct {
    char *name;
    gboolean literal; /* an IP address: no DNS, no SNI */
    struct sockaddr_storage addrs[HOST_ADDRS_MAX];
    socklen_t lens[HOST_ADDRS_MAX];
    guint n_addrs;
    guint preferred; /* the address that last connected */
} FastHost;

typedef enum {
    ST_IDLE,
    ST_RESOLVING,
    ST_CONNECTING,
    ST_HANDSHAKING,
    ST_WRITING,
    ST_READING_HEAD,
    ST_READING_BODY,
} FastState;

typedef enum {
    BODY_NONE,
    BODY_LENGTH,
    BODY_CHUNKED,
    BODY_EOF,
} FastBodyKind;

typedef struct _FastUser FastUser;

/* A DNS lookup in flight; outlives its user when user_free comes first. */
typedef struct {
    FastUser *user;
    FastHost *host;
    GCancellable *cancellable;
} FastLookup;

struct _FastUser {
    FastScenario *fs;
    ThrongUser *user;
    GMainContext *context;
    GSource *timer; /* the step's (or the connect's) deadline */
    FastSessionSlot session;
    FastConn *pool[POOL_MAX];
    guint n_pool;
    GPtrArray *hosts; /* FastHost: resolved once per user */
    GResolver *resolver;
    FastLookup *lookup;
    SoupMessageHeaders *headers;
    SoupCookieJar *jar; /* made by the first Set-Cookie */
    guint8 *in;
    gsize in_size;
    gsize in_len;
    gsize in_scanned;
    GString *out; /* a request assembled per exchange (cookies, redirects) */

    /* the exchange in flight */
    const HttpStep *step;
    ThrongSample *sample;
    FastState state;
    FastConn *conn;
    FastHost *host_entry;
    guint addr_try;
    gint64 deadline;
    gint64 connect_deadline;
    gint64 timer_at; /* when the timer is armed for, -1 when it is not */
    gint64 phase_start;
    const guint8 *req;
    gsize req_len;
    gsize req_off;
    HttpHop hop; /* redirect.c: the current hop's URL, method and body */
    const char *host;
    guint16 port;
    gboolean tls;
    gboolean head_only;
    gboolean reused; /* the exchange runs on a kept-alive connection */
    gboolean retried;
    gboolean got_bytes; /* some of the response arrived */

    /* the response */
    guint status;
    gboolean close_after;
    FastBodyKind body_kind;
    guint64 body_left;
    guint64 body_bytes;
    FastChunked chunked;
};

static void exchange_start (FastUser *u, gboolean fresh);
static void read_some (FastUser *u);

/* Scenario */

static gboolean
load_credentials (FastScenario *fs, HttpScenario *scenario, GError **error)
{
    const HttpTlsOptions *tls = &scenario->options.tls;
    gnutls_certificate_credentials_t credentials;
    const char *what = "TLS credentials";
    ThrongPlanError code = THRONG_PLAN_ERROR_INVALID;
    int r = gnutls_certificate_allocate_credentials (&credentials);

    if (r >= 0 && tls->ca_file != NULL) {
        what = "tls.ca_file";
        code = THRONG_PLAN_ERROR_FILE;
        r = gnutls_certificate_set_x509_trust_file (credentials, tls->ca_file, GNUTLS_X509_FMT_PEM);
        if (r == 0)
            r = GNUTLS_E_NO_CERTIFICATE_FOUND;
    } else if (r >= 0 && tls->verify) {
        what = "the system trust store";
        r = gnutls_certificate_set_x509_system_trust (credentials);
    }
    if (r >= 0 && tls->cert_file != NULL && tls->key_file != NULL) {
        what = "tls.cert_file and tls.key_file";
        code = THRONG_PLAN_ERROR_FILE;
        r = gnutls_certificate_set_x509_key_file (credentials, tls->cert_file, tls->key_file,
                                                  GNUTLS_X509_FMT_PEM);
    }
    if (r < 0) {
        g_set_error (error, THRONG_PLAN_ERROR, code, "scenario '%s': cannot load %s: %s",
                     scenario->name, what, gnutls_strerror (r));
        gnutls_certificate_free_credentials (credentials);
        return FALSE;
    }
    fs->credentials = credentials;
    return TRUE;
}

static void
fast_scenario_free (gpointer data)
{
    FastScenario *fs = data;

    if (fs == NULL)
        return;
    fast_sessions_free (fs->sessions);
    if (fs->credentials != NULL)
        gnutls_certificate_free_credentials (fs->credentials);
    if (fs->priority != NULL)
        gnutls_priority_deinit (fs->priority);
    g_free (fs);
}

static gpointer
fast_scenario_new (HttpScenario *scenario, gboolean validate_only, GError **error)
{
    const HttpOptions *options = &scenario->options;
    const char *priority
        = options->tls.priority != NULL ? options->tls.priority : HTTP_DEFAULT_PRIORITY;
    const char *error_pos = NULL;
    FastScenario *fs = g_new0 (FastScenario, 1);

    fs->sessions = fast_sessions_new (options->tls.session, options->tls.resumption);
    fs->keep_alive = options->keep_alive;
    fs->connect_timeout_us = options->connect_timeout_us;
    fs->tls = &options->tls;
    if (gnutls_priority_init (&fs->priority, priority, &error_pos) < 0) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "scenario '%s': tls.priority '%s' is not a valid GnuTLS priority string "
                     "(at '%s')",
                     scenario->name, priority, error_pos != NULL ? error_pos : "");
        fs->priority = NULL;
        fast_scenario_free (fs);
        return NULL;
    }
    return fs;
}

/* Step */

static void
fast_step_free (gpointer data)
{
    FastStep *fstep = data;

    if (fstep == NULL)
        return;
    g_free (fstep->request);
    g_free (fstep);
}

static gboolean
method_is_idempotent (const char *method)
{
    static const char *const idempotent[] = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" };

    for (guint i = 0; i < G_N_ELEMENTS (idempotent); i++)
        if (strcmp (method, idempotent[i]) == 0)
            return TRUE;
    return FALSE;
}

static gboolean
method_has_body (const char *method)
{
    return strcmp (method, "POST") == 0 || strcmp (method, "PUT") == 0
           || strcmp (method, "PATCH") == 0;
}

/*
 * The Content-Length a request of @step sends with @method: the body's
 * size when @with_body and the step has one, 0 for a bodiless method
 * that takes one (POST, PUT, PATCH), -1 for none.
 */
static gssize
body_length (const HttpStep *step, const char *method, gboolean with_body)
{
    if (!with_body)
        return -1;
    if (step->body != NULL)
        return (gssize)g_bytes_get_size (step->body);
    return method_has_body (method) ? 0 : -1;
}

static gpointer
fast_step_new (HttpScenario *scenario, HttpStep *step, GError **error)
{
    FastScenario *fs = scenario->transport_data;
    FastStep *fstep;
    GString *request;
    gssize body_len = body_length (step, step->method, TRUE);

    if (step->tls && fs->credentials == NULL && !load_credentials (fs, scenario, error))
        return NULL;
    /*
     * A redirect may lead to https, so such a step gets credentials too; a
     * plain-http plan must not fail for want of a system trust store,
     * though: the redirect itself fails then, with class `tls`.
     */
    if (step->follow_redirects && fs->credentials == NULL)
        load_credentials (fs, scenario, NULL);

    request = g_string_sized_new (256 + (body_len > 0 ? body_len : 0));
    fast_request_head_append (request, step->method, step->host, step->port, step->tls,
                              step->target, step->headers, body_len, !fs->keep_alive);
    fstep = g_new0 (FastStep, 1);
    fstep->head_len = request->len;
    g_string_append (request, "\r\n");
    if (body_len > 0)
        g_string_append_len (request, g_bytes_get_data (step->body, NULL), body_len);
    fstep->request_len = request->len;
    fstep->request = g_string_free (request, FALSE);
    fstep->head_only = strcmp (step->method, "HEAD") == 0;
    return fstep;
}

/* User: helpers */

/* When the exchange in flight must end: its deadline, or its connect's if earlier. */
static gint64
exchange_deadline (const FastUser *u)
{
    gboolean connecting
        = u->state == ST_RESOLVING || u->state == ST_CONNECTING || u->state == ST_HANDSHAKING;

    return connecting && u->connect_deadline < u->deadline ? u->connect_deadline : u->deadline;
}

/*
 * Makes sure the timer fires no later than @when.  g_source_set_ready_time()
 * wakes the loop with an eventfd write each time it is called, so the
 * timer is only ever moved earlier: a timer that fires early finds the
 * exchange's real deadline still ahead and re-arms itself for it.  In a
 * steady keep-alive run that is one call per timeout period, not two per
 * request.
 */
static void
timer_need (FastUser *u, gint64 when)
{
    if (u->timer_at >= 0 && u->timer_at <= when)
        return;
    u->timer_at = when;
    g_source_set_ready_time (u->timer, when);
}

static void
lookup_abandon (FastUser *u)
{
    if (u->lookup == NULL)
        return;
    u->lookup->user = NULL;
    g_cancellable_cancel (u->lookup->cancellable);
    u->lookup = NULL;
}

static void
pool_remove_at (FastUser *u, guint i)
{
    memmove (&u->pool[i], &u->pool[i + 1], (u->n_pool - i - 1) * sizeof u->pool[0]);
    u->n_pool--;
}

static void
pool_close_all (FastUser *u)
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
        if (conn->port == u->port && conn->is_tls == u->tls && strcmp (conn->host, u->host) == 0) {
            pool_remove_at (u, i);
            return conn;
        }
    }
    return NULL;
}

static void idle_event (FastUser *u, FastConn *conn);

static void
pool_put (FastUser *u, FastConn *conn)
{
    if (u->n_pool == POOL_MAX) {
        fast_conn_close (u->pool[0], TRUE);
        pool_remove_at (u, 0);
    }
    u->pool[u->n_pool++] = conn;
    /* Watched while idle so that a server's close is seen before reuse. */
    fast_conn_watch (conn, G_IO_IN);
    /* Bytes already read ahead (a record past the response's end) will
     * never make the socket ready: look at them now, or the next request
     * would take them for its response. */
    if (fast_conn_pending (conn))
        idle_event (u, conn);
}

static void
save_ticket (FastUser *u, FastConn *conn)
{
    GBytes *data = fast_conn_take_session (conn);

    if (data == NULL)
        return;
    conn->want_ticket = FALSE;
    fast_sessions_save (u->fs->sessions, &u->session, data);
}

/* Ends the exchange; the last thing any path does. */
static void
step_finish (FastUser *u)
{
    ThrongUser *user = u->user;

    u->state = ST_IDLE;
    u->step = NULL;
    u->sample = NULL;
    throng_user_step_done (user);
}

static void
fail (FastUser *u, ThrongErrorClass error_class, const char *message)
{
    lookup_abandon (u);
    if (u->conn != NULL) {
        fast_conn_close (u->conn, FALSE);
        u->conn = NULL;
    }
    http_sample_fail (u->sample, error_class, message);
    step_finish (u);
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

static void
host_free (gpointer data)
{
    FastHost *h = data;

    g_free (h->name);
    g_free (h);
}

/* Exchange: connect and handshake */

static void
connect_failed (FastUser *u, const FastError *error)
{
    /* "localhost" may resolve to ::1 first while the server listens on 127.0.0.1. */
    if (error->error_class == THRONG_ERROR_CONNECT && u->addr_try + 1 < u->host_entry->n_addrs) {
        u->addr_try++;
        exchange_start (u, TRUE);
        return;
    }
    fail (u, error->error_class, error->message);
}

static void on_conn (FastConn *conn, GIOCondition condition, gpointer data);

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
    u->conn = fast_conn_connect (u->context, (struct sockaddr *)&addr, h->lens[index], u->host,
                                 u->port, u->tls, on_conn, u, &error);
    if (u->conn == NULL) {
        connect_failed (u, &error);
        return;
    }
    u->state = ST_CONNECTING;
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
        fail (u, THRONG_ERROR_DNS, "host name did not resolve");
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
write_some (FastUser *u)
{
    FastConn *conn = u->conn;
    GIOCondition want;
    FastError error;
    gsize n;

    while (u->req_off < u->req_len) {
        FastIo r = fast_conn_write (conn, u->req + u->req_off, u->req_len - u->req_off, &n, &want,
                                    &error);
        switch (r) {
        case FAST_IO_OK:
            u->req_off += n;
            u->sample->bytes_sent += n;
            continue;
        case FAST_IO_AGAIN:
            fast_conn_watch (conn, want);
            return;
        case FAST_IO_EOF:
        case FAST_IO_RESET:
            /* A kept-alive connection the server closed while idle: try once on a new one. */
            if (u->reused && !u->retried) {
                fast_conn_close (conn, FALSE);
                u->conn = NULL;
                u->retried = TRUE;
                exchange_start (u, TRUE);
                return;
            }
            fail (u, THRONG_ERROR_RESET, "connection closed while sending the request");
            return;
        case FAST_IO_ERROR:
            fail (u, error.error_class, error.message);
            return;
        }
    }
    u->state = ST_READING_HEAD;
    u->in_len = 0;
    u->in_scanned = 0;
    fast_conn_watch (conn, G_IO_IN);
    if (fast_conn_pending (conn))
        read_some (u);
}

static void
request_ready (FastUser *u)
{
    u->state = ST_WRITING;
    u->req_off = 0;
    u->got_bytes = FALSE;
    write_some (u);
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
        fail (u, error.error_class, error.message);
        return;
    }

    u->sample->tls_us += g_get_monotonic_time () - u->phase_start;
    if (gnutls_session_is_resumed (conn->tls)) {
        u->sample->handshakes_resumed++;
    } else {
        u->sample->handshakes_full++;
    }
    /*
     * TLS 1.3 tickets arrive after the handshake, with the first records
     * read; TLS 1.2 has its session now (and a resumed one is already
     * the one stored).
     */
    if (gnutls_protocol_get_version (conn->tls) == GNUTLS_TLS1_3)
        conn->want_ticket = TRUE;
    else if (!gnutls_session_is_resumed (conn->tls))
        save_ticket (u, conn);
    request_ready (u);
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
    if (!u->tls) {
        request_ready (u);
        return;
    }

    const char *name = tls->server_name != NULL ? tls->server_name : u->host;
    FastTlsSetup setup = {
        .credentials = u->fs->credentials,
        .priority = u->fs->priority,
        .server_name = tls->server_name != NULL || !u->host_entry->literal ? name : NULL,
        .verify_name = tls->verify ? name : NULL,
    };
    GBytes *offer = fast_sessions_offer (u->fs->sessions, &u->session);
    gboolean ok = fast_conn_start_tls (conn, &setup, offer, &error);

    if (offer != NULL)
        g_bytes_unref (offer);
    if (!ok) {
        fail (u, error.error_class, error.message);
        return;
    }
    u->phase_start = now;
    u->state = ST_HANDSHAKING;
    handshake_step (u);
}

/* Exchange: the response */

static void
store_cookies (FastUser *u)
{
    GUri *uri = http_hop_uri (&u->hop, u->step);
    SoupMessageHeadersIter iter;
    const char *name, *value;

    if (u->jar == NULL)
        u->jar = http_cookie_jar_new ();
    soup_message_headers_iter_init (&iter, u->headers);
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        if (g_ascii_strcasecmp (name, "Set-Cookie") == 0)
            soup_cookie_jar_set_cookie (u->jar, uri, value);
    }
}

/* Appends the user's cookies for @uri as a Cookie line; FALSE when there are none. */
static gboolean
append_cookies (FastUser *u, GUri *uri)
{
    char *cookies;

    if (u->jar == NULL)
        return FALSE;
    cookies = soup_cookie_jar_get_cookies (u->jar, uri, TRUE);
    if (cookies == NULL)
        return FALSE;
    g_string_append (u->out, "Cookie: ");
    g_string_append (u->out, cookies);
    g_string_append (u->out, "\r\n");
    g_free (cookies);
    return TRUE;
}

/* Sends the hop that http_hop_response() chose, on a connection to its origin. */
static void
redirect (FastUser *u)
{
    const HttpStep *step = u->step;
    GUri *next = u->hop.uri;
    gssize body_len = body_length (step, u->hop.method, u->hop.body);
    g_autofree char *target = NULL;

    u->head_only = strcmp (u->hop.method, "HEAD") == 0;
    u->tls = g_ascii_strcasecmp (g_uri_get_scheme (next), "https") == 0;
    u->host = g_uri_get_host (next);
    u->port = g_uri_get_port (next) > 0 ? g_uri_get_port (next) : (u->tls ? 443 : 80);
    if (u->tls && u->fs->credentials == NULL) {
        fail (u, THRONG_ERROR_TLS, "no TLS credentials for the redirect");
        return;
    }

    target = fast_uri_target (next);
    g_string_truncate (u->out, 0);
    fast_request_head_append (u->out, u->hop.method, u->host, u->port, u->tls, target,
                              step->headers, body_len, !u->fs->keep_alive);
    append_cookies (u, next);
    g_string_append (u->out, "\r\n");
    if (body_len > 0)
        g_string_append_len (u->out, g_bytes_get_data (step->body, NULL), body_len);
    u->req = (const guint8 *)u->out->str;
    u->req_len = u->out->len;
    u->retried = FALSE;
    exchange_start (u, FALSE);
}

static void
response_done (FastUser *u)
{
    FastConn *conn = u->conn;

    u->conn = NULL;
    conn->exchanges++;
    if (conn->want_ticket)
        save_ticket (u, conn);
    if (u->close_after)
        fast_conn_close (conn, FALSE);
    else
        pool_put (u, conn);

    if (http_hop_response (&u->hop, u->step, u->status, u->headers, u->sample))
        redirect (u);
    else
        step_finish (u);
}

/* Counts body bytes; FALSE once the exchange has ended (done or failed). */
static gboolean
body_feed (FastUser *u, const guint8 *data, gsize len)
{
    gsize used;

    if (len == 0)
        return TRUE;
    switch (u->body_kind) {
    case BODY_LENGTH:
        used = MIN (len, u->body_left);
        u->body_left -= used;
        u->body_bytes += used;
        if (u->body_left > 0)
            return TRUE;
        /* Bytes past the body: nothing was asked for, so the connection is not trusted. */
        if (len > used)
            u->close_after = TRUE;
        response_done (u);
        return FALSE;
    case BODY_CHUNKED:
        switch (fast_chunked_feed (&u->chunked, data, len, u->step->max_body, &used)) {
        case FAST_BODY_MORE:
            return TRUE;
        case FAST_BODY_DONE:
            if (len > used)
                u->close_after = TRUE;
            u->body_bytes = u->chunked.total;
            response_done (u);
            return FALSE;
        case FAST_BODY_LIMIT:
            u->sample->status = u->status;
            fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            return FALSE;
        case FAST_BODY_BAD:
        default:
            u->sample->status = u->status;
            fail (u, THRONG_ERROR_PROTOCOL, "malformed chunked body");
            return FALSE;
        }
    case BODY_EOF:
        u->body_bytes += len;
        if (u->body_bytes > u->step->max_body) {
            u->sample->status = u->status;
            fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
            return FALSE;
        }
        return TRUE;
    case BODY_NONE:
    default:
        g_assert_not_reached ();
    }
    return FALSE;
}

static gboolean
head_done (FastUser *u, SoupHTTPVersion version, gsize head_len)
{
    SoupMessageHeaders *headers = u->headers;
    guint status = u->status;
    gsize rest = u->in_len - head_len;

    u->close_after
        = !u->fs->keep_alive
          || soup_message_headers_header_contains (headers, "Connection", "close")
          || (version == SOUP_HTTP_1_0
              && !soup_message_headers_header_contains (headers, "Connection", "keep-alive"));
    if (soup_message_headers_get_one (headers, "Set-Cookie") != NULL)
        store_cookies (u);

    u->body_bytes = 0;
    if (u->head_only || status == 204 || status == 304 || status < 200) {
        u->body_kind = BODY_NONE;
        if (status == 101)
            u->close_after = TRUE;
    } else {
        switch (soup_message_headers_get_encoding (headers)) {
        case SOUP_ENCODING_CHUNKED:
            u->body_kind = BODY_CHUNKED;
            fast_chunked_init (&u->chunked);
            break;
        case SOUP_ENCODING_CONTENT_LENGTH: {
            const char *value = soup_message_headers_get_list (headers, "Content-Length");
            if (value == NULL || !fast_parse_content_length (value, &u->body_left)) {
                u->sample->status = status;
                fail (u, THRONG_ERROR_PROTOCOL, "invalid Content-Length");
                return FALSE;
            }
            if (u->body_left > u->step->max_body) {
                u->sample->status = status;
                fail (u, THRONG_ERROR_BODY_LIMIT, "response body over max_body");
                return FALSE;
            }
            u->body_kind = u->body_left > 0 ? BODY_LENGTH : BODY_NONE;
            break;
        }
        case SOUP_ENCODING_EOF:
            u->body_kind = BODY_EOF;
            u->close_after = TRUE;
            break;
        case SOUP_ENCODING_NONE:
            u->body_kind = BODY_NONE;
            break;
        default:
            u->sample->status = status;
            fail (u, THRONG_ERROR_PROTOCOL, "unsupported transfer encoding");
            return FALSE;
        }
    }

    if (u->body_kind == BODY_NONE) {
        if (rest > 0)
            u->close_after = TRUE;
        response_done (u);
        return FALSE;
    }
    u->state = ST_READING_BODY;
    return body_feed (u, u->in + head_len, rest);
}

/* Takes @n new bytes at u->in + u->in_len; FALSE once the exchange has ended. */
static gboolean
consume (FastUser *u, gsize n)
{
    if (u->state == ST_READING_BODY)
        return body_feed (u, u->in, n);

    u->in_len += n;
    for (;;) {
        gsize end = fast_head_end (u->in, u->in_len, u->in_scanned);
        SoupHTTPVersion version;
        guint status;

        if (end == 0) {
            u->in_scanned = u->in_len;
            return TRUE;
        }
        soup_message_headers_clear (u->headers);
        /* libsoup reads the status code with strtoul, which wants a string
         * that ends; the byte is put back after parsing. */
        guint8 saved = u->in[end];
        u->in[end] = '\0';
        gboolean parsed = soup_headers_parse_response ((const char *)u->in, end, u->headers,
                                                       &version, &status, NULL);
        u->in[end] = saved;
        if (!parsed) {
            fail (u, THRONG_ERROR_PROTOCOL, "malformed response head");
            return FALSE;
        }
        if (status >= 100 && status < 200 && status != 101) {
            /* An interim response (100 Continue, 103 Early Hints): the real one follows. */
            memmove (u->in, u->in + end, u->in_len - end);
            u->in_len -= end;
            u->in_scanned = 0;
            continue;
        }
        u->status = status;
        return head_done (u, version, end);
    }
}

static void
connection_lost (FastUser *u, FastIo r, const FastError *error)
{
    /* A kept-alive connection the server closed before answering: send
     * again on a new one, once, when that cannot do anything twice — the
     * request did not all go out, or its method is idempotent. */
    gboolean safe = u->req_off < u->req_len || method_is_idempotent (u->hop.method);
    if ((r == FAST_IO_EOF || r == FAST_IO_RESET) && u->reused && !u->retried && !u->got_bytes
        && safe) {
        fast_conn_close (u->conn, FALSE);
        u->conn = NULL;
        u->retried = TRUE;
        exchange_start (u, TRUE);
        return;
    }
    if (r == FAST_IO_EOF)
        fail (u, THRONG_ERROR_RESET, "connection closed before the response was complete");
    else
        fail (u, error->error_class, error->message);
}

static void
read_some (FastUser *u)
{
    FastConn *conn = u->conn;
    GIOCondition want;
    FastError error;
    gsize n;

    for (;;) {
        gsize space;
        FastIo r;

        if (u->state == ST_READING_BODY) {
            u->in_len = 0; /* body bytes are counted, not kept */
        } else if (u->in_len == u->in_size) {
            if (u->in_size >= FAST_MAX_HEAD) {
                fail (u, THRONG_ERROR_PROTOCOL, "response head too large");
                return;
            }
            u->in_size *= 2;
            u->in = g_realloc (u->in, u->in_size + 1);
        }
        space = u->in_size - u->in_len;
        r = fast_conn_read (conn, u->in + u->in_len, space, &n, &want, &error);
        switch (r) {
        case FAST_IO_OK:
            if (!u->got_bytes) {
                u->got_bytes = TRUE;
                if (u->sample->latency_us == 0)
                    u->sample->latency_us = g_get_monotonic_time () - u->sample->start_us;
            }
            u->sample->bytes_received += n;
            if (G_UNLIKELY (conn->want_ticket))
                save_ticket (u, conn);
            if (!consume (u, n))
                return;
            if (n == space || fast_conn_pending (conn))
                continue;
            return;
        case FAST_IO_AGAIN:
            fast_conn_watch (conn, want);
            return;
        case FAST_IO_EOF:
            if (u->state == ST_READING_BODY && u->body_kind == BODY_EOF) {
                response_done (u);
                return;
            }
            connection_lost (u, r, &error);
            return;
        case FAST_IO_RESET:
        case FAST_IO_ERROR:
            connection_lost (u, r, &error);
            return;
        }
    }
}

/* An idle connection stirred: a late TLS 1.3 ticket, or the server closing it. */
static void
idle_event (FastUser *u, FastConn *conn)
{
    guint8 scratch[512];
    GIOCondition want;
    FastError error;
    gsize n;

    if (fast_conn_read (conn, scratch, sizeof scratch, &n, &want, &error) == FAST_IO_AGAIN) {
        if (conn->want_ticket)
            save_ticket (u, conn);
        fast_conn_watch (conn, want);
        return;
    }
    for (guint i = 0; i < u->n_pool; i++) {
        if (u->pool[i] == conn) {
            pool_remove_at (u, i);
            break;
        }
    }
    fast_conn_close (conn, FALSE);
}

static void
on_conn (FastConn *conn, GIOCondition condition, gpointer data)
{
    FastUser *u = data;

    if (conn != u->conn) {
        idle_event (u, conn);
        return;
    }
    switch (u->state) {
    case ST_CONNECTING:
        connected (u);
        break;
    case ST_HANDSHAKING:
        handshake_step (u);
        break;
    case ST_WRITING:
        write_some (u);
        break;
    case ST_READING_HEAD:
    case ST_READING_BODY:
        read_some (u);
        break;
    case ST_IDLE:
    case ST_RESOLVING:
    default:
        break;
    }
}

static gboolean
on_timer (gpointer data)
{
    FastUser *u = data;
    gint64 deadline;

    u->timer_at = -1;
    if (u->state == ST_IDLE)
        return G_SOURCE_CONTINUE;
    deadline = exchange_deadline (u);
    if (g_get_monotonic_time () < deadline) {
        timer_need (u, deadline);
        return G_SOURCE_CONTINUE;
    }
    fail (u, THRONG_ERROR_TIMEOUT,
          deadline == u->connect_deadline && deadline < u->deadline ? "connect timed out"
                                                                    : "step timed out");
    return G_SOURCE_CONTINUE;
}

/*
 * Sends the current request on a kept-alive connection to the current
 * origin, or opens one (resolving the host the first time); @fresh
 * insists on a new connection.
 */
static void
exchange_start (FastUser *u, gboolean fresh)
{
    FastHost *h;

    if (!fresh) {
        FastConn *conn = pool_take (u);
        if (conn != NULL) {
            u->conn = conn;
            u->reused = TRUE;
            request_ready (u);
            return;
        }
        u->addr_try = 0;
    }
    u->reused = FALSE;
    h = host_entry (u, u->host);
    u->host_entry = h;
    if (u->addr_try == 0) {
        u->connect_deadline = g_get_monotonic_time () + u->fs->connect_timeout_us;
        timer_need (u, MIN (u->connect_deadline, u->deadline));
    }
    if (h->n_addrs == 0) {
        lookup_start (u, h);
        return;
    }
    connect_start (u);
}

/* User */

static gpointer
fast_user_new (HttpScenario *scenario, ThrongUser *user)
{
    FastUser *u = g_new0 (FastUser, 1);

    u->fs = scenario->transport_data;
    u->user = user;
    u->context = throng_user_get_context (user);
    u->timer = g_source_new (&http_timer_funcs, sizeof (GSource));
    g_source_set_static_name (u->timer, "throng-http fast deadline");
    g_source_set_callback (u->timer, on_timer, u, NULL);
    g_source_set_ready_time (u->timer, -1);
    u->timer_at = -1;
    g_source_attach (u->timer, u->context);
    u->hosts = g_ptr_array_new_with_free_func (host_free);
    u->headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
    u->in_size = IN_INITIAL;
    /* One byte more than it holds, for the NUL the head parser expects. */
    u->in = g_malloc (u->in_size + 1);
    u->out = g_string_sized_new (512);
    return u;
}

static void
fast_user_free (gpointer data)
{
    FastUser *u = data;

    if (u == NULL)
        return;
    lookup_abandon (u);
    fast_conn_close (u->conn, FALSE);
    pool_close_all (u);
    g_source_destroy (u->timer);
    g_source_unref (u->timer);
    fast_session_slot_clear (&u->session);
    g_clear_object (&u->resolver);
    g_clear_object (&u->jar);
    http_hop_clear (&u->hop);
    g_ptr_array_unref (u->hosts);
    soup_message_headers_unref (u->headers);
    g_free (u->in);
    g_string_free (u->out, TRUE);
    g_free (u);
}

static void
fast_iteration_begin (gpointer data)
{
    FastUser *u = data;

    if (fast_sessions_get_policy (u->fs->sessions) != HTTP_SESSION_PER_ITERATION)
        return;
    pool_close_all (u);
    fast_sessions_iteration_begin (u->fs->sessions, &u->session);
}

static void
fast_run (gpointer data, const HttpStep *step, ThrongSample *sample)
{
    FastUser *u = data;
    const FastStep *fstep = step->transport_data;

    u->step = step;
    u->sample = sample;
    if (sample->resource == NULL)
        sample->resource = step->url;
    http_hop_start (&u->hop, step);
    u->head_only = fstep->head_only;
    u->host = step->host;
    u->port = step->port;
    u->tls = step->tls;
    u->retried = FALSE;
    u->addr_try = 0;

    u->req = (const guint8 *)fstep->request;
    u->req_len = fstep->request_len;
    if (G_UNLIKELY (u->jar != NULL)) {
        g_string_truncate (u->out, 0);
        g_string_append_len (u->out, fstep->request, fstep->head_len);
        if (append_cookies (u, step->uri)) {
            g_string_append_len (u->out, fstep->request + fstep->head_len,
                                 fstep->request_len - fstep->head_len);
            u->req = (const guint8 *)u->out->str;
            u->req_len = u->out->len;
        }
    }
    u->deadline = g_get_monotonic_time () + step->timeout_us;
    timer_need (u, u->deadline);
    exchange_start (u, FALSE);
}

const HttpTransport http_fast_transport = {
    .name = "fast",
    .scenario_new = fast_scenario_new,
    .scenario_free = fast_scenario_free,
    .scenario_notes = NULL,
    .step_new = fast_step_new,
    .step_free = fast_step_free,
    .user_new = fast_user_new,
    .user_free = fast_user_free,
    .iteration_begin = fast_iteration_begin,
    .run = fast_run,
};
