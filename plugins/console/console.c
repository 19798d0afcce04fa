/* SPDX-License-Identifier: MIT */
/*
 * The console reporter: its options, the live progress while the run
 * goes and the summary at its end, all on standard output.  On a terminal
 * one line is rewritten each second; elsewhere (a CI log) a plain line is
 * printed per interval, aggregated over it.  Colour only on a terminal
 * and never when NO_COLOR is set.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "console.h"
#include "summary.h"

typedef enum {
    PROGRESS_AUTO,
    PROGRESS_ALWAYS,
    PROGRESS_NEVER,
} ProgressMode;

static const char *const progress_modes[] = { "auto", "always", "never", NULL };

typedef struct {
    gint64 interval_us;
    int progress;
} ConsoleOptions;

static const ThrongOption console_options[] = {
    { "interval", THRONG_OPTION_DURATION, G_STRUCT_OFFSET (ConsoleOptions, interval_us),
      .min = 1000 * 1000, .max = G_GINT64_CONSTANT (24) * 3600 * G_USEC_PER_SEC },
    { "progress", THRONG_OPTION_ENUM, G_STRUCT_OFFSET (ConsoleOptions, progress),
      .choices = progress_modes },
    { NULL },
};

/* What a progress line reports, summed over the snapshots since the last line. */
typedef struct {
    gint64 covered_us;
    guint64 requests;
    guint64 errors;
    guint64 connections;
    guint64 handshakes;
    gdouble cpu_share_us;       /* the CPU share of each snapshot times its length */
    ThrongHistogram *latency;
    gboolean has_checks;        /* a scenario has checks: the line shows their rate */
    guint64 check_passes;
    guint64 check_fails;
} ConsoleWindow;

typedef struct {
    ConsoleOptions options;
    FILE *out;
    ConsoleStyle style;
    gboolean tty;               /* standard output was a terminal when the run started */
    gboolean live;              /* rewrite one line with \r */
    gboolean plain;             /* one line per interval */
    gint64 planned_us;
    guint64 errors_so_far;
    gint64 last_elapsed_us;
    gint64 next_line_us;        /* plain mode: when the next line is due */
    ConsoleWindow window;
    glong live_width;           /* display width of the live line on screen, 0 when none */
    char *banner;               /* the "throng running …" line, until the first snapshot prints it */
} Console;

static const ConsoleStyle no_style = { "", "", "", "", "", "" };
static const ConsoleStyle ansi_style = {
    "\033[1m", "\033[2m", "\033[31m", "\033[33m", "\033[32m", "\033[0m",
};

static void
console_free (gpointer self)
{
    Console *console = self;

    if (console == NULL)
        return;
    g_clear_pointer (&console->window.latency, throng_histogram_free);
    g_free (console->banner);
    g_free (console);
}

static gpointer
console_configure (const ThrongNode *options, GError **error)
{
    Console *console = g_new0 (Console, 1);

    console->options.interval_us = 10 * G_USEC_PER_SEC;
    console->options.progress = PROGRESS_AUTO;
    if (options != NULL && !throng_node_is_null (options)
        && !throng_options_apply (options, console_options, &console->options, FALSE,
                                  "console options", error)) {
        console_free (console);
        return NULL;
    }
    return console;
}

/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
static gboolean
console_colour_allowed (gboolean tty)
{
    const char *no_color = g_getenv ("NO_COLOR");
    const char *term = g_getenv ("TERM");

    if (!tty || (no_color != NULL && *no_color != '\0'))
        return FALSE;
    return term == NULL || strcmp (term, "dumb") != 0;
}

