/* SPDX-License-Identifier: MIT */
/*
 * The `soup` transport: every request through a SoupSession, one per
 * virtual user, created and used on the user's worker thread.  It gives
 * libsoup's breadth (HTTP/2 where libsoup offers it, content decoding)
 * at libsoup's cost, and TLS policies only as exact as glib-networking
 * allows (scenario_notes says where not).
 *
 * A step is one SoupMessage per hop: sent with soup_session_send_async,
 * its body read into the user's reusable buffer and counted, never kept.
 * Timings, bytes and connection reuse come from SoupMessageMetrics.  One
 * timer per user bounds the whole step (timeout) and each connection
 * attempt (connect_timeout) by cancelling the user's GCancellable.  What
 * libsoup accepts is held, from throng's side, to the rules `fast`
 * follows: the framing of framing.c, the bound on interim responses, and
 * a chunked body decoded by chunked.c, read from libsoup's connection
 * stream below its own decoder (chunked_source).
 */
#include "../chunked.h"
#include "../errors.h"
#include "../framing.h"
#include "../journey.h"
#include "../redirect.h"

#include <libsoup/soup.h>
#include <string.h>

#include "database.h"

#define SOUP_READ_BUFFER (32 * 1024)

/* What every user of a scenario shares; read-only once the run starts. */
typedef struct {
    GTlsDatabase *database;       /* database.c: tls.ca_file, the system store, or accept-all */
    GTlsCertificate *certificate; /* tls.cert_file + tls.key_file */
} SoupScenario;

/*
 * A connection of the user's session, by libsoup's id (cancel_step);
 * weakly held, so that libsoup alone decides when it goes.
 */
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

typedef struct {
    guint refs;     /* the owner's, plus one while a step is in flight */
    gboolean freed; /* user_free came: complete nothing */
    const HttpScenario *scenario;
    const SoupScenario *shared;
    ThrongUser *user;
    GMainContext *context;
    SoupSession *session;
    GCancellable *cancellable;
    GSource *timer;
    guint8 *buffer;

    /* The step in flight. */
    const HttpStep *step;
    ThrongSample *sample;
    SoupMessage *message;
    GInputStream *stream;
    HttpHop hop;        /* redirect.c: the current hop's URL, method and body */
    guint64 body_bytes; /* read on the current hop */
    gint64 deadline_us; /* the whole step's */
    gboolean connecting;
    guint interim;                 /* 1xx responses on the current hop */
    gboolean new_connection;       /* per-iteration: the next request must not reuse one */
    gint64 connect_deadline_us;    /* the connect's, while connecting */
    ThrongErrorClass cancel_class; /* why we cancelled, if we did */
    const char *cancel_message;    /* and what the sample says, as `fast` words it */
    HttpJourney journey;           /* ../journey.h: templates, kept body, extractors and checks */
    GPtrArray *connections;        /* UserConnection: the TCP connections libsoup opened */
    GInputStream *raw;   /* a chunked body's bytes as they came (chunked_source); not owned */
    HttpChunked chunked; /* ../chunked.h: judges them, while raw is set */
} SoupUser;

/*
 * The system store, read once per process and set as the process's default
 * (DESIGN.md: glib-networking 2.74 otherwise re-reads the CA bundle for
 * every new connection), wrapped so that connections do not rebuild a
 * trust list from it either (database.c).
 */
static gpointer
system_database_once (gpointer unused)
{
    GTlsBackend *backend = g_tls_backend_get_default ();
    g_autoptr (GTlsDatabase) store = g_tls_backend_get_default_database (backend);
    GTlsDatabase *database;

    /* No TLS backend: leave verification to it, never to an empty wrapper that accepts all. */
    if (store == NULL)
        return NULL;
    database = http_soup_database_new (store);
    g_tls_backend_set_default_database (backend, database);
    return database;
}

static GTlsDatabase *
system_database (void)
{
    static GOnce once = G_ONCE_INIT;
    return g_once (&once, system_database_once, NULL);
}

static gpointer
accept_all_once (gpointer unused)
{
    return http_soup_database_new (NULL);
}

static GTlsDatabase *
accept_all_database (void)
{
    static GOnce once = G_ONCE_INIT;
    return g_once (&once, accept_all_once, NULL);
}

static gpointer
soup_scenario_new (HttpScenario *scenario, gboolean validate_only, GError **error)
{
    const HttpTlsOptions *tls = &scenario->options.tls;
    g_autofree SoupScenario *data = g_new0 (SoupScenario, 1);

    /* Read even under validate: a bad PEM is a plan error, found before any load. */
    if (tls->ca_file != NULL) {
        g_autoptr (GTlsDatabase) file = g_tls_file_database_new (tls->ca_file, error);
        if (file == NULL)
            return NULL;
        if (tls->verify)
            data->database = http_soup_database_new (file);
    }
    if (tls->cert_file != NULL) {
        data->certificate = g_tls_certificate_new_from_files (tls->cert_file, tls->key_file, error);
        if (data->certificate == NULL) {
            g_clear_object (&data->database);
            return NULL;
        }
    }
    if (!validate_only) {
        /* Before any connection of any scenario, whatever this one verifies with. */
        GTlsDatabase *system = system_database ();
        if (!tls->verify)
            data->database = g_object_ref (accept_all_database ());
        else if (data->database == NULL && system != NULL)
            data->database = g_object_ref (system);
    }
    return g_steal_pointer (&data);
}

