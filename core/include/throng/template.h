/* SPDX-License-Identifier: MIT */
/*
 * Templates, per-user variables and checks: what a protocol plugin needs
 * to take part in user journeys (docs/journeys.md).
 *
 * Everything is resolved while the plan loads.  A template is compiled
 * once into literal and variable segments; a variable name becomes a slot
 * number; a check becomes an index into the scenario's check table.  At
 * run time a plugin only expands (one append per segment into a buffer it
 * reuses), reads and writes slots, and records check outcomes: no lookup
 * by name, no parsing, no allocation that a literal string would not make.
 *
 * Threading: the `throng_scope_*` and `throng_template_compile*` calls are
 * made on the main thread from `scenario_new` / `step_new`, while the plan
 * loads; everything taking a #ThrongUser is made on that user's worker.
 */
#pragma once

#include <glib.h>
#include <throng/node.h>
#include <throng/sample.h>
#include <throng/user.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * ThrongScope:
 *
 * What one scenario's steps can refer to while the plan loads: its
 * variables (assigned by `set` steps and by extractors), its data set's
 * columns and its checks.  Owned by the core, handed to the protocol in
 * #ThrongScenarioSetup, valid until the plan is freed (a plugin may keep
 * the pointer in its scenario data and use it from `step_new`).
 *
 * Since: 0.3
 */
typedef struct _ThrongScope ThrongScope;

/**
 * ThrongTemplate:
 *
 * A compiled string with `${...}` substitutions (the syntax is in
 * docs/journeys.md).  Immutable once compiled, so all workers may expand
 * it at once.
 *
 * Since: 0.3
 */
typedef struct _ThrongTemplate ThrongTemplate;

/**
 * throng_scope_declare_var:
 * @scope: the scenario's scope
 * @name: the variable's name, without `vars.`
 * @where: the node that assigns it (an extractor's key), for errors
 * @error: return location for a located error (an invalid name)
 *
 * Says that something in the scenario assigns `vars.@name`.  A template
 * that reads a variable nothing declares is refused when the scenario has
 * loaded, at the position of the read, with the nearest declared name as
 * a suggestion.  Declaring a name twice returns the same slot.
 *
 * Returns: the variable's slot, or -1 with @error set
 *
 * Since: 0.3
 */
THRONG_API gint throng_scope_declare_var (ThrongScope *scope, const char *name, const ThrongNode *where,
                                          GError **error);

/**
 * throng_scope_add_check:
 * @scope: the scenario's scope
 * @name: how reports name the check (`status is 200`,
 *   `$.token exists`); copied
 *
 * Adds a check to the scenario's table.  Reports show, per check, how
 * often it passed and failed, and thresholds judge `checks.rate` over all
 * of them.  Two calls with the same name in one scenario return the same
 * index, so a check repeated in several steps is one row.
 *
 * Returns: the check's index in the scenario
 *
 * Since: 0.3
 */
THRONG_API guint throng_scope_add_check (ThrongScope *scope, const char *name);

/**
 * throng_template_compile:
 * @scope: the scenario's scope
 * @node: a scalar node
 * @error: return location for an error located at the offending
 *   character inside @node's text (an unknown namespace or function, a bad
 *   filter, an unterminated `${`)
 *
 * Compiles @node's text.  Reads of `vars.*` are checked against the
 * scope's declarations once the whole scenario has loaded, so a step may
 * read a variable that a later step (of an earlier iteration) assigns.
 *
 * Returns: (transfer full) (nullable): the template, or %NULL with @error
 *
 * Since: 0.3
 */
THRONG_API ThrongTemplate *throng_template_compile (ThrongScope *scope, const ThrongNode *node, GError **error);

