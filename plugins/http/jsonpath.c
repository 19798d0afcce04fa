/* SPDX-License-Identifier: MIT */
/*
 * The JSONPaths most checks and extractors use — `$.token`,
 * `$.items[0].id`, `$['a b']` — evaluated by scanning the body, without
 * building a tree (jsonpath.h).  json-glib's parser costs about 25 µs for
 * a 1 KiB body, more than the whole request; a scan to the value costs a
 * small part of that.  Every other path (wildcards, slices, filters,
 * recursive descent) goes to json-glib's JsonPath.
 */
#include "jsonpath.h"

#include <string.h>

/* How deep a skipped value may nest: beyond it the body is refused, not recursed into. */
#define SCAN_MAX_DEPTH 256

typedef struct {
    char *name; /* a member, or NULL for an index */
    guint index;
    gboolean any; /* `[*]` or `.*`: every member or element (http_json_path_new_all only) */
} Segment;

struct _HttpJsonPath {
    GArray *segments; /* Segment */
};

static void
segment_clear (gpointer data)
{
    g_free (((Segment *)data)->name);
}

void
http_json_path_free (HttpJsonPath *path)
{
    if (path == NULL)
        return;
    g_array_unref (path->segments);
    g_free (path);
}

static HttpJsonPath *
path_new (const char *text, gboolean wildcards)
{
    g_autoptr (GArray) segments = g_array_new (FALSE, TRUE, sizeof (Segment));
    const char *p = text;
    HttpJsonPath *path;

    g_array_set_clear_func (segments, segment_clear);
    if (*p++ != '$')
        return NULL;
    while (*p != '\0') {
        Segment segment = { 0 };

        if (wildcards && ((p[0] == '.' && p[1] == '*') || (p[0] == '[' && p[1] == '*' && p[2] == ']'))) {
            segment.any = TRUE;
            p += p[0] == '.' ? 2 : 3;
        } else if (p[0] == '.' && p[1] != '.') {
            gsize length = strcspn (p + 1, ".[");
            if (length == 0 || memchr (p + 1, '*', length) != NULL)
                return NULL;
            segment.name = g_strndup (p + 1, length);
            p += 1 + length;
        } else if (p[0] == '[' && (p[1] == '\'' || p[1] == '"')) {
            const char *end = strchr (p + 2, p[1]);
            if (end == NULL || end[1] != ']' || memchr (p + 2, '\\', end - p - 2) != NULL)
                return NULL;
            segment.name = g_strndup (p + 2, end - p - 2);
            p = end + 2;
        } else if (p[0] == '[' && g_ascii_isdigit (p[1])) {
            guint64 index;
            char *end;
            index = g_ascii_strtoull (p + 1, &end, 10);
            if (*end != ']' || index > G_MAXINT)
                return NULL;
            segment.index = (guint)index;
            p = end + 1;
        } else {
            return NULL; /* `..`, `*`, slices, unions, filters: json-glib's */
        }
        g_array_append_val (segments, segment);
    }
    path = g_new0 (HttpJsonPath, 1);
    path->segments = g_steal_pointer (&segments);
    return path;
}

HttpJsonPath *
http_json_path_new (const char *text)
{
    return path_new (text, FALSE);
}

HttpJsonPath *
http_json_path_new_all (const char *text)
{
    return path_new (text, TRUE);
}

static const char *
skip_ws (const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past the string starting at @p (its opening quote), or NULL when it does not end. */
static const char *
skip_string (const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
        else if ((guchar)*p < 0x20)
            return NULL;
    }
    return NULL;
}

