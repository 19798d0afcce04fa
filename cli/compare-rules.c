/* SPDX-License-Identifier: MIT */
/*
 * The rules of `--fail-on`: "[WHERE] FIGURE CHANGE" or "[WHERE]
 * regressed", read with errors that point at the column, and judged on
 * the rows of a comparison.  A rule without WHERE reads every row that
 * has its figure in both runs (the total, scenarios, steps, groups); with
 * one, the row of that name as the table titles it (a step whose label
 * another step of its scenario has: `SCENARIO / LABEL [STEP_ID]`).
 * docs/compare.md, "Rules".
 */
#include "compare-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (throng-compare-rule-error-quark, compare_rule_error)

/* A located error: the message, then the rule with a caret under @column (from 0). */
static void
rule_error (GError **error, const char *text, gsize column, gsize width, const char *format, ...)
    G_GNUC_PRINTF (5, 6);

static void
rule_error (GError **error, const char *text, gsize column, gsize width, const char *format, ...)
{
    va_list args;

    va_start (args, format);
    g_autofree char *message = g_strdup_vprintf (format, args);
    va_end (args);
    g_autofree char *pad = g_strnfill (column, ' ');
    g_autofree char *marks = g_strnfill (MAX (width, 1), '^');
    g_set_error (error, compare_rule_error_quark (), 0,
                 "--fail-on '%s', column %zu: %s\n  %s\n  %s%s", text, column + 1, message, text,
                 pad, marks);
}

/* The start and length of the last whitespace-separated word of @text[0..@end). */
static gboolean
last_word (const char *text, gsize end, gsize *start, gsize *length)
{
    while (end > 0 && g_ascii_isspace (text[end - 1]))
        end--;
    if (end == 0)
        return FALSE;
    gsize begin = end;
    while (begin > 0 && !g_ascii_isspace (text[begin - 1]))
        begin--;
    *start = begin;
    *length = end - begin;
    return TRUE;
}

static gint
figure_from_name (const char *name, gsize length)
{
    for (guint i = 0; i < FIGURE_COUNT; i++)
        if (strlen (compare_figure_names[i]) == length
            && strncmp (compare_figure_names[i], name, length) == 0)
            return (gint) i;
    return -1;
}

static gboolean
is_latency (CompareFigure figure)
{
    return figure >= FIGURE_MEAN;
}

static gboolean
is_rate (CompareFigure figure)
{
    return figure == FIGURE_ERROR_RATE || figure == FIGURE_CHECK_RATE;
}

/* "+10%", "-0.5pp", "+20ms": the signed limit and its unit, in the figure's unit. */
static gboolean
parse_change (CompareRule *rule, const char *text, gsize start, gsize length, GError **error)
{
    const char *word = text + start;
    g_autofree char *copy = g_strndup (word, length);

    if (copy[0] != '+' && copy[0] != '-') {
        rule_error (error, text, start, length,
                    "the change '%s' must begin with + (an increase fails) or - (a decrease "
                    "fails), as in +10%%, +0.5pp or +20ms", copy);
        return FALSE;
    }
    char *end;
    gdouble value = g_ascii_strtod (copy, &end);
    if (end <= copy + 1 || !isfinite (value)) {
        rule_error (error, text, start, length, "'%s' is not a number with a unit", copy);
        return FALSE;
    }
    gsize at = start + (gsize) (end - copy);
    const char *unit = end;
    if (strcmp (unit, "%") == 0) {
        rule->unit = RULE_RELATIVE;
        rule->limit = value / 100.0;
    } else if (strcmp (unit, "pp") == 0 && is_rate (rule->figure)) {
        rule->unit = RULE_POINTS;
        rule->limit = value;
    } else if (is_latency (rule->figure)
               && (strcmp (unit, "ms") == 0 || strcmp (unit, "s") == 0
                   || strcmp (unit, "us") == 0 || strcmp (unit, "µs") == 0)) {
        rule->unit = RULE_ABSOLUTE;
        rule->limit = value * (unit[0] == 'm' ? 1e3 : unit[0] == 's' ? 1e6 : 1.0);
    } else {
        const char *units = is_rate (rule->figure) ? "% (relative) or pp (percentage points)"
                            : is_latency (rule->figure) ? "% (relative), ms, s or µs"
                                                        : "% (relative)";
        rule_error (error, text, at, length - (at - start), "%s takes a change in %s, not '%s'",
                    compare_figure_names[rule->figure], units, *unit != '\0' ? unit : "nothing");
        return FALSE;
    }
    return TRUE;
}

