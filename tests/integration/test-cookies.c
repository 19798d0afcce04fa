/* SPDX-License-Identifier: MIT */
/*
 * Cookies and credentials end to end, on both transports (docs/http.md,
 * "Cookies" and "Credentials"): the real throng binary against an
 * in-process SoupServer that logs the Cookie and Authorization fields it
 * RECEIVED on every request, and answers a Digest challenge through
 * libsoup's own SoupAuthDomainDigest.  A cookie a server set in one
 * iteration never reaches the next under `cookie_jar: per-iteration`,
 * does under `per-user`, and is never kept under `off`; a pooled user of
 * an arrival-rate scenario begins each arrival with an empty jar; a
 * step's `cookies:` travel with it and the steps after it; Basic and
 * Bearer credentials arrive with exactly the bytes they should;
 * --http-debug prints the Cookie field that was sent, per user.
 */
#include "listen.h"
#include "test-utils.h"

#include <string.h>

#define RUN_TIMEOUT 120
#define REALM "throng-test"
#define DIGEST_USER "dora"
#define DIGEST_PASSWORD "d1gest pw"

/* What the server saw, in the order it finished answering. */
typedef struct {
    GMutex lock;
    GPtrArray *log; /* "PATH status=N cookie=C auth=A", "-" for a field absent */
    guint sid;      /* the last session number /set handed out */
} Seen;

typedef struct {
    ThrongTestServerThread *thread;
    SoupServer *soup;
    ThrongSoupListener *listener;
    char *url;
    Seen seen;
} Server;

typedef struct {
    char *dir;
    Server *server;
    const char *transport;
} Fixture;

static Server server;

static void
handler (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
         gpointer data)
{
    Seen *seen = data;
    SoupMessageHeaders *response = soup_server_message_get_response_headers (msg);

    /* /set: a session cookie, as a login would; /set-host: one for localhost only. */
    if (strcmp (path, "/set") == 0) {
        g_mutex_lock (&seen->lock);
        g_autofree char *cookie = g_strdup_printf ("sid=s%u; Path=/", ++seen->sid);
        g_mutex_unlock (&seen->lock);
        soup_message_headers_append (response, "Set-Cookie", cookie);
    }
    soup_server_message_set_status (msg, 200, NULL);
    soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "ok\n", 3);
}

/* Every answer, a Digest challenge too (the handler never sees those), is logged. */
static void
request_finished (SoupServer *soup, SoupServerMessage *msg, gpointer data)
{
    Seen *seen = data;
    SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
    const char *cookie = soup_message_headers_get_one (headers, "Cookie");
    const char *auth = soup_message_headers_get_one (headers, "Authorization");
    g_autofree char *scheme = NULL;

    /* A Digest answer changes with its nonce: its scheme and user name are what is compared. */
    if (auth != NULL && g_str_has_prefix (auth, "Digest ")) {
        const char *name = strstr (auth, "username=\"");
        scheme = g_strdup_printf ("Digest %.*s", name != NULL ? (int)strcspn (name + 10, "\"") : 0,
                                  name != NULL ? name + 10 : "");
    }
    g_mutex_lock (&seen->lock);
    g_ptr_array_add (seen->log,
                     g_strdup_printf ("%s status=%u cookie=%s auth=%s",
                                      g_uri_get_path (soup_server_message_get_uri (msg)),
                                      soup_server_message_get_status (msg),
                                      cookie != NULL ? cookie : "-",
                                      scheme != NULL ? scheme : auth != NULL ? auth : "-"));
    g_mutex_unlock (&seen->lock);
}

static char *
digest_password (SoupAuthDomain *domain, SoupServerMessage *msg, const char *username,
                 gpointer data)
{
    if (strcmp (username, DIGEST_USER) != 0)
        return NULL;
    return soup_auth_domain_digest_encode_password (username, REALM, DIGEST_PASSWORD);
}

