/* SPDX-License-Identifier: MIT */
/*
 * Data sets: a scenario's `data:` file read once while the plan loads (a
 * CSV file with a header row, RFC 4180 quoting, or a JSON array of
 * objects), kept as one array of cells that every worker reads, and rows
 * handed out to users with one atomic add: sequential, random or unique,
 * recycled or stopping when they run out.
 */
#include "dataset-private.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <throng/throng.h>

#include "jsontok-private.h"

/* ---- building ------------------------------------------------------------------ */

typedef struct {
    GPtrArray *columns;         /* char* */
    GPtrArray *cells;           /* char* */
} Builder;

static ThrongDataSet *
builder_finish (Builder *builder, const char *name)
{
    ThrongDataSet *data = g_new0 (ThrongDataSet, 1);

    data->name = g_strdup (name);
    data->n_columns = builder->columns->len;
    g_ptr_array_add (builder->columns, NULL);
    data->columns = (char **) g_ptr_array_free (builder->columns, FALSE);
    data->n_rows = builder->cells->len / data->n_columns;
    data->lengths = g_new (guint32, MAX (builder->cells->len, 1));
    for (guint i = 0; i < builder->cells->len; i++)
        data->lengths[i] = (guint32) strlen (builder->cells->pdata[i]);
    data->cells = (char **) g_ptr_array_free (builder->cells, FALSE);
    data->slice_count = 1;
    return data;
}

static void
builder_clear (Builder *builder)
{
    if (builder->columns != NULL)
        g_ptr_array_unref (builder->columns);
    if (builder->cells != NULL)
        g_ptr_array_unref (builder->cells);
}

static void
builder_init (Builder *builder)
{
    builder->columns = g_ptr_array_new_with_free_func (g_free);
    builder->cells = g_ptr_array_new_with_free_func (g_free);
}

void
throng_dataset_free (ThrongDataSet *data)
{
    if (data == NULL)
        return;
    g_free (data->name);
    g_free (data->set_name);
    g_strfreev (data->columns);
    for (gsize i = 0; i < (gsize) data->n_rows * data->n_columns; i++)
        g_free (data->cells[i]);
    g_free (data->cells);
    g_free (data->lengths);
    g_free (data);
}

