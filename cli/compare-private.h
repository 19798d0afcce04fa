/* SPDX-License-Identifier: MIT */
/*
 * What the files of `throng compare` share: a run read into rows (the
 * total, each scenario, step, group and custom metric, with their
 * figures and their per-interval medians), a row of the two runs side by
 * side with its verdict, and the rules of --fail-on.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef enum {
    COMPARE_TOTAL,
    COMPARE_SCENARIO,
    COMPARE_STEP,
    COMPARE_GROUP,
    COMPARE_METRIC,
} CompareKind;

/* The figures a rule or a column reads, in the order of compare_figure_names. */
typedef enum {
    FIGURE_RATE,        /* requests (a metric: values) per second */
    FIGURE_ERROR_RATE,  /* errors over steps, 0..1 */
    FIGURE_CHECK_RATE,  /* passes over outcomes, 0..1 */
    FIGURE_MEAN,
    FIGURE_P50,
    FIGURE_P90,
    FIGURE_P95,
    FIGURE_P99,
    FIGURE_MAX,
    FIGURE_COUNT,
} CompareFigure;

/* "rps", "errors.rate", "checks.rate", "mean", "p50" …, as rules name them. */
extern const char *const compare_figure_names[FIGURE_COUNT];

/* Quantiles (percent) of the distribution kept for the overlay page. */
#define COMPARE_CURVE_POINTS 24
extern const gdouble compare_curve_percents[COMPARE_CURVE_POINTS];

/* One row's figures in one run. */
typedef struct {
    gboolean present;
    guint64 requests;       /* a metric: values recorded */
    guint64 errors;
    guint64 check_passes;
    guint64 check_fails;
    gboolean has_checks;
    gboolean has_latency;   /* latencies (µs), or a trend metric's values */
    gdouble figures[FIGURE_COUNT]; /* latencies in µs; a trend's values in its unit */
    gboolean has[FIGURE_COUNT];    /* which figures the row has in this run */
    gdouble curve[COMPARE_CURVE_POINTS];
    GArray *series;         /* gdouble: the median of each interval with values */
    GArray *series_time;    /* gdouble: the end of each of those intervals, s */
} CompareSide;

typedef enum {
    VERDICT_SAME,           /* no significant change */
    VERDICT_REGRESSED,
    VERDICT_IMPROVED,
    VERDICT_UNTESTED,       /* too few intervals, or nothing to test */
    VERDICT_NOT_COMPARABLE, /* a run saturated or incomplete, or a row in one run only */
} CompareVerdict;

/* The outcome of the test on one row's interval medians. */
typedef struct {
    CompareVerdict verdict;
    const char *why;        /* static text: why untested or not comparable, else NULL */
    gdouble change;         /* relative change of the mean of the batch means of medians */
    gdouble p_value;        /* Welch's test on batch means; 1 when untested */
    guint batch;            /* intervals per batch */
    guint batches[2];       /* batches in each run */
} CompareTest;

typedef struct {
    CompareKind kind;
    char *scenario;         /* NULL for the total and a custom metric */
    char *name;             /* the step's label, the metric's name; NULL otherwise */
    gint step_id;           /* a step's or group's index in its scenario; -1 otherwise */
    char *shown;            /* a step's throng_step_display_name(), else @name: matched across runs */
    char *title;            /* "total", "browse", "browse / GET /", "browse / GET / [2]", "metric cart_size" */
    CompareSide side[2];    /* 0 the baseline, 1 the current run */
    CompareTest test;
} CompareRow;

/* One run file read. */
typedef struct {
    char *path;
    char *plan_name;
    char *plan_sha256;      /* NULL when the file does not say */
    char *start;            /* ISO 8601, or NULL */
    gdouble duration_s;
    guint intervals;
    gboolean saturated;
    gboolean incomplete;
    char *incomplete_why;   /* what made it incomplete, or NULL */
    GPtrArray *rows;        /* CompareRow, side[0] filled */
} CompareRun;

