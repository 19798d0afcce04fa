/* SPDX-License-Identifier: MIT */
/*
 * influx: an example throng reporter plugin, built outside the throng tree
 * against the installed SDK only (docs/plugins.md walks through it).
 *
 * It writes InfluxDB line protocol to a file: one line per snapshot
 * interval (about one a second) and one for the final summary, optionally
 * one per step of the summary.  The file can be sent as it is with
 * `influx write --file PATH` or tailed by Telegraf's `tail` input.
 *
 *   reporters:
 *     - influx:
 *         path: results.lp            # required
 *         measurement: throng         # default "throng"
 *         precision: ms               # ns (default), us, ms or s
 *         tags: { env: staging }      # added to every line
 *         steps: true                 # also one line per step at the end
 *         overwrite: false            # refuse to replace an existing file
 *
 *   throng,plan=checkout,env=staging,phase=interval requests=812i,errors=0i,... 1764681600000
 *
 * Build:
 *   cc -shared -fPIC -o libthrong-influx.so influx.c \
 *       $(pkg-config --cflags throng-1) $(pkg-config --libs glib-2.0)
 */
/* O_CLOEXEC under -std=c11 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <throng/throng.h>

/* Indexed like the divisors below. */
static const char *const precision_choices[] = { "ns", "us", "ms", "s", NULL };

typedef struct {
    char *path;
    char *measurement;
    int precision;
    const ThrongNode *tags;
    gboolean steps;
    gboolean overwrite;
} InfluxOptions;

static const ThrongOption influx_options[] = {
    { .name = "path", .type = THRONG_OPTION_STRING, .offset = offsetof (InfluxOptions, path) },
    { .name = "measurement", .type = THRONG_OPTION_STRING,
      .offset = offsetof (InfluxOptions, measurement) },
    { .name = "precision", .type = THRONG_OPTION_ENUM,
      .offset = offsetof (InfluxOptions, precision), .choices = precision_choices },
    { .name = "tags", .type = THRONG_OPTION_NODE, .offset = offsetof (InfluxOptions, tags) },
    { .name = "steps", .type = THRONG_OPTION_BOOL, .offset = offsetof (InfluxOptions, steps) },
    { .name = "overwrite", .type = THRONG_OPTION_BOOL,
      .offset = offsetof (InfluxOptions, overwrite) },
    { .name = NULL },
};

/* Tags the reporter writes itself; a user tag may not shadow them. */
static const char *const reserved_tags[] = { "plan", "phase", "scenario", "step", NULL };

typedef struct {
    InfluxOptions options;
    char *tags;    /* ",k=v,k=v", escaped, from the `tags` option */
    char *plan;    /* the plan's name, escaped as a tag value */
    FILE *file;
    GString *line; /* reused for every line */
} Influx;

/* --- line protocol -------------------------------------------------------- */

/* Measurements escape commas and spaces; tag keys, values and field keys also '='. */
static void
append_escaped (GString *out, const char *text, gboolean is_measurement)
{
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == ',' || *p == ' ' || (*p == '=' && !is_measurement))
            g_string_append_c (out, '\\');
        /* A line break would end the line: write it as a space. */
        g_string_append_c (out, *p == '\n' || *p == '\r' ? ' ' : *p);
    }
}

static char *
escaped (const char *text)
{
    GString *out = g_string_new (NULL);

    append_escaped (out, text, FALSE);
    return g_string_free (out, FALSE);
}

static void
append_uint_field (GString *line, const char *key, guint64 value)
{
    g_string_append_printf (line, "%s%s=%" G_GUINT64_FORMAT "i", line->str[line->len - 1] == ' ' ? "" : ",",
                            key, value);
}

static void
append_int_field (GString *line, const char *key, gint64 value)
{
    g_string_append_printf (line, "%s%s=%" G_GINT64_FORMAT "i", line->str[line->len - 1] == ' ' ? "" : ",",
                            key, value);
}

static void
append_float_field (GString *line, const char *key, gdouble value)
{
    char number[G_ASCII_DTOSTR_BUF_SIZE];

    /* Locale-independent: a decimal comma would break the line. */
    g_ascii_formatd (number, sizeof number, "%.3f", value);
    g_string_append_printf (line, "%s%s=%s", line->str[line->len - 1] == ' ' ? "" : ",", key,
                            number);
}

/* The measurement and tags, then a space: fields follow. */
static void
begin_line (Influx *self, const char *measurement_suffix, const char *phase)
{
    g_string_truncate (self->line, 0);
    append_escaped (self->line, self->options.measurement, TRUE);
    if (measurement_suffix != NULL)
        append_escaped (self->line, measurement_suffix, TRUE);
    g_string_append_printf (self->line, ",plan=%s%s,phase=%s", self->plan, self->tags, phase);
}

