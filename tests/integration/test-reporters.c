/* SPDX-License-Identifier: MIT */
/*
 * The console, csv and json reporters.  Each plugin is loaded through the
 * registry and driven directly, configure → open → samples / snapshots →
 * close, with synthetic samples and a summary built from real histograms
 * of the same samples, so every figure a reporter writes has a known
 * right answer.  The CSV is read back with Python's csv module, as JTL
 * tools would; the JSON with json-glib.  The end-to-end cases run the
 * real binary against its built-in target.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "node-private.h"
#include "registry.h"
#include "metrics.h"
#include "test-utils.h"

#define N_SAMPLES 1000
#define START_WALL_US G_GINT64_CONSTANT (1764684001123456)   /* 2025-12-02T14:00:01.123Z */

/* --- a synthetic run --------------------------------------------------------- */

static const char *const step_labels_0[] = { "GET /", "add, \"to\" cart", NULL };
static const char *const step_protocols_0[] = { "http", "http", NULL };
static const char *const *const step_labels[] = { step_labels_0 };
static const char *const *const step_protocols[] = { step_protocols_0 };
static const char *const scenario_names[] = { "shop" };
static const guint scenario_users[] = { 4 };

/*
 * One scenario, two steps, N_SAMPLES samples: every 50th a refused
 * connection (no status), every 97th a 503, the rest 200s.  Summary stats
 * are recorded from the very same samples.
 */
typedef struct {
    ThrongRunInfo run;
    ThrongSample samples[N_SAMPLES];
    ThrongStepSummary steps[2];
    ThrongScenarioSummary scenario;
    ThrongSummary summary;
    const char *warnings[2];
    ThrongThresholdResult thresholds[2];
} FakeRun;

/* Longer than the buffer a CSV row is assembled in: "…a,a,a…" (quoted) or "…a/a/a…". */
static const char *
long_url (char separator)
{
    static char urls[2][1601];
    char *url = urls[separator == ','];

    if (url[0] == '\0') {
        memcpy (url, "https://127.0.0.1:8443/q?", 25);
        for (guint i = 25; i < sizeof urls[0] - 1; i++)
            url[i] = i % 2 ? 'a' : separator;
    }
    return url;
}

static FakeRun *
fake_run_new (void)
{
    FakeRun *fake = g_new0 (FakeRun, 1);

    fake->run = (ThrongRunInfo) {
        .size = sizeof (ThrongRunInfo),
        .plan_name = "reporters",
        .plan_file = "plans/reporters.yaml",
        .n_scenarios = 1,
        .scenario_names = scenario_names,
        .scenario_users = scenario_users,
        .step_labels = step_labels,
        .step_protocols = step_protocols,
        .planned_us = 3 * G_USEC_PER_SEC,
        .workers = 2,
    };

    throng_stats_init (&fake->scenario.stats);
    throng_stats_init (&fake->summary.total);
    for (guint s = 0; s < 2; s++) {
        fake->steps[s].label = step_labels_0[s];
        fake->steps[s].protocol = "http";
        throng_stats_init (&fake->steps[s].stats);
    }

    for (guint i = 0; i < N_SAMPLES; i++) {
        ThrongSample *sample = &fake->samples[i];
        guint user = i % 4;

        sample->scenario = 0;
        sample->step = i % 2;
        sample->user = user;
        sample->iteration = i / 8;
        /* A spread from 0.2 ms to ~80 ms, not sorted. */
        sample->elapsed_us = 200 + (gint64) ((i * 7919u) % 80000u);
        sample->latency_us = sample->elapsed_us / 2;
        sample->start_us = 1000 + i * 3000;
        sample->wall_start_us = START_WALL_US + i * 3000;
        sample->bytes_sent = 100 + i % 7;
        sample->bytes_received = 1000 + i % 13;
        sample->resource = sample->step == 0 ? "https://127.0.0.1:8443/"
                                             : "https://127.0.0.1:8443/cart?a=1,2";
        if (i == 500 || i == 501)
            sample->resource = long_url (i == 500 ? ',' : '/');
        if (i < 4) {
            /* The first request of each user opens a connection with a full handshake. */
            sample->connections_opened = 1;
            sample->handshakes_full = 1;
            sample->connect_us = 1500;
            sample->tls_us = 2600;
        }
        if (i % 50 == 49) {
            sample->error = THRONG_ERROR_CONNECT;
            sample->message = "Connection refused";
            sample->bytes_received = 0;
            sample->latency_us = 0;
        } else if (i % 97 == 96) {
            sample->status = 503;
            sample->error = THRONG_ERROR_STATUS;
            sample->message = "Service \"Temporarily\" Unavailable";
        } else {
            sample->status = 200;
            sample->message = "OK";
        }
        throng_stats_record (&fake->steps[sample->step].stats, sample);
        throng_stats_record (&fake->scenario.stats, sample);
        throng_stats_record (&fake->summary.total, sample);
    }

    fake->scenario.name = "shop";
    fake->scenario.users = 4;
    fake->scenario.active_users = 0;
    fake->scenario.iterations = N_SAMPLES / 2;
    fake->scenario.steps = fake->steps;
    fake->scenario.n_steps = 2;

    fake->warnings[0] = "throng used 97% of its CPU: the load generator may be the bottleneck";
    fake->thresholds[0] = (ThrongThresholdResult) { "shop.p99 < 200ms", "79.4ms", TRUE };
    fake->thresholds[1] = (ThrongThresholdResult) { "shop.errors.rate < 1%", "3.0%", FALSE };
    fake->summary = (ThrongSummary) {
        .size = sizeof (ThrongSummary),
        .plan_name = "reporters",
        .plan_file = "plans/reporters.yaml",
        .start_wall_us = START_WALL_US,
        .end_wall_us = START_WALL_US + 3 * G_USEC_PER_SEC,
        .elapsed_us = 3 * G_USEC_PER_SEC,
        .planned_us = 3 * G_USEC_PER_SEC,
        .cpu_user_us = 150000,
        .cpu_system_us = 50000,
        .cpu_share = 0.0333,
        .lag_p99_us = 1500,
        .loop_delay_max_us = 4200,
        .workers = 2,
        .total = fake->summary.total,
        .scenarios = &fake->scenario,
        .n_scenarios = 1,
        .warnings = fake->warnings,
        .thresholds = fake->thresholds,
        .n_thresholds = 2,
    };
    return fake;
}

static void
fake_run_free (FakeRun *fake)
{
    throng_stats_clear (&fake->summary.total);
    throng_stats_clear (&fake->scenario.stats);
    for (guint s = 0; s < 2; s++)
        throng_stats_clear (&fake->steps[s].stats);
    g_free (fake);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeRun, fake_run_free)

/*
 * A snapshot of one interval: the samples [from, to) with @active users.
 * Owns its histograms; free with snapshot_free().
 */
typedef struct {
    ThrongStepSummary steps[2];
    ThrongScenarioSummary scenario;
    ThrongSummary summary;
} FakeSnapshot;

static FakeSnapshot *
fake_snapshot_new (const FakeRun *fake, guint from, guint to, guint active, gint64 elapsed_us)
{
    FakeSnapshot *snap = g_new0 (FakeSnapshot, 1);

    throng_stats_init (&snap->scenario.stats);
    throng_stats_init (&snap->summary.total);
    for (guint s = 0; s < 2; s++) {
        snap->steps[s].label = step_labels_0[s];
        snap->steps[s].protocol = "http";
        throng_stats_init (&snap->steps[s].stats);
    }
    for (guint i = from; i < to; i++) {
        throng_stats_record (&snap->steps[fake->samples[i].step].stats, &fake->samples[i]);
        throng_stats_record (&snap->scenario.stats, &fake->samples[i]);
        throng_stats_record (&snap->summary.total, &fake->samples[i]);
    }
    snap->scenario.name = "shop";
    snap->scenario.users = 4;
    snap->scenario.active_users = active;
    snap->scenario.steps = snap->steps;
    snap->scenario.n_steps = 2;
    ThrongStats total = snap->summary.total;
    snap->summary = (ThrongSummary) {
        .size = sizeof (ThrongSummary),
        .plan_name = "reporters",
        .plan_file = "plans/reporters.yaml",
        .start_wall_us = START_WALL_US,
        .end_wall_us = START_WALL_US + elapsed_us,
        .elapsed_us = elapsed_us,
        .planned_us = 3 * G_USEC_PER_SEC,
        .interval_us = G_USEC_PER_SEC,
        .cpu_user_us = 50000,         /* over the interval */
        .cpu_system_us = 20000,
        .cpu_share = 0.07,
        .workers = 2,
        .total = total,
        .scenarios = &snap->scenario,
        .n_scenarios = 1,
    };
    return snap;
}

static void
fake_snapshot_free (FakeSnapshot *snap)
{
    throng_stats_clear (&snap->summary.total);
    throng_stats_clear (&snap->scenario.stats);
    for (guint s = 0; s < 2; s++)
        throng_stats_clear (&snap->steps[s].stats);
    g_free (snap);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeSnapshot, fake_snapshot_free)

/* --- plugins and options ----------------------------------------------------- */

static ThrongRegistry *registry;

static const ThrongReporter *
reporter_get (const char *name)
{
    g_autoptr (GError) error = NULL;
    const ThrongReporter *reporter = throng_registry_get_reporter (registry, name, &error);

    g_assert_no_error (error);
    g_assert_nonnull (reporter);
    g_assert_cmpstr (reporter->name, ==, name);
    return reporter;
}

/* The reporter's state configured from @yaml, or NULL with @error. */
static gpointer
reporter_configure (const ThrongReporter *reporter, const char *yaml, GError **error)
{
    g_autoptr (GError) local = NULL;
    /* A document of only "~" is an empty plan to the loader; a null value needs a key. */
    gboolean null = g_str_equal (yaml, "~\n");
    const char *text = null ? "r: ~\n" : yaml;
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("reporter.yaml", text, strlen (text), &local);

    g_assert_no_error (local);
    const ThrongNode *root = throng_tree_root (tree);
    return reporter->configure (null ? throng_node_lookup (root, "r") : root, error);
}

