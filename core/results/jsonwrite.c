/* SPDX-License-Identifier: MIT */
/*
 * JSON text written as it is built (jsonwrite-private.h).  The layout is
 * the one the json reporter has always written (docs/reporters.md shows
 * it): "name": value with one space when indented, none when compact, and
 * {} or [] for an empty container.
 */
#include "jsonwrite-private.h"

#include <math.h>
#include <string.h>

void
jsonwrite_init (JsonWrite *write, GString *out, gboolean pretty)
{
    memset (write, 0, sizeof *write);
    write->out = out;
    write->pretty = pretty;
}

static void
write_indent (JsonWrite *write, guint depth)
{
    if (!write->pretty)
        return;
    g_string_append_c (write->out, '\n');
    for (guint i = 0; i < depth; i++)
        g_string_append (write->out, "  ");
}

/* Before a value: a member's value follows its name; an array's element, a comma and a new line. */
static void
write_value (JsonWrite *write)
{
    if (write->after_name) {
        write->after_name = FALSE;
        return;
    }
    if (write->depth == 0)
        return;
    g_assert (write->array[write->depth]);
    if (write->filled[write->depth])
        g_string_append_c (write->out, ',');
    write->filled[write->depth] = TRUE;
    write_indent (write, write->depth);
}

static void
write_begin (JsonWrite *write, gboolean array)
{
    write_value (write);
    g_assert (write->depth + 1 < JSONWRITE_MAX_DEPTH);
    write->depth++;
    write->array[write->depth] = array;
    write->filled[write->depth] = FALSE;
    g_string_append_c (write->out, array ? '[' : '{');
}

static void
write_end (JsonWrite *write, gboolean array)
{
    g_assert (write->depth > 0 && write->array[write->depth] == array && !write->after_name);
    gboolean filled = write->filled[write->depth];

    write->depth--;
    if (filled)
        write_indent (write, write->depth);
    g_string_append_c (write->out, array ? ']' : '}');
}

void
jsonwrite_begin_object (JsonWrite *write)
{
    write_begin (write, FALSE);
}

void
jsonwrite_end_object (JsonWrite *write)
{
    write_end (write, FALSE);
}

void
jsonwrite_begin_array (JsonWrite *write)
{
    write_begin (write, TRUE);
}

void
jsonwrite_end_array (JsonWrite *write)
{
    write_end (write, TRUE);
}

void
jsonwrite_member (JsonWrite *write, const char *name)
{
    g_assert (write->depth > 0 && !write->array[write->depth] && !write->after_name);
    if (write->filled[write->depth])
        g_string_append_c (write->out, ',');
    write->filled[write->depth] = TRUE;
    write_indent (write, write->depth);
    jsonwrite_append_string (write->out, name);
    g_string_append (write->out, write->pretty ? ": " : ":");
    write->after_name = TRUE;
}

/* Two digits per division, no printf: a sample line is a dozen integers, at 100k lines/s. */
void
jsonwrite_append_int (GString *out, gint64 value)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char digits[24];
    char *end = digits + sizeof digits;
    char *p = end;
    guint64 v = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;

    while (v >= 100) {
        guint64 pair = (v % 100) * 2;
        v /= 100;
        *--p = pairs[pair + 1];
        *--p = pairs[pair];
    }
    if (v >= 10) {
        *--p = pairs[v * 2 + 1];
        *--p = pairs[v * 2];
    } else {
        *--p = (char) ('0' + v);
    }
    if (value < 0)
        *--p = '-';
    g_string_append_len (out, p, end - p);
}

void
jsonwrite_int (JsonWrite *write, gint64 value)
{
    write_value (write);
    jsonwrite_append_int (write->out, value);
}

/*
 * Doubles with 15 significant digits, the most that survive a round trip
 * through text unchanged (17 print 0.1 as 0.10000000000000001).  A whole
 * number keeps a ".0" so that it still reads as a number with a fraction.
 */
void
jsonwrite_double (JsonWrite *write, gdouble value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];

    write_value (write);
    if (!isfinite (value))
        value = 0;
    g_ascii_formatd (text, sizeof text, "%.15g", value);
    g_string_append (write->out, text);
    if (strpbrk (text, ".eE") == NULL)
        g_string_append (write->out, ".0");
}

void
jsonwrite_bool (JsonWrite *write, gboolean value)
{
    write_value (write);
    g_string_append (write->out, value ? "true" : "false");
}

void
jsonwrite_string (JsonWrite *write, const char *value)
{
    write_value (write);
    jsonwrite_append_string (write->out, value);
}

void
jsonwrite_null (JsonWrite *write)
{
    write_value (write);
    g_string_append (write->out, "null");
}

/* A JSON string; invalid UTF-8 (a peer's reason phrase) is repaired rather than passed on. */
void
jsonwrite_append_string (GString *out, const char *text)
{
    if (text == NULL) {
        g_string_append (out, "null");
        return;
    }
    g_autofree char *valid = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
    if (valid != NULL)
        text = valid;

    g_string_append_c (out, '"');
    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        switch (*p) {
        case '"':
            g_string_append (out, "\\\"");
            break;
        case '\\':
            g_string_append (out, "\\\\");
            break;
        case '\n':
            g_string_append (out, "\\n");
            break;
        case '\r':
            g_string_append (out, "\\r");
            break;
        case '\t':
            g_string_append (out, "\\t");
            break;
        default:
            if (*p < 0x20)
                g_string_append_printf (out, "\\u%04x", *p);
            else
                g_string_append_c (out, (char) *p);
        }
    }
    g_string_append_c (out, '"');
}

void
jsonwrite_member_int (JsonWrite *write, const char *name, gint64 value)
{
    jsonwrite_member (write, name);
    jsonwrite_int (write, value);
}

void
jsonwrite_member_double (JsonWrite *write, const char *name, gdouble value)
{
    jsonwrite_member (write, name);
    jsonwrite_double (write, value);
}

void
jsonwrite_member_bool (JsonWrite *write, const char *name, gboolean value)
{
    jsonwrite_member (write, name);
    jsonwrite_bool (write, value);
}

void
jsonwrite_member_string (JsonWrite *write, const char *name, const char *value)
{
    jsonwrite_member (write, name);
    jsonwrite_string (write, value);
}
