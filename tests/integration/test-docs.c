/* SPDX-License-Identifier: MIT */
/*
 * The documentation's examples run.  Every fenced `yaml` block of
 * README.md and of each .md page under docs/ is a plan that `throng
 * validate` accepts, unless the line just above its fence is an HTML
 * comment that says otherwise:
 *
 *   <!-- docs-test: fragment -->  part of a plan: well-formed YAML, not
 *                                 validated as a whole plan
 *   <!-- docs-test: error -->     an intentional error: validating it
 *                                 exits 2, and standard error is, byte for
 *                                 byte, the next fenced block (the plan is
 *                                 written as plan.yaml)
 *   <!-- docs-test: warning -->   a plan with a warning: validating it
 *                                 exits 0, and standard error is, byte for
 *                                 byte, the next fenced block
 *
 * A fenced `sh` block marked `<!-- docs-test: run -->` is run line by line
 * (a trailing `\` continues a line, `#` starts a comment) with `throng` on
 * the PATH, in a fresh directory that holds the source tree's top-level
 * entries (as symbolic links) and, as plan.yaml, the last yaml block above
 * it in the same file; each command must exit 0.  One test per block,
 * named by file and line.
 */
#include "node-private.h"
#include "summary.h"
#include "test-utils.h"

#include <string.h>

#define COMMAND_TIMEOUT 60

typedef enum {
    BLOCK_PLAN,
    BLOCK_FRAGMENT,
    BLOCK_ERROR,
    BLOCK_WARNING,
    BLOCK_RUN,
} BlockKind;

typedef struct {
    char *file;         /* relative to the source tree */
    guint line;         /* of the opening fence, from 1 */
    BlockKind kind;
    char *text;
    char *expected;     /* BLOCK_ERROR, BLOCK_WARNING: the next fenced block */
    char *plan;         /* BLOCK_RUN: the last yaml block above, or NULL */
} Block;

static void
block_free (gpointer data)
{
    Block *block = data;

    g_free (block->file);
    g_free (block->text);
    g_free (block->expected);
    g_free (block->plan);
    g_free (block);
}

/* A fence: "```" and its language (possibly empty); NULL when @line is not one. */
static char *
fence_language (const char *line)
{
    const char *p = line + strspn (line, " ");

    if (!g_str_has_prefix (p, "```"))
        return NULL;
    p += strspn (p, "`");
    return g_strstrip (g_strdup (p));
}

/* The marker of the line above a fence ("fragment", "error", "warning", "run"), or NULL. */
static char *
marker_of (const char *line)
{
    const char *prefix = "<!-- docs-test: ";
    g_autofree char *copy = g_strstrip (g_strdup (line));

    if (!g_str_has_prefix (copy, prefix) || !g_str_has_suffix (copy, " -->"))
        return NULL;
    return g_strndup (copy + strlen (prefix), strlen (copy) - strlen (prefix) - strlen (" -->"));
}

/* The body of the block whose fence is @lines[@at], without the fence's indent; *@end its closing line. */
static char *
block_body (char **lines, guint at, guint *end)
{
    gsize indent = strspn (lines[at], " ");
    GString *body = g_string_new (NULL);
    guint i;

    for (i = at + 1; lines[i] != NULL; i++) {
        g_autofree char *language = fence_language (lines[i]);
        if (language != NULL && *language == '\0')
            break;
        const char *text = lines[i];
        if (strspn (text, " ") >= indent)
            text += indent;
        g_string_append_printf (body, "%s\n", text);
    }
    g_assert_nonnull (lines[i]);
    *end = i;
    return g_string_free (body, FALSE);
}

