/* SPDX-License-Identifier: MIT */
/*
 * `throng import har` (docs/har.md).  A recording Chromium made of the
 * built-in target (tests/data/har/, with how it was made) is converted,
 * validated and run against a fresh target, whose count of requests must
 * equal the recording's entries.  A recording written here, against two
 * in-process SoupServers that keep what they receive, checks what a
 * replay sends: headers dropped and kept, cookies left to the jar, bodies
 * (text, and binary through a body file), statuses, other origins, think
 * time, and what --no-static, --include-host and --exclude leave out.
 * Then every kind of bad input, each with its message and exit status 2.
 *
 * `test-har --serve-target` is not a test: it serves the built-in target
 * on loopback, prints its http URL and stops when its standard input
 * closes; tests/data/har/record.mjs records through it.
 */
#include "target.h"
#include "test-utils.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT 60

/* ------------------------------------------------------------------ */
/* Running `throng import har`                                         */

/* Runs `throng import har ARGS…`; returns its exit status, with its output. */
static int
import_har (const char *const *args, char **out, char **err)
{
    g_autoptr (GPtrArray) argv = g_ptr_array_new ();

    g_ptr_array_add (argv, "import");
    g_ptr_array_add (argv, "har");
    for (guint i = 0; args[i] != NULL; i++)
        g_ptr_array_add (argv, (gpointer) args[i]);
    g_ptr_array_add (argv, NULL);

    int status = -1;
    g_assert_true (throng_test_run ((const char *const *) argv->pdata, NULL, RUN_TIMEOUT, &status,
                                    out, err));
    return status;
}

static void
assert_valid (const char *plan)
{
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (RUN_TIMEOUT, &out, &err, "validate", plan, NULL);

    if (status != 0)
        g_test_message ("validate: %s%s", out, err);
    g_assert_cmpint (status, ==, 0);
}

static char *
read_text (const char *path)
{
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, &error));
    g_assert_no_error (error);
    return g_steal_pointer (&text);
}

/* ------------------------------------------------------------------ */
/* The recording of the built-in target                                */

/*
 * Converts tests/data/har/target.har, validates the plan, runs it once
 * against a new built-in target: the target serves exactly one request
 * per entry of the recording, all of them as recorded.
 */
static void
test_recorded (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *har = throng_test_source_path ("tests/data/har/target.har");
    g_autofree char *plan = g_build_filename (fixture->dir, "target.yaml", NULL);
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { har, "-o", plan, NULL }, NULL, &err), ==,
                     0);
    g_assert_cmpstr (err, ==, "");
    assert_valid (plan);

    g_autoptr (JsonNode) recording = throng_test_json_load (har, &error);
    g_assert_no_error (error);
    guint entries = throng_test_json_length (recording, "log.entries");
    g_autofree char *text = read_text (plan);
    g_assert_true (g_str_has_prefix (text, "# Imported from "));
    /* The recorded gaps as pause steps; no averaged think time. */
    g_assert_nonnull (strstr (text, "      - pause: "));
    g_assert_null (strstr (text, "think_time: "));
    g_assert_null (strstr (text, "\"Cookie\"")); /* the target's cookie is the jar's */
    g_assert_null (strstr (text, "\"cookie\""));
    g_assert_cmpuint (entries, >=, 8);

    g_autoptr (ThrongTarget) target = throng_target_start (&error);
    g_assert_no_error (error);
    g_autofree char *base = g_strdup_printf ("defaults.http.base_url=%s",
                                             throng_target_http_url (target));
    g_autofree char *summary = g_build_filename (fixture->dir, "summary.json", NULL);
    g_autofree char *out = throng_test_out_arg ("json", summary);
    guint64 before = throng_target_requests (target);
    g_autofree char *run_err = NULL;
    int status = -1;

    g_assert_true (throng_test_run ((const char *const[]) { "run", plan, "--quiet", "--set", base,
                                                            "--out", out, NULL },
                                    NULL, RUN_TIMEOUT, &status, NULL, &run_err));
    g_test_message ("stderr: %s", run_err);
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpuint (throng_target_requests (target) - before, ==, entries);

    g_autoptr (JsonNode) result = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (result, "total.requests"), ==, entries);
    g_assert_cmpint (throng_test_json_int (result, "total.errors"), ==, 0);
    g_assert_cmpuint (throng_test_json_length (result, "scenarios.0.steps"), ==, entries);
    /* Each step checks its recorded status, and the target answers as it did to the browser. */
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.passes"), ==, entries);
    g_assert_cmpint (throng_test_json_int (result, "scenarios.0.checks.fails"), ==, 0);
    g_assert_cmpfloat (throng_test_json_double (result, "scenarios.0.checks.rate"), ==, 1.0);
}

