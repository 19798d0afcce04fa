/* SPDX-License-Identifier: MIT */
/*
 * What the command line says about itself, from one source for
 * `throng --help`, throng(1) (manual.c) and the shell completions
 * (complete.c): main.c's table of commands, the exit statuses, and each
 * command's own --help (its GOption entries) read back into options.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

enum {
    THRONG_EXIT_OK = 0,
    THRONG_EXIT_USAGE = 2,
    THRONG_EXIT_NOT_STARTED = 3,
    THRONG_EXIT_NOT_WRITTEN = 4,
    THRONG_EXIT_OUT_OF_MEMORY = 5,
    THRONG_EXIT_THRESHOLDS = 99,
    THRONG_EXIT_ABORTED = 108, /* a step's on_failure: abort-run; k6's test.abort() exits 108 too */
    THRONG_EXIT_INTERRUPTED = 130,
};

/*
 * One command of `throng`: a row of main.c's table.  @name may be two
 * words ("import har"): the first is dispatched, and the command reads
 * the second itself.  `throng NAME --help` is the command's own help,
 * which throng(1) and the completions read back.
 */
typedef struct {
    const char *name;
    const char *parameters; /* "PLAN", "SHARD.json…" */
    const char *summary;    /* one line for `throng --help` */
    int (*run) (int argc, char **argv);
} ThrongCliCommand;

/* An exit status: its number, a few words for --help, a paragraph for throng(1). */
typedef struct {
    int code;
    const char *brief;
    const char *detail;
} ThrongCliExit;

/* Every exit status of `throng`, in order, ended by { -1 }. */
extern const ThrongCliExit throng_cli_exits[];

/* `throng --help`: the commands of @commands (ended by a NULL name), options, exit statuses. */
void throng_usage_print (FILE *stream, const ThrongCliCommand *commands);

/* One option of a command, as its --help lists it. */
typedef struct {
    char short_name; /* or '\0' */
    char *long_name; /* without "--" */
    char *argument;  /* "PATH=VALUE", "[N]" for an optional one, or NULL */
    char *description;
} ThrongUsageOption;

/* A command's --help read back. */
typedef struct {
    char *usage;        /* "throng run [OPTION...] PLAN" */
    char *summary;      /* the paragraphs before the options */
    GPtrArray *options; /* ThrongUsageOption*, --help's own left out */
    char *description;  /* the paragraphs after them (its exit statuses) */
} ThrongUsage;

/*
 * Runs this executable as `throng NAME --help` (@command->name split at
 * its space) and reads what it printed.  Fails when it could not run or
 * printed no usage line.
 */
ThrongUsage *throng_usage_read (const ThrongCliCommand *command, GError **error);
void throng_usage_free (ThrongUsage *usage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongUsage, throng_usage_free)
