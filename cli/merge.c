/* SPDX-License-Identifier: MIT */
/*
 * The merge of a distributed run: each shard's summary is read back
 * (runfile.c, which reads `mode: summary` documents and jsonl files
 * alike), the shards are checked to be the parts of one run, their
 * figures are added (merge-sum.c), the plan's thresholds, which the shards
 * carried without judging, are judged on the merged figures, and the
 * reporters of `--out` receive the merged summary as they would a run's.
 */
#include "merge.h"
#include "merge-private.h"

#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "results/runfile.h"
#include "shard.h"
#include "threshold.h"

enum {
    MERGE_OK = 0,
    MERGE_USAGE = 2,
    MERGE_THRESHOLDS = 99,
};

static void
merge_input_free (gpointer data)
{
    MergeInput *input = data;

    g_clear_pointer (&input->file, throng_run_file_free);
    g_free (input);
}

static void
merge_clear (Merge *merge)
{
    g_clear_pointer (&merge->interval, throng_summary_sum_free);
    g_clear_pointer (&merge->sum, throng_summary_sum_free);
    g_clear_pointer (&merge->warnings, g_ptr_array_unref);
    g_clear_pointer (&merge->shards, g_array_unref);
    g_clear_pointer (&merge->names, g_ptr_array_unref);
    g_clear_pointer (&merge->users, g_array_unref);
    g_clear_pointer (&merge->labels, g_ptr_array_unref);
    g_clear_pointer (&merge->protocols, g_ptr_array_unref);
    g_clear_pointer (&merge->thresholds, throng_thresholds_free);
    g_clear_pointer (&merge->thresholds_tree, throng_tree_free);
    g_clear_pointer (&merge->inputs, g_ptr_array_unref);
    if (merge->missing != NULL)
        g_string_free (merge->missing, TRUE);
}

