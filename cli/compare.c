/* SPDX-License-Identifier: MIT */
/*
 * The `compare` command: two run files read (compare-read.c), their rows
 * matched by scenario, step and metric, each row tested
 * (compare-stats.c), the --fail-on rules judged (compare-rules.c), the
 * outputs written (compare-out.c, compare-html.c) and the exit status
 * chosen.  Runs of different plans are refused unless --force; a
 * saturated or incomplete run makes every verdict "not comparable".
 */
#include "compare.h"

#include <math.h>
#include <string.h>

#include "compare-private.h"

/* docs/compare.md, "Exit status". */
enum {
    COMPARE_OK = 0,
    COMPARE_USAGE = 2,
    COMPARE_UNREADABLE = 3,
    COMPARE_NOT_WRITTEN = 4,
    COMPARE_NOT_COMPARABLE = 6,
    COMPARE_RULE_FAILED = 99,
};

typedef struct {
    char **rules;
    char **outs;
    gboolean force;
    gboolean quiet;
    double alpha;
    char *min_change;
} CompareOptions;

static void
compare_options_clear (CompareOptions *options)
{
    g_strfreev (options->rules);
    g_strfreev (options->outs);
    g_free (options->min_change);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CompareOptions, compare_options_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CompareRun, compare_run_clear)

static int
usage (const char *message)
{
    g_printerr ("throng compare: %s\n", message);
    g_printerr ("Try 'throng compare --help'.\n");
    return COMPARE_USAGE;
}

/* "5%" or "0.05" into @fraction. */
static gboolean
parse_fraction (const char *text, gdouble *fraction)
{
    char *end;
    gdouble value = g_ascii_strtod (text, &end);

    if (end == text || !isfinite (value) || value < 0)
        return FALSE;
    if (strcmp (end, "%") == 0)
        value /= 100.0;
    else if (*end != '\0')
        return FALSE;
    *fraction = value;
    return TRUE;
}

/*
 * The baseline's rows with the current run's figures beside them, then
 * the rows the current run alone has; @current's rows are emptied.
 */
static GPtrArray *
match_rows (CompareRun *baseline, CompareRun *current)
{
    GPtrArray *rows = g_steal_pointer (&baseline->rows);
    g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

    baseline->rows = g_ptr_array_new ();
    for (guint i = 0; i < rows->len; i++)
        g_hash_table_insert (index, compare_row_key_of (rows->pdata[i]), rows->pdata[i]);
    for (guint i = 0; i < current->rows->len; i++) {
        CompareRow *theirs = current->rows->pdata[i];
        g_autofree char *key = compare_row_key_of (theirs);
        CompareRow *ours = g_hash_table_lookup (index, key);
        if (ours == NULL) {
            theirs->side[1] = theirs->side[0];
            memset (&theirs->side[0], 0, sizeof theirs->side[0]);
            g_ptr_array_add (rows, theirs);
            current->rows->pdata[i] = NULL;
            continue;
        }
        ours->side[1] = theirs->side[0];
        memset (&theirs->side[0], 0, sizeof theirs->side[0]);
    }
    return rows;
}

/* Why the runs cannot be compared, or NULL. */
static char *
run_problem (const CompareRun *runs[2])
{
    const char *roles[] = { "the baseline", "the current run" };

    for (guint r = 0; r < 2; r++) {
        if (runs[r]->incomplete)
            return g_strdup_printf ("%s (%s) is incomplete: %s", roles[r], runs[r]->path,
                                    runs[r]->incomplete_why);
        if (runs[r]->saturated)
            return g_strdup_printf ("%s (%s) saturated: throng, not the target, may have been "
                                    "the bottleneck", roles[r], runs[r]->path);
    }
    return NULL;
}

/* What an output is: the comparison as one text. */
typedef char *(*CompareWriter) (const CompareResult *result);

/* The outputs --out may name, and what writes each. */
static const struct {
    const char *name;
    CompareWriter write;
} compare_outputs[] = {
    { "json", compare_json },
    { "junit", compare_junit },
    { "html", compare_html },
};

