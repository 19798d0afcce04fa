/* SPDX-License-Identifier: MIT */
/*
 * The `report` command: reads a json reporter's jsonl file (runfile.c) and
 * drives the reporters named by `--out` through their ordinary hooks —
 * configure, open, one snapshot per interval, close — so that `throng
 * report run.jsonl --out html=report.html` writes the page the html
 * reporter would have written live.
 */
#include "report.h"

#include <string.h>

#include "metrics.h"
#include "node-private.h"
#include "plan-overrides.h"
#include "registry.h"
#include "results/runfile.h"
#include "results/reporter-set.h"

/* The command's statuses, as `throng run` uses them. */
enum {
    REPORT_OK = 0,
    REPORT_USAGE = 2,
    REPORT_NOT_STARTED = 3,
    REPORT_NOT_WRITTEN = 4,
};

typedef struct {
    char *name;
    const ThrongReporter *reporter;
    ThrongTree *tree;
    gpointer data;
} ReportOut;

static void
report_out_free (ReportOut *out)
{
    if (out->data != NULL)
        out->reporter->free (out->data);
    if (out->tree != NULL)
        throng_tree_free (out->tree);
    g_free (out->name);
    g_free (out);
}

/* @text as a YAML double-quoted scalar. */
static char *
report_yaml_quote (const char *text)
{
    GString *out = g_string_new ("\"");

    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c (out, '\\');
        if ((unsigned char) *p < 0x20)
            g_string_append_printf (out, "\\x%02x", (unsigned char) *p);
        else
            g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
    return g_string_free (out, FALSE);
}

/* A --set value as YAML: a plain word (true, 250ms, 3) as it is, anything else a string. */
static char *
report_yaml_value (const char *value)
{
    for (const char *p = value; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && strchr ("._/+-", *p) == NULL)
            return report_yaml_quote (value);
    return *value != '\0' ? g_strdup (value) : report_yaml_quote (value);
}

/*
 * "NAME=PATH" → the reporter NAME configured with {path: PATH} (the key
 * throng_cli_out_key() names), as `throng run --out` does, plus KEY:
 * VALUE for each "NAME.KEY=VALUE" of @sets.
 */
static ReportOut *
report_out_new (ThrongRegistry *registry, const char *spec, const char *const *sets,
                GError **error)
{
    const char *equals = strchr (spec, '=');

    if (equals == NULL || equals == spec || equals[1] == '\0') {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "--out %s: expected NAME=PATH, e.g. --out html=report.html", spec);
        return NULL;
    }
    ReportOut *out = g_new0 (ReportOut, 1);
    out->name = g_strndup (spec, (gsize) (equals - spec));
    g_autoptr (GError) local = NULL;
    out->reporter = throng_registry_get_reporter (registry, out->name, &local);
    if (out->reporter == NULL) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID, "--out %s: %s", spec,
                     local->message);
        report_out_free (out);
        return NULL;
    }
    g_autofree char *quoted = report_yaml_quote (equals + 1);
    g_autoptr (GString) yaml = g_string_new (NULL);
    g_string_append_printf (yaml, "%s: %s\n", throng_cli_out_key (out->name), quoted);
    for (const char *const *set = sets; set != NULL && *set != NULL; set++) {
        gsize name_length = strlen (out->name);
        if (strncmp (*set, out->name, name_length) != 0 || (*set)[name_length] != '.')
            continue;
        const char *key = *set + name_length + 1;
        const char *value = strchr (key, '=');
        g_autofree char *yaml_value = report_yaml_value (value + 1);
        g_string_append_printf (yaml, "%.*s: %s\n", (int) (value - key), key, yaml_value);
    }
    g_autofree char *origin = g_strdup_printf ("--out %s", spec);
    out->tree = throng_tree_load_data (origin, yaml->str, yaml->len, error);
    if (out->tree == NULL
        || (out->data = out->reporter->configure (throng_tree_root (out->tree), error)) == NULL) {
        report_out_free (out);
        return NULL;
    }
    return out;
}

/* RUN.jsonl → RUN.html beside it. */
static char *
report_default_out (const char *run_path)
{
    g_autofree char *stem = g_strdup (run_path);

    if (g_str_has_suffix (stem, ".jsonl"))
        stem[strlen (stem) - strlen (".jsonl")] = '\0';
    else if (g_str_has_suffix (stem, ".json"))
        stem[strlen (stem) - strlen (".json")] = '\0';
    return g_strdup_printf ("html=%s.html", stem);
}

/* The --out reporters as one set, in their order. */
static ThrongReporterSet *
report_set (const char *command, GPtrArray *outs)
{
    ThrongReporterSet *set = throng_reporter_set_new (command);

    for (guint i = 0; i < outs->len; i++) {
        ReportOut *out = g_ptr_array_index (outs, i);
        throng_reporter_set_add (set, out->name, out->reporter, out->data, NULL);
    }
    return set;
}

/*
 * Opens the set; when a reporter cannot open, the ones already open close
 * with a summary that says the run never started, and the error is printed.
 */
static gboolean
report_open (ThrongReporterSet *set, const char *command, const ThrongRunInfo *info)
{
    g_autoptr (GError) error = NULL;

    if (throng_reporter_set_open (set, info, &error))
        return TRUE;
    g_printerr ("%s: %s\n", command, error->message);
    ThrongSummary summary = {
        .size = sizeof (ThrongSummary),
        .plan_name = info->plan_name,
        .plan_file = info->plan_file,
        .workers = info->workers,
        .interrupted = TRUE,
        .never_started = TRUE,
    };
    throng_stats_init (&summary.total);
    throng_reporter_set_close (set, &summary);
    throng_stats_clear (&summary.total);
    return FALSE;
}

