/* SPDX-License-Identifier: MIT */
/*
 * The process limits a run depends on, checked before any load is sent:
 * today the open-file limit (RLIMIT_NOFILE), which a run of many users
 * with keep-alive connections reaches long before memory.  Private to the
 * core.
 */
#pragma once

#include <glib.h>

/*
 * What a run needs, in file descriptors: what it holds whatever the load
 * (standard streams, plugins being loaded, result files), and per worker
 * its reactor's epoll set, its context's wakeup and a DNS lookup's
 * socket; a user holds its connection, one per origin it keeps alive
 * (one in practice).  The built-in target, started in the same process,
 * holds the server's end of every connection as well.
 */
#define THRONG_LIMITS_FDS_MARGIN 64
#define THRONG_LIMITS_FDS_PER_WORKER 4
#define THRONG_LIMITS_FDS_PER_USER 1

typedef struct {
    guint64 users;           /* users live at once, all scenarios together */
    guint workers;           /* resolved: 0 is not "one per CPU" here */
    gboolean builtin_target; /* the built-in target runs in this process */
} ThrongLimitsRun;

/* The descriptors throng_limits_prepare() asks for @run; G_MAXUINT64 when that overflows. */
guint64 throng_limits_fds_needed (const ThrongLimitsRun *run);

/*
 * Raises the soft RLIMIT_NOFILE to the hard limit (capped at the kernel's
 * fs.nr_open when the hard limit is unlimited), so that a run never ends
 * up full of EMFILE errors a larger limit would have avoided.  Fails with
 * G_IO_ERROR_TOO_MANY_OPEN_FILES, naming the limit, the users and how to
 * raise it, when the raised limit is still short of
 * throng_limits_fds_needed(@run); the limit stays raised either way.
 * On success the descriptor table already has room for that many
 * descriptors, so that no socket() of the run waits for it to grow.
 */
gboolean throng_limits_prepare (const ThrongLimitsRun *run, GError **error);
