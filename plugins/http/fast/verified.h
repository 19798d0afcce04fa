/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's verified-chain cache (verified.c): a run verifies
 * a server's certificate chain for a host name once, and later handshakes
 * that present the same chain bytes for the same name reuse the verdict,
 * as browsers' certificate verifiers do.  Only successes are kept; a
 * chain that failed, or any chain not seen before, is verified in full.
 */
#pragma once

#include <glib.h>
#include <gnutls/gnutls.h>

typedef struct _FastVerified FastVerified;

FastVerified *fast_verified_new (void);
void fast_verified_free (FastVerified *verified);

/*
 * Verifies the peer of SESSION for NAME (NULL: no host name check), or
 * finds the chain and name among the verdicts kept.  Returns 0 when the
 * chain is trusted; otherwise the GnuTLS error the handshake ends with,
 * and *status holds the verification status (GNUTLS_CERT_*).
 */
int fast_verified_check (FastVerified *verified, gnutls_session_t session, const char *name,
                         unsigned *status);