static void
soup_scenario_free (gpointer p)
{
    SoupScenario *data = p;

    if (data == NULL)
        return;
    g_clear_object (&data->database);
    g_clear_object (&data->certificate);
    g_free (data);
}

/* What `throng validate` says where soup cannot do what the plan asks (docs/http.md). */
static const char note_global[]
    = "transport soup cannot share one session between worker threads: tls.session: global "
      "behaves as per-thread (one SoupSession per user), and TLS resumption follows "
      "glib-networking's process-wide session cache";
static const char note_per_iteration[]
    = "transport soup closes each user's connections at every iteration, but glib-networking may "
      "still resume a TLS session from its process-wide cache";
static const char note_per_thread[]
    = "transport soup keeps each user's connections, but TLS sessions resume from "
      "glib-networking's process-wide cache, not per user";
static const char note_handshakes[]
    = "transport soup cannot tell full from resumed handshakes: every TLS connection it opens "
      "counts as a full handshake";
static const char note_resumption[]
    = "tls.resumption: false is not honoured by transport soup (glib-networking has no "
      "per-connection switch)";
static const char note_server_name[]
    = "tls.server_name is ignored by transport soup: SNI and verification use the URL's host";
static const char note_priority[]
    = "tls.priority is ignored by transport soup: glib-networking chooses the ciphers";

static const char note_parallel[]
    = "transport soup runs the requests of a parallel step one after another; "
      "transport fast runs them at once";

static void
soup_scenario_notes (HttpScenario *scenario, GPtrArray *notes)
{
    const HttpTlsOptions *tls = &scenario->options.tls;

    if (scenario->max_parallel > 1)
        g_ptr_array_add (notes, g_strdup (note_parallel));
    /* Every caveat is about TLS: a plain-HTTP scenario has none to read. */
    if (!scenario->uses_tls)
        return;
    if (tls->session == HTTP_SESSION_GLOBAL)
        g_ptr_array_add (notes, g_strdup (note_global));
    else if (tls->session == HTTP_SESSION_PER_ITERATION)
        g_ptr_array_add (notes, g_strdup (note_per_iteration));
    else
        g_ptr_array_add (notes, g_strdup (note_per_thread));
    g_ptr_array_add (notes, g_strdup (note_handshakes));
    if (!tls->resumption)
        g_ptr_array_add (notes, g_strdup (note_resumption));
    if (tls->server_name != NULL)
        g_ptr_array_add (notes, g_strdup (note_server_name));
    if (g_strcmp0 (tls->priority, HTTP_DEFAULT_PRIORITY) != 0)
        g_ptr_array_add (notes, g_strdup (note_priority));
}

/* Pushes the user's context as thread-default unless the worker already did. */
static gboolean
push_context (SoupUser *user)
{
    if (g_main_context_get_thread_default () == user->context)
        return FALSE;
    g_main_context_push_thread_default (user->context);
    return TRUE;
}

static void
pop_context (SoupUser *user, gboolean pushed)
{
    if (pushed)
        g_main_context_pop_thread_default (user->context);
}

static gboolean timer_fired (gpointer data);

static gpointer
soup_user_new (HttpScenario *scenario, ThrongUser *throng_user)
{
    SoupUser *user = g_new0 (SoupUser, 1);
    gboolean pushed;

    user->refs = 1;
    user->scenario = scenario;
    user->shared = scenario->transport_data;
    user->user = throng_user;
    user->context = throng_user_get_context (throng_user);
    user->buffer = g_malloc (SOUP_READ_BUFFER);
    user->cancellable = g_cancellable_new ();
    user->connections = g_ptr_array_new_with_free_func (user_connection_free);
    http_journey_init (&user->journey);

    user->timer = g_source_new (&http_timer_funcs, sizeof (GSource));
    g_source_set_callback (user->timer, timer_fired, user, NULL);
    g_source_set_ready_time (user->timer, -1);
    g_source_attach (user->timer, user->context);

    /* A session belongs to the thread-default context it was made under. */
    pushed = push_context (user);
    user->session = soup_session_new_with_options (
        "max-conns", 64, "max-conns-per-host", 16,
        /* Our timer bounds every step; libsoup's I/O timeout would only race it. */
        "timeout", 0,
        /* Kept until the server closes them: the policy, not an idle timer, decides. */
        "idle-timeout", 0, "user-agent", "throng/" THRONG_VERSION_STRING, NULL);
    pop_context (user, pushed);
    soup_session_set_proxy_resolver (user->session, NULL);
    /* Each virtual user has its own cookies, as a browser (or JMeter's cookie manager) would. */
    g_autoptr (SoupCookieJar) jar = http_cookie_jar_new ();
    soup_session_add_feature (user->session, SOUP_SESSION_FEATURE (jar));
    if (user->shared->database != NULL)
        soup_session_set_tls_database (user->session, user->shared->database);
    return user;
}

