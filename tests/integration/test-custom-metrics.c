/* SPDX-License-Identifier: MIT */
/*
 * The plan's own metrics end to end (docs/journeys.md, "Metrics of your
 * own"): an in-process server answers each request with the next value of
 * a known list ({"total": N, "ok": B}, and now and then a total that is
 * not a number); the plan extracts and records them.  The summary's trend
 * percentiles are those of the values the server sent (within the
 * histogram's 1 %; exactly those of one histogram of them), the rate is
 * the share of true, the counters the count and the sum, the values that
 * were not numbers counted as invalid; a threshold on a custom metric
 * fails the run with 99; three shards merged give the figures of the
 * whole, exactly.
 */
#include "test-utils.h"

#include <math.h>
#include <string.h>

#include <throng/throng.h>

#define RUN_TIMEOUT 120
#define N_VALUES 120

/* What the server sent; its handler runs on the server's thread. */
typedef struct {
    GMutex lock;
    guint sent;                 /* requests answered */
    gdouble totals[N_VALUES];   /* the numeric totals sent, in order */
    guint n_totals;
    guint not_numbers;          /* totals sent as "n/a" */
    guint trues;                /* "ok": true sent */
    guint falses;
    guint others;               /* requests for any other path: /never/… must not come */
} Sent;

typedef struct {
    char *dir;
    Sent sent;
    ThrongTestSoupServer *server;
    const char *transport;      /* the http transport, or NULL for the default */
} Fixture;

/* The i-th answer: a spread of totals with fractions; every 12th is no number, every 5th not ok. */
static void
answer (guint i, gboolean *number, gdouble *total, gboolean *ok)
{
    *number = i % 12 != 11;
    *total = (gdouble) ((i * 7919u) % 997u) + (gdouble) (i % 4) * 0.25;
    *ok = i % 5 != 0;
}

static void
handler (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Sent *sent = data;
    g_autofree char *body = NULL;
    gboolean number, ok;
    gdouble total;

    (void) server;
    (void) query;
    if (strcmp (path, "/value") != 0) {
        g_mutex_lock (&sent->lock);
        sent->others++;
        g_mutex_unlock (&sent->lock);
        soup_server_message_set_status (msg, 404, NULL);
        return;
    }
    g_mutex_lock (&sent->lock);
    answer (sent->sent++, &number, &total, &ok);
    if (number && sent->n_totals < N_VALUES)
        sent->totals[sent->n_totals++] = total;
    sent->not_numbers += number ? 0 : 1;
    sent->trues += ok ? 1 : 0;
    sent->falses += ok ? 0 : 1;
    g_mutex_unlock (&sent->lock);
    if (number) {
        char text[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_formatd (text, sizeof text, "%.2f", total);
        body = g_strdup_printf ("{\"total\": %s, \"ok\": %s}", text, ok ? "true" : "false");
    } else {
        body = g_strdup_printf ("{\"total\": \"n/a\", \"ok\": %s}", ok ? "true" : "false");
    }
    soup_server_message_set_status (msg, 200, NULL);
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body,
                                      strlen (body));
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->transport = data;
    f->dir = throng_test_tmpdir_new ();
    g_mutex_init (&f->sent.lock);
    f->server = throng_test_soup_server_start (NULL, handler, &f->sent);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    (void) data;
    throng_test_soup_server_stop (f->server);
    g_mutex_clear (&f->sent.lock);
    throng_test_tmpdir_free (f->dir);
}

static const char plan_metrics[]
    = "metrics:\n"
      "  cart_value: { type: trend }\n"
      "  logins_ok: { type: rate }\n"
      "  orders: { type: counter }\n"
      "  revenue: { type: counter }\n"
      "  last_total: { type: gauge }\n"
      "  never_sent: { type: counter }\n"
      "thresholds:\n"
      "  - cart_value.p95 < 1\n"
      "  - logins_ok.rate > 0.5\n"
      "  - orders.count == 120\n";

static const char plan_steps[] = "      - http:\n"
                                 "          url: /value\n"
                                 "          extract:\n"
                                 "            total: { json: $.total }\n"
                                 "            ok: { json: $.ok }\n"
                                 "            never: { header: X-Never }\n"
                                 "        record:\n"
                                 "          cart_value: \"${vars.total}\"\n"
                                 "          revenue: \"${vars.total}\"\n"
                                 "          last_total: \"${vars.total}\"\n"
                                 "          logins_ok: \"${vars.ok}\"\n"
                                 "          orders:\n"
                                 "      - http: { url: \"/never/${vars.never}\" }\n"
                                 "        record: { never_sent: }\n";

