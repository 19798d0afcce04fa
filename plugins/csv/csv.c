/* SPDX-License-Identifier: MIT */
/*
 * The csv reporter: one row per sample in the result-file format of
 * JMeter (a "JTL" file), with JMeter's default header and column order,
 * so that JMeter's report generator and other JTL tools read it as their
 * own: the columns of JMeter 3.1 to 5.6, or with `columns: jmeter-3.0`
 * those JMeter 2.13 and 3.0 read (no sentBytes).  A group's execution is
 * a row as JMeter's Transaction Controller writes its transaction sample,
 * and a failed check as JMeter writes a failed assertion: the response's
 * code and message, the check's text in failureMessage.  When two steps
 * of a scenario share a label, a last column "step_id" (a JMeter sample
 * variable) says which step a row is (`step_id: auto`).  Rows are streamed
 * through an OutputFile, which reaches the disk only in whole rows.
 */
#include <libsoup/soup.h>
#include <string.h>
#include <throng/throng.h>

#include "csv.h"
#include "output.h"

/* JMeter 3.1 to 5.6's default columns (CSVSaveService, SampleSaveConfiguration). */
#define CSV_HEADER                                                                                \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"          \
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
/* JMeter 2.13 and 3.0 refuse a header with a column they do not know: sentBytes came in 3.1. */
#define CSV_HEADER_3_0                                                                            \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"          \
    "failureMessage,bytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"

enum { CSV_COLUMNS_JMETER, CSV_COLUMNS_JMETER_3_0 };
static const char *const csv_columns[] = { "jmeter", "jmeter-3.0", NULL };
enum { CSV_STEP_ID_AUTO, CSV_STEP_ID_ALWAYS, CSV_STEP_ID_NEVER };
static const char *const csv_step_id[] = { "auto", "always", "never", NULL };

typedef struct {
    char *path;
    gboolean overwrite;
    char *metrics_path;
    int columns;
    int step_id;
} CsvOptions;

