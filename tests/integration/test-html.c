/* SPDX-License-Identifier: MIT */
/*
 * The html reporter and `throng report`, end to end with the real binary
 * and its built-in target: a 20 s run with a stage ramp and a burst that
 * saturates throng writes its page live and a jsonl file; `throng report`
 * draws the same page from the file, byte for byte but for the generation
 * time.  The page's structure is checked against the jsonl: every
 * section in order, one point per interval, the table's totals equal to
 * the summary, the saturated intervals shaded.  Then `throng report` on
 * bad input: not a throng file, empty, a truncated last line, a newer
 * version, a run with no intervals.
 */
#include <string.h>
#include <glib/gstdio.h>

#include "test-utils.h"

/* A ramp to 6 users and down again (about 5% of a core here), and 48
 * users without think time in the middle, which take one worker past the
 * plan's CPU limit of 25% however busy the machine is. */
static const char ramp_plan[] =
    "name: html-integration\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\" }\n"
    "saturation: { cpu: 25%, lag: 2s }\n"
    "scenarios:\n"
    "  - name: ramp\n"
    "    executor: ramping-users\n"
    "    stages: [{duration: 6s, users: 6}, {duration: 8s, users: 6}, {duration: 6s, users: 0}]\n"
    "    think_time: 20ms\n"
    "    steps:\n"
    "      - name: home\n"
    "        http: { url: / }\n"
    /* A label that needs escaping in JSON and in HTML, read back by throng report. */
    "      - name: \"broken \\\"500\\\" \\\\ é\\t!\"\n"
    "        http: { url: /status/500 }\n"
    "  - name: burst\n"
    "    start_after: 8s\n"
    "    duration: 3s\n"
    "    users: 48\n"
    "    steps:\n"
    "      - http: { url: /bytes/1024 }\n"
    "thresholds:\n"
    "  - ramp.p99 < 10s\n";

static const char short_plan[] =
    "name: html-short\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\" }\n"
    "scenarios:\n"
    "  - name: s\n"
    "    users: 2\n"
    "    duration: 3s\n"
    "    think_time: 10ms\n"
    "    steps:\n"
    "      - http: { url: / }\n";

/* Not inlined: GCC 12 at -O3 takes the address of its local for one the caller keeps (-Wdangling-pointer). */
static G_GNUC_NO_INLINE char *
read_text (const char *path)
{
    g_autoptr (GError) error = NULL;
    char *text = NULL;

    if (!g_file_get_contents (path, &text, NULL, &error))
        g_error ("%s", error->message);
    return text;
}

static guint
count (const char *text, const char *needle)
{
    guint n = 0;

    for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* The page without its one line that may differ: the generation time. */
static char *
without_generated (const char *page)
{
    GString *out = g_string_new (NULL);
    g_auto (GStrv) lines = g_strsplit (page, "\n", -1);

    for (char **line = lines; *line != NULL; line++)
        if (!g_str_has_prefix (*line, "<p class=\"generated\">"))
            g_string_append_printf (out, "%s\n", *line);
    return g_string_free (out, FALSE);
}

typedef struct {
    GPtrArray *intervals;   /* JsonNode of each interval line */
    JsonNode *summary;
} Jsonl;

static void
jsonl_load (Jsonl *jsonl, const char *path)
{
    g_autofree char *text = read_text (path);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

    jsonl->intervals = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
    jsonl->summary = NULL;
    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0')
            continue;
        g_autoptr (GError) error = NULL;
        JsonNode *node = json_from_string (*line, &error);
        g_assert_no_error (error);
        const char *type = throng_test_json_string (node, "type");
        if (strcmp (type, "interval") == 0)
            g_ptr_array_add (jsonl->intervals, node);
        else if (strcmp (type, "summary") == 0)
            jsonl->summary = node;
        else
            json_node_unref (node);
    }
    g_assert_nonnull (jsonl->summary);
}

static void
jsonl_clear (Jsonl *jsonl)
{
    g_ptr_array_unref (jsonl->intervals);
    json_node_unref (jsonl->summary);
}

