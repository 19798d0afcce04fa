/* SPDX-License-Identifier: MIT */
/*
 * A user's cookies (jar.h): the jar both transports keep, its emptying,
 * and the cookies a step sets.
 */
#include "jar.h"

#include "plan.h"

#include <string.h>

/*
 * A SoupCookieJar that remembers whether it held a cookie, so that
 * asking it costs a load (http_cookie_jar_used) until one comes.
 */
typedef struct {
    SoupCookieJar parent;
    gboolean used;
} HttpCookieJar;

typedef struct {
    SoupCookieJarClass parent_class;
} HttpCookieJarClass;

static GType http_cookie_jar_get_type (void);
G_DEFINE_TYPE (HttpCookieJar, http_cookie_jar, SOUP_TYPE_COOKIE_JAR)

/* A cookie came (or went): from then on, requests ask the jar. */
static void
http_cookie_jar_changed (SoupCookieJar *jar, SoupCookie *old_cookie, SoupCookie *new_cookie)
{
    ((HttpCookieJar *)jar)->used = TRUE;
}

static void
http_cookie_jar_class_init (HttpCookieJarClass *klass)
{
    SOUP_COOKIE_JAR_CLASS (klass)->changed = http_cookie_jar_changed;
}

static void
http_cookie_jar_init (HttpCookieJar *jar)
{
}

SoupCookieJar *
http_cookie_jar_new (void)
{
    SoupCookieJar *jar = g_object_new (http_cookie_jar_get_type (), NULL);

    soup_cookie_jar_set_accept_policy (jar, SOUP_COOKIE_JAR_ACCEPT_ALWAYS);
    return jar;
}

gboolean
http_cookie_jar_used (SoupCookieJar *jar)
{
    return ((HttpCookieJar *)jar)->used;
}

void
http_cookie_jar_clear (SoupCookieJar *jar)
{
    GSList *cookies;

    if (!http_cookie_jar_used (jar))
        return;
    cookies = soup_cookie_jar_all_cookies (jar);
    for (GSList *l = cookies; l != NULL; l = l->next)
        soup_cookie_jar_delete_cookie (jar, l->data);
    g_slist_free_full (cookies, (GDestroyNotify)soup_cookie_free);
    /* Empty again: requests skip the jar until the next cookie comes. */
    ((HttpCookieJar *)jar)->used = FALSE;
}

static void
cookie_clear (gpointer data)
{
    HttpStepCookie *cookie = data;

    g_free (cookie->name);
    g_free (cookie->value);
    throng_template_free (cookie->tpl);
}

/* What a cookie's value cannot hold: ';' would end it, a control byte break the field. */
static const char *
value_flaw (const char *value, gsize length)
{
    for (gsize i = 0; i < length; i++) {
        guchar c = (guchar)value[i];
        if (c == ';')
            return "a ';'";
        if (c < 0x20 || c == 0x7f)
            return "a control byte";
    }
    return NULL;
}

gboolean
http_step_cookies_compile (HttpStep *step, ThrongScope *scope, const ThrongNode *node,
                           GError **error)
{
    if (node == NULL || (throng_node_kind (node) == THRONG_NODE_SCALAR && throng_node_is_null (node)))
        return TRUE;
    if (throng_node_kind (node) != THRONG_NODE_MAP) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "cookies must be a map of cookie names to values");
        return FALSE;
    }
    if (step->scenario->options.cookie_jar == HTTP_COOKIE_JAR_OFF) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "cookies: goes into the cookie jar, and cookie_jar is off; send "
                               "them with headers: { Cookie: \"name=value\" } instead");
        return FALSE;
    }
    step->cookies = g_array_new (FALSE, TRUE, sizeof (HttpStepCookie));
    g_array_set_clear_func (step->cookies, cookie_clear);
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const ThrongNode *value = throng_node_child (node, i);
        const char *name = throng_node_scalar (key);
        const char *text = throng_node_scalar (value);
        HttpStepCookie cookie = { 0 };
        const char *flaw;

        if (name != NULL && strstr (name, "${") != NULL) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "cookie names are not templates; write the name the server "
                                   "expects (its value may be a template)");
            return FALSE;
        }
        if (!http_method_is_valid (name)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' is not a valid cookie name", name != NULL ? name : "");
            return FALSE;
        }
        if (throng_node_kind (value) != THRONG_NODE_SCALAR || throng_node_is_null (value)) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                   "the value of cookie '%s' must be a string", name);
            return FALSE;
        }
        cookie.name = g_strdup (name);
        if (scope != NULL && strstr (text, "${") != NULL) {
            gsize length;
            const char *literal;

            cookie.tpl = throng_template_compile (scope, value, error);
            if (cookie.tpl == NULL) {
                cookie_clear (&cookie);
                return FALSE;
            }
            literal = throng_template_get_literal (cookie.tpl, &length);
            if (literal != NULL) {
                cookie.value = g_strndup (literal, length);
                g_clear_pointer (&cookie.tpl, throng_template_free);
            }
        } else {
            cookie.value = g_strdup (text);
        }
        if (cookie.value != NULL
            && (flaw = value_flaw (cookie.value, strlen (cookie.value))) != NULL) {
            throng_node_set_error (value, error, THRONG_PLAN_ERROR_INVALID,
                                   "the value of cookie '%s' has %s; use | urlencode", name,
                                   flaw);
            cookie_clear (&cookie);
            return FALSE;
        }
        g_array_append_val (step->cookies, cookie);
    }
    if (step->cookies->len == 0)
        g_clear_pointer (&step->cookies, g_array_unref);
    return TRUE;
}

void
http_step_cookies_free (HttpStep *step)
{
    g_clear_pointer (&step->cookies, g_array_unref);
}

gboolean
http_step_cookies_expand (const HttpStep *step, ThrongUser *user, GString *out, GString *why)
{
    g_string_truncate (out, 0);
    for (guint i = 0; i < step->cookies->len; i++) {
        const HttpStepCookie *cookie = &g_array_index (step->cookies, HttpStepCookie, i);
        gsize start;
        const char *flaw;

        g_string_append (out, cookie->name);
        g_string_append_c (out, '=');
        start = out->len;
        if (cookie->tpl == NULL) {
            g_string_append (out, cookie->value);
        } else {
            g_autoptr (GError) error = NULL;
            if (!throng_template_expand (cookie->tpl, user, out, &error)) {
                g_string_assign (why, error->message);
                return FALSE;
            }
            if ((flaw = value_flaw (out->str + start, out->len - start)) != NULL) {
                g_string_printf (why, "cookie %s expands to a value with %s; use | urlencode",
                                 cookie->name, flaw);
                return FALSE;
            }
        }
        /* The step's origin, all its paths: as a server's "Path=/" cookie. */
        g_string_append (out, "; Path=/");
        g_string_append_c (out, '\0');
    }
    return TRUE;
}

void
http_step_cookies_store (const HttpStep *step, const GString *expanded, SoupCookieJar *jar)
{
    for (const char *p = expanded->str; p < expanded->str + expanded->len; p += strlen (p) + 1)
        soup_cookie_jar_set_cookie (jar, step->uri, p);
}
