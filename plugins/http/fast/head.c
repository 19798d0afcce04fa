/* SPDX-License-Identifier: MIT */
/*
 * The strict response-head reader (head.h).  One pass over the bytes
 * with a class table; a field's name is compared only when its length
 * matches one of the four names asked for.  Values are trimmed of blanks
 * as libsoup trims them.
 */
#include "head.h"

#include <string.h>

enum {
    C_CTL = 0,   /* controls (but HTAB), DEL, bytes past ASCII: not simple */
    C_TCHAR = 1, /* a token's byte (RFC 9110 §5.6.2) */
    C_VCHAR = 2, /* printable, not a token's (separators) */
    C_BLANK = 3, /* SP, HTAB */
};

static guint8 byte_class[256];

static void
classes_init (void)
{
    for (guint c = 0x21; c < 0x7f; c++)
        byte_class[c] = C_VCHAR;
    for (const char *p = "!#$%&'*+-.^_`|~"; *p != '\0'; p++)
        byte_class[(guint8)*p] = C_TCHAR;
    for (guint c = '0'; c <= '9'; c++)
        byte_class[c] = C_TCHAR;
    for (guint c = 'a'; c <= 'z'; c++)
        byte_class[c] = byte_class[c - 'a' + 'A'] = C_TCHAR;
    byte_class[' '] = byte_class['\t'] = C_BLANK;
}

/*
 * @name (tchars only) is @lower whatever its case.  Setting bit 5 lowers
 * a letter and leaves every other tchar, and no tchar but a letter's
 * capital becomes a lower-case letter, so no library call per field.
 */
static gboolean
name_is (const guint8 *name, gsize len, const char *lower, gsize lower_len)
{
    const guint64 bit5 = G_GUINT64_CONSTANT (0x2020202020202020);
    gsize i = 0;

    if (len != lower_len)
        return FALSE;
    /* Eight bytes a compare: the names asked for are 10 to 17 bytes. */
    for (; i + 8 <= len; i += 8) {
        guint64 a, b;
        memcpy (&a, name + i, sizeof a);
        memcpy (&b, lower + i, sizeof b);
        if ((a | bit5) != b)
            return FALSE;
    }
    for (; i < len; i++)
        if ((name[i] | 0x20) != (guint8)lower[i])
            return FALSE;
    return TRUE;
}

/* Notes one of the framing fields; FALSE when it was already seen (libsoup joins repeats). */
static gboolean
note (FastHeadField *field, gsize offset, gsize length)
{
    if (field->offset != 0)
        return FALSE;
    field->offset = (guint16)offset;
    field->length = (guint16)length;
    return TRUE;
}

/*
 * Skips printable bytes (and blanks) from @p, eight at a time: a word
 * goes by whole when none of its bytes is under 0x20 or over 0x7e (the
 * tests are exact, Anderson's "bit twiddling hacks" hasless/hasmore); a
 * word with one (the line's CR, a HTAB, anything else) goes byte by byte
 * through the class table, which stays the one rule.  Values are most of
 * a head's bytes.
 */
static inline const guint8 *
skip_text (const guint8 *p, const guint8 *end)
{
    const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
    const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);

    while (end - p >= 8) {
        guint64 w;
        memcpy (&w, p, sizeof w);
        if ((((w - ones * 0x20) & ~w) | ((w + ones) | w)) & highs)
            break;
        p += 8;
    }
    /* No bound needed: the head's last byte is its LF, a control byte. */
    while (byte_class[*p] != C_CTL)
        p++;
    return p;
}

gboolean
fast_head_scan (const guint8 *head, gsize len, FastHead *out)
{
    static gsize initialized;
    const guint8 *p = head, *end = head + len;

    if (g_once_init_enter (&initialized)) {
        classes_init ();
        g_once_init_leave (&initialized, 1);
    }
    /* A head ends with its empty line, so with an LF: the loops below stop
     * at that control byte without a bound check per byte. */
    if (len > G_MAXUINT16 || len == 0 || head[len - 1] != '\n')
        return FALSE;
    memset (out, 0, sizeof *out);

    /* "HTTP/1.x NNN reason\r\n" */
    if (len < 14 || memcmp (p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1') || p[8] != ' '
        || p[9] < '1' || p[9] > '5' || !g_ascii_isdigit (p[10]) || !g_ascii_isdigit (p[11])
        || p[12] != ' ')
        return FALSE;
    out->version = p[7] == '1' ? SOUP_HTTP_1_1 : SOUP_HTTP_1_0;
    out->status = (guint)(p[9] - '0') * 100 + (guint)(p[10] - '0') * 10 + (guint)(p[11] - '0');
    p += 13;
    p = skip_text (p, end);
    if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
        return FALSE;
    p += 2;

    for (;;) {
        const guint8 *name = p, *value, *value_end;
        gsize name_len;

        if (end - p < 2)
            return FALSE;
        if (p[0] == '\r' && p[1] == '\n')
            return p + 2 == end;
        while (byte_class[*p] == C_TCHAR)
            p++;
        name_len = (gsize)(p - name);
        if (name_len == 0 || *p != ':')
            return FALSE;
        p++;
        while (byte_class[*p] == C_BLANK)
            p++;
        value = p;
        p = skip_text (p, end);
        value_end = p;
        while (value_end > value && byte_class[value_end[-1]] == C_BLANK)
            value_end--;
        /* CRLF, and the next line is not a continuation (obs-fold: libsoup joins it). */
        if (end - p < 3 || p[0] != '\r' || p[1] != '\n' || byte_class[p[2]] == C_BLANK)
            return FALSE;
        p += 2;

        switch (name_len) {
        case 10:
            if (name_is (name, name_len, "connection", 10)) {
                if (!note (&out->connection, value - head, value_end - value))
                    return FALSE;
            } else if (name_is (name, name_len, "set-cookie", 10)) {
                out->set_cookie = TRUE;
            }
            break;
        case 14:
            if (name_is (name, name_len, "content-length", 14)
                && !note (&out->content_length, value - head, value_end - value))
                return FALSE;
            break;
        case 16:
            if (name_is (name, name_len, "content-encoding", 16))
                out->coded = TRUE;
            break;
        case 17:
            if (name_is (name, name_len, "transfer-encoding", 17)
                && !note (&out->transfer_encoding, value - head, value_end - value))
                return FALSE;
            break;
        default:
            break;
        }
    }
}
