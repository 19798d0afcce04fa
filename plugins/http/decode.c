/* SPDX-License-Identifier: MIT */
/*
 * The content-coding decoder (decode.h): a coded body, whole, in; the
 * decoded body, bounded, out.  The zlib stream is kept and reset between
 * bodies, so a warm decoder allocates for gzip and deflate only when an
 * output buffer grows (doubling from 4 KiB, so a user's buffers stay near
 * the size of its bodies); brotli has no reset, and zstd's reset does not
 * make a context new (zstd_body), so each costs one instance per body.
 * zstd's window is held to 8 MiB, the bound RFC 8878 sets for HTTP, so
 * that a frame cannot make the decoder allocate a window the size it
 * declares.
 */
#include "decode.h"

#include <brotli/decode.h>
#include <string.h>
#include <zlib.h>
#ifdef HTTP_HAVE_ZSTD
#include <zstd.h>
#endif

/* More layers than this in one Content-Encoding is no real server's. */
#define CODINGS_MAX 4
/* An output buffer's first room; after that it doubles, up to max_body. */
#define ROOM_FIRST 4096
/* Spare room worth writing into without growing first. */
#define ROOM_SPARE 1024
/* RFC 8878 §3.1.1.1.2: HTTP decoders need not go above 8 MiB. */
#define ZSTD_WINDOW_LOG_MAX 23
/* A scratch buffer stays allocated between bodies up to this size. */
#define HTTP_DECODE_SCRATCH_HELD (256 * 1024)

typedef enum {
    CODING_IDENTITY,
    CODING_GZIP,
    CODING_DEFLATE,
    CODING_BR,
    CODING_ZSTD,
    CODING_UNKNOWN,
} Coding;

struct _HttpDecoder {
    z_stream z;
    gboolean z_ready;
    GString *scratch[2]; /* between the layers of a body coded more than once */
};

void
http_decoder_free (HttpDecoder *decoder)
{
    if (decoder == NULL)
        return;
    if (decoder->z_ready)
        inflateEnd (&decoder->z);
    for (guint i = 0; i < G_N_ELEMENTS (decoder->scratch); i++)
        if (decoder->scratch[i] != NULL)
            g_string_free (decoder->scratch[i], TRUE);
    g_free (decoder);
}

const char *
http_decode_codings (void)
{
#ifdef HTTP_HAVE_ZSTD
    return "gzip, deflate, br, zstd";
#else
    return "gzip, deflate, br";
#endif
}

static Coding
coding_of (const char *name, gsize len)
{
    static const struct {
        const char *name;
        Coding coding;
    } known[] = {
        { "identity", CODING_IDENTITY },
        { "gzip", CODING_GZIP },
        { "x-gzip", CODING_GZIP },
        { "deflate", CODING_DEFLATE },
        { "br", CODING_BR },
        /* Known without libzstd too: such a build says it cannot, rather than pass it on. */
        { "zstd", CODING_ZSTD },
    };

    for (guint i = 0; i < G_N_ELEMENTS (known); i++)
        if (strlen (known[i].name) == len && g_ascii_strncasecmp (known[i].name, name, len) == 0)
            return known[i].coding;
    return CODING_UNKNOWN;
}

/* The list's codings other than identity, in the order they were applied; -1 when one is unknown.
 */
static gint
codings_parse (const char *encoding, Coding *out)
{
    gint n = 0;
    const char *p = encoding;

    if (encoding == NULL)
        return 0;
    while (*p != '\0') {
        const char *start, *end;
        Coding coding;

        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        start = p;
        while (*p != '\0' && *p != ',')
            p++;
        end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end == start)
            continue;
        coding = coding_of (start, (gsize)(end - start));
        if (coding == CODING_UNKNOWN)
            return -1;
        if (coding == CODING_IDENTITY)
            continue;
        if (n == CODINGS_MAX)
            return -1;
        out[n++] = coding;
    }
    return n;
}

gboolean
http_decode_applies (const char *encoding)
{
    Coding codings[CODINGS_MAX];

    return encoding != NULL && codings_parse (encoding, codings) > 0;
}

/* Room for at most one byte past @max_body, so that going over is seen; the write pointer. */
static guint8 *
room (GString *dst, guint64 max_body, gsize *size)
{
    gsize len = dst->len;
    guint64 left = max_body + 1 - len;
    gsize spare = dst->allocated_len > len + 1 ? dst->allocated_len - len - 1 : 0;
    gsize want = spare >= ROOM_SPARE ? spare : MAX (len, (gsize)ROOM_FIRST);

    *size = (gsize)MIN (left, (guint64)want);
    g_string_set_size (dst, len + *size);
    dst->len = len;
    return (guint8 *)dst->str + len;
}

static void
grown (GString *dst, gsize by)
{
    dst->len += by;
    dst->str[dst->len] = '\0';
}

