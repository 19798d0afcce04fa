/* SPDX-License-Identifier: MIT */
/*
 * The open-file limit (issue 6, item 5).  throng_limits_prepare() is
 * tested in forked children, whose limits can be lowered for good; then
 * the real binary, started with a lowered RLIMIT_NOFILE: short of the
 * descriptors a plan's users need, it must refuse at start (exit 3, one
 * line naming the limit and the users, no results written), and with a
 * low soft but a high enough hard limit it must raise the soft limit
 * itself and run a load that needs it (300 users, each holding a
 * connection to nginx) without one EMFILE.  A user counts one descriptor
 * (its connection), so more users than half the limit fit.  And the memory
 * limit: a run that grows towards its address-space limit is stopped by
 * throng itself, its results written, instead of dying in g_malloc().
 */
#include "limits-private.h"
#include "test-utils.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RUN_TIMEOUT 60

/* ---- throng_limits_prepare, in children ----------------------------------- */

static void
set_nofile (rlim_t soft, rlim_t hard)
{
    struct rlimit limit = { .rlim_cur = soft, .rlim_max = hard };

    g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
}

static rlim_t
soft_nofile (void)
{
    struct rlimit limit;

    g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
    return limit.rlim_cur;
}

static rlim_t
hard_nofile (void)
{
    struct rlimit limit;

    g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
    return limit.rlim_max;
}

/*
 * TRUE if the soft limit may be raised to @n; otherwise the test is
 * skipped, under CI too: a machine's setting, not a missing tool.
 */
static gboolean
hard_nofile_allows (rlim_t n)
{
    g_autofree char *reason = NULL;

    if (hard_nofile () == RLIM_INFINITY || hard_nofile () >= n)
        return TRUE;
    reason = g_strdup_printf ("the hard open-file limit is below %lu", (unsigned long) n);
    g_test_skip (reason);
    return FALSE;
}

static void
test_fds_needed (void)
{
    const ThrongLimitsRun none = { .users = 0, .workers = 1 };
    const ThrongLimitsRun plain = { .users = 1000, .workers = 1 };
    const ThrongLimitsRun two = { .users = 1000, .workers = 2 };
    const ThrongLimitsRun builtin = { .users = 1000, .workers = 2, .builtin_target = TRUE };
    const ThrongLimitsRun huge = { .users = G_MAXUINT64, .workers = 1 };
    const ThrongLimitsRun huge_builtin = { .users = G_MAXUINT64 / 2, .workers = 1,
                                           .builtin_target = TRUE };

    /* the margin and a worker's own descriptors */
    g_assert_cmpuint (throng_limits_fds_needed (&none), ==, 68);
    /* one per user: its connection */
    g_assert_cmpuint (throng_limits_fds_needed (&plain), ==, 1068);
    g_assert_cmpuint (throng_limits_fds_needed (&two), ==, 1072);
    /* the built-in target in the process holds the other end of each */
    g_assert_cmpuint (throng_limits_fds_needed (&builtin), ==, 2072);
    g_assert_cmpuint (throng_limits_fds_needed (&huge), ==, G_MAXUINT64);
    g_assert_cmpuint (throng_limits_fds_needed (&huge_builtin), ==, G_MAXUINT64);
}

