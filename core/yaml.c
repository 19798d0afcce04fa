/* SPDX-License-Identifier: MIT */
/*
 * The plan's YAML tree: libyaml's event stream turned into located nodes,
 * with what libyaml 0.2.5 does not do itself — anchors and aliases are
 * refused (so an alias bomb or a self-containing node cannot exist),
 * duplicate and non-scalar keys are refused, depth, node count and size
 * are bounded, and marks are converted to the 1-based lines and columns
 * users count in.  Also the two edits made before the plan is read:
 * `--set` overrides and `${builtin.*}` expansion.
 */
#include "node-private.h"
#include "yaml-syntax.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

struct _ThrongTree {
    GPtrArray *nodes;   /* every node, owned (also those --set replaced) */
    GPtrArray *strings; /* file names the nodes point to, owned */
    ThrongNode *root;
    char *sha256;       /* of the bytes throng_tree_load_file() parsed; NULL otherwise */
};

static void
node_free (gpointer data)
{
    ThrongNode *node = data;

    g_free (node->text);
    if (node->keys != NULL)
        g_ptr_array_unref (node->keys);
    if (node->items != NULL)
        g_ptr_array_unref (node->items);
    g_free (node);
}

static ThrongTree *
tree_new (const char *file)
{
    ThrongTree *tree = g_new0 (ThrongTree, 1);

    tree->nodes = g_ptr_array_new_with_free_func (node_free);
    tree->strings = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (tree->strings, g_strdup (file));
    return tree;
}

void
throng_tree_free (ThrongTree *tree)
{
    if (tree == NULL)
        return;
    g_ptr_array_unref (tree->nodes);
    g_ptr_array_unref (tree->strings);
    g_free (tree->sha256);
    g_free (tree);
}

const ThrongNode *
throng_tree_root (ThrongTree *tree)
{
    g_return_val_if_fail (tree != NULL, NULL);
    return tree->root;
}

static ThrongNode *
node_new (ThrongTree *tree, ThrongNodeKind kind, const char *file, guint line, guint column)
{
    ThrongNode *node = g_new0 (ThrongNode, 1);

    node->kind = kind;
    node->file = file;
    node->line = line;
    node->column = column;
    if (kind == THRONG_NODE_MAP)
        node->keys = g_ptr_array_new ();
    if (kind != THRONG_NODE_SCALAR)
        node->items = g_ptr_array_new ();
    g_ptr_array_add (tree->nodes, node);
    return node;
}

ThrongTree *
throng_tree_new_pair (const char *origin, const char *key, const char *value, guint column)
{
    ThrongTree *tree;
    ThrongNode *key_node, *value_node;
    const char *file;

    g_return_val_if_fail (origin != NULL && key != NULL && value != NULL, NULL);

    tree = tree_new (origin);
    file = tree->strings->pdata[0];
    tree->root = node_new (tree, THRONG_NODE_MAP, file, 1, 1);
    key_node = node_new (tree, THRONG_NODE_SCALAR, file, 1, 1);
    key_node->text = g_strdup (key);
    key_node->plain = TRUE;
    value_node = node_new (tree, THRONG_NODE_SCALAR, file, 1, column);
    value_node->text = g_strdup (value);
    g_ptr_array_add (tree->root->keys, key_node);
    g_ptr_array_add (tree->root->items, value_node);
    return tree;
}

/* ---- loading ------------------------------------------------------------ */

/* One open map or sequence while events arrive. */
typedef struct {
    ThrongNode *node;
    ThrongNode *key;  /* map: the key waiting for its value */
    GHashTable *seen; /* map: key text → key node, for duplicates */
} Frame;

typedef struct {
    ThrongTree *tree;
    const char *file;
    GArray *stack; /* Frame */
    guint n_documents;
} Loader;

static void
frame_clear (gpointer data)
{
    Frame *frame = data;

    g_clear_pointer (&frame->seen, g_hash_table_unref);
}

static void set_error_at (GError **error, ThrongPlanError code, const char *file, guint line,
                          guint column, const char *format, ...) G_GNUC_PRINTF (6, 7);