static HttpDecodeResult
inflate_body (HttpDecoder *d, Coding coding, const GString *src, guint64 max_body, GString *dst,
              const char **message)
{
    const guint8 *in = (const guint8 *)src->str;
    gsize in_left = src->len;
    int bits = 15 + 16;
    int status;

    /* RFC 9110 says zlib; a raw deflate stream, as some servers send, is read as curl reads it. */
    if (coding == CODING_DEFLATE)
        bits = src->len >= 2 && (in[0] & 0x0f) == 8 && ((in[0] << 8) | in[1]) % 31 == 0 ? 15 : -15;
    if (!d->z_ready) {
        memset (&d->z, 0, sizeof d->z);
        if (inflateInit2 (&d->z, bits) != Z_OK) {
            *message = "out of memory for the content decoder";
            return HTTP_DECODE_BAD;
        }
        d->z_ready = TRUE;
    } else if (inflateReset2 (&d->z, bits) != Z_OK) {
        *message = "out of memory for the content decoder";
        return HTTP_DECODE_BAD;
    }
    for (;;) {
        gsize size;
        guint8 *out = room (dst, max_body, &size);
        gsize fed = MIN (in_left, (gsize)G_MAXUINT32 / 2);

        d->z.next_in = (Bytef *)in;
        d->z.avail_in = (uInt)fed;
        d->z.next_out = out;
        d->z.avail_out = (uInt)size;
        status = inflate (&d->z, Z_NO_FLUSH);
        in += fed - d->z.avail_in;
        in_left -= fed - d->z.avail_in;
        grown (dst, size - d->z.avail_out);
        if (dst->len > max_body) {
            *message = "decoded response body over max_body";
            return HTTP_DECODE_LIMIT;
        }
        if (status == Z_STREAM_END) {
            if (in_left == 0)
                return HTTP_DECODE_OK;
            /* gzip allows members one after another (RFC 1952 §2.2). */
            if (coding == CODING_GZIP && inflateReset (&d->z) == Z_OK)
                continue;
            *message = coding == CODING_GZIP ? "content coding gzip: data after the end"
                                             : "content coding deflate: data after the end";
            return HTTP_DECODE_BAD;
        }
        if (status == Z_OK || (status == Z_BUF_ERROR && d->z.avail_out == 0))
            continue;
        if (status == Z_BUF_ERROR && in_left == 0) {
            *message = coding == CODING_GZIP ? "content coding gzip: the body ends mid-stream"
                                             : "content coding deflate: the body ends mid-stream";
            return HTTP_DECODE_BAD;
        }
        *message = coding == CODING_GZIP ? "content coding gzip: corrupt data"
                                         : "content coding deflate: corrupt data";
        return HTTP_DECODE_BAD;
    }
}

