/* SPDX-License-Identifier: MIT */
/*
 * The correlation finder of `throng import har`
 * (docs/har.md#correlation-tokens-and-ids):
 * a value that a response of the recording returned and a later request
 * sent (a CSRF token, an API token, a cart's or an order's id) differs in
 * every run, so a replay must take it from the response it gets.  For each
 * value a request sends (a path segment, a query or form value, a JSON
 * value, a header) that an earlier response returned before any request
 * sent it, this finds an extractor on the earliest step whose response
 * holds it (import-har-extract.c, or the whole Location of a redirect),
 * and templates every later occurrence as `${vars.NAME}`.  Only values that
 * look made up by a program are replaced (16 characters, or 8 with letters
 * and digits, or an id-named JSON member's); shorter ones that a response
 * returned are named in a comment on the step that sends them, as is a
 * made-up value for which no extractor could be found.
 */
#include "import-har-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "template-filter-private.h"

/* A value shorter than this is not named in a comment ("1", "en", "42"). */
#define NAMED_MIN 4
/* Longer than this is not a token but a document. */
#define VALUE_MAX 2048

typedef enum { FIELD_URL, FIELD_HEADER, FIELD_FORM, FIELD_JSON, FIELD_TEXT } FieldKind;

typedef struct {
    gsize offset, length;
    guint var;
    const char *filter;         /* NULL, "urlencode" or "json" */
} Span;

/* One string of a request that templates may replace parts of. */
typedef struct {
    FieldKind kind;
    const char *name;           /* a header's */
    const char *text;           /* as recorded */
    GArray *spans;              /* Span, not overlapping */
    gboolean whole;             /* replaced whole by spans[0]'s variable */
    char **out;                 /* where its template goes */
} Field;

typedef struct {
    char *name;
    char *value;
    guint source;               /* index of the request whose response gives it */
} Var;

/* Where a value came from: each value's requests and responses are scanned once. */
typedef struct {
    guint scanned;              /* requests and responses before this one were looked at */
    guint first;                /* the first response that returned it, or G_MAXUINT */
    gboolean client;            /* a request sent it before any response returned it */
} Origin;

typedef struct {
    HarImport *import;
    GPtrArray *vars;            /* Var* */
    GHashTable *by_value;       /* value → Var*, borrowed */
    GHashTable *names;          /* variable names taken */
    GHashTable *origins;        /* value → Origin: where it came from, as far as looked */
    GPtrArray *bodies;          /* per request: its body as text, or NULL */
    GPtrArray *words;           /* per request: GHashTable of its response body's words, or NULL */
    GPtrArray *fields;          /* per request: GPtrArray of Field* */
} Correlator;

/* ---- values ----------------------------------------------------------------- */

/*
 * @value as the filter @filter writes it at run time (core/template-filter.c,
 * the same code): a value templated as `${vars.NAME | json}` or
 * `| urlencode` is found in the recording only where the replay will send
 * it back byte for byte.  (json_to_string() escaped as the filter does for
 * every value worth_naming() lets through, but not for 0x1f and DEL.)
 */
static char *
filtered (const char *value, ThrongTemplateFilter filter)
{
    GString *out = g_string_new (NULL);

    throng_template_filter_append (out, filter, value, strlen (value));
    return g_string_free (out, FALSE);
}

/* Whether @value looks made up by a program, not typed or chosen by a person. */
static gboolean
looks_generated (const char *value)
{
    gsize length = strlen (value);
    gboolean digit = FALSE, alpha = FALSE;

    for (const char *p = value; *p != '\0'; p++) {
        digit |= g_ascii_isdigit (*p);
        alpha |= g_ascii_isalpha (*p);
    }
    return length >= 16 || (length >= 8 && digit && alpha);
}

/* Whether @value may be named at all: printable, no space, not a word every page holds. */
static gboolean
worth_naming (const char *value)
{
    static const char *const common[] = { "true", "false", "null", "undefined", "none", NULL };
    gsize length = strlen (value);

    if (length < 3 || length > VALUE_MAX || g_strv_contains (common, value))
        return FALSE;
    for (const char *p = value; *p != '\0'; p++)
        if ((guchar) *p <= 0x20 || *p == 0x7f)
            return FALSE;
    return TRUE;
}

