/* SPDX-License-Identifier: MIT */
/*
 * The reactor: an epoll set and a 4-ary min-heap of timers behind one
 * GSource.  GLib walks every attached source and polls every fd on each
 * loop iteration, so a worker that gave each user timer and each socket
 * its own source paid O(users) per wakeup; here GLib sees one fd (the
 * epoll set) and one ready time (the earliest timer), and a dispatch
 * touches only the timers that expired and the fds that are ready.
 *
 * GLib learns the earliest timer from the source's prepare() on each
 * loop iteration, not from a ready time: g_source_set_ready_time()
 * signals the context's eventfd on every change, even from the loop's
 * own thread, so a worker whose earliest timer moved at each wakeup (any
 * think time) paid an eventfd write, a read and a spurious poll() for it.
 *
 * A dispatch first moves the expired timers (at most a batch of them)
 * out of the heap and runs them in (due, arming order), then reads one
 * batch of fd events and runs those.  Both batches are bounded, so
 * neither a flood of timers nor a busy fd keeps the loop from its other
 * sources.  Cancelling a timer or removing a watch clears its entry in
 * the batch being run, which is what makes both safe from any callback.
 * (Events the poll function below kept were read before the timers ran:
 * a timer callback that drained an fd leaves its watch a readiness that
 * is gone, which level-triggered watches must take anyway.)
 *
 * GLib's own poll() of the epoll fd, followed by epoll_wait() to learn
 * what it saw, was a syscall per wake-up that wrk does not make.  The
 * reactor installs its context's poll function: when GLib polls nothing
 * but the epoll fd and the context's wakeup eventfd (the worker's fast
 * path), it puts the wakeup fd in the epoll set and blocks in
 * epoll_wait() itself, keeping the events for the dispatch.  Soup's
 * sockets or any other fd send it back to g_poll(), with the wakeup fd
 * out of the set again.  GPollFunc has no user data, so the reactor is
 * found through a thread-local pointer that its prepare() sets: a
 * reactor must be freed on the thread that iterated it, or after that
 * thread has ended (a worker's is joined first).
 */
#include "reactor-private.h"

#include <gio/gio.h>

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

enum {
    TIMER_IDLE,
    TIMER_QUEUED,               /* in the heap; slot is its index */
    TIMER_BATCHED,              /* expired, in the dispatch batch; slot is its index */
};

typedef struct {
    gint64 due_us;
    guint64 seq;                /* arming order: ties fire first armed, first run */
    ThrongReactorTimer *timer;
} HeapEntry;

typedef struct {
    GSource base;
    ThrongReactor *reactor;
} ReactorSource;

struct _ThrongReactor {
    GSource *source;
    gpointer epoll_tag;
    int epoll_fd;
    gboolean dispatching;

    HeapEntry *heap;
    guint heap_len;
    guint heap_size;
    guint64 next_seq;

    ThrongReactorTimer *batch[THRONG_REACTOR_TIMER_BATCH];
    guint batch_len;
    guint n_batched;            /* entries of batch still to run */

    struct epoll_event events[THRONG_REACTOR_EVENT_BATCH];
    int n_pending;              /* events the poll function kept for dispatch, or -1 */
    int wakeup_fd;              /* the context's wakeup fd while in the epoll set, or -1 */
    int not_wakeup_fd;          /* an fd found not to be it, or -1 */
    guint n_watches;
    gint64 wake_late_max_us;    /* throng_reactor_take_wake_late() */
};

/* What stands for the context's wakeup fd in the epoll set. */
static char wakeup_mark;

/* The reactor this thread last prepared: whose epoll fd reactor_poll() may wait on. */
static __thread ThrongReactor *polling_reactor;

G_STATIC_ASSERT (THRONG_REACTOR_EVENT_BATCH <= G_MAXINT);

/* --- the heap ------------------------------------------------------------ */

