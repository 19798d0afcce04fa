/* SPDX-License-Identifier: MIT */
/*
 * What the command line says about itself, from one source (cli/usage.h):
 * throng(1) as the build wrote it lists every command and every option
 * that the commands' --help list, the release and the exit statuses;
 * `throng version` names the libraries it runs with; the `--out`
 * shortcuts of prometheus and influxdb configure what the long form does;
 * the shell completions, driven by a real bash (zsh and fish parse them,
 * and fish completes through them, where they are installed).
 */
#include <throng/version.h>

#include "test-utils.h"

#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <libsoup/soup.h>
#include <nghttp2/nghttp2.h>
#include <string.h>

#define RUN_TIMEOUT 60

/* The commands `throng --help` lists: "run", …, "import har". */
static GPtrArray *
help_commands (void)
{
    g_autofree char *out = NULL;
    g_autoptr (GRegex) regex
        = g_regex_new ("^  ([a-z]+(?: har)?)(?: [^ ]+)? {2,}", G_REGEX_MULTILINE, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;
    GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);

    g_assert_cmpint (throng_test_runv (10, &out, NULL, "--help", NULL), ==, 0);
    const char *listing = strstr (out, "Commands:\n");
    g_assert_nonnull (listing);
    g_autofree char *section = g_strndup (listing, strstr (listing, "\n\n") - listing);
    for (g_regex_match (regex, section, 0, &match); g_match_info_matches (match);
         g_match_info_next (match, NULL))
        g_ptr_array_add (commands, g_match_info_fetch (match, 1));
    return commands;
}