static HttpDecodeResult
brotli_body (const GString *src, guint64 max_body, GString *dst, const char **message)
{
    BrotliDecoderState *state = BrotliDecoderCreateInstance (NULL, NULL, NULL);
    const uint8_t *in = (const uint8_t *)src->str;
    size_t in_left = src->len;
    HttpDecodeResult result = HTTP_DECODE_BAD;

    if (state == NULL) {
        *message = "out of memory for the content decoder";
        return HTTP_DECODE_BAD;
    }
    for (;;) {
        gsize size;
        uint8_t *out = room (dst, max_body, &size);
        size_t out_left = size;
        BrotliDecoderResult status
            = BrotliDecoderDecompressStream (state, &in_left, &in, &out_left, &out, NULL);

        grown (dst, size - out_left);
        if (dst->len > max_body) {
            *message = "decoded response body over max_body";
            result = HTTP_DECODE_LIMIT;
            break;
        }
        if (status == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
            continue;
        if (status == BROTLI_DECODER_RESULT_SUCCESS && in_left == 0)
            result = HTTP_DECODE_OK;
        else if (status == BROTLI_DECODER_RESULT_SUCCESS)
            *message = "content coding br: data after the end";
        else if (status == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
            *message = "content coding br: the body ends mid-stream";
        else
            *message = "content coding br: corrupt data";
        break;
    }
    BrotliDecoderDestroyInstance (state);
    return result;
}

#ifdef HTTP_HAVE_ZSTD
/*
 * A frame of RFC 8878 (or a skippable one) starts here.  libzstd as
 * Debian builds it also reads the formats of zstd before 1.0, which
 * HTTP's zstd is not: such a frame is corrupt data here, as it would be
 * to a browser.
 */
static gboolean
zstd_frame_starts (const ZSTD_inBuffer *in)
{
    const guint8 *p = (const guint8 *)in->src + in->pos;
    guint32 magic;

    if (in->size - in->pos < 4)
        return TRUE; /* too short for any frame: libzstd says it ends mid-stream */
    magic = (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
    return magic == ZSTD_MAGICNUMBER
           || (magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

static HttpDecodeResult
zstd_decode (ZSTD_DCtx *zstd, const GString *src, guint64 max_body, GString *dst,
             const char **message)
{
    ZSTD_inBuffer in = { src->str, src->len, 0 };
    size_t last = 1;
    gboolean full = FALSE;

    while (in.pos < in.size || full) {
        gsize size;
        guint8 *buffer;
        ZSTD_outBuffer out;

        /* At the body's start and after each frame's end. */
        if ((in.pos == 0 || last == 0) && in.pos < in.size && !zstd_frame_starts (&in)) {
            *message = "content coding zstd: corrupt data";
            return HTTP_DECODE_BAD;
        }
        buffer = room (dst, max_body, &size);
        out = (ZSTD_outBuffer){ buffer, size, 0 };
        last = ZSTD_decompressStream (zstd, &out, &in);
        if (ZSTD_isError (last)) {
            *message = "content coding zstd: corrupt data";
            return HTTP_DECODE_BAD;
        }
        grown (dst, out.pos);
        if (dst->len > max_body) {
            *message = "decoded response body over max_body";
            return HTTP_DECODE_LIMIT;
        }
        full = out.pos == size;
    }
    if (last != 0) {
        *message = "content coding zstd: the body ends mid-stream";
        return HTTP_DECODE_BAD;
    }
    return HTTP_DECODE_OK;
}

/*
 * A context per body, as brotli's: a libzstd context reset between bodies
 * (ZSTD_DCtx_reset, session and parameters) judged some bad bodies
 * otherwise than a new one does, after a good body too (fuzz-decode and
 * /http-rules/decode/seeds), so a body's outcome would depend on the
 * bodies before it.
 */
static HttpDecodeResult
zstd_body (const GString *src, guint64 max_body, GString *dst, const char **message)
{
    ZSTD_DCtx *zstd = ZSTD_createDCtx ();
    HttpDecodeResult result;

    if (zstd == NULL
        || ZSTD_isError (ZSTD_DCtx_setParameter (zstd, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX))) {
        ZSTD_freeDCtx (zstd);
        *message = "out of memory for the content decoder";
        return HTTP_DECODE_BAD;
    }
    result = zstd_decode (zstd, src, max_body, dst, message);
    ZSTD_freeDCtx (zstd);
    return result;
}
#endif

static HttpDecodeResult
layer (HttpDecoder *d, Coding coding, const GString *src, guint64 max_body, GString *dst,
       const char **message)
{
    g_string_truncate (dst, 0);
    switch (coding) {
    case CODING_GZIP:
    case CODING_DEFLATE:
        return inflate_body (d, coding, src, max_body, dst, message);
    case CODING_BR:
        return brotli_body (src, max_body, dst, message);
    case CODING_ZSTD:
#ifdef HTTP_HAVE_ZSTD
        return zstd_body (src, max_body, dst, message);
#else
        *message = "content coding zstd: this throng was built without libzstd";
        return HTTP_DECODE_UNSUPPORTED;
#endif
    default:
        g_assert_not_reached ();
    }
}

HttpDecodeResult
http_decode (HttpDecoder **decoder, const char *encoding, const GString *body, guint64 max_body,
             GString *out, const char **message)
{
    Coding codings[CODINGS_MAX];
    gint n = codings_parse (encoding, codings);
    const GString *src = body;
    HttpDecoder *d;
    HttpDecodeResult result = HTTP_DECODE_OK;

    g_string_truncate (out, 0);
    if (n <= 0 || body->len == 0) {
        if (body != out)
            g_string_append_len (out, body->str, (gssize)body->len);
        return HTTP_DECODE_OK;
    }
    if (*decoder == NULL)
        *decoder = g_new0 (HttpDecoder, 1);
    d = *decoder;
    /* The last coding listed was applied last: it comes off first. */
    for (gint i = n - 1; i >= 0; i--) {
        GString *dst;

        if (i == 0) {
            dst = out;
        } else {
            guint k = src == d->scratch[0] ? 1 : 0;
            if (d->scratch[k] == NULL)
                d->scratch[k] = g_string_sized_new (0);
            dst = d->scratch[k];
        }
        result = layer (d, codings[i], src, max_body, dst, message);
        if (result != HTTP_DECODE_OK)
            break;
        src = dst;
    }
    /* A large body once decoded in layers (or a bomb cut at max_body) is not held for the rest of the run. */
    for (guint k = 0; k < G_N_ELEMENTS (d->scratch); k++)
        if (d->scratch[k] != NULL && d->scratch[k]->allocated_len > HTTP_DECODE_SCRATCH_HELD) {
            g_string_free (d->scratch[k], TRUE);
            d->scratch[k] = NULL;
        }
    return result;
}
