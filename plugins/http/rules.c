/* SPDX-License-Identifier: MIT */
/*
 * A step's extractors and checks (rules.h): read from the plan through
 * option tables, compiled once (JSONPath, GRegex, status lists,
 * durations), declared to the scenario's scope (each extractor's
 * variable, each check's row in the reports), and run on each final
 * response by http_rules_judge() (judge.c).  The evaluation of one rule
 * is in match.c.
 */
#include "plan.h"
#include "rules.h"

#include <string.h>

/* One entry of `check:` as written. */
typedef struct {
    const ThrongNode *status;
    char *body_contains;
    char *body_regex;
    char *json;
    char *header;
    const ThrongNode *exists;
    char *equals;
    char *matches;
    char *contains;
    gint64 duration_max;
    const ThrongNode *url;
    char *protocol;
    gint64 ttfb_max;
    gint64 connect_max;
    gint64 tls_max;
} CheckSpec;

#define CHECK(n, t, field) .name = (n), .type = (t), .offset = offsetof (CheckSpec, field)

static const ThrongOption check_table[] = {
    { CHECK ("status", THRONG_OPTION_NODE, status) },
    { CHECK ("body_contains", THRONG_OPTION_STRING, body_contains) },
    { CHECK ("body_regex", THRONG_OPTION_STRING, body_regex) },
    { CHECK ("json", THRONG_OPTION_STRING, json) },
    { CHECK ("header", THRONG_OPTION_STRING, header) },
    { CHECK ("exists", THRONG_OPTION_NODE, exists) },
    { CHECK ("equals", THRONG_OPTION_STRING, equals) },
    { CHECK ("matches", THRONG_OPTION_STRING, matches) },
    { CHECK ("contains", THRONG_OPTION_STRING, contains) },
    { CHECK ("duration_max", THRONG_OPTION_DURATION, duration_max), .min = 0,
      .max = G_GINT64_CONSTANT (86400000000) },
    { CHECK ("url", THRONG_OPTION_NODE, url) },
    { CHECK ("protocol", THRONG_OPTION_STRING, protocol) },
    { CHECK ("ttfb_max", THRONG_OPTION_DURATION, ttfb_max), .min = 0,
      .max = G_GINT64_CONSTANT (86400000000) },
    { CHECK ("connect_max", THRONG_OPTION_DURATION, connect_max), .min = 0,
      .max = G_GINT64_CONSTANT (86400000000) },
    { CHECK ("tls_max", THRONG_OPTION_DURATION, tls_max), .min = 0,
      .max = G_GINT64_CONSTANT (86400000000) },
    { NULL },
};

/* `url: { ... }`: how the final URL is compared. */
typedef struct {
    char *equals;
    char *contains;
    char *matches;
} UrlSpec;

#define URL_TEST(n, field)                                                                         \
    .name = (n), .type = THRONG_OPTION_STRING, .offset = offsetof (UrlSpec, field)

static const ThrongOption url_table[] = {
    { URL_TEST ("equals", equals) },
    { URL_TEST ("contains", contains) },
    { URL_TEST ("matches", matches) },
    { NULL },
};

/* The versions a `protocol` check may name: what a sample's protocol says. */
static const char *const protocols[] = { "http/1.1", "h2", NULL };

/* One entry of `extract:` as written. */
typedef struct {
    char *json;
    char *regex;
    guint64 group;
    char *header;
    char *cookie;
    gboolean status;
    char *fallback;
    gboolean all;
} ExtractSpec;

#define EXTRACT(n, t, field) .name = (n), .type = (t), .offset = offsetof (ExtractSpec, field)

static const ThrongOption extract_table[] = {
    { EXTRACT ("json", THRONG_OPTION_STRING, json) },
    { EXTRACT ("regex", THRONG_OPTION_STRING, regex) },
    { EXTRACT ("group", THRONG_OPTION_UINT, group), .min = 0, .max = 99 },
    { EXTRACT ("header", THRONG_OPTION_STRING, header) },
    { EXTRACT ("cookie", THRONG_OPTION_STRING, cookie) },
    { EXTRACT ("status", THRONG_OPTION_BOOL, status) },
    { EXTRACT ("default", THRONG_OPTION_STRING, fallback) },
    { EXTRACT ("all", THRONG_OPTION_BOOL, all) },
    { NULL },
};

