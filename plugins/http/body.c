/* SPDX-License-Identifier: MIT */
/*
 * Bodies built from fields (body.h): the YAML tree walked once at load
 * into a few parts, adjacent literals merged, so a request only appends
 * and encodes what a substitution produced.  Form and JSON are written
 * here; multipart's parts in multipart.c, through the same builder.
 */
#include "body.h"
#include "expand.h"

#include <stdlib.h>
#include <string.h>

/* What a form encodes: unreserved characters as they are, a space as '+', the rest %XX. */
static void
append_form_encoded (GString *out, const char *s, gsize length)
{
    static const char hex[] = "0123456789ABCDEF";

    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar) s[i];
        if (g_ascii_isalnum (c) || c == '-' || c == '_' || c == '.' || c == '~') {
            g_string_append_c (out, (char) c);
        } else if (c == ' ') {
            g_string_append_c (out, '+');
        } else {
            g_string_append_c (out, '%');
            g_string_append_c (out, hex[c >> 4]);
            g_string_append_c (out, hex[c & 15]);
        }
    }
}

/* JSON string content, without the quotes. */
static void
append_json_escaped (GString *out, const char *s, gsize length)
{
    static const char hex[] = "0123456789abcdef";

    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar) s[i];
        if (c == '"' || c == '\\') {
            g_string_append_c (out, '\\');
            g_string_append_c (out, (char) c);
        } else if (c == '\n') {
            g_string_append (out, "\\n");
        } else if (c == '\r') {
            g_string_append (out, "\\r");
        } else if (c == '\t') {
            g_string_append (out, "\\t");
        } else if (c < 0x20) {
            g_string_append (out, "\\u00");
            g_string_append_c (out, hex[c >> 4]);
            g_string_append_c (out, hex[c & 15]);
        } else {
            g_string_append_c (out, (char) c);
        }
    }
}

struct _HttpBodyBuilder {
    ThrongScope *scope;
    GArray *parts;              /* HttpBodyPart */
    gboolean varies;            /* a part is a template */
    guint fields;               /* form fields so far: each after the first starts with '&' */
};
typedef HttpBodyBuilder Builder;

static GString *
literal (Builder *b)
{
    HttpBodyPart *last = b->parts->len > 0
                             ? &g_array_index (b->parts, HttpBodyPart, b->parts->len - 1)
                             : NULL;

    if (last == NULL || last->kind != HTTP_BODY_PART_LITERAL) {
        HttpBodyPart part = { .kind = HTTP_BODY_PART_LITERAL, .text = g_string_new (NULL) };
        g_array_append_val (b->parts, part);
        last = &g_array_index (b->parts, HttpBodyPart, b->parts->len - 1);
    }
    return last->text;
}

GString *
http_body_builder_literal (HttpBodyBuilder *b)
{
    return literal (b);
}

/* A string value: its text encoded now, or a part that encodes it as it expands. */
static gboolean
add_string (Builder *b, const ThrongNode *node, HttpBodyPartKind kind, GError **error)
{
    ThrongTemplate *tpl = throng_template_compile (b->scope, node, error);
    const char *text;
    gsize length;

    if (tpl == NULL)
        return FALSE;
    text = throng_template_get_literal (tpl, &length);
    if (text != NULL) {
        if (kind == HTTP_BODY_PART_FORM)
            append_form_encoded (literal (b), text, length);
        else if (kind == HTTP_BODY_PART_JSON)
            append_json_escaped (literal (b), text, length);
        else
            g_string_append_len (literal (b), text, (gssize)length);
        throng_template_free (tpl);
        return TRUE;
    }
    HttpBodyPart part = { .kind = kind, .tpl = tpl };
    g_array_append_val (b->parts, part);
    b->varies = TRUE;
    return TRUE;
}

gboolean
http_body_builder_add_template (HttpBodyBuilder *b, const ThrongNode *node, HttpBodyPartKind kind,
                                GError **error)
{
    return add_string (b, node, kind, error);
}

