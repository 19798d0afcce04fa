/* SPDX-License-Identifier: MIT */
/*
 * wait: the smallest complete throng protocol, to start a new one from.
 * A step waits its `delay` on the user's worker context and succeeds; a
 * step without delay completes inside step_run, which is allowed.  No
 * network, so it also measures what throng itself costs per step.
 *
 *   defaults: { wait: { delay: 5ms } }         # every step's default
 *   scenarios:
 *     - users: 10
 *       iterations: 100
 *       steps:
 *         - wait: {}
 *         - wait: { delay: 20ms }
 *
 * Per user it keeps one GSource, attached once and re-armed with a ready
 * time for each step, so a step allocates nothing.  It is the variant,
 * installed with the docs, of the `null` protocol throng's own tests use.
 *
 * Build:
 *   cc -shared -fPIC -Wall -Wextra -o libthrong-wait.so wait.c \
 *       $(pkg-config --cflags throng-1) $(pkg-config --libs glib-2.0)
 */
#include <throng/throng.h>

/* One struct for both layers: the scenario's settings are the step's defaults. */
typedef struct {
    gint64 delay;
} WaitSettings;

static const ThrongOption wait_options[] = {
    { .name = "delay", .type = THRONG_OPTION_DURATION, .offset = offsetof (WaitSettings, delay),
      .min = 0, .max = G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC },
    { .name = NULL },
};

/* The user is its own source: one allocation per user, none per step. */
typedef struct {
    GSource source;
    ThrongUser *user;
    ThrongSample *sample; /* the running step's, NULL between steps */
} WaitUser;

static gpointer
wait_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    WaitSettings *settings = g_new0 (WaitSettings, 1);

    if (!throng_options_apply (setup->defaults, wait_options, settings, FALSE, "wait options",
                               error) ||
        !throng_options_apply (setup->options, wait_options, settings, FALSE, "wait options",
                               error)) {
        g_free (settings);
        return NULL;
    }
    return settings;
}

static gpointer
wait_step_new (gpointer scenario, const ThrongNode *options, char **label, GError **error)
{
    WaitSettings *step = g_memdup2 (scenario, sizeof (WaitSettings));

    if (!throng_options_apply (options, wait_options, step, TRUE, "wait options", error)) {
        g_free (step);
        return NULL;
    }
    *label = g_strdup_printf ("wait %" G_GINT64_FORMAT "ms", step->delay / 1000);
    return step;
}

/* Fills the sample and completes: the last thing done, as always. */
static void
complete (WaitUser *self)
{
    ThrongUser *user = self->user;

    self->sample->latency_us = MAX (g_get_monotonic_time () - self->sample->start_us, 1);
    self->sample = NULL;
    /* May run the next step or free this user: nothing of self is touched after it. */
    throng_user_step_done (user);
}

static gboolean
wait_dispatch (GSource *source, G_GNUC_UNUSED GSourceFunc callback, G_GNUC_UNUSED gpointer data)
{
    WaitUser *self = (WaitUser *) source;

    g_source_set_ready_time (source, -1);
    if (self->sample != NULL)
        complete (self);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs wait_source_funcs = {
    .dispatch = wait_dispatch,
};

static gpointer
wait_user_new (G_GNUC_UNUSED gpointer scenario, ThrongUser *user)
{
    GSource *source = g_source_new (&wait_source_funcs, sizeof (WaitUser));
    WaitUser *self = (WaitUser *) source;

    self->user = user;
    g_source_set_name (source, "throng-wait step");
    g_source_attach (source, throng_user_get_context (user));
    return self;
}

/* Cancels a pending step without completing it, as user_free must. */
static void
wait_user_free (gpointer data)
{
    GSource *source = data;

    g_source_destroy (source);
    g_source_unref (source);
}

static void
wait_step_run (gpointer data, gpointer step_data, ThrongSample *sample)
{
    WaitUser *self = data;
    const WaitSettings *step = step_data;

    self->sample = sample;
    if (step->delay == 0) {
        complete (self);
        return;
    }
    g_source_set_ready_time (&self->source, g_get_monotonic_time () + step->delay);
}

static const ThrongProtocol wait_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "wait",
    .scenario_new = wait_scenario_new,
    .scenario_free = g_free,
    .step_new = wait_step_new,
    .step_free = g_free,
    .user_new = wait_user_new,
    .user_free = wait_user_free,
    .step_run = wait_step_run,
};

static gboolean
wait_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &wait_protocol, error);
}

static const ThrongPluginDescriptor wait_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "wait",
    .version = "1.0",
    .description = "waits a delay and succeeds: the smallest protocol",
    .init = wait_init,
};

THRONG_PLUGIN_DEFINE (wait_descriptor)
