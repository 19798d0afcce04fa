/* SPDX-License-Identifier: MIT */
/*
 * The `failing` protocol, for the fault tests: every step fails.  It is
 * the plugin that returns an error from every step, in the ways a careless
 * third-party plugin might:
 *
 *   steps:
 *     - failing: { mode: async }      # class other, with a message, later
 *     - failing: { mode: sync }       # the same, completed inside step_run
 *     - failing: { mode: nomessage }  # class other, message NULL
 *     - failing: { mode: badclass }   # a class value the SDK does not know
 *
 * The core must count each sample once, in the class the SDK promises
 * (an unknown value counts as `other`), and neither crash nor log.
 */
#include <throng/throng.h>

enum { MODE_ASYNC, MODE_SYNC, MODE_NOMESSAGE, MODE_BADCLASS };

/* Far past every class and every counter slot (THRONG_ERROR_CLASS_SLOTS). */
#define BAD_CLASS 4242

typedef struct {
    int mode;
} FailingStep;

typedef struct {
    GSource source;
    ThrongUser *user;
    ThrongSample *sample;
    const FailingStep *step;
} FailingUser;

static const char *const mode_choices[] = { "async", "sync", "nomessage", "badclass", NULL };

static const ThrongOption step_options[] = {
    { "mode", THRONG_OPTION_ENUM, offsetof (FailingStep, mode), .choices = mode_choices },
    { NULL },
};

static gpointer
failing_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    return g_malloc0 (1);
}

static gpointer
failing_step_new (gpointer scenario, const ThrongNode *options, char **label, GError **error)
{
    g_autofree FailingStep *step = g_new0 (FailingStep, 1);

    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, step_options, step, TRUE, "failing options", error))
        return NULL;
    *label = g_strconcat ("failing ", mode_choices[step->mode], NULL);
    return g_steal_pointer (&step);
}

static void
fail_now (FailingUser *self)
{
    ThrongSample *sample = self->sample;
    ThrongUser *user = self->user;

    switch (self->step->mode) {
    case MODE_NOMESSAGE:
        sample->error = THRONG_ERROR_OTHER;
        sample->message = NULL;
        break;
    case MODE_BADCLASS:
        sample->error = (ThrongErrorClass)BAD_CLASS;
        sample->message = "failing: a class from the future";
        break;
    default:
        sample->error = THRONG_ERROR_OTHER;
        sample->message = "failing: refused on purpose";
        break;
    }
    self->sample = NULL;
    self->step = NULL;
    throng_user_step_done (user);
}

static gboolean
failing_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    FailingUser *self = (FailingUser *)source;

    g_source_set_ready_time (source, -1);
    if (self->step != NULL)
        fail_now (self);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs failing_source_funcs = {
    .dispatch = failing_dispatch,
};

static gpointer
failing_user_new (gpointer scenario, ThrongUser *user)
{
    GSource *source = g_source_new (&failing_source_funcs, sizeof (FailingUser));

    ((FailingUser *)source)->user = user;
    g_source_attach (source, throng_user_get_context (user));
    return source;
}

static void
failing_user_free (gpointer user_data)
{
    g_source_destroy (user_data);
    g_source_unref (user_data);
}

static void
failing_step_run (gpointer user_data, gpointer step_data, ThrongSample *sample)
{
    FailingUser *self = user_data;

    self->step = step_data;
    self->sample = sample;
    if (self->step->mode == MODE_SYNC)
        fail_now (self);
    else
        g_source_set_ready_time (&self->source, g_get_monotonic_time () + 1000);
}

static const ThrongProtocol failing_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "failing",
    .scenario_new = failing_scenario_new,
    .scenario_free = g_free,
    .step_new = failing_step_new,
    .step_free = g_free,
    .user_new = failing_user_new,
    .user_free = failing_user_free,
    .step_run = failing_step_run,
};

static gboolean
failing_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &failing_protocol, error);
}

static const ThrongPluginDescriptor failing_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "failing",
    .version = THRONG_VERSION_STRING,
    .description = "a protocol whose every step fails, for the fault tests",
    .init = failing_init,
};

THRONG_PLUGIN_DEFINE (failing_descriptor)