static gboolean
text_holds (const char *text, const char *value, const char *encoded)
{
    return text != NULL
           && (har_find_alone (text, value, text) != NULL
               || (encoded != NULL && har_find_alone (text, encoded, text) != NULL));
}

/* Whether @request sent @value (or its percent-encoding), outside its Cookie header. */
static gboolean
request_sends (const HarRequest *request, const char *body, const char *value,
               const char *encoded)
{
    if (text_holds (request->target, value, encoded))
        return TRUE;
    for (guint h = 0; h < request->headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (request->headers, h);
        if (g_ascii_strcasecmp (header->name, "cookie") != 0
            && text_holds (header->value, value, encoded))
            return TRUE;
    }
    return text_holds (body, value, encoded);
}

static gboolean
response_returns (const HarRequest *request, GHashTable *words, const char *value,
                  const char *encoded)
{
    /* What the server says of itself and of the message, not what it gives the user. */
    static const char *const about_message[] = {
        "date", "expires", "last-modified", "age", "server", "content-length", "content-type",
        "cache-control", "vary", "via", "keep-alive", "strict-transport-security", NULL,
    };

    if (har_may_hold (words, value) && text_holds (request->response_body, value, encoded))
        return TRUE;
    for (guint h = 0; h < request->response_headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (request->response_headers, h);
        gboolean skip = FALSE;
        for (guint i = 0; about_message[i] != NULL && !skip; i++)
            skip = g_ascii_strcasecmp (header->name, about_message[i]) == 0;
        if (!skip && text_holds (header->value, value, encoded))
            return TRUE;
    }
    for (guint c = 0; c < request->response_cookies->len; c++) {
        const HarHeader *cookie = g_ptr_array_index (request->response_cookies, c);
        if (strcmp (cookie->value, value) == 0)
            return TRUE;
    }
    return FALSE;
}

/* ---- variables and templates ------------------------------------------------- */

/* @hint as a variable name: lower case letters, digits and '_', unique in the plan. */
static char *
var_name (Correlator *c, const char *hint)
{
    g_autoptr (GString) name = g_string_new (NULL);

    for (const char *p = hint != NULL ? hint : ""; *p != '\0' && name->len < 32; p++) {
        if (g_ascii_isalnum (*p))
            g_string_append_c (name, g_ascii_tolower (*p));
        else if (name->len > 0 && name->str[name->len - 1] != '_')
            g_string_append_c (name, '_');
    }
    while (name->len > 0 && name->str[name->len - 1] == '_')
        g_string_truncate (name, name->len - 1);
    /* Not a word YAML reads as a boolean or null, since it is written as a plain key. */
    static const char *const yaml_words[] = { "y", "n", "yes", "no", "on", "off", "true",
                                              "false", "null", NULL };
    if (name->len == 0 || g_ascii_isdigit (name->str[0])
        || g_strv_contains (yaml_words, name->str))
        g_string_prepend (name, "value_");
    g_autofree char *base = g_strdup (name->str);
    for (guint n = 2; g_hash_table_contains (c->names, name->str); n++)
        g_string_printf (name, "%s_%u", base, n);
    g_hash_table_add (c->names, g_strdup (name->str));
    return g_string_free (g_steal_pointer (&name), FALSE);
}

static Var *
var_add (Correlator *c, const char *value, guint source_index, HarSource *source, const char *hint)
{
    HarRequest *request = g_ptr_array_index (c->import->requests, source_index);
    Var *var = g_new0 (Var, 1);
    HarExtract *extract = g_new0 (HarExtract, 1);

    var->name = var_name (c, source->name != NULL ? source->name : hint);
    var->value = g_strdup (value);
    var->source = source_index;
    g_ptr_array_add (c->vars, var);
    g_hash_table_insert (c->by_value, var->value, var);
    extract->var = g_strdup (var->name);
    extract->kind = source->kind;
    extract->arg = g_steal_pointer (&source->arg);
    extract->group = source->group;
    g_ptr_array_add (request->extracts, extract);
    return var;
}

