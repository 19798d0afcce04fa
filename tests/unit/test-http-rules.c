/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's extractors and checks evaluated on responses
 * (plugins/http/match.c): one table of cases, each a rule and a response
 * and what the rule finds or decides, the value it reports seeing
 * included.  The plan side (loading, located errors) and the run side
 * (variables, check counts) are in tests/integration/test-journeys.c.
 */
#include "decode.h"
#include "test-utils.h"
#include "fast/response.h"
#include "rules.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char json_body[]
    = "{\"token\": \"abc\", \"n\": 7, \"f\": 0.1, \"big\": 1e3, \"ok\": true, \"none\": null,"
      " \"items\": [{\"id\": 11, \"tags\": [\"a\", \"b\"]}, {\"id\": 12}],"
      " \"obj\": {\"a\": 1, \"b\": [1, 2]}, \"text\": \"caf\\u00e9\"}";

static SoupMessageHeaders *
make_headers (void)
{
    SoupMessageHeaders *headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
    soup_message_headers_append (headers, "Content-Type", "application/json; charset=utf-8");
    soup_message_headers_append (headers, "Set-Cookie", "theme=dark; Path=/");
    soup_message_headers_append (headers, "Set-Cookie", "SESSIONID=\"s-42\"; HttpOnly");
    soup_message_headers_append (headers, "X-Request-Id", "r-1");
    return headers;
}

/* What the view's sample measured: the timing and protocol checks read it. */
static const ThrongSample measured = {
    .latency_us = 42 * 1000 + 500,
    .connect_us = 3 * 1000,
    .tls_us = 0,
    .protocol = "h2",
};

static HttpResponseView
make_view (SoupMessageHeaders *headers, const char *body)
{
    static GUri *uri;
    HttpResponseView view = {
        .status = 200,
        .headers = headers,
        .body = body,
        .body_len = body != NULL ? strlen (body) : 0,
        .elapsed_us = 120 * 1000,
        .sample = &measured,
    };

    if (uri == NULL)
        uri = g_uri_parse ("https://shop.example:8443/done?order=7", G_URI_FLAGS_NONE, NULL);
    view.uri = uri;
    return view;
}

typedef struct {
    HttpExtractKind kind;
    const char *arg;
    guint group;
    const char *body;   /* NULL: json_body */
    const char *expect; /* NULL: no match */
} ExtractCase;

static const ExtractCase extract_cases[] = {
    { HTTP_EXTRACT_JSON, "$.token", 0, NULL, "abc" },
    { HTTP_EXTRACT_JSON, "$.n", 0, NULL, "7" },
    { HTTP_EXTRACT_JSON, "$.f", 0, NULL, "0.1" },
    { HTTP_EXTRACT_JSON, "$.ok", 0, NULL, "true" },
    { HTTP_EXTRACT_JSON, "$.none", 0, NULL, "null" },
    { HTTP_EXTRACT_JSON, "$.items[0].id", 0, NULL, "11" },
    { HTTP_EXTRACT_JSON, "$.items[1].id", 0, NULL, "12" },
    { HTTP_EXTRACT_JSON, "$.items[*].id", 0, NULL, "11" },
    { HTTP_EXTRACT_JSON, "$.obj", 0, NULL, "{\"a\":1,\"b\":[1,2]}" },
    { HTTP_EXTRACT_JSON, "$.items[0].tags", 0, NULL, "[\"a\",\"b\"]" },
    { HTTP_EXTRACT_JSON, "$.text", 0, NULL, "café" },
    { HTTP_EXTRACT_JSON, "$.missing", 0, NULL, NULL },
    { HTTP_EXTRACT_JSON, "$.token", 0, "not json", NULL },
    { HTTP_EXTRACT_REGEX, "href=\"(/items/[0-9]+)\"", 1, "<a href=\"/items/5\">", "/items/5" },
    { HTTP_EXTRACT_REGEX, "href=\"(/items/[0-9]+)\"", 0, "<a href=\"/items/5\">",
      "href=\"/items/5\"" },
    { HTTP_EXTRACT_REGEX, "id=([0-9]+)", 1, "no ids here", NULL },
    { HTTP_EXTRACT_HEADER, "x-request-id", 0, NULL, "r-1" },
    { HTTP_EXTRACT_HEADER, "X-Absent", 0, NULL, NULL },
    { HTTP_EXTRACT_COOKIE, "SESSIONID", 0, NULL, "s-42" },
    { HTTP_EXTRACT_COOKIE, "theme", 0, NULL, "dark" },
    { HTTP_EXTRACT_COOKIE, "SESSION", 0, NULL, NULL },
    { HTTP_EXTRACT_STATUS, NULL, 0, NULL, "200" },
};

