/* SPDX-License-Identifier: MIT */
/*
 * User journeys end to end (docs/journeys.md): the real throng binary
 * against an in-process server that verifies what it receives — who
 * logged in and how often, whether each request carries its own user's
 * token, which data row each user sent, how a weighted choice split the
 * iterations — and the run's own account of it (checks, error classes,
 * group rows).  The cases that concern the transports run on both.
 */
#include "test-utils.h"

#include <signal.h>
#include <string.h>
#include <zlib.h>

#define RUN_TIMEOUT 120

/* What the server saw; its handler runs on the server's thread. */
typedef struct {
    GMutex lock;
    GHashTable *logins;    /* user name → login count */
    GHashTable *tokens;    /* token → user name */
    guint authorized;      /* requests whose token was their own user's */
    guint wrong_token;     /* requests with a missing, unknown or other user's token */
    GHashTable *row_users; /* data row → GHashTable of user ids */
    guint choices[3];      /* /choose/a, /b, /c */
    guint checked;         /* /checked requests */
    guint repeated;        /* /repeat requests */
    guint never;           /* /never requests: a step that must not send */
    GPtrArray *echoes;     /* the query strings /echo received, in order */
    GPtrArray *bodies;     /* the bodies /echo received */
    GPtrArray *heads;      /* X-Empty, X-Iter and X-Lit as /echo received them */
    GPtrArray *types;      /* the Content-Type /echo received, "-" when none */
    gint64 paused_answered; /* monotonic: /paused/before was last answered */
    gint64 paused_gap;      /* the shortest time from that answer to /paused/after, -1: none */
    guint paused_after;     /* /paused/after requests */
} Journey;

typedef struct {
    char *dir;
    Journey journey;
    ThrongTestSoupServer *server;
    const char *transport;
} Fixture;

static const char *
query_value (GHashTable *query, const char *key)
{
    return query != NULL ? g_hash_table_lookup (query, key) : NULL;
}

static void
respond (SoupServerMessage *msg, guint status, const char *type, const char *body)
{
    soup_server_message_set_status (msg, status, NULL);
    soup_server_message_set_response (msg, type, SOUP_MEMORY_COPY, body, strlen (body));
}

/* POST /login {"user": "NAME"}: a fresh token, remembered as NAME's. */
static void
handle_login (Journey *j, SoupServerMessage *msg)
{
    g_autoptr (GBytes) body
        = soup_message_body_flatten (soup_server_message_get_request_body (msg));
    g_autoptr (GRegex) regex = g_regex_new ("\"user\": *\"([^\"]+)\"", 0, 0, NULL);
    g_autoptr (GMatchInfo) info = NULL;
    g_autofree char *text = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
    g_autofree char *user = NULL;
    g_autofree char *json = NULL;
    char *token;

    if (!g_regex_match (regex, text, 0, &info)) {
        respond (msg, 400, "application/json", "{\"error\": \"no user\"}");
        return;
    }
    user = g_match_info_fetch (info, 1);
    token = g_strdup_printf ("tok-%s-%08x", user, g_random_int ());
    g_hash_table_insert (
        j->logins, g_strdup (user),
        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (j->logins, user)) + 1));
    g_hash_table_insert (j->tokens, token, g_strdup (user));
    json = g_strdup_printf ("{\"token\": \"%s\", \"n\": 7}", token);
    soup_message_headers_append (soup_server_message_get_response_headers (msg), "Set-Cookie",
                                 "SESSIONID=s-1; Path=/");
    respond (msg, 200, "application/json", json);
}

/* A request that claims to be X-User's: its bearer token must be that user's. */
static void
handle_items (Journey *j, SoupServerMessage *msg)
{
    SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
    const char *auth = soup_message_headers_get_one (headers, "Authorization");
    const char *claimed = soup_message_headers_get_one (headers, "X-User");
    const char *owner = NULL;

    if (auth != NULL && g_str_has_prefix (auth, "Bearer "))
        owner = g_hash_table_lookup (j->tokens, auth + strlen ("Bearer "));
    if (owner == NULL || claimed == NULL || strcmp (owner, claimed) != 0) {
        j->wrong_token++;
        respond (msg, 401, "application/json", "{\"error\": \"wrong token\"}");
        return;
    }
    j->authorized++;
    respond (msg, 200, "application/json", "{\"items\": [{\"id\": 42}], \"in_stock\": true}");
}

/* "X-Empty=[…] X-Iter=[…] X-Lit=[…]", "-" for a field that is absent. */
static char *
echo_head (SoupMessageHeaders *headers)
{
    const char *empty = soup_message_headers_get_one (headers, "X-Empty");
    const char *iter = soup_message_headers_get_one (headers, "X-Iter");
    const char *lit = soup_message_headers_get_one (headers, "X-Lit");

    return g_strdup_printf ("X-Empty=[%s] X-Iter=[%s] X-Lit=[%s]", empty != NULL ? empty : "-",
                            iter != NULL ? iter : "-", lit != NULL ? lit : "-");
}

static void
handler (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Journey *j = data;
    g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&j->lock);

    if (strcmp (path, "/login") == 0) {
        handle_login (j, msg);
    } else if (strcmp (path, "/items") == 0) {
        handle_items (j, msg);
    } else if (strcmp (path, "/row") == 0) {
        const char *row = query_value (query, "row");
        const char *user = query_value (query, "user");
        GHashTable *users;

        if (row == NULL || user == NULL) {
            respond (msg, 400, "text/plain", "row and user\n");
            return;
        }
        users = g_hash_table_lookup (j->row_users, row);
        if (users == NULL) {
            users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
            g_hash_table_insert (j->row_users, g_strdup (row), users);
        }
        g_hash_table_add (users, g_strdup (user));
        respond (msg, 200, "text/plain", "ok\n");
    } else if (g_str_has_prefix (path, "/choose/") && path[8] >= 'a' && path[8] <= 'c') {
        j->choices[path[8] - 'a']++;
        respond (msg, 200, "text/plain", "ok\n");
    } else if (strcmp (path, "/checked") == 0) {
        /* Every 10th answer lacks what the check looks for. */
        gboolean bad = ++j->checked % 10 == 0;
        respond (msg, 200, "application/json",
                 bad ? "{\"state\": \"broken\"}" : "{\"state\": \"ok\"}");
    } else if (strcmp (path, "/repeat") == 0) {
        j->repeated++;
        respond (msg, 200, "text/plain", "ok\n");
    } else if (strcmp (path, "/gzip") == 0) {
        /* Compressed whatever the request asked for, as some servers do. */
        /* 4,016 bytes that code to some 50: a count of the wire's bytes cannot be the text's. */
        g_autofree char *spaces = g_strnfill (4000, ' ');
        g_autofree char *text = g_strconcat ("hello gzip world", spaces, NULL);
        guint8 coded[256];
        z_stream z = { 0 };

        g_assert_cmpint (deflateInit2 (&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==,
                         Z_OK);
        z.next_in = (Bytef *)text;
        z.avail_in = (uInt)strlen (text);
        z.next_out = coded;
        z.avail_out = sizeof coded;
        g_assert_cmpint (deflate (&z, Z_FINISH), ==, Z_STREAM_END);
        deflateEnd (&z);
        soup_message_headers_append (soup_server_message_get_response_headers (msg),
                                     "Content-Encoding", "gzip");
        soup_server_message_set_status (msg, 200, NULL);
        soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, (const char *)coded,
                                          z.total_out);
    } else if (strcmp (path, "/hop") == 0) {
        /* One redirect, to where the `url` checks look. */
        soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Location",
                                      "/choose/a?from=hop");
        respond (msg, 302, "text/plain", "moved\n");
    } else if (strcmp (path, "/never") == 0) {
        j->never++;
        respond (msg, 200, "text/plain", "ok\n");
    } else if (g_str_has_prefix (path, "/slow/")) {
        guint ms = (guint)atoi (path + strlen ("/slow/"));
        g_clear_pointer (&locker, g_mutex_locker_free);
        throng_test_soup_server_respond_later (msg, ms, "slow\n");
    } else if (strcmp (path, "/paused/before") == 0) {
        respond (msg, 200, "text/plain", "before\n");
        j->paused_answered = g_get_monotonic_time ();
    } else if (strcmp (path, "/paused/after") == 0) {
        gint64 gap = g_get_monotonic_time () - j->paused_answered;

        if (j->paused_gap < 0 || gap < j->paused_gap)
            j->paused_gap = gap;
        j->paused_after++;
        respond (msg, 200, "text/plain", "after\n");
    } else if (strcmp (path, "/private") == 0) {
        /* alice:p@ss:w rd, as Basic authentication: anything else is refused. */
        const char *auth = soup_message_headers_get_one (
            soup_server_message_get_request_headers (msg), "Authorization");
        gboolean ok = g_strcmp0 (auth, "Basic YWxpY2U6cEBzczp3IHJk") == 0;
        j->authorized += ok;
        j->wrong_token += !ok;
        respond (msg, ok ? 200 : 401, "text/plain", ok ? "welcome\n" : "who?\n");
    } else if (strcmp (path, "/me") == 0) {
        /* Who the query says: answers that only a check expecting this user's values passes. */
        const char *who = query_value (query, "user");
        g_autofree char *json = g_strdup_printf ("{\"email\": \"%s@example.com\", \"id\": \"id-%s\"}",
                                                 who != NULL ? who : "", who != NULL ? who : "");
        soup_message_headers_append (soup_server_message_get_response_headers (msg), "X-Who",
                                     who != NULL ? who : "");
        respond (msg, 200, "application/json", json);
    } else if (strcmp (path, "/echo") == 0) {
        SoupMessageBody *body = soup_server_message_get_request_body (msg);
        g_autoptr (GBytes) bytes = soup_message_body_flatten (body);
        GUri *uri = soup_server_message_get_uri (msg);

        g_ptr_array_add (j->echoes,
                         g_strdup (g_uri_get_query (uri) != NULL ? g_uri_get_query (uri) : ""));
        g_ptr_array_add (j->bodies,
                         g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)));
        g_ptr_array_add (j->heads, echo_head (soup_server_message_get_request_headers (msg)));
        const char *type = soup_message_headers_get_one (
            soup_server_message_get_request_headers (msg), "Content-Type");
        g_ptr_array_add (j->types, g_strdup (type != NULL ? type : "-"));
        respond (msg, 200, "text/plain", "echo\n");
    } else {
        respond (msg, 404, "text/plain", "not found\n");
    }
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    Journey *j = &f->journey;

    f->transport = data;
    f->dir = throng_test_tmpdir_new ();
    g_mutex_init (&j->lock);
    j->logins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    j->tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    j->row_users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify)g_hash_table_unref);
    j->echoes = g_ptr_array_new_with_free_func (g_free);
    j->bodies = g_ptr_array_new_with_free_func (g_free);
    j->heads = g_ptr_array_new_with_free_func (g_free);
    j->types = g_ptr_array_new_with_free_func (g_free);
    j->paused_gap = -1;
    f->server = throng_test_soup_server_start (NULL, handler, j);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    Journey *j = &f->journey;

    throng_test_soup_server_stop (f->server);
    g_hash_table_unref (j->logins);
    g_hash_table_unref (j->tokens);
    g_hash_table_unref (j->row_users);
    g_ptr_array_unref (j->echoes);
    g_ptr_array_unref (j->bodies);
    g_ptr_array_unref (j->heads);
    g_ptr_array_unref (j->types);
    g_mutex_clear (&j->lock);
    throng_test_tmpdir_free (f->dir);
}