static void
user_unref (SoupUser *user)
{
    if (--user->refs > 0)
        return;
    g_clear_object (&user->session);
    g_clear_object (&user->cancellable);
    g_clear_pointer (&user->connections, g_ptr_array_unref);
    g_free (user->buffer);
    http_journey_clear (&user->journey);
    g_free (user);
}

static void
soup_user_free (gpointer data)
{
    SoupUser *user = data;

    if (user == NULL)
        return;
    user->freed = TRUE;
    /* A step in flight ends in its callback, which sees `freed` and completes nothing. */
    g_cancellable_cancel (user->cancellable);
    g_source_destroy (user->timer);
    g_clear_pointer (&user->timer, g_source_unref);
    soup_session_abort (user->session);
    user_unref (user);
}

static void
soup_iteration_begin (gpointer data)
{
    SoupUser *user = data;

    /*
     * per-iteration: close every connection so the iteration's first request
     * reconnects.  glib-networking may still resume the TLS session.
     */
    if (user->scenario->options.tls.session == HTTP_SESSION_PER_ITERATION) {
        g_debug ("soup: per-iteration: closing the user's connections");
        soup_session_abort (user->session);
        /* abort closes idle connections only as its queue next runs; this makes it certain. */
        user->new_connection = TRUE;
    }
}

static void
timer_arm (SoupUser *user)
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
 * Shuts down the reading half of the user's connection @id, if it is
 * open: see cancel_step().  Only that half: libsoup 3.2 answers the
 * cancel with an RST_STREAM, and counts the connection in use until that
 * frame is written.  With the writing half shut too, the write fails,
 * the connection stays in use for good, soup_session_abort() (which
 * closes idle connections only) passes it over, and the session's
 * dispose frees libsoup's connection manager with it still listed: a
 * "Disposing connection ... while still connected" warning and a leak
 * of the host's list node (libsoup 3.2.3 soup_connection_manager_free;
 * later versions remove the connections first).
 */
static void
close_h2_connection (SoupUser *user, guint64 id)
{
    for (guint i = 0; i < user->connections->len; i++) {
        UserConnection *c = g_ptr_array_index (user->connections, i);
        g_autoptr (GSocketConnection) connection = c->id == id ? user_connection_get (c) : NULL;
        if (connection != NULL) {
            g_debug ("soup: closing HTTP/2 connection %" G_GUINT64_FORMAT
                     " to end a cancelled stream",
                     id);
            g_socket_shutdown (g_socket_connection_get_socket (connection), TRUE, FALSE, NULL);
        }
    }
}

/* Ends the step in flight from throng's side: its callback then fails it with @error_class. */
static void
cancel_step (SoupUser *user, ThrongErrorClass error_class, const char *message)
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
     * then sees the cancel (and closes the connection, as a cancel
     * mid-response does over HTTP/1.1).
     */
    if (user->message != NULL && soup_message_get_http_version (user->message) == SOUP_HTTP_2_0)
        close_h2_connection (user, soup_message_get_connection_id (user->message));
}

static gboolean
timer_fired (gpointer data)
{
    SoupUser *user = data;

    cancel_step (user, THRONG_ERROR_TIMEOUT,
                 user->connecting && user->connect_deadline_us < user->deadline_us
                     ? "connect timed out"
                     : "step timed out");
    return G_SOURCE_CONTINUE;
}

/*
 * Each 1xx response.  libsoup reads interim responses in a loop that may
 * not return to the worker's loop while TLS has bytes buffered, so the
 * bound and the step's deadline are checked here, as `fast` checks them
 * in its parser and its read loop.
 */
static void
got_informational (SoupMessage *message, gpointer data)
{
    SoupUser *user = data;

    if (user->freed || user->step == NULL)
        return;
    /* libsoup would switch protocols and wait; throng asked for no upgrade. */
    if (soup_message_get_status (message) == 101) {
        user->sample->status = 101;
        cancel_step (user, THRONG_ERROR_PROTOCOL,
                     "101 Switching Protocols without an upgrade request");
    } else if (++user->interim > HTTP_MAX_INTERIM) {
        cancel_step (user, THRONG_ERROR_PROTOCOL, "too many interim responses");
    } else if (g_get_monotonic_time () >= user->deadline_us) {
        cancel_step (user, THRONG_ERROR_TIMEOUT, "step timed out");
    }
}

