/* SPDX-License-Identifier: MIT */
/*
 * The `slow` reporter, for the pipeline test: it wants every sample and
 * takes `pause` (default 20 ms) over each batch, so that a fast run makes
 * it fall behind.  It counts what it received and writes the count to
 * `path` at close, so the test can compare it with the run's total.
 */
#include <throng/throng.h>

#include <stdio.h>

typedef struct {
    char *path;
    gint64 pause;
    guint64 received;
} SlowReporter;

static const ThrongOption slow_options[] = {
    { "path", THRONG_OPTION_STRING, offsetof (SlowReporter, path) },
    { "pause", THRONG_OPTION_DURATION, offsetof (SlowReporter, pause), .min = 0,
      .max = 10 * G_USEC_PER_SEC },
    { NULL },
};

static void
slow_free (gpointer data)
{
    SlowReporter *self = data;

    throng_options_clear (slow_options, self);
    g_free (self);
}

static gpointer
slow_configure (const ThrongNode *options, GError **error)
{
    SlowReporter *self = g_new0 (SlowReporter, 1);

    self->pause = 20 * 1000;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, slow_options, self, FALSE, "slow options", error)) {
        slow_free (self);
        return NULL;
    }
    if (self->path == NULL) {
        throng_node_set_error (options, error, THRONG_PLAN_ERROR_MISSING,
                               "the slow reporter needs a path");
        slow_free (self);
        return NULL;
    }
    return self;
}

static void
slow_samples (gpointer data, const ThrongSample *samples, gsize n_samples)
{
    SlowReporter *self = data;

    self->received += n_samples;
    g_usleep ((gulong) self->pause);
}

static gboolean
slow_close (gpointer data, const ThrongSummary *summary, GError **error)
{
    SlowReporter *self = data;
    g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", self->received);

    return g_file_set_contents (self->path, text, -1, error);
}

static const ThrongReporter slow_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "slow",
    .configure = slow_configure,
    .samples = slow_samples,
    .close = slow_close,
    .free = slow_free,
};

static gboolean
slow_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &slow_reporter, error);
}

static const ThrongPluginDescriptor slow_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "slow",
    .version = THRONG_VERSION_STRING,
    .description = "a reporter that falls behind on purpose (tests only)",
    .init = slow_init,
};

THRONG_PLUGIN_DEFINE (slow_descriptor)
