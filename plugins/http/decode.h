/* SPDX-License-Identifier: MIT */
/*
 * Content codings (RFC 9110 §8.4), both transports' one decoder: a final
 * response's body as it came off the wire, with its Content-Encoding, made
 * into what checks and extractors read.  gzip (and x-gzip), deflate (zlib,
 * or raw deflate as curl and browsers accept), br, and zstd when the build
 * found libzstd (without it, a zstd body a rule reads fails the step with
 * class `other`, never reaches the checks coded); identity is no coding.  A body is decoded only when a
 * rule or --http-debug kept it (http_journey_end), so a step that does not
 * read its body never pays for this.  Every layer's output is bounded by
 * the step's max_body, so a small body that inflates without end (a
 * decompression bomb) costs at most max_body of memory.
 */
#pragma once

#include <glib.h>

typedef enum {
    HTTP_DECODE_OK,    /* @out holds the decoded body (or the body itself: no coding) */
    HTTP_DECODE_BAD,   /* the body is not what its coding says: class `protocol` */
    HTTP_DECODE_LIMIT, /* decoded, it would exceed max_body: class `body-limit` */
    HTTP_DECODE_UNSUPPORTED, /* zstd in a build without libzstd: class `other` */
} HttpDecodeResult;

/* Decoder state, made with the first coded body and reused after (journey.c keeps one per worker). */
typedef struct _HttpDecoder HttpDecoder;

void http_decoder_free (HttpDecoder *decoder);

/*
 * Whether @encoding (a Content-Encoding value, NULL when absent) names
 * codings this decoder applies: FALSE for no field, identity only, or a
 * list with a coding it does not know (then the body is left as it came,
 * as libsoup and curl leave it).
 */
gboolean http_decode_applies (const char *encoding);

/*
 * Decodes @body (the wire bytes) by @encoding, innermost coding last as
 * RFC 9110 orders them, into @out (truncated first).  @decoder is made on
 * first use.  @message is a static description when the result is not OK.
 * An empty body decodes to an empty one, whatever its coding says (a
 * HEAD's or a 304's).
 */
HttpDecodeResult http_decode (HttpDecoder **decoder, const char *encoding, const GString *body,
                              guint64 max_body, GString *out, const char **message);

/* The codings this build decodes, as docs and --version name them: "gzip, deflate, br[, zstd]". */
const char *http_decode_codings (void);