static void
test_extract (gconstpointer data)
{
    const ExtractCase *c = data;
    g_autoptr (SoupMessageHeaders) headers = make_headers ();
    HttpResponseView view = make_view (headers, c->body != NULL ? c->body : json_body);
    HttpExtractor extractor = { .kind = c->kind, .arg = (char *)c->arg, .group = c->group };
    g_autoptr (GString) out = g_string_new (NULL);
    HttpJudge judge;
    gboolean found;

    if (c->kind == HTTP_EXTRACT_JSON) {
        extractor.path = json_path_new ();
        g_assert_true (json_path_compile (extractor.path, c->arg, NULL));
    } else if (c->kind == HTTP_EXTRACT_REGEX) {
        extractor.regex = g_regex_new (c->arg, 0, 0, NULL);
        g_assert_nonnull (extractor.regex);
    }
    http_judge_init (&judge);
    found = http_extract_eval (&extractor, &view, &judge, out);
    if (c->expect == NULL) {
        g_assert_false (found);
    } else {
        g_assert_true (found);
        g_assert_cmpstr (out->str, ==, c->expect);
    }
    /* A plain path is read by a scan too: the same answer. */
    if (c->kind == HTTP_EXTRACT_JSON && (extractor.scan = http_json_path_new (c->arg)) != NULL) {
        g_assert_cmpint (http_extract_eval (&extractor, &view, &judge, out), ==, found);
        if (found)
            g_assert_cmpstr (out->str, ==, c->expect);
        http_json_path_free (extractor.scan);
    }
    http_judge_clear (&judge);
    g_clear_object (&extractor.path);
    g_clear_pointer (&extractor.regex, g_regex_unref);
}

typedef struct {
    const char *id;
    HttpCheckKind kind;
    HttpCheckTest test;
    const char *subject; /* status list, json path, header name, body regex */
    const char *value;
    gint64 max_us;
    const char *body; /* NULL: json_body */
    gboolean passes;
    const char *seen; /* what the failure message quotes */
} CheckCase;

