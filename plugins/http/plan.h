/* SPDX-License-Identifier: MIT */
/*
 * The transport-independent half of the http plugin as its files see each
 * other: the option table and its layers, and how a scenario and a step
 * are built from the plan.  Not seen by the transports, which read only
 * HttpScenario and HttpStep (http.h).
 */
#pragma once

#include "http.h"

/*
 * The nodes that last set the options whose errors are found after
 * layering (a file, the url, the body), so those errors still point at
 * the plan's text.
 */
typedef struct {
    const ThrongNode *map; /* the last layer's http map */
    const ThrongNode *tls;
    const ThrongNode *base_url;
    const ThrongNode *url;
    const ThrongNode *method;
    const ThrongNode *body;
    const ThrongNode *body_file;
    const ThrongNode *ca_file;
    const ThrongNode *cert_file;
    const ThrongNode *key_file;
    const ThrongNode *priority;
    const ThrongNode *check;
    const ThrongNode *extract;
} HttpLayerNodes;

/* A scenario as the common part holds it; transports see only .base. */
typedef struct {
    HttpScenario base;
    ThrongScope *scope;   /* NULL from a core older than 0.3: no templates, checks or extractors */
    HttpLayerNodes nodes; /* after the defaults and scenario layers */
    GArray *headers;      /* HttpHeader: defaults then scenario, merged */
} HttpPlanScenario;

extern const ThrongOption http_options_table[];

/* Fills @options with the documented defaults. */
void http_options_init (HttpOptions *options);
void http_options_clear (HttpOptions *options);
/* A deep copy of @src into @dest. */
void http_options_copy (HttpOptions *dest, const HttpOptions *src);

/*
 * Applies one layer (a `defaults.http`, scenario or step map; NULL or a
 * null scalar is an empty layer) over @options: keys, types and ranges
 * through the table, then what the table cannot check: expect_status,
 * files (made absolute against the directory of the plan that names them,
 * and checked readable), body versus body_file (the layer that names one
 * drops the other).  Records in @nodes what the layer set.
 */
gboolean http_options_apply_layer (const ThrongNode *map, HttpOptions *options, gboolean in_step,
                                   HttpLayerNodes *nodes, GError **error);

/* Parses "200", "200-299", "2xx" and comma-separated lists of them into @expect. */
gboolean http_expect_parse (const char *text, guint64 expect[10], GError **error);

/*
 * Merges the `headers` map of @map (if any) into @headers: a later name
 * replaces an earlier one case-insensitively, a null value removes it.
 */
gboolean http_headers_merge (GArray *headers, const ThrongNode *map, GError **error);
GArray *http_headers_new (void);
/* TRUE for an HTTP token (RFC 9110), as methods and header names must be. */
gboolean http_method_is_valid (const char *method);
GArray *http_headers_copy (GArray *headers);

/*
 * The protocol's step hooks (request.c): @scenario is the HttpScenario,
 * the result an HttpStep.
 */
gpointer http_step_new (gpointer scenario, const ThrongNode *options, char **label,
                        GError **error);
void http_step_free (gpointer step);

/* The protocol as the core sees it (scenario.c). */
extern const ThrongProtocol http_protocol;
