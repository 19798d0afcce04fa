/* SPDX-License-Identifier: MIT */
/*
 * Evaluating one extractor or one check on a response (rules.h): pure
 * functions of the response and the compiled rule, with no user, scope
 * or sample, so that a unit test drives them directly.  A JSON body is
 * parsed at most once per response, whatever number of rules read it.
 */
#include "rules.h"

#include <string.h>

void
http_judge_init (HttpJudge *judge)
{
    memset (judge, 0, sizeof *judge);
    judge->text = g_string_sized_new (64);
    judge->seen = g_string_sized_new (64);
    judge->message = g_string_sized_new (128);
    judge->value = g_string_sized_new (64);
    judge->regexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) g_regex_unref);
}

void
http_judge_clear (HttpJudge *judge)
{
    g_clear_object (&judge->parser);
    if (judge->text != NULL)
        g_string_free (judge->text, TRUE);
    if (judge->seen != NULL)
        g_string_free (judge->seen, TRUE);
    if (judge->message != NULL)
        g_string_free (judge->message, TRUE);
    if (judge->value != NULL)
        g_string_free (judge->value, TRUE);
    g_clear_pointer (&judge->regexes, g_hash_table_unref);
    memset (judge, 0, sizeof *judge);
}

/* The body parsed as JSON, or NULL when it is not JSON (or not kept). */
static JsonNode *
json_root (HttpJudge *judge, const HttpResponseView *response)
{
    if (judge->parsed)
        return judge->root;
    judge->parsed = TRUE;
    judge->root = NULL;
    if (response->body == NULL)
        return NULL;
    if (judge->parser == NULL)
        judge->parser = json_parser_new_immutable ();
    if (json_parser_load_from_data (judge->parser, response->body, (gssize)response->body_len,
                                    NULL))
        judge->root = json_parser_get_root (judge->parser);
    return judge->root;
}

/* The shortest text that reads back as @value (0.1, not 0.10000000000000001). */
static const char *
shortest_double (char *buffer, gsize size, gdouble value)
{
    static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };

    for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
        g_ascii_formatd (buffer, (gint)size, formats[i], value);
        if (g_ascii_strtod (buffer, NULL) == value)
            break;
    }
    return buffer;
}

/*
 * A JSON value as text: a string's contents, a number or boolean as its
 * JSON text (7, not 7.0; 0.1, not 0.10000000000000001), null as `null`,
 * an object or array as compact JSON.
 */
static void
json_value_text (JsonNode *node, GString *out)
{
    char number[G_ASCII_DTOSTR_BUF_SIZE];

    switch (json_node_get_node_type (node)) {
    case JSON_NODE_NULL:
        g_string_append (out, "null");
        return;
    case JSON_NODE_VALUE:
        switch (json_node_get_value_type (node)) {
        case G_TYPE_STRING:
            g_string_append (out, json_node_get_string (node));
            return;
        case G_TYPE_INT64:
            g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
            return;
        case G_TYPE_DOUBLE: {
            gdouble value = json_node_get_double (node);
            /* An integral double (1e3) reads as the integer it is. */
            if (value == (gdouble)(gint64)value && value > -9e15 && value < 9e15)
                g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64)value);
            else
                g_string_append (out, shortest_double (number, sizeof number, value));
            return;
        }
        case G_TYPE_BOOLEAN:
            g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
            return;
        default:
            break;
        }
        break;
    default: {
        g_autofree char *text = json_to_string (node, FALSE);
        g_string_append (out, text);
        return;
    }
    }
}

/*
 * The first value @path finds in the body, as text into @out; FALSE when
 * none.  A plain path is read by a scan (jsonpath.c); *@not_json (may be
 * NULL) says whether the body failed to read as JSON.
 */
static gboolean
json_find (JsonPath *path, const HttpJsonPath *scan, const HttpResponseView *response,
           HttpJudge *judge, GString *out, gboolean *not_json)
{
    JsonNode *root;
    g_autoptr (JsonNode) matches = NULL;
    JsonArray *array;

    if (scan != NULL) {
        HttpJsonFound found = response->body != NULL ? http_json_path_find (scan, response->body,
                                                                            response->body_len, out)
                                                     : HTTP_JSON_INVALID;
        if (not_json != NULL)
            *not_json = found == HTTP_JSON_INVALID;
        return found == HTTP_JSON_FOUND;
    }
    root = json_root (judge, response);
    if (not_json != NULL)
        *not_json = root == NULL;
    if (root == NULL)
        return FALSE;
    matches = json_path_match (path, root);
    array = matches != NULL ? json_node_get_array (matches) : NULL;
    if (array == NULL || json_array_get_length (array) == 0)
        return FALSE;
    json_value_text (json_array_get_element (array, 0), out);
    return TRUE;
}