static const CheckCase check_cases[] = {
    { "status/ok", HTTP_CHECK_STATUS, 0, "200", NULL, 0, NULL, TRUE, "200" },
    { "status/list", HTTP_CHECK_STATUS, 0, "201,200", NULL, 0, NULL, TRUE, "200" },
    { "status/class", HTTP_CHECK_STATUS, 0, "2xx", NULL, 0, NULL, TRUE, "200" },
    { "status/fail", HTTP_CHECK_STATUS, 0, "404", NULL, 0, NULL, FALSE, "200" },
    { "duration/ok", HTTP_CHECK_DURATION, 0, NULL, NULL, 500000, NULL, TRUE, "120ms" },
    { "duration/fail", HTTP_CHECK_DURATION, 0, NULL, NULL, 100000, NULL, FALSE, "120ms" },
    { "body-contains/ok", HTTP_CHECK_BODY_CONTAINS, HTTP_TEST_CONTAINS, NULL, "\"ok\": true", 0,
      NULL, TRUE, NULL },
    { "body-contains/fail", HTTP_CHECK_BODY_CONTAINS, HTTP_TEST_CONTAINS, NULL, "in_stock", 0,
      "short body", FALSE, "short body" },
    { "body-regex/ok", HTTP_CHECK_BODY_REGEX, HTTP_TEST_MATCHES, "\"n\": [0-9]+", NULL, 0, NULL,
      TRUE, NULL },
    { "body-regex/fail", HTTP_CHECK_BODY_REGEX, HTTP_TEST_MATCHES, "^<html", NULL, 0, NULL, FALSE,
      NULL },
    { "json-exists/ok", HTTP_CHECK_JSON, HTTP_TEST_EXISTS, "$.token", NULL, 0, NULL, TRUE, "abc" },
    { "json-exists/null", HTTP_CHECK_JSON, HTTP_TEST_EXISTS, "$.none", NULL, 0, NULL, TRUE,
      "null" },
    { "json-exists/fail", HTTP_CHECK_JSON, HTTP_TEST_EXISTS, "$.nope", NULL, 0, NULL, FALSE,
      "nothing" },
    { "json-exists/not-json", HTTP_CHECK_JSON, HTTP_TEST_EXISTS, "$.token", NULL, 0, "<html>",
      FALSE, "no JSON body" },
    { "json-absent/ok", HTTP_CHECK_JSON, HTTP_TEST_ABSENT, "$.nope", NULL, 0, NULL, TRUE, NULL },
    { "json-absent/fail", HTTP_CHECK_JSON, HTTP_TEST_ABSENT, "$.token", NULL, 0, NULL, FALSE,
      "abc" },
    { "json-equals/number", HTTP_CHECK_JSON, HTTP_TEST_EQUALS, "$.n", "7", 0, NULL, TRUE, "7" },
    { "json-equals/fail", HTTP_CHECK_JSON, HTTP_TEST_EQUALS, "$.n", "8", 0, NULL, FALSE, "7" },
    { "json-matches/ok", HTTP_CHECK_JSON, HTTP_TEST_MATCHES, "$.token", "^a.c$", 0, NULL, TRUE,
      "abc" },
    { "json-matches/fail", HTTP_CHECK_JSON, HTTP_TEST_MATCHES, "$.token", "^x", 0, NULL, FALSE,
      "abc" },
    { "header-exists/ok", HTTP_CHECK_HEADER, HTTP_TEST_EXISTS, "content-type", NULL, 0, NULL, TRUE,
      NULL },
    { "header-exists/fail", HTTP_CHECK_HEADER, HTTP_TEST_EXISTS, "X-Nope", NULL, 0, NULL, FALSE,
      "no such header" },
    { "header-absent/ok", HTTP_CHECK_HEADER, HTTP_TEST_ABSENT, "X-Nope", NULL, 0, NULL, TRUE,
      NULL },
    { "header-equals/ok", HTTP_CHECK_HEADER, HTTP_TEST_EQUALS, "X-Request-Id", "r-1", 0, NULL, TRUE,
      NULL },
    { "header-equals/fail", HTTP_CHECK_HEADER, HTTP_TEST_EQUALS, "X-Request-Id", "r-2", 0, NULL,
      FALSE, "r-1" },
    { "header-contains/ok", HTTP_CHECK_HEADER, HTTP_TEST_CONTAINS, "Content-Type", "json", 0, NULL,
      TRUE, NULL },
    { "header-contains/fail", HTTP_CHECK_HEADER, HTTP_TEST_CONTAINS, "Content-Type", "xml", 0, NULL,
      FALSE, "application/json; charset=utf-8" },
    { "url-equals/ok", HTTP_CHECK_URL, HTTP_TEST_EQUALS, NULL,
      "https://shop.example:8443/done?order=7", 0, NULL, TRUE, NULL },
    { "url-equals/fail", HTTP_CHECK_URL, HTTP_TEST_EQUALS, NULL, "https://shop.example:8443/done",
      0, NULL, FALSE, "https://shop.example:8443/done?order=7" },
    { "url-contains/ok", HTTP_CHECK_URL, HTTP_TEST_CONTAINS, NULL, "/done?", 0, NULL, TRUE, NULL },
    { "url-matches/ok", HTTP_CHECK_URL, HTTP_TEST_MATCHES, NULL, "order=[0-9]+$", 0, NULL, TRUE,
      NULL },
    { "protocol/ok", HTTP_CHECK_PROTOCOL, HTTP_TEST_EQUALS, "h2", NULL, 0, NULL, TRUE, "h2" },
    { "protocol/fail", HTTP_CHECK_PROTOCOL, HTTP_TEST_EQUALS, "http/1.1", NULL, 0, NULL, FALSE,
      "h2" },
    { "ttfb/ok", HTTP_CHECK_TTFB, 0, NULL, NULL, 50000, NULL, TRUE, "42.500ms" },
    { "ttfb/fail", HTTP_CHECK_TTFB, 0, NULL, NULL, 42000, NULL, FALSE, "42.500ms" },
    { "connect/ok", HTTP_CHECK_CONNECT, 0, NULL, NULL, 3000, NULL, TRUE, "3.000ms" },
    { "tls/none", HTTP_CHECK_TLS, 0, NULL, NULL, 0, NULL, TRUE, "0.000ms" },
};

