/* SPDX-License-Identifier: MIT */
/*
 * Internals of the html plugin shared between its files: the reporter's
 * vtable (html.c); the series (series.c), charts (svg.c) and document
 * (page.c) have their own headers.
 */
#pragma once

#include <throng/throng.h>

extern const ThrongReporter html_reporter;
