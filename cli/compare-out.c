/* SPDX-License-Identifier: MIT */
/*
 * What `throng compare` writes: the table on standard output, and with
 * --out the same comparison as JSON (docs/compare.md, "JSON") and as
 * JUnit XML in the junit reporter's dialect (one test case per rule and
 * row, a failed rule a <failure>).  Every figure is formatted here.
 */
#include "compare-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static const char *const verdict_names[] = {
    [VERDICT_SAME] = "no significant change",
    [VERDICT_REGRESSED] = "regressed",
    [VERDICT_IMPROVED] = "improved",
    [VERDICT_UNTESTED] = "untested",
    [VERDICT_NOT_COMPARABLE] = "not comparable",
};

const char *
compare_verdict_name (CompareVerdict verdict)
{
    return verdict_names[verdict];
}

static const char *const kind_names[] = {
    [COMPARE_TOTAL] = "total",
    [COMPARE_SCENARIO] = "scenario",
    [COMPARE_STEP] = "step",
    [COMPARE_GROUP] = "group",
    [COMPARE_METRIC] = "metric",
};

/* @value printed with @format, with a dot whatever the locale. */
static char *
decimal (const char *format, gdouble value)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];

    return g_strdup (g_ascii_formatd (buffer, sizeof buffer, format, value));
}

static char *
format_us (gdouble us)
{
    g_autofree char *number = NULL;

    if (us < 1000)
        return g_strdup_printf ("%sµs", number = decimal ("%.0f", us));
    if (us < 10000)
        return g_strdup_printf ("%sms", number = decimal ("%.2f", us / 1e3));
    if (us < 1e6)
        return g_strdup_printf ("%sms", number = decimal ("%.1f", us / 1e3));
    return g_strdup_printf ("%ss", number = decimal ("%.2f", us / 1e6));
}

char *
compare_format_figure (CompareFigure figure, gdouble value, gboolean latency_us)
{
    g_autofree char *number = NULL;

    switch (figure) {
    case FIGURE_RATE:
        return g_strdup_printf ("%s/s", number = decimal ("%.1f", value));
    case FIGURE_ERROR_RATE:
    case FIGURE_CHECK_RATE:
        return g_strdup_printf ("%s%%", number = decimal ("%.2f", value * 100));
    default:
        return latency_us ? format_us (value) : decimal ("%.4g", value);
    }
}

char *
compare_format_change (CompareFigure figure, gdouble before, gdouble after)
{
    g_autofree char *number = NULL;

    if (figure == FIGURE_ERROR_RATE || figure == FIGURE_CHECK_RATE)
        return g_strdup_printf ("%spp", number = decimal ("%+.2f", (after - before) * 100));
    if (before == 0)
        return g_strdup (after == 0 ? "+0.0%" : "n/a");
    return g_strdup_printf ("%s%%", number = decimal ("%+.1f", (after / before - 1) * 100));
}

/* --- the table -------------------------------------------------------------------- */

static void
table_run (FILE *out, const char *role, const CompareRun *run)
{
    g_autofree char *duration = decimal ("%.1f", run->duration_s);

    fprintf (out, "%-9s %s: plan %s", role, run->path, run->plan_name);
    if (run->plan_sha256 != NULL)
        fprintf (out, " (sha256 %.12s)", run->plan_sha256);
    fprintf (out, ", %s%s%s s, %u intervals", run->start != NULL ? run->start : "",
             run->start != NULL ? ", " : "", duration, run->intervals);
    if (run->saturated)
        fprintf (out, ", SATURATED");
    if (run->incomplete)
        fprintf (out, ", INCOMPLETE: %s", run->incomplete_why);
    fputc ('\n', out);
}

/* The verdict line of @row: "regressed (median +20.3%, p=0.0002, 6+6 batches of 5 intervals)". */
static char *
verdict_text (const CompareRow *row)
{
    const CompareTest *test = &row->test;

    if (test->why != NULL)
        return g_strdup_printf ("%s (%s)", verdict_names[test->verdict], test->why);
    g_autofree char *change = decimal ("%+.1f", test->change * 100);
    g_autofree char *p = decimal (test->p_value < 0.0001 ? "%.1e" : "%.4f", test->p_value);
    return g_strdup_printf ("%s (median %s%%, p=%s, %u+%u batches of %u interval%s)",
                            verdict_names[test->verdict], change, p, test->batches[0],
                            test->batches[1], test->batch, test->batch == 1 ? "" : "s");
}