static inline gboolean
entry_before (const HeapEntry *a, const HeapEntry *b)
{
    return a->due_us < b->due_us || (a->due_us == b->due_us && a->seq < b->seq);
}

static inline void
heap_place (ThrongReactor *reactor, guint i, const HeapEntry *entry)
{
    reactor->heap[i] = *entry;
    entry->timer->slot = i;
}

static void
heap_sift_up (ThrongReactor *reactor, guint i, HeapEntry entry)
{
    while (i > 0) {
        guint parent = (i - 1) / 4;
        if (!entry_before (&entry, &reactor->heap[parent]))
            break;
        heap_place (reactor, i, &reactor->heap[parent]);
        i = parent;
    }
    heap_place (reactor, i, &entry);
}

static void
heap_sift_down (ThrongReactor *reactor, guint i, HeapEntry entry)
{
    for (;;) {
        guint first = 4 * i + 1;
        if (first >= reactor->heap_len)
            break;
        guint end = MIN (first + 4, reactor->heap_len);
        guint best = first;
        for (guint c = first + 1; c < end; c++)
            if (entry_before (&reactor->heap[c], &reactor->heap[best]))
                best = c;
        if (!entry_before (&reactor->heap[best], &entry))
            break;
        heap_place (reactor, i, &reactor->heap[best]);
        i = best;
    }
    heap_place (reactor, i, &entry);
}

static void
heap_push (ThrongReactor *reactor, ThrongReactorTimer *timer)
{
    if (reactor->heap_len == reactor->heap_size) {
        reactor->heap_size = MAX (64, reactor->heap_size * 2);
        reactor->heap = g_renew (HeapEntry, reactor->heap, reactor->heap_size);
    }
    HeapEntry entry = { timer->due_us, reactor->next_seq++, timer };
    timer->state = TIMER_QUEUED;
    heap_sift_up (reactor, reactor->heap_len++, entry);
}

static void
heap_remove (ThrongReactor *reactor, guint i)
{
    g_assert (i < reactor->heap_len);
    HeapEntry last = reactor->heap[--reactor->heap_len];

    if (i == reactor->heap_len)
        return;
    if (i > 0 && entry_before (&last, &reactor->heap[(i - 1) / 4]))
        heap_sift_up (reactor, i, last);
    else
        heap_sift_down (reactor, i, last);
}

/* --- the source ---------------------------------------------------------- */

/*
 * The poll timeout until the earliest timer, rounded up to GLib's
 * milliseconds (as GLib rounds a ready time); TRUE when one is due now.
 */
static gboolean
reactor_prepare (GSource *source, gint *timeout)
{
    ThrongReactor *reactor = ((ReactorSource *) source)->reactor;

    polling_reactor = reactor;
    *timeout = -1;
    if (reactor->heap_len == 0)
        return FALSE;
    gint64 left = reactor->heap[0].due_us - g_get_monotonic_time ();
    if (left <= 0) {
        *timeout = 0;
        return TRUE;
    }
    *timeout = (gint) MIN ((left + 999) / 1000, G_MAXINT);
    return FALSE;
}

/* After the poll: a timer came due (a ready epoll fd makes GLib dispatch by itself). */
static gboolean
reactor_check (GSource *source)
{
    ThrongReactor *reactor = ((ReactorSource *) source)->reactor;

    return reactor->heap_len > 0 && reactor->heap[0].due_us <= g_get_monotonic_time ();
}

