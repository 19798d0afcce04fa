/* SPDX-License-Identifier: MIT */
/*
 * `multipart:` bodies (body.h): a list of parts, each `{ name, value }`
 * or `{ name, file, content_type }`, written as multipart/form-data
 * (RFC 7578) through body.c's builder.  Files are read once, at load,
 * relative to the plan's file, as body_file is; values are templates;
 * names, files, file names and content types are not, and `${` in them
 * is a plan error rather than text sent as written.  The boundary is
 * chosen at load, random, and not found in any file or literal value;
 * a value that a substitution fills could hold it only by guessing 24
 * random characters.
 */
#include "body.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* As body_file's: a part is read into memory whole, once. */
#define MULTIPART_MAX_FILE (G_GUINT64_CONSTANT (256) * 1024 * 1024)
#define BOUNDARY_RANDOM 24

/* One part as written. */
typedef struct {
    char *name;
    const ThrongNode *value;
    char *file;
    char *content_type;
    char *filename;
} PartSpec;

#define PART(n, t, field) .name = (n), .type = (t), .offset = offsetof (PartSpec, field)

static const ThrongOption part_table[] = {
    { PART ("name", THRONG_OPTION_STRING, name) },
    { PART ("value", THRONG_OPTION_NODE, value) },
    { PART ("file", THRONG_OPTION_STRING, file) },
    { PART ("content_type", THRONG_OPTION_STRING, content_type) },
    { PART ("filename", THRONG_OPTION_STRING, filename) },
    { NULL },
};

/* A part read and checked, before the boundary is known. */
typedef struct {
    PartSpec spec;
    GBytes *contents; /* a file part's */
} Part;

static void
part_clear (gpointer data)
{
    Part *part = data;

    throng_options_clear (part_table, &part->spec);
    g_clear_pointer (&part->contents, g_bytes_unref);
}

#define SHAPE "multipart is a list of parts, each { name: N, value: V } or { name: N, file: PATH }"

/* A field that is not a template: `${` in it would be sent as written, so it is refused. */
static gboolean
not_template (const ThrongNode *part, const char *key, const char *text, GError **error)
{
    if (text == NULL || strstr (text, "${") == NULL)
        return TRUE;
    throng_node_set_error (throng_node_lookup (part, key), error, THRONG_PLAN_ERROR_INVALID,
                           "'${' in a multipart part's %s: only value is a template; name, file, "
                           "filename and content_type are sent as written",
                           key);
    return FALSE;
}

static gboolean
header_safe (const ThrongNode *part, const char *key, const char *text, GError **error)
{
    if (text == NULL || strpbrk (text, "\r\n") == NULL)
        return TRUE;
    throng_node_set_error (throng_node_lookup (part, key), error, THRONG_PLAN_ERROR_INVALID,
                           "a multipart part's %s has a line break", key);
    return FALSE;
}

static gboolean
read_file (const ThrongNode *part, Part *out, GError **error)
{
    const ThrongNode *where = throng_node_lookup (part, "file");
    g_autofree char *path = NULL;
    g_autoptr (GMappedFile) mapped = NULL;
    g_autoptr (GError) local = NULL;

    if (g_path_is_absolute (out->spec.file)) {
        path = g_strdup (out->spec.file);
    } else {
        g_autofree char *dir = g_path_get_dirname (throng_node_file (where));
        path = g_build_filename (dir, out->spec.file, NULL);
    }
    if (g_access (path, R_OK) != 0) {
        int saved = errno;
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_FILE,
                               "cannot read multipart file '%s': %s", out->spec.file,
                               g_strerror (saved));
        return FALSE;
    }
    if (!throng_node_check_file (where, path, error))
        return FALSE;
    mapped = g_mapped_file_new (path, FALSE, &local);
    if (mapped == NULL) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_FILE,
                               "cannot read multipart file: %s", local->message);
        return FALSE;
    }
    if (g_mapped_file_get_length (mapped) > MULTIPART_MAX_FILE) {
        throng_node_set_error (where, error, THRONG_PLAN_ERROR_LIMIT,
                               "multipart file '%s' is larger than 256 MiB", out->spec.file);
        return FALSE;
    }
    /* A copy, not the mapping: the file may change while the run goes on. */
    out->contents
        = g_bytes_new (g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped));
    return TRUE;
}