static gboolean
overlaps (const GArray *spans, gsize offset, gsize length)
{
    for (guint s = 0; s < spans->len; s++) {
        const Span *span = &g_array_index (spans, Span, s);
        if (offset < span->offset + span->length && span->offset < offset + length)
            return TRUE;
    }
    return FALSE;
}

/* Marks every lone occurrence of @text in @field as @var's; returns how many. */
static guint
mark (Field *field, const char *text, guint var, const char *filter)
{
    guint marked = 0;
    gsize length = strlen (text);

    if (field->whole)
        return 0;
    for (const char *p = har_find_alone (field->text, text, field->text); p != NULL;
         p = har_find_alone (field->text, text, p + 1)) {
        gsize offset = (gsize) (p - field->text);
        /* `$` before `${` would make the template text. */
        if ((offset > 0 && p[-1] == '$') || overlaps (field->spans, offset, length))
            continue;
        Span span = { offset, length, var, filter };
        g_array_append_val (field->spans, span);
        marked++;
    }
    return marked;
}

/* Templates @var's value wherever the fields of @request send it. */
static guint
mark_request (Correlator *c, guint index, guint var_index)
{
    GPtrArray *fields = g_ptr_array_index (c->fields, index);
    const Var *var = g_ptr_array_index (c->vars, var_index);
    g_autofree char *encoded = filtered (var->value, THRONG_TEMPLATE_FILTER_URLENCODE);
    g_autofree char *escaped = filtered (var->value, THRONG_TEMPLATE_FILTER_JSON);
    guint marked = 0;

    for (guint f = 0; f < fields->len; f++) {
        Field *field = g_ptr_array_index (fields, f);
        if (field->kind == FIELD_JSON && strcmp (escaped, var->value) != 0)
            marked += mark (field, escaped, var_index, "json");
        else
            marked += mark (field, var->value, var_index, NULL);
        if ((field->kind == FIELD_URL || field->kind == FIELD_FORM)
            && strcmp (encoded, var->value) != 0)
            marked += mark (field, encoded, var_index, "urlencode");
    }
    return marked;
}

void
har_append_literal (GString *out, const char *text, gsize length)
{
    for (gsize i = 0; i < length; i++) {
        if (text[i] == '$' && i + 1 < length && text[i + 1] == '{')
            g_string_append_c (out, '$');
        g_string_append_c (out, text[i]);
    }
}

