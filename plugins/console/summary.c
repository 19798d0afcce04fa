/* SPDX-License-Identifier: MIT */
/*
 * The console's end-of-run summary: what ran, a traffic table and a
 * latency table with one row per scenario and step, errors by class,
 * retries, the protocol versions of a run that mixed them, throng's own
 * cost per request and its warnings.  Columns are aligned
 * on the text's display width, so colour codes never shift them.
 */
#include <string.h>
#include <time.h>

#include "summary.h"

/* Labels longer than this are shortened with an ellipsis to keep the table narrow. */
#define SUMMARY_LABEL_MAX 40

typedef enum {
    ROW_SCENARIO,
    ROW_STEP,
    ROW_TOTAL,
} RowKind;

typedef struct {
    RowKind kind;
    GPtrArray *cells;   /* char*; cell 0 is the label */
} Row;

typedef struct {
    GPtrArray *header;  /* char* */
    GArray *rows;       /* Row */
} Table;

static void
row_clear (gpointer data)
{
    Row *row = data;

    g_ptr_array_unref (row->cells);
}

static Table *
table_new (const char *const *header)
{
    Table *table = g_new0 (Table, 1);

    table->header = g_ptr_array_new_with_free_func (g_free);
    for (const char *const *h = header; *h != NULL; h++)
        g_ptr_array_add (table->header, g_strdup (*h));
    table->rows = g_array_new (FALSE, TRUE, sizeof (Row));
    g_array_set_clear_func (table->rows, row_clear);
    return table;
}

static void
table_free (Table *table)
{
    g_ptr_array_unref (table->header);
    g_array_unref (table->rows);
    g_free (table);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

static GPtrArray *
table_add_row (Table *table, RowKind kind, const char *label)
{
    Row row = { kind, g_ptr_array_new_with_free_func (g_free) };

    g_ptr_array_add (row.cells, g_strdup (label));
    g_array_append_val (table->rows, row);
    return row.cells;
}

/* @name, shortened with an ellipsis to keep the table narrow. */
static char *
shorten (const char *name)
{
    if (g_utf8_strlen (name, -1) <= SUMMARY_LABEL_MAX)
        return g_strdup (name);
    const char *end = g_utf8_offset_to_pointer (name, SUMMARY_LABEL_MAX - 1);
    g_autofree char *head = g_strndup (name, (gsize) (end - name));
    return g_strconcat (head, "…", NULL);
}

static glong
text_width (const char *text)
{
    return g_utf8_strlen (text, -1);
}

static void
print_padded (FILE *out, const char *text, glong width, gboolean left)
{
    glong pad = width - text_width (text);

    if (!left)
        for (glong i = 0; i < pad; i++)
            fputc (' ', out);
    fputs (text, out);
    if (left)
        for (glong i = 0; i < pad; i++)
            fputc (' ', out);
}

static guint
row_indent (RowKind kind)
{
    return kind == ROW_STEP ? 4 : 2;
}

static void
table_print (FILE *out, const Table *table, const ConsoleStyle *style)
{
    guint n_columns = table->header->len;
    g_autofree glong *widths = g_new0 (glong, n_columns);

    for (guint c = 0; c < n_columns; c++)
        widths[c] = text_width (g_ptr_array_index (table->header, c));
    for (guint r = 0; r < table->rows->len; r++) {
        const Row *row = &g_array_index (table->rows, Row, r);
        for (guint c = 0; c < row->cells->len && c < n_columns; c++) {
            glong w = text_width (g_ptr_array_index (row->cells, c));
            if (c == 0)
                w += row_indent (row->kind) - 2;
            widths[c] = MAX (widths[c], w);
        }
    }

    fprintf (out, "%s  ", style->bold);
    for (guint c = 0; c < n_columns; c++) {
        if (c > 0)
            fputs ("  ", out);
        print_padded (out, g_ptr_array_index (table->header, c), widths[c], c == 0);
    }
    fprintf (out, "%s\n", style->reset);

    for (guint r = 0; r < table->rows->len; r++) {
        const Row *row = &g_array_index (table->rows, Row, r);
        guint indent = row_indent (row->kind);

        if (row->kind != ROW_STEP)
            fputs (style->bold, out);
        for (guint i = 0; i < indent; i++)
            fputc (' ', out);
        for (guint c = 0; c < row->cells->len && c < n_columns; c++) {
            if (c > 0)
                fputs ("  ", out);
            print_padded (out, g_ptr_array_index (row->cells, c),
                          c == 0 ? widths[c] - (glong) (indent - 2) : widths[c], c == 0);
        }
        if (row->kind != ROW_STEP)
            fputs (style->reset, out);
        fputc ('\n', out);
    }
}

static void
cell_add (GPtrArray *cells, const char *text)
{
    g_ptr_array_add (cells, g_strdup (text));
}

static void
cell_add_uint (GPtrArray *cells, guint64 value)
{
    g_ptr_array_add (cells, g_strdup_printf ("%" G_GUINT64_FORMAT, value));
}

static void
traffic_row (Table *table, RowKind kind, const char *label, const ThrongStats *stats,
             gdouble seconds)
{
    GPtrArray *cells = table_add_row (table, kind, label);
    char buf[CONSOLE_UNIT_LEN];

    cell_add_uint (cells, stats->requests);
    if (seconds < 0)
        cell_add (cells, "-");
    else
        cell_add (cells, console_format_rate (
                             buf, seconds > 0 ? (gdouble) stats->requests / seconds : 0));
    cell_add_uint (cells, stats->errors);
    /* over every step, sent or not: the `errors.rate` threshold's share */
    if (stats->errors > 0)
        g_ptr_array_add (cells,
                         g_strdup_printf ("%.2f%%", 100.0 * throng_stats_get_error_rate (stats)));
    else
        cell_add (cells, "-");
    cell_add (cells, console_format_bytes (buf, (gdouble) stats->bytes_received));
    cell_add (cells, console_format_bytes (buf, (gdouble) stats->bytes_sent));
    cell_add_uint (cells, stats->connections);
    cell_add_uint (cells, stats->handshakes_full);
    cell_add_uint (cells, stats->handshakes_resumed);
}

static void
latency_row (Table *table, RowKind kind, const char *label, const ThrongStats *stats)
{
    GPtrArray *cells = table_add_row (table, kind, label);
    const ThrongHistogram *h = stats->latency;
    char buf[CONSOLE_UNIT_LEN];

    if (h == NULL || throng_histogram_count (h) == 0) {
        for (int i = 0; i < 7; i++)
            cell_add (cells, "-");
        return;
    }
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_min (h)));
    cell_add (cells, console_format_duration (buf, throng_histogram_mean (h)));
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_percentile (h, 50)));
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_percentile (h, 90)));
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_percentile (h, 95)));
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_percentile (h, 99)));
    cell_add (cells, console_format_duration (buf, (gdouble) throng_histogram_max (h)));
}

