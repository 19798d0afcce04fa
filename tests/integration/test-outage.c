/* SPDX-License-Identifier: MIT */
/*
 * A target that goes away and comes back during a run (issue 31): nginx,
 * from a generated configuration, is stopped by its PID in the middle of a
 * run of the real `throng` binary and started again on the same port;
 * once for each transport × HTTP version × TLS session policy, and once
 * per transport and version with the port taken, while nginx is away, by a
 * listener of this test that accepts and never answers.  From the run's
 * jsonl file (intervals and samples) and its summary, and nginx's access
 * log, each case must show that every request was counted once, in
 * `connect`, `reset` or `timeout` when it failed; that no failure lies
 * outside the outage; that the intervals inside the outage have no success
 * and the ones before and after it no failure; that the rate of successes
 * was back to the level before within 2 s of nginx accepting again (the
 * time it took is printed), and no user stayed stuck; and that the
 * summary's successes are nginx's log lines.
 *
 * The cases of one test run concurrently, each with its own nginx and its
 * own throng, so that the matrix costs one run's time.  That keeps the
 * assertions sound: each compares a case with itself before the outage,
 * the load is set by think time (5 users, 50 ms), far below what
 * saturates this machine, and the one check that the machine's noise
 * could fail, a rate, has a floor below it (FLOOR_LEVEL) while a stuck
 * user is found exactly, by time (STUCK_US).  The default
 * suite runs 12 s with a 3 s outage 2 s into the load; the `slow` suite
 * (`outage-slow`, `-m slow`) runs the exact 20 s with a 3 s
 * outage in its middle.
 */
#include "test-utils.h"

#include <signal.h>
#include <string.h>

#define USERS 5
/* The step's and the connect's limit: a request to the silent listener
 * ends as `timeout` after this long. */
#define TIMEOUT_US (1 * G_USEC_PER_SEC)
#define OUTAGE_US (3 * G_USEC_PER_SEC)
/* Issue 31: requests per second back to the level before within 2 s. */
#define RECOVERY_LIMIT_US (2 * G_USEC_PER_SEC)
/*
 * "The level before", as a share of the rate of successes before the
 * outage: the recovery time reported is to FIGURE_LEVEL; the checks ask
 * for FLOOR_LEVEL, because on a loaded 2-core machine soup's per-iteration
 * handshakes alone move its rate by a third from one second to the next
 * (measured: 37 to 74 a second before any outage).  A stuck user is found
 * exactly by STUCK_US instead.
 */
#define FIGURE_LEVEL 0.8
#define FLOOR_LEVEL 0.6
/* The width of the sliding window that tells when the rate is back. */
#define WINDOW_US (500 * 1000)
/* No request outlives TIMEOUT_US and the think time is 50 ms: a user that
 * starts none for this long is not slow but stuck. */
#define STUCK_US (1500 * 1000)
/* The clock of the jsonl file's times counts milliseconds. */
#define SLACK_US (100 * 1000)

typedef struct {
    const char *transport;
    const char *version;
    const char *policy;
    gboolean takeover; /* the port is taken by a silent listener during the outage */
} OutageCase;

/* ------------------------------------------------------------------ */
/* The listener that takes the port: accepts, never reads, never answers */

typedef struct {
    guint16 port;
    GSocketService *service;
    GPtrArray *held;
    ThrongTestServerThread *thread;
} Squatter;

static gboolean
squatter_incoming (GSocketService *service, GSocketConnection *connection, GObject *source,
                   gpointer user_data)
{
    Squatter *squatter = user_data;

    g_ptr_array_add (squatter->held, g_object_ref (connection));
    return TRUE;
}

static void
squatter_start (gpointer data, gpointer unused)
{
    Squatter *squatter = data;
    g_autoptr (GSocketAddress) address
        = g_inet_socket_address_new_from_string ("127.0.0.1", squatter->port);
    g_autoptr (GError) error = NULL;

    squatter->held = g_ptr_array_new_with_free_func (g_object_unref);
    squatter->service = g_socket_service_new ();
    g_socket_listener_add_address (G_SOCKET_LISTENER (squatter->service), address,
                                   G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL, NULL, &error);
    g_assert_no_error (error);
    g_signal_connect (squatter->service, "incoming", G_CALLBACK (squatter_incoming), squatter);
    g_socket_service_start (squatter->service);
}

