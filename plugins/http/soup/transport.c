/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's `soup` transport: every request through a
 * SoupSession, one per virtual user, created and used on the user's
 * worker thread.  It gives libsoup's breadth (HTTP/2 where libsoup offers
 * it, content decoding) at libsoup's cost, and TLS policies only as exact
 * as glib-networking allows.  This file owns the HttpTransport table and
 * what a plan may ask of libsoup: the HTTP versions a step may choose,
 * refused at load when libsoup cannot give them, and what `throng
 * validate` says where soup does less than the plan asks (soup.h lists
 * the other files).
 */
#include "soup.h"

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

/* A SoupUser runs one step at a time: the children of a `parallel` run one after another. */
static gboolean
soup_busy (gpointer data)
{
    SoupUser *user = data;

    return user->step != NULL;
}

const HttpTransport http_soup_transport = {
    .name = "soup",
    .scenario_new = http_soup_scenario_new,
    .scenario_free = http_soup_scenario_free,
    .scenario_notes = soup_scenario_notes,
    .step_new = soup_step_new,
    .step_free = NULL,
    .user_new = http_soup_user_new,
    .user_free = http_soup_user_free,
    .iteration_begin = http_soup_iteration_begin,
    .run = http_soup_run,
    .busy = soup_busy,
};
