/* SPDX-License-Identifier: MIT */
/*
 * Connections of the fast transport (conn.h): socket set-up, the
 * per-connection watch on the worker's reactor, and the plain and TLS I/O tables.  GnuTLS reads
 * through a read-ahead buffer: left to itself it asks the socket for
 * a record's 5-byte header and then for its body, two recv() calls per
 * record where one does.  The buffer is the worker thread's, lent to the
 * connection for one call; bytes still in it when the call returns (a
 * second record that came with the first) move to the connection's own
 * spill, so an idle connection holds none of it.  Writes go out with sendmsg(MSG_NOSIGNAL), so a
 * closed peer never raises SIGPIPE.  GNUTLS_E_AGAIN turns into the
 * condition gnutls_record_get_direction() asks for.  What runs on a
 * connection (HTTP/1.1, h2) is not this file's business: it keeps the
 * session's state opaque and frees it with the connection.
 */
#include "conn.h"
#include "verified.h"
#include "../errors.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

static void
conn_ready (ThrongWatch *watch, GIOCondition revents, gpointer data)
{
    FastConn *conn = data;

    /* The callback may close the connection: nothing of it is touched after. */
    conn->func (conn, revents, conn->func_data);
}

/* The class is errors.c's; the message names the errno where the class alone would not. */
static void
error_from_errno (FastError *error, int errsv)
{
    error->error_class = http_error_class_from_errno (errsv);
    switch (errsv) {
    case ECONNREFUSED:
        error->message = "connection refused";
        break;
    case ETIMEDOUT:
        error->message = "connect timed out";
        break;
    case ECONNRESET:
    case EPIPE:
    case ECONNABORTED:
        error->message = "connection reset by peer";
        break;
    default:
        error->message = g_strerror (errsv);
        break;
    }
}

/*
 * After each GnuTLS call: bytes left in the thread's read-ahead buffer
 * move to the connection's spill, before another connection reads
 * through it.  Rare (two records in one recv), so the copy is cheap.
 */
static void
ahead_keep (FastConn *conn)
{
    gsize left = conn->ahead_end - conn->ahead_start;

    if (conn->ahead == conn->spill)
        return;
    if (left == 0) {
        conn->ahead = NULL;
        conn->ahead_start = conn->ahead_end = 0;
        return;
    }
    if (conn->spill_cap < left) {
        g_free (conn->spill);
        conn->spill = g_malloc (left);
        conn->spill_cap = left;
    }
    memcpy (conn->spill, conn->ahead + conn->ahead_start, left);
    conn->ahead = conn->spill;
    conn->ahead_start = 0;
    conn->ahead_end = left;
}

/* Plain I/O. */

/*
 * What a recv() or send() that returned @r means, errno included; @blocked
 * is the condition to wait for when it would block.  0 from recv() is the
 * peer's FIN; send() never returns 0 for a non-empty buffer.
 */
static FastIo
plain_result (gssize r, GIOCondition blocked, gsize *n, GIOCondition *want, FastError *error)
{
    if (r > 0) {
        *n = (gsize)r;
        return FAST_IO_OK;
    }
    if (r == 0)
        return FAST_IO_EOF;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        *want = blocked;
        return FAST_IO_AGAIN;
    }
    error_from_errno (error, errno);
    return error->error_class == THRONG_ERROR_RESET ? FAST_IO_RESET : FAST_IO_ERROR;
}

static FastIo
plain_read (FastConn *conn, guint8 *buf, gsize len, gsize *n, GIOCondition *want, FastError *error)
{
    gssize r;

    do
        r = recv (conn->fd, buf, len, 0);
    while (r < 0 && errno == EINTR);
    return plain_result (r, G_IO_IN, n, want, error);
}

