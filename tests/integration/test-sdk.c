/* SPDX-License-Identifier: MIT */
/*
 * The SDK as a third party meets it: `meson install --destdir` of this
 * build, then the example plugins of docs/examples/ copied out of the tree
 * and built with nothing but cc and pkg-config (or the guide's meson
 * recipe) against that install, with -Wall -Wextra -Werror and, under
 * scripts/sanitize.sh, the sanitizers; run by the *installed* throng
 * through THRONG_PLUGIN_PATH against a line-echo server in this process.
 * The guide's C blocks compile the same way.  Also the compatibility
 * rules, with modules built out of tree from edited copies of the
 * installed headers: another ABI number is refused with both numbers
 * named, an older (smaller) reporter vtable or 0.1 option table loads and
 * works.
 *
 * The install happens once per process (the first test that needs it),
 * into a fresh temporary directory, with --no-rebuild so that it never
 * races the build.  A missing meson, cc or pkg-config skips, or fails
 * under CI=true.
 */
#include <stddef.h>
#include <string.h>
#include <glib/gstdio.h>
#include <throng/throng.h>

#include "test-utils.h"
#include "throng-config.h"

#define RUN_TIMEOUT_S 60

/*
 * How every plugin here is built: the project's warning flags (meson.build)
 * without its two -Wno- relaxations, as errors, so an example that warns
 * under a third party's -Wall -Wextra fails this test.
 */
#define PLUGIN_WARNINGS                                                                           \
    "-std=c11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes "                     \
    "-Wmissing-prototypes -Wimplicit-fallthrough"

/*
 * Under scripts/sanitize.sh (THRONG_SANITIZED=address,undefined) the
 * plugins are built with the same sanitizers as the throng that loads
 * them, as docs/plugins.md tells an author to do; "" otherwise.
 */
static const char *
sanitize_cflags (void)
{
    static char *flags;

    if (flags == NULL) {
        const char *sanitizers = g_getenv ("THRONG_SANITIZED");

        flags = sanitizers != NULL && sanitizers[0] != '\0'
                    ? g_strdup_printf ("-fsanitize=%s -fno-omit-frame-pointer -g", sanitizers)
                    : g_strdup ("");
    }
    return flags;
}

/* --- the environment of a child ------------------------------------------ */

/* The test's environment with @name set to @value (or removed when NULL). */
static char **
environ_with (char **envp, const char *name, const char *value)
{
    if (envp == NULL)
        envp = g_get_environ ();
    if (value != NULL)
        return g_environ_setenv (envp, name, value, TRUE);
    return g_environ_unsetenv (envp, name);
}

/* --- the install ---------------------------------------------------------- */

typedef struct {
    char *tmp;      /* everything of this test process */
    char *destdir;  /* tmp/destdir */
    char *bin;      /* the installed throng */
    char *plugindir;
    char *includedir; /* .../include/throng-1 */
    char *pkgconfig;  /* the directory of throng-1.pc */
    char *mandir;
    char *docdir;
    char *meson;
    char *pkg_config;
    char *cc;
    char *extra_cflags; /* -I when the .pc does not point into the DESTDIR */
} Sdk;

static Sdk sdk;

/* An installed directory of this build, under the DESTDIR. */
static char *
installed (const char *dir)
{
    if (g_path_is_absolute (dir))
        return g_build_filename (sdk.destdir, dir, NULL);
    return g_build_filename (sdk.destdir, THRONG_INSTALL_PREFIX, dir, NULL);
}

static char *
pkg_config (const char *args)
{
    g_autofree char *command = g_strdup_printf ("pkg-config %s", args);
    const char *argv[] = { "/bin/sh", "-c", command, NULL };
    g_auto (GStrv) envp = environ_with (NULL, "PKG_CONFIG_PATH", sdk.pkgconfig);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_process_run (
        argv, &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp }, RUN_TIMEOUT_S, &out,
        &err);

    g_assert_cmpint (status, ==, 0);
    return g_strstrip (g_steal_pointer (&out));
}

/* Installs this build into a fresh DESTDIR, and finds its parts there. */
static void
sdk_install (void)
{
    const char *build_dir = g_getenv ("THRONG_BUILD_DIR");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *includedir_var = NULL;
    g_autofree char *canonical = NULL;
    int status;

    g_assert_nonnull (build_dir);
    sdk.tmp = throng_test_tmpdir_new ();
    sdk.destdir = g_build_filename (sdk.tmp, "destdir", NULL);
    {
        /* --no-rebuild: meson test already built everything, and a rebuild here
         * would race the other tests that read the build tree. */
        const char *argv[] = { sdk.meson, "install", "-C", build_dir, "--no-rebuild", "--quiet",
                               "--destdir", sdk.destdir, NULL };
        g_auto (GStrv) envp = environ_with (NULL, "DESTDIR", NULL);

        status = throng_test_process_run (
            argv, &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp }, 240, &out, &err);
        if (status != 0)
            g_test_message ("meson install: %s%s", out, err);
        g_assert_cmpint (status, ==, 0);
    }

    {
        g_autofree char *bindir = installed (THRONG_INSTALL_BINDIR);
        g_autofree char *libdir = installed (THRONG_INSTALL_LIBDIR);
        g_autofree char *includedir = installed (THRONG_INSTALL_INCLUDEDIR);
        g_autofree char *datadir = installed (THRONG_INSTALL_DATADIR);

        sdk.bin = g_build_filename (bindir, "throng", NULL);
        sdk.plugindir = installed (THRONG_PLUGIN_INSTALL_SUBDIR);
        sdk.includedir = g_build_filename (includedir, "throng-1", NULL);
        sdk.pkgconfig = g_build_filename (libdir, "pkgconfig", NULL);
        sdk.mandir = installed (THRONG_INSTALL_MANDIR);
        sdk.docdir = g_build_filename (datadir, "doc", "throng", NULL);
    }

    /*
     * The .pc locates itself (pkgconfig.relocatable); if a build turned
     * that off, its includedir is the real prefix's, and the headers of
     * this DESTDIR come first by -I, as a packager would do.
     */
    includedir_var = pkg_config ("--variable=includedir throng-1");
    canonical = g_canonicalize_filename (includedir_var, NULL);
    if (!g_str_has_prefix (canonical, sdk.destdir))
        sdk.extra_cflags = g_strdup_printf ("-I'%s'", sdk.includedir);
    else
        sdk.extra_cflags = g_strdup ("");
}

/*
 * The tools a third party builds with (meson, pkg-config, a C compiler),
 * then the install, made on first use.  FALSE when a tool is missing: the
 * test is skipped, or failed under CI and in the sanitizer suite, where
 * the examples must run.
 */
static gboolean
sdk_require (void)
{
    if (sdk.meson == NULL)
        sdk.meson = throng_test_require_program ("meson");
    if (sdk.meson != NULL && sdk.pkg_config == NULL)
        sdk.pkg_config = throng_test_require_program ("pkg-config");
    if (sdk.pkg_config != NULL && sdk.cc == NULL) {
        sdk.cc = g_find_program_in_path ("cc");
        if (sdk.cc == NULL)
            sdk.cc = throng_test_require_program ("gcc");
    }
    if (sdk.cc == NULL) {
        if (g_getenv ("THRONG_SANITIZED") != NULL)
            g_test_fail_printf ("the sanitizer suite cannot build the examples without its tools");
        return FALSE;
    }
    if (sdk.tmp == NULL)
        sdk_install ();
    return sdk.bin != NULL;
}

static void
sdk_clear (void)
{
    g_clear_pointer (&sdk.tmp, throng_test_tmpdir_free);
    g_free (sdk.destdir);
    g_free (sdk.bin);
    g_free (sdk.plugindir);
    g_free (sdk.includedir);
    g_free (sdk.pkgconfig);
    g_free (sdk.mandir);
    g_free (sdk.docdir);
    g_free (sdk.meson);
    g_free (sdk.pkg_config);
    g_free (sdk.cc);
    g_free (sdk.extra_cflags);
}

