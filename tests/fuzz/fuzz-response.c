/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the fast transport's response parser and chunked
 * decoder (plugins/http/fast/response.c, parse.c, and the framing rule
 * of plugins/http/framing.c).  One input is a flags byte, then a byte
 * stream of one or more responses, parsed one after another as a
 * pipelined connection would.  The stream is fed whole, then in a
 * seeded-random chunking (the seed drawn from the input, pieces of 1 to
 * 64 bytes, sometimes larger), then one byte at a time (short inputs):
 * each way must give the same outcomes — how each response ended, its
 * class, message, status, body bytes, framing and, unless it was refused,
 * where it ended (a refusal ends the connection wherever it stopped).
 * The whole stream is also parsed with every head read by libsoup alone
 * (FastResponse.soup_only), as before head.c: the strict reader must give
 * the same outcomes, cookies included, and whatever head it accepts
 * libsoup must parse when the headers are asked for.  A difference, a crash, a sanitizer report or a GLib warning is a bug.
 *
 * Flags: bit 0 the requests are HEAD; bit 1 max_body is 100 bytes (else
 * 64 MiB); bit 2 the server closes after the stream.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/http/framing.c"
#include "../../plugins/http/chunked.c"
#include "../../plugins/http/fast/parse.c"
#include "../../plugins/http/fast/head.c"
#include "../../plugins/http/fast/response.c"

#include "fuzz-glib.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define MAX_RESPONSES 64
/* Inputs up to this long are also fed one byte at a time. */
#define BYTEWISE_MAX 4096

typedef struct {
    int result; /* FastResponseResult; MORE: the stream ended inside it */
    ThrongErrorClass klass;
    const char *message;
    guint status;
    guint64 body;
    int framing; /* HttpFramingKind, once a head was read; -1 before */
    gboolean keep_alive;
    gboolean set_cookie;
    gsize end; /* offset in the stream where it ended; not compared after a refusal */
} Outcome;

typedef struct {
    Outcome outcomes[MAX_RESPONSES];
    guint n;
} Run;

static FastResponse parser;

static void
record (Run *run, FastResponseResult result, gsize end)
{
    Outcome *o = &run->outcomes[run->n++];

    o->result = result;
    o->klass = result == FAST_RESPONSE_ERROR ? parser.error_class : THRONG_ERROR_NONE;
    o->message = result == FAST_RESPONSE_ERROR ? parser.message : NULL;
    o->status = parser.status;
    o->body = parser.body_bytes;
    o->framing = parser.status != 0 ? (int)parser.framing.kind : -1;
    o->keep_alive = parser.status != 0 && parser.framing.keep_alive;
    o->set_cookie = parser.status != 0 && parser.set_cookie;
    o->end = end;
}

/* Feeds @stream in pieces ending at @cuts (the last is @len); see the top of the file. */
static void
run_stream (const guint8 *stream, gsize len, const gsize *cuts, gsize n_cuts, gboolean head_only,
            guint64 max_body, gboolean eof, Run *run)
{
    gsize from = 0;

    run->n = 0;
    fast_response_start (&parser, head_only, max_body);
    for (gsize i = 0; i < n_cuts; i++) {
        const guint8 *p = stream + from;
        gsize left = cuts[i] - from;

        g_assert (cuts[i] >= from && cuts[i] <= len);
        while (run->n < MAX_RESPONSES) {
            gsize used = 0;
            FastResponseResult result = fast_response_feed (&parser, p, left, &used);

            g_assert (used <= left);
            p += used;
            left -= used;
            if (result == FAST_RESPONSE_HEAD) {
                g_assert (parser.status >= 100 && parser.status <= 599);
                /* The headers head.c left to libsoup parse, and agree on cookies. */
                g_assert (parser.set_cookie
                          == (soup_message_headers_get_one (fast_response_headers (&parser),
                                                            "Set-Cookie")
                              != NULL));
                continue;
            }
            if (result == FAST_RESPONSE_MORE) {
                g_assert (left == 0);
                break;
            }
            if (result == FAST_RESPONSE_DONE)
                g_assert (parser.body_bytes <= max_body);
            record (run, result, (gsize)(p - stream));
            if (result == FAST_RESPONSE_ERROR)
                return;
            /* The next response of a pipelined stream starts where this one ended. */
            fast_response_start (&parser, head_only, max_body);
            if (left == 0)
                break;
        }
        if (run->n == MAX_RESPONSES)
            return;
        from = cuts[i];
    }
    if (eof) {
        FastResponseResult result = fast_response_eof (&parser);
        g_assert (result != FAST_RESPONSE_MORE && result != FAST_RESPONSE_HEAD);
        record (run, result, len);
    } else {
        record (run, FAST_RESPONSE_MORE, len);
    }
}