static gboolean
console_open (gpointer self, const ThrongRunInfo *run, GError **error)
{
    Console *console = self;
    gboolean tty = isatty (STDOUT_FILENO);
    char planned[CONSOLE_UNIT_LEN];
    g_autoptr (GString) banner = NULL;
    guint users = 0;

    console->out = stdout;
    console->tty = tty;
    console->style = console_colour_allowed (tty) ? ansi_style : no_style;
    console->live = console->options.progress == PROGRESS_ALWAYS
                    || (console->options.progress == PROGRESS_AUTO && tty);
    console->plain = console->options.progress == PROGRESS_AUTO && !tty;
    /* --quiet: no progress at all, whatever the options say; the summary still prints. */
    if (THRONG_STRUCT_HAS (run, ThrongRunInfo, quiet) && run->quiet)
        console->live = console->plain = FALSE;
    console->planned_us = run->planned_us;
    console->next_line_us = console->options.interval_us;
    console->window.latency = throng_histogram_new ();

    for (guint i = 0; i < run->n_scenarios; i++)
        users += run->scenario_users[i];
    banner = g_string_new (NULL);
    g_string_append_printf (banner, "%sthrong%s running %s: %u scenario%s, %u user%s, %u worker%s",
                            console->style.bold, console->style.reset,
                            run->plan_name != NULL ? run->plan_name : "", run->n_scenarios,
                            run->n_scenarios == 1 ? "" : "s", users, users == 1 ? "" : "s",
                            run->workers, run->workers == 1 ? "" : "s");
    if (run->planned_us > 0)
        g_string_append_printf (banner, ", planned %s",
                                console_format_duration (planned, (gdouble) run->planned_us));
    /* Printed with the first snapshot: a reporter opened after this one may
     * still fail, and then the run never starts and the error is all the
     * user should read.  Every run that starts gets at least one snapshot
     * (the core delivers a final partial one before close). */
    console->banner = g_string_free (g_steal_pointer (&banner), FALSE);
    return TRUE;
}

/* The "throng running …" line, once, before anything else the run prints. */
static void
console_print_banner (Console *console)
{
    if (console->banner == NULL)
        return;
    fprintf (console->out, "%s\n", console->banner);
    fflush (console->out);
    g_clear_pointer (&console->banner, g_free);
}

static void
console_window_reset (ConsoleWindow *window)
{
    window->covered_us = 0;
    window->requests = 0;
    window->errors = 0;
    window->connections = 0;
    window->handshakes = 0;
    window->cpu_share_us = 0;
    window->has_checks = FALSE;
    window->check_passes = 0;
    window->check_fails = 0;
    throng_histogram_reset (window->latency);
}

static guint
console_active_users (const ThrongSummary *snapshot)
{
    guint active = 0;

    for (guint i = 0; i < snapshot->n_scenarios; i++)
        active += snapshot->scenarios[i].active_users;
    return active;
}

/*
 * The figures both progress lines share, for the window: "50 users  4523 req/s
 * p99 12.3ms  ...  cpu 85%".
 */
static void
console_append_figures (Console *console, GString *line, const ThrongSummary *snapshot,
                        gboolean live)
{
    const ConsoleWindow *w = &console->window;
    gdouble seconds = (gdouble) w->covered_us / G_USEC_PER_SEC;
    guint active = console_active_users (snapshot);
    char rate[CONSOLE_UNIT_LEN], p99[CONSOLE_UNIT_LEN], conns[CONSOLE_UNIT_LEN],
        handshakes[CONSOLE_UNIT_LEN];
    guint64 errors = live ? console->errors_so_far : w->errors;

    if (seconds <= 0)
        seconds = 1;
    console_format_number (rate, (gdouble) w->requests / seconds);
    if (throng_histogram_count (w->latency) > 0)
        console_format_duration (p99, (gdouble) throng_histogram_percentile (w->latency, 99));
    else
        g_strlcpy (p99, "-", sizeof p99);
    console_format_rate (conns, (gdouble) w->connections / seconds);
    console_format_rate (handshakes, (gdouble) w->handshakes / seconds);

    g_string_append_printf (line, "%u user%s  %s req/s  p99 %s  ", active,
                            active == 1 ? "" : "s", rate, p99);
    if (errors > 0)
        g_string_append_printf (line, "%s%" G_GUINT64_FORMAT " error%s%s", console->style.red,
                                errors, errors == 1 ? "" : "s", console->style.reset);
    else
        g_string_append (line, "0 errors");
    /* As the summary's rate: passes over checks made, in the window; "-" when none was made. */
    if (w->has_checks && w->check_passes + w->check_fails > 0)
        g_string_append_printf (line, "  checks %.1f%%",
                                100.0 * (gdouble) w->check_passes
                                    / (gdouble) (w->check_passes + w->check_fails));
    else if (w->has_checks)
        g_string_append (line, "  checks -");
    g_string_append_printf (line, "  conn %s  tls %s  cpu %.0f%%", conns, handshakes,
                            100.0 * w->cpu_share_us / (gdouble) MAX (w->covered_us, 1));
}

