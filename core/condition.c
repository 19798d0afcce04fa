/* SPDX-License-Identifier: MIT */
/*
 * Conditions (`if`, `while`): a recursive-descent parser over the scalar
 * as the plan wrote it, so that every error points at its character, and
 * a flat array of nodes the evaluator walks.  Operands are the names a
 * template reads (compiled by template.c, so a misspelt `vars.x` fails
 * the load the same way), `last.status`, numbers and strings; the only
 * state evaluation touches is the worker's two scratch buffers, so a
 * condition costs no allocation.  The language is in docs/journeys.md.
 */
#include "condition-private.h"

#include <math.h>
#include <string.h>

#include "user-private.h"

/* Bounds (docs/plan-reference.md). */
#define MAX_DEPTH 32

typedef enum { N_OR, N_AND, N_NOT, N_COMPARE, N_MATCH, N_EXISTS, N_CONST } NodeKind;
typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } Compare;
typedef enum { OPERAND_TEMPLATE, OPERAND_LITERAL, OPERAND_STATUS } OperandKind;

typedef struct {
    OperandKind kind;
    ThrongTemplate *tpl; /* template: the name's */
    char *text;          /* literal: its text */
    gsize length;
    gboolean is_number; /* literal: it reads as a number */
    gdouble number;
} Operand;

typedef struct {
    NodeKind kind;
    Compare compare;
    guint left, right; /* or, and: both; not: left */
    Operand a, b;      /* compare: both; match: a */
    GRegex *regex;     /* match */
    gint slot;         /* exists: the variable */
    gboolean value;    /* const */
} Node;

struct _ThrongCondition {
    Node *nodes;
    guint n_nodes;
    guint root;
};

/* ---- compiling -------------------------------------------------------------- */

typedef enum {
    T_END,
    T_LPAREN,
    T_RPAREN,
    T_COMPARE,
    T_NUMBER,
    T_STRING,
    T_NAME,
} TokenKind;

typedef struct {
    TokenKind kind;
    gsize start, end; /* its bytes in the text */
    Compare compare;
} Token;

typedef struct {
    ThrongScope *scope;
    const ThrongNode *node;
    const char *text;
    gsize length;
    gsize pos;   /* after the current token */
    Token token; /* the current token */
    GArray *nodes;
    guint depth;
} Parser;