static void
table_line (FILE *out, const char *label, const CompareRow *row, gint side)
{
    gboolean us = row->kind != COMPARE_METRIC;

    fprintf (out, "  %-9s", label);
    if (side >= 0)
        fprintf (out, " %9" G_GUINT64_FORMAT, row->side[side].requests);
    else
        fprintf (out, " %9s", "");
    for (guint f = 0; f < FIGURE_COUNT; f++) {
        const CompareSide *a = &row->side[0], *b = &row->side[1];
        g_autofree char *cell = NULL;
        if (side >= 0 && row->side[side].has[f])
            cell = compare_format_figure (f, row->side[side].figures[f], us);
        else if (side < 0 && a->present && b->present && a->has[f] && b->has[f])
            cell = compare_format_change (f, a->figures[f], b->figures[f]);
        fprintf (out, " %9s", cell != NULL ? cell : "-");
    }
    fputc ('\n', out);
}

void
compare_write_table (FILE *out, const CompareResult *result)
{
    table_run (out, "baseline", result->runs[0]);
    table_run (out, "current", result->runs[1]);
    if (result->forced)
        fprintf (out, "The runs are of different plans (compared with --force).\n");
    fprintf (out, "\n");
    for (guint i = 0; i < result->rows->len; i++) {
        const CompareRow *row = result->rows->pdata[i];
        g_autofree char *verdict = verdict_text (row);
        fprintf (out, "%s%s: %s\n", row->title, row->kind == COMPARE_GROUP ? " (group)" : "",
                 verdict);
        fprintf (out, "  %-9s %9s", "", row->kind == COMPARE_METRIC ? "values" : "requests");
        for (guint f = 0; f < FIGURE_COUNT; f++)
            fprintf (out, " %9s", f == FIGURE_RATE ? "rate" : f == FIGURE_ERROR_RATE ? "errors"
                                  : f == FIGURE_CHECK_RATE ? "checks" : compare_figure_names[f]);
        fputc ('\n', out);
        if (row->side[0].present)
            table_line (out, "baseline", row, 0);
        if (row->side[1].present)
            table_line (out, "current", row, 1);
        if (row->side[0].present && row->side[1].present)
            table_line (out, "change", row, -1);
        fputc ('\n', out);
    }
    for (guint i = 0; i < result->judgements->len; i++) {
        const CompareJudgement *j = &g_array_index (result->judgements, CompareJudgement, i);
        fprintf (out, "rule '%s': %s: %s\n", j->rule->text, j->passed ? "passed" : "FAILED",
                 j->actual);
    }
    if (result->judgements->len > 0)
        fputc ('\n', out);
    fprintf (out, "%u regressed, %u improved, %u no significant change, %u untested, "
             "%u not comparable; %u of %u rule checks failed\n",
             result->counts[VERDICT_REGRESSED], result->counts[VERDICT_IMPROVED],
             result->counts[VERDICT_SAME], result->counts[VERDICT_UNTESTED],
             result->counts[VERDICT_NOT_COMPARABLE], result->failed_rules,
             result->judgements->len);
    if (result->not_comparable)
        fprintf (out, "Verdict: not comparable: %s\n", result->not_comparable_why);
}

/* --- JSON ------------------------------------------------------------------------- */

/* @value rounded to @digits significant digits, so that outputs compare across builds. */
static gdouble
rounded (gdouble value, const char *format)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];

    return g_ascii_strtod (g_ascii_formatd (buffer, sizeof buffer, format, value), NULL);
}

static void
json_run (JsonBuilder *b, const char *name, const CompareRun *run)
{
    json_builder_set_member_name (b, name);
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "path");
    json_builder_add_string_value (b, run->path);
    json_builder_set_member_name (b, "plan");
    json_builder_add_string_value (b, run->plan_name);
    json_builder_set_member_name (b, "plan_sha256");
    if (run->plan_sha256 != NULL)
        json_builder_add_string_value (b, run->plan_sha256);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "start");
    if (run->start != NULL)
        json_builder_add_string_value (b, run->start);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "duration_s");
    json_builder_add_double_value (b, rounded (run->duration_s, "%.6f"));
    json_builder_set_member_name (b, "intervals");
    json_builder_add_int_value (b, run->intervals);
    json_builder_set_member_name (b, "saturated");
    json_builder_add_boolean_value (b, run->saturated);
    json_builder_set_member_name (b, "incomplete");
    if (run->incomplete)
        json_builder_add_string_value (b, run->incomplete_why);
    else
        json_builder_add_null_value (b);
    json_builder_end_object (b);
}

