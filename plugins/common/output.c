/* SPDX-License-Identifier: MIT */
/*
 * Result files of the file reporters (csv, json): opening under the
 * overwrite policy, buffered writes that only ever flush whole records,
 * atomic publication by rename, and write errors kept until close, where
 * the core can still turn them into exit status 4.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Large enough that a busy run makes few system calls, small enough to lose little on a crash. */
#define OUTPUT_FLUSH_BYTES (64 * 1024)

gboolean
output_require_path (const char *reporter, const ThrongNode *options, const char *path,
                     GError **error)
{
    if (path != NULL && *path != '\0')
        return TRUE;
    if (options != NULL)
        throng_node_set_error (options, error, THRONG_PLAN_ERROR_MISSING,
                               "the %s reporter needs a 'path'", reporter);
    else
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_MISSING,
                     "the %s reporter needs a 'path'", reporter);
    return FALSE;
}

struct _OutputFile {
    int fd;
    char *path;         /* what the user named */
    char *tmp_path;     /* the file being written when atomic, else NULL */
    GString *buffer;
    GError *error;      /* the first write error; later writes are dropped */
    gboolean is_stdout; /* "-": what stdio holds for standard output is written first */
};

static void
output_file_set_errno (OutputFile *file, const char *what, int saved_errno)
{
    if (file->error != NULL)
        return;
    g_set_error (&file->error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "%s %s: %s",
                 what, file->path, g_strerror (saved_errno));
}

OutputFile *
output_file_open (const char *path, gboolean overwrite, gboolean atomic, GError **error)
{
    struct stat st;
    gboolean exists = FALSE;
    gboolean regular = TRUE;

    g_return_val_if_fail (path != NULL && *path != '\0', NULL);
    /* "-": standard output as it is (a pod's log, where `kubectl logs`
     * collects it; or a file the shell redirected it to, appended to,
     * never replaced). */
    if (strcmp (path, "-") == 0) {
        int fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) {
            int saved_errno = errno;
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         "cannot write to standard output: %s", g_strerror (saved_errno));
            return NULL;
        }
        OutputFile *file = g_new0 (OutputFile, 1);
        file->is_stdout = TRUE;
        file->fd = fd;
        file->path = g_strdup ("standard output");
        file->buffer = g_string_sized_new (OUTPUT_FLUSH_BYTES + 4096);
        return file;
    }

    if (stat (path, &st) == 0) {
        exists = TRUE;
        regular = S_ISREG (st.st_mode);
        if (S_ISDIR (st.st_mode)) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "%s is a directory", path);
            return NULL;
        }
        if (regular && !overwrite) {
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                         "%s exists; set overwrite: true or pass --overwrite", path);
            return NULL;
        }
    }

    g_autofree char *tmp_path = atomic && regular ? g_strconcat (path, ".tmp", NULL) : NULL;
    const char *target = tmp_path != NULL ? tmp_path : path;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
    if (regular)
        flags |= O_TRUNC;
    /* A file that appears between the check and the open is not ours to truncate. */
    if (!exists && tmp_path == NULL)
        flags |= O_EXCL;

    int fd = open (target, flags, 0666);
    if (fd < 0) {
        int saved_errno = errno;
        if (saved_errno == EEXIST)
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                         "%s exists; set overwrite: true or pass --overwrite", path);
        else
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         "cannot open %s: %s", target, g_strerror (saved_errno));
        return NULL;
    }

    OutputFile *file = g_new0 (OutputFile, 1);
    file->fd = fd;
    file->path = g_strdup (path);
    file->tmp_path = g_steal_pointer (&tmp_path);
    file->buffer = g_string_sized_new (OUTPUT_FLUSH_BYTES + 4096);
    return file;
}

void
output_file_publish (OutputFile *file)
{
    if (file->tmp_path == NULL || file->error != NULL)
        return;
    if (rename (file->tmp_path, file->path) != 0) {
        int saved_errno = errno;
        g_set_error (&file->error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                     "cannot rename %s to %s: %s", file->tmp_path, file->path,
                     g_strerror (saved_errno));
        return;
    }
    g_clear_pointer (&file->tmp_path, g_free);
}

gboolean
output_file_is_published (const OutputFile *file)
{
    return file->tmp_path == NULL;
}

GString *
output_file_buffer (OutputFile *file)
{
    return file->buffer;
}

