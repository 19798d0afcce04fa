/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's own parts: the request head it writes, its
 * response parser on the wire (Content-Length, chunked, read until
 * close, no body for HEAD/204/304, interim 1xx, malformed heads, split
 * heads and chunk lines) with the bytes it counts, the one silent retry
 * on a kept-alive connection the server had closed, users freed
 * mid-handshake, and TLS records split across reads.  What both
 * transports must agree on (redirects, cookies, expect_status, the body
 * limit, connections per user and with keep_alive: false, a refused
 * port, a name that does not resolve, timeouts) is the conformance
 * suite's: tests/integration/test-conformance.c.
 *
 * The real `throng` binary runs as a subprocess against a scripted HTTP
 * server in this process (a thread per connection, answers chosen by
 * path, written in pieces so that the parser meets split heads and chunk
 * lines), and against nginx for TLS records.  The server counts what it
 * saw, so each test checks throng's counters against it.
 */
#include "test-utils.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The framing code is compiled into this test as it is into the plugin. */
#include "../../plugins/http/fast/parse.c"
#include "../../plugins/http/fast/request.c"

#define RUN_TIMEOUT 60

/* ------------------------------------------------------------------ */
/* The request head, without a server                                 */

static void
test_parse_request_head (void)
{
    g_autoptr (GArray) headers = g_array_new (FALSE, TRUE, sizeof (HttpHeader));
    g_autoptr (GString) out = g_string_new (NULL);
    HttpHeader h = { (char *)"X-One", (char *)"1" };

    g_array_append_val (headers, h);
    fast_request_head_append (out, "POST", "example.test", 8080, FALSE, "/a?b=1", headers, 5, TRUE,
                              NULL);
    g_assert_cmpstr (out->str, ==,
                     "POST /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\nX-One: 1\r\n"
                     "User-Agent: throng/" THRONG_VERSION_STRING "\r\nContent-Length: 5\r\n"
                     "Connection: close\r\n");
    g_string_truncate (out, 0);
    /* Default ports are left out; IPv6 literals are bracketed; a given Host wins. */
    fast_request_head_append (out, "GET", "::1", 443, TRUE, "/", NULL, -1, FALSE, NULL);
    g_assert_true (g_str_has_prefix (out->str, "GET / HTTP/1.1\r\nHost: [::1]\r\n"));
    g_string_truncate (out, 0);
    h = (HttpHeader){ (char *)"host", (char *)"virtual.test" };
    g_array_append_val (headers, h);
    fast_request_head_append (out, "GET", "127.0.0.1", 80, FALSE, "/", headers, -1, FALSE, NULL);
    g_assert_null (strstr (out->str, "Host: 127.0.0.1"));
    g_assert_nonnull (strstr (out->str, "host: virtual.test\r\n"));
}

/*
 * A templated step's head plan, its holes filled, is byte for byte the
 * head written with the expanded values: a templated target with a query,
 * an empty templated value, a templated Host, a templated body's length
 * (which changes from request to request), the headers the transport
 * drops or adds, and `Connection: close`.
 */
