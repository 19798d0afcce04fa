/* SPDX-License-Identifier: MIT */
/*
 * Child processes of a test (see subprocess.h): a GSubprocess whose output
 * is collected on a main context of its own, so that waiting for one child
 * never runs another's callbacks, and the throng binary run through it.
 */
#include "subprocess.h"
#include "test-utils.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>

struct _ThrongTestProcess {
    GSubprocess *proc;
    GMainContext *context;
    GCancellable *cancellable;
    char *command; /* for messages */
    int death_signal;
    GSpawnChildSetupFunc child_setup;
    gpointer child_setup_data;
    gboolean done;
    GBytes *out;
    GBytes *err;
};

/*
 * In the child, before exec: die with the test.  The signal is sent when
 * the spawning thread exits; tests spawn from their main thread.
 */
static void
process_child_setup (gpointer user_data)
{
    ThrongTestProcess *process = user_data;

    prctl (PR_SET_PDEATHSIG, process->death_signal);
    if (process->child_setup != NULL)
        process->child_setup (process->child_setup_data);
}

static void
on_communicated (GObject *source, GAsyncResult *result, gpointer user_data)
{
    ThrongTestProcess *process = user_data;

    /* An error here is a cancelled read after a kill; the exit status says the rest. */
    g_subprocess_communicate_finish (G_SUBPROCESS (source), result, &process->out, &process->err,
                                     NULL);
    process->done = TRUE;
}

ThrongTestProcess *
throng_test_process_spawn (const char *const *argv,
                           const ThrongTestSpawnOptions *options,
                           GError **error)
{
    static const ThrongTestSpawnOptions defaults = { 0 };
    g_autoptr (GSubprocessLauncher) launcher = NULL;
    ThrongTestProcess *process;
    GSubprocessFlags flags = G_SUBPROCESS_FLAGS_NONE;

    if (options == NULL)
        options = &defaults;
    if (options->output_path == NULL)
        flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE;

    process = g_new0 (ThrongTestProcess, 1);
    process->command = g_strjoinv (" ", (char **) argv);
    process->death_signal = options->death_signal != 0 ? options->death_signal : SIGKILL;
    process->child_setup = options->child_setup;
    process->child_setup_data = options->child_setup_data;
    g_test_message ("running: %s", process->command);

    launcher = g_subprocess_launcher_new (flags);
    g_subprocess_launcher_set_child_setup (launcher, process_child_setup, process, NULL);
    if (options->cwd != NULL)
        g_subprocess_launcher_set_cwd (launcher, options->cwd);
    if (options->envp != NULL)
        g_subprocess_launcher_set_environ (launcher, (char **) options->envp);
    for (gsize i = 0; options->env != NULL && options->env[i] != NULL; i++) {
        const char *eq = strchr (options->env[i], '=');
        g_autofree char *name = NULL;

        g_assert_nonnull (eq);
        name = g_strndup (options->env[i], eq - options->env[i]);
        g_subprocess_launcher_setenv (launcher, name, eq + 1, TRUE);
    }
    if (options->output_path != NULL) {
        g_subprocess_launcher_set_stdout_file_path (launcher, options->output_path);
        g_subprocess_launcher_set_stderr_file_path (launcher, options->output_path);
    }

    process->proc = g_subprocess_launcher_spawnv (launcher, argv, error);
    if (process->proc == NULL) {
        g_free (process->command);
        g_free (process);
        return NULL;
    }

    /* The output is read from now on, on the process's own context. */
    process->context = g_main_context_new ();
    process->cancellable = g_cancellable_new ();
    g_main_context_push_thread_default (process->context);
    g_subprocess_communicate_async (process->proc, NULL, process->cancellable, on_communicated,
                                    process);
    g_main_context_pop_thread_default (process->context);
    return process;
}

const char *
throng_test_process_pid (ThrongTestProcess *process)
{
    return g_subprocess_get_identifier (process->proc);
}

void
throng_test_process_signal (ThrongTestProcess *process, int signum)
{
    g_subprocess_send_signal (process->proc, signum);
}

void
throng_test_process_every (ThrongTestProcess *process, guint interval_ms, GSourceFunc fn,
                           gpointer data)
{
    GSource *source = g_timeout_source_new (interval_ms);

    g_source_set_callback (source, fn, data, NULL);
    g_source_attach (source, process->context);
    g_source_unref (source);
}

static gboolean
on_deadline (gpointer user_data)
{
    *(gboolean *) user_data = TRUE;
    return G_SOURCE_REMOVE;
}

