/* SPDX-License-Identifier: MIT */
/*
 * Option tables: a plugin describes its options once (name, type, where in
 * its struct) and the core parses, checks and locates errors for it, as
 * nginx does with its command tables.  Applying the same table to several
 * layers in order (plan defaults, then scenario, then step) is how
 * settings are inherited: a later layer overwrites what it names.
 */
#pragma once

#include <stddef.h>
#include <glib.h>
#include <throng/node.h>

G_BEGIN_DECLS

/**
 * ThrongOptionType:
 * @THRONG_OPTION_STRING: `char *`, owned by the struct (g_free'd when
 *   overwritten and by throng_options_clear())
 * @THRONG_OPTION_BOOL: `gboolean`
 * @THRONG_OPTION_UINT: `guint64`, checked against [min, max] when max > 0
 * @THRONG_OPTION_DURATION: `gint64` microseconds, checked against [min, max] when max > 0
 * @THRONG_OPTION_SIZE: `guint64` bytes, checked against [min, max] when max > 0
 * @THRONG_OPTION_ENUM: `int`, the index of the value in @choices
 * @THRONG_OPTION_TABLE: a nested map parsed with @table into the same struct
 * @THRONG_OPTION_NODE: `const ThrongNode *`, the raw node, for the plugin to walk
 * @THRONG_OPTION_CUSTOM: @parse is called with the node and the field
 *
 * What a table entry reads and the C type of the field its @offset points
 * at.  An entry never present in the plan leaves its field untouched, so
 * defaults are whatever the struct held before the first layer.
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_OPTION_STRING,
    THRONG_OPTION_BOOL,
    THRONG_OPTION_UINT,
    THRONG_OPTION_DURATION,
    THRONG_OPTION_SIZE,
    THRONG_OPTION_ENUM,
    THRONG_OPTION_TABLE,
    THRONG_OPTION_NODE,
    THRONG_OPTION_CUSTOM,
} ThrongOptionType;

/**
 * ThrongOptionFlags:
 * @THRONG_OPTION_FLAG_NONE: no flag
 * @THRONG_OPTION_FLAG_NOT_IN_STEP: refused by throng_options_apply() when
 *   its @in_step is TRUE (a scenario-wide setting such as a TLS policy)
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_OPTION_FLAG_NONE = 0,
    THRONG_OPTION_FLAG_NOT_IN_STEP = 1 << 0,
} ThrongOptionFlags;

typedef struct _ThrongOption ThrongOption;

/**
 * ThrongOption:
 * @name: the key; a table ends with an entry whose @name is NULL
 * @type: how the value is read and stored
 * @offset: offsetof() the field in the plugin's struct
 * @min: lower bound (UINT, DURATION, SIZE)
 * @max: upper bound when > 0 (UINT, DURATION, SIZE)
 * @choices: (array zero-terminated=1): ENUM values
 * @table: TABLE: the nested table
 * @parse: CUSTOM: reads @node into @field, or sets a located error
 * @flags: #ThrongOptionFlags
 *
 * One entry of an option table: a `static const` array that ends with an
 * entry whose @name is NULL.  The core reads tables by index with its own
 * sizeof (ThrongOption), so this struct never grows within an ABI.
 *
 * Since: 0.1
 */
struct _ThrongOption {
    const char *name;
    ThrongOptionType type;
    gsize offset;
    gint64 min;
    gint64 max;
    const char *const *choices;
    const ThrongOption *table;
    gboolean (*parse) (const ThrongNode *node, gpointer field, GError **error);
    guint flags;
};

/**
 * throng_options_apply:
 * @map: (nullable): a map node, or NULL or a null node (nothing to apply)
 * @table: the option table
 * @base: (not nullable): the struct the table's offsets point into
 * @in_step: whether @map is a step's options (see %THRONG_OPTION_FLAG_NOT_IN_STEP)
 * @context: what @map is, for messages ("http options")
 * @error: return location for an error
 *
 * Reads every key of @map into @base.  Unknown keys fail with the nearest
 * valid key suggested, values of the wrong type or out of range fail with
 * a located error.  On failure @base may hold the keys applied before the
 * failing one; the caller discards it.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
THRONG_API gboolean throng_options_apply (const ThrongNode *map, const ThrongOption *table,
                                          gpointer base, gboolean in_step, const char *context,
                                          GError **error);

/**
 * throng_options_clear:
 * @table: the option table
 * @base: (nullable): the struct it was applied to
 *
 * Frees the STRING fields of @base named by @table (recursively, through
 * TABLE entries) and sets them to NULL.  Other fields are left as they
 * are; NODE fields point into the plan and are not freed.
 *
 * Since: 0.1
 */
THRONG_API void throng_options_clear (const ThrongOption *table, gpointer base);

/**
 * throng_options_copy_strings:
 * @table: the option table
 * @dest: a struct just copied by value from another one
 *
 * After `*dest = *src` (or a memcpy), replaces each STRING field of @dest
 * named by @table by a copy of itself, so that @dest owns its strings
 * and can be cleared independently of the struct it was copied from.
 * This is how a step inherits its scenario's settings before its own
 * layer is applied.
 *
 * Since: 0.1
 */
THRONG_API void throng_options_copy_strings (const ThrongOption *table, gpointer dest);

G_END_DECLS