static char *
scenario_heading (const ThrongScenarioSummary *scenario)
{
    g_autofree char *name = shorten (scenario->name);

    g_autofree char *dropped = scenario->dropped_iterations > 0
                                   ? g_strdup_printf (", %" G_GUINT64_FORMAT " dropped",
                                                      scenario->dropped_iterations)
                                   : NULL;

    return g_strdup_printf ("%s (%u user%s, %" G_GUINT64_FORMAT " iteration%s%s)", name,
                            scenario->users, scenario->users == 1 ? "" : "s",
                            scenario->iterations, scenario->iterations == 1 ? "" : "s",
                            dropped != NULL ? dropped : "");
}

/*
 * A step's name in the tables: throng_step_display_name(), the one
 * sections print in full, with its label shortened (never the ` [N]` that
 * tells it from another step of that label), indented by the groups
 * around it, and a group (a transaction) marked as one.
 */
static char *
step_label (const ThrongScenarioSummary *scenario, guint index)
{
    const char *plain = scenario->steps[index].label != NULL ? scenario->steps[index].label : "";
    g_autofree char *name = throng_step_display_name (scenario, index);
    g_autofree char *short_label = shorten (plain);
    /* the display name is the label, then what tells it apart */
    g_autofree char *label = g_strconcat (short_label, name + strlen (plain), NULL);
    g_autofree char *indent = g_strnfill (2 * throng_journey_step_depth (scenario, index), ' ');

    ThrongStepKind kind = throng_journey_step_kind (scenario, index);

    return g_strconcat (indent, throng_step_kind_is_transaction (kind) ? throng_step_kind_name (kind) : "",
                        throng_step_kind_is_transaction (kind) ? " " : "", label, NULL);
}

/*
 * `setup` or `teardown`: a row of its own (its steps under it), apart
 * from the load's and from its total; no rate, as one user's one
 * iteration is no throughput.
 */