/* Runs @steps for @users × @iterations with the fixture's server and transport; the summary. */
static JsonNode *
run (Fixture *f, guint users, guint iterations, const char *scenario_extra, const char *steps,
     int expected_status, char **out_stderr)
{
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = users,
        .iterations = iterations,
        .scenario_extra = scenario_extra,
        .steps = steps,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    JsonNode *root
        = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, expected_status, &err);

    throng_test_assert_no_glib_noise (err);
    if (out_stderr != NULL)
        *out_stderr = g_steal_pointer (&err);
    return root;
}

/* The passes and fails of the check named @name in scenario 0. */
static void
check_counts (JsonNode *root, const char *name, gint64 *passes, gint64 *fails)
{
    guint n = throng_test_json_length (root, "scenarios.0.checks.list");

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("scenarios.0.checks.list.%u", i);
        g_autofree char *name_path = g_strconcat (path, ".name", NULL);
        g_autofree char *passes_path = g_strconcat (path, ".passes", NULL);
        g_autofree char *fails_path = g_strconcat (path, ".fails", NULL);

        if (g_strcmp0 (throng_test_json_string (root, name_path), name) != 0)
            continue;
        *passes = throng_test_json_int (root, passes_path);
        *fails = throng_test_json_int (root, fails_path);
        return;
    }
    g_error ("no check named '%s' in the summary", name);
}

/* `throng validate` of @yaml (written to @dir) fails with exit 2 and "PLAN:@error". */
static void
assert_refused (const char *dir, const char *yaml, const char *error)
{
    g_autofree char *plan = throng_test_write_plan (dir, "refused.yaml", yaml);
    g_autofree char *expected = g_strdup_printf ("%s:%s\n", plan, error);
    g_autofree char *err = NULL;

    g_assert_cmpint (throng_test_runv (30, NULL, &err, "validate", plan, NULL), ==, 2);
    g_assert_cmpstr (err, ==, expected);
}

/*
 * 100 users × 20 iterations: each logs in once, and every later request
 * carries its own token, which the server checks against the user the
 * request claims to be.
 */
static void
test_login_once (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - name: login\n"
          "        once: true\n"
          "        http:\n"
          "          method: POST\n"
          "          url: /login\n"
          "          headers: { Content-Type: application/json }\n"
          "          body: '{\"user\": \"u${user.id}\"}'\n"
          "          check: [ { status: 200 }, { json: $.token, exists: true } ]\n"
          "          extract: { token: { json: $.token } }\n"
          "      - name: items\n"
          "        http:\n"
          "          url: /items\n"
          "          headers: { Authorization: \"Bearer ${vars.token}\", X-User: \"u${user.id}\" "
          "}\n"
          "          check: [ { status: 200 }, { body_contains: '\"in_stock\": true' } ]\n";
    g_autoptr (JsonNode) root = run (f, 100, 20, NULL, steps, 0, NULL);
    Journey *j = &f->journey;
    GHashTableIter iter;
    gpointer key, value;
    gint64 passes, fails;

    g_mutex_lock (&j->lock);
    g_assert_cmpuint (g_hash_table_size (j->logins), ==, 100);
    g_hash_table_iter_init (&iter, j->logins);
    while (g_hash_table_iter_next (&iter, &key, &value))
        g_assert_cmpuint (GPOINTER_TO_UINT (value), ==, 1);
    g_assert_cmpuint (j->wrong_token, ==, 0);
    g_assert_cmpuint (j->authorized, ==, 100 * 20);
    g_mutex_unlock (&j->lock);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    check_counts (root, "status is 200", &passes, &fails);
    g_assert_cmpint (passes, ==, 100 + 100 * 20);
    g_assert_cmpint (fails, ==, 0);
    check_counts (root, "$.token exists", &passes, &fails);
    g_assert_cmpint (passes, ==, 100);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.checks.fails"), ==, 0);
    g_assert_cmpfloat (throng_test_json_double (root, "scenarios.0.checks.rate"), ==, 1.0);
}

/* A bad body on every 10th request: exactly that many `check` failures, named in the message. */
static void
test_bad_body (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http:\n"
                                "          url: /checked\n"
                                "          check:\n"
                                "            - status: 200\n"
                                "            - json: $.state\n"
                                "              equals: ok\n";
    g_autofree char *csv = g_build_filename (f->dir, "samples.csv", NULL);
    g_autofree char *out = g_strdup_printf ("reporters:\n  - csv: { path: \"%s\" }\n", csv);
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 4,
        .iterations = 50,
        .steps = steps,
        .plan_extra = out,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    g_autofree char *rows = NULL;
    gint64 passes, fails;

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 200);
    g_assert_cmpint (throng_test_summary_class (root, "total", "check"), ==, 20);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 20);
    check_counts (root, "$.state equals ok", &passes, &fails);
    g_assert_cmpint (passes, ==, 180);
    g_assert_cmpint (fails, ==, 20);
    check_counts (root, "status is 200", &passes, &fails);
    g_assert_cmpint (passes, ==, 200);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.checks.fails"), ==, 20);

    /* The CSV names the check and what it saw in failureMessage, as JMeter names the failed
     * assertion, and keeps the response's code and message. */
    g_assert_true (g_file_get_contents (csv, &rows, NULL, NULL));
    g_assert_nonnull (strstr (rows, ",200,OK,"));
    g_assert_nonnull (
        strstr (rows, ",text,false,\"check '$.state equals ok' failed, saw 'broken'\","));
}

/*
 * An extractor that finds nothing fails its step (`check`); the step that
 * needs it sends nothing, and is counted as not sent.
 */
static void
test_unset_variable (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http:\n"
                                "          url: /checked\n"
                                "          extract: { missing: { json: $.nope } }\n"
                                "      - http:\n"
                                "          url: /never?v=${vars.missing}\n";
    g_autoptr (JsonNode) root = run (f, 2, 3, NULL, steps, 0, NULL);

    g_assert_cmpuint (f->journey.never, ==, 0);
    g_assert_cmpint (throng_test_summary_class (root, "scenarios.0.steps.0.stats", "check"), ==, 6);
    g_assert_cmpint (throng_test_summary_class (root, "scenarios.0.steps.1.stats", "variable"), ==,
                     6);
    /* not requests: the server saw none (docs/reporters.md, "What a request is") */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.requests"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.not_sent"), ==, 6);
}

/* Every extractor kind, end to end: what each found is sent back and seen by the server. */
static void
test_extractors (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http:\n"
          "          method: POST\n"
          "          url: /login\n"
          "          body: '{\"user\": \"x\"}'\n"
          "          extract:\n"
          "            n: { json: $.n }\n"
          "            prefix: { regex: '\"token\": \"(tok)-', group: 1 }\n"
          "            type: { header: Content-Type }\n"
          "            session: { cookie: SESSIONID }\n"
          "            code: { status: true }\n"
          "            fallback: { json: $.missing, default: none }\n"
          "      - http:\n"
          "          url: \"/echo?n=${vars.n}&p=${vars.prefix}&s=${vars.session}&c=${vars.code}"
          "&f=${vars.fallback}\"\n"
          "          headers: { X-Type: \"${vars.type}\" }\n";
    g_autoptr (JsonNode) root = run (f, 1, 1, NULL, steps, 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.echoes->len, ==, 1);
    g_assert_cmpstr (g_ptr_array_index (f->journey.echoes, 0), ==, "n=7&p=tok&s=s-1&c=200&f=none");
}

