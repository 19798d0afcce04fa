/* SPDX-License-Identifier: MIT */
/*
 * A summary's journey as reporters read it (journey.h): every access
 * checks that the core filled the part it reads.
 */
#include "journey.h"

#include <string.h>

const ThrongScenarioJourney *
journey_get (const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = scenario->journey;

    if (journey == NULL || journey->size < THRONG_STRUCT_END (ThrongScenarioJourney, n_checks))
        return NULL;
    return journey;
}

static const ThrongStepInfo *
step_info (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongScenarioJourney *journey = journey_get (scenario);

    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, step_info)
        || journey->step_info == NULL || index >= scenario->n_steps)
        return NULL;
    return &journey->step_info[index];
}

ThrongStepKind
journey_step_kind (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->kind : THRONG_STEP_REQUEST;
}

guint
journey_step_depth (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->depth : 0;
}

gint
journey_step_parent (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->parent : -1;
}

gboolean
journey_checks_total (const ThrongScenarioSummary *scenario, guint64 *passes, guint64 *fails)
{
    const ThrongScenarioJourney *journey = journey_get (scenario);

    *passes = *fails = 0;
    if (journey == NULL || journey->n_checks == 0 || journey->checks == NULL)
        return FALSE;
    for (guint i = 0; i < journey->n_checks; i++) {
        *passes += journey->checks[i].passes;
        *fails += journey->checks[i].fails;
    }
    return TRUE;
}

gboolean
journey_data_exhausted (const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = journey_get (scenario);

    return journey != NULL && THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, data_exhausted)
           && journey->data_exhausted;
}

const char *
journey_step_kind_name (ThrongStepKind kind)
{
    return kind == THRONG_STEP_GROUP ? "group" : "request";
}

gboolean
journey_protocol_is_group (const char *protocol)
{
    return protocol == NULL || strcmp (protocol, "group") == 0;
}
