/* SPDX-License-Identifier: MIT */
/*
 * Bounded memory (issue 6, item 4), in the slow suite.  The real throng
 * binary runs against an nginx of its own while this test samples the
 * process's resident set (VmRSS of /proc/PID/status) and its open
 * descriptors every second:
 *
 * - /soak/steady: 60 s at a constant 2000 requests/s; the resident set
 *   at 60 s is within 5% of the one at 20 s, whatever the requests done
 *   in between (about 80,000).
 * - /soak/per-user: two runs, of 100 and of 9,900 users, each user
 *   holding a keep-alive connection and thinking 5 s between requests;
 *   the difference of the two plateaus divided by the 9,800 users added
 *   is the memory of one mostly idle user, which must stay under 50 KiB
 *   (docs/memory.md).
 *
 * 9,900 and not 10,000: throng asks for two descriptors per user plus 64
 * at start, and this machine's hard open-file limit is 20,000.
 */
#include "test-utils.h"

#include <string.h>
#include <sys/resource.h>

typedef struct {
    double t_s;     /* since the spawn */
    guint64 rss_kib;
    guint fds;
} Sample;

typedef struct {
    ThrongTestProcess *proc;
    char *pid;
    gint64 start_us;
    GArray *samples;
    char *err;
} Monitor;

static guint64
read_rss_kib (const char *pid)
{
    g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
    g_autofree char *text = NULL;
    const char *line;

    if (!g_file_get_contents (path, &text, NULL, NULL))
        return 0;
    line = strstr (text, "\nVmRSS:");
    if (line == NULL)
        return 0;
    return g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10);
}

static guint
count_fds (const char *pid)
{
    g_autofree char *path = g_strdup_printf ("/proc/%s/fd", pid);
    g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
    guint n = 0;

    if (dir == NULL)
        return 0;
    while (g_dir_read_name (dir) != NULL)
        n++;
    return n;
}

static gboolean
on_sample (gpointer data)
{
    Monitor *monitor = data;
    Sample sample;

    sample.t_s = (g_get_monotonic_time () - monitor->start_us) / 1e6;
    sample.rss_kib = read_rss_kib (monitor->pid);
    sample.fds = count_fds (monitor->pid);
    /* 0: the process is exiting, or gone */
    if (sample.rss_kib > 0)
        g_array_append_val (monitor->samples, sample);
    return G_SOURCE_CONTINUE;
}

/*
 * Runs `throng run PLAN --quiet --out json=SUMMARY`, sampling it every
 * second until it exits (or is killed by PID after @timeout_s).  Returns
 * its exit status.
 */
static int
run_sampled (Monitor *monitor, const char *plan, const char *summary, guint timeout_s)
{
    g_auto (GStrv) argv = throng_test_run_args (plan, summary);
    int status = -1;

    memset (monitor, 0, sizeof *monitor);
    monitor->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
    monitor->proc = throng_test_spawn ((const char *const *) argv, NULL);
    monitor->start_us = g_get_monotonic_time ();
    monitor->pid = g_strdup (throng_test_process_pid (monitor->proc));
    throng_test_process_every (monitor->proc, 1000, on_sample, monitor);
    throng_test_process_wait (monitor->proc, timeout_s, &status, NULL, &monitor->err);
    g_test_message ("exit %d, %u samples; stderr: %s", status, monitor->samples->len,
                    monitor->err);
    return status;
}

static void
monitor_clear (Monitor *monitor)
{
    g_clear_pointer (&monitor->proc, throng_test_process_free);
    g_clear_pointer (&monitor->pid, g_free);
    g_clear_pointer (&monitor->samples, g_array_unref);
    g_clear_pointer (&monitor->err, g_free);
}

/* The sample nearest @t_s. */
static const Sample *
sample_at (const Monitor *monitor, double t_s)
{
    const Sample *best = NULL;

    for (guint i = 0; i < monitor->samples->len; i++) {
        const Sample *s = &g_array_index (monitor->samples, Sample, i);
        if (best == NULL || ABS (s->t_s - t_s) < ABS (best->t_s - t_s))
            best = s;
    }
    g_assert_nonnull (best);
    g_assert_cmpfloat (ABS (best->t_s - t_s), <, 1.5);
    return best;
}

