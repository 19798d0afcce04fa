/* SPDX-License-Identifier: MIT */
/*
 * A result file as the file reporters write it: the overwrite policy, a
 * buffer that reaches the disk only in whole records, and a close that
 * reports every write error.  Compiled into the csv and json plugins.
 */
#pragma once

#include <string.h>
#include <throng/throng.h>

typedef struct _OutputFile OutputFile;

/*
 * The check every file reporter makes after applying its options: a
 * non-empty @path, or an error located at @options ("the NAME reporter
 * needs a 'path'"; unlocated when the reporter came from `--out` with no
 * node).  Returns FALSE exactly when it sets @error.
 */
gboolean output_require_path (const char *reporter, const ThrongNode *options, const char *path,
                              GError **error);

/*
 * Opens @path for writing.  An existing regular file is refused unless
 * @overwrite ("PATH exists; set overwrite: true or pass --overwrite");
 * devices and pipes (/dev/stdout) are written as they are.  When @atomic,
 * a regular file is written as PATH.tmp and renamed over PATH by a
 * successful output_file_close(), so readers never see a partial file.
 */
OutputFile *output_file_open (const char *path, gboolean overwrite, gboolean atomic,
                              GError **error);

/*
 * Publishes an atomic file early: PATH.tmp is renamed to PATH now and
 * writing goes on in the same file, so that readers can follow it (the
 * json reporter's jsonl mode does this once the run has started).  A
 * failure is kept for output_file_close().  Does nothing when the file is
 * not atomic or already published.
 */
void output_file_publish (OutputFile *file);

/* Whether the file has reached PATH (published, or never atomic). */
gboolean output_file_is_published (const OutputFile *file);

/*
 * The buffer to append to.  Append one whole record, then call
 * output_file_commit(): the buffer goes to the file only between records.
 */
GString *output_file_buffer (OutputFile *file);
void output_file_commit (OutputFile *file);

/*
 * Writes what is buffered now.  The reporters call it once an interval,
 * so that a run that is killed (SIGKILL, a failed allocation) still leaves
 * on disk everything up to its last complete interval.
 */
void output_file_flush (OutputFile *file);

/*
 * Writes what is buffered, closes and (atomic) renames; frees @file.
 * Returns FALSE with the first write error of the file's life, if any.
 */
gboolean output_file_close (OutputFile *file, GError **error);

/* Closes without publishing: an unpublished atomic file's PATH.tmp is removed.  NULL is allowed. */
void output_file_abort (OutputFile *file);

/* Appends @value in decimal: integers are most of a row, and printf is
 * measurably slower than this at 100k rows/s. */
void output_append_int (GString *out, gint64 value);

/*
 * A row assembled in a buffer on the caller's stack and handed to its
 * GString in one append (or a few, for a long row): a per-sample reporter
 * writes a dozen short fields per request, and a GString append per field
 * cost it more than the fields themselves.
 */
typedef struct {
    GString *out;
    gsize used;
    char buf[512];
} OutputRow;

void output_row_begin (OutputRow *row, GString *out);
/* output_row_put_len() when @length does not fit in what is left of the buffer. */
void output_row_put_long (OutputRow *row, const char *text, gsize length);
void output_row_put_int (OutputRow *row, gint64 value);
/* Everything put since output_row_begin() is in the GString. */
void output_row_end (OutputRow *row);

static inline void
output_row_put_len (OutputRow *row, const char *text, gsize length)
{
    if (G_UNLIKELY (length > sizeof row->buf - row->used)) {
        output_row_put_long (row, text, length);
        return;
    }
    memcpy (row->buf + row->used, text, length);
    row->used += length;
}

static inline void
output_row_put_c (OutputRow *row, char c)
{
    if (G_UNLIKELY (row->used == sizeof row->buf))
        output_row_put_long (row, &c, 1);
    else
        row->buf[row->used++] = c;
}

/* A string literal, its length known when compiled. */
#define output_row_put_literal(row, literal) \
    output_row_put_len ((row), "" literal, sizeof (literal) - 1)

static inline void
output_row_put (OutputRow *row, const char *text)
{
    output_row_put_len (row, text, strlen (text));
}
