/* SPDX-License-Identifier: MIT */
/*
 * The plugin registry: finds libthrong-NAME.so along the search path
 * (registry-path.c), opens it with GModule, checks its descriptor field by field, lets its
 * `init` register protocols and reporters, and checks each registration.
 * A module is refused as a whole, with one line naming the file, and
 * nothing it registered survives the refusal.
 */
#include <string.h>

#include "registry-path.h"
#include "registry.h"

GQuark
throng_registry_error_quark (void)
{
    return g_quark_from_static_string ("throng-registry-error-quark");
}

#define MODULE_PREFIX "libthrong-"
#define MODULE_SUFFIX ".so"

typedef struct _ThrongModule ThrongModule;

/*
 * One registered implementation.  When the plugin's vtable is smaller than
 * the core's (a plugin built before hooks were appended), the core works
 * on a zero-padded copy, so every hook past the plugin's size reads NULL
 * and the core can test hooks without looking at the size again.
 */
typedef struct {
    ThrongPluginKind kind;
    char *name;
    ThrongModule *module;
    const void *vtable; /* the plugin's own table, or &copy */
    union {
        ThrongProtocol protocol;
        ThrongReporter reporter;
    } copy;
} ThrongImpl;

struct _ThrongModule {
    char *name; /* the NAME of libthrong-NAME.so */
    char *path;
    GModule *module; /* NULL once refused */
    char *version;
    char *error;      /* why it was refused, or NULL */
    GPtrArray *impls; /* ThrongImpl*, what it registered */
};

struct _ThrongRegistry {
    ThrongPluginPath path;
    GHashTable *modules;   /* NAME → ThrongModule*, loaded or refused */
    GHashTable *protocols; /* name → ThrongImpl* (owned by its module) */
    GHashTable *reporters;
};

/* Lives on the stack of load_module() for the duration of `init`. */
struct _ThrongPluginHost {
    ThrongRegistry *registry;
    ThrongModule *module;
    GError *error; /* the first refused registration */
};

static const char *
kind_name (ThrongPluginKind kind)
{
    return kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol" : "reporter";
}

static void
impl_free (gpointer data)
{
    ThrongImpl *impl = data;

    g_free (impl->name);
    g_free (impl);
}

static void
module_free (gpointer data)
{
    ThrongModule *module = data;

    if (module == NULL)
        return;
    g_ptr_array_unref (module->impls);
    /* Loaded modules are resident (see load_module), so this only drops a reference. */
    if (module->module != NULL)
        g_module_close (module->module);
    g_free (module->name);
    g_free (module->path);
    g_free (module->version);
    g_free (module->error);
    g_free (module);
}

ThrongRegistry *
throng_registry_new (void)
{
    ThrongRegistry *registry = g_new0 (ThrongRegistry, 1);

    throng_plugin_path_init (&registry->path);
    registry->modules = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, module_free);
    registry->protocols = g_hash_table_new (g_str_hash, g_str_equal);
    registry->reporters = g_hash_table_new (g_str_hash, g_str_equal);
    return registry;
}

void
throng_registry_free (ThrongRegistry *registry)
{
    if (registry == NULL)
        return;
    /* The tables point into the modules' impls: drop them first. */
    g_hash_table_unref (registry->protocols);
    g_hash_table_unref (registry->reporters);
    g_hash_table_unref (registry->modules);
    throng_plugin_path_clear (&registry->path);
    g_free (registry);
}

void
throng_registry_add_dir (ThrongRegistry *registry, const char *dir)
{
    g_return_if_fail (registry != NULL);
    g_return_if_fail (dir != NULL);

    throng_plugin_path_add (&registry->path, dir);
}

char *
throng_registry_describe_path (ThrongRegistry *registry)
{
    g_autoptr (GPtrArray) dirs = NULL;

    g_return_val_if_fail (registry != NULL, NULL);

    dirs = throng_plugin_path_dirs (&registry->path, NULL);
    g_ptr_array_add (dirs, NULL);
    return g_strjoinv (G_SEARCHPATH_SEPARATOR_S, (char **) dirs->pdata);
}

/* A plugin name becomes part of a file name: keep it to one path component. */
static gboolean
valid_plugin_name (const char *name)
{
    if (name[0] == '\0' || name[0] == '.')
        return FALSE;
    for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
            return FALSE;
    return TRUE;
}

