/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's verified-chain cache (verified.h).  The key is the
 * host name and every certificate of the chain the server sent, byte for
 * byte, so any other certificate is a miss.  A kept verdict holds only
 * while every certificate of that chain is within its validity period and
 * for at most VERDICT_TTL_US (the trust anchors' own validity and the
 * trust store are read again then).  A handshake that carries a stapled
 * OCSP response is always verified in full, so revocation is never cached.
 * The table is shared by a scenario's workers behind a mutex: it is taken
 * once per full handshake, never per request.
 */
#include "verified.h"

#include <gnutls/x509.h>
#include <string.h>

#define VERDICTS_MAX 256
#define VERDICT_TTL_US (300 * G_USEC_PER_SEC)

typedef struct {
    gint64 not_before; /* wall clock, seconds: the latest activation in the chain */
    gint64 not_after;  /* the earliest expiration in the chain */
    gint64 kept_at;    /* monotonic, µs */
} Verdict;

struct _FastVerified {
    GMutex lock;
    GHashTable *verdicts; /* GBytes (name, then each certificate with its length) → Verdict */
};

FastVerified *
fast_verified_new (void)
{
    FastVerified *verified = g_new0 (FastVerified, 1);

    g_mutex_init (&verified->lock);
    verified->verdicts = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                (GDestroyNotify)g_bytes_unref, g_free);
    return verified;
}

void
fast_verified_free (FastVerified *verified)
{
    if (verified == NULL)
        return;
    g_hash_table_unref (verified->verdicts);
    g_mutex_clear (&verified->lock);
    g_free (verified);
}

static GBytes *
chain_key (const char *name, const gnutls_datum_t *chain, unsigned n)
{
    GByteArray *key = g_byte_array_new ();

    if (name != NULL)
        g_byte_array_append (key, (const guint8 *)name, strlen (name));
    g_byte_array_append (key, (const guint8 *)"", 1);
    for (unsigned i = 0; i < n; i++) {
        guint32 size = chain[i].size;
        g_byte_array_append (key, (const guint8 *)&size, sizeof size);
        g_byte_array_append (key, chain[i].data, chain[i].size);
    }
    return g_byte_array_free_to_bytes (key);
}

/* The validity window common to every certificate of CHAIN; FALSE if one does not parse. */
static gboolean
chain_validity (const gnutls_datum_t *chain, unsigned n, Verdict *verdict)
{
    verdict->not_before = G_MININT64;
    verdict->not_after = G_MAXINT64;
    for (unsigned i = 0; i < n; i++) {
        gnutls_x509_crt_t crt;
        if (gnutls_x509_crt_init (&crt) < 0)
            return FALSE;
        if (gnutls_x509_crt_import (crt, &chain[i], GNUTLS_X509_FMT_DER) < 0) {
            gnutls_x509_crt_deinit (crt);
            return FALSE;
        }
        verdict->not_before
            = MAX (verdict->not_before, (gint64)gnutls_x509_crt_get_activation_time (crt));
        verdict->not_after
            = MIN (verdict->not_after, (gint64)gnutls_x509_crt_get_expiration_time (crt));
        gnutls_x509_crt_deinit (crt);
    }
    return TRUE;
}

static gboolean
verdict_holds (const Verdict *verdict, gint64 now_s, gint64 now_us)
{
    return now_s >= verdict->not_before && now_s <= verdict->not_after
           && now_us - verdict->kept_at < VERDICT_TTL_US;
}

static gboolean
has_stapled_ocsp (gnutls_session_t session)
{
    gnutls_datum_t response;

    return gnutls_ocsp_status_request_get2 (session, 0, &response) == GNUTLS_E_SUCCESS;
}

int
fast_verified_check (FastVerified *verified, gnutls_session_t session, const char *name,
                     unsigned *status)
{
    unsigned n = 0;
    const gnutls_datum_t *chain = gnutls_certificate_get_peers (session, &n);
    gboolean cacheable = chain != NULL && n > 0 && !has_stapled_ocsp (session);
    g_autoptr (GBytes) key = cacheable ? chain_key (name, chain, n) : NULL;
    gint64 now_s = g_get_real_time () / G_USEC_PER_SEC;
    gint64 now_us = g_get_monotonic_time ();

    *status = 0;
    if (key != NULL) {
        g_mutex_lock (&verified->lock);
        const Verdict *verdict = g_hash_table_lookup (verified->verdicts, key);
        gboolean holds = verdict != NULL && verdict_holds (verdict, now_s, now_us);
        g_mutex_unlock (&verified->lock);
        if (holds)
            return 0;
    }

    /* What gnutls_session_set_verify_cert() does, with the same results. */
    if (gnutls_certificate_verify_peers3 (session, name, status) < 0) {
        *status = GNUTLS_CERT_INVALID;
        return GNUTLS_E_CERTIFICATE_ERROR;
    }
    if (*status != 0)
        return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;

    Verdict fresh = { .kept_at = now_us };
    if (key != NULL && chain_validity (chain, n, &fresh)) {
        g_mutex_lock (&verified->lock);
        if (g_hash_table_size (verified->verdicts) >= VERDICTS_MAX)
            g_hash_table_remove_all (verified->verdicts);
        g_hash_table_replace (verified->verdicts, g_steal_pointer (&key),
                              g_memdup2 (&fresh, sizeof fresh));
        g_mutex_unlock (&verified->lock);
    }
    return 0;
}
