/* SPDX-License-Identifier: MIT */
/*
 * Read access to the plan's YAML tree, with errors located at
 * "file:line:column:".  Plugins validate their own options through this
 * API (or the option tables of <throng/options.h>), so that their errors
 * read exactly like the core's.
 */
#pragma once

#include <glib.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * THRONG_PLAN_ERROR:
 *
 * The error domain of everything wrong with a plan.  `throng` exits with
 * status 2 for any error of this domain.
 *
 * Since: 0.1
 */
#define THRONG_PLAN_ERROR (throng_plan_error_quark ())
/**
 * throng_plan_error_quark:
 *
 * Returns: the quark of %THRONG_PLAN_ERROR
 *
 * Since: 0.1
 */
THRONG_API GQuark throng_plan_error_quark (void);

/**
 * ThrongPlanError:
 * @THRONG_PLAN_ERROR_FILE: missing or unreadable file
 * @THRONG_PLAN_ERROR_SYNTAX: not YAML, bad UTF-8, empty, alias
 * @THRONG_PLAN_ERROR_UNKNOWN_KEY: a key the map does not allow
 * @THRONG_PLAN_ERROR_DUPLICATE_KEY: a key given twice in one map
 * @THRONG_PLAN_ERROR_MISSING: a required key is absent
 * @THRONG_PLAN_ERROR_TYPE: a map where a scalar belongs, "abc" for a count …
 * @THRONG_PLAN_ERROR_RANGE: a value of the right type outside its bounds
 * @THRONG_PLAN_ERROR_INVALID: anything else a plugin rejects
 * @THRONG_PLAN_ERROR_LIMIT: too deep, too large
 *
 * The codes of %THRONG_PLAN_ERROR.  A plugin picks the closest; users see
 * only the message.  Values are only ever appended.
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_PLAN_ERROR_FILE,        /* missing or unreadable file */
    THRONG_PLAN_ERROR_SYNTAX,      /* not YAML, bad UTF-8, empty, alias */
    THRONG_PLAN_ERROR_UNKNOWN_KEY,
    THRONG_PLAN_ERROR_DUPLICATE_KEY,
    THRONG_PLAN_ERROR_MISSING,     /* a required key is absent */
    THRONG_PLAN_ERROR_TYPE,        /* a map where a scalar belongs, "abc" for a count … */
    THRONG_PLAN_ERROR_RANGE,       /* a value of the right type outside its bounds */
    THRONG_PLAN_ERROR_INVALID,     /* anything else a plugin rejects */
    THRONG_PLAN_ERROR_LIMIT,       /* too deep, too large */
} ThrongPlanError;

/**
 * ThrongNode:
 *
 * One node of a loaded plan: a scalar, a map or a sequence, with the place
 * it came from.  Owned by the core: nodes live as long as the plan (so a
 * plugin may keep pointers to them in its scenario and step data, not
 * past `scenario_free`/`step_free` or a reporter's `free`) and are never
 * modified after loading, so any thread may read them.  Values given with `--set` have the pseudo-file
 * "--set PATH" and column of the value.
 *
 * Since: 0.1
 */
typedef struct _ThrongNode ThrongNode;

/**
 * ThrongNodeKind:
 * @THRONG_NODE_SCALAR: a string, number, boolean or null; its text is
 *   throng_node_scalar()
 * @THRONG_NODE_MAP: keys (scalars, unique) and values, in file order
 * @THRONG_NODE_SEQUENCE: items, in file order
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_NODE_SCALAR,
    THRONG_NODE_MAP,
    THRONG_NODE_SEQUENCE,
} ThrongNodeKind;

/**
 * throng_node_kind:
 * @node: a node
 *
 * Returns: what @node is
 *
 * Since: 0.1
 */
THRONG_API ThrongNodeKind throng_node_kind (const ThrongNode *node);

/**
 * throng_node_scalar:
 * @node: a node
 *
 * Returns: (transfer none) (nullable): the scalar's text (owned by the
 *   plan, valid as long as @node), or NULL when @node is not a scalar
 *
 * Since: 0.1
 */
THRONG_API const char *throng_node_scalar (const ThrongNode *node);

