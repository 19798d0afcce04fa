/* SPDX-License-Identifier: MIT */
/*
 * What templates, scopes and per-user variables share inside the core
 * (template.c compiles and expands, scope.c keeps a scenario's names,
 * vars.c stores a user's values).  Never installed.
 */
#pragma once

#include <throng/throng.h>

#include "dataset-private.h"
#include "node-private.h"

/*
 * What every scenario's templates share: the environment as the plan
 * read it (each name read once, `-e NAME=VALUE` first) and the run-wide
 * `counter.NAME`s.  Owned by the plan.
 */
typedef struct _ThrongPlanVars {
    GHashTable *overrides;      /* name → value, from -e/--env */
    GHashTable *env;            /* name → value or NULL (unset), as first read */
    GHashTable *counters;       /* name → guint64* (atomic) */
    char *builtin_http;         /* ${builtin.http} when `target: builtin`, else NULL */
    char *builtin_https;
    /* `setup:` (phase.c): its scope once it has loaded, for ${setup.NAME} to
     * name-check against; its user's values by slot once it has run. */
    gboolean setup_loading;     /* setup's own steps are being read */
    ThrongScope *setup_scope;   /* borrowed from plan->setup; NULL: no setup (yet) */
    GPtrArray *setup_values;    /* char* per setup slot, NULL: unset; never NULL */
    gboolean teardown_loading;  /* teardown's steps are being read: its reads run on shard 0 only */
    gboolean setup_read;        /* some scenario's template reads ${setup.*} */
} ThrongPlanVars;

ThrongPlanVars *throng_plan_vars_new (const char *const *env_overrides);
void throng_plan_vars_free (ThrongPlanVars *vars);
/*
 * The value of the environment variable @name as the plan sees it: the
 * `-e` override, else the process environment, read once.  NULL when
 * unset.
 */
const char *throng_plan_vars_env (ThrongPlanVars *vars, const char *name);

/*
 * The setup slot that `${@expr}` (`setup.NAME`) reads, marking the plan as
 * reading setup; -1 with *@message (transfer full) when setup does not
 * assign NAME, the plan has none, or setup itself is being read.
 */
gint throng_plan_vars_setup_slot (ThrongPlanVars *vars, const char *expr, char **message);

/* template-values.c: a version 4 UUID from @rand, 36 bytes into @buffer; its length. */
gsize throng_template_format_uuid (char *buffer, GRand *rand);
/* The time now, "YYYY-MM-DDTHH:MM:SS.mmmZ", into @buffer of @size bytes; its length. */
gsize throng_template_format_iso (char *buffer, gsize size);

/* A variable read whose declaration is checked when the scenario has loaded. */
typedef struct {
    char *name;                 /* without `vars.` */
    char *where;                /* "file:line:column" of the read */
} ThrongScopeRead;

struct _ThrongScope {
    char *scenario;             /* the scenario's name */
    ThrongPlanVars *plan;       /* the plan's, borrowed */
    const ThrongData *data;     /* the scenario's data sets, or NULL */
    GPtrArray *vars;            /* char*: the name of each slot, read or declared */
    GArray *declared;           /* gboolean per slot: something assigns it */
    GArray *reads;              /* ThrongScopeRead */
    GPtrArray *checks;          /* char*: the name of each check */
    gboolean open_model;        /* an arrival-rate scenario: `${arrival}` has a value */
};

ThrongScope *throng_scope_new (const char *scenario, ThrongPlanVars *plan,
                               const ThrongData *data);
void throng_scope_free (ThrongScope *scope);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongScope, throng_scope_free)
/*
 * The slot of `vars.@name` for a template that reads it, taken now even
 * if nothing declared the name yet; @where (transfer full) is the read's
 * "file:line:column", for throng_scope_finish().
 */
gint throng_scope_read_var (ThrongScope *scope, const char *name, char *where);
/*
 * One name, as between `${` and `}`, @length bytes at @offset of @node's
 * scalar (a condition's operand): checked as a template's, with errors at
 * its character.  Expands as `${NAME}` would.
 */
