/* SPDX-License-Identifier: MIT */
/*
 * An in-process SoupServer for tests that check what the client sent or
 * shape what it gets (a stall, a delay): on a thread of its own
 * (server-thread.h), so it serves while the test waits for a throng child,
 * listening on 127.0.0.1 at ports the kernel picks, over HTTP and, given a
 * certificate, HTTPS.  The test's handler runs on the server's thread:
 * what it shares with the test needs a lock or atomics.
 */
#pragma once

#include <libsoup/soup.h>

#include "server-thread.h"

G_BEGIN_DECLS

typedef struct _ThrongTestSoupServer ThrongTestSoupServer;

/*
 * Starts the server with @handler (@data) for every path; with
 * @certificate (may be NULL), an HTTPS listener too.  Asserts that it
 * listens.
 */
ThrongTestSoupServer *throng_test_soup_server_start (GTlsCertificate *certificate,
                                                     SoupServerCallback handler,
                                                     gpointer data);

/* Disconnects and frees it, on its thread, and joins that.  NULL is a no-op. */
void throng_test_soup_server_stop (ThrongTestSoupServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestSoupServer, throng_test_soup_server_stop)

/* "http://127.0.0.1:PORT"; "https://127.0.0.1:PORT", or NULL without a certificate. */
const char *throng_test_soup_server_http_url (ThrongTestSoupServer *server);
const char *throng_test_soup_server_https_url (ThrongTestSoupServer *server);

/*
 * From a handler (on the server's thread): pauses @message and answers it
 * @delay_ms later with 200 and @body (a static string, text/plain).  A
 * message whose client gave up meanwhile is left alone.
 */
void throng_test_soup_server_respond_later (SoupServerMessage *message,
                                            guint delay_ms,
                                            const char *body);

G_END_DECLS

G_BEGIN_DECLS

/*
 * A target of known capacity, for the capacity search's tests: a handler
 * that serves at most @slots requests at once, each for @service_ms, and
 * queues the rest in arrival order (answered 200 "ok").  Its hard capacity
 * is slots × 1000 / service_ms requests per second, exactly (the queue is
 * kept in ideal time: a late timer delays one answer, not the next
 * request); past it the queue, and so the latency, grows without bound.  Pass throng_test_slots_handler and
 * the slots as a soup server's handler and data; free after the server stops.
 */
typedef struct _ThrongTestSlots ThrongTestSlots;

ThrongTestSlots *throng_test_slots_new (guint slots, guint service_ms);
void throng_test_slots_handler (SoupServer *server, SoupServerMessage *message, const char *path,
                                GHashTable *query, gpointer slots);
/* Requests answered so far (any thread). */
guint64 throng_test_slots_served (ThrongTestSlots *slots);
void throng_test_slots_free (ThrongTestSlots *slots);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestSlots, throng_test_slots_free)

G_END_DECLS
