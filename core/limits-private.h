/* SPDX-License-Identifier: MIT */
/*
 * The process limits a run depends on: the open-file limit
 * (RLIMIT_NOFILE), checked before any load is sent, which a run of many
 * users with keep-alive connections reaches long before memory; and the
 * memory limit, watched while the run goes.  Private to the core.
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

/*
 * The memory limits a run can reach: the address-space limit (RLIMIT_AS,
 * `ulimit -v`), against the process's virtual size, and its cgroup's
 * memory.max (cgroup v2; v1's memory.limit_in_bytes: a container's or a
 * systemd unit's), against the cgroup's use less its inactive page cache.  A process that reaches one is killed by the
 * kernel or fails a g_malloc() and aborts, and whatever it had measured
 * but not yet written is lost: the engine checks throng_limits_memory_check()
 * often and stops the run itself first.
 */
typedef struct {
    guint64 as_limit;     /* bytes; 0 when unlimited */
    guint64 cgroup_limit; /* bytes; 0 when none */
    char *cgroup_current; /* the cgroup's memory.current, when cgroup_limit > 0 */
    char *cgroup_stat;    /* and its memory.stat */
    gboolean cgroup_v1;   /* the v1 memory controller's files (limit_in_bytes, usage_in_bytes) */
} ThrongMemoryLimits;

/*
 * The share of a limit at which the run is stopped.  The address space
 * grows in steps (glibc reserves 64 MiB at once for a thread's malloc
 * arena) and the stop itself needs some: a quarter is left.  A cgroup
 * counts pages used, which grow smoothly, but responses in flight keep
 * landing until the workers have cancelled them: with a tenth left, one CI
 * run in several saw the stop begin at 541 of 600 MiB and the kernel's OOM
 * killer end it; a fifth is left.
 */
#define THRONG_LIMITS_AS_SHARE 0.75
#define THRONG_LIMITS_CGROUP_SHARE 0.8

/*
 * Before the threads start: under an address-space limit, malloc keeps
 * two arenas for all threads instead of one per thread (64 MiB of address
 * space each).
 */
void throng_limits_memory_prepare (void);

/* Reads the limits into @limits; FALSE (and nothing to clear) when there is none to watch. */
gboolean throng_limits_memory_init (ThrongMemoryLimits *limits);
/*
 * NULL while the process is under its share of each limit (above);
 * past it, what was reached, for a message (transfer full): "throng's
 * virtual size reached 631 MiB of its 700 MiB limit (ulimit -v)".  One
 * read of a small /proc or /sys file per limit.
 */
char *throng_limits_memory_check (const ThrongMemoryLimits *limits);
void throng_limits_memory_clear (ThrongMemoryLimits *limits);
