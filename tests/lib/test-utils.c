/* SPDX-License-Identifier: MIT */
/*
 * The shared test fixtures (see test-utils.h): missing tools, temporary
 * directories, free ports, a GnuTLS throw-away PKI, an nginx fixture from
 * a generated config, JSON summary and CSV reading.  Everything here runs
 * on the test's main thread.
 */
#include "test-utils.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* Environment                                                         */

gboolean
throng_test_in_ci (void)
{
    const char *ci = g_getenv ("CI");

    return ci != NULL && (g_ascii_strcasecmp (ci, "true") == 0 || g_strcmp0 (ci, "1") == 0);
}

void
throng_test_skip_or_fail (const char *reason)
{
    if (throng_test_in_ci ()) {
        g_test_message ("CI=true, so this is a failure: %s", reason);
        g_test_fail_printf ("%s", reason);
    } else {
        g_test_skip (reason);
    }
}

char *
throng_test_require_program (const char *name)
{
    char *path = g_find_program_in_path (name);
    g_autofree char *reason = NULL;

    if (path != NULL)
        return path;
    reason = g_strdup_printf ("%s is not installed", name);
    throng_test_skip_or_fail (reason);
    return NULL;
}

gboolean
throng_test_require_file (const char *path)
{
    g_autofree char *reason = NULL;

    if (g_file_test (path, G_FILE_TEST_EXISTS))
        return TRUE;
    reason = g_strdup_printf ("no %s on this machine", path);
    throng_test_skip_or_fail (reason);
    return FALSE;
}

char *
throng_test_source_path (const char *relative)
{
    const char *root = g_getenv ("THRONG_SOURCE_DIR");

    g_assert_nonnull (root);
    return g_build_filename (root, relative, NULL);
}

const ThrongTestPluginInfo throng_test_builtin_plugins[] = {
    { "http", "protocol" },
    { "console", "reporter" },
    { "csv", "reporter" },
    { "json", "reporter" },
    { NULL, NULL },
};

char *
throng_test_plugin_dir (const char *sub)
{
    const char *dir = g_getenv ("THRONG_TEST_PLUGIN_DIR");

    g_assert_nonnull (dir);
    return g_build_filename (dir, sub, NULL);
}

void
throng_test_assert_no_glib_noise (const char *text)
{
    static const char *const noise[] = {
        "CRITICAL **", "WARNING **", "ERROR **", "AddressSanitizer", "LeakSanitizer",
        "runtime error:", "UndefinedBehaviorSanitizer", NULL,
    };

    g_assert_nonnull (text);
    for (gsize i = 0; noise[i] != NULL; i++) {
        if (strstr (text, noise[i]) != NULL)
            g_error ("unexpected \"%s\" in output:\n%s", noise[i], text);
    }
}

/* ------------------------------------------------------------------ */
/* Temporary directories and files                                     */

char *
throng_test_tmpdir_new (void)
{
    g_autoptr (GError) error = NULL;
    char *dir = g_dir_make_tmp ("throng-test-XXXXXX", &error);

    g_assert_no_error (error);
    return dir;
}

static void
remove_tree (const char *path)
{
    if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)) {
        g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
        const char *name;

        while (dir != NULL && (name = g_dir_read_name (dir)) != NULL) {
            g_autofree char *child = g_build_filename (path, name, NULL);
            remove_tree (child);
        }
        g_rmdir (path);
    } else {
        g_unlink (path);
    }
}

void
throng_test_tmpdir_free (char *dir)
{
    if (dir == NULL)
        return;
    if (g_getenv ("THRONG_TEST_KEEP") != NULL)
        g_test_message ("keeping %s", dir);
    else
        remove_tree (dir);
    g_free (dir);
}

void
throng_test_tmpdir_setup (ThrongTestTmpdir *fixture, gconstpointer data)
{
    fixture->dir = throng_test_tmpdir_new ();
}

void
throng_test_tmpdir_teardown (ThrongTestTmpdir *fixture, gconstpointer data)
{
    g_clear_pointer (&fixture->dir, throng_test_tmpdir_free);
}

