/* SPDX-License-Identifier: MIT */
/*
 * Reading plan nodes: accessors, the typed readers (string, bool, whole
 * number, duration, size) and the key check with its nearest-key
 * suggestion.  Every failure is a THRONG_PLAN_ERROR located at the node,
 * worded "expected <type>, got <what was given>", and leaves the
 * out-parameter untouched.  Also the check that a file a plan names is
 * one that can be read to its end.
 */
#include "node-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

/* Spelled out: G_DEFINE_QUARK stringifies its argument, which a formatter once spaced out. */
GQuark
throng_plan_error_quark (void)
{
    return g_quark_from_static_string ("throng-plan-error-quark");
}

ThrongNodeKind
throng_node_kind (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, THRONG_NODE_SCALAR);
    return node->kind;
}

const char *
throng_node_scalar (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, NULL);
    return node->kind == THRONG_NODE_SCALAR ? node->text : NULL;
}

gboolean
throng_node_is_null (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, FALSE);
    if (node->kind != THRONG_NODE_SCALAR || !node->plain)
        return FALSE;
    return node->text[0] == '\0' || strcmp (node->text, "~") == 0
           || strcmp (node->text, "null") == 0 || strcmp (node->text, "Null") == 0
           || strcmp (node->text, "NULL") == 0;
}

gboolean
throng_node_is_plain (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, FALSE);
    return node->kind == THRONG_NODE_SCALAR && node->plain;
}

guint
throng_node_n_children (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, 0);
    return node->items != NULL ? node->items->len : 0;
}

const ThrongNode *
throng_node_child (const ThrongNode *node, guint index)
{
    g_return_val_if_fail (node != NULL, NULL);
    if (node->items == NULL || index >= node->items->len)
        return NULL;
    return node->items->pdata[index];
}

const ThrongNode *
throng_node_key (const ThrongNode *node, guint index)
{
    g_return_val_if_fail (node != NULL, NULL);
    if (node->keys == NULL || index >= node->keys->len)
        return NULL;
    return node->keys->pdata[index];
}

const ThrongNode *
throng_node_lookup (const ThrongNode *map, const char *key)
{
    g_return_val_if_fail (map != NULL, NULL);
    g_return_val_if_fail (key != NULL, NULL);
    if (map->kind != THRONG_NODE_MAP)
        return NULL;
    for (guint i = 0; i < map->keys->len; i++) {
        const ThrongNode *k = map->keys->pdata[i];
        if (strcmp (k->text, key) == 0)
            return map->items->pdata[i];
    }
    return NULL;
}

const char *
throng_node_file (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, NULL);
    return node->file;
}

guint
throng_node_line (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, 0);
    return node->line;
}

guint
throng_node_column (const ThrongNode *node)
{
    g_return_val_if_fail (node != NULL, 0);
    return node->column;
}

/* A plan's scalar or key may span lines (a folded plain scalar, a quoted
 * "\n"), and an error quotes what it was given. */
char *
throng_one_line (const char *message)
{
    GString *out = g_string_sized_new (strlen (message));

    for (const char *p = message; *p != '\0'; p++) {
        unsigned char c = (unsigned char)*p;

        if (c == '\n')
            g_string_append (out, "\\n");
        else if (c == '\r')
            g_string_append (out, "\\r");
        else if (c == '\t')
            g_string_append (out, "\\t");
        else if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
        else
            g_string_append_c (out, (char)c);
    }
    return g_string_free (out, FALSE);
}

void
throng_node_set_error (const ThrongNode *node, GError **error, ThrongPlanError code,
                       const char *format, ...)
{
    va_list args;
    g_autofree char *formatted = NULL;
    g_autofree char *message = NULL;

    g_return_if_fail (node != NULL);
    g_return_if_fail (format != NULL);
    if (error == NULL)
        return;

    va_start (args, format);
    formatted = g_strdup_vprintf (format, args);
    va_end (args);
    message = throng_one_line (formatted);
    g_set_error (error, THRONG_PLAN_ERROR, code, "%s:%u:%u: %s", node->file, node->line,
                 node->column, message);
}

static const char *
file_kind (mode_t mode)
{
    if (S_ISDIR (mode))
        return "a directory";
    if (S_ISFIFO (mode))
        return "a FIFO";
    if (S_ISCHR (mode))
        return "a character device";
    if (S_ISBLK (mode))
        return "a block device";
    if (S_ISSOCK (mode))
        return "a socket";
    return "not a file";
}

