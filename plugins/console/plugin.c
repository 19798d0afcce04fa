/* SPDX-License-Identifier: MIT */
/*
 * The console plugin's registration: its descriptor and init, nothing
 * else.  The reporter is in console.c, its end-of-run table in summary.c.
 */
#include <throng/plugin.h>

#include "console.h"

static gboolean
console_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &console_reporter, error);
}

static const ThrongPluginDescriptor console_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "console",
    .version = THRONG_VERSION_STRING,
    .description = "live progress and the end-of-run summary on standard output",
    .init = console_plugin_init,
};

THRONG_PLUGIN_DEFINE (console_descriptor)
