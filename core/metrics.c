/* SPDX-License-Identifier: MIT */
/*
 * Recording samples into ThrongStats and merging blocks of them.  The
 * record path is the only one that runs per request: a few additions and
 * one or two histogram records, no allocation, no lock.  A failure's
 * message is kept by pointer (samples' messages live as long as the plan),
 * the first of each class only.  Requests per protocol version are a
 * short array of names (static, as samples name them, or interned), grown
 * when a name is first seen: an allocation per stats and name, not per
 * request.
 */
#include "metrics.h"

#include "custom-metric-private.h"

#include <string.h>

/*
 * The distinct messages kept for the life of the process.  A stats block
 * keeps the first message of each class of each interval, and a message can
 * name what varies (an address, a port, an extracted value): unbounded
 * interning would grow for as long as a run goes on.  Past this many, a
 * first message is replaced by one that says so.
 */
#define MESSAGES_KEPT_MAX 4096

static const char *
keep_message (const char *message)
{
    static GMutex lock;
    static GHashTable *kept;
    const char *copy;

    if (message == NULL)
        return NULL;
    g_mutex_lock (&lock);
    if (kept == NULL)
        kept = g_hash_table_new (g_str_hash, g_str_equal);
    copy = g_hash_table_lookup (kept, message);
    if (copy == NULL && g_hash_table_size (kept) < MESSAGES_KEPT_MAX) {
        copy = g_strdup (message);
        g_hash_table_add (kept, (gpointer) copy);
    }
    g_mutex_unlock (&lock);
    return copy != NULL ? copy : "(message not kept: over " G_STRINGIFY (MESSAGES_KEPT_MAX)
                                 " distinct messages in this run)";
}

void
throng_stats_init (ThrongStats *stats)
{
    memset (stats, 0, sizeof *stats);
    stats->latency = throng_histogram_new ();
    stats->handshake = throng_histogram_new ();
    stats->error_messages = g_new0 (const char *, THRONG_ERROR_CLASS_SLOTS);
}

void
throng_stats_clear (ThrongStats *stats)
{
    g_clear_pointer (&stats->latency, throng_histogram_free);
    g_clear_pointer (&stats->handshake, throng_histogram_free);
    g_clear_pointer (&stats->error_messages, g_free);
    g_clear_pointer (&stats->protocols, g_free);
    stats->n_protocols = 0;
}

void
throng_stats_reset (ThrongStats *stats)
{
    ThrongHistogram *latency = stats->latency;
    ThrongHistogram *handshake = stats->handshake;
    const char **error_messages = stats->error_messages;

    g_free (stats->protocols);
    memset (stats, 0, sizeof *stats);
    throng_histogram_reset (latency);
    throng_histogram_reset (handshake);
    stats->latency = latency;
    stats->handshake = handshake;
    if (error_messages != NULL)
        memset (error_messages, 0, sizeof (const char *) * THRONG_ERROR_CLASS_SLOTS);
    stats->error_messages = error_messages;
}

void
throng_stats_merge (ThrongStats *into, const ThrongStats *from)
{
    into->requests += from->requests;
    into->errors += from->errors;
    for (guint i = 0; i < THRONG_ERROR_CLASS_SLOTS; i++) {
        into->errors_by_class[i] += from->errors_by_class[i];
        if (into->error_messages != NULL && from->error_messages != NULL
            && into->error_messages[i] == NULL)
            into->error_messages[i] = from->error_messages[i];
    }
    into->bytes_sent += from->bytes_sent;
    into->bytes_received += from->bytes_received;
    into->connections += from->connections;
    into->handshakes_full += from->handshakes_full;
    into->handshakes_resumed += from->handshakes_resumed;
    into->retries += from->retries;
    for (guint i = 0; i < from->n_protocols; i++)
        throng_stats_add_protocol (into, from->protocols[i].name, from->protocols[i].requests);
    throng_histogram_merge (into->latency, from->latency);
    throng_histogram_merge (into->handshake, from->handshake);
}

/* ThrongStats is embedded in arrays a 0.1 reporter walks: its size is 0.1's (LP64). */
G_STATIC_ASSERT (sizeof (ThrongStats) == 232);