/* ------------------------------------------------------------------ */
/* A recording written here, replayed against servers that keep what they get */

typedef struct {
    char *method;
    char *headers;              /* "name: value\n" each, as received */
    GBytes *body;
} Received;

static void
received_free (gpointer data)
{
    Received *received = data;

    g_free (received->method);
    g_free (received->headers);
    g_bytes_unref (received->body);
    g_free (received);
}

typedef struct {
    char *dir;
    ThrongTestSoupServer *a;
    ThrongTestSoupServer *b;
    GMutex lock;
    GHashTable *received;       /* "path?query" → Received*, the last one */
    guint requests;
} Fixture;

static void
handle (SoupServer *soup_server, SoupServerMessage *message, const char *path, GHashTable *query,
        gpointer data)
{
    Fixture *fixture = data;
    GUri *uri = soup_server_message_get_uri (message);
    SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
    SoupMessageBody *body = soup_server_message_get_request_body (message);
    Received *received = g_new0 (Received, 1);
    g_autoptr (GString) dump = g_string_new (NULL);
    SoupMessageHeadersIter iter;
    const char *name, *value;

    soup_message_headers_iter_init (&iter, headers);
    while (soup_message_headers_iter_next (&iter, &name, &value))
        g_string_append_printf (dump, "%s: %s\n", name, value);
    received->method = g_strdup (soup_server_message_get_method (message));
    received->headers = g_string_free (g_steal_pointer (&dump), FALSE);
    received->body = g_bytes_new (body->data, (gsize) body->length);

    g_mutex_lock (&fixture->lock);
    fixture->requests++;
    g_hash_table_replace (fixture->received,
                          g_strdup_printf ("%s%s%s", path, g_uri_get_query (uri) != NULL ? "?" : "",
                                           g_uri_get_query (uri) != NULL ? g_uri_get_query (uri)
                                                                          : ""),
                          received);
    g_mutex_unlock (&fixture->lock);

    if (strcmp (path, "/login-page") == 0)
        soup_message_headers_append (soup_server_message_get_response_headers (message),
                                     "Set-Cookie", "session=abc; Path=/");
    /* The statuses the recording got, which the imported plan checks. */
    guint status = strcmp (path, "/missing") == 0 ? 404 : strcmp (path, "/api/login") == 0 ? 201
                                                                                            : 200;
    soup_server_message_set_status (message, status, NULL);
    soup_server_message_set_response (message, "text/plain", SOUP_MEMORY_STATIC, "ok\n", 3);
}

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
    g_mutex_init (&fixture->lock);
    fixture->received = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, received_free);
    fixture->a = throng_test_soup_server_start (NULL, handle, fixture);
    fixture->b = throng_test_soup_server_start (NULL, handle, fixture);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
    throng_test_soup_server_stop (fixture->a);
    throng_test_soup_server_stop (fixture->b);
    g_hash_table_unref (fixture->received);
    g_mutex_clear (&fixture->lock);
    throng_test_tmpdir_free (fixture->dir);
}

/* What the servers received at @target ("/path?query"); asserts there was a request. */
static Received *
received_at (Fixture *fixture, const char *target)
{
    g_mutex_lock (&fixture->lock);
    Received *received = g_hash_table_lookup (fixture->received, target);
    g_mutex_unlock (&fixture->lock);
    if (received == NULL)
        g_test_message ("no request reached %s", target);
    g_assert_nonnull (received);
    return received;
}

static gboolean
has_header (const Received *received, const char *name)
{
    g_autofree char *lower = g_ascii_strdown (received->headers, -1);
    g_autofree char *key = g_strdup_printf ("%s: ", name);
    g_autofree char *key_lower = g_ascii_strdown (key, -1);

    g_autofree char *line_start = g_strconcat ("\n", key_lower, NULL);

    return g_str_has_prefix (lower, key_lower) || strstr (lower, line_start) != NULL;
}