static void
server_start (gpointer data, gpointer unused)
{
    Server *s = data;
    g_autoptr (GError) error = NULL;
    g_autoptr (SoupAuthDomain) domain = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, 0);

    s->soup = soup_server_new (NULL, NULL);
    soup_server_add_handler (s->soup, NULL, handler, &s->seen, NULL);
    g_signal_connect (s->soup, "request-finished", G_CALLBACK (request_finished), &s->seen);
    domain = soup_auth_domain_digest_new ("realm", REALM, NULL);
    soup_auth_domain_add_path (domain, "/digest");
    soup_auth_domain_digest_set_auth_callback (domain, digest_password, NULL, NULL);
    soup_server_add_auth_domain (s->soup, domain);
    /* target/listen.c accepts: libsoup's own listener leaks a socket per connection. */
    s->listener = throng_soup_listen (s->soup, address, 128, NULL, &error);
    g_assert_no_error (error);
    s->url = g_strdup_printf ("http://127.0.0.1:%u", throng_soup_listener_port (s->listener));
}

static void
server_finish (gpointer data, gpointer unused)
{
    Server *s = data;

    soup_server_disconnect (s->soup);
    g_clear_pointer (&s->listener, throng_soup_listener_free);
    g_clear_object (&s->soup);
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->dir = throng_test_tmpdir_new ();
    f->server = &server;
    f->transport = data;
    g_mutex_lock (&server.seen.lock);
    g_ptr_array_set_size (server.seen.log, 0);
    g_mutex_unlock (&server.seen.lock);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    throng_test_tmpdir_free (g_steal_pointer (&f->dir));
}

/* The log lines for @path, in order, and how many there are. */
static GPtrArray *
seen_at (Fixture *f, const char *path)
{
    GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
    g_autofree char *prefix = g_strconcat (path, " ", NULL);

    g_mutex_lock (&server.seen.lock);
    for (guint i = 0; i < server.seen.log->len; i++) {
        const char *line = g_ptr_array_index (server.seen.log, i);
        g_test_message ("seen: %s", line);
        if (g_str_has_prefix (line, prefix))
            g_ptr_array_add (lines, g_strdup (line));
    }
    g_mutex_unlock (&server.seen.lock);
    return lines;
}

/*
 * Runs a one-scenario plan on the fixture's transport: @http more of
 * the scenario's http map ("cookie_jar: off"), @scenario more of the
 * scenario ("users: 1\n    iterations: 3\n"), then @steps.
 */
static JsonNode *
run (Fixture *f, const char *http, const char *scenario, const char *steps)
{
    g_autofree char *yaml = g_strdup_printf ("scenarios:\n"
                                             "  - name: s\n"
                                             "%s"
                                             "    http: { base_url: \"%s\", transport: %s%s%s }\n"
                                             "    steps:\n"
                                             "%s",
                                             scenario, server.url, f->transport,
                                             http != NULL ? ", " : "", http != NULL ? http : "",
                                             steps);
    g_autofree char *err = NULL;
    JsonNode *root;

    g_test_message ("plan:\n%s", yaml);
    root = throng_test_run_summary (f->dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    return root;
}

/* Each iteration: what it brings, a login that sets sid, what it carries after. */
static const char journey[] = "      - http: { url: /before }\n"
                              "      - http: { url: /set }\n"
                              "      - http: { url: /after }\n";

static void
assert_all (GPtrArray *lines, const char *path, const char *field, guint n)
{
    g_assert_cmpuint (lines->len, ==, n);
    for (guint i = 0; i < lines->len; i++) {
        g_autofree char *expected = g_strdup_printf ("%s status=200 %s", path, field);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (lines, i), expected));
    }
}

/* The default: a cookie from iteration 1 never reaches iteration 2 (k6's jar). */
static void
test_per_iteration (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root = run (f, NULL, "    users: 1\n    iterations: 3\n", journey);
    g_autoptr (GPtrArray) before = seen_at (f, "/before");
    g_autoptr (GPtrArray) after = seen_at (f, "/after");

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    assert_all (before, "/before", "cookie=- ", 3);
    g_assert_cmpuint (after->len, ==, 3);
    for (guint i = 0; i < after->len; i++) {
        g_autofree char *expected = g_strdup_printf ("/after status=200 cookie=sid=s%u ",
                                                     server.seen.sid - 2 + i);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (after, i), expected));
    }

    /* Written out, the same. */
    g_autoptr (JsonNode) again
        = run (f, "cookie_jar: per-iteration", "    users: 1\n    iterations: 2\n", journey);
    g_assert_nonnull (again);
    g_autoptr (GPtrArray) before2 = seen_at (f, "/before");
    assert_all (before2, "/before", "cookie=- ", 3 + 2);
}