/**
 * throng_node_is_null:
 * @node: a node
 *
 * Returns: TRUE for a plain `~`, `null` or empty scalar (`key:` with no
 *   value); FALSE for a quoted `"null"` and for maps and sequences
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_is_null (const ThrongNode *node);

/**
 * throng_node_is_plain:
 * @node: a node
 *
 * Returns: TRUE for a scalar written in YAML's plain style (no quotes, no
 *   block indicator), where `42`, `true` and `null` mean a number, a
 *   boolean and null; FALSE for a quoted or block scalar (text, whatever
 *   it reads) and for maps and sequences
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_node_is_plain (const ThrongNode *node);

/**
 * throng_node_n_children:
 * @node: a node
 *
 * Returns: the entries of a map or the items of a sequence; 0 for a scalar
 *
 * Since: 0.1
 */
THRONG_API guint throng_node_n_children (const ThrongNode *node);

/**
 * throng_node_child:
 * @node: a map or a sequence
 * @index: from 0, below throng_node_n_children()
 *
 * Returns: (transfer none): the value of the @index-th entry of a map, or
 *   the @index-th item of a sequence
 *
 * Since: 0.1
 */
THRONG_API const ThrongNode *throng_node_child (const ThrongNode *node, guint index);

/**
 * throng_node_key:
 * @node: a map
 * @index: from 0, below throng_node_n_children()
 *
 * Returns: (transfer none) (nullable): the key node of the @index-th entry
 *   of a map (a scalar, with its own location: the place to report an
 *   unknown or refused key), or NULL for a sequence
 *
 * Since: 0.1
 */
THRONG_API const ThrongNode *throng_node_key (const ThrongNode *node, guint index);

/**
 * throng_node_lookup:
 * @map: a node (not NULL); for anything but a map, NULL is returned
 * @key: the key
 *
 * Returns: (transfer none) (nullable): the value stored under @key in
 *   @map, or NULL
 *
 * Since: 0.1
 */
THRONG_API const ThrongNode *throng_node_lookup (const ThrongNode *map, const char *key);

/**
 * throng_node_file:
 * @node: a node
 *
 * Returns: (transfer none): the file @node came from, as the user named it
 *   (or "--set PATH" for a value given on the command line)
 *
 * Since: 0.1
 */
THRONG_API const char *throng_node_file (const ThrongNode *node);
/**
 * throng_node_line:
 * @node: a node
 *
 * Returns: @node's line, from 1
 *
 * Since: 0.1
 */
THRONG_API guint throng_node_line (const ThrongNode *node);   /* from 1 */
/**
 * throng_node_column:
 * @node: a node
 *
 * Returns: @node's column, from 1, in characters (not bytes)
 *
 * Since: 0.1
 */
THRONG_API guint throng_node_column (const ThrongNode *node); /* from 1 */

/**
 * throng_node_set_error:
 * @node: where the error is
 * @error: (out) (optional): the error to set
 * @code: a #ThrongPlanError
 * @format: printf-style message, without location and without a final period
 *
 * Sets a %THRONG_PLAN_ERROR whose message reads "file:line:column: message".
 *
 * Since: 0.1
 */
THRONG_API void throng_node_set_error (const ThrongNode *node, GError **error, ThrongPlanError code,
                                       const char *format, ...) G_GNUC_PRINTF (4, 5);

/**
 * throng_node_check_file:
 * @node: (nullable): the plan value that names the file, for the error's
 *   location; NULL for a file named on the command line
 * @path: the file's path as it will be opened
 * @error: return location for an error
 *
 * Checks, without opening it, that @path is a regular file.  A FIFO with
 * no writer blocks whoever opens it for reading, and a device or a socket
 * can be read for ever: a file a plan or a command names is refused at
 * once instead.  The error is %THRONG_PLAN_ERROR_FILE, located at @node
 * when it is given and naming the file as @node's text does (else as
 * @path): "NAME is not a regular file (a FIFO)" (or a
 * directory, a character device, a block device, a socket).  A path
 * that cannot be looked at passes: the caller's open then says why, in
 * the words it always used.
 *
 * Returns: FALSE when @path exists and is not a regular file (after
 *   symbolic links)
 *
 * Since: 0.4
 */
THRONG_API gboolean throng_node_check_file (const ThrongNode *node, const char *path,
                                            GError **error);

