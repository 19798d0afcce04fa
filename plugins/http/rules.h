/* SPDX-License-Identifier: MIT */
/*
 * What an http step does with its response beyond the success rule: its
 * extractors (`extract:`, a variable per entry) and its checks (`check:`),
 * both transports' one implementation.  Everything is compiled while the
 * plan loads (JSONPath, GRegex, durations, status lists, the scope's slot
 * and check index); at run time a transport hands the final response to
 * http_rules_judge(), which sets variables, records check outcomes and
 * fails the sample with class `check` on the first failure.
 */
#pragma once

#include "http.h"
#include "jsonpath.h"

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

/* How much of a value a failure message quotes. */
#define HTTP_SEEN_MAX 80

typedef enum {
    HTTP_EXTRACT_JSON,
    HTTP_EXTRACT_REGEX,
    HTTP_EXTRACT_HEADER,
    HTTP_EXTRACT_COOKIE,
    HTTP_EXTRACT_STATUS,
} HttpExtractKind;

typedef struct {
    HttpExtractKind kind;
    char *var;          /* the variable it assigns, without `vars.` */
    gint slot;          /* the variable's slot in the scope */
    char *arg;          /* the JSONPath, pattern, header or cookie name as written */
    JsonPath *path;     /* json */
    HttpJsonPath *scan; /* json, when the path is plain members and indexes: read by a scan */
    GRegex *regex;      /* regex, when its pattern is literal */
    ThrongTemplate *pattern; /* regex, when its pattern has substitutions (regex NULL) */
    guint group;        /* regex: the group whose text is kept (0: the whole match) */
    char *fallback;     /* `default`, or NULL: no match fails the step */
    gboolean all;       /* json: every match, as a JSON array (`[]` when none) */
} HttpExtractor;

typedef enum {
    HTTP_CHECK_STATUS,
    HTTP_CHECK_BODY_CONTAINS,
    HTTP_CHECK_BODY_REGEX,
    HTTP_CHECK_JSON,
    HTTP_CHECK_HEADER,
    HTTP_CHECK_DURATION,
    HTTP_CHECK_URL,      /* the final URL, after redirects */
    HTTP_CHECK_PROTOCOL, /* the HTTP version the final response came over */
    HTTP_CHECK_TTFB,     /* the sample's latency: the step's start to its first response byte */
    HTTP_CHECK_CONNECT,  /* the sample's connect time (0 on a reused connection) */
    HTTP_CHECK_TLS,      /* the sample's TLS handshake time (0 on a reused connection) */
} HttpCheckKind;

typedef enum {
    HTTP_TEST_EXISTS,   /* json, header: present */
    HTTP_TEST_ABSENT,   /* `exists: false` */
    HTTP_TEST_EQUALS,   /* json, header */
    HTTP_TEST_MATCHES,  /* json, url; body_regex */
    HTTP_TEST_CONTAINS, /* header, url; body_contains */
} HttpCheckTest;

typedef struct {
    HttpCheckKind kind;
    HttpCheckTest test;
    char *name;         /* as reports show it: `status is 200`, `$.token exists` */
    guint index;        /* in the scenario's check table */
    guint64 expect[10]; /* status: as HttpStep.expect */
    char *subject;      /* json: the path; header: the name; protocol: the version */
    JsonPath *path;
    HttpJsonPath *scan; /* as in HttpExtractor */
    char *value;        /* equals / contains / body_contains, when literal */
    GRegex *regex;      /* matches / body_regex, when literal */
    /* The value or pattern when it has substitutions (value and regex NULL): expanded per
     * response by http_rules_judge() into the judge's @value or @regex. */
    ThrongTemplate *template;
    gint64 max_us;      /* duration_max, ttfb_max, connect_max, tls_max */
} HttpCheck;

struct _HttpRules {
    GArray *extractors; /* HttpExtractor, in the plan's order */
    GArray *checks;     /* HttpCheck, in the plan's order */
    gboolean needs_body;
    gboolean needs_json;
    gboolean needs_headers; /* a header or cookie rule reads the response's fields */
};

/*
 * Compiles @check (a sequence, or NULL) and @extract (a map, or NULL)
 * against @scope.  Returns NULL with @error unset when there is nothing
 * to do, NULL with a located @error when something is wrong.
 */
HttpRules *http_rules_new (ThrongScope *scope, const ThrongNode *check, const ThrongNode *extract,
                           GError **error);
void http_rules_free (HttpRules *rules);

/* A final response as the rules read it. */
typedef struct {
    guint status;
    SoupMessageHeaders *headers;
    GUri *uri;        /* the URL that answered (cookies) */
    const char *body; /* NULL unless the step keeps bodies */
    gsize body_len;
    gint64 elapsed_us; /* from the step's start until now */
    const ThrongSample *sample; /* its timings and protocol; NULL: none measured */
} HttpResponseView;

/* A user's scratch for judging: reused, so a judged response allocates little. */
typedef struct {
    JsonParser *parser;
    JsonNode *root; /* the parsed body, or NULL */
    gboolean parsed;
    GString *text;    /* an extracted value, or the value a check reads */
    GString *seen;    /* what a check saw, for its failure message */
    GString *message; /* the failure message */
    /* A templated rule's value or pattern for this response (http_rules_judge()). */
    GString *value;
    GRegex *regex;
    GHashTable *regexes; /* pattern → GRegex: a templated pattern compiles once per value */
} HttpJudge;

void http_judge_init (HttpJudge *judge);
void http_judge_clear (HttpJudge *judge);

/*
 * Runs @rules on @response for @user: extractors in order (each sets its
 * variable, or its default), then checks (each outcome recorded).  The
 * first failure — an extractor without a default that matched nothing,
 * or a failing check — fails @sample with class `check` and a message
 * naming it and the value seen, unless @sample failed already (a status
 * failure stays one).  Every check is still counted.
 */
void http_rules_judge (const HttpRules *rules, ThrongUser *user, const HttpResponseView *response,
                       HttpJudge *judge, ThrongSample *sample);

/*
 * The evaluation alone, with no user: the value @extractor finds in
 * @response into @out (TRUE), or FALSE; and whether @check passes, with
 * the value it saw in @seen.  Exposed for the unit tests.
 */
gboolean http_extract_eval (const HttpExtractor *extractor, const HttpResponseView *response,
                            HttpJudge *judge, GString *out);
gboolean http_check_eval (const HttpCheck *check, const HttpResponseView *response,
                          HttpJudge *judge, GString *seen);
