/* SPDX-License-Identifier: MIT */
/*
 * throng against a failing target, a full disk and misbehaving plugins,
 * through the real binary.  For each fault the fault server
 * (tests/lib/fault-server.c) injects — refused, silent, stalled, cut, reset,
 * garbage, endless, 5xx, dropped or stalled TLS, bad certificates, a
 * connect that never completes — on both transports and, where TLS
 * matters, over HTTPS: the run completes, the sample has the documented
 * error class, counted once, the next step of the same user succeeds,
 * the timeouts hold (elapsed bounds), and the totals add up.  Then: the
 * body limit keeps memory bounded (the child's peak RSS, from wait4), a
 * target killed mid-run, a reporter that cannot write (/dev/full, a full
 * tmpfs), and plugins that fail every step, fail init, or register a name
 * twice.  docs/failure-modes.md is the table these tests keep true.
 */
#include "test-utils.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 60
#define USERS 2
#define ITERATIONS 3

/* ------------------------------------------------------------------ */
/* The fault server (tests/lib/fault-fixture.h)                       */

/* Its listeners, in the order fixture_setup() asks for them. */
typedef enum {
    ON_HTTP,
    ON_HTTPS,
    ON_EXPIRED,
    ON_WRONG_HOST,
    ON_SELF_SIGNED,
    ON_TLS_DROP,
    ON_TLS_HANG,
    ON_BACKLOG,
    /* No listener: a port that refuses. */
    ON_CLOSED_HTTP,
    ON_CLOSED_HTTPS,
} Listener;

typedef struct {
    char *dir;
    ThrongTestCerts *certs;
    ThrongTestFaultServer *server;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *pki = NULL;
    g_autofree char *https = NULL;
    g_autofree char *expired = NULL;
    g_autofree char *wrong = NULL;
    g_autofree char *self = NULL;

    fixture->dir = throng_test_tmpdir_new ();
    pki = g_build_filename (fixture->dir, "pki", NULL);
    g_assert_no_errno (g_mkdir (pki, 0700));
    fixture->certs = throng_test_certs_new (pki, &error);
    g_assert_no_error (error);
    https = g_strdup_printf ("https:%s:%s", fixture->certs->server_cert,
                             fixture->certs->server_key);
    expired = g_strdup_printf ("https:%s:%s", fixture->certs->expired_cert,
                               fixture->certs->expired_key);
    wrong = g_strdup_printf ("https:%s:%s", fixture->certs->wrong_host_cert,
                             fixture->certs->wrong_host_key);
    self = g_strdup_printf ("https:%s:%s", fixture->certs->self_signed_cert,
                            fixture->certs->self_signed_key);
    fixture->server = throng_test_fault_server_start ((const char *const[]) {
        FAULT_KIND_HTTP, https, expired, wrong, self, FAULT_KIND_TLS_DROP, FAULT_KIND_TLS_HANG,
        FAULT_KIND_BACKLOG, NULL });
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    g_clear_pointer (&fixture->server, throng_test_fault_server_stop);
    g_clear_pointer (&fixture->certs, throng_test_certs_free);
    throng_test_tmpdir_free (g_steal_pointer (&fixture->dir));
}

/* ------------------------------------------------------------------ */
/* Reading results                                                     */