static const ThrongOption csv_options[] = {
    { "path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (CsvOptions, path) },
    { "overwrite", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (CsvOptions, overwrite) },
    /* the plan's own metrics, written at the end (metrics.c) */
    { "metrics_path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (CsvOptions, metrics_path) },
    { "columns", THRONG_OPTION_ENUM, G_STRUCT_OFFSET (CsvOptions, columns),
      .choices = csv_columns },
    { "step_id", THRONG_OPTION_ENUM, G_STRUCT_OFFSET (CsvOptions, step_id),
      .choices = csv_step_id },
    { NULL },
};

/*
 * What a group's row needs of its current execution's requests, as
 * JMeter's Transaction Controller adds them up: how many, how many
 * failed, their latencies and connect times.
 */
typedef struct {
    guint32 samples;
    guint32 failing;
    gint64 latency_us;
    gint64 connect_us;
} CsvTally;

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
    GHashTable *tallies;          /* (scenario, user) → a CsvTally per step (its groups') */
    guint *active_users;          /* per scenario, from the last snapshot (configured until then) */
    guint all_users;
    gboolean step_id;             /* a last column "step_id", as a JMeter sample variable */
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

/* Whether two steps of a scenario share a label (a HAR import has two `GET /static/app.css`). */
static gboolean
csv_labels_repeat (const ThrongRunInfo *run)
{
    for (guint s = 0; s < run->n_scenarios; s++) {
        const char *const *labels = run->step_labels[s];

        for (guint i = 0; labels != NULL && labels[i] != NULL; i++)
            for (guint j = 0; j < i; j++)
                if (strcmp (labels[i], labels[j]) == 0)
                    return TRUE;
    }
    return FALSE;
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

    csv->step_id = csv->options.step_id == CSV_STEP_ID_ALWAYS
                   || (csv->options.step_id == CSV_STEP_ID_AUTO && csv_labels_repeat (run));
    GString *header = output_file_buffer (csv->file);
    g_string_append (header,
                     csv->options.columns == CSV_COLUMNS_JMETER_3_0 ? CSV_HEADER_3_0 : CSV_HEADER);
    if (csv->step_id) {
        /* How JMeter names a sample variable's column (CSVSaveService): quoted, last. */
        g_string_truncate (header, header->len - 1);
        g_string_append (header, ",\"step_id\"\n");
    }
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
 * A group's row says what JMeter's Transaction Controller (5.6, without
 * "Generate parent sample") says of the sample it adds: "Number of
 * samples in transaction : N, number of failing samples : M", with the
 * latencies and connect times of its requests summed.  Every request
 * counts in each group that encloses it (JMeter's controllers all listen
 * to the samplers under them), and a group's own row in none.  The rows
 * of a user's requests come before their group's, so each request adds
 * itself to its groups' tallies, which a group's row reads and clears.
 * Returns whether @sample is a group's, with its tally in *@done.
 */
static gboolean
csv_transaction (Csv *csv, const ThrongSample *sample, const ThrongStepInfo *info, guint n_steps,
                 CsvTally *done)
{
    const ThrongStepInfo *step = &info[sample->step];
    gint64 key = ((gint64)sample->scenario << 32) | sample->user;
    CsvTally *tally;

    if (!throng_step_kind_is_transaction (step->kind) && step->parent < 0)
        return FALSE;
    tally = g_hash_table_lookup (csv->tallies, &key);
    if (tally == NULL) {
        tally = g_new0 (CsvTally, n_steps);
        g_hash_table_insert (csv->tallies, g_memdup2 (&key, sizeof key), tally);
    }
    if (throng_step_kind_is_transaction (step->kind)) {
        *done = tally[sample->step];
        memset (&tally[sample->step], 0, sizeof *tally);
        return TRUE;
    }
    /* A parent comes before its children, so the walk up ends. */
    for (gint parent = step->parent; parent >= 0 && (guint)parent < n_steps;
         parent = info[parent].parent) {
        if (parent >= (gint)sample->step)
            break;
        tally[parent].samples++;
        tally[parent].failing += sample->error != THRONG_ERROR_NONE;
        tally[parent].latency_us += sample->latency_us;
        tally[parent].connect_us += sample->connect_us + sample->tls_us;
    }
    return FALSE;
}

/* The threadName column: the scenario's prefix, then the user counted from 1. */
static void
csv_put_thread (Csv *csv, OutputRow *out, const ThrongSample *sample)
{
    if (sample->scenario >= csv->n_scenarios)
        return;
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

/*
 * responseCode and responseMessage: what came back.  A response's status
 * and reason phrase, also when a check failed on it (the check goes to
 * failureMessage, as a failed JMeter assertion's does); without a
 * response, JMeter's "Non HTTP response code: …" and "Non HTTP response
 * message: …", with the error class standing for JMeter's exception.
 */
static void
csv_put_response (OutputRow *out, const ThrongSample *sample)
{
    gboolean success = sample->error == THRONG_ERROR_NONE;

    if (sample->status > 0) {
        output_row_put_int (out, sample->status);
        output_row_put_c (out, ',');
        /* The sample's message is the reason phrase unless a failure replaced it (http's
         * errors.c writes the same standard phrase). */
        if (success || sample->error == THRONG_ERROR_STATUS)
            csv_put_field (out, sample->message);
        else
            csv_put_field (out, soup_status_get_phrase ((guint) sample->status));
        return;
    }
    /* A protocol's own failure without a status (the tcp example's unexpected reply) is its
     * response as it stands; JMeter's prefix marks a request that got no response. */
    if (success || sample->error == THRONG_ERROR_STATUS || sample->error == THRONG_ERROR_CHECK) {
        output_row_put_c (out, ',');
        csv_put_field (out, sample->message);
        return;
    }
    g_autofree char *message = g_strconcat ("Non HTTP response message: ",
                                            sample->message != NULL ? sample->message : "", NULL);
    if (sample->flags & THRONG_SAMPLE_NOT_SENT) {
        /* The row stays, as JMeter keeps a sampler that failed before sending (a malformed
         * URL): its count is throng's requests and not sent together (docs/reporters.md). */
        output_row_put_literal (out, "Non HTTP response code: not sent");
    } else {
        output_row_put_literal (out, "Non HTTP response code: ");
        csv_put_field (out, throng_error_class_name (sample->error));
    }
    output_row_put_c (out, ',');
    csv_put_field (out, message);
}

/* failureMessage: a failed check's text as an assertion's; other failures as CLASS: message. */
static void
csv_put_failure (OutputRow *out, const ThrongSample *sample)
{
    const char *class_name = throng_error_class_name (sample->error);
    gboolean has_message = sample->message != NULL && *sample->message != '\0';
    g_autofree char *failure = NULL;

    if (sample->error == THRONG_ERROR_NONE)
        return;
    if (sample->error == THRONG_ERROR_CHECK && has_message)
        failure = g_strdup (sample->message);
    else if (sample->error == THRONG_ERROR_STATUS && sample->status > 0)
        /* An unexpected status names the status. */
        failure = g_strdup_printf ("%s: %d%s%s", class_name, sample->status,
                                   has_message ? " " : "", has_message ? sample->message : "");
    else if (has_message)
        failure = g_strdup_printf ("%s: %s", class_name, sample->message);
    else
        failure = g_strdup (class_name);
    csv_put_field (out, failure);
}

static void
csv_append_row (Csv *csv, OutputRow *out, const ThrongSample *sample)
{
    const char *label = "";
    gboolean transaction = FALSE;
    CsvTally tally = { 0 };

    if (sample->scenario < csv->n_scenarios) {
        char **labels = g_ptr_array_index (csv->step_labels, sample->scenario);
        const ThrongStepInfo *info = g_ptr_array_index (csv->step_info, sample->scenario);
        guint n_steps = labels != NULL ? g_strv_length (labels) : 0;
        if (sample->step < n_steps) {
            label = labels[sample->step];
            transaction = csv_transaction (csv, sample, info, n_steps, &tally);
        }
    }
    gboolean success = sample->error == THRONG_ERROR_NONE;

    output_row_put_int (out, sample->wall_start_us / 1000);
    output_row_put_c (out, ',');
    output_row_put_int (out, csv_ms (sample->elapsed_us));
    output_row_put_c (out, ',');
    csv_put_field (out, label);
    output_row_put_c (out, ',');
    if (transaction) {
        /* JMeter sets 200 on a transaction that succeeded, and no code on one that failed. */
        if (success)
            output_row_put_literal (out, "200");
        g_autofree char *message = g_strdup_printf ("Number of samples in transaction : %u, "
                                                    "number of failing samples : %u",
                                                    tally.samples, tally.failing);
        output_row_put_c (out, ',');
        csv_put_field (out, message);
    } else {
        csv_put_response (out, sample);
    }
    output_row_put_c (out, ',');
    csv_put_thread (csv, out, sample);
    /* The transaction's sample has no data type (and, in JMeter, no assertion). */
    if (transaction && success)
        output_row_put_literal (out, ",,true,");
    else if (transaction)
        output_row_put_literal (out, ",,false,");
    else if (success)
        output_row_put_literal (out, ",text,true,");
    else
        output_row_put_literal (out, ",text,false,");
    if (!transaction)
        csv_put_failure (out, sample);
    output_row_put_c (out, ',');
    output_row_put_int (out, (gint64) sample->bytes_received);
    output_row_put_c (out, ',');
    if (csv->options.columns != CSV_COLUMNS_JMETER_3_0) {
        output_row_put_int (out, (gint64) sample->bytes_sent);
        output_row_put_c (out, ',');
    }
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
    /* A transaction has no URL, which JMeter writes as "null". */
    if (transaction)
        output_row_put_literal (out, "null");
    else
        csv_put_field (out, sample->resource);
    output_row_put_c (out, ',');
    output_row_put_int (out, csv_ms (transaction ? tally.latency_us : sample->latency_us));
    /* IdleTime 0: a group's elapsed time includes the pauses inside it, as JMeter's with
     * "Include duration of timer and pre-post processors in generated sample". */
    output_row_put_literal (out, ",0,");
    /* JMeter's HTTP client counts the TLS handshake as part of Connect. */
    output_row_put_int (out, csv_ms (transaction ? tally.connect_us
                                                 : sample->connect_us + sample->tls_us));
    if (csv->step_id) {
        output_row_put_c (out, ',');
        output_row_put_int (out, sample->step);
    }
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