static void
set_error_at (GError **error, ThrongPlanError code, const char *file, guint line, guint column,
              const char *format, ...)
{
    va_list args;
    g_autofree char *formatted = NULL;
    g_autofree char *message = NULL;

    va_start (args, format);
    formatted = g_strdup_vprintf (format, args);
    va_end (args);
    message = throng_one_line (formatted);
    g_set_error (error, THRONG_PLAN_ERROR, code, "%s:%u:%u: %s", file, line, column, message);
}

/* Line and column (from 1, in characters) of byte @offset of @data. */
static void
locate_offset (const char *data, gsize length, gsize offset, guint *line, guint *column)
{
    guint l = 1, c = 1;

    for (gsize i = 0; i < offset && i < length; i++) {
        guchar byte = (guchar)data[i];

        if (byte == '\n') {
            l++;
            c = 1;
        } else if ((byte & 0xC0) != 0x80) {
            /* count characters, not continuation bytes */
            c++;
        }
    }
    *line = l;
    *column = c;
}

/*
 * libyaml's reader reports bad UTF-8 with a byte offset and no mark, and
 * silently accepts UTF-16; checking first gives one clear located message.
 */
static gboolean
check_text (const char *file, const char *data, gsize length, GError **error)
{
    const char *end = NULL;
    guint line, column;

    if (g_utf8_validate (data, length, &end))
        return TRUE;
    locate_offset (data, length, end - data, &line, &column);
    if (*end == '\0')
        set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, file, line, column,
                      "a NUL byte; a plan must be UTF-8 text");
    else
        set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, file, line, column,
                      "invalid UTF-8 (byte 0x%02x); a plan must be UTF-8 text", (guchar)*end);
    return FALSE;
}

static gboolean
refuse_anchor (Loader *loader, const yaml_event_t *event, const yaml_char_t *anchor, GError **error)
{
    if (anchor == NULL)
        return TRUE;
    set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, event->start_mark.line + 1,
                  event->start_mark.column + 1, "anchors and aliases are not supported");
    return FALSE;
}

static gboolean
check_budget (Loader *loader, const yaml_event_t *event, GError **error)
{
    if (loader->tree->nodes->len < THRONG_TREE_MAX_NODES)
        return TRUE;
    set_error_at (error, THRONG_PLAN_ERROR_LIMIT, loader->file, event->start_mark.line + 1,
                  event->start_mark.column + 1, "the plan has more than %u nodes",
                  (guint)THRONG_TREE_MAX_NODES);
    return FALSE;
}

/* Hands a complete node to the open map or sequence, or makes it the root. */
static gboolean
attach (Loader *loader, ThrongNode *node, GError **error)
{
    Frame *top;

    if (loader->stack->len == 0) {
        loader->tree->root = node;
        return TRUE;
    }
    top = &g_array_index (loader->stack, Frame, loader->stack->len - 1);
    if (top->node->kind == THRONG_NODE_SEQUENCE) {
        g_ptr_array_add (top->node->items, node);
        return TRUE;
    }
    if (top->key != NULL) {
        g_ptr_array_add (top->node->keys, top->key);
        g_ptr_array_add (top->node->items, node);
        top->key = NULL;
        return TRUE;
    }

    /* node is a key */
    if (node->kind != THRONG_NODE_SCALAR) {
        set_error_at (error, THRONG_PLAN_ERROR_TYPE, loader->file, node->line, node->column,
                      "a key must be plain text, not a %s",
                      node->kind == THRONG_NODE_MAP ? "map" : "list");
        return FALSE;
    }
    if (node->plain && node->text[0] == '\0') {
        set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, node->line, node->column,
                      "a key cannot be empty");
        return FALSE;
    }
    if (top->seen == NULL)
        top->seen = g_hash_table_new (g_str_hash, g_str_equal);
    ThrongNode *first = g_hash_table_lookup (top->seen, node->text);
    if (first != NULL) {
        set_error_at (error, THRONG_PLAN_ERROR_DUPLICATE_KEY, loader->file, node->line,
                      node->column, "duplicate key '%s' (first at %u:%u)", node->text, first->line,
                      first->column);
        return FALSE;
    }
    g_hash_table_insert (top->seen, node->text, node);
    top->key = node;
    return TRUE;
}

