/* SPDX-License-Identifier: MIT */
/*
 * Version numbers of the throng SDK.  THRONG_ABI_VERSION is the number the
 * registry compares with a plugin's descriptor; it changes only when a
 * change would break an already-built plugin (a field removed or moved, a
 * signature changed), never when a field or hook is appended.
 */
#pragma once

#define THRONG_VERSION_MAJOR 0
#define THRONG_VERSION_MINOR 1
#define THRONG_VERSION_MICRO 0
#define THRONG_VERSION_STRING "0.1.0"

/**
 * THRONG_ABI_VERSION:
 *
 * The plugin ABI this SDK describes.  A plugin built against a different
 * number is refused at load time.
 *
 * Since: 0.1
 */
#define THRONG_ABI_VERSION 1

#if defined(__GNUC__)
#define THRONG_API __attribute__ ((visibility ("default")))
#else
#define THRONG_API
#endif