/* per-user: the session of iteration 1 is still the user's in iteration 2. */
static void
test_per_user (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root
        = run (f, "cookie_jar: per-user", "    users: 1\n    iterations: 3\n", journey);
    g_autoptr (GPtrArray) before = seen_at (f, "/before");
    guint last = server.seen.sid;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpuint (before->len, ==, 3);
    g_assert_true (g_str_has_prefix (g_ptr_array_index (before, 0), "/before status=200 cookie=- "));
    for (guint i = 1; i < 3; i++) {
        g_autofree char *expected
            = g_strdup_printf ("/before status=200 cookie=sid=s%u ", last - 3 + i);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (before, i), expected));
    }
}

/* off: Set-Cookie is ignored; nothing is ever sent back. */
static void
test_off (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root
        = run (f, "cookie_jar: off", "    users: 1\n    iterations: 2\n", journey);
    g_autoptr (GPtrArray) before = seen_at (f, "/before");
    g_autoptr (GPtrArray) after = seen_at (f, "/after");

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    assert_all (before, "/before", "cookie=- ", 2);
    assert_all (after, "/after", "cookie=- ", 2);

    /* A step's own Cookie header is still sent, as written, once. */
    g_autoptr (JsonNode) own = run (f, "cookie_jar: off", "    users: 1\n    iterations: 1\n",
                                    "      - http: { url: /set }\n"
                                    "      - http: { url: /own, headers: { Cookie: \"a=1\" } }\n");
    g_assert_nonnull (own);
    g_autoptr (GPtrArray) lines = seen_at (f, "/own");
    assert_all (lines, "/own", "cookie=a=1 ", 1);
}

/*
 * An arrival is a new visitor: a pool of one user serves every arrival,
 * and none brings the cookie an earlier arrival was given, unless the
 * plan says per-user.
 */
static void
test_arrivals (Fixture *f, gconstpointer data)
{
    static const char open[] = "    executor: constant-arrival-rate\n"
                               "    rate: 20/s\n"
                               "    duration: 1s\n"
                               "    max_users: 1\n";
    g_autoptr (JsonNode) root = run (f, NULL, open, journey);
    g_autoptr (GPtrArray) before = seen_at (f, "/before");
    gint64 iterations = throng_test_json_int (root, "scenarios.0.iterations");

    g_assert_cmpint (iterations, >=, 5);
    assert_all (before, "/before", "cookie=- ", (guint)iterations);

    /* per-user: the one pooled user keeps its jar from arrival to arrival. */
    g_mutex_lock (&server.seen.lock);
    g_ptr_array_set_size (server.seen.log, 0);
    g_mutex_unlock (&server.seen.lock);
    g_autoptr (JsonNode) kept = run (f, "cookie_jar: per-user", open, journey);
    g_autoptr (GPtrArray) carried = seen_at (f, "/before");
    iterations = throng_test_json_int (kept, "scenarios.0.iterations");
    g_assert_cmpint (iterations, >=, 5);
    g_assert_cmpuint (carried->len, ==, (guint)iterations);
    g_assert_true (g_str_has_prefix (g_ptr_array_index (carried, 0), "/before status=200 cookie=- "));
    for (guint i = 1; i < carried->len; i++)
        g_assert_true (g_str_has_prefix (g_ptr_array_index (carried, i),
                                         "/before status=200 cookie=sid=s"));
}

/*
 * A step's cookies go into the jar for its origin: they travel with it
 * and with the steps after it (on any path), beside the server's; under
 * per-iteration they go with the iteration.
 */
