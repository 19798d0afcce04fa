/* SPDX-License-Identifier: MIT */
/*
 * The nginx fixture (see nginx.h): its configuration text, its start with
 * a retry on a port taken meanwhile, its stop, and its access log.
 */
#include "nginx.h"

#include "test-utils.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

struct _ThrongTestNginx {
    char *dir;
    gboolean owns_dir;
    ThrongTestProcess *proc;
    guint16 http_port;
    guint16 https_port;
    char *http_url;
    char *https_url;
    char *access_log;
    char *error_log;
    char *conf_path;
    ThrongTestCerts *certs;
};

static const char *
nginx_path (void)
{
    const char *path = g_getenv ("THRONG_TEST_NGINX");

    return path != NULL ? path : "/usr/sbin/nginx";
}

gboolean
throng_test_nginx_available (void)
{
    return g_file_test (nginx_path (), G_FILE_TEST_IS_EXECUTABLE);
}

gboolean
throng_test_require_nginx (void)
{
    g_autofree char *path = throng_test_require_program (nginx_path ());

    return path != NULL;
}

static char *
nginx_config_text (const ThrongTestNginxConfig *config,
                   ThrongTestNginx *nginx,
                   const char *cert_file,
                   const char *key_file)
{
    GString *conf = g_string_new (NULL);
    const char *locations = config->locations ? config->locations : "";
    const char *dir = nginx->dir;

    g_autofree char *access_log = config->no_access_log
                                      ? g_strdup ("off")
                                      : g_strdup_printf ("%s throng", nginx->access_log);
    g_autofree char *backlog = config->listen_backlog
                                   ? g_strdup_printf (" backlog=%u", config->listen_backlog)
                                   : g_strdup ("");

    g_string_append_printf (conf,
                            "daemon off;\n"
                            "master_process %s;\n"
                            "worker_processes 1;\n"
                            "worker_rlimit_nofile %u;\n"
                            "pid %s/nginx.pid;\n"
                            "error_log %s warn;\n"
                            "events { worker_connections %u; }\n"
                            "http {\n"
                            "  default_type text/plain;\n"
                            "  log_format throng '$connection $connection_requests "
                            "$ssl_session_reused $status $request_method $uri%s';\n"
                            "  access_log %s;\n"
                            "  client_body_temp_path %s/tmp/body;\n"
                            "  proxy_temp_path %s/tmp/proxy;\n"
                            "  fastcgi_temp_path %s/tmp/fastcgi;\n"
                            "  uwsgi_temp_path %s/tmp/uwsgi;\n"
                            "  scgi_temp_path %s/tmp/scgi;\n"
                            "  keepalive_requests %u;\n"
                            "  keepalive_timeout %s;\n"
                            "  %s\n"
                            "  server {\n"
                            "    listen 127.0.0.1:%u%s%s;\n"
                            "    location / { return 200 \"ok\\n\"; }\n"
                            "    %s\n"
                            "  }\n",
                            config->master_process ? "on" : "off",
                            config->worker_rlimit_nofile ? config->worker_rlimit_nofile : 8192,
                            dir, nginx->error_log,
                            config->worker_connections ? config->worker_connections : 4096,
                            config->http2 ? " $server_protocol" : "", access_log, dir, dir, dir, dir, dir,
                            config->keepalive_requests ? config->keepalive_requests : 100000,
                            config->keepalive_timeout ? config->keepalive_timeout : "60s",
                            config->http_extra ? config->http_extra : "", nginx->http_port,
                            backlog, config->http2 ? " http2" : "", locations);
    if (config->https) {
        g_string_append_printf (conf,
                                "  server {\n"
                                "    listen 127.0.0.1:%u ssl%s;\n"
                                "    ssl_certificate %s;\n"
                                "    ssl_certificate_key %s;\n"
                                "    ssl_protocols %s;\n"
                                "    %s\n"
                                "    ssl_session_tickets %s;\n",
                                nginx->https_port, config->http2 ? " http2" : "", cert_file,
                                key_file,
                                config->ssl_protocols ? config->ssl_protocols : "TLSv1.2 TLSv1.3",
                                config->no_session_cache ? "ssl_session_cache off;"
                                                         : "ssl_session_cache shared:SSL:1m;",
                                config->session_tickets ? "on" : "off");
        if (config->client_ca_file != NULL)
            g_string_append_printf (conf,
                                    "    ssl_verify_client on;\n"
                                    "    ssl_client_certificate %s;\n",
                                    config->client_ca_file);
        g_string_append_printf (conf,
                                "    location / { return 200 \"ok\\n\"; }\n"
                                "    %s\n"
                                "  }\n",
                                locations);
    }
    g_string_append (conf, "}\n");
    return g_string_free (conf, FALSE);
}

