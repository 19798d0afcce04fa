/* SPDX-License-Identifier: MIT */
/*
 * The junit plugin's registration: its descriptor and init, nothing else.
 * The reporter itself is in junit.c.
 */
#include <throng/plugin.h>

#include "junit.h"

static gboolean
junit_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &junit_reporter, error);
}

static const ThrongPluginDescriptor junit_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "junit",
    .version = THRONG_VERSION_STRING,
    .description = "thresholds and checks as JUnit XML test cases, for CI",
    .init = junit_plugin_init,
};

THRONG_PLUGIN_DEFINE (junit_descriptor)
