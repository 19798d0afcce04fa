/* SPDX-License-Identifier: MIT */
/*
 * A substitution's filter (`${data.name | json}`): the encodings a value
 * can pass through on its way into a request, applied at load to literal
 * names and per request to variables.  Private to the core.
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* In the order of throng_template_filter_names, after NONE. */
typedef enum {
    THRONG_TEMPLATE_FILTER_NONE,
    THRONG_TEMPLATE_FILTER_URLENCODE,
    THRONG_TEMPLATE_FILTER_JSON,
    THRONG_TEMPLATE_FILTER_BASE64,
} ThrongTemplateFilter;

/* The names a plan writes after '|', NULL-terminated. */
extern const char *const throng_template_filter_names[];

void throng_template_filter_append (GString *out, ThrongTemplateFilter filter, const char *s,
                                    gsize length);

/*
 * g_string_append_len() without its general insert when the bytes fit:
 * a request's segments are a few bytes each, and GLib 2.74 inlines none
 * of it, so this is most of what a substitution costs.
 */
static inline void
throng_template_append_bytes (GString *out, const char *s, gsize length)
{
    if (G_LIKELY (out->len + length < out->allocated_len)) {
        memcpy (out->str + out->len, s, length);
        out->len += length;
        out->str[out->len] = '\0';
    } else {
        g_string_append_len (out, s, (gssize) length);
    }
}

G_END_DECLS