static gboolean
open_collection (Loader *loader, const yaml_event_t *event, ThrongNodeKind kind, GError **error)
{
    const yaml_char_t *anchor = kind == THRONG_NODE_MAP ? event->data.mapping_start.anchor
                                                        : event->data.sequence_start.anchor;
    guint line = event->start_mark.line + 1, column = event->start_mark.column + 1;

    if (!refuse_anchor (loader, event, anchor, error) || !check_budget (loader, event, error))
        return FALSE;
    if (loader->stack->len >= THRONG_TREE_MAX_DEPTH) {
        set_error_at (error, THRONG_PLAN_ERROR_LIMIT, loader->file, line, column,
                      "the plan nests deeper than %u levels", (guint)THRONG_TREE_MAX_DEPTH);
        return FALSE;
    }

    Frame frame = { node_new (loader->tree, kind, loader->file, line, column), NULL, NULL };
    g_array_append_val (loader->stack, frame);
    return TRUE;
}

static gboolean
close_collection (Loader *loader, GError **error)
{
    Frame *top = &g_array_index (loader->stack, Frame, loader->stack->len - 1);
    ThrongNode *node = top->node;

    /* libyaml reports a key without a value as a null value, so top->key is NULL here */
    g_assert (top->key == NULL);
    g_array_set_size (loader->stack, loader->stack->len - 1);
    return attach (loader, node, error);
}

static gboolean
add_scalar (Loader *loader, const yaml_event_t *event, GError **error)
{
    const char *value = (const char *)event->data.scalar.value;
    gsize length = event->data.scalar.length;
    guint line = event->start_mark.line + 1, column = event->start_mark.column + 1;

    if (!refuse_anchor (loader, event, event->data.scalar.anchor, error)
        || !check_budget (loader, event, error))
        return FALSE;
    /* a "\0" escape in a quoted string: C strings cannot carry it */
    if (memchr (value, '\0', length) != NULL) {
        set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, line, column,
                      "a NUL character in a string is not supported");
        return FALSE;
    }

    ThrongNode *node = node_new (loader->tree, THRONG_NODE_SCALAR, loader->file, line, column);
    node->text = g_strndup (value, length);
    node->plain = event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    switch (event->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
        node->style = '\'';
        break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        node->style = '"';
        break;
    case YAML_LITERAL_SCALAR_STYLE:
        node->style = '|';
        break;
    case YAML_FOLDED_SCALAR_STYLE:
        node->style = '>';
        break;
    default:
        node->style = 0;
        break;
    }
    return attach (loader, node, error);
}

static void
set_parser_error (Loader *loader, const yaml_parser_t *parser, const char *data, gsize length,
                  GError **error)
{
    guint line, column;

    switch (parser->error) {
    case YAML_MEMORY_ERROR:
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_LIMIT, "%s: out of memory",
                     loader->file);
        return;
    case YAML_READER_ERROR:
        /* the reader knows only a byte offset */
        locate_offset (data, length, parser->problem_offset, &line, &column);
        break;
    default:
        line = parser->problem_mark.line + 1;
        column = parser->problem_mark.column + 1;
        g_autofree char *explained
            = throng_yaml_explain (data, length, parser->problem, &line, &column);
        if (explained != NULL) {
            set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, line, column, "%s",
                          explained);
            return;
        }
        break;
    }
    set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, line, column, "%s",
                  parser->problem != NULL ? parser->problem : "invalid YAML");
}

static gboolean
handle_event (Loader *loader, const yaml_event_t *event, GError **error)
{
    switch (event->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++loader->n_documents > 1) {
            set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, loader->file, event->start_mark.line + 1,
                          event->start_mark.column + 1,
                          "a plan is one YAML document; this starts a second one");
            return FALSE;
        }
        return TRUE;
    case YAML_ALIAS_EVENT:
        return refuse_anchor (loader, event, event->data.alias.anchor, error);
    case YAML_SCALAR_EVENT:
        return add_scalar (loader, event, error);
    case YAML_SEQUENCE_START_EVENT:
        return open_collection (loader, event, THRONG_NODE_SEQUENCE, error);
    case YAML_MAPPING_START_EVENT:
        return open_collection (loader, event, THRONG_NODE_MAP, error);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return close_collection (loader, error);
    default:
        return TRUE;
    }
}

