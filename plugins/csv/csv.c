/* SPDX-License-Identifier: MIT */
/*
 * The csv reporter: one row per sample in the result-file format of
 * JMeter (a "JTL" file), with JMeter's default header and column order,
 * so that JMeter's report generator and other JTL tools read it as their
 * own.  A group's execution is a row as JMeter's Transaction Controller
 * writes its parent sample (no data type, no URL).  Rows are streamed
 * through an OutputFile, which reaches the disk only in whole rows.
 */
#include <string.h>
#include <throng/throng.h>

#include "csv.h"
#include "output.h"

#define CSV_HEADER                                                                                \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"          \
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"

typedef struct {
    char *path;
    gboolean overwrite;
    char *metrics_path;
} CsvOptions;

static const ThrongOption csv_options[] = {
    { "path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (CsvOptions, path) },
    { "overwrite", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (CsvOptions, overwrite) },
    /* the plan's own metrics, written at the end (metrics.c) */
    { "metrics_path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (CsvOptions, metrics_path) },
    { NULL },
};

typedef struct {
    CsvOptions options;
    OutputFile *file;
    OutputFile *metrics_file;     /* `metrics_path`, or NULL */
    /* Copied from the run info, which is only promised for the duration of open. */
    guint n_scenarios;
    char **thread_prefixes;       /* per scenario, "NAME S-" of the threadName column */
    gboolean *quote_threads;      /* per scenario, whether that column needs quotes */
    GPtrArray *step_labels;       /* per scenario, a GStrv */
    GPtrArray *step_info;         /* per scenario, a ThrongStepInfo per step: groups and nesting */
    GHashTable *tallies; /* (scenario, user) → per step, its group's requests and failures */
    guint *active_users;          /* per scenario, from the last snapshot (configured until then) */
    guint all_users;
} Csv;

static void
csv_free (gpointer self)
{
    Csv *csv = self;

    if (csv == NULL)
        return;
    output_file_abort (csv->file);
    output_file_abort (csv->metrics_file);
    throng_options_clear (csv_options, &csv->options);
    g_strfreev (csv->thread_prefixes);
    g_free (csv->quote_threads);
    g_clear_pointer (&csv->step_labels, g_ptr_array_unref);
    g_clear_pointer (&csv->step_info, g_ptr_array_unref);
    g_clear_pointer (&csv->tallies, g_hash_table_unref);
    g_free (csv->active_users);
    g_free (csv);
}

static gpointer
csv_configure (const ThrongNode *options, GError **error)
{
    Csv *csv = g_new0 (Csv, 1);

    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, csv_options, &csv->options, FALSE, "csv options",
                                  error)) {
        csv_free (csv);
        return NULL;
    }
    if (!output_require_path ("csv", options, csv->options.path, error)) {
        csv_free (csv);
        return NULL;
    }
    return csv;
}

static gboolean
csv_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Csv *csv = self;

    /* PATH.tmp now, so that a bad path stops the run before any load, and an
     * existing PATH stays as it is until the run has started: the file is
     * published at the first samples or interval, so that it can be
     * followed while the run goes. */
    csv->file = output_file_open (csv->options.path, csv->options.overwrite || run->overwrite,
                                  TRUE, error);
    if (csv->file == NULL)
        return FALSE;
    if (csv->options.metrics_path != NULL) {
        csv->metrics_file = output_file_open (csv->options.metrics_path,
                                              csv->options.overwrite || run->overwrite, TRUE,
                                              error);
        if (csv->metrics_file == NULL)
            return FALSE;
    }

    csv->n_scenarios = run->n_scenarios;
    csv->thread_prefixes = g_new0 (char *, run->n_scenarios + 1);
    csv->quote_threads = g_new0 (gboolean, MAX (run->n_scenarios, 1));
    csv->step_labels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
    csv->step_info = g_ptr_array_new_with_free_func (g_free);
    csv->tallies = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
    csv->active_users = g_new0 (guint, MAX (run->n_scenarios, 1));
    for (guint i = 0; i < run->n_scenarios; i++) {
        /* JMeter's "<group> <groupIndex>-": the scenario's index counts from 1. */
        csv->thread_prefixes[i] = g_strdup_printf ("%s %u-", run->scenario_names[i], i + 1);
        csv->quote_threads[i] = strpbrk (csv->thread_prefixes[i], ",\"\r\n") != NULL;
        g_ptr_array_add (csv->step_labels, g_strdupv ((char **) run->step_labels[i]));
        guint n_steps
            = run->step_labels[i] != NULL ? g_strv_length ((char **)run->step_labels[i]) : 0;
        ThrongStepInfo *info = g_new0 (ThrongStepInfo, MAX (n_steps, 1));
        for (guint s = 0; s < n_steps; s++)
            info[s].parent = -1;
        if (THRONG_STRUCT_HAS (run, ThrongRunInfo, step_info) && run->step_info != NULL
            && run->step_info[i] != NULL) {
            memcpy (info, run->step_info[i], n_steps * sizeof *info);
        } else {
            /* An older core: groups by their protocol name, until a snapshot says more. */
            for (guint s = 0;
                 s < n_steps && run->step_protocols != NULL && run->step_protocols[i] != NULL; s++)
                info[s].kind = throng_step_protocol_is_group (run->step_protocols[i][s])
                                   ? THRONG_STEP_GROUP
                                   : THRONG_STEP_REQUEST;
        }
        g_ptr_array_add (csv->step_info, info);
        csv->active_users[i] = run->scenario_users[i];
        csv->all_users += run->scenario_users[i];
    }

    g_string_append (output_file_buffer (csv->file), CSV_HEADER);
    output_file_commit (csv->file);
    return TRUE;
}

