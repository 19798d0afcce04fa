/* SPDX-License-Identifier: MIT */
/*
 * Credentials, for both transports: `auth: { basic: { user, password } }`
 * and `auth: { bearer: TOKEN }` become the Authorization header (a url's
 * user:password@ too, through the same Basic encoding); `auth: { digest:
 * { user, password } }` answers a server's Digest challenge, on `soup`
 * only (libsoup's SoupAuthManager; `fast` refuses it at load).  Values
 * are templates: a literal one is the header's text from load on, a
 * templated one is built per request into the header it added.
 */
#pragma once

#include "http.h"

typedef enum {
    HTTP_AUTH_BASIC,
    HTTP_AUTH_BEARER,
    HTTP_AUTH_DIGEST,
} HttpAuthKind;

/* One credential: literal text, or a template. */
typedef struct {
    char *text;
    ThrongTemplate *tpl;
} HttpAuthPart;

struct _HttpAuth {
    HttpAuthKind kind;
    HttpAuthPart user;     /* basic, digest */
    HttpAuthPart password; /* basic, digest */
    HttpAuthPart token;    /* bearer */
    guint header;          /* basic, bearer: the index in step->headers of the header built */
};

/* "Basic base64(user:password)" (RFC 7617); (transfer full). */
char *http_auth_basic_value (const char *user, const char *password);

/*
 * Reads the `auth` map (@node: the layer that set it; NULL or null: none)
 * into @step: a literal Basic or Bearer is a header now, a templated one
 * step->auth and a header built per request, Digest step->auth.  Refused:
 * more or less than one scheme, a step that also sets Authorization (a
 * header or a url's credentials), Digest on `fast`.  Located errors, at
 * @step_map (the step's own http map, may be NULL) when the clash is
 * between layers.
 */
gboolean http_auth_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *node,
                            const ThrongNode *step_map, gboolean url_credentials, GError **error);
void http_auth_free (HttpAuth *auth);

/* Whether header @i of @step is the one step->auth builds per request. */
static inline gboolean
http_auth_builds_header (const HttpStep *step, guint i)
{
    return step->auth != NULL && step->auth->kind != HTTP_AUTH_DIGEST && step->auth->header == i;
}

/*
 * Appends the value of the Authorization header step->auth builds for
 * @user to @out (@scratch is reused); FALSE with the reason in @why.
 */
gboolean http_auth_expand_header (const HttpStep *step, ThrongUser *user, GString *out,
                                  GString *scratch, GString *why);

/* Digest: "user\0password\0" for @user into @out; FALSE with the reason in @why. */
gboolean http_auth_expand_digest (const HttpStep *step, ThrongUser *user, GString *out,
                                  GString *why);
