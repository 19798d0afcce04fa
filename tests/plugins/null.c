/* SPDX-License-Identifier: MIT */
/*
 * The `null` protocol, for engine and plan tests that need no network: a
 * step waits its `delay` on the user's worker context and completes with
 * the status, size and error class its options say.  A step without delay
 * completes inside step_run, which the core must handle.
 *
 *   defaults: { null: { delay: 5ms } }          # default delay of every step
 *   null: { fail_user: 3 }                      # creating user 3 fails (user_new_checked)
 *   steps:
 *     - null: { delay: 10ms, status: 503, bytes: 100, fail: status }
 *     - null: { message: true, pad: 600 }       # "iteration N" + 600 × "é", per request
 *
 * Per user it keeps one source, attached once and re-armed with a ready
 * time for each step, so a step allocates nothing.  A per-request message
 * is formatted in a buffer of the user's that the next request overwrites
 * (and that is scribbled over right after the call), as a real plugin's
 * error text would be: only throng_sample_set_message() makes it safe.

 */
#include <throng/throng.h>

#include <string.h>

typedef struct {
    gint64 delay;
    guint64 fail_user;          /* G_MAXUINT64: none */
} NullScenario;

typedef struct {
    gint64 delay;
    int fail;
    guint64 status;
    guint64 bytes;
    gboolean message;
    guint64 pad;
} NullStep;

typedef struct {
    GSource source;
    ThrongUser *user;
    const NullStep *step;
    ThrongSample *sample;
    gboolean connected;
    GString *text;              /* the per-request message, overwritten by every request */
} NullUser;

static const ThrongOption scenario_options[] = {
    { "delay", THRONG_OPTION_DURATION, offsetof (NullScenario, delay), .min = 0 },
    { "fail_user", THRONG_OPTION_UINT, offsetof (NullScenario, fail_user) },
    { NULL },
};

/* Indexed like ThrongErrorClass, whose names they are. */
static const char *const fail_choices[] = {
    "none",   "connect",  "dns",    "tls",        "certificate", "timeout",
    "reset",  "protocol", "status", "body-limit", "other",       NULL,
};

static const ThrongOption step_options[] = {
    { "delay", THRONG_OPTION_DURATION, offsetof (NullStep, delay), .min = 0 },
    { "fail", THRONG_OPTION_ENUM, offsetof (NullStep, fail), .choices = fail_choices },
    { "status", THRONG_OPTION_UINT, offsetof (NullStep, status), .min = 0, .max = 999 },
    { "bytes", THRONG_OPTION_UINT, offsetof (NullStep, bytes) },
    { "message", THRONG_OPTION_BOOL, offsetof (NullStep, message) },
    { "pad", THRONG_OPTION_UINT, offsetof (NullStep, pad), .min = 0, .max = 100000 },
    { NULL },
};

static gboolean
apply (const ThrongNode *node, const ThrongOption *table, gpointer base, gboolean in_step,
       GError **error)
{
    if (node == NULL || throng_node_is_null (node))
        return TRUE;
    return throng_options_apply (node, table, base, in_step, "null options", error);
}

static gpointer
null_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    g_autofree NullScenario *scenario = g_new0 (NullScenario, 1);

    scenario->fail_user = G_MAXUINT64;

    if (!apply (setup->defaults, scenario_options, scenario, FALSE, error) ||
        !apply (setup->options, scenario_options, scenario, FALSE, error))
        return NULL;
    return g_steal_pointer (&scenario);
}

static void
null_scenario_free (gpointer scenario)
{
    g_free (scenario);
}

static char *
format_delay (gint64 us)
{
    if (us != 0 && us % G_USEC_PER_SEC == 0)
        return g_strdup_printf ("%" G_GINT64_FORMAT "s", us / G_USEC_PER_SEC);
    if (us % 1000 == 0)
        return g_strdup_printf ("%" G_GINT64_FORMAT "ms", us / 1000);
    return g_strdup_printf ("%" G_GINT64_FORMAT "us", us);
}

static gpointer
null_step_new (gpointer scenario_data, const ThrongNode *options, char **label, GError **error)
{
    const NullScenario *scenario = scenario_data;
    g_autofree NullStep *step = g_new0 (NullStep, 1);
    g_autofree char *delay = NULL;

    step->delay = scenario->delay;
    step->fail = THRONG_ERROR_NONE;
    step->status = 200;
    if (!apply (options, step_options, step, TRUE, error))
        return NULL;
    delay = format_delay (step->delay);
    *label = g_strconcat ("null ", delay, NULL);
    return g_steal_pointer (&step);
}