/* The long options `throng COMMAND --help` lists, but --help. */
static GPtrArray *
help_options (const char *command)
{
    g_autofree char *line = g_strdup_printf ("exec \"$0\" %s --help", command);
    const char *argv[] = { "/bin/sh", "-c", line, throng_test_exe (), NULL };
    g_autofree char *out = NULL;
    g_autoptr (GRegex) regex
        = g_regex_new ("^  (?:-[a-zA-Z], )?--([a-z][a-z-]*)", G_REGEX_MULTILINE, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;
    GPtrArray *options = g_ptr_array_new_with_free_func (g_free);

    g_assert_cmpint (throng_test_process_run (argv, NULL, 10, &out, NULL), ==, 0);
    for (g_regex_match (regex, out, 0, &match); g_match_info_matches (match);
         g_match_info_next (match, NULL)) {
        char *option = g_match_info_fetch (match, 1);
        if (strcmp (option, "help") == 0)
            g_free (option);
        else
            g_ptr_array_add (options, option);
    }
    return options;
}

/*
 * The text of @page from the newline that ends @heading to the next
 * section (.SH), or subsection (.SS) too when @subsection.
 */
static char *
man_section (const char *page, const char *heading, gboolean subsection)
{
    g_autofree char *start = g_strconcat ("\n", heading, "\n", NULL);
    const char *at = strstr (page, start);

    g_assert_nonnull (at);
    at += strlen (start) - 1;
    const char *end = strstr (at, "\n.SH ");
    const char *sub = subsection ? strstr (at, "\n.SS ") : NULL;
    if (sub != NULL && (end == NULL || sub < end))
        end = sub;
    return end != NULL ? g_strndup (at, end - at) : g_strdup (at);
}

/*
 * throng(1), as the build wrote it: its release is the executable's, each
 * command of --help has its synopsis line and entry, each command's
 * options are listed under its name and nothing else is, the exit
 * statuses are --help's; groff reads it without a warning.
 */
static void
test_man_page (void)
{
    g_autofree char *path
        = g_build_filename (g_getenv ("THRONG_BUILD_DIR"), "docs", "throng.1", NULL);
    g_autofree char *page = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (GPtrArray) commands = help_commands ();

    g_assert_true (g_file_get_contents (path, &page, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (g_str_has_prefix (page, ".\\\" SPDX"));
    g_autofree char *title
        = g_strdup_printf ("\n.TH THRONG 1 \"\" \"throng %s\" ", THRONG_VERSION_STRING);
    g_assert_nonnull (strstr (page, title));
    g_assert_null (strstr (page, "@"));

    g_assert_cmpuint (commands->len, >=, 7);
    g_autofree char *synopsis = man_section (page, ".SH SYNOPSIS", FALSE);
    g_autofree char *listing = man_section (page, ".SH COMMANDS", FALSE);
    guint man_options = 0;
    for (guint c = 0; c < commands->len; c++) {
        const char *command = g_ptr_array_index (commands, c);
        g_autofree char *line = g_strdup_printf (".B throng %s\n", command);
        g_autofree char *entry = g_strdup_printf ("\n.TP\n.B %s", command);

        g_test_message ("command %s", command);
        g_assert_nonnull (strstr (synopsis, line));
        g_assert_nonnull (strstr (listing, entry));

        g_autoptr (GPtrArray) options = help_options (command);
        if (options->len == 0)
            continue;
        g_autofree char *heading = g_strdup_printf (".SS \"throng %s\"", command);
        g_autofree char *own = man_section (page, heading, TRUE);
        for (guint o = 0; o < options->len; o++) {
            g_auto (GStrv) parts = g_strsplit (g_ptr_array_index (options, o), "-", -1);
            g_autofree char *roff = g_strjoinv ("\\-", parts);
            g_autofree char *item = g_strdup_printf ("\\fB\\-\\-%s\\fR", roff);
            g_assert_nonnull (strstr (own, item));
        }
        /* Nothing else: one .TP per option. */
        g_assert_cmpuint (throng_test_count (own, "\n.TP\n"), ==, options->len);
        man_options += options->len;
    }
    g_assert_cmpuint (man_options, >=, 20);

    /* The exit statuses of `throng --help`, in order. */
    g_autofree char *top = NULL;
    g_assert_cmpint (throng_test_runv (10, &top, NULL, "--help", NULL), ==, 0);
    g_autofree char *exits = man_section (page, ".SH EXIT STATUS", FALSE);
    g_autoptr (GRegex) help_status = g_regex_new ("(?:Exit status:|,|\n) ?([0-9]+) ", 0, 0, NULL);
    g_autoptr (GRegex) man_status = g_regex_new ("^\\.B ([0-9]+)$", G_REGEX_MULTILINE, 0, NULL);
    g_autoptr (GString) help_codes = g_string_new (NULL);
    g_autoptr (GString) man_codes = g_string_new (NULL);
    g_autoptr (GMatchInfo) match = NULL;
    for (g_regex_match (help_status, strstr (top, "Exit status:"), 0, &match);
         g_match_info_matches (match); g_match_info_next (match, NULL)) {
        g_autofree char *code = g_match_info_fetch (match, 1);
        g_string_append_printf (help_codes, "%s ", code);
    }
    g_clear_pointer (&match, g_match_info_unref);
    for (g_regex_match (man_status, exits, 0, &match); g_match_info_matches (match);
         g_match_info_next (match, NULL)) {
        g_autofree char *code = g_match_info_fetch (match, 1);
        g_string_append_printf (man_codes, "%s ", code);
    }
    g_assert_cmpstr (help_codes->str, ==, "0 2 3 4 5 99 108 130 ");
    g_assert_cmpstr (man_codes->str, ==, help_codes->str);

    /* groff: every macro and escape understood. */
    g_autofree char *groff = g_find_program_in_path ("groff");
    if (groff == NULL) {
        g_test_message ("groff is not installed: the page is not typeset");
        return;
    }
    const char *argv[] = { groff, "-man", "-ww", "-z", path, NULL };
    g_autofree char *err = NULL;
    g_assert_cmpint (throng_test_process_run (argv, NULL, 30, NULL, &err), ==, 0);
    g_assert_cmpstr (err, ==, "");
}

/* `throng version`: --version's line, then the libraries this process loads too. */
static void
test_version (void)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autofree char *first = NULL;
    g_autofree char *expected = NULL;

    g_assert_cmpint (throng_test_runv (10, &first, NULL, "--version", NULL), ==, 0);
    g_assert_cmpint (throng_test_runv (10, &out, &err, "version", NULL), ==, 0);
    g_assert_cmpstr (err, ==, "");
    expected = g_strdup_printf ("%sGLib %u.%u.%u\nlibsoup %u.%u.%u\nGnuTLS %s\nnghttp2 %s\n", first,
                                glib_major_version, glib_minor_version, glib_micro_version,
                                soup_get_major_version (), soup_get_minor_version (),
                                soup_get_micro_version (), gnutls_check_version (NULL),
                                nghttp2_version (0)->version_str);
    g_assert_cmpstr (out, ==, expected);
    g_assert_cmpint (throng_test_runv (10, NULL, NULL, "version", "extra", NULL), ==, 2);
}

/* ------------------------------------------------------------------ */
/* --out shortcuts                                                     */

static const char one_request_plan[] = "scenarios:\n"
                                       "  - name: s\n"
                                       "    users: 1\n"
                                       "    iterations: 2\n"
                                       "    steps:\n"
                                       "      - http: { url: \"%s/\" }\n"
                                       "%s";

/*
 * --out prometheus=ADDR is {listen: ADDR}: on a port already taken, the
 * run fails to start with the message the plan's long form gives.
 */
static void
test_out_prometheus (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autoptr (GSocketListener) taken = g_socket_listener_new ();
    g_autoptr (GError) error = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;

    g_assert_true (g_socket_listener_add_address (taken, any, G_SOCKET_TYPE_STREAM,
                                                  G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error));
    g_assert_no_error (error);
    guint port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
    g_autofree char *address = g_strdup_printf ("127.0.0.1:%u", port);
    g_autofree char *out_arg = g_strconcat ("prometheus=", address, NULL);
    g_autofree char *reporters
        = g_strdup_printf ("reporters:\n  - prometheus: { listen: \"%s\" }\n", address);
    g_autofree char *short_yaml = g_strdup_printf (one_request_plan, "http://127.0.0.1:9", "");
    g_autofree char *long_yaml
        = g_strdup_printf (one_request_plan, "http://127.0.0.1:9", reporters);
    g_autofree char *short_plan = throng_test_write_plan (tmp->dir, "short.yaml", short_yaml);
    g_autofree char *long_plan = throng_test_write_plan (tmp->dir, "long.yaml", long_yaml);
    g_autofree char *short_err = NULL;
    g_autofree char *long_err = NULL;

    g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, NULL, &short_err, "run", short_plan, "--quiet",
                                       "--out", out_arg, NULL),
                     ==, 3);
    g_assert_cmpint (
        throng_test_runv (RUN_TIMEOUT, NULL, &long_err, "run", long_plan, "--quiet", NULL), ==, 3);
    g_test_message ("--out: %s\nplan: %s", short_err, long_err);
    g_autofree char *expected = g_strdup_printf ("cannot listen on %s", address);
    g_assert_nonnull (strstr (short_err, expected));
    g_assert_cmpstr (short_err, ==, long_err);
}