void
output_file_flush (OutputFile *file)
{
    const char *data = file->buffer->str;
    gsize left = file->buffer->len;
    off_t start = lseek (file->fd, 0, SEEK_CUR);

    while (left > 0 && file->error == NULL) {
        ssize_t n = write (file->fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            output_file_set_errno (file, "cannot write", errno);
            break;
        }
        data += n;
        left -= (gsize) n;
    }
    /* A full disk can take part of a buffer: cut the file back to the last
     * whole line written, so that it never ends in a torn row.  (Pipes and
     * devices cannot seek and keep what they took.) */
    if (file->error != NULL && start >= 0 && left > 0) {
        gsize written = file->buffer->len - left;
        const char *last = g_strrstr_len (file->buffer->str, (gssize) written, "\n");
        off_t keep = start + (last != NULL ? (off_t) (last - file->buffer->str) + 1 : 0);
        if (ftruncate (file->fd, keep) == 0)
            lseek (file->fd, keep, SEEK_SET);
    }
    g_string_truncate (file->buffer, 0);
}

void
output_file_commit (OutputFile *file)
{
    if (file->buffer->len >= OUTPUT_FLUSH_BYTES)
        output_file_flush (file);
}

static void
output_file_free (OutputFile *file)
{
    g_string_free (file->buffer, TRUE);
    g_free (file->path);
    g_free (file->tmp_path);
    g_clear_error (&file->error);
    g_free (file);
}

gboolean
output_file_close (OutputFile *file, GError **error)
{
    g_return_val_if_fail (file != NULL, FALSE);

    if (file->is_stdout)
        fflush (stdout);
    output_file_flush (file);
    /* The rename below promises a complete file; that needs the data on disk first. */
    if (file->tmp_path != NULL && file->error == NULL && fsync (file->fd) != 0)
        output_file_set_errno (file, "cannot write", errno);
    if (close (file->fd) != 0 && errno != EINTR)
        output_file_set_errno (file, "cannot write", errno);
    file->fd = -1;

    if (file->tmp_path != NULL) {
        if (file->error == NULL && rename (file->tmp_path, file->path) != 0) {
            int saved_errno = errno;
            g_set_error (&file->error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         "cannot rename %s to %s: %s", file->tmp_path, file->path,
                         g_strerror (saved_errno));
        }
        if (file->error != NULL)
            unlink (file->tmp_path);
    }

    gboolean ok = file->error == NULL;
    if (!ok)
        g_propagate_error (error, g_steal_pointer (&file->error));
    output_file_free (file);
    return ok;
}

void
output_file_abort (OutputFile *file)
{
    if (file == NULL)
        return;
    close (file->fd);
    if (file->tmp_path != NULL)
        unlink (file->tmp_path);
    output_file_free (file);
}

/* Writes @value's decimal digits to end at @end; returns where they begin. */
static inline char *
format_int (char *end, gint64 value)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char *p = end;
    guint64 v = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;

    /* Two digits per division: a millisecond timestamp has 13. */
    while (v >= 100) {
        guint64 pair = (v % 100) * 2;
        v /= 100;
        *--p = pairs[pair + 1];
        *--p = pairs[pair];
    }
    if (v >= 10) {
        *--p = pairs[v * 2 + 1];
        *--p = pairs[v * 2];
    } else {
        *--p = (char) ('0' + v);
    }
    if (value < 0)
        *--p = '-';
    return p;
}

void
output_append_int (GString *out, gint64 value)
{
    char digits[24];
    char *begin = format_int (digits + sizeof digits, value);

    g_string_append_len (out, begin, digits + sizeof digits - begin);
}

void
output_row_begin (OutputRow *row, GString *out)
{
    row->out = out;
    row->used = 0;
}

void
output_row_put_long (OutputRow *row, const char *text, gsize length)
{
    g_string_append_len (row->out, row->buf, (gssize) row->used);
    row->used = 0;
    if (length > sizeof row->buf) {
        g_string_append_len (row->out, text, (gssize) length);
        return;
    }
    memcpy (row->buf, text, length);
    row->used = length;
}

void
output_row_put_int (OutputRow *row, gint64 value)
{
    /* The digits end mid-array so that a fixed 24-byte copy from where they
     * begin stays inside it: a constant-size copy is two vector moves, a
     * variable one a call, and a row has nine of these. */
    char digits[48] = { 0 };
    char *end = digits + 24;
    char *begin = format_int (end, value);
    gsize width = (gsize) (end - begin);

    if (G_LIKELY (sizeof row->buf - row->used >= 24)) {
        memcpy (row->buf + row->used, begin, 24);
        row->used += width;
        return;
    }
    output_row_put_len (row, begin, width);
}

void
output_row_end (OutputRow *row)
{
    g_string_append_len (row->out, row->buf, (gssize) row->used);
    row->used = 0;
}
