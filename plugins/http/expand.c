/* SPDX-License-Identifier: MIT */
/*
 * Templated requests (expand.h): compiling a step's url, header values
 * and body at load, and expanding them per request into the user's
 * reused buffers.  Only the expansion runs on the hot path; it appends
 * each part once and allocates only when a buffer grows (or, for a url
 * that expands to something other than an absolute path, to resolve it).
 */
#include "expand.h"

#include "body.h"
#include "jar.h"

#include <string.h>

/* Bodies are read whole at plan load; beyond this a file is surely a mistake. */
#define HTTP_MAX_BODY_FILE (G_GUINT64_CONSTANT (256) * 1024 * 1024)

void
http_request_text_init (HttpRequestText *text)
{
    text->url = g_string_sized_new (128);
    text->target = g_string_sized_new (128);
    text->body = g_string_sized_new (0);
    text->values = g_string_sized_new (0);
    text->spans = g_array_new (FALSE, TRUE, sizeof (HttpSpan));
    /* Borrowed names and values: no clear function. */
    text->headers = g_array_new (FALSE, TRUE, sizeof (HttpHeader));
    text->message = g_string_sized_new (0);
    text->scratch = g_string_sized_new (0);
    text->cookies = g_string_sized_new (0);
    text->digest = g_string_sized_new (0);
}

void
http_request_text_clear (HttpRequestText *text)
{
    if (text->url == NULL)
        return;
    g_string_free (text->url, TRUE);
    g_string_free (text->target, TRUE);
    g_string_free (text->body, TRUE);
    g_string_free (text->values, TRUE);
    g_array_unref (text->spans);
    g_array_unref (text->headers);
    g_string_free (text->message, TRUE);
    g_string_free (text->scratch, TRUE);
    g_string_free (text->cookies, TRUE);
    g_string_free (text->digest, TRUE);
    memset (text, 0, sizeof *text);
}

char *
http_url_placeholder (const char *text)
{
    GString *out = g_string_sized_new (strlen (text));

    for (const char *p = text; *p != '\0';) {
        if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
            g_string_append_c (out, 'x');
            p += 3;
        } else if (p[0] == '$' && p[1] == '{') {
            const char *end = strchr (p, '}');
            g_string_append_c (out, 'x');
            p = end != NULL ? end + 1 : p + strlen (p);
        } else {
            g_string_append_c (out, *p++);
        }
    }
    return g_string_free (out, FALSE);
}

static gboolean
has_template (const char *text)
{
    return text != NULL && strstr (text, "${") != NULL;
}

/*
 * Compiles @node's text when it has `${`.  Returns FALSE with @error on a
 * bad template.  *@out is the template when something is substituted;
 * otherwise NULL, and *@literal (if given) gets the text with `$${`
 * turned into `${`.
 */
static gboolean
compile (ThrongScope *scope, const ThrongNode *node, ThrongTemplate **out, char **literal,
         GError **error)
{
    ThrongTemplate *tpl;
    const char *text;
    gsize length;

    *out = NULL;
    if (node == NULL || !has_template (throng_node_scalar (node)))
        return TRUE;
    tpl = throng_template_compile (scope, node, error);
    if (tpl == NULL)
        return FALSE;
    text = throng_template_get_literal (tpl, &length);
    if (text == NULL) {
        *out = tpl;
        return TRUE;
    }
    if (literal != NULL) {
        g_free (*literal);
        *literal = g_strndup (text, length);
    }
    throng_template_free (tpl);
    return TRUE;
}

gboolean
http_step_templates_compile (HttpStep *step, ThrongScope *scope, HttpOptions *options,
                             const ThrongNode *url, const ThrongNode *body, GError **error)
{
    GArray *headers = step->headers;

    if (scope == NULL)
        return TRUE;

    /* Only the node that set the url says where it is; a url from --set has one too. */
    if (url != NULL && g_strcmp0 (throng_node_scalar (url), options->url) == 0) {
        if (!compile (scope, url, &step->url_template, &options->url, error))
            return FALSE;
        if (step->url_template != NULL) {
            char *placeholder = http_url_placeholder (options->url);
            g_free (options->url);
            options->url = placeholder;
            if (options->base_url != NULL)
                step->base_uri = g_uri_parse (options->base_url, G_URI_FLAGS_ENCODED, NULL);
        }
    }

    for (guint i = 0; i < headers->len; i++) {
        HttpHeader *header = &g_array_index (headers, HttpHeader, i);
        ThrongTemplate *tpl;

        if (!compile (scope, header->node, &tpl, &header->value, error))
            return FALSE;
        if (tpl == NULL)
            continue;
        if (step->header_templates == NULL)
            step->header_templates = g_new0 (ThrongTemplate *, headers->len);
        step->header_templates[i] = tpl;
    }

    if (options->body != NULL && body != NULL) {
        if (!compile (scope, body, &step->body_template, &options->body, error))
            return FALSE;
    }
    step->templated = step->url_template != NULL || step->header_templates != NULL
                      || step->body_template != NULL;
    return TRUE;
}

