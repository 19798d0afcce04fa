/* SPDX-License-Identifier: MIT */
/*
 * throng(1), written from docs/throng.1.in and what the commands say of
 * themselves (usage.h).  `throng __man TEMPLATE` runs it at build time.
 */
#pragma once

#include "usage.h"

/*
 * The page from @template_text, @commands ended by a NULL name.  Fails
 * when a command's --help cannot be read, or a note names an option that
 * no --help lists.
 */
char *throng_manual_write (const char *template_text, const ThrongCliCommand *commands,
                           GError **error);