static gboolean fail (Parser *p, gsize offset, GError **error, const char *format, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
fail (Parser *p, gsize offset, GError **error, const char *format, ...)
{
    va_list args;
    g_autofree char *message = NULL;

    va_start (args, format);
    message = g_strdup_vprintf (format, args);
    va_end (args);
    throng_node_set_error_at (p->node, offset, error, THRONG_PLAN_ERROR_INVALID, "%s", message);
    return FALSE;
}

static gboolean
name_char (char c, gboolean first)
{
    return g_ascii_isalpha (c) || c == '_' || (!first && (g_ascii_isdigit (c) || c == '.'));
}

/* The token at p->pos, into p->token. */
static gboolean
next (Parser *p, GError **error)
{
    const char *s = p->text;
    gsize i = p->pos;

    while (i < p->length && g_ascii_isspace (s[i]))
        i++;
    p->token.start = i;
    if (i >= p->length) {
        p->token.kind = T_END;
        p->token.end = p->pos = i;
        return TRUE;
    }
    char c = s[i];
    char d = i + 1 < p->length ? s[i + 1] : '\0';
    if (c == '(' || c == ')') {
        p->token.kind = c == '(' ? T_LPAREN : T_RPAREN;
        i++;
    } else if (c == '=' || c == '!' || c == '<' || c == '>') {
        if (c == '=' && d != '=')
            return fail (p, i, error, "'=' compares nothing: write '=='");
        if (c == '!' && d != '=')
            return fail (p, i, error, "write 'not' for '!'");
        p->token.kind = T_COMPARE;
        p->token.compare = c == '='   ? CMP_EQ
                           : c == '!' ? CMP_NE
                           : c == '<' ? (d == '=' ? CMP_LE : CMP_LT)
                                      : (d == '=' ? CMP_GE : CMP_GT);
        i += (d == '=') ? 2 : 1;
    } else if (c == '&' || c == '|') {
        return fail (p, i, error, "write '%s' for '%c%c'", c == '&' ? "and" : "or", c, c);
    } else if (c == '"' || c == '\'') {
        for (i++; i < p->length && s[i] != c; i++) {
            if (s[i] == '\\' && i + 1 < p->length)
                i++;
            else if (s[i] == '$' && i + 1 < p->length && s[i + 1] == '{')
                return fail (p, i, error,
                             "'${' in a condition: a string here is literal; compare with the "
                             "name itself, as vars.a == data.b");
        }
        if (i >= p->length)
            return fail (p, p->token.start, error, "this string is not closed by %c", c);
        p->token.kind = T_STRING;
        i++;
    } else if (g_ascii_isdigit (c) || (c == '-' && g_ascii_isdigit (d))) {
        for (i++; i < p->length && (g_ascii_isdigit (s[i]) || s[i] == '.'); i++)
            ;
        if (i < p->length && name_char (s[i], TRUE))
            return fail (p, p->token.start, error, "'%.*s' is not a number",
                         (int) (strcspn (s + p->token.start, " ()")), s + p->token.start);
        p->token.kind = T_NUMBER;
    } else if (name_char (c, TRUE)) {
        for (i++; i < p->length && name_char (s[i], FALSE); i++)
            ;
        p->token.kind = T_NAME;
    } else {
        return fail (p, i, error, "unexpected '%c' in a condition", c);
    }
    p->token.end = p->pos = i;
    return TRUE;
}

static gboolean
is_word (const Parser *p, const char *word)
{
    gsize length = strlen (word);

    return p->token.kind == T_NAME && p->token.end - p->token.start == length
           && memcmp (p->text + p->token.start, word, length) == 0;
}

static guint
add_node (Parser *p, const Node *node)
{
    g_array_append_vals (p->nodes, node, 1);
    return p->nodes->len - 1;
}

static void
operand_clear (Operand *operand)
{
    throng_template_free (operand->tpl);
    g_free (operand->text);
}

static void
node_clear (Node *node)
{
    operand_clear (&node->a);
    operand_clear (&node->b);
    g_clear_pointer (&node->regex, g_regex_unref);
}

static gboolean
read_number (const char *text, gsize length, gdouble *out)
{
    char *end;

    /* Decimal only: strtod's "0x10" and "-nan" would make 16 of text and NaN equal to anything. */
    if (length == 0
        || !(g_ascii_isdigit (text[0]) || text[0] == '-' || text[0] == '+' || text[0] == '.')
        || memchr (text, 'x', length) != NULL || memchr (text, 'X', length) != NULL)
        return FALSE;
    *out = g_ascii_strtod (text, &end);
    return end == text + length && isfinite (*out);
}

static const char *const keywords[]
    = { "and", "or", "not", "matches", "exists", "true", "false", NULL };

/* A number, a string or a name, into @out (which owns what it holds even on failure). */
static gboolean
parse_operand (Parser *p, Operand *out, GError **error)
{
    const Token t = p->token;
    const char *s = p->text + t.start;
    gsize length = t.end - t.start;

    switch (t.kind) {
    case T_NUMBER:
        out->kind = OPERAND_LITERAL;
        out->text = g_strndup (s, length);
        out->length = length;
        if (!read_number (out->text, length, &out->number))
            return fail (p, t.start, error, "'%s' is not a number", out->text);
        out->is_number = TRUE;
        break;
    case T_STRING: {
        GString *text = g_string_new (NULL);
        for (gsize i = 1; i + 1 < length; i++) {
            if (s[i] == '\\')
                i++;
            g_string_append_c (text, s[i]);
        }
        out->kind = OPERAND_LITERAL;
        out->length = text->len;
        out->text = g_string_free (text, FALSE);
        /* values are text: "10" and 10 are one value, as in a URL or a JSON field */
        out->is_number = read_number (out->text, out->length, &out->number);
        break;
    }
    case T_NAME:
        for (guint k = 0; keywords[k] != NULL; k++)
            if (is_word (p, keywords[k]))
                return fail (p, t.start, error, "expected a value before '%s'", keywords[k]);
        if (length == strlen ("last.status") && memcmp (s, "last.status", length) == 0) {
            out->kind = OPERAND_STATUS;
            break;
        }
        if (length > 8 && memcmp (s, "counter.", 8) == 0)
            return fail (p, t.start, error,
                         "'%.*s' counts up each time it is read: a condition cannot read it "
                         "(set: a variable from it first)",
                         (int) length, s);
        out->kind = OPERAND_TEMPLATE;
        out->tpl = throng_template_compile_name (p->scope, p->node, t.start, length, error);
        if (out->tpl == NULL)
            return FALSE;
        break;
    case T_END:
        return fail (p, t.start, error, "the condition ends where a value was expected");
    default:
        return fail (p, t.start, error,
                     "expected a value (a name such as vars.x, a number or "
                     "a string) at '%c'",
                     p->text[t.start]);
    }
    return next (p, error);
}

static gboolean parse_or (Parser *p, guint *out, GError **error);

/* A regex literal, /.../, right after `matches`. */
static gboolean
parse_regex (Parser *p, Node *node, GError **error)
{
    gsize i = p->token.start;
    g_autoptr (GString) pattern = g_string_new (NULL);
    g_autoptr (GError) local = NULL;

    if (i >= p->length || p->text[i] != '/')
        return fail (p, i, error, "'matches' takes a regex between slashes, as /^2\\d\\d$/");
    for (i++; i < p->length && p->text[i] != '/'; i++) {
        if (p->text[i] == '\\' && i + 1 < p->length && p->text[i + 1] == '/')
            i++;
        g_string_append_c (pattern, p->text[i]);
    }
    if (i >= p->length)
        return fail (p, p->token.start, error, "this regex is not closed by /");
    node->regex = g_regex_new (pattern->str, G_REGEX_OPTIMIZE, 0, &local);
    if (node->regex == NULL) {
        /* worded as the http plugin's regexes are (GRegex: "… at char N: why") */
        const char *at = strstr (local->message, " at char ");
        if (at != NULL)
            return fail (p, p->token.start + 1, error, "invalid regex '%s' at character %s",
                         pattern->str, at + strlen (" at char "));
        return fail (p, p->token.start + 1, error, "invalid regex '%s': %s", pattern->str,
                     local->message);
    }
    p->pos = i + 1;
    return next (p, error);
}

/* `( … )`, `exists(NAME)`, `true`, `false`, or a comparison or match. */
static gboolean
parse_primary (Parser *p, guint *out, GError **error)
{
    Node node = { 0 };
    gboolean ok;

    if (p->token.kind == T_LPAREN) {
        gsize open = p->token.start;
        if (!next (p, error) || !parse_or (p, out, error))
            return FALSE;
        if (p->token.kind != T_RPAREN)
            return fail (p, open, error, "this '(' is not closed by ')'");
        return next (p, error);
    }
    if (is_word (p, "true") || is_word (p, "false")) {
        node.kind = N_CONST;
        node.value = is_word (p, "true");
        *out = add_node (p, &node);
        return next (p, error);
    }
    if (is_word (p, "exists")) {
        gsize at = p->token.start;
        if (!next (p, error))
            return FALSE;
        if (p->token.kind != T_LPAREN)
            return fail (p, p->token.start, error,
                         "exists takes a variable, as exists(vars.token)");
        if (!next (p, error))
            return FALSE;
        gsize length = p->token.end - p->token.start;
        const char *name = p->text + p->token.start;
        if (p->token.kind != T_NAME || length <= 5 || memcmp (name, "vars.", 5) != 0)
            return fail (p, p->token.start, error,
                         "exists takes a variable, as exists(vars.token)");
        g_autofree char *bare = g_strndup (name + 5, length - 5);
        if (!throng_scope_valid_name (bare, strlen (bare)))
            return fail (p, p->token.start + 5, error,
                         "'%s' is not a variable name: a letter or '_', then letters, digits "
                         "and '_'",
                         bare);
        node.kind = N_EXISTS;
        node.slot = throng_scope_read_var (
            p->scope, bare,
            throng_locate_in_text (throng_node_file (p->node), throng_node_line (p->node),
                                   throng_node_column (p->node), p->node->style, p->text,
                                   p->token.start));
        if (!next (p, error))
            return FALSE;
        if (p->token.kind != T_RPAREN)
            return fail (p, at, error, "exists( is not closed by ')'");
        *out = add_node (p, &node);
        return next (p, error);
    }

    gsize at = p->token.start, at_end = p->token.end;
    ok = parse_operand (p, &node.a, error);
    if (ok && p->token.kind == T_COMPARE) {
        node.kind = N_COMPARE;
        node.compare = p->token.compare;
        ok = next (p, error) && parse_operand (p, &node.b, error);
    } else if (ok && is_word (p, "matches")) {
        node.kind = N_MATCH;
        p->pos = p->token.end;
        while (p->pos < p->length && g_ascii_isspace (p->text[p->pos]))
            p->pos++;
        p->token.start = p->pos;
        ok = parse_regex (p, &node, error);
    } else if (ok) {
        ok = fail (p, at, error,
                   "a condition compares: write '%.*s == VALUE' (or !=, <, <=, >, >=, matches "
                   "/REGEX/)",
                   (int) (at_end - at), p->text + at);
    }
    if (!ok) {
        node_clear (&node);
        return FALSE;
    }
    *out = add_node (p, &node);
    return TRUE;
}

static gboolean
parse_not (Parser *p, guint *out, GError **error)
{
    if (!is_word (p, "not"))
        return parse_primary (p, out, error);
    if (++p->depth > MAX_DEPTH)
        return fail (p, p->token.start, error, "the condition nests more than %d levels deep",
                     MAX_DEPTH);
    Node node = { .kind = N_NOT };
    if (!next (p, error) || !parse_not (p, &node.left, error))
        return FALSE;
    p->depth--;
    *out = add_node (p, &node);
    return TRUE;
}

/* `A and B and …` (@word "and", @kind N_AND) or `A or B …` */
static gboolean
parse_chain (Parser *p, const char *word, NodeKind kind, guint *out, GError **error)
{
    guint left;

    if (kind == N_AND ? !parse_not (p, &left, error) : !parse_chain (p, "and", N_AND, &left, error))
        return FALSE;
    while (is_word (p, word)) {
        Node node = { .kind = kind, .left = left };
        if (!next (p, error))
            return FALSE;
        if (kind == N_AND ? !parse_not (p, &node.right, error)
                          : !parse_chain (p, "and", N_AND, &node.right, error))
            return FALSE;
        left = add_node (p, &node);
    }
    *out = left;
    return TRUE;
}

static gboolean
parse_or (Parser *p, guint *out, GError **error)
{
    if (++p->depth > MAX_DEPTH)
        return fail (p, p->token.start, error, "the condition nests more than %d levels deep",
                     MAX_DEPTH);
    if (!parse_chain (p, "or", N_OR, out, error))
        return FALSE;
    p->depth--;
    return TRUE;
}

void
throng_condition_free (ThrongCondition *condition)
{
    if (condition == NULL)
        return;
    for (guint i = 0; i < condition->n_nodes; i++)
        node_clear (&condition->nodes[i]);
    g_free (condition->nodes);
    g_free (condition);
}

static void
free_nodes (GArray *nodes)
{
    for (guint i = 0; i < nodes->len; i++)
        node_clear (&g_array_index (nodes, Node, i));
    g_array_free (nodes, TRUE);
}

ThrongCondition *
throng_condition_compile (ThrongScope *scope, const ThrongNode *node, GError **error)
{
    guint root = 0;

    g_return_val_if_fail (scope != NULL && node != NULL, NULL);
    if (throng_node_kind (node) != THRONG_NODE_SCALAR || throng_node_scalar (node)[0] == '\0') {
        g_autofree char *given = throng_node_describe (node);
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE,
                               "expected a condition, such as 'vars.role == \"admin\"', got %s",
                               given);
        return NULL;
    }
    Parser p = {
        .scope = scope,
        .node = node,
        .text = throng_node_scalar (node),
        .length = strlen (throng_node_scalar (node)),
        .nodes = g_array_new (FALSE, TRUE, sizeof (Node)),
    };
    if (!next (&p, error) || !parse_or (&p, &root, error)) {
        free_nodes (p.nodes);
        return NULL;
    }
    if (p.token.kind != T_END) {
        if (p.token.kind == T_RPAREN)
            fail (&p, p.token.start, error, "this ')' closes no '('");
        else
            fail (&p, p.token.start, error, "expected 'and', 'or' or the end of the condition");
        free_nodes (p.nodes);
        return NULL;
    }
    ThrongCondition *condition = g_new0 (ThrongCondition, 1);
    condition->root = root;
    condition->n_nodes = p.nodes->len;
    condition->nodes = (Node *) (gpointer) g_array_free (p.nodes, FALSE);
    return condition;
}

