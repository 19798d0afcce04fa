/* SPDX-License-Identifier: MIT */
/*
 * The http protocol as the core sees it: the ThrongProtocol table.  Each
 * hook either builds plan data (scenario.c, step.c) or forwards to the
 * transport the scenario chose, so the hot path is one indirect call.
 */
#include "plan.h"

/* The per-user handle: which transport, and that transport's user state. */
typedef struct {
    const HttpTransport *transport;
    gpointer data;
} HttpUser;

static gpointer
protocol_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    return http_scenario_new (setup, error);
}

static void
protocol_scenario_free (gpointer scenario)
{
    http_scenario_free (scenario);
}

static void
protocol_scenario_notes (gpointer scenario, GPtrArray *notes)
{
    http_scenario_notes (scenario, notes);
}

static gpointer
protocol_step_new (gpointer scenario, const ThrongNode *options, char **label, GError **error)
{
    return http_step_new (scenario, options, label, error);
}

static void
protocol_step_free (gpointer step)
{
    http_step_free (step);
}

static gpointer
protocol_user_new (gpointer data, ThrongUser *user)
{
    HttpScenario *scenario = data;
    HttpUser *http_user = g_new0 (HttpUser, 1);

    http_user->transport = scenario->transport;
    http_user->data = scenario->transport->user_new (scenario, user);
    return http_user;
}

static void
protocol_user_free (gpointer data)
{
    HttpUser *user = data;

    if (user == NULL)
        return;
    user->transport->user_free (user->data);
    g_free (user);
}

static void
protocol_iteration_begin (gpointer data)
{
    HttpUser *user = data;

    if (user->transport->iteration_begin != NULL)
        user->transport->iteration_begin (user->data);
}

static void
protocol_step_run (gpointer data, gpointer step, ThrongSample *sample)
{
    HttpUser *user = data;

    user->transport->run (user->data, step, sample);
}

const ThrongProtocol http_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "http",
    .scenario_new = protocol_scenario_new,
    .scenario_free = protocol_scenario_free,
    .scenario_notes = protocol_scenario_notes,
    .step_new = protocol_step_new,
    .step_free = protocol_step_free,
    .user_new = protocol_user_new,
    .user_free = protocol_user_free,
    .iteration_begin = protocol_iteration_begin,
    .step_run = protocol_step_run,
};