/*
 * libsoup sends a message again itself: with redirects and authentication
 * left to throng, only when a kept-alive connection closed before the
 * response (what `fast` retries too).  Counted, so that it is not hidden.
 */
static void
restarted (SoupMessage *message, gpointer data)
{
    SoupUser *user = data;

    if (user->freed || user->step == NULL)
        return;
    user->sample->retries++;
    g_debug ("soup: %s sent again on a new connection",
             g_uri_get_host (soup_message_get_uri (message)));
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

static void
network_event (SoupMessage *message, GSocketClientEvent event, GIOStream *connection, gpointer data)
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
            cancel_step (user, error_class == THRONG_ERROR_OTHER ? THRONG_ERROR_RESET : error_class,
                         NULL);
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
        g_debug ("soup: connection to %s opened",
                 g_uri_get_host (soup_message_get_uri (message)));
    }
    if (event == G_SOCKET_CLIENT_RESOLVING && !user->connecting) {
        user->connecting = TRUE;
        timer_arm (user);
    } else if (event == G_SOCKET_CLIENT_COMPLETE && user->connecting) {
        user->connecting = FALSE;
        timer_arm (user);
    }
}

/* Adds the finished hop's metrics to the sample. */
static void
account_hop (SoupUser *user)
{
    SoupMessageMetrics *metrics = soup_message_get_metrics (user->message);
    ThrongSample *sample = user->sample;

    if (metrics == NULL)
        return;

    guint64 connect_start = soup_message_metrics_get_connect_start (metrics);
    guint64 connect_end = soup_message_metrics_get_connect_end (metrics);
    guint64 tls_start = soup_message_metrics_get_tls_start (metrics);
    guint64 response_start = soup_message_metrics_get_response_start (metrics);

    /* Time spent is counted for failed attempts too; network_event() counts the connection. */
    if (connect_start != 0) {
        guint64 tcp_end = tls_start != 0 ? tls_start : connect_end;
        if (tcp_end > connect_start)
            sample->connect_us += (gint64)(tcp_end - connect_start);
    } else {
        g_debug ("soup: connection to %s reused",
                 g_uri_get_host (soup_message_get_uri (user->message)));
    }
    if (tls_start != 0 && connect_end > tls_start) {
        sample->tls_us += (gint64)(connect_end - tls_start);
        /* glib-networking cannot say whether it resumed: every handshake counts as full. */
        sample->handshakes_full++;
    }
    if (response_start != 0 && (gint64)response_start > sample->start_us)
        sample->latency_us = (gint64)response_start - sample->start_us;

    sample->bytes_sent += soup_message_metrics_get_request_header_bytes_sent (metrics)
                          + soup_message_metrics_get_request_body_bytes_sent (metrics);
    guint64 received = soup_message_metrics_get_response_header_bytes_received (metrics);
    guint64 body = soup_message_metrics_get_response_body_bytes_received (metrics);
    /* The body as read when the wire count is not final (a cut-off read). */
    sample->bytes_received += received + MAX (body, user->body_bytes);
}

/* Drops the hop's message and stream; a stream not at its end is cut, not drained. */
static void
release_hop (SoupUser *user, gboolean at_eof)
{
    user->raw = NULL;
    if (user->stream != NULL) {
        if (!at_eof)
            g_cancellable_cancel (user->cancellable);
        /* With a cancelled cancellable the close does not wait for the rest of the body. */
        g_input_stream_close (user->stream, at_eof ? NULL : user->cancellable, NULL);
        g_clear_object (&user->stream);
    }
    if (user->message != NULL) {
        g_signal_handlers_disconnect_by_data (user->message, user);
        g_clear_object (&user->message);
    }
}

/* Ends the step: the sample is complete; releases the in-flight reference. */
static void
step_finish (SoupUser *user)
{
    ThrongUser *throng_user = user->user;
    ThrongSample *sample = user->sample;
    gboolean freed = user->freed;

    if (G_UNLIKELY (user->journey.active) && !freed)
        http_journey_abort (&user->journey, user->step, user->sample);
    user->journey.active = user->journey.keep = FALSE;
    http_hop_clear (&user->hop);
    user->step = NULL;
    user->sample = NULL;
    user->connecting = FALSE;
    if (!freed)
        g_source_set_ready_time (user->timer, -1);
    user_unref (user);
    if (!freed)
        throng_user_step_done_sample (throng_user, sample);
}

/* Ends the step with @error_class; @message (static) NULL for the class's description. */
static void
step_fail (SoupUser *user, ThrongErrorClass error_class, const char *message)
{
    if (user->message != NULL)
        account_hop (user);
    release_hop (user, FALSE);
    http_sample_fail (user->sample, error_class, message);
    step_finish (user);
}