static gpointer
reporter_configure_ok (const ThrongReporter *reporter, const char *yaml)
{
    g_autoptr (GError) error = NULL;
    gpointer self = reporter_configure (reporter, yaml, &error);

    g_assert_no_error (error);
    g_assert_nonnull (self);
    return self;
}

static char *
options_with_path (const char *path, const char *extra)
{
    g_autofree char *quoted = g_strescape (path, NULL);

    return g_strdup_printf ("path: \"%s\"\n%s", quoted, extra != NULL ? extra : "");
}

/* Feeds a whole run: open, the samples in batches with a snapshot per third, close. */
static gboolean
reporter_drive (const ThrongReporter *reporter, gpointer self, FakeRun *fake, GError **error)
{
    if (!reporter->open (self, &fake->run, error))
        return FALSE;
    for (guint third = 0; third < 3; third++) {
        guint from = third * N_SAMPLES / 3;
        guint to = (third + 1) * N_SAMPLES / 3;
        if (reporter->samples != NULL)
            for (guint i = from; i < to; i += 100)
                reporter->samples (self, &fake->samples[i], MIN (100u, to - i));
        if (reporter->snapshot != NULL) {
            g_autoptr (FakeSnapshot) snap = fake_snapshot_new (fake, from, to, third == 2 ? 2 : 4,
                                                               (third + 1) * G_USEC_PER_SEC);
            reporter->snapshot (self, &snap->summary);
        }
    }
    return reporter->close (self, &fake->summary, error);
}

/* --- python ------------------------------------------------------------------ */

/* Runs python3 on @script with @args; asserts exit 0 and returns stdout.  NULL when skipped. */
static char *
run_python (const char *script, const char *const *args)
{
    g_autofree char *python = throng_test_require_program ("python3");
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    if (python == NULL)
        return NULL;
    g_ptr_array_add (argv, python);
    g_ptr_array_add (argv, (gpointer) "-c");
    g_ptr_array_add (argv, (gpointer) script);
    for (const char *const *a = args; *a != NULL; a++)
        g_ptr_array_add (argv, (gpointer) *a);
    g_ptr_array_add (argv, NULL);
    if (throng_test_process_run ((const char *const *) argv->pdata, NULL, 60, &out, &err) != 0)
        g_error ("python3 check failed:\n%s%s", out, err);
    return g_steal_pointer (&out);
}

/* --- csv ----------------------------------------------------------------------- */

static const char csv_check_script[] =
    "import csv, sys\n"
    "HEADER = ['timeStamp','elapsed','label','responseCode','responseMessage','threadName',"
    "'dataType','success','failureMessage','bytes','sentBytes','grpThreads','allThreads','URL',"
    "'Latency','IdleTime','Connect']\n"
    "with open(sys.argv[1], newline='') as f:\n"
    "    text = f.read()\n"
    "assert text.endswith('\\n'), 'torn last line'\n"
    "assert text.split('\\n', 1)[0] == ','.join(HEADER), text.split('\\n', 1)[0]\n"
    "rows = list(csv.reader(text.splitlines(keepends=True)))\n"
    "assert rows[0] == HEADER, rows[0]\n"
    "rows = [dict(zip(HEADER, r)) for r in rows[1:]]\n"
    "assert len(rows) == int(sys.argv[2]), len(rows)\n"
    "for i, r in enumerate(rows):\n"
    "    assert len(r) == 17\n"
    "    for k in ('timeStamp','elapsed','bytes','sentBytes','grpThreads','allThreads',"
    "'Latency','IdleTime','Connect'):\n"
    "        int(r[k])\n"
    "    assert r['success'] in ('true', 'false'), r['success']\n"
    "    assert r['dataType'] == 'text'\n"
    "    assert r['IdleTime'] == '0'\n"
    "    assert r['label'] in ('GET /', 'add, \"to\" cart'), r['label']\n"
    "    assert (r['success'] == 'true') == (r['failureMessage'] == ''), r\n"
    "for k in ('timeStamp','elapsed','Latency','Connect','responseCode','threadName','label',"
    "'failureMessage','URL','grpThreads','allThreads','responseMessage'):\n"
    "    for i in (0, 1, 49, 96, 500, 501, 999):\n"
    "        print(i, k, rows[i][k], sep='\\t')\n";

/* The checker's "INDEX\tCOLUMN\tVALUE" lines, as COLUMN/INDEX → VALUE. */
static GHashTable *
parse_fields (const char *out)
{
    GHashTable *fields = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    g_auto (GStrv) lines = g_strsplit (out, "\n", -1);

    for (char **line = lines; *line != NULL; line++) {
        g_auto (GStrv) parts = g_strsplit (*line, "\t", 3);
        if (g_strv_length (parts) != 3)
            continue;
        g_hash_table_insert (fields, g_strdup_printf ("%s/%s", parts[1], parts[0]),
                             g_strdup (parts[2]));
    }
    return fields;
}

static void
test_csv_rows (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *csv = reporter_get ("csv");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "results.csv", NULL);
    g_autofree char *options = options_with_path (path, NULL);
    g_autoptr (GError) error = NULL;
    gpointer self = reporter_configure_ok (csv, options);

    g_assert_true (csv->wants_samples (self));
    g_assert_true (reporter_drive (csv, self, fake, &error));
    g_assert_no_error (error);
    csv->free (self);

    g_autofree char *count = g_strdup_printf ("%d", N_SAMPLES);
    g_autofree char *out = run_python (csv_check_script, (const char *const[]) { path, count, NULL });
    if (out == NULL)
        return;
    g_autoptr (GHashTable) f = parse_fields (out);

    /* Epoch milliseconds, elapsed rounded to whole milliseconds. */
    g_assert_cmpstr (g_hash_table_lookup (f, "timeStamp/0"), ==, "1764684001123");
    g_assert_cmpstr (g_hash_table_lookup (f, "timeStamp/1"), ==, "1764684001126");
    g_assert_cmpstr (g_hash_table_lookup (f, "elapsed/0"), ==, "0");        /* 200 µs */
    g_assert_cmpstr (g_hash_table_lookup (f, "elapsed/1"), ==, "8");        /* 8119 µs */
    g_assert_cmpstr (g_hash_table_lookup (f, "Latency/1"), ==, "4");        /* 4059 µs */
    g_assert_cmpstr (g_hash_table_lookup (f, "Connect/0"), ==, "4");        /* 1.5 + 2.6 ms */
    g_assert_cmpstr (g_hash_table_lookup (f, "Connect/999"), ==, "0");
    g_assert_cmpstr (g_hash_table_lookup (f, "label/0"), ==, "GET /");
    g_assert_cmpstr (g_hash_table_lookup (f, "label/1"), ==, "add, \"to\" cart");
    g_assert_cmpstr (g_hash_table_lookup (f, "URL/1"), ==, "https://127.0.0.1:8443/cart?a=1,2");
    g_assert_cmpstr (g_hash_table_lookup (f, "URL/500"), ==, long_url (','));
    g_assert_cmpstr (g_hash_table_lookup (f, "URL/501"), ==, long_url ('/'));
    g_assert_cmpstr (g_hash_table_lookup (f, "threadName/501"), ==, "shop 1-2");
    g_assert_cmpstr (g_hash_table_lookup (f, "responseCode/0"), ==, "200");
    g_assert_cmpstr (g_hash_table_lookup (f, "responseMessage/0"), ==, "OK");
    g_assert_cmpstr (g_hash_table_lookup (f, "threadName/0"), ==, "shop 1-1");
    g_assert_cmpstr (g_hash_table_lookup (f, "threadName/999"), ==, "shop 1-4");
    g_assert_cmpstr (g_hash_table_lookup (f, "failureMessage/0"), ==, "");
    /* JMeter's form for a failure without a response. */
    g_assert_cmpstr (g_hash_table_lookup (f, "responseCode/49"), ==,
                     "Non HTTP response code: connect");
    g_assert_cmpstr (g_hash_table_lookup (f, "failureMessage/49"), ==,
                     "connect: Connection refused");
    g_assert_cmpstr (g_hash_table_lookup (f, "responseMessage/49"), ==,
                     "Non HTTP response message: Connection refused");
    g_assert_cmpstr (g_hash_table_lookup (f, "responseCode/96"), ==, "503");
    g_assert_cmpstr (g_hash_table_lookup (f, "responseMessage/96"), ==,
                     "Service \"Temporarily\" Unavailable");
    g_assert_cmpstr (g_hash_table_lookup (f, "failureMessage/96"), ==,
                     "status: 503 Service \"Temporarily\" Unavailable");
    /* Configured users until the first snapshot, then the snapshots' active users. */
    g_assert_cmpstr (g_hash_table_lookup (f, "grpThreads/0"), ==, "4");
    g_assert_cmpstr (g_hash_table_lookup (f, "allThreads/0"), ==, "4");
    g_assert_cmpstr (g_hash_table_lookup (f, "grpThreads/999"), ==, "4");
}

/*
 * `columns: jmeter-3.0`: the header and rows without sentBytes, which
 * JMeter 2.13 and 3.0 refuse in a header (their CSVSaveService knows no
 * such column); the other columns as in the default.
 */
