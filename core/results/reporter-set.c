/* SPDX-License-Identifier: MIT */
/*
 * The reporter set (reporter-set.h): one array of reporters and the
 * hooks' order, for the engine and the commands alike.
 */
#include "reporter-set.h"

#include <gio/gio.h>

#include "reporter-filter-private.h"
#include "summary-private.h"

typedef struct {
    const char *name;
    const ThrongReporter *reporter;
    gpointer data;
    ThrongReporterFilter *filter;
    gboolean opened;
    gboolean wants_samples;
} Slot;

struct _ThrongReporterSet {
    char *command;
    GArray *slots;              /* Slot */
    gboolean wants_samples;
};

ThrongReporterSet *
throng_reporter_set_new (const char *command)
{
    ThrongReporterSet *set = g_new0 (ThrongReporterSet, 1);

    set->command = g_strdup (command);
    set->slots = g_array_new (FALSE, TRUE, sizeof (Slot));
    return set;
}

void
throng_reporter_set_free (ThrongReporterSet *set)
{
    if (set == NULL)
        return;
    g_array_unref (set->slots);
    g_free (set->command);
    g_free (set);
}

void
throng_reporter_set_add (ThrongReporterSet *set, const char *name, const ThrongReporter *reporter,
                         gpointer data, ThrongReporterFilter *filter)
{
    Slot slot = { .name = name, .reporter = reporter, .data = data, .filter = filter };

    /* A reporter with a samples hook gets samples unless it says, for the options it was
     * given, that it does not record them (csv with `mode: summary`). */
    slot.wants_samples = reporter->samples != NULL
                         && (reporter->wants_samples == NULL || reporter->wants_samples (data));
    set->wants_samples |= slot.wants_samples;
    g_array_append_val (set->slots, slot);
}

gboolean
throng_reporter_set_wants_samples (const ThrongReporterSet *set)
{
    return set->wants_samples;
}

gboolean
throng_reporter_set_open (ThrongReporterSet *set, const ThrongRunInfo *info, GError **error)
{
    for (guint r = 0; r < set->slots->len; r++) {
        Slot *slot = &g_array_index (set->slots, Slot, r);
        g_autoptr (GError) local = NULL;

        if (slot->reporter->open != NULL && !slot->reporter->open (slot->data, info, &local)) {
            if (local == NULL)
                g_set_error_literal (&local, G_IO_ERROR, G_IO_ERROR_FAILED, "failed to open");
            g_propagate_prefixed_error (error, g_steal_pointer (&local), "reporter %s: ",
                                        slot->name);
            return FALSE;
        }
        slot->opened = TRUE;
    }
    return TRUE;
}

void
throng_reporter_set_samples (ThrongReporterSet *set, const ThrongSample *samples, gsize n_samples)
{
    for (guint r = 0; r < set->slots->len; r++) {
        Slot *slot = &g_array_index (set->slots, Slot, r);
        const ThrongSample *chosen = samples;
        gsize n = n_samples;

        if (!slot->opened || !slot->wants_samples)
            continue;
        if (slot->filter != NULL)
            chosen = throng_reporter_filter_apply (slot->filter, samples, n_samples, &n);
        if (n > 0)
            slot->reporter->samples (slot->data, chosen, n);
    }
}

void
throng_reporter_set_snapshot (ThrongReporterSet *set, const ThrongSummary *snapshot)
{
    for (guint r = 0; r < set->slots->len; r++) {
        Slot *slot = &g_array_index (set->slots, Slot, r);

        if (slot->opened && slot->reporter->snapshot != NULL)
            slot->reporter->snapshot (slot->data, snapshot);
    }
}

void
throng_reporter_set_drain (ThrongReporterSet *set, ThrongSummaryBuffer *buffer)
{
    for (guint r = 0; r < set->slots->len; r++) {
        Slot *slot = &g_array_index (set->slots, Slot, r);

        if (slot->opened && slot->reporter->drain != NULL)
            throng_summary_buffer_add_warnings (buffer,
                                                slot->reporter->drain (slot->data, &buffer->summary));
    }
}

gboolean
throng_reporter_set_close (ThrongReporterSet *set, const ThrongSummary *summary)
{
    gboolean ok = TRUE;

    for (guint r = 0; r < set->slots->len; r++) {
        Slot *slot = &g_array_index (set->slots, Slot, r);
        g_autoptr (GError) local = NULL;

        if (!slot->opened)
            continue;
        slot->opened = FALSE;
        if (!slot->reporter->close (slot->data, summary, &local)) {
            g_printerr ("%s: reporter %s: %s\n", set->command, slot->name,
                        local != NULL ? local->message : "failed to write its results");
            ok = FALSE;
        }
    }
    return ok;
}