/* The class of @error, knowing that it may be our own cancel. */
static ThrongErrorClass
classify (SoupUser *user, const GError *error)
{
    ThrongErrorClass error_class = http_error_class_from_gerror (error);
    /* Once the request went out, the handshake was over: a TLS error now is
     * the peer closing in the middle of the response, as on plain HTTP. */
    if (error_class == THRONG_ERROR_TLS && user->message != NULL) {
        SoupMessageMetrics *metrics = soup_message_get_metrics (user->message);
        if (metrics != NULL && soup_message_metrics_get_request_header_bytes_sent (metrics) > 0)
            error_class = THRONG_ERROR_RESET;
    }
    return error_class;
}

static const char *framing_refusal (SoupUser *user, HttpFraming *framing);

/* The response head libsoup read so far, in bytes (0 when it cannot say). */
static guint64
head_bytes (SoupUser *user)
{
    SoupMessageMetrics *metrics
        = user->message != NULL ? soup_message_get_metrics (user->message) : NULL;

    return metrics != NULL ? soup_message_metrics_get_response_header_bytes_received (metrics) : 0;
}

/*
 * Ends the step on @error: our own cancel (a timeout, a bound), or what
 * went wrong, worded as `fast` words it where libsoup's error alone
 * would not say (docs/http.md).
 */
static void
step_fail_error (SoupUser *user, const GError *error)
{
    ThrongErrorClass error_class;
    const char *refused;
    HttpFraming framing;

    g_debug ("soup: step failed: %s (%s %d)", error->message, g_quark_to_string (error->domain),
             error->code);
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
        && user->cancel_class != THRONG_ERROR_NONE) {
        step_fail (user, user->cancel_class, user->cancel_message);
        return;
    }
    error_class = classify (user, error);
    /* libsoup refused a head: say which rule it broke, if it broke one of ours. */
    if (error->domain == SOUP_SESSION_ERROR && user->message != NULL
        && soup_message_get_status (user->message) != 0
        && (refused = framing_refusal (user, &framing)) != NULL) {
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_PROTOCOL, refused);
        return;
    }
    /* libsoup ends an oversized head as it ends a cut one (PARTIAL_INPUT); its size tells them apart. */
    if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && user->stream == NULL
        && head_bytes (user) >= HTTP_MAX_HEAD) {
        step_fail (user, THRONG_ERROR_PROTOCOL, "response head too large");
        return;
    }
    step_fail (user, error_class, NULL);
}

static void hop_send (SoupUser *user);
static void body_read (SoupUser *user);
static void chunked_read (SoupUser *user, gsize n);
static GInputStream *chunked_source (SoupUser *user);

/*
 * Which HTTP versions libsoup may use in this process.  libsoup 3.2
 * offers h2 through ALPN on every https connection unless
 * SOUP_FORCE_HTTP1 is set, and reads that once per process: a message
 * cannot choose.  So the first https step decides for the whole plan and
 * a step asking for the other is refused at load.
 */
typedef enum {
    SOUP_VERSIONS_UNDECIDED,
    SOUP_VERSIONS_HTTP1, /* SOUP_FORCE_HTTP1: version 1.1 */
    SOUP_VERSIONS_ALPN,  /* h2 and http/1.1 offered: version 2 and auto */
} SoupVersions;

static SoupVersions soup_versions;

static gpointer
soup_step_new (HttpScenario *scenario, HttpStep *step, GError **error)
{
    SoupVersions wanted
        = step->version == HTTP_VERSION_1_1 ? SOUP_VERSIONS_HTTP1 : SOUP_VERSIONS_ALPN;

    if (step->version == HTTP_VERSION_2 && !step->tls) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "version: 2 over http:// is h2c, which libsoup does not speak; "
                     "use transport: fast");
        return NULL;
    }
    if (!step->tls)
        return NULL;
    /* libsoup drops Connection from an h2 request and keeps the connection
     * for the next one, so `keep_alive: false` would be ignored without a
     * word: every request but the first would skip its connect and
     * handshake, which is exactly what such a plan sets out to measure. */
    if (wanted == SOUP_VERSIONS_ALPN && !scenario->options.keep_alive) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "keep_alive: false with version: %s on the soup transport: libsoup keeps "
                     "an HTTP/2 connection open whatever the request says; use transport: "
                     "fast, or version: 1.1",
                     step->version == HTTP_VERSION_2 ? "2" : "auto");
        return NULL;
    }
    if (soup_versions == SOUP_VERSIONS_UNDECIDED) {
        gboolean forced = g_getenv ("SOUP_FORCE_HTTP1") != NULL;
        if (wanted == SOUP_VERSIONS_HTTP1 && !forced)
            /* At plan load, before any connection: libsoup has not read it yet. */
            g_setenv ("SOUP_FORCE_HTTP1", "1", TRUE);
        soup_versions = forced ? SOUP_VERSIONS_HTTP1 : wanted;
    }
    if (soup_versions != wanted) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     wanted == SOUP_VERSIONS_ALPN && g_getenv ("SOUP_FORCE_HTTP1") != NULL
                             && soup_versions == SOUP_VERSIONS_HTTP1
                         ? "version: %s over https:// on the soup transport, but HTTP/1.1 is "
                           "forced for the whole process (SOUP_FORCE_HTTP1, or a version 1.1 "
                           "step); use transport: fast"
                         : "version: %s over https:// on the soup transport, but another step "
                           "asked for HTTP/2, which libsoup enables for the whole process; use "
                           "transport: fast",
                     step->version == HTTP_VERSION_1_1 ? "1.1"
                     : step->version == HTTP_VERSION_2 ? "2"
                                                       : "auto");
        return NULL;
    }
    return NULL;
}

