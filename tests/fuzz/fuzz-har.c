/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for `throng import har` (cli/import-har*.c).  One
 * input is one recording, imported twice as a user would: as it is, and
 * with --no-static, --include-host and --exclude, each with -o so that
 * binary bodies go to their body files.  The importer's contract
 * (docs/har.md) is that whatever it accepts becomes a plan that runs: a
 * plan it wrote must load (throng_plan_load in validate mode, with the
 * build's http plugin), and whatever it refuses it says in one line
 * ("throng: FILE: …").  A crash, a sanitizer report, a leak, a GLib
 * critical or warning, a message of more than one line, or a plan it
 * wrote that does not load is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "import-har.h"
#include "plan.h"

#include "fuzz-glib.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *dir;
static char *har_path;
static char *plan_path;

/* The command's lines on standard error: an error or a note, one line each. */
static void
check_printerr (const gchar *message)
{
    /* GLib's own report of a failed assertion. */
    if (g_str_has_prefix (message, "**")) {
        fputs (message, stderr);
        return;
    }
    const char *newline = strchr (message, '\n');

    if ((!g_str_has_prefix (message, "throng: ") && !g_str_has_prefix (message, "note: "))
        || newline == NULL || newline[1] != '\0')
        g_error ("not one line of throng import har: \"%s\"", message);
}

/* Every file of the directory but the recording: the plan and its body files. */
static void
remove_outputs (void)
{
    g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
    const char *name;

    while (listing != NULL && (name = g_dir_read_name (listing)) != NULL) {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        if (strcmp (path, har_path) != 0)
            g_unlink (path);
    }
}

static void
import (const char *const *options)
{
    g_autoptr (GPtrArray) args = g_ptr_array_new ();

    g_ptr_array_add (args, "import");
    g_ptr_array_add (args, "har");
    g_ptr_array_add (args, har_path);
    g_ptr_array_add (args, "-o");
    g_ptr_array_add (args, plan_path);
    g_ptr_array_add (args, "--overwrite");
    for (const char *const *o = options; *o != NULL; o++)
        g_ptr_array_add (args, (gpointer) *o);
    g_ptr_array_add (args, NULL);
    /* GOption takes out what it parsed: it gets a copy of the pointers. */
    g_autofree char **argv = g_memdup2 (args->pdata, sizeof (char *) * args->len);

    remove_outputs ();
    int status = throng_import_command ((int) args->len - 1, argv);
    g_assert_true (status == 0 || status == 2);
    if (status != 0) {
        g_assert_false (g_file_test (plan_path, G_FILE_TEST_EXISTS));
        return;
    }

    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    ThrongPlanLoadOptions load = { .validate_only = TRUE };
    g_autoptr (ThrongPlan) plan = throng_plan_load (plan_path, registry, &load, &error);
    if (plan == NULL) {
        g_autofree char *text = NULL;
        g_file_get_contents (plan_path, &text, NULL, NULL);
        g_error ("the imported plan does not load: %s\n%s", error->message, text);
    }
    g_assert_no_error (error);
}

static void
remove_files (void)
{
    remove_outputs ();
    g_unlink (har_path);
    g_rmdir (dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    g_autoptr (GError) error = NULL;

    dir = g_dir_make_tmp ("throng-fuzz-har-XXXXXX", &error);
    if (dir == NULL)
        g_error ("%s", error->message);
    har_path = g_build_filename (dir, "recording.har", NULL);
    plan_path = g_build_filename (dir, "plan.yaml", NULL);
    atexit (remove_files);
    g_set_printerr_handler (check_printerr);
    fuzz_glib_init ();
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    g_autoptr (GError) error = NULL;
    static const char *const as_is[] = { NULL };
    static const char *const selected[] = { "--no-static", "--include-host", "127.0.0.1",
                                            "--include-host", "localhost:8080",
                                            "--exclude", "\\.(png|ico)$", NULL };

    /* Larger inputs spend the fuzzer's time on copying, not on new entries. */
    if (size > 256 * 1024)
        return -1;
    /* No fsync: the file lives for one input. */
    if (!g_file_set_contents_full (har_path, (const char *) data, (gssize) size,
                                   G_FILE_SET_CONTENTS_NONE, 0644, &error))
        g_error ("cannot write %s: %s", har_path, error->message);
    import (as_is);
    import (selected);
    return 0;
}
