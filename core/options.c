/* SPDX-License-Identifier: MIT */
/*
 * Option tables: one description of a plugin's options (name, type,
 * offset, bounds) read from any number of plan layers into one struct.
 * Layering is by repetition — the same table applied to defaults, then
 * the scenario, then the step — so a later layer overwrites only what it
 * names.  The core's own top-level and scenario settings use the same
 * tables, so their errors read exactly like a plugin's.
 */
#include "node-private.h"

#include <string.h>
#include <throng/options.h>

/*
 * ThrongOption as 0.1 laid it out, before @clear and @copy were appended:
 * the entry size of tables in plugins built against 0.1 headers, which
 * call the entry points under their 0.1 names.  Every table is walked
 * with the size its plugin was built with, and the appended fields are
 * read only when that size covers them.
 */
typedef struct {
    const char *name;
    ThrongOptionType type;
    gsize offset;
    gint64 min;
    gint64 max;
    const char *const *choices;
    const ThrongOption *table;
    gboolean (*parse) (const ThrongNode *node, gpointer field, GError **error);
    guint flags;
} OptionV01;

G_STATIC_ASSERT (offsetof (OptionV01, flags) == offsetof (ThrongOption, flags));
G_STATIC_ASSERT (sizeof (OptionV01) <= offsetof (ThrongOption, clear));

#define OPTION_SIZE_V01 sizeof (OptionV01)

/* A table and the size of its entries, as its plugin was built. */
typedef struct {
    const ThrongOption *first;
    gsize stride;
} Table;

static const ThrongOption *
table_at (Table table, gsize index)
{
    return (const ThrongOption *)((const char *)table.first + index * table.stride);
}

/* The nested table of a TABLE entry: entries of the same size. */
static Table
nested (Table table, const ThrongOption *option)
{
    return (Table){ option->table, table.stride };
}

/* Whether entries of @stride bytes hold the fields appended in 0.2. */
static gboolean
has_hooks (gsize stride)
{
    return stride >= offsetof (ThrongOption, copy) + sizeof (((ThrongOption *)NULL)->copy);
}

/* Durations in the largest unit that divides them: 720h, 90s, 1500ms. */
static char *
format_duration (gint64 us)
{
    static const struct {
        const char *unit;
        gint64 factor;
    } units[] = {
        { "h", G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC },
        { "m", 60 * G_USEC_PER_SEC },
        { "s", G_USEC_PER_SEC },
        { "ms", 1000 },
    };

    if (us == 0)
        return g_strdup ("0");
    for (gsize i = 0; i < G_N_ELEMENTS (units); i++) {
        if (us % units[i].factor == 0)
            return g_strdup_printf ("%" G_GINT64_FORMAT "%s", us / units[i].factor, units[i].unit);
    }
    return g_strdup_printf ("%" G_GINT64_FORMAT "us", us);
}

/* Sizes in the largest binary, then decimal, unit that divides them. */
static char *
format_size (guint64 bytes)
{
    static const struct {
        const char *unit;
        guint64 factor;
    } units[] = {
        { "GiB", 1 << 30 },  { "MiB", 1 << 20 }, { "KiB", 1 << 10 },
        { "G", 1000000000 }, { "M", 1000000 },   { "k", 1000 },
    };

    if (bytes == 0)
        return g_strdup ("0");
    for (gsize i = 0; i < G_N_ELEMENTS (units); i++) {
        if (bytes % units[i].factor == 0)
            return g_strdup_printf ("%" G_GUINT64_FORMAT "%s", bytes / units[i].factor,
                                    units[i].unit);
    }
    return g_strdup_printf ("%" G_GUINT64_FORMAT, bytes);
}

static gboolean
range_error (const ThrongNode *node, const ThrongOption *option, const char *low, const char *high,
             GError **error)
{
    if (option->min <= 0)
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "%s must be at most %s, got %s", option->name, high,
                               throng_node_scalar (node));
    else
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_RANGE,
                               "%s must be between %s and %s, got %s", option->name, low, high,
                               throng_node_scalar (node));
    return FALSE;
}

static gboolean
read_uint (const ThrongNode *node, const ThrongOption *option, guint64 *field, GError **error)
{
    guint64 value;

    if (!throng_node_get_uint (node, &value, error))
        return FALSE;
    if (option->max > 0
        && (value < (guint64)MAX (option->min, 0) || value > (guint64)option->max)) {
        g_autofree char *low = g_strdup_printf ("%" G_GINT64_FORMAT, option->min);
        g_autofree char *high = g_strdup_printf ("%" G_GINT64_FORMAT, option->max);
        return range_error (node, option, low, high, error);
    }
    *field = value;
    return TRUE;
}