static gint
span_compare (gconstpointer a, gconstpointer b)
{
    const Span *x = a, *y = b;

    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void
render (Correlator *c, Field *field)
{
    g_autoptr (GString) out = g_string_new (NULL);
    gsize at = 0;

    if (field->spans->len == 0)
        return;
    g_array_sort (field->spans, span_compare);
    for (guint s = 0; s < field->spans->len; s++) {
        const Span *span = &g_array_index (field->spans, Span, s);
        const Var *var = g_ptr_array_index (c->vars, span->var);
        har_append_literal (out, field->text + at, span->offset - at);
        g_string_append_printf (out, "${vars.%s%s%s}", var->name, span->filter != NULL ? " | " : "",
                                span->filter != NULL ? span->filter : "");
        at = span->offset + span->length;
    }
    har_append_literal (out, field->text + at, strlen (field->text) - at);
    g_free (*field->out);
    *field->out = g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- what a request sends -------------------------------------------------- */

typedef struct {
    char *value;
    char *hint;                 /* the name it is sent under, or NULL */
    const char *where;          /* "the url", "the body", or a header's name */
} Candidate;

static void
candidate_free (gpointer data)
{
    Candidate *candidate = data;

    g_free (candidate->value);
    g_free (candidate->hint);
    g_free (candidate);
}

static void
add_candidate (GPtrArray *out, char *value, const char *hint, const char *where)
{
    if (value == NULL)
        return;
    for (guint i = 0; i < out->len; i++) {
        if (strcmp (((Candidate *) g_ptr_array_index (out, i))->value, value) == 0) {
            g_free (value);
            return;
        }
    }
    Candidate *candidate = g_new0 (Candidate, 1);
    candidate->value = value;
    candidate->hint = g_strdup (hint);
    candidate->where = where;
    g_ptr_array_add (out, candidate);
}

/* The values of `a=1&b=2` (a query, a form), decoded. */
static void
pair_candidates (GPtrArray *out, const char *text, const char *where)
{
    g_auto (GStrv) pairs = g_strsplit (text, "&", -1);

    for (char **pair = pairs; *pair != NULL; pair++) {
        const char *eq = strchr (*pair, '=');
        if (eq == NULL)
            continue;
        g_autofree char *name = g_strndup (*pair, (gsize) (eq - *pair));
        g_autofree char *value = g_strdelimit (g_strdup (eq + 1), "+", ' ');
        add_candidate (out, g_uri_unescape_string (value, NULL), name, where);
    }
}

/* A path's segments, each hinted by the one before it (/carts/ID), and its query's values. */
static void
url_candidates (GPtrArray *out, const char *target, const char *where)
{
    const char *query = strchr (target, '?');
    g_autofree char *path = g_strndup (target, query != NULL ? (gsize) (query - target)
                                                             : strlen (target));
    g_auto (GStrv) segments = g_strsplit (path, "/", -1);

    for (guint s = 0; segments[s] != NULL; s++)
        add_candidate (out, g_uri_unescape_string (segments[s], NULL),
                       s > 0 ? segments[s - 1] : NULL, where);
    if (query != NULL)
        pair_candidates (out, query + 1, where);
}

static void
json_candidates (GPtrArray *out, JsonNode *node, const char *key)
{
    if (JSON_NODE_HOLDS_OBJECT (node)) {
        JsonObject *object = json_node_get_object (node);
        g_autoptr (GList) members = json_object_get_members (object);
        for (GList *m = members; m != NULL; m = m->next)
            json_candidates (out, json_object_get_member (object, m->data), m->data);
    } else if (JSON_NODE_HOLDS_ARRAY (node)) {
        JsonArray *array = json_node_get_array (node);
        for (guint i = 0; i < json_array_get_length (array); i++)
            json_candidates (out, json_array_get_element (array, i), key);
    } else if (JSON_NODE_HOLDS_VALUE (node)) {
        if (json_node_get_value_type (node) == G_TYPE_STRING)
            add_candidate (out, g_strdup (json_node_get_string (node)), key, "the body");
        else if (json_node_get_value_type (node) == G_TYPE_INT64)
            add_candidate (out, g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node)),
                           key, "the body");
    }
}

/* Words of a body that is neither a form nor JSON: runs of URL-safe characters, 8 or more. */
static void
text_candidates (GPtrArray *out, const char *text)
{
    const char *p = text;

    while (*p != '\0') {
        const char *start = p;
        while (g_ascii_isalnum (*p) || (*p != '\0' && strchr ("-._~", *p) != NULL))
            p++;
        if (p - start >= 8)
            add_candidate (out, g_strndup (start, (gsize) (p - start)), NULL, "the body");
        if (p == start)
            p++;
    }
}

/* Headers that say what the browser is, never what a response gave it. */
static const char *const browser_headers[] = {
    "accept", "accept-encoding", "accept-language", "user-agent", "content-type", "origin",
    "cookie", NULL,
};

static void
header_candidates (GPtrArray *out, const HarHeader *header)
{
    for (guint i = 0; browser_headers[i] != NULL; i++)
        if (g_ascii_strcasecmp (header->name, browser_headers[i]) == 0)
            return;
    if (g_ascii_strcasecmp (header->name, "referer") == 0) {
        g_autoptr (GUri) uri = g_uri_parse (header->value, G_URI_FLAGS_ENCODED, NULL);
        if (uri != NULL) {
            g_autofree char *target = g_strdup_printf (
                "%s%s%s", g_uri_get_path (uri), g_uri_get_query (uri) != NULL ? "?" : "",
                g_uri_get_query (uri) != NULL ? g_uri_get_query (uri) : "");
            url_candidates (out, target, header->name);
        }
        return;
    }
    /* `Authorization: Bearer TOKEN`: the credentials after the scheme. */
    const char *space = strchr (header->value, ' ');
    if (space != NULL && strchr (space + 1, ' ') == NULL)
        add_candidate (out, g_strdup (space + 1), header->name, header->name);
    add_candidate (out, g_strdup (header->value), header->name, header->name);
}

