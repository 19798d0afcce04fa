/* SPDX-License-Identifier: MIT */
/*
 * The influxdb plugin's registration: its descriptor and init, nothing
 * else.  The reporter is in influxdb.c, the line protocol it writes in
 * lines.c, the thread that sends it in sender.c.
 */
#include <throng/plugin.h>

#include "influxdb.h"

static gboolean
influxdb_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &influxdb_reporter, error);
}

static const ThrongPluginDescriptor influxdb_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "influxdb",
    .version = THRONG_VERSION_STRING,
    .description = "writes each interval to InfluxDB (1.x /write or 2.x /api/v2/write)",
    .init = influxdb_plugin_init,
};

THRONG_PLUGIN_DEFINE (influxdb_descriptor)