/*
 * Counts @requests over protocol version @name, which must outlive @stats
 * (a sample's static name, or an interned one).  Names compare by pointer
 * first: every sample of a plugin names a version with the same string.
 */
void
throng_stats_add_protocol (ThrongStats *stats, const char *name, guint64 requests)
{
    guint i;

    for (i = 0; i < stats->n_protocols; i++) {
        const char *known = stats->protocols[i].name;
        if (known == name || strcmp (known, name) == 0)
            break;
    }
    if (i == stats->n_protocols) {
        stats->protocols = g_renew (ThrongProtocolCount, stats->protocols, i + 1);
        stats->protocols[i].name = name;
        stats->protocols[i].requests = 0;
        stats->n_protocols++;
    }
    stats->protocols[i].requests += requests;
}

/*
 * A step that never went out (class `variable`) is an error but not a
 * request, and has no latency: `requests` and the histogram hold what
 * the server saw (throng_stats_get_not_sent()).
 */
void
throng_stats_record (ThrongStats *stats, const ThrongSample *sample)
{
    if (G_LIKELY (sample->error != THRONG_ERROR_VARIABLE))
        stats->requests++;
    if (sample->error != THRONG_ERROR_NONE) {
        guint slot = (guint) sample->error;
        if (slot >= THRONG_ERROR_CLASS_SLOTS)
            slot = THRONG_ERROR_OTHER;
        stats->errors++;
        stats->errors_by_class[slot]++;
        /* Copied: a message set with throng_sample_set_message() lives in
         * the user's buffer, rewritten by its next step and freed with it,
         * while the stats outlive both.  Once per class per stats. */
        if (stats->error_messages != NULL && stats->error_messages[slot] == NULL)
            stats->error_messages[slot] = keep_message (sample->message);
    }
    stats->bytes_sent += sample->bytes_sent;
    stats->bytes_received += sample->bytes_received;
    stats->connections += sample->connections_opened;
    stats->handshakes_full += sample->handshakes_full;
    stats->handshakes_resumed += sample->handshakes_resumed;
    stats->retries += sample->retries;
    if (sample->protocol != NULL)
        throng_stats_add_protocol (stats, sample->protocol, 1);
    if (G_LIKELY (sample->error != THRONG_ERROR_VARIABLE))
        throng_histogram_record (stats->latency, sample->elapsed_us);
    if (sample->handshakes_full + sample->handshakes_resumed > 0)
        throng_histogram_record (stats->handshake, sample->tls_us);
}

ThrongMetrics *
throng_metrics_new (guint n_scenarios, const guint *steps_per_scenario)
{
    return throng_metrics_new_full (n_scenarios, steps_per_scenario, NULL);
}

ThrongMetrics *
throng_metrics_new_full (guint n_scenarios, const guint *steps_per_scenario,
                         const guint *checks_per_scenario)
{
    ThrongMetrics *metrics = g_new0 (ThrongMetrics, 1);
    guint total = 0, checks = 0;

    metrics->n_scenarios = n_scenarios;
    metrics->first_step = g_new0 (guint, n_scenarios + 1);
    for (guint i = 0; i < n_scenarios; i++) {
        metrics->first_step[i] = total;
        total += steps_per_scenario[i];
    }
    metrics->first_step[n_scenarios] = total;
    metrics->steps = g_new0 (ThrongStats, MAX (total, 1));
    for (guint i = 0; i < total; i++)
        throng_stats_init (&metrics->steps[i]);
    metrics->retried = g_new0 (guint64, MAX (total, 1));
    metrics->iterations = g_new0 (guint64, MAX (n_scenarios, 1));
    metrics->active_users = g_new0 (guint, MAX (n_scenarios, 1));
    metrics->dropped = g_new0 (guint64, MAX (n_scenarios, 1));
    metrics->lag = throng_histogram_new ();
    metrics->run_wait_us = -1;
    metrics->first_check = g_new0 (guint, n_scenarios + 1);
    for (guint i = 0; i < n_scenarios; i++) {
        metrics->first_check[i] = checks;
        checks += checks_per_scenario != NULL ? checks_per_scenario[i] : 0;
    }
    metrics->first_check[n_scenarios] = checks;
    metrics->check_passes = g_new0 (guint64, MAX (checks, 1));
    metrics->check_fails = g_new0 (guint64, MAX (checks, 1));
    return metrics;
}

