/* SPDX-License-Identifier: MIT */
/*
 * A small HTTP and HTTPS server that misbehaves on request, for the fault
 * tests (tests/integration/test-faults.c): it stalls, closes or resets connections at
 * chosen points, answers garbage, 5xx or endless bodies, drops or stalls
 * TLS handshakes, and keeps a listener whose accept queue is full.  The
 * contract (kinds, paths, what it prints) is tests/fault-server.h.
 *
 * It is its own process so that a test can kill it mid-run like a target
 * that dies.  One blocking thread per connection keeps every fault a few
 * straight lines; it serves loopback only and lives as long as its stdin.
 */
#include "fault-server.h"

#include <errno.h>
#include <glib.h>
#include <gnutls/gnutls.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
    const char *kind;
    int fd;
    guint16 port;
    gnutls_certificate_credentials_t creds; /* https only */
    guint16 filler_port; /* backlog kinds: local port of the connect left in SYN-SENT */
} Listener;

typedef struct {
    const Listener *listener;
    int fd;
    gnutls_session_t tls; /* NULL over plain HTTP */
    guint requests;       /* request heads read on this connection */
} Conn;

static gnutls_priority_t priority;

/* ------------------------------------------------------------------ */
/* I/O over TCP or TLS                                                 */

static gboolean
conn_send (Conn *conn, const void *data, gsize len)
{
    const char *p = data;

    while (len > 0) {
        gssize n;

        if (conn->tls != NULL) {
            n = gnutls_record_send (conn->tls, p, len);
            if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                continue;
        } else {
            n = send (conn->fd, p, len, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
        }
        if (n <= 0)
            return FALSE;
        p += n;
        len -= (gsize)n;
    }
    return TRUE;
}

static gboolean
conn_send_text (Conn *conn, const char *text)
{
    return conn_send (conn, text, strlen (text));
}

static gssize
conn_recv (Conn *conn, void *buf, gsize len)
{
    for (;;) {
        gssize n;

        if (conn->tls != NULL) {
            n = gnutls_record_recv (conn->tls, buf, len);
            if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                continue;
            /* A rehandshake request or a ticket is not data; keep reading. */
            if (n < 0 && !gnutls_error_is_fatal ((int)n))
                continue;
        } else {
            n = recv (conn->fd, buf, len, 0);
            if (n < 0 && errno == EINTR)
                continue;
        }
        return n;
    }
}

/* Blocks until the peer closes or resets: how a silent server holds on. */
static void
conn_wait_peer_gone (Conn *conn)
{
    char buf[4096];

    while (conn_recv (conn, buf, sizeof buf) > 0)
        ;
}

/* A close the client sees as a reset (RST), not an orderly end. */
static void
conn_reset (Conn *conn)
{
    struct linger linger = { .l_onoff = 1, .l_linger = 0 };

    setsockopt (conn->fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
}

/* ------------------------------------------------------------------ */
/* The faults                                                          */

/* Streams zero bytes until the peer goes; with @chunked, as chunks. */
static void
send_endless (Conn *conn, gboolean chunked)
{
    static char block[65536];
    char line[32];

    for (;;) {
        if (chunked) {
            g_snprintf (line, sizeof line, "%zx\r\n", sizeof block);
            if (!conn_send_text (conn, line) || !conn_send (conn, block, sizeof block)
                || !conn_send_text (conn, "\r\n"))
                return;
        } else if (!conn_send (conn, block, sizeof block)) {
            return;
        }
    }
}

static guint
query_uint (const char *query, const char *name, guint fallback)
{
    g_autofree char *key = g_strconcat (name, "=", NULL);
    const char *at = query != NULL ? strstr (query, key) : NULL;

    if (at == NULL)
        return fallback;
    return (guint)g_ascii_strtoull (at + strlen (key), NULL, 10);
}

/* Sends @text, then holds the connection until the peer goes. */
static gboolean
send_then_hold (Conn *conn, const char *text)
{
    if (conn_send_text (conn, text))
        conn_wait_peer_gone (conn);
    return FALSE;
}

/* Sends @head, then @unit for ever, until the peer goes. */
static gboolean
send_repeating (Conn *conn, const char *head, const char *unit)
{
    GString *block = g_string_new (NULL);

    while (block->len < 16384)
        g_string_append (block, unit);
    if (conn_send_text (conn, head))
        while (conn_send (conn, block->str, block->len))
            ;
    g_string_free (block, TRUE);
    return FALSE;
}

#define OK_HEAD "HTTP/1.1 200 OK\r\n"
#define CHUNKED_HEAD OK_HEAD "Transfer-Encoding: chunked\r\n\r\n"
#define CHUNKED_OK "2\r\nok\r\n0\r\n\r\n"

/* The hostile responses (fault-server.h); -1 when @path is not one of them. */
static int
answer_hostile (Conn *conn, const char *path, const char *query)
{
    if (strcmp (path, FAULT_PATH_INTERIM_FLOOD) == 0)
        return send_repeating (conn, "", "HTTP/1.1 100 Continue\r\n\r\n");
    if (strcmp (path, FAULT_PATH_INTERIM_MANY) == 0) {
        guint n = query_uint (query, "n", 50000);
        GString *all = g_string_new (NULL);
        for (guint i = 0; i < n; i++)
            g_string_append (all, "HTTP/1.1 100 Continue\r\n\r\n");
        g_string_append (all, OK_HEAD "Content-Length: 2\r\n\r\nok");
        gboolean sent = conn_send (conn, all->str, all->len);
        g_string_free (all, TRUE);
        return sent;
    }
    if (strcmp (path, FAULT_PATH_EARLY_HINTS) == 0)
        return conn_send_text (conn, "HTTP/1.1 100 Continue\r\n\r\n"
                                     "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload"
                                     "\r\n\r\n" OK_HEAD "Content-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_CHUNK_EXT_ENDLESS) == 0)
        return send_repeating (conn, CHUNKED_HEAD "5;", "x");
    if (strcmp (path, FAULT_PATH_TINY_CHUNKS) == 0)
        return send_repeating (conn, CHUNKED_HEAD, "1\r\nx\r\n");
    if (strcmp (path, FAULT_PATH_TRAILER_ENDLESS) == 0)
        return send_repeating (conn, CHUNKED_HEAD "0\r\n", "X-Trailer: 0123456789\r\n");
    if (strcmp (path, FAULT_PATH_CHUNK_ZZ) == 0)
        return send_then_hold (conn, CHUNKED_HEAD "zz\r\nhello\r\n0\r\n\r\n");
    if (strcmp (path, FAULT_PATH_CHUNK_5G) == 0)
        return send_then_hold (conn, CHUNKED_HEAD "5g\r\nhello\r\n0\r\n\r\n");
    if (strcmp (path, FAULT_PATH_CHUNK_ZEROS) == 0)
        return conn_send_text (conn, CHUNKED_HEAD "00000000000000000002\r\nok\r\n0\r\n\r\n");
    if (strcmp (path, FAULT_PATH_CHUNK_15_DIGITS) == 0)
        return send_then_hold (conn, CHUNKED_HEAD "100000000000000\r\nhello");
    if (strcmp (path, FAULT_PATH_CHUNK_NO_FINAL_CRLF) == 0) {
        conn_send_text (conn, CHUNKED_HEAD "2\r\nok\r\n0\r\n");
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_TE_GZIP_CHUNKED) == 0)
        /* Not gzip data: a client that frames by chunked counts the coded bytes, 2. */
        return conn_send_text (conn, OK_HEAD "Transfer-Encoding: gzip, chunked\r\n\r\n" CHUNKED_OK);
    if (strcmp (path, FAULT_PATH_CL_TWICE) == 0)
        return conn_send_text (conn, OK_HEAD "Content-Length: 2\r\nContent-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_CL_DISAGREE) == 0)
        return send_then_hold (conn, OK_HEAD "Content-Length: 2, 5\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_CL_NEGATIVE) == 0)
        return send_then_hold (conn, OK_HEAD "Content-Length: -1\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_CL_TE) == 0)
        return send_then_hold (conn, OK_HEAD "Content-Length: 2\r\nTransfer-Encoding: chunked"
                                             "\r\n\r\n" CHUNKED_OK);
    if (strcmp (path, FAULT_PATH_TE_TWO_LINES) == 0) {
        conn_send_text (conn, OK_HEAD "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity"
                              "\r\n\r\n" CHUNKED_OK);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_TE_ONE_LINE) == 0) {
        conn_send_text (conn, OK_HEAD "Transfer-Encoding: chunked, identity\r\n\r\n" CHUNKED_OK);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_NO_STATUS) == 0) {
        conn_send_text (conn, "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok");
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_HTTP09) == 0) {
        conn_send_text (conn, "<html>hello</html>\n");
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_HEAD_TOO_LARGE) == 0) {
        GString *head = g_string_new (OK_HEAD);
        while (head->len < 100 * 1024)
            g_string_append (head, "X-Pad: 0123456789abcdef0123456789abcdef\r\n");
        g_string_append (head, "Content-Length: 2\r\n\r\nok");
        send_then_hold (conn, head->str);
        g_string_free (head, TRUE);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_STATUS_101) == 0)
        return send_then_hold (conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\n"
                                     "Upgrade: websocket\r\n\r\n");
    if (strcmp (path, FAULT_PATH_STATUS_600) == 0)
        return send_then_hold (conn, "HTTP/1.1 600 Beyond\r\nContent-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_BARE_LF) == 0)
        return conn_send_text (conn, "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\n\n");
    if (strcmp (path, FAULT_PATH_HTTP10_NO_LENGTH) == 0) {
        conn_send_text (conn, "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nok");
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_NO_CONTENT_BODY) == 0)
        return conn_send_text (conn, "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello");
    if (strcmp (path, FAULT_PATH_CLOSE_THIRD) == 0) {
        if (conn->requests % 3 == 0)
            return FALSE;
        return conn_send_text (conn, OK_HEAD "Content-Length: 2\r\n\r\nok");
    }
    if (strcmp (path, FAULT_PATH_EMPTY_LINE_BEFORE) == 0)
        return conn_send_text (conn, "\r\n" OK_HEAD "Content-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_CONTINUE_EMPTY_LINE) == 0)
        return conn_send_text (conn, "HTTP/1.1 100 Continue\r\n\r\n\r\n" OK_HEAD
                                     "Content-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_STRAY_AFTER) == 0) {
        if (!conn_send_text (conn, OK_HEAD "Content-Length: 2\r\n\r\nok"))
            return FALSE;
        g_usleep (100000);
        return conn_send_text (conn, "stray");
    }
    return -1;
}

/* Answers one request; FALSE ends the connection (the caller closes it). */
static gboolean
answer (Conn *conn, const char *path, const char *query)
{
    char body[1000];

    memset (body, 'x', sizeof body);
    if (strcmp (path, FAULT_PATH_OK) == 0)
        return conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    if (strcmp (path, FAULT_PATH_SLOW) == 0) {
        g_usleep ((gulong)query_uint (query, "ms", 100) * 1000);
        return conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    }
    if (strcmp (path, FAULT_PATH_STATUS_500) == 0)
        return conn_send_text (conn, "HTTP/1.1 500 Internal Server Error\r\n"
                                     "Content-Length: 5\r\n\r\nerror");
    if (strcmp (path, FAULT_PATH_STATUS_503) == 0)
        return conn_send_text (conn, "HTTP/1.1 503 Service Unavailable\r\n"
                                     "Content-Length: 5\r\nRetry-After: 1\r\n\r\nbusy!");
    if (strcmp (path, FAULT_PATH_HANG) == 0) {
        conn_wait_peer_gone (conn);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_STALL_BODY) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            && conn_send (conn, body, 10))
            conn_wait_peer_gone (conn);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_CLOSE_HEADERS) == 0) {
        conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Type: text/pl");
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_CLOSE_BODY) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"))
            conn_send (conn, body, 100);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_RESET) == 0) {
        conn_reset (conn);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_RESET_BODY) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"))
            conn_send (conn, body, 100);
        /* Let the bytes leave before the RST, which would discard them. */
        g_usleep (20000);
        conn_reset (conn);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_GARBAGE) == 0) {
        /* A complete head whose status line is not HTTP: the client must
         * fail on it, not wait for more. */
        if (conn_send_text (conn, "SPLAT 9000 banana\r\nX-Junk: 1\r\n\r\n"))
            conn_wait_peer_gone (conn);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_HUGE) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n"))
            send_endless (conn, FALSE);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_ENDLESS_CHUNKED) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
            send_endless (conn, TRUE);
        return FALSE;
    }
    if (strcmp (path, FAULT_PATH_ENDLESS_CLOSE) == 0) {
        if (conn_send_text (conn, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"))
            send_endless (conn, FALSE);
        return FALSE;
    }
    int hostile = answer_hostile (conn, path, query);
    if (hostile >= 0)
        return hostile;
    return conn_send_text (conn, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
}

/*
 * Reads request heads and answers them until a fault ends the connection
 * or the peer goes.  Request bodies are skipped by Content-Length.
 */
static void
serve_http (Conn *conn)
{
    GString *in = g_string_new (NULL);
    char buf[8192];

    for (;;) {
        char *end = strstr (in->str, "\r\n\r\n");
        gssize n;

        if (end == NULL) {
            n = conn_recv (conn, buf, sizeof buf);
            if (n <= 0)
                break;
            g_string_append_len (in, buf, n);
            continue;
        }

        gsize head_len = (gsize)(end - in->str) + 4;
        g_autofree char *head = g_strndup (in->str, head_len);
        g_auto (GStrv) line = NULL;
        const char *cl = strstr (head, "\r\nContent-Length:");
        gsize body_len = cl != NULL ? g_ascii_strtoull (cl + 17, NULL, 10) : 0;
        char *query;

        while (in->len < head_len + body_len) {
            n = conn_recv (conn, buf, sizeof buf);
            if (n <= 0)
                goto out;
            g_string_append_len (in, buf, n);
        }
        g_string_erase (in, 0, (gssize)(head_len + body_len));

        conn->requests++;
        line = g_strsplit (head, " ", 3);
        if (g_strv_length (line) < 3)
            break;
        query = strchr (line[1], '?');
        if (query != NULL)
            *query++ = '\0';
        if (!answer (conn, line[1], query))
            break;
    }
out:
    g_string_free (in, TRUE);
}

static gpointer
conn_thread (gpointer data)
{
    Conn *conn = data;
    const char *kind = conn->listener->kind;
    char hello[4096];

    if (strcmp (kind, FAULT_KIND_HTTP) == 0 || strcmp (kind, FAULT_KIND_SLOW_ACCEPT) == 0) {
        serve_http (conn);
    } else if (strcmp (kind, FAULT_KIND_HTTPS) == 0) {
        int ret;

        gnutls_init (&conn->tls, GNUTLS_SERVER);
        gnutls_priority_set (conn->tls, priority);
        gnutls_credentials_set (conn->tls, GNUTLS_CRD_CERTIFICATE, conn->listener->creds);
        gnutls_transport_set_int (conn->tls, conn->fd);
        do
            ret = gnutls_handshake (conn->tls);
        while (ret < 0 && !gnutls_error_is_fatal (ret));
        /* A client that refused the certificate ends here, as it should. */
        if (ret == 0)
            serve_http (conn);
        gnutls_deinit (conn->tls);
    } else if (strcmp (kind, FAULT_KIND_TLS_DROP) == 0) {
        /* Wait for the ClientHello, so the close lands mid-handshake. */
        if (recv (conn->fd, hello, sizeof hello, 0) > 0)
            shutdown (conn->fd, SHUT_RDWR);
    } else if (strcmp (kind, FAULT_KIND_RESET_ACCEPT) == 0) {
        conn_reset (conn);
    } else if (strcmp (kind, FAULT_KIND_TLS_HANG) == 0) {
        while (recv (conn->fd, hello, sizeof hello, 0) > 0)
            ;
    }
    close (conn->fd);
    g_free (conn);
    return NULL;
}

static gpointer
accept_thread (gpointer data)
{
    const Listener *listener = data;

    for (;;) {
        int fd = accept (listener->fd, NULL, NULL);
        Conn *conn;

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
                g_usleep (1000);
                continue;
            }
            return NULL;
        }
        conn = g_new0 (Conn, 1);
        conn->listener = listener;
        conn->fd = fd;
        g_thread_unref (g_thread_new ("fault-conn", conn_thread, conn));
    }
}