static gboolean
check_columns (Builder *builder, const char *name, const char *where, GError **error)
{
    if (builder->columns->len > THRONG_DATA_MAX_COLUMNS) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_LIMIT,
                     "%s%s: %u columns; at most %d", name, where, builder->columns->len,
                     THRONG_DATA_MAX_COLUMNS);
        return FALSE;
    }
    for (guint i = 0; i < builder->columns->len; i++) {
        const char *column = builder->columns->pdata[i];
        if (column[0] == '\0') {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s%s: column %u has no name", name, where, i + 1);
            return FALSE;
        }
        for (guint j = 0; j < i; j++) {
            if (strcmp (builder->columns->pdata[j], column) == 0) {
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_DUPLICATE_KEY,
                             "%s%s: column '%s' appears twice", name, where, column);
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* ---- CSV ------------------------------------------------------------------------- */

/*
 * Reads one record starting at *@pos into @fields; *@line counts the
 * newlines passed.  Returns FALSE with an error for an unclosed quote.
 */
static gboolean
csv_record (const char *name, const char *data, gsize length, gsize *pos, guint *line,
            GPtrArray *fields, GError **error)
{
    g_autoptr (GString) field = g_string_new (NULL);
    gsize i = *pos;
    guint start_line = *line;

    for (;;) {
        g_string_truncate (field, 0);
        if (i < length && data[i] == '"') {
            i++;
            for (;;) {
                if (i >= length) {
                    g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX,
                                 "%s:%u: a quoted field is not closed", name, start_line);
                    return FALSE;
                }
                if (data[i] == '"') {
                    if (i + 1 < length && data[i + 1] == '"') {
                        g_string_append_c (field, '"');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (data[i] == '\n')
                    (*line)++;
                g_string_append_c (field, data[i++]);
            }
            /* anything between the closing quote and the separator is kept, leniently */
        }
        while (i < length && data[i] != ',' && data[i] != '\n') {
            if (!(data[i] == '\r' && (i + 1 == length || data[i + 1] == '\n')))
                g_string_append_c (field, data[i]);
            i++;
        }
        g_ptr_array_add (fields, g_strndup (field->str, field->len));
        if (i < length && data[i] == ',') {
            i++;
            continue;
        }
        if (i < length) { /* '\n' */
            i++;
            (*line)++;
        }
        break;
    }
    *pos = i;
    return TRUE;
}

/* A line with nothing on it (a trailing newline, a blank line): not a record. */
static gboolean
csv_blank_line (const char *data, gsize length, gsize *pos, guint *line)
{
    gsize i = *pos;

    if (i < length && data[i] == '\r')
        i++;
    if (i < length && data[i] == '\n') {
        *pos = i + 1;
        (*line)++;
        return TRUE;
    }
    if (i >= length) {
        *pos = length;
        return TRUE;
    }
    return FALSE;
}

ThrongDataSet *
throng_dataset_parse_csv (const char *name, const char *data, gsize length,
                          const char *const *columns, GError **error)
{
    Builder builder;
    g_autoptr (GPtrArray) fields = g_ptr_array_new_with_free_func (g_free);
    gsize pos = 0;
    guint line = 1;

    if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
        pos = 3; /* a UTF-8 byte order mark */
    if (!g_utf8_validate_len (data, length, NULL)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX, "%s: not valid UTF-8",
                     name);
        return NULL;
    }
    while (pos < length && csv_blank_line (data, length, &pos, &line))
        ;
    if (pos >= length) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     columns != NULL ? "%s: the file is empty"
                                     : "%s: the file is empty; a data file starts with a header "
                                       "row (or the plan names its columns: columns: [a, b])",
                     name);
        return NULL;
    }

    builder_init (&builder);
    guint header_line = line;
    if (columns != NULL) {
        for (const char *const *column = columns; *column != NULL; column++)
            g_ptr_array_add (builder.columns, g_strdup (*column));
    } else if (!csv_record (name, data, length, &pos, &line, builder.columns, error)) {
        builder_clear (&builder);
        return NULL;
    }
    g_autofree char *where = columns != NULL ? g_strdup (" (columns)")
                                             : g_strdup_printf (":%u", header_line);
    if (!check_columns (&builder, name, where, error)) {
        builder_clear (&builder);
        return NULL;
    }
    while (pos < length) {
        if (csv_blank_line (data, length, &pos, &line))
            continue;
        guint record_line = line;
        g_ptr_array_set_size (fields, 0);
        if (!csv_record (name, data, length, &pos, &line, fields, error)) {
            builder_clear (&builder);
            return NULL;
        }
        if (fields->len != builder.columns->len) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s:%u: %u field%s, the %s %u", name, record_line, fields->len,
                         fields->len == 1 ? "" : "s",
                         columns != NULL ? "plan's columns are" : "header has",
                         builder.columns->len);
            builder_clear (&builder);
            return NULL;
        }
        for (guint i = 0; i < fields->len; i++)
            g_ptr_array_add (builder.cells, g_steal_pointer (&fields->pdata[i]));
    }
    if (builder.cells->len == 0) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     columns != NULL ? "%s: no rows" : "%s: no rows after the header", name);
        builder_clear (&builder);
        return NULL;
    }
    return builder_finish (&builder, name);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* A member's value as a cell: a string's contents, any other value as its JSON text. */
static char *
json_cell (const JsonToks *toks, gint index, GStringChunk *chunk)
{
    const JsonTok *tok = &g_array_index (toks->toks, JsonTok, index);

    if (tok->type == JSONTOK_STRING)
        return g_strdup (jsontok_string (toks, index, chunk));
    if (tok->type == JSONTOK_NULL)
        return g_strdup ("");
    return g_strndup (toks->text + tok->start, tok->end - tok->start);
}

/* The rows of the array of objects in @toks (already parsed). */
static ThrongDataSet *
json_rows (const char *name, const JsonToks *toks, GError **error)
{
    Builder builder;
    g_autoptr (GStringChunk) chunk = g_string_chunk_new (256);
    const JsonTok *root = &g_array_index (toks->toks, JsonTok, 0);

    if (root->type != JSONTOK_ARRAY) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s: expected an array of objects", name);
        return NULL;
    }
    if (root->size == 0) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s: the array is empty", name);
        return NULL;
    }

    builder_init (&builder);
    for (guint e = 0; e < root->size; e++) {
        gint object = jsontok_element (toks, 0, e);
        const JsonTok *tok = &g_array_index (toks->toks, JsonTok, object);

        if (tok->type != JSONTOK_OBJECT) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s: element %u is not an object", name, e + 1);
            builder_clear (&builder);
            return NULL;
        }
        if (e == 0) {
            gint key = object + 1;
            for (guint m = 0; m < tok->size; m++) {
                g_ptr_array_add (builder.columns, g_strdup (jsontok_string (toks, key, chunk)));
                key = (gint) g_array_index (toks->toks, JsonTok, key + 1).next;
            }
            if (!check_columns (&builder, name, "", error)) {
                builder_clear (&builder);
                return NULL;
            }
        }
        if (tok->size != builder.columns->len) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s: element %u has %u keys, the first has %u", name, e + 1, tok->size,
                         builder.columns->len);
            builder_clear (&builder);
            return NULL;
        }
        for (guint c = 0; c < builder.columns->len; c++) {
            gint value = jsontok_member (toks, object, builder.columns->pdata[c]);
            if (value < 0) {
                g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                             "%s: element %u has no key '%s'", name, e + 1,
                             (const char *) builder.columns->pdata[c]);
                builder_clear (&builder);
                return NULL;
            }
            g_ptr_array_add (builder.cells, json_cell (toks, value, chunk));
        }
    }
    return builder_finish (&builder, name);
}

