/* SPDX-License-Identifier: MIT */
/*
 * Credentials (auth.h): the `auth` map read at load, and the
 * Authorization header or Digest credentials made from it per request.
 */
#include "auth.h"

#include "expand.h"

#include <string.h>

char *
http_auth_basic_value (const char *user, const char *password)
{
    g_autofree char *pair = g_strconcat (user, ":", password, NULL);
    g_autofree char *encoded = g_base64_encode ((const guchar *)pair, strlen (pair));

    return g_strconcat ("Basic ", encoded, NULL);
}

static void
part_clear (HttpAuthPart *part)
{
    g_clear_pointer (&part->text, g_free);
    g_clear_pointer (&part->tpl, throng_template_free);
}

void
http_auth_free (HttpAuth *auth)
{
    if (auth == NULL)
        return;
    part_clear (&auth->user);
    part_clear (&auth->password);
    part_clear (&auth->token);
    g_free (auth);
}

/* A scalar credential: its template when it substitutes something, else its text. */
static gboolean
part_compile (ThrongScope *scope, const ThrongNode *node, const char *what, HttpAuthPart *part,
              GError **error)
{
    const char *text = throng_node_scalar (node);

    if (throng_node_kind (node) != THRONG_NODE_SCALAR || throng_node_is_null (node)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE, "%s must be a string", what);
        return FALSE;
    }
    if (scope != NULL && strstr (text, "${") != NULL) {
        const char *literal;
        gsize length;

        part->tpl = throng_template_compile (scope, node, error);
        if (part->tpl == NULL)
            return FALSE;
        literal = throng_template_get_literal (part->tpl, &length);
        if (literal == NULL)
            return TRUE;
        part->text = g_strndup (literal, length);
        g_clear_pointer (&part->tpl, throng_template_free);
    } else {
        part->text = g_strdup (text);
    }
    if (strpbrk (part->text, "\r\n") != NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID, "%s contains a line break",
                               what);
        return FALSE;
    }
    return TRUE;
}

/* `basic:` or `digest:`: a map of user and password, both required. */
static gboolean
pair_compile (ThrongScope *scope, const ThrongNode *node, const char *scheme, HttpAuth *auth,
              GError **error)
{
    const ThrongNode *user, *password;

    if (throng_node_kind (node) != THRONG_NODE_MAP) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "auth: { %s: ... } takes a map: { user: NAME, password: SECRET }",
                               scheme);
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *name = throng_node_scalar (key);
        if (g_strcmp0 (name, "user") != 0 && g_strcmp0 (name, "password") != 0) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown key '%s' in auth.%s; it takes user and password",
                                   name != NULL ? name : "", scheme);
            return FALSE;
        }
    }
    user = throng_node_lookup (node, "user");
    password = throng_node_lookup (node, "password");
    if (user == NULL || password == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING, "auth.%s needs %s",
                               scheme, user == NULL ? "user" : "password");
        return FALSE;
    }
    if (!part_compile (scope, user, "the user", &auth->user, error)
        || !part_compile (scope, password, "the password", &auth->password, error))
        return FALSE;
    /* RFC 7617: the user-id ends at the first colon. */
    if (auth->kind == HTTP_AUTH_BASIC && auth->user.text != NULL
        && strchr (auth->user.text, ':') != NULL) {
        throng_node_set_error (user, error, THRONG_PLAN_ERROR_INVALID,
                               "a Basic user name cannot contain ':' (RFC 7617)");
        return FALSE;
    }
    return TRUE;
}

static const char *const schemes[] = { "basic", "bearer", "digest", NULL };