/* Closes everything it accepted, as a process that dies would: the
 * ClientHellos it never read make the kernel answer with a reset. */
static void
squatter_finish (gpointer data, gpointer unused)
{
    Squatter *squatter = data;

    g_socket_service_stop (squatter->service);
    g_socket_listener_close (G_SOCKET_LISTENER (squatter->service));
    for (guint i = 0; i < squatter->held->len; i++)
        g_io_stream_close (g_ptr_array_index (squatter->held, i), NULL, NULL);
    g_test_message ("silent listener on %u accepted %u connections", squatter->port,
                    squatter->held->len);
    g_clear_pointer (&squatter->held, g_ptr_array_unref);
    g_clear_object (&squatter->service);
}

static Squatter *
squatter_start_on (guint16 port)
{
    Squatter *squatter = g_new0 (Squatter, 1);

    squatter->port = port;
    squatter->thread
        = throng_test_server_thread_start ("squatter", squatter_start, squatter_finish, squatter);
    return squatter;
}

static void
squatter_stop (Squatter *squatter)
{
    if (squatter == NULL)
        return;
    throng_test_server_thread_stop (squatter->thread);
    g_free (squatter);
}

/* ------------------------------------------------------------------ */
/* What the run wrote                                                  */

typedef struct {
    gint64 start_us; /* wall clock */
    guint user;
    const char *error; /* the class, or NULL for a success; owned by the parsed line */
} Sample;

typedef struct {
    gint64 start_us, end_us;
    gint64 requests, errors;
} Interval;

typedef struct {
    GPtrArray *lines; /* JsonNode, owning the strings the samples point into */
    GArray *samples;
    GArray *intervals;
    JsonNode *summary; /* the last line's */
} RunFile;

static gint64
iso_to_us (const char *text)
{
    g_autoptr (GDateTime) time = g_date_time_new_from_iso8601 (text, NULL);

    g_assert_nonnull (time);
    return g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
}

static void
run_file_read (RunFile *file, const char *path)
{
    g_autofree char *text = NULL;
    g_auto (GStrv) lines = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    file->lines = g_ptr_array_new_with_free_func ((GDestroyNotify)json_node_unref);
    file->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
    file->intervals = g_array_new (FALSE, FALSE, sizeof (Interval));
    for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        g_autoptr (GError) error = NULL;
        JsonNode *node = json_from_string (lines[i], &error);
        const char *type;

        g_assert_no_error (error);
        g_ptr_array_add (file->lines, node);
        type = throng_test_json_string (node, "type");
        if (strcmp (type, "sample") == 0) {
            JsonNode *klass = throng_test_json_get (node, "error");
            Sample s = {
                .start_us = iso_to_us (throng_test_json_string (node, "time")),
                .user = (guint)throng_test_json_int (node, "user"),
                .error = JSON_NODE_HOLDS_NULL (klass) ? NULL : json_node_get_string (klass),
            };
            g_array_append_val (file->samples, s);
        } else if (strcmp (type, "interval") == 0) {
            Interval v = {
                .end_us = iso_to_us (throng_test_json_string (node, "time")),
                .requests = throng_test_json_int (node, "total.requests"),
                .errors = throng_test_json_int (node, "total.errors"),
            };
            v.start_us = v.end_us
                         - (gint64)(throng_test_json_double (node, "interval_s") * G_USEC_PER_SEC);
            g_array_append_val (file->intervals, v);
        } else if (strcmp (type, "summary") == 0) {
            file->summary = node;
        }
    }
    g_assert_nonnull (file->summary);
}