static gboolean
read_duration (const ThrongNode *node, const ThrongOption *option, gint64 *field, GError **error)
{
    gint64 value;

    if (!throng_node_get_duration (node, &value, error))
        return FALSE;
    if (option->max > 0 && (value < option->min || value > option->max)) {
        g_autofree char *low = format_duration (option->min);
        g_autofree char *high = format_duration (option->max);
        return range_error (node, option, low, high, error);
    }
    *field = value;
    return TRUE;
}

static gboolean
read_size (const ThrongNode *node, const ThrongOption *option, guint64 *field, GError **error)
{
    guint64 value;

    if (!throng_node_get_size (node, &value, error))
        return FALSE;
    if (option->max > 0
        && (value < (guint64)MAX (option->min, 0) || value > (guint64)option->max)) {
        g_autofree char *low = format_size (option->min);
        g_autofree char *high = format_size (option->max);
        return range_error (node, option, low, high, error);
    }
    *field = value;
    return TRUE;
}

static gboolean
read_enum (const ThrongNode *node, const ThrongOption *option, int *field, GError **error)
{
    const char *text = throng_node_scalar (node);
    g_autofree char *list = g_strjoinv (", ", (char **)option->choices);

    if (text != NULL && !throng_node_is_null (node)) {
        for (int i = 0; option->choices[i] != NULL; i++) {
            if (strcmp (text, option->choices[i]) == 0) {
                *field = i;
                return TRUE;
            }
        }
    }

    g_autofree char *given = throng_node_describe (node);
    const char *suggestion = text != NULL ? throng_node_suggest (text, option->choices) : NULL;

    if (suggestion != NULL)
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "%s must be one of %s, got %s; did you mean '%s'?", option->name,
                               list, given, suggestion);
    else
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "%s must be one of %s, got %s", option->name, list, given);
    return FALSE;
}

static gboolean apply_table (const ThrongNode *map, Table table, gpointer base, gboolean in_step,
                             const char *context, const char *protocol, GError **error);

static gboolean
apply_custom (const ThrongNode *value, const ThrongOption *option, gsize stride, gpointer field,
              GError **error)
{
    GError *local = NULL;

    if (has_hooks (stride)) {
        g_return_val_if_fail ((option->clear == NULL) == (option->copy == NULL), FALSE);
        /* A null reaches the parser only when it asked for one. */
        if (!(option->flags & THRONG_OPTION_FLAG_ACCEPT_NULL) && throng_node_is_null (value)) {
            g_autofree char *given = throng_node_describe (value);

            throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                   "expected a value for %s, got %s", option->name, given);
            return FALSE;
        }
        /* A later layer replaces an earlier one: the parser starts from empty. */
        if (option->clear != NULL)
            option->clear (field);
    }
    if (option->parse (value, field, &local))
        return TRUE;
    if (local == NULL)
        throng_node_set_error (value, &local, THRONG_PLAN_ERROR_INVALID, "invalid value for %s",
                               option->name);
    g_propagate_error (error, local);
    return FALSE;
}

static gboolean
apply_one (const ThrongNode *key, const ThrongNode *value, const ThrongOption *option,
           Table table, gpointer base, gboolean in_step, const char *protocol, GError **error)
{
    gpointer field = (char *)base + option->offset;

    if (in_step && (option->flags & THRONG_OPTION_FLAG_NOT_IN_STEP)) {
        if (protocol[0] != '\0')
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' is a scenario setting; set it in defaults.%s or in the "
                                   "scenario's %s map",
                                   option->name, protocol, protocol);
        else
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' is a scenario setting; set it in the plan's defaults or "
                                   "in the scenario",
                                   option->name);
        return FALSE;
    }

    switch (option->type) {
    case THRONG_OPTION_STRING: {
        const char *text;
        char **slot = field;

        if (!throng_node_get_string (value, &text, error))
            return FALSE;
        g_free (*slot);
        *slot = g_strdup (text);
        return TRUE;
    }
    case THRONG_OPTION_BOOL:
        return throng_node_get_bool (value, field, error);
    case THRONG_OPTION_UINT:
        return read_uint (value, option, field, error);
    case THRONG_OPTION_DURATION:
        return read_duration (value, option, field, error);
    case THRONG_OPTION_SIZE:
        return read_size (value, option, field, error);
    case THRONG_OPTION_ENUM:
        return read_enum (value, option, field, error);
    case THRONG_OPTION_TABLE: {
        if (throng_node_is_null (value))
            return TRUE;
        g_autofree char *context = protocol[0] != '\0'
                                       ? g_strdup_printf ("%s.%s", protocol, option->name)
                                       : g_strdup (option->name);
        return apply_table (value, nested (table, option), base, in_step, context, protocol,
                            error);
    }
    case THRONG_OPTION_NODE:
        *(const ThrongNode **)field = value;
        return TRUE;
    case THRONG_OPTION_CUSTOM:
        return apply_custom (value, option, table.stride, field, error);
    }
    g_assert_not_reached ();
}