gboolean
http_step_body_file (HttpStep *step, ThrongScope *scope, const char *path, gboolean templated,
                     const ThrongNode *where, GError **error)
{
    g_autoptr (GMappedFile) file = NULL;
    g_autoptr (GError) local = NULL;
    const char *contents;
    gsize length;

    file = g_mapped_file_new (path, FALSE, &local);
    if (file == NULL) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_FILE, "cannot read body_file: %s",
                               local->message);
        return FALSE;
    }
    length = g_mapped_file_get_length (file);
    if (length > HTTP_MAX_BODY_FILE) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_LIMIT,
                               "body_file '%s' is larger than 256 MiB", path);
        return FALSE;
    }
    contents = g_mapped_file_get_contents (file);
    if (templated && scope != NULL && length > 0 && g_strstr_len (contents, length, "${") != NULL) {
        ThrongTemplate *tpl
            = throng_template_compile_text (scope, where, path, contents, length, error);
        const char *text;
        gsize literal_length;

        if (tpl == NULL)
            return FALSE;
        text = throng_template_get_literal (tpl, &literal_length);
        if (text == NULL) {
            step->body_template = tpl;
            step->templated = TRUE;
            return TRUE;
        }
        step->body = g_bytes_new (text, literal_length);
        throng_template_free (tpl);
        return TRUE;
    }
    /* A copy, not the mapping: the file may change while the run goes on. */
    step->body = g_bytes_new (contents, length);
    return TRUE;
}

void
http_step_templates_free (HttpStep *step)
{
    g_clear_pointer (&step->url_template, throng_template_free);
    g_clear_pointer (&step->base_uri, g_uri_unref);
    if (step->header_templates != NULL) {
        for (guint i = 0; i < step->headers->len; i++)
            throng_template_free (step->header_templates[i]);
        g_clear_pointer (&step->header_templates, g_free);
    }
    g_clear_pointer (&step->body_template, throng_template_free);
}

void
http_step_add_header (HttpStep *step, const char *name, char *value)
{
    HttpHeader header = { .name = g_strdup (name), .value = value };

    g_array_append_val (step->headers, header);
    /* Templated headers are indexed like the headers: the new one has none. */
    if (step->header_templates != NULL) {
        step->header_templates = g_renew (ThrongTemplate *, step->header_templates,
                                          step->headers->len);
        step->header_templates[step->headers->len - 1] = NULL;
    }
}

gboolean
http_step_has_header (const HttpStep *step, const char *name)
{
    for (guint i = 0; i < step->headers->len; i++)
        if (g_ascii_strcasecmp (g_array_index (step->headers, HttpHeader, i).name, name) == 0)
            return TRUE;
    return FALSE;
}

/* Fails @sample with class `variable`: nothing is sent. */
static gboolean
refuse (HttpRequestText *text, ThrongSample *sample)
{
    sample->error = THRONG_ERROR_VARIABLE;
    throng_sample_set_message (sample, text->message->str);
    return FALSE;
}

static gboolean
expand (const ThrongTemplate *tpl, ThrongUser *user, GString *out, HttpRequestText *text)
{
    g_autoptr (GError) error = NULL;

    if (throng_template_expand (tpl, user, out, &error))
        return TRUE;
    g_string_assign (text->message, error->message);
    return FALSE;
}

/* A request target has no spaces, control bytes or fragment. */
static gboolean
target_is_valid (const char *target, gsize length)
{
    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar)target[i];
        if (c <= ' ' || c == 0x7f)
            return FALSE;
    }
    return TRUE;
}

/* A header value has no CR, LF or NUL (a NUL would cut it short on soup and h2). */
static gboolean
header_value_is_valid (const char *value, gsize length)
{
    for (gsize i = 0; i < length; i++) {
        char c = value[i];
        if (c == '\r' || c == '\n' || c == '\0')
            return FALSE;
    }
    return TRUE;
}

static gboolean
target_refuse (HttpRequestText *text, const char *url)
{
    g_string_printf (text->message,
                     "url expands to '%.80s', which has a space or a control byte; "
                     "use | urlencode",
                     url);
    return FALSE;
}

/*
 * The url's expansion, made in text->target, as a path and query on the
 * step's origin.  An absolute path (the common case) stays where it is,
 * cut at its fragment; anything else is copied to text->url and resolved.
 */
