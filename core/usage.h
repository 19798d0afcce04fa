/* SPDX-License-Identifier: MIT */
/* throng's own resource use: CPU time of the process and of one thread. Private. */
#pragma once

#include <glib.h>

void throng_usage_process (gint64 *user_us, gint64 *system_us);
void throng_usage_thread (gint64 *user_us, gint64 *system_us);