/* The NAME of libthrong-NAME.so, or NULL when @file is not named like a plugin. */
static char *
name_from_file (const char *file)
{
    gsize len = strlen (file);
    gsize prefix = strlen (MODULE_PREFIX), suffix = strlen (MODULE_SUFFIX);
    g_autofree char *name = NULL;

    if (len <= prefix + suffix || !g_str_has_prefix (file, MODULE_PREFIX) ||
        !g_str_has_suffix (file, MODULE_SUFFIX))
        return NULL;
    name = g_strndup (file + prefix, len - prefix - suffix);
    return valid_plugin_name (name) ? g_steal_pointer (&name) : NULL;
}

static gboolean
check_descriptor (const char *path, const char *file_name, const ThrongPluginDescriptor *d,
                  GError **error)
{
    if (d == NULL) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: not a throng plugin: %s returned no descriptor", path,
                     THRONG_PLUGIN_SYMBOL);
        return FALSE;
    }
    if (d->abi != THRONG_ABI_VERSION) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: plugin ABI %u, throng expects %u", path, (guint) d->abi,
                     (guint) THRONG_ABI_VERSION);
        return FALSE;
    }
    /* Everything up to `init` is what every ABI-1 plugin must carry. */
    if (!THRONG_STRUCT_HAS (d, ThrongPluginDescriptor, init)) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: plugin descriptor size %u is too small (at least %u)", path,
                     (guint) d->size, (guint) THRONG_STRUCT_END (ThrongPluginDescriptor, init));
        return FALSE;
    }
    if (d->name == NULL || d->version == NULL || d->init == NULL) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: plugin descriptor has no %s", path,
                     d->name == NULL ? "name" : d->version == NULL ? "version" : "init");
        return FALSE;
    }
    if (strcmp (d->name, file_name) != 0) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: plugin descriptor names '%s', the file name says '%s'", path, d->name,
                     file_name);
        return FALSE;
    }
    return TRUE;
}

static GHashTable *
table_for (ThrongRegistry *registry, ThrongPluginKind kind)
{
    return kind == THRONG_PLUGIN_KIND_PROTOCOL ? registry->protocols : registry->reporters;
}

/*
 * Opens @module->path and runs its init.  On failure the module is closed
 * and whatever init registered is dropped: nothing of it stays in the
 * registry.
 */
static gboolean
open_module (ThrongRegistry *registry, ThrongModule *module, GError **error)
{
    const ThrongPluginDescriptor *(*get_descriptor) (void) = NULL;
    const ThrongPluginDescriptor *descriptor;
    ThrongPluginHost host = { registry, module, NULL };
    g_autoptr (GError) init_error = NULL;
    GModule *gmodule;
    gboolean ok;

    gmodule = g_module_open (module->path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
    if (gmodule == NULL) {
        const char *why = g_module_error ();
        g_autofree char *prefix = g_strconcat (module->path, ": ", NULL);

        /* dlerror() usually names the file already. */
        if (g_str_has_prefix (why, prefix))
            why += strlen (prefix);
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: cannot load: %s", module->path, why);
        return FALSE;
    }
    if (!g_module_symbol (gmodule, THRONG_PLUGIN_SYMBOL, (gpointer *) &get_descriptor) ||
        get_descriptor == NULL) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: not a throng plugin: no symbol %s", module->path, THRONG_PLUGIN_SYMBOL);
        g_module_close (gmodule);
        return FALSE;
    }
    descriptor = get_descriptor ();
    if (!check_descriptor (module->path, module->name, descriptor, error)) {
        g_module_close (gmodule);
        return FALSE;
    }

    ok = descriptor->init (&host, &init_error);
    if (host.error != NULL || !ok) {
        /* A refused registration explains more than the init failure it caused. */
        if (host.error != NULL)
            g_propagate_error (error, g_steal_pointer (&host.error));
        else
            g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                         "%s: init failed: %s", module->path,
                         init_error != NULL ? init_error->message : "no reason given");
        g_ptr_array_set_size (module->impls, 0);
        g_module_close (gmodule);
        return FALSE;
    }
    if (module->impls->len == 0) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                     "%s: plugin registers no protocol and no reporter", module->path);
        g_module_close (gmodule);
        return FALSE;
    }

    /*
     * Never unloaded: a plugin may have registered GTypes or handed
     * callbacks to libraries that outlive the registry, as GStreamer's
     * plugins do.
     */
    g_module_make_resident (gmodule);
    module->module = gmodule;
    module->version = g_strdup (descriptor->version);
    for (guint i = 0; i < module->impls->len; i++) {
        ThrongImpl *impl = g_ptr_array_index (module->impls, i);

        g_hash_table_insert (table_for (registry, impl->kind), impl->name, impl);
    }
    return TRUE;
}