/* The body of the current hop was read to its end. */
static void
hop_complete (SoupUser *user)
{
    guint status = soup_message_get_status (user->message);
    SoupMessageHeaders *headers = soup_message_get_response_headers (user->message);
    gboolean follow;

    gboolean h2 = soup_message_get_http_version (user->message) == SOUP_HTTP_2_0;

    g_input_stream_close (user->stream, NULL, NULL);
    g_clear_object (&user->stream);
    account_hop (user);
    follow = http_hop_response (&user->hop, user->step, status, headers, user->sample);
    if (!follow && G_UNLIKELY (user->journey.active))
        http_journey_end (&user->journey, user->step, user->user, status, headers,
                          http_hop_uri (&user->hop, user->step), user->sample);
    release_hop (user, TRUE);
    if (follow) {
        hop_send (user);
        return;
    }
    if (h2)
        http_sample_note_protocol (user->sample, "h2");
    step_finish (user);
}

static void
body_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
    SoupUser *user = data;
    g_autoptr (GError) error = NULL;
    gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

    if (user->freed) {
        release_hop (user, FALSE);
        step_finish (user);
        return;
    }
    if (n < 0) {
        step_fail_error (user, error);
        return;
    }
    if (user->raw != NULL) {
        chunked_read (user, (gsize)n);
        return;
    }
    if (n == 0) {
        hop_complete (user);
        return;
    }
    user->body_bytes += (guint64)n;
    if (G_UNLIKELY (user->journey.active && user->journey.keep)
        && user->body_bytes <= user->step->max_body)
        g_string_append_len (user->journey.body, (const char *)user->buffer, n);
    if (user->body_bytes > user->step->max_body) {
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_BODY_LIMIT, NULL);
        return;
    }
    body_read (user);
}

static void
body_read (SoupUser *user)
{
    gboolean pushed = push_context (user);
    g_input_stream_read_async (user->raw != NULL ? user->raw : user->stream, user->buffer,
                               SOUP_READ_BUFFER, G_PRIORITY_DEFAULT, user->cancellable,
                               body_read_done, user);
    pop_context (user, pushed);
}

/*
 * The stream below libsoup's chunked decoder, when the hop's body is
 * chunked and libsoup's own decoder would read it straight from there
 * (HTTP/1.x, no content decoding between): the connection's buffered
 * stream, which holds what libsoup read past the head.  libsoup's
 * decoder reads a chunk size with strtoul ("zz" is the last chunk, "5g"
 * a chunk of 5), waits for a 2^60-byte chunk, and takes a close after
 * the last chunk as the body's end; reading these bytes through
 * chunked.c instead judges them as `fast` does.  NULL when the streams
 * are not the ones this was written against (another libsoup): then
 * libsoup decodes, and tests/integration/test-conformance.c notices.
 */
static guint client_eof_signal; /* SoupClientInputStream's "eof", once chunked_source() found it */

static GInputStream *
chunked_source (SoupUser *user)
{
    static gsize types_known;
    static GType client_type, body_type, buffered_type;
    GInputStream *body, *buffered;

    if (soup_message_get_http_version (user->message) == SOUP_HTTP_2_0)
        return NULL;
    /* libsoup made one of each before it returned an HTTP/1 body stream: all are registered. */
    if (g_once_init_enter (&types_known)) {
        client_type = g_type_from_name ("SoupClientInputStream");
        body_type = g_type_from_name ("SoupBodyInputStream");
        buffered_type = g_type_from_name ("SoupFilterInputStream");
        if (client_type != 0)
            client_eof_signal = g_signal_lookup ("eof", client_type);
        g_once_init_leave (&types_known, 1);
    }
    if (G_OBJECT_TYPE (user->stream) != client_type || client_eof_signal == 0)
        return NULL;
    body = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (user->stream));
    if (G_OBJECT_TYPE (body) != body_type || body_type == 0)
        return NULL;
    buffered = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (body));
    if (G_OBJECT_TYPE (buffered) != buffered_type || buffered_type == 0)
        return NULL;
    return buffered;
}

