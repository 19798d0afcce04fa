/* SPDX-License-Identifier: MIT */
/*
 * The partition rules of `--shard I/N` and what a shard states about
 * itself so that `throng merge` can trust the union: the plan's
 * normalised hash, the clock its start instant was read from, and the
 * `--start-at` instant it waited for.
 */
#include "shard.h"

#include "dataset-private.h"
#include "plan.h"
#include "schedule.h"

#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

static gboolean
parse_count (const char *text, guint64 min, guint64 max, guint64 *out)
{
    char *end = NULL;

    if (text == NULL || !g_ascii_isdigit (text[0]))
        return FALSE;
    guint64 value = g_ascii_strtoull (text, &end, 10);
    if (end == NULL || *end != '\0' || value < min || value > max)
        return FALSE;
    *out = value;
    return TRUE;
}

gboolean
throng_shard_parse (const char *text, const char *origin, ThrongShard *out, GError **error)
{
    const char *slash = text != NULL ? strchr (text, '/') : NULL;
    guint64 index, count;

    if (slash == NULL
        || !parse_count (slash + 1, 1, THRONG_SHARD_MAX, &count)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s %s: expected I/N (shard I of N, 0 ≤ I < N ≤ %d) or k8s/N", origin,
                     text != NULL ? text : "", THRONG_SHARD_MAX);
        return FALSE;
    }
    g_autofree char *first = g_strndup (text, (gsize) (slash - text));
    if (strcmp (first, "k8s") == 0) {
        const char *env = g_getenv ("JOB_COMPLETION_INDEX");
        if (env == NULL || !parse_count (env, 0, count - 1, &index)) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "%s %s: JOB_COMPLETION_INDEX is %s%s%s; k8s/N needs the index "
                         "Kubernetes sets in an Indexed Job (completionMode: Indexed), "
                         "0 to %" G_GUINT64_FORMAT,
                         origin, text, env != NULL ? "'" : "not set", env != NULL ? env : "",
                         env != NULL ? "'" : "", count - 1);
            return FALSE;
        }
    } else if (!parse_count (first, 0, G_MAXUINT, &index)) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s %s: expected I/N (shard I of N, 0 ≤ I < N ≤ %d) or k8s/N", origin,
                     text, THRONG_SHARD_MAX);
        return FALSE;
    } else if (index >= count) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "%s %s: the index must be below N (shards are numbered 0 to %"
                     G_GUINT64_FORMAT ")", origin, text, count - 1);
        return FALSE;
    }
    out->index = (guint) index;
    out->count = (guint) count;
    return TRUE;
}

guint
throng_shard_count (const ThrongShard *shard)
{
    return shard->count > 0 ? shard->count : 1;
}

gboolean
throng_shard_is_split (const ThrongShard *shard)
{
    return shard->count > 1;
}

void
throng_shard_get (const ThrongShard *shard, guint *index, guint *count)
{
    *count = throng_shard_count (shard);
    *index = *count > 1 ? shard->index : 0;
}

guint
throng_shard_users (const ThrongShard *shard, guint total)
{
    guint index, count;

    throng_shard_get (shard, &index, &count);
    if (total <= index)
        return 0;
    return (total - index + count - 1) / count;
}

guint
throng_shard_global_user (const ThrongShard *shard, guint local)
{
    guint index, count;

    throng_shard_get (shard, &index, &count);
    return local * count + index;
}

guint64
throng_shard_interleave (const ThrongShard *shard, guint64 local)
{
    guint index, count;

    throng_shard_get (shard, &index, &count);
    return local * count + index;
}

gboolean
throng_plan_set_shard (ThrongPlan *plan, const ThrongShard *shard, GError **error)
{
    guint count = throng_shard_count (shard);

    /* An open-model pool split N ways needs a user on every shard: a shard
     * without one would drop every arrival dealt to it. */
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        if (throng_schedule_is_open (scenario) && scenario->users < count) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "--shard %u/%u: scenario %s has max_users %u, fewer than the %u "
                         "shards; each shard needs at least one user of its pool",
                         shard->index, count, scenario->name, scenario->users, count);
            return FALSE;
        }
    }
    plan->shard = *shard;
    /* `mode: unique` data sets: this shard's rows only, r mod N == I. */
    for (guint s = 0; s < plan->scenarios->len; s++) {
        const ThrongPlanScenario *scenario = g_ptr_array_index (plan->scenarios, s);
        guint index, n;
        throng_shard_get (shard, &index, &n);
        for (guint d = 0; scenario->data != NULL && d < scenario->data->n_sets; d++) {
            if (scenario->data->sets[d]->mode == THRONG_DATA_UNIQUE)
                throng_dataset_set_slice (scenario->data->sets[d], index, n);
        }
    }
    return TRUE;
}

