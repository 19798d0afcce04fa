/* SPDX-License-Identifier: MIT */
/*
 * The soup transport's files as they see each other (this is not
 * libsoup's <libsoup/soup.h>): the per-scenario and per-user state, and
 * the calls between them.  transport.c holds the HttpTransport table and
 * what a plan may ask of libsoup; session.c the user's SoupSession and
 * life; exchange.c one step, hop by hop, from the request to the body's
 * end; response.c what is judged of a response libsoup read; connect.c
 * the connections libsoup opens and the step's deadlines.  Calls go one
 * way only: transport → session, exchange; exchange → session, response,
 * connect; session → connect; response → connect.  A SoupUser runs one
 * step at a time: the children of a `parallel` run one after another.
 */
#pragma once

#include "../chunked.h"
#include "../errors.h"
#include "../framing.h"
#include "../journey.h"
#include "../jar.h"
#include "../redirect.h"

#include <libsoup/soup.h>

#define SOUP_READ_BUFFER (32 * 1024)

/* What every user of a scenario shares; read-only once the run starts. */
typedef struct {
    GTlsDatabase *database;       /* database.c: tls.ca_file, the system store, or accept-all */
    GTlsCertificate *certificate; /* tls.cert_file + tls.key_file */
} SoupScenario;

typedef struct {
    guint refs;     /* the owner's, plus one while a step is in flight */
    gboolean freed; /* user_free came: complete nothing */
    const HttpScenario *scenario;
    const SoupScenario *shared;
    ThrongUser *user;
    GMainContext *context;
    SoupSession *session;
    SoupCookieJar *jar; /* the session's (it holds the reference); NULL under cookie_jar: off */
    GCancellable *cancellable;
    GSource *timer;
    guint8 *buffer;

    /* The step in flight. */
    const HttpStep *step;
    ThrongSample *sample;
    SoupMessage *message;
    GInputStream *stream;
    HttpHop hop;        /* redirect.c: the current hop's URL, method and body */
    guint64 body_bytes; /* read on the current hop */
    gint64 deadline_us; /* the whole step's */
    gboolean connecting;
    guint interim;                 /* 1xx responses on the current hop */
    gboolean new_connection;       /* per-iteration: the next request must not reuse one */
    gint64 connect_deadline_us;    /* the connect's, while connecting */
    ThrongErrorClass cancel_class; /* why we cancelled, if we did */
    const char *cancel_message;    /* and what the sample says, as `fast` words it */
    gboolean shut_down;            /* connect.c shut the reading half of the step's h2 connection */
    HttpJourney journey;           /* ../journey.h: templates, kept body, extractors and checks */
    GPtrArray *connections;        /* connect.c: the TCP connections libsoup opened */
    GInputStream *raw;             /* a chunked body's bytes as they came (response.c); not owned */
    HttpChunked chunked;           /* ../chunked.h: judges them, while raw is set */
} SoupUser;

/* session.c */
gpointer http_soup_scenario_new (HttpScenario *scenario, gboolean validate_only, GError **error);
void http_soup_scenario_free (gpointer p);
gpointer http_soup_user_new (HttpScenario *scenario, ThrongUser *throng_user);
void http_soup_user_free (gpointer data);
void http_soup_user_unref (SoupUser *user);
void http_soup_iteration_begin (gpointer data);
gboolean http_soup_push_context (SoupUser *user);
void http_soup_pop_context (SoupUser *user, gboolean pushed);

/* exchange.c */
void http_soup_run (gpointer data, const HttpStep *step, ThrongSample *sample);

/* response.c */
void http_soup_account_hop (SoupUser *user);
ThrongErrorClass http_soup_error_class (SoupUser *user, const GError *error);
guint64 http_soup_head_bytes (SoupUser *user);
const char *http_soup_framing_refusal (SoupUser *user, HttpFraming *framing);
GInputStream *http_soup_chunked_source (SoupUser *user);
void http_soup_chunked_end (SoupUser *user, gboolean surplus);
void http_soup_got_informational (SoupMessage *message, gpointer data);
void http_soup_restarted (SoupMessage *message, gpointer data);

/* connect.c */
GPtrArray *http_soup_connections_new (void);
GSource *http_soup_timer_new (SoupUser *user);
void http_soup_timer_arm (SoupUser *user);
void http_soup_cancel_step (SoupUser *user, ThrongErrorClass error_class, const char *message);
void http_soup_network_event (SoupMessage *message, GSocketClientEvent event, GIOStream *connection,
                              gpointer data);