static void
reactor_run_timers (ThrongReactor *reactor, gint64 now)
{
    guint n = 0;

    /* Out of the heap first: a timer armed by a callback below goes back
     * into the heap and waits for the next dispatch, so a callback that
     * re-arms itself at "now" cannot keep this one going. */
    while (n < THRONG_REACTOR_TIMER_BATCH && reactor->heap_len > 0
           && reactor->heap[0].due_us <= now) {
        ThrongReactorTimer *timer = reactor->heap[0].timer;
        heap_remove (reactor, 0);
        timer->state = TIMER_BATCHED;
        timer->slot = n;
        reactor->batch[n++] = timer;
    }
    reactor->batch_len = n;
    reactor->n_batched = n;

    for (guint i = 0; i < n; i++) {
        ThrongReactorTimer *timer = reactor->batch[i];
        if (timer == NULL)
            continue; /* cancelled or re-armed by an earlier callback */
        reactor->batch[i] = NULL;
        reactor->n_batched--;
        timer->state = TIMER_IDLE;
        timer->func (timer, timer->data);
    }
    reactor->batch_len = 0;
}

static GIOCondition
condition_from_epoll (guint32 events)
{
    GIOCondition condition = 0;

    if (events & EPOLLIN)
        condition |= G_IO_IN;
    if (events & EPOLLOUT)
        condition |= G_IO_OUT;
    if (events & EPOLLPRI)
        condition |= G_IO_PRI;
    if (events & EPOLLERR)
        condition |= G_IO_ERR;
    if (events & EPOLLHUP)
        condition |= G_IO_HUP;
    return condition;
}

static guint32
epoll_from_condition (GIOCondition condition)
{
    guint32 events = 0;

    if (condition & G_IO_IN)
        events |= EPOLLIN;
    if (condition & G_IO_OUT)
        events |= EPOLLOUT;
    if (condition & G_IO_PRI)
        events |= EPOLLPRI;
    return events;
}

/*
 * Points each watch among the N events at its entry, so that removing
 * it clears the entry; returns how many are watches (not the wakeup fd).
 */
static int
mark_events (ThrongReactor *reactor, int n)
{
    int n_watches = 0;

    for (int i = 0; i < n; i++) {
        if (reactor->events[i].data.ptr == &wakeup_mark)
            continue;
        ((ThrongReactorWatch *) reactor->events[i].data.ptr)->slot = i;
        n_watches++;
    }
    return n_watches;
}

static void
reactor_run_events (ThrongReactor *reactor)
{
    int n = reactor->n_pending;

    reactor->n_pending = -1;
    if (n < 0) {
        n = epoll_wait (reactor->epoll_fd, reactor->events, THRONG_REACTOR_EVENT_BATCH, 0);
        if (n < 0) {
            /* EINTR: the set is still readable and GLib comes back to it. */
            g_assert (errno == EINTR);
            return;
        }
        mark_events (reactor, n);
    }

    for (int i = 0; i < n; i++) {
        ThrongReactorWatch *watch = reactor->events[i].data.ptr;
        if (watch == NULL || watch == (gpointer) &wakeup_mark)
            continue; /* removed by an earlier callback, or GLib's */
        watch->slot = -1;
        /* What it still waits for: a callback may have changed that. */
        guint32 events = reactor->events[i].events & (watch->events | EPOLLERR | EPOLLHUP);
        if (events != 0)
            watch->func (watch, condition_from_epoll (events), watch->data);
    }
}

static gboolean
reactor_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
    ThrongReactor *reactor = ((ReactorSource *) source)->reactor;

    /* A callback that iterates the worker's context itself (nothing in
     * throng does) finds the reactor busy: its events wait for the outer
     * dispatch to finish. */
    if (reactor->dispatching)
        return G_SOURCE_CONTINUE;
    reactor->dispatching = TRUE;
    if (reactor->heap_len > 0)
        reactor_run_timers (reactor, g_get_monotonic_time ());
    if (reactor->n_pending >= 0 || g_source_query_unix_fd (source, reactor->epoll_tag) & G_IO_IN)
        reactor_run_events (reactor);
    reactor->dispatching = FALSE;
    return G_SOURCE_CONTINUE;
}

/* Whether @fd is an eventfd, as GLib's wakeup is on Linux: a higher-priority
 * source's fd alone beside the epoll fd must not be taken for it. */
