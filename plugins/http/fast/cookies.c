/* SPDX-License-Identifier: MIT */
/*
 * Cookies of the fast transport (cookies.h), kept in libsoup's jar so
 * that both transports apply RFC 6265 alike: the jar is made by the first
 * Set-Cookie, and a request pays for cookies only once it has one.
 */
#include "cookies.h"

#include <string.h>

void
fast_store_cookies (FastUser *u)
{
    GUri *uri = http_hop_uri (&u->hop, u->step);
    SoupMessageHeadersIter iter;
    const char *name, *value;

    /* cookie_jar: off: a server's cookies are not kept, nor sent back. */
    if (u->cookie_jar == HTTP_COOKIE_JAR_OFF)
        return;
    if (u->jar == NULL)
        u->jar = http_cookie_jar_new ();
    soup_message_headers_iter_init (&iter, fast_response_headers (&u->response));
    while (soup_message_headers_iter_next (&iter, &name, &value)) {
        if (g_ascii_strcasecmp (name, "Set-Cookie") == 0)
            soup_cookie_jar_set_cookie (u->jar, uri, value);
    }
}

/* Where the head in @out has a Cookie field (the step's own one): where its value ends, or -1. */
static gssize
cookie_field_end (const GString *out)
{
    for (const char *line = strstr (out->str, "\r\n"); line != NULL;
         line = strstr (line + 2, "\r\n")) {
        if (g_ascii_strncasecmp (line + 2, "Cookie:", 7) == 0) {
            const char *end = strstr (line + 2, "\r\n");
            return end != NULL ? end - out->str : -1;
        }
    }
    return -1;
}

/*
 * A request carries one Cookie field (RFC 6265 §5.4): when the step
 * sends its own, the jar's cookies join it after "; ", as the soup
 * transport's jar does; otherwise they make a Cookie line.
 */
gboolean
fast_append_cookies (FastUser *u, GUri *uri)
{
    char *cookies;
    gssize own;

    if (u->jar == NULL)
        return FALSE;
    cookies = soup_cookie_jar_get_cookies (u->jar, uri, TRUE);
    if (cookies == NULL)
        return FALSE;
    own = cookie_field_end (u->out);
    if (own >= 0) {
        g_string_insert (u->out, own, cookies);
        g_string_insert (u->out, own, "; ");
    } else {
        g_string_append (u->out, "Cookie: ");
        g_string_append (u->out, cookies);
        g_string_append (u->out, "\r\n");
    }
    g_free (cookies);
    return TRUE;
}
