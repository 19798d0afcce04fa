/* SPDX-License-Identifier: MIT */
/*
 * Reading a json reporter's jsonl file back into snapshots and a summary.
 * The file is mapped, not copied; one line is tokenized at a time
 * (jsontok.c), and a rebuilt summary keeps copies of its strings.
 * docs/reporters.md is the schema this reads.
 */
#include "runfile.h"

#include "results/summary-sum.h"

#include <throng/node.h>

#include <string.h>

#include "jsontok-private.h"
#include "metrics.h"
#include "runfile-store-private.h"
#include "samplefile-private.h"

/* Samples handed out at once, at most. */
#define RUN_FILE_SAMPLE_BATCH 512

struct _ThrongRunFile {
    char *path;
    GMappedFile *map;
    const char *data;
    gsize length;
    JsonToks toks;          /* the line parsed last */
    GString *scratch;
    gsize offset;           /* where next() reads */
    guint line;             /* the number of the line at @offset, from 1 */
    RunStore head;          /* the summary line, or the last interval: the run's shape */
    gboolean has_summary;
    ThrongRunInfo info;
    GPtrArray *names;
    GArray *users;
    GPtrArray *labels;      /* per scenario, a NULL-terminated array of const char * */
    GPtrArray *step_info;   /* per scenario, the head's ThrongStepInfo[] (or NULL): not owned */
    GPtrArray *protocols;
    RunStore current;
    ThrongSummarySum *merged; /* every interval added up, for a run without a summary */
    GPtrArray *merged_warnings; /* its warnings, NULL-terminated */
    const ThrongSummary *summary; /* once finished: the summary line or @merged */
    guint intervals;
    GPtrArray *skipped;
    gboolean finished;
    gboolean want_samples;
    GArray *samples;        /* ThrongSample, the batch next() hands out */
    GStringChunk *sample_strings;
    guint unknown_samples;  /* samples of a scenario or step the run does not have */
};

/* --- lines ------------------------------------------------------------------------ */

typedef enum {
    LINE_EMPTY,
    LINE_BAD,       /* not a JSON object with a string "type" */
    LINE_SAMPLE,
    LINE_INTERVAL,
    LINE_SUMMARY,
    LINE_OTHER,     /* an object of a type this throng does not know */
} LineKind;

/* Classifies the line at @start; parses it into @file's tokens unless it is a sample. */
static const char sample_prefix[] = "{\"type\":\"sample\"";

/* Whether the line at @start is a sample as the json reporter writes them. */
static gboolean
is_sample_line (const char *start, gsize length)
{
    return length >= sizeof sample_prefix - 1
           && memcmp (start, sample_prefix, sizeof sample_prefix - 1) == 0;
}

static LineKind
parse_line (ThrongRunFile *file, const char *start, gsize length)
{
    while (length > 0 && (start[length - 1] == '\r' || start[length - 1] == ' '))
        length--;
    if (length == 0)
        return LINE_EMPTY;
    /* Samples are most of a big file: unless wanted, recognised without parsing. */
    if (!file->want_samples && is_sample_line (start, length))
        return LINE_SAMPLE;
    if (!jsontok_parse (&file->toks, start, length)
        || g_array_index (file->toks.toks, JsonTok, 0).type != JSONTOK_OBJECT)
        return LINE_BAD;
    gint type = jsontok_member (&file->toks, 0, "type");
    if (type < 0 || g_array_index (file->toks.toks, JsonTok, type).type != JSONTOK_STRING)
        return LINE_BAD;
    if (jsontok_string_equals (&file->toks, type, "interval"))
        return LINE_INTERVAL;
    if (jsontok_string_equals (&file->toks, type, "summary"))
        return LINE_SUMMARY;
    if (jsontok_string_equals (&file->toks, type, "sample"))
        return LINE_SAMPLE;
    return LINE_OTHER;
}

/* The "type" of the line parsed last, for a message. */
static const char *
line_type (ThrongRunFile *file)
{
    return throng_run_store_member_text (&file->toks, file->scratch, 0, "type");
}

