/* SPDX-License-Identifier: MIT */
/*
 * The wire format: a page of the text format becomes a WriteRequest, its
 * protobuf packed by protobuf-c (the code generated from remote.proto) and
 * compressed by snappy's block format, as remote write 0.1.0 wants.  The
 * page is exposition.c's, so the series pushed are, name for name and
 * label for label, those a scrape of the prometheus reporter stores; this
 * file only reads that page back, adds the run's labels and sorts each
 * series' labels by name (the protocol requires it).
 */
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "remote.pb-c.h"
#include "remote-write.h"

#define ENCODE_ERROR (g_quark_from_static_string ("throng-remote-write-encode"))

/* One page being read: its series share one chunk of strings. */
typedef struct {
    GStringChunk *strings;
    GPtrArray *series;          /* Prometheus__TimeSeries *, freed by page_clear */
} Page;

static void
series_free (gpointer data)
{
    Prometheus__TimeSeries *series = data;

    for (gsize i = 0; i < series->n_labels; i++)
        g_free (series->labels[i]);
    g_free (series->labels);
    g_free (series->samples[0]);
    g_free (series->samples);
    g_free (series);
}

static int
compare_labels (const void *a, const void *b)
{
    const Prometheus__Label *const *x = a, *const *y = b;

    return strcmp ((*x)->name, (*y)->name);
}

static Prometheus__Label *
label_new (const char *name, const char *value)
{
    Prometheus__Label *label = g_new (Prometheus__Label, 1);

    prometheus__label__init (label);
    label->name = (char *) name;
    label->value = (char *) value;
    return label;
}

/* Reads a quoted label value from *@p (past the quote), unescaped; *@p ends past its quote. */
static char *
read_value (Page *page, const char **p, const char *end)
{
    g_autoptr (GString) value = g_string_new (NULL);

    while (*p < end && **p != '"') {
        char c = *(*p)++;

        if (c == '\\' && *p < end) {
            c = *(*p)++;
            if (c == 'n')
                c = '\n';
        }
        g_string_append_c (value, c);
    }
    if (*p >= end)
        return NULL;
    (*p)++;
    return g_string_chunk_insert_const (page->strings, value->str);
}

/* One line `name{a="x",b="y"} value`; FALSE when it is not one. */
static gboolean
read_line (Page *page, const char *line, const char *end, const char *const *extra,
           const char *const *extra_names, gint64 timestamp_ms)
{
    const char *p = line;
    g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);

    while (p < end && *p != '{' && *p != ' ')
        p++;
    if (p == line || p == end)
        return FALSE;
    g_autofree char *name = g_strndup (line, (gsize) (p - line));
    g_ptr_array_add (labels,
                     label_new ("__name__", g_string_chunk_insert_const (page->strings, name)));
    if (*p == '{') {
        p++;
        while (p < end && *p != '}') {
            const char *start = p;

            while (p < end && *p != '=')
                p++;
            if (p + 1 >= end || p[1] != '"')
                return FALSE;
            g_autofree char *key = g_strndup (start, (gsize) (p - start));
            p += 2;
            const char *value = read_value (page, &p, end);
            if (value == NULL)
                return FALSE;
            if (!g_strv_contains (extra_names, key)) {
                const char *kept = g_string_chunk_insert_const (page->strings, key);
                g_ptr_array_add (labels, label_new (kept, value));
            }
            if (p < end && *p == ',')
                p++;
        }
        if (p >= end)
            return FALSE;
        p++;
    }
    while (p < end && *p == ' ')
        p++;
    g_autofree char *number = g_strndup (p, (gsize) (end - p));
    char *rest;
    gdouble value = g_ascii_strtod (number, &rest);
    if (rest == number || (*rest != '\0' && *rest != ' '))
        return FALSE;

    for (guint i = 0; extra[i] != NULL && extra[i + 1] != NULL; i += 2)
        g_ptr_array_add (labels, label_new (extra[i], extra[i + 1]));
    qsort (labels->pdata, labels->len, sizeof (gpointer), compare_labels);

    Prometheus__TimeSeries *series = g_new (Prometheus__TimeSeries, 1);
    prometheus__time_series__init (series);
    series->n_labels = labels->len;
    g_ptr_array_set_free_func (labels, NULL);
    series->labels = (Prometheus__Label **) g_ptr_array_steal (labels, NULL);
    series->n_samples = 1;
    series->samples = g_new (Prometheus__Sample *, 1);
    series->samples[0] = g_new (Prometheus__Sample, 1);
    prometheus__sample__init (series->samples[0]);
    series->samples[0]->value = value;
    series->samples[0]->timestamp = timestamp_ms;
    g_ptr_array_add (page->series, series);
    return TRUE;
}