/* What the fake InfluxDB received: "POST PATH?QUERY BODY" per write. */
typedef struct {
    GMutex lock;
    GPtrArray *writes;
} Writes;

static void
influx_handler (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
                gpointer data)
{
    Writes *writes = data;
    SoupMessageBody *body = soup_server_message_get_request_body (msg);
    g_autoptr (GBytes) bytes = soup_message_body_flatten (body);
    GUri *uri = soup_server_message_get_uri (msg);

    /* The plan's own requests come here too. */
    if (strcmp (soup_server_message_get_method (msg), "POST") != 0) {
        soup_server_message_set_status (msg, 200, NULL);
        return;
    }
    g_mutex_lock (&writes->lock);
    g_ptr_array_add (writes->writes,
                     g_strdup_printf ("%s %s?%s %.*s", soup_server_message_get_method (msg), path,
                                      g_uri_get_query (uri) != NULL ? g_uri_get_query (uri) : "",
                                      (int)g_bytes_get_size (bytes),
                                      (const char *)g_bytes_get_data (bytes, NULL)));
    g_mutex_unlock (&writes->lock);
    soup_server_message_set_status (msg, 204, NULL);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

/* The measurements ("throng_step", …) of @writes' line protocol, sorted, each once. */
static char *
measurements (Writes *writes)
{
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

    g_mutex_lock (&writes->lock);
    for (guint i = 0; i < writes->writes->len; i++) {
        const char *write = g_ptr_array_index (writes->writes, i);
        g_assert_true (g_str_has_prefix (write, "POST /write?"));
        g_auto (GStrv) lines = g_strsplit (strchr (strchr (write, ' ') + 1, ' ') + 1, "\n", -1);
        for (guint l = 0; lines[l] != NULL; l++) {
            g_autofree char *name = g_strndup (lines[l], strcspn (lines[l], ", "));
            if (*name != '\0' && !g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
                g_ptr_array_add (names, g_steal_pointer (&name));
        }
    }
    g_ptr_array_set_size (writes->writes, 0);
    g_mutex_unlock (&writes->lock);
    g_ptr_array_sort (names, compare_strings);
    g_ptr_array_add (names, NULL);
    return g_strjoinv (" ", (char **)names->pdata);
}

/* --out influxdb=URL is {url: URL}: the same measurements reach the server as from the long form.
 */
static void
test_out_influxdb (ThrongTestTmpdir *tmp, gconstpointer data)
{
    Writes writes = { .writes = g_ptr_array_new_with_free_func (g_free) };
    g_autoptr (ThrongTestSoupServer) server = NULL;

    g_mutex_init (&writes.lock);
    server = throng_test_soup_server_start (NULL, influx_handler, &writes);
    const char *url = throng_test_soup_server_http_url (server);
    g_autofree char *out_arg = g_strconcat ("influxdb=", url, NULL);
    g_autofree char *reporters
        = g_strdup_printf ("reporters:\n  - influxdb: { url: \"%s\" }\n", url);
    g_autofree char *short_yaml = g_strdup_printf (one_request_plan, url, "");
    g_autofree char *long_yaml = g_strdup_printf (one_request_plan, url, reporters);
    g_autofree char *short_plan = throng_test_write_plan (tmp->dir, "short.yaml", short_yaml);
    g_autofree char *long_plan = throng_test_write_plan (tmp->dir, "long.yaml", long_yaml);
    g_autofree char *err = NULL;
    g_autofree char *long_err = NULL;

    g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, NULL, &err, "run", short_plan, "--quiet",
                                       "--out", out_arg, NULL),
                     ==, 0);
    throng_test_assert_no_glib_noise (err);
    g_autofree char *from_short = measurements (&writes);
    g_assert_cmpint (
        throng_test_runv (RUN_TIMEOUT, NULL, &long_err, "run", long_plan, "--quiet", NULL), ==, 0);
    throng_test_assert_no_glib_noise (long_err);
    g_autofree char *from_long = measurements (&writes);
    g_test_message ("--out: %s\nplan: %s", from_short, from_long);
    g_assert_cmpstr (from_short, !=, "");
    g_assert_cmpstr (from_short, ==, from_long);

    g_clear_pointer (&server, throng_test_soup_server_stop);
    g_ptr_array_unref (writes.writes);
    g_mutex_clear (&writes.lock);
}

