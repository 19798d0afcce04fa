/* SPDX-License-Identifier: MIT */
/*
 * The html report in a real browser: headless Chromium (Debian's
 * `chromium`) opens a page that a short run wrote, from disk, with no
 * server and no network.  The DOM it dumps must hold every chart, each
 * with its lines, and show that the page's script ran; its console log
 * (--enable-logging=stderr) must carry no script error; hovering a chart
 * must show its values; dragging across a chart must zoom every chart
 * over time to that stretch and a double click undo it; and it must paint
 * a screenshot.  Without Chromium the test is skipped, and under CI=true
 * it fails.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test-utils.h"

/* Two steps with one label, and a metric of each kind, so that every chart has lines. */
static const char plan_yaml[] =
    "name: html-browser\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\" }\n"
    "metrics:\n"
    "  pages: { type: counter }\n"
    "  wait: { type: trend }\n"
    "  last_status: { type: gauge }\n"
    "  served: { type: rate }\n"
    "scenarios:\n"
    "  - name: s\n"
    "    users: 3\n"
    "    duration: 3s\n"
    "    think_time: 10ms\n"
    "    steps:\n"
    "      - name: page\n"
    "        http: { url: / }\n"
    "        record:\n"
    "          pages:\n"
    "          wait: \"${last.ttfb_ms}\"\n"
    "          last_status: \"${last.status}\"\n"
    "          served: \"1\"\n"
    "      - name: page\n"
    "        http: { url: /status/503 }\n"
    "        record: { served: \"0\" }\n";

static char *
find_chromium (void)
{
    static const char *const names[] = { "chromium", "chromium-browser", "google-chrome" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
        char *path = g_find_program_in_path (names[i]);
        if (path != NULL)
            return path;
    }
    return NULL;
}

/* Runs Chromium headless on @page with @mode ("--dump-dom" or "--screenshot=…"). */
static void
run_chromium (const char *chromium, const char *dir, const char *page, const char *mode,
              char **out, char **err)
{
    g_autofree char *profile = g_strdup_printf ("--user-data-dir=%s/profile", dir);
    g_autofree char *url = g_strdup_printf ("file://%s", page);
    /* --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start. */
    const char *argv[] = {
        "timeout", "-s", "KILL", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--no-first-run", "--hide-scrollbars", "--window-size=1000,4400",
        "--enable-logging=stderr", "--v=0", profile, mode, url, NULL,
    };
    g_autoptr (GError) error = NULL;
    int status = 0;

    if (!g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, err,
                       &status, &error))
        g_error ("cannot run %s: %s", chromium, error->message);
    if (!g_spawn_check_wait_status (status, &error))
        g_error ("%s %s: %s\n%s", chromium, mode, error->message, *err);
}