/* How many CSV rows hold @needle (a whole failureMessage prefix, say). */
static guint
csv_count (const char *path, const char *needle)
{
    g_autofree char *text = NULL;
    guint n = 0;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* The first row that failed, for the test log. */
static char *
csv_first_failure (const char *path)
{
    g_autofree char *text = NULL;
    const char *row;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    row = strstr (text, ",false,");
    if (row == NULL)
        return g_strdup ("(none)");
    while (row > text && row[-1] != '\n')
        row--;
    return g_strndup (row, strcspn (row, "\n"));
}

/* ------------------------------------------------------------------ */
/* One fault, one step                                                 */

typedef struct {
    const char *name;
    Listener on;
    const char *path;
    const char *klass;   /* the class every sample of the fault step has */
    const char *timeout; /* the step's `timeout` */
    const char *connect_timeout;
    const char *step_extra; /* more options of the fault step */
    gint64 min_ms, max_ms;  /* elapsed of every fault sample, when max_ms > 0 */
    const char *soup_klass; /* the class on the soup transport, when it differs */
} FaultCase;

/* Timers fire on a loaded two-core machine: a generous upper slack. */
#define SLACK_MS 1500

/* Where the two steps of a fault plan keep their figures. */
#define FAULT_STATS "scenarios.0.steps.0.stats"
#define OK_STATS "scenarios.0.steps.1.stats"

static const FaultCase fault_cases[] = {
    { "refused", ON_CLOSED_HTTP, "/ok", "connect", "5s", "5s", NULL, 0, SLACK_MS },
    { "status-500", ON_HTTP, FAULT_PATH_STATUS_500, "status", "5s", "5s", NULL, 0, 0 },
    { "status-503", ON_HTTP, FAULT_PATH_STATUS_503, "status", "5s", "5s", NULL, 0, 0 },
    { "never-answers", ON_HTTP, FAULT_PATH_HANG, "timeout", "400ms", "5s", NULL, 390,
      400 + SLACK_MS },
    { "stalls-body", ON_HTTP, FAULT_PATH_STALL_BODY, "timeout", "400ms", "5s", NULL, 390,
      400 + SLACK_MS },
    /* libsoup reports a head cut short as a parse error, which it cannot
     * tell from a garbled one (docs/http.md). */
    { "closes-mid-headers", ON_HTTP, FAULT_PATH_CLOSE_HEADERS, "reset", "5s", "5s", NULL, 0,
      SLACK_MS, "protocol" },
    { "closes-mid-body", ON_HTTP, FAULT_PATH_CLOSE_BODY, "reset", "5s", "5s", NULL, 0, SLACK_MS },
    { "reset", ON_HTTP, FAULT_PATH_RESET, "reset", "5s", "5s", NULL, 0, SLACK_MS },
    { "reset-mid-body", ON_HTTP, FAULT_PATH_RESET_BODY, "reset", "5s", "5s", NULL, 0, SLACK_MS },
    { "garbage", ON_HTTP, FAULT_PATH_GARBAGE, "protocol", "5s", "5s", NULL, 0, SLACK_MS },
    { "huge-body", ON_HTTP, FAULT_PATH_HUGE, "body-limit", "10s", "5s", ", max_body: 64KiB", 0,
      5000 },
    { "endless-chunked", ON_HTTP, FAULT_PATH_ENDLESS_CHUNKED, "body-limit", "10s", "5s",
      ", max_body: 1MiB", 0, 5000 },
    { "endless-close", ON_HTTP, FAULT_PATH_ENDLESS_CLOSE, "body-limit", "10s", "5s",
      ", max_body: 1MiB", 0, 5000 },
    /* The same faults under TLS. */
    { "tls-refused", ON_CLOSED_HTTPS, "/ok", "connect", "5s", "5s", NULL, 0, SLACK_MS },
    { "tls-status-503", ON_HTTPS, FAULT_PATH_STATUS_503, "status", "5s", "5s", NULL, 0, 0 },
    { "tls-never-answers", ON_HTTPS, FAULT_PATH_HANG, "timeout", "400ms", "5s", NULL, 390,
      400 + SLACK_MS },
    { "tls-stalls-body", ON_HTTPS, FAULT_PATH_STALL_BODY, "timeout", "400ms", "5s", NULL, 390,
      400 + SLACK_MS },
    { "tls-closes-mid-headers", ON_HTTPS, FAULT_PATH_CLOSE_HEADERS, "reset", "5s", "5s", NULL, 0,
      SLACK_MS },
    { "tls-closes-mid-body", ON_HTTPS, FAULT_PATH_CLOSE_BODY, "reset", "5s", "5s", NULL, 0,
      SLACK_MS },
    { "tls-reset", ON_HTTPS, FAULT_PATH_RESET, "reset", "5s", "5s", NULL, 0, SLACK_MS },
    { "tls-garbage", ON_HTTPS, FAULT_PATH_GARBAGE, "protocol", "5s", "5s", NULL, 0, SLACK_MS },
    { "tls-endless-chunked", ON_HTTPS, FAULT_PATH_ENDLESS_CHUNKED, "body-limit", "10s", "5s",
      ", max_body: 1MiB", 0, 5000 },
    /* TLS itself. */
    { "tls-dropped-mid-handshake", ON_TLS_DROP, "/ok", "reset", "5s", "5s", NULL, 0, SLACK_MS },
    { "certificate-expired", ON_EXPIRED, "/ok", "certificate", "5s", "5s", NULL, 0, SLACK_MS },
    { "certificate-wrong-host", ON_WRONG_HOST, "/ok", "certificate", "5s", "5s", NULL, 0,
      SLACK_MS },
    { "certificate-self-signed", ON_SELF_SIGNED, "/ok", "certificate", "5s", "5s", NULL, 0,
      SLACK_MS },
    /* connect_timeout: a TCP connect that never completes (full accept
     * queue), and a TLS handshake that never answers, each well inside the
     * step's timeout; then the step's timeout bounding a connect whose own
     * limit is longer. */
    { "connect-timeout-tcp", ON_BACKLOG, "/ok", "timeout", "10s", "300ms", NULL, 290,
      300 + SLACK_MS },
    { "connect-timeout-tls", ON_TLS_HANG, "/ok", "timeout", "10s", "300ms", NULL, 290,
      300 + SLACK_MS },
    { "step-timeout-bounds-connect", ON_BACKLOG, "/ok", "timeout", "300ms", "10s", NULL, 290,
      300 + SLACK_MS },
};

typedef struct {
    const FaultCase *fault;
    const char *transport;
} FaultRun;

static char *
listener_url (Fixture *fixture, Listener on)
{
    switch (on) {
    case ON_HTTP:
    case ON_BACKLOG:
        return g_strdup_printf ("http://127.0.0.1:%u",
                                throng_test_fault_server_port (fixture->server, on));
    case ON_HTTPS:
    case ON_EXPIRED:
    case ON_WRONG_HOST:
    case ON_SELF_SIGNED:
    case ON_TLS_DROP:
    case ON_TLS_HANG:
        return g_strdup_printf ("https://127.0.0.1:%u",
                                throng_test_fault_server_port (fixture->server, on));
    case ON_CLOSED_HTTP:
        return g_strdup_printf ("http://127.0.0.1:%u", throng_test_free_port ());
    case ON_CLOSED_HTTPS:
        return g_strdup_printf ("https://127.0.0.1:%u", throng_test_free_port ());
    }
    g_assert_not_reached ();
}

static gboolean
listener_is_tls (Listener on)
{
    return on != ON_HTTP && on != ON_BACKLOG && on != ON_CLOSED_HTTP;
}

/*
 * The plan: USERS users, ITERATIONS iterations of two steps, the fault
 * and then a plain 200 from the same scheme, so that a user must recover
 * from each fault.  The transport is set once in defaults.http.
 */
static char *
fault_plan (Fixture *fixture, const FaultRun *run)
{
    const FaultCase *f = run->fault;
    g_autofree char *fault_url = listener_url (fixture, f->on);
    g_autofree char *ok_url = listener_url (fixture, listener_is_tls (f->on) ? ON_HTTPS : ON_HTTP);
    g_autofree char *name = g_strconcat ("fault-", f->name, NULL);
    g_autofree char *http = g_strdup_printf ("timeout: %s, connect_timeout: %s, "
                                             "tls: { ca_file: \"%s\" }",
                                             f->timeout, f->connect_timeout,
                                             fixture->certs->ca_cert);
    g_autofree char *steps = g_strdup_printf ("      - name: fault\n"
                                              "        http: { url: \"%s%s\"%s }\n"
                                              "      - name: ok\n"
                                              "        http: { url: \"%s%s\" }\n",
                                              fault_url, f->path,
                                              f->step_extra != NULL ? f->step_extra : "", ok_url,
                                              FAULT_PATH_OK);

    return throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = name,
        .transport = run->transport,
        .http = http,
        .users = USERS,
        .iterations = ITERATIONS,
        .steps = steps,
    });
}