/* The row of the summary table that starts with @name in a row of class @css. */
static void
assert_table_row (const char *page, const char *css, const char *name, JsonNode *stats_root,
                  const char *stats_path)
{
    g_autofree char *requests_path = g_strconcat (stats_path, ".requests", NULL);
    g_autofree char *errors_path = g_strconcat (stats_path, ".errors", NULL);
    g_autofree char *row = g_strdup_printf ("<tr class=\"%s\"><td class=\"name\">%s</td><td>%"
                                            G_GINT64_FORMAT "</td><td>", css, name,
                                            throng_test_json_int (stats_root, requests_path));
    const char *found = strstr (page, row);
    if (found == NULL)
        g_error ("no row «%s» in the summary table", row);
    /* Requests, req/s, then errors. */
    const char *errors = strstr (found + strlen (row), "</td><td>");
    g_assert_nonnull (errors);
    g_autofree char *expected = g_strdup_printf ("</td><td>%" G_GINT64_FORMAT "</td>",
                                                 throng_test_json_int (stats_root, errors_path));
    g_assert_true (g_str_has_prefix (errors, expected));
}

/* Runs of consecutive saturated intervals: the bands a time chart shades. */
static guint
saturated_runs (const Jsonl *jsonl)
{
    guint runs = 0;
    gboolean previous = FALSE;

    for (guint i = 0; i < jsonl->intervals->len; i++) {
        gboolean saturated = throng_test_json_bool (g_ptr_array_index (jsonl->intervals, i),
                                                    "saturated");
        runs += saturated && !previous;
        previous = saturated;
    }
    return runs;
}

