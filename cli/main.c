/* SPDX-License-Identifier: MIT */
/*
 * The `throng` command line: the table of its commands (which `--help`,
 * throng(1) and the shell completions read, usage.h), `run`, `validate`,
 * `plugins` and `version` here, the others in their files.
 * The only place that prints a fatal error and picks the exit status; the
 * rest of the core returns GErrors.
 *
 * Exit status: 0 the run completed; 2 usage or plan error; 3 the run
 * could not start (a plugin refused, a reporter that could not open, the
 * built-in target); 4 results could not be written (a reporter failed, or fell
 * behind and missed samples); 5 stopped short of a memory limit (results up
 * to then written); 99 thresholds failed; 108 aborted by a step's
 * `on_failure: abort-run`; 130 interrupted by SIGINT, SIGTERM or SIGHUP (reporters still flushed).
 * SIGPIPE is ignored: a closed pipe is a failed write, reported as one.
 */
#include "compare.h"
#include "engine.h"
#include "import-har.h"
#include "limits-private.h"
#include "merge.h"
#include "plan-overrides.h"
#include "plan.h"
#include "registry.h"
#include "report.h"
#include "target.h"
#include "complete.h"
#include "manual.h"
#include "usage.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <libsoup/soup.h>
#include <locale.h>
#include <nghttp2/nghttp2.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The exit statuses, as usage.h lists them for --help and throng(1). */
enum {
    EXIT_OK = THRONG_EXIT_OK,
    EXIT_USAGE = THRONG_EXIT_USAGE,
    EXIT_NOT_STARTED = THRONG_EXIT_NOT_STARTED,
    EXIT_NOT_WRITTEN = THRONG_EXIT_NOT_WRITTEN,
    EXIT_OUT_OF_MEMORY = THRONG_EXIT_OUT_OF_MEMORY,
    EXIT_THRESHOLDS = THRONG_EXIT_THRESHOLDS,
    EXIT_ABORTED = THRONG_EXIT_ABORTED,
    EXIT_INTERRUPTED = THRONG_EXIT_INTERRUPTED,
};

/* --workers not given: the plan's or the machine's choice. */
#define WORKERS_UNSET G_MININT

typedef struct {
    char **sets;
    char **outs;
    char **envs;
    int workers;
    gboolean quiet;
    gboolean overwrite;
    char *shard;                /* --shard I/N, or THRONG_SHARD */
    char *start_at;             /* --start-at TIME */
    gint64 start_at_wall_us;
    ThrongTarget *target;
} Cli;

static void
cli_clear (Cli *cli)
{
    g_strfreev (cli->sets);
    g_strfreev (cli->outs);
    g_strfreev (cli->envs);
    g_free (cli->shard);
    g_free (cli->start_at);
    g_clear_pointer (&cli->target, throng_target_stop);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Cli, cli_clear)

static int
usage_error (const char *command, const char *message)
{
    g_printerr ("throng: %s\n", message);
    g_printerr ("Try 'throng %s --help'.\n", command);
    return EXIT_USAGE;
}

/*
 * A command's option context: its --help names the program and the
 * command ("Usage: throng run [OPTION…] PLAN"), says what it does and
 * lists its exit statuses.  throng(1) is written from it (manual.c).
 */
static GOptionContext *
command_context (const char *command, const char *parameters, const char *summary,
                 const char *exit_statuses)
{
    g_autofree char *program = g_strconcat ("throng ", command, NULL);
    GOptionContext *context = g_option_context_new (parameters);

    /* GOption's usage line is "PRGNAME [OPTION…] PARAMETERS". */
    g_set_prgname (program);
    g_option_context_set_summary (context, summary);
    g_option_context_set_description (context, exit_statuses);
    return context;
}

/*
 * --http-debug[=N]: the http plugin prints the first N requests of each
 * step (docs/journeys.md); it reads THRONG_DEBUG, which this sets before
 * the plan loads.
 */
