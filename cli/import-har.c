/* SPDX-License-Identifier: MIT */
/*
 * `throng import har`: the command line (docs/har.md).  Reads its options,
 * has the recording read (import-har-read.c) and the plan written
 * (import-har-write.c), and writes the plan and its body files, or says
 * in one line why it cannot, with the exit status.
 */
#include "import-har.h"
#include "import-har-private.h"

#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

enum {
    IMPORT_OK = 0,
    IMPORT_USAGE = 2,
    IMPORT_NOT_WRITTEN = 4,
};

typedef struct {
    HarSelect select;
    char **excludes;            /* --exclude as given; compiled into select */
    char *output;
    gboolean overwrite;
    gboolean no_correlate;
} ImportOptions;

/* The plan's name: the recording's file name without its extension. */
static char *
plan_name (const char *source)
{
    g_autofree char *base = g_path_get_basename (source);
    char *dot = strrchr (base, '.');

    if (dot != NULL && dot != base)
        *dot = '\0';
    return g_strdup (base);
}

/* Names the body files (beside @output) of the requests whose body was recorded as base64. */
static gboolean
name_body_files (HarImport *import, const char *output, GError **error)
{
    g_autofree char *base = output != NULL ? g_path_get_basename (output) : NULL;

    for (guint i = 0; i < import->requests->len; i++) {
        HarRequest *request = g_ptr_array_index (import->requests, i);

        if (!request->body_binary)
            continue;
        if (output == NULL) {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         "%s: entry %u has a binary (base64) body, written to a file beside the "
                         "plan: give the plan's path with -o",
                         import->source, request->entry + 1);
            return FALSE;
        }
        char *dot = strrchr (base, '.');
        if (dot != NULL && dot != base
            && (g_ascii_strcasecmp (dot, ".yaml") == 0 || g_ascii_strcasecmp (dot, ".yml") == 0))
            *dot = '\0';
        request->body_file = g_strdup_printf ("%s.body-%u.bin", base, request->entry + 1);
    }
    return TRUE;
}

static gboolean
write_file (const char *path, const char *data, gsize length, gboolean overwrite, GError **error)
{
    if (!overwrite && g_file_test (path, G_FILE_TEST_EXISTS)) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                     "%s exists; pass --overwrite to replace it", path);
        return FALSE;
    }
    return g_file_set_contents (path, data, (gssize) length, error);
}

static int
write_outputs (const HarImport *import, const ImportOptions *options, const char *plan)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = g_path_get_dirname (options->output);

    for (guint i = 0; i < import->requests->len; i++) {
        const HarRequest *request = g_ptr_array_index (import->requests, i);
        g_autofree char *path = NULL;
        gsize length = 0;

        if (request->body_file == NULL)
            continue;
        path = g_build_filename (dir, request->body_file, NULL);
        const char *data = g_bytes_get_data (request->body, &length);
        if (!write_file (path, data != NULL ? data : "", length, options->overwrite, &error)) {
            g_printerr ("throng: %s\n", error->message);
            return error->domain == G_IO_ERROR && error->code == G_IO_ERROR_EXISTS
                       ? IMPORT_USAGE
                       : IMPORT_NOT_WRITTEN;
        }
    }
    if (!write_file (options->output, plan, strlen (plan), options->overwrite, &error)) {
        g_printerr ("throng: %s\n", error->message);
        return error->domain == G_IO_ERROR && error->code == G_IO_ERROR_EXISTS
                   ? IMPORT_USAGE
                   : IMPORT_NOT_WRITTEN;
    }
    return IMPORT_OK;
}

/* Says on standard error what a user must know before running the plan. */
static void
print_notes (const HarImport *import)
{
    g_autoptr (GHashTable) said = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; i < import->requests->len; i++) {
        const HarRequest *request = g_ptr_array_index (import->requests, i);

        if (har_host_is_loopback (request->host) || !g_hash_table_add (said, request->host))
            continue;
        g_printerr ("note: %s is not a loopback host: running the plan sends its requests "
                    "there\n",
                    request->host);
    }
    if (import->skipped->len > 0)
        g_printerr ("note: %u entries cannot be replayed and were skipped (listed in the plan)\n",
                    import->skipped->len);
}