/*
 * A check's value and pattern are templates (issue 32: `equals:
 * "${data.email}"` was compared as written and failed against a correct
 * server): each user's checks expect that user's values, and a check that
 * expects another value fails.  A value read before it is set fails its
 * check with the reason.
 */
static void
test_templated_checks (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - set: { who: \"u${user.id}\" }\n"
          "      - http:\n"
          "          url: \"/me?user=${vars.who}\"\n"
          "          extract:\n"
          "            id: { regex: '\"id\": \"id-(${vars.who})\"', group: 1 }\n"
          "          check:\n"
          "            - { json: $.email, equals: \"${vars.who}@example.com\" }\n"
          "            - { json: $.id, matches: \"^id-${vars.who}$\" }\n"
          "            - { header: X-Who, contains: \"${vars.who}\" }\n"
          "            - { body_contains: \"id-${vars.who}\" }\n"
          "            - { body_regex: \"email.: .${vars.who}@\" }\n"
          "            - { json: $.email, equals: \"${vars.who}-other@example.com\" }\n"
          "            - { json: $.email, equals: \"$${vars.who}\" }\n"
          "      - http:\n"
          "          url: \"/echo?id=${vars.id}\"\n";
    static const char *const passing[] = {
        "$.email equals ${vars.who}@example.com", "$.id matches /^id-${vars.who}$/",
        "header X-Who contains ${vars.who}", "body contains id-${vars.who}",
        "body matches /email.: .${vars.who}@/",
    };
    g_autoptr (JsonNode) root = run (f, 2, 3, NULL, steps, 0, NULL);
    gint64 passes = -1, fails = -1;

    for (guint i = 0; i < G_N_ELEMENTS (passing); i++) {
        check_counts (root, passing[i], &passes, &fails);
        g_test_message ("%s: %" G_GINT64_FORMAT " passes, %" G_GINT64_FORMAT " fails", passing[i],
                        passes, fails);
        g_assert_cmpint (passes, ==, 6);
        g_assert_cmpint (fails, ==, 0);
    }
    /* Another user's value, and `$${` (a literal "${"), fail every time. */
    check_counts (root, "$.email equals ${vars.who}-other@example.com", &passes, &fails);
    g_assert_cmpint (passes, ==, 0);
    g_assert_cmpint (fails, ==, 6);
    check_counts (root, "$.email equals $${vars.who}", &passes, &fails);
    g_assert_cmpint (passes, ==, 0);
    g_assert_cmpint (fails, ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 6);
    /* The templated extractor took each user's own id. */
    g_assert_cmpuint (f->journey.echoes->len, ==, 6);
    for (guint i = 0; i < f->journey.echoes->len; i++) {
        const char *echo = g_ptr_array_index (f->journey.echoes, i);
        g_test_message ("echo %s", echo);
        g_assert_true (strcmp (echo, "id=u1") == 0 || strcmp (echo, "id=u2") == 0);
    }
}

/* A check that reads a variable no step has set yet fails, saying which. */
static void
test_templated_check_unset (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http:\n"
          "          url: /me?user=a\n"
          "          check: [ { json: $.email, equals: \"${vars.later}\" } ]\n"
          "      - http:\n"
          "          url: /me?user=b\n"
          "          extract: { later: { json: $.email } }\n";
    g_autofree char *csv = g_build_filename (f->dir, "samples.csv", NULL);
    g_autofree char *out = g_strdup_printf ("reporters:\n  - csv: { path: \"%s\" }\n", csv);
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .iterations = 1,
        .steps = steps,
        .plan_extra = out,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    g_autofree char *rows = NULL;
    gint64 passes = -1, fails = -1;

    check_counts (root, "$.email equals ${vars.later}", &passes, &fails);
    g_assert_cmpint (passes, ==, 0);
    g_assert_cmpint (fails, ==, 1);
    g_assert_cmpint (throng_test_summary_class (root, "scenarios.0.steps.0.stats", "check"), ==, 1);
    g_assert_true (g_file_get_contents (csv, &rows, NULL, NULL));
    g_test_message ("%s", rows);
    g_assert_nonnull (strstr (rows, ",text,false,check '$.email equals ${vars.later}' failed: "));
    g_assert_nonnull (strstr (rows, "vars.later"));
}

/*
 * Credentials in a url are sent as Basic authentication on every request
 * (issue 32: they were dropped and every request got 401), percent-
 * decoded, and the url the reports show has none.
 */
static void
test_url_credentials (Fixture *f, gconstpointer data)
{
    const char *base = throng_test_soup_server_http_url (f->server);
    g_autofree char *steps = g_strdup_printf ("      - http:\n"
                                              "          url: \"http://alice:p%%40ss%%3Aw%%20rd@%s/private\"\n",
                                              base + strlen ("http://"));
    g_autoptr (JsonNode) root = run (f, 2, 3, NULL, steps, 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.authorized, ==, 6);
    g_assert_cmpuint (f->journey.wrong_token, ==, 0);
    g_assert_null (strstr (throng_test_json_string (root, "scenarios.0.steps.0.label"), "p%40ss"));

    /* Where they cannot be sent as written, the plan is refused, not run without them. */
    static const struct {
        const char *step;
        const char *error;
    } refused[] = {
        { "{ url: \"http://u:p@127.0.0.1:1/${user.id}\" }",
          "5:22: a url that is a template cannot carry credentials (user:password@); send them "
          "with auth: { basic: { user: U, password: P } }" },
        { "{ url: \"http://u:p@127.0.0.1:1/\", headers: { Authorization: Bearer t } }",
          "5:22: the url has credentials (user:password@) and the step sets an Authorization "
          "header: keep one of them" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
        g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                                 "  - users: 1\n"
                                                 "    iterations: 1\n"
                                                 "    steps:\n"
                                                 "      - http: %s\n", refused[i].step);
        assert_refused (f->dir, yaml, refused[i].error);
    }
}

/*
 * A CSV without a header row, its columns named by the plan (JMeter's CSV
 * Data Set with variableNames): every record is a row, the first too.
 */
static void
test_data_columns (Fixture *f, gconstpointer data)
{
    g_autofree char *csv = throng_test_write_file (f->dir, "creds.csv", "alice,pw1\nbob,pw2\n");
    g_autofree char *extra
        = g_strdup_printf ("    data: { file: \"%s\", columns: [user, password] }\n", csv);
    static const char steps[] = "      - http: { url: \"/echo?u=${data.user}&p=${data.password}\" }\n";
    g_autoptr (JsonNode) root = run (f, 2, 1, extra, steps, 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.echoes->len, ==, 2);
    g_assert_true (g_ptr_array_find_with_equal_func (f->journey.echoes, "u=alice&p=pw1",
                                                     g_str_equal, NULL));
    g_assert_true (g_ptr_array_find_with_equal_func (f->journey.echoes, "u=bob&p=pw2",
                                                     g_str_equal, NULL));
}

/*
 * What the iteration's last request took, as `last.*`: a slow answer's
 * duration and time to first byte reach the server in the next request,
 * go into a plan's own trend, and a threshold on its p95 judges them (k6's
 * thresholds on http_req_waiting, here for the steps the plan picks).
 */
static void
test_last_timings (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: /slow/40 }\n"
          "        record: { wait: \"${last.ttfb_ms}\" }\n"
          "      - http: { url: \"/echo?s=${last.status}&d=${last.duration_ms}\" }\n";
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .iterations = 2,
        .steps = steps,
        .plan_extra = "metrics: { wait: { type: trend } }\n"
                      "thresholds: [ \"wait.min >= 40\", \"wait.p95 < 5000\" ]\n",
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autoptr (JsonNode) root
        = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.echoes->len, ==, 2);
    for (guint i = 0; i < f->journey.echoes->len; i++) {
        const char *echo = g_ptr_array_index (f->journey.echoes, i);
        double ms = g_ascii_strtod (strstr (echo, "&d=") + 3, NULL);

        g_test_message ("the server received %s", echo);
        g_assert_true (g_str_has_prefix (echo, "s=200&d="));
        g_assert_cmpfloat (ms, >=, 40.0);
    }

    /* The same run with a bound it cannot meet: the threshold fails it. */
    plan.plan_extra = "metrics: { wait: { type: trend } }\n"
                      "thresholds: [ \"wait.min < 40\" ]\n";
    g_autofree char *failing = throng_test_plan_yaml (&plan);
    g_autoptr (JsonNode) failed
        = throng_test_run_summary (f->dir, failing, NULL, RUN_TIMEOUT, 99, NULL);
    g_assert_nonnull (failed);
}

/*
 * Named data sets, each with its own file and rules: the users' set keeps
 * one row per user, the items' set (JSON) moves on every iteration and
 * recycles; the server sees every pairing the rules call for.
 */