static void
extractor_clear (gpointer data)
{
    HttpExtractor *extractor = data;

    g_free (extractor->var);
    g_free (extractor->arg);
    g_clear_object (&extractor->path);
    g_clear_pointer (&extractor->scan, http_json_path_free);
    g_clear_pointer (&extractor->regex, g_regex_unref);
    g_clear_pointer (&extractor->pattern, throng_template_free);
    g_free (extractor->fallback);
}

static void
check_clear (gpointer data)
{
    HttpCheck *check = data;

    g_free (check->name);
    g_free (check->subject);
    g_clear_object (&check->path);
    g_clear_pointer (&check->scan, http_json_path_free);
    g_free (check->value);
    g_clear_pointer (&check->regex, g_regex_unref);
    g_clear_pointer (&check->template, throng_template_free);
}

void
http_rules_free (HttpRules *rules)
{
    if (rules == NULL)
        return;
    g_array_unref (rules->extractors);
    g_array_unref (rules->checks);
    g_free (rules);
}

/* A JSONPath, or a located error at @node. */
static JsonPath *
path_compile (const ThrongNode *node, const char *text, GError **error)
{
    g_autoptr (JsonPath) path = json_path_new ();
    g_autoptr (GError) local = NULL;

    if (!json_path_compile (path, text, &local)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "'%s' is not a valid JSONPath: %s", text, local->message);
        return NULL;
    }
    return g_steal_pointer (&path);
}

/*
 * A regex, or a located error at @node that says where in the pattern
 * PCRE stopped ("at character 3 of the pattern").
 */
static GRegex *
regex_compile (const ThrongNode *node, const char *pattern, GError **error)
{
    g_autoptr (GError) local = NULL;
    GRegex *regex = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, &local);
    const char *at;

    if (regex != NULL)
        return regex;
    /* GRegex words it "Error while compiling regular expression ‘P’ at char N: why". */
    at = strstr (local->message, " at char ");
    if (at != NULL)
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "invalid regex '%s' at character %s", pattern,
                               at + strlen (" at char "));
    else
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID, "invalid regex '%s': %s",
                               pattern, local->message);
    return NULL;
}

/*
 * A value the plan writes (a check's expected value, a pattern), compiled
 * as a template against @scope: its names are checked now, with the
 * error at their character.  Without substitutions it is its literal
 * text in *@literal (`$${` read as `${`) and *@tpl is NULL, so that a
 * fixed value costs what it always did.
 */
static gboolean
value_compile (ThrongScope *scope, const ThrongNode *node, char **literal, ThrongTemplate **tpl,
               GError **error)
{
    ThrongTemplate *compiled = throng_template_compile (scope, node, error);
    const char *text;

    if (compiled == NULL)
        return FALSE;
    text = throng_template_get_literal (compiled, NULL);
    if (text != NULL) {
        *literal = g_strdup (text);
        throng_template_free (compiled);
        *tpl = NULL;
    } else {
        *literal = NULL;
        *tpl = compiled;
    }
    return TRUE;
}

/* A pattern: compiled now when literal, per value at run time when it is a template. */
static gboolean
pattern_compile (ThrongScope *scope, const ThrongNode *node, GRegex **regex, ThrongTemplate **tpl,
                 GError **error)
{
    g_autofree char *literal = NULL;

    if (!value_compile (scope, node, &literal, tpl, error))
        return FALSE;
    *regex = NULL;
    if (*tpl != NULL)
        return TRUE;
    *regex = regex_compile (node, literal, error);
    return *regex != NULL;
}

/*
 * Fields that name something (a JSONPath, a header or cookie name) are
 * not templates; `${` in one is refused rather than read as text.
 */
static gboolean
refuse_template (const ThrongNode *node, const char *text, const char *what, const char *why,
                 GError **error)
{
    if (text == NULL || strstr (text, "${") == NULL)
        return TRUE;
    throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID, "'${' in %s: %s", what, why);
    return FALSE;
}