static void
test_prepare_short (void)
{
    if (g_test_subprocess ()) {
        const ThrongLimitsRun idle = { .users = 0, .workers = 0 };
        const ThrongLimitsRun crowd = { .users = 1000, .workers = 1 };
        g_autoptr (GError) error = NULL;

        set_nofile (64, 64);
        /* no users and no workers need only the margin: exactly the limit */
        g_assert_true (throng_limits_prepare (&idle, &error));
        g_assert_no_error (error);
        g_assert_false (throng_limits_prepare (&crowd, &error));
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
        g_test_message ("%s", error->message);
        g_assert_nonnull (strstr (error->message, "open-file limit"));
        g_assert_nonnull (strstr (error->message, " is 64 (hard limit 64)"));
        g_assert_nonnull (strstr (error->message, "1000 users"));
        g_assert_nonnull (strstr (error->message, "1068"));
        /* how to raise it, to what */
        g_assert_nonnull (strstr (error->message, "ulimit -Hn 1068"));
        g_assert_null (strchr (error->message, '\n'));
        g_assert_cmpuint (soft_nofile (), ==, 64);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
}

static void
test_prepare_raises (void)
{
    if (!hard_nofile_allows (4096))
        return;
    if (g_test_subprocess ()) {
        /* more than half the limit in users: each holds one descriptor */
        const ThrongLimitsRun fits = { .users = 3000, .workers = 2 };
        const ThrongLimitsRun short_ = { .users = 4500, .workers = 1 };
        const ThrongLimitsRun builtin = { .users = 3000, .workers = 2, .builtin_target = TRUE };
        g_autoptr (GError) error = NULL;

        set_nofile (64, 4096);
        g_assert_true (throng_limits_prepare (&fits, &error));
        g_assert_no_error (error);
        /* raised to the hard limit, not just to what was asked */
        g_assert_cmpuint (soft_nofile (), ==, 4096);
        /* 4500 users need 4568: short even after the raise */
        g_assert_false (throng_limits_prepare (&short_, &error));
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
        g_assert_nonnull (strstr (error->message, " is 4096 "));
        g_assert_nonnull (strstr (error->message, "4500 users"));
        g_clear_error (&error);
        /* with the built-in target in the process, the same 3000 need twice as many */
        g_assert_false (throng_limits_prepare (&builtin, &error));
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
        g_assert_nonnull (strstr (error->message, "6072"));
        g_assert_nonnull (strstr (error->message, "built-in target"));
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
}

/* The kernel's descriptor table size ("FDSize" in /proc/self/status), 0 where it does not say. */
static guint64
fd_table_size (void)
{
    g_autofree char *status = NULL;
    const char *line;

    if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
        || (line = strstr (status, "\nFDSize:")) == NULL)
        return 0;
    return g_ascii_strtoull (line + strlen ("\nFDSize:"), NULL, 10);
}

static guint
open_descriptors (void)
{
    g_autoptr (GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
    guint n = 0;

    g_assert_nonnull (dir);
    while (g_dir_read_name (dir) != NULL)
        n++;
    return n;
}

/*
 * A run's sockets must not wait for the descriptor table to grow (each
 * doubling waits for an RCU grace period in a threaded process): the
 * table has room for the plan's descriptors once prepare() returns, and
 * reserving it leaves no descriptor open.
 */
static void
test_prepare_reserves (void)
{
    if (!hard_nofile_allows (4096))
        return;
    if (fd_table_size () == 0) {
        g_test_skip ("the kernel does not report FDSize");
        return;
    }
    if (g_test_subprocess ()) {
        const ThrongLimitsRun crowd = { .users = 3000, .workers = 2 };
        g_autoptr (GError) error = NULL;

        set_nofile (4096, 4096);
        g_assert_cmpuint (fd_table_size (), <, 3072);
        guint open_before = open_descriptors ();
        g_assert_true (throng_limits_prepare (&crowd, &error));
        g_assert_no_error (error);
        g_test_message ("FDSize %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT " descriptors",
                        fd_table_size (), throng_limits_fds_needed (&crowd));
        g_assert_cmpuint (fd_table_size (), >=, throng_limits_fds_needed (&crowd));
        g_assert_cmpuint (open_descriptors (), ==, open_before);
        return;
    }
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
}

/* ---- the binary, with a lowered limit ----------------------------------- */

typedef struct {
    rlim_t soft;
    rlim_t hard;
} Limit;

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void
lower_limit (gpointer data)
{
    const Limit *limit = data;
    struct rlimit value = { .rlim_cur = limit->soft, .rlim_max = limit->hard };

    if (setrlimit (RLIMIT_NOFILE, &value) != 0)
        _exit (125);
}

/*
 * `throng ARGV…` with RLIMIT_NOFILE set to @soft:@hard in the child.
 * Killed by PID and failed after @timeout_s.  Returns the exit status
 * (128 + N for signal N).
 */
static int
run_limited (const char *const *argv, rlim_t soft, rlim_t hard, guint timeout_s, char **out_err)
{
    Limit limit = { soft, hard };
    ThrongTestSpawnOptions options = { .child_setup = lower_limit, .child_setup_data = &limit };
    g_autoptr (ThrongTestProcess) process = throng_test_spawn (argv, &options);
    int status = -1;

    throng_test_process_wait (process, timeout_s, &status, NULL, out_err);
    g_test_message ("exit %d; stderr: %s", status, *out_err);
    return status;
}

static void
test_refused_at_start (ThrongTestTmpdir *fixture, gconstpointer data)
{
    /* null steps open nothing: only the check can refuse this plan */
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "scenarios:\n"
                                                    "  - name: crowd\n"
                                                    "    users: 1000\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - null: {delay: 1ms}\n");
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_auto (GStrv) argv = throng_test_run_args (plan, summary);
    g_autofree char *err = NULL;
    int status = run_limited ((const char *const *) argv, 64, 64, RUN_TIMEOUT, &err);

    g_assert_cmpint (status, ==, 3);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpuint (throng_test_count_lines (err), ==, 1);
    g_assert_true (g_str_has_prefix (err, "throng: "));
    /* the limit, its value and the users asked for */
    g_assert_nonnull (strstr (err, "open-file limit"));
    g_assert_nonnull (strstr (err, " 64 "));
    g_assert_nonnull (strstr (err, "1000 users"));
    /* refused before the run: no results, and no run full of EMFILE */
    g_assert_false (g_file_test (summary, G_FILE_TEST_EXISTS));
    g_assert_null (strstr (err, "Too many open files"));

    /* validate only reads the plan: the limit is a run's concern */
    const char *const validate[] = { "validate", plan, NULL };
    g_autofree char *validate_err = NULL;
    g_assert_cmpint (run_limited (validate, 64, 64, RUN_TIMEOUT, &validate_err), ==, 0);
}

/*
 * Users that fit at one descriptor each run: 3000 users under a hard limit
 * of 4096 (a count of two per user refused them).
 */
static void
test_one_per_user (ThrongTestTmpdir *fixture, gconstpointer data)
{
    if (!hard_nofile_allows (4096))
        return;
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml",
                                                    "scenarios:\n"
                                                    "  - name: crowd\n"
                                                    "    users: 3000\n"
                                                    "    iterations: 1\n"
                                                    "    steps:\n"
                                                    "      - null: {delay: 1ms}\n");
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_auto (GStrv) argv = throng_test_run_args (plan, summary);
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (run_limited ((const char *const *)argv, 64, 4096, RUN_TIMEOUT, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    JsonNode *root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 3000);
    json_node_unref (root);
}

static void
test_raised_at_start (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const guint users = 300;
    ThrongTestNginxConfig config = { 0 };
    g_autoptr (GError) error = NULL;

    if (!hard_nofile_allows (4096))
        return;
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;

    /*
     * Every user holds a keep-alive connection of its own at once: far
     * more descriptors than a soft limit of 64 allows, unless throng
     * raises it.  (nginx, not the built-in target: SoupServer's listen
     * backlog is too short for 300 connections opened at once.)
     */
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - name: crowd\n"
                                             "    users: %u\n"
                                             "    iterations: 3\n"
                                             "    ramp_up: 1s\n"
                                             "    think_time: 500ms\n"
                                             "    http: {base_url: '%s'}\n"
                                             "    steps:\n"
                                             "      - http: {url: /}\n",
                                             users, throng_test_nginx_http_url (nginx));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_auto (GStrv) argv = throng_test_run_args (plan, summary);
    g_autofree char *err = NULL;
    int status = run_limited ((const char *const *) argv, 64, 4096, RUN_TIMEOUT, &err);

    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);

    JsonNode *root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, users * 3);
    /* not one EMFILE (a connect error) */
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), >=, users);
    json_node_unref (root);

    /* and nginx saw every user on a connection of its own */
    ThrongTestNginxLog log;
    g_assert_true (throng_test_nginx_log_wait (nginx, users * 3, 5000, &log));
    g_assert_cmpuint (log.connections, >=, users);
}

