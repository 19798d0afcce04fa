/* SPDX-License-Identifier: MIT */
/*
 * The correlation finder of `throng import har` (cli/import-har-correlate.c)
 * on synthetic recordings, one case per kind of source and per value it
 * must leave alone: each recording is read and correlated in process, the
 * plan written, and the plan must hold (and not hold) given lines and pass
 * `throng validate`.
 */
#include "import-har-private.h"
#include "test-utils.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define MAX_HEADERS 3
#define MAX_LINES 6

typedef struct {
    const char *method;
    const char *url;
    const char *headers[MAX_HEADERS];       /* "Name: value" */
    const char *mime;                       /* of the request's body */
    const char *body;
    int status;
    const char *response_headers[MAX_HEADERS];
    const char *cookie;                     /* "name=value", in response.cookies */
    const char *response_mime;
    const char *response_body;
} Entry;

#define MAX_ENTRIES 3

typedef struct {
    const char *name;
    Entry entries[MAX_ENTRIES];
    const char *expected[MAX_LINES];        /* lines of the plan (trimmed), in any order */
    const char *unexpected[MAX_LINES];      /* text that must not be in the plan's YAML,
                                               or its comments for text that begins '#' */
} Case;

static const Case cases[] = {
    { "json-bearer",
      { { "POST", "http://127.0.0.1:9/api/login", { NULL }, "application/json",
          "{\"user\":\"ann\"}", 200, { NULL }, NULL, "application/json",
          "{\"user\":\"ann\",\"token\":\"c2VjcmV0LXRva2VuLTQy\"}" },
        { "GET", "http://127.0.0.1:9/api/me", { "Authorization: Bearer c2VjcmV0LXRva2VuLTQy" },
          NULL, NULL, 200, { NULL }, NULL, NULL, NULL } },
      { "token: { json: \"$.token\" }", "\"Authorization\": \"Bearer ${vars.token}\"" },
      { "c2VjcmV0LXRva2VuLTQy\"" } },
    /* `value` before `name`, and another input's value first in the page. */
    { "html-value-first",
      { { "GET", "http://127.0.0.1:9/form", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "text/html",
          "<form><input value=\"plain\" name=\"q\">\n"
          "<input value=\"Zx9Yw8Vu7Ts6Rq5P\" type=\"hidden\" name=\"authenticity_token\"></form>" },
        { "POST", "http://127.0.0.1:9/form", { NULL }, "application/x-www-form-urlencoded",
          "q=plain&authenticity_token=Zx9Yw8Vu7Ts6Rq5P", 302, { NULL }, NULL, NULL, NULL } },
      { "authenticity_token: { regex: \"value=\\\"([^\\\"]*)\\\"[^>]*?name=\\\"authenticity_token\\\"\", group: 1 }",
        "body: \"q=plain&authenticity_token=${vars.authenticity_token}\"" },
      { NULL } },
    /* A token with characters a form encodes: sent through `| urlencode`. */
    { "urlencoded",
      { { "GET", "http://127.0.0.1:9/form", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "text/html", "<input type=\"hidden\" name=\"tok\" value=\"a+b/c=d9Kq7Lm2Xz\">" },
        { "POST", "http://127.0.0.1:9/form", { NULL }, "application/x-www-form-urlencoded",
          "tok=a%2Bb%2Fc%3Dd9Kq7Lm2Xz", 200, { NULL }, NULL, NULL, NULL } },
      { "body: \"tok=${vars.tok | urlencode}\"" },
      { NULL } },
    /* The client sent it first: the response echoed it; not a correlation. */
    { "client-first",
      { { "POST", "http://127.0.0.1:9/echo", { NULL }, "application/json",
          "{\"ref\":\"r3f3r3nc3XYZ42\"}", 200, { NULL }, NULL, "application/json",
          "{\"ref\":\"r3f3r3nc3XYZ42\"}" },
        { "GET", "http://127.0.0.1:9/find?ref=r3f3r3nc3XYZ42", { NULL }, NULL, NULL, 200,
          { NULL }, NULL, NULL, NULL } },
      { "url: \"/find?ref=r3f3r3nc3XYZ42\"" },
      { "extract:\n", "${vars." } },
    /* Values too short or too common to name. */
    { "tiny-values",
      { { "GET", "http://127.0.0.1:9/list", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "application/json", "{\"first\":1,\"ok\":true,\"page\":\"2\",\"lang\":\"en\"}" },
        { "GET", "http://127.0.0.1:9/items/1?ok=true&page=2&lang=en", { NULL }, NULL, NULL,
          200, { NULL }, NULL, NULL, NULL } },
      { "url: \"/items/1?ok=true&page=2&lang=en\"" },
      { "extract:\n", "${vars.", "# '" } },
    /* A short number in a member named as an id is one; its parent names it. */
    { "id-member",
      { { "POST", "http://127.0.0.1:9/orders", { NULL }, NULL, NULL, 201, { NULL }, NULL,
          "application/json", "{\"order\":{\"id\":4711,\"total\":12}}" },
        { "GET", "http://127.0.0.1:9/orders/4711", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          NULL, NULL } },
      { "order_id: { json: \"$.order.id\" }", "url: \"/orders/${vars.order_id}\"" },
      { NULL } },
    /* A short number in any other member: named in a comment, not replaced. */
    { "weak-note",
      { { "GET", "http://127.0.0.1:9/stats", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "application/json", "{\"latest\":\"2024\"}" },
        { "GET", "http://127.0.0.1:9/stats?year=2024", { NULL }, NULL, NULL, 200, { NULL },
          NULL, NULL, NULL } },
      { "# '2024' (in the url) is also in entry 1's response: if it differs per run, extract it "
        "there (extract: { latest: { json: \"$.latest\" } }) and send ${vars.latest}",
        "url: \"/stats?year=2024\"" },
      { "extract:\n" } },
    /* A cookie sent back in a header (double-submit CSRF). */
    { "cookie-header",
      { { "GET", "http://127.0.0.1:9/", { NULL }, NULL, NULL, 200,
          { "Set-Cookie: csrftoken=Q1w2E3r4T5y6U7i8; Path=/" }, "csrftoken=Q1w2E3r4T5y6U7i8",
          "text/html", "<p>hello</p>" },
        { "POST", "http://127.0.0.1:9/save", { "X-CSRFToken: Q1w2E3r4T5y6U7i8" }, NULL, NULL,
          204, { NULL }, NULL, NULL, NULL } },
      { "csrftoken: { cookie: \"csrftoken\" }", "\"X-CSRFToken\": \"${vars.csrftoken}\"" },
      { NULL } },
    /* Text with no structure: a regex of what comes before it. */
    { "text-context",
      { { "GET", "http://127.0.0.1:9/start", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "text/plain", "session ready; ref=K8s7D6f5G4h3 ok" },
        { "GET", "http://127.0.0.1:9/r/K8s7D6f5G4h3", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          NULL, NULL } },
      { "r: { regex: \" ready; ref=([A-Za-z0-9]+)\", group: 1 }",
        "url: \"/r/${vars.r}\"" },
      { NULL } },
    /* A redirect to a place the response made up: the url is its Location. */
    { "location",
      { { "POST", "http://127.0.0.1:9/orders", { NULL }, NULL, NULL, 303,
          { "Location: /orders/o-9f8e7d6c5b4a" }, NULL, NULL, NULL },
        { "GET", "http://127.0.0.1:9/orders/o-9f8e7d6c5b4a", { NULL }, NULL, NULL, 200,
          { NULL }, NULL, NULL, NULL } },
      { "location: { header: \"Location\" }", "url: \"${vars.location}\"" },
      { NULL } },
    /* In a Location, but not as the next url: no extractor gives it alone. */
    { "by-hand",
      { { "GET", "http://127.0.0.1:9/go", { NULL }, NULL, NULL, 302,
          { "Location: /next?t=Tk9Jk8Lm7Nn6" }, NULL, NULL, NULL },
        { "GET", "http://127.0.0.1:9/other?t=Tk9Jk8Lm7Nn6", { NULL }, NULL, NULL, 200,
          { NULL }, NULL, NULL, NULL } },
      { "# 'Tk9Jk8Lm7Nn6' (in the url) came from entry 1's response, where no extractor finds "
        "it: replace it by hand" },
      { "extract:\n", "${vars." } },
    /* An ETag sent back for a conditional update: a header of the response. */
    { "etag-if-match",
      { { "GET", "http://127.0.0.1:9/doc/7", { NULL }, NULL, NULL, 200,
          { "ETag: \"v7-a1b2c3d4\"" }, NULL, "text/plain", "draft" },
        { "PUT", "http://127.0.0.1:9/doc/7", { "If-Match: \"v7-a1b2c3d4\"" }, "text/plain",
          "final", 204, { NULL }, NULL, NULL, NULL } },
      { "etag: { header: \"ETag\" }", "\"If-Match\": \"${vars.etag}\"" },
      { NULL } },
    /* The server's Date is not where a later request's year came from. */
    { "date-not-a-source",
      { { "GET", "http://127.0.0.1:9/", { NULL }, NULL, NULL, 200,
          { "Date: Mon, 07 Dec 2026 23:35:20 GMT" }, NULL, "text/plain", "hello" },
        { "GET", "http://127.0.0.1:9/archive?year=2026", { NULL }, NULL, NULL, 200, { NULL },
          NULL, NULL, NULL } },
      { "url: \"/archive?year=2026\"" },
      { "extract:\n", "${vars.", "# '" } },
    /* Recorded `${` stays text beside a template; a `$` before a value keeps it as it is. */
    { "dollar",
      { { "GET", "http://127.0.0.1:9/t", { NULL }, NULL, NULL, 200, { NULL }, NULL,
          "application/json", "{\"key\":\"abcdef123456789\"}" },
        { "POST", "http://127.0.0.1:9/u", { NULL }, "text/plain",
          "a=${x}&t=abcdef123456789&u=$abcdef123456789", 200, { NULL }, NULL, NULL, NULL } },
      { "body: \"a=$${x}&t=${vars.key}&u=$abcdef123456789\"" },
      { NULL } },
    /*
     * A JSON body holds the value as `| json` escapes it ('"' and '\\', not
     * '/'): templated there through the filter, so that the replay sends the
     * recorded bytes; the header holds it as it is.
     */
    { "json-escaped",
      { { "GET", "http://127.0.0.1:9/t", { NULL }, NULL, NULL, 200,
          { "X-Token: Ab3/Cd4\"Ef5\\Gh6Jk7" }, NULL, "text/plain", "hello" },
        { "POST", "http://127.0.0.1:9/u", { "X-Key: Ab3/Cd4\"Ef5\\Gh6Jk7" },
          "application/json", "{\"k\":\"Ab3/Cd4\\\"Ef5\\\\Gh6Jk7\"}", 200, { NULL }, NULL,
          NULL, NULL } },
      { "\"X-Key\": \"${vars.x_token}\"", "body: \"{\\\"k\\\":\\\"${vars.x_token | json}\\\"}\"" },
      { NULL } },
};

