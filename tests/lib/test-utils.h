/* SPDX-License-Identifier: MIT */
/*
 * The shared fixture library of the test suite, one header for all of it:
 * child processes and the throng binary (subprocess.h), an in-process
 * SoupServer on a thread of its own (soup-server.h), the fault server as
 * a child (fault-fixture.h), the common plan (plan-builder.h); and here:
 * missing tools, per-test temporary directories and plan files, free
 * loopback ports, an nginx started from a generated configuration and
 * read back through its access log, a throw-away PKI made with GnuTLS,
 * and reading the JSON summary by dotted path and the CSV by rows.  Every
 * helper that can fail in a way the test did not cause asserts or fails
 * the test itself, so callers stay short; the ones that take a GError are
 * those a test may want to see fail.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "fault-fixture.h"
#include "plan-builder.h"
#include "soup-server.h"
#include "subprocess.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Environment                                                         */

/*
 * TRUE when the environment says CI=true (or CI=1): a missing external tool
 * is then a failure, not a skip.
 */
gboolean throng_test_in_ci (void);

/*
 * Marks the current test skipped with @reason on a developer machine, or
 * failed (with @reason as the message) under CI.  The caller returns right
 * after.
 */
void throng_test_skip_or_fail (const char *reason);

/*
 * For the first lines of a test that needs an external program (python3,
 * script, nginx, cc): its full path (@name looked up in PATH, or @name
 * itself when it holds a '/' and is executable), newly allocated; or NULL
 * after throng_test_skip_or_fail() said why, and the test returns.
 */
char *throng_test_require_program (const char *name);

/*
 * The same for a file the machine should provide (/dev/full): TRUE if
 * @path exists; otherwise skipped (failed under CI) and FALSE.
 */
gboolean throng_test_require_file (const char *path);

/*
 * A path under the source tree ($THRONG_SOURCE_DIR), newly allocated.
 * Asserts the variable is set.
 */
char *throng_test_source_path (const char *relative);

/*
 * The directory of the plugins built for the tests
 * ($THRONG_TEST_PLUGIN_DIR), or its subdirectory @sub ("bad",
 * "misbehave"; NULL for the directory itself), newly allocated.
 */
char *throng_test_plugin_dir (const char *sub);

/*
 * The plugins every build ships, as `throng plugins` lists them (name,
 * kind), ending with { NULL, NULL }.
 */
typedef struct {
    const char *name;
    const char *kind;
} ThrongTestPluginInfo;

extern const ThrongTestPluginInfo throng_test_builtin_plugins[];

/* The newline characters in @text: its lines, when each ends with one. */
guint throng_test_count_lines (const char *text);

/*
 * Asserts that @text (usually a captured stderr) carries no GLib
 * "CRITICAL", "WARNING" or "ERROR" log line, and no sanitizer report.
 */
void throng_test_assert_no_glib_noise (const char *text);

/* ------------------------------------------------------------------ */
/* Temporary directories and files                                     */

/*
 * Creates a fresh directory under the system temp dir
 * ("throng-test-XXXXXX").  Asserts on failure.  Free with
 * throng_test_tmpdir_free().
 */
char *throng_test_tmpdir_new (void);

/*
 * Removes @dir recursively and frees the string.  NULL is a no-op.  If
 * THRONG_TEST_KEEP is set in the environment, the directory is kept and
 * its path printed, for post-mortems.
 */
void throng_test_tmpdir_free (char *dir);

/*
 * A GTest fixture with one temporary directory per test:
 *   g_test_add ("/x/y", ThrongTestTmpdir, NULL,
 *               throng_test_tmpdir_setup, test_fn, throng_test_tmpdir_teardown);
 */
typedef struct {
    char *dir;
} ThrongTestTmpdir;

void throng_test_tmpdir_setup (ThrongTestTmpdir *fixture, gconstpointer data);
void throng_test_tmpdir_teardown (ThrongTestTmpdir *fixture, gconstpointer data);

/*
 * Writes @contents to DIR/NAME (creating or replacing it) and returns the
 * full path, newly allocated.  Asserts on failure.
 */
char *throng_test_write_file (const char *dir, const char *name, const char *contents);

/* The same, named for what the tests write most: a YAML plan. */
char *throng_test_write_plan (const char *dir, const char *name, const char *yaml);

/* ------------------------------------------------------------------ */
/* Network                                                             */

/*
 * A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0,
 * read back and closed).  Asserts on failure.  Another process may take it
 * before the caller binds; callers that start servers retry.
 */
guint16 throng_test_free_port (void);

/*
 * Waits until 127.0.0.1:@port accepts a TCP connection, trying every 10 ms
 * for up to @timeout_ms.  Returns TRUE when it did.
 */
gboolean throng_test_wait_port (guint16 port, guint timeout_ms);

