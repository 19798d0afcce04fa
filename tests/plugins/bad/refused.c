/* SPDX-License-Identifier: MIT */
/*
 * Modules for the registry's own tests, built once per variant from this
 * file (meson passes -DVARIANT_<NAME>): each but `oldvtable` is refused
 * for exactly one reason, and `oldvtable` is accepted although its
 * reporter vtable predates a hook.  They are built for tests only and
 * live apart from the good test plugins, so that scanning those finds no
 * broken module unless a test asks for this directory.
 */
#include <throng/throng.h>

/* Hooks that do nothing: enough for tables that are only registered. */
static G_GNUC_UNUSED gpointer
stub_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    return g_malloc0 (1);
}

static G_GNUC_UNUSED gpointer
stub_step_new (gpointer scenario, const ThrongNode *options, char **label, GError **error)
{
    *label = g_strdup ("stub");
    return g_malloc0 (1);
}

static G_GNUC_UNUSED gpointer
stub_user_new (gpointer scenario, ThrongUser *user)
{
    return g_malloc0 (1);
}

static G_GNUC_UNUSED void
stub_iteration_begin (gpointer user_data)
{
}

static G_GNUC_UNUSED void
stub_step_run (gpointer user_data, gpointer step, ThrongSample *sample)
{
}

static G_GNUC_UNUSED gpointer
stub_configure (const ThrongNode *options, GError **error)
{
    return g_malloc0 (1);
}

static G_GNUC_UNUSED gboolean
stub_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    return TRUE;
}

static G_GNUC_UNUSED gboolean
stub_wants_samples (gpointer self)
{
    return TRUE;
}

#define STUB_HOOKS(protocol_name)                                                                 \
    .name = (protocol_name), .scenario_new = stub_scenario_new, .scenario_free = g_free,         \
    .step_new = stub_step_new, .step_free = g_free, .user_new = stub_user_new,                    \
    .user_free = g_free, .iteration_begin = stub_iteration_begin, .step_run = stub_step_run

#define STUB_PROTOCOL(protocol_name) .size = sizeof (ThrongProtocol), STUB_HOOKS (protocol_name)

#if defined(VARIANT_NOSYMBOL)

/* A shared object that is not a plugin: it exports something else. */
G_MODULE_EXPORT int throng_not_a_plugin (void);

G_MODULE_EXPORT int
throng_not_a_plugin (void)
{
    return 42;
}

#else

#if defined(VARIANT_TWICE)
#define PLUGIN_NAME "twice"
static const ThrongProtocol protocol = { STUB_PROTOCOL ("null2") };

/* The second registration is refused; init reports it as plugins should. */
static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &protocol, error) &&
           throng_plugin_host_register_protocol (host, &protocol, error);
}

#elif defined(VARIANT_DUPNULL)
#define PLUGIN_NAME "dupnull"
/* Claims the name of the good `null` plugin's protocol. */
static const ThrongProtocol protocol = { STUB_PROTOCOL ("null") };

static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &protocol, error);
}

#elif defined(VARIANT_NULLHOOK)
#define PLUGIN_NAME "nullhook"
static const ThrongProtocol protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "nullhook",
    .scenario_new = stub_scenario_new,
    .scenario_free = g_free,
    .step_new = stub_step_new,
    .step_free = g_free,
    .user_new = stub_user_new,
    .user_free = g_free,
    /* no step_run */
};

/* Ignores the refusal: the registry must refuse the module all the same. */
static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    throng_plugin_host_register_protocol (host, &protocol, NULL);
    return TRUE;
}

#elif defined(VARIANT_SHORTVTABLE)
#define PLUGIN_NAME "shortvtable"
/* A table that ends before step_run, a required hook. */
static const ThrongProtocol protocol = {
    .size = offsetof (ThrongProtocol, iteration_begin),
    STUB_HOOKS ("shortvtable"),
};

static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &protocol, error);
}

#elif defined(VARIANT_NOREPORTERHOOK)
#define PLUGIN_NAME "noreporterhook"
static const ThrongReporter reporter = {
    .size = sizeof (ThrongReporter),
    .name = "noreporterhook",
    .configure = stub_configure,
    .free = g_free,
    /* no close */
};

static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &reporter, error);
}

#elif defined(VARIANT_OLDVTABLE)
#define PLUGIN_NAME "oldvtable"
/*
 * A reporter as a plugin built before `wants_samples` was appended would
 * declare it: its size ends at `free`.  The field is set here to stand for
 * whatever bytes follow an older plugin's table; the registry must not
 * read them.
 */
static const ThrongReporter reporter = {
    .size = offsetof (ThrongReporter, wants_samples),
    .name = "oldvtable",
    .configure = stub_configure,
    .close = stub_close,
    .free = g_free,
    .wants_samples = stub_wants_samples,
};

/* A table from a newer SDK with a hook this core does not know. */
typedef struct {
    ThrongProtocol base;
    void (*future_hook) (gpointer user_data);
} NewerProtocol;

static const NewerProtocol newer = {
    .base = { .size = sizeof (NewerProtocol), STUB_HOOKS ("newvtable") },
    .future_hook = stub_iteration_begin,
};

static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &reporter, error) &&
           throng_plugin_host_register_protocol (host, &newer.base, error);
}

#elif defined(VARIANT_INITFAILS)
#define PLUGIN_NAME "initfails"
static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no licence file");
    return FALSE;
}

#elif defined(VARIANT_EMPTY)
#define PLUGIN_NAME "empty"
static gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    return TRUE;
}

#else /* the descriptor's own refusals */

static G_GNUC_UNUSED gboolean
plugin_init (ThrongPluginHost *host, GError **error)
{
    g_error ("a refused plugin's init must not run");
    return FALSE;
}

#endif

#if defined(VARIANT_BADABI)
static const ThrongPluginDescriptor descriptor = {
    .abi = THRONG_ABI_VERSION + 1,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "badabi",
    .version = "1.0",
    .init = plugin_init,
};
THRONG_PLUGIN_DEFINE (descriptor)

#elif defined(VARIANT_NOINIT)
static const ThrongPluginDescriptor descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "noinit",
    .version = "1.0",
    .init = NULL,
};
THRONG_PLUGIN_DEFINE (descriptor)

#elif defined(VARIANT_SMALLDESCRIPTOR)
static const ThrongPluginDescriptor descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = 8,
    .name = "smalldescriptor",
    .version = "1.0",
    .init = plugin_init,
};
THRONG_PLUGIN_DEFINE (descriptor)

#elif defined(VARIANT_WRONGNAME)
static const ThrongPluginDescriptor descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "rightname",
    .version = "1.0",
    .init = plugin_init,
};
THRONG_PLUGIN_DEFINE (descriptor)

#elif defined(VARIANT_NODESCRIPTOR)
/* The getter exists but returns nothing. */
G_MODULE_EXPORT const ThrongPluginDescriptor *throng_plugin_get_descriptor (void);

G_MODULE_EXPORT const ThrongPluginDescriptor *
throng_plugin_get_descriptor (void)
{
    return NULL;
}

#else
static const ThrongPluginDescriptor descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = PLUGIN_NAME,
    .version = "1.0",
    .description = "a module for the registry's tests",
    .init = plugin_init,
};
THRONG_PLUGIN_DEFINE (descriptor)
#endif

#endif /* !VARIANT_NOSYMBOL */