CompareRule *
compare_rule_parse (const char *text, GError **error)
{
    gsize length = strlen (text), start, word;
    CompareRule *rule;

    if (!last_word (text, length, &start, &word)) {
        rule_error (error, text, 0, 1, "an empty rule: write FIGURE CHANGE, as in 'p95 +10%%'");
        return NULL;
    }
    rule = g_new0 (CompareRule, 1);
    rule->text = g_strdup (text);
    gsize where_end = start;
    if (word == strlen ("regressed") && strncmp (text + start, "regressed", word) == 0) {
        rule->unit = RULE_REGRESSED;
        rule->figure = FIGURE_P50;
    } else {
        gsize change = start, change_length = word;
        if (!last_word (text, start, &start, &word)) {
            rule_error (error, text, change, change_length,
                        "a rule is FIGURE CHANGE (as in 'p95 +10%%') or 'regressed'; "
                        "'%.*s' alone is neither", (int) change_length, text + change);
            compare_rule_free (rule);
            return NULL;
        }
        gint figure = figure_from_name (text + start, word);
        if (figure < 0) {
            g_autofree char *names = g_strjoinv (", ", (char **) compare_figure_names);
            rule_error (error, text, start, word, "unknown figure '%.*s': one of %s",
                        (int) word, text + start, names);
            compare_rule_free (rule);
            return NULL;
        }
        rule->figure = (CompareFigure) figure;
        where_end = start;
        if (!parse_change (rule, text, change, change_length, error)) {
            compare_rule_free (rule);
            return NULL;
        }
    }
    g_autofree char *where = g_strndup (text, where_end);
    g_strstrip (where);
    rule->where = *where != '\0' ? g_steal_pointer (&where) : NULL;
    return rule;
}

void
compare_rule_free (CompareRule *rule)
{
    if (rule == NULL)
        return;
    g_free (rule->text);
    g_free (rule->where);
    g_free (rule);
}

/* @text without a last ` #N` or ` [N]` (N digits), or as is. */
static char *
without_index (const char *text)
{
    gsize length = strlen (text);
    gboolean bracket = length > 0 && text[length - 1] == ']';
    gsize end = bracket ? length - 1 : length, begin = end;

    while (begin > 0 && g_ascii_isdigit (text[begin - 1]))
        begin--;
    if (begin == end || begin < 2 || text[begin - 1] != (bracket ? '[' : '#')
        || text[begin - 2] != ' ')
        return g_strdup (text);
    return g_strndup (text, begin - 2);
}

/*
 * Why no row is named @where, when it names a label that steps of its
 * scenario share (alone, with a step_id that none of them has, or with
 * the `#N` of before 0.5): those steps' names, `SCENARIO / LABEL
 * [STEP_ID]`; else "".
 */
static char *
shared_label_hint (const char *where, GPtrArray *rows)
{
    g_autofree char *bare = without_index (where);
    g_autofree char *prefix = g_strconcat (bare, " [", NULL);
    g_autoptr (GString) names = g_string_new (NULL);

    for (guint i = 0; i < rows->len; i++) {
        const CompareRow *row = rows->pdata[i];
        if (row->step_id >= 0 && g_str_has_prefix (row->title, prefix))
            g_string_append_printf (names, "%s'%s'", names->len > 0 ? ", " : "", row->title);
    }
    if (names->len == 0)
        return g_strdup ("");
    return g_strdup_printf ("; steps that share a label are named by their step_id (from 0): %s",
                            names->str);
}