/* The writer @spec ("NAME=PATH") names, its path in *@path; NULL when it names none. */
static CompareWriter
output_writer (const char *spec, const char **path)
{
    const char *equals = strchr (spec, '=');

    if (equals == NULL || equals[1] == '\0')
        return NULL;
    for (guint i = 0; i < G_N_ELEMENTS (compare_outputs); i++) {
        if (strlen (compare_outputs[i].name) == (gsize) (equals - spec)
            && strncmp (spec, compare_outputs[i].name, equals - spec) == 0) {
            *path = equals + 1;
            return compare_outputs[i].write;
        }
    }
    return NULL;
}

/* --out specs are checked before anything is read, so a typo costs nothing. */
static int
check_outputs (char **outs)
{
    for (guint i = 0; outs != NULL && outs[i] != NULL; i++) {
        const char *path;
        const char *equals = strchr (outs[i], '=');
        if (equals == NULL || equals[1] == '\0')
            return usage ("--out takes NAME=PATH, e.g. json=compare.json");
        if (output_writer (outs[i], &path) == NULL) {
            g_autofree char *message
                = g_strdup_printf ("--out %s: unknown output '%.*s' (json, junit or html)",
                                   outs[i], (int) (equals - outs[i]), outs[i]);
            return usage (message);
        }
    }
    return COMPARE_OK;
}

/* Each --out NAME=PATH (checked already); 4 when one could not be written. */
static int
write_outputs (char **outs, const CompareResult *result)
{
    for (guint i = 0; outs != NULL && outs[i] != NULL; i++) {
        const char *path = NULL;
        CompareWriter writer = output_writer (outs[i], &path);
        g_autofree char *text = writer (result);
        g_autoptr (GError) error = NULL;
        if (strcmp (path, "-") == 0) {
            fputs (text, stdout);
            continue;
        }
        if (!g_file_set_contents (path, text, -1, &error)) {
            g_printerr ("throng compare: %s\n", error->message);
            return COMPARE_NOT_WRITTEN;
        }
    }
    return COMPARE_OK;
}

static GOptionContext *
compare_context (CompareOptions *options)
{
    GOptionEntry entries[] = {
        { "fail-on", 'f', 0, G_OPTION_ARG_STRING_ARRAY, &options->rules,
          "Exit 99 when a figure changed more than this, e.g. 'p95 +10%' (repeatable)",
          "RULE" },
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &options->outs,
          "Also write the comparison as json, junit or html to PATH (- for standard output)",
          "NAME=PATH" },
        { "force", 0, 0, G_OPTION_ARG_NONE, &options->force,
          "Compare runs of different plans", NULL },
        { "alpha", 0, 0, G_OPTION_ARG_DOUBLE, &options->alpha,
          "The test's significance level (default 0.01)", "P" },
        { "min-change", 0, 0, G_OPTION_ARG_STRING, &options->min_change,
          "The smallest change of the median that is a verdict (default 5%)", "PERCENT" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &options->quiet,
          "No table on standard output", NULL },
        { NULL },
    };
    GOptionContext *context = g_option_context_new ("BASELINE.json CURRENT.json");

    g_set_prgname ("throng compare");
    g_option_context_set_summary (context,
                                  "Compares two runs' files (the json reporter's, summary or "
                                  "jsonl) per scenario, step,\ngroup and metric, with a verdict "
                                  "from a test on their latencies.");
    g_option_context_set_description (context,
                                      "Exit status: 0 compared and no rule failed, 2 usage error "
                                      "or a bad rule, 3 a file\ncould not be read, 4 an output "
                                      "not written, 6 not comparable (different plans\nwithout "
                                      "--force, a run saturated or incomplete), 99 a rule "
                                      "failed.");
    g_option_context_add_main_entries (context, entries, NULL);
    return context;
}

/* Tests the rows, counts the verdicts and judges the rules into @result. */
static void
compare_judge (CompareResult *result, GPtrArray *rules, const char *problem)
{
    for (guint i = 0; i < result->rows->len; i++) {
        CompareRow *row = result->rows->pdata[i];
        compare_test_row (row, result->method);
        if (problem != NULL) {
            row->test.verdict = VERDICT_NOT_COMPARABLE;
            row->test.why = "a run saturated or incomplete";
        }
    }
    for (guint i = 0; i < result->rows->len; i++) {
        CompareRow *row = result->rows->pdata[i];
        if (row->kind == COMPARE_TOTAL || row->kind == COMPARE_SCENARIO)
            compare_roll_up (row, result->rows);
        result->counts[row->test.verdict]++;
    }
    for (guint i = 0; i < rules->len; i++)
        compare_rule_judge (rules->pdata[i], result->rows, result->judgements);
    for (guint i = 0; i < result->judgements->len; i++)
        result->failed_rules += !g_array_index (result->judgements, CompareJudgement, i).passed;
}