static gboolean
is_eventfd (int fd)
{
    char link[32], target[32];

    g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink (link, target, sizeof target - 1);
    if (len < 0)
        return FALSE;
    target[len] = '\0';
    return strcmp (target, "anon_inode:[eventfd]") == 0;
}

/*
 * A poll that came back later than its timeout: the thread was not run
 * when it was due, either waiting for a CPU (behind another process or
 * throng's own threads, which the run-queue wait shows) or not runnable
 * at all (a stopped process, a virtual CPU its host had not scheduled).
 * The worker tells the two apart.
 */
static void
note_wake (ThrongReactor *reactor, gint timeout, gint64 start_us)
{
    gint64 late = g_get_monotonic_time () - start_us - (gint64) timeout * 1000;
    if (late > reactor->wake_late_max_us)
        reactor->wake_late_max_us = late;
}

/* g_poll(), with the wakeup fd out of the epoll set first: left in, each
 * wakeup of the context would also wake the reactor for nothing. */
static gint
reactor_poll_fallback (ThrongReactor *reactor, GPollFD *fds, guint nfds, gint timeout)
{
    if (reactor == NULL)
        return g_poll (fds, nfds, timeout);
    if (reactor->wakeup_fd >= 0 && reactor->n_pending < 0) {
        epoll_ctl (reactor->epoll_fd, EPOLL_CTL_DEL, reactor->wakeup_fd, NULL);
        reactor->wakeup_fd = -1;
    }
    gint64 start = timeout > 0 ? g_get_monotonic_time () : 0;
    gint n = g_poll (fds, nfds, timeout);
    if (timeout > 0)
        note_wake (reactor, timeout, start);
    return n;
}

/*
 * The context's poll function (see the top of the file).  Anything but
 * the fast path's two fds, a nested iteration or events not yet
 * dispatched goes to g_poll() as before.
 */
static gint
reactor_poll (GPollFD *fds, guint nfds, gint timeout)
{
    ThrongReactor *reactor = polling_reactor;
    GPollFD *epoll_pfd = NULL, *wakeup_pfd = NULL;

    if (reactor == NULL || nfds != 2 || reactor->dispatching || reactor->n_pending >= 0)
        return reactor_poll_fallback (reactor, fds, nfds, timeout);
    for (guint i = 0; i < nfds; i++) {
        if (fds[i].fd == reactor->epoll_fd)
            epoll_pfd = &fds[i];
        else
            wakeup_pfd = &fds[i];
    }
    if (epoll_pfd == NULL || wakeup_pfd == NULL || wakeup_pfd->events != G_IO_IN
        || wakeup_pfd->fd == reactor->not_wakeup_fd)
        return reactor_poll_fallback (reactor, fds, nfds, timeout);
    if (reactor->wakeup_fd != wakeup_pfd->fd) {
        struct epoll_event event = { .events = EPOLLIN, .data.ptr = &wakeup_mark };
        if (reactor->wakeup_fd >= 0 || !is_eventfd (wakeup_pfd->fd)) {
            reactor->not_wakeup_fd = wakeup_pfd->fd;
            return reactor_poll_fallback (reactor, fds, nfds, timeout);
        }
        if (epoll_ctl (reactor->epoll_fd, EPOLL_CTL_ADD, wakeup_pfd->fd, &event) < 0)
            return reactor_poll_fallback (reactor, fds, nfds, timeout);
        reactor->wakeup_fd = wakeup_pfd->fd;
    }

    /* A poll that does not sleep cannot oversleep: no clock read for it. */
    gint64 start = timeout > 0 ? g_get_monotonic_time () : 0;
    int n = epoll_wait (reactor->epoll_fd, reactor->events, THRONG_REACTOR_EVENT_BATCH, timeout);
    if (timeout > 0)
        note_wake (reactor, timeout, start);
    epoll_pfd->revents = 0;
    wakeup_pfd->revents = 0;
    if (n < 0)
        return -1; /* EINTR, which GLib expects from poll() */
    int n_watches = mark_events (reactor, n);
    if (n_watches > 0) {
        reactor->n_pending = n;
        epoll_pfd->revents = G_IO_IN;
    }
    if (n_watches < n)
        wakeup_pfd->revents = G_IO_IN;
    return (epoll_pfd->revents != 0) + (wakeup_pfd->revents != 0);
}