static char *
plan_yaml (Fixture *f, guint users, guint iterations, const char *extra)
{
    g_autofree char *top = g_strconcat (plan_metrics, extra, NULL);
    ThrongTestPlan plan = {
        .name = "custom",
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = users,
        .iterations = iterations,
        .steps = plan_steps,
        .plan_extra = top,
    };
    return throng_test_plan_yaml (&plan);
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
    gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
    return x < y ? -1 : x > y;
}

/* The smallest value with at least @p % of them at or below it, as the histogram defines it. */
static gdouble
exact_percentile (const gdouble *sorted, guint n, gdouble p)
{
    guint rank = (guint) ceil (p / 100.0 * n);
    return sorted[MAX (rank, 1) - 1];
}

/* "metrics.N" of @root whose name is @name. */
static char *
metric_path (JsonNode *root, const char *prefix, const char *name)
{
    guint n = throng_test_json_length (root, prefix);

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("%s.%u", prefix, i);
        g_autofree char *name_path = g_strconcat (path, ".name", NULL);
        if (g_strcmp0 (throng_test_json_string (root, name_path), name) == 0)
            return g_steal_pointer (&path);
    }
    g_error ("no metric '%s' in the summary", name);
    return NULL;
}

static gdouble
figure (JsonNode *root, const char *name, const char *what)
{
    g_autofree char *base = metric_path (root, "metrics", name);
    g_autofree char *path = g_strconcat (base, ".", what, NULL);
    return throng_test_json_double (root, path);
}

/*
 * What the summary @root says of the metrics against what the server
 * sent: counts and sums exact, the trend's percentiles those of one
 * histogram of the values (and within its 1 % of the exact ones).
 */
static void
assert_figures (JsonNode *root, Sent *sent)
{
    guint n = sent->n_totals;
    g_autofree gdouble *sorted = g_memdup2 (sent->totals, sizeof (gdouble) * n);
    g_autoptr (ThrongHistogram) histogram = throng_histogram_new ();
    gdouble sum = 0;

    qsort (sorted, n, sizeof (gdouble), compare_double);
    for (guint i = 0; i < n; i++) {
        sum += sorted[i];
        throng_histogram_record (histogram, (gint64) llround (sorted[i] * 1000.0));
    }
    g_assert_cmpuint (sent->sent, ==, N_VALUES);
    g_assert_cmpuint (sent->others, ==, 0);
    g_assert_cmpint ((gint64) figure (root, "cart_value", "count"), ==, n);
    g_assert_cmpint ((gint64) figure (root, "cart_value", "invalid"), ==, sent->not_numbers);
    g_assert_cmpfloat_with_epsilon (figure (root, "cart_value", "min"), sorted[0], 1e-9);
    g_assert_cmpfloat_with_epsilon (figure (root, "cart_value", "max"), sorted[n - 1], 1e-9);
    g_assert_cmpfloat_with_epsilon (figure (root, "cart_value", "mean"), sum / n, 1e-6);
    static const struct {
        const char *name;
        gdouble p;
    } percentiles[] = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 } };
    for (guint i = 0; i < G_N_ELEMENTS (percentiles); i++) {
        gdouble got = figure (root, "cart_value", percentiles[i].name);
        gdouble exact = exact_percentile (sorted, n, percentiles[i].p);
        gdouble merged = (gdouble) throng_histogram_percentile (histogram, percentiles[i].p) / 1000.0;
        g_test_message ("%s: %g, exact %g", percentiles[i].name, got, exact);
        g_assert_cmpfloat_with_epsilon (got, merged, 1e-9);
        g_assert_cmpfloat (fabs (got - exact), <=, exact * 0.01 + 0.001);
    }
    /* a counter with no value counts the steps; one with a value sums them */
    g_assert_cmpfloat (figure (root, "orders", "sum"), ==, N_VALUES);
    g_assert_cmpfloat_with_epsilon (figure (root, "revenue", "sum"), sum, 1e-6);
    g_assert_cmpint ((gint64) figure (root, "revenue", "invalid"), ==, sent->not_numbers);
    g_assert_cmpint ((gint64) figure (root, "logins_ok", "count"), ==, N_VALUES);
    g_assert_cmpint ((gint64) figure (root, "logins_ok", "trues"), ==, sent->trues);
    g_assert_cmpfloat_with_epsilon (figure (root, "logins_ok", "rate"),
                                    (gdouble) sent->trues / N_VALUES, 1e-9);
    g_assert_cmpint ((gint64) figure (root, "logins_ok", "invalid"), ==, 0);
    /* a step that never went out (its variable unset) records nothing */
    g_assert_cmpint ((gint64) figure (root, "never_sent", "count"), ==, 0);
    g_assert_cmpint ((gint64) figure (root, "never_sent", "invalid"), ==, 0);
    /* the gauge's last value is one of those sent; its extremes are theirs */
    gdouble last = figure (root, "last_total", "value");
    gboolean found = FALSE;
    for (guint i = 0; i < n; i++)
        found |= fabs (sorted[i] - last) < 1e-9;
    g_assert_true (found);
    g_assert_cmpfloat_with_epsilon (figure (root, "last_total", "min"), sorted[0], 1e-9);
    g_assert_cmpfloat_with_epsilon (figure (root, "last_total", "max"), sorted[n - 1], 1e-9);
}

