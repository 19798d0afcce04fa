/* SPDX-License-Identifier: MIT */
/*
 * Child processes of a test: the real throng binary, nginx, python3,
 * script(1), a compiler.  A child dies with the test that started it (a
 * failed assertion or meson's timeout leaves nothing behind), its output
 * is collected while it runs (so a full pipe never blocks it), and one
 * that outlives its deadline is killed by its PID and fails the test.
 * Everything here runs on the test's main thread.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Any program                                                         */

/*
 * How to start a child; zero-initialise and set what you need.
 *
 * @cwd: its working directory; NULL: the test's.
 * @envp: its whole environment ("NAME=VALUE", NULL-terminated); NULL: the
 *   test's own.
 * @env: "NAME=VALUE" strings set on top of that (NULL-terminated; may be
 *   NULL).
 * @output_path: stdout and stderr go to this file (created or truncated)
 *   instead of being collected; for servers whose output is a log.
 * @death_signal: what the child gets when the test dies; 0 is SIGKILL
 *   (SIGTERM lets nginx remove its pid file).
 * @child_setup: called in the child between fork and exec, after the
 *   death signal is set (async-signal-safe calls only), with
 *   @child_setup_data; for resource limits.
 *
 * stdin is /dev/null.
 */
typedef struct {
    const char *cwd;
    const char *const *envp;
    const char *const *env;
    const char *output_path;
    int death_signal;
    GSpawnChildSetupFunc child_setup;
    gpointer child_setup_data;
} ThrongTestSpawnOptions;

typedef struct _ThrongTestProcess ThrongTestProcess;

/*
 * Starts @argv (NULL-terminated, argv[0] the program) and begins collecting
 * its output.  Returns NULL with @error set if it could not be started.
 * @options may be NULL for the defaults.
 */
ThrongTestProcess *throng_test_process_spawn (const char *const *argv,
                                              const ThrongTestSpawnOptions *options,
                                              GError **error);

/* Its PID as a string; NULL once it has exited and been reaped. */
const char *throng_test_process_pid (ThrongTestProcess *process);

/* Sends @signum to it by its PID (nothing once it has exited). */
void throng_test_process_signal (ThrongTestProcess *process, int signum);

/*
 * Calls @fn (@data) every @interval_ms while throng_test_process_wait()
 * waits for the process, until @fn returns G_SOURCE_REMOVE; for tests that
 * watch a running child (its resident set, its descriptors).
 */
void throng_test_process_every (ThrongTestProcess *process,
                                guint interval_ms,
                                GSourceFunc fn,
                                gpointer data);

/*
 * Waits up to @timeout_s for the process to exit.  If it is still running
 * then, it is killed by its PID (SIGKILL), the test is marked failed, and
 * the function returns FALSE; otherwise TRUE.  Either way *@exit_status
 * is the exit code, or 128 + N if the process died of signal N (as a
 * shell would), and @out_stdout and @out_stderr (may be NULL) receive the
 * whole output as NUL-terminated strings ("" with @output_path).
 */
gboolean throng_test_process_wait (ThrongTestProcess *process,
                                   guint timeout_s,
                                   int *exit_status,
                                   char **out_stdout,
                                   char **out_stderr);

/*
 * Ends a server: sends @signum, waits up to @grace_ms for it to exit, then
 * kills it (SIGKILL) and reaps it.  Not a test failure either way.
 */
void throng_test_process_stop (ThrongTestProcess *process, int signum, guint grace_ms);

/*
 * Frees @process, killing (SIGKILL) and reaping it first if it still
 * runs.  NULL is a no-op.
 */
void throng_test_process_free (ThrongTestProcess *process);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestProcess, throng_test_process_free)

/*
 * Starts @argv, waits up to @timeout_s (as throng_test_process_wait()),
 * asserts that it exited in time, and returns its exit status.
 */
int throng_test_process_run (const char *const *argv,
                             const ThrongTestSpawnOptions *options,
                             guint timeout_s,
                             char **out_stdout,
                             char **out_stderr);

/* ------------------------------------------------------------------ */
/* The throng binary                                                   */

/*
 * The throng executable: $THRONG_EXE, as meson sets it.  Asserts it is set.
 */
const char *throng_test_exe (void);

/*
 * Starts $THRONG_EXE with the arguments @argv (NULL-terminated, *without*
 * the program name), as throng_test_process_spawn() does; asserts that it
 * started.  For runs that a test interrupts or watches.
 */
ThrongTestProcess *throng_test_spawn (const char *const *argv, const ThrongTestSpawnOptions *options);

/*
 * Sleeps until a throng just spawned is surely under way (its plan loaded,
 * its users running): 1.5 s, or 5 s in a sanitized build
 * ($THRONG_SANITIZED), where start-up alone takes longer.  For tests that
 * then interrupt it.
 */
void throng_test_wait_started (void);

/*
 * Runs $THRONG_EXE with the arguments @argv (NULL-terminated, *without*
 * the program name) and the environment of the test plus @env ("K=V"
 * strings overriding or adding, NULL-terminated; may be NULL), as
 * throng_test_process_wait() describes: FALSE (and the test failed) if it
 * had to be killed after @timeout_s.
 */
gboolean throng_test_run (const char *const *argv,
                          const char *const *env,
                          guint timeout_s,
                          int *exit_status,
                          char **out_stdout,
                          char **out_stderr);

/*
 * Convenience: throng_test_run() with a varargs argument list ending in
 * NULL, no extra environment, a timeout of @timeout_s.  Asserts that the
 * process exited in time.  Returns the exit status.
 */
int throng_test_runv (guint timeout_s,
                      char **out_stdout,
                      char **out_stderr,
                      const char *first_arg,
                      ...) G_GNUC_NULL_TERMINATED;

/*
 * Runs `throng run PLAN --quiet --out json=DIR/summary.json [extra…]`
 * where PLAN is @yaml written to DIR/plan.yaml.  @extra (NULL-terminated,
 * may be NULL) is appended to the arguments.  Asserts the process exited
 * within @timeout_s; sets *@exit_status, *@out_stderr (may be NULL).
 * Returns the parsed summary, or NULL if the run wrote none (for example
 * a plan error).  Free with json_node_unref().
 */
JsonNode *throng_test_run_json (const char *dir,
                                const char *yaml,
                                const char *const *extra,
                                guint timeout_s,
                                int *exit_status,
                                char **out_stderr);

/*
 * throng_test_run_json() for a run whose outcome the test knows: asserts
 * that throng exited with @expected_status (its stderr in the log if not)
 * and wrote a summary, and returns that.  *@out_stderr (may be NULL)
 * receives stderr, for throng_test_assert_no_glib_noise().
 */
JsonNode *throng_test_run_summary (const char *dir,
                                   const char *yaml,
                                   const char *const *extra,
                                   guint timeout_s,
                                   int expected_status,
                                   char **out_stderr);

/*
 * The arguments (without the program) of `throng run PLAN --quiet --out
 * json=SUMMARY`, for a run started through throng_test_spawn();
 * NULL-terminated, free with g_strfreev().
 */
char **throng_test_run_args (const char *plan, const char *summary);

/*
 * "REPORTER=PATH", the value of an --out argument, newly allocated:
 * throng_test_out_arg ("csv", path).
 */
char *throng_test_out_arg (const char *reporter, const char *path);

G_END_DECLS
