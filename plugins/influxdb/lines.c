/* SPDX-License-Identifier: MIT */
/*
 * InfluxDB line protocol, as its documentation specifies it: a
 * measurement, comma-separated tags, a space, comma-separated fields, a
 * space and a timestamp.  Integers carry an `i`; strings in tags and keys
 * escape commas, equals signs and spaces with a backslash.
 */
#include <string.h>

#include "influxdb.h"

static void
append_escaped (GString *out, const char *text, const char *special)
{
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\n' || *p == '\r') {
            /* A newline ends a line whatever its escaping: never write one. */
            g_string_append_c (out, ' ');
            continue;
        }
        if (*p == '\\' || strchr (special, *p) != NULL)
            g_string_append_c (out, '\\');
        g_string_append_c (out, *p);
    }
}

void
lines_append_key (GString *out, const char *text)
{
    append_escaped (out, text, ",= ");
}

void
lines_append_measurement (GString *out, const char *text)
{
    append_escaped (out, text, ", ");
}

void
lines_append_tag (GString *out, const char *key, const char *value)
{
    if (value == NULL || *value == '\0')
        return;
    g_string_append_c (out, ',');
    lines_append_key (out, key);
    g_string_append_c (out, '=');
    lines_append_key (out, value);
}

static void
append_field_key (GString *out, gboolean *first, const char *key)
{
    g_string_append_c (out, *first ? ' ' : ',');
    *first = FALSE;
    lines_append_key (out, key);
    g_string_append_c (out, '=');
}

void
lines_append_int (GString *out, gboolean *first, const char *key, guint64 value)
{
    append_field_key (out, first, key);
    g_string_append_printf (out, "%" G_GUINT64_FORMAT "i", value);
}

void
lines_append_float (GString *out, gboolean *first, const char *key, gdouble value,
                    guint decimals)
{
    char buffer[G_ASCII_DTOSTR_BUF_SIZE];
    char format[8];

    g_snprintf (format, sizeof format, "%%.%uf", MIN (decimals, 9));
    append_field_key (out, first, key);
    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, format, value));
}

void
lines_append_bool (GString *out, gboolean *first, const char *key, gboolean value)
{
    append_field_key (out, first, key);
    g_string_append (out, value ? "true" : "false");
}

void
lines_end (GString *out, gint64 wall_us)
{
    g_string_append_printf (out, " %" G_GINT64_FORMAT "\n", wall_us);
}