static void
test_data_named (Fixture *f, gconstpointer data)
{
    g_autofree char *csv = throng_test_write_file (f->dir, "users.csv", "name\nalice\nbob\n");
    g_autofree char *json
        = throng_test_write_file (f->dir, "items.json", "[{\"sku\": \"a1\"}, {\"sku\": \"b2\"}]");
    g_autofree char *extra
        = g_strdup_printf ("    data:\n"
                           "      users: { file: \"%s\", advance: per-user }\n"
                           "      items: { file: \"%s\" }\n",
                           csv, json);
    static const char steps[] = "      - http: { url: \"/echo?u=${data.users.name}&s=${data.items.sku}\" }\n";
    g_autoptr (JsonNode) root = run (f, 2, 3, extra, steps, 0, NULL);
    guint alice = 0, bob = 0, a1 = 0, b2 = 0;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.echoes->len, ==, 6);
    for (guint i = 0; i < f->journey.echoes->len; i++) {
        const char *echo = g_ptr_array_index (f->journey.echoes, i);

        alice += g_str_has_prefix (echo, "u=alice&");
        bob += g_str_has_prefix (echo, "u=bob&");
        a1 += g_str_has_suffix (echo, "&s=a1");
        b2 += g_str_has_suffix (echo, "&s=b2");
    }
    /* One user row each, for all three iterations; the items' two rows taken in turn. */
    g_assert_cmpuint (alice, ==, 3);
    g_assert_cmpuint (bob, ==, 3);
    g_assert_cmpuint (a1, ==, 3);
    g_assert_cmpuint (b2, ==, 3);
}

/*
 * Bodies built from fields (issue 32): a form the server decodes back into
 * the plan's map, a list repeating its key; a JSON body whose plain
 * scalars keep their type, quoted ones stay text, strings are templates.
 * Each sets its Content-Type.
 */
static void
test_form_json_bodies (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http:\n"
          "          method: POST\n"
          "          url: /echo\n"
          "          form: { user: \"u${user.id}\", note: \"a b&c=d\", tag: [x, \"y ${iteration}\"],"
          " empty: }\n"
          "      - http:\n"
          "          method: POST\n"
          "          url: /echo\n"
          "          json:\n"
          "            user: \"u${user.id}\"\n"
          "            quote: \"say \\\"${iteration}\\\"\"\n"
          "            n: 42\n"
          "            ok: true\n"
          "            none: null\n"
          "            text: \"42\"\n"
          "            list: [1.5, x, { deep: [] }]\n"
          "      - http:\n"
          "          method: POST\n"
          "          url: /echo\n"
          "          headers: { Content-Type: application/vnd.api+json }\n"
          "          json: [1, 2]\n";
    g_autoptr (JsonNode) root = run (f, 1, 1, NULL, steps, 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (f->journey.bodies->len, ==, 3);
    g_assert_cmpstr (g_ptr_array_index (f->journey.bodies, 0), ==,
                     "user=u1&note=a+b%26c%3Dd&tag=x&tag=y+1&empty=");
    g_autoptr (GHashTable) form = soup_form_decode (g_ptr_array_index (f->journey.bodies, 0));
    g_assert_cmpstr (g_hash_table_lookup (form, "note"), ==, "a b&c=d");

    g_autoptr (JsonParser) parser = json_parser_new ();
    g_autoptr (GError) error = NULL;
    g_assert_true (json_parser_load_from_data (parser, g_ptr_array_index (f->journey.bodies, 1),
                                               -1, &error));
    JsonObject *object = json_node_get_object (json_parser_get_root (parser));
    g_assert_cmpstr (json_object_get_string_member (object, "user"), ==, "u1");
    g_assert_cmpstr (json_object_get_string_member (object, "quote"), ==, "say \"1\"");
    g_assert_cmpint (json_object_get_int_member (object, "n"), ==, 42);
    g_assert_true (json_object_get_boolean_member (object, "ok"));
    g_assert_true (json_object_get_null_member (object, "none"));
    g_assert_cmpstr (json_object_get_string_member (object, "text"), ==, "42");
    JsonArray *list = json_object_get_array_member (object, "list");
    g_assert_cmpfloat (json_array_get_double_element (list, 0), ==, 1.5);
    g_assert_cmpstr (json_array_get_string_element (list, 1), ==, "x");
    g_assert_cmpstr (g_ptr_array_index (f->journey.bodies, 2), ==, "[1,2]");
    g_assert_cmpstr (g_ptr_array_index (f->journey.types, 0), ==, "application/x-www-form-urlencoded");
    g_assert_cmpstr (g_ptr_array_index (f->journey.types, 1), ==, "application/json");
    g_assert_cmpstr (g_ptr_array_index (f->journey.types, 2), ==, "application/vnd.api+json");
}

/*
 * A multipart body (issue 32): the server's own multipart parser
 * (soup_multipart_new_from_message) finds the plan's parts, in order,
 * with their names, values (templates expanded), a file read relative to
 * the plan, its file name and type.
 */
static void
test_multipart_body (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http:\n"
          "          method: POST\n"
          "          url: /echo\n"
          "          multipart:\n"
          "            - { name: user, value: \"u${user.id}\" }\n"
          "            - { name: \"the \\\"note\\\"\", value: \"line 1\\r\\nline 2\" }\n"
          "            - { name: doc, file: upload.txt, content_type: text/plain }\n"
          "            - { name: raw, file: upload.txt, filename: other.bin }\n"
          "            - { name: empty, value: }\n";
    g_free (throng_test_write_file (f->dir, "upload.txt", "first line\n--not a boundary\n"));
    g_autoptr (JsonNode) root = run (f, 1, 1, NULL, steps, 0, NULL);
    Journey *j = &f->journey;
    g_autoptr (SoupMessageHeaders) headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
    g_autoptr (GBytes) body = NULL;
    g_autoptr (SoupMultipart) multipart = NULL;
    static const struct {
        const char *name, *filename, *type, *value;
    } expected[] = {
        { "user", NULL, NULL, "u1" },
        { "the %22note%22", NULL, NULL, "line 1\r\nline 2" },
        { "doc", "upload.txt", "text/plain", "first line\n--not a boundary\n" },
        { "raw", "other.bin", "application/octet-stream", "first line\n--not a boundary\n" },
        { "empty", NULL, NULL, "" },
    };

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->bodies->len, ==, 1);
    g_assert_true (g_str_has_prefix (g_ptr_array_index (j->types, 0),
                                     "multipart/form-data; boundary=----throng-"));
    soup_message_headers_replace (headers, "Content-Type", g_ptr_array_index (j->types, 0));
    body = g_bytes_new (g_ptr_array_index (j->bodies, 0), strlen (g_ptr_array_index (j->bodies, 0)));
    multipart = soup_multipart_new_from_message (headers, body);
    g_assert_nonnull (multipart);
    g_assert_cmpint (soup_multipart_get_length (multipart), ==, G_N_ELEMENTS (expected));
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
        SoupMessageHeaders *part_headers;
        GBytes *part_body;
        g_autofree char *disposition = NULL;
        g_autoptr (GHashTable) params = NULL;

        g_assert_true (soup_multipart_get_part (multipart, (int)i, &part_headers, &part_body));
        g_assert_true (soup_message_headers_get_content_disposition (part_headers, &disposition,
                                                                     &params));
        g_assert_cmpstr (disposition, ==, "form-data");
        g_assert_cmpstr (g_hash_table_lookup (params, "name"), ==, expected[i].name);
        g_assert_cmpstr (g_hash_table_lookup (params, "filename"), ==, expected[i].filename);
        g_assert_cmpstr (soup_message_headers_get_one (part_headers, "Content-Type"), ==,
                         expected[i].type);
        g_assert_cmpmem (g_bytes_get_data (part_body, NULL), g_bytes_get_size (part_body),
                         expected[i].value, strlen (expected[i].value));
    }
}

/*
 * Checks on what happened (issue 32): the URL the step ended at after its
 * redirect, the protocol it went over, and its timing phases; a check
 * that cannot pass (a first byte in no time) fails the step as `check`.
 * The server saw each redirect followed.
 */
static void
test_outcome_checks (Fixture *f, gconstpointer data)
{
    g_autofree char *steps = g_strdup_printf (
        "      - set: { letter: a }\n"
        "      - http:\n"
        "          url: /hop\n"
        "          follow_redirects: true\n"
        "          check:\n"
        "            - url: \"%s/choose/a?from=hop\"\n"
        "            - url: { contains: \"/choose/${vars.letter}\" }\n"
        "            - url: { matches: \"from=h.p$\" }\n"
        "            - protocol: http/1.1\n"
        "            - ttfb_max: 30s\n"
        "            - connect_max: 30s\n"
        "            - tls_max: 0ms\n"
        "      - http:\n"
        "          url: /hop\n"
        "          check: [ { url: { contains: /choose/ } }, { ttfb_max: 0ms } ]\n",
        throng_test_soup_server_http_url (f->server));
    g_autoptr (JsonNode) root = run (f, 1, 3, NULL, steps, 0, NULL);
    static const struct {
        const char *name;
        gint64 passes;
    } expected[] = {
        { "url equals ", 3 },
        { "url contains /choose/${vars.letter}", 3 },
        { "url matches /from=h.p$/", 3 },
        { "protocol is http/1.1", 3 },
        { "ttfb <= 30s", 3 },
        { "connect <= 30s", 3 },
        /* Plain HTTP: no handshake, so 0 ms passes. */
        { "tls <= 0ms", 3 },
        /* Not followed: the step ends at /hop. */
        { "url contains /choose/", 0 },
        { "ttfb <= 0ms", 0 },
    };

    g_assert_cmpint (f->journey.choices[0], ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 3);
    g_assert_cmpint (throng_test_summary_class (root, "total", "check"), ==, 3);
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
        g_autofree char *name
            = i == 0 ? g_strdup_printf ("url equals %s/choose/a?from=hop",
                                        throng_test_soup_server_http_url (f->server))
                     : g_strdup (expected[i].name);
        gint64 passes, fails;

        check_counts (root, name, &passes, &fails);
        g_assert_cmpint (passes, ==, expected[i].passes);
        g_assert_cmpint (passes + fails, ==, 3);
    }
}

