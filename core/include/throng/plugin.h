/* SPDX-License-Identifier: MIT */
/*
 * The plugin descriptor and registration.  A plugin is a shared module
 * named `libthrong-NAME.so` that exports one function,
 * throng_plugin_get_descriptor(), returning a constant descriptor.  The
 * registry checks the descriptor's ABI number and size, then calls its
 * `init`, which registers protocols and reporters with the host.
 *
 * Logging: a plugin compiles with its own log domain,
 * `-DG_LOG_DOMAIN="throng-NAME"`, and logs only with g_debug() (users
 * turn it on with G_MESSAGES_DEBUG=throng-NAME).  Errors are returned as
 * GErrors, never logged: throng reports each once, and a g_warning() or
 * g_critical() is a bug (the test suite makes them fatal).
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
 * What the core offers a plugin during `init`: the calls that register
 * its protocols and reporters.  Owned by the core and valid only for the
 * duration of that call (never keep it).  A refused registration refuses
 * the whole plugin, however `init` returns.
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
 *   an error to refuse loading.  Runs once, on the main thread.
 *
 * What a plugin exports, through THRONG_PLUGIN_DEFINE().  A `static const`
 * (transfer none): the core reads it, checks @abi first (refusing any
 * other number than its %THRONG_ABI_VERSION), then @size (at least up to
 * @init), then the fields.  The `reserved` tail keeps room for fields to
 * come without changing @size's meaning; leave it zero.
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

/**
 * THRONG_PLUGIN_SYMBOL:
 *
 * The name of the one symbol every plugin exports: a function without
 * arguments returning `const ThrongPluginDescriptor *`.  Write it with
 * THRONG_PLUGIN_DEFINE().
 *
 * Since: 0.1
 */
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
 * already registered (by any plugin), when @protocol->size does not reach
 * `step_run`, or when a required hook is missing; the failure refuses
 * the plugin whatever `init` then returns.
 *
 * Returns: TRUE when registered
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_plugin_host_register_protocol (ThrongPluginHost *host,
                                                          const ThrongProtocol *protocol,
                                                          GError **error);
/**
 * throng_plugin_host_register_reporter:
 * @host: the host passed to `init`
 * @reporter: (transfer none): a static vtable that outlives the plugin's use
 * @error: return location for an error
 *
 * Registers @reporter under @reporter->name.  Fails when that name is
 * already registered, when @reporter->size does not reach `free`, or when
 * `configure`, `close` or `free` is missing; the failure refuses the
 * plugin whatever `init` then returns.
 *
 * Returns: TRUE when registered
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_plugin_host_register_reporter (ThrongPluginHost *host,
                                                          const ThrongReporter *reporter,
                                                          GError **error);

G_END_DECLS