static gboolean
refuse (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
refuse (GError **error, const char *format, ...)
{
    va_list args;

    va_start (args, format);
    g_autofree char *message = g_strdup_vprintf (format, args);
    va_end (args);
    g_set_error_literal (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID, message);
    return FALSE;
}

/* --- reading and checking the shards ------------------------------------------------------ */

static MergeInput *
merge_read (const char *path, GError **error)
{
    g_autoptr (GError) local = NULL;
    ThrongRunFile *file = throng_run_file_open (path, &local);

    if (file == NULL) {
        refuse (error, "%s", local->message);
        return NULL;
    }
    MergeInput *input = g_new0 (MergeInput, 1);
    input->path = path;
    input->file = file;
    if (!throng_run_file_has_summary (file)) {
        refuse (error, "%s: no summary: the shard did not finish, or its file is cut short "
                       "(a run's summary is its last line or its whole file)", path);
        merge_input_free (input);
        return NULL;
    }
    /* The summary line only: the intervals are streamed later, aligned (throng_merge_next_interval). */
    input->summary = throng_run_file_head (file);
    const ThrongRunInfo *info = throng_run_file_info (file);
    if (input->summary->shard != NULL) {
        input->shard = *input->summary->shard;
    } else {
        /* A run without --shard is the one shard of itself. */
        input->shard.size = sizeof (ThrongShardSummary);
        input->shard.count = 1;
        input->shard.plan_sha256 = info->plan_sha256;
        input->shard.throng_version = throng_run_file_throng_version (file);
        input->shard.start_wall_us = input->summary->start_wall_us;
    }
    if (input->shard.plan_sha256 == NULL)
        input->shard.plan_sha256 = info->plan_sha256;
    if (input->shard.throng_version == NULL)
        input->shard.throng_version = throng_run_file_throng_version (file);
    if (input->shard.start_wall_us == 0)
        input->shard.start_wall_us = input->summary->start_wall_us;
    /* The count is the file's word: no more than --shard allows (it sizes the merge). */
    if (input->shard.count == 0 || input->shard.count > THRONG_SHARD_MAX
        || input->shard.index >= input->shard.count) {
        refuse (error, "%s: shard %u/%u is not a valid shard (--shard I/N: N from 1 to %u)",
                path, input->shard.index, input->shard.count, THRONG_SHARD_MAX);
        merge_input_free (input);
        return NULL;
    }
    return input;
}

/* The same plan's shape: scenarios and steps by name, in order. */
static gboolean
same_shape (const ThrongSummary *a, const ThrongSummary *b)
{
    if (a->n_scenarios != b->n_scenarios)
        return FALSE;
    for (guint s = 0; s < a->n_scenarios; s++) {
        if (g_strcmp0 (a->scenarios[s].name, b->scenarios[s].name) != 0
            || a->scenarios[s].n_steps != b->scenarios[s].n_steps)
            return FALSE;
        for (guint i = 0; i < a->scenarios[s].n_steps; i++)
            if (g_strcmp0 (a->scenarios[s].steps[i].label, b->scenarios[s].steps[i].label) != 0)
                return FALSE;
    }
    return TRUE;
}

/*
 * The index of the first step of @a's scenario @s whose kind, parent or
 * depth differs in @b, or -1 when the step trees agree (a file without
 * them reads as requests at the top level).
 */
static gint
step_tree_differs (const ThrongSummary *a, const ThrongSummary *b, guint s)
{
    const ThrongScenarioJourney *ja = a->scenarios[s].journey;
    const ThrongScenarioJourney *jb = b->scenarios[s].journey;

    for (guint i = 0; i < a->scenarios[s].n_steps; i++) {
        ThrongStepInfo top = { .kind = THRONG_STEP_REQUEST, .parent = -1 };
        const ThrongStepInfo *x = ja != NULL && ja->step_info != NULL ? &ja->step_info[i] : &top;
        const ThrongStepInfo *y = jb != NULL && jb->step_info != NULL ? &jb->step_info[i] : &top;
        if (x->kind != y->kind || x->parent != y->parent || x->depth != y->depth)
            return (gint) i;
    }
    return -1;
}

/*
 * Checks that @inputs are shards of one run, and orders them by index:
 * one throng version, one plan, one N, each index once, none missing
 * unless @allow_partial.
 */
static gboolean
merge_check (Merge *merge, GPtrArray *inputs, gboolean allow_partial, GError **error)
{
    const MergeInput *first = g_ptr_array_index (inputs, 0);
    guint count = first->shard.count;

    for (guint i = 1; i < inputs->len; i++) {
        const MergeInput *input = g_ptr_array_index (inputs, i);
        if (g_strcmp0 (input->shard.throng_version, first->shard.throng_version) != 0)
            return refuse (error, "%s was written by throng %s, %s by throng %s: the shards of "
                                  "one run come from one throng version",
                           input->path, input->shard.throng_version != NULL
                                            ? input->shard.throng_version : "(unknown)",
                           first->path, first->shard.throng_version != NULL
                                            ? first->shard.throng_version : "(unknown)");
        if (g_strcmp0 (input->shard.plan_sha256, first->shard.plan_sha256) != 0
            || !same_shape (input->summary, first->summary))
            return refuse (error, "%s and %s ran different plans (plan hash %.12s… and "
                                  "%.12s…): the shards of one run run the same plan with the "
                                  "same --set",
                           input->path, first->path,
                           input->shard.plan_sha256 != NULL ? input->shard.plan_sha256 : "none",
                           first->shard.plan_sha256 != NULL ? first->shard.plan_sha256 : "none");
        for (guint s = 0; s < first->summary->n_scenarios; s++) {
            gint step = step_tree_differs (first->summary, input->summary, s);
            if (step >= 0)
                return refuse (error, "%s and %s disagree on the place of step \"%s\" of "
                                      "scenario \"%s\" (a group or a request, and which group "
                                      "holds it): the shards of one run run the same plan",
                               input->path, first->path,
                               first->summary->scenarios[s].steps[step].label,
                               first->summary->scenarios[s].name);
        }
        if (input->shard.count != count)
            return refuse (error, "%s is shard %u/%u but %s is shard %u/%u: mixed shard counts",
                           input->path, input->shard.index, input->shard.count, first->path,
                           first->shard.index, count);
    }

    g_autofree MergeInput **by_index = g_new0 (MergeInput *, count);
    for (guint i = 0; i < inputs->len; i++) {
        MergeInput *input = g_ptr_array_index (inputs, i);
        MergeInput *other = by_index[input->shard.index];
        if (other != NULL)
            return refuse (error, "%s and %s are both shard %u/%u", other->path, input->path,
                           input->shard.index, count);
        by_index[input->shard.index] = input;
    }
    merge->missing = g_string_new (NULL);
    guint n_missing = 0;
    for (guint i = 0; i < count; i++) {
        if (by_index[i] != NULL)
            continue;
        g_string_append_printf (merge->missing, "%s%u", n_missing > 0 ? ", " : "", i);
        n_missing++;
    }
    if (n_missing > 0 && !allow_partial)
        return refuse (error, "shard%s %s of %u missing: merge all %u shards, or pass "
                              "--allow-partial to merge the others into a result marked partial",
                       n_missing == 1 ? "" : "s", merge->missing->str, count, count);
    merge->partial = n_missing > 0;
    merge->count = count;
    merge->inputs = g_ptr_array_new_with_free_func (merge_input_free);
    for (guint i = 0; i < count; i++)
        if (by_index[i] != NULL)
            g_ptr_array_add (merge->inputs, by_index[i]);
    /* The inputs now belong to the merge. */
    g_ptr_array_set_free_func (inputs, NULL);
    return TRUE;
}


/* --- thresholds, judged on the merge --------------------------------------------------------- */

/* @text as a YAML double-quoted scalar. */
static void
append_quoted (GString *out, const char *text)
{
    g_string_append_c (out, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c (out, '\\');
        g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

/*
 * The shards carried the plan's thresholds with their subjects written
 * out ("checkout.p99 < 200ms"); they are parsed again against the run's
 * scenarios and steps, as top-level thresholds, and judged here.
 */
static gboolean
merge_thresholds (Merge *merge, GError **error)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    const char *const *expressions = first->shard.thresholds;

    if (expressions == NULL || expressions[0] == NULL)
        return TRUE;
    g_autoptr (GString) yaml = g_string_new ("thresholds:\n");
    for (const char *const *e = expressions; *e != NULL; e++) {
        g_string_append (yaml, "  - ");
        append_quoted (yaml, *e);
        g_string_append_c (yaml, '\n');
    }
    g_autofree char *origin = g_strdup_printf ("%s (thresholds)", first->path);
    merge->thresholds_tree = throng_tree_load_data (origin, yaml->str, yaml->len, error);
    if (merge->thresholds_tree == NULL)
        return FALSE;
    /* Judged on what the shards' summary names: its scenarios, step labels and protocols. */
    const ThrongRunInfo *info = &merge->info;
    const ThrongSummary *merged = merge->summary;
    g_autofree const char **metric_names = g_new0 (const char *, merged->n_metrics + 1);
    g_autofree ThrongCustomMetricKind *metric_kinds
        = g_new0 (ThrongCustomMetricKind, merged->n_metrics + 1);
    for (guint m = 0; m < merged->n_metrics; m++) {
        metric_names[m] = merged->metrics[m].name;
        metric_kinds[m] = merged->metrics[m].kind;
    }
    ThrongThresholdSubjects subjects = {
        .n_scenarios = info->n_scenarios,
        .scenario_names = info->scenario_names,
        .step_labels = info->step_labels,
        .step_protocols = info->step_protocols,
        .n_metrics = merged->n_metrics,
        .metric_names = metric_names,
        .metric_kinds = metric_kinds,
    };
    g_autoptr (GError) local = NULL;
    merge->thresholds = throng_thresholds_new ();
    if (!throng_thresholds_add_list (merge->thresholds, &subjects,
                                     throng_node_lookup (throng_tree_root (merge->thresholds_tree),
                                                         "thresholds"),
                                     -1, -1, &local))
        return refuse (error, "the shards' thresholds cannot be judged on the merge: %s",
                       local->message);
    merge->summary->thresholds = throng_thresholds_evaluate (merge->thresholds, merge->summary);
    merge->summary->n_thresholds = throng_thresholds_count (merge->thresholds);
    return TRUE;
}

/* --- the run's shape for the reporters -------------------------------------------------------- */

static void
merge_build_info (Merge *merge)
{
    const MergeInput *first = g_ptr_array_index (merge->inputs, 0);
    const ThrongRunInfo *shape = throng_run_file_info (first->file);
    ThrongRunInfo *info = &merge->info;

    merge->names = g_ptr_array_new ();
    merge->users = g_array_new (FALSE, TRUE, sizeof (guint));
    merge->labels = g_ptr_array_new_with_free_func (g_free);
    merge->protocols = g_ptr_array_new_with_free_func (g_free);
    for (guint s = 0; s < merge->summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &merge->summary->scenarios[s];
        const char **labels = g_new0 (const char *, scenario->n_steps + 1);
        const char **protocols = g_new0 (const char *, scenario->n_steps + 1);
        for (guint i = 0; i < scenario->n_steps; i++) {
            labels[i] = scenario->steps[i].label;
            protocols[i] = scenario->steps[i].protocol;
        }
        g_ptr_array_add (merge->names, (gpointer) scenario->name);
        g_array_append_val (merge->users, scenario->users);
        g_ptr_array_add (merge->labels, labels);
        g_ptr_array_add (merge->protocols, protocols);
    }
    info->size = sizeof (ThrongRunInfo);
    info->plan_name = merge->summary->plan_name;
    info->plan_file = merge->summary->plan_file;
    info->n_scenarios = merge->summary->n_scenarios;
    info->scenario_names = (const char *const *) merge->names->pdata;
    info->scenario_users = (const guint *) merge->users->data;
    info->step_labels = (const char *const *const *) merge->labels->pdata;
    info->step_protocols = (const char *const *const *) merge->protocols->pdata;
    info->planned_us = merge->summary->planned_us;
    info->workers = merge->summary->workers;
    info->quiet = TRUE;
    info->plan_sha256 = shape->plan_sha256;
    info->scenario_targets = shape->scenario_targets;
}

/*
 * One line of totals, on standard output unless a reporter writes there
 * (--out json=-), and each failed threshold on standard error.
 */
static void
merge_print (const Merge *merge, FILE *stream)
{
    const ThrongSummary *sum = merge->summary;
    guint failed = 0;

    for (guint i = 0; i < sum->n_thresholds; i++)
        if (!sum->thresholds[i].passed) {
            failed++;
            g_printerr ("throng merge: threshold failed: %s (actual %s)\n",
                        sum->thresholds[i].expression, sum->thresholds[i].actual);
        }
    guint64 not_sent = throng_stats_get_not_sent (&sum->total);
    g_autofree char *unsent
        = not_sent > 0 ? g_strdup_printf (" (%" G_GUINT64_FORMAT " not sent)", not_sent) : NULL;
    fprintf (stream, "merged %u of %u shards%s: %" G_GUINT64_FORMAT " requests, %" G_GUINT64_FORMAT
             " errors%s, latency p50 %" G_GINT64_FORMAT " µs, p99 %" G_GINT64_FORMAT " µs; "
             "thresholds %u of %u passed\n",
             merge->inputs->len, merge->count, merge->partial ? " (partial)" : "",
             sum->total.requests, sum->total.errors, unsent != NULL ? unsent : "",
             throng_histogram_percentile (sum->total.latency, 50.0),
             throng_histogram_percentile (sum->total.latency, 99.0),
             sum->n_thresholds - failed, sum->n_thresholds);
    for (guint i = 0; i < merge->warnings->len; i++) {
        const char *warning = g_ptr_array_index (merge->warnings, i);
        if (warning != NULL)
            g_printerr ("throng merge: warning: %s\n", warning);
    }
}

int
throng_merge_command (int argc, char **argv)
{
    g_auto (GStrv) specs = NULL;
    g_auto (GStrv) sets = NULL;
    gboolean allow_partial = FALSE;
    gboolean overwrite = FALSE;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &specs,
          "Write the merged run with reporter NAME to PATH, e.g. json=run.json (repeatable)",
          "NAME=PATH" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "Give the --out reporter NAME the option KEY, e.g. json.mode=jsonl (repeatable)",
          "NAME.KEY=VALUE" },
        { "allow-partial", 0, 0, G_OPTION_ARG_NONE, &allow_partial,
          "Merge even when shards are missing; the result is marked partial", NULL },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &overwrite,
          "Let reporters overwrite existing files", NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary line on standard output",
          NULL },
        { NULL },
    };
    g_autoptr (GOptionContext) context = g_option_context_new ("SHARD.json…");
    g_autoptr (GError) error = NULL;

    g_set_prgname ("throng merge");
    g_option_context_set_summary (context,
                                  "Merges the json summaries of a run's shards (throng run "
                                  "--shard I/N)\ninto the summary of the whole run and judges "
                                  "its thresholds.");
    g_option_context_set_description (context,
                                      "Exit status: 0 merged, 2 usage error or shards that do "
                                      "not make one run, 3 a reporter\ncould not open, 4 results "
                                      "not written, 99 thresholds failed.");
    g_option_context_add_main_entries (context, entries, NULL);
    if (!g_option_context_parse (context, &argc, &argv, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        return MERGE_USAGE;
    }
    if (argc < 2) {
        g_printerr ("throng merge: expected the shards' json summaries (throng merge --help)\n");
        return MERGE_USAGE;
    }

    g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (merge_input_free);
    for (int i = 1; i < argc; i++) {
        MergeInput *input = merge_read (argv[i], &error);
        if (input == NULL) {
            g_printerr ("throng merge: %s\n", error->message);
            return MERGE_USAGE;
        }
        g_ptr_array_add (inputs, input);
    }

    Merge merge = { 0 };
    if (!merge_check (&merge, inputs, allow_partial, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        merge_clear (&merge);
        return MERGE_USAGE;
    }
    throng_merge_figures (&merge);
    merge_build_info (&merge);
    if (!merge_thresholds (&merge, &error)) {
        g_printerr ("throng merge: %s\n", error->message);
        merge_clear (&merge);
        return MERGE_USAGE;
    }
    g_ptr_array_add (merge.warnings, NULL);
    merge.summary->warnings = (const char *const *) merge.warnings->pdata;

    int status = throng_report_summary ("merge", &merge.info, throng_merge_next_interval, &merge,
                                        merge.summary, (const char *const *) specs,
                                        (const char *const *) sets, overwrite);
    for (guint n = 0; n < merge.inputs->len; n++) {
        MergeInput *input = g_ptr_array_index (merge.inputs, n);
        for (const char *const *skipped = throng_run_file_skipped (input->file);
             *skipped != NULL; skipped++)
            g_printerr ("throng merge: %s\n", *skipped);
    }
    gboolean to_stdout = FALSE;
    for (char **spec = specs; spec != NULL && *spec != NULL; spec++)
        to_stdout |= g_str_has_suffix (*spec, "=-");
    if (!quiet)
        merge_print (&merge, to_stdout ? stderr : stdout);
    if (status == MERGE_OK)
        for (guint i = 0; i < merge.summary->n_thresholds; i++)
            if (!merge.summary->thresholds[i].passed)
                status = MERGE_THRESHOLDS;
    merge_clear (&merge);
    return status;
}