/*
 * Steps written once (issue 32): a fragment, used in a scenario and inside a
 * group, runs its steps in place with the user's own variables; the server
 * sees each user's own token.
 */
static void
test_fragments (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - use: login\n"
          "      - group: browse\n"
          "        steps:\n"
          "          - use: items\n"
          "          - use: items\n";
    static const char fragments[]
        = "fragments:\n"
          "  login:\n"
          "    - http:\n"
          "        method: POST\n"
          "        url: /login\n"
          "        body: '{\"user\": \"u${user.id}\"}'\n"
          "        extract: { token: { json: $.token } }\n"
          "  items:\n"
          "    - http:\n"
          "        url: /items\n"
          "        headers: { Authorization: \"Bearer ${vars.token}\", X-User: \"u${user.id}\" }\n";
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 3,
        .iterations = 2,
        .steps = steps,
        .plan_extra = fragments,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    Journey *j = &f->journey;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_mutex_lock (&j->lock);
    g_assert_cmpuint (g_hash_table_size (j->logins), ==, 3);
    g_assert_cmpuint (j->authorized, ==, 3 * 2 * 2);
    g_assert_cmpuint (j->wrong_token, ==, 0);
    g_mutex_unlock (&j->lock);
    /* Each use is a step of its own in the reports: login, the group, two item steps. */
    g_assert_cmpint (throng_test_json_length (root, "scenarios.0.steps"), ==, 4);

    /* An unknown fragment, one that uses itself, one nothing uses: located errors. */
    static const struct {
        const char *yaml;
        const char *error;
    } bad[] = {
        { "fragments:\n  a: [ { http: { url: \"http://127.0.0.1:1/\" } } ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - use: b\n",
          "6:14: no fragment named 'b' (fragments: is a top-level map of names to lists of "
          "steps)" },
        { "fragments:\n  login: [ { http: { url: \"http://127.0.0.1:1/\" } } ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - use: logn\n",
          "6:14: no fragment named 'logn'; did you mean 'login'?" },
        { "fragments:\n  a: [ { use: b } ]\n  b: [ { use: a } ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - use: a\n",
          "3:15: fragment 'a' uses itself (a → b → a)" },
        { "fragments:\n  a: [ { http: { url: \"http://127.0.0.1:1/\" } } ]\n"
          "  unused: [ { http: { url: \"http://127.0.0.1:1/\" } } ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - use: a\n",
          "3:3: fragment 'unused' is never used (no step says use: unused)" },
        { "fragments:\n  a: [ { http: { url: \"http://127.0.0.1:1/\" } } ]\n"
          "scenarios:\n  - users: 1\n    steps:\n      - { use: a, name: x }\n",
          "6:9: a 'use' step has no other key: the fragment's steps are the step" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
        assert_refused (f->dir, bad[i].yaml, bad[i].error);
}

/* `set`, `repeat` and filters: the server sees each expansion. */
static void
test_set_repeat_filters (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - set: { q: \"shoe ${user.id}/${iteration}\" }\n"
          "      - repeat: 3\n"
          "        steps:\n"
          "          - http: { url: /repeat }\n"
          "      - http:\n"
          "          method: POST\n"
          "          url: \"/echo?q=${vars.q | urlencode}&b=${vars.q | base64}\"\n"
          "          body: '{\"q\": \"${vars.q | json}\", \"lit\": \"$${not}\"}'\n";
    g_autoptr (JsonNode) root = run (f, 2, 2, NULL, steps, 0, NULL);
    Journey *j = &f->journey;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->repeated, ==, 2 * 2 * 3);
    g_assert_cmpuint (j->echoes->len, ==, 4);
    for (guint user = 1; user <= 2; user++) {
        for (guint iteration = 1; iteration <= 2; iteration++) {
            g_autofree char *q = g_strdup_printf ("shoe %u/%u", user, iteration);
            g_autofree char *escaped = g_uri_escape_string (q, NULL, FALSE);
            g_autofree char *b64 = g_base64_encode ((const guchar *)q, strlen (q));
            gboolean seen = FALSE;

            for (guint i = 0; i < j->echoes->len; i++) {
                g_autofree char *want = g_strdup_printf ("q=%s&b=", escaped);
                const char *got = g_ptr_array_index (j->echoes, i);
                if (!g_str_has_prefix (got, want))
                    continue;
                seen = TRUE;
                g_assert_nonnull (strstr (got, b64));
                g_autofree char *body = g_strdup_printf ("{\"q\": \"%s\", \"lit\": \"${not}\"}", q);
                g_assert_cmpstr (g_ptr_array_index (j->bodies, i), ==, body);
            }
            g_assert_true (seen);
        }
    }
}

/* Every function once, in a url and a header, with the formats the docs promise. */
static void
test_functions (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http:\n"
          "          url: \"/echo?i=${random.int(3,5)}&s=${random.string(8)}&u=${uuid}"
          "&t=${time.unix}&m=${time.unix_ms}&c=${counter.hits}&c2=${counter.hits}"
          "&id=${user.id}&it=${iteration}&sc=${scenario.name}&w=${worker.id}"
          "&e=${env.THRONG_JOURNEY_TEST:-dflt}\"\n"
          "          body: '${time.iso}'\n";
    g_autoptr (JsonNode) root = run (f, 1, 1, NULL, steps, 0, NULL);
    Journey *j = &f->journey;
    g_autoptr (GRegex) regex = g_regex_new (
        "^i=[345]&s=[A-Za-z0-9]{8}&u=[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
        "[0-9a-f]{12}&t=[0-9]{10}&m=[0-9]{13}&c=([0-9]+)&c2=([0-9]+)&id=1&it=1&sc=s&w=[0-9]+"
        "&e=dflt$",
        0, 0, NULL);
    g_autoptr (GMatchInfo) info = NULL;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->echoes->len, ==, 1);
    g_test_message ("query: %s", (char *)g_ptr_array_index (j->echoes, 0));
    g_assert_true (g_regex_match (regex, g_ptr_array_index (j->echoes, 0), 0, &info));
    g_autofree char *c1 = g_match_info_fetch (info, 1);
    g_autofree char *c2 = g_match_info_fetch (info, 2);
    g_assert_cmpint (atoi (c2), ==, atoi (c1) + 1);
    g_assert_true (g_regex_match_simple ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}",
                                         g_ptr_array_index (j->bodies, 0), 0, 0));
}

/*
 * What a templated request is made of, on one kept-alive connection: a
 * url with a query (its fragment not sent), a header whose value expands
 * to nothing, one that changes, a literal one, a Content-Length the plan
 * gives (the transport's own wins), and a body whose length changes
 * between iterations, so a stale length would break the next request.
 */
static void
test_templated_parts (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - set: { empty: \"\", pad: \"p${iteration}${iteration}${iteration}\" }\n"
          "      - http:\n"
          "          method: POST\n"
          "          url: \"/echo?u=${user.id}&i=${iteration}#frag\"\n"
          "          headers: { X-Empty: \"${vars.empty}\", X-Iter: \"i${iteration}\",\n"
          "                     X-Lit: plain, Content-Length: \"999\" }\n"
          "          body: '${vars.pad}'\n";
    g_autoptr (JsonNode) root = run (f, 1, 12, NULL, steps, 0, NULL);
    Journey *j = &f->journey;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->echoes->len, ==, 12);
    for (guint i = 1; i <= 12; i++) {
        g_autofree char *query = g_strdup_printf ("u=1&i=%u", i);
        g_autofree char *body = g_strdup_printf ("p%u%u%u", i, i, i);
        g_autofree char *head = g_strdup_printf ("X-Empty=[] X-Iter=[i%u] X-Lit=[plain]", i);

        g_assert_cmpstr (g_ptr_array_index (j->echoes, i - 1), ==, query);
        g_assert_cmpstr (g_ptr_array_index (j->bodies, i - 1), ==, body);
        g_assert_cmpstr (g_ptr_array_index (j->heads, i - 1), ==, head);
    }
}

/* A body_file with `template: true` is expanded per request; without it, sent as written. */
static void
test_body_file (Fixture *f, gconstpointer data)
{
    g_autofree char *file = throng_test_write_file (f->dir, "body.json",
                                                    "{\"u\": \"u${user.id}\", \"l\": \"$${x}\"}");
    g_autofree char *steps = g_strdup_printf (
        "      - http: { method: POST, url: /echo, body_file: \"%s\", template: true }\n"
        "      - http: { method: POST, url: /echo, body_file: \"%s\" }\n",
        file, file);
    g_autoptr (JsonNode) root = run (f, 1, 1, NULL, steps, 0, NULL);
    Journey *j = &f->journey;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->bodies->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (j->bodies, 0), ==, "{\"u\": \"u1\", \"l\": \"${x}\"}");
    g_assert_cmpstr (g_ptr_array_index (j->bodies, 1), ==,
                     "{\"u\": \"u${user.id}\", \"l\": \"$${x}\"}");
}

/*
 * `throng report` reads the checks and the groups back from a jsonl file
 * (core/results/runfile.c) and writes them as the run did.
 */