/* The value of header @name as received (several fields joined by ", "), or NULL. */
static char *
header_value (const Received *received, const char *name)
{
    g_auto (GStrv) lines = g_strsplit (received->headers, "\n", -1);
    g_autoptr (GString) value = NULL;

    for (char **line = lines; *line != NULL; line++) {
        const char *colon = strchr (*line, ':');
        if (colon == NULL || (gsize) (colon - *line) != strlen (name)
            || g_ascii_strncasecmp (*line, name, strlen (name)) != 0)
            continue;
        if (value == NULL)
            value = g_string_new (colon + 2);
        else
            g_string_append_printf (value, ", %s", colon + 2);
    }
    return value != NULL ? g_string_free (g_steal_pointer (&value), FALSE) : NULL;
}

static char *
replace_all (const char *text, const char *from, const char *to)
{
    g_auto (GStrv) parts = g_strsplit (text, from, -1);
    return g_strjoinv (to, parts);
}

/*
 * tests/data/har/synthetic.har, for servers @a and @b ({A} and {B} in the
 * file), written to DIR/NAME.  Its entries:
 *   1  GET {A}/login-page: browser noise, a cookie from before the
 *      recording; the response sets `session`
 *   2  POST {A}/api/login, 500 ms later: a JSON body whose MIME type
 *      replaces the recorded Content-Type, X-Custom twice, both cookies
 *   3  PUT {A}/upload, 50 ms later: a binary body in base64
 *   4-6  static: by Chromium's resource type, by MIME type, by extension
 *   7-9  not replayable: a data: URL, no response, from the cache
 *   10 GET {A}/missing: a 404 the page got
 *   11 GET {A}/etag: a revalidation answered 304
 *   12 GET {B}/other, a second later: another origin
 *   13 GET {A}/search?q=a%20b#top: a query kept, a fragment dropped
 */
static char *
write_synthetic (const char *dir, const char *name, const char *a, const char *b)
{
    g_autofree char *source = throng_test_source_path ("tests/data/har/synthetic.har");
    g_autofree char *text = read_text (source);
    g_autofree char *with_a = replace_all (text, "{A}", a);
    g_autofree char *har = replace_all (with_a, "{B}", b);

    return throng_test_write_file (dir, name, har);
}

/*
 * With --no-static: 7 steps (3 static left out, 3 skipped), pause steps
 * of 500, 160 and 1000 ms before theirs (the 60 ms before the blocked
 * entry is owed to the next step; the 50 ms gap is below 100 ms and has
 * none); run against the servers, what they
 * receive is what the browser meant, less what the browser adds.
 */