/* Packs @page's series as a WriteRequest and compresses it. */
static GBytes *
compress_page (const Page *page, GError **error)
{
    Prometheus__WriteRequest request = PROMETHEUS__WRITE_REQUEST__INIT;

    request.n_timeseries = page->series->len;
    request.timeseries = (Prometheus__TimeSeries **) page->series->pdata;
    gsize packed_size = prometheus__write_request__get_packed_size (&request);
    g_autofree guint8 *packed = g_malloc (MAX (packed_size, 1));
    prometheus__write_request__pack (&request, packed);

    size_t compressed_size = snappy_max_compressed_length (packed_size);
    g_autofree char *compressed = g_malloc (MAX (compressed_size, 1));
    if (snappy_compress ((const char *) packed, packed_size, compressed, &compressed_size)
        != SNAPPY_OK) {
        g_set_error (error, ENCODE_ERROR, 0, "snappy could not compress %zu bytes", packed_size);
        return NULL;
    }
    return g_bytes_new_take (g_realloc (g_steal_pointer (&compressed), MAX (compressed_size, 1)),
                             compressed_size);
}

GBytes *
remote_write_encode (const char *text, gsize length, const char *const *labels,
                     gint64 timestamp_ms, guint *n_series, GError **error)
{
    Page page = { g_string_chunk_new (4096), g_ptr_array_new_with_free_func (series_free) };
    /* Every other element of @labels is a name: those the page must not repeat. */
    g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
    GBytes *body = NULL;
    gboolean read = TRUE;

    for (guint i = 0; labels[i] != NULL && labels[i + 1] != NULL; i += 2)
        g_strv_builder_add (names, labels[i]);
    g_auto (GStrv) extra_names = g_strv_builder_end (names);

    for (const char *line = text, *end = text + length; read && line < end;) {
        const char *eol = memchr (line, '\n', (gsize) (end - line));
        if (eol == NULL)
            eol = end;
        if (eol > line && *line != '#'
            && !read_line (&page, line, eol, labels, (const char *const *) extra_names,
                           timestamp_ms)) {
            g_set_error (error, ENCODE_ERROR, 0, "cannot read the series '%.*s'",
                         (int) MIN (eol - line, 200), line);
            read = FALSE;
        }
        line = eol + 1;
    }
    if (read)
        body = compress_page (&page, error);
    if (body != NULL)
        *n_series = page.series->len;
    g_ptr_array_unref (page.series);
    g_string_chunk_free (page.strings);
    return body;
}

char *
remote_write_decode (GBytes *body, GError **error)
{
    gsize size;
    const char *data = g_bytes_get_data (body, &size);
    size_t length;

    if (snappy_uncompressed_length (data, size, &length) != SNAPPY_OK) {
        g_set_error (error, ENCODE_ERROR, 0, "not snappy's block format");
        return NULL;
    }
    g_autofree char *packed = g_malloc (MAX (length, 1));
    if (snappy_uncompress (data, size, packed, &length) != SNAPPY_OK) {
        g_set_error (error, ENCODE_ERROR, 0, "snappy could not uncompress it");
        return NULL;
    }
    Prometheus__WriteRequest *request
        = prometheus__write_request__unpack (NULL, length, (const uint8_t *) packed);
    if (request == NULL) {
        g_set_error (error, ENCODE_ERROR, 0, "not a WriteRequest");
        return NULL;
    }
    GString *out = g_string_new (NULL);
    for (gsize t = 0; t < request->n_timeseries; t++) {
        const Prometheus__TimeSeries *series = request->timeseries[t];
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        g_string_append_c (out, '{');
        for (gsize l = 0; l < series->n_labels; l++)
            g_string_append_printf (out, "%s%s=\"%s\"", l > 0 ? "," : "", series->labels[l]->name,
                                    series->labels[l]->value);
        g_string_append_c (out, '}');
        for (gsize s = 0; s < series->n_samples; s++) {
            const Prometheus__Sample *sample = series->samples[s];
            g_string_append_printf (out, " %s %" G_GINT64_FORMAT,
                                    g_ascii_dtostr (buffer, sizeof buffer, sample->value),
                                    sample->timestamp);
        }
        g_string_append_c (out, '\n');
    }
    prometheus__write_request__free_unpacked (request, NULL);
    return g_string_free (out, FALSE);
}