/*
 * Builds libthrong-NAME.so in @dir from @source (in @dir) exactly as
 * docs/plugins.md says, with @include_first (may be NULL) searched before
 * the installed headers.  Returns the module's path.
 */
static char *
build_plugin (const char *dir, const char *name, const char *source, const char *include_first)
{
    g_autofree char *output = g_strdup_printf ("libthrong-%s.so", name);
    g_autofree char *first = include_first != NULL ? g_strdup_printf ("-I'%s'", include_first)
                                                   : g_strdup ("");
    g_autofree char *command = g_strdup_printf (
        "'%s' -shared -fPIC " PLUGIN_WARNINGS " %s -o '%s' '%s' %s %s $(pkg-config --cflags "
        "throng-1 gio-2.0) $(pkg-config --libs glib-2.0 gio-2.0)",
        sdk.cc, sanitize_cflags (), output, source, first, sdk.extra_cflags);
    const char *argv[] = { "/bin/sh", "-c", command, NULL };
    g_auto (GStrv) envp = environ_with (NULL, "PKG_CONFIG_PATH", sdk.pkgconfig);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_process_run (
        argv, &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp, .cwd = dir },
        RUN_TIMEOUT_S, &out, &err);

    if (status != 0)
        g_test_message ("%s\n%s%s", command, out, err);
    g_assert_cmpint (status, ==, 0);
    return g_build_filename (dir, output, NULL);
}

/* Copies docs/examples/NAME.c into @dir and builds it there. */
static char *
build_example (const char *dir, const char *name)
{
    g_autofree char *file = g_strconcat (name, ".c", NULL);
    g_autofree char *relative = g_build_filename ("docs", "examples", file, NULL);
    g_autofree char *from = throng_test_source_path (relative);
    g_autofree char *contents = NULL;
    g_autofree char *copy = NULL;
    gsize length;
    g_autoptr (GError) error = NULL;

    g_file_get_contents (from, &contents, &length, &error);
    g_assert_no_error (error);
    copy = throng_test_write_file (dir, file, contents);
    return build_plugin (dir, name, file, NULL);
}

/* The installed throng with @envp (NULL: the test's, without THRONG_PLUGIN_PATH). */
static int
run_installed (const char *const *args, const char *plugin_path, const char *cwd, char **out,
               char **err)
{
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_auto (GStrv) envp = environ_with (NULL, "THRONG_PLUGIN_PATH", plugin_path);

    g_ptr_array_add (argv, sdk.bin);
    for (guint i = 0; args[i] != NULL; i++)
        g_ptr_array_add (argv, (gpointer) args[i]);
    g_ptr_array_add (argv, NULL);
    return throng_test_process_run (
        (const char *const *) argv->pdata,
        &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp, .cwd = cwd }, RUN_TIMEOUT_S,
        out, err);
}

/* --- a line-echo server, on its own thread -------------------------------- */

typedef struct {
    ThrongTestServerThread *thread;
    GSocketService *service;
    guint16 port;
    gint lines;
    gint connections;
    gint sequence; /* the last N of a "seq-N" reply */
} EchoServer;

/* One connection, on a thread of the service's pool: blocking I/O is fine here. */
static gboolean
echo_run (GThreadedSocketService *service, GSocketConnection *connection, GObject *source,
          gpointer data)
{
    EchoServer *server = data;
    GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
    g_autoptr (GDataInputStream) in
        = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));

    g_atomic_int_inc (&server->connections);
    for (;;) {
        gsize length;
        g_autofree char *line = g_data_input_stream_read_line (in, &length, NULL, NULL);

        if (line == NULL)
            break;
        g_atomic_int_inc (&server->lines);
        /* "seq" is answered "seq-N", a reply that differs from request to request. */
        if (strcmp (line, "seq") == 0) {
            g_free (line);
            line = g_strdup_printf ("seq-%d", g_atomic_int_add (&server->sequence, 1) + 1);
            length = strlen (line);
        }
        if (!g_output_stream_write_all (out, line, length, NULL, NULL, NULL) ||
            !g_output_stream_write_all (out, "\n", 1, NULL, NULL, NULL))
            break;
    }
    return TRUE;
}

/* On the server thread: the service's accept source goes to its context. */
static void
echo_listen (gpointer data, gpointer unused)
{
    EchoServer *server = data;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;
    g_autoptr (GError) error = NULL;

    server->service = g_threaded_socket_service_new (16);
    g_signal_connect (server->service, "run", G_CALLBACK (echo_run), server);
    g_socket_listener_add_address (G_SOCKET_LISTENER (server->service), any,
                                   G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL, &bound,
                                   &error);
    g_assert_no_error (error);
    server->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_socket_service_start (server->service);
}

static void
echo_close (gpointer data, gpointer unused)
{
    EchoServer *server = data;

    g_socket_service_stop (server->service);
    g_socket_listener_close (G_SOCKET_LISTENER (server->service));
    g_clear_object (&server->service);
}

static EchoServer *
echo_server_start (void)
{
    EchoServer *server = g_new0 (EchoServer, 1);

    server->thread = throng_test_server_thread_start ("echo", echo_listen, echo_close, server);
    return server;
}

static void
echo_server_stop (EchoServer *server)
{
    throng_test_server_thread_stop (server->thread);
    g_free (server);
}

/* A port that accepts connections (the kernel's backlog) but never answers. */
static GSocket *
silent_listener (guint16 *port)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;
    GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                    G_SOCKET_PROTOCOL_TCP, &error);

    g_assert_no_error (error);
    g_socket_bind (socket, any, FALSE, &error);
    g_assert_no_error (error);
    g_socket_listen (socket, &error);
    g_assert_no_error (error);
    bound = g_socket_get_local_address (socket, &error);
    g_assert_no_error (error);
    *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    return socket;
}

/* --- reading the influx file ---------------------------------------------- */

/* The integer field @key of an InfluxDB line ("requests=16i"), or -1. */
static gint64
influx_field (const char *line, const char *key)
{
    const char *fields = NULL;
    g_autofree char *needle = g_strconcat (key, "=", NULL);

    /* Fields follow the first unescaped space. */
    for (const char *p = line; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
            continue;
        }
        if (*p == ' ') {
            fields = p + 1;
            break;
        }
    }
    g_assert_nonnull (fields);
    for (const char *p = fields; p != NULL && *p != '\0' && *p != ' ';) {
        if (g_str_has_prefix (p, needle))
            return g_ascii_strtoll (p + strlen (needle), NULL, 10);
        p = strchr (p, ',');
        if (p != NULL)
            p++;
    }
    return -1;
}

/* The lines of @text that contain @part. */
static GPtrArray *
lines_with (const char *text, const char *part)
{
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    GPtrArray *found = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; lines[i] != NULL; i++)
        if (strstr (lines[i], part) != NULL)
            g_ptr_array_add (found, g_strdup (lines[i]));
    return found;
}

/* --- tests ---------------------------------------------------------------- */

