/* SPDX-License-Identifier: MIT */
/*
 * Templates: `${...}` compiled while the plan loads into a list of
 * literal and variable segments, and expanded per request with one append
 * per segment into the caller's buffer.  Everything a name can mean is
 * decided here, once: `env.*`, `builtin.*` and `scenario.name` become
 * literal text (their filter applied at load), `vars.*` a slot, `data.*`
 * a column, `counter.*` a run-wide atomic.  Expansion allocates nothing
 * beyond the buffer's growth.  The syntax is in docs/journeys.md.
 */
#include "template-private.h"
#include "template-filter-private.h"

#include <string.h>
#include <time.h>

#include "user-private.h"
#include "worker-private.h"

G_DEFINE_QUARK (throng-template-error-quark, throng_template_error)

/* Bounds (docs/plan-reference.md). */
#define RANDOM_STRING_MAX 4096

typedef enum {
    SEG_LITERAL,
    SEG_VAR,
    SEG_DATA,
    SEG_USER_ID,
    SEG_ITERATION,
    SEG_ARRIVAL,
    SEG_WORKER_ID,
    SEG_RANDOM_INT,
    SEG_RANDOM_STRING,
    SEG_UUID,
    SEG_TIME_UNIX,
    SEG_TIME_UNIX_MS,
    SEG_TIME_ISO,
    SEG_COUNTER,
    SEG_LAST,
    SEG_SETUP,
} SegmentKind;


typedef struct {
    guint8 kind;
    guint8 filter;
    guint32 offset;             /* literal: its text in tpl->text; var, data: the name's */
    guint32 length;
    gint64 a;                   /* var: slot; data: column; random.int: low; random.string: length */
    gint64 b;                   /* random.int: high; data: the set */
    guint64 *counter;           /* counter.NAME */
    GPtrArray *setup;           /* setup.NAME: the plan's values by setup slot (a) */
} Segment;

struct _ThrongTemplate {
    char *text;                 /* literal segments' bytes, then names for messages */
    gsize literal_length;       /* the whole text when @literal */
    Segment *segments;
    guint n_segments;
    gboolean literal;
};

/* ---- compiling -------------------------------------------------------------- */

typedef struct {
    ThrongScope *scope;
    const ThrongNode *node;     /* the scalar, or the node errors fall back to */
    const char *origin;         /* compile_text: the file the text came from */
    const char *text;
    gsize length;
    GString *bytes;             /* the template's text */
    GArray *segments;
} Compiler;

static char *
compiler_where (Compiler *c, gsize offset)
{
    if (c->origin != NULL)
        return throng_locate_in_text (c->origin, 1, 1, 0, c->text, offset);
    if (throng_node_kind (c->node) == THRONG_NODE_SCALAR && c->text == throng_node_scalar (c->node))
        return throng_locate_in_text (throng_node_file (c->node), throng_node_line (c->node),
                                      throng_node_column (c->node), c->node->style, c->text,
                                      offset);
    return g_strdup_printf ("%s:%u:%u", throng_node_file (c->node), throng_node_line (c->node),
                            throng_node_column (c->node));
}

static gboolean compiler_error (Compiler *c, gsize offset, GError **error, const char *format, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
compiler_error (Compiler *c, gsize offset, GError **error, const char *format, ...)
{
    va_list args;
    g_autofree char *message = NULL;
    g_autofree char *where = compiler_where (c, offset);

    va_start (args, format);
    message = g_strdup_vprintf (format, args);
    va_end (args);
    g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID, "%s: %s", where, message);
    return FALSE;
}

static void
add_literal (Compiler *c, const char *s, gsize length)
{
    Segment *last = c->segments->len > 0
                        ? &g_array_index (c->segments, Segment, c->segments->len - 1)
                        : NULL;

    if (length == 0)
        return;
    if (last != NULL && last->kind == SEG_LITERAL && last->offset + last->length == c->bytes->len) {
        last->length += (guint32) length;
    } else {
        Segment segment = { .kind = SEG_LITERAL, .offset = (guint32) c->bytes->len,
                            .length = (guint32) length };
        g_array_append_val (c->segments, segment);
    }
    g_string_append_len (c->bytes, s, length);
}