static void
run_file_skip (ThrongRunFile *file, guint line, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
run_file_skip (ThrongRunFile *file, guint line, const char *format, ...)
{
    va_list args;

    va_start (args, format);
    g_autofree char *why = g_strdup_vprintf (format, args);
    va_end (args);
    /* throng_run_file_skipped() may have terminated the list. */
    if (file->skipped->len > 0 && g_ptr_array_index (file->skipped, file->skipped->len - 1) == NULL)
        g_ptr_array_remove_index (file->skipped, file->skipped->len - 1);
    g_ptr_array_add (file->skipped, g_strdup_printf ("%s:%u: %s", file->path, line, why));
}

/* Whether the line parsed last has a version this reader knows (absent means 1). */
static gboolean
known_version (ThrongRunFile *file, gint64 *version)
{
    gint member = jsontok_member (&file->toks, 0, "version");
    *version = member >= 0 ? jsontok_int (&file->toks, member) : 1;
    return *version >= 1 && *version <= THRONG_RUN_FILE_VERSION;
}

/* The line that starts at @offset: its length, and where the next one starts. */
static gsize
line_end (ThrongRunFile *file, gsize offset, gsize *next)
{
    const char *newline = memchr (file->data + offset, '\n', file->length - offset);
    gsize end = newline != NULL ? (gsize) (newline - file->data) : file->length;

    *next = newline != NULL ? end + 1 : file->length;
    return end - offset;
}

/*
 * The run's shape, from the last summary line, or else the last interval.
 * When every such line is of a newer version, @newer is the last one's.
 */
static gboolean
run_file_find_head (ThrongRunFile *file, gint64 *newer)
{
    gsize end = file->length;

    *newer = 0;

    while (end > 0) {
        gsize start = end - 1;
        /* @end is one past a line's last byte (its newline, or the end of the file). */
        while (start > 0 && file->data[start - 1] != '\n')
            start--;
        LineKind kind = parse_line (file, file->data + start, end - start);
        gint64 version = 0;
        if (kind == LINE_SUMMARY && known_version (file, &version)) {
            throng_run_store_read (&file->toks, file->scratch, &file->head, FALSE);
            file->has_summary = TRUE;
            return TRUE;
        }
        if (kind == LINE_INTERVAL && known_version (file, &version)) {
            throng_run_store_read (&file->toks, file->scratch, &file->head, TRUE);
            return TRUE;
        }
        if ((kind == LINE_SUMMARY || kind == LINE_INTERVAL) && *newer == 0)
            *newer = version;
        end = start > 0 ? start - 1 : 0;
    }
    return FALSE;
}

static void
run_file_build_info (ThrongRunFile *file)
{
    const ThrongSummary *head = &file->head.summary;
    ThrongRunInfo *info = &file->info;

    /* An interval, or a summary without its plan, names no plan: the file stands in for it. */
    if (file->head.summary.plan_name == NULL)
        file->head.summary.plan_name = file->path;
    file->names = g_ptr_array_new ();
    file->users = g_array_new (FALSE, TRUE, sizeof (guint));
    file->labels = g_ptr_array_new_with_free_func (g_free);
    file->protocols = g_ptr_array_new_with_free_func (g_free);
    for (guint s = 0; s < head->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &head->scenarios[s];
        const char **labels = g_new0 (const char *, scenario->n_steps + 1);
        const char **protocols = g_new0 (const char *, scenario->n_steps + 1);
        for (guint i = 0; i < scenario->n_steps; i++) {
            labels[i] = scenario->steps[i].label;
            protocols[i] = scenario->steps[i].protocol;
        }
        g_ptr_array_add (file->names, (gpointer) scenario->name);
        g_array_append_val (file->users, scenario->users);
        g_ptr_array_add (file->labels, labels);
        g_ptr_array_add (file->protocols, protocols);
    }
    info->size = sizeof (ThrongRunInfo);
    info->plan_name = head->plan_name;
    info->plan_file = head->plan_file;
    info->n_scenarios = head->n_scenarios;
    info->scenario_names = (const char *const *) file->names->pdata;
    info->scenario_users = (const guint *) file->users->data;
    info->step_labels = (const char *const *const *) file->labels->pdata;
    info->step_protocols = (const char *const *const *) file->protocols->pdata;
    /* Groups and their members, so that a csv's transaction rows count their requests. */
    file->step_info = g_ptr_array_new ();
    for (guint s = 0; s < head->n_scenarios; s++) {
        const ThrongScenarioJourney *journey = throng_journey_get (&head->scenarios[s]);
        g_ptr_array_add (file->step_info, journey != NULL ? (gpointer) journey->step_info : NULL);
    }
    info->step_info = (const ThrongStepInfo *const *) file->step_info->pdata;
    info->workers = head->workers;
    info->plan_sha256 = file->head.plan_sha256;
    info->scenario_targets = (const char *const *) file->head.targets->pdata;
}

typedef enum {
    DOCUMENT_NONE,      /* not one multi-line document: read it as jsonl */
    DOCUMENT_READ,
    DOCUMENT_FAILED,
} DocumentResult;

/*
 * A file whose first line is "{" alone is the summary document of the
 * json reporter's `mode: summary`: the whole file is one JSON object.
 */
static DocumentResult
run_file_open_document (ThrongRunFile *file, GError **error)
{
    gsize start = 0;

    while (start < file->length && g_ascii_isspace (file->data[start]))
        start++;
    if (start >= file->length || file->data[start] != '{')
        return DOCUMENT_NONE;
    gsize next;
    gsize length = line_end (file, start, &next);
    while (length > 0 && g_ascii_isspace (file->data[start + length - 1]))
        length--;
    if (length != 1 || next >= file->length)
        return DOCUMENT_NONE;
    if (!jsontok_parse (&file->toks, file->data, file->length)
        || g_array_index (file->toks.toks, JsonTok, 0).type != JSONTOK_OBJECT) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: not a complete JSON document (cut short while it was written, or "
                     "not JSON): no run to read", file->path);
        return DOCUMENT_FAILED;
    }
    gint64 version;
    if (jsontok_member (&file->toks, 0, "version") < 0
        || jsontok_member (&file->toks, 0, "plan") < 0
        || jsontok_member (&file->toks, 0, "total") < 0
        || jsontok_member (&file->toks, 0, "scenarios") < 0) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: a JSON document, but not a throng summary (no version, plan, total "
                     "and scenarios)", file->path);
        return DOCUMENT_FAILED;
    }
    if (!known_version (file, &version)) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: written by a newer throng (schema version %" G_GINT64_FORMAT
                     "; this one reads version %d)", file->path, version,
                     THRONG_RUN_FILE_VERSION);
        return DOCUMENT_FAILED;
    }
    throng_run_store_read (&file->toks, file->scratch, &file->head, FALSE);
    file->has_summary = TRUE;
    file->offset = file->length;
    return DOCUMENT_READ;
}

