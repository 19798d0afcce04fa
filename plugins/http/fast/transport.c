/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's `fast` transport: HTTP/1.1 over non-blocking sockets
 * on the user's worker loop, TLS through GnuTLS directly, responses
 * parsed with libsoup's header parser.  This file owns the HttpTransport
 * table: the per-scenario TLS set-up, the per-step request (pre-built, or
 * a head plan when templated: request.h) and the user's life; each
 * request it hands to the exchange (exchange.h; fast.h lists the other
 * files).
 */
#include "fast.h"
#include "connect.h"
#include "cookies.h"
#include "exchange.h"
#include "pool.h"
#include "session.h"

#include <string.h>
#include <gnutls/gnutls.h>

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
    fast_verified_free (fs->verified);
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

    fs->http = scenario;
    fs->events = &fast_exchange_events;
    fs->sessions = fast_sessions_new (options->tls.session, options->tls.resumption);
    fs->verified = fast_verified_new ();
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
    fast_head_plan_clear (&fstep->plan);
    g_free (fstep);
}

static gpointer
fast_step_new (HttpScenario *scenario, HttpStep *step, GError **error)
{
    FastScenario *fs = scenario->transport_data;
    FastStep *fstep;
    GString *request;
    gssize body_len = fast_body_length (step, NULL, step->method, TRUE);

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
                              step->target, step->headers, body_len, !fs->keep_alive, NULL);
    fstep = g_new0 (FastStep, 1);
    fstep->head_len = request->len;
    g_string_append (request, "\r\n");
    if (body_len > 0)
        g_string_append_len (request, g_bytes_get_data (step->body, NULL), body_len);
    fstep->request_len = request->len;
    fstep->request = g_string_free (request, FALSE);
    fstep->head_only = strcmp (step->method, "HEAD") == 0;
    fstep->n_alpn = fast_session_alpn (step, &fstep->alpn);
    if (step->templated)
        fast_head_plan_init (&fstep->plan, step,
                             http_step_body_varies (step) ? FAST_BODY_LENGTH_HOLE : body_len,
                             !fs->keep_alive);
    return fstep;
}

/* User */

static FastUser *
user_alloc (FastScenario *fs, ThrongUser *user)
{
    FastUser *u = g_new0 (FastUser, 1);

    u->fs = fs;
    u->user = user;
    u->slot = &u->own_slot;
    u->context = throng_user_get_context (user);
    u->timer = throng_user_add_timer (user, -1, fast_timer_fired, u);
    u->timer_at = -1;
    u->hosts = g_ptr_array_new_with_free_func (fast_host_free);
    fast_response_init (&u->response);
    u->out = g_string_sized_new (512);
    http_journey_init (&u->journey);
    return u;
}

static gpointer
fast_user_new (HttpScenario *scenario, ThrongUser *user)
{
    FastUser *u = user_alloc (scenario->transport_data, user);

    u->cookie_jar = scenario->options.cookie_jar;
    return u;
}

/*
 * A lane of @data's user (../lanes.c): its own connections, the user's
 * TLS session and cookie jar (made now if the user has none yet, so that
 * both see the same cookies from then on).
 */
static gpointer
fast_lane_new (gpointer data)
{
    FastUser *main = data;
    FastUser *u = user_alloc (main->fs, main->user);

    u->cookie_jar = main->cookie_jar;
    if (main->jar == NULL && main->cookie_jar != HTTP_COOKIE_JAR_OFF)
        main->jar = http_cookie_jar_new ();
    if (main->jar != NULL)
        u->jar = g_object_ref (main->jar);
    u->slot = main->slot;
    return u;
}

static gboolean
fast_busy (gpointer data)
{
    FastUser *u = data;

    return u->step != NULL;
}

static void
fast_user_free (gpointer data)
{
    FastUser *u = data;

    if (u == NULL)
        return;
    fast_exchange_release (u);
    fast_pool_close_all (u);
    g_free (u->stream);
    throng_timer_cancel (u->timer);
    fast_session_slot_clear (&u->own_slot);
    g_clear_object (&u->resolver);
    g_clear_object (&u->jar);
    http_hop_clear (&u->hop);
    g_ptr_array_unref (u->hosts);
    fast_response_clear (&u->response);
    g_string_free (u->out, TRUE);
    http_journey_clear (&u->journey);
    g_free (u);
}