static void
add_headers (JsonBuilder *builder, const char *const *headers)
{
    json_builder_set_member_name (builder, "headers");
    json_builder_begin_array (builder);
    for (guint h = 0; h < MAX_HEADERS && headers[h] != NULL; h++) {
        const char *colon = strchr (headers[h], ':');
        g_autofree char *name = g_strndup (headers[h], (gsize) (colon - headers[h]));
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "name");
        json_builder_add_string_value (builder, name);
        json_builder_set_member_name (builder, "value");
        json_builder_add_string_value (builder, colon + 2);
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
}

static char *
har_text (const Case *c)
{
    g_autoptr (JsonBuilder) builder = json_builder_new ();

    json_builder_begin_object (builder);
    json_builder_set_member_name (builder, "log");
    json_builder_begin_object (builder);
    json_builder_set_member_name (builder, "version");
    json_builder_add_string_value (builder, "1.2");
    json_builder_set_member_name (builder, "entries");
    json_builder_begin_array (builder);
    for (guint i = 0; i < MAX_ENTRIES && c->entries[i].method != NULL; i++) {
        const Entry *e = &c->entries[i];
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "request");
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "method");
        json_builder_add_string_value (builder, e->method);
        json_builder_set_member_name (builder, "url");
        json_builder_add_string_value (builder, e->url);
        add_headers (builder, e->headers);
        if (e->body != NULL) {
            json_builder_set_member_name (builder, "postData");
            json_builder_begin_object (builder);
            json_builder_set_member_name (builder, "mimeType");
            json_builder_add_string_value (builder, e->mime);
            json_builder_set_member_name (builder, "text");
            json_builder_add_string_value (builder, e->body);
            json_builder_end_object (builder);
        }
        json_builder_end_object (builder);
        json_builder_set_member_name (builder, "response");
        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "status");
        json_builder_add_int_value (builder, e->status);
        add_headers (builder, e->response_headers);
        json_builder_set_member_name (builder, "cookies");
        json_builder_begin_array (builder);
        if (e->cookie != NULL) {
            const char *eq = strchr (e->cookie, '=');
            g_autofree char *name = g_strndup (e->cookie, (gsize) (eq - e->cookie));
            json_builder_begin_object (builder);
            json_builder_set_member_name (builder, "name");
            json_builder_add_string_value (builder, name);
            json_builder_set_member_name (builder, "value");
            json_builder_add_string_value (builder, eq + 1);
            json_builder_end_object (builder);
        }
        json_builder_end_array (builder);
        json_builder_set_member_name (builder, "content");
        json_builder_begin_object (builder);
        if (e->response_mime != NULL) {
            json_builder_set_member_name (builder, "mimeType");
            json_builder_add_string_value (builder, e->response_mime);
        }
        if (e->response_body != NULL) {
            json_builder_set_member_name (builder, "text");
            json_builder_add_string_value (builder, e->response_body);
        }
        json_builder_end_object (builder);
        json_builder_end_object (builder);
        json_builder_end_object (builder);
    }
    json_builder_end_array (builder);
    json_builder_end_object (builder);
    json_builder_end_object (builder);

    g_autoptr (JsonNode) root = json_builder_get_root (builder);
    return json_to_string (root, TRUE);
}