ThrongRunFile *
throng_run_file_open (const char *path, GError **error)
{
    g_autoptr (GError) local = NULL;
    GMappedFile *map;

    /* A FIFO would block the open below; a device would be mapped or read for ever. */
    if (!throng_node_check_file (NULL, path, error))
        return NULL;
    map = g_mapped_file_new (path, FALSE, &local);
    if (map == NULL) {
        g_set_error (error, G_FILE_ERROR, local->code, "%s", local->message);
        return NULL;
    }
    g_autoptr (ThrongRunFile) file = g_new0 (ThrongRunFile, 1);
    file->path = g_strdup (path);
    file->map = map;
    file->data = g_mapped_file_get_contents (map);
    file->length = g_mapped_file_get_length (map);
    file->line = 1;
    file->skipped = g_ptr_array_new_with_free_func (g_free);
    jsontok_init (&file->toks);
    file->scratch = g_string_new (NULL);
    if (file->length == 0) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: the file is empty: no run to draw", path);
        return NULL;
    }

    /* A json reporter's `mode: summary` document spans many lines. */
    switch (run_file_open_document (file, error)) {
    case DOCUMENT_READ:
        run_file_build_info (file);
        return g_steal_pointer (&file);
    case DOCUMENT_FAILED:
        return NULL;
    case DOCUMENT_NONE:
        break;
    }

    /* The first line with anything on it says whether this is a throng file at all. */
    gsize offset = 0;
    for (guint line = 1; offset < file->length; line++) {
        gsize next;
        gsize length = line_end (file, offset, &next);
        LineKind kind = parse_line (file, file->data + offset, length);
        if (kind == LINE_EMPTY) {
            offset = next;
            continue;
        }
        if (kind == LINE_BAD && next >= file->length && file->data[file->length - 1] != '\n') {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s:%u: the only line is cut short (was the run killed while writing "
                         "it?): no run to draw", path, line);
            return NULL;
        }
        if (kind == LINE_BAD || kind == LINE_OTHER) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s:%u: not a throng jsonl file: each line should be a JSON object "
                         "whose \"type\" is interval, sample or summary (the json reporter's "
                         "mode: jsonl)", path, line);
            return NULL;
        }
        break;
    }
    gint64 newer;
    if (!run_file_find_head (file, &newer)) {
        if (newer != 0) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                         "%s: written by a newer throng (schema version %" G_GINT64_FORMAT
                         "; this one reads version %d): no run to draw", path, newer,
                         THRONG_RUN_FILE_VERSION);
            return NULL;
        }
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: no interval or summary line that this throng can read: no run "
                     "to draw", path);
        return NULL;
    }
    run_file_build_info (file);
    return g_steal_pointer (&file);
}

