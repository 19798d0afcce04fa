/* SPDX-License-Identifier: MIT */
/*
 * The json reporter: its options, its file and its hooks.  In `summary`
 * mode it writes one document at close, atomically; in `jsonl` mode one
 * object per line as the run goes (intervals, optionally samples) and the
 * summary as the last line.
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
    guint n_scenarios;
    char **scenario_names;
    GPtrArray *step_labels;       /* per scenario, a GStrv */
    JsonTimeCache time_cache;
    char *plan_sha256;
    GPtrArray *targets;           /* per scenario, what it loads (NULL: unknown) */
} Json;

static void
json_free (gpointer self)
{
    Json *json = self;

    if (json == NULL)
        return;
    output_file_abort (json->file);
    throng_options_clear (json_options, &json->options);
    g_strfreev (json->scenario_names);
    g_clear_pointer (&json->step_labels, g_ptr_array_unref);
    g_free (json->plan_sha256);
    g_clear_pointer (&json->targets, g_ptr_array_unref);
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

    /* The core hashes the plan as it loaded it; written as null when it could not. */
    if (THRONG_STRUCT_HAS (run, ThrongRunInfo, plan_sha256))
        json->plan_sha256 = g_strdup (run->plan_sha256);
    json->n_scenarios = run->n_scenarios;
    json->scenario_names = g_new0 (char *, run->n_scenarios + 1);
    json->step_labels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
    json->targets = g_ptr_array_new_with_free_func (g_free);
    gboolean targets = THRONG_STRUCT_HAS (run, ThrongRunInfo, scenario_targets)
                       && run->scenario_targets != NULL;
    for (guint i = 0; i < run->n_scenarios; i++) {
        json->scenario_names[i] = g_strdup (run->scenario_names[i]);
        g_ptr_array_add (json->step_labels, g_strdupv ((char **) run->step_labels[i]));
        g_ptr_array_add (json->targets, g_strdup (targets ? run->scenario_targets[i] : NULL));
    }
    return TRUE;
}

static void
json_write_line (Json *json, JsonNode *root, gboolean pretty)
{
    GString *out = output_file_buffer (json->file);

    json_document_write (out, root, pretty);
    g_string_append_c (out, '\n');
    output_file_commit (json->file);
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
        const ThrongSample *sample = &samples[i];
        const char *scenario = NULL;
        const char *label = NULL;

        if (sample->scenario < json->n_scenarios) {
            char **labels = g_ptr_array_index (json->step_labels, sample->scenario);
            scenario = json->scenario_names[sample->scenario];
            if (labels != NULL && sample->step < g_strv_length (labels))
                label = labels[sample->step];
        }
        json_document_append_sample (out, &json->time_cache, sample, scenario, label);
        g_string_append_c (out, '\n');
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
    g_autoptr (JsonNode) root = json_document_interval (snapshot);
    json_write_line (json, root, FALSE);
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
    gboolean jsonl = json->options.mode == JSON_MODE_JSONL;
    /* The summary's scenarios are the run's, as open announced them. */
    const char *const *targets = json->targets->len >= summary->n_scenarios
                                     ? (const char *const *) json->targets->pdata : NULL;
    g_autoptr (JsonNode) root = json_document_summary (summary, jsonl ? "summary" : NULL,
                                                     json->plan_sha256, targets);
    json_write_line (json, root, !jsonl);
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
