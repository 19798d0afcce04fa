/* SPDX-License-Identifier: MIT */
/*
 * The values a template makes up as it expands (`${uuid}`, `${time.iso}`,
 * `${last.*}`), written into the caller's buffer: nothing allocated per
 * request.
 */
#include "template-private.h"

#include <string.h>
#include <time.h>

gsize
throng_template_format_uuid (char *buffer, GRand *rand)
{
    static const char hex[] = "0123456789abcdef";
    guint8 bytes[16];
    gsize length = 0;

    for (guint i = 0; i < 4; i++) {
        guint32 word = g_rand_int (rand);
        memcpy (bytes + 4 * i, &word, 4);
    }
    bytes[6] = (guint8) ((bytes[6] & 0x0f) | 0x40); /* version 4 */
    bytes[8] = (guint8) ((bytes[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    for (guint i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buffer[length++] = '-';
        buffer[length++] = hex[bytes[i] >> 4];
        buffer[length++] = hex[bytes[i] & 15];
    }
    return length;
}

gsize
throng_template_format_iso (char *buffer, gsize size)
{
    gint64 now = g_get_real_time ();
    time_t seconds = (time_t) (now / G_USEC_PER_SEC);
    struct tm tm;

    gmtime_r (&seconds, &tm);
    gsize length = strftime (buffer, size, "%Y-%m-%dT%H:%M:%S", &tm);
    return length + (gsize) g_snprintf (buffer + length, size - length, ".%03dZ",
                                        (int) (now % G_USEC_PER_SEC / 1000));
}

gssize
throng_template_format_last (const ThrongUserVars *vars, ThrongLastValue which, char *buffer,
                             gsize size)
{
    gint64 us;

    /* The status is 0 before the iteration's first request, as a condition reads it. */
    if (which == THRONG_LAST_STATUS)
        return g_snprintf (buffer, size, "%d", (int) vars->last_status);
    if (vars->last_elapsed_us < 0)
        return -1;
    switch (which) {
    case THRONG_LAST_DURATION_MS:
        us = vars->last_elapsed_us;
        break;
    case THRONG_LAST_TTFB_MS:
        us = vars->last_latency_us > 0 ? vars->last_latency_us : -1;
        break;
    case THRONG_LAST_CONNECT_MS:
        us = vars->last_connect_us;
        break;
    default:
        us = vars->last_tls_us;
        break;
    }
    if (us < 0)
        return -1;
    return g_snprintf (buffer, size, "%" G_GINT64_FORMAT ".%03d", us / 1000, (int) (us % 1000));
}