static gboolean
resolve_target (const HttpStep *step, HttpRequestText *text)
{
    const char *url = text->target->str;
    GUri *base = step->base_uri != NULL ? step->base_uri : step->uri;
    g_autoptr (GUri) uri = NULL;
    const char *path, *query;
    int port;

    if (url[0] == '/' && url[1] != '/') {
        const char *hash = memchr (url, '#', text->target->len);
        gsize length = hash != NULL ? (gsize)(hash - url) : text->target->len;

        if (!target_is_valid (url, length))
            return target_refuse (text, url);
        g_string_truncate (text->target, length);
        return TRUE;
    }

    g_string_truncate (text->url, 0);
    g_string_append_len (text->url, text->target->str, (gssize)text->target->len);
    g_string_truncate (text->target, 0);
    url = text->url->str;
    uri = g_uri_parse_relative (base, url, G_URI_FLAGS_ENCODED, NULL);
    if (uri == NULL || g_uri_get_host (uri) == NULL) {
        g_string_printf (text->message, "url expands to '%.80s', which is not a valid URL", url);
        return FALSE;
    }
    port = g_uri_get_port (uri);
    if (port <= 0)
        port = g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0 ? 443 : 80;
    if (g_ascii_strcasecmp (g_uri_get_host (uri), step->host) != 0 || port != step->port
        || (g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0) != step->tls) {
        g_string_printf (text->message,
                         "url expands to '%.80s', another origin than the step's %s:%u", url,
                         step->host, step->port);
        return FALSE;
    }
    path = g_uri_get_path (uri);
    query = g_uri_get_query (uri);
    g_string_append (text->target, *path != '\0' ? path : "/");
    if (query != NULL) {
        g_string_append_c (text->target, '?');
        g_string_append (text->target, query);
    }
    if (!target_is_valid (text->target->str, text->target->len))
        return target_refuse (text, url);
    return TRUE;
}

gboolean
http_request_expand (const HttpStep *step, ThrongUser *user, HttpRequestText *text,
                     ThrongSample *sample)
{
    if (step->url_template != NULL) {
        g_string_truncate (text->target, 0);
        if (!expand (step->url_template, user, text->target, text) || !resolve_target (step, text))
            return refuse (text, sample);
    }

    if (step->header_templates != NULL) {
        const GArray *headers = step->headers;

        g_string_truncate (text->values, 0);
        g_array_set_size (text->spans, headers->len);
        for (guint i = 0; i < headers->len; i++) {
            const ThrongTemplate *tpl = step->header_templates[i];
            HttpSpan *span = &g_array_index (text->spans, HttpSpan, i);

            span->offset = text->values->len;
            span->length = 0;
            if (http_auth_builds_header (step, i)) {
                if (!http_auth_expand_header (step, user, text->values, text->scratch,
                                              text->message))
                    return refuse (text, sample);
            } else if (tpl == NULL) {
                continue;
            } else if (!expand (tpl, user, text->values, text)) {
                return refuse (text, sample);
            }
            span->length = text->values->len - span->offset;
            if (!header_value_is_valid (text->values->str + span->offset, span->length)) {
                g_string_printf (text->message, "header %s expands to a value with a line break",
                                 g_array_index (headers, HttpHeader, i).name);
                return refuse (text, sample);
            }
            g_string_append_c (text->values, '\0');
        }
        /* Pointers only now: values may have moved while it grew. */
        g_array_set_size (text->headers, headers->len);
        for (guint i = 0; i < headers->len; i++) {
            const HttpHeader *header = &g_array_index (headers, HttpHeader, i);
            HttpHeader *sent = &g_array_index (text->headers, HttpHeader, i);

            sent->name = header->name;
            sent->value = http_step_header_varies (step, i)
                              ? text->values->str + g_array_index (text->spans, HttpSpan, i).offset
                              : header->value;
            sent->node = NULL;
        }
    }

    if (step->cookies != NULL
        && !http_step_cookies_expand (step, user, text->cookies, text->message))
        return refuse (text, sample);
    if (step->auth != NULL && step->auth->kind == HTTP_AUTH_DIGEST
        && !http_auth_expand_digest (step, user, text->digest, text->message))
        return refuse (text, sample);

    if (step->body_template != NULL) {
        g_string_truncate (text->body, 0);
        if (!expand (step->body_template, user, text->body, text))
            return refuse (text, sample);
    } else if (step->body_parts != NULL) {
        g_string_truncate (text->body, 0);
        if (!http_body_expand (step, user, text->body, text->scratch, text->message))
            return refuse (text, sample);
    }
    return TRUE;
}

GUri *
http_request_uri (const HttpStep *step, const HttpRequestText *text)
{
    const char *target = http_request_target (step, text);
    const char *query = strchr (target, '?');
    g_autofree char *path = query != NULL ? g_strndup (target, query - target) : g_strdup (target);

    return g_uri_build (G_URI_FLAGS_ENCODED, step->tls ? "https" : "http", NULL, step->host,
                        step->port, path, query != NULL ? query + 1 : NULL, NULL);
}
