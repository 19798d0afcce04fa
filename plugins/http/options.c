/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's options: one table for every layer (defaults.http,
 * the scenario's http map, each step), the documented defaults, and the
 * checks a table cannot express: status lists, files named relative to
 * the plan, exclusive keys and header maps.  Everything here runs while
 * the plan loads, so every error is located at the plan's text.
 */
#include "plan.h"

#include <errno.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <glib/gstdio.h>

#define OPT(n, t, field) .name = (n), .type = (t), .offset = offsetof (HttpOptions, field)

static const char *const transport_choices[] = { "fast", "soup", NULL };
/* In HttpVersion's order. */
static const char *const version_choices[] = { "1.1", "2", "auto", NULL };
static const char *const session_choices[] = { "per-thread", "global", "per-iteration", NULL };
/* In HttpCookieJarPolicy's order. */
static const char *const cookie_jar_choices[] = { "per-iteration", "per-user", "off", NULL };

/*
 * The nested table's offsets are into HttpOptions itself and the TABLE
 * entry's own offset is 0, so the table reads the same whether the core
 * adds the entry's offset to the base or not.
 */
static const ThrongOption tls_table[] = {
    { OPT ("verify", THRONG_OPTION_BOOL, tls.verify) },
    { OPT ("ca_file", THRONG_OPTION_STRING, tls.ca_file) },
    { OPT ("cert_file", THRONG_OPTION_STRING, tls.cert_file) },
    { OPT ("key_file", THRONG_OPTION_STRING, tls.key_file) },
    { OPT ("server_name", THRONG_OPTION_STRING, tls.server_name) },
    { OPT ("priority", THRONG_OPTION_STRING, tls.priority) },
    { OPT ("session", THRONG_OPTION_ENUM, tls.session), .choices = session_choices },
    { OPT ("resumption", THRONG_OPTION_BOOL, tls.resumption) },
    { NULL },
};

const ThrongOption http_options_table[] = {
    { OPT ("base_url", THRONG_OPTION_STRING, base_url), .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("transport", THRONG_OPTION_ENUM, transport), .choices = transport_choices,
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("keep_alive", THRONG_OPTION_BOOL, keep_alive), .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("connect_timeout", THRONG_OPTION_DURATION, connect_timeout_us), .min = 1000,
      .max = G_GINT64_CONSTANT (3600000000), .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { .name = "tls",
      .type = THRONG_OPTION_TABLE,
      .offset = 0,
      .table = tls_table,
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("method", THRONG_OPTION_STRING, method) },
    { OPT ("url", THRONG_OPTION_STRING, url) },
    { OPT ("body", THRONG_OPTION_STRING, body) },
    { OPT ("body_file", THRONG_OPTION_STRING, body_file) },
    { OPT ("headers", THRONG_OPTION_NODE, headers) },
    { OPT ("timeout", THRONG_OPTION_DURATION, timeout_us), .min = 1000,
      .max = G_GINT64_CONSTANT (86400000000) },
    { OPT ("expect_status", THRONG_OPTION_STRING, expect_status) },
    { OPT ("follow_redirects", THRONG_OPTION_BOOL, follow_redirects) },
    { OPT ("max_redirects", THRONG_OPTION_UINT, max_redirects), .min = 0, .max = 100 },
    { OPT ("version", THRONG_OPTION_ENUM, version), .choices = version_choices },
    { OPT ("max_body", THRONG_OPTION_SIZE, max_body), .min = 0,
      .max = G_GINT64_CONSTANT (1) << 40 },
    { OPT ("template", THRONG_OPTION_BOOL, body_template) },
    { OPT ("check", THRONG_OPTION_NODE, check) },
    { OPT ("extract", THRONG_OPTION_NODE, extract) },
    { OPT ("connections_per_user", THRONG_OPTION_UINT, connections_per_user), .min = 1,
      .max = 100, .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("form", THRONG_OPTION_NODE, form) },
    { OPT ("json", THRONG_OPTION_NODE, json) },
    { OPT ("cookie_jar", THRONG_OPTION_ENUM, cookie_jar), .choices = cookie_jar_choices,
      .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { OPT ("cookies", THRONG_OPTION_NODE, cookies) },
    { OPT ("auth", THRONG_OPTION_NODE, auth) },
    { OPT ("multipart", THRONG_OPTION_NODE, multipart) },
    { NULL },
};

void
http_options_init (HttpOptions *options)
{
    memset (options, 0, sizeof *options);
    options->transport = HTTP_TRANSPORT_FAST;
    options->keep_alive = TRUE;
    options->connect_timeout_us = HTTP_DEFAULT_CONNECT_TIMEOUT_US;
    options->tls.verify = TRUE;
    options->tls.priority = g_strdup (HTTP_DEFAULT_PRIORITY);
    options->tls.session = HTTP_SESSION_PER_THREAD;
    options->tls.resumption = TRUE;
    options->method = g_strdup ("GET");
    options->timeout_us = 30 * G_USEC_PER_SEC;
    options->expect_status = g_strdup ("2xx,3xx");
    options->follow_redirects = FALSE;
    options->max_redirects = 10;
    options->max_body = 64 * 1024 * 1024;
    options->version = HTTP_VERSION_1_1;
    options->connections_per_user = 6;
    options->cookie_jar = HTTP_COOKIE_JAR_PER_ITERATION;
}

void
http_options_clear (HttpOptions *options)
{
    throng_options_clear (http_options_table, options);
}

void
http_options_copy (HttpOptions *dest, const HttpOptions *src)
{
    memcpy (dest, src, sizeof *dest);
    throng_options_copy_strings (http_options_table, dest);
}

static gboolean
parse_status (const char *text, guint *out)
{
    if (strlen (text) != 3 || !g_ascii_isdigit (text[0]) || !g_ascii_isdigit (text[1])
        || !g_ascii_isdigit (text[2]))
        return FALSE;
    guint value = (guint)atoi (text);
    if (value < 100 || value > 599)
        return FALSE;
    *out = value;
    return TRUE;
}

static void
expect_set (guint64 expect[10], guint first, guint last)
{
    for (guint status = first; status <= last; status++) {
        guint bit = status - 100;
        expect[bit / 64] |= G_GUINT64_CONSTANT (1) << (bit % 64);
    }
}

gboolean
http_expect_parse (const char *text, guint64 expect[10], GError **error)
{
    guint64 bits[10] = { 0 };
    g_auto (GStrv) items = g_strsplit (text, ",", -1);

    if (items[0] == NULL)
        goto empty;
    for (guint i = 0; items[i] != NULL; i++) {
        char *item = g_strstrip (items[i]);
        guint first, last;
        const char *dash = strchr (item, '-');

        if (*item == '\0')
            goto empty;
        if (strlen (item) == 3 && item[0] >= '1' && item[0] <= '5'
            && g_ascii_tolower (item[1]) == 'x' && g_ascii_tolower (item[2]) == 'x') {
            first = (guint)(item[0] - '0') * 100;
            last = first + 99;
        } else if (dash != NULL) {
            g_autofree char *low = g_strndup (item, (gsize)(dash - item));
            if (!parse_status (g_strstrip (low), &first)
                || !parse_status (g_strstrip ((char *)dash + 1), &last) || last < first) {
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "'%s' is not a status range like 200-299", item);
                return FALSE;
            }
        } else if (parse_status (item, &first)) {
            last = first;
        } else {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "'%s' is not a status (100-599), a range (200-299) or a class (2xx)",
                         item);
            return FALSE;
        }
        expect_set (bits, first, last);
    }
    memcpy (expect, bits, sizeof bits);
    return TRUE;

empty:
    g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                 "expect_status has an empty item; write e.g. \"2xx,304\"");
    return FALSE;
}