static void
add_filtered_literal (Compiler *c, ThrongTemplateFilter filter, const char *s, gsize length)
{
    g_autoptr (GString) filtered = g_string_new (NULL);

    throng_template_filter_append (filtered, filter, s, length);
    add_literal (c, filtered->str, filtered->len);
}

/* A name kept in the text after the literals, for "vars.token is not set". */
static void
add_named (Compiler *c, Segment *segment, const char *name, gsize length)
{
    segment->offset = (guint32) c->bytes->len;
    segment->length = (guint32) length;
    g_string_append_len (c->bytes, name, length);
    g_array_append_val (c->segments, *segment);
}

static gboolean
parse_int (const char *s, gsize length, gint64 *out)
{
    g_autofree char *copy = g_strstrip (g_strndup (s, length));
    char *end;
    gint64 value;

    if (copy[0] == '\0')
        return FALSE;
    value = g_ascii_strtoll (copy, &end, 10);
    if (*end != '\0' || value < G_MININT32 || value >= G_MAXINT32)
        return FALSE;
    *out = value;
    return TRUE;
}

/* `random.int(A, B)` or `random.string(N)`: the arguments between @open and @close. */
static gboolean
parse_arguments (Compiler *c, gsize open, gsize close, guint want, gint64 *args, GError **error)
{
    const char *s = c->text + open + 1;
    gsize length = close - open - 1;
    const char *comma = memchr (s, ',', length);

    if (want == 1) {
        if (comma == NULL && parse_int (s, length, &args[0]))
            return TRUE;
    } else if (comma != NULL && memchr (comma + 1, ',', s + length - comma - 1) == NULL
               && parse_int (s, comma - s, &args[0])
               && parse_int (comma + 1, s + length - comma - 1, &args[1])) {
        return TRUE;
    }
    return compiler_error (c, open + 1, error, "expected %s between the parentheses, got '%.*s'",
                           want == 1 ? "one integer" : "two integers, 'A, B'", (int) length, s);
}

static gboolean
unknown_name (Compiler *c, gsize offset, const char *expr, GError **error)
{
    g_autofree char *message = throng_template_unknown_name (expr);

    return compiler_error (c, offset, error, "%s", message);
}

static gboolean
compile_env (Compiler *c, gsize offset, const char *rest, ThrongTemplateFilter filter, GError **error)
{
    const char *fallback = strstr (rest, ":-");
    g_autofree char *name = g_strndup (rest, fallback != NULL ? (gsize) (fallback - rest)
                                                              : strlen (rest));
    const char *value;

    if (name[0] == '\0')
        return compiler_error (c, offset, error, "env. needs a variable name, as ${env.HOME}");
    value = throng_plan_vars_env (c->scope->plan, name);
    if (value == NULL && fallback != NULL)
        value = fallback + 2;
    if (value == NULL)
        return compiler_error (c, offset, error,
                               "environment variable %s is not set; set it, give -e %s=VALUE, "
                               "or write a default: ${env.%s:-VALUE}",
                               name, name, name);
    add_filtered_literal (c, filter, value, strlen (value));
    return TRUE;
}

static gboolean compile_expression (Compiler *c, gsize start, gsize end,
                                    ThrongTemplateFilter filter, GError **error);

/* One `${...}`: the text between @open (at "${") and @close (at "}"). */

