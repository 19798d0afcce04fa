/* SPDX-License-Identifier: MIT */
/*
 * The junit reporter: at close, the plan's thresholds and the scenarios'
 * checks as JUnit XML test cases, in the format Jenkins and GitLab read.
 * One <testsuite> per scenario holds the thresholds about that scenario
 * or its steps, and its checks; thresholds about `total` or a protocol go
 * to one more suite named for the plan.  A threshold that failed is a
 * <failure> whose message says what was measured against what was
 * wanted ("browse.p99=812ms >= 500ms"); a check fails when any of its
 * evaluations failed, and says which steps' requests failed it.  A
 * scenario with neither has one passing case of its own, so that no suite
 * is empty.  The file is written atomically.
 */
#include <string.h>
#include <throng/throng.h>

#include "junit.h"
#include "output.h"

typedef struct {
    char *path;
    gboolean overwrite;
    gboolean checks;
} JunitOptions;

static const ThrongOption junit_options[] = {
    { "path", THRONG_OPTION_STRING, G_STRUCT_OFFSET (JunitOptions, path) },
    { "overwrite", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (JunitOptions, overwrite) },
    { "checks", THRONG_OPTION_BOOL, G_STRUCT_OFFSET (JunitOptions, checks) },
    { NULL },
};

typedef struct {
    JunitOptions options;
    OutputFile *file;
} Junit;

/* One threshold as the suites need it: its place and its verdict. */
typedef struct {
    const ThrongThresholdResult *result;
    char *subject;      /* "browse.p99": the expression without its comparison */
    char *op;           /* "<" */
    char *limit;        /* "500ms" */
    gint scenario;      /* the suite: a scenario's index, or -1 for the run's */
} JunitThreshold;

static void
junit_free (gpointer self)
{
    Junit *junit = self;

    if (junit == NULL)
        return;
    output_file_abort (junit->file);
    throng_options_clear (junit_options, &junit->options);
    g_free (junit);
}

static gpointer
junit_configure (const ThrongNode *options, GError **error)
{
    Junit *junit = g_new0 (Junit, 1);

    junit->options.checks = TRUE;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, junit_options, &junit->options, FALSE,
                                  "junit options", error)) {
        junit_free (junit);
        return NULL;
    }
    if (!output_require_path ("junit", options, junit->options.path, error)) {
        junit_free (junit);
        return NULL;
    }
    return junit;
}

static gboolean
junit_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Junit *junit = self;

    /* PATH.tmp now, so that a bad path stops the run before any load. */
    junit->file = output_file_open (junit->options.path,
                                    junit->options.overwrite || run->overwrite, TRUE, error);
    return junit->file != NULL;
}

/* The comparison that held instead of the one the threshold wanted. */
static const char *
negated_operator (const char *op)
{
    static const char *const pairs[][2] = {
        { "<", ">=" }, { "<=", ">" }, { ">", "<=" }, { ">=", "<" }, { "==", "!=" }, { "!=", "==" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
        if (strcmp (op, pairs[i][0]) == 0)
            return pairs[i][1];
    return "not";
}

/* Whether @text begins with @prefix followed by a dot (a subject and its metric). */
static gboolean
has_subject (const char *text, const char *prefix)
{
    gsize length = strlen (prefix);

    return length > 0 && strncmp (text, prefix, length) == 0 && text[length] == '.';
}

/*
 * The suite of a threshold whose subject and metric are @subject: the
 * scenario it names (the longest name that fits, since names may hold
 * dots), else the scenario of the step it names, else -1 (`total`, a
 * protocol).
 */
static gint
junit_threshold_scenario (const ThrongSummary *summary, const char *subject)
{
    gint best = -1;
    gsize best_length = 0;

    if (has_subject (subject, "total"))
        return -1;
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const char *name = summary->scenarios[s].name;

        if (has_subject (subject, name) && strlen (name) > best_length) {
            best = (gint) s;
            best_length = strlen (name);
        }
    }
    if (best >= 0)
        return best;
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];

        for (guint i = 0; i < scenario->n_steps; i++)
            if (has_subject (subject, scenario->steps[i].label))
                return (gint) s;
    }
    return -1;
}