static void
test_check (gconstpointer data)
{
    const CheckCase *c = data;
    g_autoptr (SoupMessageHeaders) headers = make_headers ();
    HttpResponseView view = make_view (headers, c->body != NULL ? c->body : json_body);
    HttpCheck check = {
        .kind = c->kind,
        .test = c->test,
        .subject = (char *)c->subject,
        .value = (char *)c->value,
        .max_us = c->max_us,
    };
    g_autoptr (GString) seen = g_string_new (NULL);
    HttpJudge judge;

    if (c->kind == HTTP_CHECK_STATUS) {
        g_auto (GStrv) items = g_strsplit (c->subject, ",", -1);
        for (guint i = 0; items[i] != NULL; i++) {
            guint first
                = items[i][1] == 'x' ? (guint)(items[i][0] - '0') * 100 : (guint)atoi (items[i]);
            guint last = items[i][1] == 'x' ? first + 99 : first;
            for (guint s = first; s <= last; s++)
                check.expect[(s - 100) / 64] |= G_GUINT64_CONSTANT (1) << ((s - 100) % 64);
        }
    } else if (c->kind == HTTP_CHECK_JSON) {
        check.path = json_path_new ();
        g_assert_true (json_path_compile (check.path, c->subject, NULL));
        if (c->test == HTTP_TEST_MATCHES)
            check.regex = g_regex_new (c->value, 0, 0, NULL);
    } else if (c->kind == HTTP_CHECK_BODY_REGEX) {
        check.regex = g_regex_new (c->subject, 0, 0, NULL);
    } else if (c->kind == HTTP_CHECK_URL && c->test == HTTP_TEST_MATCHES) {
        check.regex = g_regex_new (c->value, 0, 0, NULL);
    }
    http_judge_init (&judge);
    g_assert_cmpint (http_check_eval (&check, &view, &judge, seen), ==, c->passes);
    if (c->seen != NULL)
        g_assert_cmpstr (seen->str, ==, c->seen);
    if (c->kind == HTTP_CHECK_JSON && (check.scan = http_json_path_new (c->subject)) != NULL) {
        g_assert_cmpint (http_check_eval (&check, &view, &judge, seen), ==, c->passes);
        if (c->seen != NULL)
            g_assert_cmpstr (seen->str, ==, c->seen);
    }
    /* As http_rules_judge() calls it: the judge's own buffer for what was seen. */
    g_assert_cmpint (http_check_eval (&check, &view, &judge, judge.seen), ==, c->passes);
    if (c->seen != NULL)
        g_assert_cmpstr (judge.seen->str, ==, c->seen);
    http_judge_clear (&judge);
    g_clear_object (&check.path);
    g_clear_pointer (&check.scan, http_json_path_free);
    g_clear_pointer (&check.regex, g_regex_unref);
}

/* Paths the scan takes, and the ones it leaves to json-glib. */
static void
test_scan_compile (void)
{
    static const char *const plain[]
        = { "$", "$.a", "$.a.b", "$.items[0].id", "$['a b']", "$[\"x\"][2]", "$[10]" };
    static const char *const other[]
        = { "$..a", "$.*", "$.a[*]", "$[0:2]", "$[0,1]", "$[?(@.a)]", "a", "$.", "$[x]" };

    for (guint i = 0; i < G_N_ELEMENTS (plain); i++) {
        HttpJsonPath *path = http_json_path_new (plain[i]);
        g_assert_nonnull (path);
        http_json_path_free (path);
    }
    for (guint i = 0; i < G_N_ELEMENTS (other); i++)
        g_assert_null (http_json_path_new (other[i]));
}