/* ------------------------------------------------------------------ */
/* Listeners                                                           */

static int
listen_loopback (int backlog, guint16 *port)
{
    struct sockaddr_in addr = { .sin_family = AF_INET };
    socklen_t len = sizeof addr;
    int one = 1;
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (bind (fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen (fd, backlog) < 0
        || getsockname (fd, (struct sockaddr *)&addr, &len) < 0) {
        close (fd);
        return -1;
    }
    *port = ntohs (addr.sin_port);
    return fd;
}

/*
 * Fills the accept queue of a listener that does not accept (backlog; or
 * not yet, slow-accept): connects until one connect does not complete
 * within 200 ms, and keeps every socket open (the last, whose local port
 * goes to @filler_port, stays in SYN-SENT).  Linux then drops each new
 * SYN, so a client's connect neither succeeds nor fails until its own
 * timer ends it or the queue empties.
 * Returns FALSE if the queue never filled.
 */
static gboolean
fill_backlog (guint16 port, guint16 *filler_port)
{
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons (port) };

    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    for (int i = 0; i < 64; i++) {
        int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };

        if (fd < 0)
            return FALSE;
        if (connect (fd, (struct sockaddr *)&addr, sizeof addr) == 0)
            continue;
        if (errno != EINPROGRESS)
            return FALSE;
        if (poll (&pfd, 1, 200) == 0) {
            struct sockaddr_in local;
            socklen_t len = sizeof local;

            /* This one hangs: the queue is full; keep it. */
            if (getsockname (fd, (struct sockaddr *)&local, &len) < 0)
                return FALSE;
            *filler_port = ntohs (local.sin_port);
            return TRUE;
        }
    }
    return FALSE;
}

