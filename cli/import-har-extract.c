/* SPDX-License-Identifier: MIT */
/*
 * Where in a recorded response a value is, as an extractor of a plan
 * (docs/har.md#correlation-tokens-and-ids): a JSONPath to a JSON member,
 * a regex on an HTML tag anchored on its name or id, a cookie, a header,
 * or a regex of the text before the value.  Each is run on the recorded
 * response, as the http plugin would run it, and kept only when it gives
 * exactly the recorded value.  A body's words, as a set, tell quickly that
 * a value is not in it.
 */
#include "import-har-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Context before a value that a text regex may use, shortest first. */
static const guint context_lengths[] = { 12, 24, 40 };

static gboolean
word_char (char c)
{
    return g_ascii_isalnum (c);
}

/* Occurrences of @needle in @text that stand alone (no letter or digit either side). */
const char *
har_find_alone (const char *text, const char *needle, const char *from)
{
    gsize length = strlen (needle);

    for (const char *p = strstr (from, needle); p != NULL; p = strstr (p + 1, needle)) {
        gboolean left = p == text || !word_char (p[-1]);
        gboolean right = !word_char (p[length]);
        if (left && right)
            return p;
    }
    return NULL;
}

/* A JSON member name that says it holds an identifier or a secret. */
static gboolean
id_named (const char *key)
{
    static const char *const suffixes[] = { "id", "Id", "ID", "token", "Token", "key", "Key",
                                            "csrf", "nonce", "session", "uuid", NULL };
    for (guint i = 0; suffixes[i] != NULL; i++)
        if (g_str_has_suffix (key, suffixes[i]))
            return TRUE;
    return FALSE;
}

void
har_source_clear (HarSource *source)
{
    g_clear_pointer (&source->arg, g_free);
    g_clear_pointer (&source->name, g_free);
}


/* Whether a regex extractor's pattern finds exactly @value first in @body. */
static gboolean
regex_finds (const char *pattern, guint group, const char *body, const char *value)
{
    g_autoptr (GRegex) regex = g_regex_new (pattern, 0, 0, NULL);
    g_autoptr (GMatchInfo) match = NULL;

    if (regex == NULL || !g_regex_match (regex, body, 0, &match))
        return FALSE;
    g_autofree char *found = g_match_info_fetch (match, (gint) group);
    return g_strcmp0 (found, value) == 0;
}

static gboolean
plain_member (const char *name)
{
    if (!g_ascii_isalpha (*name) && *name != '_')
        return FALSE;
    for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != '_')
            return FALSE;
    return TRUE;
}

/* A member name that `$['…']` may quote as it is: letters, digits, spaces, '-' and '_'. */
static gboolean
bracket_member (const char *name)
{
    for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != ' ' && *p != '-' && *p != '_')
            return FALSE;
    return *name != '\0';
}

/* Whether json-glib's JSONPath, as a plan compiles it, selects @value first in @root. */
static gboolean
json_path_finds (const char *path, JsonNode *root, const char *value)
{
    g_autoptr (JsonPath) compiled = json_path_new ();
    g_autoptr (JsonNode) found = NULL;

    if (!json_path_compile (compiled, path, NULL))
        return FALSE;
    found = json_path_match (compiled, root);
    if (found == NULL || !JSON_NODE_HOLDS_ARRAY (found)
        || json_array_get_length (json_node_get_array (found)) == 0)
        return FALSE;
    JsonNode *first = json_array_get_element (json_node_get_array (found), 0);
    if (!JSON_NODE_HOLDS_VALUE (first))
        return FALSE;
    if (json_node_get_value_type (first) == G_TYPE_STRING)
        return strcmp (json_node_get_string (first), value) == 0;
    if (json_node_get_value_type (first) == G_TYPE_INT64) {
        g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (first));
        return strcmp (text, value) == 0;
    }
    return FALSE;
}

/* The first scalar of @node, in document order, whose text is @value: its path in @path. */
static gboolean
json_find (JsonNode *node, const char *value, GString *path, const char **key, const char **parent)
{
    gsize mark = path->len;

    if (JSON_NODE_HOLDS_OBJECT (node)) {
        JsonObject *object = json_node_get_object (node);
        g_autoptr (GList) members = json_object_get_members (object);
        for (GList *m = members; m != NULL; m = m->next) {
            const char *name = m->data;
            if (plain_member (name))
                g_string_append_printf (path, ".%s", name);
            else if (bracket_member (name))
                g_string_append_printf (path, "['%s']", name);
            else
                continue;
            const char *before = *key;
            *key = name;
            if (json_find (json_object_get_member (object, name), value, path, key, parent)) {
                if (*parent == NULL && before != NULL && *key != name)
                    *parent = name;
                else if (*key == name)
                    *parent = before;
                return TRUE;
            }
            *key = before;
            g_string_truncate (path, mark);
        }
        return FALSE;
    }
    if (JSON_NODE_HOLDS_ARRAY (node)) {
        JsonArray *array = json_node_get_array (node);
        for (guint i = 0; i < json_array_get_length (array); i++) {
            g_string_append_printf (path, "[%u]", i);
            if (json_find (json_array_get_element (array, i), value, path, key, parent))
                return TRUE;
            g_string_truncate (path, mark);
        }
        return FALSE;
    }
    if (!JSON_NODE_HOLDS_VALUE (node))
        return FALSE;
    if (json_node_get_value_type (node) == G_TYPE_STRING)
        return strcmp (json_node_get_string (node), value) == 0;
    if (json_node_get_value_type (node) == G_TYPE_INT64) {
        g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
        return strcmp (text, value) == 0;
    }
    return FALSE;
}

