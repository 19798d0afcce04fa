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
 * @THRONG_OPTION_CUSTOM: @parse is called with the node and the field; see
 *   #ThrongOption for who owns what the field holds
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
 * @THRONG_OPTION_FLAG_ACCEPT_NULL: CUSTOM: @parse also receives a null
 *   value (`~`, `null`, `key:` with nothing after it).  Without this flag
 *   a null is refused, located, before @parse runs ("expected a value
 *   for NAME, got null").  Since: 0.2
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_OPTION_FLAG_NONE = 0,
    THRONG_OPTION_FLAG_NOT_IN_STEP = 1 << 0,
    THRONG_OPTION_FLAG_ACCEPT_NULL = 1 << 1,
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
 * @clear: CUSTOM, optional: frees what @field holds and resets it (to
 *   NULL, say).  Since: 0.2
 * @copy: CUSTOM, optional: after a struct copy, replaces the value in
 *   @field by a copy that the new struct owns.  Since: 0.2
 *
 * One entry of an option table: a `static const` array that ends with an
 * entry whose @name is NULL.
 *
 * The rules of a CUSTOM field:
 *
 * - @parse receives the field as the layers before left it (or as the
 *   struct was initialised).  With @clear set, the core first clears it
 *   with @clear, so a later layer replaces an earlier one and nothing
 *   leaks; without @clear, @parse owns the earlier value and must free
 *   what it overwrites.
 * - A null value reaches @parse only with %THRONG_OPTION_FLAG_ACCEPT_NULL
 *   (then throng_node_is_null() is TRUE and throng_node_scalar() gives
 *   the text as written, `~` or `null`).
 * - throng_options_clear() calls @clear; without it the field is left
 *   alone (the plugin frees it).  throng_options_copy_strings() calls
 *   @copy; without it the field is copied by value only.  Set both or
 *   neither: a @clear without @copy would free one value twice.
 *
 * @clear and @copy were appended in 0.2.  A plugin built against 0.1
 * headers has smaller entries; it calls the 0.1 entry points, which walk
 * its tables with the 0.1 size and never read these fields, so it keeps
 * the 0.1 behaviour (a null reaches @parse, CUSTOM fields are neither
 * cleared nor copied).  A plugin built against these headers calls
 * throng_options_apply() and the others through macros that pass
 * sizeof (ThrongOption), so the core walks its tables with that stride.
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
    void (*clear) (gpointer field);
    void (*copy) (gpointer field);
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
 * TABLE entries) and sets them to NULL, and clears CUSTOM fields with
 * their entry's @clear (since 0.2).  Other fields are left as they are;
 * NODE fields point into the plan and are not freed; a CUSTOM field
 * without @clear is the plugin's to free.
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
 * CUSTOM fields are copied with their entry's @copy (since 0.2); without
 * one they stay shared with the original.
 * This is how a step inherits its scenario's settings before its own
 * layer is applied.
 *
 * Since: 0.1
 */
THRONG_API void throng_options_copy_strings (const ThrongOption *table, gpointer dest);

/**
 * throng_options_apply_sized:
 * @map: (nullable): as for throng_options_apply()
 * @table: the option table
 * @option_size: sizeof (ThrongOption) as the plugin was built
 * @base: (not nullable): the struct the table's offsets point into
 * @in_step: as for throng_options_apply()
 * @context: as for throng_options_apply()
 * @error: return location for an error
 *
 * What throng_options_apply() expands to in plugins built against 0.2 or
 * later: the same, reading @table with entries of @option_size bytes.
 * Call throng_options_apply(), not this.
 *
 * Returns: TRUE on success
 *
 * Since: 0.2
 */
THRONG_API gboolean throng_options_apply_sized (const ThrongNode *map, const ThrongOption *table,
                                                gsize option_size, gpointer base,
                                                gboolean in_step, const char *context,
                                                GError **error);
/**
 * throng_options_clear_sized:
 * @table: the option table
 * @option_size: sizeof (ThrongOption) as the plugin was built
 * @base: (nullable): the struct it was applied to
 *
 * What throng_options_clear() expands to since 0.2; also calls the @clear
 * of CUSTOM entries.  Call throng_options_clear(), not this.
 *
 * Since: 0.2
 */
THRONG_API void throng_options_clear_sized (const ThrongOption *table, gsize option_size,
                                            gpointer base);
/**
 * throng_options_copy_sized:
 * @table: the option table
 * @option_size: sizeof (ThrongOption) as the plugin was built
 * @dest: a struct just copied by value from another one
 *
 * What throng_options_copy_strings() expands to since 0.2; also calls the
 * @copy of CUSTOM entries.  Call throng_options_copy_strings(), not this.
 *
 * Since: 0.2
 */
THRONG_API void throng_options_copy_sized (const ThrongOption *table, gsize option_size,
                                           gpointer dest);

/* The 0.1 names, as plugins write them, pass the entry size they were built with. */
#define throng_options_apply(map, table, base, in_step, context, error)                           \
    throng_options_apply_sized ((map), (table), sizeof (ThrongOption), (base), (in_step),          \
                                (context), (error))
#define throng_options_clear(table, base)                                                          \
    throng_options_clear_sized ((table), sizeof (ThrongOption), (base))
#define throng_options_copy_strings(table, dest)                                                   \
    throng_options_copy_sized ((table), sizeof (ThrongOption), (dest))

G_END_DECLS