/* ------------------------------------------------------------------ */
/* Certificates                                                        */

/*
 * A throw-away PKI, all PEM files in @dir: a CA, server certificates for
 * CN=127.0.0.1 with subjectAltName IP 127.0.0.1 and DNS localhost (valid,
 * expired, and self-signed), one for the wrong host (DNS wrong.invalid,
 * no IP), and a client certificate (CN=throng-client, TLS web client
 * auth), each with its own EC P-256 key.  All but the self-signed one are
 * issued by the CA.  Validity: from one hour ago for 30 days, except the
 * expired one (ended a day ago).
 */
typedef struct {
    char *dir;
    char *ca_cert;
    char *ca_key;
    char *server_cert;
    char *server_key;
    char *wrong_host_cert;
    char *wrong_host_key;
    char *expired_cert;
    char *expired_key;
    char *self_signed_cert;
    char *self_signed_key;
    char *client_cert;
    char *client_key;
} ThrongTestCerts;

ThrongTestCerts *throng_test_certs_new (const char *dir, GError **error);
void throng_test_certs_free (ThrongTestCerts *certs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestCerts, throng_test_certs_free)

/* ------------------------------------------------------------------ */
/* nginx                                                               */

/*
 * TRUE if /usr/sbin/nginx (or $THRONG_TEST_NGINX) is executable.
 */
gboolean throng_test_nginx_available (void);

/*
 * For the first line of an nginx test: returns TRUE if nginx is there;
 * otherwise skips the test (fails it under CI) and returns FALSE.
 */
gboolean throng_test_require_nginx (void);

/*
 * What the generated nginx.conf holds.  Zero-initialise and set what you
 * need; every field has a sensible default.
 *
 * @dir: where nginx.conf, the logs and nginx's temp dirs go; NULL makes a
 *   temporary directory that the fixture owns and removes.
 * @https: add an ssl listener on a second port.
 * @cert_file, @key_file: the server certificate and key (PEM) for the
 *   ssl listener; NULL with @https makes a ThrongTestCerts in @dir and
 *   uses its valid server certificate.
 * @ssl_protocols: the ssl_protocols value, default "TLSv1.2 TLSv1.3".
 * @session_tickets: ssl_session_tickets on (TRUE) or off (FALSE, default).
 * @no_session_cache: leave out "ssl_session_cache shared:SSL:1m".
 * @client_ca_file: if set, "ssl_verify_client on" with this CA.
 * @master_process: run a master and one worker (default: a single
 *   process, master_process off).
 * @locations: raw text added inside both server blocks, e.g.
 *   "location /big { return 200 \"...\"; }".
 * @http_extra: raw text added inside the http block.
 * @keepalive_requests: default 100000; @keepalive_timeout: default "60s".
 * @worker_connections: default 4096; @worker_rlimit_nofile: default 8192
 *   (raise both for thousands of connections, and the test's own
 *   RLIMIT_NOFILE, which nginx inherits).
 * @listen_backlog: the plain listener's backlog; 0: nginx's default.
 * @no_access_log: "access_log off" (the log functions below then find
 *   nothing): for long runs where thousands of lines a second cost disk.
 *
 * Always: daemon off, worker_processes 1, error_log and access_log in the
 * directory (access log unbuffered, format
 * `$connection $connection_requests $ssl_session_reused $status
 * $request_method $uri`), `location / { return 200 "ok\n"; }`.
 */
typedef struct {
    const char *dir;
    gboolean https;
    const char *cert_file;
    const char *key_file;
    const char *ssl_protocols;
    gboolean session_tickets;
    gboolean no_session_cache;
    const char *client_ca_file;
    gboolean master_process;
    const char *locations;
    const char *http_extra;
    guint keepalive_requests;
    const char *keepalive_timeout;
    guint worker_connections;
    guint worker_rlimit_nofile;
    guint listen_backlog;
    gboolean no_access_log;
} ThrongTestNginxConfig;

typedef struct _ThrongTestNginx ThrongTestNginx;

/*
 * Writes the configuration, starts nginx (-p DIR -c DIR/nginx.conf) on
 * free 127.0.0.1 ports (retrying with new ports if one was taken), and
 * returns once every listener accepts connections.  Fails with a GError
 * carrying nginx's stderr/error log if it would not start.  @config may be
 * NULL for plain HTTP with the defaults.
 */
ThrongTestNginx *throng_test_nginx_start (const ThrongTestNginxConfig *config, GError **error);

/*
 * Stops nginx by its PID (SIGTERM, then SIGKILL after 5 s), reaps it, and
 * frees the fixture (removing the directory if the fixture made it).
 * NULL is a no-op.
 */
void throng_test_nginx_stop (ThrongTestNginx *nginx);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestNginx, throng_test_nginx_stop)