static gboolean
nginx_exited (ThrongTestNginx *nginx)
{
    return throng_test_process_pid (nginx->proc) == NULL;
}

static void
nginx_kill (ThrongTestNginx *nginx)
{
    if (nginx->proc == NULL)
        return;
    throng_test_process_stop (nginx->proc, SIGTERM, 5000);
    g_clear_pointer (&nginx->proc, throng_test_process_free);
}

/*
 * Starts nginx from the configuration already written, and waits until
 * every listener accepts.  On failure, *@port_taken says whether a port
 * was in use.
 */
static gboolean
nginx_spawn (ThrongTestNginx *nginx, gboolean *port_taken, GError **error)
{
    g_autofree char *stderr_path = g_build_filename (nginx->dir, "nginx.stderr", NULL);
    const char *argv[] = { nginx_path (), "-p", nginx->dir, "-e", nginx->error_log, "-c",
                           nginx->conf_path, NULL };
    /* SIGTERM, so that an nginx outliving its test still removes its pid file. */
    ThrongTestSpawnOptions options = { .output_path = stderr_path, .death_signal = SIGTERM };
    gint64 deadline;
    gboolean up = FALSE;

    *port_taken = FALSE;
    nginx->proc = throng_test_process_spawn (argv, &options, error);
    if (nginx->proc == NULL)
        return FALSE;

    deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!nginx_exited (nginx) && g_get_monotonic_time () < deadline) {
        if (throng_test_wait_port (nginx->http_port, 20) &&
            (nginx->https_port == 0 || throng_test_wait_port (nginx->https_port, 20))) {
            up = TRUE;
            break;
        }
    }

    if (!up) {
        g_autofree char *err_text = NULL;
        g_autofree char *log_text = NULL;

        nginx_kill (nginx);
        g_file_get_contents (stderr_path, &err_text, NULL, NULL);
        g_file_get_contents (nginx->error_log, &log_text, NULL, NULL);
        if ((err_text && strstr (err_text, "Address already in use")) ||
            (log_text && strstr (log_text, "Address already in use")))
            *port_taken = TRUE;
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                     "nginx did not start (config %s):\n%s\n%s", nginx->conf_path,
                     err_text ? err_text : "", log_text ? log_text : "");
        return FALSE;
    }
    return TRUE;
}

static gboolean
nginx_try_start (ThrongTestNginx *nginx,
                 const ThrongTestNginxConfig *config,
                 const char *cert_file,
                 const char *key_file,
                 gboolean *retry,
                 GError **error)
{
    g_autofree char *conf_text = NULL;

    nginx->http_port = throng_test_free_port ();
    do
        nginx->https_port = config->https ? throng_test_free_port () : 0;
    while (config->https && nginx->https_port == nginx->http_port);

    conf_text = nginx_config_text (config, nginx, cert_file, key_file);
    if (!g_file_set_contents (nginx->conf_path, conf_text, -1, error)) {
        *retry = FALSE;
        return FALSE;
    }
    g_unlink (nginx->error_log);
    return nginx_spawn (nginx, retry, error);
}