/* --- the plan's normalised hash ---------------------------------------------------------- */

static void
hash_text (GChecksum *checksum, const char *text)
{
    gsize length = text != NULL ? strlen (text) : 0;
    char prefix[32];

    /* Length-prefixed, so that no two trees serialise alike. */
    g_snprintf (prefix, sizeof prefix, "%" G_GSIZE_FORMAT ":", length);
    g_checksum_update (checksum, (const guchar *) prefix, -1);
    if (length > 0)
        g_checksum_update (checksum, (const guchar *) text, (gssize) length);
}

static void
hash_node (GChecksum *checksum, const ThrongNode *node)
{
    switch (node->kind) {
    case THRONG_NODE_SCALAR:
        g_checksum_update (checksum, (const guchar *) (node->plain ? "p" : "q"), 1);
        hash_text (checksum, node->text);
        break;
    case THRONG_NODE_MAP:
        g_checksum_update (checksum, (const guchar *) "{", 1);
        for (guint i = 0; i < node->items->len; i++) {
            hash_node (checksum, g_ptr_array_index (node->keys, i));
            hash_node (checksum, g_ptr_array_index (node->items, i));
        }
        g_checksum_update (checksum, (const guchar *) "}", 1);
        break;
    case THRONG_NODE_SEQUENCE:
        g_checksum_update (checksum, (const guchar *) "[", 1);
        for (guint i = 0; i < node->items->len; i++)
            hash_node (checksum, g_ptr_array_index (node->items, i));
        g_checksum_update (checksum, (const guchar *) "]", 1);
        break;
    default:
        g_checksum_update (checksum, (const guchar *) "~", 1);
        break;
    }
}

char *
throng_shard_plan_hash (const ThrongNode *root)
{
    g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

    if (root == NULL || root->kind != THRONG_NODE_MAP) {
        if (root != NULL)
            hash_node (checksum, root);
        return g_strdup (g_checksum_get_string (checksum));
    }
    /* Where each shard writes its results (`reporters`) is not the load:
     * shards may differ there, e.g. by `--set reporters.0.json.path=…`. */
    g_checksum_update (checksum, (const guchar *) "{", 1);
    for (guint i = 0; i < root->items->len; i++) {
        const ThrongNode *key = g_ptr_array_index (root->keys, i);
        if (g_strcmp0 (key->text, "reporters") == 0)
            continue;
        hash_node (checksum, key);
        hash_node (checksum, g_ptr_array_index (root->items, i));
    }
    g_checksum_update (checksum, (const guchar *) "}", 1);
    return g_strdup (g_checksum_get_string (checksum));
}

char *
throng_shard_clock_source (void)
{
    struct timex tx = { 0 };
    int state = adjtimex (&tx);

    if (state == -1 || state == TIME_ERROR)
        return g_strdup ("CLOCK_REALTIME (not synchronized)");
    return g_strdup_printf ("CLOCK_REALTIME (NTP synchronized, max error %ld ms)",
                            tx.maxerror / 1000);
}

gboolean
throng_start_at_parse (const char *text, gint64 now_wall_us, gint64 *out_wall_us, GError **error)
{
    if (text != NULL && text[0] == '+') {
        gint64 offset;
        g_autoptr (GError) local = NULL;
        if (!throng_parse_duration (text + 1, &offset, &local) || offset < 0) {
            g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                         "--start-at %s: expected a duration after '+' such as +30s", text);
            return FALSE;
        }
        *out_wall_us = now_wall_us + offset;
        return TRUE;
    }
    g_autoptr (GDateTime) time = text != NULL ? g_date_time_new_from_iso8601 (text, NULL) : NULL;
    /* RFC 3339 requires the offset: a time without one would be read in each
     * machine's own zone, and shards in different zones would disagree. */
    gsize length = text != NULL ? strlen (text) : 0;
    gboolean zoned = length > 0
                     && (text[length - 1] == 'Z' || text[length - 1] == 'z'
                         || (length > 6 && (text[length - 6] == '+' || text[length - 6] == '-')
                             && text[length - 3] == ':'));
    if (time == NULL || !zoned || strchr (text, 'T') == NULL) {
        g_set_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID,
                     "--start-at %s: expected an RFC 3339 time with its offset, such as "
                     "2026-12-03T14:00:00Z, or +30s",
                     text != NULL ? text : "");
        return FALSE;
    }
    *out_wall_us = g_date_time_to_unix (time) * G_USEC_PER_SEC
                   + g_date_time_get_microsecond (time);
    return TRUE;
}
