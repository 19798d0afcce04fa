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
    const char *plan_sha256;    /* NULL when the plan file could not be read */
    const char *generated;      /* when the page was written, for its one line that varies */
    HtmlSeries *series;
    const ThrongSummary *summary;
} HtmlPage;

/* The line that carries the generation time starts with this, alone on its line. */
#define HTML_PAGE_GENERATED_PREFIX "<p class=\"generated\">"

/* Appends the whole document. */
void html_page_append (GString *out, const HtmlPage *page);
