/* SPDX-License-Identifier: MIT */
/*
 * The plan `throng import har` writes (docs/har.md): a comment header
 * saying where it came from and what was left out, one scenario of one
 * user and one iteration, the first request's origin as
 * `defaults.http.base_url` (requests to other origins keep absolute
 * URLs) and the headers every request sends as `defaults.http.headers`,
 * a `pause` step before each request that the recording reached after
 * 100 ms or more with nothing in flight, and one http step per request
 * with a comment on its entry and a check of its recorded status.  Every string is written
 * double-quoted, so no recorded text can change the plan's structure.
 */
#include "import-har-private.h"

#include <string.h>
#include <throng/version.h>

/* The longest pause a plan accepts (docs/plan-reference.md). */
#define PAUSE_MAX_US (G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC)
/* Shorter recorded gaps are the browser's own work, not the user's: no pause step. */
#define PAUSE_MIN_US (100 * 1000)
/* Pauses are written rounded to this. */
#define PAUSE_ROUND_US (10 * 1000)

/* Whether YAML lets @c stand in a double-quoted scalar as it is (YAML 1.1's printable set). */
static gboolean
yaml_printable (gunichar c)
{
    return c == 0x09 || (c >= 0x20 && c <= 0x7e) || c == 0x85 || (c >= 0xa0 && c <= 0xd7ff)
           || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/*
 * @text (UTF-8) as a YAML double-quoted scalar: recorded text, whose `${`
 * is written `$${`, or a @template of the correlation finder's, whose
 * `${` is one.
 */
static void
append_scalar (GString *out, const char *text, gboolean template)
{
    g_string_append_c (out, '"');
    for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p)) {
        gunichar c = g_utf8_get_char (p);

        if (c == '"' || c == '\\') {
            g_string_append_c (out, '\\');
            g_string_append_c (out, (char) c);
        } else if (c == '$' && p[1] == '{' && !template) {
            /* A recorded `${` is text: `$${` writes it in a plan (docs/journeys.md). */
            g_string_append (out, "$$");
        } else if (c == '\n') {
            g_string_append (out, "\\n");
        } else if (c == '\r') {
            g_string_append (out, "\\r");
        } else if (c == '\t') {
            g_string_append (out, "\\t");
        } else if (!yaml_printable (c)) {
            g_string_append_printf (out, c <= 0xff ? "\\x%02x" : "\\u%04x", c);
        } else {
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
        }
    }
    g_string_append_c (out, '"');
}

static void
append_quoted (GString *out, const char *text)
{
    append_scalar (out, text, FALSE);
}

/* @template when the correlation finder wrote one, else @text as recorded. */
static void
append_either (GString *out, const char *template, const char *text)
{
    if (template != NULL)
        append_scalar (out, template, TRUE);
    else
        append_quoted (out, text);
}

/* A comment line at @indent: control characters become spaces, so it stays one line. */
static void
append_comment (GString *out, const char *indent, const char *text)
{
    g_string_append_printf (out, "%s# ", indent);
    for (const char *p = text; *p != '\0'; p++)
        g_string_append_c (out, (guchar) *p < 0x20 || *p == 0x7f ? ' ' : *p);
    g_string_append_c (out, '\n');
}

static void G_GNUC_PRINTF (3, 4)
append_commentf (GString *out, const char *indent, const char *format, ...)
{
    va_list args;
    va_start (args, format);
    g_autofree char *text = g_strdup_vprintf (format, args);
    va_end (args);
    append_comment (out, indent, text);
}

/* A duration as a plan writes it: whole milliseconds, or microseconds below one. */
static char *
format_duration (gint64 us)
{
    if (us >= 1000)
        return g_strdup_printf ("%" G_GINT64_FORMAT "ms", (us + 500) / 1000);
    return g_strdup_printf ("%" G_GINT64_FORMAT "us", us);
}

/* The origins of the requests, in order of first use, with how many requests each. */
static void
count_origins (const HarImport *import, GPtrArray *origins, GArray *counts)
{
    for (guint i = 0; i < import->requests->len; i++) {
        const HarRequest *request = g_ptr_array_index (import->requests, i);
        guint o = 0;

        while (o < origins->len && strcmp (g_ptr_array_index (origins, o), request->origin) != 0)
            o++;
        if (o == origins->len) {
            guint zero = 0;
            g_ptr_array_add (origins, request->origin);
            g_array_append_val (counts, zero);
        }
        g_array_index (counts, guint, o)++;
    }
}