ThrongDataSet *
throng_dataset_parse_json (const char *name, const char *data, gsize length, GError **error)
{
    JsonToks toks;
    ThrongDataSet *result = NULL;

    jsontok_init (&toks);
    if (jsontok_parse (&toks, data, length))
        result = json_rows (name, &toks, error);
    else
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_SYNTAX, "%s: not valid JSON",
                     name);
    jsontok_clear (&toks);
    return result;
}

/* ---- the `data:` map ----------------------------------------------------------------- */

typedef struct {
    char *file;
    const ThrongNode *columns;
    int mode;
    int advance;
    int on_exhausted;
} DataFields;

static const char *const mode_choices[] = { "sequential", "random", "unique", NULL };
static const char *const advance_choices[] = { "per-iteration", "per-user", NULL };
static const char *const exhausted_choices[] = { "recycle", "stop", NULL };

static const ThrongOption data_options[] = {
    { "file", THRONG_OPTION_STRING, offsetof (DataFields, file) },
    { "columns", THRONG_OPTION_NODE, offsetof (DataFields, columns) },
    { "mode", THRONG_OPTION_ENUM, offsetof (DataFields, mode), .choices = mode_choices },
    { "advance", THRONG_OPTION_ENUM, offsetof (DataFields, advance), .choices = advance_choices },
    { "on_exhausted", THRONG_OPTION_ENUM, offsetof (DataFields, on_exhausted),
      .choices = exhausted_choices },
    { NULL },
};

static void
data_fields_clear (DataFields *fields)
{
    throng_options_clear (data_options, fields);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DataFields, data_fields_clear)