/* ------------------------------------------------------------------ */
/* Shell completions                                                   */

/* Writes the files a completion offers or leaves out into @dir. */
static void
completion_files (const char *dir)
{
    static const char *const names[]
        = { "plan.yaml", "other.txt", "run.jsonl", "rec.har", "results.csv" };
    g_autofree char *sub = g_build_filename (dir, "plans", NULL);

    for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
        g_free (throng_test_write_file (dir, names[i], ""));
    g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
}

/* What completions/throng.bash offers for @line (the cursor at its end), sorted, one a line. */
static char *
bash_complete (const char *bash, const char *dir, const char *line)
{
    g_autofree char *script = throng_test_source_path ("completions/throng.bash");
    const char *argv[] = {
        bash,
        "--norc",
        "--noprofile",
        "-c",
        "cd \"$1\" && source \"$2\" && COMP_LINE=$3 && COMP_POINT=${#COMP_LINE} && "
        "_throng \"$4\" '' '' && printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort",
        "bash",
        dir,
        script,
        line,
        throng_test_exe (),
        NULL,
    };
    char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (throng_test_process_run (argv, NULL, 30, &out, &err), ==, 0);
    g_test_message ("%s| → %s", line, out);
    g_assert_cmpstr (err, ==, "");
    return out;
}

