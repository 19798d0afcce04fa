/* SPDX-License-Identifier: MIT */
/*
 * The remote_write plugin's registration: its descriptor and init, nothing
 * else.  The reporter is in remote-write.c, its wire format in series.c.
 */
#include <throng/plugin.h>

#include "remote-write.h"

static gboolean
remote_write_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &remote_write_reporter, error);
}

static const ThrongPluginDescriptor remote_write_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "remote_write",
    .version = THRONG_VERSION_STRING,
    .description = "pushes the run's figures to a Prometheus remote-write endpoint",
    .init = remote_write_plugin_init,
};

THRONG_PLUGIN_DEFINE (remote_write_descriptor)