/* The thresholds of plan_metrics, judged on @root: the trend's fails, the others pass. */
static void
assert_thresholds (JsonNode *root)
{
    g_assert_cmpuint (throng_test_json_length (root, "thresholds"), ==, 3);
    g_assert_cmpstr (throng_test_json_string (root, "thresholds.0.expression"), ==,
                     "cart_value.p95 < 1");
    g_assert_false (throng_test_json_bool (root, "thresholds.0.passed"));
    g_assert_true (throng_test_json_bool (root, "thresholds.1.passed"));
    g_assert_true (throng_test_json_bool (root, "thresholds.2.passed"));
}

/* 4 users × 30 iterations: one run's figures, and the failed threshold's exit 99. */
static void
test_record (Fixture *f, gconstpointer data)
{
    (void) data;
    g_autofree char *reporters = g_strdup_printf (
        "reporters:\n  - console: {}\n  - csv: { path: \"%s/run.csv\", metrics_path: \"%s/metrics.csv\" }\n",
        f->dir, f->dir);
    g_autofree char *yaml = plan_yaml (f, 4, 30, reporters);
    g_autofree char *plan = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_autofree char *json_out = throng_test_out_arg ("json", summary);
    g_autofree char *out = NULL, *err = NULL;
    const char *const argv[] = { "run", plan, "--out", json_out, NULL };
    int status;

    g_assert_true (throng_test_run (argv, NULL, RUN_TIMEOUT, &status, &out, &err));
    g_assert_cmpint (status, ==, 99);
    throng_test_assert_no_glib_noise (err);
    g_autoptr (JsonNode) root = throng_test_json_load (summary, NULL);
    g_assert_nonnull (root);
    /* the console's end summary has their table, an invalid count beside each count */
    g_assert_nonnull (strstr (out, "metrics     type        count  invalid  figures\n"));
    g_autofree char *orders = g_strdup_printf ("  orders      counter       120        0  120  ");
    g_assert_nonnull (strstr (out, orders));
    g_autofree char *cart = g_strdup_printf ("  cart_value  trend    %8u  %7u  min ", f->sent.n_totals,
                                             f->sent.not_numbers);
    g_assert_nonnull (strstr (out, cart));
    g_assert_nonnull (strstr (out, "FAIL  cart_value.p95 < 1"));
    assert_figures (root, &f->sent);
    assert_thresholds (root);
    g_assert_cmpstr (throng_test_json_string (root, "metrics.0.type"), ==, "trend");
    g_assert_cmpstr (throng_test_json_string (root, "metrics.1.type"), ==, "rate");

    /* the csv reporter's side file: a row a metric, the summary's figures */
    g_autofree char *path = g_build_filename (f->dir, "metrics.csv", NULL);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_assert_cmpstr (lines[0], ==, "metric,type,count,invalid,sum,min,max,mean,p50,p90,p95,p99,value,rate");
    g_auto (GStrv) trend = g_strsplit (lines[1], ",", -1);
    g_assert_cmpstr (trend[0], ==, "cart_value");
    g_assert_cmpstr (trend[1], ==, "trend");
    g_assert_cmpint (g_ascii_strtoll (trend[2], NULL, 10), ==, f->sent.n_totals);
    g_assert_cmpint (g_ascii_strtoll (trend[3], NULL, 10), ==, f->sent.not_numbers);
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (trend[10], NULL),
                                    figure (root, "cart_value", "p95"), 1e-9);
    g_assert_true (g_str_has_prefix (lines[2], "logins_ok,rate,120,0,"));
    g_assert_true (g_str_has_prefix (lines[3], "orders,counter,120,0,120,"));
}

