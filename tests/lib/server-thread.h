/* SPDX-License-Identifier: MIT */
/*
 * A server of the test's own process on a thread of its own: a main
 * context and loop that serve while the test's main thread waits for a
 * throng child.  The in-process SoupServer (soup-server.h) runs on one;
 * so can any GSocketService a test writes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ThrongTestServerThread ThrongTestServerThread;

/*
 * Starts a thread named @name with a new main context as its thread
 * default, calls @start (@data) there (to create and start the server,
 * whose sources then belong to that context), and runs the context's loop.
 * Returns once @start has returned.  @start may assert.
 */
ThrongTestServerThread *throng_test_server_thread_start (const char *name,
                                                         GFunc start,
                                                         GFunc finish,
                                                         gpointer data);

/* The thread's context: attach timeouts that must run beside the server here. */
GMainContext *throng_test_server_thread_context (ThrongTestServerThread *thread);

/*
 * Quits the loop, calls @finish (@data) on the thread (to disconnect and
 * free the server while its context is still the default), joins the
 * thread and frees it.  NULL is a no-op.
 */
void throng_test_server_thread_stop (ThrongTestServerThread *thread);

G_END_DECLS