static void
collect_blocks (const char *relative, GPtrArray *blocks)
{
    g_autofree char *path = throng_test_source_path (relative);
    g_autofree char *contents = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
    g_assert_no_error (error);
    g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
    g_autofree char *last_plan = NULL;
    Block *pending_error = NULL;

    for (guint i = 0; lines[i] != NULL; i++) {
        g_autofree char *language = fence_language (lines[i]);
        if (language == NULL)
            continue;
        g_autofree char *marker = i > 0 ? marker_of (lines[i - 1]) : NULL;
        guint end;
        g_autofree char *body = block_body (lines, i, &end);
        Block *block = NULL;

        if (pending_error != NULL) {
            /* The fenced block right after an intentional error is its message. */
            pending_error->expected = g_strdup (body);
            pending_error = NULL;
        } else if (strcmp (language, "yaml") == 0) {
            block = g_new0 (Block, 1);
            if (marker == NULL)
                block->kind = BLOCK_PLAN;
            else if (strcmp (marker, "fragment") == 0)
                block->kind = BLOCK_FRAGMENT;
            else if (strcmp (marker, "error") == 0) {
                block->kind = BLOCK_ERROR;
                pending_error = block;
            } else if (strcmp (marker, "warning") == 0) {
                block->kind = BLOCK_WARNING;
                pending_error = block;
            } else
                g_error ("%s:%u: unknown docs-test marker '%s' for a yaml block", relative, i,
                         marker);
            if (block->kind == BLOCK_PLAN) {
                g_free (last_plan);
                last_plan = g_strdup (body);
            }
        } else if (marker != NULL) {
            if (strcmp (marker, "run") != 0 || strcmp (language, "sh") != 0)
                g_error ("%s:%u: docs-test marker '%s' on a '%s' block; only sh blocks run",
                         relative, i, marker, language);
            block = g_new0 (Block, 1);
            block->kind = BLOCK_RUN;
            block->plan = g_strdup (last_plan);
        }
        if (block != NULL) {
            block->file = g_strdup (relative);
            block->line = i + 1;
            block->text = g_steal_pointer (&body);
            g_ptr_array_add (blocks, block);
        }
        i = end;
    }
    if (pending_error != NULL)
        g_error ("%s:%u: an error or warning block needs the expected message in the next fenced "
                 "block",
                 relative, pending_error->line);
}

/* Runs @argv (argv[0] the program) in @dir with throng on the PATH; returns the exit status. */
static int
run_in (const char *dir, const char *const *argv, char **err)
{
    g_autofree char *exe_dir = g_path_get_dirname (throng_test_exe ());
    g_autofree char *path = g_strconcat ("PATH=", exe_dir, ":", g_getenv ("PATH"), NULL);
    const char *const env[] = { path, NULL };
    ThrongTestSpawnOptions options = { .cwd = dir, .env = env };

    /* Standard output is collected and dropped: the test's own is TAP. */
    return throng_test_process_run (argv, &options, COMMAND_TIMEOUT, NULL, err);
}

static void
test_plan_block (const Block *block, const char *dir)
{
    g_free (throng_test_write_file (dir, "plan.yaml", block->text));
    const char *argv[] = { throng_test_exe (), "validate", "plan.yaml", NULL };
    g_autofree char *err = NULL;
    int status = run_in (dir, argv, &err);

    g_test_message ("%s:%u: exit %d, stderr: %s", block->file, block->line, status, err);
    if (block->kind == BLOCK_PLAN) {
        g_assert_cmpstr (err, ==, "");
        g_assert_cmpint (status, ==, 0);
        return;
    }
    g_assert_cmpstr (err, ==, block->expected);
    g_assert_cmpint (status, ==, block->kind == BLOCK_WARNING ? 0 : 2);
}

static void
test_fragment_block (const Block *block)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("fragment.yaml", block->text,
                                                         strlen (block->text), &error);

    g_test_message ("%s:%u: a fragment", block->file, block->line);
    g_assert_no_error (error);
    g_assert_nonnull (tree);
}

/* Joins continued lines and drops comments: the commands, one per element. */
static GPtrArray *
commands_of (const char *text)
{
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GString) command = g_string_new (NULL);

    for (guint i = 0; lines[i] != NULL; i++) {
        g_autofree char *line = g_strstrip (g_strdup (lines[i]));
        if (g_str_has_suffix (line, "\\")) {
            line[strlen (line) - 1] = '\0';
            g_string_append_printf (command, "%s ", line);
            continue;
        }
        g_string_append (command, line);
        /* A comment starts at " #" outside quotes; the docs' commands quote no '#'. */
        char *hash = strstr (command->str, " #");
        if (hash != NULL)
            g_string_truncate (command, (gsize) (hash - command->str));
        if (command->str[0] == '#')
            g_string_truncate (command, 0);
        g_strstrip (command->str);
        if (command->str[0] != '\0')
            g_ptr_array_add (commands, g_strdup (command->str));
        g_string_truncate (command, 0);
    }
    return commands;
}