/**
 * throng_template_compile_text:
 * @scope: the scenario's scope
 * @where: the node errors are reported against (the `body_file` key)
 * @origin: (nullable): the name errors give instead of the plan's file
 *   (the body file's path), with line and column counted inside @text
 * @text: the text, not necessarily NUL-terminated
 * @length: its length in bytes
 * @error: return location for an error
 *
 * Like throng_template_compile() for text that is not a node of the plan:
 * a `body_file` with `template: true`.
 *
 * Returns: (transfer full) (nullable): the template, or %NULL with @error
 *
 * Since: 0.3
 */
THRONG_API ThrongTemplate *throng_template_compile_text (ThrongScope *scope, const ThrongNode *where,
                                                         const char *origin, const char *text, gsize length,
                                                         GError **error);

/**
 * throng_template_free:
 * @tpl: (nullable) (transfer full): a template
 *
 * Since: 0.3
 */
THRONG_API void throng_template_free (ThrongTemplate *tpl);

/**
 * throng_template_get_literal:
 * @tpl: a template
 * @length: (out) (optional): the literal's length in bytes
 *
 * A template without substitutions is its text (with `$${` already
 * turned into `${`): a plugin keeps such a string pre-built, exactly as
 * cheap as a plain one.
 *
 * Returns: (transfer none) (nullable): the text when @tpl has no
 *   substitutions, else %NULL
 *
 * Since: 0.3
 */
THRONG_API const char *throng_template_get_literal (const ThrongTemplate *tpl, gsize *length);

/**
 * throng_template_expand:
 * @tpl: a template
 * @user: the user it is expanded for (its variables, data row, id and
 *   iteration)
 * @out: the buffer the expansion is appended to
 * @error: return location for an error: %THRONG_TEMPLATE_ERROR_UNSET when
 *   a variable the template reads is not set, with a message naming it
 *   (`vars.token is not set`)
 *
 * Appends the expansion to @out.  On error @out may hold part of it; the
 * plugin fails the step with %THRONG_ERROR_VARIABLE and sends nothing.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.3
 */
THRONG_API gboolean throng_template_expand (const ThrongTemplate *tpl, ThrongUser *user, GString *out,
                                            GError **error);

/**
 * ThrongTemplateError:
 * @THRONG_TEMPLATE_ERROR_UNSET: a variable the template reads is not set
 *
 * Errors of throng_template_expand(), in THRONG_TEMPLATE_ERROR.
 *
 * Since: 0.3
 */
typedef enum {
    THRONG_TEMPLATE_ERROR_UNSET,
} ThrongTemplateError;

#define THRONG_TEMPLATE_ERROR (throng_template_error_quark ())
THRONG_API GQuark throng_template_error_quark (void);

/**
 * throng_user_set_var:
 * @user: a user
 * @slot: a slot from throng_scope_declare_var() in @user's scenario
 * @value: the value, not necessarily NUL-terminated; copied
 * @length: its length, or -1 when @value is NUL-terminated
 *
 * Sets a variable of @user; it keeps its value across iterations until
 * set again.  The copy reuses the slot's storage when it fits.
 *
 * Since: 0.3
 */
THRONG_API void throng_user_set_var (ThrongUser *user, gint slot, const char *value, gssize length);

/**
 * throng_user_get_var:
 * @user: a user
 * @slot: a slot from throng_scope_declare_var() in @user's scenario
 * @length: (out) (optional): the value's length
 *
 * Returns: (transfer none) (nullable): the value (NUL-terminated), valid
 *   until the variable is set again, or %NULL when it is not set
 *
 * Since: 0.3
 */
THRONG_API const char *throng_user_get_var (ThrongUser *user, gint slot, gsize *length);

/**
 * throng_user_record_check:
 * @user: a user
 * @check: an index from throng_scope_add_check() in @user's scenario
 * @passed: whether it passed
 *
 * Counts one outcome of a check.  A failed check also fails the step: the
 * plugin sets the sample's error to %THRONG_ERROR_CHECK and its message to
 * the first failing check and the value it saw.
 *
 * Since: 0.3
 */
THRONG_API void throng_user_record_check (ThrongUser *user, guint check, gboolean passed);

G_END_DECLS