static void
run_file_clear (RunFile *file)
{
    g_clear_pointer (&file->samples, g_array_unref);
    g_clear_pointer (&file->intervals, g_array_unref);
    g_clear_pointer (&file->lines, g_ptr_array_unref);
    file->summary = NULL;
}

/* Successful requests that started in [@from, @to). */
static guint
successes_between (const RunFile *file, gint64 from, gint64 to)
{
    guint n = 0;

    for (guint i = 0; i < file->samples->len; i++) {
        const Sample *s = &g_array_index (file->samples, Sample, i);

        if (s->error == NULL && s->start_us >= from && s->start_us < to)
            n++;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* One case                                                            */

typedef struct {
    const OutageCase *c;
    char *label;
    char *dir;
    char *jsonl;
    char *summary_path;
    ThrongTestNginx *nginx;
    ThrongTestProcess *throng;
    Squatter *squatter;
    /* Wall clock, µs: the signal sent, nginx reaped, the restart begun,
     * nginx accepting again. */
    gint64 stop_begin, stop_end, restart_begin, back;
} Run;

static char *
case_label (const OutageCase *c)
{
    return g_strdup_printf ("%s/h%s/%s%s", c->transport, strcmp (c->version, "2") == 0 ? "2" : "1",
                            c->policy, c->takeover ? "/takeover" : "");
}

static void
run_start (Run *run, const char *parent, guint index, const char *duration)
{
    const OutageCase *c = run->c;
    g_autofree char *http = NULL;
    g_autofree char *extra = NULL;
    g_autofree char *yaml = NULL;
    g_autofree char *plan = NULL;
    g_autofree char *name = g_strdup_printf ("case-%u", index);
    g_auto (GStrv) args = NULL;

    run->dir = g_build_filename (parent, name, NULL);
    g_assert_cmpint (g_mkdir_with_parents (run->dir, 0755), ==, 0);
    run->jsonl = g_build_filename (run->dir, "run.jsonl", NULL);
    run->summary_path = g_build_filename (run->dir, "summary.json", NULL);
    http = g_strdup_printf ("version: \"%s\", timeout: 1s, connect_timeout: 1s, "
                            "tls: { ca_file: '%s', session: %s }",
                            c->version, throng_test_nginx_certs (run->nginx)->ca_cert, c->policy);
    extra = g_strdup_printf ("reporters:\n  - json: { path: '%s', mode: jsonl, samples: true }\n",
                             run->jsonl);
    yaml = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "outage",
        .transport = c->transport,
        .base_url = throng_test_nginx_https_url (run->nginx),
        .http = http,
        .scenario = "outage",
        .users = USERS,
        .duration = duration,
        .scenario_extra = "    think_time: 50ms\n",
        .steps = "      - http: { url: / }\n",
        .plan_extra = extra,
    });
    plan = throng_test_write_plan (run->dir, "plan.yaml", yaml);
    args = throng_test_run_args (plan, run->summary_path);
    run->throng = throng_test_spawn ((const char *const *)args, NULL);
}

/* TRUE once nginx has logged a few requests of the run. */
static gboolean
run_flowing (Run *run)
{
    ThrongTestNginxLog log;

    throng_test_nginx_log_read (run->nginx, &log);
    return log.lines >= 10;
}

static void
run_stop_target (Run *run)
{
    run->stop_begin = g_get_real_time ();
    /* A crash before the port is taken; nginx's own shutdown otherwise. */
    throng_test_nginx_kill (run->nginx, run->c->takeover ? SIGKILL : SIGTERM);
    run->stop_end = g_get_real_time ();
    if (run->c->takeover)
        run->squatter = squatter_start_on (throng_test_nginx_https_port (run->nginx));
}

static void
run_restart_target (Run *run)
{
    g_autoptr (GError) error = NULL;
    gboolean up;

    g_clear_pointer (&run->squatter, squatter_stop);
    run->restart_begin = g_get_real_time ();
    up = throng_test_nginx_restart (run->nginx, &error);
    g_assert_no_error (error);
    g_assert_true (up);
    run->back = g_get_real_time ();
}