static void
test_live_and_report (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *jsonl_path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *live_path = g_build_filename (fixture->dir, "live.html", NULL);
    g_autofree char *file_path = g_build_filename (fixture->dir, "file.html", NULL);
    g_autofree char *report_out = g_strdup_printf ("html=%s", file_path);
    g_autofree char *csv_path = g_build_filename (fixture->dir, "rows.csv", NULL);
    g_autofree char *csv_out = g_strdup_printf ("csv=%s", csv_path);
    g_autofree char *out = NULL, *err = NULL;

    /* The plan's own reporters: --out would give the json reporter's summary mode.  The
     * samples make the file as big as it gets; throng report passes over them. */
    g_autofree char *jsonl_plan = g_strdup_printf ("%sreporters:\n"
                                                   "  - json: { path: \"%s\", mode: jsonl, "
                                                   "samples: true }\n"
                                                   "  - html: { path: \"%s\", messages: true,"
                                                   " title: \"Ramp & burst: 'quoted'\" }\n",
                                                   ramp_plan, jsonl_path, live_path);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", jsonl_plan);
    int status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", "--workers", "1", NULL);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    /* Any reporter can be driven from the file: csv, from its samples, as well. */
    status = throng_test_runv (60, &out, &err, "report", jsonl_path, "--out", report_out,
                               "--out", csv_out, "--set", "html.title=Ramp & burst: 'quoted'",
                               "--set", "html.messages=true", NULL);
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpstr (err, ==, "");

    g_autofree char *live = read_text (live_path);
    g_autofree char *file = read_text (file_path);
    Jsonl jsonl;
    jsonl_load (&jsonl, jsonl_path);

    /* Same page, but for the generation time. */
    g_assert_cmpuint (count (live, "<p class=\"generated\">"), ==, 1);
    g_autofree char *live_rest = without_generated (live);
    g_autofree char *file_rest = without_generated (file);
    g_assert_cmpstr (live_rest, ==, file_rest);

    /* One file, no network: the only URLs are the target's, as text in the header. */
    g_assert_cmpuint (count (live, "http://"), ==,
                      count (live, "<code class=\"target\">http://"));
    g_assert_null (strstr (live, "https://"));
    g_assert_null (strstr (live, "href="));
    g_assert_null (strstr (live, "<link"));
    g_assert_null (strstr (live, "src="));

    /* The header names the target of each scenario, as the protocol describes it: the
     * origin of its steps' URLs, without a path; the json summary carries it. */
    g_autofree char *target = g_strdup (throng_test_json_string (jsonl.summary,
                                                                 "scenarios.0.target"));
    g_assert_true (g_str_has_prefix (target, "http://127.0.0.1:"));
    g_assert_null (strchr (target + strlen ("http://"), '/'));
    g_assert_cmpstr (throng_test_json_string (jsonl.summary, "scenarios.1.target"), ==, target);
    g_autofree char *header_target = g_strdup_printf ("scenario <b>ramp</b> on <code "
                                                      "class=\"target\">%s</code>, 6 users",
                                                      target);
    g_assert_nonnull (strstr (live, header_target));
    g_assert_cmpuint (count (live, "<code class=\"target\">"), ==, 2);

    /* Every section, in the order. */
    static const char *const sections[] = {
        "<header>", "<h1>Ramp &amp; burst: &#39;quoted&#39;</h1>", "id=\"verdict\"", "id=\"summary\"",
        "id=\"over-time\"", "id=\"throughput\"", "id=\"latency\"", "id=\"outcome-latency\"",
        "id=\"codes\"", "id=\"users\"", "id=\"connections\"", "id=\"cpu\"", "id=\"lag\"",
        "id=\"by-step\"", "id=\"scenario-rps\"", "id=\"scenario-latency\"", "id=\"step-rps\"",
        "id=\"step-latency\"", "id=\"step-failures\"", "id=\"distribution\"",
        "id=\"histogram\"", "id=\"percentiles\"", "id=\"outcomes\"", "id=\"errors\"",
    };
    const char *at = live;
    for (guint i = 0; i < G_N_ELEMENTS (sections); i++) {
        const char *next = strstr (at, sections[i]);
        if (next == NULL)
            g_error ("section %s missing or out of order", sections[i]);
        at = next;
    }
    g_assert_nonnull (strstr (live, "<dt>Plan SHA-256</dt><dd><code>"));
    g_assert_nonnull (strstr (live, "<code>ramp.p99 &lt; 10s</code>"));

    /* Each chart over time has one point per interval: the run's six, codes and outcomes,
     * two per scenario and three per step (requests, latency, failures). */
    guint n = jsonl.intervals->len;
    g_assert_cmpuint (n, >=, 15);
    g_autofree char *points = g_strdup_printf ("data-points=\"%u\"", n);
    g_assert_cmpuint (count (live, points), ==, 13);
    g_assert_cmpuint (count (live, "<svg class=\"zoom\""), ==, 13);

    /* Codes and outcomes from the samples: the failing step's 500s, the others' 200s, as
     * many responses as requests; successes and failures apart. */
    const char *codes = strstr (live, "id=\"codes\"");
    g_assert_nonnull (strstr (codes, "data-names=\"200|500\""));
    g_autofree char *failed_row = g_strdup_printf (
        "<tr class=\"step failed\"><td class=\"name\">500</td><td>%" G_GINT64_FORMAT "</td>",
        throng_test_json_int (jsonl.summary, "scenarios.0.steps.1.stats.requests"));
    g_assert_nonnull (strstr (live, failed_row));
    g_autofree char *ko_row = g_strdup_printf (
        "<tr class=\"step\"><td class=\"name\">failed</td><td>%" G_GINT64_FORMAT "</td>",
        throng_test_json_int (jsonl.summary, "total.errors"));
    g_assert_nonnull (strstr (live, ko_row));
    g_assert_nonnull (strstr (live, "data-names=\"succeeded p50|succeeded p99|failed p50|failed p99\""));
    /* A line per scenario and per step, named by both when there are several scenarios. */
    const char *step_rps = strstr (live, "id=\"step-rps\"");
    g_assert_nonnull (strstr (step_rps, "ramp / home"));
    g_assert_nonnull (strstr (step_rps, "burst / GET /bytes/1024"));
    g_assert_nonnull (strstr (strstr (live, "id=\"scenario-rps\""), "data-names=\"ramp|burst\""));

    /* The table's totals are the summary's. */
    assert_table_row (live, "total", "total", jsonl.summary, "total");
    assert_table_row (live, "scenario", "ramp", jsonl.summary, "scenarios.0.stats");
    assert_table_row (live, "scenario", "burst", jsonl.summary, "scenarios.1.stats");
    assert_table_row (live, "step", "broken &quot;500&quot; \\ é\t!", jsonl.summary,
                      "scenarios.0.steps.1.stats");
    g_assert_cmpint (throng_test_json_int (jsonl.summary, "scenarios.0.steps.1.stats.errors"), >,
                     0);
    /* The errors table with the failures' first message, from the samples. */
    g_assert_nonnull (strstr (live, "<td class=\"name\">status</td><td>"));
    g_assert_nonnull (strstr (live, "<th>first messages</th>"));
    g_assert_nonnull (strstr (live, "%</td><td class=\"name\">Internal Server Error</td></tr>"));
    /* One csv row per request of the summary. */
    g_autofree char *rows = read_text (csv_path);
    g_assert_cmpint (throng_test_count_lines (rows) - 1, ==,
                     throng_test_json_int (jsonl.summary, "total.requests"));

    /* What the schedule wanted, per interval: the ramp's stages and the burst's window
     * (away from their edges, where an interval's end may fall on either side). */
    for (guint i = 0; i < n; i++) {
        JsonNode *interval = g_ptr_array_index (jsonl.intervals, i);
        gdouble t = throng_test_json_double (interval, "elapsed_s");
        gint64 ramp = throng_test_json_int (interval, "scenarios.0.scheduled_users");
        gint64 burst = throng_test_json_int (interval, "scenarios.1.scheduled_users");
        g_assert_cmpint (ramp, >=, 0);
        g_assert_cmpint (ramp, <=, 6);
        if (t > 6.2 && t < 13.8)
            g_assert_cmpint (ramp, ==, 6);
        if (t > 20.2)
            g_assert_cmpint (ramp, ==, 0);
        if (t > 8.2 && t < 10.8)
            g_assert_cmpint (burst, ==, 48);
        if (t < 7.8 || t > 11.2)
            g_assert_cmpint (burst, ==, 0);
        g_assert_cmpfloat (throng_test_json_double (interval, "scenarios.0.scheduled_rate"), ==,
                           0.0);
    }
    /* … drawn as the users chart's dashed target; a closed-model run has no arrivals chart. */
    const char *users_chart = strstr (live, "id=\"users\"");
    g_assert_nonnull (strstr (users_chart, "scheduled users"));
    g_assert_true (strstr (users_chart, "scheduled users") < strstr (users_chart, "id=\"connections\""));
    g_assert_null (strstr (live, "id=\"arrivals\""));

    /* The burst saturated throng: a banner, and its intervals shaded on every time chart. */
    guint runs = saturated_runs (&jsonl);
    g_assert_cmpuint (runs, >, 0);
    g_assert_nonnull (strstr (live, "id=\"saturation\""));
    g_assert_cmpuint (count (live, "<rect class=\"sat\""), ==, runs * 13);

    jsonl_clear (&jsonl);
}