/* ---- evaluating ------------------------------------------------------------- */

typedef struct {
    const char *text;
    gsize length;
    gboolean is_number;
    gdouble number;
} Value;

/* @operand's value now, expanded into @buffer if it must be; FALSE when it is unset. */
static gboolean
operand_value (const Operand *operand, ThrongUser *user, GString *buffer, Value *out)
{
    ThrongUserVars *vars = throng_user_get_vars (user);

    switch (operand->kind) {
    case OPERAND_LITERAL:
        out->text = operand->text;
        out->length = operand->length;
        out->is_number = operand->is_number;
        out->number = operand->number;
        return TRUE;
    case OPERAND_STATUS: {
        char digits[16];
        gint n = g_snprintf (digits, sizeof digits, "%d", (int) vars->last_status);
        g_string_truncate (buffer, 0);
        g_string_append_len (buffer, digits, n);
        break;
    }
    case OPERAND_TEMPLATE:
        g_string_truncate (buffer, 0);
        /* no GError: an unset variable is an answer here, not a failure to report */
        if (!throng_template_expand (operand->tpl, user, buffer, NULL))
            return FALSE;
        break;
    }
    out->text = buffer->str;
    out->length = buffer->len;
    out->is_number = read_number (buffer->str, buffer->len, &out->number);
    return TRUE;
}

