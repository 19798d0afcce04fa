/* SPDX-License-Identifier: MIT */
/*
 * The JSON tokenizer: a recursive descent over one value (nesting bounded)
 * that records each value as a token, then lookups that walk the tokens.
 * Strict on syntax and encoding (RFC 8259: UTF-8 only), so that a torn line
 * is refused rather than half-read and every string read is UTF-8.
 */
#include "jsontok-private.h"

#include <stdlib.h>
#include <string.h>

/* Deeper than any document the json reporter writes; bounds the recursion. */
#define JSONTOK_MAX_DEPTH 64

typedef struct {
    const char *text;
    gsize length;
    gsize at;
    GArray *toks;
} Scan;

void
jsontok_init (JsonToks *toks)
{
    toks->text = NULL;
    toks->length = 0;
    toks->toks = g_array_sized_new (FALSE, FALSE, sizeof (JsonTok), 1024);
}

void
jsontok_clear (JsonToks *toks)
{
    g_clear_pointer (&toks->toks, g_array_unref);
}

static void
scan_space (Scan *scan)
{
    while (scan->at < scan->length) {
        char c = scan->text[scan->at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        scan->at++;
    }
}

static gboolean
scan_literal (Scan *scan, const char *word)
{
    gsize n = strlen (word);

    if (scan->length - scan->at < n || memcmp (scan->text + scan->at, word, n) != 0)
        return FALSE;
    scan->at += n;
    return TRUE;
}

static gboolean
is_digit (char c)
{
    return c >= '0' && c <= '9';
}

static gboolean
is_hex (char c)
{
    return is_digit (c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string from its opening quote; fills @tok. */
static gboolean
scan_string (Scan *scan, JsonTok *tok)
{
    scan->at++;
    tok->type = JSONTOK_STRING;
    tok->start = (guint) scan->at;
    tok->escaped = FALSE;
    while (scan->at < scan->length) {
        unsigned char c = (unsigned char) scan->text[scan->at];
        if (c == '"') {
            tok->end = (guint) scan->at;
            scan->at++;
            return TRUE;
        }
        if (c < 0x20)
            return FALSE;
        /* JSON text is UTF-8 (RFC 8259 §8.1): a string with other bytes is no JSON. */
        if (c >= 0x80) {
            gunichar u = g_utf8_get_char_validated (scan->text + scan->at,
                                                    (gssize) (scan->length - scan->at));
            if (u == (gunichar) -1 || u == (gunichar) -2)
                return FALSE;
            scan->at += (gsize) g_utf8_skip[c];
            continue;
        }
        if (c == '\\') {
            tok->escaped = TRUE;
            if (++scan->at >= scan->length)
                return FALSE;
            char e = scan->text[scan->at];
            if (e == 'u') {
                if (scan->length - scan->at < 5)
                    return FALSE;
                for (guint i = 1; i <= 4; i++)
                    if (!is_hex (scan->text[scan->at + i]))
                        return FALSE;
                scan->at += 4;
            } else if (strchr ("\"\\/bfnrt", e) == NULL || e == '\0') {
                return FALSE;
            }
        }
        scan->at++;
    }
    return FALSE;
}

static gboolean
scan_number (Scan *scan, JsonTok *tok)
{
    const char *t = scan->text;
    gsize at = scan->at;

    tok->type = JSONTOK_NUMBER;
    tok->start = (guint) at;
    if (at < scan->length && t[at] == '-')
        at++;
    if (at >= scan->length || !is_digit (t[at]))
        return FALSE;
    if (t[at] == '0')
        at++;
    else
        while (at < scan->length && is_digit (t[at]))
            at++;
    if (at < scan->length && t[at] == '.') {
        if (++at >= scan->length || !is_digit (t[at]))
            return FALSE;
        while (at < scan->length && is_digit (t[at]))
            at++;
    }
    if (at < scan->length && (t[at] == 'e' || t[at] == 'E')) {
        at++;
        if (at < scan->length && (t[at] == '+' || t[at] == '-'))
            at++;
        if (at >= scan->length || !is_digit (t[at]))
            return FALSE;
        while (at < scan->length && is_digit (t[at]))
            at++;
    }
    tok->end = (guint) at;
    scan->at = at;
    return TRUE;
}

static gboolean scan_value (Scan *scan, guint depth);

/* An object or array from its opening bracket; the token is at @index. */
static gboolean
scan_container (Scan *scan, guint index, gboolean object, guint depth)
{
    char close = object ? '}' : ']';
    guint size = 0;

    scan->at++;
    scan_space (scan);
    if (scan->at < scan->length && scan->text[scan->at] == close) {
        scan->at++;
    } else {
        for (;;) {
            if (object) {
                scan_space (scan);
                if (scan->at >= scan->length || scan->text[scan->at] != '"')
                    return FALSE;
                JsonTok key = { 0 };
                if (!scan_string (scan, &key))
                    return FALSE;
                key.next = scan->toks->len + 1;
                g_array_append_val (scan->toks, key);
                scan_space (scan);
                if (scan->at >= scan->length || scan->text[scan->at] != ':')
                    return FALSE;
                scan->at++;
            }
            if (!scan_value (scan, depth + 1))
                return FALSE;
            size++;
            scan_space (scan);
            if (scan->at >= scan->length)
                return FALSE;
            char c = scan->text[scan->at++];
            if (c == close)
                break;
            if (c != ',')
                return FALSE;
        }
    }
    JsonTok *tok = &g_array_index (scan->toks, JsonTok, index);
    tok->size = size;
    tok->end = (guint) scan->at;
    tok->next = scan->toks->len;
    return TRUE;
}

static gboolean
scan_value (Scan *scan, guint depth)
{
    JsonTok tok = { 0 };
    guint index = scan->toks->len;

    if (depth > JSONTOK_MAX_DEPTH)
        return FALSE;
    scan_space (scan);
    if (scan->at >= scan->length)
        return FALSE;
    tok.start = (guint) scan->at;
    switch (scan->text[scan->at]) {
    case '{':
    case '[':
        tok.type = scan->text[scan->at] == '{' ? JSONTOK_OBJECT : JSONTOK_ARRAY;
        g_array_append_val (scan->toks, tok);
        return scan_container (scan, index, tok.type == JSONTOK_OBJECT, depth);
    case '"':
        if (!scan_string (scan, &tok))
            return FALSE;
        break;
    case 't':
        tok.type = JSONTOK_TRUE;
        if (!scan_literal (scan, "true"))
            return FALSE;
        break;
    case 'f':
        tok.type = JSONTOK_FALSE;
        if (!scan_literal (scan, "false"))
            return FALSE;
        break;
    case 'n':
        tok.type = JSONTOK_NULL;
        if (!scan_literal (scan, "null"))
            return FALSE;
        break;
    default:
        if (!scan_number (scan, &tok))
            return FALSE;
        break;
    }
    if (tok.type != JSONTOK_STRING && tok.type != JSONTOK_NUMBER)
        tok.end = (guint) scan->at;
    tok.next = index + 1;
    g_array_append_val (scan->toks, tok);
    return TRUE;
}

gboolean
jsontok_parse (JsonToks *toks, const char *text, gsize length)
{
    Scan scan = { .text = text, .length = length, .toks = toks->toks };

    toks->text = text;
    toks->length = length;
    g_array_set_size (toks->toks, 0);
    if (length >= G_MAXUINT || !scan_value (&scan, 0))
        return FALSE;
    scan_space (&scan);
    return scan.at == length;
}

static const JsonTok *
tok_at (const JsonToks *toks, gint index)
{
    if (index < 0 || (guint) index >= toks->toks->len)
        return NULL;
    return &g_array_index (toks->toks, JsonTok, index);
}

gint
jsontok_member (const JsonToks *toks, gint index, const char *name)
{
    const JsonTok *object = tok_at (toks, index);

    if (object == NULL || object->type != JSONTOK_OBJECT)
        return -1;
    guint key = (guint) index + 1;
    for (guint i = 0; i < object->size; i++) {
        guint value = key + 1;
        if (jsontok_string_equals (toks, (gint) key, name))
            return (gint) value;
        key = g_array_index (toks->toks, JsonTok, value).next;
    }
    return -1;
}

gint
jsontok_element (const JsonToks *toks, gint index, guint i)
{
    const JsonTok *array = tok_at (toks, index);

    if (array == NULL || array->type != JSONTOK_ARRAY || i >= array->size)
        return -1;
    guint at = (guint) index + 1;
    for (guint k = 0; k < i; k++)
        at = g_array_index (toks->toks, JsonTok, at).next;
    return (gint) at;
}

guint
jsontok_length (const JsonToks *toks, gint index)
{
    const JsonTok *tok = tok_at (toks, index);

    return tok != NULL && (tok->type == JSONTOK_ARRAY || tok->type == JSONTOK_OBJECT) ? tok->size
                                                                                      : 0;
}

/*
 * Copies the number at @index into @text (NUL-terminated, @size bytes at
 * most).  FALSE when it is not a number or too long to be one we read.
 */
static gboolean
number_text (const JsonToks *toks, gint index, char *text, gsize size)
{
    const JsonTok *tok = tok_at (toks, index);

    if (tok == NULL || tok->type != JSONTOK_NUMBER || tok->end - tok->start >= size)
        return FALSE;
    memcpy (text, toks->text + tok->start, tok->end - tok->start);
    text[tok->end - tok->start] = '\0';
    return TRUE;
}

gdouble
jsontok_double (const JsonToks *toks, gint index)
{
    char text[64];

    if (!number_text (toks, index, text, sizeof text))
        return 0;
    return g_ascii_strtod (text, NULL);
}

gint64
jsontok_int (const JsonToks *toks, gint index)
{
    char text[64];

    if (!number_text (toks, index, text, sizeof text))
        return 0;
    if (strpbrk (text, ".eE") != NULL) {
        gdouble value = g_ascii_strtod (text, NULL);
        return value >= (gdouble) G_MAXINT64 || value <= (gdouble) G_MININT64 ? 0
                                                                              : (gint64) value;
    }
    return g_ascii_strtoll (text, NULL, 10);
}

gboolean
jsontok_bool (const JsonToks *toks, gint index)
{
    const JsonTok *tok = tok_at (toks, index);

    return tok != NULL && tok->type == JSONTOK_TRUE;
}

/* Appends the code point @c as UTF-8. */
static void
append_unichar (GString *out, gunichar c)
{
    char utf8[8];
    gint n = g_unichar_to_utf8 (c, utf8);
    g_string_append_len (out, utf8, n);
}

/* The string token's text, unescaped, into @out (emptied first). */
static void
unescape (const JsonToks *toks, const JsonTok *tok, GString *out)
{
    const char *p = toks->text + tok->start;
    const char *end = toks->text + tok->end;

    g_string_truncate (out, 0);
    while (p < end) {
        if (*p != '\\') {
            g_string_append_c (out, *p++);
            continue;
        }
        p++;
        switch (*p) {
        case 'b': g_string_append_c (out, '\b'); p++; break;
        case 'f': g_string_append_c (out, '\f'); p++; break;
        case 'n': g_string_append_c (out, '\n'); p++; break;
        case 'r': g_string_append_c (out, '\r'); p++; break;
        case 't': g_string_append_c (out, '\t'); p++; break;
        case 'u': {
            char hex[5] = { p[1], p[2], p[3], p[4], '\0' };
            gunichar c = (gunichar) strtoul (hex, NULL, 16);
            p += 5;
            /* A surrogate pair is one code point; a lone surrogate becomes U+FFFD. */
            if (c >= 0xD800 && c <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                char low_hex[5] = { p[2], p[3], p[4], p[5], '\0' };
                gunichar low = (gunichar) strtoul (low_hex, NULL, 16);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            append_unichar (out, (c >= 0xD800 && c <= 0xDFFF) || c == 0 ? 0xFFFD : c);
            break;
        }
        default: g_string_append_c (out, *p++); break;  /* " \ / */
        }
    }
}

const char *
jsontok_string (const JsonToks *toks, gint index, GStringChunk *chunk)
{
    const JsonTok *tok = tok_at (toks, index);

    if (tok == NULL || tok->type != JSONTOK_STRING)
        return NULL;
    if (!tok->escaped)
        return g_string_chunk_insert_len (chunk, toks->text + tok->start,
                                          (gssize) (tok->end - tok->start));
    g_autoptr (GString) out = g_string_sized_new (tok->end - tok->start);
    unescape (toks, tok, out);
    return g_string_chunk_insert_len (chunk, out->str, (gssize) out->len);
}

gboolean
jsontok_string_equals (const JsonToks *toks, gint index, const char *text)
{
    const JsonTok *tok = tok_at (toks, index);

    if (tok == NULL || tok->type != JSONTOK_STRING)
        return FALSE;
    if (!tok->escaped) {
        gsize n = tok->end - tok->start;
        return strlen (text) == n && memcmp (toks->text + tok->start, text, n) == 0;
    }
    g_autoptr (GString) out = g_string_new (NULL);
    unescape (toks, tok, out);
    return strcmp (out->str, text) == 0;
}
