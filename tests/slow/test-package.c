/* SPDX-License-Identifier: MIT */
/*
 * The Debian packages: scripts/build-deb.sh builds throng and throng-dev
 * from the tree (dpkg-buildpackage, debian/), dpkg installs them into a
 * fresh root (--root, their dependencies taken from this machine), and
 * the installed throng, finding its installed plugins by itself, runs the
 * demo plan; its man page, completions and SDK are where they belong and
 * work.  THRONG_TEST_DEBS=DIR takes the .deb files from DIR instead of
 * building them (several minutes on two cores).
 */
#include "test-utils.h"

#include <string.h>
#include <throng/throng.h>

#define BUILD_TIMEOUT 1500
#define RUN_TIMEOUT 120

typedef struct {
    char *dir;
    char *root;     /* where dpkg installed the packages */
    char *exe;      /* ROOT/usr/bin/throng */
    char **env;     /* this environment less THRONG_*: the installed throng on its own */
} Installed;

/* Runs the shell @script (with "$@" = @args) and returns its standard output; asserts exit 0. */
static char *
shell (const char *script, const char *const *args, const char *const *envp, guint timeout_s)
{
    g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_strv_builder_add_many (builder, "/bin/sh", "-c", script, "sh", NULL);
    if (args != NULL)
        g_strv_builder_addv (builder, (const char **) args);
    g_auto (GStrv) argv = g_strv_builder_end (builder);
    ThrongTestSpawnOptions options = { .envp = envp };
    int status = throng_test_process_run ((const char *const *) argv, &options, timeout_s, &out,
                                          &err);
    if (status != 0)
        g_error ("%s: exit %d\nstdout:\n%s\nstderr:\n%s", script, status, out, err);
    return g_steal_pointer (&out);
}

/* The .deb files: built into @dir, or those of $THRONG_TEST_DEBS. */
static char *
package_dir (const char *dir)
{
    const char *given = g_getenv ("THRONG_TEST_DEBS");
    g_autofree char *script = throng_test_source_path ("scripts/build-deb.sh");

    if (given != NULL && *given != '\0')
        return g_strdup (given);
    g_autofree char *out_dir = g_build_filename (dir, "debs", NULL);
    const char *args[] = { script, out_dir, NULL };
    gint64 start = g_get_monotonic_time ();
    g_autofree char *built = shell ("exec \"$1\" \"$2\"", args, NULL, BUILD_TIMEOUT);
    g_test_message ("built in %.0f s:\n%s", (g_get_monotonic_time () - start) / 1e6, built);
    return g_steal_pointer (&out_dir);
}

static gboolean
install (Installed *installed)
{
    const char *tools[] = { "dpkg", "dpkg-deb", "dpkg-buildpackage", "fakeroot" };

    for (gsize i = 0; i < G_N_ELEMENTS (tools); i++) {
        g_autofree char *path = throng_test_require_program (tools[i]);
        if (path == NULL)
            return FALSE;
    }
    installed->dir = throng_test_tmpdir_new ();
    installed->root = g_build_filename (installed->dir, "root", NULL);
    g_autofree char *debs = package_dir (installed->dir);

    /* A root of its own with an empty package database; the packages' dependencies are this machine's. */
    const char *args[] = { installed->root, debs, NULL };
    g_autofree char *log = shell (
        "set -e; mkdir -p \"$1/var/lib/dpkg/info\" \"$1/var/lib/dpkg/updates\"; "
        ": > \"$1/var/lib/dpkg/status\"; : > \"$1/var/lib/dpkg/available\"; "
        "dpkg --root=\"$1\" --log=/dev/null --force-depends --force-script-chrootless "
        "-i \"$2\"/throng_*.deb \"$2\"/throng-dev_*.deb; "
        "dpkg --root=\"$1\" -l 'throng*' | grep '^ii'",
        args, NULL, RUN_TIMEOUT);
    g_test_message ("%s", log);
    g_assert_nonnull (strstr (log, "ii  throng "));
    g_assert_nonnull (strstr (log, "ii  throng-dev "));

    installed->exe = g_build_filename (installed->root, "usr", "bin", "throng", NULL);
    installed->env = g_get_environ ();
    for (char **name = (char *[]) { "THRONG_PLUGIN_PATH", "THRONG_EXE", "THRONG_BUILD_DIR",
                                    "THRONG_TEST_PLUGIN_DIR", "THRONG_SHARD", "THRONG_DEBUG",
                                    NULL };
         *name != NULL; name++)
        installed->env = g_environ_unsetenv (installed->env, *name);
    return TRUE;
}

static void
installed_clear (Installed *installed)
{
    throng_test_tmpdir_free (g_steal_pointer (&installed->dir));
    g_free (installed->root);
    g_free (installed->exe);
    g_strfreev (installed->env);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Installed, installed_clear)

