/* SPDX-License-Identifier: MIT */
/*
 * The worker's reactor on a real GMainContext, real pipes and socket
 * pairs: timer order and ties, cancelling and re-arming from inside
 * callbacks, 100k timers, the source's ready time, an fd waking a
 * blocking loop iteration, removing and modifying watches whose events
 * are pending in the same batch; the context's poll function: woken from
 * another thread, beside a GLib fd source, and a watch removed by another
 * source between the poll and the reactor's dispatch; a poll that the
 * machine did not wake on time (the process stopped past its timer).
 */
#include "reactor-private.h"

#include <gio/gio.h>
#include <glib-unix.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    GMainContext *context;
    ThrongReactor *reactor;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->context = g_main_context_new ();
    fixture->reactor = throng_reactor_new (fixture->context);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    g_assert_cmpuint (throng_reactor_get_n_watches (fixture->reactor), ==, 0);
    throng_reactor_free (fixture->reactor);
    g_main_context_unref (fixture->context);
}

/* Iterates @context, blocking, until @cond holds; fails past @deadline (monotonic µs). */
#define ITERATE_UNTIL(context, cond, deadline)                                                 \
    G_STMT_START {                                                                             \
        while (!(cond)) {                                                                      \
            g_assert_cmpint (g_get_monotonic_time (), <, (deadline));                          \
            g_main_context_iteration ((context), TRUE);                                        \
        }                                                                                      \
    } G_STMT_END

/* --- timers ---------------------------------------------------------------- */

typedef struct {
    ThrongReactorTimer timer;
    guint index;                /* order of arming */
    GArray *fired;              /* guint index, shared */
    ThrongReactorTimer *to_cancel;
    guint rearms_left;
    gboolean cancel_self;
} TestTimer;

static void
record_fired (ThrongReactorTimer *timer, gpointer data)
{
    TestTimer *t = data;

    g_array_append_val (t->fired, t->index);
    if (t->to_cancel != NULL)
        throng_reactor_timer_cancel (t->to_cancel);
    if (t->rearms_left > 0) {
        t->rearms_left--;
        throng_reactor_timer_arm (timer, 0);
    }
    if (t->cancel_self)
        throng_reactor_timer_cancel (timer);
}

static void
test_timer_order (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    gint64 base = g_get_monotonic_time () - 1000;
    /* Dues, in arming order: equal ones must fire in this order. */
    const gint64 offsets[] = { 30, 10, 20, 10, 30, 0, 10, 20 };
    const guint expected[] = { 5, 1, 3, 6, 2, 7, 0, 4 };
    TestTimer timers[G_N_ELEMENTS (offsets)];

    for (guint i = 0; i < G_N_ELEMENTS (offsets); i++) {
        timers[i] = (TestTimer) { .index = i, .fired = fired };
        throng_reactor_timer_init (&timers[i].timer, fixture->reactor, record_fired, &timers[i]);
        throng_reactor_timer_arm (&timers[i].timer, base - 100 + offsets[i]);
    }
    g_assert_cmpuint (throng_reactor_get_n_timers (fixture->reactor), ==, G_N_ELEMENTS (offsets));
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, G_N_ELEMENTS (expected));
    for (guint i = 0; i < fired->len; i++)
        g_assert_cmpuint (g_array_index (fired, guint, i), ==, expected[i]);
    g_assert_cmpuint (throng_reactor_get_n_timers (fixture->reactor), ==, 0);
    for (guint i = 0; i < G_N_ELEMENTS (offsets); i++)
        g_assert_false (throng_reactor_timer_is_armed (&timers[i].timer));

    /* Moving an armed timer to a time others already hold puts it after them. */
    g_array_set_size (fired, 0);
    throng_reactor_timer_arm (&timers[0].timer, base);
    throng_reactor_timer_arm (&timers[1].timer, base);
    throng_reactor_timer_arm (&timers[2].timer, base + 1000000);
    throng_reactor_timer_arm (&timers[2].timer, base);
    throng_reactor_timer_arm (&timers[0].timer, base);
    g_assert_cmpint (throng_reactor_timer_get_due (&timers[0].timer), ==, base);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 3);
    g_assert_cmpuint (g_array_index (fired, guint, 0), ==, 1);
    g_assert_cmpuint (g_array_index (fired, guint, 1), ==, 2);
    g_assert_cmpuint (g_array_index (fired, guint, 2), ==, 0);
}