char *
throng_test_write_file (const char *dir, const char *name, const char *contents)
{
    g_autoptr (GError) error = NULL;
    char *path = g_build_filename (dir, name, NULL);

    g_file_set_contents (path, contents, -1, &error);
    g_assert_no_error (error);
    return path;
}

char *
throng_test_write_plan (const char *dir, const char *name, const char *yaml)
{
    return throng_test_write_file (dir, name, yaml);
}

/* ------------------------------------------------------------------ */
/* Network                                                             */

guint16
throng_test_free_port (void)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (GSocket) socket = NULL;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
    g_autoptr (GSocketAddress) bound = NULL;

    socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                           &error);
    g_assert_no_error (error);
    g_socket_bind (socket, any, FALSE, &error);
    g_assert_no_error (error);
    bound = g_socket_get_local_address (socket, &error);
    g_assert_no_error (error);
    g_socket_close (socket, NULL);
    return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

gboolean
throng_test_wait_port (guint16 port, guint timeout_ms)
{
    gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
    g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (loopback, port);

    do {
        g_autoptr (GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                                   G_SOCKET_PROTOCOL_TCP, NULL);

        if (socket != NULL && g_socket_connect (socket, address, NULL, NULL)) {
            g_socket_close (socket, NULL);
            return TRUE;
        }
        g_usleep (10 * 1000);
    } while (g_get_monotonic_time () < deadline);
    return FALSE;
}

/* ------------------------------------------------------------------ */
/* Certificates                                                        */

#define CERT_ERROR (g_quark_from_static_string ("throng-test-cert-error"))

typedef enum {
    CERT_CA,
    CERT_SERVER,
    CERT_CLIENT,
} CertRole;

typedef struct {
    gnutls_x509_crt_t crt;
    gnutls_x509_privkey_t key;
} Cert;

static void
cert_clear (Cert *cert)
{
    if (cert->crt != NULL)
        gnutls_x509_crt_deinit (cert->crt);
    if (cert->key != NULL)
        gnutls_x509_privkey_deinit (cert->key);
    cert->crt = NULL;
    cert->key = NULL;
}

static gboolean
gnutls_check (int rc, const char *what, GError **error)
{
    if (rc >= 0)
        return TRUE;
    g_set_error (error, CERT_ERROR, rc, "%s: %s", what, gnutls_strerror (rc));
    return FALSE;
}

/*
 * One certificate: a fresh P-256 key, a random serial, the validity given,
 * subject CN=@cn with the names given, signed by @issuer (or by itself).
 */
