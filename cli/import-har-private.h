/* SPDX-License-Identifier: MIT */
/*
 * What `throng import har` shares between reading the recording
 * (import-har.c) and writing the plan (import-har-write.c): one imported
 * request per kept entry, in the recording's order, with what the plan
 * needs and the notes to write above its step.  Private to the command.
 */
#pragma once

#include <glib.h>

typedef struct {
    char *name;
    char *value;
    char *template;             /* the value with correlated values as `${vars.…}`, or NULL */
} HarHeader;

/* An extractor the correlation finder puts on a step (import-har-correlate.c). */
typedef struct {
    char *var;
    const char *kind;           /* "json", "regex", "header" or "cookie" */
    char *arg;                  /* the path, pattern, or header or cookie name */
    guint group;                /* of a regex */
} HarExtract;

typedef struct {
    guint entry;                /* index in log.entries, from 0 */
    char *method;
    char *url;                  /* as recorded, without its fragment */
    char *origin;               /* "scheme://host[:port]", lower case */
    char *host;                 /* the URL's host, without brackets */
    char *target;               /* path and query ("/", "/a?b=1") */
    GPtrArray *headers;         /* HarHeader*: kept, names merged without regard to case */
    char *content_type;         /* of the body, or NULL */
    GBytes *body;               /* NULL: none */
    gboolean body_binary;       /* recorded base64: written to a body file */
    char *body_file;            /* its name beside the plan ("plan.body-3.bin"), or NULL */
    int status;                 /* recorded status */
    int expect;                 /* the status a replay should get (304 → 200, see docs) */
    gint64 pause_us;            /* idle time before it: nothing of the recording in flight */
    GPtrArray *notes;           /* char*: comment lines above its step */
    /* What the recording's response held, for the correlation finder. */
    GPtrArray *response_headers; /* HarHeader*, as recorded, in order */
    GPtrArray *response_cookies; /* HarHeader*: name and value of each cookie it set */
    char *response_body;        /* UTF-8 text, or NULL (none, or binary) */
    char *response_mime;        /* its MIME type, or NULL */
    /* What the correlation finder wrote: NULL or empty when it found nothing. */
    char *url_template;         /* the target (path and query) with `${vars.…}`, or the whole url */
    char *body_template;
    GPtrArray *extracts;        /* HarExtract* */
} HarRequest;

/* What the recording said about itself and what the import left out. */
typedef struct {
    char *source;               /* the HAR's path as given */
    char *version;              /* log.version */
    char *creator;              /* "Name Version" of log.creator, or NULL */
    char *browser;              /* "Name Version" of log.browser, or NULL */
    guint entries;              /* log.entries */
    guint excluded_host;        /* --include-host */
    guint excluded_regex;       /* --exclude */
    guint excluded_static;      /* --no-static */
    GPtrArray *skipped;         /* char*: "entry N: why", for entries that cannot be replayed */
    GPtrArray *requests;        /* HarRequest* */
    guint correlated;           /* values extracted and templated (har_correlate) */
    guint uncertain;            /* values named in comments instead */
} HarImport;

void har_import_clear (HarImport *import);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HarImport, har_import_clear)

/* Which entries the command line keeps (import-har.c reads the options). */
typedef struct {
    char **include_hosts;       /* --include-host: NULL-terminated, or NULL for all */
    GPtrArray *exclude_regexes; /* --exclude: GRegex*, or NULL */
    gboolean no_static;         /* --no-static */
} HarSelect;

/*
 * Reads the recording at @path into @import (zero-initialised; cleared by
 * the caller with har_import_clear() whatever the result), keeping what
 * @select keeps.  FALSE with an error naming @path when it is not a HAR
 * 1.2 recording, or when no request is left to import.
 */
gboolean har_read (const char *path, const HarSelect *select, HarImport *import, GError **error);

/*
 * Finds the values a response of @import returned and a later request
 * sent (tokens, ids): puts an extractor on the step that got each and
 * templates where it is sent, and names in comments those it would not
 * replace safely (docs/har.md); counts both in @import.
 */
void har_correlate (HarImport *import);

/* An extractor that gives a value from a recorded response (import-har-extract.c). */
typedef struct {
    const char *kind;           /* "json", "regex", "header" or "cookie" */
    char *arg;
    guint group;
    char *name;                 /* what the response calls the value, or NULL */
    gboolean id_named;          /* a JSON member named like an identifier */
} HarSource;

void har_source_clear (HarSource *source);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HarSource, har_source_clear)

/*
 * The first extractor, in order of preference, that gives exactly @value
 * when run on @response's recorded headers, cookies and body; FALSE when
 * none does.
 */
gboolean har_find_source (const HarRequest *response, const char *value, HarSource *source);

/* The first occurrence of @needle in @text from @from with no letter or digit either side. */
const char *har_find_alone (const char *text, const char *needle, const char *from);

/* The runs of letters and digits of @text, as a set (free with g_hash_table_unref()); NULL for NULL. */
GHashTable *har_words_of (const char *text);

/* FALSE when a text of @words cannot hold @value alone (har_find_alone()); TRUE when it may. */
gboolean har_may_hold (GHashTable *words, const char *value);

/* @text escaped as a literal part of a template: `${` as `$${`. */
void har_append_literal (GString *out, const char *text, gsize length);

/* The plan of @import as YAML text, named @name (binary bodies as their body_file). */
char *har_write_plan (const HarImport *import, const char *name);

/* TRUE for "localhost", "*.localhost", 127.0.0.0/8 and ::1. */
gboolean har_host_is_loopback (const char *host);