/* The mean resident set of the samples in [@from_s, @to_s], and their fewest descriptors. */
static double
mean_rss (const Monitor *monitor, double from_s, double to_s, guint *min_fds)
{
    double total = 0;
    guint n = 0;

    *min_fds = G_MAXUINT;
    for (guint i = 0; i < monitor->samples->len; i++) {
        const Sample *s = &g_array_index (monitor->samples, Sample, i);
        if (s->t_s < from_s || s->t_s > to_s)
            continue;
        total += s->rss_kib;
        *min_fds = MIN (*min_fds, s->fds);
        n++;
    }
    g_assert_cmpuint (n, >=, 2);
    return total / n;
}

static void
log_samples (const Monitor *monitor)
{
    for (guint i = 0; i < monitor->samples->len; i++) {
        const Sample *s = &g_array_index (monitor->samples, Sample, i);
        g_test_message ("t=%5.1fs rss=%" G_GUINT64_FORMAT " KiB fds=%u", s->t_s, s->rss_kib,
                        s->fds);
    }
}

/*
 * run_sampled() for a run that must succeed: its samples in the log, exit
 * 0, nothing GLib or a sanitizer would flag, and its summary, returned.
 */
static JsonNode *
run_sampled_ok (Monitor *monitor, const char *plan, const char *summary, guint timeout_s)
{
    g_autoptr (GError) error = NULL;
    int status = run_sampled (monitor, plan, summary, timeout_s);
    JsonNode *root;

    log_samples (monitor);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (monitor->err);
    root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    return root;
}

/* ---- 60 s at steady load -------------------------------------------------- */