gboolean
compare_rule_check (const CompareRule *rule, GPtrArray *rows, GError **error)
{
    if (rule->where == NULL)
        return TRUE;
    for (guint i = 0; i < rows->len; i++)
        if (strcmp (((CompareRow *) rows->pdata[i])->title, rule->where) == 0)
            return TRUE;
    const char *at = strstr (rule->text, rule->where);
    g_autofree char *hint = shared_label_hint (rule->where, rows);
    rule_error (error, rule->text, at != NULL ? (gsize) (at - rule->text) : 0,
                strlen (rule->where),
                "neither run has a row '%s' (name rows as the table does: total, SCENARIO, "
                "'SCENARIO / STEP', 'SCENARIO / STEP [STEP_ID]', 'metric NAME')%s", rule->where,
                hint);
    return FALSE;
}

/* Whether @rule reads @row: named, or every row with the figure in both runs. */
static gboolean
rule_reads (const CompareRule *rule, const CompareRow *row)
{
    const CompareSide *a = &row->side[0], *b = &row->side[1];

    if (rule->where != NULL ? strcmp (row->title, rule->where) != 0 : row->kind == COMPARE_METRIC)
        return FALSE;
    if (!a->present || !b->present)
        return FALSE;
    if (rule->unit == RULE_REGRESSED)
        return TRUE;
    if (is_latency (rule->figure))
        return a->has_latency && b->has_latency;
    if (rule->figure == FIGURE_CHECK_RATE)
        return a->has_checks && b->has_checks;
    return TRUE;
}

/* Whether @after against @before stays within @rule. */
static gboolean
rule_passes (const CompareRule *rule, gdouble before, gdouble after)
{
    gdouble change;

    switch (rule->unit) {
    case RULE_RELATIVE:
        if (before == 0)
            change = after == 0 ? 0.0 : (after > 0 ? INFINITY : -INFINITY);
        else
            change = after / before - 1.0;
        break;
    case RULE_POINTS:
        change = (after - before) * 100.0;
        break;
    case RULE_ABSOLUTE:
        change = after - before;
        break;
    case RULE_REGRESSED:
    default:
        g_assert_not_reached ();
    }
    /* The sign the rule was written with, so that -0% fails on any decrease. */
    return !signbit (rule->limit) ? change <= rule->limit : change >= rule->limit;
}

void
compare_rule_judge (const CompareRule *rule, GPtrArray *rows, GArray *judgements)
{
    for (guint i = 0; i < rows->len; i++) {
        const CompareRow *row = rows->pdata[i];
        if (!rule_reads (rule, row))
            continue;
        CompareJudgement judgement = { .rule = rule, .row = row };
        if (rule->unit == RULE_REGRESSED) {
            judgement.passed = row->test.verdict != VERDICT_REGRESSED;
            judgement.actual = g_strdup_printf ("%s: %s", row->title,
                                                compare_verdict_name (row->test.verdict));
        } else {
            gdouble before = row->side[0].figures[rule->figure];
            gdouble after = row->side[1].figures[rule->figure];
            gboolean us = row->kind != COMPARE_METRIC;
            g_autofree char *b = compare_format_figure (rule->figure, before, us);
            g_autofree char *a = compare_format_figure (rule->figure, after, us);
            g_autofree char *change = compare_format_change (rule->figure, before, after);
            judgement.passed = rule_passes (rule, before, after);
            judgement.actual = g_strdup_printf ("%s %s %s → %s (%s)", row->title,
                                                compare_figure_names[rule->figure], b, a, change);
        }
        g_array_append_val (judgements, judgement);
    }
}