static gboolean
cert_make (Cert *cert,
           const char *cn,
           CertRole role,
           gboolean with_ip,
           const char *dns,
           time_t not_before,
           time_t not_after,
           const Cert *issuer,
           GError **error)
{
    static const guint8 ip[4] = { 127, 0, 0, 1 };
    guint8 serial[16];
    guint8 key_id[64];
    size_t key_id_size = sizeof key_id;

    if (!gnutls_check (gnutls_x509_privkey_init (&cert->key), "privkey_init", error) ||
        !gnutls_check (gnutls_x509_privkey_generate (cert->key, GNUTLS_PK_ECDSA,
                                                     GNUTLS_CURVE_TO_BITS (GNUTLS_ECC_CURVE_SECP256R1),
                                                     0),
                       "privkey_generate", error) ||
        !gnutls_check (gnutls_x509_crt_init (&cert->crt), "crt_init", error))
        return FALSE;

    for (gsize i = 0; i < sizeof serial; i++)
        serial[i] = (guint8) g_random_int_range (0, 256);
    serial[0] &= 0x7f;
    serial[0] |= 0x01;

    if (!gnutls_check (gnutls_x509_crt_set_version (cert->crt, 3), "set_version", error) ||
        !gnutls_check (gnutls_x509_crt_set_serial (cert->crt, serial, sizeof serial), "set_serial",
                       error) ||
        !gnutls_check (gnutls_x509_crt_set_activation_time (cert->crt, not_before),
                       "set_activation_time", error) ||
        !gnutls_check (gnutls_x509_crt_set_expiration_time (cert->crt, not_after),
                       "set_expiration_time", error) ||
        !gnutls_check (gnutls_x509_crt_set_dn_by_oid (cert->crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                                      strlen (cn)),
                       "set_dn", error) ||
        !gnutls_check (gnutls_x509_crt_set_key (cert->crt, cert->key), "set_key", error))
        return FALSE;

    if (with_ip &&
        !gnutls_check (gnutls_x509_crt_set_subject_alt_name (cert->crt, GNUTLS_SAN_IPADDRESS, ip,
                                                             sizeof ip, GNUTLS_FSAN_APPEND),
                       "set_san_ip", error))
        return FALSE;
    if (dns != NULL &&
        !gnutls_check (gnutls_x509_crt_set_subject_alt_name (cert->crt, GNUTLS_SAN_DNSNAME, dns,
                                                             strlen (dns), GNUTLS_FSAN_APPEND),
                       "set_san_dns", error))
        return FALSE;

    switch (role) {
    case CERT_CA:
        if (!gnutls_check (gnutls_x509_crt_set_basic_constraints (cert->crt, 1, -1), "set_bc",
                           error) ||
            !gnutls_check (gnutls_x509_crt_set_key_usage (cert->crt, GNUTLS_KEY_KEY_CERT_SIGN |
                                                                         GNUTLS_KEY_CRL_SIGN |
                                                                         GNUTLS_KEY_DIGITAL_SIGNATURE),
                           "set_key_usage", error))
            return FALSE;
        break;
    case CERT_SERVER:
    case CERT_CLIENT:
        if (!gnutls_check (gnutls_x509_crt_set_basic_constraints (cert->crt, 0, -1), "set_bc",
                           error) ||
            !gnutls_check (gnutls_x509_crt_set_key_usage (cert->crt, GNUTLS_KEY_DIGITAL_SIGNATURE),
                           "set_key_usage", error) ||
            !gnutls_check (gnutls_x509_crt_set_key_purpose_oid (cert->crt,
                                                                role == CERT_SERVER
                                                                    ? GNUTLS_KP_TLS_WWW_SERVER
                                                                    : GNUTLS_KP_TLS_WWW_CLIENT,
                                                                0),
                           "set_key_purpose", error))
            return FALSE;
        break;
    }

    if (!gnutls_check (gnutls_x509_crt_get_key_id (cert->crt, 0, key_id, &key_id_size), "get_key_id",
                       error) ||
        !gnutls_check (gnutls_x509_crt_set_subject_key_id (cert->crt, key_id, key_id_size),
                       "set_subject_key_id", error))
        return FALSE;

    if (issuer != NULL) {
        key_id_size = sizeof key_id;
        if (!gnutls_check (gnutls_x509_crt_get_subject_key_id (issuer->crt, key_id, &key_id_size,
                                                               NULL),
                           "get_issuer_key_id", error) ||
            !gnutls_check (gnutls_x509_crt_set_authority_key_id (cert->crt, key_id, key_id_size),
                           "set_authority_key_id", error))
            return FALSE;
    }

    return gnutls_check (gnutls_x509_crt_sign2 (cert->crt, issuer ? issuer->crt : cert->crt,
                                                issuer ? issuer->key : cert->key,
                                                GNUTLS_DIG_SHA256, 0),
                         "sign", error);
}

static gboolean
cert_write (const Cert *cert, const char *dir, const char *stem, char **cert_path, char **key_path,
            GError **error)
{
    gnutls_datum_t crt_pem = { NULL, 0 };
    gnutls_datum_t key_pem = { NULL, 0 };
    g_autofree char *crt_name = g_strconcat (stem, ".pem", NULL);
    g_autofree char *key_name = g_strconcat (stem, "-key.pem", NULL);
    g_autofree char *crt_file = g_build_filename (dir, crt_name, NULL);
    g_autofree char *key_file = g_build_filename (dir, key_name, NULL);
    gboolean ok;

    ok = gnutls_check (gnutls_x509_crt_export2 (cert->crt, GNUTLS_X509_FMT_PEM, &crt_pem),
                       "crt_export", error) &&
         gnutls_check (gnutls_x509_privkey_export2_pkcs8 (cert->key, GNUTLS_X509_FMT_PEM, NULL,
                                                          GNUTLS_PKCS_PLAIN, &key_pem),
                       "privkey_export", error) &&
         g_file_set_contents (crt_file, (const char *) crt_pem.data, crt_pem.size, error) &&
         g_file_set_contents (key_file, (const char *) key_pem.data, key_pem.size, error);
    gnutls_free (crt_pem.data);
    gnutls_free (key_pem.data);
    if (ok) {
        *cert_path = g_steal_pointer (&crt_file);
        *key_path = g_steal_pointer (&key_file);
    }
    return ok;
}