static void
test_steady (ThrongTestTmpdir *fixture, gconstpointer data)
{
    ThrongTestNginxConfig config = { .keepalive_requests = 1000000 };
    Monitor monitor;

    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;

    g_autofree char *yaml = g_strdup_printf ("name: soak\n"
                                             "scenarios:\n"
                                             "  - name: steady\n"
                                             "    executor: constant-arrival-rate\n"
                                             "    rate: 2000/s\n"
                                             "    duration: 60s\n"
                                             "    max_users: 50\n"
                                             "    http: {base_url: '%s'}\n"
                                             "    steps:\n"
                                             "      - http: {url: /}\n",
                                             throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    JsonNode *root = run_sampled_ok (&monitor, plan, summary, 120);

    gint64 requests = throng_test_json_int (root, "total.requests");
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* the load was what the plan asked: 120,000 requests, give or take the start */
    g_assert_cmpint (requests, >=, 114000);
    g_assert_cmpint (requests, <=, 121000);
    json_node_unref (root);

    const Sample *at20 = sample_at (&monitor, 20.0);
    const Sample *at60 = sample_at (&monitor, 59.0);
    guint64 most = 0;
    for (guint i = 0; i < monitor.samples->len; i++) {
        const Sample *s = &g_array_index (monitor.samples, Sample, i);
        if (s->t_s >= 20.0 && s->t_s <= 59.5)
            most = MAX (most, s->rss_kib);
    }
    double growth = ((double)at60->rss_kib - (double)at20->rss_kib) / (double)at20->rss_kib;
    /* for docs/memory.md */
    g_test_message ("steady: rss %" G_GUINT64_FORMAT " KiB at %.1fs, %" G_GUINT64_FORMAT
                    " KiB at %.1fs (growth %.2f%%), peak %" G_GUINT64_FORMAT
                    " KiB; %" G_GINT64_FORMAT " requests",
                    at20->rss_kib, at20->t_s, at60->rss_kib, at60->t_s, growth * 100, most,
                    requests);
    g_assert_cmpfloat (growth, <, 0.05);
    g_assert_cmpuint (most, <, at20->rss_kib * 105 / 100 + 1);
    monitor_clear (&monitor);
}

/* ---- memory per mostly idle user ----------------------------------------- */

/*
 * One run of @users users against @base_url, each connecting on its first
 * request and keeping the connection through its 5 s pauses; returns
 * the mean resident set of the plateau (all users started and connected)
 * and checks that the connections were really held.
 */
static double
idle_plateau (const char *dir, guint users, const char *base_url)
{
    Monitor monitor;
    guint fds;

    g_autofree char *yaml = g_strdup_printf ("name: idle users\n"
                                             "scenarios:\n"
                                             "  - name: idle\n"
                                             "    users: %u\n"
                                             "    duration: 25s\n"
                                             "    ramp_up: 10s\n"
                                             "    think_time: 5s\n"
                                             "    graceful_stop: 0s\n"
                                             "    http: {base_url: '%s'}\n"
                                             "    steps:\n"
                                             "      - http: {url: /}\n",
                                             users, base_url);
    g_autofree char *name = g_strdup_printf ("plan-%u.yaml", users);
    g_autofree char *plan = throng_test_write_plan (dir, name, yaml);
    g_autofree char *summary_name = g_strdup_printf ("summary-%u.json", users);
    g_autofree char *summary = g_build_filename (dir, summary_name, NULL);
    JsonNode *root = run_sampled_ok (&monitor, plan, summary, 120);

    gint64 requests = throng_test_json_int (root, "total.requests");
    gint64 connections = throng_test_json_int (root, "total.connections");
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* kept alive: one connection per user, not one per request */
    g_assert_cmpint (connections, >=, users);
    g_assert_cmpint (connections, <=, users + users / 10);
    g_assert_cmpint (requests, >=, 3 * (gint64)users);
    json_node_unref (root);

    /*
     * Every user has started by 10 s and connects on its first request,
     * which it makes at once; by 20 s the first users may be stopping.
     */
    double rss = mean_rss (&monitor, 12.0, 19.0, &fds);
    g_test_message ("idle: %u users: %.0f KiB (%u fds at least), %" G_GINT64_FORMAT
                    " requests, %" G_GINT64_FORMAT " connections",
                    users, rss, fds, requests, connections);
    g_assert_cmpuint (fds, >=, users);
    monitor_clear (&monitor);
    return rss;
}

static void
test_per_user (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const guint low = 100, high = 9900;
    /*
     * nginx for 10,000 connections (the fixture's default allows 4096), and
     * no access log: 2000 lines a second would only cost disk.
     */
    ThrongTestNginxConfig config = {
        .worker_connections = 12000,
        .worker_rlimit_nofile = 16000,
        .listen_backlog = 8192,
        .keepalive_requests = 1000000,
        .keepalive_timeout = "300s",
        .no_access_log = TRUE,
    };
    g_autoptr (GError) error = NULL;
    struct rlimit limit;

    if (!throng_test_require_nginx ())
        return;
    /* both children inherit it: throng's and nginx's 10,000 descriptors */
    g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 2 * high + 64) {
        g_test_skip ("the hard open-file limit is too low for 9,900 users");
        return;
    }
    limit.rlim_cur = limit.rlim_max;
    g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_start (&config, &error);
    g_assert_no_error (error);

    /*
     * Two runs of the same plan but for the users: what throng needs
     * whatever the users (code, threads, the plugins, the TLS library)
     * cancels out.  One run ramping from 100 to 9,900 would not do: the
     * engine sizes a scenario for its largest number of users at start.
     */
    double low_rss = idle_plateau (fixture->dir, low, throng_test_nginx_http_url (nginx));
    double high_rss = idle_plateau (fixture->dir, high, throng_test_nginx_http_url (nginx));
    double per_user_kib = (high_rss - low_rss) / (high - low);

    g_clear_pointer (&nginx, throng_test_nginx_stop);
    /* for docs/memory.md */
    g_test_message ("per-user: %.0f KiB with %u users, %.0f KiB with %u users: %.1f KiB per user",
                    low_rss, low, high_rss, high, per_user_kib);
    g_assert_cmpfloat (per_user_kib, >, 0);
    g_assert_cmpfloat (per_user_kib, <, 50.0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add ("/soak/steady", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_steady,
                throng_test_tmpdir_teardown);
    g_test_add ("/soak/per-user", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_per_user, throng_test_tmpdir_teardown);
    return g_test_run ();
}