static void
test_report_back (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - group: g\n"
          "        steps:\n"
          "          - http:\n"
          "              url: /checked\n"
          "              check: [ { status: 200 }, { json: $.state, equals: ok } ]\n";
    g_autofree char *jsonl = g_build_filename (f->dir, "run.jsonl", NULL);
    g_autofree char *back = g_build_filename (f->dir, "back.json", NULL);
    g_autofree char *reporters
        = g_strdup_printf ("reporters:\n  - json: { path: \"%s\", mode: jsonl }\n", jsonl);
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 2,
        .iterations = 10,
        .steps = steps,
        .plan_extra = reporters,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    g_autofree char *out_arg = g_strconcat ("json=", back, NULL);
    g_autoptr (JsonNode) reread = NULL;
    g_autoptr (GError) error = NULL;
    gint64 passes, fails;

    g_autofree char *html = g_build_filename (f->dir, "back.html", NULL);
    g_autofree char *html_arg = g_strconcat ("html=", html, NULL);
    g_autofree char *page = NULL;

    g_assert_cmpint (throng_test_runv (60, NULL, NULL, "report", jsonl, "--out", out_arg, "--out",
                                       html_arg, NULL),
                     ==, 0);
    /* The page: a checks section, the group as a row with its request indented under it. */
    g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
    g_assert_nonnull (strstr (page, "<section id=\"checks\">"));
    g_assert_nonnull (
        strstr (page, "<td class=\"name\">$.state equals ok</td><td>18</td><td>2</td>"));
    g_assert_nonnull (strstr (page, "<tr class=\"step group depth0\"><td class=\"name\">g</td>"));
    g_assert_nonnull (strstr (page, "<tr class=\"step depth1\"><td class=\"name\">GET /checked"));
    reread = throng_test_json_load (back, &error);
    g_assert_no_error (error);
    check_counts (reread, "$.state equals ok", &passes, &fails);
    g_assert_cmpint (passes, ==, 18);
    g_assert_cmpint (fails, ==, 2);
    check_counts (reread, "status is 200", &passes, &fails);
    g_assert_cmpint (passes, ==, 20);
    g_assert_cmpstr (throng_test_json_string (reread, "scenarios.0.steps.0.kind"), ==, "group");
    g_assert_cmpstr (throng_test_json_string (reread, "scenarios.0.steps.1.kind"), ==, "request");
    g_assert_cmpint (throng_test_json_int (reread, "scenarios.0.steps.1.parent"), ==, 0);
    g_assert_cmpint (throng_test_json_int (reread, "scenarios.0.steps.1.depth"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.checks.fails"), ==,
                     throng_test_json_int (reread, "scenarios.0.checks.fails"));
}

/*
 * A journey over HTTP/2 (fast's nghttp2 path, soup's ALPN): nginx hands
 * out a token and refuses the item page without it, so a passing status
 * check means the extracted token went out in the templated header; the
 * JSON checks read bodies kept from DATA frames.
 */
static void
test_h2 (Fixture *f, gconstpointer data)
{
    static const char locations[]
        = "location = /login { default_type application/json;"
          " return 200 '{\"token\": \"t-$request_id\"}'; }\n"
          "location = /items { default_type application/json;"
          " if ($http_authorization !~ \"^Bearer t-[0-9a-f]{32}$\") { return 401; }"
          " return 200 '{\"items\": [{\"id\": 7}], \"in_stock\": true}'; }\n";
    static const char steps[] = "      - once: true\n"
                                "        http:\n"
                                "          method: POST\n"
                                "          url: /login\n"
                                "          extract: { token: { json: $.token } }\n"
                                "      - http:\n"
                                "          url: /items\n"
                                "          headers: { Authorization: \"Bearer ${vars.token}\" }\n"
                                "          check:\n"
                                "            - status: 200\n"
                                "            - json: $.items[0].id\n"
                                "              equals: 7\n"
                                "            - protocol: h2\n"
                                "            - tls_max: 30s\n"
                                "            - connect_max: 30s\n";
    ThrongTestNginxConfig config = { .https = TRUE, .http2 = TRUE, .locations = locations };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    g_autoptr (JsonNode) root = NULL;
    gint64 passes, fails;

    if (nginx == NULL)
        return;
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_nginx_https_url (nginx),
        .http = "version: 2, tls: { verify: false }",
        .users = 5,
        .iterations = 4,
        .steps = steps,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;

    root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 5 + 5 * 4);
    check_counts (root, "protocol is h2", &passes, &fails);
    g_assert_cmpint (passes, ==, 5 * 4);
    g_assert_cmpint (fails, ==, 0);
    check_counts (root, "status is 200", &passes, &fails);
    g_assert_cmpint (passes, ==, 20);
    check_counts (root, "$.items[0].id equals 7", &passes, &fails);
    g_assert_cmpint (passes, ==, 20);
    g_assert_cmpint (fails, ==, 0);
}

/* `unique` rows: each goes to exactly one user, for all of that user's iterations. */
static void
test_unique_rows (Fixture *f, gconstpointer data)
{
    g_autoptr (GString) csv = g_string_new ("name,secret\n");
    g_autofree char *csv_path = NULL;
    g_autofree char *extra = NULL;
    Journey *j = &f->journey;
    GHashTableIter iter;
    gpointer key, value;

    for (guint i = 1; i <= 30; i++)
        g_string_append_printf (csv, "row%u,\"s,%u\"\n", i, i);
    csv_path = throng_test_write_file (f->dir, "rows.csv", csv->str);
    extra = g_strdup_printf ("    data: { file: \"%s\", mode: unique, advance: per-user }\n",
                             csv_path);
    g_autoptr (JsonNode) root
        = run (f, 30, 4, extra,
               "      - http: { url: \"/row?row=${data.name}&user=${user.id}\" }\n", 0, NULL);

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (g_hash_table_size (j->row_users), ==, 30);
    g_hash_table_iter_init (&iter, j->row_users);
    while (g_hash_table_iter_next (&iter, &key, &value))
        g_assert_cmpuint (g_hash_table_size (value), ==, 1);
}

/* A 70/20/10 choice over 10,000 iterations lands within ±2 points of each weight. */
static void
test_choose (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - choose:\n"
                                "          - weight: 70\n"
                                "            steps: [ { http: { url: /choose/a } } ]\n"
                                "          - weight: 20\n"
                                "            steps: [ { http: { url: /choose/b } } ]\n"
                                "          - weight: 10\n"
                                "            steps: [ { http: { url: /choose/c } } ]\n";
    /* Under the sanitizers the in-process server makes 10,000 requests take a
     * minute: 2,000 check the same code, with a tolerance of about 4 standard
     * deviations of the 70% branch instead of 2 (the plain run keeps 2). */
    gboolean sanitized = g_getenv ("THRONG_SANITIZED") != NULL;
    guint iterations = sanitized ? 200 : 1000;
    double tolerance = sanitized ? 4 : 2;
    g_autoptr (JsonNode) root = run (f, 10, iterations, NULL, steps, 0, NULL);
    static const double weights[] = { 70, 20, 10 };
    Journey *j = &f->journey;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (j->choices[0] + j->choices[1] + j->choices[2], ==, 10 * iterations);
    for (guint i = 0; i < 3; i++) {
        double share = 100.0 * j->choices[i] / (10.0 * iterations);
        g_test_message ("branch %u: %.2f%%", i, share);
        g_assert_cmpfloat (share, >=, weights[i] - tolerance);
        g_assert_cmpfloat (share, <=, weights[i] + tolerance);
    }
}

/* The fields of one CSV line, RFC 4180 quotes undone. */
static GPtrArray *
csv_fields (const char *line)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
    GString *field = g_string_new (NULL);
    gboolean quoted = FALSE;

    for (const char *p = line; *p != '\0'; p++) {
        if (quoted && *p == '"' && p[1] == '"') {
            g_string_append_c (field, '"');
            p++;
        } else if (*p == '"') {
            quoted = !quoted;
        } else if (*p == ',' && !quoted) {
            g_ptr_array_add (fields, g_strdup (field->str));
            g_string_truncate (field, 0);
        } else {
            g_string_append_c (field, *p);
        }
    }
    g_ptr_array_add (fields, g_string_free (field, FALSE));
    return fields;
}

/*
 * Runs @steps for one user and @iterations with a CSV reporter beside the
 * JSON summary; returns the summary and sets *@lines to the CSV's lines
 * (the header first).
 */
static JsonNode *
run_with_csv (Fixture *f, const char *steps, guint iterations, GStrv *lines)
{
    g_autofree char *csv = g_build_filename (f->dir, "samples.csv", NULL);
    g_autofree char *out = g_strdup_printf ("reporters:\n  - csv: { path: \"%s\" }\n", csv);
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .iterations = iterations,
        .steps = steps,
        .plan_extra = out,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *err = NULL;
    g_autofree char *text = NULL;
    JsonNode *root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);

    g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
    *lines = g_strsplit (text, "\n", -1);
    return root;
}

/*
 * A group is a transaction: one CSV row per execution (as JMeter's
 * Transaction Controller writes its parent sample, no data type) whose
 * elapsed time is at least the sum of its children's.
 */