static void
test_step_cookies (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: /before }\n"
          "      - http: { url: /a/step, cookies: { theme: dark, who: \"u${user.id}-i${iteration}\" } }\n"
          "      - http: { url: /set }\n"
          "      - http: { url: /after }\n";
    g_autoptr (JsonNode) root = run (f, NULL, "    users: 1\n    iterations: 2\n", steps);
    g_autoptr (GPtrArray) before = seen_at (f, "/before");
    g_autoptr (GPtrArray) step = seen_at (f, "/a/step");
    g_autoptr (GPtrArray) after = seen_at (f, "/after");
    guint sid = server.seen.sid;

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    assert_all (before, "/before", "cookie=- ", 2);
    g_assert_cmpuint (step->len, ==, 2);
    for (guint i = 0; i < 2; i++) {
        g_autofree char *at_step
            = g_strdup_printf ("/a/step status=200 cookie=theme=dark; who=u1-i%u auth=-", i + 1);
        g_autofree char *later
            = g_strdup_printf ("/after status=200 cookie=theme=dark; who=u1-i%u; sid=s%u ",
                               i + 1, sid - 1 + i);
        g_assert_cmpstr (g_ptr_array_index (step, i), ==, at_step);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (after, i), later));
    }
}

/* Basic and Bearer, literal and templated, arrive with exactly their bytes. */
static void
test_credentials (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: /basic, auth: { basic: { user: alice, password: \"s3cr:et\" } } }\n"
          "      - http: { url: /basic-tpl, auth: { basic: { user: \"u${user.id}\", password: \"p${iteration}\" } } }\n"
          "      - http: { url: /bearer, auth: { bearer: tok-123 } }\n"
          "      - http: { url: /bearer-tpl, auth: { bearer: \"tok-${user.id}\" } }\n"
          "      - http: { url: /default }\n"
          "      - http: { url: /dropped, auth: null }\n";
    g_autofree char *basic = g_base64_encode ((const guchar *)"alice:s3cr:et", 13);
    g_autofree char *basic_tpl = g_base64_encode ((const guchar *)"u1:p1", 5);
    g_autoptr (JsonNode) root = run (f, "auth: { bearer: \"from-${scenario.name}\" }",
                                     "    users: 1\n    iterations: 1\n", steps);
    static const char *const paths[] = { "/basic", "/basic-tpl", "/bearer", "/bearer-tpl",
                                         "/default", "/dropped" };
    g_autofree char *want_basic = g_strdup_printf ("auth=Basic %s", basic);
    g_autofree char *want_basic_tpl = g_strdup_printf ("auth=Basic %s", basic_tpl);
    const char *const wanted[] = { want_basic, want_basic_tpl, "auth=Bearer tok-123",
                                   "auth=Bearer tok-1", "auth=Bearer from-s", "auth=-" };

    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
        g_autoptr (GPtrArray) lines = seen_at (f, paths[i]);
        g_assert_cmpuint (lines->len, ==, 1);
        g_assert_true (g_str_has_suffix (g_ptr_array_index (lines, 0), wanted[i]));
    }
}

/*
 * A cookie or a credential that reads an unset variable, or expands to
 * what cannot be sent, fails its step with class `variable`, and the
 * server sees nothing of it.
 */
static void
test_unsent (Fixture *f, gconstpointer data)
{
    static const char steps[]
        = "      - http: { url: /never, cookies: { a: \"${vars.later}\" } }\n"
          "      - http: { url: /never, auth: { bearer: \"${vars.later}\" } }\n"
          "      - http: { url: /never, auth: { basic: { user: \"${vars.later}\", password: p } } }\n"
          "      - http: { url: /set, extract: { later: { header: Content-Type } } }\n"
          "      - set: { semi: \"x;y\", colon: \"a:b\" }\n"
          "      - http: { url: /never, cookies: { a: \"${vars.semi}\" } }\n"
          "      - http: { url: /never, auth: { basic: { user: \"${vars.colon}\", password: p } } }\n";
    g_autoptr (JsonNode) root = run (f, NULL, "    users: 1\n    iterations: 1\n", steps);
    g_autoptr (GPtrArray) never = seen_at (f, "/never");

    g_assert_cmpuint (never->len, ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 5);
    g_assert_cmpint (throng_test_summary_class (root, "total", "variable"), ==, 5);
}

/*
 * Digest on soup: the server's challenge (a 401 the step does not count as
 * its response, nor as a retry), then the answer it accepts; a wrong
 * password ends in the 401.  On fast, refused at load naming soup.
 */
static void
test_digest (Fixture *f, gconstpointer data)
{
    if (strcmp (f->transport, "fast") == 0) {
        g_autofree char *yaml
            = g_strdup_printf ("scenarios:\n"
                               "  - users: 1\n"
                               "    iterations: 1\n"
                               "    steps:\n"
                               "      - http: { url: \"%s/digest\", auth: { digest: { user: u, "
                               "password: p } } }\n",
                               server.url);
        g_autofree char *err = NULL;
        int status = -1;
        g_autoptr (JsonNode) root
            = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status, &err);
        g_assert_null (root);
        g_assert_cmpint (status, !=, 0);
        g_assert_nonnull (strstr (err, "Digest authentication needs transport: soup"));
        g_autoptr (GPtrArray) lines = seen_at (f, "/digest");
        g_assert_cmpuint (lines->len, ==, 0);
        return;
    }

    static const char steps[] = "      - http: { url: /digest, auth: { digest: { user: \"" DIGEST_USER
                                "\", password: \"${env.DIGEST_PW}\" } } }\n";
    g_setenv ("DIGEST_PW", DIGEST_PASSWORD, TRUE);
    g_autoptr (JsonNode) root = run (f, NULL, "    users: 1\n    iterations: 2\n", steps);
    g_unsetenv ("DIGEST_PW");
    g_autoptr (GPtrArray) lines = seen_at (f, "/digest");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.retries"), ==, 0);
    /* The first request is challenged; the answer, and later ones, carry Digest credentials. */
    g_assert_cmpuint (lines->len, >=, 3);
    g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "/digest status=401 cookie=- auth=-");
    for (guint i = 1; i < lines->len; i++)
        g_assert_cmpstr (g_ptr_array_index (lines, i), ==,
                         "/digest status=200 cookie=- auth=Digest " DIGEST_USER);

    /* A wrong password: challenged, answered once, refused; the step's response is that 401. */
    g_mutex_lock (&server.seen.lock);
    g_ptr_array_set_size (server.seen.log, 0);
    g_mutex_unlock (&server.seen.lock);
    g_autofree char *yaml
        = g_strdup_printf ("scenarios:\n"
                           "  - users: 1\n"
                           "    iterations: 1\n"
                           "    http: { transport: soup }\n"
                           "    steps:\n"
                           "      - http: { url: \"%s/digest\", auth: { digest: { user: "
                           DIGEST_USER ", password: wrong } } }\n",
                           server.url);
    int status = -1;
    g_autoptr (JsonNode) refused = throng_test_run_json (f->dir, yaml, NULL, RUN_TIMEOUT, &status,
                                                         NULL);
    g_assert_nonnull (refused);
    g_autoptr (GPtrArray) wrong = seen_at (f, "/digest");
    g_assert_cmpint (throng_test_json_int (refused, "total.requests"), ==, 1);
    g_assert_cmpint (throng_test_summary_class (refused, "total", "status"), ==, 1);
    g_assert_cmpuint (wrong->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (wrong, 1), ==,
                     "/digest status=401 cookie=- auth=Digest " DIGEST_USER);
}