static void
test_csv_columns_3_0 (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *csv = reporter_get ("csv");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "results.csv", NULL);
    g_autofree char *options = options_with_path (path, "columns: jmeter-3.0\n");
    g_autoptr (GError) error = NULL;
    gpointer self = reporter_configure_ok (csv, options);
    g_autofree char *text = NULL;

    g_assert_true (reporter_drive (csv, self, fake, &error));
    g_assert_no_error (error);
    csv->free (self);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_assert_cmpstr (lines[0], ==,
                     "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,"
                     "success,failureMessage,bytes,grpThreads,allThreads,URL,Latency,IdleTime,"
                     "Connect");
    /* Sample 0 (GET /, 200 OK) has no field that needs quotes: 16 fields, bytes then threads. */
    g_auto (GStrv) fields = g_strsplit (lines[1], ",", -1);
    g_assert_cmpuint (g_strv_length (fields), ==, 16);
    g_assert_cmpstr (fields[2], ==, "GET /");
    g_assert_cmpstr (fields[10], ==, "4");
    g_assert_cmpuint (g_strv_length (lines), ==, N_SAMPLES + 2);
}

/*
 * An open-model run against a fast target: at a snapshot no user may be
 * busy, yet every row comes from an active user, so grpThreads is at least
 * 1 and allThreads at least grpThreads.  The columns JMeter's report
 * generator reads keep its format: timeStamp and elapsed in whole
 * milliseconds, success as true or false.
 */
static void
test_csv_open_model_users (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "target: builtin\n"
                                                    "scenarios:\n"
                                                    "  - name: open\n"
                                                    "    executor: constant-arrival-rate\n"
                                                    "    rate: 100/s\n"
                                                    "    duration: 2500ms\n"
                                                    "    max_users: 20\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"${builtin.http}/\" }\n");
    g_autofree char *csv = g_build_filename (fixture->dir, "results.csv", NULL);
    g_autofree char *out_arg = g_strconcat ("csv=", csv, NULL);
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "run", plan, "--quiet", "--out", out_arg,
                                       NULL),
                     ==, 0);
    g_assert_true (g_file_get_contents (csv, &text, NULL, &error));
    g_assert_no_error (error);

    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr (GRegex) ms = g_regex_new ("^[0-9]{13}$", 0, 0, NULL);
    guint rows = 0;

    g_assert_true (g_str_has_prefix (lines[0], "timeStamp,elapsed,"));
    for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        /* No field of these rows is quoted: a plain split is exact. */
        g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);

        g_assert_cmpuint (g_strv_length (f), ==, 17);
        g_assert_true (g_regex_match (ms, f[0], 0, NULL));
        g_assert_true (g_ascii_string_to_unsigned (f[1], 10, 0, 60000, NULL, NULL));
        g_assert_true (strcmp (f[7], "true") == 0 || strcmp (f[7], "false") == 0);
        guint64 group = g_ascii_strtoull (f[11], NULL, 10);
        guint64 all = g_ascii_strtoull (f[12], NULL, 10);
        if (group < 1 || all < group)
            g_error ("row %u: grpThreads %s, allThreads %s", i, f[11], f[12]);
        rows++;
    }
    g_assert_cmpuint (rows, >=, 200);
}

static void
test_csv_overwrite (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *csv = reporter_get ("csv");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = throng_test_write_file (fixture->dir, "old.csv", "precious\n");
    g_autofree char *options = options_with_path (path, NULL);
    g_autofree char *options_overwrite = options_with_path (path, "overwrite: true\n");
    g_autoptr (GError) error = NULL;
    g_autofree char *expected = g_strdup_printf ("%s exists; set overwrite: true or pass --overwrite",
                                                 path);
    g_autofree char *contents = NULL;

    /* Refused, and the file is left alone. */
    gpointer self = reporter_configure_ok (csv, options);
    g_assert_false (csv->open (self, &fake->run, &error));
    g_assert_nonnull (error);
    g_assert_cmpstr (error->message, ==, expected);
    g_clear_error (&error);
    csv->free (self);
    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "precious\n");
    g_clear_pointer (&contents, g_free);

    /* --overwrite (the run's flag) allows it. */
    self = reporter_configure_ok (csv, options);
    fake->run.overwrite = TRUE;
    g_assert_true (csv->open (self, &fake->run, &error));
    g_assert_no_error (error);
    g_assert_true (csv->close (self, &fake->summary, &error));
    g_assert_no_error (error);
    csv->free (self);
    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_assert_true (g_str_has_prefix (contents, "timeStamp,elapsed,label,"));
    g_clear_pointer (&contents, g_free);

    /* So does the option. */
    fake->run.overwrite = FALSE;
    self = reporter_configure_ok (csv, options_overwrite);
    g_assert_true (reporter_drive (csv, self, fake, &error));
    g_assert_no_error (error);
    csv->free (self);
    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, N_SAMPLES + 2);   /* header, rows, "" */
}

/* A full disk shows at close, where the core can still make it exit status 4. */
static void
test_csv_dev_full (void)
{
    const ThrongReporter *csv = reporter_get ("csv");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autoptr (GError) error = NULL;

    if (!throng_test_require_file ("/dev/full"))
        return;
    gpointer self = reporter_configure_ok (csv, "path: /dev/full\n");
    g_assert_false (reporter_drive (csv, self, fake, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
    g_assert_cmpstr (error->message, ==, "cannot write /dev/full: No space left on device");
    csv->free (self);
}

/* A missing directory fails at open, before any load would be sent. */
static void
test_csv_bad_directory (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *csv = reporter_get ("csv");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "missing", "r.csv", NULL);
    g_autofree char *options = options_with_path (path, NULL);
    g_autoptr (GError) error = NULL;
    /* The file is written as PATH.tmp until the run has started. */
    g_autofree char *expected = g_strdup_printf ("cannot open %s.tmp: No such file or directory",
                                                 path);

    gpointer self = reporter_configure_ok (csv, options);
    g_assert_false (csv->open (self, &fake->run, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_assert_cmpstr (error->message, ==, expected);
    csv->free (self);
}

/* --- options of every reporter -------------------------------------------------- */

typedef struct {
    const char *reporter;
    const char *yaml;
    ThrongPlanError code;
    const char *message;    /* exact, or a prefix when it ends in '*' */
} BadOptions;

static const BadOptions bad_options[] = {
    { "csv", "{}\n", THRONG_PLAN_ERROR_MISSING, "reporter.yaml:1:1: the csv reporter needs a 'path'" },
    { "csv", "~\n", THRONG_PLAN_ERROR_MISSING, "reporter.yaml:1:4: the csv reporter needs a 'path'" },
    { "csv", "path: a.csv\npaht: b.csv\n", THRONG_PLAN_ERROR_UNKNOWN_KEY, "reporter.yaml:2:1: *" },
    { "csv", "path: a.csv\noverwrite: maybe\n", THRONG_PLAN_ERROR_TYPE, "reporter.yaml:2:12: *" },
    { "json", "overwrite: true\n", THRONG_PLAN_ERROR_MISSING,
      "reporter.yaml:1:1: the json reporter needs a 'path'" },
    { "json", "path: a.json\nmode: xml\n", THRONG_PLAN_ERROR_INVALID, "reporter.yaml:2:7: *" },
    { "json", "path: a.json\nsamples: true\n", THRONG_PLAN_ERROR_INVALID,
      "reporter.yaml:2:10: 'samples: true' needs 'mode: jsonl'; a summary holds no samples" },
    { "console", "interval: 10\n", THRONG_PLAN_ERROR_TYPE, "reporter.yaml:1:11: *" },
    { "console", "interval: 100ms\n", THRONG_PLAN_ERROR_RANGE, "reporter.yaml:1:11: *" },
    { "console", "progress: sometimes\n", THRONG_PLAN_ERROR_INVALID, "reporter.yaml:1:11: *" },
    { "console", "colour: never\n", THRONG_PLAN_ERROR_UNKNOWN_KEY, "reporter.yaml:1:1: *" },
};

static void
test_options_bad (gconstpointer data)
{
    const BadOptions *bad = data;
    const ThrongReporter *reporter = reporter_get (bad->reporter);
    g_autoptr (GError) error = NULL;
    gsize length = strlen (bad->message);

    g_assert_null (reporter_configure (reporter, bad->yaml, &error));
    g_assert_nonnull (error);
    g_test_message ("%s", error->message);
    g_assert_true (error->domain == THRONG_PLAN_ERROR);
    if (bad->message[length - 1] == '*') {
        g_autofree char *prefix = g_strndup (bad->message, length - 1);
        g_assert_true (g_str_has_prefix (error->message, prefix));
    } else
        g_assert_cmpstr (error->message, ==, bad->message);
    /* The options helper owns the exact codes of type errors; ours are exact. */
    if (bad->message[length - 1] != '*')
        g_assert_cmpint (error->code, ==, bad->code);
}

/* An absent, null or empty map is "all defaults" for the console; no side effects. */
static void
test_options_defaults (void)
{
    const ThrongReporter *console = reporter_get ("console");
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (GError) error = NULL;

    for (guint i = 0; i < 3; i++) {
        const char *yaml = (const char *[]) { "{}\n", "~\n", "interval: 5s\nprogress: never\n" }[i];
        gpointer self = reporter_configure_ok (console, yaml);
        g_assert_false (console->wants_samples (self));
        console->free (self);
    }
    gpointer self = console->configure (NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (self);
    console->free (self);

    /* configure touches nothing: `throng validate` calls it. */
    self = reporter_configure_ok (json, "path: /nonexistent/dir/x.json\n");
    g_assert_false (json->wants_samples (self));
    json->free (self);
    self = reporter_configure_ok (json, "path: x.jsonl\nmode: jsonl\n");
    g_assert_false (json->wants_samples (self));
    json->free (self);
    self = reporter_configure_ok (json, "path: x.jsonl\nmode: jsonl\nsamples: true\n");
    g_assert_true (json->wants_samples (self));
    json->free (self);
    g_assert_false (g_file_test ("x.jsonl", G_FILE_TEST_EXISTS));
}

/* --- json ----------------------------------------------------------------------- */

static void
assert_iso_time (const char *text)
{
    g_assert_true (g_regex_match_simple ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$", text,
                                         0, 0));
}

/* A STATS object agrees with the stats it was written from. */
static void
assert_stats (JsonNode *root, const char *prefix, const ThrongStats *stats, gdouble seconds)
{
    g_autofree char *p = NULL;
#define AT(suffix) (g_free (p), p = g_strconcat (prefix, ".", suffix, NULL))
    g_assert_cmpint (throng_test_json_int (root, AT ("requests")), ==, (gint64) stats->requests);
    g_assert_cmpint (throng_test_json_int (root, AT ("errors")), ==, (gint64) stats->errors);
    g_assert_cmpint (throng_test_json_int_or (root, AT ("errors_by_class.connect"), 0), ==,
                     (gint64) stats->errors_by_class[THRONG_ERROR_CONNECT]);
    g_assert_cmpint (throng_test_json_int_or (root, AT ("errors_by_class.status"), 0), ==,
                     (gint64) stats->errors_by_class[THRONG_ERROR_STATUS]);
    g_assert_false (throng_test_json_has (root, AT ("errors_by_class.dns")));
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, AT ("rps")),
                                    (gdouble) stats->requests / seconds, 1e-6);
    g_assert_cmpint (throng_test_json_int (root, AT ("bytes_sent")), ==, (gint64) stats->bytes_sent);
    g_assert_cmpint (throng_test_json_int (root, AT ("bytes_received")), ==,
                     (gint64) stats->bytes_received);
    g_assert_cmpint (throng_test_json_int (root, AT ("connections")), ==, (gint64) stats->connections);
    g_assert_cmpint (throng_test_json_int (root, AT ("handshakes.full")), ==,
                     (gint64) stats->handshakes_full);
    g_assert_cmpint (throng_test_json_int (root, AT ("handshakes.resumed")), ==,
                     (gint64) stats->handshakes_resumed);

    const char *keys[] = { "min", "p50", "p90", "p95", "p99", "max" };
    gint64 previous = 0;
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++) {
        g_autofree char *key = g_strconcat ("latency_us.", keys[k], NULL);
        gint64 value = throng_test_json_int (root, AT (key));
        g_assert_cmpint (value, >=, previous);
        previous = value;
    }
    g_assert_cmpint (throng_test_json_int (root, AT ("latency_us.min")), ==,
                     throng_histogram_min (stats->latency));
    g_assert_cmpint (throng_test_json_int (root, AT ("latency_us.p99")), ==,
                     throng_histogram_percentile (stats->latency, 99));
    g_assert_cmpint (throng_test_json_int (root, AT ("latency_us.max")), ==,
                     throng_histogram_max (stats->latency));
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, AT ("latency_us.mean")),
                                    throng_histogram_mean (stats->latency), 1e-6);

    /* The histogram reads back to the same distribution. */
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongHistogram) back
        = throng_histogram_deserialize (throng_test_json_string (root, AT ("latency_us.histogram")),
                                        &error);
    g_assert_no_error (error);
    g_assert_cmpuint (throng_histogram_count (back), ==, stats->requests);
    g_assert_cmpint (throng_histogram_percentile (back, 90), ==,
                     throng_histogram_percentile (stats->latency, 90));
    g_assert_true (throng_test_json_has (root, AT ("handshake_us.p99")));
    g_assert_true (throng_test_json_has (root, AT ("handshake_us.histogram")));
