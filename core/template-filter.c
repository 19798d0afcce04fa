/* SPDX-License-Identifier: MIT */
/*
 * The filters a substitution may name (template-filter-private.h):
 * percent-encoding, JSON string escaping and base64, each appending to the
 * caller's buffer without an intermediate copy.
 */
#include "template-filter-private.h"

const char *const throng_template_filter_names[] = { "urlencode", "json", "base64", NULL };

static void
append_urlencoded (GString *out, const char *s, gsize length)
{
    static const char hex[] = "0123456789ABCDEF";

    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar) s[i];
        if (g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.' || c == '~') {
            g_string_append_c (out, (char) c);
        } else {
            g_string_append_c (out, '%');
            g_string_append_c (out, hex[c >> 4]);
            g_string_append_c (out, hex[c & 15]);
        }
    }
}

/* JSON string escaping, without the quotes: the plan writes them ('"${data.name | json}"'). */
static void
append_json (GString *out, const char *s, gsize length)
{
    static const char hex[] = "0123456789abcdef";

    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar) s[i];
        switch (c) {
        case '"':
            g_string_append_len (out, "\\\"", 2);
            break;
        case '\\':
            g_string_append_len (out, "\\\\", 2);
            break;
        case '\n':
            g_string_append_len (out, "\\n", 2);
            break;
        case '\r':
            g_string_append_len (out, "\\r", 2);
            break;
        case '\t':
            g_string_append_len (out, "\\t", 2);
            break;
        case '\b':
            g_string_append_len (out, "\\b", 2);
            break;
        case '\f':
            g_string_append_len (out, "\\f", 2);
            break;
        default:
            if (c < 0x20) {
                g_string_append_len (out, "\\u00", 4);
                g_string_append_c (out, hex[c >> 4]);
                g_string_append_c (out, hex[c & 15]);
            } else {
                g_string_append_c (out, (char) c);
            }
        }
    }
}

static void
append_base64 (GString *out, const char *s, gsize length)
{
    /* in chunks through a stack buffer: (192 / 3 + 1) * 4 + 4 bytes suffice per step */
    char chunk[272];
    gint state = 0, save = 0;

    while (length > 0) {
        gsize n = MIN (length, 192);
        gsize written = g_base64_encode_step ((const guchar *) s, n, FALSE, chunk, &state, &save);
        g_string_append_len (out, chunk, written);
        s += n;
        length -= n;
    }
    g_string_append_len (out, chunk, g_base64_encode_close (FALSE, chunk, &state, &save));
}

void
throng_template_filter_append (GString *out, ThrongTemplateFilter filter, const char *s, gsize length)
{
    switch (filter) {
    case THRONG_TEMPLATE_FILTER_NONE:
        throng_template_append_bytes (out, s, length);
        break;
    case THRONG_TEMPLATE_FILTER_URLENCODE:
        append_urlencoded (out, s, length);
        break;
    case THRONG_TEMPLATE_FILTER_JSON:
        append_json (out, s, length);
        break;
    case THRONG_TEMPLATE_FILTER_BASE64:
        append_base64 (out, s, length);
        break;
    }
}