ThrongTestCerts *
throng_test_certs_new (const char *dir, GError **error)
{
    g_autoptr (ThrongTestCerts) certs = g_new0 (ThrongTestCerts, 1);
    time_t now = time (NULL);
    time_t from = now - 3600;
    time_t until = now + 30 * 86400;
    Cert ca = { 0 }, server = { 0 }, wrong = { 0 }, expired = { 0 }, self = { 0 }, client = { 0 };
    gboolean ok;

    g_return_val_if_fail (dir != NULL, NULL);
    gnutls_global_init ();
    certs->dir = g_strdup (dir);

    ok = cert_make (&ca, "throng test CA", CERT_CA, FALSE, NULL, from, until, NULL, error) &&
         cert_write (&ca, dir, "ca", &certs->ca_cert, &certs->ca_key, error) &&
         cert_make (&server, "127.0.0.1", CERT_SERVER, TRUE, "localhost", from, until, &ca, error) &&
         cert_write (&server, dir, "server", &certs->server_cert, &certs->server_key, error) &&
         cert_make (&wrong, "wrong.invalid", CERT_SERVER, FALSE, "wrong.invalid", from, until, &ca,
                    error) &&
         cert_write (&wrong, dir, "wrong-host", &certs->wrong_host_cert, &certs->wrong_host_key,
                     error) &&
         cert_make (&expired, "127.0.0.1", CERT_SERVER, TRUE, "localhost", now - 31 * 86400,
                    now - 86400, &ca, error) &&
         cert_write (&expired, dir, "expired", &certs->expired_cert, &certs->expired_key, error) &&
         cert_make (&self, "127.0.0.1", CERT_SERVER, TRUE, "localhost", from, until, NULL, error) &&
         cert_write (&self, dir, "self-signed", &certs->self_signed_cert, &certs->self_signed_key,
                     error) &&
         cert_make (&client, "throng-client", CERT_CLIENT, FALSE, NULL, from, until, &ca, error) &&
         cert_write (&client, dir, "client", &certs->client_cert, &certs->client_key, error);

    cert_clear (&ca);
    cert_clear (&server);
    cert_clear (&wrong);
    cert_clear (&expired);
    cert_clear (&self);
    cert_clear (&client);
    gnutls_global_deinit ();
    return ok ? g_steal_pointer (&certs) : NULL;
}

void
throng_test_certs_free (ThrongTestCerts *certs)
{
    if (certs == NULL)
        return;
    g_free (certs->dir);
    g_free (certs->ca_cert);
    g_free (certs->ca_key);
    g_free (certs->server_cert);
    g_free (certs->server_key);
    g_free (certs->wrong_host_cert);
    g_free (certs->wrong_host_key);
    g_free (certs->expired_cert);
    g_free (certs->expired_key);
    g_free (certs->self_signed_cert);
    g_free (certs->self_signed_key);
    g_free (certs->client_cert);
    g_free (certs->client_key);
    g_free (certs);
}

