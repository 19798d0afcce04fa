/* SPDX-License-Identifier: MIT */
/*
 * The `throng` command line: `run`, `validate`, `plugins`, `--version`.
 * The only place that prints a fatal error and picks the exit status; the
 * rest of the core returns GErrors.
 *
 * Exit status: 0 the run completed; 2 usage or plan error; 3 the run
 * could not start (a plugin refused, a reporter that could not open, the
 * built-in target); 4 results could not be written (a reporter failed, or fell
 * behind and missed samples); 99 thresholds failed;
 * 130 interrupted by a signal (reporters still flushed).
 */
#include "engine.h"
#include "limits-private.h"
#include "plan.h"
#include "registry.h"
#include "report.h"
#include "target.h"
#include "threshold.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 2,
    EXIT_NOT_STARTED = 3,
    EXIT_NOT_WRITTEN = 4,
    EXIT_THRESHOLDS = 99,
    EXIT_INTERRUPTED = 130,
};

typedef struct {
    char **sets;
    char **outs;
    int workers;
    gboolean quiet;
    gboolean overwrite;
    ThrongTarget *target;
    GPtrArray *extra_trees;     /* trees of --out reporters' options */
} Cli;

static int
usage_error (GOptionContext *context, const char *message)
{
    g_printerr ("throng: %s\n", message);
    g_printerr ("Try 'throng %s --help'.\n", g_option_context_get_summary (context) != NULL
                                                  ? g_option_context_get_summary (context)
                                                  : "");
    return EXIT_USAGE;
}

static int
error_status (const GError *error)
{
    if (error->domain == THRONG_PLAN_ERROR)
        return EXIT_USAGE;
    return EXIT_NOT_STARTED;
}

static void
print_error (const GError *error)
{
    /* Plan errors already begin with their location. */
    if (error->domain == THRONG_PLAN_ERROR)
        g_printerr ("%s\n", error->message);
    else
        g_printerr ("throng: %s\n", error->message);
}

static gboolean
start_builtin_target (gpointer data, char **http_url, char **https_url, GError **error)
{
    Cli *cli = data;

    cli->target = throng_target_start (error);
    if (cli->target == NULL)
        return FALSE;
    *http_url = g_strdup (throng_target_http_url (cli->target));
    *https_url = g_strdup (throng_target_https_url (cli->target));
    return TRUE;
}

/* YAML double-quoted form of @text, so any path survives the trip. */
static char *
yaml_quote (const char *text)
{
    GString *out = g_string_new ("\"");

    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c (out, '\\');
        g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
    return g_string_free (out, FALSE);
}

/* `--out NAME=PATH`: a reporter NAME with options {path: PATH}, configured like the plan's. */
static gboolean
add_out_reporters (Cli *cli, ThrongPlan *plan, ThrongRegistry *registry, GError **error)
{
    for (char **out = cli->outs; out != NULL && *out != NULL; out++) {
        const char *equals = strchr (*out, '=');
        if (equals == NULL || equals == *out || equals[1] == '\0') {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "--out %s: expected NAME=PATH, e.g. --out csv=results.csv", *out);
            return FALSE;
        }
        g_autofree char *name = g_strndup (*out, (gsize) (equals - *out));
        g_autofree char *quoted = yaml_quote (equals + 1);
        g_autofree char *yaml = g_strdup_printf ("path: %s\n", quoted);
        g_autofree char *origin = g_strdup_printf ("--out %s", *out);
        g_autoptr (GError) local = NULL;

        const ThrongReporter *reporter = throng_registry_get_reporter (registry, name, &local);
        if (reporter == NULL) {
            if (g_error_matches (local, THRONG_REGISTRY_ERROR, THRONG_REGISTRY_ERROR_NOT_FOUND))
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "--out %s: unknown reporter '%s'", *out, name);
            else
                g_propagate_error (error, g_steal_pointer (&local));
            return FALSE;
        }
        ThrongTree *tree = throng_tree_load_data (origin, yaml, strlen (yaml), error);
        if (tree == NULL)
            return FALSE;
        g_ptr_array_add (cli->extra_trees, tree);
        gpointer data = reporter->configure (throng_tree_root (tree), error);
        if (data == NULL)
            return FALSE;
        ThrongPlanReporter *entry = g_new0 (ThrongPlanReporter, 1);
        entry->name = g_steal_pointer (&name);
        entry->reporter = reporter;
        entry->node = throng_tree_root (tree);
        entry->data = data;
        g_ptr_array_add (plan->reporters, entry);
    }
    return TRUE;
}