static void
test_request_head_plan (void)
{
    static const struct {
        const char *target;      /* NULL: the url is templated */
        const char *values[4];   /* per header; NULL where it is templated */
        const char *filled[4];   /* the expansion of the templated ones */
        const char *sent_target; /* the expanded target */
        const char *body;        /* a templated body's expansion; NULL: none */
        gssize body_len;         /* the literal body's length when @body is NULL */
        gboolean close;
    } cases[] = {
        { NULL,
          { "a", NULL, "c", "d" },
          { NULL, "22", NULL, NULL },
          "/x?u=1&i=2",
          NULL,
          -1,
          FALSE },
        { "/plain", { NULL, "b", NULL, "d" }, { "", NULL, "", NULL }, NULL, NULL, -1, TRUE },
        { NULL, { "a", "b", "c", "d" }, { NULL }, "/q?a=%20", "", -1, FALSE },
        { "/p",
          { "a", "b", NULL, NULL },
          { NULL, NULL, "v.test", "x" },
          NULL,
          "{\"n\": 12345}",
          -1,
          TRUE },
        { NULL, { "a", "b", "c", NULL }, { NULL, NULL, NULL, "z" }, "/", NULL, 5, FALSE },
    };
    static const char *const names[4] = { "X-One", "Content-Length", "Host", "Connection" };

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
        g_autoptr (GArray) headers = g_array_new (FALSE, TRUE, sizeof (HttpHeader));
        g_autoptr (GArray) sent = g_array_new (FALSE, TRUE, sizeof (HttpHeader));
        g_autoptr (GString) want = g_string_new (NULL);
        g_autoptr (GString) got = g_string_new ("kept:");
        ThrongTemplate *holes[4] = { NULL };
        HttpStep step = {
            .method = (char *)"POST",
            .host = (char *)"127.0.0.1",
            .port = 8080,
            .target = (char *)cases[c].target,
            .headers = headers,
            .header_templates = holes,
        };
        HttpRequestText text = {
            .target = g_string_new (cases[c].sent_target),
            .values = g_string_new (NULL),
            .spans = g_array_new (FALSE, TRUE, sizeof (HttpSpan)),
            .body = g_string_new (cases[c].body),
        };
        FastHeadPlan plan;
        gssize body_len
            = cases[c].body != NULL ? (gssize)strlen (cases[c].body) : cases[c].body_len;

        /* Only whether a template is there matters to the plan. */
        if (cases[c].target == NULL)
            step.url_template = (ThrongTemplate *)&step;
        if (cases[c].body != NULL)
            step.body_template = (ThrongTemplate *)&step;
        g_array_set_size (text.spans, 4);
        for (guint i = 0; i < 4; i++) {
            HttpHeader h = { (char *)names[i], (char *)cases[c].values[i], NULL };
            HttpSpan *span = &g_array_index (text.spans, HttpSpan, i);

            g_array_append_val (headers, h);
            if (cases[c].values[i] == NULL) {
                holes[i] = (ThrongTemplate *)&step;
                span->offset = text.values->len;
                span->length = strlen (cases[c].filled[i]);
                g_string_append (text.values, cases[c].filled[i]);
                g_string_append_c (text.values, '\0');
                h.value = (char *)cases[c].filled[i];
            }
            g_array_append_val (sent, h);
        }

        fast_request_head_append (want, "POST", "127.0.0.1", 8080, FALSE,
                                  cases[c].target != NULL ? cases[c].target : cases[c].sent_target,
                                  sent, body_len, cases[c].close, NULL);
        fast_head_plan_init (&plan, &step, cases[c].body != NULL ? FAST_BODY_LENGTH_HOLE : body_len,
                             cases[c].close);
        fast_head_plan_append (&plan, got, &text);
        g_assert_true (g_str_has_prefix (got->str, "kept:"));
        g_assert_cmpstr (got->str + 5, ==, want->str);
        g_assert_cmpuint (got->len, ==, want->len + 5);
        fast_head_plan_clear (&plan);
        g_string_free (text.target, TRUE);
        g_string_free (text.values, TRUE);
        g_string_free (text.body, TRUE);
        g_array_unref (text.spans);
    }
}

/* ------------------------------------------------------------------ */
/* A scripted server                                                   */

typedef struct {
    int listen_fd;
    guint16 port;
    GThread *acceptor;
    gint connections; /* accepted */
    gint requests;    /* request heads read */
    gint stopping;
    gint active; /* connection threads still running */
} Server;

typedef struct {
    Server *server;
    int fd;
} ServerConn;

