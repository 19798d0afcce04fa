/* SPDX-License-Identifier: MIT */
/*
 * Internals of the json plugin shared between its files: the reporter's
 * vtable (json.c), registered by plugin.c.  What it writes is the SDK's
 * run-file writer's (<throng/runfile.h>).
 */
#pragma once

#include <throng/throng.h>

extern const ThrongReporter json_reporter;
