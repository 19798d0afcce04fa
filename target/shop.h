/* SPDX-License-Identifier: MIT */
/*
 * The built-in target's journey routes (/login, /items, /items/ID, /cart,
 * /checkout): a shop that wants a per-user bearer token, so a journey's
 * login, extraction and templated headers are checked by the server.
 * Called on the target's thread.
 */
#pragma once

#include <libsoup/soup.h>

/* Answers @msg when @path is one of the shop's routes; FALSE otherwise. */
gboolean throng_target_shop_route (SoupServerMessage *msg, const char *path, GHashTable *query);