/* Past the value starting at @p, or NULL when it is not one. */
static const char *
skip_value (const char *p, const char *end)
{
    guint depth = 0;

    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string (p, end);
    if (*p != '{' && *p != '[') {
        const char *start = p;
        while (p < end && (g_ascii_isalnum (*p) || *p == '-' || *p == '+' || *p == '.'))
            p++;
        return p > start ? p : NULL;
    }
    /* An object or array: brackets counted, strings skipped whole. */
    for (; p < end; p++) {
        if (*p == '"') {
            p = skip_string (p, end);
            if (p == NULL)
                return NULL;
            p--;
        } else if (*p == '{' || *p == '[') {
            if (++depth > SCAN_MAX_DEPTH)
                return NULL;
        } else if (*p == '}' || *p == ']') {
            if (--depth == 0)
                return p + 1;
        }
    }
    return NULL;
}

/* Whether the key string at @p (its opening quote, ending before @key_end) is @name. */
static gboolean
key_equals (const char *p, const char *key_end, const char *name)
{
    gsize length = (gsize)(key_end - p - 2);

    if (memchr (p + 1, '\\', length) == NULL)
        return strlen (name) == length && memcmp (p + 1, name, length) == 0;
    g_autoptr (GString) key = g_string_new (NULL);
    http_json_unescape (p + 1, length, key);
    return strcmp (key->str, name) == 0;
}

