/* SPDX-License-Identifier: MIT */
/*
 * Tests of the core's JSON tokenizer (core/jsontok.c), which `throng
 * report` reads jsonl files with: what it accepts and refuses (a torn
 * line must be refused, not half-read), lookups, numbers, and strings
 * unescaped — \u escapes and surrogate pairs included.  Also its
 * counterpart, the writer the run file is written with (jsonwrite.c): its
 * layout, compact and indented, and what it writes reads back.
 */
#include <math.h>
#include <string.h>

#include "jsontok-private.h"
#include "results/samplefile-private.h"
#include "results/jsonwrite-private.h"

static gboolean
parses (const char *text)
{
    JsonToks toks;
    jsontok_init (&toks);
    gboolean ok = jsontok_parse (&toks, text, strlen (text));
    jsontok_clear (&toks);
    return ok;
}

static void
test_syntax (void)
{
    static const char *const good[] = {
        "{}", "[]", " {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} ", "0", "\"\\u00e9\"",
        "{\"a\":{\"b\":{\"c\":[]}}}", "-0.0", "1E+2", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
    };
    static const char *const bad[] = {
        "", "{", "{\"a\":1", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "+1",
        "\"abc", "\"a\\qb\"", "\"\\u12\"", "\"tab\there\"", "{} {}", "tru", "nul", "[1 2]",
        "{\"type\":\"summary\",\"total\":{\"requests\":12", /* a line cut short */
        /* not UTF-8: a lone continuation byte, a sequence cut short, an overlong '/', a surrogate */
        "\"f\x9f\"", "\"\xc3\"", "\"\xe2\x82\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
    };
    for (guint i = 0; i < G_N_ELEMENTS (good); i++)
        if (!parses (good[i]))
            g_error ("refused valid JSON: %s", good[i]);
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
        if (parses (bad[i]))
            g_error ("accepted invalid JSON: %s", bad[i]);
    /* Nesting is bounded. */
    GString *deep = g_string_new (NULL);
    for (guint i = 0; i < 100; i++)
        g_string_append_c (deep, '[');
    for (guint i = 0; i < 100; i++)
        g_string_append_c (deep, ']');
    g_assert_false (parses (deep->str));
    g_string_free (deep, TRUE);
}

static void
test_lookups (void)
{
    const char *text = "{\"type\":\"interval\",\"n\":{\"skip\":[1,[2,3],{\"x\":4}]},"
                       "\"total\":{\"requests\":1234567890123,\"rate\":0.25,\"ok\":true},"
                       "\"list\":[\"a\",\"b\",\"c\"]}";
    JsonToks toks;
    jsontok_init (&toks);
    g_assert_true (jsontok_parse (&toks, text, strlen (text)));
    g_autoptr (GStringChunk) chunk = g_string_chunk_new (64);

    /* Members after a nested value are found past it. */
    gint total = jsontok_member (&toks, 0, "total");
    g_assert_cmpint (total, >, 0);
    g_assert_cmpint (jsontok_int (&toks, jsontok_member (&toks, total, "requests")), ==,
                     G_GINT64_CONSTANT (1234567890123));
    g_assert_cmpfloat (jsontok_double (&toks, jsontok_member (&toks, total, "rate")), ==, 0.25);
    g_assert_true (jsontok_bool (&toks, jsontok_member (&toks, total, "ok")));
    g_assert_cmpint (jsontok_member (&toks, total, "missing"), ==, -1);
    g_assert_cmpint (jsontok_member (&toks, -1, "requests"), ==, -1);
    /* Absent or mistyped values read as zero, never as garbage. */
    g_assert_cmpint (jsontok_int (&toks, jsontok_member (&toks, 0, "type")), ==, 0);
    g_assert_null (jsontok_string (&toks, total, chunk));

    gint list = jsontok_member (&toks, 0, "list");
    g_assert_cmpuint (jsontok_length (&toks, list), ==, 3);
    g_assert_cmpstr (jsontok_string (&toks, jsontok_element (&toks, list, 2), chunk), ==, "c");
    g_assert_cmpint (jsontok_element (&toks, list, 3), ==, -1);
    g_assert_true (jsontok_string_equals (&toks, jsontok_member (&toks, 0, "type"), "interval"));
    jsontok_clear (&toks);
}

static void
test_strings (void)
{
    const char *text = "[\"a \\\"b\\\" \\\\ c\\td\\n\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", "
                       "\"\\ud83d!\", \"caf\xc3\xa9\", \"\\/\"]";
    static const char *const expected[] = {
        "a \"b\" \\ c\td\n", "\xc3\xa9\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbd!",
        "caf\xc3\xa9", "/",
    };
    JsonToks toks;
    jsontok_init (&toks);
    g_assert_true (jsontok_parse (&toks, text, strlen (text)));
    g_autoptr (GStringChunk) chunk = g_string_chunk_new (64);
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
        gint element = jsontok_element (&toks, 0, i);
        g_assert_cmpstr (jsontok_string (&toks, element, chunk), ==, expected[i]);
        g_assert_true (jsontok_string_equals (&toks, element, expected[i]));
    }
    jsontok_clear (&toks);
}