void
throng_run_file_free (ThrongRunFile *file)
{
    if (file == NULL)
        return;
    throng_run_store_clear (&file->head);
    throng_run_store_clear (&file->current);
    g_clear_pointer (&file->merged, throng_summary_sum_free);
    g_clear_pointer (&file->merged_warnings, g_ptr_array_unref);
    g_clear_pointer (&file->names, g_ptr_array_unref);
    g_clear_pointer (&file->users, g_array_unref);
    g_clear_pointer (&file->labels, g_ptr_array_unref);
    g_clear_pointer (&file->step_info, g_ptr_array_unref);
    g_clear_pointer (&file->protocols, g_ptr_array_unref);
    g_clear_pointer (&file->skipped, g_ptr_array_unref);
    g_clear_pointer (&file->map, g_mapped_file_unref);
    jsontok_clear (&file->toks);
    g_clear_pointer (&file->samples, g_array_unref);
    g_clear_pointer (&file->sample_strings, g_string_chunk_free);
    if (file->scratch != NULL)
        g_string_free (file->scratch, TRUE);
    g_free (file->path);
    g_free (file);
}

const ThrongRunInfo *
throng_run_file_info (ThrongRunFile *file)
{
    return &file->info;
}

void
throng_run_file_want_samples (ThrongRunFile *file)
{
    if (file->want_samples)
        return;
    file->want_samples = TRUE;
    file->samples = g_array_sized_new (FALSE, FALSE, sizeof (ThrongSample), RUN_FILE_SAMPLE_BATCH);
    file->sample_strings = g_string_chunk_new (4096);
}

/* Adds the sample line just parsed to the batch. */
static void
run_file_add_sample (ThrongRunFile *file)
{
    ThrongSample sample;

    if (file->samples->len == 0)
        g_string_chunk_clear (file->sample_strings);
    if (!throng_sample_line_read (&file->toks, &file->info, file->head.summary.start_wall_us,
                                  file->sample_strings, &sample)) {
        file->unknown_samples++;
        return;
    }
    g_array_append_val (file->samples, sample);
}

const ThrongSummary *
throng_run_file_next (ThrongRunFile *file, const ThrongSample **samples, gsize *n_samples)
{
    *samples = NULL;
    *n_samples = 0;
    if (file->samples != NULL)
        g_array_set_size (file->samples, 0);
    while (file->offset < file->length) {
        gsize next;
        gsize length = line_end (file, file->offset, &next);
        /* A batch of samples ends before the first line that is not one. */
        if (file->samples != NULL && file->samples->len > 0
            && (file->samples->len >= RUN_FILE_SAMPLE_BATCH
                || !is_sample_line (file->data + file->offset, length))) {
            *samples = (const ThrongSample *) file->samples->data;
            *n_samples = file->samples->len;
            return NULL;
        }
        gboolean last = next >= file->length;
        gboolean complete = file->offset + length < file->length;
        guint line = file->line;
        LineKind kind = parse_line (file, file->data + file->offset, length);
        gint64 version;

        file->offset = next;
        file->line++;
        switch (kind) {
        case LINE_EMPTY:
            continue;
        case LINE_SAMPLE:
            if (file->want_samples)
                run_file_add_sample (file);
            continue;
        case LINE_BAD:
            if (last && !complete)
                run_file_skip (file, line, "the last line is cut short (was the run killed "
                                           "while writing it?); skipped");
            else
                run_file_skip (file, line, "not a JSON object with a \"type\"; skipped");
            continue;
        case LINE_OTHER:
            run_file_skip (file, line, "a line of type \"%s\", unknown to this throng; skipped",
                           line_type (file));
            continue;
        case LINE_SUMMARY:
            if (!known_version (file, &version))
                run_file_skip (file, line, "a summary of version %" G_GINT64_FORMAT ", newer than "
                               "this throng reads (%d); skipped", version, THRONG_RUN_FILE_VERSION);
            continue;
        case LINE_INTERVAL:
            if (!known_version (file, &version)) {
                run_file_skip (file, line, "an interval of version %" G_GINT64_FORMAT ", newer "
                               "than this throng reads (%d); skipped", version,
                               THRONG_RUN_FILE_VERSION);
                continue;
            }
            throng_run_store_read (&file->toks, file->scratch, &file->current, TRUE);
            file->intervals++;
            /* The sum of the intervals stands in only for a missing summary. */
            if (file->has_summary)
                return &file->current.summary;
            if (file->merged == NULL)
                file->merged = throng_summary_sum_new (&file->head.summary,
                                                       THRONG_SUMMARY_OVER_TIME);
            throng_summary_sum_add (file->merged, &file->current.summary);
            return &file->current.summary;
        }
    }
    if (file->samples != NULL && file->samples->len > 0) {
        *samples = (const ThrongSample *) file->samples->data;
        *n_samples = file->samples->len;
    }
    return NULL;
}