static void
test_group_timing (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - group: pair\n"
                                "        steps:\n"
                                "          - http: { url: /slow/30 }\n"
                                "          - http: { url: /slow/20 }\n";
    g_auto (GStrv) lines = NULL;
    g_autoptr (JsonNode) root = run_with_csv (f, steps, 5, &lines);
    gint64 children = 0;
    guint n_children = 0, groups = 0;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Requests only: the group's executions are not requests. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 10);
    for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
        g_autoptr (GPtrArray) fields = csv_fields (lines[i]);
        gint64 elapsed = g_ascii_strtoll (g_ptr_array_index (fields, 1), NULL, 10);
        const char *type = g_ptr_array_index (fields, 6);

        if (*type != '\0') {
            children += elapsed;
            n_children++;
            continue;
        }
        g_assert_cmpstr (g_ptr_array_index (fields, 2), ==, "pair");
        g_assert_cmpstr (g_ptr_array_index (fields, 4), ==,
                         "Number of samples in transaction : 2, number of failing samples : 0");
        g_assert_cmpuint (n_children, ==, 2);
        /* Rounded to whole ms each: allow one per child. */
        g_assert_cmpint (elapsed, >=, children - (gint64)n_children);
        g_assert_cmpint (elapsed, >=, 50);
        groups++;
        children = 0;
        n_children = 0;
    }
    g_assert_cmpuint (groups, ==, 5);
}

/*
 * Nested groups: each transaction spans the same one request, so each
 * carries its bytes once (an inner group's sample is not noted again in
 * the outer one, which counted the request already).
 */
static void
test_group_nested_bytes (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - group: outer\n"
                                "        steps:\n"
                                "          - group: inner\n"
                                "            steps:\n"
                                "              - http: { url: /slow/1 }\n";
    g_auto (GStrv) lines = NULL;
    g_autoptr (JsonNode) root = run_with_csv (f, steps, 2, &lines);
    guint rows = 0;
    const char *request_bytes = NULL;
    GPtrArray *kept = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
        GPtrArray *fields = csv_fields (lines[i]);
        const char *label = g_ptr_array_index (fields, 2);
        const char *bytes = g_ptr_array_index (fields, 9);

        g_ptr_array_add (kept, fields);
        rows++;
        if (strcmp (label, "inner") != 0 && strcmp (label, "outer") != 0) {
            request_bytes = bytes;
            continue;
        }
        g_assert_nonnull (request_bytes);
        g_assert_cmpstr (bytes, ==, request_bytes);
    }
    g_assert_cmpuint (rows, ==, 6);
    g_ptr_array_unref (kept);
}

/*
 * A group's row as JMeter 5.6's Transaction Controller writes its sample
 * (docs/reporters.md, csv): code 200 when it succeeded and none when not,
 * its requests counted in every group around them but a nested group's
 * row in none, their latencies summed, URL "null", no failureMessage.
 */
static void
test_group_jtl (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - group: outer\n"
                                "        steps:\n"
                                "          - group: inner\n"
                                "            steps:\n"
                                "              - http: { url: /slow/5 }\n"
                                "          - http: { url: /no/such/page }\n";
    g_auto (GStrv) lines = NULL;
    g_autoptr (JsonNode) root = run_with_csv (f, steps, 2, &lines);
    guint outer = 0, inner = 0;
    gint64 latency = 0;

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
    g_assert_cmpint (throng_test_summary_class (root, "total", "status"), ==, 2);
    for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
        g_autoptr (GPtrArray) fields = csv_fields (lines[i]);
        const char *label = g_ptr_array_index (fields, 2);
        const char *code = g_ptr_array_index (fields, 3);

        g_assert_cmpuint (fields->len, ==, 17);
        if (strcmp (label, "inner") != 0 && strcmp (label, "outer") != 0) {
            latency += g_ascii_strtoll (g_ptr_array_index (fields, 14), NULL, 10);
            continue;
        }
        g_assert_cmpstr (g_ptr_array_index (fields, 6), ==, "");   /* dataType */
        g_assert_cmpstr (g_ptr_array_index (fields, 8), ==, "");   /* failureMessage */
        g_assert_cmpstr (g_ptr_array_index (fields, 13), ==, "null"); /* URL */
        if (strcmp (label, "inner") == 0) {
            g_assert_cmpstr (code, ==, "200");
            g_assert_cmpstr (g_ptr_array_index (fields, 4), ==,
                             "Number of samples in transaction : 1, number of failing samples : 0");
            g_assert_cmpstr (g_ptr_array_index (fields, 7), ==, "true");
            inner++;
            continue;
        }
        g_assert_cmpstr (code, ==, "");
        g_assert_cmpstr (g_ptr_array_index (fields, 4), ==,
                         "Number of samples in transaction : 2, number of failing samples : 1");
        g_assert_cmpstr (g_ptr_array_index (fields, 7), ==, "false");
        /* the sum of its two requests' latencies (each rounded to a whole ms first here) */
        g_assert_cmpint (g_ascii_strtoll (g_ptr_array_index (fields, 14), NULL, 10), >=,
                         latency - 1);
        g_assert_cmpint (g_ascii_strtoll (g_ptr_array_index (fields, 14), NULL, 10), <=,
                         latency + 1);
        g_assert_cmpint (latency, >=, 5);
        latency = 0;
        outer++;
    }
    g_assert_cmpuint (outer, ==, 2);
    g_assert_cmpuint (inner, ==, 2);
}

/* THRONG_DEBUG=http prints the first requests of each step, expanded, and their responses. */
static void
test_debug (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http:\n"
                                "          url: \"/echo?who=u${user.id}\"\n"
                                "          headers: { X-Trace: \"t-${iteration}\" }\n";
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .iterations = 4,
        .steps = steps,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    const char *argv[] = { "run", path, "--quiet", NULL };
    const char *env[] = { "THRONG_DEBUG=http=2", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;

    g_assert_true (throng_test_run (argv, env, RUN_TIMEOUT, &status, &out, &err));
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (err, "> GET http://127.0.0.1:"));
    g_assert_nonnull (strstr (err, "/echo?who=u1\n"));
    g_assert_nonnull (strstr (err, "> X-Trace: t-1\n"));
    g_assert_nonnull (strstr (err, "> X-Trace: t-2\n"));
    /* Only the first two requests of the step. */
    g_assert_null (strstr (err, "> X-Trace: t-3\n"));
    g_assert_nonnull (strstr (err, "< 200 OK\n"));
    g_assert_nonnull (strstr (err, "echo"));

    /* --http-debug=1 says the same of the first request only. */
    const char *flag_argv[] = { "run", path, "--quiet", "--http-debug=1", NULL };
    g_autofree char *flag_out = NULL;
    g_autofree char *flag_err = NULL;
    g_assert_true (throng_test_run (flag_argv, NULL, RUN_TIMEOUT, &status, &flag_out, &flag_err));
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (flag_err, "> X-Trace: t-1\n"));
    g_assert_null (strstr (flag_err, "> X-Trace: t-2\n"));
}

/*
 * A gzip body a check reads is decoded first, and --http-debug shows it
 * decoded, with the size it had on the wire (the sample has no place for
 * it); the summary's bytes received count the coded bytes.
 */
static void
test_debug_decoded (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - http:\n"
                                "          url: /gzip\n"
                                "          check: [ { body_contains: gzip world } ]\n";
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .iterations = 1,
        .steps = steps,
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_autofree char *json_arg = g_strconcat ("json=", summary, NULL);
    const char *argv[] = { "run", path, "--quiet", "--http-debug=1", "--out", json_arg, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) root = NULL;
    GRegex *decoded;
    g_autoptr (GMatchInfo) info = NULL;
    int status = -1;

    g_assert_true (throng_test_run (argv, NULL, RUN_TIMEOUT, &status, &out, &err));
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    g_assert_nonnull (strstr (err, "< hello gzip world "));
    decoded = g_regex_new ("! decoded 4016 bytes from ([0-9]+) \\(Content-Encoding: gzip\\)\n", 0, 0,
                           NULL);
    g_assert_true (g_regex_match (decoded, err, 0, &info));
    g_autofree char *coded = g_match_info_fetch (info, 1);
    g_regex_unref (decoded);
    g_assert_nonnull (strstr (err, "! ok\n"));
    root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* The head and the coded body: more than the coded body, far less than the text. */
    g_assert_cmpint (g_ascii_strtoll (coded, NULL, 10), <, 200);
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), >,
                     g_ascii_strtoll (coded, NULL, 10));
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), <, 1000);
}