#undef AT
}

static void
test_json_summary (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
    g_autofree char *options = options_with_path (path, NULL);
    g_autoptr (GError) error = NULL;
    gpointer self = reporter_configure_ok (json, options);

    g_assert_true (json->open (self, &fake->run, &error));
    g_assert_no_error (error);
    /* Nothing is published before the end. */
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    g_assert_true (json->close (self, &fake->summary, &error));
    g_assert_no_error (error);
    json->free (self);
    g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));

    g_autoptr (JsonNode) root = throng_test_json_load (path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "version"), ==, 1);
    g_assert_cmpstr (throng_test_json_string (root, "plan.name"), ==, "reporters");
    g_assert_cmpstr (throng_test_json_string (root, "plan.file"), ==, "plans/reporters.yaml");
    g_assert_cmpstr (throng_test_json_string (root, "start"), ==, "2025-12-02T14:00:01.123Z");
    assert_iso_time (throng_test_json_string (root, "end"));
    g_assert_cmpstr (throng_test_json_string (root, "end"), ==, "2025-12-02T14:00:04.123Z");
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "duration_s"), 3.0, 1e-9);
    g_assert_false (throng_test_json_bool (root, "interrupted"));
    g_assert_cmpint (throng_test_json_int (root, "workers"), ==, 2);
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "cpu.user_s"), 0.15, 1e-9);
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "cpu.system_s"), 0.05, 1e-9);
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "cpu.per_request_us"),
                                    200000.0 / N_SAMPLES, 1e-9);

    assert_stats (root, "total", &fake->summary.total, 3.0);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, N_SAMPLES);
    g_assert_cmpint (throng_test_json_int (root, "total.errors_by_class.connect"), ==, 20);
    g_assert_cmpint (throng_test_json_int (root, "total.errors_by_class.status"), ==, 10);
    g_assert_cmpuint (throng_test_json_length (root, "scenarios"), ==, 1);
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.name"), ==, "shop");
    /* A run info without targets: the member is there, null. */
    JsonNode *no_target = throng_test_json_get (root, "scenarios.0.target");
    g_assert_nonnull (no_target);
    g_assert_true (JSON_NODE_HOLDS_NULL (no_target));
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.users"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.iterations"), ==, N_SAMPLES / 2);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.dropped_iterations"), ==, 0);
    g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "cpu_share"), 0.0333, 1e-9);
    g_assert_cmpint (throng_test_json_int (root, "lag_p99_us"), ==, 1500);
    g_assert_cmpint (throng_test_json_int (root, "loop_delay_max_us"), ==, 4200);
    g_assert_false (throng_test_json_bool (root, "saturated"));
    g_assert_cmpint (throng_test_json_int (root, "samples_dropped"), ==, 0);
    assert_stats (root, "scenarios.0.stats", &fake->scenario.stats, 3.0);
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==, 2);
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.1.label"), ==,
                     "add, \"to\" cart");
    g_assert_cmpstr (throng_test_json_string (root, "scenarios.0.steps.1.protocol"), ==, "http");
    assert_stats (root, "scenarios.0.steps.0.stats", &fake->steps[0].stats, 3.0);
    assert_stats (root, "scenarios.0.steps.1.stats", &fake->steps[1].stats, 3.0);
    g_assert_cmpuint (throng_test_json_length (root, "warnings"), ==, 1);
    g_assert_cmpstr (throng_test_json_string (root, "warnings.0"), ==, fake->warnings[0]);
    g_assert_cmpuint (throng_test_json_length (root, "thresholds"), ==, 2);
    g_assert_cmpstr (throng_test_json_string (root, "thresholds.1.expression"), ==,
                     "shop.errors.rate < 1%");
    g_assert_cmpstr (throng_test_json_string (root, "thresholds.1.actual"), ==, "3.0%");
    g_assert_false (throng_test_json_bool (root, "thresholds.1.passed"));
    g_assert_true (throng_test_json_bool (root, "thresholds.0.passed"));
}

/* The JSON's percentiles agree with the CSV's elapsed column, within the histogram's error. */
static const char percentile_script[] =
    "import csv, json, math, sys\n"
    "with open(sys.argv[1], newline='') as f:\n"
    "    elapsed = sorted(int(r['elapsed']) for r in csv.DictReader(f))\n"
    "with open(sys.argv[2]) as f:\n"
    "    doc = json.load(f)\n"
    "lat = doc['total']['latency_us']\n"
    "assert doc['total']['requests'] == len(elapsed), (doc['total']['requests'], len(elapsed))\n"
    "for p in (50, 90, 95, 99):\n"
    "    exact = elapsed[max(0, math.ceil(p / 100 * len(elapsed)) - 1)]\n"
    "    got = lat['p%d' % p] / 1000\n"
    "    # 1% histogram error, 0.5 ms of rounding in the CSV, one neighbouring sample.\n"
    "    assert abs(got - exact) <= 0.01 * exact + 0.5 + 0.1 * 80, (p, got, exact)\n"
    "    print(p, got, exact)\n"
    "assert abs(lat['max'] / 1000 - elapsed[-1]) <= 0.01 * elapsed[-1] + 0.5\n"
    "assert abs(lat['min'] / 1000 - elapsed[0]) <= 0.5 + 0.01\n"
    "assert abs(lat['mean'] / 1000 - sum(elapsed) / len(elapsed)) <= 0.5 + 0.01 * lat['mean'] / 1000\n";

static void
test_json_matches_csv (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *csv = reporter_get ("csv");
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *csv_path = g_build_filename (fixture->dir, "r.csv", NULL);
    g_autofree char *json_path = g_build_filename (fixture->dir, "r.json", NULL);
    g_autofree char *csv_options = options_with_path (csv_path, NULL);
    g_autofree char *json_options = options_with_path (json_path, NULL);
    g_autoptr (GError) error = NULL;

    gpointer self = reporter_configure_ok (csv, csv_options);
    g_assert_true (reporter_drive (csv, self, fake, &error));
    g_assert_no_error (error);
    csv->free (self);
    self = reporter_configure_ok (json, json_options);
    g_assert_true (reporter_drive (json, self, fake, &error));
    g_assert_no_error (error);
    json->free (self);

    g_autofree char *out = run_python (percentile_script,
                                       (const char *const[]) { csv_path, json_path, NULL });
    if (out != NULL)
        g_test_message ("%s", out);
}