static gboolean
extractor_load (HttpRules *rules, ThrongScope *scope, const ThrongNode *key,
                const ThrongNode *value, GError **error)
{
    ExtractSpec spec = { 0 };
    HttpExtractor extractor = { 0 };
    const char *var = throng_node_scalar (key);
    guint sources;
    gboolean ok = FALSE;

    if (throng_node_kind (value) != THRONG_NODE_MAP) {
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                               "extractor '%s' must be a map like { json: $.token }", var);
        return FALSE;
    }
    if (!throng_options_apply (value, extract_table, &spec, TRUE, "extractor", error))
        goto out;
    sources = (spec.json != NULL) + (spec.regex != NULL) + (spec.header != NULL)
              + (spec.cookie != NULL) + (spec.status ? 1 : 0);
    if (sources != 1) {
        throng_node_set_error (value, error, THRONG_PLAN_ERROR_INVALID,
                               "extractor '%s' takes exactly one of json, regex, header, "
                               "cookie or status: true",
                               var);
        goto out;
    }
    if (spec.group != 0 && spec.regex == NULL) {
        throng_node_set_error (throng_node_lookup (value, "group"), error,
                               THRONG_PLAN_ERROR_INVALID, "group goes with regex");
        goto out;
    }
    if (spec.all && spec.json == NULL) {
        throng_node_set_error (throng_node_lookup (value, "all"), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "all: true goes with json (a list of every value the path finds)");
        goto out;
    }
    if (spec.all && spec.fallback != NULL) {
        throng_node_set_error (throng_node_lookup (value, "default"), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "default does not go with all: true (a path that finds nothing "
                               "gives the empty list [])");
        goto out;
    }

    if (!refuse_template (throng_node_lookup (value, "json"), spec.json, "a JSONPath",
                          "JSONPaths are not templates; a regex extractor's pattern is", error)
        || !refuse_template (throng_node_lookup (value, "header"), spec.header, "a header name",
                             "header names are not templates; write the name the server sends",
                             error)
        || !refuse_template (throng_node_lookup (value, "cookie"), spec.cookie, "a cookie name",
                             "cookie names are not templates; write the name the server sets",
                             error))
        goto out;
    extractor.var = g_strdup (var);
    extractor.fallback = g_steal_pointer (&spec.fallback);
    if (spec.json != NULL) {
        extractor.kind = HTTP_EXTRACT_JSON;
        extractor.arg = g_steal_pointer (&spec.json);
        extractor.path = path_compile (throng_node_lookup (value, "json"), extractor.arg, error);
        if (extractor.path == NULL)
            goto out;
        /* a plain path, with `[*]` and `.*` too when every match is wanted, is a scan */
        extractor.all = spec.all;
        extractor.scan = spec.all ? http_json_path_new_all (extractor.arg)
                                  : http_json_path_new (extractor.arg);
        rules->needs_body = rules->needs_json = TRUE;
    } else if (spec.regex != NULL) {
        extractor.kind = HTTP_EXTRACT_REGEX;
        extractor.arg = g_steal_pointer (&spec.regex);
        if (!pattern_compile (scope, throng_node_lookup (value, "regex"), &extractor.regex,
                              &extractor.pattern, error))
            goto out;
        /* A templated pattern's groups are counted when it is compiled, per value. */
        if (extractor.regex != NULL
            && (gint)spec.group > g_regex_get_capture_count (extractor.regex)) {
            throng_node_set_error (throng_node_lookup (value, "group"), error,
                                   THRONG_PLAN_ERROR_RANGE,
                                   "group %u, but the regex has %d group(s)", (guint)spec.group,
                                   g_regex_get_capture_count (extractor.regex));
            goto out;
        }
        extractor.group = (guint)spec.group;
        rules->needs_body = TRUE;
    } else if (spec.header != NULL) {
        extractor.kind = HTTP_EXTRACT_HEADER;
        extractor.arg = g_steal_pointer (&spec.header);
        rules->needs_headers = TRUE;
    } else if (spec.cookie != NULL) {
        extractor.kind = HTTP_EXTRACT_COOKIE;
        extractor.arg = g_steal_pointer (&spec.cookie);
        rules->needs_headers = TRUE;
    } else {
        extractor.kind = HTTP_EXTRACT_STATUS;
        extractor.arg = g_strdup ("status");
    }
    extractor.slot = throng_scope_declare_var (scope, var, key, error);
    if (extractor.slot < 0)
        goto out;
    g_array_append_val (rules->extractors, extractor);
    memset (&extractor, 0, sizeof extractor);
    ok = TRUE;

out:
    extractor_clear (&extractor);
    throng_options_clear (extract_table, &spec);
    return ok;
}