typedef struct {
    const char *path;
    const char *body;
    HttpJsonFound found;
    const char *value;
} ScanCase;

static const ScanCase scan_cases[] = {
    { "$.a", "{\"a\": 1e3}", HTTP_JSON_FOUND, "1e3" },
    { "$.a", " \n{ \"b\" : [1, {\"a\": 2}], \"a\" : \"x\" } ", HTTP_JSON_FOUND, "x" },
    { "$.a", "{\"a\": \"q\\\"\\n\\u00e9\\ud83d\\ude00\"}", HTTP_JSON_FOUND, "q\"\né😀" },
    { "$['a b']", "{\"a b\": true}", HTTP_JSON_FOUND, "true" },
    { "$.k", "{\"\\u006b\": 5}", HTTP_JSON_FOUND, "5" },
    { "$.o", "{\"o\": { \"x\" : [ 1 , \"a b\" ] }}", HTTP_JSON_FOUND, "{\"x\":[1,\"a b\"]}" },
    { "$[2]", "[0, \"}\", [3]]", HTTP_JSON_FOUND, "[3]" },
    { "$[3]", "[0, 1]", HTTP_JSON_ABSENT, NULL },
    { "$.a", "{}", HTTP_JSON_ABSENT, NULL },
    { "$.a.b", "{\"a\": 7}", HTTP_JSON_ABSENT, NULL },
    { "$.a", "[1]", HTTP_JSON_ABSENT, NULL },
    { "$.a", "<html>", HTTP_JSON_INVALID, NULL },
    { "$.a", "", HTTP_JSON_INVALID, NULL },
    { "$.a", "{\"b\": \"unterminated", HTTP_JSON_INVALID, NULL },
    { "$.a", "{\"b\" 1}", HTTP_JSON_INVALID, NULL },
    { "$.a", "{\"a\": null}", HTTP_JSON_FOUND, "null" },
};

static void
test_scan (gconstpointer data)
{
    const ScanCase *c = data;
    HttpJsonPath *path = http_json_path_new (c->path);
    g_autoptr (GString) out = g_string_new (NULL);

    g_assert_nonnull (path);
    g_assert_cmpint (http_json_path_find (path, c->body, strlen (c->body), out), ==, c->found);
    if (c->value != NULL)
        g_assert_cmpstr (out->str, ==, c->value);
    http_json_path_free (path);
}

/* A failure quotes at most HTTP_SEEN_MAX bytes of what it saw, cut on a character. */
/*
 * `all: true` by a scan: for bodies whose numbers and strings json-glib
 * writes back as they are, the scan's list equals what json-glib's
 * JsonPath gives, wildcards and all; a body that is not JSON is refused.
 */