/* Splits "SUBJECT.METRIC OP LIMIT" at its last two spaces (a label may hold spaces). */
static void
junit_threshold_init (JunitThreshold *threshold, const ThrongSummary *summary,
                      const ThrongThresholdResult *result)
{
    const char *expression = result->expression != NULL ? result->expression : "";
    const char *last = strrchr (expression, ' ');
    const char *op_start = NULL;

    threshold->result = result;
    if (last != NULL && last > expression) {
        for (const char *p = last - 1; p > expression; p--)
            if (*p == ' ') {
                op_start = p;
                break;
            }
    }
    if (op_start == NULL) {
        /* Not the shape the core writes: keep it whole. */
        threshold->subject = g_strdup (expression);
        threshold->op = g_strdup ("");
        threshold->limit = g_strdup ("");
    } else {
        threshold->subject = g_strndup (expression, (gsize) (op_start - expression));
        threshold->op = g_strndup (op_start + 1, (gsize) (last - op_start - 1));
        threshold->limit = g_strdup (last + 1);
    }
    threshold->scenario = junit_threshold_scenario (summary, threshold->subject);
}

static void
junit_threshold_clear (JunitThreshold *threshold)
{
    g_free (threshold->subject);
    g_free (threshold->op);
    g_free (threshold->limit);
}

/* Appends @value as an XML attribute value or text (escaped). */
static void
append_escaped (GString *out, const char *value)
{
    g_autofree char *escaped = g_markup_escape_text (value != NULL ? value : "", -1);

    g_string_append (out, escaped);
}

static void
append_attribute (GString *out, const char *name, const char *value)
{
    g_string_append_printf (out, " %s=\"", name);
    append_escaped (out, value);
    g_string_append_c (out, '"');
}

static void
append_count (GString *out, const char *name, guint64 value)
{
    g_string_append_printf (out, " %s=\"%" G_GUINT64_FORMAT "\"", name, value);
}

/* Seconds with three decimals and a dot whatever the locale: "12.345". */
static void
append_seconds (GString *out, const char *name, gint64 us)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];

    g_ascii_formatd (buffer, sizeof buffer, "%.3f", (gdouble) MAX (us, 0) / G_USEC_PER_SEC);
    g_string_append_printf (out, " %s=\"%s\"", name, buffer);
}

static void
append_threshold_case (GString *out, const char *classname, const JunitThreshold *threshold)
{
    const ThrongThresholdResult *result = threshold->result;

    g_string_append (out, "    <testcase");
    append_attribute (out, "name", result->expression);
    append_attribute (out, "classname", classname);
    g_string_append (out, " time=\"0\"");
    if (result->passed) {
        g_string_append (out, "/>\n");
        return;
    }
    g_autofree char *message = g_strdup_printf ("%s=%s %s %s", threshold->subject,
                                                result->actual != NULL ? result->actual : "?",
                                                negated_operator (threshold->op),
                                                threshold->limit);
    g_string_append (out, ">\n      <failure");
    append_attribute (out, "message", message);
    g_string_append (out, " type=\"threshold\">");
    g_string_append (out, "threshold ");
    append_escaped (out, result->expression);
    g_string_append (out, " failed: actual ");
    append_escaped (out, result->actual);
    g_string_append (out, "</failure>\n    </testcase>\n");
}

/* The most steps a check's failure names; the rest are counted. */
#define CHECK_STEPS_MAX 5

/*
 * Where a check failed, by step: "GET /cart: 3", "GET / [2]: 3" (a label
 * another step of the scenario has: throng_step_display_name()).  A request
 * that failed a check has the class `check` unless an earlier failure
 * (an unexpected status) gave it its own; a check repeated in several
 * steps is one row of the summary, which does not say which of them
 * failed it.  So: the steps whose requests failed by a check ("in …" when
 * this is the only check of the scenario that failed, exact then), else,
 * when the check failed only on requests that had failed already, the
 * steps with failed requests and their classes.
 */
static void
append_check_steps (GString *out, const ThrongScenarioSummary *scenario, gboolean only)
{
    gboolean by_check = FALSE;
    guint named = 0, more = 0;

    for (guint i = 0; i < scenario->n_steps; i++)
        by_check |= scenario->steps[i].stats.errors_by_class[THRONG_ERROR_CHECK] > 0;
    for (guint i = 0; i < scenario->n_steps; i++) {
        const ThrongStats *stats = &scenario->steps[i].stats;
        guint64 failed = by_check ? stats->errors_by_class[THRONG_ERROR_CHECK] : stats->errors;

        if (failed == 0 || throng_step_kind_is_transaction (throng_journey_step_kind (scenario, i)))
            continue;
        if (named == CHECK_STEPS_MAX) {
            more++;
            continue;
        }
        if (named == 0 && by_check)
            g_string_append (out, only ? " in " : "; requests failed by a check in ");
        else if (named == 0)
            g_string_append (out, ", with requests that failed already in ");
        else
            g_string_append (out, ", ");
        g_autofree char *name = throng_step_display_name (scenario, i);
        g_string_append_printf (out, "%s: %" G_GUINT64_FORMAT, name, failed);
        if (!by_check) {
            for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
                if (stats->errors_by_class[c] > 0)
                    g_string_append_printf (out, " %s", throng_error_class_name (c));
        }
        named++;
    }
    if (more > 0)
        g_string_append_printf (out, " and %u more steps", more);
}