/* `data.COLUMN` (one set) or `data.SET.COLUMN` (named sets): the set and column now, or why not. */
static gboolean
compile_data (Compiler *c, Segment *segment, const char *expr, gsize start, GError **error)
{
    const ThrongData *data = c->scope->data;
    const char *column = expr + 5;
    const char *prefix = "data.";
    const ThrongDataSet *set;
    gint index;

    if (data == NULL)
        return compiler_error (c, start, error,
                               "%s: scenario '%s' has no data set (add 'data: {file: ...}')",
                               expr, c->scope->scenario);
    segment->b = 0;
    if (data->named) {
        const char *dot = strchr (column, '.');
        g_autofree char *names = NULL;
        GPtrArray *all = g_ptr_array_new ();
        gint found = throng_data_find (data, column, dot != NULL ? (gsize) (dot - column)
                                                                 : strlen (column));

        for (guint i = 0; i < data->n_sets; i++)
            g_ptr_array_add (all, data->sets[i]->set_name);
        g_ptr_array_add (all, NULL);
        names = g_strjoinv (", ", (char **) all->pdata);
        g_ptr_array_unref (all);
        if (found < 0)
            return compiler_error (c, start + 5, error,
                                   "%s: scenario '%s' has no data set by that name; its sets are "
                                   "%s (written data.SET.COLUMN)",
                                   expr, c->scope->scenario, names);
        if (dot == NULL)
            return compiler_error (c, start + 5, error,
                                   "%s names a data set, not a value: write data.%s.COLUMN", expr,
                                   data->sets[found]->set_name);
        segment->b = found;
        prefix = expr;
        column = dot + 1;
    }
    set = data->sets[segment->b];
    index = throng_dataset_column (set, column);
    if (index < 0) {
        g_autofree char *qualifier = g_strndup (prefix, data->named ? (gsize) (column - expr)
                                                                   : strlen (prefix));
        const char *suggestion = throng_node_suggest (column, (const char *const *) set->columns);
        gsize at = start + (gsize) (column - expr);

        if (suggestion != NULL)
            return compiler_error (c, at, error, "'%s' is not a column of %s; did you mean '%s%s'?",
                                   column, set->name, qualifier, suggestion);
        g_autofree char *columns = g_strjoinv (", ", set->columns);
        return compiler_error (c, at, error, "'%s' is not a column of %s; its columns are %s",
                               column, set->name, columns);
    }
    segment->kind = SEG_DATA;
    segment->a = index;
    add_named (c, segment, expr, strlen (expr));
    return TRUE;
}

static gboolean
compile_substitution (Compiler *c, gsize open, gsize close, GError **error)
{
    gsize start = open + 2;
    const char *bar = memchr (c->text + start, '|', close - start);
    gsize expr_end = bar != NULL ? (gsize) (bar - c->text) : close;
    ThrongTemplateFilter filter = THRONG_TEMPLATE_FILTER_NONE;

    /* the expression, trimmed; its offset is where errors about it point */
    while (start < expr_end && g_ascii_isspace (c->text[start]))
        start++;
    gsize end = expr_end;
    while (end > start && g_ascii_isspace (c->text[end - 1]))
        end--;
    if (start == end)
        return compiler_error (c, open, error, "empty ${}: write a variable, as ${vars.token}");

    if (bar != NULL) {
        gsize f = expr_end + 1;
        while (f < close && g_ascii_isspace (c->text[f]))
            f++;
        gsize f_end = close;
        while (f_end > f && g_ascii_isspace (c->text[f_end - 1]))
            f_end--;
        g_autofree char *name = g_strndup (c->text + f, f_end - f);
        if (strchr (name, '|') != NULL)
            return compiler_error (c, f + strcspn (name, "|"), error,
                                   "one filter per substitution");
        gint index = -1;
        for (guint i = 0; throng_template_filter_names[i] != NULL; i++)
            if (strcmp (name, throng_template_filter_names[i]) == 0)
                index = (gint) i;
        if (index < 0) {
            const char *suggestion = throng_node_suggest (name, throng_template_filter_names);
            if (suggestion != NULL)
                return compiler_error (c, f, error, "unknown filter '%s'; did you mean '%s'?",
                                       name, suggestion);
            return compiler_error (c, f, error,
                                   "unknown filter '%s'; the filters are urlencode, json and "
                                   "base64",
                                   name);
        }
        filter = (ThrongTemplateFilter) (index + 1);
    }

    return compile_expression (c, start, end, filter, error);
}