static gboolean
json_source (const HarRequest *response, const char *value, HarSource *source)
{
    const char *body = response->response_body;
    g_autoptr (JsonParser) parser = json_parser_new ();

    if (body == NULL || (strstr (response->response_mime != NULL ? response->response_mime : "",
                                 "json") == NULL
                         && *body != '{' && *body != '['))
        return FALSE;
    if (!json_parser_load_from_data (parser, body, -1, NULL) || json_parser_get_root (parser) == NULL)
        return FALSE;
    g_autoptr (GString) path = g_string_new ("$");
    const char *key = NULL, *parent = NULL;
    if (!json_find (json_parser_get_root (parser), value, path, &key, &parent)
        || !json_path_finds (path->str, json_parser_get_root (parser), value))
        return FALSE;
    source->kind = "json";
    source->arg = g_strdup (path->str);
    source->id_named = key != NULL && id_named (key);
    /* "id" alone names nothing: the member that holds it ("cart" → cart_id) does. */
    if (key != NULL && parent != NULL && strlen (key) <= 5)
        source->name = g_strdup_printf ("%s_%s", parent, key);
    else if (key != NULL)
        source->name = g_strdup (key);
    return TRUE;
}

/* An attribute of the tag holding [@tag, @end), as `NAME="VALUE"`, or NULL. */
static char *
tag_attribute (const char *tag, const char *end, const char *name, char *quote)
{
    g_autofree char *copy = g_strndup (tag, (gsize) (end - tag));
    g_autofree char *wanted = g_strdup_printf (" %s=", name);
    const char *at = strstr (copy, wanted);

    if (at == NULL)
        return NULL;
    at += strlen (wanted);
    if (*at != '"' && *at != '\'')
        return NULL;
    const char *close = strchr (at + 1, *at);
    if (close == NULL)
        return NULL;
    *quote = *at;
    return g_strndup (at + 1, (gsize) (close - at - 1));
}

/*
 * A value in an HTML attribute (`<input name="csrf_token" value="…">`,
 * `<meta name="csrf-token" content="…">`, `<p id="order" data-order="…">`):
 * a regex anchored on the tag's name or id attribute, in the order the
 * page writes them.
 */
static gboolean
html_source (const HarRequest *response, const char *value, HarSource *source)
{
    const char *body = response->response_body;

    for (const char *at = body != NULL ? strstr (body, value) : NULL; at != NULL;
         at = strstr (at + 1, value)) {
        char quote = at > body ? at[-1] : '\0';
        if ((quote != '"' && quote != '\'') || at[strlen (value)] != quote || at - body < 2
            || at[-2] != '=')
            continue;
        const char *attr_end = at - 2, *attr = attr_end;
        while (attr > body && (g_ascii_isalnum (attr[-1]) || attr[-1] == '-' || attr[-1] == '_'))
            attr--;
        const char *open = attr;
        while (open > body && *open != '<' && *open != '>')
            open--;
        const char *close = strchr (at, '>');
        if (*open != '<' || close == NULL || attr == attr_end)
            continue;
        g_autofree char *attribute = g_strndup (attr, (gsize) (attr_end - attr));
        for (const char *const *key = (const char *const[]) { "name", "id", NULL }; *key != NULL;
             key++) {
            char key_quote = '"';
            g_autofree char *key_value = tag_attribute (open, close, *key, &key_quote);
            if (key_value == NULL || strcmp (*key, attribute) == 0 || *key_value == '\0')
                continue;
            g_autofree char *anchor = g_strdup_printf ("%s=%c%s%c", *key, key_quote, key_value,
                                                       key_quote);
            g_autofree char *anchor_re = g_regex_escape_string (anchor, -1);
            g_autofree char *value_re = g_strdup_printf ("%s=%c([^%c]*)%c", attribute, quote,
                                                         quote, quote);
            g_autofree char *key_at = g_strdup_printf (" %s", anchor);
            g_autofree char *tag = g_strndup (open, (gsize) (close - open));
            gboolean key_first = strstr (tag, key_at) != NULL && strstr (tag, key_at) < attr - open + tag;
            g_autofree char *pattern = key_first
                                           ? g_strdup_printf ("%s[^>]*?%s", anchor_re, value_re)
                                           : g_strdup_printf ("%s[^>]*?%s", value_re, anchor_re);
            if (!regex_finds (pattern, 1, body, value))
                continue;
            source->kind = "regex";
            source->arg = g_steal_pointer (&pattern);
            source->group = 1;
            source->name = g_strdup (key_value);
            return TRUE;
        }
    }
    return FALSE;
}