static void
test_case (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const Case *c = data;
    g_autofree char *text = har_text (c);
    g_autofree char *har = throng_test_write_file (fixture->dir, "case.har", text);
    HarSelect select = { 0 };
    g_auto (HarImport) import = { 0 };
    g_autoptr (GError) error = NULL;

    g_assert_true (har_read (har, &select, &import, &error));
    g_assert_no_error (error);
    har_correlate (&import);
    g_autofree char *plan = har_write_plan (&import, c->name);
    g_auto (GStrv) lines = g_strsplit (plan, "\n", -1);

    for (guint i = 0; i < MAX_LINES && c->expected[i] != NULL; i++) {
        gboolean found = FALSE;
        for (char **line = lines; *line != NULL && !found; line++)
            found = strcmp (g_strstrip (*line), c->expected[i]) == 0;
        if (!found)
            g_test_message ("no line '%s' in:\n%s", c->expected[i], plan);
        g_assert_true (found);
    }
    /* Text that must not be in the plan: in its comments too when it begins with '#'. */
    g_autoptr (GString) yaml = g_string_new (NULL);
    for (char **line = lines; *line != NULL; line++)
        if ((*line)[strspn (*line, " ")] != '#')
            g_string_append_printf (yaml, "%s\n", *line);
    for (guint i = 0; i < MAX_LINES && c->unexpected[i] != NULL; i++) {
        const char *where = c->unexpected[i][0] == '#' ? plan : yaml->str;
        if (strstr (where, c->unexpected[i]) != NULL)
            g_test_message ("'%s' in:\n%s", c->unexpected[i], plan);
        g_assert_null (strstr (where, c->unexpected[i]));
    }

    g_autofree char *path = throng_test_write_plan (fixture->dir, "plan.yaml", plan);
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = throng_test_runv (60, &out, &err, "validate", path, NULL);
    if (status != 0)
        g_test_message ("validate: %s%s\n%s", out, err, plan);
    g_assert_cmpint (status, ==, 0);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *path = g_strdup_printf ("/har-correlate/%s", cases[i].name);
        g_test_add (path, ThrongTestTmpdir, &cases[i], throng_test_tmpdir_setup, test_case,
                    throng_test_tmpdir_teardown);
    }
    return g_test_run ();
}
