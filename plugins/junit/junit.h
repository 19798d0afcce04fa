/* SPDX-License-Identifier: MIT */
/*
 * Internals of the junit plugin shared between its files: the reporter's
 * vtable.
 */
#pragma once

#include <throng/throng.h>

extern const ThrongReporter junit_reporter;