static void
phase_rows (Table *table, const ThrongScenarioSummary *phase, gboolean latency)
{
    if (phase == NULL)
        return;
    g_autofree char *heading = g_strdup_printf ("%s (once, not in the total)", phase->name);
    if (latency)
        latency_row (table, ROW_SCENARIO, heading, &phase->stats);
    else
        traffic_row (table, ROW_SCENARIO, heading, &phase->stats, -1);
    for (guint s = 0; phase->n_steps > 1 && s < phase->n_steps; s++) {
        g_autofree char *label = step_label (phase, s);
        if (latency)
            latency_row (table, ROW_STEP, label, &phase->steps[s].stats);
        else
            traffic_row (table, ROW_STEP, label, &phase->steps[s].stats, -1);
    }
}

/*
 * Rows for every scenario and step.  A scenario with one step shows that
 * step on its own row only; the total row appears when there are several
 * scenarios.
 */
static void
fill_table (Table *table, const ThrongSummary *summary, gboolean latency)
{
    /* Rates over the time the load ran, not over a graceful stop's wait. */
    gint64 load_us = THRONG_STRUCT_HAS (summary, ThrongSummary, load_us) && summary->load_us > 0
                         ? summary->load_us
                         : summary->elapsed_us;
    gdouble seconds = (gdouble) load_us / G_USEC_PER_SEC;
    gboolean phases = THRONG_STRUCT_HAS (summary, ThrongSummary, teardown);

    if (phases)
        phase_rows (table, summary->setup, latency);
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        g_autofree char *heading = scenario_heading (scenario);

        if (latency)
            latency_row (table, ROW_SCENARIO, heading, &scenario->stats);
        else
            traffic_row (table, ROW_SCENARIO, heading, &scenario->stats, seconds);
        if (scenario->n_steps < 2)
            continue;
        for (guint s = 0; s < scenario->n_steps; s++) {
            const ThrongStepSummary *step = &scenario->steps[s];
            g_autofree char *label = step_label (scenario, s);
            if (latency)
                latency_row (table, ROW_STEP, label, &step->stats);
            else
                traffic_row (table, ROW_STEP, label, &step->stats, seconds);
        }
    }
    if (summary->n_scenarios != 1) {
        if (latency)
            latency_row (table, ROW_TOTAL, "total", &summary->total);
        else
            traffic_row (table, ROW_TOTAL, "total", &summary->total, seconds);
    }
    if (phases)
        phase_rows (table, summary->teardown, latency);
}

/* One row of the errors table: where, the class, how many, and what the first one said. */
typedef struct {
    char *label;
    const char *class_name;
    char *count;
    const char *message;
} ErrorRow;

static void
error_row_clear (gpointer data)
{
    ErrorRow *row = data;

    g_free (row->label);
    g_free (row->count);
}

static void
add_error_rows (GArray *rows, const char *label, const ThrongStats *stats)
{
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        if (stats->errors_by_class[c] == 0)
            continue;
        ErrorRow row = {
            g_strdup (label),
            throng_error_class_name ((ThrongErrorClass) c),
            g_strdup_printf ("%" G_GUINT64_FORMAT, stats->errors_by_class[c]),
            stats->error_messages != NULL ? stats->error_messages[c] : NULL,
        };
        g_array_append_val (rows, row);
    }
}

/*
 * Each step's (or one-step scenario's) failures by class, with how many
 * there were and the message of the first, as k6 and Locust show it:
 * "status 25490 404 Not Found" says more than "status 25490".
 */
