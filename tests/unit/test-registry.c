/* SPDX-License-Identifier: MIT */
/*
 * Tests of the plugin registry: loading the test plugins, each way a
 * module is refused (with its exact one-line message), acceptance of a
 * vtable older or newer than the core's, the search order and scanning.
 * The modules are those of tests/plugins/ (THRONG_TEST_PLUGIN_DIR) and
 * tests/plugins/bad/.
 */
#include <stddef.h>
#include <string.h>
#include <glib/gstdio.h>

#include "node-private.h"
#include "registry.h"
#include "test-utils.h"
#include "throng-config.h"

static const char *
good_dir (void)
{
    const char *dir = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    g_assert_nonnull (dir);
    return dir;
}

static char *
bad_dir (void)
{
    return g_build_filename (good_dir (), "bad", NULL);
}

static char *
bad_module (const char *name)
{
    g_autofree char *dir = bad_dir ();
    g_autofree char *file = g_strdup_printf ("libthrong-%s.so", name);

    return g_build_filename (dir, file, NULL);
}

/* THRONG_PLUGIN_PATH for one test: @first, then the others, NULL-terminated. */
static void
set_plugin_path (const char *first, ...)
{
    g_autoptr (GPtrArray) dirs = g_ptr_array_new ();
    g_autofree char *joined = NULL;
    const char *dir;
    va_list args;

    va_start (args, first);
    for (dir = first; dir != NULL; dir = va_arg (args, const char *))
        g_ptr_array_add (dirs, (gpointer) dir);
    va_end (args);
    g_ptr_array_add (dirs, NULL);
    joined = g_strjoinv (":", (char **) dirs->pdata);
    g_setenv ("THRONG_PLUGIN_PATH", joined, TRUE);
}

static void
test_load_null (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    const ThrongProtocol *protocol, *again;
    const ThrongReporter *reporter;
    g_autofree char *expected = NULL;

    set_plugin_path (good_dir (), NULL);
    registry = throng_registry_new ();
    protocol = throng_registry_get_protocol (registry, "null", &error);
    g_assert_no_error (error);
    g_assert_nonnull (protocol);
    g_assert_cmpstr (protocol->name, ==, "null");
    g_assert_cmpuint (protocol->size, ==, sizeof (ThrongProtocol));
    g_assert_nonnull (protocol->step_run);
    g_assert_nonnull (protocol->user_new);
    g_assert_null (protocol->iteration_begin);

    again = throng_registry_get_protocol (registry, "null", &error);
    g_assert_no_error (error);
    g_assert_true (again == protocol);

    /* The module is loaded, but it has no reporter of that name. */
    reporter = throng_registry_get_reporter (registry, "null", &error);
    g_assert_null (reporter);
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND);
    expected = g_strdup_printf ("no reporter named 'null': %s/libthrong-null.so provides none",
                                good_dir ());
    g_assert_cmpstr (error->message, ==, expected);
}

