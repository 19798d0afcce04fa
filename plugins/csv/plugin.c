/* SPDX-License-Identifier: MIT */
/*
 * The csv plugin's registration: its descriptor and init, nothing else.
 * The reporter itself is in csv.c.
 */
#include <throng/plugin.h>

#include "csv.h"

static gboolean
csv_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &csv_reporter, error);
}

static const ThrongPluginDescriptor csv_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "csv",
    .version = THRONG_VERSION_STRING,
    .description = "one row per sample in JMeter's CSV result format",
    .init = csv_plugin_init,
};

THRONG_PLUGIN_DEFINE (csv_descriptor)