static void
test_install_layout (void)
{
    static const char *const headers[] = { "throng.h",  "version.h", "sample.h",  "histogram.h",
                                           "node.h",    "options.h", "user.h",    "watch.h", "template.h",
                                           "summary.h", "journey.h", "runfile.h", "protocol.h", "reporter.h", "plugin.h",
                                           NULL };
    g_autofree char *pc = NULL;
    g_autofree char *pc_path = NULL;
    g_autofree char *plugindir = NULL;
    g_autofree char *headers_dir = NULL;
    g_autofree char *man = NULL;
    g_autoptr (GDir) dir = NULL;
    const char *entry;
    guint n_headers = 0;

    if (!sdk_require ())
        return;

    g_assert_true (g_file_test (sdk.bin, G_FILE_TEST_IS_EXECUTABLE));
    for (const char *const *name = (const char *const[]) { "http", "console", "csv", "json", NULL };
         *name != NULL; name++) {
        g_autofree char *file = g_strdup_printf ("libthrong-%s.so", *name);
        g_autofree char *path = g_build_filename (sdk.plugindir, file, NULL);

        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }

    /* Only the SDK's headers: nothing private to the core leaks into the install. */
    headers_dir = g_build_filename (sdk.includedir, "throng", NULL);
    for (guint i = 0; headers[i] != NULL; i++) {
        g_autofree char *path = g_build_filename (headers_dir, headers[i], NULL);

        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
    dir = g_dir_open (headers_dir, 0, NULL);
    g_assert_nonnull (dir);
    while ((entry = g_dir_read_name (dir)) != NULL) {
        g_assert_true (g_strv_contains (headers, entry));
        n_headers++;
    }
    g_assert_cmpuint (n_headers, ==, g_strv_length ((char **) headers));

    pc_path = g_build_filename (sdk.pkgconfig, "throng-1.pc", NULL);
    g_assert_true (g_file_get_contents (pc_path, &pc, NULL, NULL));
    g_assert_nonnull (strstr (pc, "plugindir="));
    /* pkg-config's plugindir is where the bundled plugins went. */
    plugindir = pkg_config ("--variable=plugindir throng-1");
    if (sdk.extra_cflags[0] == '\0') {
        g_autofree char *canonical = g_canonicalize_filename (plugindir, NULL);

        g_assert_cmpstr (canonical, ==, sdk.plugindir);
    } else {
        g_assert_true (g_str_has_suffix (sdk.plugindir, plugindir));
    }
    /* The .pc's version is the release the installed headers say they are. */
    {
        g_autofree char *modversion = pkg_config ("--modversion throng-1");

        g_assert_cmpstr (modversion, ==, THRONG_VERSION_STRING);
    }

    man = g_build_filename (sdk.mandir, "man1", "throng.1", NULL);
    g_assert_true (g_file_test (man, G_FILE_TEST_IS_REGULAR));
    for (const char *const *doc = (const char *const[]) { "plugins.md", "examples/tcp.c",
                                                          "examples/influx.c",
                                                          "examples/wait.c", "examples/baseline.c", NULL };
         *doc != NULL; doc++) {
        g_autofree char *path = g_build_filename (sdk.docdir, *doc, NULL);

        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
}

/* The installed throng finds its own plugins relative to itself, with no environment at all. */
static void
test_installed_finds_plugins (void)
{
    const ThrongTestPluginInfo *expected = throng_test_builtin_plugins;
    const char *argv[] = { sdk.bin, "plugins", NULL };
    /* Nothing of throng's: only PATH, and the sanitizers' settings when a
     * sanitized build runs this (scripts/sanitize.sh). */
    static const char *const passed_on[] = { "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
                                             "G_SLICE", NULL };
    g_auto (GStrv) envp = g_environ_setenv (NULL, "PATH", "/usr/local/bin:/usr/bin:/bin", TRUE);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status;

    if (!sdk_require ())
        return;
    for (guint i = 0; passed_on[i] != NULL; i++)
        if (g_getenv (passed_on[i]) != NULL)
            envp = g_environ_setenv (envp, passed_on[i], g_getenv (passed_on[i]), TRUE);
    argv[0] = sdk.bin;
    status = throng_test_process_run (
        argv, &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp, .cwd = sdk.tmp },
        RUN_TIMEOUT_S, &out, &err);
    g_assert_cmpstr (err, ==, "");
    g_assert_cmpint (status, ==, 0);
    for (gsize i = 0; expected[i].name != NULL; i++) {
        g_autofree char *file = g_strdup_printf ("libthrong-%s.so", expected[i].name);
        g_autofree char *path = g_build_filename (sdk.plugindir, file, NULL);
        g_autoptr (GRegex) regex = NULL;
        g_autofree char *pattern = g_strdup_printf ("(?m)^%s +%s +\\S+ +%s$", expected[i].name,
                                                    expected[i].kind, path);

        regex = g_regex_new (pattern, 0, 0, NULL);
        g_assert_nonnull (regex);
        if (!g_regex_match (regex, out, 0, NULL))
            g_error ("`throng plugins` does not list %s %s at %s:\n%s", expected[i].kind,
                     expected[i].name, path, out);
    }
    g_assert_null (strstr (out, "refused"));
}

/*
 * Both examples, built out of tree, in one plan: the tcp protocol against
 * the echo server (with and without keep-alive), a refused port and a
 * port that never answers; the influx reporter and the installed json
 * reporter side by side.
 */
static void
test_examples_run (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *tcp = NULL;
    g_autofree char *influx = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *influx_text = NULL;
    g_autofree char *influx_path = NULL;
    g_autofree char *json_path = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (GPtrArray) summary_lines = NULL;
    g_autoptr (GPtrArray) step_lines = NULL;
    g_autoptr (GPtrArray) interval_lines = NULL;
    g_autoptr (GSocket) silent = NULL;
    const char *args[] = { "run", "plan.yaml", "--quiet", NULL };
    guint16 silent_port, refused_port;
    EchoServer *server;
    gint64 interval_requests = 0;
    g_autofree char *label = NULL;
    gint lines, connections;
    int status;

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    tcp = build_example (dir, "tcp");
    influx = build_example (dir, "influx");

    server = echo_server_start ();
    silent = silent_listener (&silent_port);
    refused_port = throng_test_free_port ();
    plan = g_strdup_printf (
        "name: sdk examples\n"
        "defaults:\n"
        "  tcp: { host: 127.0.0.1, port: %u, timeout: 5s }\n"
        "scenarios:\n"
        "  - name: kept\n"
        "    users: 2\n"
        "    iterations: 6\n"
        "    think_time: 200ms\n"
        "    tcp: { keep_alive: true }\n"
        "    steps:\n"
        "      - tcp: { send: hello, expect: hello }\n"
        "  - name: fresh\n"
        "    users: 1\n"
        "    iterations: 3\n"
        "    steps:\n"
        "      - tcp: { send: 'hi ${user.id} ${iteration}' }\n"
        "  - name: mismatch\n"
        "    users: 1\n"
        "    steps:\n"
        "      - tcp: { send: left, expect: right }\n"
        "  - name: refused\n"
        "    users: 1\n"
        "    iterations: 4\n"
        "    steps:\n"
        "      - tcp: { port: %u }\n"
        "  - name: silent\n"
        "    users: 1\n"
        "    steps:\n"
        "      - tcp: { port: %u, timeout: 300ms }\n"
        "reporters:\n"
        "  - influx: { path: results.lp, precision: ms, tags: { env: ci }, steps: true }\n"
        "  - json: { path: summary.json }\n",
        server->port, refused_port, silent_port);
    g_free (throng_test_write_plan (dir, "plan.yaml", plan));

    status = run_installed (args, dir, dir, &out, &err);
    /* Every reply was counted before it was sent, so before throng exited. */
    lines = g_atomic_int_get (&server->lines);
    connections = g_atomic_int_get (&server->connections);
    label = g_strdup_printf ("tcp 127.0.0.1:%u", server->port);
    echo_server_stop (server);
    if (status != 0)
        g_test_message ("stdout: %s\nstderr: %s", out, err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);

    /* The server saw every line: 2 × 6 kept, 3 fresh, 1 mismatch; one connection per
     * kept user, one per fresh or mismatching step. */
    g_assert_cmpint (lines, ==, 16);
    g_assert_cmpint (connections, ==, 2 + 3 + 1);

    json_path = g_build_filename (dir, "summary.json", NULL);
    summary = throng_test_json_load (json_path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 16 + 4 + 1);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.requests"), ==, 12);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.connections"), ==, 2);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.bytes_sent"), ==, 12 * 6);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.stats.bytes_received"), ==,
                     12 * 6);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.1.stats.connections"), ==, 3);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.1.stats.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.2.stats.errors_by_class.status"),
                     ==, 1);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.3.stats.requests"), ==, 4);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.3.stats.errors_by_class.connect"),
                     ==, 4);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.3.stats.connections"), ==, 0);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.4.stats.errors_by_class.timeout"),
                     ==, 1);
    /* The deadline held: no sooner than 300ms, and not the 5s default. */
    g_assert_cmpfloat (throng_test_json_double (summary, "scenarios.4.stats.latency_us.max"), >=,
                       290000);
    g_assert_cmpfloat (throng_test_json_double (summary, "scenarios.4.stats.latency_us.max"), <,
                       2000000);
    g_assert_cmpstr (throng_test_json_string (summary, "scenarios.0.steps.0.label"), ==, label);

    /* The influx file: interval lines, one summary line, one line per step. */
    influx_path = g_build_filename (dir, "results.lp", NULL);
    g_assert_true (g_file_get_contents (influx_path, &influx_text, NULL, NULL));
    g_assert_true (g_str_has_suffix (influx_text, "\n"));
    summary_lines = lines_with (influx_text, "phase=summary ");
    g_assert_cmpuint (summary_lines->len, ==, 1);
    {
        const char *line = g_ptr_array_index (summary_lines, 0);

        g_assert_true (g_str_has_prefix (line, "throng,plan=sdk\\ examples,env=ci,phase=summary "));
        g_assert_cmpint (influx_field (line, "requests"), ==, 21);
        g_assert_cmpint (influx_field (line, "errors"), ==, 6);
        g_assert_cmpint (influx_field (line, "errors_connect"), ==, 4);
        g_assert_cmpint (influx_field (line, "errors_timeout"), ==, 1);
        g_assert_cmpint (influx_field (line, "errors_status"), ==, 1);
        g_assert_cmpint (influx_field (line, "connections"), ==, 2 + 3 + 1 + 1);
        g_assert_nonnull (strstr (line, ",interrupted=false "));
    }
    step_lines = lines_with (influx_text, "throng_step,");
    g_assert_cmpuint (step_lines->len, ==, 5);
    g_assert_nonnull (strstr (g_ptr_array_index (step_lines, 0), ",scenario=kept,step=tcp\\ 127.0.0.1:"));
    g_assert_cmpint (influx_field (g_ptr_array_index (step_lines, 0), "requests"), ==, 12);
    g_assert_cmpint (influx_field (g_ptr_array_index (step_lines, 3), "errors_connect"), ==, 4);
    /* The kept users think 200ms between steps: over a second, so snapshots came. */
    interval_lines = lines_with (influx_text, ",phase=interval ");
    g_assert_cmpuint (interval_lines->len, >=, 1);
    for (guint i = 0; i < interval_lines->len; i++) {
        gint64 n = influx_field (g_ptr_array_index (interval_lines, i), "requests");

        g_assert_cmpint (n, >=, 0);
        interval_requests += n;
    }
    g_assert_cmpint (interval_requests, <=, 21);
    /* Every line is measurement,tags fields timestamp, in milliseconds. */
    {
        g_auto (GStrv) all = g_strsplit (influx_text, "\n", -1);
        gint64 now_ms = g_get_real_time () / 1000;

        for (guint i = 0; all[i] != NULL && all[i][0] != '\0'; i++) {
            const char *stamp = strrchr (all[i], ' ');

            g_assert_nonnull (stamp);
            g_assert_cmpint (g_ascii_strtoll (stamp + 1, NULL, 10), >, now_ms - 600 * 1000);
            g_assert_cmpint (g_ascii_strtoll (stamp + 1, NULL, 10), <=, now_ms);
        }
    }
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* The @column-th field of each row of a CSV file without quoted fields, header first. */
static GPtrArray *
csv_column (const char *text, guint column)
{
    g_auto (GStrv) rows = g_strsplit (text, "\n", -1);
    GPtrArray *values = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; rows[i] != NULL && rows[i][0] != '\0'; i++) {
        g_auto (GStrv) fields = g_strsplit (rows[i], ",", -1);

        /* No field here holds a comma or a quote: every row has all 17 columns. */
        g_assert_cmpuint (g_strv_length (fields), ==, 17);
        g_ptr_array_add (values, g_strdup (fields[column]));
    }
    return values;
}