/*
 * Typed readers of one value node.  Each returns FALSE and sets a located
 * %THRONG_PLAN_ERROR_TYPE error when @node is not of the type, leaving
 * *out untouched; on success it writes *out.
 *
 * - bool: true/false, yes/no, on/off
 * - uint: decimal, at most G_MAXUINT64, no sign
 * - duration: a number and a unit among us, ms, s, m, h (`250ms`, `1.5s`,
 *   `2m`); a bare 0 is allowed; stored in microseconds
 * - size: a number with an optional unit among B, k/KB/KiB, M/MB/MiB,
 *   G/GB/GiB (k = 1000, KiB = 1024); stored in bytes
 */

/**
 * throng_node_get_string:
 * @node: a node
 * @out: (out) (transfer none): the scalar's text, owned by the plan
 * @error: return location for an error
 *
 * Reads a scalar as text; fails on a map or a sequence.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_get_string (const ThrongNode *node, const char **out, GError **error);
/**
 * throng_node_get_bool:
 * @node: a node
 * @out: (out): the value
 * @error: return location for an error
 *
 * Reads true/false, yes/no or on/off.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_get_bool (const ThrongNode *node, gboolean *out, GError **error);
/**
 * throng_node_get_uint:
 * @node: a node
 * @out: (out): the value
 * @error: return location for an error
 *
 * Reads an unsigned decimal number.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_get_uint (const ThrongNode *node, guint64 *out, GError **error);
/**
 * throng_node_get_duration:
 * @node: a node
 * @out_us: (out): the value in microseconds
 * @error: return location for an error
 *
 * Reads a duration such as `250ms`, `1.5s` or `2m`.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_get_duration (const ThrongNode *node, gint64 *out_us, GError **error);
/**
 * throng_node_get_size:
 * @node: a node
 * @out_bytes: (out): the value in bytes
 * @error: return location for an error
 *
 * Reads a size such as `512`, `64KiB` or `10MB`.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_get_size (const ThrongNode *node, guint64 *out_bytes, GError **error);

/**
 * throng_node_get_double:
 * @node: a node
 * @out: (out): the value, written only on success
 * @error: return location for an error
 *
 * Reads a decimal number: an optional `-`, digits, an optional fraction
 * and an optional exponent (`99.9`, `-0.5`, `2`, `1e-3`).  Anything else
 * (`.5`, `1,5`, `nan`, `inf`, hexadecimal, a unit) fails with a located
 * %THRONG_PLAN_ERROR_TYPE error ("expected a decimal number such as
 * 99.9, got '1,5'"); a number too large for a double fails with
 * %THRONG_PLAN_ERROR_RANGE.  Bounds are the caller's to check, located
 * at the same node.
 *
 * Returns: TRUE on success
 *
 * Since: 0.2
 */
THRONG_API gboolean throng_node_get_double (const ThrongNode *node, double *out, GError **error);

/**
 * throng_node_check_keys:
 * @map: a map node
 * @keys: (array zero-terminated=1): the keys allowed in @map
 * @context: (nullable): what @map is, for the message ("scenario",
 *   "tcp options")
 * @error: return location for an error
 *
 * Fails on the first key of @map that is not in @keys, with a located
 * error that names the key and suggests the nearest allowed one
 * ("unknown key 'usres' in scenario; did you mean 'users'?").
 * Also fails when @map is not a map.
 *
 * Returns: TRUE when every key is allowed
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_check_keys (const ThrongNode *map, const char *const *keys,
                                            const char *context, GError **error);

/**
 * throng_parse_duration:
 * @text: a duration such as `250ms`
 * @out_us: (out): the value in microseconds, written only on success
 * @error: return location for an error (%THRONG_PLAN_ERROR, unlocated)
 *
 * The duration parser of throng_node_get_duration() without a node, for
 * values that do not come from the plan.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_parse_duration (const char *text, gint64 *out_us, GError **error);
/**
 * throng_parse_size:
 * @text: a size such as `64KiB`
 * @out_bytes: (out): the value in bytes, written only on success
 * @error: return location for an error (%THRONG_PLAN_ERROR, unlocated)
 *
 * The size parser of throng_node_get_size() without a node.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_parse_size (const char *text, guint64 *out_bytes, GError **error);

G_END_DECLS