static gboolean
form_field (Builder *b, const char *key, const ThrongNode *value, GError **error)
{
    if (throng_node_kind (value) != THRONG_NODE_SCALAR) {
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                               "a form field's value is text or a list of texts (a list repeats "
                               "the field)");
        return FALSE;
    }
    if (b->fields++ > 0)
        g_string_append_c (literal (b), '&');
    append_form_encoded (literal (b), key, strlen (key));
    g_string_append_c (literal (b), '=');
    /* `field:` with nothing: the field, empty. */
    if (throng_node_is_null (value))
        return TRUE;
    return add_string (b, value, HTTP_BODY_PART_FORM, error);
}

static gboolean
form_compile (Builder *b, const ThrongNode *form, GError **error)
{
    if (throng_node_kind (form) != THRONG_NODE_MAP || throng_node_n_children (form) == 0) {
        throng_node_set_error (form, error, THRONG_PLAN_ERROR_TYPE,
                               "form is a map of field names to values, such as "
                               "{ user: alice, password: \"${data.password}\" }");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (form); i++) {
        const char *key = throng_node_scalar (throng_node_key (form, i));
        const ThrongNode *value = throng_node_child (form, i);

        if (throng_node_kind (value) == THRONG_NODE_SEQUENCE) {
            for (guint k = 0; k < throng_node_n_children (value); k++)
                if (!form_field (b, key, throng_node_child (value, k), error))
                    return FALSE;
        } else if (!form_field (b, key, value, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/* A plain scalar that JSON reads as a number: YAML's and JSON's agree on these. */
static gboolean
is_json_number (const char *text)
{
    const char *p = text;

    if (*p == '-')
        p++;
    if (!g_ascii_isdigit (*p) || (p[0] == '0' && g_ascii_isdigit (p[1])))
        return FALSE;
    while (g_ascii_isdigit (*p))
        p++;
    if (*p == '.') {
        p++;
        if (!g_ascii_isdigit (*p))
            return FALSE;
        while (g_ascii_isdigit (*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!g_ascii_isdigit (*p))
            return FALSE;
        while (g_ascii_isdigit (*p))
            p++;
    }
    return *p == '\0';
}

static gboolean
json_value (Builder *b, const ThrongNode *node, guint depth, GError **error)
{
    /* As deep as any real request body goes; a YAML alias bomb cannot come this far. */
    if (depth > 64) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_LIMIT,
                               "a json body nests deeper than 64 levels");
        return FALSE;
    }
    switch (throng_node_kind (node)) {
    case THRONG_NODE_MAP:
        g_string_append_c (literal (b), '{');
        for (guint i = 0; i < throng_node_n_children (node); i++) {
            const char *key = throng_node_scalar (throng_node_key (node, i));
            if (i > 0)
                g_string_append_c (literal (b), ',');
            g_string_append_c (literal (b), '"');
            append_json_escaped (literal (b), key, strlen (key));
            g_string_append (literal (b), "\":");
            if (!json_value (b, throng_node_child (node, i), depth + 1, error))
                return FALSE;
        }
        g_string_append_c (literal (b), '}');
        return TRUE;
    case THRONG_NODE_SEQUENCE:
        g_string_append_c (literal (b), '[');
        for (guint i = 0; i < throng_node_n_children (node); i++) {
            if (i > 0)
                g_string_append_c (literal (b), ',');
            if (!json_value (b, throng_node_child (node, i), depth + 1, error))
                return FALSE;
        }
        g_string_append_c (literal (b), ']');
        return TRUE;
    default:
        break;
    }
    /* A plain scalar keeps its YAML type; a quoted one is text, whatever it reads. */
    const char *text = throng_node_scalar (node);
    if (throng_node_is_plain (node)) {
        if (throng_node_is_null (node)) {
            g_string_append (literal (b), "null");
            return TRUE;
        }
        if (strcmp (text, "true") == 0 || strcmp (text, "false") == 0 || is_json_number (text)) {
            g_string_append (literal (b), text);
            return TRUE;
        }
    }
    g_string_append_c (literal (b), '"');
    if (!add_string (b, node, HTTP_BODY_PART_JSON, error))
        return FALSE;
    g_string_append_c (literal (b), '"');
    return TRUE;
}

static void
part_clear (gpointer data)
{
    HttpBodyPart *part = data;

    if (part->text != NULL)
        g_string_free (part->text, TRUE);
    throng_template_free (part->tpl);
}

gboolean
http_body_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *form,
                   const ThrongNode *json, const ThrongNode *multipart, GError **error)
{
    Builder b = { .scope = scope };
    const ThrongNode *given[] = { form, json, multipart };
    static const char *const names[] = { "form", "json", "multipart" };
    const ThrongNode *node = NULL;
    const char *name = NULL;
    g_autofree char *boundary = NULL;
    gboolean ok;

    for (guint i = 0; i < G_N_ELEMENTS (given); i++) {
        if (given[i] == NULL)
            continue;
        if (node != NULL) {
            throng_node_set_error (given[i], error, THRONG_PLAN_ERROR_INVALID,
                                   "a step sends one body: %s or %s, not both", name, names[i]);
            return FALSE;
        }
        node = given[i];
        name = names[i];
    }
    if (node == NULL)
        return TRUE;
    if (step->body != NULL || step->body_template != NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "a step sends one body: %s, or body / body_file", name);
        return FALSE;
    }
    if (scope == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "form, json and multipart bodies need throng 0.4 or later");
        return FALSE;
    }
    /* Its boundary is chosen here: a Content-Type the step wrote could not name it. */
    if (multipart != NULL && http_step_has_header (step, "Content-Type")) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "a multipart body sets its own Content-Type (multipart/form-data "
                               "with the boundary throng chose): remove the step's Content-Type "
                               "header");
        return FALSE;
    }
    b.parts = g_array_new (FALSE, TRUE, sizeof (HttpBodyPart));
    g_array_set_clear_func (b.parts, part_clear);
    if (form != NULL)
        ok = form_compile (&b, form, error);
    else if (json != NULL)
        ok = json_value (&b, json, 0, error);
    else
        ok = http_multipart_compile (&b, multipart, &boundary, error);
    if (!ok) {
        g_array_unref (b.parts);
        return FALSE;
    }
    if (b.varies) {
        step->body_parts = b.parts;
        step->templated = TRUE;
    } else {
        GString *text = b.parts->len > 0 ? g_array_index (b.parts, HttpBodyPart, 0).text : NULL;
        step->body = text != NULL ? g_bytes_new (text->str, text->len) : g_bytes_new (NULL, 0);
        g_array_unref (b.parts);
    }
    if (!http_step_has_header (step, "Content-Type"))
        http_step_add_header (step, "Content-Type",
                              form != NULL ? g_strdup ("application/x-www-form-urlencoded")
                              : json != NULL
                                  ? g_strdup ("application/json")
                                  : g_strdup_printf ("multipart/form-data; boundary=%s", boundary));
    return TRUE;
}

void
http_body_free (HttpStep *step)
{
    g_clear_pointer (&step->body_parts, g_array_unref);
}

gboolean
http_body_expand (const HttpStep *step, ThrongUser *user, GString *out, GString *scratch,
                  GString *why)
{
    for (guint i = 0; i < step->body_parts->len; i++) {
        const HttpBodyPart *part = &g_array_index (step->body_parts, HttpBodyPart, i);
        g_autoptr (GError) error = NULL;

        if (part->kind == HTTP_BODY_PART_LITERAL) {
            g_string_append_len (out, part->text->str, (gssize) part->text->len);
            continue;
        }
        g_string_truncate (scratch, 0);
        if (!throng_template_expand (part->tpl, user, scratch, &error)) {
            g_string_assign (why, error->message);
            return FALSE;
        }
        if (part->kind == HTTP_BODY_PART_FORM)
            append_form_encoded (out, scratch->str, scratch->len);
        else if (part->kind == HTTP_BODY_PART_JSON)
            append_json_escaped (out, scratch->str, scratch->len);
        else
            g_string_append_len (out, scratch->str, (gssize)scratch->len);
    }
    return TRUE;
}