/*
 * The tcp example's failure messages, per request, reach the csv
 * reporter intact: 200 refused connections (the run that showed the
 * use-after-free under AddressSanitizer when the message pointed into
 * the user's memory) and 20 replies that differ from request to request,
 * each named in its own row's failureMessage.
 */
static void
test_examples_messages (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *csv_path = NULL;
    g_autoptr (GPtrArray) failures = NULL;
    g_autoptr (GPtrArray) responses = NULL;
    g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    const char *args[] = { "run", "plan.yaml", "--quiet", NULL };
    EchoServer *server;
    guint refused = 0;
    int status;

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    g_free (build_example (dir, "tcp"));
    server = echo_server_start ();
    plan = g_strdup_printf ("scenarios:\n"
                            "  - name: refused\n"
                            "    users: 1\n"
                            "    iterations: 200\n"
                            "    steps:\n"
                            "      - tcp: { port: %u, timeout: 2s }\n"
                            "  - name: seq\n"
                            "    users: 1\n"
                            "    iterations: 20\n"
                            "    tcp: { keep_alive: true }\n"
                            "    steps:\n"
                            "      - tcp: { port: %u, send: seq, expect: nothing, timeout: 5s }\n"
                            "reporters:\n"
                            "  - csv: { path: results.csv }\n",
                            throng_test_free_port (), server->port);
    g_free (throng_test_write_plan (dir, "plan.yaml", plan));
    status = run_installed (args, dir, dir, &out, &err);
    echo_server_stop (server);
    if (status != 0)
        g_test_message ("stdout: %s\nstderr: %s", out, err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);

    csv_path = g_build_filename (dir, "results.csv", NULL);
    g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
    responses = csv_column (csv, 4);
    failures = csv_column (csv, 8);
    g_assert_cmpstr (g_ptr_array_index (failures, 0), ==, "failureMessage");
    g_assert_cmpuint (failures->len, ==, 1 + 200 + 20);
    for (guint i = 1; i < failures->len; i++) {
        const char *failure = g_ptr_array_index (failures, i);
        const char *response = g_ptr_array_index (responses, i);

        if (g_str_has_prefix (failure, "connect: ")) {
            /* GIO's text, copied per request: "Could not connect to …: Connection refused" */
            g_assert_nonnull (strstr (failure, "refused"));
            /* responseMessage as JMeter words a request that got no response */
            g_assert_true (g_str_has_prefix (response, "Non HTTP response message: "));
            g_assert_cmpstr (failure + strlen ("connect: "), ==,
                             response + strlen ("Non HTTP response message: "));
            refused++;
            continue;
        }
        g_assert_true (g_str_has_prefix (failure, "status: tcp: expected 'nothing' but the reply "
                                                  "is 'seq-"));
        g_assert_cmpstr (failure + strlen ("status: "), ==, response);
        g_assert_true (g_hash_table_add (seen, g_strdup (failure)));
    }
    g_assert_cmpuint (refused, ==, 200);
    /* Twenty different replies, each in its own row: seq-1 … seq-20. */
    g_assert_cmpuint (g_hash_table_size (seen), ==, 20);
    for (guint n = 1; n <= 20; n++) {
        g_autofree char *expected = g_strdup_printf (
            "status: tcp: expected 'nothing' but the reply is 'seq-%u'", n);

        g_assert_true (g_hash_table_contains (seen, expected));
    }
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* The smallest protocol installed with the docs builds and runs. */
static void
test_examples_wait (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *json_path = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    const char *args[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    g_free (build_example (dir, "wait"));
    g_free (throng_test_write_plan (dir, "plan.yaml",
                                    "defaults: { wait: { delay: 2ms } }\n"
                                    "scenarios:\n"
                                    "  - users: 2\n"
                                    "    iterations: 5\n"
                                    "    steps:\n"
                                    "      - wait: {}\n"
                                    "      - wait: { delay: 0 }\n"
                                    "reporters:\n"
                                    "  - json: { path: summary.json }\n"));
    g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    json_path = g_build_filename (dir, "summary.json", NULL);
    summary = throng_test_json_load (json_path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 20);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_cmpstr (throng_test_json_string (summary, "scenarios.0.steps.0.label"), ==, "wait 2ms");
    g_assert_cmpfloat (throng_test_json_double (summary, "scenarios.0.steps.0.stats.latency_us.min"),
                       >=, 2000);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* One step of the wait example: its delay, the iterations and a reporter. */
#define BASELINE_PLAN                                                                             \
    "defaults: { wait: { delay: %s } }\n"                                                         \
    "scenarios:\n"                                                                                \
    "  - name: browse\n"                                                                          \
    "    users: 2\n"                                                                              \
    "    iterations: %d\n"                                                                        \
    "    steps:\n"                                                                                \
    "      - wait: {}\n"                                                                          \
    "reporters:\n"                                                                                \
    "  - %s\n"

/*
 * A reporter built out of tree reads an earlier run back with the SDK's
 * run-file reader: the first run's jsonl, compared by the second run's
 * baseline reporter with what it measured, histograms included.  It
 * writes with the SDK's run-file writer too: the second run's summary,
 * saved by baseline, is byte for byte the json reporter's document of the
 * same run, and the third run reads it back as its baseline.
 */
static void
test_examples_baseline (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *compare = NULL;
    g_autofree char *compare_path = NULL;
    const char *args[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    g_free (build_example (dir, "wait"));
    g_free (build_example (dir, "baseline"));

    g_autofree char *first = g_strdup_printf (BASELINE_PLAN, "2ms", 5,
                                              "json: { path: first.jsonl, mode: jsonl }");
    g_free (throng_test_write_plan (dir, "plan.yaml", first));
    g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    g_autofree char *second = g_strdup_printf (
        BASELINE_PLAN, "20ms", 3,
        "baseline: { path: first.jsonl, out: compare.txt, save: second.json }\n"
        "  - json: { path: second-json.json }");
    g_free (throng_test_write_plan (dir, "plan.yaml", second));
    g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    compare_path = g_build_filename (dir, "compare.txt", NULL);
    g_assert_true (g_file_get_contents (compare_path, &compare, NULL, NULL));
    g_test_message ("%s", compare);
    g_assert_true (g_str_has_prefix (compare, "total requests 6 (baseline 10) errors 0 (baseline 0) p95 "));
    g_assert_nonnull (strstr (compare, "\nscenario browse requests 6 (baseline 10) "));
    /* 20 ms steps against 2 ms ones: the baseline's percentile came back from its histogram. */
    gdouble now_ms = 0, then_ms = 0;
    const char *p95 = strstr (compare, "p95 ");
    g_assert_cmpint (sscanf (p95, "p95 %lf ms (baseline %lf ms", &now_ms, &then_ms), ==, 2);
    g_assert_cmpfloat (now_ms, >=, 19.0);
    g_assert_cmpfloat (then_ms, >=, 1.9);
    g_assert_cmpfloat (then_ms, <, 19.0);

    /* The plugin's writer wrote what the json reporter wrote, byte for byte. */
    g_autofree char *saved = NULL;
    g_autofree char *written = NULL;
    g_autofree char *saved_path = g_build_filename (dir, "second.json", NULL);
    g_autofree char *written_path = g_build_filename (dir, "second-json.json", NULL);
    g_assert_true (g_file_get_contents (saved_path, &saved, NULL, NULL));
    g_assert_true (g_file_get_contents (written_path, &written, NULL, NULL));
    g_assert_true (g_str_has_prefix (saved, "{\n  \"version\": "));
    g_assert_cmpstr (saved, ==, written);

    /* What the plugin saved reads back as the next run's baseline. */
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&compare, g_free);
    g_autofree char *next = g_strdup_printf (BASELINE_PLAN, "2ms", 1,
                                             "baseline: { path: second.json, out: compare.txt }");
    g_free (throng_test_write_plan (dir, "plan.yaml", next));
    g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_assert_true (g_file_get_contents (compare_path, &compare, NULL, NULL));
    g_test_message ("%s", compare);
    g_assert_true (g_str_has_prefix (compare, "total requests 2 (baseline 6) errors 0 (baseline 0) p95 "));
    g_assert_true (sscanf (strstr (compare, "p95 "), "p95 %lf ms (baseline %lf ms", &now_ms, &then_ms) == 2);
    g_assert_cmpfloat (then_ms, >=, 19.0);

    /* A baseline that cannot be read stops the run before it starts, with the reader's words. */
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_autofree char *third = g_strdup_printf (BASELINE_PLAN, "2ms", 1,
                                              "baseline: { path: missing.jsonl, out: c.txt }");
    g_free (throng_test_write_plan (dir, "plan.yaml", third));
    g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 3);
    g_assert_nonnull (strstr (err, "reporter baseline: "));
    g_assert_nonnull (strstr (err, "missing.jsonl"));
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* The plugins validate their options like the core: one located line, exit 2. */
static void
test_examples_located_errors (void)
{
    static const struct {
        const char *plan;
        const char *message;
    } cases[] = {
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { prot: 7 }\n",
          "plan.yaml:4:16: unknown key 'prot' in tcp options; did you mean 'port'?" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { port: 70000 }\n",
          "plan.yaml:4:22: port must be between 1 and 65535, got 70000" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: {}\n",
          "plan.yaml:4:14: the tcp step needs a 'port' (in the step, the scenario's tcp options "
          "or defaults.tcp)" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { port: 9, keep_alive: true }\n",
          "plan.yaml:4:25: 'keep_alive' is a scenario setting; set it in defaults.tcp or in the "
          "scenario's tcp map" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { port: 9 }\n"
          "reporters:\n  - influx: { path: x.lp, precision: h }\n",
          "plan.yaml:6:38: precision must be one of ns, us, ms, s, got 'h'" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { port: 9 }\n"
          "reporters:\n  - influx: { path: x.lp, tags: { phase: a } }\n",
          "plan.yaml:6:35: tag 'phase' is written by the influx reporter itself" },
        { "scenarios:\n  - users: 1\n    steps:\n      - tcp: { port: 9 }\n"
          "reporters:\n  - influx: { steps: true }\n",
          "plan.yaml:6:13: the influx reporter needs a 'path'" },
    };
    g_autofree char *dir = NULL;

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    g_free (build_example (dir, "tcp"));
    g_free (build_example (dir, "influx"));
    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        const char *args[] = { "validate", "plan.yaml", NULL };
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        g_autofree char *expected = g_strconcat (cases[i].message, "\n", NULL);

        g_free (throng_test_write_plan (dir, "plan.yaml", cases[i].plan));
        g_assert_cmpint (run_installed (args, dir, dir, &out, &err), ==, 2);
        g_assert_cmpstr (err, ==, expected);
    }
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* The fenced block of @markdown in @language whose text contains @part. */
static char *
markdown_block (const char *markdown, const char *language, const char *part)
{
    g_autofree char *fence = g_strdup_printf ("```%s\n", language);

    for (const char *p = strstr (markdown, fence); p != NULL; p = strstr (p, fence)) {
        const char *start = p + strlen (fence);
        const char *end = strstr (start, "```");
        g_autofree char *block = NULL;

        g_assert_nonnull (end);
        block = g_strndup (start, (gsize) (end - start));
        if (strstr (block, part) != NULL)
            return g_steal_pointer (&block);
        p = end + 3;
    }
    g_error ("no ```%s block with '%s'", language, part);
    return NULL;
}

/*
 * docs/plugins.md's first reporter, as a reader would take it: its C
 * block and its plan, built and run with the installed throng.
 */
static void
test_guide_first_reporter (void)
{
    g_autofree char *guide_path = throng_test_source_path ("docs/plugins.md");
    g_autofree char *guide = NULL;
    g_autofree char *source = NULL;
    g_autofree char *yaml = NULL;
    g_autofree char *dir = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *steps = NULL;
    g_autofree char *steps_path = NULL;
    g_auto (GStrv) fields = NULL;
    const char *run[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    g_assert_true (g_file_get_contents (guide_path, &guide, NULL, NULL));
    source = markdown_block (guide, "c", "THRONG_PLUGIN_DEFINE (lines_descriptor)");
    yaml = markdown_block (guide, "yaml", "lines: { path: steps.txt }");
    dir = throng_test_tmpdir_new ();
    g_free (throng_test_write_file (dir, "lines.c", source));
    g_free (build_plugin (dir, "lines", "lines.c", NULL));
    g_free (throng_test_write_plan (dir, "plan.yaml", yaml));

    g_assert_cmpint (run_installed (run, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    steps_path = g_build_filename (dir, "steps.txt", NULL);
    g_assert_true (g_file_get_contents (steps_path, &steps, NULL, NULL));
    /* "GET / 100 0 P99": 2 users × 50 iterations of one step, no error. */
    g_assert_true (g_str_has_prefix (steps, "GET / 100 0 "));
    fields = g_strsplit (g_strstrip (steps), " ", -1);
    g_assert_cmpuint (g_strv_length (fields), ==, 5);
    g_assert_cmpint (g_ascii_strtoll (fields[4], NULL, 10), >, 0);

    /* `--out lines=PATH` hands the same reporter { path: PATH }. */
    {
        const char *with_out[] = { "run", "plan.yaml", "--quiet", "--out", "lines=out.txt", NULL };
        g_autofree char *out_path = g_build_filename (dir, "out.txt", NULL);
        g_autofree char *written = NULL;

        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        g_assert_cmpint (run_installed (with_out, dir, dir, &out, &err), ==, 0);
        throng_test_assert_no_glib_noise (err);
        g_assert_true (g_file_get_contents (out_path, &written, NULL, NULL));
        g_assert_true (g_str_has_prefix (written, "GET / 100 0 "));
    }
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/* The fenced blocks of @markdown in @language that begin with @start. */
static GPtrArray *
markdown_blocks (const char *markdown, const char *language, const char *start)
{
    g_autofree char *fence = g_strdup_printf ("```%s\n", language);
    GPtrArray *blocks = g_ptr_array_new_with_free_func (g_free);

    for (const char *p = strstr (markdown, fence); p != NULL; p = strstr (p, fence)) {
        const char *begin = p + strlen (fence);
        const char *end = strstr (begin, "```");
        g_autofree char *block = NULL;

        g_assert_nonnull (end);
        block = g_strndup (begin, (gsize) (end - begin));
        if (g_str_has_prefix (block, start))
            g_ptr_array_add (blocks, g_steal_pointer (&block));
        p = end + 3;
    }
    return blocks;
}

/*
 * Every C block of docs/plugins.md that is a file of its own (it begins
 * with a comment line and includes the SDK) compiles against the
 * installed SDK with the plugins' warning flags.  Snippets define static
 * functions and tables that nothing in the snippet uses, hence the two
 * -Wno-unused.  The sections the guide promises are among them.
 */
static void
test_guide_snippets (void)
{
    static const char *const promised[] = {
        "THRONG_PLUGIN_DEFINE (lines_descriptor)", /* the first reporter, --out */
        "throng_sample_set_message (sample, error->message)", /* the sample's message */
        ".clear = clear_methods, .copy = copy_methods", /* custom options */
        "throng_node_get_double (node, &ratio, error)", /* decimal numbers */
        "g_resolver_lookup_by_name_async (resolver, host", /* name lookup */
        "THRONG_STRUCT_HAS (summary, ThrongSummary, never_started)", /* what 0.2 changed */
        "ping_user_new_checked (", /* a user_new that can fail */
    };
    g_autofree char *guide_path = throng_test_source_path ("docs/plugins.md");
    g_autofree char *guide = NULL;
    g_autofree char *dir = NULL;
    g_autoptr (GPtrArray) blocks = NULL;

    if (!sdk_require ())
        return;
    g_assert_true (g_file_get_contents (guide_path, &guide, NULL, NULL));
    blocks = markdown_blocks (guide, "c", "/*");
    for (gsize i = 0; i < G_N_ELEMENTS (promised); i++) {
        gboolean found = FALSE;

        for (guint b = 0; b < blocks->len && !found; b++)
            found = strstr (g_ptr_array_index (blocks, b), promised[i]) != NULL;
        if (!found)
            g_error ("docs/plugins.md has no compiled C block with '%s'", promised[i]);
    }

    dir = throng_test_tmpdir_new ();
    for (guint b = 0; b < blocks->len; b++) {
        g_autofree char *name = g_strdup_printf ("snippet%u.c", b);
        g_autofree char *command = g_strdup_printf (
            "'%s' -c -fPIC " PLUGIN_WARNINGS " -Wno-unused-function -Wno-unused-const-variable "
            "-o /dev/null '%s' %s $(pkg-config --cflags throng-1 gio-2.0)",
            sdk.cc, name, sdk.extra_cflags);
        const char *argv[] = { "/bin/sh", "-c", command, NULL };
        g_auto (GStrv) envp = environ_with (NULL, "PKG_CONFIG_PATH", sdk.pkgconfig);
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;
        int status;

        g_free (throng_test_write_file (dir, name, g_ptr_array_index (blocks, b)));
        status = throng_test_process_run (
            argv, &(ThrongTestSpawnOptions) { .envp = (const char *const *) envp, .cwd = dir },
            RUN_TIMEOUT_S, &out, &err);
        if (status != 0)
            g_test_message ("docs/plugins.md block:\n%s\n%s%s",
                            (char *) g_ptr_array_index (blocks, b), out, err);
        g_assert_cmpint (status, ==, 0);
    }
    /* The sanitizer section gives the flags the sanitizer suite builds the examples with. */
    g_assert_nonnull (strstr (guide, "-fsanitize=address,undefined -fno-omit-frame-pointer -g"));
    g_assert_nonnull (strstr (guide, "-Db_sanitize=address,undefined"));
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/*
 * docs/plugins.md's meson recipe, as a reader would take it, builds
 * tcp.c with -Wall -Wextra -Werror into a module that installs into
 * pkg-config's plugindir and runs against the echo server.
 */
static void
test_guide_meson (void)
{
    g_autofree char *guide_path = throng_test_source_path ("docs/plugins.md");
    g_autofree char *guide = NULL;
    g_autofree char *recipe = NULL;
    g_autofree char *dir = NULL;
    g_autofree char *build = NULL;
    g_autofree char *module = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *json_path = NULL;
    g_autofree char *installed_to = NULL;
    g_autoptr (JsonNode) installed_map = NULL;
    g_autoptr (JsonNode) summary = NULL;
    g_autoptr (GError) error = NULL;
    g_auto (GStrv) envp = NULL;
    const char *sanitizers = g_getenv ("THRONG_SANITIZED");
    const char *args[] = { "run", "plan.yaml", "--quiet", NULL };
    EchoServer *server;
    int status;

    if (!sdk_require ())
        return;
    g_assert_true (g_file_get_contents (guide_path, &guide, NULL, NULL));
    recipe = markdown_block (guide, "meson", "shared_module(");
    dir = throng_test_tmpdir_new ();
    g_free (throng_test_write_file (dir, "meson.build", recipe));
    g_free (build_example (dir, "tcp")); /* copies tcp.c beside the recipe */
    build = g_build_filename (dir, "build", NULL);
    envp = environ_with (NULL, "PKG_CONFIG_PATH", sdk.pkgconfig);
    {
        g_autofree char *sanitize = sanitizers != NULL && sanitizers[0] != '\0'
                                        ? g_strdup_printf ("-Db_sanitize=%s", sanitizers)
                                        : g_strdup ("-Db_sanitize=none");
        const char *setup[] = { sdk.meson, "setup", build, sanitize, NULL };
        const char *compile[] = { sdk.meson, "compile", "-C", build, NULL };
        const char *introspect[] = { sdk.meson, "introspect", "--installed", build, NULL };
        const ThrongTestSpawnOptions spawn = { .envp = (const char *const *) envp, .cwd = dir };

        status = throng_test_process_run (setup, &spawn, 120, &out, &err);
        if (status != 0)
            g_test_message ("meson setup: %s%s", out, err);
        g_assert_cmpint (status, ==, 0);
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        status = throng_test_process_run (compile, &spawn, 120, &out, &err);
        if (status != 0)
            g_test_message ("meson compile: %s%s", out, err);
        g_assert_cmpint (status, ==, 0);
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        status = throng_test_process_run (introspect, &spawn, 60, &out, &err);
        g_assert_cmpint (status, ==, 0);
    }
    /* The warning flags the recipe promises, as errors. */
    {
        g_autofree char *ninja_path = g_build_filename (build, "build.ninja", NULL);
        g_autofree char *ninja = NULL;

        g_assert_true (g_file_get_contents (ninja_path, &ninja, NULL, NULL));
        g_assert_nonnull (strstr (ninja, "-Wall"));
        g_assert_nonnull (strstr (ninja, "-Wextra"));
        g_assert_nonnull (strstr (ninja, "-Werror"));
    }
    /* `meson install` would put it in pkg-config's plugindir. */
    module = g_build_filename (build, "libthrong-tcp.so", NULL);
    g_assert_true (g_file_test (module, G_FILE_TEST_IS_REGULAR));
    installed_map = json_from_string (out, &error);
    g_assert_no_error (error);
    g_assert_true (json_object_has_member (json_node_get_object (installed_map), module));
    installed_to = g_canonicalize_filename (
        json_object_get_string_member (json_node_get_object (installed_map), module), NULL);
    {
        g_autofree char *plugindir = pkg_config ("--variable=plugindir throng-1");
        g_autofree char *file = g_build_filename (plugindir, "libthrong-tcp.so", NULL);
        g_autofree char *expected = g_canonicalize_filename (file, NULL);

        g_assert_cmpstr (installed_to, ==, expected);
    }

    server = echo_server_start ();
    plan = g_strdup_printf ("scenarios:\n"
                            "  - users: 2\n"
                            "    iterations: 3\n"
                            "    steps:\n"
                            "      - tcp: { port: %u, send: hello, expect: hello, timeout: 5s }\n"
                            "reporters:\n"
                            "  - json: { path: summary.json }\n",
                            server->port);
    g_free (throng_test_write_plan (dir, "plan.yaml", plan));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    status = run_installed (args, build, dir, &out, &err);
    echo_server_stop (server);
    if (status != 0)
        g_test_message ("stdout: %s\nstderr: %s", out, err);
    g_assert_cmpint (status, ==, 0);
    json_path = g_build_filename (dir, "summary.json", NULL);
    summary = throng_test_json_load (json_path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/*
 * Copies the installed headers to @dir/include/throng-1 and replaces, in
 * @header, @from by @to (which must be there).  Returns the include
 * directory to search first.
 */
static char *edited_sdk_pairs (const char *dir, const char *header, const char *const *pairs);

static char *
edited_sdk (const char *dir, const char *header, const char *from, const char *to)
{
    const char *pairs[] = { from, to, NULL };

    return edited_sdk_pairs (dir, header, pairs);
}

/* As edited_sdk(), with @pairs: from, to, from, to … NULL. */
static char *
edited_sdk_pairs (const char *dir, const char *header, const char *const *pairs)
{
    g_autofree char *include = g_build_filename (dir, "include", "throng-1", NULL);
    g_autofree char *target = g_build_filename (include, "throng", NULL);
    g_autofree char *source = g_build_filename (sdk.includedir, "throng", NULL);
    g_autoptr (GDir) headers = g_dir_open (source, 0, NULL);
    const char *entry;

    g_assert_nonnull (headers);
    g_assert_cmpint (g_mkdir_with_parents (target, 0755), ==, 0);
    while ((entry = g_dir_read_name (headers)) != NULL) {
        g_autofree char *from_path = g_build_filename (source, entry, NULL);
        g_autofree char *contents = NULL;

        g_assert_true (g_file_get_contents (from_path, &contents, NULL, NULL));
        for (guint i = 0; strcmp (entry, header) == 0 && pairs[i] != NULL; i += 2) {
            g_auto (GStrv) parts = g_strsplit (contents, pairs[i], -1);

            g_assert_cmpuint (g_strv_length (parts), ==, 2);
            g_free (contents);
            contents = g_strjoinv (pairs[i + 1], parts);
        }
        g_free (throng_test_write_file (target, entry, contents));
    }
    return g_steal_pointer (&include);
}

/* A reporter that records what it saw into the file named by its `path` option. */
static const char reporter_source[] =
    "#include <stdio.h>\n"
    "#include <throng/throng.h>\n"
    "\n"
    "typedef struct { char *path; char *tag; guint64 samples; } Probe;\n"
    "static const ThrongOption probe_options[] = {\n"
    "    { .name = \"path\", .type = THRONG_OPTION_STRING, .offset = offsetof (Probe, path) },\n"
    "    { .name = \"tag\", .type = THRONG_OPTION_STRING, .offset = offsetof (Probe, tag) },\n"
    "    { .name = NULL },\n"
    "};\n"
    "static gpointer\n"
    "probe_configure (const ThrongNode *options, GError **error)\n"
    "{\n"
    "    Probe *self = g_new0 (Probe, 1);\n"
    "    if (!throng_options_apply (options, probe_options, self, FALSE, \"probe options\", error)) {\n"
    "        g_free (self);\n"
    "        return NULL;\n"
    "    }\n"
    "    return self;\n"
    "}\n"
    "static void\n"
    "probe_samples (gpointer data, G_GNUC_UNUSED const ThrongSample *samples, gsize n)\n"
    "{\n"
    "    ((Probe *) data)->samples += n;\n"
    "}\n"
    "static gboolean\n"
    "probe_close (gpointer data, const ThrongSummary *summary, G_GNUC_UNUSED GError **error)\n"
    "{\n"
    "    Probe *self = data;\n"
    "    FILE *f = fopen (self->path, \"w\");\n"
    "    if (f == NULL)\n"
    "        return TRUE;\n"
    "    if (self->tag != NULL)\n"
    "        fprintf (f, \"tag=%s \", self->tag);\n"
    "    fprintf (f, \"vtable=%u samples=%u requests=%u\\n\", (unsigned) sizeof (ThrongReporter),\n"
    "             (unsigned) self->samples, (unsigned) summary->total.requests);\n"
    "    fclose (f);\n"
    "    return TRUE;\n"
    "}\n"
    "static void\n"
    "probe_free (gpointer data)\n"
    "{\n"
    "    throng_options_clear (probe_options, data);\n"
    "    g_free (data);\n"
    "}\n"
    "static const ThrongReporter reporter = {\n"
    "    .size = sizeof (ThrongReporter),\n"
    "    .name = PROBE_NAME,\n"
    "    .configure = probe_configure,\n"
    "    .samples = probe_samples,\n"
    "    .close = probe_close,\n"
    "    .free = probe_free,\n"
    "};\n"
    "static gboolean\n"
    "probe_init (ThrongPluginHost *host, GError **error)\n"
    "{\n"
    "    return throng_plugin_host_register_reporter (host, &reporter, error);\n"
    "}\n"
    "static const ThrongPluginDescriptor descriptor = {\n"
    "    .abi = THRONG_ABI_VERSION,\n"
    "    .size = sizeof (ThrongPluginDescriptor),\n"
    "    .name = PROBE_NAME,\n"
    "    .version = \"0.0.1\",\n"
    "    .init = probe_init,\n"
    "};\n"
    "THRONG_PLUGIN_DEFINE (descriptor)\n";

static char *
build_probe (const char *dir, const char *name, const char *include_first)
{
    g_autofree char *file = g_strconcat (name, ".c", NULL);
    g_autofree char *source = g_strdup_printf ("#define PROBE_NAME \"%s\"\n%s", name,
                                               reporter_source);

    g_free (throng_test_write_file (dir, file, source));
    return build_plugin (dir, name, file, include_first);
}

/* A plan of four refused connections (no server needed) reported by @reporter. */
static char *
probe_plan (const char *dir, const char *reporter)
{
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - users: 1\n"
                                             "    iterations: 4\n"
                                             "    steps:\n"
                                             "      - tcp: { port: %u, timeout: 2s }\n"
                                             "reporters:\n"
                                             "  - %s: { path: probe.txt }\n",
                                             throng_test_free_port (), reporter);

    return throng_test_write_plan (dir, "plan.yaml", yaml);
}

/* Built against headers that say ABI N+1: refused, naming the file and both numbers. */
static void
test_abi_refused (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *include = NULL;
    g_autofree char *module = NULL;
    g_autofree char *expected = NULL;
    g_autofree char *from = g_strdup_printf ("#define THRONG_ABI_VERSION %d\n", THRONG_ABI_VERSION);
    g_autofree char *to = g_strdup_printf ("#define THRONG_ABI_VERSION %d\n", THRONG_ABI_VERSION + 1);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *expected_err = NULL;
    const char *list[] = { "plugins", NULL };
    const char *run[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    include = edited_sdk (dir, "version.h", from, to);
    module = build_probe (dir, "nextabi", include);
    g_free (build_example (dir, "tcp"));
    expected = g_strdup_printf ("%s: plugin ABI %d, throng expects %d", module,
                                THRONG_ABI_VERSION + 1, THRONG_ABI_VERSION);

    g_assert_cmpint (run_installed (list, dir, dir, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, expected));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    g_free (probe_plan (dir, "nextabi"));
    g_assert_cmpint (run_installed (run, dir, dir, &out, &err), ==, 3);
    expected_err = g_strdup_printf ("throng: %s\n", expected);
    g_assert_cmpstr (err, ==, expected_err);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/*
 * Built against headers from before `wants_samples` was appended to
 * ThrongReporter: its table is smaller than the core's, and it loads,
 * receives its samples (the core falls back on "samples is set") and
 * its summary.
 */
static void
test_older_vtable_accepted (void)
{
    g_autofree char *dir = NULL;
    g_autofree char *include = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *probe = NULL;
    g_autofree char *probe_path = NULL;
    g_autofree char *expected = NULL;
    const char *run[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    /* The 0.1 table: without wants_samples and the hooks appended after it (drain, 0.3). */
    include = edited_sdk (dir, "reporter.h",
                          "    gboolean (*wants_samples) (gpointer self);\n"
                          "    char **(*drain) (gpointer self, const ThrongSummary *summary);\n",
                          "");
    g_free (build_probe (dir, "oldsdk", include));
    g_free (build_example (dir, "tcp"));
    g_free (probe_plan (dir, "oldsdk"));

    g_assert_cmpint (run_installed (run, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    probe_path = g_build_filename (dir, "probe.txt", NULL);
    g_assert_true (g_file_get_contents (probe_path, &probe, NULL, NULL));
    /* Smaller than this SDK's table by exactly the appended hook. */
    g_assert_cmpuint (offsetof (ThrongReporter, wants_samples), <, sizeof (ThrongReporter));
    expected = g_strdup_printf ("vtable=%u samples=4 requests=4\n",
                                (guint) offsetof (ThrongReporter, wants_samples));
    g_assert_cmpstr (probe, ==, expected);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

/*
 * Built against 0.1's <throng/options.h> (before `clear` and `copy` were
 * appended to ThrongOption, and before the entry points became macros):
 * its table has the 0.1 entry size, the core reads it with that size, and
 * both of its options arrive.
 */
static void
test_older_option_table_accepted (void)
{
    static const char *const to_v01[] = {
        "    void (*clear) (gpointer field);\n    void (*copy) (gpointer field);\n", "",
        "#define throng_options_apply(", "#define unused_options_apply(",
        "#define throng_options_clear(", "#define unused_options_clear(",
        "#define throng_options_copy_strings(", "#define unused_options_copy_strings(",
        NULL,
    };
    g_autofree char *dir = NULL;
    g_autofree char *include = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *probe = NULL;
    g_autofree char *probe_path = NULL;
    g_autofree char *expected = NULL;
    g_autofree char *plan = NULL;
    const char *run[] = { "run", "plan.yaml", "--quiet", NULL };

    if (!sdk_require ())
        return;
    dir = throng_test_tmpdir_new ();
    include = edited_sdk_pairs (dir, "options.h", to_v01);
    g_free (build_probe (dir, "oldoptions", include));
    g_free (build_example (dir, "tcp"));
    plan = g_strdup_printf ("scenarios:\n"
                            "  - users: 1\n"
                            "    iterations: 2\n"
                            "    steps:\n"
                            "      - tcp: { port: %u, timeout: 2s }\n"
                            "reporters:\n"
                            "  - oldoptions: { path: probe.txt, tag: old }\n",
                            throng_test_free_port ());
    g_free (throng_test_write_plan (dir, "plan.yaml", plan));

    g_assert_cmpint (run_installed (run, dir, dir, &out, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    probe_path = g_build_filename (dir, "probe.txt", NULL);
    g_assert_true (g_file_get_contents (probe_path, &probe, NULL, NULL));
    expected = g_strdup_printf ("tag=old vtable=%u samples=2 requests=2\n",
                                (guint) sizeof (ThrongReporter));
    g_assert_cmpstr (probe, ==, expected);
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

int
main (int argc, char **argv)
{
    int status;

    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/sdk/install/layout", test_install_layout);
    g_test_add_func ("/sdk/install/finds-own-plugins", test_installed_finds_plugins);
    g_test_add_func ("/sdk/examples/run", test_examples_run);
    g_test_add_func ("/sdk/examples/messages", test_examples_messages);
    g_test_add_func ("/sdk/examples/wait", test_examples_wait);
    g_test_add_func ("/sdk/examples/baseline", test_examples_baseline);
    g_test_add_func ("/sdk/examples/located-errors", test_examples_located_errors);
    g_test_add_func ("/sdk/guide/first-reporter", test_guide_first_reporter);
    g_test_add_func ("/sdk/guide/snippets", test_guide_snippets);
    g_test_add_func ("/sdk/guide/meson", test_guide_meson);
    g_test_add_func ("/sdk/abi/refused", test_abi_refused);
    g_test_add_func ("/sdk/abi/older-vtable", test_older_vtable_accepted);
    g_test_add_func ("/sdk/abi/older-option-table", test_older_option_table_accepted);
    status = g_test_run ();
    sdk_clear ();
    return status;
}