static gboolean
apply_table (const ThrongNode *map, Table table, gpointer base, gboolean in_step,
             const char *context, const char *protocol, GError **error)
{
    g_autoptr (GPtrArray) names = g_ptr_array_new ();

    for (gsize i = 0; table_at (table, i)->name != NULL; i++)
        g_ptr_array_add (names, (gpointer)table_at (table, i)->name);
    g_ptr_array_add (names, NULL);
    if (!throng_node_check_keys (map, (const char *const *)names->pdata, context, error))
        return FALSE;

    for (guint i = 0; i < throng_node_n_children (map); i++) {
        const ThrongNode *key = throng_node_key (map, i);
        gsize index = 0;

        while (strcmp (table_at (table, index)->name, throng_node_scalar (key)) != 0)
            index++;
        if (!apply_one (key, throng_node_child (map, i), table_at (table, index), table, base,
                        in_step, protocol, error))
            return FALSE;
    }
    return TRUE;
}

static gboolean
apply (const ThrongNode *map, Table table, gpointer base, gboolean in_step, const char *context,
       GError **error)
{
    g_autofree char *protocol = NULL;

    if (map == NULL || throng_node_is_null (map))
        return TRUE;
    /* "http options" → "http": where the NOT_IN_STEP message points the user */
    protocol
        = g_strndup (context != NULL ? context : "", context != NULL ? strcspn (context, " .") : 0);
    return apply_table (map, table, base, in_step, context, protocol, error);
}

static void
clear (Table table, gpointer base)
{
    for (gsize i = 0; table_at (table, i)->name != NULL; i++) {
        const ThrongOption *option = table_at (table, i);
        gpointer field = (char *)base + option->offset;

        if (option->type == THRONG_OPTION_STRING)
            g_clear_pointer ((char **)field, g_free);
        else if (option->type == THRONG_OPTION_TABLE)
            clear (nested (table, option), base);
        else if (option->type == THRONG_OPTION_CUSTOM && has_hooks (table.stride)
                 && option->clear != NULL)
            option->clear (field);
    }
}

static void
copy (Table table, gpointer dest)
{
    for (gsize i = 0; table_at (table, i)->name != NULL; i++) {
        const ThrongOption *option = table_at (table, i);
        gpointer field = (char *)dest + option->offset;

        if (option->type == THRONG_OPTION_STRING) {
            char **slot = field;
            *slot = g_strdup (*slot);
        } else if (option->type == THRONG_OPTION_TABLE) {
            copy (nested (table, option), dest);
        } else if (option->type == THRONG_OPTION_CUSTOM && has_hooks (table.stride)
                   && option->copy != NULL) {
            option->copy (field);
        }
    }
}

gboolean
throng_options_apply_sized (const ThrongNode *map, const ThrongOption *table, gsize option_size,
                            gpointer base, gboolean in_step, const char *context, GError **error)
{
    g_return_val_if_fail (table != NULL, FALSE);
    g_return_val_if_fail (option_size >= OPTION_SIZE_V01, FALSE);
    g_return_val_if_fail (base != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    return apply (map, (Table){ table, option_size }, base, in_step, context, error);
}

void
throng_options_clear_sized (const ThrongOption *table, gsize option_size, gpointer base)
{
    g_return_if_fail (table != NULL);
    g_return_if_fail (option_size >= OPTION_SIZE_V01);
    if (base == NULL)
        return;
    clear ((Table){ table, option_size }, base);
}

void
throng_options_copy_sized (const ThrongOption *table, gsize option_size, gpointer dest)
{
    g_return_if_fail (table != NULL);
    g_return_if_fail (option_size >= OPTION_SIZE_V01);
    g_return_if_fail (dest != NULL);
    copy ((Table){ table, option_size }, dest);
}

/*
 * The 0.1 entry points, for plugins built against 0.1 headers: their
 * tables have 0.1-sized entries.  The parentheses keep the header's macros
 * of the same names from expanding here.
 */
gboolean
(throng_options_apply) (const ThrongNode *map, const ThrongOption *table, gpointer base,
                        gboolean in_step, const char *context, GError **error)
{
    return throng_options_apply_sized (map, table, OPTION_SIZE_V01, base, in_step, context, error);
}

void
(throng_options_clear) (const ThrongOption *table, gpointer base)
{
    throng_options_clear_sized (table, OPTION_SIZE_V01, base);
}

void
(throng_options_copy_strings) (const ThrongOption *table, gpointer dest)
{
    throng_options_copy_sized (table, OPTION_SIZE_V01, dest);
}
