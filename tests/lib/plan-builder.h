/* SPDX-License-Identifier: MIT */
/*
 * The plan most integration tests run, written from named parts: one
 * scenario of users × iterations (or a duration) whose steps the test
 * gives, with the http defaults (transport, base URL, TLS) it needs.  A
 * test whose plan has another shape (several scenarios, executors,
 * thresholds) writes its YAML out in full; this is for the common one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Zero-initialise and set what the plan needs; NULL and 0 leave a key out.
 *
 * @name: the plan's name (default "test").
 * @target: "builtin" for `target: builtin`.
 * @transport, @base_url: defaults.http.transport and .base_url.
 * @http: more of defaults.http, as flow-map items
 *   ("timeout: 5s, tls: { verify: false }").
 * @scenario: the scenario's name (default "s").
 * @users: default 1.
 * @iterations, @duration: how long each user runs; neither: 1 iteration.
 * @scenario_extra: more keys of the scenario, as whole YAML lines
 *   indented by four ("    think_time: 10ms\n").
 * @steps: the steps, as YAML lines indented by six
 *   ("      - http: { url: / }\n").
 * @plan_extra: more top-level keys after the scenario, as whole lines
 *   ("thresholds:\n  - total.errors.rate < 1%\n").
 */
typedef struct {
    const char *name;
    const char *target;
    const char *transport;
    const char *base_url;
    const char *http;
    const char *scenario;
    guint users;
    guint iterations;
    const char *duration;
    const char *scenario_extra;
    const char *steps;
    const char *plan_extra;
} ThrongTestPlan;

/* The plan's YAML text, newly allocated. */
char *throng_test_plan_yaml (const ThrongTestPlan *plan);

G_END_DECLS