static gboolean
http_debug_option (const char *name, const char *value, gpointer data, GError **error)
{
    const char *old = g_getenv ("THRONG_DEBUG");
    g_autofree char *item = value != NULL ? g_strdup_printf ("http=%s", value) : g_strdup ("http");
    g_autofree char *all = old != NULL && *old != '\0' ? g_strconcat (old, ",", item, NULL)
                                                       : g_strdup (item);

    g_setenv ("THRONG_DEBUG", all, TRUE);
    return TRUE;
}

static GOptionContext *
plan_command_context (const char *command, Cli *cli, gboolean run)
{
    GOptionEntry common[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &cli->sets,
          "Override a scalar of the plan (repeatable)", "PATH=VALUE" },
        { "env", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &cli->envs,
          "Set what ${env.NAME} reads, over the environment (repeatable)", "NAME=VALUE" },
        { NULL },
    };
    GOptionEntry run_entries[] = {
        { "workers", 'w', 0, G_OPTION_ARG_INT, &cli->workers,
          "Worker threads, 1 to 1024 (default: the number of CPUs)", "N" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &cli->quiet, "No live progress", NULL },
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &cli->outs,
          "Add a reporter writing PATH: csv=results.csv, prometheus=ADDR, influxdb=URL (repeatable)",
          "NAME=PATH" },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &cli->overwrite,
          "Let reporters overwrite existing result files", NULL },
        { "http-debug", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, http_debug_option,
          "Print the first N (default 5) requests of each http step and their responses", "N" },
        { "shard", 0, 0, G_OPTION_ARG_STRING, &cli->shard,
          "Run shard I of N of the plan (k8s/N: I from JOB_COMPLETION_INDEX; also THRONG_SHARD)",
          "I/N" },
        { "start-at", 0, 0, G_OPTION_ARG_STRING, &cli->start_at,
          "Start the load at TIME (RFC 3339, or +30s from now)", "TIME" },
        { NULL },
    };
    GOptionContext *context
        = run ? command_context (command, "PLAN",
                                 "Checks PLAN completely, runs it and reports its results.",
                                 "Exit status: 0 the run completed, 2 usage or plan error, 3 the run "
                                 "could not start,\n4 results not written, 5 stopped short of a memory "
                                 "limit, 99 thresholds failed,\n108 aborted by a step's on_failure, "
                                 "130 interrupted (SIGINT, SIGTERM, SIGHUP).")
              : command_context (command, "PLAN",
                                 "Checks PLAN completely (every key, every value, every plugin's "
                                 "options)\nwithout opening anything or sending any load.",
                                 "Exit status: 0 the plan is valid, 2 usage or plan error, 3 a "
                                 "plugin was refused,\n4 the result could not be written.");

    g_option_context_add_main_entries (context, common, NULL);
    if (run)
        g_option_context_add_main_entries (context, run_entries, NULL);
    return context;
}

static void
print_notes (const ThrongPlan *plan)
{
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        for (guint p = 0; p < scenario->protocols->len; p++) {
            const ThrongPlanProtocol *protocol = g_ptr_array_index (scenario->protocols, p);
            g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);

            if (protocol->protocol->scenario_notes == NULL)
                continue;
            protocol->protocol->scenario_notes (protocol->data, notes);
            for (guint n = 0; n < notes->len; n++)
                g_print ("note: scenario %s: %s\n", scenario->name,
                         (const char *) g_ptr_array_index (notes, n));
        }
    }
}

/* The exit status of a run that went to its end (or was interrupted). */
static int
result_status (const ThrongRunResult *result)
{
    if (result->reporter_failed)
        return EXIT_NOT_WRITTEN;
    if (result->samples_dropped > 0) {
        /* Reporters that fell behind missed samples: their files are
         * incomplete, which a CI job must not take for success. */
        g_printerr ("throng: %" G_GUINT64_FORMAT " samples were not handed to reporters that "
                    "fell behind; their files are incomplete\n",
                    result->samples_dropped);
        return EXIT_NOT_WRITTEN;
    }
    if (result->outcome == THRONG_RUN_INTERRUPTED)
        return EXIT_INTERRUPTED;
    if (result->outcome == THRONG_RUN_OUT_OF_MEMORY)
        return EXIT_OUT_OF_MEMORY;
    if (result->outcome == THRONG_RUN_ABORTED)
        return EXIT_ABORTED;
    if (result->thresholds_failed > 0)
        return EXIT_THRESHOLDS;
    return EXIT_OK;
}