static void
assert_report_fails (const char *jsonl_path, const char *html_path, const char *message)
{
    g_autofree char *out = NULL, *err = NULL;
    g_autofree char *spec = g_strdup_printf ("html=%s", html_path);

    g_remove (html_path);
    int status = throng_test_runv (30, &out, &err, "report", jsonl_path, "--out", spec,
                                   "--overwrite", NULL);
    g_assert_cmpint (status, ==, 2);
    if (strstr (err, message) == NULL)
        g_error ("expected «%s» in: %s", message, err);
    throng_test_assert_no_glib_noise (err);
    /* No page pretends to be a result. */
    g_assert_false (g_file_test (html_path, G_FILE_TEST_EXISTS));
}

/* Draws @jsonl_path; returns the page and the stderr. */
static char *
report_draws (const char *jsonl_path, const char *html_path, char **out_err)
{
    g_autofree char *out = NULL;
    g_autofree char *spec = g_strdup_printf ("html=%s", html_path);
    int status = throng_test_runv (30, &out, out_err, "report", jsonl_path, "--out", spec,
                                   "--overwrite", NULL);

    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (*out_err);
    return read_text (html_path);
}

static void
test_report_bad_input (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *jsonl_path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *yaml = g_strdup_printf ("%sreporters:\n  - json: { path: \"%s\", mode: "
                                             "jsonl }\n", short_plan, jsonl_path);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 0);

    g_autofree char *text = read_text (jsonl_path);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    guint n_lines = g_strv_length (lines) - 1;      /* the text ends with a newline */
    g_assert_cmpuint (n_lines, >=, 3);
    g_autofree char *html = g_build_filename (fixture->dir, "out.html", NULL);

    /* Not a throng file at all. */
    g_autofree char *csv = throng_test_write_file (fixture->dir, "a.csv", "timeStamp,elapsed\n");
    g_autofree char *csv_message = g_strdup_printf ("%s:1: not a throng jsonl file", csv);
    assert_report_fails (csv, html, csv_message);
    g_autofree char *other = throng_test_write_file (fixture->dir, "o.jsonl", "{\"a\": 1}\n");
    g_autofree char *other_message = g_strdup_printf ("%s:1: not a throng jsonl file", other);
    assert_report_fails (other, html, other_message);

    /* Empty. */
    g_autofree char *empty = throng_test_write_file (fixture->dir, "e.jsonl", "");
    g_autofree char *empty_message = g_strdup_printf ("%s: the file is empty", empty);
    assert_report_fails (empty, html, empty_message);

    /* Only a newer version: nothing this throng can read. */
    g_autofree char *newer_text = g_strjoinv ("\n", lines);
    g_autofree char *newer_swapped = NULL;
    {
        g_autoptr (GRegex) regex = g_regex_new ("\"version\":1", 0, 0, NULL);
        newer_swapped = g_regex_replace_literal (regex, newer_text, -1, 0, "\"version\":9", 0,
                                                 NULL);
    }
    g_autofree char *newer = throng_test_write_file (fixture->dir, "n.jsonl", newer_swapped);
    assert_report_fails (newer, html, "schema version 9; this one reads version 1");

    /* A run killed while writing: the last line cut short is skipped and said to be. */
    GString *cut = g_string_new (NULL);
    for (guint i = 0; i + 1 < n_lines; i++)
        g_string_append_printf (cut, "%s\n", lines[i]);
    g_string_append_len (cut, lines[n_lines - 1], 40);
    g_autofree char *truncated = throng_test_write_file (fixture->dir, "t.jsonl", cut->str);
    g_string_free (cut, TRUE);
    g_autofree char *truncated_err = NULL;
    g_autofree char *page = report_draws (truncated, html, &truncated_err);
    g_autofree char *truncated_message = g_strdup_printf ("%s:%u: the last line is cut short",
                                                          truncated, n_lines);
    g_assert_nonnull (strstr (truncated_err, truncated_message));
    /* The summary is rebuilt from the intervals, and the page says both. */
    g_assert_nonnull (strstr (page, "has no summary line"));
    g_assert_nonnull (strstr (page, "the last line is cut short"));
    g_autofree char *points = g_strdup_printf ("data-points=\"%u\"", n_lines - 1);
    g_assert_nonnull (strstr (page, points));
    g_clear_pointer (&page, g_free);

    /* One interval of a newer version among known ones: skipped, said, the rest drawn. */
    GString *mixed = g_string_new (NULL);
    for (guint i = 0; i < n_lines; i++) {
        if (i == 0) {
            g_autoptr (GRegex) regex = g_regex_new ("\"version\":1", 0, 0, NULL);
            g_autofree char *swapped = g_regex_replace_literal (regex, lines[i], -1, 0,
                                                                "\"version\":2", 0, NULL);
            g_string_append_printf (mixed, "%s\n", swapped);
        } else {
            g_string_append_printf (mixed, "%s\n", lines[i]);
        }
    }
    g_autofree char *mixed_path = throng_test_write_file (fixture->dir, "m.jsonl", mixed->str);
    g_string_free (mixed, TRUE);
    g_autofree char *mixed_err = NULL;
    page = report_draws (mixed_path, html, &mixed_err);
    g_autofree char *mixed_message = g_strdup_printf ("%s:1: an interval of version 2", mixed_path);
    g_assert_nonnull (strstr (mixed_err, mixed_message));

    /* A scenario without its name (a hand-edited file): named by its place, never NULL. */
    g_autofree char *unnamed_text = NULL;
    {
        g_autoptr (GRegex) regex = g_regex_new ("\"scenarios\":\\[\\{\"name\":\"[^\"]*\",", 0, 0,
                                                NULL);
        unnamed_text = g_regex_replace_literal (regex, newer_text, -1, 0, "\"scenarios\":[{",
                                                0, NULL);
    }
    g_assert_cmpstr (unnamed_text, !=, newer_text);
    g_autofree char *unnamed = throng_test_write_file (fixture->dir, "u.jsonl", unnamed_text);
    g_autofree char *unnamed_json = g_build_filename (fixture->dir, "u.json", NULL);
    g_autofree char *unnamed_spec = g_strdup_printf ("json=%s", unnamed_json);
    g_autofree char *unnamed_err = NULL;
    g_assert_cmpint (throng_test_runv (30, NULL, &unnamed_err, "report", unnamed, "--out",
                                       unnamed_spec, NULL),
                     ==, 0);
    throng_test_assert_no_glib_noise (unnamed_err);
    g_autoptr (JsonNode) unnamed_summary = throng_test_json_load (unnamed_json, NULL);
    g_assert_cmpstr (throng_test_json_string (unnamed_summary, "scenarios.0.name"), ==,
                     "scenario 1");
    g_free (points);
    points = g_strdup_printf ("data-points=\"%u\"", n_lines - 2);
    g_assert_nonnull (strstr (page, points));
    g_clear_pointer (&page, g_free);

    /* An empty run: a summary and no interval.  Drawn, and the charts say there is no data. */
    g_autofree char *last = g_strdup_printf ("%s\n", lines[n_lines - 1]);
    g_autofree char *summary_only = throng_test_write_file (fixture->dir, "s.jsonl", last);
    g_autofree char *summary_err = NULL;
    page = report_draws (summary_only, html, &summary_err);
    g_assert_cmpstr (summary_err, ==, "");
    /* The run's six charts over time, codes and outcomes, and the outcomes' tables; the
     * charts per step need intervals, so there are none. */
    g_assert_cmpuint (count (page, "<p class=\"empty\">No data:"), ==, 9);
    g_assert_null (strstr (page, "id=\"by-step\""));
    g_clear_pointer (&page, g_free);

    /* --set needs NAME.KEY=VALUE, for a reporter that an --out names. */
    g_autofree char *set_spec = g_strdup_printf ("html=%s", html);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (30, &out, &err, "report", jsonl_path, "--out", set_spec,
                                       "--set", "html", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "--set html: expected NAME.KEY=VALUE"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (30, &out, &err, "report", jsonl_path, "--out", set_spec,
                                       "--set", "json.mode=jsonl", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "--set json.mode=jsonl: no --out json=PATH"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (30, &out, &err, "report", jsonl_path, "--out", set_spec,
                                       "--set", "html.colour=red", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "colour"));

    /* A file that is not there. */
    g_autofree char *missing = g_build_filename (fixture->dir, "missing.jsonl", NULL);
    assert_report_fails (missing, html, "missing.jsonl");
}