static gboolean
is_null (const ThrongNode *node)
{
    return node == NULL
           || (throng_node_kind (node) == THRONG_NODE_SCALAR && throng_node_is_null (node));
}

/* Makes the file option @field absolute against @node's plan and checks it can be read. */
static gboolean
resolve_file (const ThrongNode *node, char **field, GError **error)
{
    if (*field == NULL)
        return TRUE;
    if (!g_path_is_absolute (*field)) {
        g_autofree char *dir = g_path_get_dirname (throng_node_file (node));
        g_autofree char *joined = g_build_filename (dir, *field, NULL);
        /* Absolute: glib-networking refuses relative CA file names. */
        g_free (*field);
        *field = g_canonicalize_filename (joined, NULL);
    }
    if (g_access (*field, R_OK) != 0) {
        int saved = errno;
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_FILE, "cannot read '%s': %s",
                               throng_node_scalar (node), g_strerror (saved));
        return FALSE;
    }
    /* A FIFO would block whoever opens it (GnuTLS, the body's mapping); a device never ends. */
    return throng_node_check_file (node, *field, error);
}

static gboolean
check_priority (const ThrongNode *node, const char *priority, GError **error)
{
    gnutls_priority_t cache;
    const char *where = NULL;
    int rc = gnutls_priority_init (&cache, priority, &where);

    if (rc != GNUTLS_E_SUCCESS) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "invalid GnuTLS priority string '%s' (near '%s')", priority,
                               where != NULL ? where : "");
        return FALSE;
    }
    gnutls_priority_deinit (cache);
    return TRUE;
}