static void
test_scan_all (void)
{
    static const char *const bodies[] = {
        "{\"items\": [{\"id\": 11, \"n\": \"a\"}, {\"id\": 22}, {\"x\": 1}, {\"id\": [1, {\"y\": true}]}]}",
        "{\"tags\": [\"a\", \"b 2\", null, false], \"meta\": {\"p\": 1, \"q\": {\"r\": \"s\"}}}",
        "[{\"id\": 1}, {\"id\": 2}, 3, \"x\", [4]]",
        "{\"a\": {}, \"b\": [], \"c\": {\"d\": []}}",
        "  {\"k\" : [ 1 , 2 ] }  ",
    };
    static const char *const paths[] = {
        "$.items[*].id", "$.items[*]", "$.items[1].id", "$.tags[*]", "$.meta.*", "$.meta.*.r",
        "$.c.*", "$.a.*", "$.k[*]", "$.missing[*]", "$.items[*].n",
    };
    /*
     * Where json-glib's JsonPath parts from JSONPath as Goessner wrote it
     * (and Jayway, which JMeter uses): `[*]` of an object and `.*` of an
     * array select the container itself there; every member or element here.
     */
    static const struct {
        const char *body, *path, *list;
    } wildcards[] = {
        { "{\"a\": [1, 2], \"b\": {\"c\": 3}}", "$[*]", "[[1,2],{\"c\":3}]" },
        { "{\"a\": {\"id\": 1}, \"b\": {\"id\": 2}}", "$[*].id", "[1,2]" },
        { "[{\"id\": 1}, 3, [4]]", "$.*", "[{\"id\":1},3,[4]]" },
        { "[{\"id\": 1}, {\"id\": \"x\"}]", "$.*.id", "[1,\"x\"]" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (wildcards); i++) {
        g_autoptr (GString) out = g_string_new (NULL);
        HttpJsonPath *path = http_json_path_new_all (wildcards[i].path);

        g_assert_cmpint (http_json_path_find_all (path, wildcards[i].body,
                                                  strlen (wildcards[i].body), out),
                         ==, HTTP_JSON_FOUND);
        g_assert_cmpstr (out->str, ==, wildcards[i].list);
        http_json_path_free (path);
    }

    for (guint b = 0; b < G_N_ELEMENTS (bodies); b++) {
        g_autoptr (JsonParser) parser = json_parser_new ();
        g_autoptr (GError) error = NULL;

        g_assert_true (json_parser_load_from_data (parser, bodies[b], -1, &error));
        for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
            g_autoptr (JsonPath) glib_path = json_path_new ();
            g_autoptr (GString) out = g_string_new (NULL);
            HttpJsonPath *path = http_json_path_new_all (paths[i]);

            g_assert_true (json_path_compile (glib_path, paths[i], NULL));
            g_autoptr (JsonNode) matches = json_path_match (glib_path, json_parser_get_root (parser));
            g_autofree char *expected = json_to_string (matches, FALSE);

            g_assert_nonnull (path);
            g_assert_cmpint (http_json_path_find_all (path, bodies[b], strlen (bodies[b]), out), ==,
                             HTTP_JSON_FOUND);
            g_test_message ("%s on body %u: %s", paths[i], b, out->str);
            g_assert_cmpstr (out->str, ==, expected);
            http_json_path_free (path);
        }
    }

    HttpJsonPath *path = http_json_path_new_all ("$.a[*]");
    g_autoptr (GString) out = g_string_new ("kept");
    g_assert_cmpint (http_json_path_find_all (path, "{\"a\": [1, 2", 10, out), ==, HTTP_JSON_INVALID);
    g_assert_cmpstr (out->str, ==, "kept");
    http_json_path_free (path);
    /* wildcards only where every match is wanted: a scan for one value leaves them to json-glib */
    g_assert_null (http_json_path_new ("$.a[*]"));
}

static void
test_seen_cut (void)
{
    g_autoptr (SoupMessageHeaders) headers = make_headers ();
    g_autoptr (GString) body = g_string_new (NULL);
    g_autoptr (GString) seen = g_string_new (NULL);
    HttpCheck check = { .kind = HTTP_CHECK_BODY_CONTAINS, .value = (char *)"zzz" };
    HttpJudge judge;

    g_string_append (body, "a");
    for (guint i = 0; i < 100; i++)
        g_string_append (body, "é");
    HttpResponseView view = make_view (headers, body->str);
    http_judge_init (&judge);
    g_assert_false (http_check_eval (&check, &view, &judge, seen));
    g_assert_cmpuint (seen->len, <=, HTTP_SEEN_MAX);
    g_assert_cmpuint (seen->len, >=, HTTP_SEEN_MAX - 1);
    g_assert_true (g_utf8_validate (seen->str, (gssize)seen->len, NULL));
    http_judge_clear (&judge);
}

/*
 * The fast transport keeps a body for the rules exactly as framed: the
 * payload of each framing, without chunk lines or trailers, whatever the
 * reads that brought it (every split of the response in two).
 */
typedef struct {
    const char *name;
    const char *response;
    const char *body;
    gboolean to_close; /* the body ends at the close */
} KeepCase;