/*
 * Every value @path finds, as a compact JSON array (`[]` when none): a
 * list a `foreach` walks.  FALSE only when the body is not JSON.
 */
static gboolean
json_find_all (JsonPath *path, const HttpJsonPath *scan, const HttpResponseView *response,
               HttpJudge *judge, GString *out)
{
    JsonNode *root;

    if (scan != NULL)
        return response->body != NULL
               && http_json_path_find_all (scan, response->body, response->body_len, out)
                      == HTTP_JSON_FOUND;
    root = json_root (judge, response);
    if (root == NULL)
        return FALSE;
    g_autoptr (JsonNode) matches = json_path_match (path, root);
    g_autofree char *text = json_to_string (matches, FALSE);
    g_string_append (out, text);
    return TRUE;
}

/* The value of the first Set-Cookie of the response that sets @name. */
static gboolean
cookie_find (const char *name, const HttpResponseView *response, GString *out)
{
    SoupMessageHeadersIter iter;
    const char *header, *value;
    gsize name_len = strlen (name);

    soup_message_headers_iter_init (&iter, response->headers);
    while (soup_message_headers_iter_next (&iter, &header, &value)) {
        const char *end;

        if (g_ascii_strcasecmp (header, "Set-Cookie") != 0)
            continue;
        while (*value == ' ' || *value == '\t')
            value++;
        if (strncmp (value, name, name_len) != 0 || value[name_len] != '=')
            continue;
        value += name_len + 1;
        end = strchr (value, ';');
        if (end == NULL)
            end = value + strlen (value);
        while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        /* A quoted value (RFC 6265 §4.1.1) is kept without its quotes. */
        if (end - value >= 2 && *value == '"' && end[-1] == '"') {
            value++;
            end--;
        }
        g_string_append_len (out, value, end - value);
        return TRUE;
    }
    return FALSE;
}

/* The text of @group of the first match of @regex in the body. */
static gboolean
regex_find (GRegex *regex, guint group, const HttpResponseView *response, GString *out)
{
    g_autoptr (GMatchInfo) info = NULL;
    gint start, end;

    if (response->body == NULL
        || !g_regex_match_full (regex, response->body, (gssize)response->body_len, 0, 0, &info,
                                NULL))
        return FALSE;
    if (!g_match_info_fetch_pos (info, (gint)group, &start, &end) || start < 0)
        return FALSE;
    g_string_append_len (out, response->body + start, end - start);
    return TRUE;
}

gboolean
http_extract_eval (const HttpExtractor *extractor, const HttpResponseView *response,
                   HttpJudge *judge, GString *out)
{
    const char *value;

    g_string_truncate (out, 0);
    switch (extractor->kind) {
    case HTTP_EXTRACT_JSON:
        if (extractor->all)
            return json_find_all (extractor->path, extractor->scan, response, judge, out);
        return json_find (extractor->path, extractor->scan, response, judge, out, NULL);
    case HTTP_EXTRACT_REGEX:
        return regex_find (extractor->regex != NULL ? extractor->regex : judge->regex,
                           extractor->group, response, out);
    case HTTP_EXTRACT_HEADER:
        value = soup_message_headers_get_list (response->headers, extractor->arg);
        if (value == NULL)
            return FALSE;
        g_string_append (out, value);
        return TRUE;
    case HTTP_EXTRACT_COOKIE:
        return cookie_find (extractor->arg, response, out);
    case HTTP_EXTRACT_STATUS:
        g_string_append_printf (out, "%u", response->status);
        return TRUE;
    default:
        g_assert_not_reached ();
    }
}

/* Appends up to HTTP_SEEN_MAX bytes of @text, cut at a whole UTF-8 character. */
static void
seen_append (GString *seen, const char *text, gsize len)
{
    if (len > HTTP_SEEN_MAX) {
        const char *end = text + HTTP_SEEN_MAX;
        /* Back to the start of the character the cut falls in. */
        while (end > text && ((guchar)*end & 0xC0) == 0x80)
            end--;
        len = (gsize)(end - text);
    }
    g_string_append_len (seen, text, (gssize)len);
}

static gboolean
regex_matches (GRegex *regex, const char *text, gsize len)
{
    return g_regex_match_full (regex, text, (gssize)len, 0, 0, NULL, NULL);
}