gboolean
throng_node_check_file (const ThrongNode *node, const char *path, GError **error)
{
    GStatBuf st;
    g_autofree char *message = NULL;
    /* The name as the user wrote it, where the plan wrote it. */
    const char *name = node != NULL && node->kind == THRONG_NODE_SCALAR ? node->text : path;

    g_return_val_if_fail (path != NULL, FALSE);
    /* Missing or unreadable: the caller's open says so, in its own words. */
    if (g_stat (path, &st) != 0 || S_ISREG (st.st_mode))
        return TRUE;
    message = g_strdup_printf ("%s is not a regular file (%s)", name, file_kind (st.st_mode));
    if (node != NULL)
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_FILE, "%s", message);
    else
        g_set_error_literal (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE, message);
    return FALSE;
}

char *
throng_locate_in_text (const char *file, guint line, guint column, char style, const char *text,
                       gsize offset)
{
    const char *end = text + offset;
    const char *line_start = text;

    if (style == '|' || style == '>') {
        /* the text begins on the line after the indicator; its indentation is lost */
        line++;
        column = 1;
    } else if (style == '\'' || style == '"') {
        column++;
    }
    for (const char *p = text; p < end; p++) {
        if (*p == '\n') {
            line++;
            line_start = p + 1;
            column = 1;
        }
    }
    column += (guint) g_utf8_strlen (line_start, end - line_start);
    return g_strdup_printf ("%s:%u:%u", file, line, column);
}

void
throng_node_set_error_at (const ThrongNode *node, gsize offset, GError **error,
                          ThrongPlanError code, const char *format, ...)
{
    va_list args;
    g_autofree char *formatted = NULL;
    g_autofree char *message = NULL;
    g_autofree char *where = NULL;

    g_return_if_fail (node != NULL && node->kind == THRONG_NODE_SCALAR);
    if (error == NULL)
        return;
    va_start (args, format);
    formatted = g_strdup_vprintf (format, args);
    va_end (args);
    message = throng_one_line (formatted);
    where = throng_locate_in_text (node->file, node->line, node->column, node->style, node->text,
                                   MIN (offset, strlen (node->text)));
    g_set_error (error, THRONG_PLAN_ERROR, code, "%s: %s", where, message);
}

char *
throng_node_describe (const ThrongNode *node)
{
    if (node->kind == THRONG_NODE_MAP)
        return g_strdup ("a map");
    if (node->kind == THRONG_NODE_SEQUENCE)
        return g_strdup ("a list");
    if (node->plain && node->text[0] == '\0')
        return g_strdup ("an empty value");
    if (throng_node_is_null (node))
        return g_strdup ("null");
    return throng_excerpt (node->text);
}

char *
throng_excerpt (const char *text)
{
    if (g_utf8_strlen (text, -1) > 40) {
        g_autofree char *head = g_utf8_substring (text, 0, 40);
        return g_strdup_printf ("'%s…'", head);
    }
    return g_strdup_printf ("'%s'", text);
}

static gboolean
type_error (const ThrongNode *node, GError **error, const char *expected)
{
    g_autofree char *given = throng_node_describe (node);

    throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE, "expected %s, got %s", expected,
                           given);
    return FALSE;
}

gboolean
throng_node_expect_kind (const ThrongNode *node, ThrongNodeKind kind, const char *expected,
                         GError **error)
{
    return node->kind == kind || type_error (node, error, expected);
}

/* A scalar that is not null, or a type error naming @expected. */
static const char *
value_text (const ThrongNode *node, const char *expected, GError **error)
{
    if (node->kind != THRONG_NODE_SCALAR || throng_node_is_null (node)) {
        type_error (node, error, expected);
        return NULL;
    }
    return node->text;
}

gboolean
throng_node_get_string (const ThrongNode *node, const char **out, GError **error)
{
    const char *text;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out != NULL, FALSE);

    text = value_text (node, "a string", error);
    if (text == NULL)
        return FALSE;
    *out = text;
    return TRUE;
}

gboolean
throng_node_get_bool (const ThrongNode *node, gboolean *out, GError **error)
{
    static const char *const truths[] = { "true", "yes", "on" };
    static const char *const falsehoods[] = { "false", "no", "off" };
    const char *text;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out != NULL, FALSE);

    text = value_text (node, "true or false", error);
    if (text == NULL)
        return FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (truths); i++) {
        if (g_ascii_strcasecmp (text, truths[i]) == 0) {
            *out = TRUE;
            return TRUE;
        }
        if (g_ascii_strcasecmp (text, falsehoods[i]) == 0) {
            *out = FALSE;
            return TRUE;
        }
    }
    return type_error (node, error, "true or false");
}