static void
test_json_lines (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    gboolean with_samples = GPOINTER_TO_INT (data);
    g_autofree char *options = options_with_path (path, with_samples ? "mode: jsonl\nsamples: true\n"
                                                                     : "mode: jsonl\n");
    g_autoptr (GError) error = NULL;
    g_autofree char *contents = NULL;

    gpointer self = reporter_configure_ok (json, options);
    g_assert_true (json->wants_samples (self) == with_samples);
    g_assert_true (reporter_drive (json, self, fake, &error));
    g_assert_no_error (error);
    json->free (self);

    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_assert_true (g_str_has_suffix (contents, "}\n"));
    g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
    guint n_lines = g_strv_length (lines) - 1;
    guint n_samples = 0, n_intervals = 0;
    g_assert_cmpuint (n_lines, ==, (with_samples ? N_SAMPLES : 0) + 3 + 1);

    for (guint i = 0; i < n_lines; i++) {
        g_autoptr (JsonParser) parser = json_parser_new ();
        g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
        g_assert_no_error (error);
        JsonNode *root = json_parser_get_root (parser);
        const char *type = throng_test_json_string (root, "type");

        if (g_str_equal (type, "sample")) {
            const ThrongSample *sample = &fake->samples[n_samples];
            g_assert_cmpint (throng_test_json_int (root, "elapsed_us"), ==, sample->elapsed_us);
            g_assert_cmpstr (throng_test_json_string (root, "scenario"), ==, "shop");
            g_assert_cmpstr (throng_test_json_string (root, "step"), ==,
                             step_labels_0[sample->step]);
            g_assert_cmpint (throng_test_json_int (root, "status"), ==, sample->status);
            g_assert_true (throng_test_json_bool (root, "success")
                           == (sample->error == THRONG_ERROR_NONE));
            assert_iso_time (throng_test_json_string (root, "time"));
            if (n_samples == 96)
                g_assert_cmpstr (throng_test_json_string (root, "message"), ==,
                                 "Service \"Temporarily\" Unavailable");
            if (n_samples == 49)
                g_assert_cmpstr (throng_test_json_string (root, "error"), ==, "connect");
            n_samples++;
        } else if (g_str_equal (type, "interval")) {
            n_intervals++;
            g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "elapsed_s"),
                                            n_intervals, 1e-9);
            g_assert_cmpfloat_with_epsilon (throng_test_json_double (root, "interval_s"), 1.0, 1e-9);
            g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==,
                             (n_intervals * N_SAMPLES / 3) - ((n_intervals - 1) * N_SAMPLES / 3));
            g_assert_cmpint (throng_test_json_int (root, "active_users"), ==,
                             n_intervals == 3 ? 2 : 4);
            g_assert_cmpint (throng_test_json_int (root, "scenarios.0.active_users"), ==,
                             n_intervals == 3 ? 2 : 4);
            assert_iso_time (throng_test_json_string (root, "time"));
        } else {
            /* The summary comes last and only once. */
            g_assert_cmpstr (type, ==, "summary");
            g_assert_cmpuint (i, ==, n_lines - 1);
            g_assert_cmpint (throng_test_json_int (root, "version"), ==, 1);
            assert_stats (root, "total", &fake->summary.total, 3.0);
        }
    }
    g_assert_cmpuint (n_samples, ==, with_samples ? N_SAMPLES : 0);
    g_assert_cmpuint (n_intervals, ==, 3);
}

static void
test_json_overwrite (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = throng_test_write_file (fixture->dir, "old.json", "{}");
    g_autofree char *options = options_with_path (path, NULL);
    g_autofree char *expected = g_strdup_printf ("%s exists; set overwrite: true or pass --overwrite",
                                                 path);
    g_autoptr (GError) error = NULL;

    for (guint mode = 0; mode < 2; mode++) {
        g_autofree char *yaml = options_with_path (path, mode == 0 ? NULL : "mode: jsonl\n");
        gpointer self = reporter_configure_ok (json, yaml);
        g_assert_false (json->open (self, &fake->run, &error));
        g_assert_nonnull (error);
        g_assert_cmpstr (error->message, ==, expected);
        g_clear_error (&error);
        json->free (self);
    }

    fake->run.overwrite = TRUE;
    gpointer self = reporter_configure_ok (json, options);
    g_assert_true (reporter_drive (json, self, fake, &error));
    g_assert_no_error (error);
    json->free (self);
    g_autoptr (JsonNode) root = throng_test_json_load (path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, N_SAMPLES);
}