static ThrongPlan *
load_plan (Cli *cli, const char *path, ThrongRegistry *registry, gboolean validate_only,
           GError **error)
{
    ThrongPlanLoadOptions options = {
        .sets = (const char *const *) cli->sets,
        .validate_only = validate_only,
        .start_target = start_builtin_target,
        .start_target_data = cli,
    };
    g_autoptr (ThrongPlan) plan = throng_plan_load (path, registry, &options, error);

    if (plan == NULL)
        return NULL;
    if (!add_out_reporters (cli, plan, registry, error))
        return NULL;
    return g_steal_pointer (&plan);
}

static void
cli_clear (Cli *cli)
{
    g_strfreev (cli->sets);
    g_strfreev (cli->outs);
    g_clear_pointer (&cli->target, throng_target_stop);
    g_clear_pointer (&cli->extra_trees, g_ptr_array_unref);
}

static GOptionContext *
plan_command_context (const char *command, Cli *cli, gboolean run)
{
    GOptionEntry common[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &cli->sets,
          "Override a scalar of the plan (repeatable)", "PATH=VALUE" },
        { NULL },
    };
    GOptionEntry run_entries[] = {
        { "workers", 'w', 0, G_OPTION_ARG_INT, &cli->workers,
          "Worker threads (default: the number of CPUs)", "N" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &cli->quiet, "No live progress", NULL },
        { "out", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &cli->outs,
          "Add a reporter writing PATH, e.g. csv=results.csv (repeatable)", "NAME=PATH" },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &cli->overwrite,
          "Let reporters overwrite existing result files", NULL },
        { NULL },
    };
    GOptionContext *context = g_option_context_new ("PLAN");

    g_option_context_set_summary (context, command);
    g_option_context_add_main_entries (context, common, NULL);
    if (run)
        g_option_context_add_main_entries (context, run_entries, NULL);
    return context;
}

static int
command_run (int argc, char **argv, gboolean validate_only)
{
    Cli cli = { .extra_trees = g_ptr_array_new_with_free_func ((GDestroyNotify) throng_tree_free) };
    g_autoptr (GOptionContext) context = plan_command_context (validate_only ? "validate" : "run",
                                                               &cli, !validate_only);
    g_autoptr (GError) error = NULL;
    int status;

    if (!g_option_context_parse (context, &argc, &argv, &error)) {
        status = usage_error (context, error->message);
        cli_clear (&cli);
        return status;
    }
    if (argc != 2) {
        status = usage_error (context, argc < 2 ? "a plan file is required" : "only one plan file");
        cli_clear (&cli);
        return status;
    }
    if (cli.workers < 0 || cli.workers > 1024) {
        status = usage_error (context, "--workers must be between 1 and 1024");
        cli_clear (&cli);
        return status;
    }

    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    ThrongPlan *plan = load_plan (&cli, argv[1], registry, validate_only, &error);
    if (plan == NULL) {
        print_error (error);
        status = error_status (error);
        cli_clear (&cli);
        return status;
    }

    g_autoptr (ThrongThresholds) thresholds = throng_thresholds_load (plan, &error);
    if (thresholds == NULL) {
        print_error (error);
        status = error_status (error);
        throng_plan_free (plan);
        cli_clear (&cli);
        return status;
    }

    if (validate_only) {
        g_print ("%s: ok\n", argv[1]);
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
        throng_plan_free (plan);
        cli_clear (&cli);
        return EXIT_OK;
    }

    guint64 users = 0;
    for (guint s = 0; s < plan->scenarios->len; s++)
        users += ((const ThrongPlanScenario *) g_ptr_array_index (plan->scenarios, s))->users;
    if (!throng_limits_prepare (users, &error)) {
        print_error (error);
        throng_plan_free (plan);
        cli_clear (&cli);
        return EXIT_NOT_STARTED;
    }

    ThrongEngineOptions options = {
        .workers = (guint) cli.workers,
        .overwrite = cli.overwrite,
        .quiet = cli.quiet,
        .builtin_target = cli.target != NULL,
        .thresholds = thresholds,
    };
    ThrongRunResult result;
    if (!throng_engine_run (plan, &options, &result, &error)) {
        print_error (error);
        status = EXIT_NOT_STARTED;
    } else if (result.reporter_failed) {
        status = EXIT_NOT_WRITTEN;
    } else if (result.samples_dropped > 0) {
        /* Reporters that fell behind missed samples: their files are
         * incomplete, which a CI job must not take for success. */
        g_printerr ("throng: %" G_GUINT64_FORMAT " samples were not handed to reporters that "
                    "fell behind; their files are incomplete\n",
                    result.samples_dropped);
        status = EXIT_NOT_WRITTEN;
    } else if (result.outcome == THRONG_RUN_INTERRUPTED) {
        status = EXIT_INTERRUPTED;
    } else if (result.thresholds_failed > 0) {
        status = EXIT_THRESHOLDS;
    } else {
        status = EXIT_OK;
    }
    throng_plan_free (plan);
    cli_clear (&cli);
    return status;
}

