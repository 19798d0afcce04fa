/* SPDX-License-Identifier: MIT */
/*
 * The html plugin's registration: its descriptor and init, nothing else.
 * The reporter is in html.c, the page it writes in page.c and svg.c.
 */
#include <throng/plugin.h>

#include "html.h"

static gboolean
html_plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &html_reporter, error);
}

static const ThrongPluginDescriptor html_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "html",
    .version = THRONG_VERSION_STRING,
    .description = "one self-contained HTML page with the run's charts and tables",
    .init = html_plugin_init,
};

THRONG_PLUGIN_DEFINE (html_descriptor)
