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
/* The backlog listener's full queue, emptied 50 ms after a client's SYN
 * has been dropped; it then serves as http.  The client's connect
 * completes on its SYN retransmission (about a second later on Linux): a
 * slow connect that succeeds, on loopback. */
#define FAULT_KIND_SLOW_ACCEPT "slow-accept"
/* accepts, then closes with a reset (SO_LINGER 0) before reading anything */
#define FAULT_KIND_RESET_ACCEPT "reset-accept"

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

/*
 * Hostile responses (docs/failure-modes.md, "Hostile servers").  Each
 * sends the bytes named and then waits for the peer to go, unless noted.
 */
#define FAULT_PATH_INTERIM_FLOOD "/interim-flood"   /* "100 Continue" heads until the peer goes */
#define FAULT_PATH_INTERIM_MANY "/interim-many"     /* ?n=N (default 50000) 100 Continue, then 200 "ok" */
#define FAULT_PATH_EARLY_HINTS "/early-hints"       /* 100, 103 with a Link, then 200 "ok", keep-alive */
#define FAULT_PATH_CHUNK_EXT_ENDLESS "/chunk-ext-endless" /* chunked, "5;" then extension bytes for ever */
#define FAULT_PATH_TINY_CHUNKS "/tiny-chunks"       /* chunked, one-byte chunks for ever */
#define FAULT_PATH_TRAILER_ENDLESS "/trailer-endless" /* chunked, "0" then trailer lines for ever */
#define FAULT_PATH_CHUNK_ZZ "/chunk-zz"             /* chunked, size line "zz" */
#define FAULT_PATH_CHUNK_5G "/chunk-5g"             /* chunked, size line "5g" */
#define FAULT_PATH_CHUNK_ZEROS "/chunk-zeros"       /* chunked, size "0000000000000000002" (17 zeros): valid, "ok" */
#define FAULT_PATH_CHUNK_15_DIGITS "/chunk-15-digits" /* chunked, size line "100000000000000" (2^56), then "hello" */
#define FAULT_PATH_CHUNK_NO_FINAL_CRLF "/chunk-no-final-crlf" /* chunked "ok", the last chunk without its empty line, then close */
#define FAULT_PATH_CL_TWICE "/cl-twice"             /* Content-Length: 2 on two lines: valid, "ok" */
#define FAULT_PATH_CL_DISAGREE "/cl-disagree"       /* Content-Length: 2, 5 */
#define FAULT_PATH_CL_NEGATIVE "/cl-negative"       /* Content-Length: -1 */
#define FAULT_PATH_CL_TE "/cl-te"                   /* Content-Length and chunked both, a chunked "ok" */
#define FAULT_PATH_TE_TWO_LINES "/te-two-lines"     /* Transfer-Encoding: chunked / identity on two lines, then close */
#define FAULT_PATH_TE_ONE_LINE "/te-one-line"       /* Transfer-Encoding: chunked, identity, then close */
#define FAULT_PATH_TE_GZIP_CHUNKED "/te-gzip-chunked" /* Transfer-Encoding: gzip, chunked; a chunked body of 2 bytes, keep-alive */
#define FAULT_PATH_NO_STATUS "/no-status"           /* a head without a status line, then close */
#define FAULT_PATH_HTTP09 "/http09"                 /* a body without any head, then close */
#define FAULT_PATH_HEAD_TOO_LARGE "/head-too-large" /* a head of 100 KiB */
#define FAULT_PATH_STATUS_101 "/status-101"         /* 101 Switching Protocols, unasked */
#define FAULT_PATH_STATUS_600 "/status-600"         /* status 600 */
#define FAULT_PATH_BARE_LF "/bare-lf"               /* a chunked "ok" with LF line ends, keep-alive */
#define FAULT_PATH_HTTP10_NO_LENGTH "/http10-no-length" /* HTTP/1.0, keep-alive, no length, "ok", close */
#define FAULT_PATH_NO_CONTENT_BODY "/no-content-body"   /* 204 with 5 body bytes, keep-alive */
#define FAULT_PATH_CLOSE_THIRD "/close-third"       /* 200 "ok", keep-alive; the third request on a connection is closed unanswered */
#define FAULT_PATH_STRAY_AFTER "/stray-after"       /* 200 "ok", keep-alive, then 5 bytes 100 ms later */
#define FAULT_PATH_EMPTY_LINE_BEFORE "/empty-line-before" /* CRLF, then 200 "ok", keep-alive */
/* 100 Continue, an extra CRLF, then 200 "ok", keep-alive (as aiohttp sends) */
#define FAULT_PATH_CONTINUE_EMPTY_LINE "/continue-empty-line"
