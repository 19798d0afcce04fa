/* SPDX-License-Identifier: MIT */
/*
 * A step's rules (rules.h) on one final response: templated values
 * resolved for the user, extractors run, checks judged (each by match.c),
 * and the first failure said in the sample.
 */
#include "rules.h"

#include <string.h>

/* What a failed extractor saw: the start of the body, or what was missing. */
static void
extractor_seen (const HttpExtractor *extractor, const HttpResponseView *response, GString *out)
{
    switch (extractor->kind) {
    case HTTP_EXTRACT_HEADER:
        g_string_append (out, "no such header");
        return;
    case HTTP_EXTRACT_COOKIE:
        g_string_append (out, "no such cookie");
        return;
    default:
        if (response->body == NULL || response->body_len == 0) {
            g_string_append (out, "an empty body");
            return;
        }
        g_string_append_c (out, '\'');
        gsize len = MIN (response->body_len, HTTP_SEEN_MAX);
        while (len > 0 && len < response->body_len && ((guchar)response->body[len] & 0xC0) == 0x80)
            len--;
        g_string_append_len (out, response->body, (gssize)len);
        g_string_append_c (out, '\'');
        return;
    }
}

/* Distinct patterns a user's judge keeps compiled before it starts over. */
#define HTTP_JUDGE_REGEXES_MAX 64

/*
 * A templated rule's value (and, for a @pattern, its compiled regex) for
 * this response, into @judge; FALSE with the reason in @why when it cannot
 * be had: a variable it reads is not set, or the value is not a regex.
 */
static gboolean
resolve (const ThrongTemplate *tpl, gboolean pattern, ThrongUser *user, HttpJudge *judge,
         GString *why)
{
    g_autoptr (GError) error = NULL;
    GRegex *regex;

    g_string_truncate (judge->value, 0);
    judge->regex = NULL;
    if (!throng_template_expand (tpl, user, judge->value, &error)) {
        g_string_assign (why, error->message);
        return FALSE;
    }
    if (!pattern)
        return TRUE;
    regex = g_hash_table_lookup (judge->regexes, judge->value->str);
    if (regex == NULL) {
        regex = g_regex_new (judge->value->str, G_REGEX_OPTIMIZE, 0, &error);
        if (regex == NULL) {
            g_string_printf (why, "'%.*s' is not a valid regex: %s", HTTP_SEEN_MAX,
                             judge->value->str, error->message);
            return FALSE;
        }
        /* A pattern built from a value that changes every time must not grow without end. */
        if (g_hash_table_size (judge->regexes) >= HTTP_JUDGE_REGEXES_MAX)
            g_hash_table_remove_all (judge->regexes);
        g_hash_table_insert (judge->regexes, g_strdup (judge->value->str), regex);
    }
    judge->regex = regex;
    return TRUE;
}

/* Fails @sample with @message's text, unless an earlier rule already failed it. */
static void
fail (ThrongSample *sample, gboolean *failed, GString *message)
{
    if (*failed)
        return;
    *failed = TRUE;
    sample->error = THRONG_ERROR_CHECK;
    throng_sample_set_message (sample, message->str);
}

void
http_rules_judge (const HttpRules *rules, ThrongUser *user, const HttpResponseView *response,
                  HttpJudge *judge, ThrongSample *sample)
{
    gboolean failed = sample->error != THRONG_ERROR_NONE;
    GString *message = judge->message;

    judge->parsed = FALSE;
    judge->root = NULL;
    for (guint i = 0; i < rules->extractors->len; i++) {
        const HttpExtractor *extractor = &g_array_index (rules->extractors, HttpExtractor, i);

        if (extractor->pattern != NULL) {
            if (!resolve (extractor->pattern, TRUE, user, judge, judge->seen)) {
                g_string_printf (message, "extractor '%s' (regex %s): %s", extractor->var,
                                 extractor->arg, judge->seen->str);
                fail (sample, &failed, message);
                continue;
            }
            if ((gint)extractor->group > g_regex_get_capture_count (judge->regex)) {
                g_string_printf (message, "extractor '%s': group %u, but the regex '%.*s' has "
                                 "%d group(s)", extractor->var, extractor->group, HTTP_SEEN_MAX,
                                 judge->value->str, g_regex_get_capture_count (judge->regex));
                fail (sample, &failed, message);
                continue;
            }
        }
        if (http_extract_eval (extractor, response, judge, judge->text)) {
            throng_user_set_var (user, extractor->slot, judge->text->str, (gssize)judge->text->len);
        } else if (extractor->fallback != NULL) {
            throng_user_set_var (user, extractor->slot, extractor->fallback, -1);
        } else if (!failed) {
            g_string_printf (message, "extractor '%s' (%s %s) found nothing in ", extractor->var,
                             extractor->kind == HTTP_EXTRACT_JSON     ? "json"
                             : extractor->kind == HTTP_EXTRACT_REGEX  ? "regex"
                             : extractor->kind == HTTP_EXTRACT_HEADER ? "header"
                                                                      : "cookie",
                             extractor->arg);
            extractor_seen (extractor, response, message);
            fail (sample, &failed, message);
        }
    }
    for (guint i = 0; i < rules->checks->len; i++) {
        const HttpCheck *check = &g_array_index (rules->checks, HttpCheck, i);
        gboolean pattern = check->test == HTTP_TEST_MATCHES;

        if (check->template != NULL && !resolve (check->template, pattern, user, judge,
                                                 judge->seen)) {
            throng_user_record_check (user, check->index, FALSE);
            g_string_printf (message, "check '%s' failed: %s", check->name, judge->seen->str);
            fail (sample, &failed, message);
            continue;
        }
        gboolean passed = http_check_eval (check, response, judge, judge->seen);

        throng_user_record_check (user, check->index, passed);
        if (passed || failed)
            continue;
        g_string_printf (message, "check '%s' failed, saw '%s'", check->name, judge->seen->str);
        fail (sample, &failed, message);
    }
}
