/* SPDX-License-Identifier: MIT */
/*
 * Reading a HAR 1.2 recording (Chromium's, Firefox's or Playwright's) with
 * json-glib into the requests a replay sends (import-har-private.h): which
 * entries become steps, which headers and cookies a replay leaves to the
 * transport and the cookie jar, bodies, statuses, and the idle time
 * between requests.  Input that is not a HAR 1.2 recording is an error
 * naming the file and what is wrong.
 */
#include "import-har-private.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <throng/node.h>
#include <string.h>

/* The HAR versions read: 1.2, and 1.1, of which 1.2 only added optional fields. */
static const char *const har_versions[] = { "1.2", "1.1", NULL };

/*
 * Request headers a replay does not send as recorded (docs/har.md lists
 * them): HTTP/2 pseudo-headers and what the transport writes itself,
 * the browser's own state (its cache, its fetch metadata, client hints),
 * and Cookie, which the user's cookie jar sends for the cookies the
 * recording's responses set.
 */
static const char *const dropped_headers[] = {
    /* the transport's */
    "host", "content-length", "connection", "keep-alive", "proxy-connection",
    "transfer-encoding", "te", "upgrade", "expect",
    /* the browser's cache: a replay fetches, it does not revalidate */
    "if-none-match", "if-modified-since", "cache-control", "pragma",
    /* the browser's noise */
    "upgrade-insecure-requests", "purpose", "sec-purpose", "priority", "dnt", "sec-gpc",
    NULL,
};
static const char *const dropped_header_prefixes[] = { ":", "sec-ch-", "sec-fetch-", NULL };

/* Chromium's `_resourceType` values, and MIME types and extensions, that --no-static drops. */
static const char *const static_resource_types[] = {
    "stylesheet", "script", "image", "font", "media", "manifest", "texttrack", NULL,
};
static const char *const static_mime_prefixes[] = {
    "image/", "font/", "audio/", "video/", "text/css", "text/javascript",
    "application/javascript", "application/x-javascript", "application/font",
    "application/x-font", "application/vnd.ms-fontobject", NULL,
};
static const char *const static_extensions[] = {
    ".css", ".js", ".mjs", ".map", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif",
    ".svg", ".ico", ".bmp", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp4", ".webm",
    ".mp3", ".ogg", ".wav", NULL,
};

static void
har_header_free (gpointer data)
{
    HarHeader *header = data;

    g_free (header->name);
    g_free (header->value);
    g_free (header->template);
    g_free (header);
}

static void
har_extract_free (gpointer data)
{
    HarExtract *extract = data;

    g_free (extract->var);
    g_free (extract->arg);
    g_free (extract);
}

static void
har_request_free (gpointer data)
{
    HarRequest *request = data;

    g_free (request->method);
    g_free (request->url);
    g_free (request->origin);
    g_free (request->host);
    g_free (request->target);
    g_ptr_array_unref (request->headers);
    g_free (request->content_type);
    g_clear_pointer (&request->body, g_bytes_unref);
    g_free (request->body_file);
    g_ptr_array_unref (request->notes);
    g_clear_pointer (&request->response_headers, g_ptr_array_unref);
    g_clear_pointer (&request->response_cookies, g_ptr_array_unref);
    g_free (request->response_body);
    g_free (request->response_mime);
    g_free (request->url_template);
    g_free (request->body_template);
    g_clear_pointer (&request->extracts, g_ptr_array_unref);
    g_free (request);
}

void
har_import_clear (HarImport *import)
{
    g_free (import->source);
    g_free (import->version);
    g_free (import->creator);
    g_free (import->browser);
    g_clear_pointer (&import->skipped, g_ptr_array_unref);
    g_clear_pointer (&import->requests, g_ptr_array_unref);
}


gboolean
har_host_is_loopback (const char *host)
{
    if (g_ascii_strcasecmp (host, "localhost") == 0
        || (strlen (host) > strlen (".localhost")
            && g_ascii_strcasecmp (host + strlen (host) - strlen (".localhost"), ".localhost")
                   == 0))
        return TRUE;
    g_autoptr (GInetAddress) address = g_inet_address_new_from_string (host);
    return address != NULL && g_inet_address_get_is_loopback (address);
}

