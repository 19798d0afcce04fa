/* SPDX-License-Identifier: MIT */
/* libyaml's syntax errors told as the likely mistake (yaml-syntax.c).  Private to the core. */
#pragma once

#include <glib.h>

/*
 * @data is the plan's text; libyaml reported @problem at *@line:*@column
 * (from 1).  Returns the sentence that explains the likely mistake and
 * moves *@line and *@column to its cause, or returns NULL and leaves them.
 */
char *throng_yaml_explain (const char *data, gsize length, const char *problem, guint *line,
                           guint *column);