void
throng_metrics_free (ThrongMetrics *metrics)
{
    if (metrics == NULL)
        return;
    for (guint i = 0; i < metrics->first_step[metrics->n_scenarios]; i++)
        throng_stats_clear (&metrics->steps[i]);
    g_free (metrics->steps);
    g_free (metrics->retried);
    g_free (metrics->first_step);
    g_free (metrics->iterations);
    g_free (metrics->active_users);
    g_free (metrics->dropped);
    throng_histogram_free (metrics->lag);
    g_free (metrics->first_check);
    g_free (metrics->check_passes);
    g_free (metrics->check_fails);
    for (guint i = 0; i < metrics->n_custom; i++)
        throng_custom_metric_clear (&metrics->custom[i]);
    g_free (metrics->custom);
    g_free (metrics);
}

void
throng_metrics_reset (ThrongMetrics *metrics)
{
    for (guint i = 0; i < metrics->first_step[metrics->n_scenarios]; i++)
        throng_stats_reset (&metrics->steps[i]);
    memset (metrics->retried, 0, sizeof (guint64) * metrics->first_step[metrics->n_scenarios]);
    memset (metrics->iterations, 0, sizeof (guint64) * metrics->n_scenarios);
    memset (metrics->active_users, 0, sizeof (guint) * metrics->n_scenarios);
    memset (metrics->dropped, 0, sizeof (guint64) * metrics->n_scenarios);
    metrics->samples_dropped = 0;
    throng_histogram_reset (metrics->lag);
    metrics->loop_delay_max_us = 0;
    metrics->run_wait_us = -1;
    metrics->wake_late_max_us = 0;
    metrics->interrupted = 0;
    metrics->last_done_us = 0;
    memset (metrics->check_passes, 0, sizeof (guint64) * metrics->first_check[metrics->n_scenarios]);
    memset (metrics->check_fails, 0, sizeof (guint64) * metrics->first_check[metrics->n_scenarios]);
    for (guint i = 0; i < metrics->n_custom; i++)
        throng_custom_metric_reset (&metrics->custom[i]);
}

void
throng_metrics_add_custom (ThrongMetrics *metrics, const char *name, ThrongCustomMetricKind kind)
{
    metrics->custom = g_renew (ThrongCustomMetric, metrics->custom, metrics->n_custom + 1);
    throng_custom_metric_init (&metrics->custom[metrics->n_custom++], name, kind);
}

void
throng_metrics_merge (ThrongMetrics *into, const ThrongMetrics *from)
{
    g_assert (into->n_scenarios == from->n_scenarios);
    for (guint i = 0; i < into->first_step[into->n_scenarios]; i++) {
        throng_stats_merge (&into->steps[i], &from->steps[i]);
        into->retried[i] += from->retried[i];
    }
    for (guint i = 0; i < into->n_scenarios; i++) {
        into->iterations[i] += from->iterations[i];
        into->active_users[i] += from->active_users[i];
        into->dropped[i] += from->dropped[i];
    }
    into->samples_dropped += from->samples_dropped;
    throng_histogram_merge (into->lag, from->lag);
    into->loop_delay_max_us = MAX (into->loop_delay_max_us, from->loop_delay_max_us);
    into->run_wait_us = MAX (into->run_wait_us, from->run_wait_us);
    into->wake_late_max_us = MAX (into->wake_late_max_us, from->wake_late_max_us);
    into->interrupted += from->interrupted;
    into->last_done_us = MAX (into->last_done_us, from->last_done_us);
    g_assert (into->first_check[into->n_scenarios] == from->first_check[from->n_scenarios]);
    for (guint i = 0; i < into->first_check[into->n_scenarios]; i++) {
        into->check_passes[i] += from->check_passes[i];
        into->check_fails[i] += from->check_fails[i];
    }
    g_assert (into->n_custom == from->n_custom);
    for (guint i = 0; i < into->n_custom; i++)
        throng_custom_metric_merge (&into->custom[i], &from->custom[i]);
}
