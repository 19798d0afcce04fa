/* SPDX-License-Identifier: MIT */
/*
 * The open-file limit: raised at start as far as the hard limit allows,
 * and refused with a message a user can act on when a plan's users would
 * still not fit.  A run that starts short of descriptors measures its own
 * EMFILE errors, not the target.
 */
#include "limits-private.h"

#include <errno.h>
#include <sys/resource.h>

#include <gio/gio.h>

guint64
throng_limits_fds_needed (guint64 users)
{
    if (users > (G_MAXUINT64 - THRONG_LIMITS_FDS_MARGIN) / THRONG_LIMITS_FDS_PER_USER)
        return G_MAXUINT64;
    return users * THRONG_LIMITS_FDS_PER_USER + THRONG_LIMITS_FDS_MARGIN;
}

/*
 * The most the soft limit may be set to: the hard limit, or fs.nr_open
 * when the hard limit is "unlimited" (setrlimit refuses more than that).
 */
static rlim_t
ceiling (rlim_t hard)
{
    g_autofree char *text = NULL;
    guint64 nr_open;

    if (hard != RLIM_INFINITY)
        return hard;
    if (g_file_get_contents ("/proc/sys/fs/nr_open", &text, NULL, NULL)
        && g_ascii_string_to_unsigned (g_strstrip (text), 10, 1, G_MAXUINT64, &nr_open, NULL))
        return (rlim_t) nr_open;
    return 1024 * 1024; /* the kernel's default nr_open */
}

gboolean
throng_limits_prepare (guint64 users_needed, GError **error)
{
    struct rlimit limit;
    guint64 needed = throng_limits_fds_needed (users_needed);
    int saved;

    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    if (getrlimit (RLIMIT_NOFILE, &limit) != 0) {
        saved = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "cannot read the open-file limit (RLIMIT_NOFILE): %s", g_strerror (saved));
        return FALSE;
    }

    rlim_t most = ceiling (limit.rlim_max);
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < most) {
        struct rlimit raised = { .rlim_cur = most, .rlim_max = limit.rlim_max };

        /* Best effort: a refusal leaves the soft limit, which is checked below. */
        if (setrlimit (RLIMIT_NOFILE, &raised) == 0)
            limit.rlim_cur = most;
    }

    if (limit.rlim_cur != RLIM_INFINITY && (guint64) limit.rlim_cur < needed) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                     "the open-file limit (RLIMIT_NOFILE, 'ulimit -n') is %" G_GUINT64_FORMAT
                     " and its hard limit allows no more, but %" G_GUINT64_FORMAT
                     " users need about %" G_GUINT64_FORMAT
                     " file descriptors (%d per user plus %d): raise the hard limit "
                     "(ulimit -Hn, limits.conf or LimitNOFILE=) or run fewer users",
                     (guint64) limit.rlim_cur, users_needed, needed, THRONG_LIMITS_FDS_PER_USER,
                     THRONG_LIMITS_FDS_MARGIN);
        return FALSE;
    }
    return TRUE;
}