static void
test_synthetic (Fixture *fixture, gconstpointer data)
{
    const char *a = throng_test_soup_server_http_url (fixture->a);
    const char *b = throng_test_soup_server_http_url (fixture->b);
    g_autofree char *har = write_synthetic (fixture->dir, "shop.har", a, b);
    g_autofree char *plan = g_build_filename (fixture->dir, "shop.yaml", NULL);
    g_autofree char *err = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { har, "--no-static", "-o", plan, NULL },
                                 NULL, &err),
                     ==, 0);
    g_assert_cmpstr (err, ==, "note: 3 entries cannot be replayed and were skipped (listed in the "
                              "plan)\n");
    assert_valid (plan);

    g_autofree char *text = read_text (plan);
    g_test_message ("%s", text);
    g_autofree char *origin_line = g_strdup_printf ("    base_url: \"%s\"\n", a);
    g_autofree char *absolute = g_strdup_printf ("          url: \"%s/other\"\n", b);
    g_assert_nonnull (strstr (text, "HAR 1.2 written by test-har 1: 13 entries, 7 steps."));
    g_assert_nonnull (
        strstr (text, "Left out: 0 by --include-host, 0 by --exclude, 3 by --no-static."));
    g_assert_nonnull (
        strstr (text, "# Skipped entry 7, GET data:image/png;base64,AAAA: not an http"));
    g_assert_nonnull (strstr (text, "# Skipped entry 8, GET "));
    g_assert_nonnull (strstr (text, "# Skipped entry 9, GET "));
    g_assert_nonnull (strstr (text, origin_line));
    g_assert_nonnull (strstr (text, absolute));
    g_assert_null (strstr (text, "think_time:"));
    g_assert_nonnull (strstr (text, "      - pause: 500ms\n      - http:\n          method: \"POST\"\n          url: \"/api/login\"\n"));
    g_assert_nonnull (strstr (text, "-> 404, after a pause of 160ms\n      - pause: 160ms\n      - http:"));
    g_assert_nonnull (strstr (text, "      - pause: 1000ms\n"));
    g_assert_null (strstr (text, "      - pause: 50ms\n"));
    g_assert_cmpuint (throng_test_count (text, "      - pause: "), ==, 3);
    g_assert_nonnull (strstr (text, "          expect_status: \"404\"\n"));
    /* The recorded statuses as checks, not comments. */
    g_assert_nonnull (strstr (text, "          check: [ { status: 404 } ]\n"));
    g_assert_nonnull (strstr (text, "          check: [ { status: 200 } ]\n"));
    g_assert_null (strstr (text, "# check:"));
    g_assert_nonnull (strstr (text, "          url: \"/search?q=a%20b\"\n"));
    g_assert_nonnull (strstr (text, "          body_file: \"shop.body-3.bin\"\n"));
    g_assert_nonnull (strstr (text, "          method: \"POST\"\n"));

    /* The binary body, byte for byte, beside the plan. */
    g_autofree char *body_path = g_build_filename (fixture->dir, "shop.body-3.bin", NULL);
    g_autofree char *body = NULL;
    gsize body_length = 0;
    g_assert_true (g_file_get_contents (body_path, &body, &body_length, NULL));
    g_assert_cmpmem (body, body_length, "\x00\x01\x02\xff", 4);

    g_autoptr (JsonNode) summary
        = throng_test_run_summary (fixture->dir, text, NULL, RUN_TIMEOUT, 0, NULL);
    g_assert_cmpint (throng_test_json_int (summary, "total.requests"), ==, 7);
    g_assert_cmpint (throng_test_json_int (summary, "total.errors"), ==, 0);
    g_assert_cmpuint (fixture->requests, ==, 7);
    /* One status check per step, each passed: the servers answered as recorded. */
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.checks.passes"), ==, 7);
    g_assert_cmpint (throng_test_json_int (summary, "scenarios.0.checks.fails"), ==, 0);

    /* Navigation: the browser's noise and the transport's headers dropped, the rest kept. */
    Received *page = received_at (fixture, "/login-page");
    g_autofree char *accept = header_value (page, "Accept");
    g_autofree char *agent = header_value (page, "User-Agent");
    g_autofree char *cookie = header_value (page, "Cookie");
    g_assert_cmpstr (accept, ==, "text/html");
    g_assert_cmpstr (agent, ==, "Test/1.0");
    g_assert_cmpstr (cookie, ==, "pre=1");
    for (const char *const *name = (const char *const[]) { "Sec-Fetch-Mode", "sec-ch-ua",
                                                           "Upgrade-Insecure-Requests", "Priority",
                                                           "Cache-Control", NULL };
         *name != NULL; name++) {
        if (has_header (page, *name))
            g_test_message ("%s was sent: %s", *name, page->headers);
        g_assert_false (has_header (page, *name));
    }

    /* The POST: body, its MIME type, a repeated header joined; session from the jar. */
    Received *login = received_at (fixture, "/api/login");
    g_autofree char *type = header_value (login, "Content-Type");
    g_autofree char *custom = header_value (login, "X-Custom");
    g_autofree char *cookies = header_value (login, "Cookie");
    g_assert_cmpstr (login->method, ==, "POST");
    g_assert_cmpstr (type, ==, "application/json");
    g_assert_cmpstr (custom, ==, "a \"quoted\" value: {x}, second");
    g_assert_cmpmem (g_bytes_get_data (login->body, NULL), g_bytes_get_size (login->body),
                     "{\"user\":\"ann\"}", 14);
    g_test_message ("cookies of /api/login: %s", cookies);
    g_assert_nonnull (cookies);
    g_assert_nonnull (strstr (cookies, "session=abc"));
    g_assert_nonnull (strstr (cookies, "pre=1"));
    /* One Cookie field, the recorded cookie and the jar's together (RFC 6265 §5.4). */
    g_assert_null (strstr (cookies, ", "));
    g_autofree char *login_lower = g_ascii_strdown (login->headers, -1);
    g_assert_cmpuint (throng_test_count (login_lower, "\ncookie: ")
                          + g_str_has_prefix (login_lower, "cookie: "),
                      ==, 1);

    Received *upload = received_at (fixture, "/upload");
    g_autofree char *upload_type = header_value (upload, "Content-Type");
    g_assert_cmpstr (upload->method, ==, "PUT");
    g_assert_cmpstr (upload_type, ==, "application/octet-stream");
    g_assert_cmpmem (g_bytes_get_data (upload->body, NULL), g_bytes_get_size (upload->body),
                     "\x00\x01\x02\xff", 4);

    Received *etag = received_at (fixture, "/etag");
    g_assert_false (has_header (etag, "If-None-Match"));
    g_assert_false (has_header (etag, "If-Modified-Since"));
    received_at (fixture, "/missing");
    received_at (fixture, "/other");
    received_at (fixture, "/search?q=a%20b");
}

