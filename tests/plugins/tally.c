/* SPDX-License-Identifier: MIT */
/*
 * The `tally` reporter, for engine tests: it adds up what every hook
 * received and, on close, writes the sums to `path` as a key file, so a
 * test can check that snapshots add up to the summary, that per-request
 * messages arrived intact, and what the summary said.
 *
 *   reporters:
 *     - tally: {path: /tmp/tally.ini}
 *     - tally: {path: /tmp/tally.ini, fail_open: true}   # open fails
 *
 * A sample's message counts as intact when it reads "iteration N " with
 * N its own iteration, followed only by "é"s, and is valid UTF-8.
 */
#include <throng/throng.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *path;
    gboolean fail_open;
    guint64 snapshots;
    guint64 snapshot_requests;
    guint64 snapshot_errors;
    guint64 snapshot_histogram;
    gint64 snapshot_interval_us;
    guint64 samples;
    guint64 messages;
    guint64 messages_intact;
    guint64 message_max_bytes;
} Tally;

static const ThrongOption tally_options[] = {
    { "path", THRONG_OPTION_STRING, offsetof (Tally, path) },
    { "fail_open", THRONG_OPTION_BOOL, offsetof (Tally, fail_open) },
    { NULL },
};

static gpointer
tally_configure (const ThrongNode *options, GError **error)
{
    g_autofree Tally *tally = g_new0 (Tally, 1);

    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, tally_options, tally, FALSE, "tally options", error))
        return NULL;
    if (tally->path == NULL) {
        throng_node_set_error (options, error, THRONG_PLAN_ERROR_MISSING, "tally needs a path");
        return NULL;
    }
    return g_steal_pointer (&tally);
}

static gboolean
tally_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Tally *tally = self;

    if (tally->fail_open) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "cannot open %s (injected)",
                     tally->path);
        return FALSE;
    }
    return TRUE;
}

static gboolean
message_intact (const ThrongSample *sample)
{
    const char *text = sample->message;
    char *end = NULL;

    if (!g_str_has_prefix (text, "iteration ") || !g_utf8_validate (text, -1, NULL))
        return FALSE;
    guint64 n = g_ascii_strtoull (text + strlen ("iteration "), &end, 10);
    if (n != sample->iteration || (guint32) n != sample->iteration32 || *end != ' ')
        return FALSE;
    for (const char *p = end + 1; *p != '\0'; p = g_utf8_next_char (p))
        if (g_utf8_get_char (p) != 0xe9)
            return FALSE;
    return TRUE;
}

static void
tally_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Tally *tally = self;

    for (gsize i = 0; i < n_samples; i++) {
        const ThrongSample *sample = &samples[i];
        tally->samples++;
        if (sample->message == NULL || g_str_has_prefix (sample->message, "null:"))
            continue;
        tally->messages++;
        tally->message_max_bytes = MAX (tally->message_max_bytes, strlen (sample->message));
        if (message_intact (sample))
            tally->messages_intact++;
    }
}

static void
tally_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Tally *tally = self;

    tally->snapshots++;
    tally->snapshot_requests += snapshot->total.requests;
    tally->snapshot_errors += snapshot->total.errors;
    tally->snapshot_histogram += throng_histogram_count (snapshot->total.latency);
    tally->snapshot_interval_us += snapshot->interval_us;
}

static gboolean
tally_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Tally *tally = self;
    g_autoptr (GKeyFile) file = g_key_file_new ();
    const char *group = "tally";

    g_key_file_set_uint64 (file, group, "snapshots", tally->snapshots);
    g_key_file_set_uint64 (file, group, "snapshot_requests", tally->snapshot_requests);
    g_key_file_set_uint64 (file, group, "snapshot_errors", tally->snapshot_errors);
    g_key_file_set_uint64 (file, group, "snapshot_histogram", tally->snapshot_histogram);
    g_key_file_set_int64 (file, group, "snapshot_interval_us", tally->snapshot_interval_us);
    g_key_file_set_uint64 (file, group, "samples", tally->samples);
    g_key_file_set_uint64 (file, group, "messages", tally->messages);
    g_key_file_set_uint64 (file, group, "messages_intact", tally->messages_intact);
    g_key_file_set_uint64 (file, group, "message_max_bytes", tally->message_max_bytes);
    g_key_file_set_uint64 (file, group, "requests", summary->total.requests);
    g_key_file_set_uint64 (file, group, "errors", summary->total.errors);
    g_key_file_set_uint64 (file, group, "histogram",
                           throng_histogram_count (summary->total.latency));
    g_key_file_set_int64 (file, group, "elapsed_us", summary->elapsed_us);
    g_key_file_set_boolean (file, group, "interrupted", summary->interrupted);
    g_key_file_set_int64 (file, group, "load_us", summary->load_us);
    g_key_file_set_uint64 (file, group, "interrupted_iterations", summary->interrupted_iterations);
    g_key_file_set_boolean (file, group, "never_started", summary->never_started);
    return g_key_file_save_to_file (file, tally->path, error);
}

static void
tally_free (gpointer self)
{
    Tally *tally = self;

    throng_options_clear (tally_options, tally);
    g_free (tally);
}

static const ThrongReporter tally_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "tally",
    .configure = tally_configure,
    .open = tally_open,
    .samples = tally_samples,
    .snapshot = tally_snapshot,
    .close = tally_close,
    .free = tally_free,
};

static gboolean
tally_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &tally_reporter, error);
}

static const ThrongPluginDescriptor tally_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "tally",
    .version = THRONG_VERSION_STRING,
    .description = "a reporter that adds up what it receives, for engine tests",
    .init = tally_init,
};

THRONG_PLUGIN_DEFINE (tally_descriptor)