/* Write errors surface from close; an atomic summary leaves nothing behind when it fails. */
static void
test_json_close_errors (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autoptr (GError) error = NULL;

    if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
        gpointer self = reporter_configure_ok (json, "path: /dev/full\nmode: jsonl\nsamples: true\n");
        g_assert_false (reporter_drive (json, self, fake, &error));
        g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
        g_assert_cmpstr (error->message, ==, "cannot write /dev/full: No space left on device");
        g_clear_error (&error);
        json->free (self);
    }

    g_autofree char *dir = g_build_filename (fixture->dir, "gone", NULL);
    g_autofree char *path = g_build_filename (dir, "summary.json", NULL);
    g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
    g_autofree char *options = options_with_path (path, NULL);
    g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
    gpointer self = reporter_configure_ok (json, options);
    g_assert_true (json->open (self, &fake->run, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (tmp, G_FILE_TEST_EXISTS));
    /* The directory disappears under the run: the rename cannot happen. */
    g_assert_cmpint (g_unlink (tmp), ==, 0);
    g_assert_cmpint (g_rmdir (dir), ==, 0);
    g_assert_false (json->close (self, &fake->summary, &error));
    g_assert_nonnull (error);
    g_test_message ("%s", error->message);
    g_assert_true (strstr (error->message, path) != NULL);
    json->free (self);
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A reporter whose run failed to start is freed without close and leaves no file. */
static void
test_json_free_without_close (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *path = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
    g_autofree char *options = options_with_path (path, NULL);
    g_autoptr (GError) error = NULL;

    gpointer self = reporter_configure_ok (json, options);
    g_assert_true (json->open (self, &fake->run, &error));
    g_assert_no_error (error);
    json->free (self);
    g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/*
 * Histograms in the JSON merge exactly: the first half of a run and the
 * second, each through its own summary, merged, read like the whole run.
 */
static void
test_json_histograms_merge (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const ThrongReporter *json = reporter_get ("json");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongHistogram) merged = throng_histogram_new ();
    g_autoptr (JsonNode) whole = NULL;

    for (guint part = 0; part < 3; part++) {
        /* Parts 0 and 1 are the halves; part 2 the whole run. */
        guint from = part == 1 ? N_SAMPLES / 2 : 0;
        guint to = part == 0 ? N_SAMPLES / 2 : N_SAMPLES;
        g_autoptr (FakeSnapshot) snap = fake_snapshot_new (fake, from, to, 0, 3 * G_USEC_PER_SEC);
        g_autofree char *name = g_strdup_printf ("part%u.json", part);
        g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
        g_autofree char *options = options_with_path (path, NULL);

        snap->summary.interval_us = 0;
        gpointer self = reporter_configure_ok (json, options);
        g_assert_true (json->open (self, &fake->run, &error));
        g_assert_true (json->close (self, &snap->summary, &error));
        g_assert_no_error (error);
        json->free (self);

        g_autoptr (JsonNode) root = throng_test_json_load (path, &error);
        g_assert_no_error (error);
        if (part < 2) {
            g_autoptr (ThrongHistogram) h = throng_histogram_deserialize (
                throng_test_json_string (root, "total.latency_us.histogram"), &error);
            g_assert_no_error (error);
            throng_histogram_merge (merged, h);
        } else {
            whole = g_steal_pointer (&root);
        }
    }

    g_autofree char *text = throng_histogram_serialize (merged);
    g_assert_cmpstr (text, ==, throng_test_json_string (whole, "total.latency_us.histogram"));
    g_assert_cmpuint (throng_histogram_count (merged), ==, N_SAMPLES);
    g_assert_cmpint (throng_histogram_percentile (merged, 99), ==,
                     throng_test_json_int (whole, "total.latency_us.p99"));
    g_assert_cmpint (throng_histogram_min (merged), ==, throng_test_json_int (whole, "total.latency_us.min"));
    g_assert_cmpint (throng_histogram_max (merged), ==, throng_test_json_int (whole, "total.latency_us.max"));
}

/* --- console -------------------------------------------------------------------- */

/* Runs in a subprocess: stdout is then a pipe, which is how CI sees throng. */
static void
console_run_child (const char *options)
{
    const ThrongReporter *console = reporter_get ("console");
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autoptr (GError) error = NULL;
    gpointer self = reporter_configure_ok (console, options);

    g_assert_true (reporter_drive (console, self, fake, &error));
    g_assert_no_error (error);
    console->free (self);
}

/*
 * In the subprocess, drives the console with @options and returns FALSE;
 * in the test, runs that subprocess, asserts it passed, and returns TRUE:
 * the test then matches its stdout.
 */
static gboolean
console_trapped (const char *options)
{
    if (g_test_subprocess ()) {
        console_run_child (options);
        return FALSE;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    return TRUE;
}

static void
test_console_summary (void)
{
    if (!console_trapped ("interval: 1s\n"))
        return;
    /* The preamble, then one plain progress line per interval (1 s here), then the summary. */
    g_test_trap_assert_stdout ("throng running reporters: 1 scenario, 4 users, 2 workers, planned 3.00s\n*");
    g_test_trap_assert_stdout ("*\n[1.00s / 3.00s]  4 users  333 req/s  p99 79.4ms  9 errors  conn 4/s  tls 4/s  cpu 7%  (9 errors so far)\n*");
    g_test_trap_assert_stdout ("*\n[3.00s / 3.00s]  2 users  334 req/s  p99 *");
    g_test_trap_assert_stdout ("*completed in 3.00s, 2025-12-02 14:00:01 to 14:00:04 UTC, 2 workers*");
    /* Requests, rate, errors and their share, bytes, connections and handshakes per row. */
    g_test_trap_assert_stdout ("*\n  shop (4 users, 500 iterations)  *1000  333/s  *30  3.00%  *986 kB  *103 kB  *4  *4  *0\n*");
    g_test_trap_assert_stdout ("*\n    GET /  *500  167/s  *5  1.00%  *503 kB  51.5 kB  *2  *2  *0\n*");
    g_test_trap_assert_stdout ("*\n    add, \"to\" cart  *500  167/s  *25  5.00%*");
    /* Latency in human units. */
    g_test_trap_assert_stdout ("*\n  latency  *min  *mean  *p50  *p90  *p95  *p99  *max\n*");
    g_test_trap_assert_stdout ("*\n  shop (4 users, 500 iterations)  *200µs  40.2ms  40.2ms  72.2ms  76.3ms  79.4ms  80.2ms\n*");
    /* Each class of each step: how many, and the first message of the class. */
    g_test_trap_assert_stdout ("*\n  errors                   class    count  first message\n"
                               "    shop / GET /           status       5  Service \"Temporarily\" Unavailable\n"
                               "    shop / add, \"to\" cart  connect     20  Connection refused\n"
                               "    shop / add, \"to\" cart  status       5  Service \"Temporarily\" Unavailable\n*");
    g_test_trap_assert_stdout ("*\n    pass  shop.p99 < 200ms       actual 79.4ms\n    FAIL  shop.errors.rate < 1%  actual 3.0%\n*");
    g_test_trap_assert_stdout ("*throng  200µs CPU per request, 150ms user + 50.0ms system, 3% of its cores\n          schedule lag p99 1.50ms, event-loop delay max 4.20ms\n*");
    g_test_trap_assert_stdout ("*warning: throng used 97% of its CPU*");
    /* Not a terminal: no colour, no carriage returns. */
    g_test_trap_assert_stdout_unmatched ("*\033*");
    g_test_trap_assert_stdout_unmatched ("*\r*");
}

static void
test_console_interval (void)
{
    if (!console_trapped ("interval: 2s\n"))
        return;
    /* One line per 2 s, aggregated: the first covers two snapshots. */
    g_test_trap_assert_stdout ("*\n[2.00s / 3.00s]  4 users  333 req/s  p99 79.4ms  19 errors  conn 2/s  tls 2/s  cpu 7%  (19 errors so far)\n*");
    g_test_trap_assert_stdout_unmatched ("*\n[1.00s*");
    g_test_trap_assert_stdout_unmatched ("*\n[3.00s*");
}

static void
test_console_live (void)
{
    if (!console_trapped ("progress: always\n"))
        return;
    g_test_trap_assert_stdout ("*\r1.00s / 3.00s [=======>            ]  33%  4 users  333 req/s  p99 *");
    g_test_trap_assert_stdout ("*\r3.00s / 3.00s [====================] 100%  2 users *  30 errors  *");
    g_test_trap_assert_stdout_unmatched ("*\033*");
}

static void
test_console_never (void)
{
    if (!console_trapped ("progress: never\n"))
        return;
    g_test_trap_assert_stdout_unmatched ("*req/s*");
    g_test_trap_assert_stdout ("*completed in 3.00s*");
}

/*
 * A scenario with checks: each progress line adds their rate over its
 * interval (992 of 1000 in the first, none made in the second: "-");
 * a scenario without checks (the tests above) shows none.
 */
static void
test_console_checks (void)
{
    if (g_test_subprocess ()) {
        const ThrongReporter *console = reporter_get ("console");
        g_autoptr (FakeRun) fake = fake_run_new ();
        g_autoptr (GError) error = NULL;
        gpointer self = reporter_configure_ok (console, "interval: 1s\n");
        ThrongCheckSummary checks[2] = { { .name = "status is 200", .passes = 500 },
                                         { .name = "$.state equals ok", .passes = 492,
                                           .fails = 8 } };
        ThrongScenarioJourney journey = { .size = sizeof journey, .checks = checks,
                                          .n_checks = 2 };

        g_assert_true (console->open (self, &fake->run, &error));
        for (guint second = 1; second <= 2; second++) {
            g_autoptr (FakeSnapshot) snap = fake_snapshot_new (
                fake, (second - 1) * N_SAMPLES / 3, second * N_SAMPLES / 3, 4,
                second * G_USEC_PER_SEC);
            snap->scenario.journey = &journey;
            console->snapshot (self, &snap->summary);
            memset (checks, 0, sizeof checks);
            checks[0].name = "status is 200";
            checks[1].name = "$.state equals ok";
        }
        g_assert_true (console->close (self, &fake->summary, &error));
        g_assert_no_error (error);
        console->free (self);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    g_test_trap_assert_stdout ("*\n[1.00s / 3.00s]  4 users  333 req/s  p99 79.4ms  9 errors  checks 99.2%  conn 4/s*");
    g_test_trap_assert_stdout ("*\n[2.00s / 3.00s]  4 users  * errors  checks -  conn *");
}

/* --quiet reaches the console as ThrongRunInfo.quiet: no progress even when asked for, the summary still. */
static void
test_console_quiet (void)
{
    if (g_test_subprocess ()) {
        const ThrongReporter *console = reporter_get ("console");
        g_autoptr (FakeRun) fake = fake_run_new ();
        g_autoptr (GError) error = NULL;
        gpointer self = reporter_configure_ok (console, "progress: always\n");

        g_assert_true (THRONG_STRUCT_HAS (&fake->run, ThrongRunInfo, quiet));
        fake->run.quiet = TRUE;
        g_assert_true (reporter_drive (console, self, fake, &error));
        g_assert_no_error (error);
        console->free (self);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    g_test_trap_assert_stdout_unmatched ("*req/s*");
    g_test_trap_assert_stdout_unmatched ("*\r*");
    g_test_trap_assert_stdout ("*completed in 3.00s*");
}

/* A run that measured nothing (every user failed at once, or SIGINT at the start) still reports. */
static void
test_empty_run (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autoptr (FakeRun) fake = fake_run_new ();
    g_autofree char *csv_path = g_build_filename (fixture->dir, "empty.csv", NULL);
    g_autofree char *json_path = g_build_filename (fixture->dir, "empty.json", NULL);
    g_autofree char *csv_options = options_with_path (csv_path, NULL);
    g_autofree char *json_options = options_with_path (json_path, NULL);
    ThrongScenarioSummary scenario = { .name = "shop", .users = 4 };
    ThrongSummary summary = {
        .size = sizeof (ThrongSummary),
        .plan_name = "reporters",
        .start_wall_us = START_WALL_US,
        .end_wall_us = START_WALL_US,
        .workers = 1,
        .scenarios = &scenario,
        .n_scenarios = 1,
        .interrupted = TRUE,
    };
    g_autoptr (GError) error = NULL;
    g_autofree char *contents = NULL;

    if (g_test_subprocess ()) {
        const ThrongReporter *console = reporter_get ("console");
        gpointer self = reporter_configure_ok (console, "{}\n");
        g_assert_true (console->open (self, &fake->run, &error));
        g_assert_true (console->close (self, &summary, &error));
        g_assert_no_error (error);
        console->free (self);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    g_test_trap_assert_stdout ("*interrupted in 0µs*\n  shop (4 users, 0 iterations)  *0   0/s  *0  *-  *0 B   0 B  *0  *0  *0\n*");

    const ThrongReporter *csv = reporter_get ("csv");
    gpointer self = reporter_configure_ok (csv, csv_options);
    g_assert_true (csv->open (self, &fake->run, &error));
    g_assert_true (csv->close (self, &summary, &error));
    g_assert_no_error (error);
    csv->free (self);
    g_assert_true (g_file_get_contents (csv_path, &contents, NULL, NULL));
    g_assert_true (g_str_has_prefix (contents, "timeStamp,"));
    g_assert_nonnull (strchr (contents, '\n'));
    g_assert_cmpstr (strchr (contents, '\n'), ==, "\n");

    const ThrongReporter *json = reporter_get ("json");
    self = reporter_configure_ok (json, json_options);
    g_assert_true (json->open (self, &fake->run, &error));
    g_assert_true (json->close (self, &summary, &error));
    g_assert_no_error (error);
    json->free (self);
    g_autoptr (JsonNode) root = throng_test_json_load (json_path, &error);
    g_assert_no_error (error);
    g_assert_true (throng_test_json_bool (root, "interrupted"));
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.latency_us.p99"), ==, 0);
    g_assert_cmpfloat (throng_test_json_double (root, "total.rps"), ==, 0);
    g_assert_cmpfloat (throng_test_json_double (root, "cpu.per_request_us"), ==, 0);
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==, 0);
}

/* --- end to end ---------------------------------------------------------------- */

/* A printf format; %s is the http transport. */
#define E2E_PLAN                                                                                  \
    "name: reporters-e2e\n" \
    "target: builtin\n" \
    "defaults:\n" \
    "  http: { transport: %s }\n" \
    "scenarios:\n" \
    "  - name: browse, \"quoted\"\n" \
    "    users: 3\n" \
    "    iterations: 20\n" \
    "    steps:\n" \
    "      - http: { method: GET, url: \"${builtin.http}/\" }\n" \
    "      - name: second, \"step\"\n" \
    "        http: { method: GET, url: \"${builtin.http}/\" }\n"

static const char e2e_script[] =
    "import csv, json, sys\n"
    "with open(sys.argv[1], newline='') as f:\n"
    "    rows = list(csv.DictReader(f))\n"
    "with open(sys.argv[2]) as f:\n"
    "    doc = json.load(f)\n"
    "assert len(rows) == doc['total']['requests'] == 120, (len(rows), doc['total']['requests'])\n"
    "labels = sorted(set(r['label'] for r in rows))\n"
    "assert labels == ['GET /', 'second, \"step\"'], labels\n"
    "assert all(r['threadName'].startswith('browse, \"quoted\" 1-') for r in rows)\n"
    "assert all(r['success'] == 'true' and r['responseCode'] == '200' for r in rows)\n"
    "print(len(rows))\n";

/*
 * The end-to-end plans are valid: a plan that `throng validate` refuses
 * fails the test, with throng's message, before any run.
 */
static gboolean
plan_validates (const char *plan)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (30, &out, &err, "validate", plan, NULL);

    if (status != 0) {
        g_test_fail_printf ("throng validate %s exited %d: %s", plan, status, err);
        return FALSE;
    }
    return TRUE;
}

static char *
e2e_write_plan (const char *dir, const char *transport)
{
    g_autofree char *yaml = g_strdup_printf (E2E_PLAN, transport);

    return throng_test_write_plan (dir, "plan.yaml", yaml);
}

static void
test_e2e_csv_json (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *transport = data;
    g_autofree char *plan = e2e_write_plan (fixture->dir, transport);
    g_autofree char *csv_path = g_build_filename (fixture->dir, "run.csv", NULL);
    g_autofree char *json_path = g_build_filename (fixture->dir, "run.json", NULL);
    g_autofree char *csv_out = throng_test_out_arg ("csv", csv_path);
    g_autofree char *json_out = throng_test_out_arg ("json", json_path);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    if (!plan_validates (plan))
        return;
    int status = throng_test_runv (60, &out, &err, "run", plan, "--out", csv_out, "--out", json_out,
                                   NULL);
    g_test_message ("stdout:\n%s\nstderr:\n%s", out, err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);
    /* The console summary (the plan names no reporter) shows the same count. */
    g_assert_true (strstr (out, "120") != NULL);

    /* Each script asserts what it checks; their output is only for the log. */
    g_free (run_python (e2e_script, (const char *const[]) { csv_path, json_path, NULL }));
    g_free (run_python (percentile_script, (const char *const[]) { csv_path, json_path, NULL }));

    /* A second run refuses to overwrite, before any load, with exit status 3. */
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", "--out", csv_out, NULL);
    g_assert_cmpint (status, ==, 3);
    g_assert_true (strstr (err, "exists; set overwrite: true or pass --overwrite") != NULL);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", "--overwrite", "--out",
                               csv_out, NULL);
    g_assert_cmpint (status, ==, 0);
}

/* Rows of a CSV written with a last "step_id" column, counted per step_id (the header skipped). */
static void
count_csv_step_ids (const char *path, guint64 *counts, guint n_counts)
{
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_assert_true (g_str_has_suffix (lines[0], ",Connect,\"step_id\""));
    memset (counts, 0, n_counts * sizeof *counts);
    for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
        guint64 id = g_ascii_strtoull (strrchr (lines[i], ',') + 1, NULL, 10);

        g_assert_cmpuint (id, <, n_counts);
        counts[id]++;
    }
}

/*
 * Two steps of a scenario with one label (issue 33): the csv adds the
 * step_id column (step_id: auto), whose rows per step equal the JSON
 * summary's requests of each step, and so does the csv that `throng
 * report` writes from the jsonl samples, which name their step_id; the
 * console's rows are named `GET / [0]` and `GET / [2]`.
 */
static void
test_e2e_repeated_labels (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *csv = g_build_filename (fixture->dir, "run.csv", NULL);
    g_autofree char *jsonl = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *reported = g_build_filename (fixture->dir, "reported.csv", NULL);
    g_autofree char *yaml = g_strdup_printf (
        "name: repeated\n"
        "target: builtin\n"
        "defaults:\n"
        "  http: { base_url: \"${builtin.http}\" }\n"
        "scenarios:\n"
        "  - name: page\n"
        "    users: 2\n"
        "    iterations: 15\n"
        "    steps:\n"
        "      - http: { url: / }\n"
        "      - http: { url: /status/404 }\n"
        "      - http: { url: / }\n"
        "reporters:\n"
        "  - csv: { path: \"%s\" }\n"
        "  - json: { path: \"%s\", mode: jsonl, samples: true }\n",
        csv, jsonl);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) summary = throng_test_run_summary (fixture->dir, yaml, NULL, 60, 0, &err);
    guint64 counts[3];

    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 90);
    count_csv_step_ids (csv, counts, G_N_ELEMENTS (counts));
    for (guint i = 0; i < G_N_ELEMENTS (counts); i++) {
        g_autofree char *path = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", i);
        g_assert_cmpuint (counts[i], ==, (guint64) throng_test_json_int (summary, path));
    }

    g_autofree char *out_arg = throng_test_out_arg ("csv", reported);
    g_autofree char *out = NULL;
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (60, &out, &err, "report", jsonl, "--out", out_arg, NULL), ==,
                     0);
    count_csv_step_ids (reported, counts, G_N_ELEMENTS (counts));
    for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
        g_assert_cmpuint (counts[i], ==, 30);

    /* The console names the two `GET /` by step_id as every reporter does, the other by its label. */
    g_autofree char *plain = g_strndup (yaml, (gsize) (strstr (yaml, "reporters:\n") - yaml));
    g_autofree char *console_yaml = g_strconcat (plain, "reporters:\n  - console: {}\n", NULL);
    g_autofree char *console_plan = g_build_filename (fixture->dir, "console.yaml", NULL);
    g_assert_true (g_file_set_contents (console_plan, console_yaml, -1, NULL));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", console_plan, NULL), ==, 0);
    g_assert_cmpuint (throng_test_count (out, "    GET / [0] "), ==, 2);
    g_assert_cmpuint (throng_test_count (out, "    GET / [2] "), ==, 2);
    g_assert_cmpuint (throng_test_count (out, "    GET /status/404 "), ==, 2);
    g_assert_null (strstr (out, "GET / [1]"));
    g_assert_null (strstr (out, "GET /status/404 ["));
    g_assert_null (strstr (out, "(step_id"));
}

