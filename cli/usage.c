/* SPDX-License-Identifier: MIT */
/*
 * The one source of what the command line says about itself (usage.h):
 * `throng --help` from main.c's command table and the exit statuses
 * below; a command's options from its own --help, which GOption writes
 * from the entries the command parses with, so that throng(1) and the
 * completions cannot list an option the command does not take.
 */
#include "usage.h"

#include <string.h>

const ThrongCliExit throng_cli_exits[] = {
    { THRONG_EXIT_OK, "completed",
      "The run completed (errors of the target do not change this; thresholds do)." },
    { THRONG_EXIT_USAGE, "usage or plan error",
      "A usage or plan error: one line on standard error, nothing was sent." },
    { THRONG_EXIT_NOT_STARTED, "could not start",
      "The run could not start: a plugin was refused, a reporter could not open its output, or "
      "the built-in target failed to start." },
    { THRONG_EXIT_NOT_WRITTEN, "results not written",
      "Results could not be written: a reporter failed, or fell behind and missed samples, or "
      "standard output could not be written (closed, or a full device)." },
    { THRONG_EXIT_OUT_OF_MEMORY, "stopped short of a memory limit",
      "throng stopped the run itself because it neared a memory limit (an address-space limit "
      "set with ulimit -v, or its cgroup's memory.max): everything measured until then is "
      "written, and a warning says when." },
    { THRONG_EXIT_THRESHOLDS, "thresholds failed", "One or more thresholds of the plan failed." },
    { THRONG_EXIT_ABORTED, "aborted by a step",
      "A step whose on_failure is abort-run failed: the run stopped there (k6's test.abort() "
      "exits 108 too); reporters still wrote what was measured." },
    { THRONG_EXIT_INTERRUPTED, "interrupted",
      "The run was interrupted by SIGINT, SIGTERM or SIGHUP (a closed terminal or ssh session); "
      "reporters still wrote what was measured.  SIGPIPE is ignored: a closed pipe is a failed "
      "write, status 4." },
    { -1, NULL, NULL },
};

/* "Exit status: 0 completed, 2 usage or plan error, …", wrapped before 76 columns. */
static void
print_exits (FILE *stream)
{
    gsize column = 0;

    for (const ThrongCliExit *exit = throng_cli_exits; exit->code >= 0; exit++) {
        g_autofree char *item
            = g_strdup_printf ("%s%d %s%s", exit == throng_cli_exits ? "Exit status: " : "",
                               exit->code, exit->brief, exit[1].code >= 0 ? "," : ".");
        if (column > 0 && column + 1 + strlen (item) > 76) {
            fputc ('\n', stream);
            column = 0;
        } else if (column > 0) {
            fputc (' ', stream);
            column++;
        }
        fputs (item, stream);
        column += strlen (item);
    }
    fputc ('\n', stream);
}

void
throng_usage_print (FILE *stream, const ThrongCliCommand *commands)
{
    gsize width = 0;

    fprintf (stream, "Usage: throng COMMAND [OPTION…]\n\nA plugin-based load tester.\n\n"
                     "Commands:\n");
    for (const ThrongCliCommand *c = commands; c->name != NULL; c++)
        width = MAX (width,
                     (gsize)(g_utf8_strlen (c->name, -1) + 1 + g_utf8_strlen (c->parameters, -1)));
    for (const ThrongCliCommand *c = commands; c->name != NULL; c++) {
        g_autofree char *left
            = g_strconcat (c->name, *c->parameters != '\0' ? " " : "", c->parameters, NULL);
        fprintf (stream, "  %s%*s  %s\n", left, (int)(width - g_utf8_strlen (left, -1)), "",
                 c->summary);
    }
    fprintf (stream,
             "\nOptions:\n"
             "  -h, --help  Show this help ('throng COMMAND --help' for a command's)\n"
             "  --version   Show the version ('throng version' for its libraries' too)\n\n");
    print_exits (stream);
}

static void
usage_option_free (gpointer data)
{
    ThrongUsageOption *option = data;

    g_free (option->long_name);
    g_free (option->argument);
    g_free (option->description);
    g_free (option);
}

void
throng_usage_free (ThrongUsage *usage)
{
    if (usage == NULL)
        return;
    g_free (usage->usage);
    g_free (usage->summary);
    g_ptr_array_unref (usage->options);
    g_free (usage->description);
    g_free (usage);
}

