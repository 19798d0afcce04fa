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
THRONG_API GQuark throng_plan_error_quark (void);

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
 * it came from.  Nodes live as long as the plan; they are never modified
 * after loading.  Values given with `--set` have the pseudo-file
 * "--set PATH" and column of the value.
 *
 * Since: 0.1
 */
typedef struct _ThrongNode ThrongNode;

typedef enum {
    THRONG_NODE_SCALAR,
    THRONG_NODE_MAP,
    THRONG_NODE_SEQUENCE,
} ThrongNodeKind;

THRONG_API ThrongNodeKind throng_node_kind (const ThrongNode *node);

/* The scalar's text, or NULL when @node is not a scalar. */
THRONG_API const char *throng_node_scalar (const ThrongNode *node);

/* TRUE for a plain `~`, `null` or empty scalar. */
THRONG_API gboolean throng_node_is_null (const ThrongNode *node);

/* Entries of a map or items of a sequence; 0 for a scalar. */
THRONG_API guint throng_node_n_children (const ThrongNode *node);

/* The value of the @index-th entry of a map, or the @index-th item of a sequence. */
THRONG_API const ThrongNode *throng_node_child (const ThrongNode *node, guint index);

/* The key node of the @index-th entry of a map (NULL for a sequence). */
THRONG_API const ThrongNode *throng_node_key (const ThrongNode *node, guint index);

/* The value stored under @key in a map, or NULL. */
THRONG_API const ThrongNode *throng_node_lookup (const ThrongNode *map, const char *key);

THRONG_API const char *throng_node_file (const ThrongNode *node);
THRONG_API guint throng_node_line (const ThrongNode *node);   /* from 1 */
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

/*
 * Typed readers of one value node.  Each returns FALSE and sets a located
 * error when @node is not of the type, leaving *out untouched; on success
 * it writes *out.
 *
 * - bool: true/false, yes/no, on/off
 * - uint: decimal, at most G_MAXUINT64, no sign
 * - duration: a number and a unit among us, ms, s, m, h (`250ms`, `1.5s`,
 *   `2m`); a bare 0 is allowed; stored in microseconds
 * - size: a number with an optional unit among B, k/KB/KiB, M/MB/MiB,
 *   G/GB/GiB (k = 1000, KiB = 1024); stored in bytes
 */
THRONG_API gboolean throng_node_get_string (const ThrongNode *node, const char **out, GError **error);
THRONG_API gboolean throng_node_get_bool (const ThrongNode *node, gboolean *out, GError **error);
THRONG_API gboolean throng_node_get_uint (const ThrongNode *node, guint64 *out, GError **error);
THRONG_API gboolean throng_node_get_duration (const ThrongNode *node, gint64 *out_us, GError **error);
THRONG_API gboolean throng_node_get_size (const ThrongNode *node, guint64 *out_bytes, GError **error);

/**
 * throng_node_check_keys:
 * @map: a map node
 * @keys: (array zero-terminated=1): the keys allowed in @map
 * @error: return location for an error
 *
 * Fails on the first key of @map that is not in @keys, with a located
 * error that names the key and suggests the nearest allowed one
 * ("unknown key 'usres' in scenario; did you mean 'users'?").
 * Also fails when @map is not a map.
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_node_check_keys (const ThrongNode *map, const char *const *keys,
                                            const char *context, GError **error);

/* The same text parsers without a node, for command-line values. */
THRONG_API gboolean throng_parse_duration (const char *text, gint64 *out_us, GError **error);
THRONG_API gboolean throng_parse_size (const char *text, guint64 *out_bytes, GError **error);

G_END_DECLS
