/* SPDX-License-Identifier: MIT */
/*
 * A reporter's `filter:` (docs/reporters.md, "Filters"): the scenarios and
 * steps whose samples a reporter receives, only the failures, or a share
 * of the requests.  The share is decided by a hash of the request's
 * identity (scenario, user, iteration, step), never by arrival order or a
 * random draw, so that a rerun of the same plan writes the same rows
 * whatever the workers' interleaving.  Summaries and snapshots are never
 * filtered: a filter chooses rows, not figures.
 */
#include "reporter-filter-private.h"

#include <string.h>

/* sample: the share of requests kept, in millionths (so 0.0001% is the finest). */
#define SHARE_ONE 1000000u

struct _ThrongReporterFilter {
    gboolean errors_only;
    guint32 share;              /* kept per SHARE_ONE requests */
    guint n_scenarios;
    guint8 **keep;              /* per scenario, per step: kept; NULL when every step is */
    guint *n_steps;             /* per scenario: the length of its keep[] */
    GArray *kept;               /* ThrongSample: the last batch's survivors, reused */
};

typedef struct {
    const ThrongNode *scenarios;
    const ThrongNode *steps;
    gboolean errors_only;
    const ThrongNode *sample;
} FilterFields;

static const ThrongOption filter_table[] = {
    { "scenarios", THRONG_OPTION_NODE, offsetof (FilterFields, scenarios) },
    { "steps", THRONG_OPTION_NODE, offsetof (FilterFields, steps) },
    { "errors_only", THRONG_OPTION_BOOL, offsetof (FilterFields, errors_only) },
    { "sample", THRONG_OPTION_NODE, offsetof (FilterFields, sample) },
    { NULL },
};

void
throng_reporter_filter_free (ThrongReporterFilter *filter)
{
    if (filter == NULL)
        return;
    if (filter->keep != NULL) {
        for (guint s = 0; s < filter->n_scenarios; s++)
            g_free (filter->keep[s]);
        g_free (filter->keep);
        g_free (filter->n_steps);
    }
    if (filter->kept != NULL)
        g_array_unref (filter->kept);
    g_free (filter);
}

/* "10%", "0.5%": a share of SHARE_ONE, above 0 and at most all. */
static gboolean
read_share (const ThrongNode *node, guint32 *out, GError **error)
{
    const char *text = throng_node_scalar (node);
    gsize len = text != NULL ? strlen (text) : 0;
    g_autofree char *number = NULL;
    char *end = NULL;

    if (text == NULL || len < 2 || text[len - 1] != '%' || !g_ascii_isdigit (text[0])) {
        g_autofree char *got = throng_node_describe (node);
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "sample must be a percentage such as 10%% or 0.5%%, got %s", got);
        return FALSE;
    }
    number = g_strndup (text, len - 1);
    for (const char *p = number; *p != '\0'; p++) {
        if (!g_ascii_isdigit (*p) && *p != '.') {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                                   "sample must be a percentage such as 10%% or 0.5%%, got '%s'",
                                   text);
            return FALSE;
        }
    }
    gdouble percent = g_ascii_strtod (number, &end);
    if (end == number || *end != '\0') {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "sample must be a percentage such as 10%% or 0.5%%, got '%s'", text);
        return FALSE;
    }
    gdouble share = percent * (SHARE_ONE / 100.0);
    if (share > SHARE_ONE || share < 0.5) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "sample must be above 0%% and at most 100%% (the finest is "
                               "0.0001%%), got '%s'",
                               text);
        return FALSE;
    }
    *out = (guint32) (share + 0.5);
    return TRUE;
}

/* The names under @list (a sequence of scalars, or one scalar), each checked by the caller. */
static gboolean
expect_names (const ThrongNode *list, const char *what, GError **error)
{
    if (!throng_node_expect_kind (list, THRONG_NODE_SEQUENCE, what, error))
        return FALSE;
    if (throng_node_n_children (list) == 0) {
        throng_node_set_error (list, error, THRONG_PLAN_ERROR_INVALID,
                               "an empty list selects nothing; leave the key out to keep all");
        return FALSE;
    }
    for (guint i = 0; i < throng_node_n_children (list); i++)
        if (!throng_node_expect_kind (throng_node_child (list, i), THRONG_NODE_SCALAR, "a name",
                                      error))
            return FALSE;
    return TRUE;
}

static gboolean
list_has (const ThrongNode *list, const char *name)
{
    for (guint i = 0; i < throng_node_n_children (list); i++)
        if (strcmp (throng_node_scalar (throng_node_child (list, i)), name) == 0)
            return TRUE;
    return FALSE;
}

/* "'a', 'b'", at most LIST_NAMES_MAX of them, then "…". */
#define LIST_NAMES_MAX 8

static char *
list_names (const char *const *names)
{
    GString *out = g_string_new (NULL);
    guint i = 0;

    for (; names[i] != NULL && i < LIST_NAMES_MAX; i++)
        g_string_append_printf (out, "%s'%s'", i > 0 ? ", " : "", names[i]);
    if (names[i] != NULL)
        g_string_append (out, ", …");
    return g_string_free (out, FALSE);
}

