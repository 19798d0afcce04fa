/* SPDX-License-Identifier: MIT */
/*
 * A SoupServer served from a listening socket of our own.
 *
 * libsoup 3.2's own listener keeps one reference too many to every socket
 * it accepts, and soup_server_get_uris() one to each listener's address:
 * a leak per connection that LeakSanitizer reports, and that only a
 * suppression naming libsoup's frames could hide (which needs the slow
 * unwinder on every malloc, the better part of the sanitized suite's
 * time).  Accepting here and handing each connection to
 * soup_server_accept_iostream() leaks nothing, and the backlog is ours.
 *
 * Used by the built-in target, the tests' SoupServers and the Prometheus
 * reporter's scrape endpoint.  Everything runs on the thread-default main
 * context of the thread that called throng_soup_listen(); free the
 * listener there, after soup_server_disconnect().
 */
#pragma once

#include <libsoup/soup.h>

typedef struct _ThrongSoupListener ThrongSoupListener;

/*
 * Listens on @address (port 0: the kernel picks one) with a backlog of
 * @backlog and serves what it accepts with @server; over TLS with
 * @certificate when it is not NULL.
 */
ThrongSoupListener *throng_soup_listen (SoupServer *server,
                                        GSocketAddress *address,
                                        int backlog,
                                        GTlsCertificate *certificate,
                                        GError **error);
/* The port it listens on. */
guint16 throng_soup_listener_port (ThrongSoupListener *listener);
void throng_soup_listener_free (ThrongSoupListener *listener);
