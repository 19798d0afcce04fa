/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's files as they see each other: the per-scenario,
 * per-step and per-user state, and the calls between the user's life
 * (transport.c), getting a connection for an exchange (connect.c) and the
 * exchange itself (exchange.c).  Below them: one connection (conn.c),
 * the request head (request.c), HTTP/1.1 framing (parse.c), HTTP/2 through nghttp2 (h2.c) and the TLS
 * session store (session.c).  A FastUser runs one exchange at a time; a
 * virtual user running concurrent steps has several (lanes, ../lanes.c),
 * sharing its cookie jar and TLS session: over HTTP/1.1 each with its own
 * connections, over h2 as streams on the user's one connection (h2.c).
 */
#pragma once

#include "../http.h"
#include "../journey.h"
#include "../redirect.h"
#include "conn.h"
#include "parse.h"
#include "request.h"
#include "response.h"
#include "resumption.h"
#include "verified.h"

#include <libsoup/soup.h>

#define POOL_MAX 4       /* idle connections kept per user (one per origin in practice) */
#define HOST_ADDRS_MAX 4 /* addresses tried per host name */
#define IN_SIZE (16 * 1024) /* one read */

/*
 * The worker thread's read buffer (IN_SIZE bytes), shared by HTTP/1.1 and
 * h2 reads: whatever a read brings is consumed (parsed, fed to nghttp2,
 * copied into a kept body) before the read returns.
 */
guint8 *fast_in_buffer (void);
/* Bytes read in one wakeup before the worker's other sources get a turn. */
#define READ_BUDGET (256 * 1024)

typedef struct {
    HttpScenario *http; /* the plugin's scenario, which outlives this */
    FastSessions *sessions;
    FastVerified *verified; /* chains verified in this run (verified.h) */
    gnutls_certificate_credentials_t credentials; /* made by the first step that may need TLS */
    gnutls_priority_t priority;
    gboolean keep_alive;
    gint64 connect_timeout_us;
    const HttpTlsOptions *tls;
} FastScenario;

typedef struct {
    char *request; /* head, empty line and body: what is sent when nothing is added */
    gsize request_len;
    gsize head_len;     /* where a Cookie line goes */
    gboolean head_only; /* HEAD: the response has no body */
    FastHeadPlan plan;  /* a templated step's head, its holes filled per request */
} FastStep;

typedef struct {
    char *name;
    gboolean literal; /* an IP address: no DNS, no SNI */
    struct sockaddr_storage addrs[HOST_ADDRS_MAX];
    socklen_t lens[HOST_ADDRS_MAX];
    guint n_addrs;
    guint preferred; /* the address that last connected */
} FastHost;

typedef enum {
    ST_IDLE,
    ST_RESOLVING,
    ST_CONNECTING,
    ST_HANDSHAKING,
    ST_WRITING,
    ST_READING_HEAD,
    ST_READING_BODY,
} FastState;

typedef struct _FastUser FastUser;

/* A DNS lookup in flight; outlives its user when user_free comes first. */
typedef struct {
    FastUser *user;
    FastHost *host;
    GCancellable *cancellable;
} FastLookup;

struct _FastUser {
    /*
     * The exchange in flight first, then its response: what every request
     * touches lies on as few cache lines as it can, since with thousands
     * of users on a worker each user's lines are cold when its turn comes.
     */
    FastScenario *fs;
    ThrongUser *user;
    const HttpStep *step;
    ThrongSample *sample;
    FastConn *conn;
    FastState state;
    gboolean tls;
    gboolean head_only;
    gboolean reused; /* the exchange runs on a kept-alive connection */
    gboolean retried;
    gboolean got_bytes;    /* some of the response arrived */
    gboolean read_yielded; /* the read budget ran out with bytes still waiting */
    guint16 port;
    const char *host;
    const guint8 *req;
    gsize req_len;
    gsize req_off;
    gint64 deadline;
    gint64 timer_at;    /* when the timer is armed for, -1 when it is not */
    ThrongTimer *timer; /* the step's (or the connect's) deadline */
    FastConn *pool[POOL_MAX];
    guint n_pool;
    SoupCookieJar *jar; /* made by the first Set-Cookie */
    HttpHop hop;        /* redirect.c: the current hop's URL, method and body */
    FastResponse response;