static void
test_fault (Fixture *fixture, gconstpointer data)
{
    const FaultRun *run = data;
    const FaultCase *f = run->fault;
    const char *klass = f->soup_klass != NULL && strcmp (run->transport, "soup") == 0
                            ? f->soup_klass
                            : f->klass;
    g_autofree char *yaml = fault_plan (fixture, run);
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    g_autofree char *failure = g_strdup_printf (",false,%s", klass);
    const char *extra[] = { "--out", csv_arg, NULL };
    g_autofree char *err = NULL;
    g_autofree char *first = NULL;
    g_autoptr (JsonNode) root = NULL;
    const gint64 per_step = USERS * ITERATIONS;
    int status = -1;

    g_test_message ("plan:\n%s", yaml);
    root = throng_test_run_json (fixture->dir, yaml, extra, RUN_TIMEOUT_S, &status, &err);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    throng_test_assert_no_glib_noise (err);

    /* Every sample counted once, and the totals add up. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2 * per_step);
    g_assert_cmpint (throng_test_json_int (root, FAULT_STATS ".requests"), ==, per_step);
    g_assert_cmpint (throng_test_json_int (root, OK_STATS ".requests"), ==, per_step);
    throng_test_summary_assert_totals (root, "total");
    throng_test_summary_assert_totals (root, FAULT_STATS);

    /* The fault has its class, and only it. */
    g_assert_cmpint (throng_test_summary_class (root, FAULT_STATS, klass), ==, per_step);
    g_assert_cmpint (throng_test_json_int (root, FAULT_STATS ".errors"), ==, per_step);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, per_step);

    /* The user recovered: the step after each fault succeeded. */
    g_assert_cmpint (throng_test_json_int (root, OK_STATS ".errors"), ==, 0);

    /* Elapsed bounds: the timeout that should end the step did, in time. */
    if (f->max_ms > 0) {
        gint64 min_us = throng_test_json_int (root, FAULT_STATS ".latency_us.min");
        gint64 max_us = throng_test_json_int (root, FAULT_STATS ".latency_us.max");

        g_test_message ("fault step elapsed: min %" G_GINT64_FORMAT " us, max %" G_GINT64_FORMAT
                        " us",
                        min_us, max_us);
        g_assert_cmpint (min_us, >=, f->min_ms * 1000);
        g_assert_cmpint (max_us, <=, f->max_ms * 1000);
    }

    /* For docs/failure-modes.md and the log: what a user reads in the rows. */
    first = csv_first_failure (csv);
    g_test_message ("first failure row: %s", first);

    /* The sample rows say it too: the failure message starts with the class. */
    g_assert_cmpuint (throng_test_csv_rows (csv), ==, 2 * per_step);
    g_assert_cmpuint (csv_count (csv, failure), ==, per_step);
}

/* ------------------------------------------------------------------ */
/* Many faults in one run                                              */

/*
 * One scenario mixing successes with five classes: each step's class and
 * count, and requests = successes + the sum of the classes over the run.
 */