/* `status: 200`, `status: "2xx"` or `status: [200, 201]`: its accepted set and its name. */
static gboolean
status_load (HttpCheck *check, const ThrongNode *node, GError **error)
{
    g_autoptr (GString) list = g_string_new (NULL);
    g_autoptr (GError) local = NULL;

    if (throng_node_kind (node) == THRONG_NODE_SCALAR && !throng_node_is_null (node)) {
        g_string_append (list, throng_node_scalar (node));
    } else if (throng_node_kind (node) == THRONG_NODE_SEQUENCE
               && throng_node_n_children (node) > 0) {
        for (guint i = 0; i < throng_node_n_children (node); i++) {
            const ThrongNode *item = throng_node_child (node, i);
            if (throng_node_kind (item) != THRONG_NODE_SCALAR) {
                throng_node_set_error (item, error, THRONG_PLAN_ERROR_TYPE,
                                       "a status list holds statuses like 200");
                return FALSE;
            }
            g_string_append_printf (list, "%s%s", i > 0 ? "," : "", throng_node_scalar (item));
        }
    } else {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "status takes a status (200), a class (2xx) or a list [200, 201]");
        return FALSE;
    }
    if (!http_expect_parse (list->str, check->expect, &local)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID, "%s", local->message);
        return FALSE;
    }
    g_auto (GStrv) items = g_strsplit (list->str, ",", -1);
    g_autofree char *spaced = g_strjoinv (" or ", items);
    check->name = g_strdup_printf ("status is %s", spaced);
    return TRUE;
}

/* The test a json or header check makes: exists (the default), equals, matches or contains. */
static gboolean
test_load (HttpCheck *check, ThrongScope *scope, CheckSpec *spec, const ThrongNode *map,
           gboolean json, GError **error)
{
    const char *subject = json ? spec->json : spec->header;
    const char *what = json ? "json" : "header";
    guint tests = (spec->exists != NULL) + (spec->equals != NULL) + (spec->matches != NULL)
                  + (spec->contains != NULL);
    g_autofree char *label = json ? g_strdup (subject) : g_strdup_printf ("header %s", subject);

    if (tests > 1) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_INVALID,
                               "a %s check takes one of exists, equals or %s", what,
                               json ? "matches" : "contains");
        return FALSE;
    }
    if ((json && spec->contains != NULL) || (!json && spec->matches != NULL)) {
        throng_node_set_error (throng_node_lookup (map, json ? "contains" : "matches"), error,
                               THRONG_PLAN_ERROR_INVALID, "a %s check takes exists, equals or %s",
                               what, json ? "matches" : "contains");
        return FALSE;
    }
    /* Reports name a check by its text as written, substitutions and all. */
    if (spec->equals != NULL) {
        check->test = HTTP_TEST_EQUALS;
        if (!value_compile (scope, throng_node_lookup (map, "equals"), &check->value,
                            &check->template, error))
            return FALSE;
        check->name = g_strdup_printf ("%s equals %s", label, spec->equals);
    } else if (spec->matches != NULL) {
        check->test = HTTP_TEST_MATCHES;
        if (!pattern_compile (scope, throng_node_lookup (map, "matches"), &check->regex,
                              &check->template, error))
            return FALSE;
        check->name = g_strdup_printf ("%s matches /%s/", label, spec->matches);
    } else if (spec->contains != NULL) {
        check->test = HTTP_TEST_CONTAINS;
        if (!value_compile (scope, throng_node_lookup (map, "contains"), &check->value,
                            &check->template, error))
            return FALSE;
        check->name = g_strdup_printf ("%s contains %s", label, spec->contains);
    } else {
        gboolean exists = TRUE;
        if (spec->exists != NULL && !throng_node_get_bool (spec->exists, &exists, error))
            return FALSE;
        check->test = exists ? HTTP_TEST_EXISTS : HTTP_TEST_ABSENT;
        check->name = g_strdup_printf ("%s %s", label, exists ? "exists" : "does not exist");
    }
    return TRUE;
}