/* ---- reading JSON --------------------------------------------------------- */

static JsonObject *
member_object (JsonObject *object, const char *name)
{
    JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

    return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonArray *
member_array (JsonObject *object, const char *name)
{
    JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

    return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

static const char *
member_string (JsonObject *object, const char *name)
{
    JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

    if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
        || json_node_get_value_type (node) != G_TYPE_STRING)
        return NULL;
    return json_node_get_string (node);
}

/* The object at @index of @array, or NULL when it holds something else. */
static JsonObject *
element_object (JsonArray *array, guint index)
{
    JsonNode *node = json_array_get_element (array, index);

    return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* A number member, or @fallback when it is absent or not a number. */
static gdouble
member_number (JsonObject *object, const char *name, gdouble fallback)
{
    JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

    if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
        return fallback;
    switch (json_node_get_value_type (node)) {
    case G_TYPE_INT64:
        return (gdouble) json_node_get_int (node);
    case G_TYPE_DOUBLE:
        return json_node_get_double (node);
    default:
        return fallback;
    }
}

/* "Name Version" of a HAR creator or browser object, or NULL. */
static char *
describe_agent (JsonObject *agent)
{
    const char *name = member_string (agent, "name");
    const char *version = member_string (agent, "version");

    if (name == NULL)
        return NULL;
    return version != NULL && *version != '\0' ? g_strdup_printf ("%s %s", name, version)
                                                : g_strdup (name);
}

/* ---- one entry ------------------------------------------------------------- */

static gboolean
in_list (const char *const *list, const char *word)
{
    for (gsize i = 0; list[i] != NULL; i++)
        if (g_ascii_strcasecmp (list[i], word) == 0)
            return TRUE;
    return FALSE;
}

static gboolean
has_prefix_in (const char *const *prefixes, const char *text)
{
    for (gsize i = 0; prefixes[i] != NULL; i++)
        if (g_ascii_strncasecmp (text, prefixes[i], strlen (prefixes[i])) == 0)
            return TRUE;
    return FALSE;
}

static gboolean
is_static (JsonObject *entry, JsonObject *response, GUri *uri)
{
    const char *type = member_string (entry, "_resourceType");
    const char *mime = member_string (member_object (response, "content"), "mimeType");
    const char *path = g_uri_get_path (uri);
    const char *dot = strrchr (path, '.');

    if (type != NULL && in_list (static_resource_types, type))
        return TRUE;
    if (mime != NULL && has_prefix_in (static_mime_prefixes, mime))
        return TRUE;
    return dot != NULL && strchr (dot, '/') == NULL && in_list (static_extensions, dot);
}

/* Whether --include-host keeps @uri: its host, or host:port, is one of them. */
static gboolean
host_included (const HarSelect *select, GUri *uri)
{
    if (select->include_hosts == NULL)
        return TRUE;
    const char *host = g_uri_get_host (uri);
    gboolean ipv6 = strchr (host, ':') != NULL;
    int port = g_uri_get_port (uri);

    if (port == -1)
        port = g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0 ? 443 : 80;
    /* As a URL writes it: "[::1]:8080" for an IPv6 address. */
    g_autofree char *with_port = g_strdup_printf ("%s%s%s:%d", ipv6 ? "[" : "", host,
                                                  ipv6 ? "]" : "", port);
    for (char **wanted = select->include_hosts; *wanted != NULL; wanted++)
        if (g_ascii_strcasecmp (*wanted, host) == 0 || g_ascii_strcasecmp (*wanted, with_port) == 0)
            return TRUE;
    return FALSE;
}

static gboolean
url_excluded (const HarSelect *select, const char *url)
{
    for (guint i = 0; select->exclude_regexes != NULL && i < select->exclude_regexes->len; i++)
        if (g_regex_match (g_ptr_array_index (select->exclude_regexes, i), url, 0, NULL))
            return TRUE;
    return FALSE;
}

/* The cookie names a response sets (its `cookies`, and its Set-Cookie headers). */
static void
add_set_cookies (GHashTable *set, JsonObject *response)
{
    JsonArray *cookies = member_array (response, "cookies");
    JsonArray *headers = member_array (response, "headers");

    for (guint i = 0; cookies != NULL && i < json_array_get_length (cookies); i++) {
        const char *name = member_string (element_object (cookies, i), "name");
        if (name != NULL)
            g_hash_table_add (set, g_strdup (name));
    }
    for (guint i = 0; headers != NULL && i < json_array_get_length (headers); i++) {
        JsonObject *header = element_object (headers, i);
        const char *name = member_string (header, "name");
        const char *value = member_string (header, "value");

        if (name == NULL || value == NULL || g_ascii_strcasecmp (name, "set-cookie") != 0)
            continue;
        /* Chromium joins several Set-Cookie lines into one value with newlines. */
        g_auto (GStrv) lines = g_strsplit (value, "\n", -1);
        for (char **line = lines; *line != NULL; line++) {
            const char *eq = strchr (*line, '=');
            if (eq != NULL && eq != *line)
                g_hash_table_add (set, g_strstrip (g_strndup (*line, (gsize) (eq - *line))));
        }
    }
}

/*
 * The cookies of a Cookie header that the recording's earlier responses
 * did not set (the jar sends the others), as a header value; NULL when
 * there are none.
 */
static char *
cookies_not_set (GHashTable *set, const char *value)
{
    g_auto (GStrv) pairs = g_strsplit (value, ";", -1);
    g_autoptr (GString) kept = g_string_new (NULL);

    for (char **pair = pairs; *pair != NULL; pair++) {
        g_autofree char *trimmed = g_strstrip (g_strdup (*pair));
        const char *eq = strchr (trimmed, '=');
        g_autofree char *name = eq != NULL ? g_strndup (trimmed, (gsize) (eq - trimmed))
                                           : g_strdup (trimmed);

        if (*trimmed == '\0' || g_hash_table_contains (set, g_strstrip (name)))
            continue;
        g_string_append_printf (kept, "%s%s", kept->len > 0 ? "; " : "", trimmed);
    }
    return kept->len > 0 ? g_string_free (g_steal_pointer (&kept), FALSE) : NULL;
}

static void
add_header (GPtrArray *headers, const char *name, const char *value)
{
    for (guint i = 0; i < headers->len; i++) {
        HarHeader *header = g_ptr_array_index (headers, i);
        if (g_ascii_strcasecmp (header->name, name) == 0) {
            /* One key per name in the plan's map: repeated fields joined as RFC 9110 allows. */
            char *joined = g_strdup_printf ("%s, %s", header->value, value);
            g_free (header->value);
            header->value = joined;
            return;
        }
    }
    HarHeader *header = g_new0 (HarHeader, 1);
    header->name = g_strdup (name);
    header->value = g_strdup (value);
    g_ptr_array_add (headers, header);
}

/* RFC 9110 token characters, as the http plugin reads a method or a field name. */
static gboolean
is_token (const char *text)
{
    static const char token_extra[] = "!#$%&'*+-.^_`|~";

    for (const char *p = text; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && strchr (token_extra, *p) == NULL)
            return FALSE;
    return *text != '\0';
}

/*
 * Whether a recorded header can be sent as HTTP/1.1 writes it: a token
 * for a name, and no control character but a tab in the value.  Line
 * breaks are unfolded to spaces by the caller, as obs-fold is; the rest
 * is left out, with a note.
 */
static gboolean
header_sendable (HarRequest *request, const char *name, const char *value)
{
    if (!is_token (name)) {
        g_ptr_array_add (request->notes,
                         g_strdup_printf ("header '%s' left out: not an HTTP field name", name));
        return FALSE;
    }
    for (const char *p = value; *p != '\0'; p++) {
        if (((guchar) *p < 0x20 && *p != '\t' && *p != '\r' && *p != '\n') || *p == 0x7f) {
            g_ptr_array_add (request->notes,
                             g_strdup_printf ("header '%s' left out: its value holds a control "
                                              "character",
                                              name));
            return FALSE;
        }
    }
    return TRUE;
}

/* Adds a header to @request's if it can be sent, line breaks unfolded to spaces. */
static void
add_sendable (HarRequest *request, const char *name, const char *value)
{
    if (!header_sendable (request, name, value))
        return;
    g_autofree char *unfolded = g_strdelimit (g_strdup (value), "\r\n", ' ');
    add_header (request->headers, name, unfolded);
}

/* The request's headers a replay sends; notes what it changed. */
static void
read_headers (HarRequest *request, JsonObject *har_request, GHashTable *cookies_set,
              gboolean *conditional)
{
    JsonArray *headers = member_array (har_request, "headers");

    for (guint i = 0; headers != NULL && i < json_array_get_length (headers); i++) {
        JsonObject *header = element_object (headers, i);
        const char *name = member_string (header, "name");
        const char *value = member_string (header, "value");

        if (name == NULL || value == NULL || *name == '\0')
            continue;
        if (g_ascii_strcasecmp (name, "if-none-match") == 0
            || g_ascii_strcasecmp (name, "if-modified-since") == 0)
            *conditional = TRUE;
        if (in_list (dropped_headers, name) || has_prefix_in (dropped_header_prefixes, name))
            continue;
        if (g_ascii_strcasecmp (name, "content-type") == 0 && request->content_type != NULL)
            continue;
        if (g_ascii_strcasecmp (name, "cookie") == 0) {
            g_autofree char *rest = cookies_not_set (cookies_set, value);
            if (rest == NULL)
                continue;
            g_ptr_array_add (request->notes,
                             g_strdup ("Cookie: kept only the cookies that no earlier response "
                                       "set (the jar sends those): these predate the recording"));
            add_sendable (request, name, rest);
            continue;
        }
        add_sendable (request, name, value);
    }
}

/*
 * @text from the recording (or json-glib's quote of it) as part of a
 * one-line message: control characters become spaces.
 */
static char *
one_line (const char *text)
{
    char *copy = g_strdup (text);

    for (char *p = copy; *p != '\0'; p++)
        if ((guchar) *p < 0x20 || *p == 0x7f)
            *p = ' ';
    return copy;
}

/* postData: the body as text, decoded from base64, or form parameters encoded. */
static gboolean
read_body (HarRequest *request, JsonObject *post, const char *source, GError **error)
{
    const char *mime = member_string (post, "mimeType");
    const char *text = member_string (post, "text");
    const char *encoding = member_string (post, "encoding");
    JsonArray *params = member_array (post, "params");

    if (post == NULL)
        return TRUE;
    if (mime != NULL && *mime != '\0')
        request->content_type = g_strdup (mime);
    if (text != NULL && encoding != NULL && g_ascii_strcasecmp (encoding, "base64") == 0) {
        gsize length = 0;
        guchar *bytes = g_base64_decode (text, &length);
        request->body = g_bytes_new_take (bytes, length);
        request->body_binary = TRUE;
        return TRUE;
    }
    if (text != NULL && encoding != NULL) {
        g_autofree char *said = one_line (encoding);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: log.entries[%u].request.postData has encoding '%s'; only base64 is read",
                     source, request->entry, said);
        return FALSE;
    }
    if (text != NULL) {
        request->body = g_bytes_new (text, strlen (text));
        return TRUE;
    }
    if (params == NULL || json_array_get_length (params) == 0)
        return TRUE;
    if (mime != NULL && *mime != '\0'
        && !g_str_has_prefix (mime, "application/x-www-form-urlencoded")) {
        g_ptr_array_add (request->notes,
                         g_strdup_printf ("the recording holds this %s body only as fields, "
                                          "without its text: no body is sent",
                                          mime));
        return TRUE;
    }
    g_autoptr (GString) form = g_string_new (NULL);
    for (guint i = 0; i < json_array_get_length (params); i++) {
        JsonObject *param = element_object (params, i);
        const char *name = member_string (param, "name");
        const char *value = member_string (param, "value");
        g_autofree char *n = g_uri_escape_string (name != NULL ? name : "", NULL, FALSE);
        g_autofree char *v = g_uri_escape_string (value != NULL ? value : "", NULL, FALSE);

        g_string_append_printf (form, "%s%s=%s", i > 0 ? "&" : "", n, v);
    }
    request->body = g_bytes_new (form->str, form->len);
    if (request->content_type == NULL)
        request->content_type = g_strdup ("application/x-www-form-urlencoded");
    return TRUE;
}

static void
append_pair (GPtrArray *pairs, const char *name, const char *value)
{
    HarHeader *pair = g_new0 (HarHeader, 1);

    pair->name = g_strdup (name);
    pair->value = g_strdup (value);
    g_ptr_array_add (pairs, pair);
}

/*
 * What the response held that a later request may send back: its
 * headers, the cookies it set, and its body when it is text (decoded
 * from base64 when so recorded; left out when it is not UTF-8).
 */
static void
read_response (HarRequest *request, JsonObject *response)
{
    JsonArray *headers = member_array (response, "headers");
    JsonArray *cookies = member_array (response, "cookies");
    JsonObject *content = member_object (response, "content");
    const char *text = member_string (content, "text");
    const char *encoding = member_string (content, "encoding");
    const char *mime = member_string (content, "mimeType");

    request->response_headers = g_ptr_array_new_with_free_func (har_header_free);
    request->response_cookies = g_ptr_array_new_with_free_func (har_header_free);
    request->extracts = g_ptr_array_new_with_free_func (har_extract_free);
    for (guint i = 0; headers != NULL && i < json_array_get_length (headers); i++) {
        JsonObject *header = element_object (headers, i);
        const char *name = member_string (header, "name");
        const char *value = member_string (header, "value");
        if (name != NULL && value != NULL)
            append_pair (request->response_headers, name, value);
    }
    for (guint i = 0; cookies != NULL && i < json_array_get_length (cookies); i++) {
        JsonObject *cookie = element_object (cookies, i);
        const char *name = member_string (cookie, "name");
        const char *value = member_string (cookie, "value");
        if (name != NULL && value != NULL && *name != '\0')
            append_pair (request->response_cookies, name, value);
    }
    if (mime != NULL)
        request->response_mime = g_strdup (mime);
    /* Styles and scripts are the site's code, the same for every user: not searched. */
    if (text == NULL
        || (mime != NULL && (strstr (mime, "css") != NULL || strstr (mime, "javascript") != NULL
                             || strstr (mime, "ecmascript") != NULL)))
        return;
    if (encoding != NULL && g_ascii_strcasecmp (encoding, "base64") == 0) {
        gsize length = 0;
        g_autofree guchar *bytes = g_base64_decode (text, &length);
        if (g_utf8_validate ((const char *) bytes, (gssize) length, NULL)
            && memchr (bytes, '\0', length) == NULL)
            request->response_body = g_strndup ((const char *) bytes, length);
    } else if (encoding == NULL && g_utf8_validate (text, -1, NULL)) {
        request->response_body = g_strdup (text);
    }
}

/* "scheme://host[:port]" with the default port left out, as a base_url. */
static char *
origin_of (GUri *uri)
{
    const char *scheme = g_uri_get_scheme (uri);
    int port = g_uri_get_port (uri);
    gboolean default_port = port == -1
                            || (g_ascii_strcasecmp (scheme, "http") == 0 && port == 80)
                            || (g_ascii_strcasecmp (scheme, "https") == 0 && port == 443);
    const char *host = g_uri_get_host (uri);
    g_autofree char *lower = g_ascii_strdown (scheme, -1);
    gboolean ipv6 = strchr (host, ':') != NULL;

    return default_port ? g_strdup_printf ("%s://%s%s%s", lower, ipv6 ? "[" : "", host,
                                           ipv6 ? "]" : "")
                        : g_strdup_printf ("%s://%s%s%s:%d", lower, ipv6 ? "[" : "", host,
                                           ipv6 ? "]" : "", port);
}

/* ---- the recording ----------------------------------------------------------- */

typedef struct {
    const HarSelect *select;
    HarImport *import;
    GHashTable *cookies_set;    /* names set by kept entries' responses so far */
    gint64 latest_end_us;       /* the latest end of any entry so far; 0 before the first */
    gint64 pending_pause_us;    /* idle time before entries left out, owed to the next step */
} Reader;

/* Adds the idle time before an entry that started at @start_us and lasted @time_us. */
static void
track_time (Reader *reader, gint64 start_us, gint64 time_us)
{
    if (start_us == 0)
        return;
    if (reader->latest_end_us != 0 && start_us > reader->latest_end_us)
        reader->pending_pause_us += start_us - reader->latest_end_us;
    reader->latest_end_us = MAX (reader->latest_end_us, start_us + MAX (time_us, 0));
}

static void
skip (Reader *reader, guint index, const char *method, const char *url, const char *why)
{
    g_ptr_array_add (reader->import->skipped,
                     g_strdup_printf ("entry %u, %s %.80s: %s", index + 1, method, url, why));
}

static gboolean
read_entry (Reader *reader, JsonObject *entry, guint index, GError **error)
{
    HarImport *import = reader->import;
    JsonObject *har_request = member_object (entry, "request");
    JsonObject *response = member_object (entry, "response");
    const char *method = member_string (har_request, "method");
    const char *url = member_string (har_request, "url");
    const char *started = member_string (entry, "startedDateTime");
    gint64 start_us = 0;

    if (har_request == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: log.entries[%u] has no request (every entry of a HAR records one "
                     "request and its response)",
                     import->source, index);
        return FALSE;
    }
    if (method == NULL || *method == '\0' || url == NULL || *url == '\0') {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: log.entries[%u].request has no %s", import->source, index,
                     method == NULL || *method == '\0' ? "method" : "url");
        return FALSE;
    }
    if (started != NULL) {
        g_autoptr (GDateTime) when = g_date_time_new_from_iso8601 (started, NULL);
        if (when != NULL)
            start_us = g_date_time_to_unix (when) * G_USEC_PER_SEC
                       + g_date_time_get_microsecond (when);
    }
    /* Milliseconds of any size in the recording: capped (at 30 years) before they become
     * an integer, which a value such as 1e308 would overflow. */
    gdouble time_ms = member_number (entry, "time", 0);
    track_time (reader, start_us, time_ms > 0 ? (gint64) (MIN (time_ms, 1e12) * 1000.0) : 0);

    g_autoptr (GUri) uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
    const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
    /* A number of any size in the recording: compared before it becomes an int. */
    gdouble recorded = member_number (response, "status", 0);
    int status = recorded > 0 && recorded < 1000 ? (int) recorded : recorded >= 1000 ? 1000 : 0;

    if (uri != NULL && g_ascii_strcasecmp (scheme, "http") != 0
        && g_ascii_strcasecmp (scheme, "https") != 0) {
        skip (reader, index, method, url, "not an http or https URL (WebSocket, data:, blob: …)");
        return TRUE;
    }
    if (uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0') {
        skip (reader, index, method, url, "not a URL with a host");
        return TRUE;
    }
    if (!is_token (method)) {
        skip (reader, index, method, url, "not an HTTP method (RFC 9110: a token)");
        return TRUE;
    }
    if (member_string (entry, "_fromCache") != NULL) {
        skip (reader, index, method, url, "served from the browser's cache, never sent");
        return TRUE;
    }
    if (status <= 0) {
        skip (reader, index, method, url,
              "no response in the recording (blocked, cancelled or failed)");
        return TRUE;
    }
    if (status < 100 || status > 599) {
        /* Not an HTTP status: a plan could not expect it (fuzz-har found one). */
        skip (reader, index, method, url, "a response status outside 100-599");
        return TRUE;
    }
    if (!host_included (reader->select, uri)) {
        import->excluded_host++;
        return TRUE;
    }
    if (url_excluded (reader->select, url)) {
        import->excluded_regex++;
        return TRUE;
    }
    if (reader->select->no_static && is_static (entry, response, uri)) {
        import->excluded_static++;
        return TRUE;
    }

    HarRequest *request = g_new0 (HarRequest, 1);
    gboolean conditional = FALSE;
    const char *query = g_uri_get_query (uri);
    const char *path = g_uri_get_path (uri);

    g_ptr_array_add (import->requests, request);
    request->entry = index;
    request->method = g_ascii_strup (method, -1);
    request->headers = g_ptr_array_new_with_free_func (har_header_free);
    request->notes = g_ptr_array_new_with_free_func (g_free);
    request->origin = origin_of (uri);
    request->host = g_strdup (g_uri_get_host (uri));
    request->target = g_strdup_printf ("%s%s%s", *path != '\0' ? path : "/",
                                       query != NULL ? "?" : "", query != NULL ? query : "");
    request->url = g_strconcat (request->origin, request->target, NULL);
    request->status = status;
    request->expect = status;
    request->pause_us = reader->pending_pause_us;
    reader->pending_pause_us = 0;

    if (!read_body (request, member_object (har_request, "postData"), import->source, error))
        return FALSE;
    read_headers (request, har_request, reader->cookies_set, &conditional);
    if (request->content_type != NULL)
        add_sendable (request, "Content-Type", request->content_type);
    if (status == 304 && conditional) {
        request->expect = 200;
        g_ptr_array_add (request->notes,
                         g_strdup ("recorded 304 to the browser's conditional request; its "
                                   "validators are not sent, so 200 is expected"));
    }
    add_set_cookies (reader->cookies_set, response);
    read_response (request, response);
    return TRUE;
}