/*
 * Whether a socket other than our own filler is in SYN-SENT towards
 * @listener: a client whose SYN the full queue dropped.  Asked of the
 * kernel through sock_diag, which filters by state itself: reading
 * /proc/net/tcp walks every socket, and with the tens of thousands in
 * TIME-WAIT that tests running beside this one leave, one read took
 * longer than the client's first SYN retransmission.
 */
static gboolean
client_waiting (const Listener *listener)
{
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } query = {
        .header = { .nlmsg_len = sizeof query, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
        .request = { .sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
                     .idiag_states = 1u << 2 /* TCP_SYN_SENT */ },
    };
    gboolean waiting = FALSE, done = FALSE;
    int fd = socket (AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

    if (fd < 0)
        return FALSE;
    if (send (fd, &query, sizeof query, 0) < 0) {
        close (fd);
        return FALSE;
    }
    while (!done) {
        char buffer[16384] __attribute__ ((aligned (NLMSG_ALIGNTO)));
        ssize_t n = recv (fd, buffer, sizeof buffer, 0);

        if (n <= 0)
            break;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK (h, (size_t)n);
             h = NLMSG_NEXT (h, n)) {
            const struct inet_diag_msg *socket_info = NLMSG_DATA (h);

            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = TRUE;
                break;
            }
            if (ntohs (socket_info->id.idiag_dport) == listener->port
                && ntohs (socket_info->id.idiag_sport) != listener->filler_port)
                waiting = TRUE;
        }
    }
    close (fd);
    return waiting;
}