static void
test_complete_bash (ThrongTestTmpdir *tmp, gconstpointer data)
{
    static const struct {
        const char *line;
        const char *expected; /* the whole answer, or with `contains` a part of it */
        gboolean contains;
    } cases[] = {
        { "throng ", "compare\nimport\nmerge\nplugins\nreport\nrun\nvalidate\nversion\n", FALSE },
        { "throng ru", "run\n", FALSE },
        { "throng run --wo", "--workers\n", FALSE },
        { "throng run -", "\n--http-debug\n", TRUE },
        { "throng run -", "\n-s\n", TRUE },
        { "throng run ", "plan.yaml\nplans\n", FALSE },
        { "throng validate p", "plan.yaml\nplans\n", FALSE },
        { "throng run plan.yaml --out ",
          "console=\ncsv=\nhtml=\ninfluxdb=\njson=\njunit=\n"
          "prometheus=\n",
          TRUE },
        { "throng run plan.yaml --out cs", "csv=\n", FALSE },
        { "throng run plan.yaml -o csv=re", "rec.har\nresults.csv\n", FALSE },
        { "throng run plan.yaml --out prometheus=127", "\n", FALSE },
        { "throng run plan.yaml --workers ", "\n", FALSE },
        { "throng merge ", "plans\nrun.jsonl\n", FALSE },
        { "throng report r", "run.jsonl\n", FALSE },
        { "throng import ", "har\n", FALSE },
        { "throng import har --o", "--output\n--overwrite\n", FALSE },
        { "throng import har ", "plans\nrec.har\n", FALSE },
        { "throng plugins --", "--help\n", FALSE },
    };
    g_autofree char *bash = throng_test_require_program ("bash");

    if (bash == NULL)
        return;
    completion_files (tmp->dir);
    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *out = bash_complete (bash, tmp->dir, cases[i].line);
        if (cases[i].contains)
            g_assert_nonnull (strstr (out, cases[i].expected));
        else
            g_assert_cmpstr (out, ==, cases[i].expected);
    }
}

/* zsh and fish read their files; fish, which completes a line on request, completes through it. */
static void
test_complete_zsh_fish (ThrongTestTmpdir *tmp, gconstpointer data)
{
    g_autofree char *zsh = g_find_program_in_path ("zsh");
    g_autofree char *fish = g_find_program_in_path ("fish");
    g_autofree char *zsh_file = throng_test_source_path ("completions/_throng");
    g_autofree char *fish_file = throng_test_source_path ("completions/throng.fish");

    if (zsh == NULL && fish == NULL) {
        g_test_skip ("neither zsh nor fish is installed");
        return;
    }
    if (zsh != NULL) {
        const char *argv[] = { zsh, "-n", zsh_file, NULL };
        g_autofree char *err = NULL;
        g_assert_cmpint (throng_test_process_run (argv, NULL, 30, NULL, &err), ==, 0);
        g_assert_cmpstr (err, ==, "");
    }
    if (fish == NULL)
        return;

    /* `throng` on the PATH, as installed. */
    g_autofree char *bin = g_path_get_dirname (throng_test_exe ());
    g_autofree char *path = g_strconcat ("PATH=", bin, ":", g_getenv ("PATH"), NULL);
    const char *env[] = { path, NULL };
    static const struct {
        const char *line;
        const char *expected;
    } cases[] = {
        { "throng ru", "run\tRun a plan and report its results\n" },
        { "throng run --wor", "--workers\tWorker threads, 1 to 1024 (default: the number of "
                              "CPUs)\n" },
        { "throng run plan.yaml --out cs", "csv=\treporter " THRONG_VERSION_STRING "\n" },
        { "throng validate pl", "plan.yaml\nplans/\n" },
        { "throng import ", "har\n" },
        { "throng import har r", "rec.har\n" },
        { "throng merge r", "run.jsonl\n" },
        { "throng run plan.yaml --out csv=re", "csv=rec.har\ncsv=results.csv\n" },
    };

    completion_files (tmp->dir);
    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *command = g_strdup_printf (
            "cd '%s'; and source '%s'; and complete -C '%s'", tmp->dir, fish_file, cases[i].line);
        const char *argv[] = { fish, "--no-config", "-c", command, NULL };
        ThrongTestSpawnOptions options = { .env = env };
        g_autofree char *out = NULL;
        g_autofree char *err = NULL;

        g_assert_cmpint (throng_test_process_run (argv, &options, 30, &out, &err), ==, 0);
        g_test_message ("%s| → %s", cases[i].line, out);
        g_assert_cmpstr (err, ==, "");
        g_assert_cmpstr (out, ==, cases[i].expected);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/cli/man-page", test_man_page);
    g_test_add_func ("/cli/version", test_version);
    g_test_add ("/cli/out/prometheus", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_out_prometheus, throng_test_tmpdir_teardown);
    g_test_add ("/cli/out/influxdb", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_out_influxdb, throng_test_tmpdir_teardown);
    g_test_add ("/cli/complete/bash", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_complete_bash, throng_test_tmpdir_teardown);
    g_test_add ("/cli/complete/zsh-fish", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_complete_zsh_fish, throng_test_tmpdir_teardown);
    return g_test_run ();
}