ThrongTemplate *throng_template_compile_name (ThrongScope *scope, const ThrongNode *node,
                                              gsize offset, gsize length, GError **error);
/* Whether @name is a valid variable (or counter) name: a letter or '_', then letters, digits, '_'. */
gboolean throng_scope_valid_name (const char *name, gsize length);
/*
 * Once the scenario has loaded: every variable read has a declaration, or
 * a located error at the first read that has none.
 */
gboolean throng_scope_finish (ThrongScope *scope, GError **error);
static inline guint
throng_scope_n_vars (const ThrongScope *scope)
{
    return scope->vars->len;
}
static inline guint
throng_scope_n_checks (const ThrongScope *scope)
{
    return scope->checks->len;
}

/* One variable of a user: its value, kept across iterations, storage reused. */
typedef struct {
    char *value;                /* NUL-terminated; NULL until first set */
    guint32 length;
    guint32 capacity;
    gboolean set;
} ThrongVarSlot;

/*
 * What a template reads of a user besides its iteration: its variables,
 * its data row, its run-wide id, its worker.  Embedded in ThrongUser.
 */
typedef struct {
    ThrongVarSlot *vars;        /* throng_scope_n_vars() of the scenario */
    guint n_vars;
    const ThrongData *data;     /* the scenario's data sets, or NULL */
    gint32 rows[THRONG_DATA_MAX_SETS]; /* the user's current row of each set, -1: none yet */
    guint64 run_id;             /* user.id: unique in the run, from 1 */
    guint64 arrival;            /* arrival: the iteration's arrival k + 1 in the unsharded
                                 * schedule (open model); 0 in a closed model */
    guint worker_id;
    GRand *rand;                /* the worker's */
    GString *scratch;           /* the worker's, for `set` and a condition's left operand */
    GString *operand;           /* the worker's, for a condition's right operand */
    gint32 last_status;         /* the iteration's last response's status (a condition's
                                 * last.status); 0 before one, or when it had none */
    /* The iteration's last request's figures (`${last.duration_ms}` ...), -1 before one. */
    gint64 last_elapsed_us;
    gint64 last_latency_us;     /* 0: no byte of a response came */
    gint64 last_connect_us;
    gint64 last_tls_us;
} ThrongUserVars;

/* template-names.c: `last.`'s names, in ThrongLastValue's order, NULL-terminated. */
extern const char *const throng_template_last_names[];
/* Why @expr is not a name a template reads, with the name it may have meant; (transfer full). */
char *throng_template_unknown_name (const char *expr);

/* What `${last.NAME}` reads of the iteration's last request. */
typedef enum {
    THRONG_LAST_STATUS,
    THRONG_LAST_DURATION_MS,
    THRONG_LAST_TTFB_MS,
    THRONG_LAST_CONNECT_MS,
    THRONG_LAST_TLS_MS,
} ThrongLastValue;

/*
 * template-values.c: @which of the iteration's last request into @buffer
 * (a status, 0 before one; or milliseconds with three decimals); its
 * length, or -1 when there is none (no request yet, or no byte of an
 * answer for the ttfb).
 */
gssize throng_template_format_last (const ThrongUserVars *vars, ThrongLastValue which,
                                    char *buffer, gsize size);

void throng_user_vars_init (ThrongUserVars *vars, guint n_vars);
void throng_user_vars_clear (ThrongUserVars *vars);

/*
 * The element at *@offset of @list (a JSON array's text, @length bytes)
 * into @out (truncated first): a string unescaped, anything else its JSON
 * text.  *@offset moves past it; 0 starts at the '['.  FALSE at the end
 * of the array, or where the text is not one.  Allocates nothing beyond
 * @out's growth.
 */
gboolean throng_list_next (const char *list, gsize length, gsize *offset, GString *out);

/* Unsets a variable (a `set` whose template could not expand); keeps its storage. */
void throng_user_unset_var (ThrongUser *user, gint slot);

/* The user's variables (every ThrongUser has them); defined in vars.c. */
ThrongUserVars *throng_user_get_vars (ThrongUser *user);