static void
test_timer_future (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    TestTimer timer = { .index = 7, .fired = fired };
    gint64 due = g_get_monotonic_time () + 30 * 1000;

    throng_reactor_timer_init (&timer.timer, fixture->reactor, record_fired, &timer);
    throng_reactor_timer_arm (&timer.timer, due);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    /* A blocking iteration sleeps until the timer, then runs it. */
    while (fired->len == 0)
        g_main_context_iteration (fixture->context, TRUE);
    g_assert_cmpint (g_get_monotonic_time (), >=, due);
    g_assert_cmpuint (g_array_index (fired, guint, 0), ==, 7);
}

static void
test_timer_cancel_in_callback (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    gint64 due = g_get_monotonic_time () - 10;
    TestTimer timers[4];

    for (guint i = 0; i < G_N_ELEMENTS (timers); i++) {
        timers[i] = (TestTimer) { .index = i, .fired = fired };
        throng_reactor_timer_init (&timers[i].timer, fixture->reactor, record_fired, &timers[i]);
    }
    /* 0 re-arms itself and then cancels itself; it also cancels 1, due
     * in the same batch; 3 is due later and is cancelled by 2. */
    timers[0].rearms_left = 1;
    timers[0].cancel_self = TRUE;
    timers[0].to_cancel = &timers[1].timer;
    timers[2].to_cancel = &timers[3].timer;
    throng_reactor_timer_arm (&timers[0].timer, due);
    throng_reactor_timer_arm (&timers[1].timer, due);
    throng_reactor_timer_arm (&timers[2].timer, due);
    throng_reactor_timer_arm (&timers[3].timer, due + 1000000);

    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 2);
    g_assert_cmpuint (g_array_index (fired, guint, 0), ==, 0);
    g_assert_cmpuint (g_array_index (fired, guint, 1), ==, 2);
    g_assert_cmpuint (throng_reactor_get_n_timers (fixture->reactor), ==, 0);
    g_assert_cmpint (throng_reactor_get_next_due (fixture->reactor), ==, -1);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 2);
}

/* A timer re-armed for "now" in its callback fires once per dispatch, and others still get their turn. */
static void
test_timer_rearm_in_callback (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    TestTimer again = { .index = 0, .fired = fired, .rearms_left = 4 };
    TestTimer other = { .index = 1, .fired = fired };

    throng_reactor_timer_init (&again.timer, fixture->reactor, record_fired, &again);
    throng_reactor_timer_init (&other.timer, fixture->reactor, record_fired, &other);
    throng_reactor_timer_arm (&again.timer, 0);

    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 1);
    g_assert_true (throng_reactor_timer_is_armed (&again.timer));
    /* Due after the re-armed one in time, yet it fires in the next dispatch. */
    throng_reactor_timer_arm (&other.timer, g_get_monotonic_time () - 1);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 3);
    g_assert_cmpuint (g_array_index (fired, guint, 1), ==, 0);
    g_assert_cmpuint (g_array_index (fired, guint, 2), ==, 1);
    for (guint n = 4; n <= 6; n++) {
        g_assert_true (g_main_context_iteration (fixture->context, FALSE));
        g_assert_cmpuint (fired->len, ==, n);
    }
    g_assert_false (throng_reactor_timer_is_armed (&again.timer));
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
}

/* The loop's poll timeout, in GLib's milliseconds, after a prepare of @context. */
static gint
poll_timeout (GMainContext *context)
{
    GPollFD fds[8];
    gint priority, timeout;

    g_main_context_acquire (context);
    g_main_context_prepare (context, &priority);
    g_main_context_query (context, G_MAXINT, &timeout, fds, G_N_ELEMENTS (fds));
    g_main_context_release (context);
    return timeout;
}