/* The inside of a quoted field: quotes doubled. */
static void
csv_put_escaped (OutputRow *row, const char *text)
{
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"')
            output_row_put_c (row, '"');
        output_row_put_c (row, *p);
    }
}

/* RFC 4180: quote a field that holds a delimiter, a quote or a line break. */
static void
csv_put_field (OutputRow *row, const char *text)
{
    gsize plain;

    if (text == NULL)
        return;
    /* One scan finds both whether the field needs quotes and its length. */
    plain = strcspn (text, ",\"\r\n");
    if (text[plain] == '\0') {
        output_row_put_len (row, text, plain);
        return;
    }
    output_row_put_c (row, '"');
    csv_put_escaped (row, text);
    output_row_put_c (row, '"');
}

/* JMeter's columns are whole milliseconds; rounding keeps their mean unbiased. */
static gint64
csv_ms (gint64 us)
{
    return us >= 0 ? (us + 500) / 1000 : -((-us + 500) / 1000);
}

/*
 * A group's row says what JMeter's Transaction Controller says of its
 * parent sample: "Number of samples in transaction : N, number of failing
 * samples : M".  The rows of a user's group members come before the
 * group's own row, so each member adds itself to its group's tally, which
 * the group's row reads and clears.  Returns the message, or NULL.
 */
static char *
csv_transaction (Csv *csv, const ThrongSample *sample, const ThrongStepInfo *info, guint n_steps)
{
    const ThrongStepInfo *step = &info[sample->step];
    gint64 key = ((gint64)sample->scenario << 32) | sample->user;
    guint32 *tally;
    char *message = NULL;

    if (!throng_step_kind_is_transaction (step->kind) && step->parent < 0)
        return NULL;
    tally = g_hash_table_lookup (csv->tallies, &key);
    if (tally == NULL) {
        tally = g_new0 (guint32, 2 * n_steps);
        g_hash_table_insert (csv->tallies, g_memdup2 (&key, sizeof key), tally);
    }
    if (throng_step_kind_is_transaction (step->kind)) {
        message = g_strdup_printf ("Number of samples in transaction : %u, number of failing "
                                   "samples : %u",
                                   tally[2 * sample->step], tally[2 * sample->step + 1]);
        tally[2 * sample->step] = tally[2 * sample->step + 1] = 0;
    }
    if (step->parent >= 0 && (guint)step->parent < n_steps) {
        tally[2 * step->parent]++;
        if (sample->error != THRONG_ERROR_NONE)
            tally[2 * step->parent + 1]++;
    }
    return message;
}