static guint
count (const char *text, const char *needle)
{
    guint n = 0;

    for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* A console line of a script error, as Chromium logs them to stderr. */
static void
assert_no_script_error (const char *log)
{
    g_auto (GStrv) lines = g_strsplit (log, "\n", -1);

    for (char **line = lines; *line != NULL; line++)
        if (strstr (*line, "CONSOLE") != NULL || strstr (*line, "Uncaught") != NULL)
            g_error ("the page logged: %s", *line);
}

static void
test_browser (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *chromium = find_chromium ();
    if (chromium == NULL) {
        throng_test_skip_or_fail ("chromium is not installed (apt-get install chromium): the "
                                  "html report was not checked in a browser");
        return;
    }

    g_autofree char *page = g_build_filename (fixture->dir, "report.html", NULL);
    g_autofree char *yaml = g_strdup_printf ("%sreporters:\n  - html: { path: \"%s\" }\n",
                                             plan_yaml, page);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    run_chromium (chromium, fixture->dir, page, "--dump-dom", &out, &err);
    assert_no_script_error (err);
    /* The script ran to its end, and the DOM holds every chart with its legend. */
    g_assert_nonnull (strstr (out, "<html lang=\"en\" class=\"js\">"));
    static const char *const charts[] = {
        "throughput", "latency", "outcome-latency", "codes", "users", "connections", "cpu", "lag",
        "step-rps", "step-latency", "step-failures", "metric-counters", "metric-gauges",
        "metric-rates", "metric-trends", "histogram", "percentiles",
    };
    g_assert_cmpuint (count (out, "<svg class=\"plot\""), ==, G_N_ELEMENTS (charts));
    g_assert_cmpuint (count (out, "<ul class=\"legend\">"), ==, G_N_ELEMENTS (charts));
    /* Every chart over time but the histogram and the percentiles zooms. */
    g_assert_cmpuint (count (out, "<svg class=\"zoom\""), ==, G_N_ELEMENTS (charts) - 2);
    for (guint i = 0; i < G_N_ELEMENTS (charts); i++) {
        g_autofree char *figure = g_strdup_printf ("<figure class=\"chart\" id=\"%s\">", charts[i]);
        const char *at = strstr (out, figure);
        if (at == NULL)
            g_error ("no chart %s", charts[i]);
        /* Drawn: its plot, and a line of its first series with points in it. */
        const char *end = strstr (at, "</figure>");
        g_autofree char *chart = g_strndup (at, (gsize) (end - at));
        g_autofree char *line = g_strdup_printf ("class=\"series %s-s0\"", charts[i]);
        const char *path = strstr (chart, line);
        if (path == NULL || strstr (chart, "<svg class=\"plot\"") == NULL)
            g_error ("chart %s has no line: %s", charts[i], chart);
        g_assert_nonnull (strstr (path, " d=\"M"));
    }
    /* The codes the target answered, and the two steps named «page» kept apart. */
    g_assert_nonnull (strstr (out, "data-names=\"200|503\""));
    g_assert_nonnull (strstr (out, "<td class=\"name\">page [0]</td>"));
    g_assert_nonnull (strstr (out, "<td class=\"name\">page [1]</td>"));
    g_assert_nonnull (strstr (out, "data-names=\"page [0]|page [1]\""));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    /* Hovering a chart shows its values there: a copy of the page moves the
     * pointer over the latency chart and keeps what the read-out says. */
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (page, &text, NULL, NULL));
    g_autoptr (GString) hover = g_string_new (text);
    g_string_replace (hover, "</body>",
                      "<script>var s=document.querySelector('#latency svg.plot');"
                      "var b=s.getBoundingClientRect();s.dispatchEvent(new MouseEvent('mousemove',"
                      "{clientX:b.left+b.width/2,clientY:b.top+40,bubbles:true}));"
                      "document.body.dataset.readout=document.querySelector('.readout')"
                      ".textContent.replace(/\\n/g,'; ');</script></body>", 1);
    g_autofree char *hover_page = g_build_filename (fixture->dir, "hover.html", NULL);
    g_assert_true (g_file_set_contents (hover_page, hover->str, (gssize) hover->len, NULL));
    run_chromium (chromium, fixture->dir, hover_page, "--dump-dom", &out, &err);
    assert_no_script_error (err);
    g_assert_nonnull (strstr (out, "data-readout=\"elapsed time (s) "));
    g_assert_nonnull (strstr (out, "; p50: "));
    g_assert_nonnull (strstr (out, "; max: "));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    /* Dragging across the throughput chart, from 30% to 60% of its plot, zooms every
     * chart over time to that stretch, with new time ticks; a double click undoes it. */
    g_autoptr (GString) zoom = g_string_new (text);
    g_string_replace (zoom, "</body>",
                      "<script>function drag(s,type,f){var b=s.getBoundingClientRect();"
                      "s.dispatchEvent(new MouseEvent(type,{clientX:b.left+b.width*(72+800*f)/900,"
                      "clientY:b.top+b.height/2,bubbles:true}));}"
                      "var t=document.querySelector('#throughput svg.plot'),d=document.body.dataset;"
                      "var before=document.querySelector('#latency g.xaxis').textContent;"
                      "drag(t,'mousedown',0.3);drag(t,'mousemove',0.6);drag(t,'mouseup',0.6);"
                      "var boxes=[].map.call(document.querySelectorAll('svg.zoom'),"
                      "function(z){return z.getAttribute('viewBox');});"
                      "d.zoomed=document.body.classList.contains('zoomed');"
                      "d.boxes=boxes.filter(function(b){return b===boxes[0];}).length+' '+boxes[0];"
                      "d.ticks=document.querySelector('#latency g.xaxis').textContent!==before;"
                      "d.unzoom=!document.getElementById('unzoom').hidden;"
                      "t.dispatchEvent(new MouseEvent('dblclick',{bubbles:true}));"
                      "d.reset=document.querySelector('#latency svg.zoom').getAttribute('viewBox')"
                      "+'|'+(document.querySelector('#latency g.xaxis').textContent===before)"
                      "+'|'+document.body.classList.contains('zoomed');</script></body>", 1);
    g_autofree char *zoom_page = g_build_filename (fixture->dir, "zoom.html", NULL);
    g_assert_true (g_file_set_contents (zoom_page, zoom->str, (gssize) zoom->len, NULL));
    run_chromium (chromium, fixture->dir, zoom_page, "--dump-dom", &out, &err);
    assert_no_script_error (err);
    g_assert_nonnull (strstr (out, "data-zoomed=\"true\""));
    g_assert_nonnull (strstr (out, "data-ticks=\"true\""));
    g_assert_nonnull (strstr (out, "data-unzoom=\"true\""));
    /* Every zoomable chart shows the same stretch: 30% to 60% of 800 from 72, so from
     * 312, 240 wide, within what the pointer's pixels round to. */
    const char *boxes = strstr (out, "data-boxes=\"");
    g_assert_nonnull (boxes);
    guint same = 0;
    gdouble x = 0, width = 0;
    g_assert_cmpint (sscanf (boxes, "data-boxes=\"%u %lf 12 %lf 216\"", &same, &x, &width), ==, 3);
    g_assert_cmpuint (same, ==, G_N_ELEMENTS (charts) - 2);
    g_assert_cmpfloat (fabs (x - 312), <, 3);
    g_assert_cmpfloat (fabs (width - 240), <, 3);
    g_assert_nonnull (strstr (out, "data-reset=\"72 12 800 216|true|false\""));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    g_autofree char *png = g_build_filename (fixture->dir, "report.png", NULL);
    g_autofree char *screenshot = g_strdup_printf ("--screenshot=%s", png);
    run_chromium (chromium, fixture->dir, page, screenshot, &out, &err);
    assert_no_script_error (err);
    g_autofree char *image = NULL;
    gsize length = 0;
    g_assert_true (g_file_get_contents (png, &image, &length, NULL));
    g_assert_cmpuint (length, >, 20000);
    g_assert_cmpmem (image, 8, "\x89PNG\r\n\x1a\n", 8);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add ("/html/browser", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_browser,
                throng_test_tmpdir_teardown);
    return g_test_run ();
}