/* Numbers compare as numbers when both sides read as one, anything else byte by byte. */
static gboolean
compare (Compare op, const Value *a, const Value *b)
{
    gint order;

    if (a->is_number && b->is_number) {
        order = a->number < b->number ? -1 : a->number > b->number ? 1 : 0;
    } else {
        order = memcmp (a->text, b->text, MIN (a->length, b->length));
        if (order == 0)
            order = a->length < b->length ? -1 : a->length > b->length ? 1 : 0;
    }
    switch (op) {
    case CMP_EQ:
        return order == 0;
    case CMP_NE:
        return order != 0;
    case CMP_LT:
        return order < 0;
    case CMP_LE:
        return order <= 0;
    case CMP_GT:
        return order > 0;
    case CMP_GE:
        return order >= 0;
    }
    return FALSE;
}

static gboolean
eval (const ThrongCondition *condition, guint index, ThrongUser *user)
{
    const Node *node = &condition->nodes[index];
    ThrongUserVars *vars = throng_user_get_vars (user);
    Value a, b;

    switch (node->kind) {
    case N_OR:
        return eval (condition, node->left, user) || eval (condition, node->right, user);
    case N_AND:
        return eval (condition, node->left, user) && eval (condition, node->right, user);
    case N_NOT:
        return !eval (condition, node->left, user);
    case N_CONST:
        return node->value;
    case N_EXISTS:
        return node->slot >= 0 && (guint) node->slot < vars->n_vars && vars->vars[node->slot].set;
    case N_MATCH:
        return operand_value (&node->a, user, vars->scratch, &a)
               && g_regex_match_full (node->regex, a.text, (gssize) a.length, 0, 0, NULL, NULL);
    case N_COMPARE:
        return operand_value (&node->a, user, vars->scratch, &a)
               && operand_value (&node->b, user, vars->operand, &b)
               && compare (node->compare, &a, &b);
    }
    return FALSE;
}

gboolean
throng_condition_eval (const ThrongCondition *condition, ThrongUser *user)
{
    g_return_val_if_fail (condition != NULL && user != NULL, FALSE);
    return eval (condition, condition->root, user);
}
