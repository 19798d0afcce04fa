/* SPDX-License-Identifier: MIT */
/*
 * Conditions: the small language of `if`, `while` and `on_failure`'s
 * neighbours (docs/journeys.md), compiled and name-checked when the plan
 * loads, evaluated per user with no allocation.  Never installed.
 */
#pragma once

#include "template-private.h"

typedef struct _ThrongCondition ThrongCondition;

/*
 * Compiles @node's scalar: comparisons, `and`/`or`/`not`, parentheses,
 * `exists(vars.NAME)` and `matches /REGEX/`, over the names a template
 * reads and `last.status`.  NULL with a located error at its character.
 */
ThrongCondition *throng_condition_compile (ThrongScope *scope, const ThrongNode *node,
                                           GError **error);
void throng_condition_free (ThrongCondition *condition);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongCondition, throng_condition_free)

/*
 * Whether @condition holds for @user, with its variables as they are
 * now.  A comparison one of whose operands is unset is false (write
 * `exists(...)` to ask).
 */
gboolean throng_condition_eval (const ThrongCondition *condition, ThrongUser *user);