/*
 * Decimal digits into @out; FALSE on anything else.  *overflow is set when
 * the digits are fine but the number exceeds G_MAXUINT64.
 */
static gboolean
parse_digits (const char *text, const char **end, guint64 *out, gboolean *overflow)
{
    guint64 value = 0;
    const char *p = text;

    *overflow = FALSE;
    if (!g_ascii_isdigit (*p))
        return FALSE;
    for (; g_ascii_isdigit (*p); p++) {
        guint digit = *p - '0';
        if (value > (G_MAXUINT64 - digit) / 10)
            *overflow = TRUE;
        else
            value = value * 10 + digit;
    }
    *end = p;
    *out = value;
    return TRUE;
}

gboolean
throng_node_get_uint (const ThrongNode *node, guint64 *out, GError **error)
{
    const char *text, *end = NULL;
    guint64 value;
    gboolean overflow;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out != NULL, FALSE);

    text = value_text (node, "a whole number", error);
    if (text == NULL)
        return FALSE;
    if (!parse_digits (text, &end, &value, &overflow) || *end != '\0')
        return type_error (node, error, "a whole number");
    if (overflow) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "'%s' is too large for a whole number (at most %" G_GUINT64_FORMAT
                               ")",
                               text, G_MAXUINT64);
        return FALSE;
    }
    *out = value;
    return TRUE;
}

typedef struct {
    const char *name;
    guint64 factor;
} Unit;

typedef enum {
    NUMBER_OK,
    NUMBER_INVALID,
    NUMBER_NEGATIVE,
    NUMBER_NO_UNIT,
    NUMBER_TOO_LARGE,
} NumberResult;

/*
 * A decimal number with an optional fraction and a unit (or @bare when
 * there is none), as a whole number of the base unit, truncated.  Fraction
 * digits past the ninth are ignored: they are below the resolution of
 * every unit we have (1 µs, 1 byte).
 */
static NumberResult
parse_with_unit (const char *text, const Unit *units, gsize n_units, const Unit *bare,
                 guint64 limit, guint64 *out)
{
    static const Unit zero = { "", 1 };
    const char *p = text, *number_end;
    guint64 whole, fraction = 0, scale = 1;
    gboolean overflow;
    const Unit *unit = NULL;

    if (*p == '-' && (g_ascii_isdigit (p[1]) || p[1] == '.'))
        return NUMBER_NEGATIVE;
    if (!parse_digits (p, &p, &whole, &overflow))
        return NUMBER_INVALID;
    if (*p == '.') {
        p++;
        if (!g_ascii_isdigit (*p))
            return NUMBER_INVALID;
        for (guint digits = 0; g_ascii_isdigit (*p); p++, digits++) {
            if (digits < 9) {
                fraction = fraction * 10 + (*p - '0');
                scale *= 10;
            }
        }
    }
    number_end = p;
    while (*p == ' ')
        p++;

    if (*p == '\0') {
        if (p != number_end)
            return NUMBER_INVALID; /* trailing spaces and no unit */
        if (bare != NULL)
            unit = bare;
        else if (whole == 0 && fraction == 0 && !overflow)
            unit = &zero; /* a bare zero is zero in every unit */
        else
            return NUMBER_NO_UNIT;
    } else {
        for (gsize i = 0; i < n_units && unit == NULL; i++) {
            if (strcmp (p, units[i].name) == 0)
                unit = &units[i];
        }
        if (unit == NULL)
            return NUMBER_INVALID;
    }

    if (overflow || whole > limit / unit->factor)
        return NUMBER_TOO_LARGE;
    guint64 value = whole * unit->factor;
    guint64 part = fraction * unit->factor / scale;
    if (part > limit - value)
        return NUMBER_TOO_LARGE;
    *out = value + part;
    return NUMBER_OK;
}

static const Unit duration_units[] = {
    { "us", 1 },
    { "ms", 1000 },
    { "s", G_USEC_PER_SEC },
    { "m", 60 * (guint64)G_USEC_PER_SEC },
    { "h", 3600 * (guint64)G_USEC_PER_SEC },
};

