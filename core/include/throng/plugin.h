/* SPDX-License-Identifier: MIT */
/*
 * The plugin descriptor and registration.  A plugin is a shared module
 * named `libthrong-NAME.so` that exports one function,
 * throng_plugin_get_descriptor(), returning a constant descriptor.  The
 * registry checks the descriptor's ABI number and size, then calls its
 * `init`, which registers protocols and reporters with the host.
 */
#pragma once

#include <glib.h>
#include <gmodule.h>
#include <throng/protocol.h>
#include <throng/reporter.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * ThrongPluginHost:
 *
 * What the core offers a plugin during `init`.  Valid only for the
 * duration of that call.
 *
 * Since: 0.1
 */
typedef struct _ThrongPluginHost ThrongPluginHost;

/**
 * ThrongPluginDescriptor:
 * @abi: %THRONG_ABI_VERSION as the plugin was built
 * @size: sizeof (ThrongPluginDescriptor) as the plugin was built
 * @name: the plugin's name (the NAME of its file name)
 * @version: the plugin's own version
 * @description: one line on what it does
 * @init: registers the plugin's protocols and reporters; returns FALSE with
 *   an error to refuse loading
 *
 * Since: 0.1
 */
typedef struct {
    guint32 abi;
    guint32 size;
    const char *name;
    const char *version;
    const char *description;
    gboolean (*init) (ThrongPluginHost *host, GError **error);
    /*< private >*/
    gpointer reserved[8];
} ThrongPluginDescriptor;

/* The symbol every plugin exports. */
#define THRONG_PLUGIN_SYMBOL "throng_plugin_get_descriptor"

/**
 * THRONG_PLUGIN_DEFINE:
 * @descriptor: a `static const ThrongPluginDescriptor`
 *
 * Defines the exported getter for @descriptor.
 *
 * Since: 0.1
 */
#define THRONG_PLUGIN_DEFINE(descriptor)                                                          \
    G_MODULE_EXPORT const ThrongPluginDescriptor *throng_plugin_get_descriptor (void);            \
    G_MODULE_EXPORT const ThrongPluginDescriptor *throng_plugin_get_descriptor (void)             \
    {                                                                                             \
        return &(descriptor);                                                                     \
    }

/**
 * throng_plugin_host_register_protocol:
 * @host: the host passed to `init`
 * @protocol: (transfer none): a static vtable that outlives the plugin's use
 * @error: return location for an error
 *
 * Registers @protocol under @protocol->name.  Fails when that name is
 * already registered or a required hook is missing.
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_plugin_host_register_protocol (ThrongPluginHost *host,
                                                          const ThrongProtocol *protocol,
                                                          GError **error);
THRONG_API gboolean throng_plugin_host_register_reporter (ThrongPluginHost *host,
                                                          const ThrongReporter *reporter,
                                                          GError **error);

G_END_DECLS
