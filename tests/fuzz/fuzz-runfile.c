/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the run-file reader (core/results/runfile.c, samplefile.c,
 * jsontok.c) and the two commands built on it, `throng merge` and
 * `throng report` (cli/merge.c, report.c).  One input is one file, a
 * json reporter's jsonl file or `mode: summary` document as a user may
 * hand either command: truncated, hostile, of another version.  It is
 * read as report reads it (every interval, every batch of samples, the
 * summary, what was skipped), then given to `throng merge --quiet` and to
 * `throng report --out json=…`, whose every line on standard error must
 * be one "throng COMMAND: …" line.  A summary the reader accepts is also
 * written back by the json reporter and read again: it must read the
 * same (the round trip of docs/reporters.md's schema).  A crash, a
 * sanitizer report, a leak, a GLib critical or warning, an error of more
 * than one line or a summary that does not read back the same is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "merge.h"
#include "report.h"
#include "results/runfile.h"

#include "fuzz-glib.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *dir;
static char *run_path;      /* the input */
static char *back_path;     /* the json reporter's summary of it */
static char *report_path;   /* what `throng report` writes */
static const char *command; /* whose standard error is being read: "merge", "report" */

/* Every message of the commands is one line that names its command. */
static void
check_printerr (const gchar *message)
{
    /* GLib's own report of a failed assertion, or a message outside the commands. */
    if (g_str_has_prefix (message, "**") || command == NULL) {
        fputs (message, stderr);
        return;
    }
    g_autofree char *prefix = g_strdup_printf ("throng %s: ", command);
    const char *newline = strchr (message, '\n');

    if (!g_str_has_prefix (message, prefix) || newline == NULL || newline[1] != '\0')
        g_error ("not one line of throng %s: \"%s\"", command != NULL ? command : "?", message);
}

/* What a reporter may rely on in a snapshot or summary the reader built. */
static void
check_summary (const ThrongSummary *summary, const ThrongRunInfo *info)
{
    g_assert_nonnull (summary);
    g_assert_cmpuint (summary->size, ==, sizeof (ThrongSummary));
    g_assert_nonnull (summary->total.latency);
    g_assert_nonnull (summary->total.handshake);
    g_assert_true (summary->n_scenarios == 0 || summary->scenarios != NULL);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        g_assert_nonnull (scenario->stats.latency);
        g_assert_true (scenario->n_steps == 0 || scenario->steps != NULL);
        for (guint i = 0; i < scenario->n_steps; i++)
            g_assert_nonnull (scenario->steps[i].stats.latency);
        if (scenario->journey != NULL) {
            for (guint c = 0; c < scenario->journey->n_checks; c++)
                (void) scenario->journey->checks[c].passes;
            for (guint i = 0; i < scenario->n_steps; i++)
                (void) scenario->journey->step_info[i].kind;
        }
    }
    g_assert_nonnull (summary->warnings);
    for (const char *const *w = summary->warnings; *w != NULL; w++)
        g_assert_null (strchr (*w, '\n'));
    (void) info;
}

/* The file read as `throng report` reads it; with @samples, the samples too. */
static ThrongRunFile *
read_whole (gboolean samples)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongRunFile) file = throng_run_file_open (run_path, &error);

    if (file == NULL) {
        g_assert_nonnull (error);
        g_assert_true (g_str_has_prefix (error->message, run_path));
        g_assert_null (strchr (error->message, '\n'));
        return NULL;
    }
    g_assert_no_error (error);
    const ThrongRunInfo *info = throng_run_file_info (file);
    /* The SDK's ThrongRunInfo has no nullable name. */
    g_assert_nonnull (info->plan_name);
    for (guint s = 0; s < info->n_scenarios; s++) {
        g_assert_nonnull (info->scenario_names[s]);
        g_assert_nonnull (info->step_labels[s]);
        for (guint i = 0; info->step_labels[s][i] != NULL; i++)
            (void) info->step_protocols[s][i];
    }
    if (throng_run_file_head (file) != NULL)
        check_summary (throng_run_file_head (file), info);
    if (samples)
        throng_run_file_want_samples (file);
    for (;;) {
        const ThrongSample *batch;
        gsize n;
        const ThrongSummary *snapshot = throng_run_file_next (file, &batch, &n);
        if (snapshot == NULL && n == 0)
            break;
        if (snapshot != NULL)
            check_summary (snapshot, info);
        g_assert_true (samples || n == 0);
        for (gsize i = 0; i < n; i++) {
            g_assert_cmpuint (batch[i].scenario, <, info->n_scenarios);
            g_assert_nonnull (info->step_labels[batch[i].scenario]);
        }
    }
    check_summary (throng_run_file_summary (file), info);
    for (const char *const *skipped = throng_run_file_skipped (file); *skipped != NULL; skipped++) {
        g_assert_true (g_str_has_prefix (*skipped, run_path));
        g_assert_null (strchr (*skipped, '\n'));
    }
    return g_steal_pointer (&file);
}

