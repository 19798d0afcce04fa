/* SPDX-License-Identifier: MIT */
/*
 * The report's checks section, as k6 shows checks: per scenario, each
 * check with its passes, fails and rate, and all of them together; and a
 * note for a scenario whose data set ran out of rows.
 */
#include "page.h"


static void
checks_text (GString *out, const char *text)
{
    g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);
    g_string_append (out, escaped);
}

static void
checks_rate (GString *out, guint64 passes, guint64 fails)
{
    guint64 total = passes + fails;
    g_string_append_printf (out, "%.2f%%",
                            total > 0 ? 100.0 * (gdouble)passes / (gdouble)total : 100.0);
}

void
html_checks_append (GString *out, const ThrongSummary *summary)
{
    gboolean any = FALSE;

    for (guint s = 0; s < summary->n_scenarios; s++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[s];
        const ThrongScenarioJourney *journey = throng_journey_get (scenario);
        guint64 passes, fails;

        if (!throng_journey_checks_total (scenario, &passes, &fails) && !throng_journey_data_exhausted (scenario))
            continue;
        if (!any)
            g_string_append (out, "<section id=\"checks\">\n<h2>Checks</h2>\n");
        any = TRUE;
        if (throng_journey_data_exhausted (scenario)) {
            g_string_append (out, "<p class=\"note\">Scenario <b>");
            checks_text (out, scenario->name);
            g_string_append (out, "</b>: its data set ran out of rows (<code>on_exhausted: "
                                  "stop</code>); its users stopped early.</p>\n");
        }
        if (journey == NULL || journey->n_checks == 0)
            continue;
        g_string_append (out, "<table class=\"summary checks\">\n<thead><tr><th>");
        checks_text (out, scenario->name);
        g_string_append (out, "</th><th>passes</th><th>fails</th><th>rate</th></tr></thead>\n"
                              "<tbody>\n");
        for (guint c = 0; c < journey->n_checks; c++) {
            const ThrongCheckSummary *check = &journey->checks[c];
            g_string_append_printf (out, "<tr class=\"step%s\"><td class=\"name\">",
                                    check->fails > 0 ? " failed" : "");
            checks_text (out, check->name);
            g_string_append_printf (
                out, "</td><td>%" G_GUINT64_FORMAT "</td><td>%" G_GUINT64_FORMAT "</td><td>",
                check->passes, check->fails);
            checks_rate (out, check->passes, check->fails);
            g_string_append (out, "</td></tr>\n");
        }
        g_string_append_printf (
            out,
            "<tr class=\"total\"><td class=\"name\">all checks</td><td>%" G_GUINT64_FORMAT
            "</td><td>%" G_GUINT64_FORMAT "</td><td>",
            passes, fails);
        checks_rate (out, passes, fails);
        g_string_append (out, "</td></tr>\n</tbody>\n</table>\n");
    }
    if (any)
        g_string_append (out, "</section>\n");
}