static void
write_header (GString *out, const HarImport *import, GPtrArray *origins, GArray *counts)
{
    append_commentf (out, "", "Imported from %s by `throng import har` (throng %s).",
                     import->source, THRONG_VERSION_STRING);
    append_commentf (out, "", "HAR %s%s%s%s%s: %u entr%s, %u step%s.", import->version,
                     import->creator != NULL ? " written by " : "",
                     import->creator != NULL ? import->creator : "",
                     import->browser != NULL ? ", browser " : "",
                     import->browser != NULL ? import->browser : "", import->entries,
                     import->entries == 1 ? "y" : "ies", import->requests->len,
                     import->requests->len == 1 ? "" : "s");
    if (import->excluded_host + import->excluded_regex + import->excluded_static > 0)
        append_commentf (out, "", "Left out: %u by --include-host, %u by --exclude, %u by "
                         "--no-static.",
                         import->excluded_host, import->excluded_regex, import->excluded_static);
    for (guint i = 0; i < import->skipped->len; i++)
        append_commentf (out, "", "Skipped %s",
                         (const char *) g_ptr_array_index (import->skipped, i));
    if (import->correlated + import->uncertain > 0)
        append_commentf (out, "", "Correlated: %u value%s that responses gave, extracted and sent "
                         "as ${vars.…}; %u named in comments.",
                         import->correlated, import->correlated == 1 ? "" : "s",
                         import->uncertain);
    append_comment (out, "", "One user replays the recording once: raise users and iterations, "
                             "or set a duration,");
    append_comment (out, "", "to make it a load test.  Read it first: what it sends, and where.");
    for (guint o = 0; o < origins->len; o++) {
        const char *origin = g_ptr_array_index (origins, o);
        g_autoptr (GUri) uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
        const char *host = uri != NULL ? g_uri_get_host (uri) : origin;

        append_commentf (out, "", "%s: %u request%s%s%s", origin, g_array_index (counts, guint, o),
                         g_array_index (counts, guint, o) == 1 ? "" : "s",
                         o == 0 ? ", the base_url" : ", absolute URLs",
                         har_host_is_loopback (host)
                             ? ""
                             : "; NOT a loopback host: running this plan sends load there");
    }
}

static const HarHeader *
find_header (const GPtrArray *headers, const char *name)
{
    for (guint h = 0; h < headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (headers, h);
        if (g_ascii_strcasecmp (header->name, name) == 0)
            return header;
    }
    return NULL;
}

/* The headers every request sends with the same value: written once, in defaults.http. */
static GPtrArray *
common_headers (const HarImport *import)
{
    const HarRequest *first = g_ptr_array_index (import->requests, 0);
    GPtrArray *common = g_ptr_array_new ();

    for (guint h = 0; h < first->headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (first->headers, h);
        gboolean everywhere = TRUE;

        for (guint i = 1; i < import->requests->len && everywhere; i++) {
            const HarRequest *request = g_ptr_array_index (import->requests, i);
            const HarHeader *other = find_header (request->headers, header->name);
            everywhere = other != NULL && strcmp (other->value, header->value) == 0;
        }
        if (everywhere)
            g_ptr_array_add (common, (gpointer) header);
    }
    return common;
}

/* @headers but those in @skip, as a `headers:` map at @indent. */
static void
write_headers (GString *out, const char *indent, const GPtrArray *headers, const GPtrArray *skip)
{
    gboolean opened = FALSE;

    for (guint h = 0; h < headers->len; h++) {
        const HarHeader *header = g_ptr_array_index (headers, h);

        if (skip != NULL && find_header (skip, header->name) != NULL)
            continue;
        if (!opened)
            g_string_append_printf (out, "%sheaders:\n", indent);
        opened = TRUE;
        g_string_append_printf (out, "%s  ", indent);
        append_quoted (out, header->name);
        g_string_append (out, ": ");
        append_either (out, header->template, header->value);
        g_string_append_c (out, '\n');
    }
}