/*
 * Loads @path with the command line's additions and validates or runs it.
 * Returns the exit status; when it is a failure that @error explains,
 * @error is set, for the caller to print once.
 */
static int
validate_or_run (Cli *cli, const char *path, gboolean validate_only, GError **error)
{
    /* Declared before the plan, so that it outlives the plan, which points into it. */
    g_autoptr (ThrongCliOutputs) outputs
        = throng_cli_outputs_new ((const char *const *) cli->outs, error);

    if (outputs == NULL)
        return EXIT_USAGE;
    /* Before the plan loads, which expands ${builtin.*} to its URLs; a
     * validation sends nothing and starts nothing. */
    if (!validate_only
        && throng_cli_plan_wants_builtin_target (path, (const char *const *) cli->sets)) {
        cli->target = throng_target_start (error);
        if (cli->target == NULL)
            return EXIT_NOT_STARTED;
    }
    ThrongPlanLoadOptions load = {
        .edit = throng_cli_sets_apply,
        .edit_data = cli->sets,
        .outputs = throng_cli_outputs_get (outputs),
        .envs = (const char *const *) cli->envs,
        .validate_only = validate_only,
        .builtin_http = cli->target != NULL ? throng_target_http_url (cli->target) : NULL,
        .builtin_https = cli->target != NULL ? throng_target_https_url (cli->target) : NULL,
    };
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (ThrongPlan) plan = throng_plan_load (path, registry, &load, error);

    if (plan == NULL)
        return (*error)->domain == THRONG_PLAN_ERROR ? EXIT_USAGE : EXIT_NOT_STARTED;
    if (validate_only) {
        g_autoptr (GPtrArray) warnings = throng_plan_label_warnings (plan);

        for (guint w = 0; w < warnings->len; w++)
            g_printerr ("%s\n", (const char *) g_ptr_array_index (warnings, w));
        g_print ("%s: ok\n", path);
        print_notes (plan);
        return EXIT_OK;
    }

    if (cli->shard != NULL) {
        ThrongShard shard;
        if (!throng_shard_parse (cli->shard, "--shard", &shard, error)
            || !throng_plan_set_shard (plan, &shard, error))
            return EXIT_USAGE;
    }

    guint workers = cli->workers != WORKERS_UNSET ? (guint) cli->workers : 0;
    ThrongLimitsRun needs = {
        .workers = workers > 0 ? workers : (guint) g_get_num_processors (),
        .builtin_target = cli->target != NULL,
    };
    for (guint s = 0; s < plan->scenarios->len; s++)
        needs.users += throng_shard_users (
            &plan->shard, ((const ThrongPlanScenario *) g_ptr_array_index (plan->scenarios, s))->users);
    throng_limits_memory_prepare ();
    if (!throng_limits_prepare (&needs, error))
        return EXIT_NOT_STARTED;

    ThrongEngineOptions options = {
        .workers = workers,
        .overwrite = cli->overwrite,
        .quiet = cli->quiet,
        .builtin_target = cli->target != NULL,
        .thresholds = plan->thresholds,
        .start_at_wall_us = cli->start_at_wall_us,
    };
    ThrongRunResult result;
    if (!throng_engine_run (plan, &options, &result, error))
        return EXIT_NOT_STARTED;
    return result_status (&result);
}

