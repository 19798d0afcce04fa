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

/* TRUE when a listening socket could bind @port on 127.0.0.1 now (0: any); its port in @bound_port. */
static gboolean
port_binds (guint16 port, guint16 *bound_port)
{
    g_autoptr (GSocket) socket = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, port);
    g_autoptr (GSocketAddress) bound = NULL;

    socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                           NULL);
    if (socket == NULL || !g_socket_bind (socket, address, FALSE, NULL))
        return FALSE;
    bound = g_socket_get_local_address (socket, NULL);
    g_socket_close (socket, NULL);
    if (bound == NULL)
        return FALSE;
    *bound_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    return TRUE;
}

/*
 * A port below the kernel's ephemeral range where there is room: a server
 * started on it later (or started again on it, as the InfluxDB outage test
 * does) cannot find it taken by some test's outgoing connection, which the
 * kernel gives ports from that range — thousands of them while the idle-
 * users tests run beside.  Otherwise one the kernel picks.
 */
guint16
throng_test_free_port (void)
{
    guint low = 32768;
    g_autofree char *range = NULL;
    guint16 port = 0;

    if (g_file_get_contents ("/proc/sys/net/ipv4/ip_local_port_range", &range, NULL, NULL))
        low = (guint) g_ascii_strtoull (range, NULL, 10);
    if (low > 21000) {
        for (guint i = 0; i < 200; i++) {
            guint16 candidate = (guint16) g_random_int_range (20000, (gint32) low);
            if (port_binds (candidate, &port))
                return port;
        }
    }
    g_assert_true (port_binds (0, &port));
    return port;
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

void
throng_test_add_transport_cases_full (const char *prefix, gsize fixture_size,
                                      GTestFixtureFunc setup, GTestFixtureFunc teardown,
                                      const ThrongTestTransportCase *cases, gsize n_cases)
{
    static const char *const transports[] = { "fast", "soup" };

    for (gsize i = 0; i < n_cases; i++) {
        for (guint t = 0; t < G_N_ELEMENTS (transports); t++) {
            if (t > 0 && !cases[i].both)
                continue;
            g_autofree char *path
                = g_strdup_printf ("%s/%s/%s", prefix, cases[i].name, transports[t]);
            g_test_add_vtable (path, fixture_size, transports[t], setup, cases[i].func,
                               teardown);
        }
    }
}
