/* SPDX-License-Identifier: MIT */
/*
 * How late this machine wakes a thread that sleeps 1 ms, with nothing
 * else to do: the floor under any load generator's timers.  scale.sh
 * prints it in its header, on the client's CPU, so that a schedule lag in
 * its rows can be told from the machine's own (a virtual CPU that its host
 * does not run at once).  Sleeps in epoll_wait(), as a worker does.
 *
 *   throng-bench-wake-latency [COUNT]      (default 5000 sleeps)
 *
 * prints "wake-ups after a 1 ms sleep: late by p50 … p99 … p99.9 …, max …
 * ms; N of COUNT over 10 ms".
 */
#include <glib.h>

#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
    return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
    int requested = argc > 1 ? atoi (argv[1]) : 5000;
    guint count = requested > 0 ? (guint) requested : 0;
    int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
    struct epoll_event event;
    g_autofree gint64 *late = g_new (gint64, MAX (count, 1));
    guint over_10ms = 0;

    if (count == 0 || epoll_fd < 0) {
        g_printerr ("usage: %s [COUNT > 0]\n", argv[0]);
        return 2;
    }
    for (guint i = 0; i < count; i++) {
        gint64 start = g_get_monotonic_time ();
        epoll_wait (epoll_fd, &event, 1, 1); /* an empty set: always the timeout */
        late[i] = g_get_monotonic_time () - start - 1000;
        if (late[i] > 10 * 1000)
            over_10ms++;
    }
    close (epoll_fd);
    qsort (late, count, sizeof *late, compare_gint64);
    g_print ("wake-ups after a 1 ms sleep: late by p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f ms; "
             "%u of %u over 10 ms\n",
             late[count / 2] / 1000.0, late[(gsize) count * 99 / 100] / 1000.0,
             late[(gsize) count * 999 / 1000] / 1000.0, late[count - 1] / 1000.0, over_10ms,
             count);
    return 0;
}