static void
limit_address_space (gpointer data)
{
    rlim_t bytes = *(const rlim_t *)data;
    struct rlimit value = { .rlim_cur = bytes, .rlim_max = bytes };

    if (setrlimit (RLIMIT_AS, &value) != 0)
        _exit (125);
}

/*
 * 3,000 users, ramped up over 10 s, keep 1 MB bodies (a check reads them)
 * from nginx under a memory limit that @child_setup sets in the child: it
 * must stop itself (exit 5), say why on one line (starting @reached), and
 * leave results that agree with each other: the summary's requests and the
 * csv rows.  (An external target: the built-in one, in the same process,
 * keeps allocating for the responses in flight after the users stop.)
 */
static void
run_short_of_memory (ThrongTestTmpdir *fixture, GSpawnChildSetupFunc child_setup,
                     gpointer child_setup_data, const char *reached)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *big = g_build_filename (fixture->dir, "big.bin", NULL);
    g_autofree char *bytes = g_malloc (1000000);
    memset (bytes, 'x', 1000000);
    g_assert_true (g_file_set_contents (big, bytes, 1000000, NULL));
    g_autofree char *locations = g_strdup_printf ("location = /big { alias %s; }\n", big);
    ThrongTestNginxConfig config = { .locations = locations, .worker_connections = 4096,
                                     .worker_rlimit_nofile = 8192 };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;

    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - name: big\n"
                                             "    users: 3000\n"
                                             "    duration: 30s\n"
                                             "    ramp_up: 10s\n"
                                             "    http: { base_url: '%s' }\n"
                                             "    steps:\n"
                                             "      - http:\n"
                                             "          url: /big\n"
                                             "          check: [ { body_contains: zz } ]\n"
                                             "reporters:\n"
                                             "  - json: { path: '%s' }\n"
                                             "  - csv: { path: '%s' }\n",
                                             throng_test_nginx_http_url (nginx), summary, csv);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    const char *const argv[] = { "run", plan, "--quiet", NULL };
    ThrongTestSpawnOptions options = { .child_setup = child_setup,
                                       .child_setup_data = child_setup_data };
    g_autoptr (ThrongTestProcess) process = throng_test_spawn (argv, &options);
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    int status = -1;

    g_assert_true (throng_test_process_wait (process, RUN_TIMEOUT, &status, NULL, &err));
    g_test_message ("exit %d; stderr: %s", status, err);
    g_assert_cmpint (status, ==, 5);
    throng_test_assert_no_glib_noise (err);
    /* One line, after the newline that ends a live progress line. */
    const char *line = err + strspn (err, "\n");
    g_assert_cmpuint (throng_test_count_lines (line), ==, 1);
    g_assert_true (g_str_has_prefix (line, reached));
    g_assert_nonnull (strstr (line, "; stopping the run now to keep the results measured so far"));

    JsonNode *root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_true (throng_test_summary_has_warning (root, "the run was stopped at "));
    gint64 requests = throng_test_json_int (root, "total.requests");
    json_node_unref (root);
    g_test_message ("%" G_GINT64_FORMAT " requests written before the stop", requests);
    g_assert_cmpint (requests, >, 0);
    /* every request counted is a csv row (and the header) */
    g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
    g_assert_cmpuint (throng_test_count_lines (text), ==, requests + 1);
}