/* The earliest timer is what the loop waits for, told by prepare() (no ready time, no eventfd). */
static void
test_timer_next_due (Fixture *fixture, gconstpointer data)
{
    ThrongReactor *reactor = fixture->reactor;
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    gint64 now = g_get_monotonic_time ();
    TestTimer a = { .index = 0, .fired = fired };
    TestTimer b = { .index = 1, .fired = fired };

    throng_reactor_timer_init (&a.timer, reactor, record_fired, &a);
    throng_reactor_timer_init (&b.timer, reactor, record_fired, &b);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, -1);
    g_assert_cmpint (poll_timeout (fixture->context), ==, -1);
    throng_reactor_timer_arm (&a.timer, now + 10 * G_USEC_PER_SEC);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now + 10 * G_USEC_PER_SEC);
    g_assert_cmpint (poll_timeout (fixture->context), >, 9000);
    g_assert_cmpint (poll_timeout (fixture->context), <=, 10000);
    throng_reactor_timer_arm (&b.timer, now + 5 * G_USEC_PER_SEC);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now + 5 * G_USEC_PER_SEC);
    g_assert_cmpint (poll_timeout (fixture->context), <=, 5000);
    throng_reactor_timer_arm (&b.timer, now + 20 * G_USEC_PER_SEC);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now + 10 * G_USEC_PER_SEC);
    throng_reactor_timer_cancel (&a.timer);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now + 20 * G_USEC_PER_SEC);
    g_assert_cmpint (poll_timeout (fixture->context), >, 10000);
    throng_reactor_timer_arm (&a.timer, now - 5);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now - 5);
    g_assert_cmpint (poll_timeout (fixture->context), ==, 0);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (fired->len, ==, 1);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, now + 20 * G_USEC_PER_SEC);
    throng_reactor_timer_cancel (&b.timer);
    throng_reactor_timer_cancel (&b.timer);
    g_assert_cmpint (throng_reactor_get_next_due (reactor), ==, -1);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
}

typedef struct {
    ThrongReactorTimer timer;
    guint index;
    gboolean cancelled;
} ManyTimer;

typedef struct {
    ManyTimer *timers;
    guint n_fired;
    guint n_this_dispatch;
    guint max_per_dispatch;
    gint64 last_due;
    guint last_index;
    gboolean out_of_order;
    gboolean fired_cancelled;
} ManyRun;

static ManyRun *many_run;

static void
many_fired (ThrongReactorTimer *timer, gpointer data)
{
    ManyTimer *t = data;
    ManyRun *run = many_run;
    gint64 due = throng_reactor_timer_get_due (timer);

    if (t->cancelled)
        run->fired_cancelled = TRUE;
    /* Ascending by due time; ties in arming order (which is index order
     * for the timers that were never moved). */
    if (run->n_fired > 0
        && (due < run->last_due || (due == run->last_due && t->index < run->last_index)))
        run->out_of_order = TRUE;
    run->last_due = due;
    run->last_index = t->index;
    run->n_fired++;
    run->n_this_dispatch++;
}

