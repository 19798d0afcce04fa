/* SPDX-License-Identifier: MIT */
/*
 * The SDK's journey readers (<throng/journey.h>): each access checks that
 * the core or the run file filled the part it reads.
 */
#include <throng/journey.h>

#include <string.h>

const ThrongScenarioJourney *
throng_journey_get (const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = scenario->journey;

    if (journey == NULL || journey->size < THRONG_STRUCT_END (ThrongScenarioJourney, n_checks))
        return NULL;
    return journey;
}

static const ThrongStepInfo *
step_info (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);

    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, step_info)
        || journey->step_info == NULL || index >= scenario->n_steps)
        return NULL;
    return &journey->step_info[index];
}

ThrongStepKind
throng_journey_step_kind (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->kind : THRONG_STEP_REQUEST;
}

guint
throng_journey_step_depth (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->depth : 0;
}

gint
throng_journey_step_parent (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongStepInfo *info = step_info (scenario, index);
    return info != NULL ? info->parent : -1;
}

gboolean
throng_journey_checks_total (const ThrongScenarioSummary *scenario, guint64 *passes, guint64 *fails)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);

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
throng_journey_data_exhausted (const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);

    return journey != NULL && THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, data_exhausted)
           && journey->data_exhausted;
}

guint64
throng_journey_step_retry_attempts (const ThrongScenarioSummary *scenario, guint index)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);

    if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, retry_attempts)
        || journey->retry_attempts == NULL || index >= scenario->n_steps)
        return 0;
    return journey->retry_attempts[index];
}

guint64
throng_journey_retry_attempts (const ThrongScenarioSummary *scenario)
{
    const ThrongScenarioJourney *journey = throng_journey_get (scenario);

    if (journey == NULL
        || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, retry_attempts_total))
        return 0;
    return journey->retry_attempts_total;
}

guint64
throng_summary_get_retry_attempts (const ThrongSummary *summary)
{
    return THRONG_STRUCT_HAS (summary, ThrongSummary, retry_attempts) ? summary->retry_attempts
                                                                        : 0;
}

const char *
throng_step_kind_name (ThrongStepKind kind)
{
    switch (kind) {
    case THRONG_STEP_GROUP:
        return "group";
    case THRONG_STEP_PARALLEL:
        return "parallel";
    default:
        return "request";
    }
}

gboolean
throng_step_kind_is_transaction (ThrongStepKind kind)
{
    return kind == THRONG_STEP_GROUP || kind == THRONG_STEP_PARALLEL;
}

gboolean
throng_step_protocol_is_group (const char *protocol)
{
    return protocol == NULL || strcmp (protocol, "group") == 0;
}

/* A NULL label is the empty one. */
static const char *
step_label (const ThrongScenarioSummary *scenario, guint step)
{
    return scenario->steps[step].label != NULL ? scenario->steps[step].label : "";
}

char *
throng_step_display_name (const ThrongScenarioSummary *scenario, guint step)
{
    g_return_val_if_fail (scenario != NULL, NULL);
    g_return_val_if_fail (step < scenario->n_steps, NULL);

    const char *label = step_label (scenario, step);

    for (guint i = 0; i < scenario->n_steps; i++)
        if (i != step && strcmp (step_label (scenario, i), label) == 0)
            return g_strdup_printf ("%s%s[%u]", label, *label != '\0' ? " " : "", step);
    return g_strdup (label);
}