static void
test_mixed (Fixture *fixture, gconstpointer data)
{
    const char *transport = data;
    g_autofree char *base_url = listener_url (fixture, ON_HTTP);
    g_autofree char *yaml
        = throng_test_plan_yaml (&(ThrongTestPlan) {
            .name = "mixed",
            .transport = transport,
            .base_url = base_url,
            .http = "timeout: 300ms",
            .users = 3,
            .iterations = 4,
            .steps = "      - http: { url: /ok }\n"
                     "      - http: { url: /status/500 }\n"
                     "      - http: { url: /reset }\n"
                     "      - http: { url: /ok }\n"
                     "      - http: { url: /garbage }\n"
                     "      - http: { url: /hang }\n"
                     "      - http: { url: /endless-close, max_body: 100KiB }\n"
                     "      - http: { url: /slow?ms=5 }\n",
        });
    static const char *const step_class[]
        = { NULL, "status", "reset", NULL, "protocol", "timeout", "body-limit", NULL };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    const gint64 per_step = 3 * 4;
    gint64 successes = 0;
    int status = -1;

    root = throng_test_run_json (fixture->dir, yaml, NULL, RUN_TIMEOUT_S, &status, &err);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==,
                      G_N_ELEMENTS (step_class));

    for (gsize i = 0; i < G_N_ELEMENTS (step_class); i++) {
        g_autofree char *stats = g_strdup_printf ("scenarios.0.steps.%zu.stats", i);
        g_autofree char *requests = g_strconcat (stats, ".requests", NULL);
        g_autofree char *errors = g_strconcat (stats, ".errors", NULL);

        g_assert_cmpint (throng_test_json_int (root, requests), ==, per_step);
        throng_test_summary_assert_totals (root, stats);
        if (step_class[i] == NULL) {
            g_assert_cmpint (throng_test_json_int (root, errors), ==, 0);
            successes += per_step;
        } else {
            g_assert_cmpint (throng_test_summary_class (root, stats, step_class[i]), ==, per_step);
            g_assert_cmpint (throng_test_json_int (root, errors), ==, per_step);
        }
    }
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==,
                     successes + throng_test_summary_class_sum (root, "total"));
    g_assert_cmpint (throng_test_summary_class (root, "total", "status"), ==, per_step);
    g_assert_cmpint (throng_test_summary_class (root, "total", "reset"), ==, per_step);
    g_assert_cmpint (throng_test_summary_class (root, "total", "protocol"), ==, per_step);
    g_assert_cmpint (throng_test_summary_class (root, "total", "timeout"), ==, per_step);
    g_assert_cmpint (throng_test_summary_class (root, "total", "body-limit"), ==, per_step);
    /* Twelve users' worth of 300 ms timeouts, three at a time, and little else. */
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), >=, 4 * 0.29);
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), <, 4 * 0.3 + 5);
}

/* ------------------------------------------------------------------ */
/* Bounded memory under endless bodies                                 */

/*
 * Runs throng with @argv (without the program), waits for it with wait4
 * so that its own peak resident set comes back, and kills it by its PID if
 * it outlives @timeout_s.  Returns the exit status; *@maxrss_kib the peak.
 */
static int
run_measured (const char *dir, const char *const *argv, guint timeout_s, glong *maxrss_kib)
{
    g_autoptr (GPtrArray) args = g_ptr_array_new ();
    g_autofree char *log = g_build_filename (dir, "throng.log", NULL);
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;
    gint64 deadline = g_get_monotonic_time () + (gint64)timeout_s * G_USEC_PER_SEC;
    struct rusage usage = { 0 };
    int fd = open (log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int null_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    int wstatus = 0;
    GPid pid;

    g_assert_cmpint (fd, >=, 0);
    g_ptr_array_add (args, (gpointer)throng_test_exe ());
    for (gsize i = 0; argv[i] != NULL; i++)
        g_ptr_array_add (args, (gpointer)argv[i]);
    g_ptr_array_add (args, NULL);
    g_spawn_async_with_fds (dir, (char **)args->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &pid, null_fd, fd, fd, &error);
    g_assert_no_error (error);
    close (fd);
    close (null_fd);

    for (;;) {
        pid_t got = wait4 (pid, &wstatus, WNOHANG, &usage);

        if (got == pid)
            break;
        g_assert_cmpint (got, ==, 0);
        if (g_get_monotonic_time () > deadline) {
            kill (pid, SIGKILL);
            g_assert_cmpint (wait4 (pid, &wstatus, 0, &usage), ==, pid);
            g_test_fail_printf ("throng did not exit within %u s", timeout_s);
            break;
        }
        g_usleep (10000);
    }
    g_file_get_contents (log, &text, NULL, NULL);
    g_test_message ("throng output:\n%s", text);
    throng_test_assert_no_glib_noise (text);
    *maxrss_kib = usage.ru_maxrss;
    return WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : 128 + WTERMSIG (wstatus);
}

/*
 * Eight users each read three endless bodies with the default max_body
 * (64 MiB): 1.5 GiB offered in all.  Each sample fails with body-limit,
 * and throng's peak RSS stays far below one buffered body: bodies are
 * counted and dropped, never kept.
 */
#define RSS_BOUND_KIB (48 * 1024)

static void
test_memory_bounded (Fixture *fixture, gconstpointer data)
{
    const char *transport = data;
    g_autofree char *base_url = listener_url (fixture, ON_HTTP);
    g_autofree char *yaml
        = throng_test_plan_yaml (&(ThrongTestPlan) {
            .name = "endless",
            .transport = transport,
            .base_url = base_url,
            .users = 8,
            .iterations = 1,
            .steps = "      - http: { url: " FAULT_PATH_ENDLESS_CLOSE " }\n"
                     "      - http: { url: " FAULT_PATH_ENDLESS_CHUNKED " }\n"
                     "      - http: { url: " FAULT_PATH_HUGE " }\n",
        });
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *json = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *json_arg = throng_test_out_arg ("json", json);
    const char *argv[] = { "run", plan, "--quiet", "--out", json_arg, NULL };
    g_autoptr (JsonNode) root = NULL;
    g_autoptr (GError) error = NULL;
    glong maxrss = 0;

    g_assert_cmpint (run_measured (fixture->dir, argv, 120, &maxrss), ==, 0);
    root = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 24);
    g_assert_cmpint (throng_test_summary_class (root, "total", "body-limit"), ==, 24);
    throng_test_summary_assert_totals (root, "total");
    g_test_message ("peak RSS %ld KiB, bytes received %" G_GINT64_FORMAT, maxrss,
                    throng_test_json_int (root, "total.bytes_received"));
    g_assert_cmpint (maxrss, >, 0);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's quarantine keeps freed memory resident: the bound
     * would measure the sanitizer, not throng. */
    g_test_message ("built with AddressSanitizer: peak RSS not checked");
#else
    g_assert_cmpint (maxrss, <, RSS_BOUND_KIB);
#endif
}

