/* SPDX-License-Identifier: MIT */
/*
 * Daemons and tools the reporter tests drive (daemon.h): start, wait
 * until ready, stop by PID; run a tool and read its output.
 */
#include "daemon.h"

#include <signal.h>

#include "http-client.h"

#define READY_TIMEOUT_MS 30000

ThrongTestProcess *
throng_test_daemon_start (const ThrongTestDaemon *daemon)
{
    g_autoptr (GError) error = NULL;
    ThrongTestProcess *process = throng_test_process_spawn (
        daemon->argv,
        &(ThrongTestSpawnOptions) { .output_path = daemon->log_path, .death_signal = SIGTERM },
        &error);

    g_assert_no_error (error);
    g_test_message ("%s pid %s, ready at %s", daemon->name, throng_test_process_pid (process),
                    daemon->ready_url);
    if (throng_test_http_wait_ok (daemon->ready_url, daemon->ready_timeout_ms > 0
                                                         ? daemon->ready_timeout_ms
                                                         : READY_TIMEOUT_MS))
        return process;
    throng_test_daemon_stop (&process, 5000);
    return NULL;
}

void
throng_test_daemon_stop (ThrongTestProcess **process, guint grace_ms)
{
    if (*process == NULL)
        return;
    throng_test_process_signal (*process, SIGCONT);
    throng_test_process_stop (*process, SIGTERM, grace_ms);
    g_clear_pointer (process, throng_test_process_free);
}

void
throng_test_daemon_fail (const ThrongTestDaemon *daemon)
{
    g_autofree char *text = NULL;

    g_file_get_contents (daemon->log_path, &text, NULL, NULL);
    g_error ("%s did not become ready:\n%s", daemon->name, text != NULL ? text : "(no log)");
}

char *
throng_test_tool_output (const char *const *argv, guint timeout_s)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_process_run (argv, NULL, timeout_s, &out, &err);

    if (status != 0) {
        g_autofree char *line = g_strjoinv (" ", (char **) argv);
        g_test_message ("%s: exit %d: %s", line, status, err);
    }
    g_assert_cmpint (status, ==, 0);
    return g_strstrip (g_steal_pointer (&out));
}