static void
csv_append_row (Csv *csv, OutputRow *out, const ThrongSample *sample)
{
    const char *label = "";
    gboolean transaction = FALSE;
    g_autofree char *transaction_message = NULL;
    if (sample->scenario < csv->n_scenarios) {
        char **labels = g_ptr_array_index (csv->step_labels, sample->scenario);
        const ThrongStepInfo *info = g_ptr_array_index (csv->step_info, sample->scenario);
        guint n_steps = labels != NULL ? g_strv_length (labels) : 0;
        if (sample->step < n_steps) {
            label = labels[sample->step];
            transaction = throng_step_kind_is_transaction (info[sample->step].kind);
            transaction_message = csv_transaction (csv, sample, info, n_steps);
        }
    }
    gboolean success = sample->error == THRONG_ERROR_NONE;
    const char *class_name = throng_error_class_name (sample->error);

    output_row_put_int (out, sample->wall_start_us / 1000);
    output_row_put_c (out, ',');
    output_row_put_int (out, csv_ms (sample->elapsed_us));
    output_row_put_c (out, ',');
    csv_put_field (out, label);
    output_row_put_c (out, ',');
    if (sample->status > 0) {
        output_row_put_int (out, sample->status);
    } else if (sample->flags & THRONG_SAMPLE_NOT_SENT) {
        /* The row stays, as JMeter keeps a sampler that failed before sending (a malformed
         * URL): its count is throng's requests and not sent together (docs/reporters.md). */
        output_row_put_literal (out, "Non HTTP response code: not sent");
    } else if (!success) {
        /* JMeter's wording for a failure without a response; our class stands for its exception. */
        output_row_put_literal (out, "Non HTTP response code: ");
        csv_put_field (out, class_name);
    }
    output_row_put_c (out, ',');
    csv_put_field (out, transaction && sample->message == NULL ? transaction_message
                                                                  : sample->message);
    output_row_put_c (out, ',');

    /* threadName: the scenario's prefix, then the user counted from 1. */
    if (sample->scenario < csv->n_scenarios) {
        gboolean quote = csv->quote_threads[sample->scenario];
        if (quote) {
            output_row_put_c (out, '"');
            csv_put_escaped (out, csv->thread_prefixes[sample->scenario]);
        } else {
            output_row_put (out, csv->thread_prefixes[sample->scenario]);
        }
        output_row_put_int (out, (gint64) sample->user + 1);
        if (quote)
            output_row_put_c (out, '"');
    }
    /* JMeter's Transaction Controller writes its parent sample without a data type. */
    if (transaction && success)
        output_row_put_literal (out, ",,true,");
    else if (transaction)
        output_row_put_literal (out, ",,false,");
    else if (success)
        output_row_put_literal (out, ",text,true,");
    else
        output_row_put_literal (out, ",text,false,");
    if (!success) {
        gboolean has_message = sample->message != NULL && *sample->message != '\0';
        g_autofree char *failure = NULL;
        /* An unexpected status names the status; other classes say what went wrong. */
        if (sample->error == THRONG_ERROR_STATUS && sample->status > 0)
            failure = g_strdup_printf ("%s: %d%s%s", class_name, sample->status,
                                       has_message ? " " : "", has_message ? sample->message : "");
        else if (has_message)
            failure = g_strdup_printf ("%s: %s", class_name, sample->message);
        else
            failure = g_strdup (class_name);
        csv_put_field (out, failure);
    }
    output_row_put_c (out, ',');
    output_row_put_int (out, (gint64) sample->bytes_received);
    output_row_put_c (out, ',');
    output_row_put_int (out, (gint64) sample->bytes_sent);
    output_row_put_c (out, ',');
    /* A row comes from a user that was active when it completed, so at
     * least 1: an open-model scenario against a fast target often has no
     * user busy at the instant of the snapshot (JMeter counts the thread
     * that writes the sample among its group's active threads). */
    guint group = MAX (sample->scenario < csv->n_scenarios ? csv->active_users[sample->scenario]
                                                           : 0,
                       1);
    output_row_put_int (out, group);
    output_row_put_c (out, ',');
    output_row_put_int (out, MAX (csv->all_users, group));
    output_row_put_c (out, ',');
    csv_put_field (out, sample->resource);
    output_row_put_c (out, ',');
    output_row_put_int (out, csv_ms (sample->latency_us));
    /* JMeter's HTTP client counts the TLS handshake as part of Connect. */
    output_row_put_literal (out, ",0,");
    output_row_put_int (out, csv_ms (sample->connect_us + sample->tls_us));
    output_row_put_c (out, '\n');
}

static void
csv_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Csv *csv = self;

    if (csv->file == NULL)
        return;
    output_file_publish (csv->file);
    GString *out = output_file_buffer (csv->file);
    for (gsize i = 0; i < n_samples; i++) {
        OutputRow row;

        output_row_begin (&row, out);
        csv_append_row (csv, &row, &samples[i]);
        output_row_end (&row);
        output_file_commit (csv->file);
    }
}

static void
csv_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Csv *csv = self;
    guint all = 0;

    if (csv->file == NULL)
        return;
    output_file_publish (csv->file);
    for (guint i = 0; i < snapshot->n_scenarios && i < csv->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &snapshot->scenarios[i];
        char **labels = g_ptr_array_index (csv->step_labels, i);
        ThrongStepInfo *info = g_ptr_array_index (csv->step_info, i);
        guint n_steps = labels != NULL ? g_strv_length (labels) : 0;

        csv->active_users[i] = scenario->active_users;
        all += scenario->active_users;
        for (guint s = 0; s < n_steps && s < scenario->n_steps && throng_journey_get (scenario) != NULL;
             s++) {
            info[s].kind = throng_journey_step_kind (scenario, s);
            info[s].parent = throng_journey_step_parent (scenario, s);
            info[s].depth = throng_journey_step_depth (scenario, s);
        }
    }
    csv->all_users = all;
    output_file_flush (csv->file);
}

static gboolean
csv_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Csv *csv = self;

    if (csv->file == NULL)
        return TRUE;
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started) {
        /* The run never started (another reporter's open failed): no rows, and
         * PATH, never touched (we wrote PATH.tmp), stays as it was. */
        output_file_abort (g_steal_pointer (&csv->file));
        output_file_abort (g_steal_pointer (&csv->metrics_file));
        return TRUE;
    }
    if (csv->metrics_file != NULL) {
        csv_metrics_write (output_file_buffer (csv->metrics_file), summary);
        output_file_commit (csv->metrics_file);
        if (!output_file_close (g_steal_pointer (&csv->metrics_file), error))
            return FALSE;
    }
    return output_file_close (g_steal_pointer (&csv->file), error);
}

static gboolean
csv_wants_samples (gpointer self)
{
    return TRUE;
}

const ThrongReporter csv_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "csv",
    .configure = csv_configure,
    .open = csv_open,
    .samples = csv_samples,
    .snapshot = csv_snapshot,
    .close = csv_close,
    .free = csv_free,
    .wants_samples = csv_wants_samples,
};