static int
command_run (int argc, char **argv, gboolean validate_only)
{
    g_auto (Cli) cli = { .workers = WORKERS_UNSET };
    const char *command = validate_only ? "validate" : "run";
    g_autoptr (GOptionContext) context = plan_command_context (command, &cli, !validate_only);
    g_autoptr (GError) error = NULL;
    int status;

    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage_error (command, error->message);
    if (argc != 2)
        return usage_error (command, argc < 2 ? "a plan file is required" : "only one plan file");
    if (cli.workers != WORKERS_UNSET && (cli.workers < 1 || cli.workers > 1024)) {
        g_autofree char *message
            = g_strdup_printf ("--workers must be between 1 and 1024, got %d", cli.workers);
        return usage_error (command, message);
    }

    if (cli.shard == NULL && !validate_only && g_getenv ("THRONG_SHARD") != NULL)
        cli.shard = g_strdup (g_getenv ("THRONG_SHARD"));
    /* "+30s" counts from the command, not from when the plan finished loading. */
    if (cli.start_at != NULL
        && !throng_start_at_parse (cli.start_at, g_get_real_time (), &cli.start_at_wall_us,
                                   &error))
        return usage_error (command, error->message);

    status = validate_or_run (&cli, argv[1], validate_only, &error);
    /* The one place a failure is printed.  Plan errors begin with their location. */
    if (error != NULL)
        g_printerr (status == EXIT_USAGE ? "%s\n" : "throng: %s\n", error->message);
    return status;
}

static int
command_plugins (int argc, char **argv)
{
    g_autoptr (GOptionContext) context = command_context (
        "plugins", NULL,
        "Lists every plugin throng can find, in search order: $THRONG_PLUGIN_PATH,\n"
        "the build tree (when run from it), the installed plugin directory beside\n"
        "the executable, the configured install directory.",
        "Exit status: 0 plugins were found, 2 usage error, 3 no plugins found,\n"
        "4 the list could not be written.");
    g_autoptr (GError) error = NULL;

    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage_error ("plugins", error->message);
    if (argc > 1)
        return usage_error ("plugins", "plugins takes no arguments");

    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (GPtrArray) infos = throng_registry_scan (registry);
    int status = EXIT_OK;

    g_print ("%-12s %-9s %-9s %s\n", "NAME", "KIND", "VERSION", "PATH");
    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = g_ptr_array_index (infos, i);
        const ThrongPluginInfo *previous = i > 0 ? g_ptr_array_index (infos, i - 1) : NULL;

        /* Search order, so each directory's plugins under one heading saying why it is searched. */
        if (previous == NULL || strcmp (previous->dir, info->dir) != 0)
            g_print ("# %s (%s)\n", info->dir, info->origin);
        if (info->error != NULL) {
            g_print ("%-12s %-9s %-9s %s\n", info->name, "refused", "-", info->error);
            continue;
        }
        g_print ("%-12s %-9s %-9s %s\n", info->name,
                 info->kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol" : "reporter",
                 info->version, info->path);
    }
    if (infos->len == 0) {
        g_autofree char *path = throng_registry_describe_path (registry);
        g_printerr ("throng: no plugins found in %s\n", path);
        status = EXIT_NOT_STARTED;
    }
    return status;
}

/*
 * A standard descriptor that the caller closed would be handed to the next
 * socket or pipe throng opens, and the summary written into it.  Each
 * closed one is held by /dev/null opened read-only, so writes to it still
 * fail (EBADF) and are reported as failed writes.
 */
static void
hold_closed_std_fds (void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl (fd, F_GETFD) != -1)
            continue;
        int held = open ("/dev/null", O_RDONLY | O_CLOEXEC);
        if (held >= 0 && held != fd) {
            dup2 (held, fd);
            close (held);
        }
    }
}

static int
command_run_plan (int argc, char **argv)
{
    return command_run (argc, argv, FALSE);
}

static int
command_validate (int argc, char **argv)
{
    return command_run (argc, argv, TRUE);
}

/* `throng version`: the release, the plugin ABI, and the libraries as loaded, not as built. */
static int
command_version (int argc, char **argv)
{
    g_autoptr (GOptionContext) context = command_context (
        "version", NULL,
        "Shows the version of throng, its plugin ABI and the versions of the\n"
        "libraries it runs with (GLib, libsoup, GnuTLS, nghttp2).",
        "Exit status: 0 shown, 2 usage error, 4 it could not be written.");
    g_autoptr (GError) error = NULL;

    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage_error ("version", error->message);
    if (argc > 1)
        return usage_error ("version", "version takes no arguments");
    g_print ("throng %s (plugin ABI %d)\n", THRONG_VERSION_STRING, THRONG_ABI_VERSION);
    g_print ("GLib %u.%u.%u\n", glib_major_version, glib_minor_version, glib_micro_version);
    g_print ("libsoup %u.%u.%u\n", soup_get_major_version (), soup_get_minor_version (),
             soup_get_micro_version ());
    g_print ("GnuTLS %s\n", gnutls_check_version (NULL));
    g_print ("nghttp2 %s\n", nghttp2_version (0)->version_str);
    return EXIT_OK;
}

