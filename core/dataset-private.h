/* SPDX-License-Identifier: MIT */
/*
 * A scenario's data set (`data:`): rows of a CSV file with a header row
 * or of a JSON array of objects, loaded once while the plan loads and
 * then read by every worker at once.  The only thing that changes during
 * the run is which row comes next, handed out with atomics.  Private to
 * the core; dataset.c.
 */
#pragma once

#include <glib.h>

#include "node-private.h"

typedef enum {
    THRONG_DATA_SEQUENTIAL,     /* rows in file order, shared by all users */
    THRONG_DATA_RANDOM,         /* a row drawn at random each time */
    THRONG_DATA_UNIQUE,         /* each row to at most one user in the run */
} ThrongDataMode;

typedef enum {
    THRONG_DATA_PER_ITERATION,  /* a new row for each iteration */
    THRONG_DATA_PER_USER,       /* one row kept for all the user's iterations */
} ThrongDataAdvance;

typedef struct _ThrongDataSet {
    char *name;                 /* the file as the plan names it, for messages */
    char *set_name;             /* data: { NAME: {...} }: NAME; NULL for a scenario's one set */
    guint n_columns;
    char **columns;             /* NULL-terminated header */
    guint n_rows;
    char **cells;               /* n_rows × n_columns values, row-major, NUL-terminated */
    guint32 *lengths;           /* their lengths */
    ThrongDataMode mode;
    ThrongDataAdvance advance;
    gboolean stop;              /* on_exhausted: stop (else recycle) */
    guint slice_index;          /* unique: only rows with index % slice_count == slice_index */
    guint slice_count;          /* 1: every row */
    guint64 next;               /* atomic: the next row to hand out, in the slice */
    gint exhausted;             /* atomic: a user found no row left */
} ThrongDataSet;

/* Bounds (docs/plan-reference.md). */
#define THRONG_DATA_MAX_BYTES (256 * 1024 * 1024)
#define THRONG_DATA_MAX_COLUMNS 1024
#define THRONG_DATA_MAX_SETS 8

/*
 * A scenario's data: one set (`data: {file: ...}`, read as
 * `${data.COLUMN}`), or up to THRONG_DATA_MAX_SETS named ones (`data:
 * {users: {file: ...}, products: {file: ...}}`, read as
 * `${data.users.COLUMN}`), each with its own file, mode, advance and
 * on_exhausted.
 */
typedef struct _ThrongData {
    ThrongDataSet *sets[THRONG_DATA_MAX_SETS];
    guint n_sets;
    gboolean named;
} ThrongData;

/*
 * Reads the scenario's `data:` map @node: the file (relative to
 * @plan_dir), its columns when it has no header row, mode, advance and on_exhausted, checked against the
 * scenario's @users.  Located errors.
 */
ThrongDataSet *throng_dataset_load (const ThrongNode *node, const char *plan_dir, guint users,
                                    const char *scenario, GError **error);
/*
 * Parses CSV (RFC 4180) from memory; @name is used in errors ("users.csv:17: …").
 * The first record names the columns, unless @columns (NULL-terminated) does:
 * then every record is a row.
 */
ThrongDataSet *throng_dataset_parse_csv (const char *name, const char *data, gsize length,
                                         const char *const *columns, GError **error);
/* Parses a JSON array of objects of scalars; the first object's keys are the columns. */
ThrongDataSet *throng_dataset_parse_json (const char *name, const char *data, gsize length,
                                          GError **error);
void throng_dataset_free (ThrongDataSet *data);

/* Reads a scenario's `data:` (@node): one set, or named sets.  Located errors. */
ThrongData *throng_data_load (const ThrongNode *node, const char *plan_dir, guint users,
                              const char *scenario, GError **error);
void throng_data_free (ThrongData *data);
/* The index of the set named @name (a prefix of @length bytes), or -1. */
gint throng_data_find (const ThrongData *data, const char *name, gsize length);
/* Whether a user found no row left in any of the sets. */
gboolean throng_data_is_exhausted (const ThrongData *data);

/* The index of column @name, or -1. */
gint throng_dataset_column (const ThrongDataSet *data, const char *name);

/*
 * Restricts a `unique` data set to the rows whose index modulo @count is
 * @index, so that shards of one run never hand out the same row.  Before
 * the run only.
 */
void throng_dataset_set_slice (ThrongDataSet *data, guint index, guint count);

/*
 * The next row for a user, by the data set's mode (@rand for `random`);
 * FALSE when the rows ran out and the user must stop (`on_exhausted:
 * stop`, or `unique` past its last row), which also marks the data set
 * exhausted.  Any worker thread.
 */
gboolean throng_dataset_next_row (ThrongDataSet *data, GRand *rand, guint *row);
gboolean throng_dataset_is_exhausted (const ThrongDataSet *data);

static inline const char *
throng_dataset_cell (const ThrongDataSet *data, guint row, guint column, gsize *length)
{
    gsize i = (gsize) row * data->n_columns + column;
    *length = data->lengths[i];
    return data->cells[i];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongDataSet, throng_dataset_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongData, throng_data_free)