ThrongTree *
throng_tree_load_data (const char *name, const char *data, gsize length, GError **error)
{
    g_autoptr (ThrongTree) tree = NULL;
    yaml_parser_t parser;
    gboolean ok = TRUE, done = FALSE;

    g_return_val_if_fail (name != NULL, NULL);
    g_return_val_if_fail (data != NULL || length == 0, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    if (length > THRONG_TREE_MAX_BYTES) {
        set_error_at (error, THRONG_PLAN_ERROR_LIMIT, name, 1, 1, "the plan is larger than %u MiB",
                      (guint)(THRONG_TREE_MAX_BYTES >> 20));
        return NULL;
    }
    if (!check_text (name, data, length, error))
        return NULL;

    tree = tree_new (name);
    Loader loader = {
        .tree = tree,
        .file = g_ptr_array_index (tree->strings, 0),
        .stack = g_array_new (FALSE, TRUE, sizeof (Frame)),
    };
    g_array_set_clear_func (loader.stack, frame_clear);

    yaml_parser_initialize (&parser);
    yaml_parser_set_input_string (&parser, (const unsigned char *)data, length);
    while (ok && !done) {
        yaml_event_t event;

        if (!yaml_parser_parse (&parser, &event)) {
            set_parser_error (&loader, &parser, data, length, error);
            ok = FALSE;
            break;
        }
        done = event.type == YAML_STREAM_END_EVENT;
        ok = handle_event (&loader, &event, error);
        yaml_event_delete (&event);
    }
    yaml_parser_delete (&parser);
    g_array_unref (loader.stack);
    if (!ok)
        return NULL;

    if (tree->root == NULL || throng_node_is_null (tree->root)) {
        set_error_at (error, THRONG_PLAN_ERROR_SYNTAX, name, 1, 1, "the plan is empty");
        return NULL;
    }
    if (tree->root->kind != THRONG_NODE_MAP) {
        throng_node_set_error (tree->root, error, THRONG_PLAN_ERROR_TYPE,
                               "the plan must be a map of keys such as name, scenarios, reporters");
        return NULL;
    }
    return g_steal_pointer (&tree);
}

/*
 * Reads at most THRONG_TREE_MAX_BYTES + 1 bytes, so that a huge file (or
 * an endless one such as /dev/zero) is refused without being read whole.
 */
static char *
read_file (const char *path, gsize *length, GError **error)
{
    g_autofree char *data = NULL;
    gsize size = 0, allocated = 0;
    struct stat st;
    int fd;

    /* A FIFO with no writer would block open() (`throng validate` hung) and
     * a device be read for ever: regular files only, and a file swapped
     * after the check still cannot block the open. */
    if (!throng_node_check_file (NULL, path, error))
        return NULL;
    fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int saved = errno;
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE, "%s: %s", path,
                     g_strerror (saved));
        return NULL;
    }
    if (fstat (fd, &st) == 0 && !S_ISREG (st.st_mode)) {
        close (fd);
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE,
                     "%s is not a regular file", path);
        return NULL;
    }
    for (;;) {
        if (size == allocated) {
            allocated = allocated == 0 ? 16384 : allocated * 2;
            data = g_realloc (data, allocated + 1);
        }
        ssize_t n
            = read (fd, data + size, MIN (allocated - size, THRONG_TREE_MAX_BYTES + 1 - size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close (fd);
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_FILE, "%s: %s", path,
                         g_strerror (saved));
            return NULL;
        }
        if (n == 0)
            break;
        size += n;
        if (size > THRONG_TREE_MAX_BYTES)
            break;
    }
    close (fd);
    data[size] = '\0';
    *length = size;
    return g_steal_pointer (&data);
}