static ThrongModule *
load_module (ThrongRegistry *registry, const char *name, const char *path)
{
    ThrongModule *module = g_new0 (ThrongModule, 1);
    g_autoptr (GError) error = NULL;

    module->name = g_strdup (name);
    module->path = g_strdup (path);
    module->impls = g_ptr_array_new_with_free_func (impl_free);
    /* One line, whatever a plugin's init put in its message. */
    if (!open_module (registry, module, &error))
        module->error = g_strdelimit (g_strdup (error->message), "\r\n", ' ');
    if (module->error != NULL)
        g_debug ("plugin %s: refused: %s", name, module->error);
    else
        g_debug ("plugin %s: loaded %s, version %s, %u implementation%s", name, path,
                 module->version, module->impls->len, module->impls->len == 1 ? "" : "s");
    g_hash_table_insert (registry->modules, module->name, module);
    return module;
}

static char *
find_module_file (ThrongRegistry *registry, const char *name)
{
    g_autoptr (GPtrArray) dirs = throng_plugin_path_dirs (&registry->path, NULL);
    g_autofree char *file = g_strconcat (MODULE_PREFIX, name, MODULE_SUFFIX, NULL);

    for (guint i = 0; i < dirs->len; i++) {
        g_autofree char *path = g_build_filename (g_ptr_array_index (dirs, i), file, NULL);

        if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            return g_steal_pointer (&path);
        g_debug ("plugin %s: no %s", name, path);
    }
    return NULL;
}

static const void *
get_impl (ThrongRegistry *registry, ThrongPluginKind kind, const char *name, GError **error)
{
    GHashTable *table = table_for (registry, kind);
    ThrongImpl *impl = g_hash_table_lookup (table, name);
    ThrongModule *module;

    if (impl != NULL)
        return impl->vtable;
    if (!valid_plugin_name (name)) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND,
                     "'%s' is not a valid plugin name", name);
        return NULL;
    }
    module = g_hash_table_lookup (registry->modules, name);
    if (module == NULL) {
        g_autofree char *path = find_module_file (registry, name);

        if (path == NULL) {
            g_autofree char *where = throng_registry_describe_path (registry);

            g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND,
                         "no %s named '%s': no " MODULE_PREFIX "%s" MODULE_SUFFIX " in %s",
                         kind_name (kind), name, name, where);
            return NULL;
        }
        module = load_module (registry, name, path);
    }
    if (module->error != NULL) {
        g_set_error_literal (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD,
                             module->error);
        return NULL;
    }
    impl = g_hash_table_lookup (table, name);
    if (impl == NULL) {
        g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND,
                     "no %s named '%s': %s provides none", kind_name (kind), name, module->path);
        return NULL;
    }
    return impl->vtable;
}