/* ------------------------------------------------------------------ */
/* A target that dies mid-run                                          */

typedef struct {
    GPid pid;
    gulong after_ms;
} Killer;

static gpointer
killer_thread (gpointer data)
{
    Killer *killer = data;

    g_usleep (killer->after_ms * 1000);
    kill (killer->pid, SIGKILL);
    return NULL;
}

/*
 * The server is killed by its PID 1 s into a 3 s run.  throng keeps
 * running to the end, counts the failures after that as connect (or
 * reset, for a request in flight), exits 0, and every sample is in both
 * reporters.
 */
static void
test_target_dies (Fixture *fixture, gconstpointer data)
{
    const char *transport = data;
    /* Sanitized, throng takes seconds just to start: give it time to
     * succeed before the server dies. */
    gboolean sanitized = g_getenv ("THRONG_SANITIZED") != NULL;
    g_autofree char *base_url = listener_url (fixture, ON_HTTP);
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "dies",
        .transport = transport,
        .base_url = base_url,
        .http = "timeout: 2s",
        .users = 4,
        .duration = sanitized ? "9s" : "3s",
        .scenario_extra = "    think_time: 5ms\n",
        .steps = "      - http: { url: \"/slow?ms=10\" }\n",
    });
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    const char *extra[] = { "--out", csv_arg, NULL };
    const char *identifier = throng_test_fault_server_pid (fixture->server);
    Killer killer = { .pid = (GPid)g_ascii_strtoll (identifier, NULL, 10),
                      .after_ms = sanitized ? 5000 : 1000 };
    g_autoptr (GThread) thread = g_thread_new ("killer", killer_thread, &killer);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    gint64 requests, errors, connect, reset;
    int status = -1;

    root = throng_test_run_json (fixture->dir, yaml, extra, RUN_TIMEOUT_S, &status, &err);
    g_thread_join (g_steal_pointer (&thread));
    g_clear_pointer (&fixture->server, throng_test_fault_server_stop);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    throng_test_assert_no_glib_noise (err);
    g_assert_false (throng_test_json_bool (root, "interrupted"));

    requests = throng_test_json_int (root, "total.requests");
    errors = throng_test_json_int (root, "total.errors");
    connect = throng_test_summary_class (root, "total", "connect");
    reset = throng_test_summary_class (root, "total", "reset");
    g_test_message ("requests %" G_GINT64_FORMAT ", errors %" G_GINT64_FORMAT
                    " (connect %" G_GINT64_FORMAT ", reset %" G_GINT64_FORMAT ")",
                    requests, errors, connect, reset);
    throng_test_summary_assert_totals (root, "total");
    /* About 4 users x 1 s / 15 ms before the kill; be loose about the machine. */
    g_assert_cmpint (requests - errors, >=, sanitized ? 5 : 20);
    g_assert_cmpint (connect, >, 0);
    /* Only the classes a vanished server can cause. */
    g_assert_cmpint (connect + reset, ==, errors);
    /* The run went on to its end. */
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), >=, sanitized ? 8.9 : 2.9);
    g_assert_cmpfloat (throng_test_json_double (root, "duration_s"), <, sanitized ? 14.0 : 8.0);
    /* Nothing lost: a row for every request counted. */
    g_assert_cmpuint (throng_test_csv_rows (csv), ==, requests);
}

/* ------------------------------------------------------------------ */
/* Reporters that cannot write                                         */

static char *
ok_plan (Fixture *fixture, guint iterations)
{
    g_autofree char *base_url = listener_url (fixture, ON_HTTP);

    return throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "writes",
        .transport = "fast",
        .base_url = base_url,
        .users = 2,
        .iterations = iterations,
        .steps = "      - http: { url: /ok }\n",
    });
}

/* The csv reporter on /dev/full: exit 4 with the reason, and the json complete. */
static void
test_csv_dev_full (Fixture *fixture, gconstpointer data)
{
    g_autofree char *yaml = ok_plan (fixture, 500);
    const char *extra[] = { "--out", "csv=/dev/full", NULL };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    int status = -1;

    if (!throng_test_require_file ("/dev/full"))
        return;
    root = throng_test_run_json (fixture->dir, yaml, extra, RUN_TIMEOUT_S, &status, &err);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 4);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (
        strstr (err, "throng: reporter csv: cannot write /dev/full: No space left on device"));
    g_assert_nonnull (root);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 1000);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
}