/* Checks each name of @list against @names (NULL-terminated); an error names the nearest. */
static gboolean
check_names (const ThrongNode *list, const char *const *names, const char *kind, const char *where,
             GError **error)
{
    for (guint i = 0; i < throng_node_n_children (list); i++) {
        const ThrongNode *item = throng_node_child (list, i);
        const char *name = throng_node_scalar (item);

        if (g_strv_contains (names, name))
            continue;
        const char *near = throng_node_suggest (name, names);
        if (near != NULL)
            throng_node_set_error (item, error, THRONG_PLAN_ERROR_INVALID,
                                   "no %s '%s' %s; did you mean '%s'?", kind, name, where, near);
        else {
            g_autofree char *all = list_names (names);
            throng_node_set_error (item, error, THRONG_PLAN_ERROR_INVALID,
                                   "no %s '%s' %s; there %s %s", kind, name, where,
                                   names[1] == NULL ? "is" : "are", all);
        }
        return FALSE;
    }
    return TRUE;
}

/* Marks, per scenario and step, what @fields.scenarios and @fields.steps select. */
static gboolean
select_steps (ThrongReporterFilter *filter, const ThrongPlan *plan, const FilterFields *fields,
              GError **error)
{
    g_autoptr (GPtrArray) scenario_names = g_ptr_array_new ();
    g_autoptr (GPtrArray) step_labels = g_ptr_array_new ();

    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        g_ptr_array_add (scenario_names, scenario->name);
    }
    g_ptr_array_add (scenario_names, NULL);
    if (fields->scenarios != NULL
        && (!expect_names (fields->scenarios, "a list of scenario names", error)
            || !check_names (fields->scenarios, (const char *const *) scenario_names->pdata,
                             "scenario", "in this plan", error)))
        return FALSE;

    /* Steps are looked for in the scenarios kept, so "no step X in scenario Y" is exact. */
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);

        if (fields->scenarios != NULL && !list_has (fields->scenarios, scenario->name))
            continue;
        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            gboolean seen = FALSE;

            for (guint j = 0; j < step_labels->len && !seen; j++)
                seen = strcmp (g_ptr_array_index (step_labels, j), step->label) == 0;
            if (!seen)
                g_ptr_array_add (step_labels, step->label);
        }
    }
    g_ptr_array_add (step_labels, NULL);
    if (fields->steps != NULL
        && (!expect_names (fields->steps, "a list of step names", error)
            || !check_names (fields->steps, (const char *const *) step_labels->pdata, "step",
                             fields->scenarios != NULL ? "in the scenarios selected"
                                                       : "in this plan",
                             error)))
        return FALSE;

    if (fields->scenarios == NULL && fields->steps == NULL)
        return TRUE;
    filter->n_scenarios = plan->scenarios->len;
    filter->keep = g_new0 (guint8 *, MAX (filter->n_scenarios, 1));
    filter->n_steps = g_new0 (guint, MAX (filter->n_scenarios, 1));
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        gboolean scenario_kept
            = fields->scenarios == NULL || list_has (fields->scenarios, scenario->name);

        filter->keep[s] = g_new0 (guint8, MAX (scenario->steps->len, 1));
        filter->n_steps[s] = scenario->steps->len;
        for (guint i = 0; i < scenario->steps->len; i++) {
            const ThrongPlanStep *step = g_ptr_array_index (scenario->steps, i);
            gboolean step_kept = fields->steps == NULL || list_has (fields->steps, step->label);

            filter->keep[s][i] = scenario_kept && step_kept;
        }
    }
    return TRUE;
}

ThrongReporterFilter *
throng_reporter_filter_new (const ThrongPlan *plan, const ThrongNode *node, GError **error)
{
    FilterFields fields = { 0 };
    g_autoptr (ThrongReporterFilter) filter = g_new0 (ThrongReporterFilter, 1);

    if (!throng_node_expect_kind (node, THRONG_NODE_MAP,
                                  "a map such as '{ errors_only: true }'", error)
        || !throng_options_apply (node, filter_table, &fields, FALSE, "filter", error))
        return NULL;
    filter->errors_only = fields.errors_only;
    filter->share = SHARE_ONE;
    if (fields.sample != NULL && !read_share (fields.sample, &filter->share, error))
        return NULL;
    if (!select_steps (filter, plan, &fields, error))
        return NULL;
    filter->kept = g_array_new (FALSE, FALSE, sizeof (ThrongSample));
    return g_steal_pointer (&filter);
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static guint64
mix (guint64 x)
{
    x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Whether the request of @sample is in the kept share: the same answer in every run. */
static gboolean
in_share (const ThrongReporterFilter *filter, const ThrongSample *sample)
{
    if (filter->share >= SHARE_ONE)
        return TRUE;
    guint64 h = mix (sample->scenario);
    h = mix (h ^ sample->user);
    h = mix (h ^ sample->iteration);
    h = mix (h ^ sample->step);
    return h % SHARE_ONE < filter->share;
}

static gboolean
keeps (const ThrongReporterFilter *filter, const ThrongSample *sample)
{
    if (filter->errors_only && sample->error == THRONG_ERROR_NONE)
        return FALSE;
    if (filter->keep != NULL
        && (sample->scenario >= filter->n_scenarios
            || sample->step >= filter->n_steps[sample->scenario]
            || !filter->keep[sample->scenario][sample->step]))
        return FALSE;
    return in_share (filter, sample);
}

const ThrongSample *
throng_reporter_filter_apply (ThrongReporterFilter *filter, const ThrongSample *samples, gsize n,
                              gsize *n_kept)
{
    g_array_set_size (filter->kept, 0);
    for (gsize i = 0; i < n; i++)
        if (keeps (filter, &samples[i]))
            g_array_append_val (filter->kept, samples[i]);
    *n_kept = filter->kept->len;
    return (const ThrongSample *) filter->kept->data;
}
