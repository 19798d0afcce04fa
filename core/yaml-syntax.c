/* SPDX-License-Identifier: MIT */
/*
 * libyaml's syntax errors in words a plan's author reads: libyaml names
 * what its grammar expected where it noticed ("did not find expected
 * key"), which is often a line after the mistake.  The common mistakes of
 * hand-written plans — a tab in the indentation, a list item or a key at
 * the wrong indent, a key without its ':' or with no space after it, a
 * value with a second ': ' — are recognised from the text around that
 * place, and told at the line of the likely cause.  Anything else keeps
 * libyaml's words.
 */
#include "yaml-syntax.h"

#include <string.h>

typedef struct {
    char **lines;       /* the text split at '\n', without the newlines */
    guint n_lines;
} Text;

/* Width of the spaces that indent @line (a tab stops the count). */
static guint
indent_of (const char *line)
{
    guint n = 0;

    while (line[n] == ' ')
        n++;
    return n;
}

static gboolean
is_blank (const char *line)
{
    const char *p = line + strspn (line, " \t\r");

    return *p == '\0' || *p == '#';
}

static gboolean
is_item (const char *line)
{
    const char *p = line + indent_of (line);

    return p[0] == '-' && (p[1] == ' ' || p[1] == '\0' || p[1] == '\r');
}

/* Where the key of @line starts: after its indent and any "- " of list items. */
static guint
key_offset (const char *line)
{
    guint at = indent_of (line);

    while (line[at] == '-' && line[at + 1] == ' ') {
        at++;
        while (line[at] == ' ')
            at++;
    }
    return at;
}

/* The nearest line before @line (1-based) with content, or 0. */
static guint
previous_content (const Text *text, guint line)
{
    for (guint l = line - 1; l >= 1; l--)
        if (!is_blank (text->lines[l - 1]))
            return l;
    return 0;
}

/* The content of @line from byte @from, without the end of line and a comment. */
static char *
content_of (const char *line, guint from)
{
    g_autofree char *copy = g_strdup (line + from);
    char *hash = strstr (copy, " #");

    if (hash != NULL)
        *hash = '\0';
    return g_strdup (g_strstrip (copy));
}

/* A ':' that ends a key: followed by a space or the end of the line. */
static const char *
key_colon (const char *content)
{
    for (const char *p = strchr (content, ':'); p != NULL; p = strchr (p + 1, ':'))
        if (p[1] == ' ' || p[1] == '\0')
            return p;
    return NULL;
}

static gboolean
is_quoted_or_flow (const char *content)
{
    return strchr ("\"'{[|>", content[0]) != NULL;
}

/* The first line up to @last whose indentation holds a tab, and the tab's column. */
static gboolean
find_tab (const Text *text, guint last, guint *line, guint *column)
{
    for (guint l = 1; l <= last && l <= text->n_lines; l++) {
        const char *s = text->lines[l - 1];
        gsize lead = strspn (s, " \t");

        if (s[lead] == '\0' || s[lead] == '#' || s[lead] == '\r')
            continue;
        const char *tab = memchr (s, '\t', lead);
        if (tab != NULL) {
            *line = l;
            *column = (guint) (tab - s) + 1;
            return TRUE;
        }
    }
    return FALSE;
}

/* A plain scalar that should have been "key: value": no ':' at all, or none followed by a space. */
static char *
explain_key_line (const Text *text, guint line, guint *column)
{
    const char *s = text->lines[line - 1];
    guint from = key_offset (s);
    g_autofree char *content = content_of (s, from);

    if (*content == '\0' || is_quoted_or_flow (content) || key_colon (content) != NULL)
        return NULL;
    *column = from + 1;
    if (strchr (content, ':') != NULL)
        return g_strdup_printf ("'%s' needs a space after its ':' (key: value)", content);
    return g_strdup_printf ("'%s' has no ':'; a key and its value are written 'key: value'",
                            content);
}

/* A line at @line whose indent matches no line above it: a list item or a key. */
static char *
explain_indent (const Text *text, guint line, guint *column)
{
    const char *s = text->lines[line - 1];
    guint at = indent_of (s);

    if (is_item (s)) {
        /* The items of the list it was meant for: the nearest item above. */
        for (guint l = line - 1; l >= 1; l--) {
            const char *above = text->lines[l - 1];
            if (is_blank (above) || !is_item (above) || indent_of (above) == at)
                continue;
            *column = at + 1;
            return g_strdup_printf ("this list item starts at column %u, but the items of its "
                                    "list start at column %u (line %u)",
                                    at + 1, indent_of (above) + 1, l);
        }
        return NULL;
    }

    guint above = previous_content (text, line);
    if (above == 0)
        return NULL;
    guint expected = key_offset (text->lines[above - 1]);
    if (expected == at)
        return NULL;
    g_autofree char *content = content_of (s, at);
    const char *colon = key_colon (content);
    g_autofree char *key = colon != NULL && colon > content
                               ? g_strndup (content, (gsize) (colon - content))
                               : g_strdup (content);
    *column = at + 1;
    if (at > expected)
        return g_strdup_printf ("'%s' is indented deeper than the key above it (column %u, line "
                                "%u); the keys of one map line up",
                                key, expected + 1, above);
    return g_strdup_printf ("'%s' starts at column %u, but the keys of its map start at column "
                            "%u (line %u)",
                            key, at + 1, expected + 1, above);
}

char *
throng_yaml_explain (const char *data, gsize length, const char *problem, guint *line,
                     guint *column)
{
    g_autofree char *copy = g_strndup (data, length);
    g_auto (GStrv) lines = g_strsplit (copy, "\n", -1);
    Text text = { lines, g_strv_length (lines) };
    guint l = *line, c = *column;
    char *message = NULL;

    if (problem == NULL || l < 1 || l > text.n_lines)
        return NULL;

    /* A tab at or before the error explains it, whatever libyaml says. */
    if (find_tab (&text, l, line, column))
        return g_strdup ("a tab indents this line; YAML indents with spaces only");

    const char *s = text.lines[l - 1];
    guint above = previous_content (&text, l);
    guint first = 1;
    while (first <= text.n_lines && is_blank (text.lines[first - 1]))
        first++;

    /* An indented first line, then a line less indented than it. */
    if (first < l && indent_of (text.lines[first - 1]) > indent_of (s) && !is_blank (s)) {
        *line = first;
        *column = 1;
        return g_strdup ("the first line is indented; a plan's top-level keys start at column 1");
    }
    if (strcmp (problem, "mapping values are not allowed in this context") == 0) {
        g_autofree char *before = g_strndup (s, MIN ((gsize) (c > 0 ? c - 1 : 0), strlen (s)));

        if (key_colon (before + key_offset (before)) != NULL)
            return g_strdup ("a second ': ' in one value; quote a value that contains ': '");
    }
    if (above == 0)
        return NULL;
    if (strcmp (problem, "could not find expected ':'") == 0) {
        /* Noticed on the line after the key that lacks it. */
        if ((message = explain_key_line (&text, above, column)) != NULL)
            *line = above;
        return message;
    }
    if (strcmp (problem, "mapping values are not allowed in this context") == 0) {
        if ((message = explain_key_line (&text, above, column)) != NULL) {
            *line = above;
            return message;
        }
        return explain_indent (&text, l, column);
    }
    if (strcmp (problem, "did not find expected key") == 0
        || strcmp (problem, "did not find expected '-' indicator") == 0
        || strcmp (problem, "block sequence entries are not allowed in this context") == 0)
        return explain_indent (&text, l, column);
    return NULL;
}