/* `setup.NAME`: read-only, the same for every user (scope.c checks the name). */
static gboolean
compile_setup (Compiler *c, Segment *segment, const char *expr, gsize start, GError **error)
{
    g_autofree char *message = NULL;
    gint slot = throng_plan_vars_setup_slot (c->scope->plan, expr, &message);

    if (slot < 0)
        return compiler_error (c, start, error, "%s", message);
    segment->kind = SEG_SETUP;
    segment->a = slot;
    segment->setup = c->scope->plan->setup_values;
    add_named (c, segment, expr, strlen (expr));
    return TRUE;
}

/* The name between @start and @end (trimmed), with its filter: one segment, or literal text. */
static gboolean
compile_expression (Compiler *c, gsize start, gsize end, ThrongTemplateFilter filter,
                    GError **error)
{
    g_autofree char *expr = g_strndup (c->text + start, end - start);
    Segment segment = { .filter = (guint8) filter };

    if (g_str_has_prefix (expr, "env."))
        return compile_env (c, start, expr + 4, filter, error);
    if (g_str_has_prefix (expr, "vars.")) {
        const char *name = expr + 5;
        if (!throng_scope_valid_name (name, strlen (name)))
            return compiler_error (c, start + 5, error,
                                   "'%s' is not a variable name: a letter or '_', then letters, "
                                   "digits and '_'",
                                   name);
        segment.kind = SEG_VAR;
        segment.a = throng_scope_read_var (c->scope, name, compiler_where (c, start));
        add_named (c, &segment, expr, strlen (expr));
        return TRUE;
    }
    if (g_str_has_prefix (expr, "data."))
        return compile_data (c, &segment, expr, start, error);
    if (g_str_has_prefix (expr, "setup."))
        return compile_setup (c, &segment, expr, start, error);
    if (g_str_has_prefix (expr, "counter.")) {
        const char *name = expr + 8;
        if (!throng_scope_valid_name (name, strlen (name)))
            return compiler_error (c, start + 8, error,
                                   "'%s' is not a counter name: a letter or '_', then letters, "
                                   "digits and '_'",
                                   name);
        guint64 *counter = g_hash_table_lookup (c->scope->plan->counters, name);
        if (counter == NULL) {
            counter = g_new0 (guint64, 1);
            g_hash_table_insert (c->scope->plan->counters, g_strdup (name), counter);
        }
        segment.kind = SEG_COUNTER;
        segment.counter = counter;
        g_array_append_val (c->segments, segment);
        return TRUE;
    }
    if (g_str_has_prefix (expr, "builtin.")) {
        const char *value = NULL;
        if (strcmp (expr, "builtin.http") == 0)
            value = c->scope->plan->builtin_http;
        else if (strcmp (expr, "builtin.https") == 0)
            value = c->scope->plan->builtin_https;
        else
            return compiler_error (c, start, error,
                                   "unknown variable ${%s}; the built-in target offers "
                                   "${builtin.http} and ${builtin.https}",
                                   expr);
        if (value == NULL)
            return compiler_error (c, start, error, "${%s} needs 'target: builtin' in the plan",
                                   expr);
        add_filtered_literal (c, filter, value, strlen (value));
        return TRUE;
    }
    if (strcmp (expr, "scenario.name") == 0) {
        add_filtered_literal (c, filter, c->scope->scenario, strlen (c->scope->scenario));
        return TRUE;
    }
    if (g_str_has_prefix (expr, "random.int(") || g_str_has_prefix (expr, "random.string(")) {
        gboolean is_int = g_str_has_prefix (expr, "random.int(");
        gsize open_paren = start + strcspn (expr, "(");
        gint64 args[2] = { 0, 0 };

        if (expr[strlen (expr) - 1] != ')')
            return compiler_error (c, end, error, "expected ')' to close %s(",
                                   is_int ? "random.int" : "random.string");
        if (!parse_arguments (c, open_paren, end - 1, is_int ? 2 : 1, args, error))
            return FALSE;
        if (is_int && args[0] > args[1])
            return compiler_error (c, open_paren + 1, error,
                                   "random.int(A, B) needs A <= B, got %" G_GINT64_FORMAT
                                   " > %" G_GINT64_FORMAT,
                                   args[0], args[1]);
        if (!is_int && (args[0] < 1 || args[0] > RANDOM_STRING_MAX))
            return compiler_error (c, open_paren + 1, error,
                                   "random.string(N) needs N between 1 and %d, got %" G_GINT64_FORMAT,
                                   RANDOM_STRING_MAX, args[0]);
        segment.kind = is_int ? SEG_RANDOM_INT : SEG_RANDOM_STRING;
        segment.a = args[0];
        segment.b = args[1];
        g_array_append_val (c->segments, segment);
        return TRUE;
    }

    static const struct {
        const char *name;
        SegmentKind kind;
    } simple[] = {
        { "user.id", SEG_USER_ID },     { "iteration", SEG_ITERATION },
        { "arrival", SEG_ARRIVAL },
        { "worker.id", SEG_WORKER_ID }, { "uuid", SEG_UUID },
        { "time.unix", SEG_TIME_UNIX }, { "time.unix_ms", SEG_TIME_UNIX_MS },
        { "time.iso", SEG_TIME_ISO },
    };
    /* Arrivals number the iterations of an open model only: a closed model has none. */
    if (strcmp (expr, "arrival") == 0 && !c->scope->open_model)
        return compiler_error (c, start, error,
                               "${arrival} numbers the arrivals of an arrival-rate scenario; "
                               "scenario '%s' has users that loop (use ${user.id} and "
                               "${iteration})",
                               c->scope->scenario);
    if (g_str_has_prefix (expr, "last.")) {
        for (guint i = 0; throng_template_last_names[i] != NULL; i++) {
            if (strcmp (expr + 5, throng_template_last_names[i]) == 0) {
                segment.kind = SEG_LAST;
                segment.a = i;
                add_named (c, &segment, expr, strlen (expr));
                return TRUE;
            }
        }
    }
    for (guint i = 0; i < G_N_ELEMENTS (simple); i++) {
        if (strcmp (expr, simple[i].name) == 0) {
            segment.kind = (guint8) simple[i].kind;
            g_array_append_val (c->segments, segment);
            return TRUE;
        }
    }
    return unknown_name (c, start, expr, error);
}