gboolean
har_read (const char *path, const HarSelect *select, HarImport *import, GError **error)
{
    g_autofree char *text = NULL;
    gsize length = 0;
    g_autoptr (JsonParser) parser = json_parser_new ();
    g_autoptr (GError) local = NULL;

    import->source = g_strdup (path);
    import->skipped = g_ptr_array_new_with_free_func (g_free);
    import->requests = g_ptr_array_new_with_free_func (har_request_free);

    /* A FIFO would block the read below; a device would be read for ever. */
    if (!throng_node_check_file (NULL, path, error))
        return FALSE;
    if (!g_file_get_contents (path, &text, &length, &local)) {
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, local->message);
        return FALSE;
    }
    if (!json_parser_load_from_data (parser, text, (gssize) length, &local)) {
        /* json-glib quotes the token it stopped at, which may hold a line break. */
        g_autofree char *why = one_line (local->message);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: not a HAR file: not JSON (%s)", path, why);
        return FALSE;
    }
    JsonNode *root = json_parser_get_root (parser);
    JsonObject *log = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
                          ? member_object (json_node_get_object (root), "log")
                          : NULL;
    if (log == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: not a HAR file: no \"log\" object at the top (a HAR 1.2 recording is "
                     "{\"log\": {\"version\": \"1.2\", \"entries\": […]}})",
                     path);
        return FALSE;
    }
    const char *version = member_string (log, "version");
    if (version == NULL || !g_strv_contains (har_versions, version)) {
        g_autofree char *shown = version != NULL ? one_line (version) : NULL;
        g_autofree char *said = version != NULL ? g_strdup_printf ("HAR version %s", shown)
                                                : g_strdup ("no log.version");
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: %s; throng imports HAR 1.2 (and 1.1)", path, said);
        return FALSE;
    }
    JsonArray *entries = member_array (log, "entries");
    if (entries == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: not a HAR file: log.entries is missing or not a list", path);
        return FALSE;
    }

    g_autoptr (GHashTable) cookies_set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                                NULL);
    Reader reader = { .select = select, .import = import, .cookies_set = cookies_set };

    import->version = g_strdup (version);
    import->creator = describe_agent (member_object (log, "creator"));
    import->browser = describe_agent (member_object (log, "browser"));
    import->entries = json_array_get_length (entries);
    for (guint i = 0; i < import->entries; i++) {
        JsonNode *node = json_array_get_element (entries, i);
        if (!JSON_NODE_HOLDS_OBJECT (node)) {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         "%s: log.entries[%u] is not an object", path, i);
            return FALSE;
        }
        if (!read_entry (&reader, json_node_get_object (node), i, error))
            return FALSE;
    }
    if (import->requests->len == 0) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: no request to import: %u entries, %u skipped, %u left out by "
                     "--include-host, %u by --exclude, %u by --no-static",
                     path, import->entries, import->skipped->len, import->excluded_host,
                     import->excluded_regex, import->excluded_static);
        return FALSE;
    }
    return TRUE;
}