ThrongTestNginx *
throng_test_nginx_start (const ThrongTestNginxConfig *config, GError **error)
{
    static const ThrongTestNginxConfig defaults = { 0 };
    g_autoptr (ThrongTestNginx) nginx = g_new0 (ThrongTestNginx, 1);
    g_autofree char *tmp = NULL;
    const char *cert_file, *key_file;

    if (config == NULL)
        config = &defaults;
    if (!throng_test_nginx_available ()) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s is not installed", nginx_path ());
        return NULL;
    }

    if (config->dir != NULL) {
        nginx->dir = g_strdup (config->dir);
    } else {
        nginx->dir = throng_test_tmpdir_new ();
        nginx->owns_dir = TRUE;
    }
    tmp = g_build_filename (nginx->dir, "tmp", NULL);
    if (g_mkdir_with_parents (tmp, 0755) != 0) {
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", tmp,
                     g_strerror (errno));
        return NULL;
    }
    nginx->access_log = g_build_filename (nginx->dir, "access.log", NULL);
    nginx->error_log = g_build_filename (nginx->dir, "error.log", NULL);
    nginx->conf_path = g_build_filename (nginx->dir, "nginx.conf", NULL);

    cert_file = config->cert_file;
    key_file = config->key_file;
    if (config->https && (cert_file == NULL || key_file == NULL)) {
        nginx->certs = throng_test_certs_new (nginx->dir, error);
        if (nginx->certs == NULL)
            return NULL;
        cert_file = nginx->certs->server_cert;
        key_file = nginx->certs->server_key;
    }

    for (int attempt = 0;; attempt++) {
        g_autoptr (GError) local = NULL;
        gboolean retry;

        if (nginx_try_start (nginx, config, cert_file, key_file, &retry, &local))
            break;
        if (!retry || attempt >= 5) {
            g_propagate_error (error, g_steal_pointer (&local));
            return NULL;
        }
    }

    nginx->http_url = g_strdup_printf ("http://127.0.0.1:%u", nginx->http_port);
    if (config->https)
        nginx->https_url = g_strdup_printf ("https://127.0.0.1:%u", nginx->https_port);
    g_test_message ("nginx %" G_GUINT16_FORMAT "/%" G_GUINT16_FORMAT " in %s (pid %s)",
                    nginx->http_port, nginx->https_port, nginx->dir,
                    throng_test_process_pid (nginx->proc));
    return g_steal_pointer (&nginx);
}

ThrongTestNginx *
throng_test_nginx_require (const ThrongTestNginxConfig *config)
{
    g_autoptr (GError) error = NULL;
    ThrongTestNginx *nginx;

    if (!throng_test_require_nginx ())
        return NULL;
    nginx = throng_test_nginx_start (config, &error);
    g_assert_no_error (error);
    return nginx;
}

void
throng_test_nginx_stop (ThrongTestNginx *nginx)
{
    if (nginx == NULL)
        return;
    nginx_kill (nginx);
    throng_test_certs_free (nginx->certs);
    g_free (nginx->http_url);
    g_free (nginx->https_url);
    g_free (nginx->access_log);
    g_free (nginx->error_log);
    g_free (nginx->conf_path);
    if (nginx->owns_dir)
        throng_test_tmpdir_free (g_steal_pointer (&nginx->dir));
    g_free (nginx->dir);
    g_free (nginx);
}

void
throng_test_nginx_kill (ThrongTestNginx *nginx, int signum)
{
    g_return_if_fail (nginx != NULL && nginx->proc != NULL);
    throng_test_process_stop (nginx->proc, signum, 5000);
    g_clear_pointer (&nginx->proc, throng_test_process_free);
}

gboolean
throng_test_nginx_restart (ThrongTestNginx *nginx, GError **error)
{
    gboolean port_taken;

    g_return_val_if_fail (nginx != NULL && nginx->proc == NULL, FALSE);
    return nginx_spawn (nginx, &port_taken, error);
}