static void
test_timer_many (Fixture *fixture, gconstpointer data)
{
    const guint n = 100000;
    g_autoptr (GRand) rand = g_rand_new_with_seed (12);
    ManyRun run = { .timers = g_new0 (ManyTimer, n) };
    guint expected = 0;

    many_run = &run;
    gint64 start = g_get_monotonic_time ();
    /* Spread over 200 ms, many sharing a due time; some already past. */
    for (guint i = 0; i < n; i++) {
        ManyTimer *t = &run.timers[i];
        t->index = i;
        throng_reactor_timer_init (&t->timer, fixture->reactor, many_fired, t);
        throng_reactor_timer_arm (&t->timer, start - 20000 + g_rand_int_range (rand, 0, 2200) * 100);
    }
    /* Cancel a third, anywhere in the heap. */
    for (guint i = 0; i < n; i++) {
        if (g_rand_int_range (rand, 0, 3) == 0) {
            run.timers[i].cancelled = TRUE;
            throng_reactor_timer_cancel (&run.timers[i].timer);
        } else {
            expected++;
        }
    }
    gint64 armed = g_get_monotonic_time ();
    g_assert_cmpuint (throng_reactor_get_n_timers (fixture->reactor), ==, expected);

    while (run.n_fired < expected) {
        g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
        run.n_this_dispatch = 0;
        g_main_context_iteration (fixture->context, TRUE);
        run.max_per_dispatch = MAX (run.max_per_dispatch, run.n_this_dispatch);
    }
    gint64 end = g_get_monotonic_time ();
    g_test_message ("%u timers: armed and a third cancelled in %" G_GINT64_FORMAT
                    " ms, all fired %" G_GINT64_FORMAT " ms after the first was due",
                    n, (armed - start) / 1000, (end - start + 20000) / 1000);

    g_assert_cmpuint (run.n_fired, ==, expected);
    g_assert_false (run.out_of_order);
    g_assert_false (run.fired_cancelled);
    /* One dispatch runs a bounded batch, so other sources get their turn. */
    g_assert_cmpuint (run.max_per_dispatch, <=, THRONG_REACTOR_TIMER_BATCH);
    g_assert_cmpuint (throng_reactor_get_n_timers (fixture->reactor), ==, 0);
    g_assert_cmpint (throng_reactor_get_next_due (fixture->reactor), ==, -1);
    many_run = NULL;
    g_free (run.timers);
}

/* --- fd watches ------------------------------------------------------------ */

typedef struct _TestWatch TestWatch;

struct _TestWatch {
    ThrongReactorWatch watch;
    int fd;
    guint calls;
    GIOCondition last;
    TestWatch *to_remove;       /* removed (and freed) by this one's callback */
    gboolean remove_self;
    TestWatch *to_modify;
    GIOCondition modify_to;
    guint *order;               /* shared call counter */
    TestWatch **ran;            /* set to the one called */
};

static void
watch_ready (ThrongReactorWatch *watch, GIOCondition revents, gpointer data)
{
    TestWatch *t = data;

    t->calls++;
    t->last = revents;
    if (t->order != NULL)
        (*t->order)++;
    if (t->ran != NULL)
        *t->ran = t;
    if (t->to_modify != NULL)
        throng_reactor_watch_modify (&t->to_modify->watch, t->modify_to);
    if (t->to_remove != NULL) {
        throng_reactor_watch_remove (&t->to_remove->watch);
        /* Freed at once: ASan would catch a pending event still used. */
        g_clear_pointer (&t->to_remove, g_free);
    }
    if (t->remove_self)
        throng_reactor_watch_remove (watch);
}

static TestWatch *
test_watch_new (Fixture *fixture, int fd, GIOCondition events)
{
    TestWatch *t = g_new0 (TestWatch, 1);
    g_autoptr (GError) error = NULL;

    t->fd = fd;
    g_assert_true (throng_reactor_watch_add (&t->watch, fixture->reactor, fd, events, watch_ready,
                                             t, &error));
    g_assert_no_error (error);
    g_assert_cmpint (throng_reactor_watch_get_fd (&t->watch), ==, fd);
    return t;
}

static void
make_pipe (int fds[2])
{
    g_assert_no_errno (pipe2 (fds, O_NONBLOCK | O_CLOEXEC));
}

static void
write_byte (int fd)
{
    g_assert_cmpint (write (fd, "x", 1), ==, 1);
}

typedef struct {
    int fd;
} WriterData;

static gpointer
late_writer (gpointer data)
{
    WriterData *writer = data;

    g_usleep (50 * 1000);
    write_byte (writer->fd);
    return NULL;
}

