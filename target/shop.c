/* SPDX-License-Identifier: MIT */
/*
 * The built-in target's journey routes (shop.h): a small shop that a
 * journey logs in to, browses and buys from, checking what it receives
 * as a real service would.  A token is the user's name and a MAC of it
 * under a key made at start-up, so the target keeps no session table and
 * still refuses another user's token or a made-up one.
 *
 *   POST /login      {"user": "NAME", ...} → {"token": "..."} and a SESSIONID cookie
 *   GET  /items      ?page=N, needs Authorization: Bearer TOKEN → a JSON page of items
 *   GET  /items/ID   needs the token → {"id": ID, "in_stock": true, ...}
 *   POST /cart       needs the token; {"id": ID} → 201 {"added": ID}
 *   POST /checkout   needs the token → {"order": "...", "status": "paid"}
 *
 * A request without a valid token gets 401 and {"error": "..."}.
 */
#include "shop.h"

#include <string.h>

#define SHOP_PAGE_ITEMS 5
#define SHOP_PAGES 100

/* The key tokens are signed with: random, made once per process. */
static gpointer
shop_key_once (gpointer unused)
{
    GString *key = g_string_new (NULL);

    for (guint i = 0; i < 4; i++)
        g_string_append_printf (key, "%08x", g_random_int ());
    return g_string_free (key, FALSE);
}

static const char *
shop_key (void)
{
    static GOnce once = G_ONCE_INIT;
    return g_once (&once, shop_key_once, NULL);
}

/* "NAME.MAC": what /login hands out for @user. */
static char *
shop_token (const char *user)
{
    g_autofree char *mac = g_compute_hmac_for_string (
        G_CHECKSUM_SHA256, (const guchar *)shop_key (), strlen (shop_key ()), user, -1);
    mac[16] = '\0';
    return g_strdup_printf ("%s.%s", user, mac);
}

static void
shop_json (SoupServerMessage *msg, guint status, const char *json)
{
    soup_server_message_set_status (msg, status, NULL);
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, json,
                                      strlen (json));
}

/* A name a token may carry: letters, digits, `_`, `-`, `@`, up to 64. */
static gboolean
shop_name_is_valid (const char *name, gsize length)
{
    if (length == 0 || length > 64)
        return FALSE;
    for (gsize i = 0; i < length; i++)
        if (!g_ascii_isalnum (name[i]) && strchr ("_-@", name[i]) == NULL)
            return FALSE;
    return TRUE;
}

/* The user the request's bearer token names, or NULL (401 sent) when it has none that verifies. */
static char *
shop_authorize (SoupServerMessage *msg)
{
    const char *header = soup_message_headers_get_one (
        soup_server_message_get_request_headers (msg), "Authorization");
    const char *token, *dot;
    g_autofree char *user = NULL;
    g_autofree char *expected = NULL;

    if (header == NULL || !g_str_has_prefix (header, "Bearer ")) {
        shop_json (msg, SOUP_STATUS_UNAUTHORIZED, "{\"error\": \"no bearer token\"}");
        return NULL;
    }
    token = header + strlen ("Bearer ");
    dot = strrchr (token, '.');
    if (dot != NULL)
        user = g_strndup (token, dot - token);
    if (user != NULL && shop_name_is_valid (user, strlen (user)))
        expected = shop_token (user);
    if (expected == NULL || strcmp (expected, token) != 0) {
        shop_json (msg, SOUP_STATUS_UNAUTHORIZED, "{\"error\": \"wrong token\"}");
        return NULL;
    }
    return g_steal_pointer (&user);
}

/* The body's "user" member; a demo's JSON, read without a JSON library. */
static char *
shop_login_user (SoupServerMessage *msg)
{
    g_autoptr (GBytes) body
        = soup_message_body_flatten (soup_server_message_get_request_body (msg));
    g_autoptr (GRegex) regex = g_regex_new ("\"user\"\\s*:\\s*\"([^\"\\\\]*)\"", 0, 0, NULL);
    g_autoptr (GMatchInfo) info = NULL;
    gsize length;
    const char *data = g_bytes_get_data (body, &length);
    char *user;

    if (data == NULL || !g_regex_match_full (regex, data, (gssize)length, 0, 0, &info, NULL))
        return NULL;
    user = g_match_info_fetch (info, 1);
    if (!shop_name_is_valid (user, strlen (user)))
        g_clear_pointer (&user, g_free);
    return user;
}

static void
shop_login (SoupServerMessage *msg)
{
    g_autofree char *user = shop_login_user (msg);
    g_autofree char *token = NULL;
    g_autofree char *json = NULL;
    g_autofree char *cookie = NULL;

    if (user == NULL) {
        shop_json (msg, SOUP_STATUS_BAD_REQUEST,
                   "{\"error\": \"the body needs {\\\"user\\\": \\\"NAME\\\"}\"}");
        return;
    }
    token = shop_token (user);
    json = g_strdup_printf ("{\"token\": \"%s\", \"user\": \"%s\"}", token, user);
    cookie = g_strdup_printf ("SESSIONID=%s; Path=/; HttpOnly", token);
    soup_message_headers_append (soup_server_message_get_response_headers (msg), "Set-Cookie",
                                 cookie);
    shop_json (msg, SOUP_STATUS_OK, json);
}