/* `url: TEXT` (equals) or `url: { equals | contains | matches: TEXT }`; values are templates. */
static gboolean
url_load (HttpCheck *check, ThrongScope *scope, const ThrongNode *node, GError **error)
{
    UrlSpec spec = { 0 };
    const ThrongNode *value = node;
    const char *text;
    gboolean ok = FALSE;

    if (throng_node_kind (node) == THRONG_NODE_MAP) {
        if (!throng_options_apply (node, url_table, &spec, TRUE, "a url check", error))
            goto out;
        if ((spec.equals != NULL) + (spec.contains != NULL) + (spec.matches != NULL) != 1) {
            throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                                   "a url check takes one of equals, contains or matches");
            goto out;
        }
        value = throng_node_lookup (node, spec.equals != NULL     ? "equals"
                                          : spec.contains != NULL ? "contains"
                                                                  : "matches");
    } else if (throng_node_kind (node) != THRONG_NODE_SCALAR || throng_node_is_null (node)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "url takes the URL the step should end at, or one of "
                               "{ equals: URL }, { contains: TEXT }, { matches: REGEX }");
        goto out;
    }
    text = throng_node_scalar (value);
    if (spec.matches != NULL) {
        check->test = HTTP_TEST_MATCHES;
        if (!pattern_compile (scope, value, &check->regex, &check->template, error))
            goto out;
        check->name = g_strdup_printf ("url matches /%s/", text);
    } else {
        check->test = spec.contains != NULL ? HTTP_TEST_CONTAINS : HTTP_TEST_EQUALS;
        if (!value_compile (scope, value, &check->value, &check->template, error))
            goto out;
        check->name = g_strdup_printf ("url %s %s", spec.contains != NULL ? "contains" : "equals",
                                       text);
    }
    ok = TRUE;
out:
    throng_options_clear (url_table, &spec);
    return ok;
}

static gboolean
protocol_load (HttpCheck *check, const ThrongNode *node, const char *protocol, GError **error)
{
    if (!g_strv_contains (protocols, protocol)) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "protocol '%s': a protocol check names http/1.1 or h2 (h2c "
                               "reports as h2)",
                               protocol);
        return FALSE;
    }
    check->subject = g_strdup (protocol);
    check->name = g_strdup_printf ("protocol is %s", protocol);
    return TRUE;
}

/* A timing check: the sample's @what measured against its most. */
static void
timing_load (HttpCheck *check, HttpCheckKind kind, const char *what, gint64 max_us,
             const ThrongNode *node)
{
    check->kind = kind;
    check->max_us = max_us;
    check->name = g_strdup_printf ("%s <= %s", what, throng_node_scalar (node));
}

static gboolean
check_load (HttpRules *rules, ThrongScope *scope, const ThrongNode *map, GError **error)
{
    CheckSpec spec = { .duration_max = -1, .ttfb_max = -1, .connect_max = -1, .tls_max = -1 };
    HttpCheck check = { 0 };
    guint subjects;
    gboolean ok = FALSE;

    if (throng_node_kind (map) != THRONG_NODE_MAP) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_TYPE,
                               "a check is a map like { status: 200 }");
        return FALSE;
    }
    if (!throng_options_apply (map, check_table, &spec, TRUE, "check", error))
        goto out;
    subjects = (spec.status != NULL) + (spec.body_contains != NULL) + (spec.body_regex != NULL)
               + (spec.json != NULL) + (spec.header != NULL) + (spec.duration_max >= 0)
               + (spec.url != NULL) + (spec.protocol != NULL) + (spec.ttfb_max >= 0)
               + (spec.connect_max >= 0) + (spec.tls_max >= 0);
    if (subjects != 1) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_INVALID,
                               "a check takes exactly one of status, body_contains, body_regex, "
                               "json, header, url, protocol, duration_max, ttfb_max, connect_max "
                               "or tls_max");
        goto out;
    }
    if (spec.json == NULL && spec.header == NULL
        && (spec.exists != NULL || spec.equals != NULL || spec.matches != NULL
            || spec.contains != NULL)) {
        throng_node_set_error (map, error, THRONG_PLAN_ERROR_INVALID,
                               "exists, equals, matches and contains go with json or header");
        goto out;
    }

    if (spec.status != NULL) {
        check.kind = HTTP_CHECK_STATUS;
        if (!status_load (&check, spec.status, error))
            goto out;
    } else if (spec.body_contains != NULL) {
        check.kind = HTTP_CHECK_BODY_CONTAINS;
        check.test = HTTP_TEST_CONTAINS;
        if (!value_compile (scope, throng_node_lookup (map, "body_contains"), &check.value,
                            &check.template, error))
            goto out;
        check.name = g_strdup_printf ("body contains %s", spec.body_contains);
        rules->needs_body = TRUE;
    } else if (spec.body_regex != NULL) {
        check.kind = HTTP_CHECK_BODY_REGEX;
        check.test = HTTP_TEST_MATCHES;
        if (!pattern_compile (scope, throng_node_lookup (map, "body_regex"), &check.regex,
                              &check.template, error))
            goto out;
        check.name = g_strdup_printf ("body matches /%s/", spec.body_regex);
        rules->needs_body = TRUE;
    } else if (spec.json != NULL) {
        check.kind = HTTP_CHECK_JSON;
        if (!refuse_template (throng_node_lookup (map, "json"), spec.json, "a JSONPath",
                              "JSONPaths are not templates; compare what it finds with "
                              "equals: \"${...}\"", error))
            goto out;
        check.path = path_compile (throng_node_lookup (map, "json"), spec.json, error);
        if (check.path == NULL || !test_load (&check, scope, &spec, map, TRUE, error))
            goto out;
        check.scan = http_json_path_new (spec.json);
        check.subject = g_steal_pointer (&spec.json);
        rules->needs_body = rules->needs_json = TRUE;
    } else if (spec.header != NULL) {
        check.kind = HTTP_CHECK_HEADER;
        rules->needs_headers = TRUE;
        if (!refuse_template (throng_node_lookup (map, "header"), spec.header, "a header name",
                              "header names are not templates; write the name the server sends",
                              error)
            || !test_load (&check, scope, &spec, map, FALSE, error))
            goto out;
        check.subject = g_steal_pointer (&spec.header);
    } else if (spec.url != NULL) {
        check.kind = HTTP_CHECK_URL;
        if (!url_load (&check, scope, spec.url, error))
            goto out;
    } else if (spec.protocol != NULL) {
        check.kind = HTTP_CHECK_PROTOCOL;
        check.test = HTTP_TEST_EQUALS;
        if (!protocol_load (&check, throng_node_lookup (map, "protocol"), spec.protocol, error))
            goto out;
    } else if (spec.ttfb_max >= 0) {
        timing_load (&check, HTTP_CHECK_TTFB, "ttfb", spec.ttfb_max,
                     throng_node_lookup (map, "ttfb_max"));
    } else if (spec.connect_max >= 0) {
        timing_load (&check, HTTP_CHECK_CONNECT, "connect", spec.connect_max,
                     throng_node_lookup (map, "connect_max"));
    } else if (spec.tls_max >= 0) {
        timing_load (&check, HTTP_CHECK_TLS, "tls", spec.tls_max,
                     throng_node_lookup (map, "tls_max"));
    } else {
        check.kind = HTTP_CHECK_DURATION;
        check.max_us = spec.duration_max;
        check.name = g_strdup_printf (
            "duration <= %s", throng_node_scalar (throng_node_lookup (map, "duration_max")));
    }
    check.index = throng_scope_add_check (scope, check.name);
    g_array_append_val (rules->checks, check);
    memset (&check, 0, sizeof check);
    ok = TRUE;

