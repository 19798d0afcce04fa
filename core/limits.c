/* SPDX-License-Identifier: MIT */
/*
 * The open-file limit: raised at start as far as the hard limit allows,
 * and refused with a message a user can act on when a plan's users would
 * still not fit.  A run that starts short of descriptors measures its own
 * EMFILE errors, not the target.  And the memory limits, read at start
 * and compared with what the process uses while it runs.
 */
#include "limits-private.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gio/gio.h>

static guint64
fds_per_user (const ThrongLimitsRun *run)
{
    return THRONG_LIMITS_FDS_PER_USER + (run->builtin_target ? 1 : 0);
}

guint64
throng_limits_fds_needed (const ThrongLimitsRun *run)
{
    guint64 fixed = THRONG_LIMITS_FDS_MARGIN + (guint64)run->workers * THRONG_LIMITS_FDS_PER_WORKER;

    if (run->users > (G_MAXUINT64 - fixed) / fds_per_user (run))
        return G_MAXUINT64;
    return run->users * fds_per_user (run) + fixed;
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

/*
 * Grows the process's descriptor table to @count slots before the load
 * starts.  The kernel doubles the table when a new descriptor does not
 * fit, and in a process with threads each doubling waits for an RCU grace
 * period inside that socket() call (expand_files → synchronize_rcu).
 * perf's sched_switch stacks caught the worker asleep there five times in
 * one ramp to 8,000 users, for milliseconds each on a busy 2-core machine:
 * the users started behind a stall bunch up, stay bunched (each thinks
 * from its own last response) and come due together every second after,
 * which flagged runs saturated at 20-40% CPU (docs/reactor.md).  The
 * table never shrinks, so one dup to the last slot here pays for the
 * growth once, before any user starts.
 * Best effort: a failure only leaves the growth to the run.
 */
static void
reserve_descriptors (guint64 count)
{
    int fd;

    if (count > G_MAXINT)
        return;
    fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    int high = fcntl (fd, F_DUPFD_CLOEXEC, (int) count - 1);
    if (high >= 0)
        close (high);
    close (fd);
}

gboolean
throng_limits_prepare (const ThrongLimitsRun *run, GError **error)
{
    struct rlimit limit;
    guint64 needed;
    int saved;

    g_return_val_if_fail (run != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
    needed = throng_limits_fds_needed (run);

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

    if (limit.rlim_cur != RLIM_INFINITY && (guint64)limit.rlim_cur < needed) {
        g_autofree char *hard = limit.rlim_max == RLIM_INFINITY
                                    ? g_strdup ("unlimited")
                                    : g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64)limit.rlim_max);

        g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                     "the open-file limit (RLIMIT_NOFILE) is %" G_GUINT64_FORMAT
                     " (hard limit %s), but %" G_GUINT64_FORMAT
                     " users need about %" G_GUINT64_FORMAT
                     " file descriptors (%" G_GUINT64_FORMAT " per user%s, %d per worker"
                     " and %d more): raise the hard limit ('ulimit -Hn %" G_GUINT64_FORMAT
                     "' as root, nofile in /etc/security/limits.conf, or LimitNOFILE= for a"
                     " service) or run fewer users",
                     (guint64)limit.rlim_cur, hard, run->users, needed, fds_per_user (run),
                     run->builtin_target ? " with the built-in target in this process" : "",
                     THRONG_LIMITS_FDS_PER_WORKER, THRONG_LIMITS_FDS_MARGIN, needed);
        return FALSE;
    }
    reserve_descriptors (limit.rlim_cur != RLIM_INFINITY ? MIN (needed, (guint64)limit.rlim_cur)
                                                         : needed);
    return TRUE;
}

/*
 * The cgroup of this process that holds its memory limit, from
 * /proc/self/cgroup: v1's memory controller ("N:memory:/path", under
 * /sys/fs/cgroup/memory) when it is mounted, else v2's ("0::/path").
 * *@v1 says which.
 */
static char *
cgroup_dir (gboolean *v1)
{
    g_autofree char *text = NULL;
    g_autofree char *v2 = NULL;

    if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
        return NULL;
    for (char *line = text; line != NULL && *line != '\0';) {
        char *end = strchr (line, '\n');
        const char *memory;
        if (end != NULL)
            *end = '\0';
        memory = strstr (line, ":memory:");
        if (memory != NULL) {
            *v1 = TRUE;
            return g_build_filename ("/sys/fs/cgroup/memory", memory + strlen (":memory:"), NULL);
        }
        if (g_str_has_prefix (line, "0::") && v2 == NULL)
            v2 = g_build_filename ("/sys/fs/cgroup", line + 3, NULL);
        line = end != NULL ? end + 1 : NULL;
    }
    *v1 = FALSE;
    return g_steal_pointer (&v2);
}

