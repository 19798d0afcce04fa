/* SPDX-License-Identifier: MIT */
/*
 * The checks' counters as Prometheus sees them: per scenario and check, the
 * passes and fails so far (the snapshots' intervals added up, then the
 * final summary's totals), written as throng_checks_total{scenario, check,
 * result="pass"|"fail"}.  A check is named by its scenario and name, as
 * the JSON summary names it.  On the main thread.
 */
#include <string.h>

#include "remote-write.h"

typedef struct {
    char *scenario;
    char *name;
    guint64 passes;
    guint64 fails;
} CheckCount;

struct _RemoteChecks {
    GArray *counts;             /* CheckCount, in the order snapshots first name them */
};

RemoteChecks *
remote_checks_new (void)
{
    RemoteChecks *checks = g_new0 (RemoteChecks, 1);

    checks->counts = g_array_new (FALSE, TRUE, sizeof (CheckCount));
    return checks;
}

void
remote_checks_free (RemoteChecks *checks)
{
    if (checks == NULL)
        return;
    for (guint i = 0; i < checks->counts->len; i++) {
        CheckCount *count = &g_array_index (checks->counts, CheckCount, i);
        g_free (count->scenario);
        g_free (count->name);
    }
    g_array_unref (checks->counts);
    g_free (checks);
}

static CheckCount *
lookup (RemoteChecks *checks, const char *scenario, const char *name)
{
    for (guint i = 0; i < checks->counts->len; i++) {
        CheckCount *count = &g_array_index (checks->counts, CheckCount, i);
        if (strcmp (count->scenario, scenario) == 0 && strcmp (count->name, name) == 0)
            return count;
    }
    CheckCount fresh = { .scenario = g_strdup (scenario), .name = g_strdup (name) };
    g_array_append_val (checks->counts, fresh);
    return &g_array_index (checks->counts, CheckCount, checks->counts->len - 1);
}

void
remote_checks_take (RemoteChecks *checks, const ThrongSummary *summary, gboolean replace)
{
    if (replace)
        for (guint i = 0; i < checks->counts->len; i++) {
            CheckCount *count = &g_array_index (checks->counts, CheckCount, i);
            count->passes = count->fails = 0;
        }
    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        const ThrongScenarioJourney *journey = scenario->journey;

        if (journey == NULL || !THRONG_STRUCT_HAS (journey, ThrongScenarioJourney, n_checks))
            continue;
        for (guint c = 0; c < journey->n_checks; c++) {
            CheckCount *count = lookup (checks, scenario->name, journey->checks[c].name);
            count->passes += journey->checks[c].passes;
            count->fails += journey->checks[c].fails;
        }
    }
}

/* A label value as the text format wants it: backslash, double quote and newline escaped. */
static void
append_label (GString *out, const char *name, const char *value)
{
    g_string_append_printf (out, "%s=\"", name);
    for (const char *p = value; *p != '\0'; p++) {
        if (*p == '\n')
            g_string_append (out, "\\n");
        else {
            if (*p == '\\' || *p == '"')
                g_string_append_c (out, '\\');
            g_string_append_c (out, *p);
        }
    }
    g_string_append_c (out, '"');
}

void
remote_checks_render (const RemoteChecks *checks, GString *out)
{
    if (checks->counts->len == 0)
        return;
    g_string_append (out, "# HELP throng_checks_total Checks evaluated, by result (pass, fail).\n"
                          "# TYPE throng_checks_total counter\n");
    for (guint i = 0; i < checks->counts->len; i++) {
        const CheckCount *count = &g_array_index (checks->counts, CheckCount, i);

        for (guint r = 0; r < 2; r++) {
            g_string_append (out, "throng_checks_total{");
            append_label (out, "scenario", count->scenario);
            g_string_append_c (out, ',');
            append_label (out, "check", count->name);
            g_string_append_printf (out, ",result=\"%s\"} %" G_GUINT64_FORMAT "\n",
                                    r == 0 ? "pass" : "fail",
                                    r == 0 ? count->passes : count->fails);
        }
    }
}
