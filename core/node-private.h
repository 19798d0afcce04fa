/* SPDX-License-Identifier: MIT */
/*
 * The plan's YAML tree as the core builds it: libyaml's events turned into
 * located nodes, with the limits libyaml lacks (depth, size, aliases,
 * duplicate keys).  Private to the core.
 */
#pragma once

#include <throng/node.h>

/* A loaded tree owns every node and string below its root. */
typedef struct _ThrongTree ThrongTree;

/* Limits that keep a hostile plan from exhausting memory or the stack. */
#define THRONG_TREE_MAX_DEPTH 64
#define THRONG_TREE_MAX_NODES 1000000
#define THRONG_TREE_MAX_BYTES (64 * 1024 * 1024)

/*
 * Loads @path.  Errors: a missing or unreadable file (THRONG_PLAN_ERROR_FILE,
 * "PATH: No such file or directory"), an empty file ("PATH:1:1: the plan is
 * empty"), invalid UTF-8, YAML syntax errors, anchors or aliases, duplicate
 * keys, non-scalar keys, too deep or too large: all located.
 */
ThrongTree *throng_tree_load_file (const char *path, GError **error);
ThrongTree *throng_tree_load_data (const char *name, const char *data, gsize length, GError **error);
/*
 * The SHA-256, in hex, of the bytes throng_tree_load_file() read and
 * parsed (before any --set): what ran, even if the file changes later.
 * NULL for a tree not loaded from a file.
 */
const char *throng_tree_sha256 (ThrongTree *tree);
/*
 * A tree that no file holds, of one map {@key: @value}: the key located
 * at "@origin":1:1, the value a quoted scalar (so `~` stays text) at
 * "@origin":1:@column.  What `--out NAME=PATH` gives its reporter.
 */
ThrongTree *throng_tree_new_pair (const char *origin, const char *key, const char *value,
                                  guint column);
void throng_tree_free (ThrongTree *tree);
const ThrongNode *throng_tree_root (ThrongTree *tree);

/*
 * Puts a new plain scalar @value at @index of @parent, a map or a list of
 * @tree: it replaces the item there, or, when @index is the length of the
 * map @parent, is added under the new key @key.  The value is located at
 * "@origin":1:@column, a new key at "@origin":1:1.  The command line's
 * `--set PATH=VALUE` (cli/plan-overrides.c) edits a plan this way.
 */
void throng_tree_put_scalar (ThrongTree *tree, const ThrongNode *parent, guint index,
                             const char *key, const char *origin, guint column, const char *value);

/*
 * Replaces, in every scalar, each occurrence of "${NAME}" for which
 * @lookup returns a string; other "${...}" texts are left alone (they are
 * reserved for run-time variables), and so is "$${", the escape of a
 * literal "${".  @lookup gets the byte offset of the "${" in the scalar's
 * text, for throng_node_set_error_at().  Returns FALSE with a located error
 * when @lookup sets one.
 */
typedef const char *(*ThrongTreeVariable) (const char *name, gpointer data, const ThrongNode *where,
                                           gsize offset, GError **error);
gboolean throng_tree_expand (ThrongTree *tree, ThrongTreeVariable lookup, gpointer data,
                             GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongTree, throng_tree_free)

/*
 * TRUE when @node is of @kind; otherwise FALSE with a located type error,
 * "expected EXPECTED, got a map" (or whatever @node is).
 */
gboolean throng_node_expect_kind (const ThrongNode *node, ThrongNodeKind kind,
                                  const char *expected, GError **error);

/*
 * The node itself, shared by yaml.c (which builds and edits trees) and
 * node.c (which reads them).  Every node belongs to one tree, which frees
 * it; children are borrowed pointers into the same tree.
 */
struct _ThrongNode {
    ThrongNodeKind kind;
    gboolean plain;   /* a plain (unquoted) scalar: only those can be null */
    char style;       /* scalar: 0 plain, '\'' or '"' quoted, '|' or '>' block */
    const char *file; /* owned by the tree */
    guint line;       /* from 1 */
    guint column;     /* from 1 */
    char *text;       /* scalar text (UTF-8, no NUL) */
    GPtrArray *keys;  /* map: key nodes, parallel to items */
    GPtrArray *items; /* map: values; sequence: items */
};

/*
 * Like throng_node_set_error(), located at the character @offset bytes
 * into @node's text: the column counts characters after the opening quote
 * of a quoted scalar, lines after the indicator line of a block one.
 * Exact for a plain or quoted scalar on one line without escapes before
 * @offset; otherwise the nearest place the tree can tell.
 */
void throng_node_set_error_at (const ThrongNode *node, gsize offset, GError **error,
                               ThrongPlanError code, const char *format, ...) G_GNUC_PRINTF (5, 6);
/*
 * The "file:line:column" of the character @offset bytes into @text, where
 * @text starts at @line:@column of @file and is written with @style (as
 * ThrongNode.style).  For errors inside strings that are not nodes (a body
 * file) pass style 0 and line 1, column 1.
 */
char *throng_locate_in_text (const char *file, guint line, guint column, char style,
                             const char *text, gsize offset);

/*
 * @message with its control characters spelled as escapes ("\n", "\t",
 * "\x01"), so that an error quoting a multi-line scalar or key stays on
 * one line.
 */
char *throng_one_line (const char *message);

/* @text quoted, cut to its first 40 characters and "…" when longer. */
char *throng_excerpt (const char *text);

/* What the user gave, for "got …" messages: "a map", "a list", "an empty value", "'text'". */
char *throng_node_describe (const ThrongNode *node);

/* The candidate nearest @word (a typo or a prefix), or NULL: for "did you mean". */
const char *throng_node_suggest (const char *word, const char *const *candidates);
