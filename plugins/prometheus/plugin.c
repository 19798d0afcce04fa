/* SPDX-License-Identifier: MIT */
/*
 * The prometheus plugin's registration: its descriptor and init, nothing
 * else.  The reporter is in prometheus.c, the text it serves in
 * exposition.c, the HTTP server and its thread in server.c.
 */
#include <throng/plugin.h>

#include "prometheus.h"

static gboolean
prometheus_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &prometheus_reporter, error);
}

static const ThrongPluginDescriptor prometheus_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "prometheus",
    .version = THRONG_VERSION_STRING,
    .description = "serves the run's figures at /metrics for Prometheus to scrape",
    .init = prometheus_plugin_init,
};

THRONG_PLUGIN_DEFINE (prometheus_descriptor)