/* An open-model run: the arrival rate its stages wanted, against the iterations that ran. */
static const char arrivals_plan[] =
    "name: html-arrivals\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\" }\n"
    "scenarios:\n"
    "  - name: open\n"
    "    executor: ramping-arrival-rate\n"
    "    rate: 20/s\n"
    "    max_users: 10\n"
    "    stages: [{duration: 2s, rate: 60/s}, {duration: 1s, rate: 60/s}]\n"
    "    steps:\n"
    "      - http: { url: / }\n";

static void
test_arrivals (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *jsonl_path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *live_path = g_build_filename (fixture->dir, "live.html", NULL);
    g_autofree char *file_path = g_build_filename (fixture->dir, "file.html", NULL);
    /* The file keeps the samples, so that the page from it has the codes the live one has. */
    g_autofree char *yaml = g_strdup_printf ("%sreporters:\n  - json: { path: \"%s\", mode: "
                                             "jsonl, samples: true }\n  - html: { path: \"%s\" }\n",
                                             arrivals_plan, jsonl_path, live_path);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 0);
    g_autofree char *spec = g_strdup_printf ("html=%s", file_path);
    g_assert_cmpint (throng_test_runv (30, NULL, NULL, "report", jsonl_path, "--out", spec, NULL),
                     ==, 0);

    g_autofree char *live = read_text (live_path);
    g_autofree char *file = read_text (file_path);
    g_autofree char *live_rest = without_generated (live);
    g_autofree char *file_rest = without_generated (file);
    g_assert_cmpstr (live_rest, ==, file_rest);

    /* The rate rises from 20/s to 60/s over 2 s: 40/s at 1 s, and no user target. */
    Jsonl jsonl;
    jsonl_load (&jsonl, jsonl_path);
    g_assert_cmpuint (jsonl.intervals->len, >=, 3);
    JsonNode *first = g_ptr_array_index (jsonl.intervals, 0);
    gdouble t = throng_test_json_double (first, "elapsed_s");
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (first, "scenarios.0.scheduled_rate"),
                                    20.0 + 20.0 * t, 0.01);
    g_assert_cmpint (throng_test_json_int (first, "scenarios.0.scheduled_users"), ==, 0);
    jsonl_clear (&jsonl);

    const char *arrivals = strstr (live, "id=\"arrivals\"");
    g_assert_nonnull (arrivals);
    g_assert_nonnull (strstr (arrivals, "scheduled arrivals/s"));
    g_assert_nonnull (strstr (arrivals, "iterations completed/s"));
    /* No user target to draw in an open model. */
    const char *users_chart = strstr (live, "id=\"users\"");
    g_assert_true (strstr (users_chart, "scheduled users") == NULL
                   || strstr (users_chart, "scheduled users") > arrivals);
}

