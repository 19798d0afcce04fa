/* SPDX-License-Identifier: MIT */
/*
 * Finding, loading and checking plugins.  Private to the core.
 *
 * A plugin named NAME is the module file libthrong-NAME.so.  Directories
 * are searched in order: each of $THRONG_PLUGIN_PATH (':'-separated), the
 * directories added with throng_registry_add_dir() (the plan's
 * plugin_path), then the build tree's plugin directories when the running
 * executable is the build tree's, then the installed plugin directory
 * found relative to the executable (so a DESTDIR or moved install finds
 * its own plugins), then the configured install directory.
 */
#pragma once

#include <throng/plugin.h>

#define THRONG_REGISTRY_ERROR (throng_registry_error_quark ())
GQuark throng_registry_error_quark (void);

typedef enum {
    /* No plugin file of that name in any directory: a plan error for the caller. */
    THRONG_REGISTRY_ERROR_NOT_FOUND,
    /* A file was found but refused: wrong ABI, missing symbol, bad descriptor, init failed. */
    THRONG_REGISTRY_ERROR_LOAD,
} ThrongRegistryError;

typedef struct _ThrongRegistry ThrongRegistry;

typedef enum {
    THRONG_PLUGIN_KIND_PROTOCOL,
    THRONG_PLUGIN_KIND_REPORTER,
} ThrongPluginKind;

/* One implementation found by throng_registry_scan(). */
typedef struct {
    char *name;        /* the implementation's name (protocol or reporter key) */
    ThrongPluginKind kind;
    char *version;     /* the plugin's version */
    char *path;        /* the module's file */
    char *dir;         /* the search directory it was found in */
    const char *origin; /* why that directory is searched: "$THRONG_PLUGIN_PATH", "the build tree" … */
    char *error;       /* when the module was refused: why (name is then the file's NAME) */
} ThrongPluginInfo;

ThrongRegistry *throng_registry_new (void);
void throng_registry_free (ThrongRegistry *registry);

/* Adds a plan's plugin_path directory (searched after $THRONG_PLUGIN_PATH). */
void throng_registry_add_dir (ThrongRegistry *registry, const char *dir);

/* The directories searched, in order (for messages). */
char *throng_registry_describe_path (ThrongRegistry *registry);

/*
 * Finds the implementation named @name, loading libthrong-NAME.so on first
 * use.  A module is loaded once; its `init` may register several
 * implementations.  Fails with NOT_FOUND or LOAD; LOAD messages are one
 * line naming the file, e.g. "/x/libthrong-old.so: plugin ABI 0, throng
 * expects 1".
 */
const ThrongProtocol *throng_registry_get_protocol (ThrongRegistry *registry, const char *name,
                                                   GError **error);
const ThrongReporter *throng_registry_get_reporter (ThrongRegistry *registry, const char *name,
                                                   GError **error);

/*
 * Loads every module in every directory; returns ThrongPluginInfo* (owned
 * by the array) in search order: directory by directory as they are
 * searched, files by name within one, so the first of two modules of one
 * name is the one listed (and the one a plan gets).
 */
GPtrArray *throng_registry_scan (ThrongRegistry *registry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongRegistry, throng_registry_free)