/* Appends the unescaped contents of a JSON string (without its quotes). */
void
http_json_unescape (const char *p, gsize length, GString *out)
{
    const char *end = p + length;

    while (p < end) {
        const char *backslash = memchr (p, '\\', end - p);
        if (backslash == NULL) {
            g_string_append_len (out, p, end - p);
            return;
        }
        g_string_append_len (out, p, backslash - p);
        p = backslash + 1;
        if (p >= end)
            return;
        switch (*p) {
        case 'b':
            g_string_append_c (out, '\b');
            break;
        case 'f':
            g_string_append_c (out, '\f');
            break;
        case 'n':
            g_string_append_c (out, '\n');
            break;
        case 'r':
            g_string_append_c (out, '\r');
            break;
        case 't':
            g_string_append_c (out, '\t');
            break;
        case 'u': {
            gunichar c = 0;
            if (end - p < 5)
                return;
            for (guint i = 1; i <= 4; i++)
                c = c * 16 + (gunichar)g_ascii_xdigit_value (p[i]);
            p += 4;
            /* A surrogate pair is one character. */
            if (c >= 0xD800 && c < 0xDC00 && end - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                gunichar low = 0;
                for (guint i = 3; i <= 6; i++)
                    low = low * 16 + (gunichar)g_ascii_xdigit_value (p[i]);
                if (low >= 0xDC00 && low < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            g_string_append_unichar (out, c);
            break;
        }
        default: /* \" \\ \/ */
            g_string_append_c (out, *p);
            break;
        }
        p++;
    }
}

/* An object or array as compact JSON: whitespace outside strings dropped. */
static void
append_compact (const char *p, const char *end, GString *out)
{
    while (p < end) {
        if (*p == '"') {
            const char *after = skip_string (p, end);
            g_string_append_len (out, p, after - p);
            p = after;
        } else {
            if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
                g_string_append_c (out, *p);
            p++;
        }
    }
}

HttpJsonFound
http_json_path_find (const HttpJsonPath *path, const char *body, gsize length, GString *out)
{
    const char *end = body + length;
    const char *p = skip_ws (body, end);
    const char *value_end;

    for (guint s = 0; s < path->segments->len; s++) {
        const Segment *segment = &g_array_index (path->segments, Segment, s);
        gboolean found = FALSE;
        guint i = 0;

        if (p >= end)
            return HTTP_JSON_INVALID;
        if (segment->name != NULL && *p != '{')
            return *p == '[' || *p == '"'        ? HTTP_JSON_ABSENT
                   : skip_value (p, end) != NULL ? HTTP_JSON_ABSENT
                                                 : HTTP_JSON_INVALID;
        if (segment->name == NULL && *p != '[')
            return *p == '{' || *p == '"' || skip_value (p, end) != NULL ? HTTP_JSON_ABSENT
                                                                         : HTTP_JSON_INVALID;
        p = skip_ws (p + 1, end);
        if (p < end && (*p == '}' || *p == ']'))
            return HTTP_JSON_ABSENT;
        while (!found) {
            if (segment->name != NULL) {
                const char *key_end;
                if (p >= end || *p != '"' || (key_end = skip_string (p, end)) == NULL)
                    return HTTP_JSON_INVALID;
                found = key_equals (p, key_end, segment->name);
                p = skip_ws (key_end, end);
                if (p >= end || *p != ':')
                    return HTTP_JSON_INVALID;
                p = skip_ws (p + 1, end);
            } else {
                found = i++ == segment->index;
            }
            if (found)
                break;
            p = skip_value (p, end);
            if (p == NULL)
                return HTTP_JSON_INVALID;
            p = skip_ws (p, end);
            if (p < end && *p == ',') {
                p = skip_ws (p + 1, end);
                continue;
            }
            if (p < end && (*p == '}' || *p == ']'))
                return HTTP_JSON_ABSENT;
            return HTTP_JSON_INVALID;
        }
    }

    value_end = skip_value (p, end);
    if (value_end == NULL)
        return HTTP_JSON_INVALID;
    if (*p == '"')
        http_json_unescape (p + 1, (gsize)(value_end - p - 2), out);
    else if (*p == '{' || *p == '[')
        append_compact (p, value_end, out);
    else
        g_string_append_len (out, p, value_end - p);
    return HTTP_JSON_FOUND;
}

/* What http_json_path_find_all() gathers: the matches, comma-separated, and how many. */
typedef struct {
    GString *out;
    guint n;
} Collect;

/*
 * The value at @p (whitespace skipped) against segments @s on: every match
 * appended to @c, in document order.  Returns the end of the value, or
 * NULL when the body is not JSON there.
 */
static const char *
collect (const GArray *segments, guint s, const char *p, const char *end, Collect *c, guint depth)
{
    const Segment *segment;
    gboolean object;
    guint i = 0;

    if (s == segments->len) {
        const char *value_end = skip_value (p, end);

        if (value_end == NULL)
            return NULL;
        if (c->n++ > 0)
            g_string_append_c (c->out, ',');
        append_compact (p, value_end, c->out);
        return value_end;
    }
    if (p >= end || depth > SCAN_MAX_DEPTH)
        return NULL;
    if (*p != '{' && *p != '[')
        return skip_value (p, end); /* a scalar: nothing below it matches */
    segment = &g_array_index (segments, Segment, s);
    object = *p == '{';
    p = skip_ws (p + 1, end);
    if (p < end && *p == (object ? '}' : ']'))
        return p + 1;
    for (;;) {
        gboolean match;

        if (object) {
            const char *key_end;

            if (p >= end || *p != '"' || (key_end = skip_string (p, end)) == NULL)
                return NULL;
            match = segment->any || (segment->name != NULL && key_equals (p, key_end, segment->name));
            p = skip_ws (key_end, end);
            if (p >= end || *p != ':')
                return NULL;
            p = skip_ws (p + 1, end);
        } else {
            match = segment->any || (segment->name == NULL && i == segment->index);
            i++;
        }
        p = match ? collect (segments, s + 1, p, end, c, depth + 1) : skip_value (p, end);
        if (p == NULL)
            return NULL;
        p = skip_ws (p, end);
        if (p < end && *p == ',') {
            p = skip_ws (p + 1, end);
            continue;
        }
        return p < end && *p == (object ? '}' : ']') ? p + 1 : NULL;
    }
}

HttpJsonFound
http_json_path_find_all (const HttpJsonPath *path, const char *body, gsize length, GString *out)
{
    const char *end = body + length;
    gsize mark = out->len;
    Collect c = { .out = out };

    g_string_append_c (out, '[');
    if (collect (path->segments, 0, skip_ws (body, end), end, &c, 0) == NULL) {
        g_string_truncate (out, mark);
        return HTTP_JSON_INVALID;
    }
    g_string_append_c (out, ']');
    return HTTP_JSON_FOUND;
}