static int
report_run (ThrongRunFile *file, GPtrArray *outs, gboolean overwrite)
{
    ThrongRunInfo info = *throng_run_file_info (file);
    g_autoptr (ThrongReporterSet) set = report_set ("throng report", outs);

    info.overwrite = overwrite;
    /* As the engine decides: samples only when a reporter asks for them. */
    if (throng_reporter_set_wants_samples (set))
        throng_run_file_want_samples (file);
    if (!report_open (set, "throng report", &info))
        return REPORT_NOT_STARTED;
    for (;;) {
        const ThrongSample *samples;
        gsize n_samples;
        const ThrongSummary *snapshot = throng_run_file_next (file, &samples, &n_samples);
        if (snapshot == NULL && n_samples == 0)
            break;
        if (snapshot != NULL)
            throng_reporter_set_snapshot (set, snapshot);
        if (n_samples > 0)
            throng_reporter_set_samples (set, samples, n_samples);
    }
    const ThrongSummary *summary = throng_run_file_summary (file);
    for (const char *const *skipped = throng_run_file_skipped (file); *skipped != NULL; skipped++)
        g_printerr ("throng report: %s\n", *skipped);
    return throng_reporter_set_close (set, summary) ? REPORT_OK : REPORT_NOT_WRITTEN;
}

int
throng_report_summary (const char *command, const ThrongRunInfo *run_info,
                       ThrongReportNext next, gpointer next_data, const ThrongSummary *summary,
                       const char *const *specs, const char *const *sets, gboolean overwrite)
{
    ThrongRunInfo info = *run_info;
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) report_out_free);
    g_autofree char *prefix = g_strdup_printf ("throng %s", command);

    info.overwrite = overwrite;
    for (const char *const *spec = specs; spec != NULL && *spec != NULL; spec++) {
        g_autoptr (GError) error = NULL;
        ReportOut *out = report_out_new (registry, *spec, sets, &error);
        if (out == NULL) {
            g_printerr ("%s: %s\n", prefix, error->message);
            return REPORT_USAGE;
        }
        g_ptr_array_add (outs, out);
    }
    g_autoptr (ThrongReporterSet) set = report_set (prefix, outs);
    if (!report_open (set, prefix, &info))
        return REPORT_NOT_STARTED;
    for (const ThrongSummary *snapshot; next != NULL && (snapshot = next (next_data)) != NULL;)
        throng_reporter_set_snapshot (set, snapshot);
    return throng_reporter_set_close (set, summary) ? REPORT_OK : REPORT_NOT_WRITTEN;
}

int
throng_report_command (int argc, char **argv)
{
    g_auto (GStrv) specs = NULL;
    g_auto (GStrv) sets = NULL;
    gboolean overwrite = FALSE;
    GOptionEntry entries[] = {
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &specs,
          "Write with reporter NAME to PATH (default html=RUN.html; repeatable)", "NAME=PATH" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "Give the --out reporter NAME the option KEY (repeatable)", "NAME.KEY=VALUE" },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &overwrite,
          "Let reporters overwrite existing files", NULL },
        { NULL },
    };
    g_autoptr (GOptionContext) context = g_option_context_new ("RUN.jsonl");
    g_autoptr (GError) error = NULL;

    g_option_context_set_summary (context, "Draw a finished run from the json reporter's jsonl "
                                           "file (mode: jsonl), as its reporters would have live.");
    g_option_context_add_main_entries (context, entries, NULL);
    if (!g_option_context_parse (context, &argc, &argv, &error)) {
        g_printerr ("throng report: %s\n", error->message);
        return REPORT_USAGE;
    }
    if (argc != 2) {
        g_printerr ("throng report: expected one RUN.jsonl file (throng report --help)\n");
        return REPORT_USAGE;
    }
    const char *run_path = argv[1];
    g_autoptr (ThrongRunFile) file = throng_run_file_open (run_path, &error);
    if (file == NULL) {
        g_printerr ("throng report: %s\n", error->message);
        return REPORT_USAGE;
    }

    /* Each --set names a reporter that some --out writes with, and a key. */
    g_autofree char *default_out = specs == NULL ? report_default_out (run_path) : NULL;
    const char *const default_specs[] = { default_out, NULL };
    const char *const *outs_specs = specs != NULL ? (const char *const *) specs : default_specs;
    for (char **set = sets; set != NULL && *set != NULL; set++) {
        const char *dot = strchr (*set, '.');
        const char *equals = strchr (*set, '=');
        gboolean named = FALSE;
        if (dot == NULL || equals == NULL || dot == *set || equals < dot + 2) {
            g_printerr ("throng report: --set %s: expected NAME.KEY=VALUE, e.g. --set "
                        "html.title=Checkout\n", *set);
            return REPORT_USAGE;
        }
        for (const char *const *spec = outs_specs; *spec != NULL; spec++)
            named |= strncmp (*spec, *set, (gsize) (dot - *set)) == 0
                     && (*spec)[dot - *set] == '=';
        if (!named) {
            g_printerr ("throng report: --set %s: no --out %.*s=PATH to apply it to\n", *set,
                        (int) (dot - *set), *set);
            return REPORT_USAGE;
        }
    }

    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) report_out_free);
    for (const char *const *spec = outs_specs; *spec != NULL; spec++) {
        ReportOut *out = report_out_new (registry, *spec, (const char *const *) sets, &error);
        if (out == NULL) {
            g_printerr ("throng report: %s\n", error->message);
            return REPORT_USAGE;
        }
        g_ptr_array_add (outs, out);
    }
    return report_run (file, outs, overwrite);
}
