/* SPDX-License-Identifier: MIT */
/*
 * The soup transport's SoupSession: one per virtual user, made and used
 * on the user's worker thread under its context, with its own cookie
 * jar (none under `cookie_jar: off`; emptied per iteration by default),
 * the TLS database and client certificate the scenario read once, and
 * the `per-iteration` policy's closing of its connections.  This file
 * owns the user's life: a SoupUser is freed when both its owner
 * (http_soup_user_free) and the step in flight, if any, let it go, so
 * that libsoup's callbacks never see freed memory.  TLS policies are
 * only as exact as glib-networking allows (transport.c's notes say where
 * not).
 */
#include "soup.h"

#include "database.h"

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

gpointer
http_soup_scenario_new (HttpScenario *scenario, gboolean validate_only, GError **error)
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

void
http_soup_scenario_free (gpointer p)
{
    SoupScenario *data = p;

    if (data == NULL)
        return;
    g_clear_object (&data->database);
    g_clear_object (&data->certificate);
    g_free (data);
}

/* Pushes the user's context as thread-default unless the worker already did. */
gboolean
http_soup_push_context (SoupUser *user)
{
    if (g_main_context_get_thread_default () == user->context)
        return FALSE;
    g_main_context_push_thread_default (user->context);
    return TRUE;
}

void
http_soup_pop_context (SoupUser *user, gboolean pushed)
{
    if (pushed)
        g_main_context_pop_thread_default (user->context);
}

gpointer
http_soup_user_new (HttpScenario *scenario, ThrongUser *throng_user)
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
    user->connections = http_soup_connections_new ();
    http_journey_init (&user->journey);

    user->timer = http_soup_timer_new (user);

    /* A session belongs to the thread-default context it was made under. */
    pushed = http_soup_push_context (user);
    user->session = soup_session_new_with_options (
        "max-conns", 64, "max-conns-per-host", 16,
        /* Our timer bounds every step; libsoup's I/O timeout would only race it. */
        "timeout", 0,
        /* Kept until the server closes them: the policy, not an idle timer, decides. */
        "idle-timeout", 0, "user-agent", "throng/" THRONG_VERSION_STRING, NULL);
    http_soup_pop_context (user, pushed);
    soup_session_set_proxy_resolver (user->session, NULL);
    /* Bodies are decoded by decode.c, as on `fast`, and only for a step that reads them: libsoup's
     * decoder would add an Accept-Encoding the plan did not write, decode bodies nobody reads,
     * and pass a corrupt one through as it came. */
    soup_session_remove_feature_by_type (user->session, SOUP_TYPE_CONTENT_DECODER);
    /* Each virtual user has its own cookies, as a browser (or JMeter's cookie manager) would. */
    if (scenario->options.cookie_jar != HTTP_COOKIE_JAR_OFF) {
        g_autoptr (SoupCookieJar) jar = http_cookie_jar_new ();
        soup_session_add_feature (user->session, SOUP_SESSION_FEATURE (jar));
        user->jar = jar;
    }
    if (user->shared->database != NULL)
        soup_session_set_tls_database (user->session, user->shared->database);
    return user;
}

/* The last one frees: the owner's (http_soup_user_free) or the step's (exchange.c). */
void
http_soup_user_unref (SoupUser *user)
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

void
http_soup_user_free (gpointer data)
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
    http_soup_user_unref (user);
}

void
http_soup_iteration_begin (gpointer data)
{
    SoupUser *user = data;

    if (user->jar != NULL && user->scenario->options.cookie_jar == HTTP_COOKIE_JAR_PER_ITERATION)
        http_cookie_jar_clear (user->jar);
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
