/* SPDX-License-Identifier: MIT */
/*
 * `throng __man TEMPLATE`: writes throng(1) on standard output, at build
 * time (docs/meson.build).  The template (docs/throng.1.in) holds the
 * prose that --help has no room for; its lines @SYNOPSIS@, @COMMANDS@,
 * @OPTIONS@ and @EXIT_STATUS@ become what main.c's command table, each
 * command's own --help (usage.h) and the exit statuses say, and
 * @VERSION@ the release.  The notes below add a paragraph to a command's
 * or an option's entry; a note whose command or option is not there fails
 * the build, so the page never describes what is gone.
 */
#include "manual.h"

#include <gio/gio.h>
#include <throng/version.h>

#include <string.h>

typedef struct {
    const char *command;
    const char *option; /* NULL: a note on the command */
    const char *roff;
} ManualNote;

static const ManualNote notes[] = {
    { "run", NULL,
      "Without a\n.B reporters\nsection the\n.B console\nreporter prints a summary at the end "
      "and live progress while it runs." },
    { "validate", NULL,
      "Prints\n.RI \\(dq PLAN \": ok\\(dq\"\nand any notes (settings that cannot be honoured "
      "exactly)." },
    { "report", NULL,
      "Through the reporters that\n.B \\-\\-out\nnames (default\n.BR html=\\fIRUN\\fB.html ),\n"
      "as they would have written it live: the same page, byte for byte except its generation "
      "time.  Lines it cannot use (a truncated last line, a newer schema) are skipped and named "
      "on standard error." },
    { "merge", NULL,
      "Counts summed, histograms merged bucket by bucket (every percentile exact), CPU and "
      "saturation kept per shard.  Refuses shards of different plans or throng versions, mixed "
      "shard counts, a duplicated or missing shard, and files that are not whole throng "
      "summaries.  See\n.IR distributed.md ." },
    { "plugins", NULL,
      "A module that is refused (another ABI, a missing symbol, a failed init) is listed as\n"
      ".B refused\nwith the reason." },
    { "run", "set",
      "By its dotted path, e.g.\n.BR scenarios.0.users=50 ;\nerrors in the value are located at\n"
      ".RI \\(dq\\-\\-set \" PATH\" \\(dq." },
    { "validate", "set", "As under\n.BR run ." },
    { "run", "env",
      "As k6 does: the plan reads each variable once, when it loads, and\n.I VALUE\nwins over "
      "the process environment's." },
    { "run", "out",
      "As if the plan listed\n.RI { NAME \": {path: \" PATH }};\n.B prometheus=\\fIADDR\\fR\n"
      "gives the address to serve on\n.RB ( listen )\nand\n.B influxdb=\\fIURL\\fR\nthe server\n"
      ".RB ( url ).\n.B json=summary.json\nand\n.B csv=results.csv\nare the common ones." },
    { "run", "http-debug",
      "On standard error: each request as sent, after its templates are expanded, with the Cookie "
      "field its user's jar adds; then the response's status, headers and start of body.  Every "
      "line begins with its user,\n.BR [u3] .\nThe same as\n.BR THRONG_DEBUG=http [= \\fIN\\fR]." },
    { "run", "shard",
      "Closed-model user\n.I u\nand open-model arrival\n.I k\nrun on the shard they equal modulo\n"
      ".IR N ,\nso that\n.I N\nshards together run the plan exactly once;\n.BI k8s/ N\ntakes\n"
      ".I I\nfrom\n.BR JOB_COMPLETION_INDEX .\nThresholds are left to\n.BR \"throng merge\" ." },
    { "run", "start-at",
      "With a countdown on a terminal; a shard more than a second late starts at once and "
      "records its lateness." },
};

/*
 * Plain text made safe for roff: a backslash is \e, a line may not begin
 * with a control character, a dash that begins a word is a minus (\-),
 * and "…" is three dots.
 */
static void
append_text (GString *out, const char *text)
{
    gboolean line_start = TRUE;
    char previous = ' ';

    for (const char *p = text; *p != '\0'; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            g_string_append (out, "\\&");
        if (*p == '\\')
            g_string_append (out, "\\e");
        else if (*p == '-' && strchr (" \t\n([-=/'\"", previous) != NULL)
            g_string_append (out, "\\-");
        else if (strncmp (p, "…", strlen ("…")) == 0) {
            g_string_append (out, "...");
            p += strlen ("…") - 1;
        } else
            g_string_append_c (out, *p);
        line_start = *p == '\n';
        previous = *p;
    }
}

/* A name typed as it is ("http-debug"): every dash a minus, not a hyphen. */
static void
append_literal (GString *out, const char *name)
{
    g_auto (GStrv) parts = g_strsplit (name, "-", -1);

    for (gsize i = 0; parts[i] != NULL; i++) {
        if (i > 0)
            g_string_append (out, "\\-");
        append_text (out, parts[i]);
    }
}

/* "throng run [OPTION…] PLAN" → "[OPTION…] PLAN", the words after the command's name. */
static const char *
usage_parameters (const ThrongUsage *usage, const ThrongCliCommand *command)
{
    const char *at = strstr (usage->usage, command->name);

    at = at != NULL ? at + strlen (command->name) : usage->usage;
    return at + strspn (at, " ");
}

static void
append_synopsis (GString *out, const ThrongCliCommand *command, const ThrongUsage *usage)
{
    g_auto (GStrv) words = g_strsplit (usage_parameters (usage, command), " ", -1);

    g_string_append (out, ".B throng ");
    append_text (out, command->name);
    g_string_append_c (out, '\n');
    for (gsize i = 0; words[i] != NULL; i++) {
        if (*words[i] == '\0')
            continue;
        g_string_append (out, g_str_has_prefix (words[i], "[") ? ".RI [ " : ".I ");
        if (g_str_has_prefix (words[i], "[OPTION"))
            g_string_append (out, "OPTION ]...\\&");
        else
            append_text (out, words[i]);
        g_string_append_c (out, '\n');
    }
    g_string_append (out, ".br\n");
}