gboolean
http_options_apply_layer (const ThrongNode *map, HttpOptions *options, gboolean in_step,
                          HttpLayerNodes *nodes, GError **error)
{
    if (is_null (map))
        return TRUE;
    if (!throng_options_apply (map, http_options_table, options, in_step, "http options", error))
        return FALSE;

    const ThrongNode *tls = throng_node_lookup (map, "tls");
    const ThrongNode *body = throng_node_lookup (map, "body");
    const ThrongNode *body_file = throng_node_lookup (map, "body_file");
    const ThrongNode *node;

    nodes->map = map;
#define RECORD(field, parent, key)                                                                 \
    if ((parent) != NULL && (node = throng_node_lookup ((parent), (key))) != NULL)                 \
        nodes->field = node;
    RECORD (base_url, map, "base_url");
    RECORD (url, map, "url");
    RECORD (method, map, "method");
    RECORD (check, map, "check");
    RECORD (extract, map, "extract");
    if (tls != NULL && throng_node_kind (tls) == THRONG_NODE_MAP) {
        nodes->tls = tls;
        RECORD (ca_file, tls, "ca_file");
        RECORD (cert_file, tls, "cert_file");
        RECORD (key_file, tls, "key_file");
        RECORD (priority, tls, "priority");
    }
#undef RECORD

    if ((node = throng_node_lookup (map, "expect_status")) != NULL) {
        guint64 expect[10];
        g_autoptr (GError) local = NULL;
        if (!http_expect_parse (options->expect_status, expect, &local)) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID, "%s", local->message);
            return FALSE;
        }
    }

    /* A cookie a step sets belongs to that step's origin; defaults have none. */
    if (!in_step && (node = throng_node_lookup (map, "cookies")) != NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "cookies: goes on a step (it sets cookies for that step's origin); "
                               "the scenario's http map takes cookie_jar");
        return FALSE;
    }

    if (body != NULL && body_file != NULL) {
        throng_node_set_error (body_file, error, THRONG_PLAN_ERROR_INVALID,
                               "body and body_file exclude each other; keep one");
        return FALSE;
    }
    if (body != NULL) {
        g_clear_pointer (&options->body_file, g_free);
        nodes->body = body;
        nodes->body_file = NULL;
    }
    if (body_file != NULL) {
        g_clear_pointer (&options->body, g_free);
        if (!resolve_file (body_file, &options->body_file, error))
            return FALSE;
        nodes->body_file = body_file;
        nodes->body = NULL;
    }

    if (tls != NULL) {
        static const struct {
            const char *key;
            gsize offset;
        } files[] = {
            { "ca_file", G_STRUCT_OFFSET (HttpOptions, tls.ca_file) },
            { "cert_file", G_STRUCT_OFFSET (HttpOptions, tls.cert_file) },
            { "key_file", G_STRUCT_OFFSET (HttpOptions, tls.key_file) },
        };
        for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
            node = throng_node_lookup (tls, files[i].key);
            if (node != NULL
                && !resolve_file (node, G_STRUCT_MEMBER_P (options, files[i].offset), error))
                return FALSE;
        }
        if ((node = throng_node_lookup (tls, "priority")) != NULL
            && !check_priority (node, options->tls.priority, error))
            return FALSE;
    }

    if ((node = throng_node_lookup (map, "headers")) != NULL && !is_null (node)
        && throng_node_kind (node) != THRONG_NODE_MAP) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "headers must be a map of header names to values");
        return FALSE;
    }
    return TRUE;
}

/* RFC 9110 token characters: what a method or a header name may contain. */
static gboolean
is_token (const char *text)
{
    if (text == NULL || *text == '\0')
        return FALSE;
    for (const char *p = text; *p != '\0'; p++) {
        if (!g_ascii_isalnum (*p) && strchr ("!#$%&'*+-.^_`|~", *p) == NULL)
            return FALSE;
    }
    return TRUE;
}

static void
header_clear (gpointer data)
{
    HttpHeader *header = data;
    g_free (header->name);
    g_free (header->value);
}

GArray *
http_headers_new (void)
{
    GArray *headers = g_array_new (FALSE, TRUE, sizeof (HttpHeader));
    g_array_set_clear_func (headers, header_clear);
    return headers;
}

GArray *
http_headers_copy (GArray *headers)
{
    GArray *copy = http_headers_new ();
    for (guint i = 0; i < headers->len; i++) {
        HttpHeader *header = &g_array_index (headers, HttpHeader, i);
        HttpHeader item = { g_strdup (header->name), g_strdup (header->value), header->node };
        g_array_append_val (copy, item);
    }
    return copy;
}

gboolean
http_headers_merge (GArray *headers, const ThrongNode *map, GError **error)
{
    const ThrongNode *node = is_null (map) ? NULL : throng_node_lookup (map, "headers");

    if (is_null (node))
        return TRUE;
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const ThrongNode *value = throng_node_child (node, i);
        const char *name = throng_node_scalar (key);
        const char *text = throng_node_scalar (value);

        if (!is_token (name)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' is not a valid header name", name ? name : "");
            return FALSE;
        }
        if (throng_node_kind (value) != THRONG_NODE_SCALAR) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                   "the value of header '%s' must be a scalar", name);
            return FALSE;
        }
        if (strpbrk (text, "\r\n") != NULL) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_INVALID,
                                   "the value of header '%s' contains a line break", name);
            return FALSE;
        }
        for (guint j = 0; j < headers->len; j++) {
            if (g_ascii_strcasecmp (g_array_index (headers, HttpHeader, j).name, name) == 0) {
                g_array_remove_index (headers, j);
                break;
            }
        }
        if (throng_node_is_null (value))
            continue;
        HttpHeader item = { g_strdup (name), g_strdup (text), value };
        g_array_append_val (headers, item);
    }
    return TRUE;
}

gboolean
http_method_is_valid (const char *method)
{
    return is_token (method);
}
