/* SPDX-License-Identifier: MIT */
/* The console reporter's vtable (console.c), registered by plugin.c. */
#pragma once

#include <throng/throng.h>

extern const ThrongReporter console_reporter;
