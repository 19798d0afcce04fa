/* SPDX-License-Identifier: MIT */
/*
 * The html reporter: its options, the interval series it keeps while the
 * run goes, and the page it writes once, atomically, at close.
 */
#include "html.h"

#include <string.h>

#include "output.h"
#include "page.h"
#include "series.h"
#include "svg.h"

/*
 * When the page says it was generated: now, or SOURCE_DATE_EPOCH (seconds
 * since 1970, UTC) when set, as reproducible builds do, so that a page
 * drawn twice from one file is the same bytes (tests/integration/test-golden.c).
 */
static GDateTime *
html_generated_time (void)
{
    const char *epoch = g_getenv ("SOURCE_DATE_EPOCH");
    guint64 seconds;

    if (epoch != NULL && g_ascii_string_to_unsigned (epoch, 10, 0, G_MAXINT64 / G_USEC_PER_SEC,
                                                     &seconds, NULL)) {
        GDateTime *then = g_date_time_new_from_unix_utc ((gint64) seconds);
        if (then != NULL)
            return then;
    }
    return g_date_time_new_now_utc ();
}

typedef struct {
    char *path;
    char *title;
    gboolean overwrite;
    gboolean messages;
    gboolean samples;
} HtmlOptions;

static const ThrongOption html_options[] = {
    { "path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (HtmlOptions, path) },
    { "title", THRONG_OPTION_STRING, G_STRUCT_OFFSET (HtmlOptions, title) },
    { "overwrite", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (HtmlOptions, overwrite) },
    { "messages", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (HtmlOptions, messages) },
    { "samples", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (HtmlOptions, samples) },
    { NULL },
};

typedef struct {
    HtmlOptions options;
    OutputFile *file;
    HtmlSeries *series;
    char *plan_sha256;
    GPtrArray *targets;     /* per scenario, what it loads (NULL: unknown) */
    GHashTable *messages;   /* html_message_key() → GPtrArray of the first messages */
    GPtrArray *transactions; /* per scenario, a GByteArray: per step, whether it is a group's
                              * or a parallel's (its samples are not requests) */
} Html;

static void
html_free (gpointer self)
{
    Html *html = self;

    if (html == NULL)
        return;
    output_file_abort (html->file);
    throng_options_clear (html_options, &html->options);
    html_series_free (html->series);
    g_clear_pointer (&html->messages, g_hash_table_unref);
    g_free (html->plan_sha256);
    g_clear_pointer (&html->targets, g_ptr_array_unref);
    g_clear_pointer (&html->transactions, g_ptr_array_unref);
    g_free (html);
}

static gpointer
html_configure (const ThrongNode *options, GError **error)
{
    Html *html = g_new0 (Html, 1);

    /* The codes and outcomes charts need every request's sample. */
    html->options.samples = TRUE;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, html_options, &html->options, FALSE, "html options",
                                  error)) {
        html_free (html);
        return NULL;
    }
    if (!output_require_path ("html", options, html->options.path, error)) {
        html_free (html);
        return NULL;
    }
    return html;
}

static gboolean
html_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Html *html = self;

    /* PATH.tmp now, so that a bad path stops the run before any load; PATH only at close. */
    html->file = output_file_open (html->options.path, html->options.overwrite || run->overwrite,
                                   TRUE, error);
    if (html->file == NULL)
        return FALSE;
    html->series = html_series_new (SVG_MAX_POINTS);
    /* The core hashes the plan as it loaded it; the page says "unknown" when it could not. */
    if (THRONG_STRUCT_HAS (run, ThrongRunInfo, plan_sha256))
        html->plan_sha256 = g_strdup (run->plan_sha256);
    html->targets = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < run->n_scenarios; i++)
        g_ptr_array_add (html->targets,
                         THRONG_STRUCT_HAS (run, ThrongRunInfo, scenario_targets)
                                 && run->scenario_targets != NULL
                             ? g_strdup (run->scenario_targets[i])
                             : NULL);
    html->transactions = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
    for (guint s = 0; s < run->n_scenarios; s++) {
        GByteArray *kinds = g_byte_array_new ();
        const char *const *protocols = run->step_protocols != NULL ? run->step_protocols[s] : NULL;
        for (guint i = 0; protocols != NULL && protocols[i] != NULL; i++) {
            /* The kind when the core gives it; from a file, the name a transaction's
             * protocol has there. */
            guint8 transaction
                = THRONG_STRUCT_HAS (run, ThrongRunInfo, step_info) && run->step_info != NULL
                      ? throng_step_kind_is_transaction (run->step_info[s][i].kind)
                      : strcmp (protocols[i], "group") == 0 || strcmp (protocols[i], "parallel") == 0;
            g_byte_array_append (kinds, &transaction, 1);
        }
        g_ptr_array_add (html->transactions, kinds);
    }
    if (html->options.messages)
        html->messages = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                (GDestroyNotify) g_ptr_array_unref);
    return TRUE;
}

