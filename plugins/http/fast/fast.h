/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's shared types: the per-scenario, per-step and
 * per-user state every file of fast/ reads, and the calls a lower file
 * makes up to the exchange (FastExchangeEvents).  The files call one way
 * only, each naming functions of the files below it:
 *
 *   transport.c   the HttpTransport table: scenario, step, the user's life
 *   exchange.c    one exchange: its connection, its hops, its end
 *   session.c     the HTTP version on a connection, chosen once (session.h)
 *   h1.c  h2.c    HTTP/1.1 and HTTP/2 (h2-stream.c: nghttp2's callbacks)
 *   pool.c        the user's kept-alive connections
 *   connect.c     new connections: DNS, TCP, TLS with ALPN and the session policy
 *   conn.c        one connection's bytes (plain or TLS)
 *
 * and the leaves any of them may use: cookies.c, request.c (the request
 * head), response.c with head.c and parse.c (HTTP/1.1 responses),
 * resumption.c (the TLS session store), verified.c.  A lower file reports
 * back through u->fs->events, never by naming the exchange's functions.
 * A FastUser runs one exchange at a time; a virtual user running
 * concurrent steps has several (lanes, ../lanes.c), sharing its cookie jar
 * and TLS session: over HTTP/1.1 each with its own connections, over h2 as
 * streams on the user's one connection (h2.c).
 */
#pragma once

#include "../http.h"
#include "../journey.h"
#include "../jar.h"
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

typedef struct _FastUser FastUser;

/*
 * What connect.c, h1.c and h2.c report to the exchange above them
 * (exchange.c fills it; transport.c hands it to the scenario).  Calls up
 * go through it so that no file names a function of a file above it: the
 * lower files read, and build, without the exchange.
 */
typedef struct {
    /* u->conn is open (and its TLS handshake done): run the exchange on it */
    void (*ready) (FastUser *u);
    /*
     * A complete response of @status (headers in u->response.headers)
     * ended the current hop over @protocol (NULL: HTTP/1.1), its
     * connection already released: follows the redirect or ends the step.
     */
    void (*hop_done) (FastUser *u, guint status, const char *protocol);
    /* Ends the exchange with @error_class and its static @message. */
    void (*fail) (FastUser *u, ThrongErrorClass error_class, const char *message);
    /* The connection was lost before the server could act on the request:
     * send the hop once more on a new connection (the caller checked that
     * it may, and released the old one). */
    void (*again) (FastUser *u);
} FastExchangeEvents;

typedef struct {
    const FastExchangeEvents *events;
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
    const gnutls_datum_t *alpn; /* what a new TLS connection offers for the step (session.c) */
    guint n_alpn;
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
    SoupCookieJar *jar; /* made by the first Set-Cookie (or a step's `cookies:`) */
    int cookie_jar;     /* HttpCookieJarPolicy: when the jar is emptied, or never made */
    HttpHop hop;        /* redirect.c: the current hop's URL, method and body */
    FastResponse response;

    /* set-up and the rarer paths */
    FastHost *host_entry;
    guint addr_try;
    gint64 connect_deadline;
    gint64 phase_start;
    GMainContext *context;
    FastSessionSlot own_slot; /* its saved TLS session (resumption.h) */
    FastSessionSlot *slot; /* the TLS session this user's connections offer and save: its own, or a lane's main's */
    GPtrArray *hosts; /* FastHost: resolved once per user */
    GResolver *resolver;
    FastLookup *lookup;
    GString *out;        /* a request assembled per exchange (cookies, redirects) */
    HttpJourney journey; /* ../journey.h: templates, kept body, extractors and checks */
    /* What the session keeps per exchange (h2.c: the stream), made on its
     * first use and freed with g_free() when the user goes: plain data. */
    gpointer stream;
};

/*
 * Makes sure the user's timer fires no later than @when.  The timer is
 * only ever moved earlier: a timer that fires early finds the exchange's
 * real deadline still ahead and re-arms itself for it.  In a steady
 * keep-alive run that is one move in the reactor's heap per timeout
 * period, not two per request.  Inline: every layer asks it, none owns it.
 */
static inline void
fast_timer_need (FastUser *u, gint64 when)
{
    if (u->timer_at >= 0 && u->timer_at <= when)
        return;
    u->timer_at = when;
    throng_timer_rearm (u->timer, when);
}