/*
 * 6 users × 20 iterations in three shards, then `throng merge`: the merged
 * figures are the whole run's (the trend's from the shards' histograms,
 * exactly), each the sum of the shards', and the threshold the shards
 * left to the merge fails it with 99.
 */
static void
test_shards (Fixture *f, gconstpointer data)
{
    (void) data;
    g_autofree char *yaml = plan_yaml (f, 6, 20, "");
    g_autofree char *plan = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
    gdouble orders = 0, invalid = 0, latest_value = 0;
    gint64 latest_time = -1;

    for (guint i = 0; i < 3; i++) {
        g_autofree char *shard = g_strdup_printf ("%u/3", i);
        char *path = g_strdup_printf ("%s/shard-%u.json", f->dir, i);
        g_autofree char *out = throng_test_out_arg ("json", path);
        g_autofree char *err = NULL;

        g_ptr_array_add (files, path);
        g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, NULL, &err, "run", plan, "--quiet",
                                           "--shard", shard, "--out", out, NULL),
                         ==, 0);
        g_autoptr (JsonNode) root = throng_test_json_load (path, NULL);
        orders += figure (root, "orders", "sum");
        invalid += figure (root, "cart_value", "invalid");
        /* the gauge the merge keeps is the shard's that recorded last */
        gint64 when = (gint64) figure (root, "last_total", "value_time_us");
        if (when > latest_time) {
            latest_time = when;
            latest_value = figure (root, "last_total", "value");
        }
    }
    g_assert_cmpfloat (orders, ==, N_VALUES);
    g_assert_cmpfloat (invalid, ==, f->sent.not_numbers);

    g_autofree char *merged_path = g_strdup_printf ("%s/merged.json", f->dir);
    g_autofree char *out = throng_test_out_arg ("json", merged_path);
    g_autofree char *err = NULL;
    const char *const argv[] = { "merge", g_ptr_array_index (files, 0), g_ptr_array_index (files, 1),
                                 g_ptr_array_index (files, 2), "--out", out, NULL };
    int status;
    g_assert_true (throng_test_run (argv, NULL, 60, &status, NULL, &err));
    g_assert_cmpint (status, ==, 99);
    g_assert_nonnull (strstr (err, "cart_value.p95 < 1"));

    g_autoptr (JsonNode) merged = throng_test_json_load (merged_path, NULL);
    assert_figures (merged, &f->sent);
    g_assert_cmpfloat (figure (merged, "last_total", "value"), ==, latest_value);
    g_assert_cmpint ((gint64) figure (merged, "last_total", "value_time_us"), ==, latest_time);
    assert_thresholds (merged);

    /* `throng report` of the merge carries them on, figure for figure */
    g_autofree char *again_path = g_strdup_printf ("%s/again.json", f->dir);
    g_autofree char *again_out = throng_test_out_arg ("json", again_path);
    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "report", merged_path, "--out", again_out,
                                       NULL),
                     ==, 0);
    g_autoptr (JsonNode) again = throng_test_json_load (again_path, NULL);
    assert_figures (again, &f->sent);

    /* and the HTML report of the merge has their table */
    g_autofree char *html_path = g_strdup_printf ("%s/merged.html", f->dir);
    g_autofree char *html_out = throng_test_out_arg ("html", html_path);
    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "report", merged_path, "--out", html_out,
                                       NULL),
                     ==, 0);
    g_autofree char *page = NULL;
    g_assert_true (g_file_get_contents (html_path, &page, NULL, NULL));
    const char *section = strstr (page, "<section id=\"metrics\">");
    g_assert_nonnull (section);
    g_assert_nonnull (strstr (section, "<td class=\"name\">cart_value</td><td>trend</td>"));
    g_assert_nonnull (strstr (section, "<td class=\"name\">logins_ok</td><td>rate</td><td>120</td>"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    /* recording is the core's, after either transport's extractors: both run it */
    g_test_add ("/custom-metrics/record/fast", Fixture, "fast", fixture_setup, test_record,
                fixture_teardown);
    g_test_add ("/custom-metrics/record/soup", Fixture, "soup", fixture_setup, test_record,
                fixture_teardown);
    g_test_add ("/custom-metrics/shards", Fixture, NULL, fixture_setup, test_shards,
                fixture_teardown);
    return g_test_run ();
}