static void
json_side (JsonBuilder *b, const char *name, const CompareSide *side)
{
    json_builder_set_member_name (b, name);
    if (!side->present) {
        json_builder_add_null_value (b);
        return;
    }
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "count");
    json_builder_add_int_value (b, (gint64) side->requests);
    json_builder_set_member_name (b, "errors");
    json_builder_add_int_value (b, (gint64) side->errors);
    for (guint f = 0; f < FIGURE_COUNT; f++) {
        if (!side->has[f])
            continue;
        json_builder_set_member_name (b, compare_figure_names[f]);
        json_builder_add_double_value (b, rounded (side->figures[f], "%.6g"));
    }
    json_builder_set_member_name (b, "intervals");
    json_builder_add_int_value (b, side->series != NULL ? side->series->len : 0);
    json_builder_end_object (b);
}

static void
json_row (JsonBuilder *b, const CompareRow *row)
{
    const CompareTest *test = &row->test;

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, kind_names[row->kind]);
    json_builder_set_member_name (b, "title");
    json_builder_add_string_value (b, row->title);
    json_builder_set_member_name (b, "scenario");
    if (row->scenario != NULL)
        json_builder_add_string_value (b, row->scenario);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "name");
    if (row->name != NULL)
        json_builder_add_string_value (b, row->name);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "step_id");
    if (row->step_id >= 0)
        json_builder_add_int_value (b, row->step_id);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "verdict");
    json_builder_add_string_value (b, verdict_names[test->verdict]);
    json_builder_set_member_name (b, "why");
    if (test->why != NULL)
        json_builder_add_string_value (b, test->why);
    else
        json_builder_add_null_value (b);
    if (test->why == NULL) {
        json_builder_set_member_name (b, "median_change");
        json_builder_add_double_value (b, rounded (test->change, "%.6f"));
        json_builder_set_member_name (b, "p_value");
        json_builder_add_double_value (b, rounded (test->p_value, "%.4g"));
        json_builder_set_member_name (b, "batch_intervals");
        json_builder_add_int_value (b, test->batch);
        json_builder_set_member_name (b, "batches");
        json_builder_begin_array (b);
        json_builder_add_int_value (b, test->batches[0]);
        json_builder_add_int_value (b, test->batches[1]);
        json_builder_end_array (b);
    }
    json_side (b, "baseline", &row->side[0]);
    json_side (b, "current", &row->side[1]);
    json_builder_end_object (b);
}

/* The overall verdict: not comparable, or the worst of the rows'. */
static const char *
overall_verdict (const CompareResult *result)
{
    if (result->not_comparable)
        return verdict_names[VERDICT_NOT_COMPARABLE];
    if (result->counts[VERDICT_REGRESSED] > 0)
        return verdict_names[VERDICT_REGRESSED];
    if (result->counts[VERDICT_IMPROVED] > 0)
        return verdict_names[VERDICT_IMPROVED];
    return verdict_names[VERDICT_SAME];
}