static ThrongTemplate *finish (GString *bytes, GArray *segments);

static ThrongTemplate *
compile (Compiler *c, GError **error)
{
    g_autoptr (GString) bytes = g_string_new (NULL);
    g_autoptr (GArray) segments = g_array_new (FALSE, TRUE, sizeof (Segment));
    gsize i = 0;

    c->bytes = bytes;
    c->segments = segments;
    while (i < c->length) {
        const char *dollar = memchr (c->text + i, '$', c->length - i);
        if (dollar == NULL) {
            add_literal (c, c->text + i, c->length - i);
            break;
        }
        gsize at = dollar - c->text;
        add_literal (c, c->text + i, at - i);
        if (at + 2 < c->length && c->text[at + 1] == '$' && c->text[at + 2] == '{') {
            add_literal (c, "${", 2);
            i = at + 3;
        } else if (at + 1 < c->length && c->text[at + 1] == '{') {
            const char *close = memchr (c->text + at + 2, '}', c->length - at - 2);
            if (close == NULL) {
                compiler_error (c, at, error,
                                "'${' is not closed by '}' (write '$${' for a literal '${')");
                return NULL;
            }
            if (!compile_substitution (c, at, close - c->text, error))
                return NULL;
            i = close - c->text + 1;
        } else {
            add_literal (c, "$", 1);
            i = at + 1;
        }
    }

    return finish (g_steal_pointer (&bytes), g_steal_pointer (&segments));
}

static ThrongTemplate *
finish (GString *bytes, GArray *segments)
{
    ThrongTemplate *tpl = g_new0 (ThrongTemplate, 1);
    tpl->literal = TRUE;
    for (guint s = 0; s < segments->len; s++)
        tpl->literal &= g_array_index (segments, Segment, s).kind == SEG_LITERAL;
    tpl->literal_length = tpl->literal ? bytes->len : 0;
    tpl->n_segments = segments->len;
    tpl->segments = (Segment *) g_array_free (segments, FALSE);
    tpl->text = g_string_free (bytes, FALSE);
    return tpl;
}

