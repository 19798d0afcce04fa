/* SPDX-License-Identifier: MIT */
/*
 * The process limits a run depends on, checked before any load is sent:
 * today the open-file limit (RLIMIT_NOFILE), which a run of many users
 * with keep-alive connections reaches long before memory.  Private to the
 * core.
 */
#pragma once

#include <glib.h>

/* File descriptors a run is assumed to need: about two per user, plus a margin. */
#define THRONG_LIMITS_FDS_PER_USER 2
#define THRONG_LIMITS_FDS_MARGIN 64

/* The descriptors throng_limits_prepare() asks for @users. */
guint64 throng_limits_fds_needed (guint64 users);

/*
 * Raises the soft RLIMIT_NOFILE to the hard limit (capped at the kernel's
 * fs.nr_open when the hard limit is unlimited), so that a run never ends
 * up full of EMFILE errors a larger limit would have avoided.  Fails with
 * G_IO_ERROR_TOO_MANY_OPEN_FILES, naming the limit and the users, when
 * the raised limit is still short of throng_limits_fds_needed(@users);
 * the limit stays raised either way.
 */
gboolean throng_limits_prepare (guint64 users_needed, GError **error);