/* Under a 500 MiB address-space limit (`ulimit -v`). */
static void
test_memory_limit (ThrongTestTmpdir *fixture, gconstpointer data)
{
    rlim_t limit = 500 * 1024 * 1024;

    if (g_getenv ("THRONG_SANITIZED") != NULL) {
        /* ASan reserves terabytes of address space at start. */
        g_test_skip ("an address-space limit means nothing under AddressSanitizer");
        return;
    }
    run_short_of_memory (fixture, limit_address_space, &limit,
                         "throng: throng's virtual size reached ");
}

/* The memory cgroup this process is in, v1's (the machines this runs on), or NULL. */
static char *
memory_cgroup (void)
{
    g_autofree char *text = NULL;

    if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
        return NULL;
    const char *memory = strstr (text, ":memory:");
    if (memory == NULL)
        return NULL;
    memory += strlen (":memory:");
    g_autofree char *path = g_strndup (memory, strcspn (memory, "\n"));
    return g_build_filename ("/sys/fs/cgroup/memory", path, NULL);
}

/* Writes @text into a cgroup file in place (g_file_set_contents() renames a new file). */
static gboolean
write_in_place (const char *path, const char *text)
{
    int fd = open (path, O_WRONLY);
    gboolean written = fd >= 0 && write (fd, text, strlen (text)) == (ssize_t) strlen (text);

    if (fd >= 0)
        close (fd);
    return written;
}