    /* set-up and the rarer paths */
    FastHost *host_entry;
    guint addr_try;
    gint64 connect_deadline;
    gint64 phase_start;
    GMainContext *context;
    FastSessionSlot session;
    FastSessionSlot *slot; /* the session this user's connections offer and save: its own, or a lane's main's */
    GPtrArray *hosts; /* FastHost: resolved once per user */
    GResolver *resolver;
    FastLookup *lookup;
    GString *out;        /* a request assembled per exchange (cookies, redirects) */
    HttpJourney journey; /* ../journey.h: templates, kept body, extractors and checks */
    struct _FastH2Stream *h2s; /* h2.c: the stream of this exchange, made on first use */
};

/* transport.c */

/* The Content-Length a request of @step with @method sends: -1 for none. */
gssize fast_body_length (const HttpStep *step, const HttpRequestText *text, const char *method,
                         gboolean with_body);

/* connect.c: a connection for the exchange in flight */

/*
 * Sends the current request on a kept-alive connection to the current
 * origin, or opens one (resolving the host the first time); @fresh
 * insists on a new connection.
 */
void fast_exchange_start (FastUser *u, gboolean fresh);
/* Makes sure the user's timer fires no later than @when. */
void fast_timer_need (FastUser *u, gint64 when);
/* The user's timer callback: ends the exchange whose deadline passed. */
void fast_timer_fired (ThrongTimer *timer, gpointer data);
void fast_lookup_abandon (FastUser *u);
void fast_pool_put (FastUser *u, FastConn *conn);
/* TRUE when @conn is in u's pool. */
gboolean fast_pool_holds (const FastUser *u, const FastConn *conn);
/* Takes @conn out of the pool if it is there. */
void fast_pool_remove (FastUser *u, FastConn *conn);
void fast_pool_close_all (FastUser *u);
void fast_save_ticket (FastUser *u, FastConn *conn);
void fast_host_free (gpointer data);
/* The socket of u->conn is connected, or failed to: start TLS or the request. */
void fast_connected (FastUser *u);
void fast_handshake_step (FastUser *u);
/* An idle connection of the pool stirred: a late TLS 1.3 ticket, or the server closing it. */
void fast_idle_event (FastUser *u, FastConn *conn);

/* exchange.c: the request and its response */

/* u->conn is ready: write the request, then read the response. */
void fast_request_ready (FastUser *u);
/* The read budget ran out with TLS bytes waiting that no poll announces: go on reading. */
void fast_read_resume (FastUser *u);
/* Ends the exchange with @error_class and its static @message (its stream only, on a shared h2 connection). */
void fast_fail (FastUser *u, ThrongErrorClass error_class, const char *message);
/* The FastConnFunc of every connection of the user. */
void fast_conn_event (FastConn *conn, GIOCondition condition, gpointer data);
/* GET, HEAD, PUT, DELETE, OPTIONS, TRACE: a request that may be sent twice. */
gboolean fast_method_is_idempotent (const char *method);
/* Ends the exchange (the user's next step may run, or the user be freed): the last call. */
void fast_step_finish (FastUser *u);
/* Keeps the response's Set-Cookie headers (u->response.headers) in the user's jar. */
void fast_store_cookies (FastUser *u);
/* Sends the next hop that http_hop_response() chose. */
void fast_redirect (FastUser *u);
/*
 * A complete response of @status (headers in u->response.headers) ended
 * the current hop over HTTP/1.1 (@protocol NULL) or HTTP/2 ("h2"), its
 * connection already released: follows the redirect or ends the step.
 * The one place both versions end a hop, so what ends a step (the
 * success rule, the protocol note) is written once.
 */
void fast_hop_done (FastUser *u, guint status, const char *protocol);
/* Appends the user's cookies for @uri to u->out as a Cookie line; FALSE when there are none. */
gboolean fast_append_cookies (FastUser *u, GUri *uri);
