/* SPDX-License-Identifier: MIT */
/*
 * nginx as an independent peer: started from a generated configuration on
 * free loopback ports, stopped by its PID, and read back through its
 * access log (connections, requests per connection, TLS session reuse).
 */
#pragma once

#include <glib.h>

#include "certs.h"

G_BEGIN_DECLS

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
 * @http2: both listeners speak HTTP/2 ("listen … http2"): the https one
 *   offers h2 and http/1.1 through ALPN; nginx 1.22's plain one speaks
 *   h2c by prior knowledge only.
 * @no_access_log: "access_log off" (the log functions below then find
 *   nothing): for long runs where thousands of lines a second cost disk.
 *
 * Always: daemon off, worker_processes 1, error_log and access_log in the
 * directory (access log unbuffered, format
 * `$connection $connection_requests $ssl_session_reused $status
 * $request_method $uri`, and ` $server_protocol` with @http2), `location / { return 200 "ok\n"; }`.
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
    gboolean http2;
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
 * For the first lines of an nginx test: throng_test_nginx_start(),
 * asserting that nginx started; or NULL, when nginx is not installed,
 * after throng_test_require_nginx() skipped the test (failed it under
 * CI), and the test returns.
 */
ThrongTestNginx *throng_test_nginx_require (const ThrongTestNginxConfig *config);

/*
 * Stops nginx by its PID (SIGTERM, then SIGKILL after 5 s), reaps it, and
 * frees the fixture (removing the directory if the fixture made it).
 * NULL is a no-op.
 */
void throng_test_nginx_stop (ThrongTestNginx *nginx);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTestNginx, throng_test_nginx_stop)

/*
 * A target that goes away and comes back: kill() sends @signum to nginx
 * by its PID (SIGTERM: nginx's fast shutdown, which closes its
 * connections; SIGKILL: a crash, the kernel closes them), waits up to 5 s
 * for it to exit (then SIGKILL) and reaps it, keeping the configuration,
 * the ports and the logs; restart() starts it again on the same ports,
 * appending to the same access log, and returns once every listener
 * accepts, or FALSE with @error set (a port taken meanwhile, with nginx's
 * own words).  The new process numbers its connections from 1 again, so
 * the log's @connections undercounts across a restart; its @lines do not.
 */
void throng_test_nginx_kill (ThrongTestNginx *nginx, int signum);
gboolean throng_test_nginx_restart (ThrongTestNginx *nginx, GError **error);

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
 * the largest $connection_requests seen; @connections_reused /
 * @connections_not_reused: connections whose first line says "r" / ".",
 * that is, TLS connections begun with a resumed / a full handshake;
 * @http2: lines whose $server_protocol is HTTP/2.0.
 */
typedef struct {
    guint lines;
    guint connections;
    guint reused;
    guint not_reused;
    guint status_2xx;
    guint max_connection_requests;
    guint connections_reused;
    guint connections_not_reused;
    guint http2; /* lines whose $server_protocol is HTTP/2.0 */
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

G_END_DECLS