/* A 2.1 s run against the built-in target, written as jsonl. */
static const char final_interval_plan[] =
    "name: final-interval\n"
    "target: builtin\n"
    "defaults:\n"
    "  http: { base_url: \"${builtin.http}\" }\n"
    "scenarios:\n"
    "  - name: s\n"
    "    users: 2\n"
    "    duration: 2100ms\n"
    "    think_time: 5ms\n"
    "    steps:\n"
    "      - http: { url: / }\n"
    "      - http: { url: /status/503 }\n";

/* The last, partial interval is written: the intervals add up to the summary exactly. */
static void
test_json_final_interval (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = g_build_filename (fixture->dir, "run.jsonl", NULL);
    g_autofree char *yaml = g_strdup_printf ("%sreporters:\n  - json: { path: \"%s\", mode: "
                                             "jsonl }\n", final_interval_plan, path);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL, *text = NULL;

    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 0);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr (ThrongHistogram) latency = throng_histogram_new ();
    g_autoptr (JsonNode) summary = NULL;
    gint64 requests = 0, errors = 0, step_requests[2] = { 0 };
    gdouble seconds = 0, last_interval = 0;
    guint intervals = 0;

    for (char **line = lines; *line != NULL && **line != '\0'; line++) {
        JsonNode *node = json_from_string (*line, NULL);
        g_assert_nonnull (node);
        if (strcmp (throng_test_json_string (node, "type"), "summary") == 0) {
            summary = node;
            continue;
        }
        intervals++;
        requests += throng_test_json_int (node, "total.requests");
        errors += throng_test_json_int (node, "total.errors");
        for (guint i = 0; i < 2; i++) {
            g_autofree char *member = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", i);
            step_requests[i] += throng_test_json_int (node, member);
        }
        last_interval = throng_test_json_double (node, "interval_s");
        seconds += last_interval;
        g_autoptr (ThrongHistogram) part = throng_histogram_deserialize (
            throng_test_json_string (node, "total.latency_us.histogram"), NULL);
        g_assert_nonnull (part);
        throng_histogram_merge (latency, part);
        json_node_unref (node);
    }
    g_assert_nonnull (summary);
    /* Two whole seconds and the last 0.1 s. */
    g_assert_cmpuint (intervals, ==, 3);
    g_assert_cmpfloat (last_interval, <, 0.5);
    g_assert_cmpfloat (last_interval, >, 0);
    g_assert_cmpfloat_with_epsilon (seconds, throng_test_json_double (summary, "duration_s"), 0.05);
    g_assert_cmpint (requests, ==, throng_test_json_int (summary, "total.requests"));
    g_assert_cmpint (errors, ==, throng_test_json_int (summary, "total.errors"));
    g_assert_cmpint (errors, >, 0);
    for (guint i = 0; i < 2; i++) {
        g_autofree char *member = g_strdup_printf ("scenarios.0.steps.%u.stats.requests", i);
        g_assert_cmpint (step_requests[i], ==, throng_test_json_int (summary, member));
    }
    /* The histograms too: merged, the intervals' is the summary's, bucket for bucket. */
    g_autofree char *merged = throng_histogram_serialize (latency);
    g_assert_cmpstr (merged, ==, throng_test_json_string (summary, "total.latency_us.histogram"));

    /* The core hashes the plan it loaded and hands the hash to reporters. */
    g_autofree char *plan_text = NULL;
    gsize plan_length = 0;
    g_assert_true (g_file_get_contents (plan, &plan_text, &plan_length, NULL));
    g_autofree char *sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                           (const guchar *) plan_text, plan_length);
    g_assert_cmpstr (throng_test_json_string (summary, "plan.sha256"), ==, sha256);

    /* What the scenario loads, as the http plugin describes its steps: their origin. */
    const char *target = throng_test_json_string (summary, "scenarios.0.target");
    g_assert_true (g_str_has_prefix (target, "http://127.0.0.1:"));
    g_assert_null (strchr (target + strlen ("http://"), '/'));
}