static void
assert_same_stats (const ThrongStats *a, const ThrongStats *b, const char *where)
{
    if (a->requests != b->requests || a->errors != b->errors || a->bytes_sent != b->bytes_sent
        || a->bytes_received != b->bytes_received || a->connections != b->connections
        || a->retries != b->retries || a->handshakes_full != b->handshakes_full
        || a->handshakes_resumed != b->handshakes_resumed
        || memcmp (a->errors_by_class, b->errors_by_class, sizeof a->errors_by_class) != 0)
        g_error ("%s: the counts do not read back the same (requests %" G_GUINT64_FORMAT
                 " → %" G_GUINT64_FORMAT ", errors %" G_GUINT64_FORMAT " → %" G_GUINT64_FORMAT
                 ")", where, a->requests, b->requests, a->errors, b->errors);
    if (throng_histogram_count (a->latency) != throng_histogram_count (b->latency)
        || throng_histogram_max (a->latency) != throng_histogram_max (b->latency)
        || throng_histogram_percentile (a->latency, 50.0)
               != throng_histogram_percentile (b->latency, 50.0))
        g_error ("%s: the latency histogram does not read back the same", where);
}

/*
 * The summary written back by the json reporter (`mode: summary`, as
 * `throng merge --out json=…` writes it) and read again.
 */
static void
round_trip (ThrongRunFile *file)
{
    const ThrongSummary *summary = throng_run_file_head (file);
    const char *const specs[] = { g_strdup_printf ("json=%s", back_path), NULL };
    g_autoptr (GError) error = NULL;

    command = "fuzz";
    int status = throng_report_summary ("fuzz", throng_run_file_info (file), NULL, NULL, summary,
                                        specs, NULL, TRUE);
    g_free ((char *) specs[0]);
    g_assert_cmpint (status, ==, 0);

    g_autoptr (ThrongRunFile) back = throng_run_file_open (back_path, &error);
    if (back == NULL)
        g_error ("the json reporter's summary does not read back: %s", error->message);
    const ThrongSummary *again = throng_run_file_head (back);
    g_assert_nonnull (again);
    assert_same_stats (&summary->total, &again->total, "total");
    g_assert_cmpuint (summary->n_scenarios, ==, again->n_scenarios);
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *a = &summary->scenarios[s], *b = &again->scenarios[s];
        if (g_strcmp0 (a->name, b->name) != 0 || a->users != b->users
            || a->iterations != b->iterations || a->n_steps != b->n_steps)
            g_error ("scenario %u does not read back the same (\"%s\" → \"%s\", %u → %u steps)",
                     s, a->name, b->name, a->n_steps, b->n_steps);
        assert_same_stats (&a->stats, &b->stats, "a scenario");
        for (guint i = 0; i < a->n_steps; i++) {
            if (g_strcmp0 (a->steps[i].label, b->steps[i].label) != 0)
                g_error ("step %u of scenario %u does not read back the same (\"%s\" → \"%s\")",
                         i, s, a->steps[i].label, b->steps[i].label);
            assert_same_stats (&a->steps[i].stats, &b->steps[i].stats, "a step");
        }
    }
    g_assert_cmpuint (summary->n_thresholds, ==, again->n_thresholds);
    for (guint t = 0; t < summary->n_thresholds; t++)
        g_assert_cmpstr (summary->thresholds[t].expression, ==, again->thresholds[t].expression);
}

static void
run_command (int (*run) (int, char **), const char *name, const char *const *args)
{
    g_auto (GStrv) argv = g_strdupv ((char **) args);
    /* GOption rearranges argv: hand it a copy of the pointers it may drop. */
    g_autofree char **copy = g_memdup2 (argv, sizeof (char *) * (g_strv_length (argv) + 1));

    command = name;
    int status = run ((int) g_strv_length (copy), copy);
    command = NULL;
    g_assert_true (status == 0 || status == 2 || status == 3 || status == 4 || status == 99);
}

static void
remove_files (void)
{
    g_unlink (run_path);
    g_unlink (back_path);
    g_unlink (report_path);
    g_rmdir (dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    g_autoptr (GError) error = NULL;
    const char *plugins = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    dir = g_dir_make_tmp ("throng-fuzz-runfile-XXXXXX", &error);
    if (dir == NULL)
        g_error ("%s", error->message);
    run_path = g_build_filename (dir, "run.jsonl", NULL);
    back_path = g_build_filename (dir, "back.json", NULL);
    report_path = g_build_filename (dir, "report.jsonl", NULL);
    atexit (remove_files);
    /* the build's reporters (json) */
    g_setenv ("THRONG_PLUGIN_PATH", plugins != NULL ? plugins : FUZZ_TEST_PLUGIN_DIR, TRUE);
    g_set_printerr_handler (check_printerr);
    fuzz_glib_init ();
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    g_autoptr (GError) error = NULL;

    /* Larger inputs spend the fuzzer's time on copying, not on new lines. */
    if (size > 256 * 1024)
        return -1;
    /* No fsync: the file lives for one input. */
    if (!g_file_set_contents_full (run_path, (const char *) data, (gssize) size,
                                   G_FILE_SET_CONTENTS_NONE, 0644, &error))
        g_error ("cannot write %s: %s", run_path, error->message);

    g_autoptr (ThrongRunFile) file = read_whole (FALSE);
    if (file == NULL)
        return 0;
    g_autoptr (ThrongRunFile) with_samples = read_whole (TRUE);
    g_assert_nonnull (with_samples);
    if (throng_run_file_has_summary (file))
        round_trip (file);

    const char *const merge[] = { "merge", "--quiet", run_path, NULL };
    run_command (throng_merge_command, "merge", merge);
    g_autofree char *out = g_strdup_printf ("json=%s", report_path);
    const char *const report[]
        = { "report",      run_path,   "--out", out, "--set", "json.mode=jsonl",
            "--set",       "json.samples=true", "--overwrite", NULL };
    run_command (throng_report_command, "report", report);
    return 0;
}