/*
 * --http-debug shows the Cookie field as it was sent: the jar's cookies,
 * alone or after the step's own Cookie, on the line of the user that
 * sent them ("[u1] > Cookie: sid=s2"); the server saw the same bytes.
 */
static void
test_debug (Fixture *f, gconstpointer data)
{
    g_autofree char *yaml = g_strdup_printf (
        "scenarios:\n"
        "  - name: s\n"
        "    users: 2\n"
        "    iterations: 1\n"
        "    http: { base_url: \"%s\", transport: %s }\n"
        "    steps:\n"
        "      - http: { url: /set }\n"
        "      - http: { url: /after }\n"
        "      - http: { url: /own, headers: { Cookie: own=1 } }\n",
        server.url, f->transport);
    g_autofree char *path = throng_test_write_plan (f->dir, "plan.yaml", yaml);
    const char *argv[] = { "run", path, "--quiet", "--http-debug", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;

    g_assert_true (throng_test_run (argv, NULL, RUN_TIMEOUT, &status, &out, &err));
    g_test_message ("stderr:\n%s", err);
    g_assert_cmpint (status, ==, 0);
    throng_test_assert_no_glib_noise (err);

    /* Every line is tagged with its user. */
    g_auto (GStrv) lines = g_strsplit (err, "\n", -1);
    for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
        g_assert_true (g_str_has_prefix (lines[i], "[u0] ")
                       || g_str_has_prefix (lines[i], "[u1] "));

    g_autoptr (GPtrArray) after = seen_at (f, "/after");
    g_autoptr (GPtrArray) own = seen_at (f, "/own");
    g_assert_cmpuint (after->len, ==, 2);
    g_assert_cmpuint (own->len, ==, 2);
    for (guint user = 0; user < 2; user++) {
        /* The session this user was given, from its own debug lines. */
        g_autofree char *given = g_strdup_printf ("[u%u] < Set-Cookie: sid=", user);
        const char *at = strstr (err, given);
        g_assert_nonnull (at);
        const char *cookie = at + strlen (given) - strlen ("sid=");
        g_autofree char *sid = g_strndup (cookie, strcspn (cookie, ";"));
        g_autofree char *jar_line = g_strdup_printf ("[u%u] > Cookie: %s\n", user, sid);
        g_autofree char *own_line = g_strdup_printf ("[u%u] > Cookie: own=1; %s\n", user, sid);
        g_autofree char *after_seen = g_strdup_printf ("/after status=200 cookie=%s auth=-", sid);
        g_autofree char *own_seen = g_strdup_printf ("/own status=200 cookie=own=1; %s auth=-", sid);

        g_assert_cmpuint (throng_test_count (err, jar_line), ==, 1);
        g_assert_cmpuint (throng_test_count (err, own_line), ==, 1);
        g_assert_true (g_ptr_array_find_with_equal_func (after, after_seen, g_str_equal, NULL));
        g_assert_true (g_ptr_array_find_with_equal_func (own, own_seen, g_str_equal, NULL));
    }
    /* The step's own field is not printed a second time beside the joined one. */
    g_assert_cmpuint (throng_test_count (err, "> Cookie: own=1\n"), ==, 0);
}

int
main (int argc, char **argv)
{
    static const ThrongTestTransportCase cases[] = {
        THRONG_TEST_CASE ("per-iteration", test_per_iteration, TRUE),
        THRONG_TEST_CASE ("per-user", test_per_user, TRUE),
        THRONG_TEST_CASE ("off", test_off, TRUE),
        THRONG_TEST_CASE ("arrivals", test_arrivals, TRUE),
        THRONG_TEST_CASE ("step-cookies", test_step_cookies, TRUE),
        THRONG_TEST_CASE ("credentials", test_credentials, TRUE),
        THRONG_TEST_CASE ("unsent", test_unsent, TRUE),
        THRONG_TEST_CASE ("digest", test_digest, TRUE),
        THRONG_TEST_CASE ("debug", test_debug, TRUE),
    };
    int result;

    g_test_init (&argc, &argv, NULL);
    g_mutex_init (&server.seen.lock);
    server.seen.log = g_ptr_array_new_with_free_func (g_free);
    server.thread = throng_test_server_thread_start ("cookies", server_start, server_finish,
                                                     &server);

    throng_test_add_transport_cases ("/cookies", Fixture, fixture_setup, fixture_teardown,
                                     cases);
    result = g_test_run ();

    throng_test_server_thread_stop (server.thread);
    g_ptr_array_unref (server.seen.log);
    g_free (server.url);
    return result;
}