static void
judgement_clear (CompareJudgement *judgement)
{
    g_free (judgement->actual);
}

int
throng_compare_command (int argc, char **argv)
{
    g_auto (CompareOptions) options = { .alpha = 0.01 };
    g_autoptr (GOptionContext) context = compare_context (&options);
    g_autoptr (GError) error = NULL;
    CompareMethod method = { .alpha = 0.01, .min_change = 0.05 };

    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage (error->message);
    if (argc != 3)
        return usage (argc < 3 ? "two run files are required: BASELINE.json CURRENT.json"
                               : "only two run files: BASELINE.json CURRENT.json");
    if (!(options.alpha > 0 && options.alpha < 1))
        return usage ("--alpha must be between 0 and 1, e.g. 0.01");
    method.alpha = options.alpha;
    if (options.min_change != NULL && !parse_fraction (options.min_change, &method.min_change))
        return usage ("--min-change takes a percentage, e.g. 5%");
    int status = check_outputs (options.outs);
    if (status != COMPARE_OK)
        return status;
    g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                  compare_rule_free);
    for (guint i = 0; options.rules != NULL && options.rules[i] != NULL; i++) {
        CompareRule *rule = compare_rule_parse (options.rules[i], &error);
        if (rule == NULL) {
            g_printerr ("throng compare: %s\n", error->message);
            return COMPARE_USAGE;
        }
        g_ptr_array_add (rules, rule);
    }

    g_auto (CompareRun) baseline = { 0 };
    g_auto (CompareRun) current = { 0 };
    if (!compare_run_read (&baseline, argv[1], &error)
        || !compare_run_read (&current, argv[2], &error)) {
        g_printerr ("throng compare: %s\n", error->message);
        return COMPARE_UNREADABLE;
    }
    gboolean different = baseline.plan_sha256 != NULL && current.plan_sha256 != NULL
                         && strcmp (baseline.plan_sha256, current.plan_sha256) != 0;
    if (different && !options.force) {
        g_printerr ("throng compare: %s and %s are runs of different plans (sha256 %.12s… and "
                    "%.12s…); compare them anyway with --force\n", argv[1], argv[2],
                    baseline.plan_sha256, current.plan_sha256);
        return COMPARE_NOT_COMPARABLE;
    }

    g_autoptr (GPtrArray) rows = match_rows (&baseline, &current);
    g_ptr_array_set_free_func (rows, (GDestroyNotify) compare_row_free);
    for (guint i = 0; i < rules->len; i++) {
        if (!compare_rule_check (rules->pdata[i], rows, &error)) {
            g_printerr ("throng compare: %s\n", error->message);
            return COMPARE_USAGE;
        }
    }
    g_autoptr (GArray) judgements = g_array_new (FALSE, TRUE, sizeof (CompareJudgement));
    g_array_set_clear_func (judgements, (GDestroyNotify) judgement_clear);
    const CompareRun *runs[2] = { &baseline, &current };
    g_autofree char *problem = run_problem (runs);
    CompareResult result = {
        .runs = { &baseline, &current },
        .rows = rows,
        .judgements = judgements,
        .method = &method,
        .not_comparable = problem != NULL,
        .not_comparable_why = problem,
        .forced = different,
    };
    compare_judge (&result, rules, problem);

    if (!options.quiet)
        compare_write_table (stdout, &result);
    status = write_outputs (options.outs, &result);
    if (status != COMPARE_OK)
        return status;
    if (problem != NULL) {
        g_printerr ("throng compare: not comparable: %s\n", problem);
        return COMPARE_NOT_COMPARABLE;
    }
    return result.failed_rules > 0 ? COMPARE_RULE_FAILED : COMPARE_OK;
}
