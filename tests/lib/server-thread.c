/* SPDX-License-Identifier: MIT */
/*
 * A server's thread (see server-thread.h): its context, its loop, and the
 * hand-over that lets start() finish before the test goes on.
 */
#include "server-thread.h"

struct _ThrongTestServerThread {
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    GFunc start;
    GFunc finish;
    gpointer data;
    GAsyncQueue *started;
};

static gpointer
server_thread_main (gpointer user_data)
{
    ThrongTestServerThread *thread = user_data;

    g_main_context_push_thread_default (thread->context);
    thread->start (thread->data, NULL);
    g_async_queue_push (thread->started, GINT_TO_POINTER (1));
    g_main_loop_run (thread->loop);
    if (thread->finish != NULL)
        thread->finish (thread->data, NULL);
    g_main_context_pop_thread_default (thread->context);
    return NULL;
}

ThrongTestServerThread *
throng_test_server_thread_start (const char *name, GFunc start, GFunc finish, gpointer data)
{
    ThrongTestServerThread *thread = g_new0 (ThrongTestServerThread, 1);

    thread->context = g_main_context_new ();
    thread->loop = g_main_loop_new (thread->context, FALSE);
    thread->start = start;
    thread->finish = finish;
    thread->data = data;
    thread->started = g_async_queue_new ();
    thread->thread = g_thread_new (name, server_thread_main, thread);
    g_async_queue_pop (thread->started);
    return thread;
}

GMainContext *
throng_test_server_thread_context (ThrongTestServerThread *thread)
{
    return thread->context;
}

static gboolean
quit_loop (gpointer user_data)
{
    g_main_loop_quit (user_data);
    return G_SOURCE_REMOVE;
}

void
throng_test_server_thread_stop (ThrongTestServerThread *thread)
{
    if (thread == NULL)
        return;
    g_main_context_invoke (thread->context, quit_loop, thread->loop);
    g_thread_join (thread->thread);
    g_main_loop_unref (thread->loop);
    g_main_context_unref (thread->context);
    g_async_queue_unref (thread->started);
    g_free (thread);
}