/*
 * The chunked body ended where chunked.c says.  libsoup's decoder read
 * none of it: the client stream's "eof" tells libsoup's message that its
 * body is done, as the decoder's own end would, so that the connection
 * is kept or closed by libsoup's rules.  Bytes after the body in the
 * same read are no response's: the connection then closes, as on `fast`,
 * by the request's Connection field that libsoup reads when it ends the
 * message (as libsoup does itself after a head it cannot parse).
 */
static void
chunked_done (SoupUser *user, gboolean surplus)
{
    if (surplus)
        soup_message_headers_replace (soup_message_get_request_headers (user->message),
                                      "Connection", "close");
    user->raw = NULL;
    g_signal_emit (user->stream, client_eof_signal, 0);
    hop_complete (user);
}

/* @n bytes of a chunked body in the user's buffer, or the connection's end (0). */
static void
chunked_read (SoupUser *user, gsize n)
{
    HttpChunkedResult result;
    gsize used;

    if (n == 0) {
        /* The last chunk or its empty line never came: `fast` says the same. */
        step_fail (user, THRONG_ERROR_RESET, NULL);
        return;
    }
    result = http_chunked_feed (&user->chunked, user->buffer, n, user->step->max_body, &used);
    user->body_bytes = user->chunked.total;
    switch (result) {
    case HTTP_CHUNKED_MORE:
        body_read (user);
        return;
    case HTTP_CHUNKED_DONE:
        chunked_done (user, used < n);
        return;
    case HTTP_CHUNKED_LIMIT:
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_BODY_LIMIT, NULL);
        return;
    case HTTP_CHUNKED_BAD:
    default:
        user->sample->status = (gint32)soup_message_get_status (user->message);
        step_fail (user, THRONG_ERROR_PROTOCOL, user->chunked.message);
        return;
    }
}

/*
 * Why the head libsoup read breaks the framing rule `fast` follows
 * (framing.c), or NULL and its @framing: a head that rule refuses, or a
 * body libsoup frames otherwise than RFC 9112 §6.3 says (chunked or not,
 * or not at all), which is refused rather than counted wrong
 * (docs/http.md).
 */
static const char *
framing_refusal (SoupUser *user, HttpFraming *framing)
{
    SoupMessage *message = user->message;
    SoupMessageHeaders *headers = soup_message_get_response_headers (message);
    guint status = soup_message_get_status (message);
    gboolean head_only = strcmp (user->hop.method, "HEAD") == 0;
    SoupEncoding encoding;
    const char *refused = http_framing_from_head (headers, soup_message_get_http_version (message),
                                                  status, head_only, framing);

    if (refused != NULL || framing->kind == HTTP_FRAMING_NONE)
        return refused;
    encoding = soup_message_headers_get_encoding (headers);
    if (encoding == SOUP_ENCODING_UNRECOGNIZED
        || (framing->kind == HTTP_FRAMING_CHUNKED) != (encoding == SOUP_ENCODING_CHUNKED))
        return "transfer coding libsoup frames otherwise";
    return NULL;
}

/* The head libsoup read, held to framing_refusal(); FALSE when the step ended. */
static gboolean
framing_agrees (SoupUser *user, HttpFraming *framing)
{
    const char *refused = framing_refusal (user, framing);

    if (refused == NULL)
        return TRUE;
    user->sample->status = (gint32)soup_message_get_status (user->message);
    step_fail (user, THRONG_ERROR_PROTOCOL, refused);
    return FALSE;
}

static void
hop_sent (GObject *source, GAsyncResult *result, gpointer data)
{
    SoupUser *user = data;
    g_autoptr (GError) error = NULL;
    HttpFraming framing;

    user->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
    if (user->freed) {
        release_hop (user, FALSE);
        step_finish (user);
        return;
    }
    if (user->stream == NULL) {
        step_fail_error (user, error);
        return;
    }
    user->connecting = FALSE;
    if (user->step->version == HTTP_VERSION_2
        && soup_message_get_http_version (user->message) != SOUP_HTTP_2_0) {
        step_fail (user, THRONG_ERROR_PROTOCOL,
                   "the server did not select h2 through ALPN (version: 2 requires it; "
                   "version: auto falls back to HTTP/1.1)");
        return;
    }
    if (!framing_agrees (user, &framing))
        return;
    if (framing.kind == HTTP_FRAMING_CHUNKED && (user->raw = chunked_source (user)) != NULL) {
        http_chunked_init (&user->chunked);
        if (G_UNLIKELY (user->journey.active && user->journey.keep))
            user->chunked.keep = user->journey.body;
    }
    timer_arm (user);
    body_read (user);
}

/*
 * "starting", after the cookie jar's handler, which replaces the request's
 * Cookie field by the jar's cookies or removes it: the step's own Cookie
 * (@data) goes back in, with the jar's after "; ", so that the request
 * carries one Cookie field (RFC 6265 §5.4), as on the fast transport.
 */