/* ------------------------------------------------------------------ */
/* nginx                                                               */

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
                            "$ssl_session_reused $status $request_method $uri';\n"
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
                            "    listen 127.0.0.1:%u%s;\n"
                            "    location / { return 200 \"ok\\n\"; }\n"
                            "    %s\n"
                            "  }\n",
                            config->master_process ? "on" : "off",
                            config->worker_rlimit_nofile ? config->worker_rlimit_nofile : 8192,
                            dir, nginx->error_log,
                            config->worker_connections ? config->worker_connections : 4096,
                            access_log, dir, dir, dir, dir, dir,
                            config->keepalive_requests ? config->keepalive_requests : 100000,
                            config->keepalive_timeout ? config->keepalive_timeout : "60s",
                            config->http_extra ? config->http_extra : "", nginx->http_port,
                            backlog, locations);
    if (config->https) {
        g_string_append_printf (conf,
                                "  server {\n"
                                "    listen 127.0.0.1:%u ssl;\n"
                                "    ssl_certificate %s;\n"
                                "    ssl_certificate_key %s;\n"
                                "    ssl_protocols %s;\n"
                                "    %s\n"
                                "    ssl_session_tickets %s;\n",
                                nginx->https_port, cert_file, key_file,
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

static gboolean
nginx_try_start (ThrongTestNginx *nginx,
                 const ThrongTestNginxConfig *config,
                 const char *cert_file,
                 const char *key_file,
                 gboolean *retry,
                 GError **error)
{
    g_autofree char *conf_text = NULL;
    g_autofree char *conf_path = g_build_filename (nginx->dir, "nginx.conf", NULL);
    g_autofree char *stderr_path = g_build_filename (nginx->dir, "nginx.stderr", NULL);
    const char *argv[] = { nginx_path (), "-p", nginx->dir, "-e", nginx->error_log, "-c",
                           conf_path, NULL };
    /* SIGTERM, so that an nginx outliving its test still removes its pid file. */
    ThrongTestSpawnOptions options = { .output_path = stderr_path, .death_signal = SIGTERM };
    gint64 deadline;
    gboolean up = FALSE;

    *retry = FALSE;
    nginx->http_port = throng_test_free_port ();
    do
        nginx->https_port = config->https ? throng_test_free_port () : 0;
    while (config->https && nginx->https_port == nginx->http_port);

    conf_text = nginx_config_text (config, nginx, cert_file, key_file);
    if (!g_file_set_contents (conf_path, conf_text, -1, error))
        return FALSE;
    g_unlink (nginx->error_log);

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
            *retry = TRUE;
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                     "nginx did not start (config %s):\n%s\n%s", conf_path,
                     err_text ? err_text : "", log_text ? log_text : "");
        return FALSE;
    }
    return TRUE;
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
    if (nginx->owns_dir)
        throng_test_tmpdir_free (g_steal_pointer (&nginx->dir));
    g_free (nginx->dir);
    g_free (nginx);
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
        g_hash_table_add (connections, fields[0]);
        requests = g_ascii_strtoull (fields[1], NULL, 10);
        if (requests > log->max_connection_requests)
            log->max_connection_requests = (guint) requests;
        if (strcmp (fields[2], "r") == 0)
            log->reused++;
        else if (strcmp (fields[2], ".") == 0)
            log->not_reused++;
        if (fields[3][0] == '2')
            log->status_2xx++;
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

/* ------------------------------------------------------------------ */
/* JSON summary                                                        */

JsonNode *
throng_test_json_load (const char *path, GError **error)
{
    g_autoptr (JsonParser) parser = json_parser_new ();
    JsonNode *root;

    if (!json_parser_load_from_file (parser, path, error))
        return NULL;
    root = json_parser_get_root (parser);
    if (root == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: empty document", path);
        return NULL;
    }
    return json_node_copy (root);
}

JsonNode *
throng_test_json_get (JsonNode *root, const char *path)
{
    g_auto (GStrv) parts = NULL;
    JsonNode *node = root;

    g_return_val_if_fail (root != NULL && path != NULL, NULL);
    if (*path == '\0')
        return root;
    parts = g_strsplit (path, ".", -1);
    for (gsize i = 0; parts[i] != NULL && node != NULL; i++) {
        if (JSON_NODE_HOLDS_OBJECT (node)) {
            JsonObject *object = json_node_get_object (node);

            node = json_object_get_member (object, parts[i]);
        } else if (JSON_NODE_HOLDS_ARRAY (node)) {
            JsonArray *array = json_node_get_array (node);
            char *end = NULL;
            guint64 index = g_ascii_strtoull (parts[i], &end, 10);

            if (end == parts[i] || *end != '\0' || index >= json_array_get_length (array))
                return NULL;
            node = json_array_get_element (array, (guint) index);
        } else {
            return NULL;
        }
    }
    return node;
}

gboolean
throng_test_json_has (JsonNode *root, const char *path)
{
    return throng_test_json_get (root, path) != NULL;
}

static JsonNode *
json_value (JsonNode *root, const char *path, GType type)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != type)
        g_error ("JSON \"%s\" is not a %s", path, g_type_name (type));
    return node;
}