static void
print_errors (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ErrorRow));

    if (summary->total.errors == 0)
        return;
    g_array_set_clear_func (rows, error_row_clear);
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        if (scenario->n_steps < 2) {
            add_error_rows (rows, scenario->name, &scenario->stats);
            continue;
        }
        for (guint s = 0; s < scenario->n_steps; s++) {
            g_autofree char *name = throng_step_display_name (scenario, s);
            g_autofree char *label = g_strdup_printf ("%s / %s", scenario->name, name);
            add_error_rows (rows, label, &scenario->steps[s].stats);
        }
    }

    glong widths[3] = { text_width ("errors"), text_width ("class"), text_width ("count") };
    for (guint r = 0; r < rows->len; r++) {
        const ErrorRow *row = &g_array_index (rows, ErrorRow, r);
        widths[0] = MAX (widths[0], text_width (row->label) + 2);
        widths[1] = MAX (widths[1], text_width (row->class_name));
        widths[2] = MAX (widths[2], text_width (row->count));
    }
    fprintf (out, "\n%s  ", style->bold);
    print_padded (out, "errors", widths[0], TRUE);
    fputs ("  ", out);
    print_padded (out, "class", widths[1], TRUE);
    fputs ("  ", out);
    print_padded (out, "count", widths[2], FALSE);
    fprintf (out, "  first message%s\n", style->reset);
    for (guint r = 0; r < rows->len; r++) {
        const ErrorRow *row = &g_array_index (rows, ErrorRow, r);
        g_autofree char *label = g_strconcat ("  ", row->label, NULL);

        fputs ("  ", out);
        print_padded (out, label, widths[0], TRUE);
        fprintf (out, "  %s", style->red);
        print_padded (out, row->class_name, widths[1], TRUE);
        fprintf (out, "%s  ", style->reset);
        print_padded (out, row->count, widths[2], FALSE);
        fprintf (out, "  %s\n", row->message != NULL ? row->message : "-");
    }
}

static void
format_clock (char *buf, gsize size, gint64 wall_us, gboolean with_date)
{
    time_t seconds = (time_t) (wall_us / G_USEC_PER_SEC);
    struct tm tm;

    if (gmtime_r (&seconds, &tm) == NULL) {
        g_strlcpy (buf, "?", size);
        return;
    }
    strftime (buf, size, with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
}

static void
print_heading (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    char start[64], end[64], elapsed[CONSOLE_UNIT_LEN], planned[CONSOLE_UNIT_LEN];

    format_clock (start, sizeof start, summary->start_wall_us, TRUE);
    format_clock (end, sizeof end, summary->end_wall_us, FALSE);
    console_format_duration (elapsed, (gdouble) summary->elapsed_us);

    fprintf (out, "\n%s%s%s", style->bold, summary->plan_name != NULL ? summary->plan_name : "",
             style->reset);
    if (summary->plan_file != NULL)
        fprintf (out, "  %s%s%s", style->dim, summary->plan_file, style->reset);
    fputc ('\n', out);
    fprintf (out, "  %s in %s, %s to %s UTC, %u worker%s\n",
             summary->interrupted ? "interrupted" : "completed", elapsed, start, end,
             summary->workers, summary->workers == 1 ? "" : "s");
    if (summary->interrupted && summary->planned_us > 0)
        fprintf (out, "  %sstopped after %s of a planned %s%s\n", style->yellow, elapsed,
                 console_format_duration (planned, (gdouble) summary->planned_us), style->reset);
}

static void
print_cost (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    char per_request[CONSOLE_UNIT_LEN], user[CONSOLE_UNIT_LEN], system[CONSOLE_UNIT_LEN];
    gint64 cpu_us = summary->cpu_user_us + summary->cpu_system_us;
    gdouble seconds = (gdouble) summary->elapsed_us / G_USEC_PER_SEC;

    console_format_duration (user, (gdouble) summary->cpu_user_us);
    console_format_duration (system, (gdouble) summary->cpu_system_us);
    fprintf (out, "\n%s  throng%s  ", style->bold, style->reset);
    if (summary->total.requests > 0)
        fprintf (out, "%s CPU per request, ",
                 console_format_duration (per_request,
                                          (gdouble) cpu_us / (gdouble) summary->total.requests));
    fprintf (out, "%s user + %s system", user, system);
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, cpu_share))
        fprintf (out, ", %.0f%% of its cores", 100.0 * summary->cpu_share);
    else if (seconds > 0)
        fprintf (out, ", %.0f%% of one core", 100.0 * (gdouble) cpu_us / 1e6 / seconds);
    fputc ('\n', out);
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, saturated)) {
        char lag[CONSOLE_UNIT_LEN], loop[CONSOLE_UNIT_LEN];
        fprintf (out, "          schedule lag p99 %s, event-loop delay max %s",
                 console_format_duration (lag, (gdouble) summary->lag_p99_us),
                 console_format_duration (loop, (gdouble) summary->loop_delay_max_us));
        if (summary->saturated)
            fprintf (out, "  %sSATURATED: the figures may describe throng, not the target%s",
                     style->red, style->reset);
        fputc ('\n', out);
    }

    for (const char *const *w = summary->warnings; w != NULL && *w != NULL; w++)
        fprintf (out, "  %swarning: %s%s\n", style->yellow, *w, style->reset);
}