/* The json reporter on /dev/full: exit 4 with the reason, and every csv row there. */
static void
test_json_dev_full (Fixture *fixture, gconstpointer data)
{
    g_autofree char *yaml = ok_plan (fixture, 500);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "plan.yaml", yaml);
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status;

    if (!throng_test_require_file ("/dev/full"))
        return;
    status = throng_test_runv (RUN_TIMEOUT_S, &out, &err, "run", plan, "--quiet", "--out",
                               "json=/dev/full", "--out", csv_arg, NULL);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 4);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (
        strstr (err, "throng: reporter json: cannot write /dev/full: No space left on device"));
    g_assert_cmpuint (throng_test_csv_rows (csv), ==, 1000);
}

/*
 * A disk that fills mid-run: the csv reporter on a 64 KiB tmpfs, its
 * 64 KiB buffer flushed more than once in a run of 4000 rows.  Returns
 * FALSE (the test skipped) if no tmpfs can be mounted; otherwise the exit
 * status, stderr, the summary and what the full disk holds of the csv.
 */
static gboolean
run_on_full_tmpfs (Fixture *fixture, int *status, char **err, JsonNode **root, char **csv_text,
                   char **csv_path)
{
    g_autofree char *small = g_build_filename (fixture->dir, "small", NULL);
    g_autofree char *csv = g_build_filename (small, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    g_autofree char *yaml = ok_plan (fixture, 2000);
    const char *extra[] = { "--out", csv_arg, NULL };
    gboolean have_csv;

    g_assert_no_errno (g_mkdir (small, 0700));
    if (mount ("tmpfs", small, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0) {
        g_autofree char *reason = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));
        /* Mounting needs privileges a sandbox may not give: not throng's fault. */
        g_test_skip (reason);
        return FALSE;
    }
    *root = throng_test_run_json (fixture->dir, yaml, extra, RUN_TIMEOUT_S, status, err);
    /* Unmount before any assertion can end the test with the tmpfs still there. */
    have_csv = g_file_get_contents (csv, csv_text, NULL, NULL);
    g_assert_no_errno (umount (small));
    g_assert_true (have_csv);
    g_test_message ("stderr:\n%s\ncsv on the full tmpfs: %zu bytes", *err, strlen (*csv_text));
    *csv_path = g_steal_pointer (&csv);
    return TRUE;
}

/* Exit 4, the path and the reason on stderr, and the json summary complete. */
static void
test_csv_full_tmpfs (Fixture *fixture, gconstpointer data)
{
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *expected = NULL;
    g_autoptr (JsonNode) root = NULL;
    int status = -1;

    if (!run_on_full_tmpfs (fixture, &status, &err, &root, &text, &csv))
        return;
    expected
        = g_strdup_printf ("throng: reporter csv: cannot write %s: No space left on device", csv);
    g_assert_cmpint (status, ==, 4);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (strstr (err, expected));
    g_assert_nonnull (root);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4000);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
}

/*
 * What did reach the full disk is whole rows (docs/reporters.md: "the
 * file never ends in a torn line"), even though the disk filled inside
 * one of the reporter's 64 KiB writes.
 */
static void
test_csv_full_tmpfs_whole_rows (Fixture *fixture, gconstpointer data)
{
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    g_autofree char *csv = NULL;
    g_autoptr (JsonNode) root = NULL;
    int status = -1;

    if (!run_on_full_tmpfs (fixture, &status, &err, &root, &text, &csv))
        return;
    g_assert_cmpint (status, ==, 4);
    if (text[0] != '\0') {
        const char *last = strrchr (text, '\n');

        g_test_message ("the file ends with: %s", last != NULL ? last + 1 : text);
        g_assert_true (g_str_has_suffix (text, "\n"));
    }
}

/* ------------------------------------------------------------------ */
/* Plugins that misbehave                                              */

static int
run_with_plugins (const char *dir, const char *sub, const char *yaml, const char *json,
                  const char *csv, char **err)
{
    g_autofree char *plugins = throng_test_plugin_dir (sub);
    g_autofree char *path_env = g_strconcat ("THRONG_PLUGIN_PATH=", plugins, NULL);
    g_autofree char *plan = throng_test_write_plan (dir, "plan.yaml", yaml);
    g_autofree char *json_arg = json != NULL ? throng_test_out_arg ("json", json) : NULL;
    g_autofree char *csv_arg = csv != NULL ? throng_test_out_arg ("csv", csv) : NULL;
    const char *argv[8] = { "run", plan, "--quiet" };
    const char *env[] = { path_env, NULL };
    gsize n = 3;
    int status = -1;

    if (json_arg != NULL) {
        argv[n++] = "--out";
        argv[n++] = json_arg;
    }
    if (csv_arg != NULL) {
        argv[n++] = "--out";
        argv[n++] = csv_arg;
    }
    g_assert_true (throng_test_run (argv, env, RUN_TIMEOUT_S, &status, NULL, err));
    g_test_message ("stderr:\n%s", *err);
    return status;
}

/*
 * `failing` returns an error from every step: asynchronously, inside
 * step_run, without a message, and with a class value the SDK does not
 * know.  The run completes (exit 0), every sample is counted once as
 * `other`, and the plugin's message reaches the rows.
 */
