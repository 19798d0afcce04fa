/* SPDX-License-Identifier: MIT */
/*
 * A throw-away PKI for the TLS tests, made with GnuTLS in a directory of
 * the test's: a CA, server certificates good, expired, self-signed and for
 * the wrong host, and a client certificate.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

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

G_END_DECLS