static const KeepCase keep_cases[] = {
    { "length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"a\": \"b\"}", "{\"a\": \"b\"}",
      FALSE },
    { "chunked",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n{\"a\"\r\n7\r\n: \"b\"}\n\r\n"
      "0\r\nT: 1\r\n\r\n",
      "{\"a\": \"b\"}\n", FALSE },
    { "close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end", "until the end", TRUE },
    { "interim", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
      "ok", FALSE },
};

static void
test_keep (gconstpointer data)
{
    const KeepCase *c = data;
    gsize length = strlen (c->response);

    for (gsize split = 0; split <= length; split++) {
        g_autoptr (GString) body = g_string_new (NULL);
        FastResponse response;
        FastResponseResult result = FAST_RESPONSE_MORE;
        const guint8 *parts[2]
            = { (const guint8 *)c->response, (const guint8 *)c->response + split };
        gsize sizes[2] = { split, length - split };

        fast_response_init (&response);
        fast_response_start (&response, FALSE, 1024);
        response.body = body;
        for (guint i = 0; i < 2 && result != FAST_RESPONSE_DONE; i++) {
            const guint8 *p = parts[i];
            gsize left = sizes[i];
            do {
                gsize used = 0;
                result = fast_response_feed (&response, p, left, &used);
                g_assert_cmpint (result, !=, FAST_RESPONSE_ERROR);
                p += used;
                left -= used;
            } while (result == FAST_RESPONSE_HEAD);
        }
        if (c->to_close)
            result = fast_response_eof (&response);
        if (result != FAST_RESPONSE_DONE)
            g_test_message ("split at %" G_GSIZE_FORMAT ", body so far '%s'", split, body->str);
        g_assert_cmpint (result, ==, FAST_RESPONSE_DONE);
        g_assert_cmpstr (body->str, ==, c->body);
        fast_response_clear (&response);
    }
}

static GString *
gzip_of (const char *data, gsize len)
{
    z_stream z = { 0 };
    GString *out = g_string_sized_new (compressBound ((uLong)len) + 64);

    g_assert_cmpint (deflateInit2 (&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out->str;
    z.avail_out = (uInt)out->allocated_len;
    g_assert_cmpint (deflate (&z, Z_FINISH), ==, Z_STREAM_END);
    g_string_set_size (out, z.total_out);
    deflateEnd (&z);
    return out;
}

/*
 * A decompression bomb: 256 MiB of zeros in about 250 KiB of gzip,
 * decoded under a 1 MiB max_body.  Decoding stops at the bound, and
 * the buffer it filled never grew much past it.
 */
static void
test_decode_bomb (void)
{
    const gsize size = 256 * 1024 * 1024;
    char *zeros = g_malloc0 (size);
    g_autoptr (GString) wire = gzip_of (zeros, size);
    g_autoptr (GString) out = g_string_new (NULL);
    HttpDecoder *decoder = NULL;
    const char *message = NULL;

    g_free (zeros);
    g_assert_cmpuint (wire->len, <, 512 * 1024);
    g_assert_cmpint (http_decode (&decoder, "gzip", wire, 1024 * 1024, out, &message), ==,
                     HTTP_DECODE_LIMIT);
    g_assert_cmpstr (message, ==, "decoded response body over max_body");
    g_assert_cmpuint (out->allocated_len, <=, 2 * 1024 * 1024 + 1);
    /* The same decoder reads the next body: the bound left nothing behind. */
    g_string_truncate (wire, 0);
    {
        g_autoptr (GString) small = gzip_of ("hello", 5);
        g_assert_cmpint (http_decode (&decoder, " GZIP ,identity", small, 1024, out, &message),
                         ==, HTTP_DECODE_OK);
        g_assert_cmpstr (out->str, ==, "hello");
        /* Exactly max_body is within it. */
        g_assert_cmpint (http_decode (&decoder, "gzip", small, 5, out, &message), ==,
                         HTTP_DECODE_OK);
        g_assert_cmpint (http_decode (&decoder, "gzip", small, 4, out, &message), ==,
                         HTTP_DECODE_LIMIT);
        /* Two members one after the other (RFC 1952 §2.2). */
        g_string_append_len (small, small->str, (gssize)small->len);
        g_assert_cmpint (http_decode (&decoder, "gzip", small, 1024, out, &message), ==,
                         HTTP_DECODE_OK);
        g_assert_cmpstr (out->str, ==, "hellohello");
    }
    http_decoder_free (decoder);
}

/*
 * fuzz-decode's seeds (its input format: a coding index, a flags byte,
 * the body), on a build without the fuzzer: one decoder reused over all
 * of them, in turn, judges each as a fresh one does.
 */
static void
test_decode_seeds (void)
{
    static const char *const codings[] = {
        "gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br", "compress", "deflate, gzip",
        "identity, gzip",
    };
    g_autofree char *dir = throng_test_source_path ("tests/fuzz/decode-seeds");
    g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
    HttpDecoder *reused = NULL;
    const char *name;
    guint seeds = 0;

    g_assert_nonnull (listing);
    for (guint round = 0; round < 2; round++) {
        g_dir_rewind (listing);
        while ((name = g_dir_read_name (listing)) != NULL) {
            g_autofree char *path = g_build_filename (dir, name, NULL);
            g_autofree char *data = NULL;
            gsize size;
            HttpDecoder *fresh = NULL;
            g_autoptr (GString) body = NULL;
            g_autoptr (GString) a = g_string_new (NULL);
            g_autoptr (GString) b = g_string_new (NULL);
            const char *ma = NULL, *mb = NULL;
            HttpDecodeResult ra, rb;
            guint64 max_body;

            g_assert_true (g_file_get_contents (path, &data, &size, NULL));
            if (size < 2)
                continue;
            max_body = (data[1] & 1) ? 1000 : 1024 * 1024;
            body = g_string_new_len (data + 2, (gssize)(size - 2));
            ra = http_decode (&reused, codings[(guchar)data[0] % G_N_ELEMENTS (codings)], body,
                              max_body, a, &ma);
            rb = http_decode (&fresh, codings[(guchar)data[0] % G_N_ELEMENTS (codings)], body,
                              max_body, b, &mb);
            g_test_message ("%s: %d %s", name, ra, ma != NULL ? ma : "");
            g_assert_cmpint (ra, ==, rb);
            g_assert_cmpstr (ma, ==, mb);
            if (ra == HTTP_DECODE_OK)
                g_assert_cmpmem (a->str, a->len, b->str, b->len);
            http_decoder_free (fresh);
            seeds++;
        }
    }
    g_assert_cmpuint (seeds, >=, 20);
    http_decoder_free (reused);
}

static void
test_decode_applies (void)
{
    g_assert_false (http_decode_applies (NULL));
    g_assert_false (http_decode_applies (""));
    g_assert_false (http_decode_applies ("identity"));
    g_assert_false (http_decode_applies ("gzip, compress"));
    g_assert_false (http_decode_applies ("gzip, gzip, gzip, gzip, gzip"));
    g_assert_true (http_decode_applies ("gzip"));
    g_assert_true (http_decode_applies ("X-Gzip"));
    g_assert_true (http_decode_applies ("deflate, br"));
    /* Without libzstd too: the step then fails as `other`, saying so. */
    g_assert_true (http_decode_applies ("zstd"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (extract_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/http-rules/extract/%u", i);
        g_test_add_data_func (path, &extract_cases[i], test_extract);
    }
    for (guint i = 0; i < G_N_ELEMENTS (check_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/http-rules/check/%s", check_cases[i].id);
        g_test_add_data_func (path, &check_cases[i], test_check);
    }
    g_test_add_func ("/http-rules/seen-cut", test_seen_cut);
    g_test_add_func ("/http-rules/decode/bomb", test_decode_bomb);
    g_test_add_func ("/http-rules/decode/applies", test_decode_applies);
    g_test_add_func ("/http-rules/decode/seeds", test_decode_seeds);
    g_test_add_func ("/http-rules/scan/compile", test_scan_compile);
    g_test_add_func ("/http-rules/scan/all", test_scan_all);
    for (guint i = 0; i < G_N_ELEMENTS (keep_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/http-rules/keep/%s", keep_cases[i].name);
        g_test_add_data_func (path, &keep_cases[i], test_keep);
    }
    for (guint i = 0; i < G_N_ELEMENTS (scan_cases); i++) {
        g_autofree char *path = g_strdup_printf ("/http-rules/scan/%u", i);
        g_test_add_data_func (path, &scan_cases[i], test_scan);
    }
    return g_test_run ();
}
