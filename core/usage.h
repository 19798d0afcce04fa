/* SPDX-License-Identifier: MIT */
/* throng's own resource use: CPU time of the process. Private. */
#pragma once

#include <glib.h>

void throng_usage_process (gint64 *user_us, gint64 *system_us);