/*
 * "  -s, --set=PATH=VALUE     Override …" or "  --overwrite   Let …": the
 * names, the argument after '=', two spaces or more, the description.
 */
static ThrongUsageOption *
parse_option (const char *line)
{
    static GRegex *regex;
    g_autoptr (GMatchInfo) match = NULL;

    if (g_once_init_enter (&regex))
        g_once_init_leave (&regex,
                           g_regex_new ("^  (?:-([[:alnum:]]), )?--([[:alnum:]-]+)(?:=(\\S+))?"
                                        "(?: {2,}(.*))?$",
                                        G_REGEX_OPTIMIZE, 0, NULL));
    if (!g_regex_match (regex, line, 0, &match))
        return NULL;

    ThrongUsageOption *option = g_new0 (ThrongUsageOption, 1);
    g_autofree char *short_name = g_match_info_fetch (match, 1);
    g_autofree char *argument = g_match_info_fetch (match, 3);

    option->short_name = short_name[0];
    option->long_name = g_match_info_fetch (match, 2);
    option->argument = *argument != '\0' ? g_steal_pointer (&argument) : NULL;
    option->description = g_match_info_fetch (match, 4);
    return option;
}

/* @lines from @start to @end, less the blank ones at either end, joined by newlines. */
static char *
join_paragraphs (char **lines, gsize start, gsize end)
{
    while (start < end && g_strstrip (lines[start])[0] == '\0')
        start++;
    while (end > start && lines[end - 1][strspn (lines[end - 1], " ")] == '\0')
        end--;

    g_autoptr (GString) text = g_string_new (NULL);
    for (gsize i = start; i < end; i++)
        g_string_append_printf (text, "%s%s", i > start ? "\n" : "", lines[i]);
    return g_string_free (g_steal_pointer (&text), FALSE);
}

/*
 * GOption's layout: "Usage:", the usage line, the summary, then groups
 * each under "NAME Options:" (the "Help Options:" group is GOption's own),
 * then the description.
 */
static ThrongUsage *
parse_help (const char *text)
{
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    gsize n = g_strv_length (lines);
    gsize i = 0, summary_end, description_start = n;
    gboolean help_group = FALSE;

    while (i < n && strcmp (lines[i], "Usage:") != 0)
        i++;
    if (i + 1 >= n)
        return NULL;

    ThrongUsage *usage = g_new0 (ThrongUsage, 1);
    usage->options = g_ptr_array_new_with_free_func (usage_option_free);
    usage->usage = g_strdup (g_strstrip (lines[i + 1]));
    for (i += 2, summary_end = i; summary_end < n; summary_end++)
        if (g_str_has_suffix (lines[summary_end], "Options:") && lines[summary_end][0] != ' ')
            break;
    usage->summary = join_paragraphs (lines, i, summary_end);
    for (i = summary_end; i < n; i++) {
        if (lines[i][0] != ' ' && g_str_has_suffix (lines[i], "Options:")) {
            help_group = strcmp (lines[i], "Help Options:") == 0;
            description_start = n;
            continue;
        }
        ThrongUsageOption *option = lines[i][0] == ' ' ? parse_option (lines[i]) : NULL;
        if (option != NULL) {
            description_start = n;
            if (help_group)
                usage_option_free (option);
            else
                g_ptr_array_add (usage->options, option);
        } else if (description_start == n && lines[i][0] != '\0' && lines[i][0] != ' ') {
            description_start = i;
        }
    }
    usage->description
        = description_start < n ? join_paragraphs (lines, description_start, n) : g_strdup ("");
    return usage;
}

ThrongUsage *
throng_usage_read (const ThrongCliCommand *command, GError **error)
{
    g_auto (GStrv) words = g_strsplit (command->name, " ", -1);
    g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
    g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "LC_ALL", "C.UTF-8", TRUE);
    g_autofree char *out = NULL;
    int status = 0;

    /* The kernel resolves /proc/self/exe when it runs it: this very executable. */
    g_strv_builder_add (builder, "/proc/self/exe");
    g_strv_builder_addv (builder, (const char **)words);
    g_strv_builder_add (builder, "--help");

    g_auto (GStrv) argv = g_strv_builder_end (builder);
    if (!g_spawn_sync (NULL, argv, env, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                       error))
        return NULL;

    ThrongUsage *usage = status == 0 ? parse_help (out) : NULL;
    if (usage == NULL)
        g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                     "'throng %s --help' printed no usage", command->name);
    return usage;
}