static void
test_run_block (const Block *block, const char *dir)
{
    g_autofree char *source = throng_test_source_path (".");
    g_autoptr (GDir) listing = g_dir_open (source, 0, NULL);
    const char *entry;

    g_assert_nonnull (listing);
    while ((entry = g_dir_read_name (listing)) != NULL) {
        g_autofree char *target = g_build_filename (source, entry, NULL);
        g_autofree char *link = g_build_filename (dir, entry, NULL);
        if (strcmp (entry, "build") != 0 && entry[0] != '.')
            g_assert_cmpint (symlink (target, link), ==, 0);
    }
    if (block->plan != NULL)
        g_free (throng_test_write_file (dir, "plan.yaml", block->plan));

    g_autoptr (GPtrArray) commands = commands_of (block->text);
    g_assert_cmpuint (commands->len, >, 0);
    for (guint i = 0; i < commands->len; i++) {
        const char *argv[] = { "/bin/sh", "-ec", commands->pdata[i], NULL };
        g_autofree char *err = NULL;
        int status = run_in (dir, argv, &err);

        g_test_message ("%s:%u: $ %s: exit %d, stderr: %s", block->file, block->line,
                        (const char *) commands->pdata[i], status, err);
        g_assert_cmpint (status, ==, 0);
    }
    /*
     * A shown run must also work, not just exit 0: every json summary it
     * wrote reports no errors (the README's plan once exited 0 with half
     * its requests refused).
     */
    g_autoptr (GDir) written = g_dir_open (dir, 0, NULL);
    while ((entry = g_dir_read_name (written)) != NULL) {
        if (!g_str_has_suffix (entry, ".json"))
            continue;
        g_autofree char *path = g_build_filename (dir, entry, NULL);
        g_autoptr (GError) error = NULL;
        g_autoptr (JsonNode) summary = throng_test_json_load (path, &error);

        g_assert_no_error (error);
        if (!throng_test_json_has (summary, "total.errors"))
            continue;
        g_test_message ("%s:%u: %s: %" G_GINT64_FORMAT " errors", block->file, block->line, entry,
                        throng_test_json_int (summary, "total.errors"));
        g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    }
}

static void
test_block (gconstpointer data)
{
    const Block *block = data;
    g_autofree char *dir = throng_test_tmpdir_new ();

    switch (block->kind) {
    case BLOCK_PLAN:
    case BLOCK_ERROR:
    case BLOCK_WARNING:
        test_plan_block (block, dir);
        break;
    case BLOCK_FRAGMENT:
        test_fragment_block (block);
        break;
    case BLOCK_RUN:
        test_run_block (block, dir);
        break;
    }
    throng_test_tmpdir_free (g_steal_pointer (&dir));
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/*
 * docs/internals.md is the map of the tree: every path it names in
 * backquotes (from the tree's root, a folder ending in '/') exists.  A
 * placeholder (NAME, SUITE) or a pattern (*) is not a path.
 */
static void
test_internals_paths (void)
{
    g_autofree char *path = throng_test_source_path ("docs/internals.md");
    g_autofree char *text = NULL;
    g_autoptr (GRegex) regex = g_regex_new ("`([A-Za-z0-9_.+-]+/[A-Za-z0-9_./+-]*)`", 0, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;
    guint checked = 0;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_regex_match (regex, text, 0, &match);
    for (; g_match_info_matches (match); g_match_info_next (match, NULL)) {
        g_autofree char *named = g_match_info_fetch (match, 1);
        g_autofree char *full = NULL;

        if (strstr (named, "NAME") != NULL || strstr (named, "SUITE") != NULL)
            continue;
        full = throng_test_source_path (named);
        if (!g_file_test (full, G_FILE_TEST_EXISTS))
            g_test_fail_printf ("docs/internals.md names %s, which does not exist", named);
        checked++;
    }
    g_test_message ("%u paths checked", checked);
    /* A map that names nothing checks nothing. */
    g_assert_cmpuint (checked, >=, 40);
}

int
main (int argc, char **argv)
{
    static GPtrArray *blocks;
    g_autofree char *docs = throng_test_source_path ("docs");
    g_autoptr (GDir) listing = NULL;
    g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
    const char *entry;

    g_test_init (&argc, &argv, NULL);
    /* Every block is reported, not only the first that fails. */
    g_test_set_nonfatal_assertions ();

    listing = g_dir_open (docs, 0, NULL);
    g_assert_nonnull (listing);
    g_ptr_array_add (files, g_strdup ("README.md"));
    while ((entry = g_dir_read_name (listing)) != NULL)
        if (g_str_has_suffix (entry, ".md"))
            g_ptr_array_add (files, g_build_filename ("docs", entry, NULL));
    g_ptr_array_sort (files, compare_names);

    blocks = g_ptr_array_new_with_free_func (block_free);
    for (guint f = 0; f < files->len; f++)
        collect_blocks (files->pdata[f], blocks);
    /* Keep the checked examples from vanishing unseen. */
    g_assert_cmpuint (blocks->len, >=, 16);

    for (guint i = 0; i < blocks->len; i++) {
        const Block *block = blocks->pdata[i];
        static const char *const kinds[] = { "plan", "fragment", "error", "warning", "run" };
        g_autofree char *name = g_strdup_printf ("/docs/%s/%s-line-%u", block->file,
                                                 kinds[block->kind], block->line);
        g_test_add_data_func (name, block, test_block);
    }
    g_test_add_func ("/docs/internals/paths", test_internals_paths);
    int status = g_test_run ();
    g_ptr_array_unref (blocks);
    return status;
}
