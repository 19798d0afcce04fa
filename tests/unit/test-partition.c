/* SPDX-License-Identifier: MIT */
/*
 * The partition rules of `--shard I/N` (core/shard.c) as pure functions:
 * N shards' users and arrivals are each a disjoint cover of the unsharded
 * run's; `I/N`, `k8s/N` and `--start-at` parse or refuse; the plan hash
 * follows the plan but not its reporters.
 */
#include <string.h>

#include "node-private.h"
#include "shard.h"

/* Users u < total with u mod N == I, counted and numbered. */
static void
test_users (void)
{
    for (guint n = 1; n <= 7; n++) {
        for (guint total = 0; total <= 40; total++) {
            g_autofree guint *owner = g_new0 (guint, total + 1);
            guint sum = 0;
            for (guint i = 0; i < n; i++) {
                ThrongShard shard = { i, n };
                guint mine = throng_shard_users (&shard, total);
                sum += mine;
                for (guint local = 0; local < mine; local++) {
                    guint u = throng_shard_global_user (&shard, local);
                    g_assert_cmpuint (u, <, total);
                    g_assert_cmpuint (owner[u], ==, 0);
                    owner[u] = i + 1;
                }
            }
            g_assert_cmpuint (sum, ==, total);
        }
    }
    ThrongShard a = { 0, 3 }, b = { 1, 3 }, c = { 2, 3 };
    g_assert_cmpuint (throng_shard_users (&a, 100), ==, 34);
    g_assert_cmpuint (throng_shard_users (&b, 100), ==, 33);
    g_assert_cmpuint (throng_shard_users (&c, 100), ==, 33);
    /* A zeroed shard is the whole run. */
    ThrongShard whole = { 0 };
    g_assert_cmpuint (throng_shard_users (&whole, 100), ==, 100);
    g_assert_cmpuint (throng_shard_count (&whole), ==, 1);
}

/* The shard's j-th arrival is k = j N + I; counters interleave the same way. */
static void
test_interleave (void)
{
    g_autofree guint *seen = g_new0 (guint, 600);
    for (guint i = 0; i < 3; i++) {
        ThrongShard shard = { i, 3 };
        guint index, count;
        throng_shard_get (&shard, &index, &count);
        g_assert_cmpuint (index, ==, i);
        g_assert_cmpuint (count, ==, 3);
        for (guint64 j = 0; j < 200; j++) {
            guint64 k = throng_shard_interleave (&shard, j);
            g_assert_cmpuint (k % 3, ==, i);
            seen[k]++;
        }
    }
    for (guint k = 0; k < 600; k++)
        g_assert_cmpuint (seen[k], ==, 1);
}

static void
test_parse (void)
{
    ThrongShard shard = { 9, 9 };
    g_autoptr (GError) error = NULL;

    g_assert_true (throng_shard_parse ("2/5", "--shard", &shard, &error));
    g_assert_cmpuint (shard.index, ==, 2);
    g_assert_cmpuint (shard.count, ==, 5);
    const char *const bad[] = { "5/5", "1", "/3", "a/3", "1/0", "-1/3", "1/3x", "1/100000", NULL };
    for (const char *const *text = bad; *text != NULL; text++) {
        ThrongShard untouched = { 7, 8 };
        g_clear_error (&error);
        g_assert_false (throng_shard_parse (*text, "--shard", &untouched, &error));
        g_assert_error (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_INVALID);
        g_assert_cmpuint (untouched.index, ==, 7);
    }
    g_clear_error (&error);
    g_setenv ("JOB_COMPLETION_INDEX", "3", TRUE);
    g_assert_true (throng_shard_parse ("k8s/4", "--shard", &shard, &error));
    g_assert_cmpuint (shard.index, ==, 3);
    g_setenv ("JOB_COMPLETION_INDEX", "4", TRUE);
    g_assert_false (throng_shard_parse ("k8s/4", "--shard", &shard, &error));
    g_unsetenv ("JOB_COMPLETION_INDEX");
}

static void
test_start_at (void)
{
    gint64 at = 0;
    g_autoptr (GError) error = NULL;

    g_assert_true (throng_start_at_parse ("2026-12-03T14:00:00Z", 0, &at, &error));
    g_assert_cmpint (at, ==, G_GINT64_CONSTANT (1796306400) * G_USEC_PER_SEC);
    g_assert_true (throng_start_at_parse ("2026-12-03T15:00:00.5+01:00", 0, &at, &error));
    g_assert_cmpint (at, ==, G_GINT64_CONSTANT (1796306400) * G_USEC_PER_SEC + 500000);
    g_assert_true (throng_start_at_parse ("+30s", 1000, &at, &error));
    g_assert_cmpint (at, ==, 1000 + 30 * G_USEC_PER_SEC);
    /* No offset: each machine would read it in its own zone. */
    const char *const bad[] = { "2026-12-03T14:00:00", "14:00", "+", "+x", "tomorrow", NULL };
    for (const char *const *text = bad; *text != NULL; text++) {
        gint64 untouched = 5;
        g_clear_error (&error);
        g_assert_false (throng_start_at_parse (*text, 0, &untouched, &error));
        g_assert_cmpint (untouched, ==, 5);
    }
}

static char *
hash_of (const char *yaml)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (ThrongTree) tree = throng_tree_load_data ("t", yaml, strlen (yaml), &error);
    g_assert_no_error (error);
    return throng_shard_plan_hash (throng_tree_root (tree));
}

static void
test_plan_hash (void)
{
    g_autofree char *a = hash_of ("scenarios:\n  - {name: a, users: 3}\n"
                                  "reporters: [json: {path: x}]\n");
    g_autofree char *layout = hash_of ("# a comment\nscenarios:\n- name: a\n  users: 3\n"
                                       "reporters:\n  - json: {path: y}\n");
    g_autofree char *users = hash_of ("scenarios:\n  - {name: a, users: 4}\n");
    g_autofree char *quoted = hash_of ("scenarios:\n  - {name: a, users: \"3\"}\n");
    g_assert_cmpuint (strlen (a), ==, 64);
    /* Layout, comments and where results go do not change it … */
    g_assert_cmpstr (a, ==, layout);
    /* … what runs does. */
    g_assert_cmpstr (a, !=, users);
    g_assert_cmpstr (a, !=, quoted);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/partition/users", test_users);
    g_test_add_func ("/partition/interleave", test_interleave);
    g_test_add_func ("/partition/parse", test_parse);
    g_test_add_func ("/partition/start-at", test_start_at);
    g_test_add_func ("/partition/plan-hash", test_plan_hash);
    return g_test_run ();
}
