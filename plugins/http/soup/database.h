/* SPDX-License-Identifier: MIT */
/*
 * A GTlsDatabase that verifies through another one built once (or accepts
 * every chain), so that glib-networking does not rebuild a trust list for
 * each new connection.  Used by the soup transport only.
 */
#pragma once

#include <gio/gio.h>
#include <gmodule.h>

#define HTTP_TYPE_SOUP_DATABASE (http_soup_database_get_type ())
G_DECLARE_FINAL_TYPE (HttpSoupDatabase, http_soup_database, HTTP, SOUP_DATABASE, GTlsDatabase)

/* Verifies with @inner; with NULL, accepts every certificate (tls.verify: false). */
GTlsDatabase *http_soup_database_new (GTlsDatabase *inner);