ThrongDataSet *
throng_dataset_load (const ThrongNode *node, const char *plan_dir, guint users,
                     const char *scenario, GError **error)
{
    g_auto (DataFields) fields = { .mode = -1, .advance = -1, .on_exhausted = -1 };
    g_autoptr (ThrongDataSet) data = NULL;
    g_autofree char *contents = NULL;
    gsize length;
    GError *local = NULL;

    if (!throng_node_expect_kind (node, THRONG_NODE_MAP, "a map for data, such as "
                                                          "'{file: users.csv}'",
                                  error)
        || !throng_options_apply (node, data_options, &fields, FALSE, "data", error))
        return NULL;
    if (fields.file == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_MISSING,
                               "missing required key 'file' in data");
        return NULL;
    }
    const ThrongNode *file_node = throng_node_lookup (node, "file");
    if (fields.file[0] == '\0') {
        throng_node_set_error (file_node, error, THRONG_PLAN_ERROR_INVALID,
                               "data: a file name cannot be empty");
        return NULL;
    }

    g_autofree char *path = g_canonicalize_filename (fields.file, plan_dir);
    GStatBuf st;
    /* a device or a FIFO could be read forever: regular files only, bounded */
    if (g_stat (path, &st) == 0 && !throng_node_check_file (file_node, path, error))
        return NULL;
    if (g_stat (path, &st) == 0 && st.st_size > THRONG_DATA_MAX_BYTES) {
        throng_node_set_error (file_node, error, THRONG_PLAN_ERROR_LIMIT,
                               "data: %s is larger than %d MiB", fields.file,
                               THRONG_DATA_MAX_BYTES / (1024 * 1024));
        return NULL;
    }
    if (!g_file_get_contents (path, &contents, &length, &local)) {
        throng_node_set_error (file_node, error, THRONG_PLAN_ERROR_FILE, "data: %s",
                               local->message);
        g_error_free (local);
        return NULL;
    }
    if (length > THRONG_DATA_MAX_BYTES) {
        throng_node_set_error (file_node, error, THRONG_PLAN_ERROR_LIMIT,
                               "data: %s is larger than %d MiB", fields.file,
                               THRONG_DATA_MAX_BYTES / (1024 * 1024));
        return NULL;
    }
    /* A CSV without a header row (JMeter's CSV Data Set with variableNames): the plan names
     * its columns. */
    g_autoptr (GPtrArray) columns = NULL;
    if (fields.columns != NULL) {
        if (g_str_has_suffix (fields.file, ".json")) {
            throng_node_set_error (fields.columns, error, THRONG_PLAN_ERROR_INVALID,
                                   "columns goes with a CSV file without a header row; a JSON "
                                   "file's objects name their columns");
            return NULL;
        }
        if (throng_node_kind (fields.columns) != THRONG_NODE_SEQUENCE
            || throng_node_n_children (fields.columns) == 0) {
            throng_node_set_error (fields.columns, error, THRONG_PLAN_ERROR_TYPE,
                                   "columns is a list of column names, such as [user, password]");
            return NULL;
        }
        columns = g_ptr_array_new ();
        for (guint i = 0; i < throng_node_n_children (fields.columns); i++) {
            const char *name;
            const ThrongNode *item = throng_node_child (fields.columns, i);
            if (!throng_node_get_string (item, &name, error))
                return NULL;
            /* Said where the plan names it, not at the file. */
            if (*name == '\0' || g_ptr_array_find_with_equal_func (columns, name, g_str_equal,
                                                                   NULL)) {
                throng_node_set_error (item, error, THRONG_PLAN_ERROR_INVALID,
                                       *name == '\0' ? "a column needs a name"
                                                      : "column '%s' is named twice", name);
                return NULL;
            }
            g_ptr_array_add (columns, (gpointer) name);
        }
        g_ptr_array_add (columns, NULL);
    }
    if (g_str_has_suffix (fields.file, ".json"))
        data = throng_dataset_parse_json (fields.file, contents, length, &local);
    else
        data = throng_dataset_parse_csv (fields.file, contents, length,
                                         columns != NULL ? (const char *const *) columns->pdata
                                                         : NULL,
                                         &local);
    if (data == NULL) {
        /* the file's own position, then where the plan names it */
        throng_node_set_error (file_node, error, local->code, "data: %s", local->message);
        g_error_free (local);
        return NULL;
    }

    data->mode = fields.mode < 0 ? THRONG_DATA_SEQUENTIAL : (ThrongDataMode) fields.mode;
    data->advance = fields.advance < 0 ? THRONG_DATA_PER_ITERATION
                                       : (ThrongDataAdvance) fields.advance;
    const ThrongNode *exhausted = throng_node_lookup (node, "on_exhausted");
    if (data->mode == THRONG_DATA_UNIQUE) {
        if (fields.on_exhausted == 0) {
            throng_node_set_error (exhausted, error, THRONG_PLAN_ERROR_INVALID,
                                   "on_exhausted: recycle cannot go with mode: unique, which "
                                   "gives each row to one user only; use stop");
            return NULL;
        }
        if (fields.on_exhausted < 0 && users > data->n_rows) {
            throng_node_set_error (throng_node_lookup (node, "mode"), error,
                                   THRONG_PLAN_ERROR_INVALID,
                                   "mode: unique gives each row to one user, but scenario '%s' "
                                   "has %u users and %s %u row%s; add rows, or say "
                                   "on_exhausted: stop",
                                   scenario, users, data->name, data->n_rows,
                                   data->n_rows == 1 ? "" : "s");
            return NULL;
        }
        /* running out of unique rows always stops */
        data->stop = TRUE;
    } else {
        data->stop = fields.on_exhausted == 1;
    }
    return g_steal_pointer (&data);
}

/* ---- one set or named sets --------------------------------------------------------------- */

void
throng_data_free (ThrongData *data)
{
    if (data == NULL)
        return;
    for (guint i = 0; i < data->n_sets; i++)
        throng_dataset_free (data->sets[i]);
    g_free (data);
}

static gboolean
set_name_is_valid (const char *name)
{
    if (!g_ascii_isalpha (name[0]) && name[0] != '_')
        return FALSE;
    for (const char *c = name + 1; *c != '\0'; c++) {
        if (!g_ascii_isalnum (*c) && *c != '_')
            return FALSE;
    }
    return TRUE;
}

/*
 * Named sets: a map without `file` whose every value is a map.  A map
 * with `file`, or with no map value at all, is one set (its own errors
 * say what it lacks).
 */
