/* SPDX-License-Identifier: MIT */
/*
 * The plugin search path, for the registry (registry.h describes the
 * order).  Private to the registry.
 */
#pragma once

#include <glib.h>

typedef struct {
    GPtrArray *added_dirs; /* the plan's plugin_path */
    GPtrArray *build_dirs; /* empty unless running from the build tree */
    char *relocated_dir;   /* the install dir found from the executable, or NULL */
} ThrongPluginPath;

void throng_plugin_path_init (ThrongPluginPath *path);
void throng_plugin_path_clear (ThrongPluginPath *path);
/* Adds a plan's plugin_path directory (searched after $THRONG_PLUGIN_PATH). */
void throng_plugin_path_add (ThrongPluginPath *path, const char *dir);

/*
 * The directories to search, in order, read afresh so that a change of
 * THRONG_PLUGIN_PATH is seen; with @origins, why each is on the path
 * (static strings such as "$THRONG_PLUGIN_PATH" or "the build tree").
 */
GPtrArray *throng_plugin_path_dirs (const ThrongPluginPath *path, GPtrArray **origins);

/* Sorts file or directory names (char*) in the order a directory is searched: bytewise. */
void throng_plugin_path_sort (GPtrArray *names);