static void
run_free (Run *run)
{
    g_clear_pointer (&run->squatter, squatter_stop);
    g_clear_pointer (&run->throng, throng_test_process_free);
    g_clear_pointer (&run->nginx, throng_test_nginx_stop);
    g_free (run->label);
    g_free (run->dir);
    g_free (run->jsonl);
    g_free (run->summary_path);
}

#define EXPECT(run, cond, ...)                                                                     \
    G_STMT_START                                                                                   \
    {                                                                                              \
        if (!(cond)) {                                                                             \
            g_autofree char *what_ = g_strdup_printf (__VA_ARGS__);                                \
            /* Every failure in the log; the test's verdict keeps the last. */                     \
            g_test_message ("FAILED %s: %s (%s)", (run)->label, what_, #cond);                     \
            g_test_fail_printf ("%s: %s (%s)", (run)->label, what_, #cond);                        \
        }                                                                                          \
    }                                                                                              \
    G_STMT_END

static const char *const outage_classes[] = { "connect", "reset", "timeout" };

/* Every request once, and each failure in a class an outage can cause. */
static void
check_counted_once (Run *run, const RunFile *file, JsonNode *summary)
{
    gint64 requests = throng_test_json_int (summary, "total.requests");
    gint64 errors = throng_test_json_int (summary, "total.errors");
    gint64 in_classes = 0;
    JsonObject *by_class
        = json_node_get_object (throng_test_json_get (summary, "total.errors_by_class"));
    g_autoptr (GList) names = json_object_get_members (by_class);

    throng_test_summary_assert_totals (summary, "total");
    EXPECT (run, throng_test_json_int (summary, "samples_dropped") == 0, "samples dropped");
    EXPECT (run, (gint64)file->samples->len == requests,
            "%u samples for %" G_GINT64_FORMAT " requests", file->samples->len, requests);
    EXPECT (run, errors > 0, "the outage failed no request");
    for (GList *l = names; l != NULL; l = l->next) {
        gboolean known = g_strv_contains (outage_classes, l->data);

        EXPECT (run, known, "class %s: %" G_GINT64_FORMAT " requests", (const char *)l->data,
                json_object_get_int_member (by_class, l->data));
    }
    for (guint k = 0; k < G_N_ELEMENTS (outage_classes); k++) {
        gint64 in_summary = throng_test_summary_class (summary, "total", outage_classes[k]);
        gint64 in_samples = 0;

        for (guint i = 0; i < file->samples->len; i++) {
            const Sample *s = &g_array_index (file->samples, Sample, i);

            if (s->error != NULL && strcmp (s->error, outage_classes[k]) == 0)
                in_samples++;
        }
        EXPECT (run, in_samples == in_summary,
                "%s: %" G_GINT64_FORMAT " samples, summary %" G_GINT64_FORMAT, outage_classes[k],
                in_samples, in_summary);
        in_classes += in_summary;
    }
    EXPECT (run, in_classes == errors,
            "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " errors in the outage's classes",
            in_classes, errors);
    /* The jsonl file's summary line is the summary file's. */
    EXPECT (run, throng_test_json_int (file->summary, "total.requests") == requests,
            "jsonl summary");
}

/* The summary's successes are what nginx logged, over the version asked for. */
static void
check_server_log (Run *run, JsonNode *summary)
{
    gint64 successes = throng_test_json_int (summary, "total.requests")
                       - throng_test_json_int (summary, "total.errors");
    ThrongTestNginxLog log;

    throng_test_nginx_log_wait (run->nginx, (guint)successes, 5000, &log);
    if (run->c->takeover) {
        /*
         * nginx dies of SIGKILL here, a crash: a response already sent may
         * never reach the log (nginx logs after sending), one per user at
         * most.  Seen once in five CI runs: 877 lines for 878 successes.
         */
        EXPECT (run, log.lines <= successes && successes - log.lines <= USERS,
                "nginx logged %u requests, throng %" G_GINT64_FORMAT " successes (a crash "
                "may lose at most one line per user)",
                log.lines, successes);
    } else {
        EXPECT (run, log.lines == successes,
                "nginx logged %u requests, throng %" G_GINT64_FORMAT " successes", log.lines,
                successes);
    }
    EXPECT (run, log.status_2xx == log.lines, "%u of %u logged requests 2xx", log.status_2xx,
            log.lines);
    EXPECT (run, log.http2 == (strcmp (run->c->version, "2") == 0 ? log.lines : 0),
            "%u of %u logged requests over HTTP/2", log.http2, log.lines);
}

/* Failures only in the outage, and the intervals show it where it happened. */
static void
check_timeline (Run *run, const RunFile *file, double baseline_rps)
{
    guint inside = 0;
    gint64 last = 0; /* the last request's start: the load's end */

    for (guint i = 0; i < file->samples->len; i++) {
        const Sample *s = &g_array_index (file->samples, Sample, i);

        last = MAX (last, s->start_us);
        if (s->error == NULL)
            continue;
        /* A request may be under way when nginx goes (for up to TIMEOUT),
         * and none may fail once nginx accepts again. */
        EXPECT (run,
                s->start_us >= run->stop_begin - TIMEOUT_US - SLACK_US
                    && s->start_us <= run->back + SLACK_US,
                "a %s failure %.3f s after nginx was stopped", s->error,
                (s->start_us - run->stop_begin) / 1e6);
    }
    for (guint i = 0; i < file->intervals->len; i++) {
        const Interval *v = &g_array_index (file->intervals, Interval, i);
        double length_s = (v->end_us - v->start_us) / 1e6;

        if (v->end_us <= run->stop_begin - SLACK_US) {
            EXPECT (run, v->requests > 0 && v->errors == 0,
                    "interval %u, before the outage: %" G_GINT64_FORMAT
                    " requests, %" G_GINT64_FORMAT " errors",
                    i, v->requests, v->errors);
        } else if (v->start_us >= run->stop_end + SLACK_US
                   && v->end_us <= run->restart_begin - SLACK_US) {
            inside++;
            EXPECT (run, v->requests > 0 && v->errors == v->requests,
                    "interval %u, in the outage: %" G_GINT64_FORMAT " requests, %" G_GINT64_FORMAT
                    " errors",
                    i, v->requests, v->errors);
        } else if (v->start_us >= run->back + RECOVERY_LIMIT_US) {
            double rps = (v->requests - v->errors) / length_s;

            /* The last interval runs on past the load while the users
             * finish: its rate says nothing. */
            EXPECT (run, v->errors == 0 && (v->end_us > last || rps >= FLOOR_LEVEL * baseline_rps),
                    "interval %u, after the outage: %.1f successes/s against %.1f before, "
                    "%" G_GINT64_FORMAT " errors",
                    i, rps, baseline_rps, v->errors);
        }
    }
    EXPECT (run, inside >= 1, "no interval lies inside the outage");
}

/* When the rate of successes, in a window sliding by 10 ms from @from, first reached @rps; -1:
 * never. */
static gint64
rate_reached (const RunFile *file, gint64 from, gint64 last, double rps)
{
    for (gint64 t = from; t + WINDOW_US <= last; t += 10 * 1000) {
        if (successes_between (file, t, t + WINDOW_US) * (double)G_USEC_PER_SEC / WINDOW_US >= rps)
            return t - from;
    }
    return -1;
}

/*
 * No user stuck once nginx is back: every user succeeds again, and from
 * RECOVERY_LIMIT_US on, none goes STUCK_US without starting a request, up
 * to the end of the load (@last, the last request's start).
 */
static void
check_users (Run *run, const RunFile *file, gint64 last)
{
    for (guint u = 0; u < USERS; u++) {
        gint64 previous = run->back + RECOVERY_LIMIT_US, longest = 0;
        gboolean succeeded = FALSE;

        for (guint i = 0; i < file->samples->len; i++) {
            const Sample *s = &g_array_index (file->samples, Sample, i);

            if (s->user != u || s->start_us < previous)
                continue;
            longest = MAX (longest, s->start_us - previous);
            previous = s->start_us;
            succeeded |= s->error == NULL;
        }
        longest = MAX (longest, last - previous);
        EXPECT (run, succeeded, "user %u never succeeded again", u);
        EXPECT (run, longest <= STUCK_US, "user %u started no request for %.2f s after the outage",
                u, longest / 1e6);
    }
}

/*
 * The rate of successes before the outage; how long after nginx accepted
 * again it was back at FIGURE_LEVEL of it (returned, µs, -1 for never)
 * and at FLOOR_LEVEL (checked against RECOVERY_LIMIT_US); and that it
 * stayed there to the end.
 */
static gint64
check_recovery (Run *run, const RunFile *file, double *out_baseline_rps)
{
    gint64 first = G_MAXINT64, last = 0;
    gint64 from, to, floor_at;
    double baseline_rps;

    for (guint i = 0; i < file->samples->len; i++) {
        const Sample *s = &g_array_index (file->samples, Sample, i);

        first = MIN (first, s->start_us);
        last = MAX (last, s->start_us);
    }
    /* Before: from half a second into the load to the stop. */
    from = first + G_USEC_PER_SEC / 2;
    to = run->stop_begin;
    g_assert_cmpint (to - from, >=, G_USEC_PER_SEC);
    baseline_rps = successes_between (file, from, to) * (double)G_USEC_PER_SEC / (to - from);
    *out_baseline_rps = baseline_rps;

    /* Stopping and starting a dozen nginx takes seconds on a loaded
     * machine: a run that ended too soon after them proves nothing. */
    EXPECT (run, last >= run->back + RECOVERY_LIMIT_US + G_USEC_PER_SEC,
            "the load ended %.2f s after nginx was back: too soon to tell",
            (last - run->back) / 1e6);
    floor_at = rate_reached (file, run->back, last, FLOOR_LEVEL * baseline_rps);
    EXPECT (run, floor_at >= 0 && floor_at <= RECOVERY_LIMIT_US,
            "requests per second back to %.0f%% of %.1f after %.2f s", FLOOR_LEVEL * 100,
            baseline_rps, floor_at / 1e6);
    check_users (run, file, last);

    from = run->back + RECOVERY_LIMIT_US;
    if (last - from >= G_USEC_PER_SEC) {
        double after
            = successes_between (file, from, last) * (double)G_USEC_PER_SEC / (last - from);

        EXPECT (run, after >= FLOOR_LEVEL * baseline_rps,
                "%.1f successes/s after the outage, %.1f before", after, baseline_rps);
    }
    return rate_reached (file, run->back, last, FIGURE_LEVEL * baseline_rps);
}

static void
run_check (Run *run, guint timeout_s)
{
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) summary = NULL;
    RunFile file = { NULL };
    double baseline_rps = 0;
    gint64 recovery;
    int status = -1;

    g_assert_true (throng_test_process_wait (run->throng, timeout_s, &status, NULL, &err));
    if (status != 0)
        g_test_message ("%s: stderr:\n%s", run->label, err);
    EXPECT (run, status == 0, "throng exited %d", status);
    throng_test_assert_no_glib_noise (err);
    summary = throng_test_json_load (run->summary_path, &error);
    g_assert_no_error (error);
    run_file_read (&file, run->jsonl);

    check_counted_once (run, &file, summary);
    check_server_log (run, summary);
    recovery = check_recovery (run, &file, &baseline_rps);
    check_timeline (run, &file, baseline_rps);

    g_test_message (
        "%s: %" G_GINT64_FORMAT " requests, %" G_GINT64_FORMAT " connect, %" G_GINT64_FORMAT
        " reset, %" G_GINT64_FORMAT " timeout, %" G_GINT64_FORMAT " retries; outage %.2f s; "
        "%.1f successes/s before, back to %.0f%% %.2f s after nginx accepted again",
        run->label, throng_test_json_int (summary, "total.requests"),
        throng_test_summary_class (summary, "total", "connect"),
        throng_test_summary_class (summary, "total", "reset"),
        throng_test_summary_class (summary, "total", "timeout"),
        throng_test_json_int (summary, "total.retries"), (run->back - run->stop_begin) / 1e6,
        baseline_rps, FIGURE_LEVEL * 100, recovery / 1e6);
    run_file_clear (&file);
}

/*
 * All @cases at once: each starts its nginx and its throng; once every
 * nginx has logged requests, a baseline passes, every nginx is stopped,
 * OUTAGE_US later every one is back, and the runs are checked as they end.
 */
static void
run_cases (ThrongTestTmpdir *fixture, const OutageCase *cases, guint n_cases)
{
    /* The 20 s run with the outage in its middle, in the slow
     * suite; otherwise 12 s, the outage 2 s into the load, which leaves
     * time after it for stops and restarts slowed by a loaded machine. */
    const char *duration = g_test_slow () ? "20s" : "12s";
    gulong baseline_us = g_test_slow () ? 8500 * 1000 : 2000 * 1000;
    guint timeout_s = g_test_slow () ? 90 : 80;
    g_autofree Run *runs = g_new0 (Run, n_cases);
    gint64 deadline;

    if (!throng_test_require_nginx ())
        return;
    for (guint i = 0; i < n_cases; i++) {
        runs[i].c = &cases[i];
        runs[i].label = case_label (&cases[i]);
        runs[i].nginx = throng_test_nginx_require (&(ThrongTestNginxConfig){
            .https = TRUE,
            .http2 = TRUE,
            .session_tickets = TRUE,
        });
    }
    for (guint i = 0; i < n_cases; i++)
        run_start (&runs[i], fixture->dir, i, duration);

    /* Start-up takes seconds in a sanitized build: the baseline counts from the first requests. */
    deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    for (guint i = 0; i < n_cases; i++) {
        while (!run_flowing (&runs[i]) && g_get_monotonic_time () < deadline)
            g_usleep (20 * 1000);
        g_assert_true (run_flowing (&runs[i]));
    }
    g_usleep (baseline_us);
    for (guint i = 0; i < n_cases; i++)
        run_stop_target (&runs[i]);
    g_usleep (OUTAGE_US);
    for (guint i = 0; i < n_cases; i++)
        run_restart_target (&runs[i]);

    for (guint i = 0; i < n_cases; i++)
        run_check (&runs[i], timeout_s);
    for (guint i = 0; i < n_cases; i++)
        run_free (&runs[i]);
}

static const OutageCase restart_cases[] = {
    { "fast", "1.1", "global", FALSE },        { "fast", "1.1", "per-thread", FALSE },
    { "fast", "1.1", "per-iteration", FALSE }, { "fast", "2", "global", FALSE },
    { "fast", "2", "per-thread", FALSE },      { "fast", "2", "per-iteration", FALSE },
    { "soup", "1.1", "global", FALSE },        { "soup", "1.1", "per-thread", FALSE },
    { "soup", "1.1", "per-iteration", FALSE }, { "soup", "2", "global", FALSE },
    { "soup", "2", "per-thread", FALSE },      { "soup", "2", "per-iteration", FALSE },
};

static const OutageCase takeover_cases[] = {
    { "fast", "1.1", "per-thread", TRUE },
    { "fast", "2", "per-thread", TRUE },
    { "soup", "1.1", "per-thread", TRUE },
    { "soup", "2", "per-thread", TRUE },
};

static void
test_restart (ThrongTestTmpdir *fixture, gconstpointer data)
{
    run_cases (fixture, restart_cases, G_N_ELEMENTS (restart_cases));
}

static void
test_takeover (ThrongTestTmpdir *fixture, gconstpointer data)
{
    run_cases (fixture, takeover_cases, G_N_ELEMENTS (takeover_cases));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add ("/outage/restart", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_restart,
                throng_test_tmpdir_teardown);
    g_test_add ("/outage/takeover", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_takeover,
                throng_test_tmpdir_teardown);
    return g_test_run ();
}