static void
null_step_free (gpointer step)
{
    g_free (step);
}

static void
complete (NullUser *self)
{
    const NullStep *step = self->step;
    ThrongSample *sample = self->sample;
    ThrongUser *user = self->user;
    gint64 waited = g_get_monotonic_time () - sample->start_us;

    sample->latency_us = MAX (waited, 0);
    if (!self->connected) {
        sample->connections_opened = 1;
        self->connected = TRUE;
    }
    sample->error = step->fail;
    switch (step->fail) {
    case THRONG_ERROR_CONNECT:
    case THRONG_ERROR_DNS:
    case THRONG_ERROR_TLS:
    case THRONG_ERROR_CERTIFICATE:
    case THRONG_ERROR_TIMEOUT:
        /* These fail before any response: no status, nothing received. */
        sample->message = "null: injected failure";
        break;
    case THRONG_ERROR_NONE:
        sample->status = (gint32) step->status;
        sample->bytes_received = step->bytes;
        break;
    default:
        sample->message = "null: injected failure";
        sample->status = (gint32) step->status;
        sample->bytes_received = step->bytes;
        break;
    }
    if (step->message) {
        g_string_printf (self->text, "iteration %" G_GUINT64_FORMAT " ",
                         throng_user_get_iteration (user));
        for (guint64 i = 0; i < step->pad; i++)
            g_string_append (self->text, "\u00e9");
        throng_sample_set_message (sample, self->text->str);
        /* What a plugin does with its own buffer afterwards is its business. */
        memset (self->text->str, 'X', self->text->len);
    }
    self->step = NULL;
    self->sample = NULL;
    /* May run the next step or free this user: nothing of self is touched after it. */
    throng_user_step_done (user);
}

static gboolean
null_source_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    NullUser *self = (NullUser *) source;

    g_source_set_ready_time (source, -1);
    if (self->step != NULL)
        complete (self);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs null_source_funcs = {
    .dispatch = null_source_dispatch,
};

static gpointer
null_user_new_checked (gpointer scenario_data, ThrongUser *user, GError **error)
{
    const NullScenario *scenario = scenario_data;

    if (throng_user_get_id (user) == scenario->fail_user) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_MFILE,
                     "null: out of file descriptors (injected for user %u)",
                     throng_user_get_id (user));
        return NULL;
    }
    GSource *source = g_source_new (&null_source_funcs, sizeof (NullUser));
    NullUser *self = (NullUser *) source;

    self->user = user;
    self->text = g_string_new (NULL);
    g_source_set_name (source, "throng-null step");
    g_source_attach (source, throng_user_get_context (user));
    return self;
}

/* For a core older than user_new_checked (this one calls that instead). */
static gpointer
null_user_new (gpointer scenario_data, ThrongUser *user)
{
    return null_user_new_checked (scenario_data, user, NULL);
}

/* Cancels a pending step without completing it, as user_free must. */
static void
null_user_free (gpointer user_data)
{
    GSource *source = user_data;

    g_string_free (((NullUser *) source)->text, TRUE);
    g_source_destroy (source);
    g_source_unref (source);
}

static void
null_step_run (gpointer user_data, gpointer step_data, ThrongSample *sample)
{
    NullUser *self = user_data;
    const NullStep *step = step_data;

    self->step = step;
    self->sample = sample;
    if (step->delay == 0) {
        complete (self);
        return;
    }
    g_source_set_ready_time (&self->source, g_get_monotonic_time () + step->delay);
}

static const ThrongProtocol null_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "null",
    .scenario_new = null_scenario_new,
    .scenario_free = null_scenario_free,
    .step_new = null_step_new,
    .step_free = null_step_free,
    .user_new = null_user_new,
    .user_new_checked = null_user_new_checked,
    .user_free = null_user_free,
    .step_run = null_step_run,
};

static gboolean
null_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &null_protocol, error);
}

static const ThrongPluginDescriptor null_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "null",
    .version = THRONG_VERSION_STRING,
    .description = "a protocol that waits and succeeds, for tests without a network",
    .init = null_init,
};

THRONG_PLUGIN_DEFINE (null_descriptor)
