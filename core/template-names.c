/* SPDX-License-Identifier: MIT */
/*
 * The names a template reads, for the messages that say which one a
 * misspelt name meant (template.c compiles them).
 */
#include "template-private.h"

#include <string.h>

const char *const throng_template_last_names[]
    = { "status", "duration_ms", "ttfb_ms", "connect_ms", "tls_ms", NULL };

/* Names a template can read, for suggestions; `vars.`, `data.` … stand for their namespaces. */
static const char *const namespaces[] = {
    "vars", "data", "env", "user", "scenario", "worker", "random", "time", "counter", "builtin",
    "setup", "last", NULL,
};
static const char *const bare_names[] = { "iteration", "arrival", "uuid", NULL };
static const char *const user_members[] = { "id", NULL };
static const char *const scenario_members[] = { "name", NULL };
static const char *const worker_members[] = { "id", NULL };
static const char *const time_members[] = { "unix", "unix_ms", "iso", NULL };
static const char *const random_members[] = { "int", "string", NULL };

char *
throng_template_unknown_name (const char *expr)
{
    const char *dot = strchr (expr, '.');
    const char *suggestion = NULL;
    g_autofree char *better = NULL;

    if (dot == NULL) {
        suggestion = throng_node_suggest (expr, bare_names);
        if (suggestion == NULL)
            suggestion = throng_node_suggest (expr, namespaces);
        if (suggestion != NULL)
            better = g_strdup (suggestion);
    } else {
        g_autofree char *ns = g_strndup (expr, dot - expr);
        const char *member = dot + 1;
        const char *const *members = NULL;

        if (strcmp (ns, "user") == 0)
            members = user_members;
        else if (strcmp (ns, "scenario") == 0)
            members = scenario_members;
        else if (strcmp (ns, "worker") == 0)
            members = worker_members;
        else if (strcmp (ns, "time") == 0)
            members = time_members;
        else if (strcmp (ns, "random") == 0)
            members = random_members;
        else if (strcmp (ns, "last") == 0)
            members = throng_template_last_names;
        if (members != NULL) {
            g_autofree char *bare = g_strndup (member, strcspn (member, "("));
            suggestion = throng_node_suggest (bare, members);
            if (suggestion != NULL && strcmp (ns, "random") == 0)
                better = g_strdup_printf ("random.%s", strcmp (suggestion, "int") == 0
                                                          ? "int(A, B)"
                                                          : "string(N)");
            else if (suggestion != NULL)
                better = g_strdup_printf ("%s.%s", ns, suggestion);
        } else if (!g_strv_contains (namespaces, ns)) {
            suggestion = throng_node_suggest (ns, namespaces);
            if (suggestion != NULL)
                better = g_strdup_printf ("%s.%s", suggestion, member);
        }
    }
    /* A "${" left open reads up to the next "}", however far: quote its start. */
    g_autofree char *shown = throng_excerpt (expr);
    if (better != NULL)
        return g_strdup_printf ("unknown variable %s; did you mean '%s'?", shown, better);
    if (g_str_has_prefix (expr, "last."))
        return g_strdup_printf ("unknown name %s: of the iteration's last request, a template "
                               "reads last.status, last.duration_ms, last.ttfb_ms, "
                               "last.connect_ms and last.tls_ms; extract what else it needs "
                               "into vars",
                               shown);
    return g_strdup_printf ("unknown variable %s; a template reads vars.NAME, data.COLUMN, "
                           "env.NAME, user.id, iteration, arrival, scenario.name, worker.id, "
                           "random.int(A, B), random.string(N), uuid, time.unix, time.unix_ms, "
                           "time.iso, counter.NAME or last.NAME",
                           shown);
}