/* In the child: joins the cgroup whose cgroup.procs is @data ("0" is the writer). */
static void
join_cgroup (gpointer data)
{
    int fd = open ((const char *)data, O_WRONLY);

    if (fd < 0 || write (fd, "0\n", 2) != 2)
        _exit (125);
    close (fd);
}

/*
 * In a memory cgroup of its own limited to 600 MiB (cgroup v1's
 * memory.limit_in_bytes; a container's limit): the kernel's OOM killer
 * would end it with nothing written.  Skipped where no memory cgroup can be
 * made (not root, no v1 memory controller).
 */
static void
test_memory_cgroup (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *parent = memory_cgroup ();
    g_autofree char *name = g_strdup_printf ("throng-test-%d", (int)getpid ());
    g_autofree char *dir = parent != NULL ? g_build_filename (parent, name, NULL) : NULL;

    if (dir == NULL || g_mkdir (dir, 0755) != 0) {
        g_test_skip ("no memory cgroup (v1) can be made here");
        return;
    }
    g_autofree char *limit = g_build_filename (dir, "memory.limit_in_bytes", NULL);
    g_autofree char *procs = g_build_filename (dir, "cgroup.procs", NULL);
    g_assert_true (write_in_place (limit, "629145600\n"));
    run_short_of_memory (fixture, join_cgroup, procs,
                         "throng: throng's cgroup holds ");
    /* Empty once throng has exited. */
    g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    /* the `null` protocol, for the child throng processes */
    g_setenv ("THRONG_PLUGIN_PATH", g_getenv ("THRONG_TEST_PLUGIN_DIR"), TRUE);

    g_test_add_func ("/limits/fds-needed", test_fds_needed);
    g_test_add_func ("/limits/prepare/short", test_prepare_short);
    g_test_add_func ("/limits/prepare/raises", test_prepare_raises);
    g_test_add_func ("/limits/prepare/reserves", test_prepare_reserves);
    g_test_add ("/limits/run/refused-at-start", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_refused_at_start, throng_test_tmpdir_teardown);
    g_test_add ("/limits/run/one-per-user", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_one_per_user, throng_test_tmpdir_teardown);
    g_test_add ("/limits/run/raised-at-start", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_raised_at_start, throng_test_tmpdir_teardown);
    g_test_add ("/limits/run/memory", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_memory_limit, throng_test_tmpdir_teardown);
    g_test_add ("/limits/run/memory-cgroup", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_memory_cgroup, throng_test_tmpdir_teardown);
    return g_test_run ();
}