static guint
shop_page (GHashTable *query)
{
    const char *text = query != NULL ? g_hash_table_lookup (query, "page") : NULL;
    guint64 page = 1;

    if (text != NULL && !g_ascii_string_to_unsigned (text, 10, 1, SHOP_PAGES, &page, NULL))
        page = 1;
    return (guint)page;
}

static void
shop_items (SoupServerMessage *msg, GHashTable *query)
{
    guint page = shop_page (query);
    g_autoptr (GString) json = g_string_new (NULL);

    g_string_append_printf (json, "{\"page\": %u, \"pages\": %u, \"items\": [", page, SHOP_PAGES);
    for (guint i = 0; i < SHOP_PAGE_ITEMS; i++) {
        guint id = (page - 1) * SHOP_PAGE_ITEMS + i + 1;
        g_string_append_printf (json,
                                "%s{\"id\": %u, \"name\": \"item %u\", \"href\": \"/items/%u\"}",
                                i > 0 ? ", " : "", id, id, id);
    }
    g_string_append (json, "]}");
    shop_json (msg, SOUP_STATUS_OK, json->str);
}

static void
shop_item (SoupServerMessage *msg, const char *tail)
{
    g_autofree char *json = NULL;
    guint64 id;

    if (!g_ascii_string_to_unsigned (tail, 10, 1, SHOP_PAGES * SHOP_PAGE_ITEMS, &id, NULL)) {
        shop_json (msg, SOUP_STATUS_NOT_FOUND, "{\"error\": \"no such item\"}");
        return;
    }
    json = g_strdup_printf ("{\"id\": %u, \"name\": \"item %u\", \"price\": %u.%02u, "
                            "\"in_stock\": true}",
                            (guint)id, (guint)id, (guint)(id % 50) + 1, (guint)(id * 7 % 100));
    shop_json (msg, SOUP_STATUS_OK, json);
}

static void
shop_cart (SoupServerMessage *msg)
{
    g_autoptr (GBytes) body
        = soup_message_body_flatten (soup_server_message_get_request_body (msg));
    g_autoptr (GRegex) regex = g_regex_new ("\"id\"\\s*:\\s*\"?([0-9]+)", 0, 0, NULL);
    g_autoptr (GMatchInfo) info = NULL;
    g_autofree char *id = NULL;
    g_autofree char *json = NULL;
    gsize length;
    const char *data = g_bytes_get_data (body, &length);

    if (data == NULL || !g_regex_match_full (regex, data, (gssize)length, 0, 0, &info, NULL)) {
        shop_json (msg, SOUP_STATUS_BAD_REQUEST, "{\"error\": \"the body needs {\\\"id\\\": N}\"}");
        return;
    }
    id = g_match_info_fetch (info, 1);
    json = g_strdup_printf ("{\"added\": %s}", id);
    shop_json (msg, SOUP_STATUS_CREATED, json);
}

static void
shop_checkout (SoupServerMessage *msg, const char *user)
{
    static gint orders;
    g_autofree char *json = g_strdup_printf ("{\"order\": \"o-%d\", \"user\": \"%s\", "
                                             "\"status\": \"paid\"}",
                                             g_atomic_int_add (&orders, 1) + 1, user);
    shop_json (msg, SOUP_STATUS_OK, json);
}

gboolean
throng_target_shop_route (SoupServerMessage *msg, const char *path, GHashTable *query)
{
    const char *method = soup_server_message_get_method (msg);
    gboolean post = strcmp (method, "POST") == 0;
    g_autofree char *user = NULL;

    if (strcmp (path, "/login") == 0) {
        if (post)
            shop_login (msg);
        else
            shop_json (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "{\"error\": \"POST /login\"}");
        return TRUE;
    }
    if (strcmp (path, "/items") != 0 && !g_str_has_prefix (path, "/items/")
        && strcmp (path, "/cart") != 0 && strcmp (path, "/checkout") != 0)
        return FALSE;
    user = shop_authorize (msg);
    if (user == NULL)
        return TRUE;
    if (strcmp (path, "/items") == 0)
        shop_items (msg, query);
    else if (g_str_has_prefix (path, "/items/"))
        shop_item (msg, path + strlen ("/items/"));
    else if (strcmp (path, "/cart") == 0 && post)
        shop_cart (msg);
    else if (strcmp (path, "/checkout") == 0 && post)
        shop_checkout (msg, user);
    else
        shop_json (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "{\"error\": \"use POST\"}");
    return TRUE;
}