/* ---- the fields a request's templates replace ---------------------------------- */

static void
field_free (gpointer data)
{
    Field *field = data;

    g_array_unref (field->spans);
    g_free ((char *) field->text);
    g_free (field);
}

static Field *
add_field (GPtrArray *fields, FieldKind kind, const char *name, const char *text, char **out)
{
    Field *field = g_new0 (Field, 1);

    field->kind = kind;
    field->name = name;
    field->text = g_strdup (text);
    field->spans = g_array_new (FALSE, FALSE, sizeof (Span));
    field->out = out;
    g_ptr_array_add (fields, field);
    return field;
}

static gboolean
is_form (const HarRequest *request)
{
    return request->content_type != NULL
           && g_str_has_prefix (request->content_type, "application/x-www-form-urlencoded");
}

/* The request's body as text; NULL when it has none, or a binary one. */
static char *
body_text (const HarRequest *request)
{
    gsize length = 0;
    const char *data = request->body != NULL ? g_bytes_get_data (request->body, &length) : NULL;

    if (request->body == NULL || request->body_binary || request->body_file != NULL)
        return NULL;
    if (data == NULL || memchr (data, '\0', length) != NULL || !g_utf8_validate (data, (gssize) length, NULL))
        return NULL;
    return g_strndup (data, length);
}

/* The request's fields (url first), and what it sends in them. */
static GPtrArray *
request_fields (HarRequest *request, GPtrArray *candidates)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func (field_free);

    add_field (fields, FIELD_URL, NULL, request->target, &request->url_template);
    url_candidates (candidates, request->target, "the url");
    for (guint h = 0; h < request->headers->len; h++) {
        HarHeader *header = g_ptr_array_index (request->headers, h);
        if (g_ascii_strcasecmp (header->name, "cookie") == 0)
            continue;
        add_field (fields, FIELD_HEADER, header->name, header->value, &header->template);
        header_candidates (candidates, header);
    }
    g_autofree char *body = body_text (request);
    if (body == NULL)
        return fields;
    g_autoptr (JsonParser) parser = json_parser_new ();
    if (is_form (request)) {
        add_field (fields, FIELD_FORM, NULL, body, &request->body_template);
        pair_candidates (candidates, body, "the body");
    } else if ((*body == '{' || *body == '[') && json_parser_load_from_data (parser, body, -1, NULL)
               && json_parser_get_root (parser) != NULL) {
        add_field (fields, FIELD_JSON, NULL, body, &request->body_template);
        json_candidates (candidates, json_parser_get_root (parser), NULL);
    } else {
        add_field (fields, FIELD_TEXT, NULL, body, &request->body_template);
        text_candidates (candidates, body);
    }
    return fields;
}

/* ---- finding them --------------------------------------------------------------- */

static HarRequest *
request_at (Correlator *c, guint index)
{
    return g_ptr_array_index (c->import->requests, index);
}

/* The url field of request @index. */
static Field *
url_field (Correlator *c, guint index)
{
    GPtrArray *fields = g_ptr_array_index (c->fields, index);

    return g_ptr_array_index (fields, 0);
}

static guint
var_index (Correlator *c, const Var *var)
{
    guint index = 0;
    gboolean found = g_ptr_array_find (c->vars, var, &index);

    g_assert (found);
    return index;
}

/* A new variable: its extractor on @from's step, its template in every later request. */
static void
correlate (Correlator *c, const char *value, guint from, HarSource *source, const char *hint)
{
    Var *var = var_add (c, value, from, source, hint);
    guint index = var_index (c, var);

    for (guint k = from + 1; k < c->import->requests->len; k++)
        mark_request (c, k, index);
}

