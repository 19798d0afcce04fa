/* SPDX-License-Identifier: MIT */
/*
 * Tests of the per-worker metrics blocks (core/metrics.c): what one sample
 * adds, out-of-range error classes, the layout of steps per scenario, and
 * that merging blocks equals recording everything into one block, which is
 * what the main thread's totals rely on.
 */
#include <math.h>
#include <string.h>

#include "metrics.h"
#include "custom-metric-private.h"

static ThrongSample
sample_make (gint64 elapsed_us, ThrongErrorClass error)
{
    ThrongSample sample = { 0 };

    sample.elapsed_us = elapsed_us;
    sample.error = error;
    sample.bytes_sent = 100;
    sample.bytes_received = 1000;
    return sample;
}

static void
test_stats_record (void)
{
    ThrongStats stats;
    ThrongSample ok = sample_make (1500, THRONG_ERROR_NONE);
    ThrongSample failed = sample_make (30000, THRONG_ERROR_TIMEOUT);
    ThrongSample handshake = sample_make (2500, THRONG_ERROR_NONE);

    handshake.connections_opened = 1;
    handshake.handshakes_full = 1;
    handshake.tls_us = 800;

    throng_stats_init (&stats);
    throng_stats_record (&stats, &ok);
    throng_stats_record (&stats, &failed);
    throng_stats_record (&stats, &handshake);

    g_assert_cmpuint (stats.requests, ==, 3);
    g_assert_cmpuint (stats.errors, ==, 1);
    g_assert_cmpuint (stats.errors_by_class[THRONG_ERROR_TIMEOUT], ==, 1);
    g_assert_cmpuint (stats.bytes_sent, ==, 300);
    g_assert_cmpuint (stats.bytes_received, ==, 3000);
    g_assert_cmpuint (stats.connections, ==, 1);
    g_assert_cmpuint (stats.handshakes_full, ==, 1);
    g_assert_cmpuint (stats.handshakes_resumed, ==, 0);
    /* failures are timed too: a timeout's latency is part of the distribution */
    g_assert_cmpuint (throng_histogram_count (stats.latency), ==, 3);
    g_assert_cmpint (throng_histogram_max (stats.latency), >=, 29700);
    /* only a step that made a handshake records a handshake time */
    g_assert_cmpuint (throng_histogram_count (stats.handshake), ==, 1);

    throng_stats_reset (&stats);
    g_assert_cmpuint (stats.requests, ==, 0);
    g_assert_cmpuint (stats.errors_by_class[THRONG_ERROR_TIMEOUT], ==, 0);
    g_assert_cmpuint (throng_histogram_count (stats.latency), ==, 0);
    g_assert_nonnull (stats.latency);
    throng_stats_clear (&stats);
    g_assert_null (stats.latency);
    throng_stats_clear (&stats);
}

/*
 * The first message of a class outlives the buffer it came in: a message
 * set with throng_sample_set_message() lives in the user's buffer, which
 * its next step rewrites and which is freed with the user.  And retries
 * add up.
 */
static void
test_stats_first_message_and_retries (void)
{
    ThrongStats stats;
    ThrongSample failed = sample_make (10, THRONG_ERROR_STATUS);
    ThrongSample again = sample_make (10, THRONG_ERROR_STATUS);
    char *buffer = g_strdup ("404 Not Found");

    failed.message = buffer;
    failed.retries = 1;
    again.message = "503 Service Unavailable";
    again.retries = 2;
    throng_stats_init (&stats);
    throng_stats_record (&stats, &failed);
    strcpy (buffer, "OK");
    g_free (buffer);
    throng_stats_record (&stats, &again);
    g_assert_cmpstr (stats.error_messages[THRONG_ERROR_STATUS], ==, "404 Not Found");
    g_assert_cmpuint (stats.retries, ==, 3);
    throng_stats_clear (&stats);
}

/*
 * Each interval's stats keep the first message of each class; messages
 * that name what varies must not be kept without bound for a long run.
 * The same text stays one copy, and past the bound a message says so.
 */