/* Empties the queue once a client waits, then accepts as http does. */
static gpointer
slow_accept_thread (gpointer data)
{
    const Listener *listener = data;

    while (!client_waiting (listener))
        g_usleep (5000);
    g_usleep (50000);
    return accept_thread (data);
}

static gboolean
listener_open (Listener *listener, const char *spec)
{
    g_auto (GStrv) parts = g_strsplit (spec, ":", 3);
    const char *kind = parts[0];
    gboolean slow = strcmp (kind, FAULT_KIND_SLOW_ACCEPT) == 0;
    gboolean backlog = slow || strcmp (kind, FAULT_KIND_BACKLOG) == 0;

    if (strcmp (kind, FAULT_KIND_HTTP) == 0)
        listener->kind = FAULT_KIND_HTTP;
    else if (strcmp (kind, FAULT_KIND_HTTPS) == 0)
        listener->kind = FAULT_KIND_HTTPS;
    else if (strcmp (kind, FAULT_KIND_TLS_DROP) == 0)
        listener->kind = FAULT_KIND_TLS_DROP;
    else if (strcmp (kind, FAULT_KIND_TLS_HANG) == 0)
        listener->kind = FAULT_KIND_TLS_HANG;
    else if (strcmp (kind, FAULT_KIND_RESET_ACCEPT) == 0)
        listener->kind = FAULT_KIND_RESET_ACCEPT;
    else if (slow)
        listener->kind = FAULT_KIND_SLOW_ACCEPT;
    else if (backlog)
        listener->kind = FAULT_KIND_BACKLOG;
    else {
        g_printerr ("fault-server: unknown listener kind '%s'\n", kind);
        return FALSE;
    }

    if (strcmp (listener->kind, FAULT_KIND_HTTPS) == 0) {
        int ret;

        if (g_strv_length (parts) != 3) {
            g_printerr ("fault-server: https needs https:CERT:KEY\n");
            return FALSE;
        }
        gnutls_certificate_allocate_credentials (&listener->creds);
        ret = gnutls_certificate_set_x509_key_file (listener->creds, parts[1], parts[2],
                                                    GNUTLS_X509_FMT_PEM);
        if (ret < 0) {
            g_printerr ("fault-server: %s: %s\n", parts[1], gnutls_strerror (ret));
            return FALSE;
        }
    }

    listener->fd = listen_loopback (backlog ? 0 : 128, &listener->port);
    if (listener->fd < 0) {
        g_printerr ("fault-server: cannot listen: %s\n", g_strerror (errno));
        return FALSE;
    }
    if (backlog) {
        if (!fill_backlog (listener->port, &listener->filler_port)) {
            g_printerr ("fault-server: the accept queue did not fill\n");
            return FALSE;
        }
        if (slow)
            g_thread_unref (g_thread_new ("fault-slow-accept", slow_accept_thread, listener));
        return TRUE;
    }
    g_thread_unref (g_thread_new ("fault-accept", accept_thread, listener));
    return TRUE;
}