/*
 * The commands, in the order --help and throng(1) list them.  A command
 * is a row: its own --help (a GOptionContext) is all throng(1) and the
 * completions need besides.
 */
static const ThrongCliCommand commands[] = {
    { "run", "PLAN", "Run a plan and report its results", command_run_plan },
    { "validate", "PLAN", "Check a plan completely without sending any load", command_validate },
    { "merge", "SHARD.json…", "Merge the summaries of a run's shards (run --shard I/N)",
      throng_merge_command },
    { "report", "RUN.jsonl", "Draw a finished run from a json reporter's jsonl file",
      throng_report_command },
    { "compare", "BASELINE CURRENT", "Compare two runs' files step by step, with verdicts",
      throng_compare_command },
    { "import har", "RECORDING.har", "Turn a browser's HAR recording into a plan",
      throng_import_command },
    { "plugins", "", "List the plugins throng can find", command_plugins },
    { "version", "", "Show the versions of throng, its plugin ABI and libraries",
      command_version },
    { NULL },
};

/* `throng __man TEMPLATE`: throng(1) on standard output, for the build. */
static int
command_manual (int argc, char **argv)
{
    g_autofree char *template_text = NULL;
    g_autofree char *page = NULL;
    g_autoptr (GError) error = NULL;

    if (argc != 2)
        return usage_error ("__man", "__man TEMPLATE");
    if (!g_file_get_contents (argv[1], &template_text, NULL, &error)
        || (page = throng_manual_write (template_text, commands, &error)) == NULL) {
        g_printerr ("throng: %s\n", error->message);
        return EXIT_NOT_WRITTEN;
    }
    g_print ("%s", page);
    return EXIT_OK;
}

static int
dispatch (int argc, char **argv)
{
    if (argc < 2) {
        throng_usage_print (stderr, commands);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp (command, "--version") == 0) {
        g_print ("throng %s (plugin ABI %d)\n", THRONG_VERSION_STRING, THRONG_ABI_VERSION);
        return EXIT_OK;
    }
    if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0
        || strcmp (command, "help") == 0) {
        throng_usage_print (stdout, commands);
        return EXIT_OK;
    }
    /* Hidden: for the build and the shell completions. */
    if (strcmp (command, "__man") == 0)
        return command_manual (argc - 1, argv + 1);
    if (strcmp (command, "__complete") == 0)
        return throng_complete_command (argc - 1, argv + 1, commands);
    for (const ThrongCliCommand *c = commands; c->name != NULL; c++)
        if (strncmp (c->name, command, strcspn (c->name, " ")) == 0
            && command[strcspn (c->name, " ")] == '\0')
            return c->run (argc - 1, argv + 1);

    g_printerr ("throng: unknown command '%s'\n", command);
    throng_usage_print (stderr, commands);
    return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
    setlocale (LC_ALL, "");
    hold_closed_std_fds ();
    signal (SIGPIPE, SIG_IGN);

    int status = dispatch (argc, argv);

    /* What went to standard output must have arrived, as for any result
     * file (the console reporter reports its own failures at close); a
     * terminal that hung up has no reader left, and its writes fail EIO. */
    if ((fflush (stdout) != 0 || ferror (stdout))
        && (status == EXIT_OK || status == EXIT_THRESHOLDS)
        && !(write (STDOUT_FILENO, "", 0) < 0 && errno == EIO)) {
        g_printerr ("throng: cannot write to standard output\n");
        status = EXIT_NOT_WRITTEN;
    }
    return status;
}
