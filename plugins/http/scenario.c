/* SPDX-License-Identifier: MIT */
/*
 * One http scenario and its users, and the ThrongProtocol table that
 * hands them to the core: the scenario's options (defaults, then its own
 * http map), the checks that need both layers, and the choice of
 * transport.  The transport is chosen here, once; each user is that
 * transport's, and a step runs through one indirect call.  Steps are
 * built in request.c.
 */
#include "plan.h"

#include <string.h>

/* The transports by HttpTransportKind, the `transport` option's value. */
static const HttpTransport *const transports[] = {
    [HTTP_TRANSPORT_FAST] = &http_fast_transport,
    [HTTP_TRANSPORT_SOUP] = &http_soup_transport,
};

/* The per-user handle: which transport, that transport's user state, and its lanes (lanes.c). */
typedef struct {
    const HttpTransport *transport;
    gpointer data;
    const HttpScenario *scenario;
    HttpLanes *lanes;
} HttpUser;

static const ThrongNode *
located (const HttpPlanScenario *scenario, const ThrongNode *preferred)
{
    return preferred != NULL ? preferred : scenario->nodes.map;
}

/* Sets a plan error at @node, or naming the scenario when the plan has no http map to point at. */
static void
set_error (const HttpPlanScenario *scenario, const ThrongNode *node, GError **error,
           ThrongPlanError code, const char *message)
{
    if (node != NULL)
        throng_node_set_error (node, error, code, "%s", message);
    else
        g_set_error (error, THRONG_PLAN_ERROR, code, "scenario '%s': %s", scenario->base.name,
                     message);
}