static void
append_check_case (GString *out, const char *classname, const ThrongScenarioSummary *scenario,
                   const ThrongCheckSummary *check, guint n_failed_checks)
{
    guint64 total = check->passes + check->fails;

    g_string_append (out, "    <testcase");
    append_attribute (out, "name", check->name);
    append_attribute (out, "classname", classname);
    g_string_append (out, " time=\"0\"");
    if (check->fails == 0) {
        g_string_append (out, "/>\n");
        return;
    }
    char percent[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (percent, sizeof percent, "%.2f",
                     100.0 * (gdouble) check->fails / (gdouble) total);
    g_autoptr (GString) message = g_string_new (NULL);
    g_string_printf (message, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " failed (%s%%)",
                     check->fails, total, percent);
    append_check_steps (message, scenario, n_failed_checks == 1);
    g_string_append (out, ">\n      <failure");
    append_attribute (out, "message", message->str);
    g_string_append (out, " type=\"check\">check ");
    append_escaped (out, check->name);
    g_string_append (out, " of scenario ");
    append_escaped (out, scenario->name);
    g_string_append (out, " failed: ");
    append_escaped (out, message->str);
    g_string_append (out, "</failure>\n    </testcase>\n");
}

/*
 * A scenario's suite with no threshold and no check gets this one case,
 * so that no suite says tests="0" (which some CI servers refuse).  It
 * passes: without thresholds the run has no verdict to give (throng exits
 * 0), and it carries the scenario's figures for whoever reads the report.
 */
static void
append_scenario_case (GString *out, const char *classname, const ThrongScenarioSummary *scenario)
{
    g_string_append (out, "    <testcase");
    append_attribute (out, "name", scenario->name);
    append_attribute (out, "classname", classname);
    g_string_append (out, " time=\"0\">\n      <system-out>");
    g_autofree char *text = g_strdup_printf (
        "%" G_GUINT64_FORMAT " requests, %" G_GUINT64_FORMAT " errors, %" G_GUINT64_FORMAT
        " iterations; no threshold judges this scenario",
        scenario->stats.requests, scenario->stats.errors, scenario->iterations);
    append_escaped (out, text);
    g_string_append (out, "</system-out>\n    </testcase>\n");
}

/* The scenario's checks, or none: journeys came with 0.3 and a scenario may have none. */
static guint
scenario_checks (const ThrongScenarioSummary *scenario, const ThrongCheckSummary **checks)
{
    const ThrongScenarioJourney *journey = scenario->journey;

    *checks = NULL;
    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, n_checks)
        || journey->checks == NULL)
        return 0;
    *checks = journey->checks;
    return journey->n_checks;
}

/*
 * One <testsuite>: the thresholds whose suite is @scenario (-1: the
 * run's), then, for a scenario, its checks.  Adds its tests and failures
 * to *@tests and *@failures.
 */