static void
test_not_found (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *path = NULL;
    g_autofree char *expected = NULL;

    set_plugin_path (good_dir (), NULL);
    registry = throng_registry_new ();
    g_assert_null (throng_registry_get_protocol (registry, "nosuchplugin", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND);
    path = throng_registry_describe_path (registry);
    expected = g_strdup_printf ("no protocol named 'nosuchplugin': no libthrong-nosuchplugin.so in %s",
                                path);
    g_assert_cmpstr (error->message, ==, expected);
    g_clear_error (&error);

    /* A name is one path component: nothing outside the search path is opened. */
    g_assert_null (throng_registry_get_protocol (registry, "../plugins/null", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND);
    g_assert_cmpstr (error->message, ==, "'../plugins/null' is not a valid plugin name");
    g_clear_error (&error);
    g_assert_null (throng_registry_get_reporter (registry, "", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND);
}

typedef struct {
    const char *test_path;
    const char *module;        /* the file's NAME */
    gboolean reporter;         /* look it up as a reporter */
    const char *message;       /* after "PATH: "; NULL when built by the test */
} Refusal;

static char *
refusal_message (const Refusal *r)
{
    if (strcmp (r->module, "badabi") == 0)
        return g_strdup_printf ("plugin ABI %u, throng expects %u", THRONG_ABI_VERSION + 1,
                                THRONG_ABI_VERSION);
    if (strcmp (r->module, "smalldescriptor") == 0)
        return g_strdup_printf ("plugin descriptor size 8 is too small (at least %u)",
                                (guint) THRONG_STRUCT_END (ThrongPluginDescriptor, init));
    if (strcmp (r->module, "shortvtable") == 0)
        return g_strdup_printf ("protocol 'shortvtable': vtable size %u is too small (at least %u)",
                                (guint) offsetof (ThrongProtocol, iteration_begin),
                                (guint) THRONG_STRUCT_END (ThrongProtocol, step_run));
    return g_strdup (r->message);
}

static const Refusal refusals[] = {
    { "/registry/refuse/abi", "badabi", FALSE, NULL },
    { "/registry/refuse/no-symbol", "nosymbol", FALSE,
      "not a throng plugin: no symbol throng_plugin_get_descriptor" },
    { "/registry/refuse/no-descriptor", "nodescriptor", FALSE,
      "not a throng plugin: throng_plugin_get_descriptor returned no descriptor" },
    { "/registry/refuse/small-descriptor", "smalldescriptor", FALSE, NULL },
    { "/registry/refuse/no-init", "noinit", FALSE, "plugin descriptor has no init" },
    { "/registry/refuse/wrong-name", "wrongname", FALSE,
      "plugin descriptor names 'rightname', the file name says 'wrongname'" },
    { "/registry/refuse/init-fails", "initfails", FALSE, "init failed: no licence file" },
    { "/registry/refuse/registers-nothing", "empty", FALSE,
      "plugin registers no protocol and no reporter" },
    { "/registry/refuse/registered-twice", "twice", FALSE, "protocol 'null2' is registered twice" },
    { "/registry/refuse/missing-hook", "nullhook", FALSE, "protocol 'nullhook' has no step_run" },
    { "/registry/refuse/missing-reporter-hook", "noreporterhook", TRUE,
      "reporter 'noreporterhook' has no close" },
    { "/registry/refuse/short-vtable", "shortvtable", FALSE, NULL },
};

static void
test_refusal (gconstpointer data)
{
    const Refusal *r = data;
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = bad_dir ();
    g_autofree char *path = bad_module (r->module);
    g_autofree char *message = refusal_message (r);
    g_autofree char *expected = g_strdup_printf ("%s: %s", path, message);
    gconstpointer found;

    set_plugin_path (dir, NULL);
    registry = throng_registry_new ();
    found = r->reporter ? (gconstpointer) throng_registry_get_reporter (registry, r->module, &error)
                        : (gconstpointer) throng_registry_get_protocol (registry, r->module, &error);
    g_assert_null (found);
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    g_assert_cmpstr (error->message, ==, expected);
    g_assert_null (strchr (error->message, '\n'));
    g_clear_error (&error);

    /* Asked again, the same refusal, without reopening the file. */
    found = r->reporter ? (gconstpointer) throng_registry_get_reporter (registry, r->module, &error)
                        : (gconstpointer) throng_registry_get_protocol (registry, r->module, &error);
    g_assert_null (found);
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    g_assert_cmpstr (error->message, ==, expected);
}

/* What a refused module registered before the refusal is gone. */
static void
test_refusal_rolls_back (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = bad_dir ();

    set_plugin_path (dir, NULL);
    registry = throng_registry_new ();
    g_assert_null (throng_registry_get_protocol (registry, "twice", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    g_clear_error (&error);
    /* Its first registration of null2 succeeded, but the module was refused. */
    g_assert_null (throng_registry_get_protocol (registry, "null2", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND);
}

static void
test_refuse_duplicate_across_plugins (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = bad_dir ();
    g_autofree char *path = bad_module ("dupnull");
    g_autofree char *expected = NULL;
    const ThrongProtocol *null_protocol;

    set_plugin_path (good_dir (), dir, NULL);
    registry = throng_registry_new ();
    null_protocol = throng_registry_get_protocol (registry, "null", &error);
    g_assert_no_error (error);
    g_assert_null (throng_registry_get_protocol (registry, "dupnull", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    expected = g_strdup_printf ("%s: protocol 'null' is already registered by %s/libthrong-null.so",
                                path, good_dir ());
    g_assert_cmpstr (error->message, ==, expected);
    g_clear_error (&error);

    /* The first registration stands. */
    g_assert_true (throng_registry_get_protocol (registry, "null", &error) == null_protocol);
    g_assert_no_error (error);
}

static void
test_refuse_not_a_module (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *tmp = g_dir_make_tmp ("throng-registry-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (tmp, "libthrong-garbage.so", NULL);
    g_autofree char *prefix = g_strdup_printf ("%s: cannot load: ", path);

    g_assert_true (g_file_set_contents (path, "not an ELF file\n", -1, NULL));
    set_plugin_path (tmp, NULL);
    registry = throng_registry_new ();
    g_assert_null (throng_registry_get_protocol (registry, "garbage", &error));
    g_assert_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD);
    g_assert_true (g_str_has_prefix (error->message, prefix));
    g_assert_null (strchr (error->message, '\n'));
    g_unlink (path);
    g_rmdir (tmp);
}

/* issue 7: an older plugin, built before a hook was appended, still loads. */
static void
test_old_vtable (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = bad_dir ();
    const ThrongReporter *reporter;
    const ThrongProtocol *protocol;

    set_plugin_path (dir, NULL);
    registry = throng_registry_new ();
    reporter = throng_registry_get_reporter (registry, "oldvtable", &error);
    g_assert_no_error (error);
    g_assert_nonnull (reporter);
    g_assert_cmpuint (reporter->size, ==, offsetof (ThrongReporter, wants_samples));
    g_assert_cmpstr (reporter->name, ==, "oldvtable");
    g_assert_nonnull (reporter->configure);
    g_assert_nonnull (reporter->close);
    g_assert_nonnull (reporter->free);
    /* Set in the plugin's memory, but past its size: the core must see it absent. */
    g_assert_null (reporter->wants_samples);

    /* The same module's table from a newer SDK: the unknown tail is ignored. */
    protocol = throng_registry_get_protocol (registry, "newvtable", &error);
    g_assert_no_error (error);
    g_assert_nonnull (protocol);
    g_assert_cmpuint (protocol->size, >, sizeof (ThrongProtocol));
    g_assert_nonnull (protocol->step_run);
    g_assert_nonnull (protocol->iteration_begin);
}

static char *
copy_null_into (const char *dir)
{
    g_autofree char *source = g_build_filename (good_dir (), "libthrong-null.so", NULL);
    char *dest = g_build_filename (dir, "libthrong-null.so", NULL);
    g_autofree char *contents = NULL;
    gsize length;

    g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
    g_assert_true (g_file_set_contents (dest, contents, (gssize) length, NULL));
    return dest;
}

static const ThrongPluginInfo *
find_info (GPtrArray *infos, const char *name, ThrongPluginKind kind)
{
    const ThrongPluginInfo *found = NULL;

    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = g_ptr_array_index (infos, i);

        if (strcmp (info->name, name) == 0 && info->kind == kind) {
            g_assert_null (found); /* one entry per name and kind */
            found = info;
        }
    }
    return found;
}

static void
test_precedence (void)
{
    g_autofree char *first = g_dir_make_tmp ("throng-registry-XXXXXX", NULL);
    g_autofree char *second = g_dir_make_tmp ("throng-registry-XXXXXX", NULL);
    g_autofree char *in_first = copy_null_into (first);
    g_autofree char *in_second = copy_null_into (second);

    /* THRONG_PLUGIN_PATH comes before the plan's directories. */
    {
        g_autoptr (ThrongRegistry) registry = NULL;
        g_autoptr (GPtrArray) infos = NULL;
        g_autofree char *path = NULL;
        g_autofree char *start = g_strdup_printf ("%s:%s:", first, second);
        const ThrongPluginInfo *info;

        set_plugin_path (first, NULL);
        registry = throng_registry_new ();
        throng_registry_add_dir (registry, second);
        path = throng_registry_describe_path (registry);
        g_assert_true (g_str_has_prefix (path, start));
        g_assert_true (g_str_has_suffix (path, ":" THRONG_PLUGIN_INSTALL_DIR));
        /* The test runs from the build tree, so the build's plugins come next. */
        g_assert_nonnull (strstr (path, ":" THRONG_BUILD_PLUGIN_DIR "/"));

        g_assert_nonnull (throng_registry_get_protocol (registry, "null", NULL));
        infos = throng_registry_scan (registry);
        info = find_info (infos, "null", THRONG_PLUGIN_KIND_PROTOCOL);
        g_assert_nonnull (info);
        g_assert_cmpstr (info->path, ==, in_first);
        g_assert_null (info->error);
    }
    /* Without it, the plan's directory is used. */
    {
        g_autoptr (ThrongRegistry) registry = NULL;
        g_autoptr (GPtrArray) infos = NULL;
        const ThrongPluginInfo *info;

        g_unsetenv ("THRONG_PLUGIN_PATH");
        registry = throng_registry_new ();
        throng_registry_add_dir (registry, second);
        infos = throng_registry_scan (registry);
        info = find_info (infos, "null", THRONG_PLUGIN_KIND_PROTOCOL);
        g_assert_nonnull (info);
        g_assert_cmpstr (info->path, ==, in_second);
    }
    /* Empty components of THRONG_PLUGIN_PATH are skipped, like PATH's. */
    {
        g_autoptr (ThrongRegistry) registry = NULL;
        g_autofree char *path = NULL;
        g_autofree char *env = g_strdup_printf (":%s::", second);
        g_autofree char *start = g_strdup_printf ("%s:", second);

        g_setenv ("THRONG_PLUGIN_PATH", env, TRUE);
        registry = throng_registry_new ();
        path = throng_registry_describe_path (registry);
        g_assert_true (g_str_has_prefix (path, start));
    }
    g_unlink (in_first);
    g_unlink (in_second);
    g_rmdir (first);
    g_rmdir (second);
}

static void
test_scan (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GPtrArray) infos = NULL;
    g_autofree char *dir = bad_dir ();
    g_autofree char *null_path = g_build_filename (good_dir (), "libthrong-null.so", NULL);
    g_autofree char *badabi_path = bad_module ("badabi");
    g_autofree char *badabi_error = NULL;
    g_autofree char *old_path = bad_module ("oldvtable");
    const ThrongPluginInfo *info;

    set_plugin_path (good_dir (), dir, NULL);
    registry = throng_registry_new ();
    infos = throng_registry_scan (registry);

    /* Search order (issue 19): directory by directory, files by name within one. */
    {
        g_autofree char *search = throng_registry_describe_path (registry);
        g_auto (GStrv) order = g_strsplit (search, ":", -1);
        guint previous = 0;

        for (guint i = 0; i < infos->len; i++) {
            const ThrongPluginInfo *listed = g_ptr_array_index (infos, i);
            g_autofree char *parent = g_path_get_dirname (listed->path);
            guint at = 0;

            g_assert_cmpstr (listed->dir, ==, parent);
            while (order[at] != NULL && strcmp (order[at], listed->dir) != 0)
                at++;
            g_assert_nonnull (order[at]);
            g_assert_cmpuint (at, >=, previous);
            if (i > 0 && at == previous) {
                const ThrongPluginInfo *before = g_ptr_array_index (infos, i - 1);
                g_assert_cmpint (strcmp (before->path, listed->path), <=, 0);
            }
            previous = at;
        }
        /* the good directory comes first, although "badabi" sorts before "null" */
        g_assert_cmpstr (((ThrongPluginInfo *) g_ptr_array_index (infos, 0))->dir, ==, good_dir ());
        g_assert_cmpstr (((ThrongPluginInfo *) g_ptr_array_index (infos, 0))->origin, ==,
                         "$THRONG_PLUGIN_PATH");
    }

    info = find_info (infos, "null", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_cmpstr (info->path, ==, null_path);
    g_assert_cmpstr (info->version, ==, THRONG_VERSION_STRING);
    g_assert_null (info->error);

    info = find_info (infos, "badabi", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_cmpstr (info->path, ==, badabi_path);
    badabi_error = g_strdup_printf ("%s: plugin ABI %u, throng expects %u", badabi_path,
                                    THRONG_ABI_VERSION + 1, THRONG_ABI_VERSION);
    g_assert_cmpstr (info->error, ==, badabi_error);

    /* One module, two implementations. */
    info = find_info (infos, "oldvtable", THRONG_PLUGIN_KIND_REPORTER);
    g_assert_nonnull (info);
    g_assert_cmpstr (info->path, ==, old_path);
    g_assert_cmpstr (info->version, ==, "1.0");
    g_assert_null (info->error);
    info = find_info (infos, "newvtable", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_cmpstr (info->path, ==, old_path);

    /* null was scanned first, so the impostor is the one refused. */
    info = find_info (infos, "dupnull", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_nonnull (info->error);
    g_assert_nonnull (strstr (info->error, "protocol 'null' is already registered by"));
    g_assert_null (find_info (infos, "null2", THRONG_PLUGIN_KIND_PROTOCOL));
    info = find_info (infos, "nosymbol", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_nonnull (info->error);

    /* Every module of the build tree is listed too, loaded or refused. */
    {
        g_autoptr (GDir) plugins = g_dir_open (THRONG_BUILD_PLUGIN_DIR, 0, NULL);
        const char *sub;

        while (plugins != NULL && (sub = g_dir_read_name (plugins)) != NULL) {
            g_autofree char *subdir = g_build_filename (THRONG_BUILD_PLUGIN_DIR, sub, NULL);
            g_autofree char *file = g_strdup_printf ("libthrong-%s.so", sub);
            g_autofree char *module = g_build_filename (subdir, file, NULL);
            gboolean listed = FALSE;

            if (!g_file_test (module, G_FILE_TEST_IS_REGULAR))
                continue;
            for (guint i = 0; i < infos->len; i++)
                listed |= strcmp (((ThrongPluginInfo *) g_ptr_array_index (infos, i))->path,
                                  module) == 0;
            if (!listed)
                g_error ("%s is not in the scan", module);
        }
    }
}

/* The good directory alone holds no broken module. */
static void
test_scan_good_only (void)
{
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GPtrArray) infos = NULL;
    guint from_good = 0;

    set_plugin_path (good_dir (), NULL);
    registry = throng_registry_new ();
    infos = throng_registry_scan (registry);
    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = g_ptr_array_index (infos, i);
        g_autofree char *dir = g_path_get_dirname (info->path);

        if (strcmp (dir, good_dir ()) != 0)
            continue;
        from_good++;
        if (info->error != NULL)
            g_error ("%s: %s", info->path, info->error);
    }
    g_assert_cmpuint (from_good, >=, 1);
}

static void
test_scan_first_wins (void)
{
    g_autofree char *first = g_dir_make_tmp ("throng-registry-XXXXXX", NULL);
    g_autofree char *second = g_dir_make_tmp ("throng-registry-XXXXXX", NULL);
    g_autofree char *in_first = copy_null_into (first);
    g_autofree char *in_second = copy_null_into (second);
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (GPtrArray) infos = NULL;
    const ThrongPluginInfo *info;

    set_plugin_path (first, second, NULL);
    registry = throng_registry_new ();
    infos = throng_registry_scan (registry);
    info = find_info (infos, "null", THRONG_PLUGIN_KIND_PROTOCOL);
    g_assert_nonnull (info);
    g_assert_cmpstr (info->path, ==, in_first);
    g_assert_null (info->error);
    for (guint i = 0; i < infos->len; i++)
        g_assert_cmpstr (((ThrongPluginInfo *) g_ptr_array_index (infos, i))->path, !=, in_second);

    g_unlink (in_first);
    g_unlink (in_second);
    g_rmdir (first);
    g_rmdir (second);
}

/*
 * THRONG_STRUCT_HAS, the one test of an appended field: a struct from an
 * older builder (its size ends before the field) does not carry it.
 */
static void
test_struct_has (void)
{
    ThrongRunInfo older = { .size = offsetof (ThrongRunInfo, quiet) };
    ThrongRunInfo current = { .size = sizeof (ThrongRunInfo) };
    ThrongPluginDescriptor descriptor = { .size = THRONG_STRUCT_END (ThrongPluginDescriptor, init) };

    g_assert_cmpuint (THRONG_STRUCT_END (ThrongRunInfo, quiet), ==,
                      offsetof (ThrongRunInfo, quiet) + sizeof (gboolean));
    g_assert_false (THRONG_STRUCT_HAS (&older, ThrongRunInfo, quiet));
    g_assert_true (THRONG_STRUCT_HAS (&older, ThrongRunInfo, overwrite));
    g_assert_true (THRONG_STRUCT_HAS (&current, ThrongRunInfo, quiet));
    /* works on a guint32 size too */
    g_assert_true (THRONG_STRUCT_HAS (&descriptor, ThrongPluginDescriptor, init));
    descriptor.size--;
    g_assert_false (THRONG_STRUCT_HAS (&descriptor, ThrongPluginDescriptor, init));
}

/* `throng plugins` lists in search order, each directory under a heading naming it. */
static void
test_plugins_command (void)
{
    g_autofree char *bad = bad_dir ();
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *good_heading = g_strdup_printf ("\n# %s ($THRONG_PLUGIN_PATH)\n", good_dir ());
    g_autofree char *bad_heading = g_strdup_printf ("\n# %s ($THRONG_PLUGIN_PATH)\n", bad);
    g_autofree char *null_line = g_strdup_printf ("\nnull +protocol +%s +%s/libthrong-null.so\n",
                                                  THRONG_VERSION_STRING, good_dir ());
    g_autoptr (GRegex) null_regex = g_regex_new (null_line, 0, 0, NULL);
    g_autoptr (GMatchInfo) null_match = NULL;
    int null_start = -1;
    g_autoptr (GRegex) badabi = g_regex_new ("\nbadabi +refused +- ", 0, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;
    const char *good_at, *bad_at, *null_at;
    int start = -1;

    set_plugin_path (good_dir (), bad, NULL);
    g_assert_cmpint (throng_test_runv (30, &out, &err, "plugins", NULL), ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_test_message ("%s", out);
    good_at = strstr (out, good_heading);
    bad_at = strstr (out, bad_heading);
    g_assert_true (g_regex_match (null_regex, out, 0, &null_match));
    g_assert_true (g_match_info_fetch_pos (null_match, 0, &null_start, NULL));
    null_at = out + null_start;
    g_assert_nonnull (good_at);
    g_assert_nonnull (bad_at);
    g_assert_nonnull (null_at);
    g_assert_true (good_at < null_at && null_at < bad_at);
    g_assert_true (g_regex_match (badabi, out, 0, &match));
    g_assert_true (g_match_info_fetch_pos (match, 0, &start, NULL));
    g_assert_true (out + start > bad_at);
    g_unsetenv ("THRONG_PLUGIN_PATH");
}

/* The null plugin reads its options through the core's option tables. */
static void
test_null_options (void)
{
    static const char plan[] = "defaults: { delay: 5ms }\n"
                               "scenario: ~\n"
                               "steps:\n"
                               "  - {}\n"
                               "  - ~\n"
                               "  - { delay: 10ms, fail: timeout, status: 503, bytes: 100 }\n"
                               "  - { delay: 2s }\n"
                               "  - { delay: 250us }\n"
                               "  - { delya: 1ms }\n"
                               "  - { fail: sometimes }\n"
                               "  - { status: 1000 }\n";
    static const char *const labels[] = { "null 5ms", "null 5ms", "null 10ms", "null 2s",
                                          "null 250us" };
    g_autoptr (ThrongRegistry) registry = NULL;
    g_autoptr (ThrongTree) tree = NULL;
    g_autoptr (GError) error = NULL;
    const ThrongProtocol *protocol;
    const ThrongNode *root, *steps;
    ThrongScenarioSetup setup = { sizeof setup };
    gpointer scenario;

    set_plugin_path (good_dir (), NULL);
    registry = throng_registry_new ();
    protocol = throng_registry_get_protocol (registry, "null", &error);
    g_assert_no_error (error);
    tree = throng_tree_load_data ("null.yaml", plan, sizeof plan - 1, &error);
    g_assert_no_error (error);
    root = throng_tree_root (tree);
    steps = throng_node_lookup (root, "steps");

    setup.name = "s";
    setup.defaults = throng_node_lookup (root, "defaults");
    setup.options = throng_node_lookup (root, "scenario");
    setup.users = 1;
    scenario = protocol->scenario_new (&setup, &error);
    g_assert_no_error (error);
    g_assert_nonnull (scenario);

    for (guint i = 0; i < G_N_ELEMENTS (labels); i++) {
        g_autofree char *label = NULL;
        gpointer step = protocol->step_new (scenario, throng_node_child (steps, i), &label, &error);

        g_assert_no_error (error);
        g_assert_nonnull (step);
        g_assert_cmpstr (label, ==, labels[i]);
        protocol->step_free (step);
    }
    for (guint i = G_N_ELEMENTS (labels); i < throng_node_n_children (steps); i++) {
        char *label = NULL;

        g_assert_null (protocol->step_new (scenario, throng_node_child (steps, i), &label, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, error->code);
        g_assert_true (g_str_has_prefix (error->message, "null.yaml:"));
        g_assert_null (label);
        g_clear_error (&error);
    }
    protocol->scenario_free (scenario);

    /* A scenario map with an unknown key is refused too. */
    setup.options = throng_node_child (steps, 5);
    g_assert_null (protocol->scenario_new (&setup, &error));
    g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_UNKNOWN_KEY);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/registry/load/null", test_load_null);
    g_test_add_func ("/registry/load/not-found", test_not_found);
    for (gsize i = 0; i < G_N_ELEMENTS (refusals); i++)
        g_test_add_data_func (refusals[i].test_path, &refusals[i], test_refusal);
    g_test_add_func ("/registry/refuse/rolls-back", test_refusal_rolls_back);
    g_test_add_func ("/registry/refuse/duplicate-across-plugins",
                     test_refuse_duplicate_across_plugins);
    g_test_add_func ("/registry/refuse/not-a-module", test_refuse_not_a_module);
    g_test_add_func ("/registry/compat/old-vtable", test_old_vtable);
    g_test_add_func ("/registry/compat/struct-has", test_struct_has);
    g_test_add_func ("/registry/path/precedence", test_precedence);
    g_test_add_func ("/registry/scan/all", test_scan);
    g_test_add_func ("/registry/scan/good-only", test_scan_good_only);
    g_test_add_func ("/registry/scan/first-wins", test_scan_first_wins);
    g_test_add_func ("/registry/scan/plugins-command", test_plugins_command);
    g_test_add_func ("/registry/null/options", test_null_options);
    return g_test_run ();
}