/* An existing page is refused unless overwriting is allowed; the title option. */
static void
test_report_overwrite (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *jsonl_path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *live = g_build_filename (fixture->dir, "live.html", NULL);
    g_autofree char *yaml = g_strdup_printf ("%sreporters:\n  - json: { path: \"%s\", mode: "
                                             "jsonl }\n  - html: { path: \"%s\", title: "
                                             "\"Short & <sweet>\" }\n", short_plan, jsonl_path,
                                             live);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 0);
    g_clear_pointer (&err, g_free);
    g_autofree char *live_page = read_text (live);
    g_assert_nonnull (strstr (live_page, "<title>Short &amp; &lt;sweet&gt;</title>"));
    g_assert_nonnull (strstr (live_page, "<h1>Short &amp; &lt;sweet&gt;</h1>"));

    /* The default output is RUN.html beside RUN.jsonl. */
    g_autofree char *html = g_build_filename (fixture->dir, "run.html", NULL);
    g_free (throng_test_write_file (fixture->dir, "run.html", "mine\n"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    int status = throng_test_runv (30, &out, &err, "report", jsonl_path, NULL);
    g_assert_cmpint (status, ==, 3);
    g_assert_nonnull (strstr (err, "exists; set overwrite: true or pass --overwrite"));
    g_autofree char *kept = read_text (html);
    g_assert_cmpstr (kept, ==, "mine\n");
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    status = throng_test_runv (30, &out, &err, "report", jsonl_path, "--overwrite", NULL);
    g_assert_cmpint (status, ==, 0);
    g_autofree char *page = read_text (html);
    g_assert_true (g_str_has_prefix (page, "<!DOCTYPE html>"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/html/live-and-report", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_live_and_report, throng_test_tmpdir_teardown);
    g_test_add ("/html/arrivals", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_arrivals, throng_test_tmpdir_teardown);
    g_test_add ("/html/report/bad-input", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_report_bad_input, throng_test_tmpdir_teardown);
    g_test_add ("/html/report/overwrite", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_report_overwrite, throng_test_tmpdir_teardown);
    return g_test_run ();
}