static void
test_stats_messages_bounded (void)
{
    ThrongStats stats;
    ThrongSample failed = sample_make (10, THRONG_ERROR_CONNECT);
    const char *first = NULL;
    guint kept = 0;
    gboolean bounded = FALSE;

    throng_stats_init (&stats);
    for (guint i = 0; i < 10000 && !bounded; i++) {
        char text[64];

        g_snprintf (text, sizeof text, "connect: 127.0.0.1:%u refused", i);
        failed.message = text;
        throng_stats_reset (&stats);
        throng_stats_record (&stats, &failed);
        if (g_str_has_prefix (stats.error_messages[THRONG_ERROR_CONNECT], "(message not kept"))
            bounded = TRUE;
        else
            g_assert_cmpstr (stats.error_messages[THRONG_ERROR_CONNECT], ==, text);
        if (i == 0)
            first = stats.error_messages[THRONG_ERROR_CONNECT];
        kept++;
    }
    g_assert_true (bounded);
    g_assert_cmpuint (kept, <=, 4097);
    /* A message already kept is still found, as the same copy. */
    failed.message = "connect: 127.0.0.1:0 refused";
    throng_stats_reset (&stats);
    throng_stats_record (&stats, &failed);
    g_assert_true (stats.error_messages[THRONG_ERROR_CONNECT] == first);
    throng_stats_clear (&stats);
}

/* A class past the table (a plugin built against a newer SDK) counts as "other", never out of bounds. */
static void
test_stats_unknown_class (void)
{
    ThrongStats stats;
    ThrongSample odd = sample_make (10, (ThrongErrorClass) (THRONG_ERROR_CLASS_SLOTS + 7));

    throng_stats_init (&stats);
    throng_stats_record (&stats, &odd);
    g_assert_cmpuint (stats.errors, ==, 1);
    g_assert_cmpuint (stats.errors_by_class[THRONG_ERROR_OTHER], ==, 1);
    throng_stats_clear (&stats);
}

static void
test_metrics_layout (void)
{
    const guint steps[] = { 2, 0, 3 };
    g_autoptr (ThrongMetrics) metrics = throng_metrics_new (G_N_ELEMENTS (steps), steps);

    g_assert_cmpuint (metrics->n_scenarios, ==, 3);
    g_assert_cmpuint (metrics->first_step[0], ==, 0);
    g_assert_cmpuint (metrics->first_step[1], ==, 2);
    g_assert_cmpuint (metrics->first_step[2], ==, 2);
    g_assert_cmpuint (metrics->first_step[3], ==, 5);
    g_assert_true (throng_metrics_step (metrics, 2, 0) == &metrics->steps[2]);
    g_assert_true (throng_metrics_step (metrics, 2, 2) == &metrics->steps[4]);
}