/* A run that cannot start leaves an existing result file as it was, in both modes. */
static void
test_json_failed_start (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const char *const modes[] = { "jsonl", "summary" };

    for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
        g_autofree char *path = throng_test_write_file (fixture->dir, "run.json",
                                                        "the previous run\n");
        g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
        g_autofree char *yaml = g_strdup_printf (
            "%sreporters:\n  - json: { path: \"%s\", mode: %s, overwrite: true }\n"
            "  - csv: { path: \"%s/no/such/dir/run.csv\" }\n",
            final_interval_plan, path, modes[m], fixture->dir);
        g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
        g_autofree char *out = NULL, *err = NULL, *text = NULL;

        g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 3);
        g_assert_nonnull (strstr (err, "no/such/dir/run.csv"));
        g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
        g_assert_cmpstr (text, ==, "the previous run\n");
        g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
    }
}

/* Likewise the csv reporter, opened before the reporter whose open fails. */
static void
test_csv_failed_start (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *path = throng_test_write_file (fixture->dir, "run.csv", "the previous run\n");
    g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
    g_autofree char *yaml = g_strdup_printf (
        "%sreporters:\n  - csv: { path: \"%s\", overwrite: true }\n"
        "  - json: { path: \"%s/no/such/dir/run.json\" }\n",
        final_interval_plan, path, fixture->dir);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *out = NULL, *err = NULL, *text = NULL;

    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", plan, "--quiet", NULL), ==, 3);
    g_assert_nonnull (strstr (err, "no/such/dir/run.json"));
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "the previous run\n");
    g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));

    /* The same plan with a good json path replaces the file once the run has started. */
    g_autofree char *good = g_strdup_printf (
        "%sreporters:\n  - csv: { path: \"%s\", overwrite: true }\n", final_interval_plan,
        path);
    g_autofree char *good_plan = throng_test_write_plan (fixture->dir, "good.yaml", good);
    g_clear_pointer (&text, g_free);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (60, &out, &err, "run", good_plan, "--quiet", NULL), ==, 0);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_assert_true (g_str_has_prefix (text, "timeStamp,elapsed,label,"));
    g_assert_cmpuint (throng_test_count_lines (text), >, 10);
    g_assert_false (g_file_test (tmp, G_FILE_TEST_EXISTS));
}

/* A full disk under the csv reporter is exit status 4, with the reason. */
static void
test_e2e_dev_full (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *plan = e2e_write_plan (fixture->dir, "soup");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    if (!plan_validates (plan))
        return;
    int status = throng_test_runv (60, &out, &err, "run", plan, "--quiet", "--out", "csv=/dev/full",
                                   NULL);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 4);
    g_assert_true (strstr (err, "cannot write /dev/full: No space left on device") != NULL);
}

/* SIGINT mid-run: both files complete, the same count in each, and exit status 130. */
static const char interrupt_script[] =
    "import csv, json, sys\n"
    "with open(sys.argv[1], newline='') as f:\n"
    "    text = f.read()\n"
    "assert text.endswith('\\n'), 'torn last line'\n"
    "rows = list(csv.DictReader(text.splitlines(keepends=True)))\n"
    "with open(sys.argv[2]) as f:\n"
    "    doc = json.load(f)\n"
    "assert doc['interrupted'] is True\n"
    "assert len(rows) == doc['total']['requests'] > 0, (len(rows), doc['total']['requests'])\n"
    "assert doc['duration_s'] < 8, doc['duration_s']\n"
    "print(len(rows))\n";

static void
test_e2e_interrupt (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "name: interrupted\n"
                                                    "target: builtin\n"
                                                    "defaults:\n"
                                                    "  http: { transport: soup }\n"
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 2\n"
                                                    "    duration: 20s\n"
                                                    "    think_time: 5ms\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"${builtin.http}/\" }\n");
    g_autofree char *csv_path = g_build_filename (fixture->dir, "run.csv", NULL);
    g_autofree char *json_path = g_build_filename (fixture->dir, "run.json", NULL);
    g_autofree char *csv_out = throng_test_out_arg ("csv", csv_path);
    g_autofree char *json_out = throng_test_out_arg ("json", json_path);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;

    if (!plan_validates (plan))
        return;
    g_autoptr (ThrongTestProcess) process = throng_test_spawn (
        (const char *const[]) { "run", plan, "--quiet", "--out", csv_out, "--out", json_out, NULL },
        NULL);
    throng_test_wait_started ();
    throng_test_process_signal (process, SIGINT);
    g_assert_true (throng_test_process_wait (process, 60, &status, &out, &err));
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 130);
    g_free (run_python (interrupt_script, (const char *const[]) { csv_path, json_path, NULL }));
}

/* Under a pseudo-terminal (script(1)) the console rewrites one line with \r. */
static void
test_e2e_console_tty (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *script = throng_test_require_program ("script");
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "name: tty\n"
                                                    "target: builtin\n"
                                                    "defaults:\n"
                                                    "  http: { transport: soup }\n"
                                                    "scenarios:\n"
                                                    "  - name: s\n"
                                                    "    users: 2\n"
                                                    "    duration: 2500ms\n"
                                                    "    think_time: 10ms\n"
                                                    "    steps:\n"
                                                    "      - http: { url: \"${builtin.http}/\" }\n");
    ThrongTestSpawnOptions in_dir = { .cwd = fixture->dir };
    g_autofree char *command = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    if (script == NULL)
        return;
    if (!plan_validates (plan))
        return;
    g_autofree char *quoted_exe = g_shell_quote (throng_test_exe ());
    g_autofree char *quoted_plan = g_shell_quote (plan);
    command = g_strdup_printf ("NO_COLOR= TERM=xterm %s run %s", quoted_exe, quoted_plan);
    const char *argv[] = { script, "-qfec", command, "/dev/null", NULL };
    g_assert_cmpint (throng_test_process_run (argv, &in_dir, 60, &out, &err), ==, 0);
    g_test_message ("%s", out);
    g_assert_true (strstr (out, "\r") != NULL);
    g_assert_true (g_regex_match_simple ("\r[^\r\n]*\\d+(\\.\\d+)?s / 2\\.50s \\[", out, 0, 0));
    /* On a terminal with colour allowed, the summary is styled. */
    g_assert_true (strstr (out, "\033[1m") != NULL);

    /* NO_COLOR turns colour off, and the live line stays. */
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&command, g_free);
    command = g_strdup_printf ("NO_COLOR=1 TERM=xterm %s run %s", quoted_exe, quoted_plan);
    argv[2] = command;
    g_assert_cmpint (throng_test_process_run (argv, &in_dir, 60, &out, &err), ==, 0);
    g_assert_true (strstr (out, "\r") != NULL);
    g_assert_null (strstr (out, "\033["));
}

/* ------------------------------------------------------------------------------ */

int
main (int argc, char **argv)
{
    const char *build = g_getenv ("THRONG_BUILD_DIR");

    g_test_init (&argc, &argv, NULL);
    if (build != NULL) {
        g_autofree char *path = g_strdup_printf ("%s/plugins/console:%s/plugins/csv:%s/plugins/json",
                                                 build, build, build);
        g_setenv ("THRONG_PLUGIN_PATH", path, TRUE);
    }
    /* The summary's expectations are written without colour. */
    g_setenv ("NO_COLOR", "1", TRUE);
    registry = throng_registry_new ();

    g_test_add ("/reporters/csv/rows", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_csv_rows, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/csv/columns-3.0", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_csv_columns_3_0, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/csv/open-model-users", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_csv_open_model_users, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/csv/overwrite", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_csv_overwrite, throng_test_tmpdir_teardown);
    g_test_add_func ("/reporters/csv/dev-full", test_csv_dev_full);
    g_test_add ("/reporters/csv/bad-directory", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_csv_bad_directory, throng_test_tmpdir_teardown);
    for (gsize i = 0; i < G_N_ELEMENTS (bad_options); i++) {
        g_autofree char *name = g_strdup_printf ("/reporters/options/bad/%s/%" G_GSIZE_FORMAT,
                                                 bad_options[i].reporter, i);
        g_test_add_data_func (name, &bad_options[i], test_options_bad);
    }
    g_test_add_func ("/reporters/options/defaults", test_options_defaults);
    g_test_add ("/reporters/json/summary", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_json_summary, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/matches-csv", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_json_matches_csv, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/histograms-merge", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_json_histograms_merge, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/jsonl/intervals", ThrongTestTmpdir, GINT_TO_POINTER (FALSE),
                throng_test_tmpdir_setup, test_json_lines, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/jsonl/samples", ThrongTestTmpdir, GINT_TO_POINTER (TRUE),
                throng_test_tmpdir_setup, test_json_lines, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/jsonl/final-interval", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_json_final_interval, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/failed-start", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_json_failed_start, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/csv/failed-start", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_csv_failed_start, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/overwrite", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_json_overwrite, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/close-errors", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_json_close_errors, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/json/free-without-close", ThrongTestTmpdir, NULL,
                throng_test_tmpdir_setup, test_json_free_without_close, throng_test_tmpdir_teardown);
    g_test_add_func ("/reporters/console/summary", test_console_summary);
    g_test_add_func ("/reporters/console/interval", test_console_interval);
    g_test_add_func ("/reporters/console/live", test_console_live);
    g_test_add_func ("/reporters/console/never", test_console_never);
    g_test_add_func ("/reporters/console/quiet", test_console_quiet);
    g_test_add_func ("/reporters/console/checks", test_console_checks);
    g_test_add ("/reporters/empty-run", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_empty_run, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/csv-json/soup", ThrongTestTmpdir, "soup", throng_test_tmpdir_setup,
                test_e2e_csv_json, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/csv-json/fast", ThrongTestTmpdir, "fast", throng_test_tmpdir_setup,
                test_e2e_csv_json, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/repeated-labels", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_e2e_repeated_labels, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/dev-full", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_e2e_dev_full, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/interrupt", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_e2e_interrupt, throng_test_tmpdir_teardown);
    g_test_add ("/reporters/e2e/console-tty", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_e2e_console_tty, throng_test_tmpdir_teardown);

    int status = g_test_run ();
    throng_registry_free (registry);
    return status;
}