static void
append_suite (GString *out, const Junit *junit, const ThrongSummary *summary,
              const JunitThreshold *thresholds, gint scenario, guint64 *tests, guint64 *failures)
{
    const ThrongScenarioSummary *s = scenario >= 0 ? &summary->scenarios[scenario] : NULL;
    const char *plan = summary->plan_name != NULL ? summary->plan_name : "throng";
    const char *name = s != NULL ? s->name : plan;
    const ThrongCheckSummary *checks = NULL;
    guint n_checks = s != NULL && junit->options.checks ? scenario_checks (s, &checks) : 0;
    guint64 n = 0, failed = 0;

    for (guint i = 0; i < summary->n_thresholds; i++) {
        if (thresholds[i].scenario != scenario)
            continue;
        n++;
        failed += !thresholds[i].result->passed;
    }
    guint n_failed_checks = 0;
    for (guint i = 0; i < n_checks; i++) {
        n++;
        n_failed_checks += checks[i].fails > 0;
    }
    failed += n_failed_checks;
    gboolean scenario_case = s != NULL && n == 0;
    if (scenario_case)
        n = 1;
    *tests += n;
    *failures += failed;

    g_autoptr (GDateTime) start
        = g_date_time_new_from_unix_utc (summary->start_wall_us / G_USEC_PER_SEC);
    g_autofree char *timestamp = start != NULL ? g_date_time_format (start, "%Y-%m-%dT%H:%M:%S")
                                               : g_strdup ("");
    g_string_append (out, "  <testsuite");
    append_attribute (out, "name", name);
    append_count (out, "tests", n);
    append_count (out, "failures", failed);
    g_string_append (out, " errors=\"0\" skipped=\"0\"");
    append_seconds (out, "time", summary->elapsed_us);
    append_attribute (out, "timestamp", timestamp);
    append_attribute (out, "hostname", g_get_host_name ());
    g_string_append (out, ">\n    <properties>\n");

    const ThrongStats *stats = s != NULL ? &s->stats : &summary->total;
    struct {
        const char *name;
        guint64 value;
    } properties[] = {
        { "requests", stats->requests },
        { "errors", stats->errors },
        { "iterations", s != NULL ? s->iterations : 0 },
        /* only when there are any, so that a plan without them reads as before */
        { "not_sent", throng_stats_get_not_sent (stats) },
        { "retry_attempts", s != NULL ? throng_journey_retry_attempts (s)
                                      : throng_summary_get_retry_attempts (summary) },
    };
    for (guint i = 0; i < G_N_ELEMENTS (properties); i++) {
        if (s == NULL && strcmp (properties[i].name, "iterations") == 0)
            continue;
        if (i >= 3 && properties[i].value == 0)
            continue;
        g_string_append_printf (out,
                                "      <property name=\"%s\" value=\"%" G_GUINT64_FORMAT "\"/>\n",
                                properties[i].name, properties[i].value);
    }
    g_string_append_printf (out, "      <property name=\"interrupted\" value=\"%s\"/>\n",
                            summary->interrupted ? "true" : "false");
    g_string_append (out, "    </properties>\n");

    g_autofree char *threshold_class = g_strdup_printf ("%s.%s.thresholds", plan, name);
    g_autofree char *check_class = g_strdup_printf ("%s.%s.checks", plan, name);
    for (guint i = 0; i < summary->n_thresholds; i++)
        if (thresholds[i].scenario == scenario)
            append_threshold_case (out, s != NULL ? threshold_class : plan, &thresholds[i]);
    for (guint i = 0; i < n_checks; i++)
        append_check_case (out, check_class, s, &checks[i], n_failed_checks);
    if (scenario_case) {
        g_autofree char *run_class = g_strdup_printf ("%s.%s.run", plan, name);
        append_scenario_case (out, run_class, s);
    }
    g_string_append (out, "  </testsuite>\n");
}

static gboolean
junit_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Junit *junit = self;

    if (junit->file == NULL)
        return TRUE;
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started) {
        /* No load was sent: no verdicts to write, and PATH stays as it was. */
        output_file_abort (g_steal_pointer (&junit->file));
        return TRUE;
    }

    g_autofree JunitThreshold *thresholds = g_new0 (JunitThreshold, summary->n_thresholds + 1);
    gboolean run_suite = FALSE;
    for (guint i = 0; i < summary->n_thresholds; i++) {
        junit_threshold_init (&thresholds[i], summary, &summary->thresholds[i]);
        run_suite |= thresholds[i].scenario < 0;
    }

    /* The suites first, into a buffer of their own: <testsuites> carries their totals. */
    g_autoptr (GString) suites = g_string_new (NULL);
    guint64 tests = 0, failures = 0;
    for (guint s = 0; s < summary->n_scenarios; s++)
        append_suite (suites, junit, summary, thresholds, (gint) s, &tests, &failures);
    if (run_suite)
        append_suite (suites, junit, summary, thresholds, -1, &tests, &failures);
    for (guint i = 0; i < summary->n_thresholds; i++)
        junit_threshold_clear (&thresholds[i]);

    GString *out = output_file_buffer (junit->file);
    g_string_append (out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    append_attribute (out, "name", summary->plan_name != NULL ? summary->plan_name : "throng");
    append_count (out, "tests", tests);
    append_count (out, "failures", failures);
    g_string_append (out, " errors=\"0\"");
    append_seconds (out, "time", summary->elapsed_us);
    g_string_append (out, ">\n");
    g_string_append_len (out, suites->str, (gssize) suites->len);
    g_string_append (out, "</testsuites>\n");
    output_file_commit (junit->file);
    return output_file_close (g_steal_pointer (&junit->file), error);
}

const ThrongReporter junit_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "junit",
    .configure = junit_configure,
    .open = junit_open,
    .close = junit_close,
    .free = junit_free,
};