ThrongTemplate *
throng_template_compile_name (ThrongScope *scope, const ThrongNode *node, gsize offset,
                              gsize length, GError **error)
{
    g_return_val_if_fail (scope != NULL, NULL);
    g_return_val_if_fail (throng_node_kind (node) == THRONG_NODE_SCALAR, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    g_autoptr (GString) bytes = g_string_new (NULL);
    g_autoptr (GArray) segments = g_array_new (FALSE, TRUE, sizeof (Segment));
    Compiler c = {
        .scope = scope,
        .node = node,
        .text = throng_node_scalar (node),
        .length = strlen (throng_node_scalar (node)),
        .bytes = bytes,
        .segments = segments,
    };
    g_return_val_if_fail (offset + length <= c.length, NULL);
    if (!compile_expression (&c, offset, offset + length, THRONG_TEMPLATE_FILTER_NONE, error))
        return NULL;
    return finish (g_steal_pointer (&bytes), g_steal_pointer (&segments));
}

ThrongTemplate *
throng_template_compile (ThrongScope *scope, const ThrongNode *node, GError **error)
{
    g_return_val_if_fail (scope != NULL, NULL);
    g_return_val_if_fail (node != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    if (throng_node_kind (node) != THRONG_NODE_SCALAR) {
        g_autofree char *given = throng_node_describe (node);
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE, "expected a string, got %s",
                               given);
        return NULL;
    }
    Compiler c = {
        .scope = scope,
        .node = node,
        .text = throng_node_scalar (node),
        .length = strlen (throng_node_scalar (node)),
    };
    return compile (&c, error);
}

ThrongTemplate *
throng_template_compile_text (ThrongScope *scope, const ThrongNode *where, const char *origin,
                              const char *text, gsize length, GError **error)
{
    g_return_val_if_fail (scope != NULL, NULL);
    g_return_val_if_fail (where != NULL, NULL);
    g_return_val_if_fail (text != NULL || length == 0, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    Compiler c = {
        .scope = scope,
        .node = where,
        .origin = origin,
        .text = text != NULL ? text : "",
        .length = length,
    };
    return compile (&c, error);
}

void
throng_template_free (ThrongTemplate *tpl)
{
    if (tpl == NULL)
        return;
    g_free (tpl->segments);
    g_free (tpl->text);
    g_free (tpl);
}

const char *
throng_template_get_literal (const ThrongTemplate *tpl, gsize *length)
{
    g_return_val_if_fail (tpl != NULL, NULL);
    if (!tpl->literal)
        return NULL;
    if (length != NULL)
        *length = tpl->literal_length;
    return tpl->text;
}

/* ---- expanding -------------------------------------------------------------- */

/* Most values pass through no filter: that path stays inline. */
static inline void
append_value (GString *out, ThrongTemplateFilter filter, const char *s, gsize length)
{
    if (G_LIKELY (filter == THRONG_TEMPLATE_FILTER_NONE))
        throng_template_append_bytes (out, s, length);
    else
        throng_template_filter_append (out, filter, s, length);
}

static gsize
format_int (char *buffer, gint64 value)
{
    char digits[24];
    gsize n = 0, length = 0;
    guint64 magnitude = value < 0 ? (guint64) (-(value + 1)) + 1 : (guint64) value;

    do {
        digits[n++] = (char) ('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    if (value < 0)
        buffer[length++] = '-';
    while (n > 0)
        buffer[length++] = digits[--n];
    return length;
}

static gboolean
unset (const ThrongTemplate *tpl, const Segment *segment, GError **error)
{
    g_set_error (error, THRONG_TEMPLATE_ERROR, THRONG_TEMPLATE_ERROR_UNSET, "%.*s is not set",
                 (int) segment->length, tpl->text + segment->offset);
    return FALSE;
}

gboolean
throng_template_expand (const ThrongTemplate *tpl, ThrongUser *user, GString *out, GError **error)
{
    static const char alphabet[]
        = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    ThrongUserVars *vars;
    char buffer[MAX (64, RANDOM_STRING_MAX)];

    g_return_val_if_fail (tpl != NULL, FALSE);
    g_return_val_if_fail (out != NULL, FALSE);

    if (tpl->literal) {
        g_string_append_len (out, tpl->text, tpl->literal_length);
        return TRUE;
    }
    g_return_val_if_fail (user != NULL, FALSE);
    vars = throng_user_get_vars (user);
    for (guint i = 0; i < tpl->n_segments; i++) {
        const Segment *segment = &tpl->segments[i];
        ThrongTemplateFilter filter = (ThrongTemplateFilter) segment->filter;
        gsize length = 0;

        switch ((SegmentKind) segment->kind) {
        case SEG_LITERAL:
            throng_template_append_bytes (out, tpl->text + segment->offset, segment->length);
            continue;
        case SEG_VAR: {
            const ThrongVarSlot *slot = segment->a < vars->n_vars ? &vars->vars[segment->a] : NULL;
            if (slot == NULL || !slot->set)
                return unset (tpl, segment, error);
            append_value (out, filter, slot->value, slot->length);
            continue;
        }
        case SEG_SETUP: {
            const char *value = segment->a < segment->setup->len
                                    ? g_ptr_array_index (segment->setup, segment->a)
                                    : NULL;
            if (value == NULL)
                return unset (tpl, segment, error);
            append_value (out, filter, value, strlen (value));
            continue;
        }
        case SEG_DATA: {
            if (vars->data == NULL || vars->rows[segment->b] < 0)
                return unset (tpl, segment, error);
            const char *cell = throng_dataset_cell (vars->data->sets[segment->b],
                                                    (guint) vars->rows[segment->b],
                                                    (guint) segment->a, &length);
            append_value (out, filter, cell, length);
            continue;
        }
        case SEG_USER_ID:
            length = format_int (buffer, (gint64) vars->run_id);
            break;
        case SEG_ITERATION:
            length = format_int (buffer, (gint64) user->iteration + 1);
            break;
        case SEG_ARRIVAL:
            length = format_int (buffer, (gint64) vars->arrival);
            break;
        case SEG_WORKER_ID:
            length = format_int (buffer, vars->worker_id);
            break;
        case SEG_RANDOM_INT:
            length = format_int (buffer, g_rand_int_range (vars->rand, (gint32) segment->a,
                                                           (gint32) (segment->b + 1)));
            break;
        case SEG_RANDOM_STRING:
            for (gint64 n = 0; n < segment->a; n++)
                buffer[n] = alphabet[g_rand_int_range (vars->rand, 0, sizeof alphabet - 1)];
            length = (gsize) segment->a;
            break;
        case SEG_UUID:
            length = throng_template_format_uuid (buffer, vars->rand);
            break;
        case SEG_TIME_UNIX:
            length = format_int (buffer, g_get_real_time () / G_USEC_PER_SEC);
            break;
        case SEG_TIME_UNIX_MS:
            length = format_int (buffer, g_get_real_time () / 1000);
            break;
        case SEG_TIME_ISO:
            length = throng_template_format_iso (buffer, sizeof buffer);
            break;
        case SEG_LAST: {
            gssize n = throng_template_format_last (vars, (ThrongLastValue) segment->a, buffer,
                                                    sizeof buffer);

            if (n < 0)
                return unset (tpl, segment, error); /* no request yet, or no answer came */
            length = (gsize) n;
            break;
        }
        case SEG_COUNTER: {
            guint64 n = __atomic_add_fetch (segment->counter, 1, __ATOMIC_RELAXED);
            /* Interleaved over the shards of a run (shard.h): never the same value twice. */
            if (user->worker != NULL && user->worker->setup.plan != NULL)
                n = throng_shard_interleave (&user->worker->setup.plan->shard, n - 1) + 1;
            length = format_int (buffer, (gint64) n);
            break;
        }
        }
        append_value (out, filter, buffer, length);
    }
    return TRUE;
}