ThrongTree *
throng_tree_load_file (const char *path, GError **error)
{
    g_autofree char *data = NULL;
    gsize length = 0;

    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    data = read_file (path, &length, error);
    if (data == NULL)
        return NULL;
    ThrongTree *tree = throng_tree_load_data (path, data, length, error);
    if (tree != NULL)
        tree->sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data,
                                                    length);
    return tree;
}

const char *
throng_tree_sha256 (ThrongTree *tree)
{
    g_return_val_if_fail (tree != NULL, NULL);
    return tree->sha256;
}

/* ---- editing ------------------------------------------------------------ */

void
throng_tree_put_scalar (ThrongTree *tree, const ThrongNode *parent, guint index, const char *key,
                        const char *origin, guint column, const char *value)
{
    ThrongNode *node = (ThrongNode *) parent;

    g_return_if_fail (tree != NULL && parent != NULL && origin != NULL && value != NULL);
    g_return_if_fail (parent->kind != THRONG_NODE_SCALAR);
    g_return_if_fail (index < parent->items->len
                      || (index == parent->items->len && parent->kind == THRONG_NODE_MAP
                          && key != NULL));

    char *file = g_strdup (origin);
    g_ptr_array_add (tree->strings, file);
    ThrongNode *scalar = node_new (tree, THRONG_NODE_SCALAR, file, 1, column);
    scalar->text = g_strdup (value);
    scalar->plain = TRUE;

    /* The node replaced stays in tree->nodes, which frees it with the tree. */
    if (index < node->items->len) {
        node->items->pdata[index] = scalar;
        return;
    }
    ThrongNode *key_node = node_new (tree, THRONG_NODE_SCALAR, file, 1, 1);
    key_node->text = g_strdup (key);
    key_node->plain = TRUE;
    g_ptr_array_add (node->keys, key_node);
    g_ptr_array_add (node->items, scalar);
}

/* ---- ${NAME} expansion --------------------------------------------------- */

static gboolean
expand_scalar (ThrongNode *node, ThrongTreeVariable lookup, gpointer data, GError **error)
{
    g_autoptr (GString) out = NULL;
    const char *p = node->text;
    const char *search = p;
    const char *start;

    while ((start = strstr (search, "${")) != NULL) {
        const char *end = strchr (start + 2, '}');
        GError *local = NULL;

        if (end == NULL)
            break;
        if (start > node->text && start[-1] == '$') {
            /* "$${": a literal "${", for the template compiler to unescape */
            search = start + 2;
            continue;
        }

        g_autofree char *name = g_strndup (start + 2, end - start - 2);
        const char *value = lookup (name, data, node, start - node->text, &local);

        if (local != NULL) {
            g_propagate_error (error, local);
            return FALSE;
        }
        if (out == NULL)
            out = g_string_new (NULL);
        g_string_append_len (out, p, start - p);
        if (value != NULL)
            g_string_append (out, value);
        else
            g_string_append_len (out, start, end + 1 - start);
        p = end + 1;
        search = p;
    }
    if (out != NULL) {
        g_string_append (out, p);
        g_free (node->text);
        node->text = g_string_free (g_steal_pointer (&out), FALSE);
    }
    return TRUE;
}

/* Recursion is bounded by THRONG_TREE_MAX_DEPTH, checked at load. */
static gboolean
expand_node (ThrongNode *node, ThrongTreeVariable lookup, gpointer data, GError **error)
{
    if (node->kind == THRONG_NODE_SCALAR)
        return expand_scalar (node, lookup, data, error);
    for (guint i = 0; i < node->items->len; i++) {
        if (!expand_node (node->items->pdata[i], lookup, data, error))
            return FALSE;
    }
    return TRUE;
}

gboolean
throng_tree_expand (ThrongTree *tree, ThrongTreeVariable lookup, gpointer data, GError **error)
{
    g_return_val_if_fail (tree != NULL, FALSE);
    g_return_val_if_fail (lookup != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    /* keys are not expanded: they were checked for duplicates as written */
    return expand_node (tree->root, lookup, data, error);
}