/* --include-host and --exclude, counted in the header; without --no-static the statics stay. */
static void
test_include_exclude (Fixture *fixture, gconstpointer data)
{
    const char *a = throng_test_soup_server_http_url (fixture->a);
    const char *b = throng_test_soup_server_http_url (fixture->b);
    g_autofree char *har = write_synthetic (fixture->dir, "shop.har", a, b);
    g_autofree char *plan = g_build_filename (fixture->dir, "shop.yaml", NULL);
    g_autofree char *host = g_strdup (a + strlen ("http://"));

    g_assert_cmpint (import_har ((const char *const[]) { har, "--include-host", host, "--exclude",
                                                         "/(search|missing)", "-o", plan, NULL },
                                 NULL, NULL),
                     ==, 0);
    assert_valid (plan);
    g_autofree char *text = read_text (plan);
    g_assert_nonnull (strstr (text, "13 entries, 7 steps."));
    g_assert_nonnull (
        strstr (text, "Left out: 1 by --include-host, 2 by --exclude, 0 by --no-static."));
    g_assert_null (strstr (text, "/other"));
    g_assert_nonnull (strstr (text, "url: \"/fonts/a.woff2\""));

    /* Standard output without -o, the same plan but for the binary body, which needs a file. */
    g_autofree char *err = NULL;
    g_assert_cmpint (import_har ((const char *const[]) { har, NULL }, NULL, &err), ==, 2);
    g_autofree char *expected = g_strdup_printf ("throng: %s: entry 3 has a binary (base64) body, "
                                                 "written to a file beside the plan: give the "
                                                 "plan's path with -o\n",
                                                 har);
    g_assert_cmpstr (err, ==, expected);

    /* An existing plan is not replaced without --overwrite. */
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (import_har ((const char *const[]) { har, "-o", plan, NULL }, NULL, &err), ==,
                     2);
    g_assert_true (g_str_has_suffix (err, "exists; pass --overwrite to replace it\n"));
    g_assert_cmpint (import_har ((const char *const[]) { har, "-o", plan, "--overwrite", NULL },
                                 NULL, NULL),
                     ==, 0);

    /* A plan that cannot be written: exit status 4. */
    g_autofree char *nowhere = g_build_filename (fixture->dir, "missing", "shop.yaml", NULL);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (import_har ((const char *const[]) { har, "-o", nowhere, NULL }, NULL, &err),
                     ==, 4);
    g_assert_true (g_str_has_prefix (err, "throng: Failed to create file"));
}

/*
 * A host that is not loopback stays in the plan (the plan is the user's),
 * said in the plan and on standard error.  Only validated: no test sends
 * anything off this machine.
 */