guint16
throng_test_nginx_http_port (ThrongTestNginx *nginx)
{
    return nginx->http_port;
}

guint16
throng_test_nginx_https_port (ThrongTestNginx *nginx)
{
    return nginx->https_port;
}

const char *
throng_test_nginx_http_url (ThrongTestNginx *nginx)
{
    return nginx->http_url;
}

const char *
throng_test_nginx_https_url (ThrongTestNginx *nginx)
{
    return nginx->https_url;
}

const char *
throng_test_nginx_dir (ThrongTestNginx *nginx)
{
    return nginx->dir;
}

const ThrongTestCerts *
throng_test_nginx_certs (ThrongTestNginx *nginx)
{
    return nginx->certs;
}

const char *
throng_test_nginx_access_log (ThrongTestNginx *nginx)
{
    return nginx->access_log;
}

const char *
throng_test_nginx_error_log (ThrongTestNginx *nginx)
{
    return nginx->error_log;
}

/* Reads the log; only complete (newline-terminated) lines count. */
static void
nginx_log_parse (ThrongTestNginx *nginx, ThrongTestNginxLog *log)
{
    g_autofree char *text = NULL;
    g_autoptr (GHashTable) connections = g_hash_table_new (g_str_hash, g_str_equal);
    char *line, *next;

    memset (log, 0, sizeof *log);
    if (!g_file_get_contents (nginx->access_log, &text, NULL, NULL))
        return;

    for (line = text; (next = strchr (line, '\n')) != NULL; line = next + 1) {
        char *fields[6];
        char *cursor = line;
        guint64 requests;
        int n = 0;

        *next = '\0';
        while (n < 6 && cursor != NULL) {
            fields[n++] = cursor;
            cursor = n < 6 ? strchr (cursor, ' ') : NULL;
            if (cursor != NULL)
                *cursor++ = '\0';
        }
        if (n != 6)
            g_error ("%s: malformed access log line \"%s\"", nginx->access_log, line);

        log->lines++;
        if (g_hash_table_add (connections, fields[0])) {
            if (strcmp (fields[2], "r") == 0)
                log->connections_reused++;
            else if (strcmp (fields[2], ".") == 0)
                log->connections_not_reused++;
        }
        requests = g_ascii_strtoull (fields[1], NULL, 10);
        if (requests > log->max_connection_requests)
            log->max_connection_requests = (guint) requests;
        if (strcmp (fields[2], "r") == 0)
            log->reused++;
        else if (strcmp (fields[2], ".") == 0)
            log->not_reused++;
        if (fields[3][0] == '2')
            log->status_2xx++;
        /* With http2, the last field is "$uri $server_protocol". */
        if (g_str_has_suffix (fields[5], " HTTP/2.0"))
            log->http2++;
    }
    log->connections = g_hash_table_size (connections);
}

void
throng_test_nginx_log_read (ThrongTestNginx *nginx, ThrongTestNginxLog *log)
{
    g_return_if_fail (nginx != NULL && log != NULL);
    nginx_log_parse (nginx, log);
}

gboolean
throng_test_nginx_log_wait (ThrongTestNginx *nginx,
                            guint lines,
                            guint timeout_ms,
                            ThrongTestNginxLog *log)
{
    gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

    g_return_val_if_fail (nginx != NULL && log != NULL, FALSE);
    for (;;) {
        nginx_log_parse (nginx, log);
        if (log->lines >= lines)
            return TRUE;
        if (g_get_monotonic_time () >= deadline)
            return FALSE;
        g_usleep (20 * 1000);
    }
}

void
throng_test_nginx_log_clear (ThrongTestNginx *nginx)
{
    g_return_if_fail (nginx != NULL);
    /* In place: nginx keeps its descriptor, so a file replaced by rename
     * (as g_file_set_contents does) would never see another line. */
    if (truncate (nginx->access_log, 0) != 0)
        g_error ("cannot truncate %s: %s", nginx->access_log, g_strerror (errno));
}