static int
command_plugins (int argc, char **argv)
{
    g_autoptr (GOptionContext) context = g_option_context_new (NULL);
    g_autoptr (GError) error = NULL;

    g_option_context_set_summary (context, "plugins");
    g_option_context_set_description (context,
                                      "Lists every plugin throng can find, in search order:\n"
                                      "$THRONG_PLUGIN_PATH, the build tree (when run from it), "
                                      "the installed plugin directory beside the executable, "
                                      "the configured install directory.");
    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage_error (context, error->message);
    if (argc > 1)
        return usage_error (context, "plugins takes no arguments");

    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (GPtrArray) infos = throng_registry_scan (registry);
    int status = EXIT_OK;

    g_print ("%-12s %-9s %-9s %s\n", "NAME", "KIND", "VERSION", "PATH");
    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = g_ptr_array_index (infos, i);
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

static void
print_help (FILE *stream)
{
    fprintf (stream,
             "Usage: throng COMMAND [OPTION…]\n"
             "\n"
             "A plugin-based load tester.\n"
             "\n"
             "Commands:\n"
             "  run PLAN       Run a plan and report its results\n"
             "  validate PLAN  Check a plan completely without sending any load\n"
             "  plugins        List the plugins throng can find\n"
             "\n"
             "Options:\n"
             "  -h, --help     Show this help ('throng COMMAND --help' for a command's)\n"
             "  --version      Show the version\n"
             "\n"
             "Exit status: 0 completed, 2 usage or plan error, 3 could not start,\n"
             "4 results not written, 99 thresholds failed, 130 interrupted.\n");
}

int
main (int argc, char **argv)
{
    setlocale (LC_ALL, "");

    if (argc < 2) {
        print_help (stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp (command, "--version") == 0 || strcmp (command, "version") == 0) {
        g_print ("throng %s (plugin ABI %d)\n", THRONG_VERSION_STRING, THRONG_ABI_VERSION);
        return EXIT_OK;
    }
    if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0
        || strcmp (command, "help") == 0) {
        print_help (stdout);
        return EXIT_OK;
    }
    if (strcmp (command, "run") == 0)
        return command_run (argc - 1, argv + 1, FALSE);
    if (strcmp (command, "validate") == 0)
        return command_run (argc - 1, argv + 1, TRUE);
    if (strcmp (command, "plugins") == 0)
        return command_plugins (argc - 1, argv + 1);
    if (strcmp (command, "report") == 0)
        return throng_report_command (argc - 1, argv + 1);

    g_printerr ("throng: unknown command '%s'\n", command);
    print_help (stderr);
    return EXIT_USAGE;
}