static FastIo
plain_write (FastConn *conn, const guint8 *buf, gsize len, gsize *n, GIOCondition *want,
             FastError *error)
{
    gssize r;

    do
        r = send (conn->fd, buf, len, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    return plain_result (r, G_IO_OUT, n, want, error);
}

static const FastConnIo plain_io = { plain_read, plain_write };

/* TLS I/O. */

static GIOCondition
tls_want (FastConn *conn)
{
    return gnutls_record_get_direction (conn->tls) ? G_IO_OUT : G_IO_IN;
}

/*
 * GnuTLS answers AGAIN after it handled a post-handshake message (a TLS
 * 1.3 ticket) even when the next record is already read ahead; the socket
 * will not announce those bytes, so such an AGAIN means "call again now".
 */
static gboolean
tls_again_now (FastConn *conn)
{
    return !gnutls_record_get_direction (conn->tls) && conn->ahead_start < conn->ahead_end;
}

static FastIo
tls_record_error (FastConn *conn, int r, GIOCondition *want, FastError *error)
{
    switch (r) {
    case GNUTLS_E_AGAIN:
    case GNUTLS_E_INTERRUPTED:
        *want = tls_want (conn);
        return FAST_IO_AGAIN;
    case GNUTLS_E_PREMATURE_TERMINATION:
        /* EOF without close_notify: most servers close that way. */
        return FAST_IO_EOF;
    case GNUTLS_E_PULL_ERROR:
    case GNUTLS_E_PUSH_ERROR:
        error->error_class = THRONG_ERROR_RESET;
        error->message = "connection reset by peer";
        return FAST_IO_RESET;
    default:
        error->error_class = THRONG_ERROR_TLS;
        error->message = gnutls_strerror (r);
        return FAST_IO_ERROR;
    }
}

static FastIo
tls_read_record (FastConn *conn, guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                 FastError *error)
{
    for (;;) {
        gssize r = gnutls_record_recv (conn->tls, buf, len);
        if (r > 0) {
            *n = r;
            return FAST_IO_OK;
        }
        if (r == 0)
            return FAST_IO_EOF;
        /* Warning alerts, a TLS 1.2 hello request: carry on reading. */
        if (!gnutls_error_is_fatal (r) && r != GNUTLS_E_AGAIN && r != GNUTLS_E_INTERRUPTED)
            continue;
        if ((r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) && tls_again_now (conn))
            continue;
        return tls_record_error (conn, r, want, error);
    }
}

static FastIo
tls_read (FastConn *conn, guint8 *buf, gsize len, gsize *n, GIOCondition *want, FastError *error)
{
    FastIo r = tls_read_record (conn, buf, len, n, want, error);

    ahead_keep (conn);
    return r;
}

static FastIo
tls_write_record (FastConn *conn, const guint8 *buf, gsize len, gsize *n, GIOCondition *want,
                  FastError *error)
{
    for (;;) {
        gssize r = gnutls_record_send (conn->tls, buf, len);
        if (r >= 0) {
            *n = r;
            return FAST_IO_OK;
        }
        if (!gnutls_error_is_fatal (r) && r != GNUTLS_E_AGAIN && r != GNUTLS_E_INTERRUPTED)
            continue;
        return tls_record_error (conn, r, want, error);
    }
}

/* A write may read too (a TLS 1.2 renegotiation, a key update). */
static FastIo
tls_write (FastConn *conn, const guint8 *buf, gsize len, gsize *n, GIOCondition *want,
           FastError *error)
{
    FastIo r = tls_write_record (conn, buf, len, n, want, error);

    ahead_keep (conn);
    return r;
}

static const FastConnIo tls_io = { tls_read, tls_write };

/* Larger than a TLS record with its header, so one recv() usually brings a whole record. */
#define READ_AHEAD_SIZE (16 * 1024 + 512)

/* The worker thread's: a connection reads through it only inside a GnuTLS call. */
static _Thread_local guint8 read_ahead[READ_AHEAD_SIZE];

static ssize_t
tls_pull (gnutls_transport_ptr_t ptr, void *buf, size_t len)
{
    FastConn *conn = ptr;
    gsize n;

    if (conn->ahead_start == conn->ahead_end) {
        gssize r;
        do
            r = recv (conn->fd, read_ahead, READ_AHEAD_SIZE, 0);
        while (r < 0 && errno == EINTR);
        if (r <= 0) {
            if (r < 0)
                gnutls_transport_set_errno (conn->tls, errno);
            conn->ahead = NULL;
            conn->ahead_start = conn->ahead_end = 0;
            return r;
        }
        conn->ahead = read_ahead;
        conn->ahead_start = 0;
        conn->ahead_end = r;
    }
    n = MIN (len, conn->ahead_end - conn->ahead_start);
    memcpy (buf, conn->ahead + conn->ahead_start, n);
    conn->ahead_start += n;
    return n;
}

/* GnuTLS waits with this only where a timeout was asked for; the worker never waits. */
static int
tls_pull_timeout (gnutls_transport_ptr_t ptr, unsigned int ms)
{
    FastConn *conn = ptr;
    struct pollfd pfd = { conn->fd, POLLIN, 0 };

    if (conn->ahead_start < conn->ahead_end)
        return 1;
    return poll (&pfd, 1, 0);
}

static ssize_t
tls_vec_push (gnutls_transport_ptr_t ptr, const giovec_t *iov, int iovcnt)
{
    FastConn *conn = ptr;
    struct msghdr msg = { 0 };
    gssize r;

    msg.msg_iov = (struct iovec *)iov;
    msg.msg_iovlen = iovcnt;
    do
        r = sendmsg (conn->fd, &msg, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        gnutls_transport_set_errno (conn->tls, errno);
    return r;
}

/* Linux 6.3's socket option (linux/in.h); glibc's headers may not have it yet. */
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif

/*
 * connect() picks its local port from the even half of the ephemeral
 * range first, leaving the odd half to bind(); once some 14,000
 * connections to one server hold every even port, each further connect
 * scans them all in the kernel before it tries an odd one (the last
 * thousand of 15,000 users took the worker about a second).  A
 * per-socket range, even one that only repeats the system's, makes the
 * kernel walk the whole range in one pass from where the last connect
 * stopped.  Best effort: an older kernel refuses it and keeps its way.
 */
static void
whole_port_range (int fd, int family)
{
    guint32 range = 65535u << 16 | 1u; /* high << 16 | low, clamped to ip_local_port_range */

    if (family == AF_INET || family == AF_INET6)
        setsockopt (fd, IPPROTO_IP, IP_LOCAL_PORT_RANGE, &range, sizeof range);
}

/*
 * Whether the TCP handshake of a non-blocking connect() that answered
 * EINPROGRESS is already done: on loopback the kernel runs the whole
 * handshake inside the call.  Knowing it spares the wake-up for
 * G_IO_OUT, the SO_ERROR read and a change of the watch from OUT to IN.
 */
static gboolean
connect_done (int fd)
{
    struct tcp_info info;
    socklen_t len = sizeof info;

    return getsockopt (fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0 && len >= 1
           && info.tcpi_state == TCP_ESTABLISHED;
}

FastConn *
fast_conn_connect (ThrongUser *user, const struct sockaddr *addr, socklen_t addr_len,
                   const char *host, guint16 port, gboolean is_tls, FastConnFunc func,
                   gpointer data, FastError *error)
{
    int one = 1;
    int fd = socket (addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        error_from_errno (error, errno);
        return NULL;
    }
    /* Requests are written whole; waiting to coalesce them only adds latency. */
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    whole_port_range (fd, addr->sa_family);
    gboolean established = connect (fd, addr, addr_len) == 0;
    if (!established && errno != EINPROGRESS) {
        error_from_errno (error, errno);
        close (fd);
        return NULL;
    }
    if (!established)
        established = connect_done (fd);
    GIOCondition events = established ? G_IO_IN : G_IO_OUT;

    /* One watch for the connection's life, on the worker's reactor: a
     * wakeup costs what is ready, not what is open. */
    FastConn *conn = g_new0 (FastConn, 1);
    conn->watch = throng_user_watch_fd (user, fd, events, conn_ready, conn, NULL);
    if (conn->watch == NULL) {
        /* The kernel's limit of watched descriptors (fs.epoll.max_user_watches). */
        error->error_class = THRONG_ERROR_OTHER;
        error->message = "cannot watch the socket";
        close (fd);
        g_free (conn);
        return NULL;
    }
    conn->fd = fd;
    conn->io = &plain_io;
    conn->func = func;
    conn->func_data = data;
    conn->host = g_strdup (host);
    conn->port = port;
    conn->is_tls = is_tls;
    conn->events = events;
    conn->established = established;
    return conn;
}

gboolean
fast_conn_connect_finish (FastConn *conn, FastError *error)
{
    int errsv = 0;
    socklen_t len = sizeof errsv;

    if (conn->established)
        return TRUE;
    if (getsockopt (conn->fd, SOL_SOCKET, SO_ERROR, &errsv, &len) < 0)
        errsv = errno;
    if (errsv != 0) {
        error_from_errno (error, errsv);
        return FALSE;
    }
    return TRUE;
}

void
fast_conn_watch (FastConn *conn, GIOCondition events)
{
    if (conn->events == events)
        return;
    conn->events = events;
    throng_watch_modify (conn->watch, events);
}

/* Runs where gnutls_session_set_verify_cert() would, within the handshake. */
static int
tls_verify (gnutls_session_t session)
{
    FastConn *conn = gnutls_transport_get_ptr (session);

    return fast_verified_check (conn->verified, session, conn->verify_name, &conn->verify_status);
}

gboolean
fast_conn_start_tls (FastConn *conn, const FastTlsSetup *setup, GBytes *offer, FastError *error)
{
    /* One key share, for the first group of the priority string, as
     * browsers send one: GnuTLS's default of two costs a key generation
     * per full handshake that the server then ignores.  A server without
     * that group answers with a HelloRetryRequest. */
    int r = gnutls_init (&conn->tls,
                         GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL | GNUTLS_KEY_SHARE_TOP);

    if (r == GNUTLS_E_SUCCESS)
        r = gnutls_priority_set (conn->tls, setup->priority);
    if (r == GNUTLS_E_SUCCESS)
        r = gnutls_credentials_set (conn->tls, GNUTLS_CRD_CERTIFICATE, setup->credentials);
    if (r == GNUTLS_E_SUCCESS && setup->server_name != NULL)
        r = gnutls_server_name_set (conn->tls, GNUTLS_NAME_DNS, setup->server_name,
                                    strlen (setup->server_name));
    if (r != GNUTLS_E_SUCCESS) {
        error->error_class = THRONG_ERROR_TLS;
        error->message = gnutls_strerror (r);
        return FALSE;
    }
    if (setup->n_alpn > 0)
        gnutls_alpn_set_protocols (conn->tls, setup->alpn, setup->n_alpn, 0);
    if (setup->verify_name != NULL) {
        conn->verify_name = g_strdup (setup->verify_name);
        conn->verified = setup->verified;
        gnutls_session_set_verify_function (conn->tls, tls_verify);
    }
    /* Data that no longer unpacks only costs a full handshake. */
    if (offer != NULL)
        gnutls_session_set_data (conn->tls, g_bytes_get_data (offer, NULL),
                                 g_bytes_get_size (offer));
    gnutls_transport_set_ptr (conn->tls, conn);
    gnutls_transport_set_pull_function (conn->tls, tls_pull);
    gnutls_transport_set_pull_timeout_function (conn->tls, tls_pull_timeout);
    gnutls_transport_set_vec_push_function (conn->tls, tls_vec_push);
    conn->io = &tls_io;
    return TRUE;
}

static const char *
verify_message (unsigned status)
{
    if (status & GNUTLS_CERT_EXPIRED)
        return "certificate has expired";
    if (status & GNUTLS_CERT_NOT_ACTIVATED)
        return "certificate is not yet valid";
    if (status & GNUTLS_CERT_UNEXPECTED_OWNER)
        return "certificate does not match the host name";
    if (status & GNUTLS_CERT_REVOKED)
        return "certificate was revoked";
    if (status & GNUTLS_CERT_SIGNER_NOT_FOUND)
        return "certificate issuer is not trusted";
    if (status & GNUTLS_CERT_SIGNER_NOT_CA)
        return "certificate issuer is not a CA";
    if (status & GNUTLS_CERT_INSECURE_ALGORITHM)
        return "certificate uses an insecure algorithm";
    return "certificate verification failed";
}

static FastIo
handshake_step (FastConn *conn, GIOCondition *want, FastError *error)
{
    for (;;) {
        int r = gnutls_handshake (conn->tls);
        if (r == GNUTLS_E_SUCCESS)
            return FAST_IO_OK;
        if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
            if (tls_again_now (conn))
                continue;
            *want = tls_want (conn);
            return FAST_IO_AGAIN;
        }
        if (!gnutls_error_is_fatal (r))
            continue;
        /* The server went away under the handshake (it stopped, or it died
         * with our ClientHello unread): a cut connection, as after it. */
        if (r == GNUTLS_E_PULL_ERROR || r == GNUTLS_E_PUSH_ERROR) {
            error->error_class = THRONG_ERROR_RESET;
            error->message = "connection reset by peer";
            return FAST_IO_ERROR;
        }
        if (r == GNUTLS_E_PREMATURE_TERMINATION) {
            error->error_class = THRONG_ERROR_RESET;
            error->message = "connection closed during the TLS handshake";
            return FAST_IO_ERROR;
        }
        /* ALPN offered only h2 (version: 2) and the server speaks none of it. */
        if (r == GNUTLS_E_FATAL_ALERT_RECEIVED
            && gnutls_alert_get (conn->tls) == GNUTLS_A_NO_APPLICATION_PROTOCOL) {
            error->error_class = THRONG_ERROR_PROTOCOL;
            error->message = "the server does not speak h2 (TLS alert no_application_protocol "
                             "to ALPN h2); version: 2 requires it, version: auto falls back";
            return FAST_IO_ERROR;
        }
        error->error_class = http_error_class_from_gnutls (r);
        if (error->error_class == THRONG_ERROR_CERTIFICATE)
            error->message = verify_message (conn->verify_status);
        else
            error->message = gnutls_strerror (r);
        return FAST_IO_ERROR;
    }
}

FastIo
fast_conn_handshake (FastConn *conn, GIOCondition *want, FastError *error)
{
    FastIo r = handshake_step (conn, want, error);

    ahead_keep (conn);
    return r;
}

GBytes *
fast_conn_take_session (FastConn *conn)
{
    gnutls_datum_t datum = { NULL, 0 };

    if (gnutls_protocol_get_version (conn->tls) == GNUTLS_TLS1_3
        && !(gnutls_session_get_flags (conn->tls) & GNUTLS_SFLAGS_SESSION_TICKET))
        return NULL;
    if (gnutls_session_get_data2 (conn->tls, &datum) != GNUTLS_E_SUCCESS || datum.size == 0) {
        gnutls_free (datum.data);
        return NULL;
    }
    /* GnuTLS's buffer has grown by doubling; an idle user keeps this for
     * its next connection, so it keeps only the bytes (docs/memory.md). */
    GBytes *session = g_bytes_new (datum.data, datum.size);
    gnutls_free (datum.data);
    return session;
}

void
fast_conn_idle (FastConn *conn)
{
    if (conn->ahead_start < conn->ahead_end)
        return;
    g_clear_pointer (&conn->spill, g_free);
    conn->spill_cap = 0;
    conn->ahead = NULL;
    conn->ahead_start = conn->ahead_end = 0;
}

/*
 * What one read brings: the worker thread's, not the user's, since every
 * byte is parsed (the head copied, the body counted) before the read
 * returns, and most users are idle (docs/memory.md).
 */
static _Thread_local guint8 in_buffer[IN_SIZE];

guint8 *
fast_in_buffer (void)
{
    return in_buffer;
}

gboolean
fast_tracing (void)
{
    static gsize once = 0;
    static gboolean wanted;

    if (g_once_init_enter (&once)) {
        wanted = !g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN);
        g_once_init_leave (&once, 1);
    }
    return wanted;
}

void
fast_conn_close (FastConn *conn, gboolean polite)
{
    if (conn == NULL)
        return;
    if (G_UNLIKELY (fast_tracing ()))
        g_debug ("fast: connection to %s:%u closed after %u exchanges%s", conn->host,
                 conn->port, conn->exchanges, polite ? "" : " (abortive)");
    if (conn->tls != NULL) {
        /* One try, never a wait: the peer may already be gone. */
        if (polite)
            gnutls_bye (conn->tls, GNUTLS_SHUT_WR);
        gnutls_deinit (conn->tls);
    }
    if (conn->session_free != NULL)
        conn->session_free (conn->session_data);
    throng_watch_remove (conn->watch);
    close (conn->fd);
    g_free (conn->spill);
    g_free (conn->verify_name);
    g_free (conn->host);
    g_free (conn);
}