static gboolean
check_base_url (HttpPlanScenario *scenario, GError **error)
{
    const char *text = scenario->base.options.base_url;
    g_autoptr (GUri) uri = NULL;
    const char *scheme;

    if (text == NULL)
        return TRUE;
    uri = g_uri_parse (text, G_URI_FLAGS_ENCODED, NULL);
    scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
    if (uri == NULL || scheme == NULL
        || (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
        || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0') {
        g_autofree char *message = g_strdup_printf (
            "base_url '%s' is not an absolute http:// or https:// URL with a host", text);
        set_error (scenario, located (scenario, scenario->nodes.base_url), error,
                   THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }
    if (g_uri_get_port (uri) == 0) {
        g_autofree char *message = g_strdup_printf (
            "base_url '%s' has port 0; ports are 1 to 65535", text);
        set_error (scenario, located (scenario, scenario->nodes.base_url), error,
                   THRONG_PLAN_ERROR_INVALID, message);
        return FALSE;
    }
    return TRUE;
}

static gboolean
check_tls (HttpPlanScenario *scenario, GError **error)
{
    const HttpTlsOptions *tls = &scenario->base.options.tls;

    if (tls->cert_file != NULL && tls->key_file == NULL) {
        set_error (scenario, located (scenario, scenario->nodes.cert_file), error,
                   THRONG_PLAN_ERROR_MISSING, "tls.cert_file needs tls.key_file");
        return FALSE;
    }
    if (tls->key_file != NULL && tls->cert_file == NULL) {
        set_error (scenario, located (scenario, scenario->nodes.key_file), error,
                   THRONG_PLAN_ERROR_MISSING, "tls.key_file needs tls.cert_file");
        return FALSE;
    }
    return TRUE;
}

static void scenario_free (gpointer data);

static gpointer
scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    HttpPlanScenario *scenario = g_new0 (HttpPlanScenario, 1);
    g_autoptr (GError) local = NULL;

    scenario->base.name = g_strdup (setup->name);
    scenario->base.users = setup->users;
    if (THRONG_STRUCT_HAS (setup, ThrongScenarioSetup, scope))
        scenario->scope = setup->scope;
    if (THRONG_STRUCT_HAS (setup, ThrongScenarioSetup, max_parallel))
        scenario->base.max_parallel = setup->max_parallel;
    scenario->headers = http_headers_new ();
    http_options_init (&scenario->base.options);

    if (!http_options_apply_layer (setup->defaults, &scenario->base.options, FALSE,
                                   &scenario->nodes, error)
        || !http_options_apply_layer (setup->options, &scenario->base.options, FALSE,
                                      &scenario->nodes, error)
        || !http_headers_merge (scenario->headers, setup->defaults, error)
        || !http_headers_merge (scenario->headers, setup->options, error)
        || !check_base_url (scenario, error) || !check_tls (scenario, error))
        goto fail;

    /* The option table allows only the kinds this table holds. */
    g_assert ((guint)scenario->base.options.transport < G_N_ELEMENTS (transports));
    scenario->base.transport = transports[scenario->base.options.transport];
    g_debug ("scenario '%s': transport %s", setup->name, scenario->base.transport->name);

    scenario->base.transport_data
        = scenario->base.transport->scenario_new (&scenario->base, setup->validate_only, &local);
    if (local != NULL) {
        /* Transport errors (an unreadable certificate …) still point at the plan. */
        if (local->domain == THRONG_PLAN_ERROR)
            g_propagate_error (error, g_steal_pointer (&local));
        else
            set_error (scenario, located (scenario, scenario->nodes.tls), error,
                       THRONG_PLAN_ERROR_INVALID, local->message);
        goto fail;
    }
    return &scenario->base;

fail:
    scenario->base.transport = NULL;
    scenario_free (&scenario->base);
    return NULL;
}

static void
scenario_free (gpointer data)
{
    HttpPlanScenario *scenario = data;
    HttpScenario *base = data;

    if (scenario == NULL)
        return;
    if (base->transport != NULL && base->transport->scenario_free != NULL)
        base->transport->scenario_free (base->transport_data);
    http_options_clear (&base->options);
    g_clear_pointer (&scenario->headers, g_array_unref);
    g_free (base->name);
    g_free (scenario);
}

static void
scenario_notes (gpointer data, GPtrArray *notes)
{
    HttpScenario *scenario = data;

    if (scenario->transport->scenario_notes != NULL)
        scenario->transport->scenario_notes (scenario, notes);
}

static void
scenario_warnings (gpointer data, GPtrArray *warnings)
{
    HttpScenario *scenario = data;
    gint closes = g_atomic_int_get (&scenario->unsolicited_closes);

    if (closes > 0)
        g_ptr_array_add (warnings,
                         g_strdup_printf ("%d connection%s closed because the server sent bytes "
                                          "nobody asked for (after a response, or while the "
                                          "connection was idle); no response was read from them",
                                          closes, closes == 1 ? " was" : "s were"));
}

static gpointer
user_new (gpointer data, ThrongUser *throng_user)
{
    HttpScenario *scenario = data;
    HttpUser *user = g_new0 (HttpUser, 1);

    user->transport = scenario->transport;
    user->scenario = scenario;
    user->data = scenario->transport->user_new (scenario, throng_user);
    return user;
}

static void
user_free (gpointer data)
{
    HttpUser *user = data;

    if (user == NULL)
        return;
    http_lanes_free (user->lanes);
    user->transport->user_free (user->data);
    g_free (user);
}

static void
iteration_begin (gpointer data)
{
    HttpUser *user = data;

    if (user->transport->iteration_begin != NULL)
        user->transport->iteration_begin (user->data);
    http_lanes_iteration_begin (user->lanes);
}

static void
step_run (gpointer data, gpointer step, ThrongSample *sample)
{
    HttpUser *user = data;

    user->transport->run (user->data, step, sample);
}

static gboolean
step_run_concurrent (gpointer data, gpointer step, ThrongSample *sample)
{
    HttpUser *user = data;

    return http_lanes_run (&user->lanes, user->scenario, user->data, step, sample);
}

/* The step's origin, "https://host:port": where the load goes, with no path, query or password. */
static char *
step_target (gpointer data)
{
    const HttpStep *step = data;

    return g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (step->uri), NULL,
                       g_uri_get_host (step->uri), g_uri_get_port (step->uri), "", NULL, NULL);
}

const ThrongProtocol http_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "http",
    .scenario_new = scenario_new,
    .scenario_free = scenario_free,
    .scenario_notes = scenario_notes,
    .step_new = http_step_new,
    .step_free = http_step_free,
    .user_new = user_new,
    .user_free = user_free,
    .iteration_begin = iteration_begin,
    .step_run = step_run,
    .step_target = step_target,
    .step_run_concurrent = step_run_concurrent,
    .scenario_warnings = scenario_warnings,
};