gboolean
http_auth_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *node,
                   const ThrongNode *step_map, gboolean url_credentials, GError **error)
{
    const ThrongNode *key = NULL, *scheme = NULL;
    HttpAuth *auth;

    if (node == NULL || (throng_node_kind (node) == THRONG_NODE_SCALAR && throng_node_is_null (node)))
        return TRUE;
    if (throng_node_kind (node) != THRONG_NODE_MAP || throng_node_n_children (node) == 0) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "auth takes a map of one scheme: { basic: { user: U, password: P } "
                               "}, { bearer: TOKEN } or { digest: { user: U, password: P } }");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *k = throng_node_key (node, i);
        const char *name = throng_node_scalar (k);

        if (name == NULL || !g_strv_contains (schemes, name)) {
            throng_node_set_error (k, error, THRONG_PLAN_ERROR_UNKNOWN_KEY,
                                   "unknown auth scheme '%s'; auth takes basic, bearer or digest",
                                   name != NULL ? name : "");
            return FALSE;
        }
        if (key != NULL) {
            throng_node_set_error (k, error, THRONG_PLAN_ERROR_INVALID,
                                   "auth takes one scheme, and this one has both '%s' and '%s'; "
                                   "keep one",
                                   throng_node_scalar (key), name);
            return FALSE;
        }
        key = k;
        scheme = throng_node_child (node, i);
    }
    if (url_credentials) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "the url has credentials (user:password@) and auth: sets them too; "
                               "keep one of them");
        return FALSE;
    }
    if (http_step_has_header (step, "Authorization")) {
        /* At the step where the two meet, unless its own auth is one of them. */
        const ThrongNode *at = step_map != NULL && throng_node_lookup (step_map, "auth") == NULL
                                   ? step_map
                                   : node;
        throng_node_set_error (at, error, THRONG_PLAN_ERROR_INVALID,
                               "auth: and an Authorization header both set Authorization; keep "
                               "one (on a step, auth: null or headers: { Authorization: null } "
                               "drops the one from defaults)");
        return FALSE;
    }

    auth = g_new0 (HttpAuth, 1);
    step->auth = auth;
    switch (throng_node_scalar (key)[1]) {
    case 'a': /* basic */
        auth->kind = HTTP_AUTH_BASIC;
        if (!pair_compile (scope, scheme, "basic", auth, error))
            return FALSE;
        break;
    case 'e': /* bearer */
        auth->kind = HTTP_AUTH_BEARER;
        if (!part_compile (scope, scheme, "auth.bearer (the token)", &auth->token, error))
            return FALSE;
        break;
    default: /* digest */
        auth->kind = HTTP_AUTH_DIGEST;
        if (step->scenario->options.transport != HTTP_TRANSPORT_SOUP) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "Digest authentication needs transport: soup (libsoup answers "
                                   "the server's challenge); the fast transport does not do it");
            return FALSE;
        }
        return pair_compile (scope, scheme, "digest", auth, error);
    }

    if (auth->kind == HTTP_AUTH_BASIC && auth->user.tpl == NULL && auth->password.tpl == NULL) {
        http_step_add_header (step, "Authorization",
                              http_auth_basic_value (auth->user.text, auth->password.text));
        g_clear_pointer (&step->auth, http_auth_free);
        return TRUE;
    }
    if (auth->kind == HTTP_AUTH_BEARER && auth->token.tpl == NULL) {
        http_step_add_header (step, "Authorization", g_strconcat ("Bearer ", auth->token.text, NULL));
        g_clear_pointer (&step->auth, http_auth_free);
        return TRUE;
    }
    /* Built per request, in the place of a header whose value stays empty. */
    http_step_add_header (step, "Authorization", g_strdup (""));
    auth->header = step->headers->len - 1;
    if (step->header_templates == NULL)
        step->header_templates = g_new0 (ThrongTemplate *, step->headers->len);
    step->templated = TRUE;
    return TRUE;
}

static gboolean
part_expand (const HttpAuthPart *part, ThrongUser *user, GString *out, GString *why)
{
    g_autoptr (GError) error = NULL;

    if (part->tpl == NULL) {
        g_string_append (out, part->text);
        return TRUE;
    }
    if (throng_template_expand (part->tpl, user, out, &error))
        return TRUE;
    g_string_assign (why, error->message);
    return FALSE;
}

gboolean
http_auth_expand_header (const HttpStep *step, ThrongUser *user, GString *out, GString *scratch,
                         GString *why)
{
    const HttpAuth *auth = step->auth;

    if (auth->kind == HTTP_AUTH_BEARER) {
        g_string_append (out, "Bearer ");
        return part_expand (&auth->token, user, out, why);
    }
    g_string_truncate (scratch, 0);
    if (!part_expand (&auth->user, user, scratch, why))
        return FALSE;
    if (memchr (scratch->str, ':', scratch->len) != NULL) {
        g_string_assign (why, "the Basic user name expands to a value with ':' (RFC 7617)");
        return FALSE;
    }
    g_string_append_c (scratch, ':');
    if (!part_expand (&auth->password, user, scratch, why))
        return FALSE;
    g_autofree char *encoded = g_base64_encode ((const guchar *)scratch->str, scratch->len);
    g_string_append (out, "Basic ");
    g_string_append (out, encoded);
    return TRUE;
}

gboolean
http_auth_expand_digest (const HttpStep *step, ThrongUser *user, GString *out, GString *why)
{
    g_string_truncate (out, 0);
    if (!part_expand (&step->auth->user, user, out, why))
        return FALSE;
    g_string_append_c (out, '\0');
    if (!part_expand (&step->auth->password, user, out, why))
        return FALSE;
    g_string_append_c (out, '\0');
    return TRUE;
}
