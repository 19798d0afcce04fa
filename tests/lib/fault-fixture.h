/* SPDX-License-Identifier: MIT */
/*
 * The fault-injecting server (fault-server.h holds its wire contract) as a
 * child of the test: started with the listeners a test asks for, its ports
 * read from what it prints, killed by its PID at the end.  It also ends
 * by itself when the test dies, as its stdin (a pipe from the test) closes.
 */
#pragma once

#include <glib.h>

#include "fault-server.h"

G_BEGIN_DECLS

typedef struct _ThrongTestFaultServer ThrongTestFaultServer;

/*
 * Starts $THRONG_BUILD_DIR/tests/lib/throng-fault-server with one
 * `--listen` per entry of @listeners (NULL-terminated: FAULT_KIND_HTTP,
 * "https:CERT:KEY", FAULT_KIND_TLS_DROP …) and returns once it says
 * "ready".  Asserts that it started.
 */
ThrongTestFaultServer *throng_test_fault_server_start (const char *const *listeners);

/* The port of the @index-th listener, in the order they were given. */
guint16 throng_test_fault_server_port (ThrongTestFaultServer *server, guint index);

/* The server's PID, for tests that kill it mid-run. */
const char *throng_test_fault_server_pid (ThrongTestFaultServer *server);

/* Kills it by its PID, reaps it and frees the fixture.  NULL is a no-op. */
void throng_test_fault_server_stop (ThrongTestFaultServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestFaultServer, throng_test_fault_server_stop)

G_END_DECLS
