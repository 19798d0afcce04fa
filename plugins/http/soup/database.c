/* SPDX-License-Identifier: MIT */
/*
 * The certificate database the soup transport gives its sessions: a thin
 * GTlsDatabase that forwards verification to a real one (the system store
 * or a tls.ca_file), or accepts every chain (tls.verify: false).
 *
 * Why a wrapper: glib-networking 2.74 builds a GnuTLS trust list for every
 * new connection whose database is one of its own, re-reading the whole CA
 * bundle (or the CA file) each time, about 7 ms of client CPU per
 * reconnect here.  For any other database it verifies the peer through
 * g_tls_database_verify_chain() on a database built once.
 */
#include "database.h"

struct _HttpSoupDatabase {
    GTlsDatabase parent;
    GTlsDatabase *inner; /* NULL: accept every chain */
};

G_DEFINE_FINAL_TYPE (HttpSoupDatabase, http_soup_database, G_TYPE_TLS_DATABASE)

static GTlsCertificateFlags
verify_chain (GTlsDatabase *database, GTlsCertificate *chain, const char *purpose,
              GSocketConnectable *identity, GTlsInteraction *interaction,
              GTlsDatabaseVerifyFlags flags, GCancellable *cancellable, GError **error)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (database);

    if (self->inner == NULL)
        return 0;
    return g_tls_database_verify_chain (self->inner, chain, purpose, identity, interaction, flags,
                                        cancellable, error);
}

static char *
create_certificate_handle (GTlsDatabase *database, GTlsCertificate *certificate)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (database);
    return self->inner ? g_tls_database_create_certificate_handle (self->inner, certificate) : NULL;
}

static GTlsCertificate *
lookup_certificate_for_handle (GTlsDatabase *database, const char *handle,
                               GTlsInteraction *interaction, GTlsDatabaseLookupFlags flags,
                               GCancellable *cancellable, GError **error)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (database);
    if (self->inner == NULL)
        return NULL;
    return g_tls_database_lookup_certificate_for_handle (self->inner, handle, interaction, flags,
                                                         cancellable, error);
}

static GTlsCertificate *
lookup_certificate_issuer (GTlsDatabase *database, GTlsCertificate *certificate,
                           GTlsInteraction *interaction, GTlsDatabaseLookupFlags flags,
                           GCancellable *cancellable, GError **error)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (database);
    if (self->inner == NULL)
        return NULL;
    return g_tls_database_lookup_certificate_issuer (self->inner, certificate, interaction, flags,
                                                     cancellable, error);
}

static GList *
lookup_certificates_issued_by (GTlsDatabase *database, GByteArray *issuer,
                               GTlsInteraction *interaction, GTlsDatabaseLookupFlags flags,
                               GCancellable *cancellable, GError **error)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (database);
    if (self->inner == NULL)
        return NULL;
    return g_tls_database_lookup_certificates_issued_by (self->inner, issuer, interaction, flags,
                                                         cancellable, error);
}

static void
http_soup_database_finalize (GObject *object)
{
    HttpSoupDatabase *self = HTTP_SOUP_DATABASE (object);
    g_clear_object (&self->inner);
    G_OBJECT_CLASS (http_soup_database_parent_class)->finalize (object);
}

static void
http_soup_database_class_init (HttpSoupDatabaseClass *klass)
{
    GTlsDatabaseClass *database_class = G_TLS_DATABASE_CLASS (klass);

    G_OBJECT_CLASS (klass)->finalize = http_soup_database_finalize;
    /* The async variants are GTlsDatabase's own: the sync ones on a thread. */
    database_class->verify_chain = verify_chain;
    database_class->create_certificate_handle = create_certificate_handle;
    database_class->lookup_certificate_for_handle = lookup_certificate_for_handle;
    database_class->lookup_certificate_issuer = lookup_certificate_issuer;
    database_class->lookup_certificates_issued_by = lookup_certificates_issued_by;
}

static void
http_soup_database_init (HttpSoupDatabase *self)
{
}

GTlsDatabase *
http_soup_database_new (GTlsDatabase *inner)
{
    HttpSoupDatabase *self = g_object_new (HTTP_TYPE_SOUP_DATABASE, NULL);
    self->inner = inner != NULL ? g_object_ref (inner) : NULL;
    return G_TLS_DATABASE (self);
}

/*
 * The plugin registers a GType, which cannot be unregistered: GModule
 * calls this on load, and the module stays mapped for the process's life.
 */
G_MODULE_EXPORT const char *g_module_check_init (GModule *module);

G_MODULE_EXPORT const char *
g_module_check_init (GModule *module)
{
    g_module_make_resident (module);
    return NULL;
}