static void
import_options_clear (ImportOptions *options)
{
    g_strfreev (options->select.include_hosts);
    g_strfreev (options->excludes);
    g_clear_pointer (&options->select.exclude_regexes, g_ptr_array_unref);
    g_free (options->output);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ImportOptions, import_options_clear)

static int
usage_error (const char *message)
{
    g_printerr ("throng: %s\n", message);
    g_printerr ("Try 'throng import har --help'.\n");
    return IMPORT_USAGE;
}

static int
import_har (int argc, char **argv)
{
    g_auto (ImportOptions) options = { 0 };
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &options.output,
          "Write the plan to PLAN (default: standard output)", "PLAN" },
        { "include-host", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options.select.include_hosts,
          "Keep only requests to HOST or HOST:PORT (repeatable)", "HOST" },
        { "exclude", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options.excludes,
          "Leave out requests whose URL matches REGEX (repeatable)", "REGEX" },
        { "no-static", 0, 0, G_OPTION_ARG_NONE, &options.select.no_static,
          "Leave out static assets (styles, scripts, images, fonts, media)", NULL },
        { "overwrite", 0, 0, G_OPTION_ARG_NONE, &options.overwrite,
          "Replace an existing plan and body files", NULL },
        { "no-correlate", 0, 0, G_OPTION_ARG_NONE, &options.no_correlate,
          "Send every value as recorded: no extractors for the tokens and ids that responses "
          "returned", NULL },
        { NULL },
    };
    g_autoptr (GOptionContext) context = g_option_context_new ("RECORDING.har");
    g_autoptr (GError) error = NULL;
    g_auto (HarImport) import = { 0 };

    g_set_prgname ("throng import har");
    g_option_context_set_summary (context,
                                  "Turns a browser's HAR 1.2 recording (Chromium's or Firefox's "
                                  "DevTools,\nPlaywright) into a plan: one step per request, in "
                                  "order.");
    g_option_context_set_description (context,
                                      "Exit status: 0 the plan was written, 2 usage error or not "
                                      "a HAR 1.2 recording,\n4 the plan could not be written.");
    g_option_context_add_main_entries (context, entries, NULL);
    if (!g_option_context_parse (context, &argc, &argv, &error))
        return usage_error (error->message);
    if (argc != 2)
        return usage_error (argc < 2 ? "a HAR file is required" : "only one HAR file");
    options.select.exclude_regexes
        = g_ptr_array_new_with_free_func ((GDestroyNotify) g_regex_unref);
    for (char **pattern = options.excludes; pattern != NULL && *pattern != NULL; pattern++) {
        GRegex *regex = g_regex_new (*pattern, G_REGEX_OPTIMIZE, 0, &error);
        if (regex == NULL) {
            g_autofree char *message
                = g_strdup_printf ("--exclude '%s': %s", *pattern, error->message);
            return usage_error (message);
        }
        g_ptr_array_add (options.select.exclude_regexes, regex);
    }

    if (!har_read (argv[1], &options.select, &import, &error)
        || !name_body_files (&import, options.output, &error)) {
        g_printerr ("throng: %s\n", error->message);
        return IMPORT_USAGE;
    }

    if (!options.no_correlate)
        har_correlate (&import);
    g_autofree char *name = plan_name (argv[1]);
    g_autofree char *plan = har_write_plan (&import, name);
    int status = IMPORT_OK;
    if (options.output == NULL)
        g_print ("%s", plan);
    else
        status = write_outputs (&import, &options, plan);
    /* What a user must know before running it, once it is written. */
    if (status == IMPORT_OK)
        print_notes (&import);
    return status;
}

int
throng_import_command (int argc, char **argv)
{
    if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0) {
        FILE *stream = argc < 2 ? stderr : stdout;
        fprintf (stream, "Usage: throng import FORMAT [OPTION…] FILE\n"
                         "\n"
                         "Turns a recording into a plan.  Formats:\n"
                         "  har   a browser's HAR 1.2 recording ('throng import har --help')\n");
        return argc < 2 ? IMPORT_USAGE : IMPORT_OK;
    }
    if (strcmp (argv[1], "har") == 0)
        return import_har (argc - 1, argv + 1);
    g_printerr ("throng: import: unknown format '%s'; throng imports 'har'\n", argv[1]);
    return IMPORT_USAGE;
}
