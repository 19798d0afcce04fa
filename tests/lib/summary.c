/* SPDX-License-Identifier: MIT */
/*
 * Reading summaries and sample files (see summary.h).
 */
#include "summary.h"

#include "test-utils.h"

#include <string.h>

JsonNode *
throng_test_json_load (const char *path, GError **error)
{
    g_autoptr (JsonParser) parser = json_parser_new ();
    JsonNode *root;

    if (!json_parser_load_from_file (parser, path, error))
        return NULL;
    root = json_parser_get_root (parser);
    if (root == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: empty document", path);
        return NULL;
    }
    return json_node_copy (root);
}

JsonNode *
throng_test_json_get (JsonNode *root, const char *path)
{
    g_auto (GStrv) parts = NULL;
    JsonNode *node = root;

    g_return_val_if_fail (root != NULL && path != NULL, NULL);
    if (*path == '\0')
        return root;
    parts = g_strsplit (path, ".", -1);
    for (gsize i = 0; parts[i] != NULL && node != NULL; i++) {
        if (JSON_NODE_HOLDS_OBJECT (node)) {
            JsonObject *object = json_node_get_object (node);

            node = json_object_get_member (object, parts[i]);
        } else if (JSON_NODE_HOLDS_ARRAY (node)) {
            JsonArray *array = json_node_get_array (node);
            char *end = NULL;
            guint64 index = g_ascii_strtoull (parts[i], &end, 10);

            if (end == parts[i] || *end != '\0' || index >= json_array_get_length (array))
                return NULL;
            node = json_array_get_element (array, (guint) index);
        } else {
            return NULL;
        }
    }
    return node;
}

gboolean
throng_test_json_has (JsonNode *root, const char *path)
{
    return throng_test_json_get (root, path) != NULL;
}

static JsonNode *
json_value (JsonNode *root, const char *path, GType type)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != type)
        g_error ("JSON \"%s\" is not a %s", path, g_type_name (type));
    return node;
}

gint64
throng_test_json_int (JsonNode *root, const char *path)
{
    return json_node_get_int (json_value (root, path, G_TYPE_INT64));
}

gint64
throng_test_json_int_or (JsonNode *root, const char *path, gint64 fallback)
{
    if (!throng_test_json_has (root, path))
        return fallback;
    return throng_test_json_int (root, path);
}

double
throng_test_json_double (JsonNode *root, const char *path)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (!JSON_NODE_HOLDS_VALUE (node) || (json_node_get_value_type (node) != G_TYPE_DOUBLE &&
                                          json_node_get_value_type (node) != G_TYPE_INT64))
        g_error ("JSON \"%s\" is not a number", path);
    return json_node_get_double (node);
}

const char *
throng_test_json_string (JsonNode *root, const char *path)
{
    return json_node_get_string (json_value (root, path, G_TYPE_STRING));
}

gboolean
throng_test_json_bool (JsonNode *root, const char *path)
{
    return json_node_get_boolean (json_value (root, path, G_TYPE_BOOLEAN));
}

guint
throng_test_json_length (JsonNode *root, const char *path)
{
    JsonNode *node = throng_test_json_get (root, path);

    if (node == NULL)
        g_error ("JSON summary has no \"%s\"", path);
    if (JSON_NODE_HOLDS_ARRAY (node))
        return json_array_get_length (json_node_get_array (node));
    if (JSON_NODE_HOLDS_OBJECT (node))
        return json_object_get_size (json_node_get_object (node));
    g_error ("JSON \"%s\" is neither an array nor an object", path);
    return 0;
}

gint64
throng_test_summary_class (JsonNode *root, const char *stats, const char *klass)
{
    g_autofree char *path = g_strdup_printf ("%s.errors_by_class.%s", stats, klass);

    return throng_test_json_int_or (root, path, 0);
}

gint64
throng_test_summary_class_sum (JsonNode *root, const char *stats)
{
    g_autofree char *path = g_strconcat (stats, ".errors_by_class", NULL);
    JsonNode *node = throng_test_json_get (root, path);
    g_autoptr (GList) members = NULL;
    gint64 sum = 0;

    if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        g_error ("JSON summary has no object \"%s\"", path);
    members = json_object_get_members (json_node_get_object (node));
    for (GList *l = members; l != NULL; l = l->next)
        sum += json_object_get_int_member (json_node_get_object (node), l->data);
    return sum;
}

void
throng_test_summary_assert_totals (JsonNode *root, const char *stats)
{
    g_autofree char *requests = g_strconcat (stats, ".requests", NULL);
    g_autofree char *errors = g_strconcat (stats, ".errors", NULL);

    g_assert_cmpint (throng_test_summary_class_sum (root, stats), ==,
                     throng_test_json_int (root, errors));
    g_assert_cmpint (throng_test_json_int (root, errors), <=,
                     throng_test_json_int (root, requests));
}

const char *
throng_test_summary_find_warning (JsonNode *root, const char *fragment)
{
    guint n = throng_test_json_length (root, "warnings");

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("warnings.%u", i);
        const char *text = throng_test_json_string (root, path);

        if (strstr (text, fragment) != NULL)
            return text;
    }
    return NULL;
}

gboolean
throng_test_summary_has_warning (JsonNode *root, const char *fragment)
{
    return throng_test_summary_find_warning (root, fragment) != NULL;
}

void
throng_test_summary_print_warnings (JsonNode *root, const char *label)
{
    guint n = throng_test_json_length (root, "warnings");

    for (guint i = 0; i < n; i++) {
        g_autofree char *path = g_strdup_printf ("warnings.%u", i);

        g_test_message ("%s: %s", label, throng_test_json_string (root, path));
    }
}

/* ------------------------------------------------------------------ */
/* CSV samples                                                         */

guint
throng_test_csv_rows (const char *path)
{
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;

    g_file_get_contents (path, &text, NULL, &error);
    g_assert_no_error (error);
    if (text[0] == '\0')
        return 0;
    if (!g_str_has_suffix (text, "\n"))
        g_error ("%s ends in a torn line", path);
    return throng_test_count_lines (text) - 1;
}