static void
append_stats (GString *line, const ThrongStats *stats, gint64 over_us)
{
    append_uint_field (line, "requests", stats->requests);
    append_uint_field (line, "errors", stats->errors);
    append_float_field (line, "rps", over_us > 0 ? stats->requests * 1e6 / (gdouble) over_us : 0);
    append_uint_field (line, "bytes_sent", stats->bytes_sent);
    append_uint_field (line, "bytes_received", stats->bytes_received);
    append_uint_field (line, "connections", stats->connections);
    append_int_field (line, "latency_min_us", throng_histogram_min (stats->latency));
    append_float_field (line, "latency_mean_us", throng_histogram_mean (stats->latency));
    append_int_field (line, "latency_p50_us", throng_histogram_percentile (stats->latency, 50));
    append_int_field (line, "latency_p90_us", throng_histogram_percentile (stats->latency, 90));
    append_int_field (line, "latency_p99_us", throng_histogram_percentile (stats->latency, 99));
    append_int_field (line, "latency_max_us", throng_histogram_max (stats->latency));
    /* Per error class, named as throng names them: errors_connect, errors_timeout … */
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++) {
        g_autofree char *key = NULL;
        const char *name;

        if (stats->errors_by_class[c] == 0)
            continue;
        /* The core names classes newer than this plugin. */
        name = throng_error_class_name (c);
        key = g_strdelimit (g_strconcat ("errors_", name != NULL ? name : "other", NULL), "-", '_');
        append_uint_field (line, key, stats->errors_by_class[c]);
    }
}

/* The timestamp in the configured precision, the newline, and out to the file. */
static void
end_line (Influx *self, gint64 wall_us)
{
    static const gint64 per_us[] = { 0, 1, 1000, 1000000 }; /* ns is a multiplication */
    gint64 stamp = self->options.precision == 0 ? wall_us * 1000
                                                : wall_us / per_us[self->options.precision];

    g_string_append_printf (self->line, " %" G_GINT64_FORMAT "\n", stamp);
    /* Write errors stick to the stream; close reports them. */
    fwrite (self->line->str, 1, self->line->len, self->file);
}

static guint
active_users (const ThrongSummary *summary)
{
    guint users = 0;

    for (guint i = 0; i < summary->n_scenarios; i++)
        users += summary->scenarios[i].active_users;
    return users;
}

/* --- plan load (main thread; touches nothing outside) --------------------- */

static void
influx_free (gpointer data)
{
    Influx *self = data;

    if (self->file != NULL)
        fclose (self->file);
    throng_options_clear (influx_options, &self->options);
    g_free (self->tags);
    g_free (self->plan);
    if (self->line != NULL)
        g_string_free (self->line, TRUE);
    g_free (self);
}

/* `tags` is a map of plain names to scalars; each error points at its node. */
static gboolean
read_tags (Influx *self, const ThrongNode *tags, GError **error)
{
    GString *out = g_string_new (NULL);

    if (tags != NULL && !throng_node_is_null (tags)) {
        if (throng_node_kind (tags) != THRONG_NODE_MAP) {
            throng_node_set_error (tags, error, THRONG_PLAN_ERROR_TYPE,
                                   "tags must be a map of tag names to values");
            g_string_free (out, TRUE);
            return FALSE;
        }
        for (guint i = 0; i < throng_node_n_children (tags); i++) {
            const ThrongNode *key = throng_node_key (tags, i);
            const ThrongNode *value = throng_node_child (tags, i);
            const char *name = throng_node_scalar (key);
            const char *text = throng_node_scalar (value);

            if (g_strv_contains (reserved_tags, name)) {
                throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                       "tag '%s' is written by the influx reporter itself", name);
                g_string_free (out, TRUE);
                return FALSE;
            }
            if (name[0] == '_') {
                throng_node_set_error (key, error, THRONG_PLAN_ERROR_INVALID,
                                       "tag names may not begin with '_' (reserved by InfluxDB)");
                g_string_free (out, TRUE);
                return FALSE;
            }
            /* InfluxDB drops a tag with an empty value: say so now, not at query time. */
            if (text == NULL || throng_node_is_null (value)) {
                throng_node_set_error (value, error, THRONG_PLAN_ERROR_TYPE,
                                       "tag '%s' needs a non-empty scalar value", name);
                g_string_free (out, TRUE);
                return FALSE;
            }
            g_string_append_c (out, ',');
            append_escaped (out, name, FALSE);
            g_string_append_c (out, '=');
            append_escaped (out, text, FALSE);
        }
    }
    self->tags = g_string_free (out, FALSE);
    return TRUE;
}