static GSourceFuncs reactor_source_funcs = {
    .prepare = reactor_prepare,
    .check = reactor_check,
    .dispatch = reactor_dispatch,
};

ThrongReactor *
throng_reactor_new (GMainContext *context)
{
    ThrongReactor *reactor = g_new0 (ThrongReactor, 1);

    reactor->epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
    if (reactor->epoll_fd < 0)
        g_error ("epoll_create1: %s", g_strerror (errno)); /* out of fds or memory at start */
    reactor->source = g_source_new (&reactor_source_funcs, sizeof (ReactorSource));
    ((ReactorSource *) reactor->source)->reactor = reactor;
    g_source_set_static_name (reactor->source, "throng reactor");
    /*
     * GLib takes a non-recursive source's fds out of the poll set for the
     * time of its dispatch and puts them back after, signalling the
     * context's eventfd each time: two write() calls per dispatch and a
     * spurious wakeup after it.  The guard in reactor_dispatch() does the
     * job of the blocking instead.
     */
    g_source_set_can_recurse (reactor->source, TRUE);
    reactor->epoll_tag = g_source_add_unix_fd (reactor->source, reactor->epoll_fd, G_IO_IN);
    reactor->n_pending = -1;
    reactor->wakeup_fd = -1;
    reactor->not_wakeup_fd = -1;
    g_source_attach (reactor->source, context);
    g_main_context_set_poll_func (context, reactor_poll);
    return reactor;
}

void
throng_reactor_free (ThrongReactor *reactor)
{
    if (reactor == NULL)
        return;
    g_return_if_fail (!reactor->dispatching);
    g_main_context_set_poll_func (g_source_get_context (reactor->source), NULL);
    if (polling_reactor == reactor)
        polling_reactor = NULL;
    g_source_destroy (reactor->source);
    g_source_unref (reactor->source);
    close (reactor->epoll_fd);
    g_free (reactor->heap);
    g_free (reactor);
}

GSource *
throng_reactor_get_source (ThrongReactor *reactor)
{
    return reactor->source;
}

guint
throng_reactor_get_n_timers (ThrongReactor *reactor)
{
    return reactor->heap_len + reactor->n_batched;
}

gint64
throng_reactor_take_wake_late (ThrongReactor *reactor)
{
    gint64 late = reactor->wake_late_max_us;

    reactor->wake_late_max_us = 0;
    return late;
}

gint64
throng_reactor_get_next_due (ThrongReactor *reactor)
{
    return reactor->heap_len > 0 ? reactor->heap[0].due_us : -1;
}

guint
throng_reactor_get_n_watches (ThrongReactor *reactor)
{
    return reactor->n_watches;
}

/* --- timers -------------------------------------------------------------- */

void
throng_reactor_timer_init (ThrongReactorTimer *timer, ThrongReactor *reactor,
                           ThrongReactorTimerFunc func, gpointer data)
{
    g_return_if_fail (timer != NULL && reactor != NULL && func != NULL);
    *timer = (ThrongReactorTimer) {
        .reactor = reactor,
        .func = func,
        .data = data,
        .due_us = -1,
        .state = TIMER_IDLE,
    };
}

void
throng_reactor_timer_cancel (ThrongReactorTimer *timer)
{
    ThrongReactor *reactor = timer->reactor;

    switch (timer->state) {
    case TIMER_QUEUED:
        heap_remove (reactor, timer->slot);
        break;
    case TIMER_BATCHED:
        reactor->batch[timer->slot] = NULL;
        reactor->n_batched--;
        break;
    case TIMER_IDLE:
    default:
        break;
    }
    timer->state = TIMER_IDLE;
}