static const Unit size_units[] = {
    { "B", 1 },
    { "k", 1000 },
    { "K", 1000 },
    { "kB", 1000 },
    { "KB", 1000 },
    { "KiB", 1024 },
    { "M", 1000 * 1000 },
    { "MB", 1000 * 1000 },
    { "MiB", 1024 * 1024 },
    { "G", 1000 * 1000 * 1000 },
    { "GB", 1000 * 1000 * 1000 },
    { "GiB", 1024 * 1024 * 1024 },
};

#define DURATION_EXPECTED "a duration such as 250ms, 10s or 2m"
#define SIZE_EXPECTED "a size such as 512, 64k or 16MiB"

static gboolean
duration_error (NumberResult result, const char *text, GError **error)
{
    switch (result) {
    case NUMBER_NEGATIVE:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_RANGE,
                     "a duration cannot be negative, got '%s'", text);
        break;
    case NUMBER_NO_UNIT:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                     "expected " DURATION_EXPECTED ", got '%s' (the unit is missing: us, ms, s, m "
                     "or h)",
                     text);
        break;
    case NUMBER_TOO_LARGE:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_RANGE,
                     "'%s' is too large for a duration", text);
        break;
    default:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                     "expected " DURATION_EXPECTED ", got '%s'", text);
        break;
    }
    return FALSE;
}

static gboolean
size_error (NumberResult result, const char *text, GError **error)
{
    switch (result) {
    case NUMBER_NEGATIVE:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_RANGE,
                     "a size cannot be negative, got '%s'", text);
        break;
    case NUMBER_TOO_LARGE:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_RANGE,
                     "'%s' is too large for a size", text);
        break;
    default:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_TYPE,
                     "expected " SIZE_EXPECTED ", got '%s'", text);
        break;
    }
    return FALSE;
}

gboolean
throng_parse_duration (const char *text, gint64 *out_us, GError **error)
{
    guint64 value;
    NumberResult result;

    g_return_val_if_fail (text != NULL, FALSE);
    g_return_val_if_fail (out_us != NULL, FALSE);

    result = parse_with_unit (text, duration_units, G_N_ELEMENTS (duration_units), NULL, G_MAXINT64,
                              &value);
    if (result != NUMBER_OK)
        return duration_error (result, text, error);
    *out_us = (gint64)value;
    return TRUE;
}

gboolean
throng_parse_size (const char *text, guint64 *out_bytes, GError **error)
{
    guint64 value;
    NumberResult result;

    g_return_val_if_fail (text != NULL, FALSE);
    g_return_val_if_fail (out_bytes != NULL, FALSE);

    result = parse_with_unit (text, size_units, G_N_ELEMENTS (size_units), &size_units[0],
                              G_MAXUINT64, &value);
    if (result != NUMBER_OK)
        return size_error (result, text, error);
    *out_bytes = value;
    return TRUE;
}

/* Re-issues an unlocated parser error at @node, keeping its code. */
static gboolean
locate (const ThrongNode *node, GError *local, GError **error)
{
    g_autofree char *message = throng_one_line (local->message);

    g_set_error (error, local->domain, local->code, "%s:%u:%u: %s", node->file, node->line,
                 node->column, message);
    g_error_free (local);
    return FALSE;
}

gboolean
throng_node_get_duration (const ThrongNode *node, gint64 *out_us, GError **error)
{
    const char *text;
    GError *local = NULL;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out_us != NULL, FALSE);

    text = value_text (node, DURATION_EXPECTED, error);
    if (text == NULL)
        return FALSE;
    if (!throng_parse_duration (text, out_us, &local))
        return locate (node, local, error);
    return TRUE;
}

gboolean
throng_node_get_size (const ThrongNode *node, guint64 *out_bytes, GError **error)
{
    const char *text;
    GError *local = NULL;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out_bytes != NULL, FALSE);

    text = value_text (node, SIZE_EXPECTED, error);
    if (text == NULL)
        return FALSE;
    if (!throng_parse_size (text, out_bytes, &local))
        return locate (node, local, error);
    return TRUE;
}

#define DECIMAL_EXPECTED "a decimal number such as 99.9"

/* Moves *@p past a run of digits; whether there was at least one. */
static gboolean
skip_digits (const char **p)
{
    const char *start = *p;

    while (g_ascii_isdigit (**p))
        (*p)++;
    return *p > start;
}

/* The grammar of a decimal number: -?digits(.digits)?([eE][+-]?digits)? */
static gboolean
is_decimal (const char *p)
{
    if (*p == '-')
        p++;
    if (!skip_digits (&p))
        return FALSE;
    if (*p == '.') {
        p++;
        if (!skip_digits (&p))
            return FALSE;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!skip_digits (&p))
            return FALSE;
    }
    return *p == '\0';
}