static void
assert_same (const Run *a, const Run *b, const char *how)
{
    if (a->n != b->n)
        g_error ("%s: %u responses, whole: %u", how, b->n, a->n);
    for (guint i = 0; i < a->n; i++) {
        const Outcome *x = &a->outcomes[i], *y = &b->outcomes[i];
        if (x->result != y->result || x->klass != y->klass || x->message != y->message
            || x->status != y->status || x->body != y->body || x->framing != y->framing
            || x->keep_alive != y->keep_alive || x->set_cookie != y->set_cookie
            || (x->result != FAST_RESPONSE_ERROR && x->end != y->end))
            g_error ("%s: response %u differs: result %d/%d class %d/%d message %s/%s status "
                     "%u/%u body %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " end %zu/%zu",
                     how, i, x->result, y->result, x->klass, y->klass, x->message, y->message,
                     x->status, y->status, x->body, y->body, x->end, y->end);
    }
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    fuzz_glib_init ();
    fast_response_init (&parser);
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static Run whole, pieces, soup;
    const guint8 *stream;
    gsize len;
    gboolean head_only, eof;
    guint64 max_body;
    guint32 seed = 2166136261u;
    GRand *rand;
    gsize *cuts;
    gsize n_cuts = 0;

    if (size < 1)
        return 0;
    head_only = data[0] & 1;
    max_body = data[0] & 2 ? 100 : 64 * 1024 * 1024;
    eof = (data[0] & 4) != 0;
    stream = data + 1;
    len = size - 1;

    run_stream (stream, len, &len, 1, head_only, max_body, eof, &whole);

    /* head.c's simple heads against libsoup's reading of the same bytes. */
    parser.soup_only = TRUE;
    run_stream (stream, len, &len, 1, head_only, max_body, eof, &soup);
    parser.soup_only = FALSE;
    assert_same (&soup, &whole, "head.c against libsoup");

    /* FNV-1a of the input: the same input is always chunked the same way. */
    for (gsize i = 0; i < size; i++)
        seed = (seed ^ data[i]) * 16777619u;
    rand = g_rand_new_with_seed (seed);
    cuts = g_new (gsize, len + 1);
    for (gsize at = 0; at < len;) {
        gsize piece = g_rand_int_range (rand, 0, 8) == 0 ? (gsize)g_rand_int_range (rand, 1, 4096)
                                                         : (gsize)g_rand_int_range (rand, 1, 65);
        at = MIN (at + piece, len);
        cuts[n_cuts++] = at;
    }
    g_rand_free (rand);
    if (n_cuts == 0)
        cuts[n_cuts++] = 0;
    run_stream (stream, len, cuts, n_cuts, head_only, max_body, eof, &pieces);
    assert_same (&whole, &pieces, "random chunking");

    if (len > 1 && len <= BYTEWISE_MAX) {
        for (gsize i = 0; i < len; i++)
            cuts[i] = i + 1;
        run_stream (stream, len, cuts, len, head_only, max_body, eof, &pieces);
        assert_same (&whole, &pieces, "byte by byte");
    }
    g_free (cuts);
    return 0;
}