static void
write_step (GString *out, const HarRequest *request, const char *base_origin,
            const GPtrArray *common)
{
    const char *indent = "      ";
    gsize body_length = 0;
    const char *data
        = request->body != NULL ? g_bytes_get_data (request->body, &body_length) : NULL;
    /* A text body as a string (the bytes carry no NUL); a binary one is its body_file. */
    g_autofree char *body = request->body != NULL && !request->body_binary
                                ? g_strndup (data != NULL ? data : "", body_length)
                                : NULL;

    g_string_append_c (out, '\n');
    g_autofree char *pause = request->pause_us >= 1000 ? format_duration (request->pause_us) : NULL;
    append_commentf (out, indent, "entry %u: %s %s -> %d%s%s", request->entry + 1, request->method,
                     request->url, request->status, pause != NULL ? ", after a pause of " : "",
                     pause != NULL ? pause : "");
    for (guint n = 0; n < request->notes->len; n++)
        append_comment (out, indent, g_ptr_array_index (request->notes, n));
    if (request->pause_us >= PAUSE_MIN_US) {
        gint64 rounded = (request->pause_us + PAUSE_ROUND_US / 2) / PAUSE_ROUND_US * PAUSE_ROUND_US;

        g_string_append_printf (out, "      - pause: %" G_GINT64_FORMAT "ms\n",
                                MIN (rounded, PAUSE_MAX_US) / 1000);
    }
    g_string_append (out, "      - http:\n          method: ");
    append_quoted (out, request->method);
    g_string_append (out, "\n          url: ");
    gboolean relative = strcmp (request->origin, base_origin) == 0;
    if (request->url_template != NULL && !relative) {
        g_autoptr (GString) url = g_string_new (NULL);
        har_append_literal (url, request->origin, strlen (request->origin));
        g_string_append (url, request->url_template);
        append_scalar (out, url->str, TRUE);
    } else {
        append_either (out, request->url_template, relative ? request->target : request->url);
    }
    g_string_append_c (out, '\n');
    write_headers (out, "          ", request->headers, common);
    if (request->body_file != NULL) {
        g_string_append (out, "          body_file: ");
        append_quoted (out, request->body_file);
        g_string_append_c (out, '\n');
    } else if (body != NULL) {
        g_string_append (out, "          body: ");
        append_either (out, request->body_template, body);
        g_string_append_c (out, '\n');
    }
    /* What the recording got counts as success, as the browser took it. */
    if (request->expect < 200 || request->expect > 399)
        g_string_append_printf (out, "          expect_status: \"%d\"\n", request->expect);
    /* The recorded status as a check: a replay that gets another fails it (docs/journeys.md). */
    g_string_append_printf (out, "          check: [ { status: %d } ]\n", request->expect);
    /* What the correlation finder found this response gives a later request. */
    for (guint e = 0; e < request->extracts->len; e++) {
        const HarExtract *extract = g_ptr_array_index (request->extracts, e);
        if (e == 0)
            g_string_append (out, "          extract:\n");
        g_string_append_printf (out, "            %s: { %s: ", extract->var, extract->kind);
        append_quoted (out, extract->arg);
        if (extract->group > 0)
            g_string_append_printf (out, ", group: %u", extract->group);
        g_string_append (out, " }\n");
    }
}

char *
har_write_plan (const HarImport *import, const char *name)
{
    g_autoptr (GString) out = g_string_new (NULL);
    g_autoptr (GPtrArray) origins = g_ptr_array_new ();
    g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint));
    g_autoptr (GPtrArray) common = common_headers (import);

    count_origins (import, origins, counts);
    write_header (out, import, origins, counts);

    g_string_append (out, "name: ");
    append_quoted (out, name);
    g_string_append (out, "\ndefaults:\n  http:\n    base_url: ");
    append_quoted (out, g_ptr_array_index (origins, 0));
    g_string_append_c (out, '\n');
    write_headers (out, "    ", common, NULL);
    /* Errors count what the checks do not: an extractor that found nothing, a request
     * not sent for an unset variable, a connection refused. */
    g_string_append (out, "# A replay that no longer works fails (exit status 99): every step gets the\n"
                          "# status it recorded, every value the plan extracts is found.\n"
                          "thresholds: [ \"checks.rate == 100%\", \"total.errors == 0\" ]\n");
    g_string_append (out, "scenarios:\n  - name: ");
    append_quoted (out, name);
    g_string_append (out, "\n    users: 1\n    iterations: 1\n");

    g_string_append (out, "    steps:");
    for (guint i = 0; i < import->requests->len; i++)
        write_step (out, g_ptr_array_index (import->requests, i), g_ptr_array_index (origins, 0),
                    common);
    return g_string_free (g_steal_pointer (&out), FALSE);
}