static gboolean
cookie_source (const HarRequest *response, const char *value, HarSource *source)
{
    for (guint c = 0; c < response->response_cookies->len; c++) {
        const HarHeader *cookie = g_ptr_array_index (response->response_cookies, c);
        if (strcmp (cookie->value, value) == 0) {
            source->kind = "cookie";
            source->arg = g_strdup (cookie->name);
            source->name = g_strdup (cookie->name);
            return TRUE;
        }
    }
    return FALSE;
}

static gboolean
header_source (const HarRequest *response, const char *value, HarSource *source)
{
    /* Set-Cookie and Location have extractors of their own; the rest change by the second. */
    static const char *const ignored[] = { "set-cookie", "location", "date", "expires",
                                           "last-modified", "age", "content-length", NULL };

    for (guint h = 0; h < response->response_headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (response->response_headers, h);
        gboolean skip = FALSE;
        for (guint i = 0; ignored[i] != NULL; i++)
            skip |= g_ascii_strcasecmp (header->name, ignored[i]) == 0;
        if (!skip && strcmp (header->value, value) == 0) {
            source->kind = "header";
            source->arg = g_strdup (header->name);
            source->name = g_strdup (header->name);
            return TRUE;
        }
    }
    return FALSE;
}

/*
 * Any other text: a regex of the text just before the value's first
 * occurrence (on its line), then the characters the value is made of.
 */
static gboolean
text_source (const HarRequest *response, const char *value, HarSource *source)
{
    const char *body = response->response_body;
    const char *at = body != NULL ? har_find_alone (body, value, body) : NULL;
    g_autoptr (GString) class = g_string_new ("[");
    gboolean alnum = FALSE;

    if (at == NULL)
        return FALSE;
    for (const char *p = value; *p != '\0'; p++) {
        if (g_ascii_isalnum (*p)) {
            alnum = TRUE;
        } else if (strchr (class->str, *p) == NULL || (*p == '\\' || *p == ']')) {
            g_string_append_c (class, '\\');
            g_string_append_c (class, *p);
        }
    }
    if (alnum)
        g_string_append (class, "A-Za-z0-9");
    g_string_append (class, "]+");
    for (guint i = 0; i < G_N_ELEMENTS (context_lengths); i++) {
        const char *start = at;
        while (start > body && start[-1] != '\n' && (guint) (at - start) < context_lengths[i])
            start--;
        /* Not from the middle of a character. */
        while (start < at && ((guchar) *start & 0xc0) == 0x80)
            start++;
        if (at - start < 4)
            return FALSE;
        g_autofree char *context = g_regex_escape_string (start, (gint) (at - start));
        g_autofree char *pattern = g_strdup_printf ("%s(%s)", context, class->str);
        if (regex_finds (pattern, 1, body, value)) {
            source->kind = "regex";
            source->arg = g_steal_pointer (&pattern);
            source->group = 1;
            return TRUE;
        }
    }
    return FALSE;
}

gboolean
har_find_source (const HarRequest *response, const char *value, HarSource *source)
{
    return json_source (response, value, source) || html_source (response, value, source)
           || cookie_source (response, value, source) || header_source (response, value, source)
           || text_source (response, value, source);
}

/* The runs of letters and digits of @text, as a set; NULL for no text. */
GHashTable *
har_words_of (const char *text)
{
    GHashTable *words = text != NULL ? g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL)
                                     : NULL;

    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *start = p;
        while (g_ascii_isalnum (*p))
            p++;
        if (p > start)
            g_hash_table_add (words, g_strndup (start, (gsize) (p - start)));
        else
            p++;
    }
    return words;
}

/*
 * Whether a body whose words are @words may hold @value alone: when the
 * value begins with letters or digits, that run is a word of the body
 * (its percent-encoding begins with the same run).  A quick no for most
 * values, before the body is searched.
 */
gboolean
har_may_hold (GHashTable *words, const char *value)
{
    gsize run = 0;

    while (g_ascii_isalnum (value[run]))
        run++;
    if (words == NULL || run == 0)
        return words != NULL;
    g_autofree char *first = g_strndup (value, run);
    return g_hash_table_contains (words, first);
}