const ThrongProtocol *
throng_registry_get_protocol (ThrongRegistry *registry, const char *name, GError **error)
{
    g_return_val_if_fail (registry != NULL, NULL);
    g_return_val_if_fail (name != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    return get_impl (registry, THRONG_PLUGIN_KIND_PROTOCOL, name, error);
}

const ThrongReporter *
throng_registry_get_reporter (ThrongRegistry *registry, const char *name, GError **error)
{
    g_return_val_if_fail (registry != NULL, NULL);
    g_return_val_if_fail (name != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    return get_impl (registry, THRONG_PLUGIN_KIND_REPORTER, name, error);
}

static void
info_free (gpointer data)
{
    ThrongPluginInfo *info = data;

    g_free (info->name);
    g_free (info->version);
    g_free (info->path);
    g_free (info->dir);
    g_free (info->error);
    g_free (info);
}

static ThrongPluginInfo *
info_new (ThrongModule *module, const char *dir, const char *origin)
{
    ThrongPluginInfo *info = g_new0 (ThrongPluginInfo, 1);

    info->path = g_strdup (module->path);
    info->dir = g_strdup (dir);
    info->origin = origin;
    return info;
}

/* What @module offers, in the order its init registered it; one refused entry when refused. */
static void
add_infos (GPtrArray *infos, ThrongModule *module, const char *dir, const char *origin)
{
    if (module->error != NULL) {
        ThrongPluginInfo *info = info_new (module, dir, origin);

        info->name = g_strdup (module->name);
        info->kind = THRONG_PLUGIN_KIND_PROTOCOL;
        info->version = g_strdup ("");
        info->error = g_strdup (module->error);
        g_ptr_array_add (infos, info);
        return;
    }
    for (guint i = 0; i < module->impls->len; i++) {
        ThrongImpl *impl = g_ptr_array_index (module->impls, i);
        ThrongPluginInfo *info = info_new (module, dir, origin);

        info->name = g_strdup (impl->name);
        info->kind = impl->kind;
        info->version = g_strdup (module->version);
        g_ptr_array_add (infos, info);
    }
}

GPtrArray *
throng_registry_scan (ThrongRegistry *registry)
{
    g_autoptr (GPtrArray) dirs = NULL;
    g_autoptr (GPtrArray) origins = NULL;
    g_autoptr (GHashTable) seen = NULL;
    GPtrArray *infos;

    g_return_val_if_fail (registry != NULL, NULL);

    dirs = throng_plugin_path_dirs (&registry->path, &origins);
    seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    infos = g_ptr_array_new_with_free_func (info_free);
    for (guint i = 0; i < dirs->len; i++) {
        const char *dir_path = g_ptr_array_index (dirs, i);
        g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
        g_autoptr (GPtrArray) files = NULL;
        const char *entry;

        if (dir == NULL)
            continue;
        files = g_ptr_array_new_with_free_func (g_free);
        while ((entry = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (files, g_strdup (entry));
        throng_plugin_path_sort (files);

        for (guint j = 0; j < files->len; j++) {
            const char *file = g_ptr_array_index (files, j);
            g_autofree char *name = name_from_file (file);
            g_autofree char *path = NULL;
            ThrongModule *module;

            if (name == NULL || g_hash_table_contains (seen, name))
                continue;
            path = g_build_filename (dir_path, file, NULL);
            if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
                continue;
            module = g_hash_table_lookup (registry->modules, name);
            if (module == NULL)
                module = load_module (registry, name, path);
            add_infos (infos, module, dir_path, g_ptr_array_index (origins, i));
            g_hash_table_add (seen, g_steal_pointer (&name));
        }
    }
    return infos;
}

/* Refuses a registration: the error goes to the plugin and is kept for the load's message. */
static gboolean
refuse (ThrongPluginHost *host, GError **error, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
refuse (ThrongPluginHost *host, GError **error, const char *format, ...)
{
    g_autofree char *message = NULL;
    va_list args;

    va_start (args, format);
    message = g_strdup_vprintf (format, args);
    va_end (args);
    if (host->error == NULL)
        host->error = g_error_new (THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD, "%s: %s",
                                   host->module->path, message);
    g_set_error (error, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_LOAD, "%s: %s",
                 host->module->path, message);
    return FALSE;
}

static ThrongImpl *
find_registered (ThrongPluginHost *host, ThrongPluginKind kind, const char *name,
                 ThrongModule **owner)
{
    ThrongImpl *impl = g_hash_table_lookup (table_for (host->registry, kind), name);

    if (impl != NULL) {
        *owner = impl->module;
        return impl;
    }
    /* Not yet committed: this module's own earlier registrations. */
    for (guint i = 0; i < host->module->impls->len; i++) {
        impl = g_ptr_array_index (host->module->impls, i);
        if (impl->kind == kind && strcmp (impl->name, name) == 0) {
            *owner = host->module;
            return impl;
        }
    }
    return NULL;
}

/*
 * What both kinds share once the hooks are checked: a valid, unused name,
 * and the table itself, or @padded (the table read into a zeroed
 * core-sized struct) when the plugin's is smaller than the core's.
 */
static gboolean
register_impl (ThrongPluginHost *host, ThrongPluginKind kind, const void *vtable,
               const void *padded, gsize size, gsize core_size, const char *name, GError **error)
{
    ThrongModule *owner = NULL;
    ThrongImpl *impl;

    if (name[0] == '\0')
        return refuse (host, error, "%s with an empty name", kind_name (kind));
    if (find_registered (host, kind, name, &owner) != NULL) {
        if (owner == host->module)
            return refuse (host, error, "%s '%s' is registered twice", kind_name (kind), name);
        return refuse (host, error, "%s '%s' is already registered by %s", kind_name (kind),
                       name, owner->path);
    }

    impl = g_new0 (ThrongImpl, 1);
    impl->kind = kind;
    impl->name = g_strdup (name);
    impl->module = host->module;
    if (size < core_size) {
        memcpy (&impl->copy, padded, core_size);
        impl->vtable = &impl->copy;
    } else {
        impl->vtable = vtable;
    }
    g_ptr_array_add (host->module->impls, impl);
    return TRUE;
}

/* The beginning that every vtable shares. */
typedef struct {
    gsize size;
    const char *name;
} VtableHead;

G_STATIC_ASSERT (offsetof (ThrongProtocol, name) == offsetof (VtableHead, name));
G_STATIC_ASSERT (offsetof (ThrongReporter, name) == offsetof (VtableHead, name));

/*
 * Reads a plugin's vtable @src of @kind ("protocol", "reporter") into
 * @dest, a zeroed struct of the core's @core_size, never past the
 * plugin's size; refuses one smaller than @required (naming it when its
 * size covers the name) or without a name.
 */
static gboolean
read_vtable (ThrongPluginHost *host, const char *kind, void *dest, gsize core_size,
             const void *src, gsize required, GError **error)
{
    const VtableHead *head = src;

    memset (dest, 0, core_size);
    memcpy (dest, src, MIN (head->size, core_size));
    if (head->size < required) {
        if (THRONG_STRUCT_HAS (head, VtableHead, name) && head->name != NULL)
            return refuse (host, error,
                           "%s '%s': vtable size %" G_GSIZE_FORMAT
                           " is too small (at least %" G_GSIZE_FORMAT ")",
                           kind, head->name, head->size, required);
        return refuse (host, error,
                       "%s vtable size %" G_GSIZE_FORMAT " is too small (at least %" G_GSIZE_FORMAT
                       ")",
                       kind, head->size, required);
    }
    if (head->name == NULL)
        return refuse (host, error, "%s has no name", kind);
    return TRUE;
}

gboolean
throng_plugin_host_register_protocol (ThrongPluginHost *host, const ThrongProtocol *protocol,
                                      GError **error)
{
    const gsize required = THRONG_STRUCT_END (ThrongProtocol, step_run);
    ThrongProtocol p;
    const char *missing = NULL;

    g_return_val_if_fail (host != NULL, FALSE);
    g_return_val_if_fail (protocol != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    if (!read_vtable (host, "protocol", &p, sizeof p, protocol, required, error))
        return FALSE;
    if (p.scenario_new == NULL)
        missing = "scenario_new";
    else if (p.scenario_free == NULL)
        missing = "scenario_free";
    else if (p.step_new == NULL)
        missing = "step_new";
    else if (p.step_free == NULL)
        missing = "step_free";
    else if (p.user_new == NULL && p.user_new_checked == NULL)
        missing = "user_new";
    else if (p.user_free == NULL)
        missing = "user_free";
    else if (p.step_run == NULL)
        missing = "step_run";
    if (missing != NULL)
        return refuse (host, error, "protocol '%s' has no %s", p.name, missing);

    return register_impl (host, THRONG_PLUGIN_KIND_PROTOCOL, protocol, &p, protocol->size, sizeof p,
                          p.name, error);
}

gboolean
throng_plugin_host_register_reporter (ThrongPluginHost *host, const ThrongReporter *reporter,
                                      GError **error)
{
    const gsize required = THRONG_STRUCT_END (ThrongReporter, free);
    ThrongReporter r;
    const char *missing = NULL;

    g_return_val_if_fail (host != NULL, FALSE);
    g_return_val_if_fail (reporter != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    if (!read_vtable (host, "reporter", &r, sizeof r, reporter, required, error))
        return FALSE;
    if (r.configure == NULL)
        missing = "configure";
    else if (r.close == NULL)
        missing = "close";
    else if (r.free == NULL)
        missing = "free";
    if (missing != NULL)
        return refuse (host, error, "reporter '%s' has no %s", r.name, missing);

    return register_impl (host, THRONG_PLUGIN_KIND_REPORTER, reporter, &r, reporter->size, sizeof r,
                          r.name, error);
}
