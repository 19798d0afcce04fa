/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 on a fast connection (h1.c): one exchange at a time, the
 * request written whole, the response read through the parser of
 * response.h.  The table session.c gives a connection that did not turn
 * out to speak h2.
 */
#pragma once

#include "session.h"

extern const FastSession fast_h1_session;