/* Whether @sample is a request's: sent, and not a group's or a parallel's. */
static gboolean
html_is_request (const Html *html, const ThrongSample *sample)
{
    if (sample->flags & THRONG_SAMPLE_NOT_SENT || sample->scenario >= html->transactions->len)
        return FALSE;
    const GByteArray *kinds = g_ptr_array_index (html->transactions, sample->scenario);
    return sample->step >= kinds->len || !kinds->data[sample->step];
}

/* Counts requests' codes and outcomes, and keeps the first few distinct
 * messages of each step's failures, per class. */
static void
html_samples (gpointer self, const ThrongSample *samples, gsize n_samples)
{
    Html *html = self;

    for (gsize i = 0; i < n_samples; i++) {
        const ThrongSample *sample = &samples[i];
        if (html->options.samples && html->series != NULL && html_is_request (html, sample))
            html_series_add_sample (html->series, sample);
        if (html->messages == NULL)
            continue;
        if (sample->error == THRONG_ERROR_NONE || sample->message == NULL)
            continue;
        gint64 key = html_message_key (sample->scenario, sample->step,
                                       html_error_slot (sample->error));
        GPtrArray *messages = g_hash_table_lookup (html->messages, &key);
        if (messages == NULL) {
            messages = g_ptr_array_new_with_free_func (g_free);
            g_hash_table_insert (html->messages, g_memdup2 (&key, sizeof key), messages);
        }
        if (messages->len >= HTML_MESSAGES)
            continue;
        /* Repaired as the json reporter repairs it, so that a page from its file is the same. */
        g_autofree char *valid = g_utf8_make_valid (sample->message, -1);
        guint m;
        for (m = 0; m < messages->len && strcmp (g_ptr_array_index (messages, m), valid) != 0; m++)
            ;
        if (m == messages->len)
            g_ptr_array_add (messages, g_steal_pointer (&valid));
    }
}

static gboolean
html_wants_samples (gpointer self)
{
    Html *html = self;

    return html->options.messages || html->options.samples;
}

static void
html_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Html *html = self;

    if (html->series != NULL)
        html_series_add (html->series, snapshot);
}

static gboolean
html_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Html *html = self;

    if (html->file == NULL)
        return TRUE;
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started) {
        /* No load was sent: no page, and PATH (we wrote PATH.tmp) stays as it was. */
        output_file_abort (g_steal_pointer (&html->file));
        return TRUE;
    }
    g_autofree char *title = html->options.title != NULL
                                 ? g_strdup (html->options.title)
                                 : g_strdup_printf ("throng: %s", summary->plan_name);
    g_autoptr (GDateTime) now = html_generated_time ();
    g_autofree char *generated = g_date_time_format (now, "%Y-%m-%d %H:%M:%S UTC");
    HtmlPage page = {
        .title = title,
        .plan_sha256 = html->plan_sha256,
        /* The summary's scenarios are the run's, as open announced them. */
        .targets = html->targets->len >= summary->n_scenarios
                       ? (const char *const *) html->targets->pdata : NULL,
        .generated = generated,
        .series = html->series,
        .summary = summary,
        .messages = html->messages,
        .samples = html->options.samples,
    };
    html_page_append (output_file_buffer (html->file), &page);
    output_file_commit (html->file);
    return output_file_close (g_steal_pointer (&html->file), error);
}

const ThrongReporter html_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "html",
    .configure = html_configure,
    .open = html_open,
    .samples = html_samples,
    .snapshot = html_snapshot,
    .close = html_close,
    .free = html_free,
    .wants_samples = html_wants_samples,
};