gboolean
throng_node_get_double (const ThrongNode *node, double *out, GError **error)
{
    const char *text;
    double value;

    g_return_val_if_fail (node != NULL, FALSE);
    g_return_val_if_fail (out != NULL, FALSE);

    text = value_text (node, DECIMAL_EXPECTED, error);
    if (text == NULL)
        return FALSE;
    if (!is_decimal (text))
        return type_error (node, error, DECIMAL_EXPECTED);
    /* The grammar was checked above: strtod cannot stop early or read hex. */
    value = g_ascii_strtod (text, NULL);
    if (isinf (value)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "'%s' is too large for a decimal number", text);
        return FALSE;
    }
    *out = value;
    return TRUE;
}

/* ---- keys --------------------------------------------------------------- */

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent swaps), case-blind. */
static guint
edit_distance (const char *a, const char *b)
{
    gsize la = strlen (a), lb = strlen (b);
    g_autofree guint *d = g_new (guint, (la + 1) * (lb + 1));

#define D(i, j) d[(i) * (lb + 1) + (j)]
    for (gsize i = 0; i <= la; i++)
        D (i, 0) = i;
    for (gsize j = 0; j <= lb; j++)
        D (0, j) = j;
    for (gsize i = 1; i <= la; i++) {
        for (gsize j = 1; j <= lb; j++) {
            char ca = g_ascii_tolower (a[i - 1]), cb = g_ascii_tolower (b[j - 1]);
            guint cost = ca == cb ? 0 : 1;
            guint best = MIN (D (i - 1, j) + 1, D (i, j - 1) + 1);

            best = MIN (best, D (i - 1, j - 1) + cost);
            if (i > 1 && j > 1 && ca == g_ascii_tolower (b[j - 2])
                && g_ascii_tolower (a[i - 2]) == cb)
                best = MIN (best, D (i - 2, j - 2) + 1);
            D (i, j) = best;
        }
    }
    guint result = D (la, lb);
#undef D
    return result;
}

/*
 * Within two edits, but never a rewrite of the whole candidate.  A prefix
 * either way (three characters or more) counts as one edit, so "ramp"
 * finds ramp_up before name.  Ties go to the earlier candidate.
 */
const char *
throng_node_suggest (const char *word, const char *const *candidates)
{
    const char *best = NULL;
    guint best_distance = 3;
    gsize lw = strlen (word);

    for (gsize i = 0; candidates[i] != NULL; i++) {
        gsize lc = strlen (candidates[i]);
        guint distance = edit_distance (word, candidates[i]);

        if (MIN (lw, lc) >= 3 && g_ascii_strncasecmp (word, candidates[i], MIN (lw, lc)) == 0)
            distance = MIN (distance, 1);
        else if (distance >= lc)
            continue;
        if (distance < best_distance) {
            best = candidates[i];
            best_distance = distance;
        }
    }
    return best;
}

gboolean
throng_node_check_keys (const ThrongNode *map, const char *const *keys, const char *context,
                        GError **error)
{
    g_return_val_if_fail (map != NULL, FALSE);
    g_return_val_if_fail (keys != NULL, FALSE);

    if (map->kind != THRONG_NODE_MAP) {
        g_autofree char *given = throng_node_describe (map);

        if (context != NULL)
            throng_node_set_error (map, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a map for %s, got %s", context, given);
        else
            throng_node_set_error (map, error, THRONG_PLAN_ERROR_TYPE, "expected a map, got %s",
                                   given);
        return FALSE;
    }

    for (guint i = 0; i < map->keys->len; i++) {
        const ThrongNode *key = map->keys->pdata[i];
        gboolean known = FALSE;

        for (gsize k = 0; keys[k] != NULL && !known; k++)
            known = strcmp (key->text, keys[k]) == 0;
        if (known)
            continue;

        g_autofree char *where
            = context != NULL ? g_strdup_printf (" in %s", context) : g_strdup ("");
        const char *suggestion = throng_node_suggest (key->text, keys);

        if (suggestion != NULL) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown key '%s'%s; did you mean '%s'?", key->text, where,
                                   suggestion);
        } else {
            g_autofree char *list = g_strjoinv (", ", (char **)keys);
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown key '%s'%s (valid keys: %s)", key->text, where, list);
        }
        return FALSE;
    }
    return TRUE;
}