/* A decimal number of bytes in @path ("max" and anything else: 0). */
static guint64
read_bytes (const char *path)
{
    g_autofree char *text = NULL;
    guint64 value = 0;

    if (g_file_get_contents (path, &text, NULL, NULL))
        g_ascii_string_to_unsigned (g_strstrip (text), 10, 1, G_MAXUINT64, &value, NULL);
    return value;
}

void
throng_limits_memory_prepare (void)
{
    struct rlimit as;

    /* glibc reserves 64 MiB of address space for each thread's malloc
     * arena: under an address-space limit that is room the run cannot use
     * for data, and a step too large for the watch to see coming. */
    if (getrlimit (RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        mallopt (M_ARENA_MAX, 2);
}

gboolean
throng_limits_memory_init (ThrongMemoryLimits *limits)
{
    struct rlimit as;
    gboolean v1 = FALSE;
    g_autofree char *dir = cgroup_dir (&v1);

    memset (limits, 0, sizeof *limits);
    if (getrlimit (RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        limits->as_limit = as.rlim_cur;
    if (dir != NULL) {
        g_autofree char *max
            = g_build_filename (dir, v1 ? "memory.limit_in_bytes" : "memory.max", NULL);
        limits->cgroup_limit = read_bytes (max);
        /* v1 says "no limit" with the largest page-aligned number. */
        if (limits->cgroup_limit >= G_GUINT64_CONSTANT (1) << 62)
            limits->cgroup_limit = 0;
        if (limits->cgroup_limit > 0) {
            limits->cgroup_current = g_build_filename (
                dir, v1 ? "memory.usage_in_bytes" : "memory.current", NULL);
            limits->cgroup_stat = g_build_filename (dir, "memory.stat", NULL);
            limits->cgroup_v1 = v1;
        }
    }
    return limits->as_limit > 0 || limits->cgroup_limit > 0;
}

/*
 * The cgroup's working set, as the kubelet reckons it: memory.current
 * less the inactive page cache (memory.stat's inactive_file), which the
 * kernel reclaims before it kills anything: a run writing a large csv
 * file must not be stopped for the cache of its own writes.
 */
static guint64
cgroup_working_set (const ThrongMemoryLimits *limits)
{
    guint64 current = read_bytes (limits->cgroup_current);
    g_autofree char *text = NULL;
    guint64 inactive = 0;

    /* v1 counts the hierarchy's in total_inactive_file. */
    const char *key = limits->cgroup_v1 ? "total_inactive_file " : "inactive_file ";

    if (g_file_get_contents (limits->cgroup_stat, &text, NULL, NULL)) {
        for (const char *line = strstr (text, key); line != NULL; line = strstr (line + 1, key)) {
            if (line == text || line[-1] == '\n') {
                inactive = g_ascii_strtoull (line + strlen (key), NULL, 10);
                break;
            }
        }
    }
    return current > inactive ? current - inactive : 0;
}

/* The process's virtual size, from /proc/self/statm (pages). */
static guint64
virtual_size (void)
{
    g_autofree char *text = NULL;
    guint64 pages = 0;

    if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
        pages = g_ascii_strtoull (text, NULL, 10);
    return pages * (guint64)sysconf (_SC_PAGESIZE);
}

static gboolean
past (guint64 used, guint64 limit, gdouble share)
{
    return limit > 0 && (gdouble)used >= (gdouble)limit * share;
}

char *
throng_limits_memory_check (const ThrongMemoryLimits *limits)
{
    const guint64 mib = 1024 * 1024;

    if (limits->as_limit > 0) {
        guint64 used = virtual_size ();
        if (past (used, limits->as_limit, THRONG_LIMITS_AS_SHARE))
            return g_strdup_printf ("throng's virtual size reached %" G_GUINT64_FORMAT " MiB of "
                                    "its %" G_GUINT64_FORMAT " MiB limit (ulimit -v)",
                                    used / mib, limits->as_limit / mib);
    }
    if (limits->cgroup_limit > 0) {
        guint64 used = cgroup_working_set (limits);
        if (past (used, limits->cgroup_limit, THRONG_LIMITS_CGROUP_SHARE))
            return g_strdup_printf ("throng's cgroup holds %" G_GUINT64_FORMAT " MiB (not "
                                    "counting page cache the kernel can drop) of its "
                                    "%" G_GUINT64_FORMAT " MiB %s",
                                    used / mib, limits->cgroup_limit / mib,
                                    limits->cgroup_v1 ? "memory.limit_in_bytes" : "memory.max");
    }
    return NULL;
}

void
throng_limits_memory_clear (ThrongMemoryLimits *limits)
{
    g_clear_pointer (&limits->cgroup_current, g_free);
    g_clear_pointer (&limits->cgroup_stat, g_free);
}
