/* SPDX-License-Identifier: MIT */
/*
 * baseline: an example throng reporter plugin that reads an earlier run's
 * result file with the SDK's run-file reader (<throng/runfile.h>) and, at
 * the end of this run, writes how each scenario compares with it:
 * requests, errors and the 95th percentile of latency, exactly (the
 * earlier run's histograms are read back whole, not its rounded figures).
 * With `save`, it also writes this run's summary with the SDK's run-file
 * writer, the same document the json reporter writes, as the next run's
 * baseline.
 *
 *   reporters:
 *     - baseline:
 *         path: yesterday.json     # required: a json reporter's file, or a saved one
 *         out: compare.txt         # required: where the comparison goes
 *         save: today.json         # optional: this run, for the next
 *
 *   total requests 1200 (baseline 1180) errors 0 (baseline 2) p95 41.2 ms (baseline 39.8 ms, +3.5%)
 *
 * A baseline that cannot be read fails the run before any load is sent,
 * with the reader's message ("PATH:LINE: …").
 *
 * Build:
 *   cc -shared -fPIC -o libthrong-baseline.so baseline.c \
 *       $(pkg-config --cflags throng-1) $(pkg-config --libs glib-2.0)
 */
#include <stdio.h>
#include <string.h>

#include <throng/throng.h>

typedef struct {
    char *path;
    char *out;
    char *save;
} BaselineOptions;

static const ThrongOption baseline_options[] = {
    { .name = "path", .type = THRONG_OPTION_STRING, .offset = offsetof (BaselineOptions, path) },
    { .name = "out", .type = THRONG_OPTION_STRING, .offset = offsetof (BaselineOptions, out) },
    { .name = "save", .type = THRONG_OPTION_STRING, .offset = offsetof (BaselineOptions, save) },
    { .name = NULL },
};

typedef struct {
    BaselineOptions options;
    ThrongRunFile *file;
    ThrongRunFileWriter *writer; /* with `save` */
} Baseline;

static gpointer
baseline_configure (const ThrongNode *options, GError **error)
{
    Baseline *self = g_new0 (Baseline, 1);

    if (!throng_options_apply (options, baseline_options, &self->options, FALSE,
                               "baseline options", error)) {
        g_free (self);
        return NULL;
    }
    if (self->options.path == NULL || self->options.out == NULL) {
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             "baseline needs `path` (an earlier run's jsonl file) and `out`");
        throng_options_clear (baseline_options, &self->options);
        g_free (self);
        return NULL;
    }
    return self;
}

/* Read at the start, so that a missing or broken baseline stops the run before its load. */
static gboolean
baseline_open (gpointer data, const ThrongRunInfo *run, GError **error)
{
    Baseline *self = data;

    self->file = throng_run_file_open (self->options.path, error);
    if (self->file == NULL)
        return FALSE;
    /* The writer keeps what the summary does not say: scenario targets, the plan's hash. */
    if (self->options.save != NULL)
        self->writer = throng_run_file_writer_new (run);
    return TRUE;
}

/* This run's summary as the json reporter's `mode: summary` writes it. */
static gboolean
baseline_save (Baseline *self, const ThrongSummary *summary, GError **error)
{
    g_autoptr (GString) document = g_string_new (NULL);

    throng_run_file_writer_append_summary (self->writer, document, summary,
                                           THRONG_RUN_FILE_DOCUMENT);
    return g_file_set_contents (self->options.save, document->str, (gssize) document->len, error);
}

static void
append_stats (GString *out, const char *name, const ThrongStats *now, const ThrongStats *then)
{
    gdouble p95_now = (gdouble) throng_histogram_percentile (now->latency, 95.0) / 1000.0;

    g_string_append_printf (out, "%s requests %" G_GUINT64_FORMAT, name, now->requests);
    if (then == NULL) {
        g_string_append_printf (out, " (not in the baseline) errors %" G_GUINT64_FORMAT
                                " p95 %.1f ms\n", now->errors, p95_now);
        return;
    }
    gdouble p95_then = (gdouble) throng_histogram_percentile (then->latency, 95.0) / 1000.0;
    g_string_append_printf (out, " (baseline %" G_GUINT64_FORMAT ") errors %" G_GUINT64_FORMAT
                            " (baseline %" G_GUINT64_FORMAT ") p95 %.1f ms (baseline %.1f ms",
                            then->requests, now->errors, then->errors, p95_now, p95_then);
    if (p95_then > 0)
        g_string_append_printf (out, ", %+.1f%%", (p95_now / p95_then - 1.0) * 100.0);
    g_string_append (out, ")\n");
}

/* Scenarios are matched by name: a plan may have gained or lost one since. */
static const ThrongScenarioSummary *
find_scenario (const ThrongSummary *summary, const char *name)
{
    for (guint s = 0; s < summary->n_scenarios; s++)
        if (g_strcmp0 (summary->scenarios[s].name, name) == 0)
            return &summary->scenarios[s];
    return NULL;
}

static gboolean
baseline_close (gpointer data, const ThrongSummary *summary, GError **error)
{
    Baseline *self = data;
    g_autoptr (GString) out = g_string_new (NULL);

    /* A run that never started compares with nothing. */
    if (self->file == NULL || summary->never_started)
        return TRUE;
    const ThrongSummary *then = throng_run_file_summary (self->file);
    append_stats (out, "total", &summary->total, &then->total);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *was = find_scenario (then, summary->scenarios[s].name);
        g_autofree char *name = g_strdup_printf ("scenario %s", summary->scenarios[s].name);
        append_stats (out, name, &summary->scenarios[s].stats, was != NULL ? &was->stats : NULL);
    }
    if (self->writer != NULL && !baseline_save (self, summary, error))
        return FALSE;
    return g_file_set_contents (self->options.out, out->str, (gssize) out->len, error);
}

static void
baseline_free (gpointer data)
{
    Baseline *self = data;

    throng_run_file_free (self->file);
    throng_run_file_writer_free (self->writer);
    throng_options_clear (baseline_options, &self->options);
    g_free (self);
}

static const ThrongReporter baseline_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "baseline",
    .configure = baseline_configure,
    .open = baseline_open,
    .close = baseline_close,
    .free = baseline_free,
};

static gboolean
baseline_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &baseline_reporter, error);
}

static const ThrongPluginDescriptor baseline_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "baseline",
    .version = "1.0",
    .description = "compares a run with an earlier run's result file, and saves this run's",
    .init = baseline_init,
};

THRONG_PLUGIN_DEFINE (baseline_descriptor)
