/* SPDX-License-Identifier: MIT */
/*
 * The http plugin's internal interface: its options, its scenario and
 * step data, and the transport table behind which `fast` (sockets and
 * GnuTLS driven directly) and `soup` (SoupSession) sit.  A scenario picks
 * its transport once; the hot path calls through the table and never
 * branches on the transport.
 */
#pragma once

#include <throng/throng.h>
#include <gio/gio.h>

typedef enum {
    HTTP_TRANSPORT_FAST,
    HTTP_TRANSPORT_SOUP,
} HttpTransportKind;

/* How virtual users hold TLS sessions (docs/tls-session-policies.md). */
typedef enum {
    HTTP_SESSION_PER_THREAD,    /* each user resumes only its own session; connections kept */
    HTTP_SESSION_GLOBAL,        /* one session store for every user; connections kept */
    HTTP_SESSION_PER_ITERATION, /* connections closed and session dropped at each iteration */
} HttpSessionPolicy;

/* The `version` option: which HTTP a step speaks (docs/http.md, "HTTP/2"). */
typedef enum {
    HTTP_VERSION_1_1,  /* HTTP/1.1 only (the default) */
    HTTP_VERSION_2,    /* h2 through ALPN over https://, h2c by prior knowledge over http:// */
    HTTP_VERSION_AUTO, /* ALPN offers h2 and http/1.1 over https://; HTTP/1.1 over http:// */
} HttpVersion;

/* The `cookie_jar` option: when a user's cookies are thrown away (docs/http.md, "Cookies"). */
typedef enum {
    HTTP_COOKIE_JAR_PER_ITERATION, /* emptied as each iteration (each arrival) begins: the default */
    HTTP_COOKIE_JAR_PER_USER,      /* kept for the user's life, across iterations and arrivals */
    HTTP_COOKIE_JAR_OFF,           /* no jar: Set-Cookie ignored, no Cookie but the plan's own */
} HttpCookieJarPolicy;

/* The defaults that more than one file reads (options.c sets them all).
 * The priority is GnuTLS's NORMAL with X25519 moved to the front, so the
 * one key share a ClientHello carries (fast/conn.c) is X25519's, as
 * browsers, curl, Go and Java send: the target then does the key
 * exchange its real clients make it do, and the client's half costs
 * less than P-256's (docs/tls-session-policies.md). */
#define HTTP_DEFAULT_PRIORITY "NORMAL:-GROUP-ALL:+GROUP-X25519:+GROUP-ALL"
#define HTTP_DEFAULT_CONNECT_TIMEOUT_US (10 * G_USEC_PER_SEC)

typedef struct {
    gboolean verify;            /* default TRUE */
    char *ca_file;              /* NULL: the system trust store */
    char *cert_file;            /* client certificate (PEM) */
    char *key_file;             /* its key (PEM) */
    char *server_name;          /* SNI and verification name; default: the URL's host */
    char *priority;             /* GnuTLS priority string; default HTTP_DEFAULT_PRIORITY */
    int session;                /* HttpSessionPolicy; default per-thread */
    gboolean resumption;        /* default TRUE; FALSE: never offer a session */
} HttpTlsOptions;

/*
 * Every http option, in one struct so that one table parses defaults,
 * scenario and step layers in turn.  Options flagged NOT_IN_STEP are
 * scenario-wide.
 */
typedef struct {
    /* scenario-wide */
    char *base_url;
    int transport;              /* HttpTransportKind; default fast */
    gboolean keep_alive;        /* default TRUE */
    gint64 connect_timeout_us;  /* default HTTP_DEFAULT_CONNECT_TIMEOUT_US */
    HttpTlsOptions tls;
    /* per step (defaults and scenario give their defaults) */
    char *method;               /* default GET */
    char *url;                  /* required: absolute, or relative to base_url */
    char *body;                 /* inline body */
    char *body_file;            /* body read from a file at plan load (relative to the plan's directory) */
    const ThrongNode *headers;  /* map of header → value */
    gint64 timeout_us;          /* whole step; default 30 s */
    char *expect_status;        /* "200", "200-299", "2xx,3xx" (default "2xx,3xx") */
    gboolean follow_redirects;  /* default FALSE */
    guint64 max_redirects;      /* default 10 */
    int version;                /* HttpVersion; default 1.1 */
    guint64 max_body;           /* default 64 MiB */
    gboolean body_template;     /* `template`: body_file's content has ${...}; default FALSE */
    const ThrongNode *check;    /* sequence of checks (rules.h) */
    const ThrongNode *extract;  /* map of variable → extractor (rules.h) */
    /* scenario-wide, appended */
    guint64 connections_per_user; /* HTTP/1.1 connections a `parallel` may use at once; default 6 */
    /* per step, appended */
    const ThrongNode *form;     /* map: an application/x-www-form-urlencoded body (body.h) */
    const ThrongNode *json;     /* map or list: a JSON body (body.h) */
    /* scenario-wide, appended */
    int cookie_jar;             /* HttpCookieJarPolicy; default per-iteration */
    /* per step, appended */
    const ThrongNode *cookies;  /* map: cookies the step puts in the jar (jar.h); steps only */
    const ThrongNode *auth;     /* map: basic, bearer or digest credentials (auth.h) */
    const ThrongNode *multipart; /* list of parts: a multipart/form-data body (body.h) */
} HttpOptions;

typedef struct _HttpTransport HttpTransport;