/* The notes on @command's @option (NULL: on the command), each counted in @noted. */
static void
append_notes (GString *out, const ThrongCliCommand *command, const char *option, guint *noted)
{
    for (gsize i = 0; i < G_N_ELEMENTS (notes); i++) {
        if (strcmp (notes[i].command, command->name) != 0
            || (notes[i].option == NULL) != (option == NULL)
            || (option != NULL && strcmp (notes[i].option, option) != 0))
            continue;
        g_string_append_printf (out, "%s\n", notes[i].roff);
        noted[i]++;
    }
}

static void
append_command (GString *out, const ThrongCliCommand *command, const ThrongUsage *usage,
                guint *noted)
{
    g_string_append (out, ".TP\n.B ");
    append_text (out, command->name);
    if (*command->parameters != '\0') {
        g_string_append (out, " \\fI");
        append_text (out, command->parameters);
        g_string_append (out, "\\fR");
    }
    g_string_append_c (out, '\n');
    append_text (out, *usage->summary != '\0' ? usage->summary : command->summary);
    g_string_append_c (out, '\n');
    append_notes (out, command, NULL, noted);
    if (*usage->description != '\0') {
        g_string_append (out, ".IP\n");
        append_text (out, usage->description);
        g_string_append_c (out, '\n');
    }
}

static void
append_option (GString *out, const ThrongCliCommand *command, const ThrongUsageOption *option,
               guint *noted)
{
    g_string_append (out, ".TP\n");
    if (option->short_name != '\0')
        g_string_append_printf (out, "\\fB\\-%c\\fR, ", option->short_name);
    g_string_append (out, "\\fB\\-\\-");
    append_literal (out, option->long_name);
    g_string_append (out, "\\fR");
    if (option->argument != NULL) {
        g_string_append (out, "=\\fI");
        append_literal (out, option->argument);
        g_string_append (out, "\\fR");
    }
    g_string_append_c (out, '\n');
    append_text (out, option->description);
    g_string_append (out, g_str_has_suffix (option->description, ".") ? "\n" : ".\n");
    append_notes (out, command, option->long_name, noted);
}

static void
append_exits (GString *out)
{
    for (const ThrongCliExit *exit = throng_cli_exits; exit->code >= 0; exit++) {
        g_string_append_printf (out, ".TP%s\n.B %d\n", exit == throng_cli_exits ? " 5" : "",
                                exit->code);
        append_text (out, exit->detail);
        g_string_append_c (out, '\n');
    }
}

/* Every command's usage, or FALSE with @error set. */
static GPtrArray *
read_usages (const ThrongCliCommand *commands, GError **error)
{
    g_autoptr (GPtrArray) usages
        = g_ptr_array_new_with_free_func ((GDestroyNotify)throng_usage_free);

    for (const ThrongCliCommand *c = commands; c->name != NULL; c++) {
        ThrongUsage *usage = throng_usage_read (c, error);
        if (usage == NULL)
            return NULL;
        g_ptr_array_add (usages, usage);
    }
    return g_steal_pointer (&usages);
}

char *
throng_manual_write (const char *template_text, const ThrongCliCommand *commands, GError **error)
{
    g_autoptr (GPtrArray) usages = read_usages (commands, error);
    g_auto (GStrv) lines = g_strsplit (template_text, "\n", -1);
    g_autoptr (GString) out = g_string_new (NULL);
    guint noted[G_N_ELEMENTS (notes)] = { 0 };

    if (usages == NULL)
        return NULL;
    for (gsize l = 0; lines[l] != NULL; l++) {
        const char *line = lines[l];
        gboolean synopsis = strcmp (line, "@SYNOPSIS@") == 0;
        gboolean listing = strcmp (line, "@COMMANDS@") == 0;
        gboolean options = strcmp (line, "@OPTIONS@") == 0;

        if (lines[l + 1] == NULL && *line == '\0')
            break;
        if (strcmp (line, "@EXIT_STATUS@") == 0) {
            append_exits (out);
            continue;
        }
        if (!synopsis && !listing && !options) {
            g_auto (GStrv) parts = g_strsplit (line, "@VERSION@", -1);
            g_autofree char *joined = g_strjoinv (THRONG_VERSION_STRING, parts);
            g_string_append_printf (out, "%s\n", joined);
            continue;
        }
        for (guint c = 0; commands[c].name != NULL; c++) {
            const ThrongUsage *usage = g_ptr_array_index (usages, c);

            if (synopsis)
                append_synopsis (out, &commands[c], usage);
            else if (listing)
                append_command (out, &commands[c], usage, noted);
            else if (usage->options->len > 0) {
                g_string_append (out, ".SS \"throng ");
                append_text (out, commands[c].name);
                g_string_append (out, "\"\n");
                for (guint o = 0; o < usage->options->len; o++)
                    append_option (out, &commands[c], g_ptr_array_index (usage->options, o), noted);
            }
        }
    }
    for (gsize i = 0; i < G_N_ELEMENTS (notes); i++) {
        if (noted[i] == 0) {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                         "a note of throng(1) is for %s%s%s'%s', which --help does not list",
                         notes[i].option != NULL ? "--" : "",
                         notes[i].option != NULL ? notes[i].option : "",
                         notes[i].option != NULL ? " of " : "", notes[i].command);
            return NULL;
        }
    }
    return g_string_free (g_steal_pointer (&out), FALSE);
}