/*
 * A request to where the previous response redirected, when that place
 * holds a value made up by the response (/orders/ID): its url is the
 * response's whole Location.
 */
static void
correlate_location (Correlator *c, guint index)
{
    HarRequest *request = request_at (c, index);
    HarRequest *previous = index > 0 ? request_at (c, index - 1) : NULL;
    const char *location = NULL;

    if (previous == NULL || previous->status < 300 || previous->status > 399
        || strcmp (request->origin, request_at (c, 0)->origin) != 0)
        return;
    for (guint h = 0; h < previous->response_headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (previous->response_headers, h);
        if (g_ascii_strcasecmp (header->name, "location") == 0)
            location = header->value;
    }
    g_autofree char *resolved = location != NULL ? g_uri_resolve_relative (previous->url, location,
                                                                            G_URI_FLAGS_ENCODED,
                                                                            NULL)
                                                 : NULL;
    if (resolved == NULL || strcmp (resolved, request->url) != 0)
        return;
    g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (candidate_free);
    url_candidates (candidates, request->target, "the url");
    gboolean made_up = FALSE;
    for (guint i = 0; i < candidates->len && !made_up; i++) {
        const char *value = ((Candidate *) g_ptr_array_index (candidates, i))->value;
        g_autofree char *encoded = filtered (value, THRONG_TEMPLATE_FILTER_URLENCODE);
        gboolean sent = FALSE;
        for (guint k = 0; k < index && !sent; k++)
            sent = request_sends (request_at (c, k), g_ptr_array_index (c->bodies, k), value,
                                  encoded);
        made_up = looks_generated (value) && !sent;
    }
    if (!made_up)
        return;
    HarSource source = { .kind = "header", .arg = g_strdup ("Location"), .name = NULL };
    Var *var = var_add (c, location, index - 1, &source, "location");
    Field *url = url_field (c, index);
    Span whole = { 0, strlen (url->text), var_index (c, var), NULL };
    g_array_append_val (url->spans, whole);
    url->whole = TRUE;
}

/* @name as a comment writes it: `vars.NAME`'s NAME, without claiming it in the plan. */
static char *
comment_name (const char *name)
{
    g_autofree char *text = g_strdelimit (g_strdup (name != NULL && *name != '\0' ? name : "value"),
                                          "-. ", '_');
    return g_ascii_strdown (text, -1);
}

/* How a source reads in a comment: `extract: { NAME: { json: "$.id" } }`. */
static char *
describe (const HarSource *source, const char *name)
{
    if (source->group > 0)
        return g_strdup_printf ("extract: { %s: { regex: '%s', group: %u } }", name, source->arg,
                                source->group);
    return g_strdup_printf ("extract: { %s: { %s: \"%s\" } }", name, source->kind, source->arg);
}