static void
merge_own_cookie (SoupMessage *message, gpointer data)
{
    SoupMessageHeaders *headers = soup_message_get_request_headers (message);
    const char *jar = soup_message_headers_get_one (headers, "Cookie");
    g_autofree char *merged = jar != NULL ? g_strconcat (data, "; ", jar, NULL) : NULL;

    soup_message_headers_replace (headers, "Cookie", merged != NULL ? merged : data);
}

static void
hop_send (SoupUser *user)
{
    const HttpStep *step = user->step;
    const HttpOptions *options = &user->scenario->options;
    const HttpRequestText *text = &user->journey.request;
    const GArray *sent = http_request_headers (step, text);
    SoupMessageHeaders *headers;
    gboolean pushed;

    user->message = soup_message_new_from_uri (user->hop.method, http_hop_uri (&user->hop, step));
    user->body_bytes = 0;
    if (user->journey.active)
        http_journey_hop (&user->journey);
    /*
     * IDEMPOTENT: libsoup would otherwise open a new connection for every
     * POST.  NO_REDIRECT: redirects are ours to count and bound.
     */
    soup_message_set_flags (user->message,
                            SOUP_MESSAGE_IDEMPOTENT | SOUP_MESSAGE_COLLECT_METRICS
                                | SOUP_MESSAGE_NO_REDIRECT
                                | (user->new_connection ? SOUP_MESSAGE_NEW_CONNECTION : 0));
    user->new_connection = FALSE;
    headers = soup_message_get_request_headers (user->message);
    for (guint i = 0; i < sent->len; i++) {
        const HttpHeader *header = &g_array_index (sent, HttpHeader, i);
        soup_message_headers_replace (headers, header->name, header->value);
        if (g_ascii_strcasecmp (header->name, "Cookie") == 0)
            g_signal_connect_data (user->message, "starting", G_CALLBACK (merge_own_cookie),
                                   g_strdup (header->value), (GClosureNotify) (void (*) (void)) g_free,
                                   G_CONNECT_AFTER);
    }
    if (!options->keep_alive)
        soup_message_headers_replace (headers, "Connection", "close");
    if (user->hop.body && step->body_template != NULL) {
        g_autoptr (GBytes) body = g_bytes_new (text->body->str, text->body->len);
        soup_message_set_request_body_from_bytes (user->message, NULL, body);
    } else if (user->hop.body && step->body != NULL) {
        soup_message_set_request_body_from_bytes (user->message, NULL, step->body);
    }
    if (user->shared->certificate != NULL)
        soup_message_set_tls_client_certificate (user->message, user->shared->certificate);
    g_signal_connect (user->message, "network-event", G_CALLBACK (network_event), user);
    g_signal_connect (user->message, "got-informational", G_CALLBACK (got_informational), user);
    g_signal_connect (user->message, "restarted", G_CALLBACK (restarted), user);
    user->interim = 0;

    pushed = push_context (user);
    soup_session_send_async (user->session, user->message, G_PRIORITY_DEFAULT, user->cancellable,
                             hop_sent, user);
    pop_context (user, pushed);
}

static void
soup_run (gpointer data, const HttpStep *step, ThrongSample *sample)
{
    SoupUser *user = data;

    g_return_if_fail (user->step == NULL);

    if (G_UNLIKELY (http_journey_needed (step))
        && !http_journey_begin (&user->journey, (HttpStep *)step, user->user, sample)) {
        sample->resource = step->url;
        throng_user_step_done_sample (user->user, sample);
        return;
    }

    /* Only after a cancel: a cancellable cannot be reused once cancelled. */
    if (g_cancellable_is_cancelled (user->cancellable)) {
        g_clear_object (&user->cancellable);
        user->cancellable = g_cancellable_new ();
    }
    user->refs++;
    user->step = step;
    user->sample = sample;
    http_hop_start (&user->hop, step);
    if (step->url_template != NULL)
        user->hop.uri = http_request_uri (step, &user->journey.request);
    user->cancel_class = THRONG_ERROR_NONE;
    user->cancel_message = NULL;
    user->connecting = FALSE;
    /* From when the request is really sent, as in `fast`: a late start is lag, not the server. */
    user->deadline_us = g_get_monotonic_time () + step->timeout_us;
    sample->resource = step->url;
    timer_arm (user);
    hop_send (user);
}

/* A SoupUser runs one step at a time: the children of a `parallel` run one after another. */
static gboolean
soup_busy (gpointer data)
{
    SoupUser *user = data;

    return user->step != NULL;
}

const HttpTransport http_soup_transport = {
    .name = "soup",
    .scenario_new = soup_scenario_new,
    .scenario_free = soup_scenario_free,
    .scenario_notes = soup_scenario_notes,
    .step_new = soup_step_new,
    .step_free = NULL,
    .user_new = soup_user_new,
    .user_free = soup_user_free,
    .iteration_begin = soup_iteration_begin,
    .run = soup_run,
    .busy = soup_busy,
};