static void
test_remote_host (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *har = throng_test_write_file (
        fixture->dir, "remote.har",
        "{\"log\": {\"version\": \"1.2\", \"entries\": ["
        "{\"startedDateTime\": \"2026-12-03T10:00:00Z\", \"time\": 5,"
        " \"request\": {\"method\": \"GET\", \"url\": \"https://shop.example.com/\","
        "  \"headers\": []},"
        " \"response\": {\"status\": 200}},"
        "{\"startedDateTime\": \"2026-12-03T10:00:01Z\", \"time\": 5,"
        " \"request\": {\"method\": \"GET\", \"url\": \"http://[::1]:8080/x\", \"headers\": []},"
        " \"response\": {\"status\": 200}}]}}");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { har, NULL }, &out, &err), ==, 0);
    g_assert_cmpstr (err, ==, "note: shop.example.com is not a loopback host: running the plan "
                              "sends its requests there\n");
    g_assert_nonnull (strstr (out, "# https://shop.example.com: 1 request, the base_url; NOT a "
                                   "loopback host: running this plan sends load there\n"));
    g_assert_nonnull (strstr (out, "# http://[::1]:8080: 1 request, absolute URLs\n"));
    /* 1 s between starts, less the first's 5 ms, to the nearest 10 ms. */
    g_assert_nonnull (strstr (out, "      - pause: 1000ms\n      - http:"));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "remote.yaml", out);
    assert_valid (plan);

    /* --include-host as a URL writes it: an IPv6 address in brackets, with its port. */
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (import_har ((const char *const[]) { har, "--include-host", "[::1]:8080", NULL },
                                 &out, &err),
                     ==, 0);
    g_assert_cmpstr (err, ==, "");
    g_assert_nonnull (strstr (out, ": 2 entries, 1 step.\n"));
    g_assert_nonnull (strstr (out, "    base_url: \"http://[::1]:8080\"\n"));
    g_assert_nonnull (strstr (out, "          url: \"/x\"\n"));
}

/*
 * Recorded text that would not make a valid request or plan: a header
 * value with a line break is unfolded, one with another control
 * character and a name that is not a token are left out with a note;
 * quotes, backslashes and `#` stay text inside the plan's strings.
 */
static void
test_odd_text (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *har = throng_test_write_file (
        fixture->dir, "odd.har",
        "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"POST\","
        " \"url\": \"http://127.0.0.1:9/a?q=1#frag\", \"headers\": ["
        "  {\"name\": \"X-Folded\", \"value\": \"a\\r\\nb\"},"
        "  {\"name\": \"X-Control\", \"value\": \"a\\u0001b\"},"
        "  {\"name\": \"Bad Name\", \"value\": \"v\"},"
        "  {\"name\": \"X-Quote\", \"value\": \"\\\"q\\\" \\\\ # x: y\"}],"
        " \"postData\": {\"mimeType\": \"text/plain\", \"text\": \"line 1\\nline \\\"2\\\"\\t# ${x}\"}},"
        " \"response\": {\"status\": 200}}]}}");
    g_autofree char *out = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { har, NULL }, &out, NULL), ==, 0);
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "odd.yaml", out);
    assert_valid (plan);
    g_test_message ("%s", out);
    g_assert_nonnull (strstr (out, "\"X-Folded\": \"a  b\"\n"));
    g_assert_nonnull (strstr (out, "# header 'X-Control' left out: its value holds a control "
                                   "character\n"));
    g_assert_nonnull (strstr (out, "# header 'Bad Name' left out: not an HTTP field name\n"));
    g_assert_nonnull (strstr (out, "\"X-Quote\": \"\\\"q\\\" \\\\ # x: y\"\n"));
    g_assert_nonnull (strstr (out, "body: \"line 1\\nline \\\"2\\\"\\t# $${x}\"\n"));
    g_assert_nonnull (strstr (out, "url: \"/a?q=1\"\n"));
}

/* ------------------------------------------------------------------ */
/* Bad input                                                            */

typedef struct {
    const char *name;
    const char *har;            /* the file's text; NULL: no such file */
    const char *message;        /* stderr after "throng: PATH: " */
} BadHar;

