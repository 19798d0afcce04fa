/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's registration: its descriptor and init, nothing else.
 * The protocol table is in scenario.c, its transports in fast/ and soup/.
 */
#include "plan.h"

static gboolean
http_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &http_protocol, error);
}

static const ThrongPluginDescriptor http_plugin_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "http",
    .version = THRONG_VERSION_STRING,
    .description = "HTTP/1.1 and HTTPS requests, over GnuTLS (fast) or libsoup (soup)",
    .init = http_plugin_init,
};

THRONG_PLUGIN_DEFINE (http_plugin_descriptor)