/* compare-read.c: @path read into @run; FALSE with @error when it is no run file. */
gboolean compare_run_read (CompareRun *run, const char *path, GError **error);
void compare_run_clear (CompareRun *run);
void compare_side_clear (CompareSide *side);
void compare_row_free (CompareRow *row);

/* The test's settings. */
typedef struct {
    gdouble alpha;          /* the significance level */
    gdouble min_change;     /* a smaller relative change is never a regression */
} CompareMethod;

/* compare-stats.c: the verdict of @row from its two sides' interval medians. */
void compare_test_row (CompareRow *row, const CompareMethod *method);
/*
 * The verdict of a total or scenario row (a mixture of its steps, whose
 * median jumps between their modes): the worst of its steps' and groups'
 * verdicts in @rows (regressed, then improved); unchanged when it has none.
 */
void compare_roll_up (CompareRow *row, GPtrArray *rows);
/* Two-sided p-value of Welch's t-test on @a and @b (gdouble). */
gdouble compare_welch (const GArray *a, const GArray *b);
/* The intervals per batch that leave the batch means of @series without lag-1 autocorrelation. */
guint compare_batch_size (const GArray *series, guint min_batches);

/* A --fail-on rule. */
typedef enum {
    RULE_RELATIVE,          /* +10%: of the baseline's value */
    RULE_POINTS,            /* +0.5pp: percentage points of a rate */
    RULE_ABSOLUTE,          /* +20ms: in the figure's unit */
    RULE_REGRESSED,         /* the verdict "regressed" */
} CompareRuleUnit;

typedef struct {
    char *text;
    char *where;            /* NULL: every row with the figure */
    CompareFigure figure;
    CompareRuleUnit unit;
    gdouble limit;          /* signed: +10% is 0.10, -5ms is -5000 (µs) */
} CompareRule;

/* One rule judged on one row. */
typedef struct {
    const CompareRule *rule;
    const CompareRow *row;
    gboolean passed;
    char *actual;           /* "p95 12.1ms → 14.0ms (+15.7%)" */
} CompareJudgement;

/* compare-rules.c */
GQuark compare_rule_error_quark (void);
CompareRule *compare_rule_parse (const char *text, GError **error);
void compare_rule_free (CompareRule *rule);
/* Whether @rule's place names a row of @rows; otherwise FALSE with a located @error. */
gboolean compare_rule_check (const CompareRule *rule, GPtrArray *rows, GError **error);
/* Appends a CompareJudgement for each row @rule reads. */
void compare_rule_judge (const CompareRule *rule, GPtrArray *rows, GArray *judgements);

/* What the outputs are given. */
typedef struct {
    const CompareRun *runs[2];
    GPtrArray *rows;        /* CompareRow, both sides */
    GArray *judgements;     /* CompareJudgement */
    const CompareMethod *method;
    gboolean not_comparable;
    const char *not_comparable_why; /* the first reason, for the summary line */
    gboolean forced;        /* different plans compared with --force */
    guint counts[5];        /* rows per CompareVerdict */
    guint failed_rules;
} CompareResult;

const char *compare_verdict_name (CompareVerdict verdict);
/* A figure for people: "12.3ms", "1.52%", "104.2/s". */
char *compare_format_figure (CompareFigure figure, gdouble value, gboolean latency_us);
/* A change for people: "+20.1%", "+0.50pp", "n/a". */
char *compare_format_change (CompareFigure figure, gdouble before, gdouble after);

/* compare-out.c */
void compare_write_table (FILE *out, const CompareResult *result);
char *compare_json (const CompareResult *result);
char *compare_junit (const CompareResult *result);
/* compare-html.c */
char *compare_html (const CompareResult *result);

/*
 * The key that matches a row across runs: kind, scenario and name as
 * shown, so a step by its label, and by its step_id too when another step
 * of its scenario has that label (`GET / [2]`).
 */
char *compare_row_key (CompareKind kind, const char *scenario, const char *shown);
char *compare_row_key_of (const CompareRow *row);

G_END_DECLS