static void
fast_iteration_begin (gpointer data)
{
    FastUser *u = data;

    /* A lane shares the jar: the first of them to begin empties it for all. */
    if (u->jar != NULL && u->cookie_jar == HTTP_COOKIE_JAR_PER_ITERATION)
        http_cookie_jar_clear (u->jar);
    if (fast_sessions_get_policy (u->fs->sessions) != HTTP_SESSION_PER_ITERATION)
        return;
    fast_pool_close_all (u);
    fast_sessions_iteration_begin (u->fs->sessions, &u->own_slot);
}

/*
 * A templated step's request, assembled in u->out: the head from the
 * step's plan with the user's expansion in its holes, then the body.
 */
static void
build_templated (FastUser *u, const HttpStep *step, const FastStep *fstep)
{
    const HttpRequestText *text = &u->journey.request;
    const char *body;
    gsize length;

    g_string_truncate (u->out, 0);
    fast_head_plan_append (&fstep->plan, u->out, text);
    if (G_UNLIKELY (u->jar != NULL))
        fast_append_cookies (u, step->uri);
    http_string_append (u->out, "\r\n", 2);
    body = http_request_body (step, text, &length);
    if (length > 0)
        http_string_append (u->out, body, length);
    u->req = (const guint8 *)u->out->str;
    u->req_len = u->out->len;
}

/*
 * The exchange of @step begins: its request, its deadline.  FALSE when the
 * step already ended (a variable it needs is unset: nothing is sent).
 */
static gboolean
run_setup (FastUser *u, const HttpStep *step, ThrongSample *sample)
{
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

    if (G_UNLIKELY (http_journey_needed (step))) {
        if (!http_journey_begin (&u->journey, (HttpStep *)step, u->user, sample)) {
            u->step = NULL;
            u->sample = NULL;
            throng_user_step_done_sample (u->user, sample);
            return FALSE;
        }
        if (step->cookies != NULL) {
            if (u->jar == NULL)
                u->jar = http_cookie_jar_new ();
            http_step_cookies_store (step, u->journey.request.cookies, u->jar);
        }
        http_journey_print_request (&u->journey, step, u->jar, step->uri);
        if (step->templated) {
            build_templated (u, step, fstep);
            goto send;
        }
    }

    u->req = (const guint8 *)fstep->request;
    u->req_len = fstep->request_len;
    if (G_UNLIKELY (u->jar != NULL && http_cookie_jar_used (u->jar))) {
        g_string_truncate (u->out, 0);
        g_string_append_len (u->out, fstep->request, fstep->head_len);
        if (fast_append_cookies (u, step->uri)) {
            g_string_append_len (u->out, fstep->request + fstep->head_len,
                                 fstep->request_len - fstep->head_len);
            u->req = (const guint8 *)u->out->str;
            u->req_len = u->out->len;
        }
    }
send:
    /* From when the step started, as its latency counts: no clock read here. */
    u->deadline = sample->start_us + step->timeout_us;
    fast_timer_need (u, u->deadline);
    return TRUE;
}

static void
fast_run (gpointer data, const HttpStep *step, ThrongSample *sample)
{
    FastUser *u = data;

    if (run_setup (u, step, sample))
        fast_exchange_start (u, FALSE);
}

/* A lane's exchange as one more on its user's connection in flight (../lanes.c): an h2 stream. */
static gboolean
fast_run_joined (gpointer data, gpointer main, const HttpStep *step, ThrongSample *sample)
{
    FastUser *u = data;

    if (!fast_exchange_joinable (main, step->host, step->port, step->tls))
        return FALSE;
    if (run_setup (u, step, sample))
        fast_exchange_join (u, main);
    return TRUE;
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
    .busy = fast_busy,
    .lane_new = fast_lane_new,
    .run_joined = fast_run_joined,
};