static gboolean
body_contains (const HttpResponseView *response, const char *needle, gsize len)
{
    if (response->body == NULL)
        return FALSE;
    if (len == 0)
        return TRUE;
    return memmem (response->body, response->body_len, needle, len) != NULL;
}

/* Whether a found value (json or header) passes the check's test. */
static gboolean
value_passes (const HttpCheck *check, const HttpJudge *judge, const char *text, gsize len)
{
    const char *expected = check->template != NULL ? judge->value->str : check->value;
    gsize expected_len = check->template != NULL ? judge->value->len
                         : expected != NULL     ? strlen (expected)
                                                : 0;
    GRegex *regex = check->template != NULL ? judge->regex : check->regex;

    switch (check->test) {
    case HTTP_TEST_EXISTS:
        return TRUE;
    case HTTP_TEST_ABSENT:
        return FALSE;
    case HTTP_TEST_EQUALS:
        return expected_len == len && memcmp (expected, text, len) == 0;
    case HTTP_TEST_MATCHES:
        return regex_matches (regex, text, len);
    case HTTP_TEST_CONTAINS:
        return expected_len == 0 || memmem (text, len, expected, expected_len) != NULL;
    default:
        g_assert_not_reached ();
    }
}

gboolean
http_check_eval (const HttpCheck *check, const HttpResponseView *response, HttpJudge *judge,
                 GString *seen)
{
    GString *text = judge->text;
    const char *value;
    gboolean found, not_json;

    g_string_truncate (seen, 0);
    switch (check->kind) {
    case HTTP_CHECK_STATUS:
        g_string_append_printf (seen, "%u", response->status);
        return response->status >= 100 && response->status < 740
               && ((check->expect[(response->status - 100) / 64] >> ((response->status - 100) % 64))
                   & 1);
    case HTTP_CHECK_DURATION:
        g_string_append_printf (seen, "%" G_GINT64_FORMAT "ms", response->elapsed_us / 1000);
        return response->elapsed_us <= check->max_us;
    case HTTP_CHECK_TTFB:
    case HTTP_CHECK_CONNECT:
    case HTTP_CHECK_TLS: {
        gint64 us = response->sample == NULL               ? 0
                    : check->kind == HTTP_CHECK_TTFB    ? response->sample->latency_us
                    : check->kind == HTTP_CHECK_CONNECT ? response->sample->connect_us
                                                        : response->sample->tls_us;
        g_string_append_printf (seen, "%" G_GINT64_FORMAT ".%03dms", us / 1000,
                                (int)(us % 1000));
        return us <= check->max_us;
    }
    case HTTP_CHECK_PROTOCOL:
        value = response->sample != NULL ? response->sample->protocol : NULL;
        g_string_append (seen, value != NULL ? value : "nothing");
        return value != NULL && strcmp (value, check->subject) == 0;
    case HTTP_CHECK_URL: {
        /* Credentials never reach a report, nor what a check compares. */
        g_autofree char *url = response->uri != NULL
                                   ? g_uri_to_string_partial (response->uri, G_URI_HIDE_USERINFO)
                                   : NULL;
        if (url == NULL) {
            g_string_append (seen, "no URL");
            return FALSE;
        }
        seen_append (seen, url, strlen (url));
        return value_passes (check, judge, url, strlen (url));
    }
    case HTTP_CHECK_BODY_CONTAINS:
    case HTTP_CHECK_BODY_REGEX:
        if (response->body != NULL)
            seen_append (seen, response->body, response->body_len);
        if (check->kind == HTTP_CHECK_BODY_CONTAINS)
            return check->template != NULL
                       ? body_contains (response, judge->value->str, judge->value->len)
                       : body_contains (response, check->value, strlen (check->value));
        return response->body != NULL
               && regex_matches (check->template != NULL ? judge->regex : check->regex,
                                 response->body, response->body_len);
    case HTTP_CHECK_JSON:
        g_string_truncate (text, 0);
        found = json_find (check->path, check->scan, response, judge, text, &not_json);
        if (!found) {
            g_string_append (seen, not_json ? "no JSON body" : "nothing");
            return check->test == HTTP_TEST_ABSENT;
        }
        seen_append (seen, text->str, text->len);
        return value_passes (check, judge, text->str, text->len);
    case HTTP_CHECK_HEADER:
        value = soup_message_headers_get_list (response->headers, check->subject);
        if (value == NULL) {
            g_string_append (seen, "no such header");
            return check->test == HTTP_TEST_ABSENT;
        }
        seen_append (seen, value, strlen (value));
        return value_passes (check, judge, value, strlen (value));
    default:
        g_assert_not_reached ();
    }
}
