/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the content-coding decoder (plugins/http/decode.c),
 * which reads what any server sends.  One input is a coding byte (an
 * index into codings[]), a flags byte (bit 0: max_body is 1000 bytes,
 * else 1 MiB), then the coded body.  The body is decoded twice with the
 * same decoder, then once with a fresh one: all three must agree (a
 * decoder reused across bodies keeps no state from the last: the same
 * result, message and, when OK, body), an OK result is within max_body, a LIMIT one stopped one
 * byte past it at most, and a result that is not OK has a message.
 */
#include <stdint.h>
#include <string.h>

#include "../../plugins/http/decode.c"

#include "fuzz-glib.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char *const codings[] = {
    "gzip",     "x-gzip",        "deflate",        "br", "zstd", "gzip, br",
    "compress", "deflate, gzip", "identity, gzip",
};

static HttpDecoder *reused;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    fuzz_glib_init ();
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    HttpDecoder *fresh = NULL;
    GString *body, *out[3];
    HttpDecodeResult result[3];
    const char *message[3] = { NULL, NULL, NULL };
    const char *encoding;
    guint64 max_body;

    if (size < 2)
        return 0;
    encoding = codings[data[0] % G_N_ELEMENTS (codings)];
    max_body = (data[1] & 1) ? 1000 : 1024 * 1024;
    body = g_string_new_len ((const char *)data + 2, (gssize)(size - 2));
    for (guint i = 0; i < 3; i++) {
        out[i] = g_string_new (NULL);
        result[i]
            = http_decode (i < 2 ? &reused : &fresh, encoding, body, max_body, out[i], &message[i]);
        if (result[i] == HTTP_DECODE_OK)
            g_assert_cmpuint (out[i]->len, <=, max_body);
        else
            g_assert_nonnull (message[i]);
        /* An inner layer may be the one that went past: every layer is bounded, out included. */
        if (result[i] == HTTP_DECODE_LIMIT)
            g_assert_cmpuint (out[i]->len, <=, max_body + 1);
    }
    for (guint i = 1; i < 3; i++) {
        g_assert_cmpint (result[i], ==, result[0]);
        g_assert_cmpstr (message[i], ==, message[0]);
        /* What a failed decode left in @out is nobody's (journey.c shows the wire bytes). */
        if (result[0] != HTTP_DECODE_OK)
            continue;
        g_assert_cmpuint (out[i]->len, ==, out[0]->len);
        g_assert_true (memcmp (out[i]->str, out[0]->str, out[0]->len) == 0);
    }
    for (guint i = 0; i < 3; i++)
        g_string_free (out[i], TRUE);
    g_string_free (body, TRUE);
    http_decoder_free (fresh);
    return 0;
}
