/* SPDX-License-Identifier: MIT */
/*
 * The fault server as a child (see fault-fixture.h).  Not through
 * subprocess.h: the test reads the server's stdout line by line while it
 * runs, and the stdin pipe is what ends a server whose test died.
 */
#include "fault-fixture.h"

#include <gio/gio.h>
#include <string.h>

struct _ThrongTestFaultServer {
    GSubprocess *proc;
    GArray *ports; /* guint16, one per listener */
};

static char *
fault_server_exe (void)
{
    const char *build = g_getenv ("THRONG_BUILD_DIR");

    g_assert_nonnull (build);
    return g_build_filename (build, "tests", "lib", "throng-fault-server", NULL);
}

ThrongTestFaultServer *
throng_test_fault_server_start (const char *const *listeners)
{
    ThrongTestFaultServer *server = g_new0 (ThrongTestFaultServer, 1);
    g_autofree char *exe = fault_server_exe ();
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_autoptr (GError) error = NULL;
    g_autoptr (GDataInputStream) out = NULL;
    g_autofree char *ready = NULL;

    g_ptr_array_add (argv, exe);
    for (gsize i = 0; listeners[i] != NULL; i++) {
        g_ptr_array_add (argv, (gpointer) "--listen");
        g_ptr_array_add (argv, (gpointer) listeners[i]);
    }
    g_ptr_array_add (argv, NULL);
    server->proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                      &error);
    g_assert_no_error (error);
    server->ports = g_array_new (FALSE, TRUE, sizeof (guint16));

    /* "KIND PORT" per listener, in order, then "ready". */
    out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server->proc));
    for (gsize i = 0; listeners[i] != NULL; i++) {
        g_autofree char *line = g_data_input_stream_read_line (out, NULL, NULL, &error);
        const char *space;
        guint16 port;

        g_assert_no_error (error);
        g_assert_nonnull (line);
        space = strchr (line, ' ');
        g_assert_nonnull (space);
        port = (guint16) g_ascii_strtoull (space + 1, NULL, 10);
        g_assert_cmpuint (port, >, 0);
        g_array_append_val (server->ports, port);
    }
    ready = g_data_input_stream_read_line (out, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ready, ==, "ready");
    return server;
}

guint16
throng_test_fault_server_port (ThrongTestFaultServer *server, guint index)
{
    g_assert_cmpuint (index, <, server->ports->len);
    return g_array_index (server->ports, guint16, index);
}

const char *
throng_test_fault_server_pid (ThrongTestFaultServer *server)
{
    return g_subprocess_get_identifier (server->proc);
}

void
throng_test_fault_server_stop (ThrongTestFaultServer *server)
{
    if (server == NULL)
        return;
    g_subprocess_force_exit (server->proc);
    g_subprocess_wait (server->proc, NULL, NULL);
    g_object_unref (server->proc);
    g_array_unref (server->ports);
    g_free (server);
}