char *
compare_json (const CompareResult *result)
{
    g_autoptr (JsonBuilder) b = json_builder_new ();

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "version");
    json_builder_add_int_value (b, 1);
    json_run (b, "baseline", result->runs[0]);
    json_run (b, "current", result->runs[1]);
    json_builder_set_member_name (b, "forced");
    json_builder_add_boolean_value (b, result->forced);
    json_builder_set_member_name (b, "method");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "test");
    json_builder_add_string_value (b, "welch-on-batch-means-of-interval-medians");
    json_builder_set_member_name (b, "alpha");
    json_builder_add_double_value (b, result->method->alpha);
    json_builder_set_member_name (b, "min_change");
    json_builder_add_double_value (b, result->method->min_change);
    json_builder_end_object (b);
    json_builder_set_member_name (b, "verdict");
    json_builder_add_string_value (b, overall_verdict (result));
    json_builder_set_member_name (b, "not_comparable");
    if (result->not_comparable)
        json_builder_add_string_value (b, result->not_comparable_why);
    else
        json_builder_add_null_value (b);
    json_builder_set_member_name (b, "rows");
    json_builder_begin_array (b);
    for (guint i = 0; i < result->rows->len; i++)
        json_row (b, result->rows->pdata[i]);
    json_builder_end_array (b);
    json_builder_set_member_name (b, "rules");
    json_builder_begin_array (b);
    for (guint i = 0; i < result->judgements->len; i++) {
        const CompareJudgement *j = &g_array_index (result->judgements, CompareJudgement, i);
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "rule");
        json_builder_add_string_value (b, j->rule->text);
        json_builder_set_member_name (b, "row");
        json_builder_add_string_value (b, j->row->title);
        json_builder_set_member_name (b, "passed");
        json_builder_add_boolean_value (b, j->passed);
        json_builder_set_member_name (b, "actual");
        json_builder_add_string_value (b, j->actual);
        json_builder_end_object (b);
    }
    json_builder_end_array (b);
    json_builder_set_member_name (b, "failed_rules");
    json_builder_add_int_value (b, result->failed_rules);
    json_builder_end_object (b);

    g_autoptr (JsonGenerator) generator = json_generator_new ();
    g_autoptr (JsonNode) root = json_builder_get_root (b);
    json_generator_set_root (generator, root);
    json_generator_set_pretty (generator, TRUE);
    g_autofree char *text = json_generator_to_data (generator, NULL);
    return g_strconcat (text, "\n", NULL);
}

/* --- JUnit ------------------------------------------------------------------------ */

static void
append_attribute (GString *out, const char *name, const char *value)
{
    g_autofree char *escaped = g_markup_escape_text (value != NULL ? value : "", -1);

    g_string_append_printf (out, " %s=\"%s\"", name, escaped);
}

/*
 * One <testsuite> "throng compare": a test case "runs are comparable"
 * (an <error> when they are not, as the junit reporter reports what
 * stopped a run), then one per rule and row it read, a <failure> when
 * the rule failed.
 */
char *
compare_junit (const CompareResult *result)
{
    GString *out = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    guint tests = result->judgements->len + 1;
    guint errors = result->not_comparable ? 1 : 0;

    g_string_append_printf (out, "<testsuites name=\"throng compare\" tests=\"%u\" "
                            "failures=\"%u\" errors=\"%u\" time=\"0\">\n", tests,
                            result->failed_rules, errors);
    g_string_append_printf (out, "  <testsuite name=\"throng compare\" tests=\"%u\" "
                            "failures=\"%u\" errors=\"%u\" skipped=\"0\" time=\"0\">\n", tests,
                            result->failed_rules, errors);
    g_string_append (out, "    <properties>\n");
    const char *roles[] = { "baseline", "current" };
    for (guint r = 0; r < 2; r++) {
        g_string_append (out, "      <property");
        append_attribute (out, "name", roles[r]);
        append_attribute (out, "value", result->runs[r]->path);
        g_string_append (out, "/>\n");
    }
    g_string_append (out, "      <property");
    append_attribute (out, "name", "verdict");
    append_attribute (out, "value", overall_verdict (result));
    g_string_append (out, "/>\n    </properties>\n");
    g_string_append (out, "    <testcase name=\"runs are comparable\" "
                     "classname=\"compare\" time=\"0\"");
    if (result->not_comparable) {
        g_string_append (out, ">\n      <error");
        append_attribute (out, "message", result->not_comparable_why);
        g_string_append (out, " type=\"not-comparable\"/>\n    </testcase>\n");
    } else {
        g_string_append (out, "/>\n");
    }
    for (guint i = 0; i < result->judgements->len; i++) {
        const CompareJudgement *j = &g_array_index (result->judgements, CompareJudgement, i);
        g_autofree char *classname = g_strconcat ("compare.", j->row->title, NULL);
        g_string_append (out, "    <testcase");
        append_attribute (out, "name", j->rule->text);
        append_attribute (out, "classname", classname);
        g_string_append (out, " time=\"0\"");
        if (j->passed) {
            g_string_append (out, "/>\n");
            continue;
        }
        g_string_append (out, ">\n      <failure");
        append_attribute (out, "message", j->actual);
        g_string_append (out, " type=\"rule\"/>\n    </testcase>\n");
    }
    g_string_append (out, "  </testsuite>\n</testsuites>\n");
    return g_string_free (out, FALSE);
}