out:
    check_clear (&check);
    throng_options_clear (check_table, &spec);
    return ok;
}

HttpRules *
http_rules_new (ThrongScope *scope, const ThrongNode *check, const ThrongNode *extract,
                GError **error)
{
    HttpRules *rules;
    gboolean has_check = check != NULL && !throng_node_is_null (check);
    gboolean has_extract = extract != NULL && !throng_node_is_null (extract);

    if (!has_check && !has_extract)
        return NULL;
    if (scope == NULL) {
        throng_node_set_error (has_check ? check : extract, error, THRONG_PLAN_ERROR_INVALID,
                               "checks and extractors need throng 0.3 or later");
        return NULL;
    }
    if (has_check && throng_node_kind (check) != THRONG_NODE_SEQUENCE) {
        throng_node_set_error (check, error, THRONG_PLAN_ERROR_TYPE,
                               "check is a list, like [ { status: 200 } ]");
        return NULL;
    }
    if (has_extract && throng_node_kind (extract) != THRONG_NODE_MAP) {
        throng_node_set_error (extract, error, THRONG_PLAN_ERROR_TYPE,
                               "extract is a map of variable names to extractors");
        return NULL;
    }

    rules = g_new0 (HttpRules, 1);
    rules->extractors = g_array_new (FALSE, TRUE, sizeof (HttpExtractor));
    g_array_set_clear_func (rules->extractors, extractor_clear);
    rules->checks = g_array_new (FALSE, TRUE, sizeof (HttpCheck));
    g_array_set_clear_func (rules->checks, check_clear);

    for (guint i = 0; has_extract && i < throng_node_n_children (extract); i++) {
        if (!extractor_load (rules, scope, throng_node_key (extract, i),
                             throng_node_child (extract, i), error))
            goto fail;
    }
    for (guint i = 0; has_check && i < throng_node_n_children (check); i++) {
        if (!check_load (rules, scope, throng_node_child (check, i), error))
            goto fail;
    }
    return rules;

fail:
    http_rules_free (rules);
    return NULL;
}