static const BadHar bad_hars[] = {
    { "missing-file", NULL, NULL },
    { "not-json", "<html>not a recording</html>", "not a HAR file: not JSON (" },
    { "not-har", "{\"version\": \"1.2\", \"entries\": []}",
      "not a HAR file: no \"log\" object at the top (a HAR 1.2 recording is {\"log\": "
      "{\"version\": \"1.2\", \"entries\": […]}})\n" },
    { "json-array", "[1, 2]",
      "not a HAR file: no \"log\" object at the top (a HAR 1.2 recording is {\"log\": "
      "{\"version\": \"1.2\", \"entries\": […]}})\n" },
    { "other-version", "{\"log\": {\"version\": \"2.0\", \"entries\": []}}",
      "HAR version 2.0; throng imports HAR 1.2 (and 1.1)\n" },
    { "no-version", "{\"log\": {\"entries\": []}}",
      "no log.version; throng imports HAR 1.2 (and 1.1)\n" },
    { "no-entries", "{\"log\": {\"version\": \"1.2\"}}",
      "not a HAR file: log.entries is missing or not a list\n" },
    { "entry-without-request",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"startedDateTime\": "
      "\"2026-12-03T10:00:00Z\", \"response\": {\"status\": 200}}]}}",
      "log.entries[0] has no request (every entry of a HAR records one request and its "
      "response)\n" },
    { "request-without-url",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"GET\"}, "
      "\"response\": {\"status\": 200}}]}}",
      "log.entries[0].request has no url\n" },
    { "entry-not-object", "{\"log\": {\"version\": \"1.2\", \"entries\": [7]}}",
      "log.entries[0] is not an object\n" },
    { "method-not-a-token",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"G[T\", \"url\": "
      "\"http://127.0.0.1:1/\"}, \"response\": {\"status\": 200}}]}}",
      "no request to import: 1 entries, 1 skipped, 0 left out by --include-host, 0 by "
      "--exclude, 0 by --no-static\n" },
    /* Found by fuzz-har in CI: a status no plan can expect, and one past any int. */
    { "status-not-http",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"GET\", \"url\": "
      "\"http://127.0.0.1:1/\"}, \"response\": {\"status\": 16}}, {\"request\": {\"method\": "
      "\"GET\", \"url\": \"http://127.0.0.1:1/\"}, \"response\": {\"status\": 1e300}}]}}",
      "no request to import: 2 entries, 2 skipped, 0 left out by --include-host, 0 by "
      "--exclude, 0 by --no-static\n" },
    /* Found by fuzz-har in CI: a duration past any integer (undefined behaviour once). */
    { "time-past-any-int",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"startedDateTime\": "
      "\"2026-12-03T10:00:00Z\", \"time\": 1e308, \"request\": {\"method\": \"GET\", "
      "\"url\": \"ws://127.0.0.1:1/socket\"}, \"response\": {\"status\": 101}}]}}",
      "no request to import: 1 entries, 1 skipped, 0 left out by --include-host, 0 by "
      "--exclude, 0 by --no-static\n" },
    { "nothing-to-replay",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"GET\", \"url\": "
      "\"ws://127.0.0.1:1/socket\"}, \"response\": {\"status\": 101}}]}}",
      "no request to import: 1 entries, 1 skipped, 0 left out by --include-host, 0 by "
      "--exclude, 0 by --no-static\n" },
    { "unknown-body-encoding",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"POST\", "
      "\"url\": \"http://127.0.0.1:1/\", \"postData\": {\"mimeType\": \"text/plain\", \"text\": "
      "\"x\", \"encoding\": \"gzip\"}}, \"response\": {\"status\": 200}}]}}",
      "log.entries[0].request.postData has encoding 'gzip'; only base64 is read\n" },
    /* What the recording says stays on the message's one line. */
    { "not-json-line-break", "{\"x\ny\" 1}",
      "not a HAR file: not JSON (<data>:2:2: Parse error: unexpected string constant \"x y\", "
      "expected character `:')\n" },
    { "version-line-break", "{\"log\": {\"version\": \"1.2\\n2\", \"entries\": []}}",
      "HAR version 1.2 2; throng imports HAR 1.2 (and 1.1)\n" },
    { "encoding-line-break",
      "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"POST\", "
      "\"url\": \"http://127.0.0.1:1/\", \"postData\": {\"mimeType\": \"text/plain\", \"text\": "
      "\"x\", \"encoding\": \"gz\\r\\nip\"}}, \"response\": {\"status\": 200}}]}}",
      "log.entries[0].request.postData has encoding 'gz  ip'; only base64 is read\n" },
};

static void
test_bad_har (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const BadHar *bad = data;
    g_autofree char *path = bad->har != NULL
                                ? throng_test_write_file (fixture->dir, "bad.har", bad->har)
                                : g_build_filename (fixture->dir, "absent.har", NULL);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { path, NULL }, &out, &err), ==, 2);
    g_assert_cmpstr (out, ==, "");
    if (bad->message == NULL) {
        g_assert_true (g_str_has_prefix (err, "throng: Failed to open file"));
        g_assert_nonnull (strstr (err, "No such file or directory\n"));
        return;
    }
    /* One line, whatever the file holds. */
    g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
    g_autofree char *expected = g_strdup_printf ("throng: %s: %s", path, bad->message);
    if (g_str_has_suffix (bad->message, "\n"))
        g_assert_cmpstr (err, ==, expected);
    else
        g_assert_true (g_str_has_prefix (err, expected));
}