static void
test_plugin_fails_every_step (ThrongTestTmpdir *fixture, gconstpointer data)
{
    static const char yaml[] = "name: failing\n"
                               "scenarios:\n"
                               "  - name: s\n"
                               "    users: 2\n"
                               "    iterations: 25\n"
                               "    steps:\n"
                               "      - failing: { mode: async }\n"
                               "      - failing: { mode: sync }\n"
                               "      - failing: { mode: nomessage }\n"
                               "      - failing: { mode: badclass }\n";
    g_autofree char *json = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (run_with_plugins (fixture->dir, "misbehave", yaml, json, csv, &err), ==, 0);
    throng_test_assert_no_glib_noise (err);
    root = throng_test_json_load (json, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 200);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 200);
    g_assert_cmpint (throng_test_summary_class (root, "total", "other"), ==, 200);
    throng_test_summary_assert_totals (root, "total");
    for (guint i = 0; i < 4; i++) {
        g_autofree char *stats = g_strdup_printf ("scenarios.0.steps.%u.stats", i);

        g_assert_cmpint (throng_test_summary_class (root, stats, "other"), ==, 50);
        throng_test_summary_assert_totals (root, stats);
    }
    g_assert_cmpuint (throng_test_csv_rows (csv), ==, 200);
    g_assert_cmpuint (csv_count (csv, ",false,other: failing: refused on purpose,"), ==, 100);
    g_assert_cmpuint (csv_count (csv, ",false,other: failing: a class from the future,"), ==, 50);
}

/* A plugin whose init fails, and one that registers a name twice: exit 3, one clear line. */
typedef struct {
    const char *plugin;
    const char *message;
} Refused;

static const Refused refused_cases[] = {
    { "initfails", "libthrong-initfails.so: init failed: no licence file" },
    { "twice", "libthrong-twice.so: protocol 'null2' is registered twice" },
};

static void
test_plugin_refused (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const Refused *r = data;
    g_autofree char *step = g_strdup_printf ("      - %s: {}\n", r->plugin);
    g_autofree char *yaml
        = throng_test_plan_yaml (&(ThrongTestPlan) { .name = "refused", .steps = step });
    g_autofree char *json = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *err = NULL;
    g_auto (GStrv) lines = NULL;

    g_assert_cmpint (run_with_plugins (fixture->dir, "bad", yaml, json, NULL, &err), ==, 3);
    throng_test_assert_no_glib_noise (err);
    g_assert_nonnull (strstr (err, r->message));
    g_assert_true (g_str_has_prefix (err, "throng: "));
    /* One line, and no load sent: no summary written. */
    lines = g_strsplit (g_strchomp (err), "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 1);
    g_assert_false (g_file_test (json, G_FILE_TEST_EXISTS));
}

/* ------------------------------------------------------------------ */
/* A slow connect that succeeds                                        */

/* The Connect column (the last) of the CSV's first sample row, in ms. */
static gint64
csv_first_connect_ms (const char *path)
{
    g_autofree char *text = NULL;
    g_auto (GStrv) lines = NULL;
    const char *last;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", 3);
    g_assert_cmpuint (g_strv_length (lines), >=, 2);
    last = strrchr (lines[1], ',');
    g_assert_nonnull (last);
    return g_ascii_strtoll (last + 1, NULL, 10);
}

/*
 * On loopback a connect completes inside the call, so the path where a
 * connection waits to become writable is otherwise reached only by
 * connects that fail.  The slow-accept listener drops the first SYN (its
 * queue is full) and then empties the queue, so the connect completes on
 * the SYN's retransmission a second later.  The request must succeed,
 * the second second must show in its elapsed and connect times, and the
 * next iteration must reuse the connection.
 */
static void
test_slow_connect (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *transport = data;
    g_autoptr (ThrongTestFaultServer) server
        = throng_test_fault_server_start ((const char *const[]) { FAULT_KIND_SLOW_ACCEPT, NULL });
    g_autofree char *base_url
        = g_strdup_printf ("http://127.0.0.1:%u", throng_test_fault_server_port (server, 0));
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "slow-connect",
        .transport = transport,
        .base_url = base_url,
        .http = "timeout: 10s, connect_timeout: 5s",
        .users = 1,
        .iterations = 2,
        .steps = "      - http: { url: " FAULT_PATH_OK " }\n",
    });
    g_autofree char *csv = g_build_filename (fixture->dir, "samples.csv", NULL);
    g_autofree char *csv_arg = throng_test_out_arg ("csv", csv);
    const char *extra[] = { "--out", csv_arg, NULL };
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    gint64 max_us, connect_ms;
    int status = -1;

    root = throng_test_run_json (fixture->dir, yaml, extra, RUN_TIMEOUT_S, &status, &err);
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    max_us = throng_test_json_int (root, "total.latency_us.max");
    connect_ms = csv_first_connect_ms (csv);
    g_test_message ("slowest request %" G_GINT64_FORMAT " us, first connect %" G_GINT64_FORMAT
                    " ms",
                    max_us, connect_ms);
    /* Linux retransmits a SYN after its initial RTO of one second. */
    g_assert_cmpint (max_us, >=, 900 * 1000);
    g_assert_cmpint (max_us, <=, (1000 + SLACK_MS) * 1000);
    g_assert_cmpint (connect_ms, >=, 900);
}

