/* SPDX-License-Identifier: MIT */
/*
 * The json reporter: its options, its file and its hooks.  In `summary`
 * mode it writes one document at close, atomically; in `jsonl` mode one
 * object per line as the run goes (intervals, optionally samples) and the
 * summary as the last line.  The lines and the document are the SDK's
 * run-file writer's (<throng/runfile.h>), which `throng report` and
 * `throng merge` read back; this file owns only the options and the file.
 */
#include "json-reporter.h"
#include "output.h"

typedef enum {
    JSON_MODE_SUMMARY,
    JSON_MODE_JSONL,
} JsonMode;

static const char *const json_modes[] = { "summary", "jsonl", NULL };

typedef struct {
    char *path;
    gboolean overwrite;
    int mode;
    gboolean samples;
} JsonOptions;

static const ThrongOption json_options[] = {
    { "path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (JsonOptions, path) },
    { "overwrite", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (JsonOptions, overwrite) },
    { "mode", THRONG_OPTION_ENUM, G_STRUCT_OFFSET (JsonOptions, mode), .choices = json_modes },
    { "samples", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (JsonOptions, samples) },
    { NULL },
};

typedef struct {
    JsonOptions options;
    OutputFile *file;
    ThrongRunFileWriter *writer;
} Json;

static void
json_free (gpointer self)
{
    Json *json = self;

    if (json == NULL)
        return;
    output_file_abort (json->file);
    throng_options_clear (json_options, &json->options);
    throng_run_file_writer_free (json->writer);
    g_free (json);
}

static gpointer
json_configure (const ThrongNode *options, GError **error)
{
    Json *json = g_new0 (Json, 1);
    gboolean has_options = options != NULL && !throng_node_is_null (options);

    if (has_options
        && !throng_options_apply (options, json_options, &json->options, FALSE, "json options",
                                  error)) {
        json_free (json);
        return NULL;
    }
    if (!output_require_path ("json", options, json->options.path, error)) {
        json_free (json);
        return NULL;
    }
    if (json->options.samples && json->options.mode != JSON_MODE_JSONL) {
        throng_node_set_error (throng_node_lookup (options, "samples"), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "'samples: true' needs 'mode: jsonl'; a summary holds no samples");
        json_free (json);
        return NULL;
    }
    return json;
}

static gboolean
json_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Json *json = self;

    /* PATH.tmp now, so that a bad path stops the run before any load, and an
     * existing PATH stays as it is until the run has started: jsonl publishes
     * at the first interval or samples, a summary at close. */
    json->file = output_file_open (json->options.path, json->options.overwrite || run->overwrite,
                                   TRUE, error);
    if (json->file == NULL)
        return FALSE;

    /* The run's scenario and step names, plan hash and targets, for every line. */
    json->writer = throng_run_file_writer_new (run);
    return TRUE;
}

static void
json_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Json *json = self;

    if (json->file == NULL || json->options.mode != JSON_MODE_JSONL || !json->options.samples)
        return;
    output_file_publish (json->file);
    GString *out = output_file_buffer (json->file);
    for (gsize i = 0; i < n_samples; i++) {
        throng_run_file_writer_append_sample (json->writer, out, &samples[i]);
        output_file_commit (json->file);
    }
}

static void
json_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Json *json = self;

    if (json->file == NULL || json->options.mode != JSON_MODE_JSONL)
        return;
    output_file_publish (json->file);
    throng_run_file_writer_append_interval (json->writer, output_file_buffer (json->file),
                                            snapshot);
    output_file_commit (json->file);
    output_file_flush (json->file);
}

static gboolean
json_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Json *json = self;

    if (json->file == NULL)
        return TRUE;
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started) {
        /* The run never started (another reporter's open failed): no results
         * to write, and PATH, never touched (we wrote PATH.tmp), stays as it was. */
        output_file_abort (g_steal_pointer (&json->file));
        return TRUE;
    }
    throng_run_file_writer_append_summary (json->writer, output_file_buffer (json->file), summary,
                                           json->options.mode == JSON_MODE_JSONL
                                               ? THRONG_RUN_FILE_LINE
                                               : THRONG_RUN_FILE_DOCUMENT);
    output_file_commit (json->file);
    return output_file_close (g_steal_pointer (&json->file), error);
}

static gboolean
json_wants_samples (gpointer self)
{
    Json *json = self;

    return json->options.mode == JSON_MODE_JSONL && json->options.samples;
}

const ThrongReporter json_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "json",
    .configure = json_configure,
    .open = json_open,
    .samples = json_samples,
    .snapshot = json_snapshot,
    .close = json_close,
    .free = json_free,
    .wants_samples = json_wants_samples,
};