/* The installed throng with @args, in @installed's environment; its standard output. */
static char *
installed_run (Installed *installed, const char *script, const char *const *args)
{
    return shell (script, args, (const char *const *) installed->env, RUN_TIMEOUT);
}

static void
test_install_and_run (void)
{
    g_auto (Installed) installed = { 0 };

    if (!install (&installed))
        return;

    /* The release, and the bundled plugins found beside the executable, under the root. */
    const char *exe_args[] = { installed.exe, NULL };
    g_autofree char *version = installed_run (&installed, "exec \"$1\" --version", exe_args);
    g_autofree char *expected = g_strdup_printf ("throng %s (plugin ABI %d)\n",
                                                 THRONG_VERSION_STRING, THRONG_ABI_VERSION);
    g_assert_cmpstr (version, ==, expected);
    g_autofree char *plugins = installed_run (&installed, "exec \"$1\" plugins", exe_args);
    g_test_message ("%s", plugins);
    g_autofree char *plugin_dir = g_strdup_printf ("\n# %s/usr/lib/", installed.root);
    g_assert_nonnull (strstr (plugins, plugin_dir));
    for (const ThrongTestPluginInfo *info = throng_test_builtin_plugins; info->name != NULL;
         info++) {
        g_autofree char *row = g_strdup_printf ("\n%-12s %-9s ", info->name, info->kind);
        g_assert_nonnull (strstr (plugins, row));
    }
    g_assert_null (strstr (plugins, "build tree"));

    /* The demo, from the installed files: its built-in target, a summary with every request answered. */
    g_autofree char *demo = throng_test_source_path ("configs/demo.yaml");
    g_autofree char *summary = g_build_filename (installed.dir, "summary.json", NULL);
    g_autofree char *json_arg = g_strconcat ("json=", summary, NULL);
    const char *run_args[] = { installed.exe, demo, json_arg, NULL };
    g_free (installed_run (&installed, "exec \"$1\" run \"$2\" --quiet --out \"$3\"", run_args));
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_test_message ("demo: %" G_GINT64_FORMAT " requests, %" G_GINT64_FORMAT " errors",
                    throng_test_json_int (root, "total.requests"),
                    throng_test_json_int (root, "total.errors"));
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), >, 100);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);

    /* throng(1), compressed by the package: the release in its title. */
    const char *man_args[] = { installed.root, NULL };
    g_autofree char *man = installed_run (
        &installed, "exec gzip -dc \"$1/usr/share/man/man1/throng.1.gz\"", man_args);
    g_autofree char *title = g_strdup_printf ("\"throng %s\"", THRONG_VERSION_STRING);
    g_assert_nonnull (strstr (man, title));

    /* The completions where each shell looks; bash's completes with the installed plugins. */
    static const char *const completions[] = {
        "usr/share/bash-completion/completions/throng",
        "usr/share/zsh/vendor-completions/_throng",
        "usr/share/fish/vendor_completions.d/throng.fish",
    };
    for (gsize i = 0; i < G_N_ELEMENTS (completions); i++) {
        g_autofree char *path = g_build_filename (installed.root, completions[i], NULL);
        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
    g_autofree char *bash = throng_test_require_program ("bash");
    if (bash == NULL)
        return;
    const char *complete_args[] = { installed.root, installed.exe, NULL };
    g_autofree char *reporters = installed_run (
        &installed,
        "exec bash --norc --noprofile -c 'source \"$1/usr/share/bash-completion/completions/"
        "throng\" && COMP_LINE=\"throng run plan.yaml --out pro\" && COMP_POINT=${#COMP_LINE} && "
        "_throng \"$2\" && printf \"%s\\n\" \"${COMPREPLY[@]}\"' bash \"$1\" \"$2\"",
        complete_args);
    g_assert_cmpstr (reporters, ==, "prometheus=\n");

    /* The SDK: an example plugin built against the installed headers only, and loaded. */
    g_autofree char *cc = throng_test_require_program ("cc");
    if (cc == NULL)
        return;
    const char *sdk_args[] = { installed.root, installed.exe, installed.dir, NULL };
    g_autofree char *listed = installed_run (
        &installed,
        "set -e; pc=$(dirname \"$1\"/usr/lib/*/pkgconfig/throng-1.pc); "
        "mkdir -p \"$3/plugins\"; "
        "cc -shared -fPIC -o \"$3/plugins/libthrong-baseline.so\" "
        "\"$1/usr/share/doc/throng/examples/baseline.c\" "
        "$(PKG_CONFIG_PATH=$pc pkg-config --cflags throng-1) $(pkg-config --libs glib-2.0); "
        "THRONG_PLUGIN_PATH=\"$3/plugins\" exec \"$2\" plugins",
        sdk_args);
    g_test_message ("%s", listed);
    g_assert_nonnull (strstr (listed, "\nbaseline "));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/package/install-and-run", test_install_and_run);
    return g_test_run ();
}
