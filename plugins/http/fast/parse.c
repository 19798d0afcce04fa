/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 framing for the fast transport (parse.h): the request
 * target, and where a response head ends.
 */
#include "parse.h"

#include <string.h>

char *
fast_uri_target (GUri *uri)
{
    const char *path = g_uri_get_path (uri);
    const char *query = g_uri_get_query (uri);

    if (path == NULL || path[0] == '\0')
        path = "/";
    if (query != NULL)
        return g_strconcat (path, "?", query, NULL);
    return g_strdup (path);
}

gsize
fast_head_end (const guint8 *buf, gsize len, gsize from)
{
    /* Restart 3 bytes back: the terminator may straddle two reads. */
    gsize i = from > 3 ? from - 3 : 0;

    for (; i < len; i++) {
        const guint8 *nl = memchr (buf + i, '\n', len - i);
        if (nl == NULL)
            return 0;
        i = nl - buf;
        /* "\n\n" or "\n\r\n" after this LF ends the head. */
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}
