/* SPDX-License-Identifier: MIT */
/*
 * Where plugins are looked for, and why each directory is on the path:
 * $THRONG_PLUGIN_PATH, the plan's plugin_path, the build tree's plugin
 * directories when this is the build tree's executable, the installed
 * directory found relative to the executable, the configured install
 * directory.
 */
#include <stdlib.h>
#include <string.h>

#include "registry-path.h"
#include "throng-config.h"

static char *
canonical_path (const char *path)
{
    char *resolved = realpath (path, NULL);
    char *copy = g_strdup (resolved);

    free (resolved);
    return copy;
}

static gboolean
running_from_build_tree (void)
{
    g_autofree char *exe = canonical_path ("/proc/self/exe");
    g_autofree char *root = canonical_path (THRONG_BUILD_ROOT);
    gsize root_len;

    if (exe == NULL || root == NULL)
        return FALSE;
    root_len = strlen (root);
    return strncmp (exe, root, root_len) == 0 && exe[root_len] == '/';
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void
throng_plugin_path_sort (GPtrArray *names)
{
    g_ptr_array_sort (names, compare_strings);
}

/* Each plugin of the build tree sits in its own directory, plugins/NAME/. */
static void
collect_build_dirs (GPtrArray *dirs)
{
    g_autoptr (GDir) dir = NULL;
    const char *entry;

    if (!running_from_build_tree ())
        return;
    dir = g_dir_open (THRONG_BUILD_PLUGIN_DIR, 0, NULL);
    if (dir == NULL)
        return;
    while ((entry = g_dir_read_name (dir)) != NULL) {
        g_autofree char *path = g_build_filename (THRONG_BUILD_PLUGIN_DIR, entry, NULL);

        if (g_file_test (path, G_FILE_TEST_IS_DIR))
            g_ptr_array_add (dirs, g_steal_pointer (&path));
    }
    throng_plugin_path_sort (dirs);
}

/*
 * The installed plugin directory as seen from the running executable:
 * <exe>/../<libdir>/throng-1 when throng runs as <prefix>/<bindir>/throng.
 * This is what lets a DESTDIR or moved install find its own plugins, and
 * it comes before the configured absolute directory so that an install
 * never picks up another install's plugins.  NULL when throng runs from
 * its build tree, when the executable is not in a directory named like
 * the configured bindir, or when the directory is the configured one.
 */
static char *
relocated_install_dir (void)
{
    g_autofree char *exe = NULL;
    g_autofree char *prefix = NULL;
    g_autofree char *dir = NULL;
    g_autofree char *configured = NULL;
    g_auto (GStrv) bindir = NULL;

    if (g_path_is_absolute (THRONG_PLUGIN_INSTALL_SUBDIR) ||
        g_path_is_absolute (THRONG_INSTALL_BINDIR) || running_from_build_tree ())
        return NULL;
    exe = canonical_path ("/proc/self/exe");
    if (exe == NULL)
        return NULL;
    /* Climb one level per component of bindir ("bin", or "sbin/x"), checking each. */
    prefix = g_path_get_dirname (exe);
    bindir = g_strsplit (THRONG_INSTALL_BINDIR, "/", -1);
    for (guint i = g_strv_length (bindir); i > 0; i--) {
        g_autofree char *base = NULL;
        char *parent;

        if (bindir[i - 1][0] == '\0' || strcmp (bindir[i - 1], ".") == 0)
            continue;
        base = g_path_get_basename (prefix);
        if (strcmp (base, bindir[i - 1]) != 0)
            return NULL;
        parent = g_path_get_dirname (prefix);
        g_free (prefix);
        prefix = parent;
    }
    dir = g_build_filename (prefix, THRONG_PLUGIN_INSTALL_SUBDIR, NULL);
    configured = canonical_path (THRONG_PLUGIN_INSTALL_DIR);
    if (configured != NULL) {
        g_autofree char *resolved = canonical_path (dir);

        if (resolved != NULL && strcmp (resolved, configured) == 0)
            return NULL;
    } else if (strcmp (dir, THRONG_PLUGIN_INSTALL_DIR) == 0) {
        return NULL;
    }
    return g_steal_pointer (&dir);
}


void
throng_plugin_path_init (ThrongPluginPath *path)
{
    path->added_dirs = g_ptr_array_new_with_free_func (g_free);
    path->build_dirs = g_ptr_array_new_with_free_func (g_free);
    collect_build_dirs (path->build_dirs);
    path->relocated_dir = relocated_install_dir ();
}

void
throng_plugin_path_clear (ThrongPluginPath *path)
{
    g_clear_pointer (&path->added_dirs, g_ptr_array_unref);
    g_clear_pointer (&path->build_dirs, g_ptr_array_unref);
    g_clear_pointer (&path->relocated_dir, g_free);
}

void
throng_plugin_path_add (ThrongPluginPath *path, const char *dir)
{
    g_ptr_array_add (path->added_dirs, g_strdup (dir));
}

GPtrArray *
throng_plugin_path_dirs (const ThrongPluginPath *path, GPtrArray **origins)
{
    GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) why = g_ptr_array_new ();
    const char *env = g_getenv ("THRONG_PLUGIN_PATH");

    if (env != NULL) {
        g_auto (GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);

        for (guint i = 0; parts[i] != NULL; i++) {
            if (parts[i][0] == '\0')
                continue;
            g_ptr_array_add (dirs, g_strdup (parts[i]));
            g_ptr_array_add (why, "$THRONG_PLUGIN_PATH");
        }
    }
    for (guint i = 0; i < path->added_dirs->len; i++) {
        g_ptr_array_add (dirs, g_strdup (g_ptr_array_index (path->added_dirs, i)));
        g_ptr_array_add (why, "the plan's plugin_path");
    }
    for (guint i = 0; i < path->build_dirs->len; i++) {
        g_ptr_array_add (dirs, g_strdup (g_ptr_array_index (path->build_dirs, i)));
        g_ptr_array_add (why, "the build tree");
    }
    if (path->relocated_dir != NULL) {
        g_ptr_array_add (dirs, g_strdup (path->relocated_dir));
        g_ptr_array_add (why, "installed beside the executable");
    }
    g_ptr_array_add (dirs, g_strdup (THRONG_PLUGIN_INSTALL_DIR));
    g_ptr_array_add (why, "the configured install directory");
    if (origins != NULL)
        *origins = g_steal_pointer (&why);
    return dirs;
}