static glong
console_visible_width (const char *text)
{
    glong width = 0;

    for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p)) {
        if (*p == '\033') {
            while (*p != '\0' && *p != 'm')
                p++;
            if (*p == '\0')
                break;
            continue;
        }
        width++;
    }
    return width;
}

/* Cuts @line (after its leading \r) to @columns visible characters, closing any style. */
static void
console_truncate (GString *line, glong columns, const ConsoleStyle *style)
{
    glong width = 0;

    for (const char *p = line->str + 1; *p != '\0'; p = g_utf8_next_char (p)) {
        if (*p == '\033') {
            while (p[1] != '\0' && *p != 'm')
                p++;
            continue;
        }
        if (width == columns) {
            g_string_truncate (line, (gsize) (p - line->str));
            g_string_append (line, style->reset);
            return;
        }
        width++;
    }
}

static void
console_print_live (Console *console, const ThrongSummary *snapshot)
{
    g_autoptr (GString) line = g_string_new ("\r");
    g_autoptr (GString) figures = g_string_new ("");
    char elapsed[CONSOLE_UNIT_LEN], planned[CONSOLE_UNIT_LEN];
    struct winsize size;
    glong columns = 0;

    if (ioctl (fileno (console->out), TIOCGWINSZ, &size) == 0 && size.ws_col > 1)
        columns = size.ws_col - 1;
    console_append_figures (console, figures, snapshot, TRUE);

    console_format_duration (elapsed, (gdouble) snapshot->elapsed_us);
    if (console->planned_us > 0) {
        gdouble done = CLAMP ((gdouble) snapshot->elapsed_us / (gdouble) console->planned_us, 0, 1);
        const int bar = 20;
        int filled = (int) (done * bar + 0.5);

        console_format_duration (planned, (gdouble) console->planned_us);
        g_string_append_printf (line, "%s / %s ", elapsed, planned);
        /* The bar is the first thing a narrow terminal does without. */
        if (columns == 0 || console_visible_width (line->str + 1) + bar + 9
                                    + console_visible_width (figures->str) <= columns) {
            g_string_append_printf (line, "[%s", console->style.green);
            for (int i = 0; i < bar; i++)
                g_string_append_c (line, i < filled ? '=' : (i == filled ? '>' : ' '));
            g_string_append_printf (line, "%s] ", console->style.reset);
        }
        g_string_append_printf (line, "%3.0f%%  ", done * 100);
    } else {
        g_string_append_printf (line, "%s  ", elapsed);
    }
    g_string_append (line, figures->str);

    /* A line that wraps can no longer be rewritten with \r: cut it at the terminal's width. */
    if (columns > 0)
        console_truncate (line, columns, &console->style);

    /* Blank out what is left of a longer previous line. */
    glong width = console_visible_width (line->str + 1);
    for (glong i = width; i < console->live_width; i++)
        g_string_append_c (line, ' ');
    console->live_width = width;
    fputs (line->str, console->out);
    fflush (console->out);
}

static void
console_print_plain (Console *console, const ThrongSummary *snapshot)
{
    g_autoptr (GString) line = g_string_new ("");
    char elapsed[CONSOLE_UNIT_LEN], planned[CONSOLE_UNIT_LEN];

    console_format_duration (elapsed, (gdouble) snapshot->elapsed_us);
    if (console->planned_us > 0)
        g_string_append_printf (line, "[%s / %s]  ", elapsed,
                                console_format_duration (planned, (gdouble) console->planned_us));
    else
        g_string_append_printf (line, "[%s]  ", elapsed);
    console_append_figures (console, line, snapshot, FALSE);
    g_string_append_printf (line, "  (%" G_GUINT64_FORMAT " errors so far)",
                            console->errors_so_far);
    fprintf (console->out, "%s\n", line->str);
    fflush (console->out);
}