static void
print_thresholds (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    if (!THRONG_STRUCT_HAS (summary, ThrongSummary, n_thresholds) || summary->thresholds == NULL
        || summary->n_thresholds == 0)
        return;

    glong width = 0;
    for (guint i = 0; i < summary->n_thresholds; i++)
        width = MAX (width, text_width (summary->thresholds[i].expression));

    fprintf (out, "\n%s  thresholds%s\n", style->bold, style->reset);
    for (guint i = 0; i < summary->n_thresholds; i++) {
        const ThrongThresholdResult *result = &summary->thresholds[i];

        fprintf (out, "    %s%s%s  ", result->passed ? style->green : style->red,
                 result->passed ? "pass" : "FAIL", style->reset);
        print_padded (out, result->expression, width, TRUE);
        fprintf (out, "  actual %s\n", result->actual != NULL ? result->actual : "-");
    }
}

/* One line of the retries section when @stats has any. */
static void
print_retries_row (FILE *out, const char *label, const ThrongStats *stats)
{
    if (stats->retries > 0)
        fprintf (out, "    %s: %" G_GUINT64_FORMAT "\n", label, stats->retries);
}

/*
 * Requests the protocol sent again (a kept-alive connection closed
 * before answering): not errors, but hidden without this section, since
 * the server saw more requests than the run counts.
 */
static void
print_retries (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    if (summary->total.retries == 0)
        return;
    fprintf (out, "\n%s  retries%s (sent again on a new connection; not counted as requests)\n",
             style->bold, style->reset);
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        if (scenario->n_steps < 2) {
            print_retries_row (out, scenario->name, &scenario->stats);
            continue;
        }
        for (guint s = 0; s < scenario->n_steps; s++) {
            g_autofree char *name = throng_step_display_name (scenario, s);
            g_autofree char *label = g_strdup_printf ("%s / %s", scenario->name, name);
            print_retries_row (out, label, &scenario->steps[s].stats);
        }
    }
}

/*
 * A count a step has besides its stats: @step is its index, or -1 for
 * the scenario's count.
 */
typedef guint64 (*StepCount) (const ThrongScenarioSummary *scenario, gint step);

static guint64
not_sent_count (const ThrongScenarioSummary *scenario, gint step)
{
    return throng_stats_get_not_sent (step < 0 ? &scenario->stats : &scenario->steps[step].stats);
}

static guint64
retry_attempts_count (const ThrongScenarioSummary *scenario, gint step)
{
    return step < 0 ? throng_journey_retry_attempts (scenario)
                    : throng_journey_step_retry_attempts (scenario, (guint) step);
}

/* A section of the rows with a non-zero @count, under @title, when @total is not 0. */
static void
print_counts (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style,
              const char *title, const char *why, guint64 total, StepCount count)
{
    if (total == 0)
        return;
    fprintf (out, "\n%s  %s%s (%s): %" G_GUINT64_FORMAT "\n", style->bold, title, style->reset,
             why, total);
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        guint64 n;

        if (scenario->n_steps < 2) {
            if ((n = count (scenario, -1)) > 0)
                fprintf (out, "    %s: %" G_GUINT64_FORMAT "\n", scenario->name, n);
            continue;
        }
        for (guint s = 0; s < scenario->n_steps; s++) {
            if ((n = count (scenario, (gint) s)) > 0) {
                g_autofree char *name = throng_step_display_name (scenario, s);
                fprintf (out, "    %s / %s: %" G_GUINT64_FORMAT "\n", scenario->name, name, n);
            }
        }
    }
}

/* How many protocol versions @stats counted requests over; absent before 0.4. */
static guint
protocols_used (const ThrongStats *stats)
{
    guint n = 0;

    for (guint i = 0; i < stats->n_protocols; i++)
        n += stats->protocols[i].requests > 0;
    return n;
}

/* One line of the protocols section: "h2 120, http/1.1 30". */
static void
print_protocols_row (FILE *out, const char *label, const ThrongStats *stats)
{
    if (protocols_used (stats) == 0)
        return;
    gboolean first = TRUE;

    fprintf (out, "    %s:", label);
    for (guint i = 0; i < stats->n_protocols; i++) {
        if (stats->protocols[i].requests == 0)
            continue;
        fprintf (out, "%s %s %" G_GUINT64_FORMAT, first ? "" : ",", stats->protocols[i].name,
                 stats->protocols[i].requests);
        first = FALSE;
    }
    fputc ('\n', out);
}

