/* SPDX-License-Identifier: MIT */
/*
 * Golden files: `throng merge` of three shard files and `throng report` of
 * a jsonl file with samples, from real runs checked in under
 * tests/data/golden/ (make-inputs.sh wrote them), must write exactly the
 * bytes of tests/data/golden/expected/: every reporter `report` can write
 * to a file (html, csv, json in both modes, junit), the merged run in both
 * json modes, and each command's standard output, standard error and exit
 * status.  A refactoring of the commands or of the results pipeline that
 * changes one byte fails here.
 *
 * Made deterministic rather than masked: the commands run in the inputs'
 * directory (the merged file names its shards as given), with LC_ALL=C.UTF-8,
 * TZ=UTC and SOURCE_DATE_EPOCH (the html page's "Generated" line).  Masked,
 * because it cannot be otherwise: junit's `hostname` attribute, the machine
 * that writes the report, which becomes "HOST" on both sides.  The expected
 * files name the throng version that wrote them: a release bump rewrites them.
 *
 * After a change meant to alter an output, `THRONG_GOLDEN_UPDATE=1 meson test
 * -C build golden` rewrites tests/data/golden/expected/; read the diff before
 * committing it.
 */
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 60

/* Where each output goes, named as its expected file. */
#define OUT "@OUT@/"

typedef struct {
    const char *name;           /* the case, and the prefix of its .stdout/.stderr/.status */
    const char *const args[16]; /* throng's arguments; "@OUT@/x" is the output x */
    const char *const outputs[8];
} GoldenCase;

/* The thresholds of plan.yaml fail on purpose (shop.errors < 1): merge says 99. */
static const GoldenCase golden_cases[] = {
    { "merge",
      { "merge", "shard-0.jsonl", "shard-1.jsonl", "shard-2.jsonl", "--out",
        "json=" OUT "merge.json", NULL },
      { "merge.json", NULL } },
    { "merge-jsonl",
      { "merge", "shard-0.jsonl", "shard-1.jsonl", "shard-2.jsonl", "--quiet", "--out",
        "json=" OUT "merge.jsonl", "--set", "json.mode=jsonl", NULL },
      { "merge.jsonl", NULL } },
    { "report",
      { "report", "samples.jsonl", "--out", "html=" OUT "report.html", "--out",
        "csv=" OUT "report.csv", "--out", "json=" OUT "report.json", "--out",
        "junit=" OUT "report.xml", NULL },
      { "report.html", "report.csv", "report.json", "report.xml", NULL } },
    { "report-jsonl",
      { "report", "samples.jsonl", "--out", "json=" OUT "report.jsonl", "--set", "json.mode=jsonl",
        "--set", "json.samples=true", NULL },
      { "report.jsonl", NULL } },
};

/* What no machine can make the same: the host's name in junit's testsuite. */
static char *
normalize (const char *text)
{
    g_autofree char *host = g_strdup_printf (" hostname=\"%s\"", g_get_host_name ());
    g_auto (GStrv) parts = g_strsplit (text, host, -1);

    return g_strjoinv (" hostname=\"HOST\"", parts);
}

static gboolean
updating (void)
{
    return g_getenv ("THRONG_GOLDEN_UPDATE") != NULL;
}

/*
 * @actual against the file tests/data/golden/expected/@name, byte for
 * byte; or, when updating, written there.  On a difference, the first line
 * that differs goes to the log and the test fails.
 */
static void
compare (const char *name, const char *actual)
{
    g_autofree char *relative = g_strdup_printf ("tests/data/golden/expected/%s", name);
    g_autofree char *path = throng_test_source_path (relative);
    g_autofree char *expected = NULL;
    g_autoptr (GError) error = NULL;

    if (updating ()) {
        g_assert_true (g_file_set_contents (path, actual, -1, &error));
        g_test_message ("wrote %s", path);
        return;
    }
    if (!g_file_get_contents (path, &expected, NULL, &error))
        g_error ("%s: %s (THRONG_GOLDEN_UPDATE=1 writes it)", path, error->message);
    if (strcmp (expected, actual) == 0)
        return;

    gsize at = 0, line = 1, line_start = 0;
    while (expected[at] != '\0' && expected[at] == actual[at]) {
        if (expected[at] == '\n') {
            line++;
            line_start = at + 1;
        }
        at++;
    }
    g_autofree char *want
        = g_strndup (expected + line_start, strcspn (expected + line_start, "\n"));
    g_autofree char *got = g_strndup (actual + line_start, strcspn (actual + line_start, "\n"));
    g_test_message ("%s differs at byte %" G_GSIZE_FORMAT ", line %" G_GSIZE_FORMAT ":\n"
                    "expected: %.400s\nactual:   %.400s\n"
                    "(THRONG_GOLDEN_UPDATE=1 meson test -C BUILD golden rewrites the expected "
                    "files when the change is meant)",
                    relative, at, line, want, got);
    g_test_fail ();
}

static void
test_golden (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const GoldenCase *golden = data;
    g_autofree char *inputs = throng_test_source_path ("tests/data/golden");
    g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
    const char *const env[] = { "LC_ALL=C.UTF-8", "TZ=UTC", "SOURCE_DATE_EPOCH=1700000000", NULL };
    ThrongTestSpawnOptions options = { .cwd = inputs, .env = env };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_ptr_array_add (argv, g_strdup (throng_test_exe ()));
    for (const char *const *arg = golden->args; *arg != NULL; arg++) {
        g_auto (GStrv) parts = g_strsplit (*arg, "@OUT@", -1);
        g_ptr_array_add (argv, g_strjoinv (fixture->dir, parts));
    }
    g_ptr_array_add (argv, NULL);
    int status = throng_test_process_run ((const char *const *) argv->pdata, &options, RUN_TIMEOUT,
                                          &out, &err);

    g_autofree char *status_text = g_strdup_printf ("%d\n", status);
    g_autofree char *status_name = g_strdup_printf ("%s.status", golden->name);
    g_autofree char *out_name = g_strdup_printf ("%s.stdout", golden->name);
    g_autofree char *err_name = g_strdup_printf ("%s.stderr", golden->name);
    compare (status_name, status_text);
    compare (out_name, out);
    compare (err_name, err);
    for (const char *const *name = golden->outputs; *name != NULL; name++) {
        g_autofree char *path = g_build_filename (fixture->dir, *name, NULL);
        g_autofree char *text = NULL;
        g_autoptr (GError) error = NULL;
        if (!g_file_get_contents (path, &text, NULL, &error))
            g_error ("%s: %s; its stderr: %s", golden->name, error->message, err);
        g_autofree char *normal = normalize (text);
        compare (*name, normal);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (golden_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/golden/%s", golden_cases[i].name);
        g_test_add (path, ThrongTestTmpdir, &golden_cases[i], throng_test_tmpdir_setup,
                    test_golden, throng_test_tmpdir_teardown);
    }
    return g_test_run ();
}