/* Merging per-worker blocks gives exactly what one block recording every sample gives. */
static void
test_metrics_merge_equals_union (void)
{
    const guint steps[] = { 2, 1 };
    g_autoptr (ThrongMetrics) whole = throng_metrics_new (2, steps);
    g_autoptr (ThrongMetrics) merged = throng_metrics_new (2, steps);
    ThrongMetrics *workers[3];
    g_autoptr (GRand) rand = g_rand_new_with_seed (42);

    for (guint w = 0; w < G_N_ELEMENTS (workers); w++)
        workers[w] = throng_metrics_new (2, steps);

    for (guint i = 0; i < 30000; i++) {
        guint w = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (workers));
        guint scenario = (guint) g_rand_int_range (rand, 0, 2);
        guint step = (guint) g_rand_int_range (rand, 0, (gint32) steps[scenario]);
        ThrongSample sample = sample_make (g_rand_int_range (rand, 1, 5000000),
                                           g_rand_int_range (rand, 0, 10) == 0 ? THRONG_ERROR_STATUS
                                                                                : THRONG_ERROR_NONE);
        gint64 lag = g_rand_int_range (rand, 0, 20000);

        throng_stats_record (throng_metrics_step (workers[w], scenario, step), &sample);
        throng_stats_record (throng_metrics_step (whole, scenario, step), &sample);
        throng_histogram_record (workers[w]->lag, lag);
        throng_histogram_record (whole->lag, lag);
        workers[w]->iterations[scenario]++;
        whole->iterations[scenario]++;
    }
    for (guint w = 0; w < G_N_ELEMENTS (workers); w++) {
        workers[w]->active_users[0] = 10 + w;
        workers[w]->dropped[1] = w;
        workers[w]->samples_dropped = 5;
        workers[w]->loop_delay_max_us = 100 * (gint64) (w + 1);
        /* the middle worker's kernel did not say how long it waited */
        workers[w]->run_wait_us = w == 1 ? -1 : 40 * (gint64) (w + 1);
        workers[w]->wake_late_max_us = w == 1 ? 9000 : 0;
        throng_metrics_merge (merged, workers[w]);
    }

    for (guint i = 0; i < merged->first_step[2]; i++) {
        const ThrongStats *a = &merged->steps[i], *b = &whole->steps[i];
        g_autofree char *la = throng_histogram_serialize (a->latency);
        g_autofree char *lb = throng_histogram_serialize (b->latency);

        g_assert_cmpuint (a->requests, ==, b->requests);
        g_assert_cmpuint (a->errors, ==, b->errors);
        g_assert_cmpuint (a->errors_by_class[THRONG_ERROR_STATUS], ==, b->errors_by_class[THRONG_ERROR_STATUS]);
        g_assert_cmpuint (a->bytes_received, ==, b->bytes_received);
        g_assert_cmpstr (la, ==, lb);
    }
    g_assert_cmpuint (merged->iterations[0], ==, whole->iterations[0]);
    g_assert_cmpuint (merged->iterations[1], ==, whole->iterations[1]);
    g_assert_cmpuint (throng_histogram_count (merged->lag), ==, 30000);
    /* levels are summed across workers, the loop delay is the worst one */
    g_assert_cmpuint (merged->active_users[0], ==, 10 + 11 + 12);
    g_assert_cmpuint (merged->dropped[1], ==, 0 + 1 + 2);
    g_assert_cmpuint (merged->samples_dropped, ==, 15);
    g_assert_cmpint (merged->loop_delay_max_us, ==, 300);
    g_assert_cmpint (merged->run_wait_us, ==, 120);
    g_assert_cmpint (merged->wake_late_max_us, ==, 9000);

    throng_metrics_reset (merged);
    g_assert_cmpuint (merged->steps[0].requests, ==, 0);
    g_assert_cmpuint (merged->iterations[0], ==, 0);
    g_assert_cmpuint (throng_histogram_count (merged->lag), ==, 0);
    g_assert_cmpint (merged->loop_delay_max_us, ==, 0);
    g_assert_cmpint (merged->run_wait_us, ==, -1);
    g_assert_cmpint (merged->wake_late_max_us, ==, 0);

    for (guint w = 0; w < G_N_ELEMENTS (workers); w++)
        throng_metrics_free (workers[w]);
    throng_metrics_free (NULL);
}

/*
 * The plan's own metrics: each worker's block merged gives what one block
 * recording every value gives (a trend's histogram bucket for bucket, a
 * gauge's value the latest); text that is not what the kind takes is
 * counted as invalid, never as 0.
 */
