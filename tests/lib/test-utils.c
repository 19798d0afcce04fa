/* SPDX-License-Identifier: MIT */
/*
 * The small shared fixtures (see test-utils.h): missing tools, temporary
 * directories and files, free ports, text checks.  Everything here runs
 * on the test's main thread.
 */
#include "test-utils.h"

#include <glib/gstdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Environment                                                         */

gboolean
throng_test_in_ci (void)
{
    const char *ci = g_getenv ("CI");

    return ci != NULL && (g_ascii_strcasecmp (ci, "true") == 0 || g_strcmp0 (ci, "1") == 0);
}

void
throng_test_skip_or_fail (const char *reason)
{
    if (throng_test_in_ci ()) {
        g_test_message ("CI=true, so this is a failure: %s", reason);
        g_test_fail_printf ("%s", reason);
    } else {
        g_test_skip (reason);
    }
}

char *
throng_test_require_program (const char *name)
{
    char *path = g_find_program_in_path (name);
    g_autofree char *reason = NULL;

    if (path != NULL)
        return path;
    reason = g_strdup_printf ("%s is not installed", name);
    throng_test_skip_or_fail (reason);
    return NULL;
}

gboolean
throng_test_require_file (const char *path)
{
    g_autofree char *reason = NULL;

    if (g_file_test (path, G_FILE_TEST_EXISTS))
        return TRUE;
    reason = g_strdup_printf ("no %s on this machine", path);
    throng_test_skip_or_fail (reason);
    return FALSE;
}

char *
throng_test_source_path (const char *relative)
{
    const char *root = g_getenv ("THRONG_SOURCE_DIR");

    g_assert_nonnull (root);
    return g_build_filename (root, relative, NULL);
}

const ThrongTestPluginInfo throng_test_builtin_plugins[] = {
    { "http", "protocol" },
    { "console", "reporter" },
    { "csv", "reporter" },
    { "json", "reporter" },
    { "html", "reporter" },
    { NULL, NULL },
};

char *
throng_test_plugin_dir (const char *sub)
{
    const char *dir = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    g_assert_nonnull (dir);
    return g_build_filename (dir, sub, NULL);
}

void
throng_test_assert_no_glib_noise (const char *text)
{
    static const char *const noise[] = {
        "CRITICAL **", "WARNING **", "ERROR **", "AddressSanitizer", "LeakSanitizer",
        "runtime error:", "UndefinedBehaviorSanitizer", NULL,
    };

    g_assert_nonnull (text);
    for (gsize i = 0; noise[i] != NULL; i++) {
        if (strstr (text, noise[i]) != NULL)
            g_error ("unexpected \"%s\" in output:\n%s", noise[i], text);
    }
}

/* ------------------------------------------------------------------ */
/* Temporary directories and files                                     */

char *
throng_test_tmpdir_new (void)
{
    g_autoptr (GError) error = NULL;
    char *dir = g_dir_make_tmp ("throng-test-XXXXXX", &error);

    g_assert_no_error (error);
    return dir;
}

static void
remove_tree (const char *path)
{
    if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)) {
        g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
        const char *name;

        while (dir != NULL && (name = g_dir_read_name (dir)) != NULL) {
            g_autofree char *child = g_build_filename (path, name, NULL);
            remove_tree (child);
        }
        g_rmdir (path);
    } else {
        g_unlink (path);
    }
}

void
throng_test_tmpdir_free (char *dir)
{
    if (dir == NULL)
        return;
    if (g_getenv ("THRONG_TEST_KEEP") != NULL)
        g_test_message ("keeping %s", dir);
    else
        remove_tree (dir);
    g_free (dir);
}

void
throng_test_tmpdir_setup (ThrongTestTmpdir *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
}

void
throng_test_tmpdir_teardown (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_clear_pointer (&fixture->dir, throng_test_tmpdir_free);
}

char *
throng_test_write_file (const char *dir, const char *name, const char *contents)
{
    g_autoptr (GError) error = NULL;
    char *path = g_build_filename (dir, name, NULL);

    g_file_set_contents (path, contents, -1, &error);
    g_assert_no_error (error);
    return path;
}

char *
throng_test_write_plan (const char *dir, const char *name, const char *yaml)
{
    return throng_test_write_file (dir, name, yaml);
}

/* ------------------------------------------------------------------ */
/* Network                                                             */

guint16
throng_test_free_port (void)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GSocket) socket = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;

    socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                           &error);
    g_assert_no_error (error);
    g_socket_bind (socket, any, FALSE, &error);
    g_assert_no_error (error);
    bound = g_socket_get_local_address (socket, &error);
    g_assert_no_error (error);
    g_socket_close (socket, NULL);
    return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

gboolean
throng_test_wait_port (guint16 port, guint timeout_ms)
{
    gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, port);

    do {
        g_autoptr (GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                                   G_SOCKET_PROTOCOL_TCP, NULL);

        if (socket != NULL && g_socket_connect (socket, address, NULL, NULL)) {
            g_socket_close (socket, NULL);
            return TRUE;
        }
        g_usleep (10 * 1000);
    } while (g_get_monotonic_time () < deadline);
    return FALSE;
}

guint
throng_test_count_lines (const char *text)
{
    guint n = 0;

    for (const char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    return n;
}

guint
throng_test_count (const char *text, const char *needle)
{
    guint n = 0;

    for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
        n++;
    return n;
}
