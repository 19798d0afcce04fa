/* SPDX-License-Identifier: MIT */
/*
 * The request an http step sends: the scenario's options with the step's
 * layer on top, turned into what a transport sends (an absolute URL split
 * into host, port and request target, the merged headers, the body, the
 * accepted statuses).  Runs while the plan loads: a bad step fails before
 * any load.
 */
#include "plan.h"

#include <string.h>

/* Bodies are read whole at plan load; beyond this a file is surely a mistake. */
#define HTTP_MAX_BODY_FILE (G_GUINT64_CONSTANT (256) * 1024 * 1024)

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

static gboolean
load_body (HttpStep *step, const HttpOptions *options, const HttpLayerNodes *nodes,
           const ThrongNode *where, GError **error)
{
    if (options->body != NULL) {
        step->body = g_bytes_new (options->body, strlen (options->body));
        return TRUE;
    }
    if (options->body_file == NULL)
        return TRUE;

    g_autoptr (GMappedFile) file = NULL;
    g_autoptr (GError) local = NULL;
    g_autofree char *message = NULL;

    file = g_mapped_file_new (options->body_file, FALSE, &local);
    if (file == NULL) {
        message = g_strdup_printf ("cannot read body_file: %s", local->message);
        step_error (nodes->body_file, where, error, THRONG_PLAN_ERROR_FILE, message);
        return FALSE;
    }
    if (g_mapped_file_get_length (file) > HTTP_MAX_BODY_FILE) {
        message = g_strdup_printf ("body_file '%s' is larger than 256 MiB", options->body_file);
        step_error (nodes->body_file, where, error, THRONG_PLAN_ERROR_LIMIT, message);
        return FALSE;
    }
    /* A copy, not the mapping: the file may change while the run goes on. */
    step->body = g_bytes_new (g_mapped_file_get_contents (file), g_mapped_file_get_length (file));
    return TRUE;
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
    const ThrongNode *where = map != NULL ? map : scenario->nodes.map;
    gboolean ok = FALSE;

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

    if (!resolve_url (step, &options, &nodes, where, error)
        || !load_body (step, &options, &nodes, where, error))
        goto out;

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

    if (label != NULL)
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
    g_free (step->method);
    g_clear_pointer (&step->uri, g_uri_unref);
    g_free (step->url);
    g_free (step->host);
    g_free (step->target);
    g_clear_pointer (&step->body, g_bytes_unref);
    g_clear_pointer (&step->headers, g_array_unref);
    g_free (step);
}