static void
test_custom_merge_equals_union (void)
{
    static const ThrongCustomMetricKind kinds[] = { THRONG_CUSTOM_COUNTER, THRONG_CUSTOM_GAUGE,
                                                    THRONG_CUSTOM_RATE, THRONG_CUSTOM_TREND };
    static const char *const names[] = { "orders", "depth", "ok", "cart" };
    const guint steps[] = { 1 };
    g_autoptr (ThrongMetrics) whole = throng_metrics_new (1, steps);
    g_autoptr (ThrongMetrics) merged = throng_metrics_new (1, steps);
    ThrongMetrics *workers[3];
    g_autoptr (GRand) rand = g_rand_new_with_seed (7);

    for (guint m = 0; m < G_N_ELEMENTS (kinds); m++) {
        throng_metrics_add_custom (whole, names[m], kinds[m]);
        throng_metrics_add_custom (merged, names[m], kinds[m]);
    }
    for (guint w = 0; w < G_N_ELEMENTS (workers); w++) {
        workers[w] = throng_metrics_new (1, steps);
        for (guint m = 0; m < G_N_ELEMENTS (kinds); m++)
            throng_metrics_add_custom (workers[w], names[m], kinds[m]);
    }
    for (guint i = 0; i < 3000; i++) {
        guint w = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (workers));
        guint m = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (kinds));
        char text[64];

        if (i % 17 == 0)
            g_strlcpy (text, "n/a", sizeof text);
        else if (kinds[m] == THRONG_CUSTOM_RATE)
            g_strlcpy (text, g_rand_boolean (rand) ? "true" : "0", sizeof text);
        else
            g_ascii_formatd (text, sizeof text, "%.3f", g_rand_double_range (rand, 0, 5000));
        throng_custom_metric_add_text (&workers[w]->custom[m], text, strlen (text), 1000 + i);
        throng_custom_metric_add_text (&whole->custom[m], text, strlen (text), 1000 + i);
    }
    for (guint w = 0; w < G_N_ELEMENTS (workers); w++) {
        throng_metrics_merge (merged, workers[w]);
        throng_metrics_free (workers[w]);
    }
    for (guint m = 0; m < G_N_ELEMENTS (kinds); m++) {
        const ThrongCustomMetric *a = &merged->custom[m], *b = &whole->custom[m];

        g_assert_cmpuint (a->count, ==, b->count);
        g_assert_cmpuint (a->invalid, ==, b->invalid);
        g_assert_cmpuint (a->invalid, >, 0);
        g_assert_cmpuint (a->trues, ==, b->trues);
        g_assert_cmpfloat_with_epsilon (a->sum, b->sum, 1e-6);
        g_assert_cmpfloat (a->min, ==, b->min);
        g_assert_cmpfloat (a->max, ==, b->max);
        g_assert_cmpfloat (a->last, ==, b->last);
        g_assert_cmpint (a->last_wall_us, ==, b->last_wall_us);
        if (kinds[m] == THRONG_CUSTOM_TREND) {
            g_autofree char *ha = throng_histogram_serialize (a->histogram);
            g_autofree char *hb = throng_histogram_serialize (b->histogram);
            g_assert_cmpstr (ha, ==, hb);
            g_assert_cmpuint (throng_histogram_count (a->histogram), ==, a->count);
        }
    }
    /* what a rate takes and what it does not */
    ThrongCustomMetric rate;
    throng_custom_metric_init (&rate, "r", THRONG_CUSTOM_RATE);
    static const char *const takes[] = { "true", "TRUE", "false", "1", "0" };
    static const char *const refuses[] = { "yes", "2", "", " true", "0.0" };
    for (guint i = 0; i < G_N_ELEMENTS (takes); i++)
        throng_custom_metric_add_text (&rate, takes[i], strlen (takes[i]), 0);
    for (guint i = 0; i < G_N_ELEMENTS (refuses); i++)
        throng_custom_metric_add_text (&rate, refuses[i], strlen (refuses[i]), 0);
    g_assert_cmpuint (rate.count, ==, 5);
    g_assert_cmpuint (rate.trues, ==, 3);
    g_assert_cmpuint (rate.invalid, ==, 5);
    throng_custom_metric_clear (&rate);
    /* a trend refuses what its histogram cannot hold */
    ThrongCustomMetric trend;
    throng_custom_metric_init (&trend, "t", THRONG_CUSTOM_TREND);
    static const char *const values[] = { "-1", "3600000", "3600000.5", "12ms", "1e3", " 7 " };
    for (guint i = 0; i < G_N_ELEMENTS (values); i++)
        throng_custom_metric_add_text (&trend, values[i], strlen (values[i]), 0);
    g_assert_cmpuint (trend.count, ==, 3);
    g_assert_cmpuint (trend.invalid, ==, 3);
    g_assert_cmpfloat (trend.max, ==, 3600000);
    gdouble p50;
    g_assert_true (throng_custom_metric_figure (&trend, "p50", 1, &p50));
    g_assert_cmpfloat (fabs (p50 - 1000), <=, 10);
    g_assert_false (throng_custom_metric_figure (&trend, "rate", 1, &p50));
    throng_custom_metric_clear (&trend);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/metrics/stats/record", test_stats_record);
    g_test_add_func ("/metrics/stats/unknown-class", test_stats_unknown_class);
    g_test_add_func ("/metrics/stats/first-message-and-retries", test_stats_first_message_and_retries);
    g_test_add_func ("/metrics/stats/messages-bounded", test_stats_messages_bounded);
    g_test_add_func ("/metrics/layout", test_metrics_layout);
    g_test_add_func ("/metrics/merge-equals-union", test_metrics_merge_equals_union);
    g_test_add_func ("/metrics/custom/merge-equals-union", test_custom_merge_equals_union);
    return g_test_run ();
}