/* Runs the process's context until its output is all read, or @timeout_ms passes. */
static gboolean
process_wait_ms (ThrongTestProcess *process, guint timeout_ms)
{
    GSource *timer = g_timeout_source_new (timeout_ms);
    gboolean timed_out = FALSE;

    g_source_set_callback (timer, on_deadline, &timed_out, NULL);
    g_source_attach (timer, process->context);
    while (!process->done && !timed_out)
        g_main_context_iteration (process->context, TRUE);
    g_source_destroy (timer);
    g_source_unref (timer);
    return process->done;
}

/* Kills it by its PID and waits until it is reaped and its pipes are closed. */
static void
process_kill (ThrongTestProcess *process)
{
    g_subprocess_force_exit (process->proc);
    /* Give the pipes a moment to drain so the caller still sees the output;
     * a grandchild that holds them open is not waited for. */
    if (!process_wait_ms (process, 5000)) {
        g_cancellable_cancel (process->cancellable);
        while (!process->done)
            g_main_context_iteration (process->context, TRUE);
    }
    g_subprocess_wait (process->proc, NULL, NULL);
}

static char *
bytes_to_string (GBytes *bytes)
{
    gsize size = 0;
    const char *data;

    if (bytes == NULL)
        return g_strdup ("");
    data = g_bytes_get_data (bytes, &size);
    /* An empty GBytes may hold NULL, and g_strndup (NULL, 0) is NULL. */
    return data != NULL ? g_strndup (data, size) : g_strdup ("");
}

gboolean
throng_test_process_wait (ThrongTestProcess *process,
                          guint timeout_s,
                          int *exit_status,
                          char **out_stdout,
                          char **out_stderr)
{
    gboolean ok = TRUE;

    if (!process_wait_ms (process, timeout_s * 1000)) {
        /* A hung child must not hang the suite. */
        g_test_message ("`%s` did not exit within %u s: killing it", process->command,
                        timeout_s);
        g_test_fail_printf ("`%s` did not exit within %u s", process->command, timeout_s);
        process_kill (process);
        ok = FALSE;
    }
    g_subprocess_wait (process->proc, NULL, NULL);
    if (exit_status != NULL) {
        if (g_subprocess_get_if_exited (process->proc))
            *exit_status = g_subprocess_get_exit_status (process->proc);
        else if (g_subprocess_get_if_signaled (process->proc))
            *exit_status = 128 + g_subprocess_get_term_sig (process->proc);
        else
            *exit_status = -1;
    }
    if (out_stdout != NULL)
        *out_stdout = bytes_to_string (process->out);
    if (out_stderr != NULL)
        *out_stderr = bytes_to_string (process->err);
    return ok;
}

void
throng_test_process_stop (ThrongTestProcess *process, int signum, guint grace_ms)
{
    if (process->done)
        return;
    g_subprocess_send_signal (process->proc, signum);
    if (!process_wait_ms (process, grace_ms))
        process_kill (process);
}

void
throng_test_process_free (ThrongTestProcess *process)
{
    if (process == NULL)
        return;
    if (!process->done)
        process_kill (process);
    /* Sources left by throng_test_process_every() go with the context. */
    g_object_unref (process->proc);
    g_object_unref (process->cancellable);
    g_main_context_unref (process->context);
    g_clear_pointer (&process->out, g_bytes_unref);
    g_clear_pointer (&process->err, g_bytes_unref);
    g_free (process->command);
    g_free (process);
}

int
throng_test_process_run (const char *const *argv,
                         const ThrongTestSpawnOptions *options,
                         guint timeout_s,
                         char **out_stdout,
                         char **out_stderr)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTestProcess) process = throng_test_process_spawn (argv, options, &error);
    int status = -1;

    g_assert_no_error (error);
    g_assert_true (throng_test_process_wait (process, timeout_s, &status, out_stdout, out_stderr));
    return status;
}

/* ------------------------------------------------------------------ */
/* The throng binary                                                   */

const char *
throng_test_exe (void)
{
    const char *exe = g_getenv ("THRONG_EXE");

    g_assert_nonnull (exe);
    return exe;
}

/* @argv with $THRONG_EXE in front, as a NULL-terminated array of borrowed strings. */
static GPtrArray *
throng_argv (const char *const *argv)
{
    GPtrArray *args = g_ptr_array_new ();

    g_ptr_array_add (args, (gpointer) throng_test_exe ());
    for (gsize i = 0; argv != NULL && argv[i] != NULL; i++)
        g_ptr_array_add (args, (gpointer) argv[i]);
    g_ptr_array_add (args, NULL);
    return args;
}