/* Appends @text to NULL-terminated @warnings and points @summary at them. */
static void
summary_warn (ThrongSummary *summary, GPtrArray *warnings, char *text)
{
    g_ptr_array_remove_index (warnings, warnings->len - 1);
    g_ptr_array_add (warnings, text);
    g_ptr_array_add (warnings, NULL);
    summary->warnings = (const char *const *) warnings->pdata;
}

/* The summary line, or the intervals added up over time when there is none (a run that did
 * not end normally), with what was skipped among its warnings. */
static const ThrongSummary *
run_file_finish (ThrongRunFile *file)
{
    ThrongSummary *summary = &file->head.summary;
    GPtrArray *warnings = file->head.warnings;

    if (!file->has_summary && file->merged != NULL) {
        summary = throng_summary_sum_get (file->merged);
        warnings = file->merged_warnings = g_ptr_array_new_with_free_func (g_free);
        g_ptr_array_add (warnings, NULL);
        summary->interval_us = 0;
        summary->load_us = summary->elapsed_us;
        summary->interrupted = TRUE;
        for (guint s = 0; s < summary->n_scenarios; s++)
            throng_summary_sum_scenario (file->merged, s)->active_users = 0;
        summary_warn (summary, warnings,
                      g_strdup_printf ("%s has no summary line (the run did not end normally): "
                                       "these figures add up its %u intervals",
                                       file->path, file->intervals));
    }
    for (guint i = 0; i < file->skipped->len; i++)
        if (g_ptr_array_index (file->skipped, i) != NULL)
            summary_warn (summary, warnings, g_strdup (g_ptr_array_index (file->skipped, i)));
    return summary;
}

const ThrongSummary *
throng_run_file_summary (ThrongRunFile *file)
{
    if (!file->finished) {
        const ThrongSample *samples;
        gsize n_samples;
        while (throng_run_file_next (file, &samples, &n_samples) != NULL || n_samples > 0)
            ;
        if (file->unknown_samples > 0)
            g_ptr_array_add (file->skipped,
                             g_strdup_printf ("%s: %u samples of a scenario or step that the run "
                                              "does not have; skipped", file->path,
                                              file->unknown_samples));
        file->finished = TRUE;
        file->summary = run_file_finish (file);
    }
    return file->summary;
}

const ThrongSummary *
throng_run_file_head (ThrongRunFile *file)
{
    return file->has_summary ? &file->head.summary : NULL;
}

gboolean
throng_run_file_has_summary (ThrongRunFile *file)
{
    return file->has_summary;
}

const char *
throng_run_file_throng_version (ThrongRunFile *file)
{
    return file->head.throng_version;
}

const char *const *
throng_run_file_skipped (ThrongRunFile *file)
{
    if (file->skipped->len == 0
        || g_ptr_array_index (file->skipped, file->skipped->len - 1) != NULL)
        g_ptr_array_add (file->skipped, NULL);
    return (const char *const *) file->skipped->pdata;
}