/* Plans the http plugin refuses at load: each message and where it points. */
static void
test_bad_plans (void)
{
    static const struct {
        const char *http;  /* the step's http map, after `url: /x, ` */
        const char *error; /* after "plan.yaml:" */
    } cases[] = {
        { "check: [ { json: \"$.[bad\" } ]",
          "8:43: '$.[bad' is not a valid JSONPath: Missing member name or wildcard after . "
          "character" },
        { "extract: { v: { regex: '(a' } }",
          "8:49: invalid regex '(a' at character 2: missing terminating )" },
        { "check: [ { status: 200, body_contains: x } ]",
          "8:35: a check takes exactly one of status, body_contains, body_regex, json, header, url, "
          "protocol, duration_max, ttfb_max, connect_max or tls_max" },
        { "check: [ { stauts: 200 } ]",
          "8:37: unknown key 'stauts' in check; did you mean 'status'?" },
        { "extract: { v: { default: x } }",
          "8:40: extractor 'v' takes exactly one of json, regex, header, cookie or status: true" },
        { "extract: { v: { json: $.a, group: 1 } }", "8:60: group goes with regex" },
        { "extract: { v: { regex: 'a(b)', group: 2 } }",
          "8:64: group 2, but the regex has 1 group(s)" },
        { "check: [ { status: 999 } ]",
          "8:45: '999' is not a status (100-599), a range (200-299) or a class (2xx)" },
        { "check: { status: 200 }", "8:33: check is a list, like [ { status: 200 } ]" },
        { "check: [ { body_contains: x, exists: true } ]",
          "8:35: exists, equals, matches and contains go with json or header" },
        { "check: [ { header: X, matches: y } ]",
          "8:57: a header check takes exists, equals or contains" },
        { "check: [ { json: $.a, equals: 1, matches: x } ]",
          "8:35: a json check takes one of exists, equals or matches" },
        { "template: true", "8:36: template: true goes with body_file (a body is a template "
                            "already)" },
        { "check: [ { json: $.a, equals: \"${vars.wnat}\" } ]",
          "8:59: vars.wnat is never set: no 'set' or 'extract' in scenario 's' assigns it" },
        { "check: [ { json: \"$.items[${vars.i}]\" } ]",
          "8:43: '${' in a JSONPath: JSONPaths are not templates; compare what it finds with "
          "equals: \"${...}\"" },
        { "check: [ { header: \"X-${vars.h}\", exists: true } ]",
          "8:45: '${' in a header name: header names are not templates; write the name the "
          "server sends" },
        { "extract: { v: { cookie: \"s${vars.c}\" } }",
          "8:50: '${' in a cookie name: cookie names are not templates; write the name the "
          "server sets" },
        { "check: [ { body_contains: \"${vars.nope | jsn}\" } ]",
          "8:67: unknown filter 'jsn'; did you mean 'json'?" },
        { "form: { a: 1 }, body: x", "8:32: a step sends one body: form, or body / body_file" },
        { "form: [a]",
          "8:32: form is a map of field names to values, such as { user: alice, password: "
          "\"${data.password}\" }" },
        { "form: { a: { b: 1 } }",
          "8:37: a form field's value is text or a list of texts (a list repeats the field)" },
        { "form: { a: 1 }, json: { b: 2 }", "8:48: a step sends one body: form or json, not both" },
        { "json: { a: \"${vars.nope}\" }",
          "8:40: vars.nope is never set: no 'set' or 'extract' in scenario 's' assigns it" },
        { "check: [ { body_regex: 'a[' } ]",
          "8:49: invalid regex 'a[' at character 2: missing terminating ] for character class" },
    };
    char *dir = throng_test_tmpdir_new ();

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *yaml = g_strdup_printf ("name: t\n"
                                                 "scenarios:\n"
                                                 "  - name: s\n"
                                                 "    users: 1\n"
                                                 "    iterations: 1\n"
                                                 "    http: { base_url: \"http://127.0.0.1:1\" }\n"
                                                 "    steps:\n"
                                                 "      - http: { url: /x, %s }\n",
                                                 cases[i].http);

        g_test_message ("%s", cases[i].http);
        assert_refused (dir, yaml, cases[i].error);
    }
    throng_test_tmpdir_free (dir);
}

/*
 * `pause: 300ms` between two requests inside a group: the server sees the
 * second request at least 300 ms after it answered the first (the answer
 * leaves the server before the client has it, so the gap it sees is
 * never shorter than the pause), the group's transaction spans the pause,
 * and the pause is no request: no row, no count.
 */
static void
test_pause (Fixture *f, gconstpointer data)
{
    static const char steps[] = "      - group: paused\n"
                                "        steps:\n"
                                "          - http: { url: /paused/before }\n"
                                "          - pause: 300ms\n"
                                "          - http: { url: /paused/after }\n";
    g_auto (GStrv) lines = NULL;
    g_autoptr (JsonNode) root = run_with_csv (f, steps, 2, &lines);
    guint groups = 0, rows = 0;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
    /* The group and its two requests: the pause has no row. */
    g_assert_cmpuint (throng_test_json_length (root, "scenarios.0.steps"), ==, 3);
    g_assert_cmpuint (f->journey.paused_after, ==, 2);
    g_test_message ("shortest gap the server saw: %" G_GINT64_FORMAT " µs", f->journey.paused_gap);
    g_assert_cmpint (f->journey.paused_gap, >=, 300 * 1000);
    for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++) {
        g_autoptr (GPtrArray) fields = csv_fields (lines[i]);
        gint64 elapsed = g_ascii_strtoll (g_ptr_array_index (fields, 1), NULL, 10);

        rows++;
        if (strcmp (g_ptr_array_index (fields, 2), "paused") != 0)
            continue;
        g_test_message ("group took %" G_GINT64_FORMAT " ms", elapsed);
        g_assert_cmpint (elapsed, >=, 300);
        groups++;
    }
    g_assert_cmpuint (groups, ==, 2);
    g_assert_cmpuint (rows, ==, 6);
}

/*
 * A stop (SIGINT) while the user is in a long pause ends the run at once,
 * well within the grace, and the request after the pause is never sent.
 */
static void
test_pause_stop (Fixture *f, gconstpointer data)
{
    ThrongTestPlan plan = {
        .transport = f->transport,
        .base_url = throng_test_soup_server_http_url (f->server),
        .users = 1,
        .duration = "1m",
        .scenario_extra = "    graceful_stop: 20s\n",
        .steps = "      - http: { url: /paused/before }\n"
                 "      - pause: 30s\n"
                 "      - http: { url: /paused/after }\n",
    };
    g_autofree char *yaml = throng_test_plan_yaml (&plan);
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    g_autofree char *summary = g_build_filename (f->dir, "summary.json", NULL);
    g_auto (GStrv) args = throng_test_run_args (path, summary);
    g_autoptr (ThrongTestProcess) throng = throng_test_spawn ((const char *const *) args, NULL);
    g_autofree char *err = NULL;
    int status = -1;

    throng_test_wait_started ();
    g_mutex_lock (&f->journey.lock);
    g_assert_cmpint (f->journey.paused_answered, >, 0);
    g_mutex_unlock (&f->journey.lock);

    gint64 stopped = g_get_monotonic_time ();
    throng_test_process_signal (throng, SIGINT);
    g_assert_true (throng_test_process_wait (throng, 60, &status, NULL, &err));
    gint64 took_ms = (g_get_monotonic_time () - stopped) / 1000;

    g_test_message ("the run ended %" G_GINT64_FORMAT " ms after SIGINT", took_ms);
    g_assert_cmpint (took_ms, <, 5000);
    g_assert_cmpuint (f->journey.paused_after, ==, 0);
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) root = throng_test_json_load (summary, &error);
    g_assert_no_error (error);
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 1);
}

int
main (int argc, char **argv)
{
    static const ThrongTestTransportCase cases[] = {
        THRONG_TEST_CASE ("login-once", test_login_once, TRUE),
        THRONG_TEST_CASE ("bad-body", test_bad_body, TRUE),
        THRONG_TEST_CASE ("unset-variable", test_unset_variable, TRUE),
        THRONG_TEST_CASE ("extractors", test_extractors, TRUE),
        THRONG_TEST_CASE ("templated-checks", test_templated_checks, TRUE),
        THRONG_TEST_CASE ("url-credentials", test_url_credentials, TRUE),
        THRONG_TEST_CASE ("data-columns", test_data_columns, FALSE),
        THRONG_TEST_CASE ("data-named", test_data_named, FALSE),
        THRONG_TEST_CASE ("last-timings", test_last_timings, TRUE),
        THRONG_TEST_CASE ("form-json-bodies", test_form_json_bodies, TRUE),
        THRONG_TEST_CASE ("multipart-body", test_multipart_body, TRUE),
        THRONG_TEST_CASE ("outcome-checks", test_outcome_checks, TRUE),
        THRONG_TEST_CASE ("fragments", test_fragments, FALSE),
        THRONG_TEST_CASE ("templated-check-unset", test_templated_check_unset, FALSE),
        THRONG_TEST_CASE ("set-repeat-filters", test_set_repeat_filters, TRUE),
        THRONG_TEST_CASE ("functions", test_functions, TRUE),
        THRONG_TEST_CASE ("body-file", test_body_file, TRUE),
        THRONG_TEST_CASE ("templated-parts", test_templated_parts, TRUE),
        THRONG_TEST_CASE ("report-back", test_report_back, FALSE),
        THRONG_TEST_CASE ("h2", test_h2, TRUE),
        THRONG_TEST_CASE ("unique-rows", test_unique_rows, TRUE),
        THRONG_TEST_CASE ("choose", test_choose, TRUE),
        THRONG_TEST_CASE ("group-timing", test_group_timing, TRUE),
        THRONG_TEST_CASE ("group-nested-bytes", test_group_nested_bytes, TRUE),
        THRONG_TEST_CASE ("group-jtl", test_group_jtl, TRUE),
        THRONG_TEST_CASE ("debug", test_debug, TRUE),
        THRONG_TEST_CASE ("debug-decoded", test_debug_decoded, TRUE),
        THRONG_TEST_CASE ("pause", test_pause, TRUE),
        THRONG_TEST_CASE ("pause-stop", test_pause_stop, FALSE),
    };

    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/journeys/bad-plans", test_bad_plans);
    throng_test_add_transport_cases ("/journeys", Fixture, fixture_setup, fixture_teardown,
                                     cases);
    return g_test_run ();
}