ThrongTestProcess *
throng_test_spawn (const char *const *argv, const ThrongTestSpawnOptions *options)
{
    g_autoptr (GPtrArray) args = throng_argv (argv);
    g_autoptr (GError) error = NULL;
    ThrongTestProcess *process
        = throng_test_process_spawn ((const char *const *) args->pdata, options, &error);

    g_assert_no_error (error);
    return process;
}

void
throng_test_wait_started (void)
{
    g_usleep ((g_getenv ("THRONG_SANITIZED") != NULL ? 5000 : 1500) * 1000);
}

gboolean
throng_test_run (const char *const *argv,
                 const char *const *env,
                 guint timeout_s,
                 int *exit_status,
                 char **out_stdout,
                 char **out_stderr)
{
    ThrongTestSpawnOptions options = { .env = env };
    g_autoptr (ThrongTestProcess) process = throng_test_spawn (argv, &options);

    return throng_test_process_wait (process, timeout_s, exit_status, out_stdout, out_stderr);
}

int
throng_test_runv (guint timeout_s, char **out_stdout, char **out_stderr, const char *first_arg, ...)
{
    g_autoptr (GPtrArray) args = g_ptr_array_new ();
    va_list ap;
    int status = -1;
    gboolean ok;

    va_start (ap, first_arg);
    for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
        g_ptr_array_add (args, (gpointer) arg);
    va_end (ap);
    g_ptr_array_add (args, NULL);

    ok = throng_test_run ((const char *const *) args->pdata, NULL, timeout_s, &status, out_stdout,
                          out_stderr);
    g_assert_true (ok);
    return status;
}

JsonNode *
throng_test_run_json (const char *dir,
                      const char *yaml,
                      const char *const *extra,
                      guint timeout_s,
                      int *exit_status,
                      char **out_stderr)
{
    g_autofree char *plan = throng_test_write_plan (dir, "plan.yaml", yaml);
    g_autofree char *json = g_build_filename (dir, "summary.json", NULL);
    g_autofree char *out = throng_test_out_arg ("json", json);
    g_autoptr (GPtrArray) args = g_ptr_array_new ();
    g_autoptr (GError) error = NULL;
    g_autofree char *err = NULL;
    g_autofree char *stdout_text = NULL;
    JsonNode *root;
    int status = -1;

    g_unlink (json);
    g_ptr_array_add (args, "run");
    g_ptr_array_add (args, plan);
    g_ptr_array_add (args, "--quiet");
    g_ptr_array_add (args, "--out");
    g_ptr_array_add (args, out);
    for (gsize i = 0; extra != NULL && extra[i] != NULL; i++)
        g_ptr_array_add (args, (gpointer) extra[i]);
    g_ptr_array_add (args, NULL);

    g_assert_true (throng_test_run ((const char *const *) args->pdata, NULL, timeout_s, &status,
                                    &stdout_text, &err));
    if (status != 0)
        g_test_message ("throng exited %d; stderr:\n%s", status, err);
    if (exit_status != NULL)
        *exit_status = status;

    root = g_file_test (json, G_FILE_TEST_EXISTS) ? throng_test_json_load (json, &error) : NULL;
    if (error != NULL)
        g_test_message ("%s: %s", json, error->message);
    if (out_stderr != NULL)
        *out_stderr = g_steal_pointer (&err);
    return root;
}

JsonNode *
throng_test_run_summary (const char *dir,
                         const char *yaml,
                         const char *const *extra,
                         guint timeout_s,
                         int expected_status,
                         char **out_stderr)
{
    g_autofree char *err = NULL;
    int status = -1;
    JsonNode *root = throng_test_run_json (dir, yaml, extra, timeout_s, &status, &err);

    if (status != expected_status)
        g_printerr ("%s", err);
    g_assert_cmpint (status, ==, expected_status);
    g_assert_nonnull (root);
    if (out_stderr != NULL)
        *out_stderr = g_steal_pointer (&err);
    return root;
}

char **
throng_test_run_args (const char *plan, const char *summary)
{
    char **args = g_new0 (char *, 6);

    args[0] = g_strdup ("run");
    args[1] = g_strdup (plan);
    args[2] = g_strdup ("--quiet");
    args[3] = g_strdup ("--out");
    args[4] = throng_test_out_arg ("json", summary);
    return args;
}

char *
throng_test_out_arg (const char *reporter, const char *path)
{
    return g_strconcat (reporter, "=", path, NULL);
}
