/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's response parser (plugins/http/fast/response.c)
 * over the framing rules of RFC 9112 §6, one table: each case is a byte
 * stream, what the request was (HEAD or not, max_body), and the outcome
 * expected — complete or refused, the error class, the status, the body
 * bytes counted, and whether the connection may carry the next request.
 * Each case runs whole, split at every byte, and one byte at a time, and
 * must give the same outcome each way.  docs/failure-modes.md ("The
 * response parser") lists the same cases with the same outcomes.
 */
#include <string.h>

/* The parser is compiled into this test as it is into the plugin. */
#include "../../plugins/http/framing.c"
#include "../../plugins/http/chunked.c"
#include "../../plugins/http/fast/parse.c"
#include "../../plugins/http/fast/head.c"
#include "../../plugins/http/fast/response.c"

#define MAX_BODY (64 * 1024)

typedef enum {
    OK,     /* complete (a close-delimited body needs the EOF: `eof` below) */
    FAIL,   /* refused or cut: see `klass` */
    WAITS,  /* still incomplete when the bytes end and the server keeps the connection */
} Expect;

typedef struct {
    const char *name;
    const char *bytes;
    gsize len; /* 0: strlen (bytes) */
    gboolean head_only;
    gboolean eof; /* the server closes after the bytes */
    Expect expect;
    ThrongErrorClass klass;
    guint status;
    guint64 body;
    gboolean reuse; /* the connection may carry the next request */
} Case;

#define H200 "HTTP/1.1 200 OK\r\n"
#define CHUNKED_OK "2\r\nok\r\n0\r\n\r\n"
#define NUL_VALUE H200 "X-A: a\0b\r\nContent-Length: 2\r\n\r\nok"
#define NUL_NAME H200 "X\0A: b\r\nContent-Length: 2\r\n\r\nok"
#define CRLF8 "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
#define CRLF32 CRLF8 CRLF8 CRLF8 CRLF8

static const Case cases[] = {
    /* Fields fast/head.c reads itself: repeats and cases of their names. */
    { "simple/connection-twice", H200 "Connection: keep-alive\r\nconnection: close\r\n"
      "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200, 2, FALSE },
    { "simple/names-any-case", H200 "CONTENT-length: 2\r\nCONNECTION: Close\r\n\r\nok", 0,
      FALSE, FALSE, OK, 0, 200, 2, FALSE },
    { "simple/1.0-keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n"
      "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "simple/te-twice", H200 "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
      CHUNKED_OK, 0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "simple/empty-reason", "HTTP/1.1 204 \r\n\r\n", 0, FALSE, FALSE, OK, 0, 204, 0, TRUE },
    /* Content-Length (RFC 9112 §6.3 items 5-6, RFC 9110 §8.6). */
    { "cl/basic", H200 "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "cl/zero", H200 "Content-Length: 0\r\n\r\n", 0, FALSE, FALSE, OK, 0, 200, 0, TRUE },
    { "cl/twice-same", H200 "Content-Length: 2\r\nContent-Length: 2\r\n\r\nok", 0, FALSE, FALSE,
      OK, 0, 200, 2, TRUE },
    { "cl/list-same", H200 "Content-Length: 2, 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200, 2,
      TRUE },
    { "cl/twice-disagree", H200 "Content-Length: 2\r\nContent-Length: 5\r\n\r\nok", 0, FALSE,
      FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "cl/list-disagree", H200 "Content-Length: 2, 5\r\n\r\nok", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "cl/negative", H200 "Content-Length: -1\r\n\r\nok", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "cl/hex", H200 "Content-Length: 0x2\r\n\r\nok", 0, FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL,
      200, 0, FALSE },
    { "cl/plus", H200 "Content-Length: +2\r\n\r\nok", 0, FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL,
      200, 0, FALSE },
    { "cl/empty", H200 "Content-Length: \r\n\r\nok", 0, FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL,
      200, 0, FALSE },
    { "cl/2^63", H200 "Content-Length: 9223372036854775808\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "cl/2^63-1", H200 "Content-Length: 9223372036854775807\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_BODY_LIMIT, 200, 0, FALSE },
    { "cl/over-max-body", H200 "Content-Length: 65537\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_BODY_LIMIT, 200, 0, FALSE },
    { "cl/short-then-close", H200 "Content-Length: 5\r\n\r\nok", 0, FALSE, TRUE, FAIL,
      THRONG_ERROR_RESET, 200, 2, FALSE },
    { "cl/stray-bytes", H200 "Content-Length: 2\r\n\r\nokEXTRA", 0, FALSE, FALSE, OK, 0, 200, 2,
      FALSE },

    /* Content-Length with Transfer-Encoding: a smuggling signal (RFC 9112 §6.3 item 3). */
    { "cl+te/both", H200 "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n" CHUNKED_OK, 0,
      FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },

    /* Transfer-Encoding lists (RFC 9112 §6.3 item 4): chunked final, or read to the close. */
    { "te/chunked", H200 "Transfer-Encoding: chunked\r\n\r\n" CHUNKED_OK, 0, FALSE, FALSE, OK, 0,
      200, 2, TRUE },
    { "te/gzip-chunked", H200 "Transfer-Encoding: gzip, chunked\r\n\r\n" CHUNKED_OK, 0, FALSE,
      FALSE, OK, 0, 200, 2, TRUE },
    { "te/chunked-identity-one-line", H200 "Transfer-Encoding: chunked, identity\r\n\r\n" CHUNKED_OK,
      0, FALSE, TRUE, OK, 0, 200, 12, FALSE },
    { "te/chunked-identity-two-lines",
      H200 "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" CHUNKED_OK, 0, FALSE,
      TRUE, OK, 0, 200, 12, FALSE },
    { "te/chunked-deflate", H200 "Transfer-Encoding: chunked, deflate\r\n\r\n" CHUNKED_OK, 0,
      FALSE, TRUE, OK, 0, 200, 12, FALSE },
    { "te/chunkedchunked", H200 "Transfer-Encoding: chunkedchunked\r\n\r\n" CHUNKED_OK, 0, FALSE,
      TRUE, OK, 0, 200, 12, FALSE },
    { "te/chunked-twice", H200 "Transfer-Encoding: chunked, chunked\r\n\r\n" CHUNKED_OK, 0, FALSE,
      FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "te/identity", H200 "Transfer-Encoding: identity\r\n\r\nabc", 0, FALSE, TRUE, OK, 0, 200, 3,
      FALSE },

    /* Chunk sizes (RFC 9112 §7.1). */
    { "chunk/leading-zeros", H200 "Transfer-Encoding: chunked\r\n\r\n"
                                  "000000000000000000002\r\nok\r\n0\r\n\r\n",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "chunk/upper-hex", H200 "Transfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", 0,
      FALSE, FALSE, OK, 0, 200, 10, TRUE },
    { "chunk/size-5g", H200 "Transfer-Encoding: chunked\r\n\r\n5g\r\nhello\r\n0\r\n\r\n", 0, FALSE,
      FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/size-zz", H200 "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 0, FALSE,
      FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/size-empty", H200 "Transfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n", 0,
      FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/size-negative", H200 "Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", 0,
      FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/size-past-2^63", H200 "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", 0,
      FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/over-max-body", H200 "Transfer-Encoding: chunked\r\n\r\n10001\r\n", 0, FALSE, FALSE,
      FAIL, THRONG_ERROR_BODY_LIMIT, 200, 0, FALSE },
    { "chunk/longer-than-size", H200 "Transfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n0\r\n\r\n", 0,
      FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 2, FALSE },
    { "chunk/extension", H200 "Transfer-Encoding: chunked\r\n\r\n2;a=\"b c\"\r\nok\r\n0;x\r\n\r\n",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "chunk/extension-blanks", H200 "Transfer-Encoding: chunked\r\n\r\n2 ; a=b\r\nok\r\n0\r\n\r\n",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "chunk/extension-control", H200 "Transfer-Encoding: chunked\r\n\r\n2;a\001\r\nok\r\n0\r\n\r\n",
      0, FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL, 200, 0, FALSE },
    { "chunk/trailers", H200 "Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nA: 1\r\nB: 2\r\n\r\n",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "chunk/missing-final-crlf", H200 "Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", 0,
      FALSE, TRUE, FAIL, THRONG_ERROR_RESET, 200, 2, FALSE },
    { "chunk/missing-final-crlf-kept", H200 "Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n",
      0, FALSE, FALSE, WAITS, 0, 200, 2, FALSE },
    { "chunk/cut", H200 "Transfer-Encoding: chunked\r\n\r\n5\r\nhe", 0, FALSE, TRUE, FAIL,
      THRONG_ERROR_RESET, 200, 2, FALSE },

    /* Line endings and header syntax (RFC 9112 §2.2, §5). */
    { "lf/head", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 0, FALSE, FALSE, OK, 0, 200, 2,
      TRUE },
    { "lf/chunked", "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\n\n", 0, FALSE, FALSE,
      OK, 0, 200, 2, TRUE },
    { "obs-fold", H200 "X-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200,
      2, TRUE },
    { "nul/value", NUL_VALUE, sizeof NUL_VALUE - 1, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "nul/name", NUL_NAME, sizeof NUL_NAME - 1, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "control/value", H200 "X-A: a\001b\r\nContent-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0,
      200, 2, TRUE },

    /* Interim responses (RFC 9110 §15.2). */
    { "1xx/100-103", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                     H200 "Content-Length: 2\r\n\r\nok",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "1xx/then-close", "HTTP/1.1 100 Continue\r\n\r\n", 0, FALSE, TRUE, FAIL, THRONG_ERROR_RESET,
      0, 0, FALSE },
    { "1xx/101-unsolicited", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 0, FALSE,
      FALSE, FAIL, THRONG_ERROR_PROTOCOL, 101, 0, FALSE },

    /* Responses without a body (RFC 9112 §6.3 item 1). */
    { "204/with-body", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello", 0, FALSE, FALSE,
      OK, 0, 204, 0, FALSE },
    { "204/clean", "HTTP/1.1 204 No Content\r\n\r\n", 0, FALSE, FALSE, OK, 0, 204, 0, TRUE },
    { "304/with-body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello", 0, FALSE,
      FALSE, OK, 0, 304, 0, FALSE },
    { "head/content-length", H200 "Content-Length: 1000\r\n\r\n", 0, TRUE, FALSE, OK, 0, 200, 0,
      TRUE },
    { "head/chunked", H200 "Transfer-Encoding: chunked\r\n\r\n", 0, TRUE, FALSE, OK, 0, 200, 0,
      TRUE },

    /* Status lines (RFC 9112 §4). */
    { "status/600", "HTTP/1.1 600 Nope\r\nContent-Length: 0\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 600, 0, FALSE },
    { "status/099", "HTTP/1.1 099 Nope\r\nContent-Length: 0\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "status/http-0.9", "<html>hello</html>", 0, FALSE, TRUE, FAIL, THRONG_ERROR_PROTOCOL, 0, 0,
      FALSE },
    { "status/no-status-line", "Content-Length: 2\r\n\r\nok", 0, FALSE, TRUE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "status/garbage", "SPLAT 9000 banana\r\n\r\n", 0, FALSE, FALSE, FAIL, THRONG_ERROR_PROTOCOL,
      0, 0, FALSE },
    { "status/lowercase", "http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "status/cut", "HTTP/1.1 20", 0, FALSE, TRUE, FAIL, THRONG_ERROR_RESET, 0, 0, FALSE },
    /* Empty lines before a status line are ignored (RFC 9112 §2.2), within a bound. */
    { "empty/crlf-before", "\r\n" H200 "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0,
      200, 2, TRUE },
    { "empty/lf-and-crlf-before", "\n\r\n\n" H200 "Content-Length: 2\r\n\r\nok", 0, FALSE,
      FALSE, OK, 0, 200, 2, TRUE },
    { "empty/after-100", "HTTP/1.1 100 Continue\r\n\r\n\r\n" H200 "Content-Length: 2\r\n\r\nok",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "empty/32", CRLF32 H200 "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK, 0, 200, 2,
      TRUE },
    { "empty/33", CRLF32 "\r\n" H200 "Content-Length: 2\r\n\r\nok", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "empty/bare-cr", "\rHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, FALSE, FALSE, FAIL,
      THRONG_ERROR_PROTOCOL, 0, 0, FALSE },
    { "empty/then-close", "\r\n\r\n", 0, FALSE, TRUE, FAIL, THRONG_ERROR_RESET, 0, 0, FALSE },
    { "empty/only-waits", "\r\n", 0, FALSE, FALSE, WAITS, 0, 0, 0, FALSE },
    { "status/nothing", "", 0, FALSE, TRUE, FAIL, THRONG_ERROR_RESET, 0, 0, FALSE },

    /* Persistence (RFC 9112 §9.3). */
    { "1.0/keep-alive-no-length", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody", 0,
      FALSE, TRUE, OK, 0, 200, 4, FALSE },
    { "1.0/keep-alive-length", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2"
                               "\r\n\r\nok",
      0, FALSE, FALSE, OK, 0, 200, 2, TRUE },
    { "1.0/no-keep-alive", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, FALSE, FALSE, OK,
      0, 200, 2, FALSE },
    { "1.1/no-length", H200 "\r\nbody", 0, FALSE, TRUE, OK, 0, 200, 4, FALSE },
    { "1.1/connection-close", H200 "Connection: close\r\nContent-Length: 2\r\n\r\nok", 0, FALSE,
      FALSE, OK, 0, 200, 2, FALSE },
};

typedef struct {
    Expect expect;
    ThrongErrorClass klass;
    guint status;
    guint64 body;
    gboolean reuse;
} Outcome;

/* Every head through libsoup, as before fast/head.c: the second reading of each case. */
static gboolean soup_only;

/*
 * Feeds @data to a fresh parser in the pieces that end at @cuts (the
 * last cut is @len), then the server's close when @eof.
 */
static Outcome
run (const guint8 *data, gsize len, const gsize *cuts, gsize n_cuts, gboolean head_only,
     gboolean eof)
{
    FastResponse r;
    Outcome o = { WAITS, THRONG_ERROR_NONE, 0, 0, FALSE };
    gsize from = 0;
    FastResponseResult result = FAST_RESPONSE_MORE;

    fast_response_init (&r);
    r.soup_only = soup_only;
    fast_response_start (&r, head_only, MAX_BODY);
    for (gsize i = 0; i < n_cuts && result == FAST_RESPONSE_MORE; i++) {
        const guint8 *p = data + from;
        gsize left = cuts[i] - from;

        for (;;) {
            gsize used = 0;
            result = fast_response_feed (&r, p, left, &used);
            g_assert_cmpuint (used, <=, left);
            p += used;
            left -= used;
            if (result == FAST_RESPONSE_HEAD)
                continue;
            if (result == FAST_RESPONSE_MORE)
                g_assert_cmpuint (left, ==, 0);
            /* Bytes left after a complete response: the connection is not trusted. */
            if (result == FAST_RESPONSE_DONE && (left > 0 || cuts[i] < len))
                o.reuse = FALSE;
            else if (result == FAST_RESPONSE_DONE)
                o.reuse = r.framing.keep_alive;
            break;
        }
        from = cuts[i];
    }
    if (result == FAST_RESPONSE_MORE && eof) {
        result = fast_response_eof (&r);
        o.reuse = FALSE;
    }
    o.expect = result == FAST_RESPONSE_DONE ? OK : result == FAST_RESPONSE_ERROR ? FAIL : WAITS;
    o.klass = result == FAST_RESPONSE_ERROR ? r.error_class : THRONG_ERROR_NONE;
    o.status = r.status;
    o.body = r.body_bytes;
    if (o.expect == FAIL)
        o.reuse = FALSE;
    fast_response_clear (&r);
    return o;
}

static void
assert_outcome (const Case *c, const Outcome *o, const char *how)
{
    if (o->expect != c->expect || o->klass != c->klass || o->status != c->status
        || o->body != c->body || o->reuse != c->reuse)
        g_error ("%s (%s): got expect %d class %d status %u body %" G_GUINT64_FORMAT
                 " reuse %d; want %d %d %u %" G_GUINT64_FORMAT " %d",
                 c->name, how, o->expect, o->klass, o->status, o->body, o->reuse, c->expect,
                 c->klass, c->status, c->body, c->reuse);
}

static void
test_case (gconstpointer data)
{
    const Case *c = data;
    const guint8 *bytes = (const guint8 *)c->bytes;
    gsize len = c->len != 0 ? c->len : strlen (c->bytes);
    g_autofree gsize *each = g_new (gsize, len + 1);
    Outcome o;

    o = run (bytes, len, &len, 1, c->head_only, c->eof);
    assert_outcome (c, &o, "whole");
    for (gsize split = 1; split < len; split++) {
        gsize cuts[2] = { split, len };
        o = run (bytes, len, cuts, 2, c->head_only, c->eof);
        assert_outcome (c, &o, "split");
    }
    for (gsize i = 0; i < len; i++)
        each[i] = i + 1;
    if (len > 0) {
        o = run (bytes, len, each, len, c->head_only, c->eof);
        assert_outcome (c, &o, "byte by byte");
    }
    soup_only = TRUE;
    o = run (bytes, len, &len, 1, c->head_only, c->eof);
    soup_only = FALSE;
    assert_outcome (c, &o, "libsoup alone");
}

/*
 * A simple head fills no SoupMessageHeaders until asked; then it holds
 * every field as libsoup reads it.  A head with obs-fold goes to libsoup
 * at once.
 */
static void
test_lazy_headers (void)
{
    static const char simple[] = H200 "Set-Cookie: a=1\r\nX-Id:  r-1 \r\nSet-Cookie: b=2\r\n"
                                      "Content-Length: 2\r\n\r\nok";
    static const char folded[] = H200 "X-Id: r-1\r\n 2\r\nContent-Length: 2\r\n\r\nok";
    FastResponse r;
    SoupMessageHeaders *headers;
    gsize used;

    fast_response_init (&r);
    fast_response_start (&r, FALSE, MAX_BODY);
    g_assert_cmpint (fast_response_feed (&r, (const guint8 *)simple, sizeof simple - 1, &used), ==,
                     FAST_RESPONSE_HEAD);
    g_assert_true (r.headers_pending);
    g_assert_true (r.set_cookie);
    g_assert_null (soup_message_headers_get_one (r.headers, "X-Id"));
    headers = fast_response_headers (&r);
    g_assert_false (r.headers_pending);
    g_assert_cmpstr (soup_message_headers_get_one (headers, "X-Id"), ==, "r-1");
    g_assert_cmpstr (soup_message_headers_get_list (headers, "Set-Cookie"), ==, "a=1, b=2");
    g_assert_cmpuint (r.status, ==, 200);
    g_assert_cmpuint (r.framing.length, ==, 2);

    /* The same user's next answer over HTTP/2, whose reader fills the headers itself. */
    fast_response_start (&r, FALSE, MAX_BODY);
    g_assert_cmpint (fast_response_feed (&r, (const guint8 *)simple, sizeof simple - 1, &used), ==,
                     FAST_RESPONSE_HEAD);
    soup_message_headers_append (fast_response_headers_reset (&r), "X-Id", "h2");
    g_assert_cmpstr (soup_message_headers_get_one (fast_response_headers (&r), "X-Id"), ==, "h2");

    fast_response_start (&r, FALSE, MAX_BODY);
    g_assert_cmpint (fast_response_feed (&r, (const guint8 *)folded, sizeof folded - 1, &used), ==,
                     FAST_RESPONSE_HEAD);
    g_assert_false (r.headers_pending);
    g_assert_false (r.set_cookie);
    g_assert_cmpstr (soup_message_headers_get_one (r.headers, "X-Id"), ==, "r-1 2");
    fast_response_clear (&r);
}

/* A stream built from @unit repeated @n times between @before and @after. */
static GString *
repeated (const char *before, const char *unit, gsize n, const char *after)
{
    GString *s = g_string_new (before);

    for (gsize i = 0; i < n; i++)
        g_string_append (s, unit);
    g_string_append (s, after);
    return s;
}

static Outcome
run_whole (const GString *s, gboolean eof)
{
    gsize len = s->len;
    return run ((const guint8 *)s->str, len, &len, 1, FALSE, eof);
}

/* Bounds that a hostile server meets: interim floods, endless extensions and trailers, huge heads. */
static void
test_bounds (void)
{
    const char *final = H200 "Content-Length: 2\r\n\r\nok";
    g_autoptr (GString) interim_ok = repeated ("", "HTTP/1.1 100 Continue\r\n\r\n", 32, final);
    g_autoptr (GString) interim_flood = repeated ("", "HTTP/1.1 100 Continue\r\n\r\n", 33, final);
    g_autoptr (GString) ext_ok = repeated (H200 "Transfer-Encoding: chunked\r\n\r\n2;", "x", 60000,
                                           "\r\nok\r\n0\r\n\r\n");
    g_autoptr (GString) ext_flood = repeated (H200 "Transfer-Encoding: chunked\r\n\r\n5;", "x",
                                              HTTP_MAX_CHUNK_META + 1, "");
    g_autoptr (GString) trailer_flood = repeated (H200 "Transfer-Encoding: chunked\r\n\r\n0\r\n",
                                                  "X-T: 0123456789\r\n", 5000, "\r\n");
    g_autoptr (GString) zeros_flood = repeated (H200 "Transfer-Encoding: chunked\r\n\r\n", "0",
                                                HTTP_MAX_CHUNK_META + 2, "5\r\n");
    g_autoptr (GString) head_flood = repeated (H200, "X-Pad: 0123456789abcdef\r\n", 3000, "\r\n");
    Outcome o;

    o = run_whole (interim_ok, FALSE);
    g_assert_cmpint (o.expect, ==, OK);
    g_assert_cmpuint (o.status, ==, 200);
    o = run_whole (interim_flood, FALSE);
    g_assert_cmpint (o.expect, ==, FAIL);
    g_assert_cmpint (o.klass, ==, THRONG_ERROR_PROTOCOL);
    o = run_whole (ext_ok, FALSE);
    g_assert_cmpint (o.expect, ==, OK);
    g_assert_cmpuint (o.body, ==, 2);
    o = run_whole (ext_flood, FALSE);
    g_assert_cmpint (o.expect, ==, FAIL);
    g_assert_cmpint (o.klass, ==, THRONG_ERROR_PROTOCOL);
    o = run_whole (trailer_flood, FALSE);
    g_assert_cmpint (o.expect, ==, FAIL);
    g_assert_cmpint (o.klass, ==, THRONG_ERROR_PROTOCOL);
    o = run_whole (zeros_flood, FALSE);
    g_assert_cmpint (o.expect, ==, FAIL);
    g_assert_cmpint (o.klass, ==, THRONG_ERROR_PROTOCOL);
    o = run_whole (head_flood, FALSE);
    g_assert_cmpint (o.expect, ==, FAIL);
    g_assert_cmpint (o.klass, ==, THRONG_ERROR_PROTOCOL);
}

/* http_content_length_parse() alone: the list rule of RFC 9110 §8.6. */
static void
test_content_length (void)
{
    guint64 n = 7;

    g_assert_true (http_content_length_parse ("0", &n));
    g_assert_cmpuint (n, ==, 0);
    g_assert_true (http_content_length_parse (" 1234 ", &n));
    g_assert_cmpuint (n, ==, 1234);
    g_assert_true (http_content_length_parse ("5, 5,5", &n));
    g_assert_cmpuint (n, ==, 5);
    g_assert_true (http_content_length_parse ("9223372036854775807", &n));
    g_assert_cmpuint (n, ==, G_MAXINT64);
    n = 7;
    g_assert_false (http_content_length_parse ("9223372036854775808", &n));
    g_assert_false (http_content_length_parse ("5, 6", &n));
    g_assert_false (http_content_length_parse ("5,", &n));
    g_assert_false (http_content_length_parse ("-1", &n));
    g_assert_false (http_content_length_parse ("", &n));
    g_assert_false (http_content_length_parse ("12a", &n));
    g_assert_cmpuint (n, ==, 7);
}

/*
 * head.c skips a value eight bytes at a time: one odd byte anywhere in a
 * long value, at every offset of the word, is seen as the byte table sees
 * it (refused, or a blank the value keeps), and the field after it is
 * still found where it lies.
 */
static void
test_head_scan_words (void)
{
    static const guint8 odd[] = { 0x00, 0x01, 0x1f, 0x7f, 0x80, 0xff, '\t', ' ', '~', '!' };

    for (gsize b = 0; b < G_N_ELEMENTS (odd); b++) {
        gboolean simple = odd[b] == '\t' || (odd[b] >= 0x20 && odd[b] < 0x7f);
        for (gsize at = 0; at < 24; at++) {
            g_autoptr (GString) head = g_string_new (H200 "X-Long: ");
            gsize value_start = head->len;
            FastHead out;

            g_string_append (head, "abcdefghijklmnopqrstuvwx");
            head->str[value_start + at] = (char) odd[b];
            g_string_append (head, "\r\nContent-Length: 2\r\n\r\n");
            /* a blank at either end is trimmed; inside it stays, like any other byte */
            gboolean ok = fast_head_scan ((const guint8 *) head->str, head->len, &out);
            g_assert_cmpint (ok, ==, simple);
            if (!ok)
                continue;
            g_assert_cmpuint (out.content_length.length, ==, 1);
            g_assert_cmpint (head->str[out.content_length.offset], ==, '2');
        }
    }
}

/*
 * framing.c reads a lone "keep-alive" or "close" Connection value without
 * libsoup's list reader: the keep-alive decision is the one
 * soup_header_contains() gives, for those values in any case and for
 * values that only look like them.
 */
static void
test_connection_values (void)
{
    static const char *const values[] = {
        "keep-alive",
        "Keep-Alive",
        "KEEP-ALIVE",
        "close",
        "Close",
        "CLOSE",
        "keep-alive, close",
        "close, keep-alive",
        "Keep-Alive, Upgrade",
        "upgrade",
        "keep-alivex",
        "keep-aliv",
        "keep_alive",
        "keep\ralive",
        "closed",
        "clos",
        "",
        "kEEP-aLIVE",
        "keep-alive,",
        "keep\r-alive",
    };
    static const SoupHTTPVersion versions[] = { SOUP_HTTP_1_0, SOUP_HTTP_1_1 };

    for (gsize v = 0; v < G_N_ELEMENTS (versions); v++) {
        for (gsize i = 0; i < G_N_ELEMENTS (values); i++) {
            HttpFraming framing = { 0 };
            gboolean expected = !soup_header_contains (values[i], "close")
                                && (versions[v] == SOUP_HTTP_1_1
                                    || soup_header_contains (values[i], "keep-alive"));
            g_assert_null (
                http_framing_from_fields (values[i], NULL, "2", versions[v], 200, FALSE, &framing));
            g_assert_cmpint (framing.keep_alive, ==, expected);
        }
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *path = g_strconcat ("/http-parse/rfc9112/", cases[i].name, NULL);
        g_test_add_data_func (path, &cases[i], test_case);
    }
    g_test_add_func ("/http-parse/bounds", test_bounds);
    g_test_add_func ("/http-parse/lazy-headers", test_lazy_headers);
    g_test_add_func ("/http-parse/content-length", test_content_length);
    g_test_add_func ("/http-parse/head-scan-words", test_head_scan_words);
    g_test_add_func ("/http-parse/connection-values", test_connection_values);
    return g_test_run ();
}
