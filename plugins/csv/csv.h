/* SPDX-License-Identifier: MIT */
/* The csv reporter's vtable, shared between plugin.c and csv.c. */
#pragma once

#include <throng/reporter.h>

extern const ThrongReporter csv_reporter;