static void
test_fd_wakes_loop (Fixture *fixture, gconstpointer data)
{
    int fds[2];

    make_pipe (fds);
    TestWatch *t = test_watch_new (fixture, fds[0], G_IO_IN);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 0);

    /* No timer is armed: only the pipe can end this blocking iteration. */
    WriterData writer = { fds[1] };
    GThread *thread = g_thread_new ("writer", late_writer, &writer);
    gint64 start = g_get_monotonic_time ();
    while (t->calls == 0)
        g_main_context_iteration (fixture->context, TRUE);
    g_thread_join (thread);
    g_assert_cmpint (g_get_monotonic_time () - start, >=, 40 * 1000);
    g_assert_cmpuint (t->calls, ==, 1);
    g_assert_cmpint (t->last, ==, G_IO_IN);

    /* Level-triggered: still readable, called again. */
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 2);
    char byte;
    g_assert_cmpint (read (fds[0], &byte, 1), ==, 1);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 2);

    /* The writer's end closing is reported even to a watch waiting for nothing. */
    throng_reactor_watch_modify (&t->watch, 0);
    close (fds[1]);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 3);
    g_assert_true (t->last & G_IO_HUP);
    g_assert_false (t->last & G_IO_IN);

    throng_reactor_watch_remove (&t->watch);
    throng_reactor_watch_remove (&t->watch); /* twice: a no-op */
    close (fds[0]);
    g_free (t);
}

static void
test_fd_remove_in_batch (Fixture *fixture, gconstpointer data)
{
    int a[2], b[2];
    guint order = 0;
    TestWatch *ran = NULL;

    make_pipe (a);
    make_pipe (b);
    TestWatch *wa = test_watch_new (fixture, a[0], G_IO_IN);
    TestWatch *wb = test_watch_new (fixture, b[0], G_IO_IN);
    /* Whichever runs first removes itself and the other, whose event
     * was read in the same batch. */
    wa->order = wb->order = &order;
    wa->ran = wb->ran = &ran;
    wa->to_remove = wb;
    wa->remove_self = TRUE;
    wb->to_remove = wa;
    wb->remove_self = TRUE;
    write_byte (a[1]);
    write_byte (b[1]);

    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (order, ==, 1);
    g_assert_cmpuint (throng_reactor_get_n_watches (fixture->reactor), ==, 0);
    /* The one that ran is still readable, but no longer watched. */
    g_assert_nonnull (ran);
    g_assert_cmpuint (ran->calls, ==, 1);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (order, ==, 1);
    g_free (ran);
    for (guint i = 0; i < 2; i++) {
        close (a[i]);
        close (b[i]);
    }
}

static void
test_fd_modify (Fixture *fixture, gconstpointer data)
{
    int pair[2];

    g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair));
    TestWatch *t = test_watch_new (fixture, pair[0], G_IO_IN);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));

    throng_reactor_watch_modify (&t->watch, G_IO_OUT);
    g_assert_cmpint (throng_reactor_watch_get_events (&t->watch), ==, G_IO_OUT);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 1);
    g_assert_cmpint (t->last, ==, G_IO_OUT);

    throng_reactor_watch_modify (&t->watch, 0);
    g_assert_false (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 1);

    throng_reactor_watch_modify (&t->watch, G_IO_IN | G_IO_OUT);
    write_byte (pair[1]);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 2);
    g_assert_cmpint (t->last, ==, G_IO_IN | G_IO_OUT);

    /* Two writable sockets in one batch: whichever runs first makes the
     * other wait for G_IO_IN only, and the other's pending G_IO_OUT is
     * dropped rather than delivered as something it no longer wants. */
    int other[2];
    g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, other));
    TestWatch *u = test_watch_new (fixture, other[0], G_IO_OUT);
    throng_reactor_watch_modify (&t->watch, G_IO_OUT);
    t->to_modify = u;
    t->modify_to = G_IO_IN;
    u->to_modify = t;
    u->modify_to = G_IO_IN;
    t->calls = u->calls = 0;
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls + u->calls, ==, 1);
    g_assert_cmpint ((t->calls == 1 ? t : u)->last, ==, G_IO_OUT);

    throng_reactor_watch_remove (&t->watch);
    throng_reactor_watch_remove (&u->watch);
    g_free (t);
    g_free (u);
    for (guint i = 0; i < 2; i++) {
        close (pair[i]);
        close (other[i]);
    }
}

