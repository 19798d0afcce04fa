/* SPDX-License-Identifier: MIT */
/*
 * Sample lines read back: names to indices, classes from their names, the
 * time parsed by hand (a GDateTime per sample would cost more than the
 * rest of the line).
 */
#include "samplefile-private.h"

#include <string.h>

/* Days from 1970-01-01 to the civil date (proleptic Gregorian); H. Hinnant's algorithm. */
static gint64
days_from_civil (gint64 y, guint m, guint d)
{
    y -= m <= 2;
    gint64 era = (y >= 0 ? y : y - 399) / 400;
    guint yoe = (guint) (y - era * 400);
    guint doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    guint doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (gint64) doe - 719468;
}

static gboolean
digits (const char *text, guint n, guint *out)
{
    *out = 0;
    for (guint i = 0; i < n; i++) {
        if (text[i] < '0' || text[i] > '9')
            return FALSE;
        *out = *out * 10 + (guint) (text[i] - '0');
    }
    return TRUE;
}

gint64
throng_sample_line_time (const char *text, gsize length)
{
    guint year, month, day, hour, minute, second, ms;

    /* YYYY-MM-DDTHH:MM:SS.mmmZ */
    if (length != 24 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':'
        || text[16] != ':' || text[19] != '.' || text[23] != 'Z' || !digits (text, 4, &year)
        || !digits (text + 5, 2, &month) || !digits (text + 8, 2, &day)
        || !digits (text + 11, 2, &hour) || !digits (text + 14, 2, &minute)
        || !digits (text + 17, 2, &second) || !digits (text + 20, 3, &ms) || month < 1
        || month > 12 || day < 1 || day > 31)
        return 0;
    gint64 seconds = days_from_civil (year, month, day) * 86400 + hour * 3600 + minute * 60
                     + second;
    return seconds * G_USEC_PER_SEC + (gint64) ms * 1000;
}

static ThrongErrorClass
error_class (const JsonToks *toks, gint index)
{
    if (index < 0 || g_array_index (toks->toks, JsonTok, index).type != JSONTOK_STRING)
        return THRONG_ERROR_NONE;
    for (guint c = THRONG_ERROR_NONE + 1; c < THRONG_ERROR_CLASS_SLOTS; c++)
        if (jsontok_string_equals (toks, index, throng_error_class_name ((ThrongErrorClass) c)))
            return (ThrongErrorClass) c;
    return THRONG_ERROR_OTHER;
}

static gint64
member_int (const JsonToks *toks, const char *name)
{
    return jsontok_int (toks, jsontok_member (toks, 0, name));
}

gboolean
throng_sample_line_read (const JsonToks *toks, const ThrongRunInfo *info,
                         gint64 run_start_wall_us, GStringChunk *strings, ThrongSample *sample)
{
    gint scenario = jsontok_member (toks, 0, "scenario");
    gint step = jsontok_member (toks, 0, "step");
    guint s, i;

    for (s = 0; s < info->n_scenarios; s++)
        if (jsontok_string_equals (toks, scenario, info->scenario_names[s]))
            break;
    if (s == info->n_scenarios)
        return FALSE;
    /*
     * By step_id when the line has it and it names a step of that label:
     * two steps of a scenario may share a label.  Lines of an older throng
     * name the step by its label alone, read as the first step that has it.
     */
    const char *const *labels = info->step_labels[s];
    gint64 n_labels = g_strv_length ((char **) labels);
    gint step_id_tok = jsontok_member (toks, 0, "step_id");
    gint64 step_id = step_id_tok >= 0 ? jsontok_int (toks, step_id_tok) : -1;
    if (step_id >= 0 && step_id < n_labels && jsontok_string_equals (toks, step, labels[step_id])) {
        i = (guint) step_id;
    } else {
        for (i = 0; labels[i] != NULL; i++)
            if (jsontok_string_equals (toks, step, labels[i]))
                break;
        if (labels[i] == NULL)
            return FALSE;
    }

    memset (sample, 0, sizeof *sample);
    sample->scenario = s;
    sample->step = i;
    gint time = jsontok_member (toks, 0, "time");
    if (time >= 0 && g_array_index (toks->toks, JsonTok, time).type == JSONTOK_STRING) {
        const JsonTok *tok = &g_array_index (toks->toks, JsonTok, time);
        sample->wall_start_us = throng_sample_line_time (toks->text + tok->start,
                                                         tok->end - tok->start);
        sample->start_us = sample->wall_start_us - run_start_wall_us;
    }
    sample->user = (guint32) member_int (toks, "user");
    sample->iteration = (guint64) member_int (toks, "iteration");
    sample->iteration32 = (guint32) sample->iteration;
    sample->elapsed_us = member_int (toks, "elapsed_us");
    sample->latency_us = member_int (toks, "latency_us");
    sample->connect_us = member_int (toks, "connect_us");
    sample->tls_us = member_int (toks, "tls_us");
    sample->status = (gint32) member_int (toks, "status");
    sample->error = error_class (toks, jsontok_member (toks, 0, "error"));
    sample->message = jsontok_string (toks, jsontok_member (toks, 0, "message"), strings);
    sample->bytes_sent = (guint64) member_int (toks, "bytes_sent");
    sample->bytes_received = (guint64) member_int (toks, "bytes_received");
    sample->connections_opened = (guint16) member_int (toks, "connections_opened");
    sample->handshakes_full = (guint16) member_int (toks, "handshakes_full");
    sample->handshakes_resumed = (guint16) member_int (toks, "handshakes_resumed");
    sample->resource = jsontok_string (toks, jsontok_member (toks, 0, "url"), strings);
    /* interned: the stats that count it keep the name */
    const char *protocol = jsontok_string (toks, jsontok_member (toks, 0, "protocol"), strings);
    sample->protocol = protocol != NULL ? g_intern_string (protocol) : NULL;
    return TRUE;
}