static gpointer
influx_configure (const ThrongNode *options, GError **error)
{
    Influx *self = g_new0 (Influx, 1);

    if (!throng_options_apply (options, influx_options, &self->options, FALSE, "influx options",
                               error)) {
        influx_free (self);
        return NULL;
    }
    if (self->options.path == NULL || self->options.path[0] == '\0') {
        if (options != NULL)
            throng_node_set_error (options, error, THRONG_PLAN_ERROR_MISSING,
                                   "the influx reporter needs a 'path'");
        else
            g_set_error_literal (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_MISSING,
                                 "the influx reporter needs a 'path'");
        influx_free (self);
        return NULL;
    }
    if (self->options.measurement == NULL)
        self->options.measurement = g_strdup ("throng");
    if (self->options.measurement[0] == '\0') {
        throng_node_set_error (throng_node_lookup (options, "measurement"), error,
                               THRONG_PLAN_ERROR_INVALID, "measurement must not be empty");
        influx_free (self);
        return NULL;
    }
    if (!read_tags (self, self->options.tags, error)) {
        influx_free (self);
        return NULL;
    }
    self->line = g_string_sized_new (512);
    return self;
}

/* --- the run (main thread) ----------------------------------------------- */

static gboolean
influx_open (gpointer data, const ThrongRunInfo *run, GError **error)
{
    Influx *self = data;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
    int fd;

    /* O_EXCL: results of an earlier run are never replaced by accident. */
    flags |= self->options.overwrite || run->overwrite ? O_TRUNC : O_EXCL;
    fd = g_open (self->options.path, flags, 0644);
    if (fd < 0) {
        int saved = errno;

        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s%s",
                     self->options.path, g_strerror (saved),
                     saved == EEXIST ? "; set overwrite: true or pass --overwrite" : "");
        return FALSE;
    }
    self->file = fdopen (fd, "w");
    if (self->file == NULL) {
        int saved = errno;

        close (fd);
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s",
                     self->options.path, g_strerror (saved));
        return FALSE;
    }
    self->plan = escaped (run->plan_name);
    return TRUE;
}

static void
influx_snapshot (gpointer data, const ThrongSummary *snapshot)
{
    Influx *self = data;

    begin_line (self, NULL, "interval");
    g_string_append_c (self->line, ' ');
    append_stats (self->line, &snapshot->total, snapshot->interval_us);
    append_uint_field (self->line, "active_users", active_users (snapshot));
    append_float_field (self->line, "cpu_share", snapshot->cpu_share);
    end_line (self, snapshot->end_wall_us);
    /* A line a second: let a tailing collector see each one as it comes. */
    fflush (self->file);
}

static gboolean
influx_close (gpointer data, const ThrongSummary *summary, GError **error)
{
    Influx *self = data;
    gboolean failed;
    int saved;

    begin_line (self, NULL, "summary");
    g_string_append_c (self->line, ' ');
    append_stats (self->line, &summary->total, summary->elapsed_us);
    append_float_field (self->line, "duration_s", summary->elapsed_us / 1e6);
    append_uint_field (self->line, "workers", summary->workers);
    g_string_append_printf (self->line, ",interrupted=%s", summary->interrupted ? "true" : "false");
    end_line (self, summary->end_wall_us);

    for (guint i = 0; self->options.steps && i < summary->n_scenarios; i++) {
        const ThrongScenarioSummary *scenario = &summary->scenarios[i];

        for (guint j = 0; j < scenario->n_steps; j++) {
            g_autofree char *scenario_tag = escaped (scenario->name);
            g_autofree char *step_tag = escaped (scenario->steps[j].label);

            begin_line (self, "_step", "summary");
            g_string_append_printf (self->line, ",scenario=%s,step=%s ", scenario_tag, step_tag);
            append_stats (self->line, &scenario->steps[j].stats, summary->elapsed_us);
            end_line (self, summary->end_wall_us);
        }
    }

    failed = ferror (self->file) != 0;
    saved = errno != 0 ? errno : EIO;
    if (fclose (self->file) != 0 && !failed) {
        failed = TRUE;
        saved = errno;
    }
    self->file = NULL;
    if (failed) {
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: write failed: %s",
                     self->options.path, g_strerror (saved));
        return FALSE;
    }
    return TRUE;
}

/* --- registration --------------------------------------------------------- */

static const ThrongReporter influx_reporter = {
    .size = sizeof (ThrongReporter),
    .name = "influx",
    .configure = influx_configure,
    .open = influx_open,
    .snapshot = influx_snapshot,
    .close = influx_close,
    .free = influx_free,
};

static gboolean
influx_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_reporter (host, &influx_reporter, error);
}

static const ThrongPluginDescriptor influx_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "influx",
    .version = "1.0",
    .description = "InfluxDB line protocol to a file",
    .init = influx_init,
};

THRONG_PLUGIN_DEFINE (influx_descriptor)