/*
 * A TLS server that resets every connection as it accepts it, met by
 * 6,000 connects from 100 users at once.  Where the reset lands decides
 * the class (`reset` before or as TCP connects, `tls` under the
 * handshake), and nothing else may come of it: on soup, glib-networking
 * 2.74 printed a GLib-GObject critical about once in a thousand
 * connections, when the reset came between TCP's connect and the
 * handshake (docs/failure-modes.md); this run under fatal-criticals saw
 * several before the soup transport ended such a connection itself.
 */
static void
test_tls_reset_storm (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const char *transport = data;
    g_autoptr (ThrongTestFaultServer) server
        = throng_test_fault_server_start ((const char *const[]) { FAULT_KIND_RESET_ACCEPT, NULL });
    g_autofree char *base_url
        = g_strdup_printf ("https://127.0.0.1:%u", throng_test_fault_server_port (server, 0));
    /* Under the sanitizers a third of it, which still meets the race (6,000
     * took over a minute there on a busy machine). */
    guint iterations = g_getenv ("THRONG_SANITIZED") != NULL ? 20 : 60;
    g_autofree char *yaml = throng_test_plan_yaml (&(ThrongTestPlan) {
        .name = "tls-reset-storm",
        .transport = transport,
        .base_url = base_url,
        .http = "timeout: 5s, tls: { verify: false }",
        .users = 100,
        .iterations = iterations,
        .steps = "      - http: { url: " FAULT_PATH_OK " }\n",
    });
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = NULL;
    gint64 reset, tls;
    int status = -1;

    root = throng_test_run_json (fixture->dir, yaml, NULL, RUN_TIMEOUT_S, &status, &err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (root);
    throng_test_assert_no_glib_noise (err);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 100 * iterations);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 100 * iterations);
    reset = throng_test_summary_class (root, "total", "reset");
    tls = throng_test_summary_class (root, "total", "tls");
    g_test_message ("%s: %" G_GINT64_FORMAT " reset, %" G_GINT64_FORMAT " tls", transport, reset,
                    tls);
    g_assert_cmpint (reset + tls, ==, 100 * iterations);
}

/* ------------------------------------------------------------------ */

static const char *const transports[] = { "fast", "soup" };

static FaultRun fault_runs[G_N_ELEMENTS (transports) * G_N_ELEMENTS (fault_cases)];

static void
add_fixture_test (const char *path, gconstpointer data, void (*fn) (Fixture *, gconstpointer))
{
    g_test_add (path, Fixture, data, fixture_setup, fn, fixture_teardown);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        for (gsize i = 0; i < G_N_ELEMENTS (fault_cases); i++) {
            FaultRun *run = &fault_runs[t * G_N_ELEMENTS (fault_cases) + i];
            g_autofree char *path
                = g_strdup_printf ("/faults/%s/%s", transports[t], fault_cases[i].name);

            run->fault = &fault_cases[i];
            run->transport = transports[t];
            add_fixture_test (path, run, test_fault);
        }
    }
    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        g_autofree char *mixed = g_strdup_printf ("/faults/%s/mixed-totals", transports[t]);
        g_autofree char *memory = g_strdup_printf ("/faults/%s/endless-body-memory", transports[t]);
        g_autofree char *dies = g_strdup_printf ("/faults/%s/target-dies", transports[t]);

        add_fixture_test (mixed, transports[t], test_mixed);
        add_fixture_test (memory, transports[t], test_memory_bounded);
        add_fixture_test (dies, transports[t], test_target_dies);
    }
    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        g_autofree char *path = g_strdup_printf ("/faults/%s/slow-connect", transports[t]);

        g_test_add (path, ThrongTestTmpdir, transports[t], throng_test_tmpdir_setup,
                    test_slow_connect, throng_test_tmpdir_teardown);
    }
    for (gsize t = 0; t < G_N_ELEMENTS (transports); t++) {
        g_autofree char *path = g_strdup_printf ("/faults/%s/tls-reset-storm", transports[t]);

        g_test_add (path, ThrongTestTmpdir, transports[t], throng_test_tmpdir_setup,
                    test_tls_reset_storm, throng_test_tmpdir_teardown);
    }
    g_test_add ("/faults/plugin/fails-every-step", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_plugin_fails_every_step, throng_test_tmpdir_teardown);
    for (gsize i = 0; i < G_N_ELEMENTS (refused_cases); i++) {
        g_autofree char *path
            = g_strdup_printf ("/faults/plugin/refused/%s", refused_cases[i].plugin);

        g_test_add (path, ThrongTestTmpdir, &refused_cases[i], throng_test_tmpdir_setup,
                    test_plugin_refused, throng_test_tmpdir_teardown);
    }
    add_fixture_test ("/faults/reporter/csv-dev-full", NULL, test_csv_dev_full);
    add_fixture_test ("/faults/reporter/json-dev-full", NULL, test_json_dev_full);
    add_fixture_test ("/faults/reporter/csv-full-tmpfs", NULL, test_csv_full_tmpfs);
    add_fixture_test ("/faults/reporter/csv-full-tmpfs-whole-rows", NULL,
                      test_csv_full_tmpfs_whole_rows);
    return g_test_run ();
}