static gboolean
part_read (const ThrongNode *node, Part *out, GError **error)
{
    PartSpec *spec = &out->spec;

    if (throng_node_kind (node) != THRONG_NODE_MAP) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_TYPE, SHAPE);
        return FALSE;
    }
    if (!throng_options_apply (node, part_table, spec, TRUE, "a multipart part", error))
        return FALSE;
    if (spec->name == NULL || spec->name[0] == '\0') {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "a multipart part needs a name");
        return FALSE;
    }
    if (spec->value != NULL && spec->file != NULL) {
        throng_node_set_error (throng_node_lookup (node, "file"), error, THRONG_PLAN_ERROR_INVALID,
                               "a multipart part has a value or a file, not both");
        return FALSE;
    }
    if (spec->value == NULL && spec->file == NULL) {
        throng_node_set_error (node, error, THRONG_PLAN_ERROR_INVALID,
                               "a multipart part needs a value or a file");
        return FALSE;
    }
    if (spec->filename != NULL && spec->file == NULL) {
        throng_node_set_error (throng_node_lookup (node, "filename"), error,
                               THRONG_PLAN_ERROR_INVALID,
                               "filename names a file part's file; this part has a value");
        return FALSE;
    }
    if (spec->value != NULL && throng_node_kind (spec->value) != THRONG_NODE_SCALAR) {
        throng_node_set_error (spec->value, error, THRONG_PLAN_ERROR_TYPE,
                               "a multipart part's value is text");
        return FALSE;
    }
    if (!not_template (node, "name", spec->name, error)
        || !not_template (node, "file", spec->file, error)
        || !not_template (node, "filename", spec->filename, error)
        || !not_template (node, "content_type", spec->content_type, error)
        || !header_safe (node, "content_type", spec->content_type, error))
        return FALSE;
    return spec->file == NULL || read_file (node, out, error);
}

static gboolean
found_in (const char *haystack, gsize length, const char *needle)
{
    return length > 0 && memmem (haystack, length, needle, strlen (needle)) != NULL;
}

/* Random, and in no file and no literal value: a part cannot end early. */
static char *
boundary_choose (const GArray *parts)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    for (;;) {
        GString *boundary = g_string_new ("----throng-");
        gboolean clash = FALSE;

        for (guint i = 0; i < BOUNDARY_RANDOM; i++)
            g_string_append_c (boundary, alphabet[g_random_int_range (0, sizeof alphabet - 1)]);
        for (guint i = 0; i < parts->len && !clash; i++) {
            const Part *part = &g_array_index (parts, Part, i);
            gsize length = 0;
            const char *text = part->contents != NULL ? g_bytes_get_data (part->contents, &length)
                                                      : throng_node_scalar (part->spec.value);

            if (part->contents == NULL)
                length = text != NULL ? strlen (text) : 0;
            clash = found_in (text, length, boundary->str);
        }
        if (!clash)
            return g_string_free (boundary, FALSE);
        g_string_free (boundary, TRUE);
    }
}

/*
 * A name or file name in a quoted-string, as browsers write it (WHATWG's
 * multipart/form-data): a quote and the line breaks percent-encoded, so
 * that no name, nor a file's base name, can end the part's header line.
 */
static void
append_quoted (GString *out, const char *text)
{
    g_string_append_c (out, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"')
            g_string_append (out, "%22");
        else if (*p == '\r')
            g_string_append (out, "%0D");
        else if (*p == '\n')
            g_string_append (out, "%0A");
        else
            g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

gboolean
http_multipart_compile (HttpBodyBuilder *b, const ThrongNode *multipart, char **boundary,
                        GError **error)
{
    g_autoptr (GArray) parts = NULL;

    if (throng_node_kind (multipart) != THRONG_NODE_SEQUENCE
        || throng_node_n_children (multipart) == 0) {
        throng_node_set_error (multipart, error, THRONG_PLAN_ERROR_TYPE, SHAPE);
        return FALSE;
    }
    parts = g_array_new (FALSE, TRUE, sizeof (Part));
    g_array_set_clear_func (parts, part_clear);
    g_array_set_size (parts, throng_node_n_children (multipart));
    for (guint i = 0; i < parts->len; i++)
        if (!part_read (throng_node_child (multipart, i), &g_array_index (parts, Part, i), error))
            return FALSE;

    *boundary = boundary_choose (parts);
    for (guint i = 0; i < parts->len; i++) {
        const Part *part = &g_array_index (parts, Part, i);
        GString *head = http_body_builder_literal (b);

        g_string_append_printf (head, "--%s\r\nContent-Disposition: form-data; name=", *boundary);
        append_quoted (head, part->spec.name);
        if (part->contents != NULL) {
            g_autofree char *base = g_path_get_basename (part->spec.file);
            g_string_append (head, "; filename=");
            append_quoted (head, part->spec.filename != NULL ? part->spec.filename : base);
        }
        g_string_append (head, "\r\n");
        if (part->spec.content_type != NULL || part->contents != NULL)
            g_string_append_printf (head, "Content-Type: %s\r\n",
                                    part->spec.content_type != NULL ? part->spec.content_type
                                                                    : "application/octet-stream");
        g_string_append (head, "\r\n");
        if (part->contents != NULL) {
            gsize length;
            const char *data = g_bytes_get_data (part->contents, &length);
            g_string_append_len (http_body_builder_literal (b), data, (gssize)length);
        } else if (!throng_node_is_null (part->spec.value)
                   && !http_body_builder_add_template (b, part->spec.value, HTTP_BODY_PART_RAW,
                                                       error)) {
            g_free (g_steal_pointer (boundary));
            return FALSE;
        }
        g_string_append (http_body_builder_literal (b), "\r\n");
    }
    g_string_append_printf (http_body_builder_literal (b), "--%s--\r\n", *boundary);
    return TRUE;
}
