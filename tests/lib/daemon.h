/* SPDX-License-Identifier: MIT */
/*
 * The outside programs the reporter tests talk to: a daemon (prometheus,
 * influxd) started from the configuration a test wrote, with its output
 * in a log file, ready once a URL of it answers, stopped by its PID; and
 * a one-shot tool (xmllint) whose output the test reads.  What each test
 * keeps is only what differs: its arguments, its ready URL, its queries.
 */
#pragma once

#include <glib.h>

#include "subprocess.h"

G_BEGIN_DECLS

typedef struct {
    const char *name;           /* for messages: "prometheus" */
    const char *const *argv;    /* NULL-terminated, argv[0] the program */
    const char *log_path;       /* where its output goes */
    const char *ready_url;      /* answers 2xx once it serves */
    guint ready_timeout_ms;     /* 0: 30 s */
} ThrongTestDaemon;

/*
 * Starts @daemon and waits for its ready URL.  Returns the running process,
 * or NULL (the process stopped again) when it did not become ready in
 * time: a port taken between the test's choice and the daemon's bind, so
 * the caller may try other ports.
 */
ThrongTestProcess *throng_test_daemon_start (const ThrongTestDaemon *daemon);

/*
 * Stops *@process (NULL is a no-op): SIGCONT first, in case the test
 * stopped it, then SIGTERM, SIGKILL after @grace_ms; frees it and sets
 * *@process to NULL.
 */
void throng_test_daemon_stop (ThrongTestProcess **process, guint grace_ms);

/* Fails the test: @daemon never became ready; its log says why. */
G_NORETURN void throng_test_daemon_fail (const ThrongTestDaemon *daemon);

/*
 * Runs a tool (@argv, argv[0] the program) to its end, at most @timeout_s;
 * asserts that it exited 0 (its stderr in the log if not) and returns its
 * standard output, stripped.
 */
char *throng_test_tool_output (const char *const *argv, guint timeout_s);

G_END_DECLS
