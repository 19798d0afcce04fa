/* SPDX-License-Identifier: MIT */
/*
 * The html report as one document: what it is drawn from and the call
 * that writes it.
 */
#pragma once

#include <throng/throng.h>

#include "series.h"

typedef struct {
    const char *title;
    const char *plan_sha256;    /* NULL when the core did not give it */
    const char *const *targets; /* per scenario of the summary, what it loads; NULL, or an
                                 * element NULL, when not known */
    const char *generated;      /* when the page was written, for its one line that varies */
    HtmlSeries *series;
    const ThrongSummary *summary;
    GHashTable *messages;       /* html_message_key() → GPtrArray of strings; NULL if not kept */
} HtmlPage;

/* Distinct messages kept per step and error class: the first ones seen. */
#define HTML_MESSAGES 3

/* The key of a step's failures of one class (an html_error_slot()). */
static inline gint64
html_message_key (guint scenario, guint step, guint slot)
{
    return ((gint64) scenario << 40) | ((gint64) step << 8) | (gint64) slot;
}

/* The line that carries the generation time starts with this, alone on its line. */
#define HTML_PAGE_GENERATED_PREFIX "<p class=\"generated\">"

/* Appends the whole document. */
void html_page_append (GString *out, const HtmlPage *page);

/* checks.c: the checks section (nothing when no scenario has checks). */
void html_checks_append (GString *out, const ThrongSummary *summary);
/* The plan's own metrics, when it declares any (metrics.c). */
void html_metrics_append (GString *out, const ThrongSummary *summary);
/* capacity.c: what a capacity search found, its curve drawn; nothing without one. */
void html_capacity_append (GString *out, const ThrongSummary *summary);