static void
test_fd_refused (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp ("throng-reactor-XXXXXX", &path, NULL);
    ThrongReactorWatch watch = { .fd = -7 };

    g_assert_cmpint (fd, >=, 0);
    /* epoll refuses regular files. */
    g_assert_false (throng_reactor_watch_add (&watch, fixture->reactor, fd, G_IO_IN, watch_ready,
                                              NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
    g_assert_cmpint (watch.fd, ==, -7);
    g_assert_cmpuint (throng_reactor_get_n_watches (fixture->reactor), ==, 0);
    close (fd);
    g_unlink (path);
}

/* Timers and fds in one loop: a timer fired from the same dispatch as an fd. */
static void
test_timer_and_fd (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    TestTimer timer = { .index = 3, .fired = fired };
    int fds[2];

    make_pipe (fds);
    TestWatch *t = test_watch_new (fixture, fds[0], G_IO_IN);
    throng_reactor_timer_init (&timer.timer, fixture->reactor, record_fired, &timer);
    throng_reactor_timer_arm (&timer.timer, g_get_monotonic_time () + 20 * 1000);
    write_byte (fds[1]);
    g_assert_true (g_main_context_iteration (fixture->context, FALSE));
    g_assert_cmpuint (t->calls, ==, 1);
    g_assert_cmpuint (fired->len, ==, 0);
    /* The fd stays ready (level-triggered) and must not starve the timer. */
    gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
    ITERATE_UNTIL (fixture->context, fired->len == 1, deadline);
    g_assert_cmpuint (t->calls, >=, 2);
    throng_reactor_watch_remove (&t->watch);
    g_free (t);
    close (fds[0]);
    close (fds[1]);
}

/* --- the poll function ------------------------------------------------------ */

static gboolean
set_flag (gpointer data)
{
    *(gboolean *) data = TRUE;
    return G_SOURCE_REMOVE;
}

typedef struct {
    GMainContext *context;
    gboolean *flag;
} Invoker;

static gpointer
invoke_later (gpointer data)
{
    Invoker *invoker = data;

    g_usleep (50 * 1000);
    g_main_context_invoke (invoker->context, set_flag, invoker->flag);
    return NULL;
}

/* Blocks in @context until another thread's g_main_context_invoke() 50 ms
 * later has run; fails past @deadline. */
static void
wait_for_invoke (GMainContext *context, gint64 deadline)
{
    gboolean flag = FALSE;
    Invoker invoker = { context, &flag };
    GThread *thread = g_thread_new ("invoker", invoke_later, &invoker);

    ITERATE_UNTIL (context, flag, deadline);
    g_thread_join (thread);
}

/* Blocked in epoll_wait() with no timer and no ready fd, the loop must
 * still wake for another thread's g_main_context_invoke(). */
static void
test_poll_woken (Fixture *fixture, gconstpointer data)
{
    int fds[2];

    make_pipe (fds);
    TestWatch *t = test_watch_new (fixture, fds[0], G_IO_IN);
    gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    wait_for_invoke (fixture->context, deadline);
    /* Woken, and back to waiting for the pipe alone. */
    write_byte (fds[1]);
    ITERATE_UNTIL (fixture->context, t->calls > 0, deadline);
    throng_reactor_watch_remove (&t->watch);
    g_free (t);
    close (fds[0]);
    close (fds[1]);
}

static gboolean
count_fd (gint fd, GIOCondition condition, gpointer data)
{
    char byte;

    g_assert_cmpint (read (fd, &byte, 1), ==, 1);
    (*(guint *) data)++;
    return G_SOURCE_CONTINUE;
}

/* A GLib fd source in the same context (as the soup transport's sockets
 * are) takes the poll back to g_poll(); both kinds of fd keep firing. */
static void
test_poll_beside_glib_fd (Fixture *fixture, gconstpointer data)
{
    guint glib_calls = 0;
    int ours[2], theirs[2];

    make_pipe (ours);
    make_pipe (theirs);
    TestWatch *t = test_watch_new (fixture, ours[0], G_IO_IN);
    GSource *source = g_unix_fd_source_new (theirs[0], G_IO_IN);
    g_source_set_callback (source, G_SOURCE_FUNC (count_fd), &glib_calls, NULL);
    g_source_attach (source, fixture->context);

    gint64 start = g_get_monotonic_time ();
    for (guint round = 1; round <= 3; round++) {
        write_byte (theirs[1]);
        ITERATE_UNTIL (fixture->context, glib_calls >= round, start + 5 * G_USEC_PER_SEC);
        write_byte (ours[1]);
        ITERATE_UNTIL (fixture->context, t->calls >= round, start + 5 * G_USEC_PER_SEC);
        char byte;
        g_assert_cmpint (read (ours[0], &byte, 1), ==, 1);
    }
    g_source_destroy (source);
    g_source_unref (source);

    /* Back on the fast path: the wakeup fd, out of the epoll set while
     * g_poll() ran, must be in it again for another thread to wake us. */
    wait_for_invoke (fixture->context, start + 10 * G_USEC_PER_SEC);

    throng_reactor_watch_remove (&t->watch);
    g_free (t);
    for (int i = 0; i < 2; i++) {
        close (ours[i]);
        close (theirs[i]);
    }
}

typedef struct {
    TestWatch *victim;
    gboolean ran;
} Remover;

static gboolean
remove_victim (gpointer data)
{
    Remover *remover = data;

    throng_reactor_watch_remove (&remover->victim->watch);
    /* Freed at once: ASan would catch the kept event still used. */
    g_clear_pointer (&remover->victim, g_free);
    remover->ran = TRUE;
    return G_SOURCE_REMOVE;
}

/* The poll function keeps the events it read for the reactor's dispatch;
 * a source dispatched before it in the same iteration (attached first,
 * same priority) removes and frees a watch whose event is kept. */
static void
test_poll_kept_event_removed (gconstpointer data)
{
    GMainContext *context = g_main_context_new ();
    Remover remover = { 0 };
    int fds[2];

    GSource *idle = g_idle_source_new ();
    g_source_set_priority (idle, G_PRIORITY_DEFAULT);
    g_source_set_callback (idle, remove_victim, &remover, NULL);
    g_source_attach (idle, context);
    ThrongReactor *reactor = throng_reactor_new (context);
    Fixture fixture = { context, reactor };

    make_pipe (fds);
    remover.victim = test_watch_new (&fixture, fds[0], G_IO_IN);
    write_byte (fds[1]);
    g_main_context_iteration (context, FALSE);
    g_assert_true (remover.ran);
    g_assert_null (remover.victim);
    /* Nothing kept is left over to make the next poll return at once. */
    g_assert_false (g_main_context_iteration (context, FALSE));

    g_source_unref (idle);
    g_assert_cmpuint (throng_reactor_get_n_watches (reactor), ==, 0);
    throng_reactor_free (reactor);
    g_main_context_unref (context);
    close (fds[0]);
    close (fds[1]);
}

/* Whether the process whose /proc/PID/stat is @path sleeps ('S');
 * async-signal-safe, for a child of a threaded parent. */
static gboolean
process_sleeps (const char *path)
{
    char buf[256];

    int fd = open (path, O_RDONLY);
    if (fd < 0)
        return FALSE;
    ssize_t n = read (fd, buf, sizeof buf - 1);
    close (fd);
    if (n <= 0)
        return FALSE;
    buf[n] = '\0';
    const char *paren = strrchr (buf, ')'); /* the name may hold spaces */
    return paren != NULL && paren[1] == ' ' && paren[2] == 'S';
}

/*
 * A host that does not run a virtual CPU leaves a sleeping loop asleep
 * past its timeout, and nothing in the guest is to blame.  The same from
 * outside: a child stops this process (SIGSTOP) while its loop sleeps
 * towards a timer and lets it go on (SIGCONT) well after the timer was
 * due; the reactor says how late its poll came back, once.
 */
static void
test_poll_wake_late (Fixture *fixture, gconstpointer data)
{
    g_autoptr (GArray) fired = g_array_new (FALSE, FALSE, sizeof (guint));
    TestTimer timer = { .index = 1, .fired = fired };
    const gint64 timer_ms = 200, stopped_ms = 500;
    char stat_path[64];

    g_assert_cmpint (throng_reactor_take_wake_late (fixture->reactor), ==, 0);
    throng_reactor_timer_init (&timer.timer, fixture->reactor, record_fired, &timer);
    gint64 due = g_get_monotonic_time () + timer_ms * 1000;
    throng_reactor_timer_arm (&timer.timer, due);
    pid_t parent = getpid ();
    snprintf (stat_path, sizeof stat_path, "/proc/%d/stat", (int) parent);
    pid_t child = fork ();
    g_assert_cmpint (child, >=, 0);
    if (child == 0) {
        struct timespec poll_gap = { 0, 1000 * 1000 }, stop = { 0, stopped_ms * 1000 * 1000 };
        /* Bounded, and never a process that took the parent's PID. */
        for (int i = 0; i < 5000 && !process_sleeps (stat_path); i++)
            nanosleep (&poll_gap, NULL);
        if (getppid () != parent)
            _exit (1);
        kill (parent, SIGSTOP);
        nanosleep (&stop, NULL);
        kill (parent, SIGCONT);
        _exit (0);
    }
    ITERATE_UNTIL (fixture->context, fired->len == 1, g_get_monotonic_time () + 10 * G_USEC_PER_SEC);
    gint64 fired_late = g_get_monotonic_time () - due;
    int status = 0;
    g_assert_cmpint (waitpid (child, &status, 0), ==, child);
    g_assert_true (WIFEXITED (status));
    gint64 late = throng_reactor_take_wake_late (fixture->reactor);
    g_test_message ("timer ran %.1f ms late, the poll woke %.1f ms late",
                    (gdouble) fired_late / 1000.0, (gdouble) late / 1000.0);
    if (fired_late < 100 * 1000) {
        /* A busy machine ran the child only after the timer had fired. */
        g_test_skip ("the child did not stop the loop before its timer");
        return;
    }
    /* The timer ran as soon as the poll came back: all its lateness is the poll's. */
    g_assert_cmpint (late, >=, fired_late - 50 * 1000);
    g_assert_cmpint (throng_reactor_take_wake_late (fixture->reactor), ==, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
    g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
    ADD ("/reactor/timer/order", test_timer_order);
    ADD ("/reactor/timer/future", test_timer_future);
    ADD ("/reactor/timer/cancel-in-callback", test_timer_cancel_in_callback);
    ADD ("/reactor/timer/rearm-in-callback", test_timer_rearm_in_callback);
    ADD ("/reactor/timer/next-due", test_timer_next_due);
    ADD ("/reactor/timer/many", test_timer_many);
    ADD ("/reactor/fd/wakes-loop", test_fd_wakes_loop);
    ADD ("/reactor/fd/remove-in-batch", test_fd_remove_in_batch);
    ADD ("/reactor/fd/modify", test_fd_modify);
    ADD ("/reactor/fd/refused", test_fd_refused);
    ADD ("/reactor/timer-and-fd", test_timer_and_fd);
    ADD ("/reactor/poll/woken", test_poll_woken);
    ADD ("/reactor/poll/beside-glib-fd", test_poll_beside_glib_fd);
    ADD ("/reactor/poll/wake-late", test_poll_wake_late);
#undef ADD
    g_test_add_data_func ("/reactor/poll/kept-event-removed", NULL, test_poll_kept_event_removed);
    return g_test_run ();
}