/*
 * Lists whose elements should be objects but are not (a header that is a
 * number, a cookie that is true, a form parameter that is a string) are
 * skipped, not read: an element taken as an object was a critical, and an
 * abort where criticals are fatal.
 */
static void
test_odd_elements (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_autofree char *har = throng_test_write_file (
        fixture->dir, "odd.har",
        "{\"log\": {\"version\": \"1.2\", \"entries\": [{\"request\": {\"method\": \"POST\","
        " \"url\": \"http://127.0.0.1:9/form\", \"headers\": [1, {\"name\": \"X-A\", \"value\": \"b\"}],"
        " \"postData\": {\"mimeType\": \"application/x-www-form-urlencoded\","
        " \"params\": [\"x\", {\"name\": \"k\", \"value\": \"v\"}]}},"
        " \"response\": {\"status\": 200, \"headers\": [null], \"cookies\": [true]}}]}}");
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (import_har ((const char *const[]) { har, NULL }, &out, &err), ==, 0);
    g_assert_null (strstr (err, "CRITICAL"));
    g_autofree char *plan = throng_test_write_plan (fixture->dir, "odd.yaml", out);
    assert_valid (plan);
    g_assert_nonnull (strstr (out, "\"X-A\": \"b\""));
}

/* Command-line mistakes: exit 2 with a one-line reason and where to look. */
static void
test_usage (void)
{
    g_autofree char *err = NULL;

    g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, NULL, &err, "import", NULL), ==, 2);
    g_assert_true (g_str_has_prefix (err, "Usage: throng import FORMAT"));
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (throng_test_runv (RUN_TIMEOUT, NULL, &err, "import", "jmx", "x.jmx", NULL),
                     ==, 2);
    g_assert_cmpstr (err, ==, "throng: import: unknown format 'jmx'; throng imports 'har'\n");
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (import_har ((const char *const[]) { NULL }, NULL, &err), ==, 2);
    g_assert_cmpstr (err, ==, "throng: a HAR file is required\nTry 'throng import har --help'.\n");
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (import_har ((const char *const[]) { "x.har", "--exclude", "(", NULL }, NULL,
                                 &err),
                     ==, 2);
    g_assert_true (g_str_has_prefix (err, "throng: --exclude '(': "));
    g_autofree char *help = NULL;
    g_assert_cmpint (import_har ((const char *const[]) { "--help", NULL }, &help, NULL), ==, 0);
    g_assert_nonnull (strstr (help, "--no-static"));
    g_assert_nonnull (strstr (help, "--include-host=HOST"));
}

/* ------------------------------------------------------------------ */

/* The built-in target for record.mjs, until standard input closes. */
static int
serve_target (void)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTarget) target = throng_target_start (&error);
    char buffer[256];

    if (target == NULL) {
        g_printerr ("test-har: %s\n", error->message);
        return 1;
    }
    printf ("%s\n", throng_target_http_url (target));
    fflush (stdout);
    while (read (STDIN_FILENO, buffer, sizeof buffer) > 0)
        ;
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc == 2 && strcmp (argv[1], "--serve-target") == 0)
        return serve_target ();

    g_test_init (&argc, &argv, NULL);

    g_test_add ("/har/recorded", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_recorded,
                throng_test_tmpdir_teardown);
    g_test_add ("/har/synthetic", Fixture, NULL, fixture_setup, test_synthetic, fixture_teardown);
    g_test_add ("/har/include-exclude", Fixture, NULL, fixture_setup, test_include_exclude,
                fixture_teardown);
    g_test_add ("/har/remote-host", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_remote_host, throng_test_tmpdir_teardown);
    g_test_add ("/har/odd-elements", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup,
                test_odd_elements, throng_test_tmpdir_teardown);
    g_test_add ("/har/odd-text", ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, test_odd_text,
                throng_test_tmpdir_teardown);
    g_test_add_func ("/har/usage", test_usage);
    for (gsize i = 0; i < G_N_ELEMENTS (bad_hars); i++) {
        g_autofree char *name = g_strdup_printf ("/har/bad/%s", bad_hars[i].name);
        g_test_add (name, ThrongTestTmpdir, &bad_hars[i], throng_test_tmpdir_setup, test_bad_har,
                    throng_test_tmpdir_teardown);
    }
    return g_test_run ();
}