int
main (int argc, char **argv)
{
    g_auto (GStrv) specs = NULL;
    g_autoptr (GOptionContext) context = g_option_context_new ("- a misbehaving test server");
    g_autoptr (GError) error = NULL;
    const GOptionEntry entries[] = {
        { "listen", 0, 0, G_OPTION_ARG_STRING_ARRAY, &specs,
          "a listener: http, https:CERT:KEY, tls-drop, tls-hang, reset-accept, backlog or "
          "slow-accept", "KIND" },
        { NULL },
    };
    Listener *listeners;
    guint n;
    char buf[256];

    g_option_context_add_main_entries (context, entries, NULL);
    if (!g_option_context_parse (context, &argc, &argv, &error)) {
        g_printerr ("fault-server: %s\n", error->message);
        return 2;
    }
    n = specs != NULL ? g_strv_length (specs) : 0;
    if (n == 0) {
        g_printerr ("fault-server: give at least one --listen\n");
        return 2;
    }

    signal (SIGPIPE, SIG_IGN);
    gnutls_global_init ();
    gnutls_priority_init (&priority, "NORMAL", NULL);

    listeners = g_new0 (Listener, n);
    for (guint i = 0; i < n; i++) {
        if (!listener_open (&listeners[i], specs[i]))
            return 1;
        printf ("%s %u\n", listeners[i].kind, listeners[i].port);
    }
    printf ("ready\n");
    fflush (stdout);

    /* Live as long as the test holds our stdin open. */
    while (read (STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    _exit (0);
}