typedef struct {
    HttpOptions options;        /* defaults + scenario layers applied */
    const HttpTransport *transport;
    gpointer transport_data;    /* from transport->scenario_new: credentials, session store … */
    char *name;                 /* the scenario's name */
    guint users;
    gboolean uses_tls;          /* some step is https: the transport's TLS notes apply */
    guint max_parallel;         /* ThrongScenarioSetup.max_parallel: 0 without a `parallel` */
    /*
     * Connections closed because the server sent bytes nobody asked for,
     * after a response or while the connection was idle: added to by every
     * worker's users (g_atomic_int_inc, a rare event), read after the run.
     */
    gint unsolicited_closes;
} HttpScenario;

typedef struct {
    char *name;
    char *value;
    const ThrongNode *node; /* the value's node, for templates; NULL when made up */
} HttpHeader;

typedef struct _HttpRules HttpRules;
typedef struct _HttpAuth HttpAuth;

typedef struct {
    HttpScenario *scenario;
    char *method;
    GUri *uri;                  /* absolute */
    char *url;                  /* absolute, as text (the sample's resource) */
    gboolean tls;               /* https */
    char *host;                 /* for connect, SNI and the Host header */
    guint16 port;
    char *target;               /* path and query, as sent on the request line */
    GBytes *body;               /* NULL when there is none */
    GArray *headers;            /* HttpHeader: defaults, scenario and step merged, step last */
    gint64 timeout_us;
    guint64 max_body;
    gboolean follow_redirects;
    guint max_redirects;
    int version;                /* HttpVersion */
    guint64 expect[10];         /* bitmap of accepted statuses 100–739: bit (status - 100) */
    gpointer transport_data;    /* from transport->step_new, e.g. a pre-built request head */

    /* journeys (expand.h): NULL when the part is literal, as it is without `${` */
    ThrongTemplate *url_template;
    GUri *base_uri;                    /* what a templated relative url resolves against */
    ThrongTemplate **header_templates; /* per entry of headers, or NULL when none is templated */
    ThrongTemplate *body_template;
    GArray *body_parts; /* HttpBodyPart (body.h): a form, json or multipart body with substitutions */
    gboolean templated; /* any of them: the request is built per request */
    HttpRules *rules;   /* extractors and checks (rules.h), NULL when none */
    gboolean keep_body; /* a rule reads the body: transports buffer it */
    gint debug_left;    /* --http-debug: requests still to print (atomic) */
    GArray *cookies;    /* HttpStepCookie (jar.h): what `cookies:` puts in the jar; NULL: none */
    HttpAuth *auth;     /* auth.h: credentials built per request, or Digest; NULL: none */
} HttpStep;

/* The body is expanded per request (into HttpRequestText.body), not step->body. */
static inline gboolean
http_step_body_varies (const HttpStep *step)
{
    return step->body_template != NULL || step->body_parts != NULL;
}

/* TRUE when @status is one the step accepts. */
static inline gboolean
http_step_expects (const HttpStep *step, guint status)
{
    if (status < 100 || status >= 740)
        return FALSE;
    guint bit = status - 100;
    return (step->expect[bit / 64] >> (bit % 64)) & 1;
}

/*
 * A transport.  All hooks but scenario_* and step_* run on the user's
 * worker.  `run` fills @sample (status, bytes, latency, connect and TLS
 * time, connections and handshakes, error class and message) and calls
 * throng_user_step_done() exactly once, unless user_free comes first.
 */
struct _HttpTransport {
    const char *name;
    gpointer (*scenario_new) (HttpScenario *scenario, gboolean validate_only, GError **error);
    void (*scenario_free) (gpointer data);
    void (*scenario_notes) (HttpScenario *scenario, GPtrArray *notes);
    gpointer (*step_new) (HttpScenario *scenario, HttpStep *step, GError **error);
    void (*step_free) (gpointer data);
    gpointer (*user_new) (HttpScenario *scenario, ThrongUser *user);
    void (*user_free) (gpointer user);
    void (*iteration_begin) (gpointer user);
    void (*run) (gpointer user, const HttpStep *step, ThrongSample *sample);
    /* Appended; optional.  TRUE while @user has a step in flight (run called, not yet done). */
    gboolean (*busy) (gpointer user);
    /*
     * Optional: another state of the same virtual user, for a concurrent
     * HTTP/1.1 step (lanes.c): its own connections, the main state's
     * cookies and TLS session.  Freed with user_free before @main.
     * Without it the transport runs one step of a user at a time.
     */
    gpointer (*lane_new) (gpointer main);
    /*
     * Optional: runs an HTTP/2 step on @lane as one more stream on the
     * connection of @main's exchange in flight; FALSE, having started
     * nothing, when that connection cannot take it (none, HTTP/1.1, its
     * streams at the server's limit).  Without it h2 steps of a user run
     * one at a time.
     */
    gboolean (*run_joined) (gpointer lane, gpointer main, const HttpStep *step,
                            ThrongSample *sample);
};

/*
 * lanes.c: a concurrent step (a child of `parallel`) on the user's
 * transport state @main when it is free, else on a lane (HTTP/1.1 only, at
 * most connections_per_user states in all).  FALSE, having started
 * nothing, when every state the step may use is busy.
 */
typedef struct _HttpLanes HttpLanes;
gboolean http_lanes_run (HttpLanes **lanes, const HttpScenario *scenario, gpointer main,
                         const HttpStep *step, ThrongSample *sample);
void http_lanes_iteration_begin (HttpLanes *lanes);
void http_lanes_free (HttpLanes *lanes);

extern const HttpTransport http_fast_transport;
extern const HttpTransport http_soup_transport;

/*
 * Funcs of a one-shot, re-armable timer source: it dispatches its callback
 * once its ready time comes and disarms itself (timer.c).
 */
extern GSourceFuncs http_timer_funcs;
