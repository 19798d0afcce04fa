/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 for the fast transport, through libnghttp2's client session:
 * the session table (session.h) of a connection on which h2 was chosen,
 * whose exchanges are streams; the session lives on the FastConn
 * (conn->session_data) and dies with it.  h2.c moves the bytes and ends
 * the streams; h2-stream.c holds nghttp2's callbacks and the request.
 */
#pragma once

#include "session.h"

extern const FastSession fast_h2_session;
