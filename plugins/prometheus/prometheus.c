/* SPDX-License-Identifier: MIT */
/*
 * The prometheus reporter: its options and hooks.  open starts the
 * server (a taken port stops the run before any load); each batch of
 * samples counts their status classes; each snapshot adds
 * its interval to the figures and publishes their text; close publishes
 * the final summary's; free lingers, so that Prometheus scrapes the final
 * figures, then stops the server.  Lingering in free, not close, lets the
 * other reporters write their files first.
 */
#include <string.h>

#include "prometheus.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_PORT 9464

typedef struct {
    char *listen;
    gint64 linger_us;
    guint64 linger_scrapes;
} PrometheusOptions;

static const ThrongOption prometheus_options[] = {
    { "listen", THRONG_OPTION_STRING, G_STRUCT_OFFSET (PrometheusOptions, listen) },
    { "linger", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (PrometheusOptions, linger_us), .min = 0,
      .max = G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC },
    { "linger_scrapes", THRONG_OPTION_UINT, G_STRUCT_OFFSET (PrometheusOptions, linger_scrapes),
      .min = 0, .max = 1000 },
    { NULL },
};

typedef struct {
    PrometheusOptions options;
    GSocketAddress *address;        /* listen, parsed */
    PrometheusFigures *figures;
    PrometheusServer *server;
    gboolean final;                 /* close published a real summary: linger for it */
} Prometheus;

static void
prometheus_free (gpointer self)
{
    Prometheus *prometheus = self;

    if (prometheus == NULL)
        return;
    if (prometheus->server != NULL && prometheus->final && prometheus->options.linger_us > 0) {
        guint64 wanted = prometheus->options.linger_scrapes;

        /* A silent wait of up to `linger` would look like a hang. */
        if (wanted == 0 || prometheus_server_final_scrapes (prometheus->server) < wanted) {
            g_autofree char *where
                = g_socket_connectable_to_string (G_SOCKET_CONNECTABLE (prometheus->address));

            g_printerr ("throng: prometheus: serving the final figures at http://%s/metrics "
                        "%s%" G_GINT64_FORMAT " s at most (Ctrl-C ends the wait)\n",
                        where, wanted > 0 ? "until scraped, " : "for ",
                        (prometheus->options.linger_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
        }
        g_debug ("lingering up to %" G_GINT64_FORMAT " ms for %" G_GUINT64_FORMAT " scrapes",
                 prometheus->options.linger_us / 1000, prometheus->options.linger_scrapes);
        prometheus_server_linger (prometheus->server, prometheus->options.linger_us,
                                  (guint) prometheus->options.linger_scrapes);
    }
    prometheus_server_stop (prometheus->server);
    prometheus_figures_free (prometheus->figures);
    g_clear_object (&prometheus->address);
    throng_options_clear (prometheus_options, &prometheus->options);
    g_free (prometheus);
}

/*
 * HOST:PORT, [V6]:PORT or HOST alone (port 9464), where HOST is an IP
 * address or `localhost`: a scrape target is an address, and resolving
 * names is no business of plan loading.
 */
static GSocketAddress *
parse_listen (const char *text, const ThrongNode *at, GError **error)
{
    g_autoptr (GError) local = NULL;
    g_autoptr (GSocketConnectable) parsed = g_network_address_parse (text, DEFAULT_PORT, &local);
    const char *host;
    guint16 port;

    if (parsed == NULL) {
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "listen: '%s' is not HOST:PORT (%s)", text, local->message);
        return NULL;
    }
    host = g_network_address_get_hostname (G_NETWORK_ADDRESS (parsed));
    port = g_network_address_get_port (G_NETWORK_ADDRESS (parsed));
    if (g_ascii_strcasecmp (host, "localhost") == 0)
        host = "127.0.0.1";
    g_autoptr (GInetAddress) inet = g_inet_address_new_from_string (host);
    if (inet == NULL) {
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "listen: '%s' is not an IP address (write 127.0.0.1:9464, "
                               "0.0.0.0:9464 or [::1]:9464)",
                               host);
        return NULL;
    }
    return g_inet_socket_address_new (inet, port);
}

static gpointer
prometheus_configure (const ThrongNode *options, GError **error)
{
    Prometheus *prometheus = g_new0 (Prometheus, 1);

    prometheus->options.listen = g_strdup (DEFAULT_LISTEN);
    prometheus->options.linger_us = 30 * G_USEC_PER_SEC;
    prometheus->options.linger_scrapes = 1;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, prometheus_options, &prometheus->options, FALSE,
                                  "prometheus options", error)) {
        prometheus_free (prometheus);
        return NULL;
    }
    const ThrongNode *at = options != NULL ? throng_node_lookup (options, "listen") : NULL;
    prometheus->address = parse_listen (prometheus->options.listen, at != NULL ? at : options,
                                        error);
    if (prometheus->address == NULL) {
        prometheus_free (prometheus);
        return NULL;
    }
    return prometheus;
}

static gboolean
prometheus_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Prometheus *prometheus = self;
    g_autoptr (GError) local = NULL;

    prometheus->figures = prometheus_figures_new (run);
    prometheus->server = prometheus_server_start (prometheus->address, &local);
    if (prometheus->server == NULL) {
        g_set_error (error, local->domain, local->code, "cannot listen on %s: %s",
                     prometheus->options.listen, local->message);
        return FALSE;
    }
    /* Scrapes before the first snapshot see zeros, not an empty page. */
    prometheus_server_publish (prometheus->server,
                               prometheus_figures_render (prometheus->figures), FALSE);
    return TRUE;
}

static void
prometheus_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Prometheus *prometheus = self;

    if (prometheus->figures != NULL)
        prometheus_figures_add_samples (prometheus->figures, samples, n_samples);
}

static void
prometheus_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Prometheus *prometheus = self;

    if (prometheus->server == NULL)
        return;
    prometheus_figures_add_interval (prometheus->figures, snapshot);
    prometheus_server_publish (prometheus->server,
                               prometheus_figures_render (prometheus->figures), FALSE);
}

static gboolean
prometheus_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Prometheus *prometheus = self;

    if (prometheus->server == NULL)
        return TRUE;
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started)
        return TRUE;
    prometheus_figures_set_final (prometheus->figures, summary);
    prometheus_server_publish (prometheus->server,
                               prometheus_figures_render (prometheus->figures), TRUE);
    prometheus->final = TRUE;
    return TRUE;
}

const ThrongReporter prometheus_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "prometheus",
    .configure = prometheus_configure,
    .open = prometheus_open,
    .samples = prometheus_samples,
    .snapshot = prometheus_snapshot,
    .close = prometheus_close,
    .free = prometheus_free,
};
