/* SPDX-License-Identifier: MIT */
/*
 * The json plugin's registration: its descriptor and init, nothing else.
 * The reporter itself is in json.c; what it writes is the SDK's run-file writer's.
 */
#include <throng/plugin.h>

#include "json-reporter.h"

static gboolean
json_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &json_reporter, error);
}

static const ThrongPluginDescriptor json_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "json",
    .version = THRONG_VERSION_STRING,
    .description = "a versioned JSON summary, or JSON lines per interval and sample",
    .init = json_plugin_init,
};

THRONG_PLUGIN_DEFINE (json_descriptor)
