/* SPDX-License-Identifier: MIT */
/*
 * The request an http step sends: the scenario's options with the step's
 * layer on top, turned into what a transport sends (an absolute URL split
 * into host, port and request target, the merged headers, the body, the
 * accepted statuses).  Runs while the plan loads: a bad step fails before
 * any load.
 */
#include "auth.h"
#include "body.h"
#include "jar.h"
#include "journey.h"
#include "plan.h"

#include <string.h>

static void
step_error (const ThrongNode *node, const ThrongNode *fallback, GError **error,
            ThrongPlanError code, const char *message)
{
    const ThrongNode *where = node != NULL ? node : fallback;
    if (where != NULL)
        throng_node_set_error (where, error, code, "%s", message);
    else
        g_set_error_literal (error, THRONG_PLAN_ERROR, code, message);
}

static gboolean
resolve_url (HttpStep *step, const HttpOptions *options, const HttpLayerNodes *nodes,
             const ThrongNode *where, GError **error)
{
    g_autoptr (GUri) uri = NULL;
    g_autoptr (GError) local = NULL;
    g_autofree char *message = NULL;
    const char *scheme;

    if (options->url == NULL) {
        step_error (where, NULL, error, THRONG_PLAN_ERROR_MISSING, "http step needs a url");
        return FALSE;
    }
    if (options->base_url != NULL) {
        g_autoptr (GUri) base = g_uri_parse (options->base_url, G_URI_FLAGS_ENCODED, NULL);
        uri = g_uri_parse_relative (base, options->url, G_URI_FLAGS_ENCODED, &local);
    } else {
        const char *peek = g_uri_peek_scheme (options->url);
        if (peek == NULL) {
            message = g_strdup_printf ("url '%s' is relative and no base_url is set", options->url);
            step_error (nodes->url, where, error, THRONG_PLAN_ERROR_INVALID, message);
            return FALSE;
        }
        uri = g_uri_parse (options->url, G_URI_FLAGS_ENCODED, &local);
    }
    if (uri == NULL) {
        message = g_strdup_printf ("url '%s' is not a valid URL: %s", options->url, local->message);
        step_error (nodes->url, where, error, THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }
    scheme = g_uri_get_scheme (uri);
    if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) {
        message = g_strdup_printf ("url '%s' is not http:// or https://", options->url);
        step_error (nodes->url, where, error, THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }
    if (g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0') {
        message = g_strdup_printf ("url '%s' has no host", options->url);
        step_error (nodes->url, where, error, THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }

    if (g_uri_get_port (uri) == 0) {
        message = g_strdup_printf ("url '%s' has port 0; ports are 1 to 65535", options->url);
        step_error (nodes->url, where, error, THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }

    const char *path = g_uri_get_path (uri);
    const char *query = g_uri_get_query (uri);
    int port = g_uri_get_port (uri);

    step->tls = g_ascii_strcasecmp (scheme, "https") == 0;
    step->host = g_strdup (g_uri_get_host (uri));
    step->port = (guint16)(port > 0 ? port : step->tls ? 443 : 80);
    step->target = g_strconcat (*path != '\0' ? path : "/", query != NULL ? "?" : "",
                                query != NULL ? query : "", NULL);
    step->url = g_uri_to_string_partial (uri, G_URI_HIDE_FRAGMENT | G_URI_HIDE_PASSWORD);
    step->uri = g_steal_pointer (&uri);
    return TRUE;
}

/*
 * `http://user:password@host/`: the credentials go out as Basic
 * authentication on every request (as curl and k6 send them, without
 * waiting for a 401), never silently dropped; the url keeps only the
 * origin and path.  A url that is a template cannot carry them (they
 * would differ per request with no header to match), nor a step that
 * also sets Authorization (which of the two would win is a guess); the
 * header is made as auth: { basic: ... } makes it (auth.c).
 */
static gboolean
credentials_to_header (HttpStep *step, const HttpLayerNodes *nodes, const ThrongNode *where,
                       GError **error)
{
    const char *userinfo = g_uri_get_userinfo (step->uri);
    const ThrongNode *at = nodes->url != NULL ? nodes->url : nodes->base_url;

    if (userinfo == NULL)
        return TRUE;
    if (step->url_template != NULL) {
        step_error (at, where, error, THRONG_PLAN_ERROR_INVALID,
                    "a url that is a template cannot carry credentials (user:password@); "
                    "send them with auth: { basic: { user: U, password: P } }");
        return FALSE;
    }
    if (http_step_has_header (step, "Authorization")) {
        step_error (at, where, error, THRONG_PLAN_ERROR_INVALID,
                    "the url has credentials (user:password@) and the step sets an "
                    "Authorization header: keep one of them");
        return FALSE;
    }
    const char *colon = strchr (userinfo, ':');
    g_autofree char *user = g_uri_unescape_segment (
        userinfo, colon != NULL ? colon : userinfo + strlen (userinfo), NULL);
    g_autofree char *password = colon != NULL ? g_uri_unescape_string (colon + 1, NULL)
                                              : g_strdup ("");
    if (user == NULL || password == NULL) {
        step_error (at, where, error, THRONG_PLAN_ERROR_INVALID,
                    "the url's credentials (user:password@) are not validly percent-encoded");
        return FALSE;
    }
    http_step_add_header (step, "Authorization", http_auth_basic_value (user, password));

    GUri *bare = g_uri_build (g_uri_get_flags (step->uri), g_uri_get_scheme (step->uri), NULL,
                              g_uri_get_host (step->uri), g_uri_get_port (step->uri),
                              g_uri_get_path (step->uri), g_uri_get_query (step->uri),
                              g_uri_get_fragment (step->uri));
    g_uri_unref (step->uri);
    step->uri = bare;
    g_free (step->url);
    step->url = g_uri_to_string_partial (bare, G_URI_HIDE_FRAGMENT);
    return TRUE;
}

static gboolean
load_body (HttpStep *step, ThrongScope *scope, const HttpOptions *options,
           const HttpLayerNodes *nodes, const ThrongNode *where, GError **error)
{
    if (options->body != NULL) {
        if (step->body_template == NULL)
            step->body = g_bytes_new (options->body, strlen (options->body));
        return TRUE;
    }
    if (options->body_file == NULL)
        return TRUE;
    return http_step_body_file (step, scope, options->body_file, options->body_template,
                                nodes->body_file != NULL ? nodes->body_file : where, error);
}

/*
 * The label of a step whose url is templated: its path as written
 * ("GET /items/${vars.item}"), so that every request of the step is one
 * row whatever the variables hold.
 */
static char *
templated_label (const HttpStep *step, const char *written)
{
    const char *path = written;
    const char *scheme_end = strstr (written, "://");
    gsize length;

    /* "https://host/items/${vars.item}": the path; "${vars.next}", "items/${…}": as written. */
    if (scheme_end != NULL && g_uri_peek_scheme (written) != NULL) {
        path = strchr (scheme_end + 3, '/');
        if (path == NULL)
            path = "/";
    }
    length = strcspn (path, "?#");
    return g_strdup_printf ("%s %.*s", step->method, (int)length, *path != '\0' ? path : "/");
}

gpointer
http_step_new (gpointer data, const ThrongNode *map, char **label, GError **error)
{
    HttpPlanScenario *scenario = data;
    HttpScenario *base = data;
    g_autoptr (GError) local = NULL;
    HttpLayerNodes nodes = scenario->nodes;
    HttpOptions options;
    HttpStep *step = g_new0 (HttpStep, 1);
    g_autofree char *written_url = NULL;
    g_autoptr (GError) rules_error = NULL;
    const ThrongNode *where = map != NULL ? map : scenario->nodes.map;
    gboolean ok = FALSE;
    gboolean url_credentials;

    step->scenario = base;
    http_options_copy (&options, &base->options);
    step->headers = http_headers_copy (scenario->headers);

    if (!http_options_apply_layer (map, &options, TRUE, &nodes, error)
        || !http_headers_merge (step->headers, map, error))
        goto out;

    if (!http_method_is_valid (options.method)) {
        g_autofree char *message
            = g_strdup_printf ("method '%s' is not a valid HTTP method", options.method);
        step_error (nodes.method, where, error, THRONG_PLAN_ERROR_INVALID, message);
        goto out;
    }
    step->method = g_ascii_strup (options.method, -1);

    if (options.body_template && options.body_file == NULL) {
        const ThrongNode *node = map != NULL ? throng_node_lookup (map, "template") : NULL;
        step_error (node, where, error, THRONG_PLAN_ERROR_INVALID,
                    "template: true goes with body_file (a body is a template already)");
        goto out;
    }
    written_url = g_strdup (options.url);
    if (!http_step_templates_compile (step, scenario->scope, &options, nodes.url, nodes.body, error)
        || !resolve_url (step, &options, &nodes, where, error))
        goto out;
    url_credentials = g_uri_get_userinfo (step->uri) != NULL;
    if (!http_auth_compile (step, scenario->scope, options.auth, map, url_credentials, error)
        || !credentials_to_header (step, &nodes, where, error)
        || !http_step_cookies_compile (step, scenario->scope, options.cookies, error)
        || !load_body (step, scenario->scope, &options, &nodes, where, error)
        || !http_body_compile (step, scenario->scope, options.form, options.json,
                                  options.multipart, error))
        goto out;
    if (step->url_template != NULL) {
        /* The sample's resource: the url as written, on the step's origin. */
        g_autofree char *origin
            = g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (step->uri), NULL,
                          g_uri_get_host (step->uri), g_uri_get_port (step->uri), "", NULL, NULL);
        g_free (step->url);
        step->url = *written_url == '/' ? g_strconcat (origin, written_url, NULL)
                                        : g_strdup (written_url);
    }

    step->rules = http_rules_new (scenario->scope, options.check, options.extract, &rules_error);
    if (rules_error != NULL) {
        g_propagate_error (error, g_steal_pointer (&rules_error));
        goto out;
    }
    step->keep_body = step->rules != NULL && step->rules->needs_body;
    step->debug_left = (gint)http_debug_requests ();

    /* Checked already at its layer; parsed again here from the final text. */
    if (!http_expect_parse (options.expect_status, step->expect, &local)) {
        step_error (where, NULL, error, THRONG_PLAN_ERROR_INVALID, local->message);
        goto out;
    }
    step->timeout_us = options.timeout_us;
    step->max_body = options.max_body;
    step->follow_redirects = options.follow_redirects;
    step->max_redirects = (guint)options.max_redirects;
    step->version = options.version;
    base->uses_tls |= step->tls;

    if (base->transport->step_new != NULL) {
        step->transport_data = base->transport->step_new (base, step, &local);
        if (local != NULL) {
            step_error (where, NULL, error, THRONG_PLAN_ERROR_INVALID, local->message);
            goto out;
        }
    }

    if (label != NULL && step->url_template != NULL)
        *label = templated_label (step, written_url);
    else if (label != NULL)
        *label = g_strdup_printf ("%s %s", step->method,
                                  *g_uri_get_path (step->uri) != '\0' ? g_uri_get_path (step->uri)
                                                                      : "/");
    ok = TRUE;

out:
    http_options_clear (&options);
    if (!ok) {
        http_step_free (step);
        return NULL;
    }
    return step;
}

void
http_step_free (gpointer data)
{
    HttpStep *step = data;

    if (step == NULL)
        return;
    if (step->transport_data != NULL && step->scenario->transport != NULL
        && step->scenario->transport->step_free != NULL)
        step->scenario->transport->step_free (step->transport_data);
    http_step_templates_free (step);
    http_auth_free (step->auth);
    http_step_cookies_free (step);
    http_body_free (step);
    http_rules_free (step->rules);
    g_free (step->method);
    g_clear_pointer (&step->uri, g_uri_unref);
    g_free (step->url);
    g_free (step->host);
    g_free (step->target);
    g_clear_pointer (&step->body, g_bytes_unref);
    g_clear_pointer (&step->headers, g_array_unref);
    g_free (step);
}
