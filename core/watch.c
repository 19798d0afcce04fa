/* SPDX-License-Identifier: MIT */
/*
 * The SDK's fd watches and timers (<throng/watch.h>): thin handles over
 * the reactor of the user's worker, found through throng_user_get_reactor().
 */
#include <throng/watch.h>

#include "reactor-private.h"

struct _ThrongWatch {
    ThrongReactorWatch base;
    ThrongWatchFunc func;
    gpointer user_data;
};

struct _ThrongTimer {
    ThrongReactorTimer base;
    ThrongTimerFunc func;
    gpointer user_data;
};

static void
watch_ready (ThrongReactorWatch *base, GIOCondition revents, gpointer data)
{
    ThrongWatch *watch = data;

    watch->func (watch, revents, watch->user_data);
}

ThrongWatch *
throng_user_watch_fd (ThrongUser *user, int fd, GIOCondition events, ThrongWatchFunc func,
                      gpointer user_data, GError **error)
{
    g_return_val_if_fail (user != NULL, NULL);
    g_return_val_if_fail (fd >= 0, NULL);
    g_return_val_if_fail (func != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    g_autofree ThrongWatch *watch = g_new0 (ThrongWatch, 1);
    watch->func = func;
    watch->user_data = user_data;
    if (!throng_reactor_watch_add (&watch->base, throng_user_get_reactor (user), fd, events,
                                   watch_ready, watch, error))
        return NULL;
    return g_steal_pointer (&watch);
}

void
throng_watch_modify (ThrongWatch *watch, GIOCondition events)
{
    g_return_if_fail (watch != NULL);
    throng_reactor_watch_modify (&watch->base, events);
}

void
throng_watch_remove (ThrongWatch *watch)
{
    if (watch == NULL)
        return;
    throng_reactor_watch_remove (&watch->base);
    g_free (watch);
}

static void
timer_fired (ThrongReactorTimer *base, gpointer data)
{
    ThrongTimer *timer = data;

    timer->func (timer, timer->user_data);
}

ThrongTimer *
throng_user_add_timer (ThrongUser *user, gint64 due_us, ThrongTimerFunc func, gpointer user_data)
{
    g_return_val_if_fail (user != NULL, NULL);
    g_return_val_if_fail (func != NULL, NULL);

    ThrongTimer *timer = g_new0 (ThrongTimer, 1);
    timer->func = func;
    timer->user_data = user_data;
    throng_reactor_timer_init (&timer->base, throng_user_get_reactor (user), timer_fired, timer);
    if (due_us >= 0)
        throng_reactor_timer_arm (&timer->base, due_us);
    return timer;
}

void
throng_timer_rearm (ThrongTimer *timer, gint64 due_us)
{
    g_return_if_fail (timer != NULL);
    if (due_us < 0)
        throng_reactor_timer_cancel (&timer->base);
    else
        throng_reactor_timer_arm (&timer->base, due_us);
}

void
throng_timer_cancel (ThrongTimer *timer)
{
    if (timer == NULL)
        return;
    throng_reactor_timer_cancel (&timer->base);
    g_free (timer);
}