/* The json reporter's sample times, parsed by hand, agree with GLib's ISO 8601. */
static void
test_sample_time (void)
{
    static const char *const times[] = {
        "1970-01-01T00:00:00.000Z", "2026-12-02T14:36:30.365Z", "2000-02-29T23:59:59.999Z",
        "2100-03-01T00:00:00.001Z", "1969-12-31T23:59:59.500Z",
    };
    for (guint i = 0; i < G_N_ELEMENTS (times); i++) {
        g_autoptr (GDateTime) expected = g_date_time_new_from_iso8601 (times[i], NULL);
        gint64 us = g_date_time_to_unix (expected) * G_USEC_PER_SEC
                    + g_date_time_get_microsecond (expected);
        g_assert_cmpint (throng_sample_line_time (times[i], strlen (times[i])), ==, us);
    }
    g_assert_cmpint (throng_sample_line_time ("2026-12-02 14:36:30.365Z", 24), ==, 0);
    g_assert_cmpint (throng_sample_line_time ("2026-13-02T14:36:30.365Z", 24), ==, 0);
    g_assert_cmpint (throng_sample_line_time ("2026-12-02T14:36:30Z", 20), ==, 0);
}

static void
write_sample (JsonWrite *w)
{
    jsonwrite_begin_object (w);
    jsonwrite_member (w, "a");
    jsonwrite_int (w, -12);
    jsonwrite_member (w, "empty");
    jsonwrite_begin_object (w);
    jsonwrite_end_object (w);
    jsonwrite_member (w, "none");
    jsonwrite_begin_array (w);
    jsonwrite_end_array (w);
    jsonwrite_member (w, "list");
    jsonwrite_begin_array (w);
    jsonwrite_double (w, 0.1);
    jsonwrite_double (w, 3);
    jsonwrite_double (w, NAN);
    jsonwrite_begin_object (w);
    jsonwrite_member (w, "q\"\n");
    jsonwrite_string (w, "caf\xc3\xa9 \x01\t\xff");
    jsonwrite_end_object (w);
    jsonwrite_null (w);
    jsonwrite_bool (w, TRUE);
    jsonwrite_string (w, NULL);
    jsonwrite_end_array (w);
    jsonwrite_end_object (w);
}

/* The layout the json reporter has always written: docs/reporters.md shows it. */
static void
test_write_layout (void)
{
    g_autoptr (GString) compact = g_string_new (NULL);
    g_autoptr (GString) pretty = g_string_new (NULL);
    JsonWrite w;

    jsonwrite_init (&w, compact, FALSE);
    write_sample (&w);
    g_assert_cmpstr (compact->str, ==,
                     "{\"a\":-12,\"empty\":{},\"none\":[],\"list\":[0.1,3.0,0.0,"
                     "{\"q\\\"\\n\":\"caf\xc3\xa9 \\u0001\\t\xef\xbf\xbd\"},null,true,null]}");
    jsonwrite_init (&w, pretty, TRUE);
    write_sample (&w);
    g_assert_cmpstr (pretty->str, ==,
                     "{\n  \"a\": -12,\n  \"empty\": {},\n  \"none\": [],\n  \"list\": [\n"
                     "    0.1,\n    3.0,\n    0.0,\n    {\n      \"q\\\"\\n\": "
                     "\"caf\xc3\xa9 \\u0001\\t\xef\xbf\xbd\"\n    },\n    null,\n    true,\n"
                     "    null\n  ]\n}");

    /* Both read back, to the same values. */
    for (guint i = 0; i < 2; i++) {
        GString *text = i == 0 ? compact : pretty;
        g_autoptr (GStringChunk) chunk = g_string_chunk_new (64);
        JsonToks toks;

        jsontok_init (&toks);
        g_assert_true (jsontok_parse (&toks, text->str, text->len));
        g_assert_cmpint (jsontok_int (&toks, jsontok_member (&toks, 0, "a")), ==, -12);
        gint list = jsontok_member (&toks, 0, "list");
        g_assert_cmpuint (jsontok_length (&toks, list), ==, 7);
        g_assert_cmpfloat (jsontok_double (&toks, jsontok_element (&toks, list, 0)), ==, 0.1);
        gint object = jsontok_element (&toks, list, 3);
        g_assert_cmpstr (jsontok_string (&toks, jsontok_member (&toks, object, "q\"\n"), chunk), ==,
                         "caf\xc3\xa9 \x01\t\xef\xbf\xbd");
        jsontok_clear (&toks);
    }
}

/* Integers without printf, as printf writes them. */
static void
test_write_int (void)
{
    static const gint64 values[] = { 0, 9, 10, 99, 100, -1, -10, 1733151630365, G_MAXINT64,
                                     G_MININT64 };

    for (guint i = 0; i < G_N_ELEMENTS (values); i++) {
        g_autoptr (GString) out = g_string_new (NULL);
        g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, values[i]);

        jsonwrite_append_int (out, values[i]);
        g_assert_cmpstr (out->str, ==, expected);
    }
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/jsontok/syntax", test_syntax);
    g_test_add_func ("/jsontok/lookups", test_lookups);
    g_test_add_func ("/jsontok/strings", test_strings);
    g_test_add_func ("/jsontok/sample-time", test_sample_time);
    g_test_add_func ("/jsonwrite/layout", test_write_layout);
    g_test_add_func ("/jsonwrite/int", test_write_int);
    return g_test_run ();
}