static gboolean
send_all (int fd, const char *data, gsize len)
{
    while (len > 0) {
        gssize n = send (fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}

/* Sends @text in pieces of @piece bytes with a pause between them. */
static gboolean
send_pieces (int fd, const char *text, gsize piece)
{
    gsize len = strlen (text);

    for (gsize off = 0; off < len; off += piece) {
        if (!send_all (fd, text + off, MIN (piece, len - off)))
            return FALSE;
        g_usleep (2000);
    }
    return TRUE;
}

#define CL_RESPONSE "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"
#define SPLIT_RESPONSE "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-Pad: abcdef\r\n\r\n0123456789"
#define CLOSE_HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
#define REDIRECT_RESPONSE "HTTP/1.1 302 Found\r\nLocation: /cl\r\nContent-Length: 0\r\n\r\n"
#define CLOSE_BODY 1000

static gboolean
send_text (int fd, const char *text)
{
    return send_all (fd, text, strlen (text));
}

static const char chunked_response[] = "HTTP/1.1 200 OK\r\n"
                                       "Transfer-Encoding: chunked\r\n"
                                       "\r\n"
                                       "5\r\nhello\r\n"
                                       "1;ext=1\r\n \r\n"
                                       "14\r\n01234567890123456789\r\n"
                                       "0\r\n"
                                       "X-Trailer: yes\r\n"
                                       "\r\n";

/* Answers one request; FALSE closes the connection. */
static gboolean
answer (Server *server, int fd, const char *method, const char *path, const char *head)
{
    g_autofree char *text = NULL;

    if (strcmp (path, "/cl") == 0)
        return send_text (fd, CL_RESPONSE);
    if (strcmp (path, "/split") == 0)
        return send_pieces (fd, SPLIT_RESPONSE, 3);
    if (strcmp (path, "/chunked") == 0)
        return send_pieces (fd, chunked_response, 4);
    if (strcmp (path, "/close") == 0) {
        text = g_strnfill (CLOSE_BODY, 'x');
        send_text (fd, CLOSE_HEAD);
        send_all (fd, text, CLOSE_BODY);
        return FALSE;
    }
    if (strcmp (path, "/then-close") == 0) {
        /* Keep-alive promised, then the server drops the idle connection. */
        send_text (fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        g_usleep (20000);
        return FALSE;
    }
    if (strcmp (path, "/interim") == 0)
        return send_text (fd, "HTTP/1.1 100 Continue\r\n\r\n"
                              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    if (strcmp (path, "/304") == 0)
        return send_text (fd, "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n");
    if (strcmp (path, "/204") == 0)
        return send_text (fd, "HTTP/1.1 204 No Content\r\n\r\n");
    if (strcmp (path, "/head") == 0 && strcmp (method, "HEAD") == 0)
        return send_text (fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
    if (strcmp (path, "/malformed") == 0) {
        send_text (fd, "HTPP/1.1 two hundred\r\nfoo\r\n\r\n");
        return FALSE;
    }
    if (strcmp (path, "/bad-chunk") == 0) {
        send_text (fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        return FALSE;
    }
    if (strcmp (path, "/bad-length") == 0) {
        send_text (fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello");
        return FALSE;
    }
    if (strcmp (path, "/truncated") == 0) {
        send_text (fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly-part");
        return FALSE;
    }
    if (strcmp (path, "/redirect") == 0)
        return send_text (fd, REDIRECT_RESPONSE);
    return send_text (fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
}

static gpointer
server_conn_thread (gpointer data)
{
    ServerConn *sc = data;
    Server *server = sc->server;
    GString *in = g_string_new (NULL);
    char buf[4096];

    for (;;) {
        char *end = strstr (in->str, "\r\n\r\n");
        gssize n;

        if (end != NULL) {
            gsize head_len = end + 4 - in->str;
            g_autofree char *head = g_strndup (in->str, head_len);
            g_auto (GStrv) words = g_strsplit (head, " ", 3);
            const char *cl = strstr (head, "Content-Length: ");
            gsize body = cl != NULL ? g_ascii_strtoull (cl + 16, NULL, 10) : 0;
            gboolean keep;

            while (in->len < head_len + body) {
                n = recv (sc->fd, buf, sizeof buf, 0);
                if (n <= 0)
                    goto out;
                g_string_append_len (in, buf, n);
            }
            g_string_erase (in, 0, head_len + body);
            g_atomic_int_inc (&server->requests);
            if (g_strv_length (words) < 3)
                goto out;
            {
                char *query = strchr (words[1], '?');
                if (query != NULL)
                    *query = '\0';
            }
            keep = answer (server, sc->fd, words[0], words[1], head);
            if (!keep || strstr (head, "\r\nConnection: close\r\n") != NULL)
                goto out;
            continue;
        }
        n = recv (sc->fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            break;
        g_string_append_len (in, buf, n);
    }
out:
    close (sc->fd);
    g_string_free (in, TRUE);
    g_free (sc);
    g_atomic_int_dec_and_test (&server->active);
    return NULL;
}

static gpointer
server_accept_thread (gpointer data)
{
    Server *server = data;

    for (;;) {
        int fd = accept (server->listen_fd, NULL, NULL);
        ServerConn *sc;

        if (fd < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (g_atomic_int_get (&server->stopping)) {
            close (fd);
            break;
        }
        g_atomic_int_inc (&server->connections);
        g_atomic_int_inc (&server->active);
        sc = g_new0 (ServerConn, 1);
        sc->server = server;
        sc->fd = fd;
        g_thread_unref (g_thread_new ("conn", server_conn_thread, sc));
    }
    return NULL;
}

static Server *
server_start (void)
{
    Server *server = g_new0 (Server, 1);
    struct sockaddr_in addr = { 0 };
    socklen_t len = sizeof addr;
    int one = 1;

    server->listen_fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    g_assert_cmpint (server->listen_fd, >=, 0);
    setsockopt (server->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    g_assert_cmpint (bind (server->listen_fd, (struct sockaddr *)&addr, sizeof addr), ==, 0);
    g_assert_cmpint (listen (server->listen_fd, 128), ==, 0);
    g_assert_cmpint (getsockname (server->listen_fd, (struct sockaddr *)&addr, &len), ==, 0);
    server->port = ntohs (addr.sin_port);
    server->acceptor = g_thread_new ("accept", server_accept_thread, server);
    return server;
}

static void
server_stop (Server *server)
{
    int fd;
    struct sockaddr_in addr = { 0 };

    g_atomic_int_set (&server->stopping, 1);
    /* Wake the blocking accept with one last connection. */
    fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    addr.sin_port = htons (server->port);
    connect (fd, (struct sockaddr *)&addr, sizeof addr);
    g_thread_join (server->acceptor);
    close (fd);
    close (server->listen_fd);
    /* Connection threads end once throng's sockets are gone; /slow may still be asleep. */
    for (guint i = 0; i < 500 && g_atomic_int_get (&server->active) > 0; i++)
        g_usleep (10 * 1000);
    g_assert_cmpint (g_atomic_int_get (&server->active), ==, 0);
    g_free (server);
}

/* ------------------------------------------------------------------ */
/* Running throng                                                      */

/*
 * Runs @shape (its users, iterations and more of its http map) with
 * transport fast against @base_url, its steps @steps_yaml (lines indented
 * 6 under `steps:`); returns the JSON summary.
 */
static JsonNode *
run_plan (const char *dir, const char *base_url, const ThrongTestPlan *shape,
          const char *steps_yaml)
{
    ThrongTestPlan plan = *shape;
    g_autofree char *yaml = NULL;
    g_autofree char *err = NULL;
    JsonNode *root;

    plan.name = "fast";
    plan.scenario = "fast";
    plan.transport = "fast";
    plan.base_url = base_url;
    plan.steps = steps_yaml;
    yaml = throng_test_plan_yaml (&plan);
    root = throng_test_run_summary (dir, yaml, NULL, RUN_TIMEOUT, 0, &err);
    throng_test_assert_no_glib_noise (err);
    return root;
}

static char *
server_url (Server *server)
{
    return g_strdup_printf ("http://127.0.0.1:%u", server->port);
}

typedef struct {
    char *dir;
    Server *server;
    char *url;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
    f->dir = throng_test_tmpdir_new ();
    f->server = server_start ();
    f->url = server_url (f->server);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
    server_stop (f->server);
    throng_test_tmpdir_free (f->dir);
    g_free (f->url);
}

#define ONE_USER(n) (&(ThrongTestPlan){ .users = 1, .iterations = (n) })

/* ------------------------------------------------------------------ */
/* Framing                                                             */

static void
test_content_length (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (f->dir, f->url, ONE_USER (5),
                                          "      - http: { url: /cl }\n"
                                          "      - http: { url: /split }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 10);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Both paths on one kept-alive connection. */
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpint (g_atomic_int_get (&f->server->connections), ==, 1);
    g_assert_cmpint (g_atomic_int_get (&f->server->requests), ==, 10);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.bytes_received"), ==,
                     5 * (gint64)strlen (CL_RESPONSE));
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.1.stats.bytes_received"), ==,
                     5 * (gint64)strlen (SPLIT_RESPONSE));
}

static void
test_chunked (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root
        = run_plan (f->dir, f->url, ONE_USER (4), "      - http: { url: /chunked }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 4);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), ==,
                     4 * (gint64)strlen (chunked_response));
}

static void
test_close_delimited (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root
        = run_plan (f->dir, f->url, ONE_USER (3), "      - http: { url: /close }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 3);
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), ==,
                     3 * (gint64)(strlen (CLOSE_HEAD) + CLOSE_BODY));
}

/* No body after HEAD, 204 and 304 whatever Content-Length says; interim 1xx skipped. */
static void
test_no_body (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (f->dir, f->url, ONE_USER (3),
                                          "      - http: { url: /304, expect_status: '304' }\n"
                                          "      - http: { url: /204, expect_status: '204' }\n"
                                          "      - http: { url: /head, method: HEAD }\n"
                                          "      - http: { url: /interim }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 12);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Had a body been awaited, the next request would have hung or broken the connection. */
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 1);
    g_assert_cmpint (g_atomic_int_get (&f->server->connections), ==, 1);
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */

/*
 * The server drops each connection shortly after answering, without
 * saying so: the next request on it meets a closed connection and is
 * retried once on a new one, silently.
 */
static void
test_stale_retry (Fixture *f, gconstpointer data)
{
    ThrongTestPlan shape = { .users = 1, .iterations = 6, .http = "timeout: 5s" };
    g_autoptr (JsonNode) root
        = run_plan (f->dir, f->url, &shape, "      - http: { url: /then-close }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 6);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.connections"), ==, 6);
    g_assert_cmpint (g_atomic_int_get (&f->server->connections), ==, 6);
}

/* ------------------------------------------------------------------ */
/* Redirects                                                           */

/*
 * A followed redirect's bytes are every hop's, as on the wire (what the
 * redirect sends, status codes, methods, counts and connections are
 * the conformance suite's, tests/integration/test-conformance.c).
 */
static void
test_redirect_bytes (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (f->dir, f->url, ONE_USER (2),
                                          "      - http: { url: /redirect, follow_redirects: true }\n");

    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 2);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    /* Followed: the final response is /cl's 10-byte body. */
    g_assert_cmpint (throng_test_json_int (root, "total.bytes_received"), ==,
                     2 * (gint64)(strlen (REDIRECT_RESPONSE) + strlen (CL_RESPONSE)));
    g_assert_cmpint (g_atomic_int_get (&f->server->requests), ==, 4);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

static void
test_malformed (Fixture *f, gconstpointer data)
{
    g_autoptr (JsonNode) root = run_plan (f->dir, f->url, ONE_USER (2),
                                          "      - http: { url: /malformed }\n"
                                          "      - http: { url: /bad-chunk }\n"
                                          "      - http: { url: /bad-length }\n"
                                          "      - http: { url: /truncated }\n"
                                          "      - http: { url: /cl }\n");

    for (guint i = 0; i < 3; i++) {
        g_autofree char *path
            = g_strdup_printf ("scenarios.0.steps.%u.stats.errors_by_class.protocol", i);
        g_assert_cmpint (throng_test_json_int (root, path), ==, 2);
    }
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.3.stats.errors_by_class.reset"),
                     ==, 2);
    /* The user goes on after each failure. */
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.4.stats.errors"), ==, 0);
}

/*
 * The run ends while every user is inside a TLS handshake the server
 * never answers: the users are freed mid-handshake, nothing completes
 * after that, and throng exits promptly.
 */
static void
test_free_mid_handshake (Fixture *f, gconstpointer data)
{
    g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u", f->server->port);
    gint64 start = g_get_monotonic_time ();
    g_autofree char *plan = throng_test_plan_yaml (&(ThrongTestPlan){
        .name = "mid-handshake",
        .transport = "fast",
        .base_url = url,
        .http = "connect_timeout: 30s, tls: { verify: false }",
        .scenario = "stuck",
        .users = 5,
        .duration = "1s",
        .scenario_extra = "    graceful_stop: 300ms\n",
        .steps = "      - http: { url: / }\n",
    });
    g_autofree char *err = NULL;
    g_autoptr (JsonNode) root = throng_test_run_summary (f->dir, plan, NULL, RUN_TIMEOUT, 0, &err);

    throng_test_assert_no_glib_noise (err);
    /* Cancelled steps are not samples: nothing completed, nothing failed. */
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "total.handshakes.full"), ==, 0);
    /* Five users connected and were stuck in the handshake. */
    g_assert_cmpint (g_atomic_int_get (&f->server->connections), ==, 5);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
}

/*
 * Bodies of many TLS records on kept-alive connections: one recv() brings
 * a record and part of the next, whose bytes must survive from one read
 * call to the next although the read-ahead buffer is the worker's, not
 * the connection's.  Every byte is counted and every connection reused.
 */
static void
test_nginx_tls_records (ThrongTestTmpdir *fixture, gconstpointer data)
{
    const gsize size = 1024 * 1024 + 4321; /* not a whole number of records */
    g_autofree char *file = g_build_filename (fixture->dir, "big.bin", NULL);
    g_autofree char *contents = g_malloc (size);
    g_autofree char *locations = NULL;
    g_autofree char *http = NULL;
    g_autoptr (JsonNode) root = NULL;
    g_autoptr (GError) error = NULL;
    ThrongTestNginxLog log;

    for (gsize i = 0; i < size; i++)
        contents[i] = (char)('a' + i % 26);
    g_assert_true (g_file_set_contents (file, contents, size, &error));
    locations = g_strdup_printf ("location = /big { alias %s; }", file);
    ThrongTestNginxConfig config = { .https = TRUE, .locations = locations };
    g_autoptr (ThrongTestNginx) nginx = throng_test_nginx_require (&config);
    if (nginx == NULL)
        return;

    http = g_strdup_printf ("tls: { ca_file: '%s' }", throng_test_nginx_certs (nginx)->ca_cert);
    ThrongTestPlan shape = { .users = 3, .iterations = 4, .http = http };
    root = run_plan (fixture->dir, throng_test_nginx_https_url (nginx), &shape,
                     "      - http: { url: /big, max_body: 2MiB }\n"
                     "      - http: { url: / }\n");
    g_assert_cmpint (throng_test_json_int (root, "total.requests"), ==, 24);
    g_assert_cmpint (throng_test_json_int (root, "total.errors"), ==, 0);
    g_assert_cmpint (throng_test_json_int (root, "scenarios.0.steps.0.stats.bytes_received"), >,
                     (gint64)(12 * size));
    g_assert_true (throng_test_nginx_log_wait (nginx, 24, 5000, &log));
    g_assert_cmpuint (log.status_2xx, ==, 24);
    g_assert_cmpuint (log.connections, ==, 3);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/http-fast/parse/request-head", test_parse_request_head);
    g_test_add_func ("/http-fast/parse/request-head-plan", test_request_head_plan);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
    ADD ("/http-fast/framing/content-length", test_content_length);
    ADD ("/http-fast/framing/chunked", test_chunked);
    ADD ("/http-fast/framing/close-delimited", test_close_delimited);
    ADD ("/http-fast/framing/no-body", test_no_body);
    ADD ("/http-fast/connection/stale-retry", test_stale_retry);
    ADD ("/http-fast/connection/free-mid-handshake", test_free_mid_handshake);
    ADD ("/http-fast/redirects/bytes", test_redirect_bytes);
    ADD ("/http-fast/error/malformed", test_malformed);
#undef ADD
    /* Without the scripted server: a temporary directory only. */
#define ADD_TMPDIR(path, fn)                                                                       \
    g_test_add (path, ThrongTestTmpdir, NULL, throng_test_tmpdir_setup, fn,                        \
                throng_test_tmpdir_teardown)
    ADD_TMPDIR ("/http-fast/nginx/tls-records", test_nginx_tls_records);
#undef ADD_TMPDIR

    return g_test_run ();
}