void
throng_reactor_timer_arm (ThrongReactorTimer *timer, gint64 due_us)
{
    ThrongReactor *reactor = timer->reactor;

    g_return_if_fail (reactor != NULL);
    if (timer->state == TIMER_QUEUED) {
        /* Moving in place keeps the heap's size; a new sequence number
         * puts it after the timers already due at the same time. */
        HeapEntry entry = { due_us, reactor->next_seq++, timer };
        guint i = timer->slot;
        timer->due_us = due_us;
        if (i > 0 && entry_before (&entry, &reactor->heap[(i - 1) / 4]))
            heap_sift_up (reactor, i, entry);
        else
            heap_sift_down (reactor, i, entry);
    } else {
        if (timer->state == TIMER_BATCHED) {
            reactor->batch[timer->slot] = NULL;
            reactor->n_batched--;
        }
        timer->due_us = due_us;
        heap_push (reactor, timer);
    }
}

gboolean
throng_reactor_timer_is_armed (const ThrongReactorTimer *timer)
{
    return timer->state != TIMER_IDLE;
}

gint64
throng_reactor_timer_get_due (const ThrongReactorTimer *timer)
{
    return timer->due_us;
}

/* --- fd watches ---------------------------------------------------------- */

gboolean
throng_reactor_watch_add (ThrongReactorWatch *watch, ThrongReactor *reactor, int fd,
                          GIOCondition events, ThrongReactorWatchFunc func, gpointer data,
                          GError **error)
{
    g_return_val_if_fail (watch != NULL && reactor != NULL && func != NULL, FALSE);
    g_return_val_if_fail (fd >= 0, FALSE);

    guint32 mask = epoll_from_condition (events);
    struct epoll_event event = { .events = mask, .data.ptr = watch };
    if (epoll_ctl (reactor->epoll_fd, EPOLL_CTL_ADD, fd, &event) < 0) {
        int saved = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot watch fd %d: %s",
                     fd, g_strerror (saved));
        return FALSE;
    }
    *watch = (ThrongReactorWatch) {
        .reactor = reactor,
        .func = func,
        .data = data,
        .fd = fd,
        .events = mask,
        .slot = -1,
    };
    reactor->n_watches++;
    return TRUE;
}

void
throng_reactor_watch_modify (ThrongReactorWatch *watch, GIOCondition events)
{
    g_return_if_fail (watch != NULL && watch->reactor != NULL);

    guint32 mask = epoll_from_condition (events);
    if (mask == watch->events)
        return;
    struct epoll_event event = { .events = mask, .data.ptr = watch };
    if (epoll_ctl (watch->reactor->epoll_fd, EPOLL_CTL_MOD, watch->fd, &event) < 0)
        g_critical ("epoll_ctl (MOD, fd %d): %s; was it closed before its watch was removed?",
                    watch->fd, g_strerror (errno));
    watch->events = mask;
}

void
throng_reactor_watch_remove (ThrongReactorWatch *watch)
{
    ThrongReactor *reactor = watch->reactor;

    if (reactor == NULL)
        return;
    /* ENOENT/EBADF: the fd was closed first, which took it out of the set already. */
    epoll_ctl (reactor->epoll_fd, EPOLL_CTL_DEL, watch->fd, NULL);
    if (watch->slot >= 0)
        reactor->events[watch->slot].data.ptr = NULL;
    watch->slot = -1;
    watch->reactor = NULL;
    reactor->n_watches--;
}

int
throng_reactor_watch_get_fd (const ThrongReactorWatch *watch)
{
    return watch->fd;
}

GIOCondition
throng_reactor_watch_get_events (const ThrongReactorWatch *watch)
{
    return condition_from_epoll (watch->events);
}
