/* SPDX-License-Identifier: MIT */
/*
 * One connection of the fast transport: a non-blocking TCP socket watched
 * by one reactor watch (<throng/watch.h>) for its whole life, optionally wrapped in a GnuTLS
 * session.  Reads and writes answer with a small result enum so every
 * caller reads alike; plain and TLS I/O sit behind a table chosen when
 * the connection is made, not branched on per call.
 */
#pragma once

#include <sys/socket.h>
#include <glib.h>
#include <gnutls/gnutls.h>
#include <throng/sample.h>
#include <throng/watch.h>

typedef enum {
    FAST_IO_OK,    /* some bytes moved */
    FAST_IO_AGAIN, /* would block: wait for the condition returned */
    FAST_IO_EOF,   /* the peer closed cleanly (FIN or close_notify) */
    FAST_IO_RESET, /* the connection is gone (RST, EPIPE, truncated TLS) */
    FAST_IO_ERROR, /* anything else; see the FastError */
} FastIo;

typedef struct {
    ThrongErrorClass error_class;
    const char *message; /* static */
} FastError;

typedef struct _FastConn FastConn;

/* Called on the worker when the connection's watched condition is ready. */
typedef void (*FastConnFunc) (FastConn *conn, GIOCondition condition, gpointer data);

typedef struct {
    FastIo (*read) (FastConn *conn, guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                    FastError *error);
    FastIo (*write) (FastConn *conn, const guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                     FastError *error);
} FastConnIo;

struct _FastConn {
    int fd;
    GIOCondition events;
    ThrongWatch *watch;
    const FastConnIo *io;
    gnutls_session_t tls; /* NULL for plain HTTP */
    /* What runs on the connection (session.h), chosen once it is open and
     * unknown here: this file moves bytes.  session_data goes with it and
     * is freed by session_free when the connection closes. */
    const struct _FastSession *session;
    gpointer session_data;
    GDestroyNotify session_free;
    FastConnFunc func;
    gpointer func_data;
    /* the origin this connection talks to */
    char *host;
    guint16 port;
    gboolean is_tls;
    guint exchanges;      /* responses completed on it */
    gboolean want_ticket; /* TLS 1.3: a ticket may still arrive; save it then */
    /* TLS: bytes read from the socket, not yet given to GnuTLS: in the
     * worker thread's read-ahead buffer during a call, in spill between calls */
    guint8 *ahead;
    gsize ahead_start;
    gsize ahead_end;
    guint8 *spill; /* NULL while nothing waits between calls, which is nearly always */
    gsize spill_cap;
    gboolean established; /* the connect had completed when connect() returned */
    /* TLS verification (verified.h): the name checked, NULL when not verifying */
    unsigned verify_status; /* GNUTLS_CERT_* of a chain that failed */
    char *verify_name;
    struct _FastVerified *verified;
};

#define IN_SIZE (16 * 1024) /* one read */
/* Bytes read in one wakeup before the worker's other sources get a turn. */
#define READ_BUDGET (256 * 1024)

/*
 * The worker thread's read buffer (IN_SIZE bytes), shared by every
 * connection of the thread whatever runs on it: whatever a read brings
 * is consumed (parsed, fed to nghttp2, copied into a kept body) before
 * the read returns.
 */
guint8 *fast_in_buffer (void);

/*
 * Starts connecting to @addr, watched on @user's worker.  Returns NULL with @error set
 * when the connect fails at once (refused on loopback often does).
 * Otherwise, when the handshake already completed inside connect() (on
 * loopback it nearly always has), conn->established is TRUE and the
 * connection is watched for G_IO_IN: use it at once.  Else it waits for
 * G_IO_OUT; then call fast_conn_connect_finish().
 */
FastConn *fast_conn_connect (ThrongUser *user, const struct sockaddr *addr, socklen_t addr_len,
                             const char *host, guint16 port, gboolean is_tls, FastConnFunc func,
                             gpointer data, FastError *error);

gboolean fast_conn_connect_finish (FastConn *conn, FastError *error);

/* Changes what the connection's watch waits for (0: nothing); free when unchanged. */
void fast_conn_watch (FastConn *conn, GIOCondition events);

typedef struct {
    gnutls_certificate_credentials_t credentials;
    gnutls_priority_t priority;
    const char *server_name; /* SNI; NULL for none */
    const char *verify_name; /* host name checked; NULL: do not verify */
    struct _FastVerified *verified; /* verdicts shared by the scenario's connections */
    const gnutls_datum_t *alpn; /* protocols offered through ALPN (session.c); none when n_alpn is 0 */
    guint n_alpn;
} FastTlsSetup;

/* Wraps the connected socket in a client TLS session offering @offer (nullable). */
gboolean fast_conn_start_tls (FastConn *conn, const FastTlsSetup *setup, GBytes *offer,
                              FastError *error);

/* Advances the handshake: OK when done, AGAIN with *@want, or ERROR. */
FastIo fast_conn_handshake (FastConn *conn, GIOCondition *want, FastError *error);

/*
 * The session to save after a handshake or a read: (transfer full)
 * (nullable).  For TLS 1.3 only once a ticket has arrived, since asking
 * earlier makes GnuTLS wait for one.
 */
GBytes *fast_conn_take_session (FastConn *conn);

static inline FastIo
fast_conn_read (FastConn *conn, guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                FastError *error)
{
    return conn->io->read (conn, buf, len, n, want, error);
}

static inline FastIo
fast_conn_write (FastConn *conn, const guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                 FastError *error)
{
    return conn->io->write (conn, buf, len, n, want, error);
}

/* TRUE when TLS holds bytes (read ahead or decrypted) the socket's readiness will not announce. */
static inline gboolean
fast_conn_pending (FastConn *conn)
{
    return conn->tls != NULL
           && (conn->ahead_start < conn->ahead_end || gnutls_record_check_pending (conn->tls) > 0);
}

/*
 * TRUE when this module's g_debug() lines are wanted (G_MESSAGES_DEBUG),
 * decided once.  g_debug() formats its message before it asks, so a line
 * written per request or per connection asks this first.
 */
gboolean fast_tracing (void);

/* The connection goes idle: what only a busy connection needs is given back. */
void fast_conn_idle (FastConn *conn);

/*
 * Closes and frees @conn (NULL is fine).  @polite sends a TLS
 * close_notify first, for a healthy connection closed by choice.
 */
void fast_conn_close (FastConn *conn, gboolean polite);