guint16 throng_test_nginx_http_port (ThrongTestNginx *nginx);
/* 0 without @https. */
guint16 throng_test_nginx_https_port (ThrongTestNginx *nginx);
/* "http://127.0.0.1:PORT", "https://127.0.0.1:PORT" (NULL without @https). */
const char *throng_test_nginx_http_url (ThrongTestNginx *nginx);
const char *throng_test_nginx_https_url (ThrongTestNginx *nginx);
/* The fixture's directory, and the certificates it made (NULL if the caller gave cert_file). */
const char *throng_test_nginx_dir (ThrongTestNginx *nginx);
const ThrongTestCerts *throng_test_nginx_certs (ThrongTestNginx *nginx);
const char *throng_test_nginx_access_log (ThrongTestNginx *nginx);
const char *throng_test_nginx_error_log (ThrongTestNginx *nginx);

/*
 * What the access log says.  @lines: requests logged; @connections:
 * distinct $connection serial numbers; @reused / @not_reused: lines whose
 * $ssl_session_reused is "r" / "." (plain HTTP lines, "-", count in
 * neither); @status_2xx: lines with a 2xx status; @max_connection_requests:
 * the largest $connection_requests seen.
 */
typedef struct {
    guint lines;
    guint connections;
    guint reused;
    guint not_reused;
    guint status_2xx;
    guint max_connection_requests;
} ThrongTestNginxLog;

/*
 * Reads and parses the access log now.  Asserts every line has the
 * expected shape.
 */
void throng_test_nginx_log_read (ThrongTestNginx *nginx, ThrongTestNginxLog *log);

/*
 * Waits (up to @timeout_ms) until the access log has at least @lines
 * lines, then reads it as throng_test_nginx_log_read() does.  Returns TRUE
 * if the count was reached.  nginx writes a line when a request
 * completes, so a count reached right after the client finished is
 * normally immediate.
 */
gboolean throng_test_nginx_log_wait (ThrongTestNginx *nginx,
                                     guint lines,
                                     guint timeout_ms,
                                     ThrongTestNginxLog *log);

/*
 * Empties the access log (nginx appends, so the next line starts it again)
 * — for tests that run throng more than once against one nginx.
 */
void throng_test_nginx_log_clear (ThrongTestNginx *nginx);

/* ------------------------------------------------------------------ */
/* JSON summary                                                        */

/*
 * Parses the JSON file at @path.  Returns the root node (free with
 * json_node_unref()) or NULL with @error set.
 */
JsonNode *throng_test_json_load (const char *path, GError **error);

/*
 * The node at a dotted @path under @root: object members by name, array
 * elements by decimal index ("scenarios.0.stats.connections").  NULL if
 * any component is missing.  The node belongs to @root.
 */
JsonNode *throng_test_json_get (JsonNode *root, const char *path);

/* TRUE if @path exists under @root. */
gboolean throng_test_json_has (JsonNode *root, const char *path);

/*
 * The integer / number / string / boolean at @path.  Asserts (with the
 * path in the message) that it exists and has that type.  A missing
 * member of "errors_by_class" is an error, not 0: use
 * throng_test_json_int_or() for those.
 */
gint64 throng_test_json_int (JsonNode *root, const char *path);
gint64 throng_test_json_int_or (JsonNode *root, const char *path, gint64 fallback);
double throng_test_json_double (JsonNode *root, const char *path);
const char *throng_test_json_string (JsonNode *root, const char *path);
gboolean throng_test_json_bool (JsonNode *root, const char *path);
/* The number of elements of the array (or members of the object) at @path. */
guint throng_test_json_length (JsonNode *root, const char *path);

/*
 * What a summary's STATS object says about errors; @stats is its path
 * ("total", "scenarios.0.steps.1.stats").  The count of error class
 * @klass (0 when the class is absent, as the summary leaves out empty
 * classes), and the sum over every class.
 */
gint64 throng_test_summary_class (JsonNode *root, const char *stats, const char *klass);
gint64 throng_test_summary_class_sum (JsonNode *root, const char *stats);

/*
 * Asserts that the figures of @stats add up: the classes sum to its
 * errors, and there are no more errors than requests.
 */
void throng_test_summary_assert_totals (JsonNode *root, const char *stats);

/* TRUE if one of the summary's "warnings" holds @fragment. */
gboolean throng_test_summary_has_warning (JsonNode *root, const char *fragment);

/* ------------------------------------------------------------------ */
/* CSV samples                                                         */

/*
 * The rows of the csv reporter's file at @path after its header (0 for an
 * empty file).  Asserts that the file can be read and ends in a whole
 * line: a torn last row fails the test.
 */
guint throng_test_csv_rows (const char *path);

G_END_DECLS