gint64
throng_test_json_int (JsonNode *root, const char *path)
{
    return json_node_get_int (json_value (root, path, G_TYPE_INT64));
}

gint64
throng_test_json_int_or (JsonNode *root, const char *path, gint64 fallback)
{
    if (!throng_test_json_has (root, path))
        return fallback;
    return throng_test_json_int (root, path);
}

double
throng_test_json_double (JsonNode *root, const char *path)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (!JSON_NODE_HOLDS_VALUE (node) || (json_node_get_value_type (node) != G_TYPE_DOUBLE &&
                                          json_node_get_value_type (node) != G_TYPE_INT64))
        g_error ("JSON \"%s\" is not a number", path);
    return json_node_get_double (node);
}

const char *
throng_test_json_string (JsonNode *root, const char *path)
{
    return json_node_get_string (json_value (root, path, G_TYPE_STRING));
}

gboolean
throng_test_json_bool (JsonNode *root, const char *path)
{
    return json_node_get_boolean (json_value (root, path, G_TYPE_BOOLEAN));
}

guint
throng_test_json_length (JsonNode *root, const char *path)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (JSON_NODE_HOLDS_ARRAY (node))
        return json_array_get_length (json_node_get_array (node));
    if (JSON_NODE_HOLDS_OBJECT (node))
        return json_object_get_size (json_node_get_object (node));
    g_error ("JSON \"%s\" is neither an array nor an object", path);
    return 0;
}

gint64
throng_test_summary_class (JsonNode *root, const char *stats, const char *klass)
{
    g_autofree char *path = g_strdup_printf ("%s.errors_by_class.%s", stats, klass);

    return throng_test_json_int_or (root, path, 0);
}

gint64
throng_test_summary_class_sum (JsonNode *root, const char *stats)
{
    g_autofree char *path = g_strconcat (stats, ".errors_by_class", NULL);
    JsonNode *node = throng_test_json_get (root, path);
    g_autoptr (GList) members = NULL;
    gint64 sum = 0;

    if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        g_error ("JSON summary has no object \"%s\"", path);
    members = json_object_get_members (json_node_get_object (node));
    for (GList *l = members; l != NULL; l = l->next)
        sum += json_object_get_int_member (json_node_get_object (node), l->data);
    return sum;
}

void
throng_test_summary_assert_totals (JsonNode *root, const char *stats)
{
    g_autofree char *requests = g_strconcat (stats, ".requests", NULL);
    g_autofree char *errors = g_strconcat (stats, ".errors", NULL);

    g_assert_cmpint (throng_test_summary_class_sum (root, stats), ==,
                     throng_test_json_int (root, errors));
    g_assert_cmpint (throng_test_json_int (root, errors), <=,
                     throng_test_json_int (root, requests));
}

gboolean
throng_test_summary_has_warning (JsonNode *root, const char *fragment)
{
    guint n = throng_test_json_length (root, "warnings");

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("warnings.%u", i);

        if (strstr (throng_test_json_string (root, path), fragment) != NULL)
            return TRUE;
    }
    return FALSE;
}

/* ------------------------------------------------------------------ */
/* CSV samples                                                         */

guint
throng_test_csv_rows (const char *path)
{
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;

    g_file_get_contents (path, &text, NULL, &error);
    g_assert_no_error (error);
    if (text[0] == '\0')
        return 0;
    if (!g_str_has_suffix (text, "\n"))
        g_error ("%s ends in a torn line", path);
    return throng_test_count_lines (text) - 1;
}

guint
throng_test_count_lines (const char *text)
{
    guint n = 0;

    for (const char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    return n;
}
