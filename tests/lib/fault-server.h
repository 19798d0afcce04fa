/* SPDX-License-Identifier: MIT */
/*
 * The wire contract between the fault-injecting server
 * (tests/lib/fault-server.c, built as tests/lib/throng-fault-server) and the
 * tests that drive it: its command line, the lines it prints when its
 * listeners are ready, and the request paths that choose a fault.
 *
 * Command line:  throng-fault-server --listen KIND[:CERT:KEY] ...
 *
 * For each --listen, in order, the server prints "KIND PORT\n" on stdout
 * once the listener is bound on 127.0.0.1, then "ready\n" when all are.
 * It runs until its stdin reaches end of file (so it dies with the test
 * that started it) or it is killed by its PID.
 */
#pragma once

/* Listener kinds. */
#define FAULT_KIND_HTTP "http"         /* HTTP/1.1, the fault chosen by path */
#define FAULT_KIND_HTTPS "https"       /* the same over TLS with CERT and KEY */
#define FAULT_KIND_TLS_DROP "tls-drop" /* reads the ClientHello, then closes */
#define FAULT_KIND_TLS_HANG "tls-hang" /* reads the ClientHello, never answers */
/* listen (fd, 0), never accepts, and fills its own accept queue at start,
 * so that a further connect() stays in SYN-SENT: a connect that never
 * completes, on loopback. */
#define FAULT_KIND_BACKLOG "backlog"

/*
 * Paths (on http and https listeners).  A query string is ignored except
 * where noted.  Every other path answers 404.
 */
#define FAULT_PATH_OK "/ok"                       /* 200, body "ok", keep-alive */
#define FAULT_PATH_SLOW "/slow"                   /* ?ms=N: 200 after N ms */
#define FAULT_PATH_STATUS_500 "/status/500"       /* 500, keep-alive */
#define FAULT_PATH_STATUS_503 "/status/503"       /* 503, keep-alive */
#define FAULT_PATH_HANG "/hang"                   /* reads the request, never answers */
#define FAULT_PATH_STALL_BODY "/stall-body"       /* head (Content-Length 100) + 10 bytes, then nothing */
#define FAULT_PATH_CLOSE_HEADERS "/close-headers" /* half a head, then close */
#define FAULT_PATH_CLOSE_BODY "/close-body"       /* head (Content-Length 1000) + 100 bytes, then close */
#define FAULT_PATH_RESET "/reset"                 /* SO_LINGER 0 and close: RST, nothing sent */
#define FAULT_PATH_RESET_BODY "/reset-body"       /* head + part of the body, then RST */
#define FAULT_PATH_GARBAGE "/garbage"             /* a head whose status line is not HTTP */
#define FAULT_PATH_HUGE "/huge"                   /* Content-Length 1 GiB, then zeros until the peer goes */
#define FAULT_PATH_ENDLESS_CHUNKED "/endless-chunked" /* chunks for ever */
#define FAULT_PATH_ENDLESS_CLOSE "/endless-close" /* no length, bytes until the peer goes */