/*
 * Which protocol version each step's requests went over (h2, http/1.1),
 * only when the run used more than one: a run all over one version
 * prints nothing more than before.
 */
static void
print_protocols (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    if (protocols_used (&summary->total) < 2)
        return;
    fprintf (out, "\n%s  protocols%s (requests per step)\n", style->bold, style->reset);
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        if (scenario->n_steps < 2) {
            print_protocols_row (out, scenario->name, &scenario->stats);
            continue;
        }
        for (guint s = 0; s < scenario->n_steps; s++) {
            g_autofree char *name = throng_step_display_name (scenario, s);
            g_autofree char *label = g_strdup_printf ("%s / %s", scenario->name, name);
            print_protocols_row (out, label, &scenario->steps[s].stats);
        }
    }
}

/*
 * Checks as k6 shows them: each check with its passes and fails, then
 * the rate of all of a scenario's checks; and a data set that ran out.
 */
static void
print_checks (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    for (guint i = 0; i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];
        const ThrongScenarioJourney *journey = throng_journey_get (scenario);
        guint64 passes, fails;
        glong width = 0;

        if (throng_journey_data_exhausted (scenario))
            fprintf (out,
                     "\n  %sscenario %s: its data set ran out of rows (on_exhausted: stop); "
                     "its users stopped early%s\n",
                     style->yellow, scenario->name, style->reset);
        if (!throng_journey_checks_total (scenario, &passes, &fails))
            continue;
        for (guint c = 0; c < journey->n_checks; c++)
            width = MAX (width, text_width (journey->checks[c].name));
        fprintf (out,
                 "\n%s  checks%s %s  %s%.2f%%%s passed, %s%" G_GUINT64_FORMAT
                 " ✓%s %s%" G_GUINT64_FORMAT " ✗%s\n",
                 style->bold, style->reset, scenario->name, fails > 0 ? style->red : style->green,
                 passes + fails > 0 ? 100.0 * (gdouble)passes / (gdouble)(passes + fails) : 100.0,
                 style->reset, style->green, passes, style->reset, fails > 0 ? style->red : "",
                 fails, fails > 0 ? style->reset : "");
        for (guint c = 0; c < journey->n_checks; c++) {
            const ThrongCheckSummary *check = &journey->checks[c];
            guint64 total = check->passes + check->fails;

            fprintf (out, "    %s%s%s ", check->fails > 0 ? style->red : style->green,
                     check->fails > 0 ? "✗" : "✓", style->reset);
            print_padded (out, check->name, width, TRUE);
            if (check->fails > 0)
                fprintf (out, "  %.2f%%  %" G_GUINT64_FORMAT " ✓ %" G_GUINT64_FORMAT " ✗\n",
                         total > 0 ? 100.0 * (gdouble)check->passes / (gdouble)total : 0.0,
                         check->passes, check->fails);
            else
                fprintf (out, "  %" G_GUINT64_FORMAT " ✓\n", check->passes);
        }
    }
}

void
console_print_summary (FILE *out, const ThrongSummary *summary, const ConsoleStyle *style)
{
    static const char *const traffic_header[] = {
        "scenario / step", "requests", "rate", "errors", "err%", "received", "sent",
        "conns", "tls full", "resumed", NULL,
    };
    static const char *const latency_header[] = {
        "latency", "min", "mean", "p50", "p90", "p95", "p99", "max", NULL,
    };

    print_heading (out, summary, style);

    g_autoptr (Table) traffic = table_new (traffic_header);
    fill_table (traffic, summary, FALSE);
    fputc ('\n', out);
    table_print (out, traffic, style);

    g_autoptr (Table) latency = table_new (latency_header);
    fill_table (latency, summary, TRUE);
    fputc ('\n', out);
    table_print (out, latency, style);

    print_errors (out, summary, style);
    print_checks (out, summary, style);
    console_print_metrics (out, summary, style);
    print_counts (out, summary, style, "not sent",
                  "a variable was not set: errors, not requests; the server saw none",
                  throng_stats_get_not_sent (&summary->total), not_sent_count);
    print_counts (out, summary, style, "retry attempts",
                  "a step's retry sent it again after a failure; each is also a request",
                  throng_summary_get_retry_attempts (summary), retry_attempts_count);
    print_retries (out, summary, style);
    print_protocols (out, summary, style);
    print_thresholds (out, summary, style);
    console_print_capacity (out, summary, style);
    print_cost (out, summary, style);
}
