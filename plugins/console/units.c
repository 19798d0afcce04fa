/* SPDX-License-Identifier: MIT */
/*
 * Human units for the console: durations in µs/ms/s and bytes in B/kB/MB/GB,
 * each with three significant digits, the precision a histogram with 1%
 * error can honestly claim.
 */
#include "style.h"

/* Three significant digits of @value (< 999.5), with @unit appended. */
static char *
console_format_3 (char *buf, gdouble value, const char *unit)
{
    if (value < 9.995)
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.2f%s", value, unit);
    else if (value < 99.95)
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.1f%s", value, unit);
    else
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0f%s", value, unit);
    return buf;
}

char *
console_format_duration (char *buf, gdouble us)
{
    if (us < 0)
        us = 0;
    /* Whole microseconds are exact; "7µs" reads better than "7.00µs". */
    if (us < 999.5 && us == (gint64) us) {
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0fµs", us);
        return buf;
    }
    if (us < 999.5)
        return console_format_3 (buf, us, "µs");
    if (us < 999.5e3)
        return console_format_3 (buf, us / 1e3, "ms");
    if (us < 999.5e6)
        return console_format_3 (buf, us / 1e6, "s");
    g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0fs", us / 1e6);
    return buf;
}

char *
console_format_bytes (char *buf, gdouble bytes)
{
    static const char *const units[] = { " kB", " MB", " GB", " TB" };

    if (bytes < 999.5) {
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0f B", bytes < 0 ? 0 : bytes);
        return buf;
    }
    gdouble value = bytes / 1e3;
    gsize i = 0;
    while (value >= 999.5 && i + 1 < G_N_ELEMENTS (units)) {
        value /= 1e3;
        i++;
    }
    if (value >= 999.5) {
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0f%s", value, units[i]);
        return buf;
    }
    return console_format_3 (buf, value, units[i]);
}

char *
console_format_number (char *buf, gdouble value)
{
    if (value < 0)
        value = 0;
    if (value >= 999.5 || value == (gint64) value) {
        g_snprintf (buf, CONSOLE_UNIT_LEN, "%.0f", value);
        return buf;
    }
    return console_format_3 (buf, value, "");
}

char *
console_format_rate (char *buf, gdouble per_second)
{
    char number[CONSOLE_UNIT_LEN];

    g_snprintf (buf, CONSOLE_UNIT_LEN, "%s/s", console_format_number (number, per_second));
    return buf;
}