static gboolean
data_is_named (const ThrongNode *node, GError **error)
{
    const ThrongNode *first_map = NULL, *first_other = NULL;

    if (throng_node_kind (node) != THRONG_NODE_MAP || throng_node_lookup (node, "file") != NULL)
        return FALSE;
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *value = throng_node_child (node, i);

        if (throng_node_kind (value) == THRONG_NODE_MAP) {
            if (first_map == NULL)
                first_map = throng_node_key (node, i);
        } else if (first_other == NULL) {
            first_other = throng_node_key (node, i);
        }
    }
    if (first_map != NULL && first_other != NULL) {
        throng_node_set_error (first_other, error, THRONG_PLAN_ERROR_INVALID,
                               "data: '%s' is not a data set: named sets are maps such as "
                               "'%s: {file: users.csv}', and one set needs 'file'",
                               throng_node_scalar (first_other), throng_node_scalar (first_other));
        return FALSE;
    }
    return first_map != NULL;
}

ThrongData *
throng_data_load (const ThrongNode *node, const char *plan_dir, guint users, const char *scenario,
                  GError **error)
{
    g_autoptr (ThrongData) data = g_new0 (ThrongData, 1);
    GError *local = NULL;

    data->named = data_is_named (node, &local);
    if (local != NULL) {
        g_propagate_error (error, local);
        return NULL;
    }
    if (!data->named) {
        data->sets[0] = throng_dataset_load (node, plan_dir, users, scenario, error);
        if (data->sets[0] == NULL)
            return NULL;
        data->n_sets = 1;
        return g_steal_pointer (&data);
    }
    for (guint i = 0; i < throng_node_n_children (node); i++) {
        const ThrongNode *key = throng_node_key (node, i);
        const char *name = throng_node_scalar (key);
        ThrongDataSet *set;

        if (!set_name_is_valid (name)) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                   "'%s' cannot name a data set: a letter or '_', then letters, "
                                   "digits and '_'",
                                   name);
            return NULL;
        }
        if (data->n_sets == THRONG_DATA_MAX_SETS) {
            throng_node_set_error (key, error, THRONG_PLAN_ERROR_LIMIT,
                                   "a scenario has at most %d data sets", THRONG_DATA_MAX_SETS);
            return NULL;
        }
        set = throng_dataset_load (throng_node_child (node, i), plan_dir, users, scenario, error);
        if (set == NULL)
            return NULL;
        set->set_name = g_strdup (name);
        data->sets[data->n_sets++] = set;
    }
    return g_steal_pointer (&data);
}

gint
throng_data_find (const ThrongData *data, const char *name, gsize length)
{
    for (guint i = 0; i < data->n_sets; i++) {
        const char *set_name = data->sets[i]->set_name;

        if (set_name != NULL && strlen (set_name) == length && memcmp (set_name, name, length) == 0)
            return (gint) i;
    }
    return -1;
}

gboolean
throng_data_is_exhausted (const ThrongData *data)
{
    for (guint i = 0; i < data->n_sets; i++) {
        if (throng_dataset_is_exhausted (data->sets[i]))
            return TRUE;
    }
    return FALSE;
}

/* ---- handing out rows ------------------------------------------------------------------ */

gint
throng_dataset_column (const ThrongDataSet *data, const char *name)
{
    for (guint i = 0; i < data->n_columns; i++) {
        if (strcmp (data->columns[i], name) == 0)
            return (gint) i;
    }
    return -1;
}

void
throng_dataset_set_slice (ThrongDataSet *data, guint index, guint count)
{
    g_return_if_fail (count > 0 && index < count);
    data->slice_index = index;
    data->slice_count = count;
}

/* Rows of the slice: those whose index modulo slice_count is slice_index. */
static guint
slice_rows (const ThrongDataSet *data)
{
    if (data->slice_index >= data->n_rows)
        return 0;
    return (data->n_rows - data->slice_index + data->slice_count - 1) / data->slice_count;
}

gboolean
throng_dataset_next_row (ThrongDataSet *data, GRand *rand, guint *row)
{
    guint rows = data->mode == THRONG_DATA_UNIQUE ? slice_rows (data) : data->n_rows;
    guint64 n;

    if (data->mode == THRONG_DATA_RANDOM) {
        /* never runs out */
        *row = (guint) g_rand_int_range (rand, 0, (gint32) data->n_rows);
        return TRUE;
    }
    n = __atomic_fetch_add (&data->next, 1, __ATOMIC_RELAXED);
    if (n >= rows && data->stop) {
        g_atomic_int_set (&data->exhausted, TRUE);
        return FALSE;
    }
    n %= rows;
    *row = data->mode == THRONG_DATA_UNIQUE ? (guint) (data->slice_index + n * data->slice_count)
                                            : (guint) n;
    return TRUE;
}

gboolean
throng_dataset_is_exhausted (const ThrongDataSet *data)
{
    return g_atomic_int_get (&data->exhausted);
}