static void
console_snapshot (gpointer self, const ThrongSummary *snapshot)
{
    Console *console = self;
    ConsoleWindow *w = &console->window;
    gint64 cpu_us = snapshot->cpu_user_us + snapshot->cpu_system_us;
    gint64 covered_us;
    gdouble share;

    if (console->out == NULL)
        return;
    console_print_banner (console);

    /* The live line shows the last interval only; the plain line sums since the previous one. */
    if (console->live)
        console_window_reset (w);
    covered_us = snapshot->interval_us > 0 ? snapshot->interval_us
                                           : snapshot->elapsed_us - console->last_elapsed_us;
    /* A snapshot's CPU covers its interval; the share is of the cores throng may use. */
    share = THRONG_STRUCT_HAS (snapshot, ThrongSummary, cpu_share)
                ? snapshot->cpu_share
                : (gdouble) cpu_us / (gdouble) MAX (covered_us, 1);
    w->covered_us += covered_us;
    w->cpu_share_us += share * (gdouble) covered_us;
    w->requests += snapshot->total.requests;
    w->errors += snapshot->total.errors;
    w->connections += snapshot->total.connections;
    w->handshakes += snapshot->total.handshakes_full + snapshot->total.handshakes_resumed;
    if (snapshot->total.latency != NULL)
        throng_histogram_merge (w->latency, snapshot->total.latency);
    for (guint s = 0; s < snapshot->n_scenarios; s++) {
        guint64 passes, fails;
        if (throng_journey_checks_total (&snapshot->scenarios[s], &passes, &fails)) {
            w->has_checks = TRUE;
            w->check_passes += passes;
            w->check_fails += fails;
        }
    }
    console->last_elapsed_us = snapshot->elapsed_us;
    console->errors_so_far += snapshot->total.errors;

    if (console->live) {
        console_print_live (console, snapshot);
    } else if (console->plain) {
        /* A quarter second of slack keeps a 10 s interval from slipping to 11 snapshots. */
        if (snapshot->elapsed_us + G_USEC_PER_SEC / 4 < console->next_line_us)
            return;
        console_print_plain (console, snapshot);
        console_window_reset (w);
        while (console->next_line_us <= snapshot->elapsed_us + G_USEC_PER_SEC / 4)
            console->next_line_us += console->options.interval_us;
    }
}

/*
 * Whether @fd is a terminal that hung up (its ssh session or window
 * closed): every write to it fails with EIO, even an empty one.
 */
static gboolean
console_terminal_gone (int fd)
{
    return write (fd, "", 0) < 0 && errno == EIO;
}

static gboolean
console_close (gpointer self, const ThrongSummary *summary, GError **error)
{
    Console *console = self;

    if (console->out == NULL)
        return TRUE;
    /* The run never started (another reporter's open failed): the error says it all. */
    if (THRONG_STRUCT_HAS (summary, ThrongSummary, never_started) && summary->never_started)
        return TRUE;
    /* A core older than the final partial snapshot may close without one. */
    console_print_banner (console);
    if (console->live_width > 0) {
        fputc ('\r', console->out);
        for (glong i = 0; i < console->live_width; i++)
            fputc (' ', console->out);
        fputc ('\r', console->out);
        console->live_width = 0;
    }
    console_print_summary (console->out, summary, &console->style);
    if (fflush (console->out) != 0 || ferror (console->out)) {
        clearerr (console->out);
        /* Nobody is left to read it (SIGHUP stopped the run): not a result
         * that failed to be written, as a closed or full output is. */
        if (console->tty && console_terminal_gone (fileno (console->out)))
            return TRUE;
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO,
                     "cannot write the summary to standard output");
        return FALSE;
    }
    return TRUE;
}

static gboolean
console_wants_samples (gpointer self)
{
    return FALSE;
}

const ThrongReporter console_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "console",
    .configure = console_configure,
    .open = console_open,
    .snapshot = console_snapshot,
    .close = console_close,
    .free = console_free,
    .wants_samples = console_wants_samples,
};