/* One value request @index sends: a correlation, a comment, or nothing. */
static void
correlate_value (Correlator *c, guint index, const Candidate *candidate)
{
    const char *value = candidate->value;
    HarRequest *request = request_at (c, index);

    /* A word without a digit is the page's text ("checkout", "orders"), unless it is long. */
    if (!worth_naming (value) || g_hash_table_contains (c->by_value, value)
        || (!looks_generated (value) && strpbrk (value, "0123456789") == NULL))
        return;
    /* Where it came from: the first response that held it, before any request sent it. */
    Origin *origin = g_hash_table_lookup (c->origins, value);
    if (origin == NULL) {
        origin = g_new0 (Origin, 1);
        origin->first = G_MAXUINT;
        g_hash_table_insert (c->origins, g_strdup (value), origin);
    }
    g_autofree char *encoded = filtered (value, THRONG_TEMPLATE_FILTER_URLENCODE);
    for (; origin->scanned < index && origin->first == G_MAXUINT && !origin->client;
         origin->scanned++) {
        guint k = origin->scanned;
        if (request_sends (request_at (c, k), g_ptr_array_index (c->bodies, k), value, encoded))
            origin->client = TRUE;
        else if (response_returns (request_at (c, k), g_ptr_array_index (c->words, k), value,
                                   encoded))
            origin->first = k;
    }
    guint first = origin->first;
    if (origin->client || first == G_MAXUINT)
        return;

    g_auto (HarSource) source = { 0 };
    guint from = G_MAXUINT;
    for (guint k = first; k < index && from == G_MAXUINT; k++)
        if (har_find_source (request_at (c, k), value, &source))
            from = k;
    gboolean generated = looks_generated (value) || (source.id_named && strlen (value) >= 2);
    g_autofree char *shown = g_strndup (value, 40);
    const char *more = strlen (value) > 40 ? "…" : "";

    if (generated && from != G_MAXUINT) {
        correlate (c, value, from, &source, candidate->hint);
        return;
    }
    if (generated) {
        c->import->uncertain++;
        g_ptr_array_add (request->notes,
                         g_strdup_printf ("'%s%s' (in %s) came from entry %u's response, where "
                                          "no extractor finds it: replace it by hand",
                                          shown, more, candidate->where,
                                          request_at (c, first)->entry + 1));
        return;
    }
    if (strlen (value) < NAMED_MIN)
        return;
    c->import->uncertain++;
    g_autofree char *name = comment_name (source.name != NULL ? source.name : candidate->hint);
    g_autofree char *how = from != G_MAXUINT ? describe (&source, name) : NULL;
    g_ptr_array_add (request->notes,
                     g_strdup_printf ("'%s%s' (in %s) is also in entry %u's response: if it "
                                      "differs per run, extract it there%s%s%s and send "
                                      "${vars.%s}",
                                      shown, more, candidate->where,
                                      request_at (c, from != G_MAXUINT ? from : first)->entry + 1,
                                      how != NULL ? " (" : "", how != NULL ? how : "",
                                      how != NULL ? ")" : "", name));
}

static void
words_free (gpointer data)
{
    if (data != NULL)
        g_hash_table_unref (data);
}

static void
var_free (gpointer data)
{
    Var *var = data;

    g_free (var->name);
    g_free (var->value);
    g_free (var);
}

void
har_correlate (HarImport *import)
{
    Correlator c = {
        .import = import,
        .vars = g_ptr_array_new_with_free_func (var_free),
        .by_value = g_hash_table_new (g_str_hash, g_str_equal),
        .names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
        .fields = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref),
        .origins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
        .bodies = g_ptr_array_new_with_free_func (g_free),
        .words = g_ptr_array_new_with_free_func (words_free),
    };
    g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

    for (guint i = 0; i < import->requests->len; i++) {
        GPtrArray *sent = g_ptr_array_new_with_free_func (candidate_free);
        g_ptr_array_add (c.fields, request_fields (request_at (&c, i), sent));
        g_ptr_array_add (c.bodies, body_text (request_at (&c, i)));
        g_ptr_array_add (c.words, har_words_of (request_at (&c, i)->response_body));
        g_ptr_array_add (candidates, sent);
    }
    for (guint i = 0; i < import->requests->len; i++) {
        GPtrArray *sent = g_ptr_array_index (candidates, i);
        correlate_location (&c, i);
        for (guint k = 0; k < sent->len; k++) {
            const Candidate *candidate = g_ptr_array_index (sent, k);
            Field *url = url_field (&c, i);
            /* A url that is a redirect's whole Location sends nothing of its own. */
            if (url->whole && strcmp (candidate->where, "the url") == 0)
                continue;
            correlate_value (&c, i, candidate);
        }
    }
    for (guint i = 0; i < c.fields->len; i++) {
        GPtrArray *fields = g_ptr_array_index (c.fields, i);
        for (guint f = 0; f < fields->len; f++)
            render (&c, g_ptr_array_index (fields, f));
    }

    import->correlated = c.vars->len;
    g_ptr_array_unref (c.fields);
    g_hash_table_unref (c.names);
    g_hash_table_unref (c.origins);
    g_ptr_array_unref (c.bodies);
    g_ptr_array_unref (c.words);
    g_hash_table_unref (c.by_value);
    g_ptr_array_unref (c.vars);
}
