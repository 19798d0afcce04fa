/* SPDX-License-Identifier: MIT */
/*
 * The throw-away PKI (see certs.h): keys and certificates made with
 * GnuTLS's x509 API and written as PEM.
 */
#include "certs.h"

#include <gio/gio.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <string.h>
#include <time.h>

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

