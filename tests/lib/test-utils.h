/* SPDX-License-Identifier: MIT */
/*
 * The shared fixture library of the test suite, one header for all of it:
 * child processes and the throng binary (subprocess.h), an in-process
 * SoupServer on a thread of its own (soup-server.h), the fault server as
 * a child (fault-fixture.h), nginx from a generated configuration
 * (nginx.h), a throw-away PKI (certs.h), the common plan
 * (plan-builder.h), reading summaries and sample files (summary.h),
 * daemons and tools the reporter tests drive (daemon.h); and
 * here: missing tools, per-test temporary directories and plan files,
 * free loopback ports.  Every helper that can fail in a way the test did
 * not cause asserts or fails the test itself, so callers stay short; the
 * ones that take a GError are those a test may want to see fail.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>

#include "certs.h"
#include "daemon.h"
#include "fault-fixture.h"
#include "h2-server.h"
#include "nginx.h"
#include "plan-builder.h"
#include "soup-server.h"
#include "subprocess.h"
#include "summary.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Environment                                                         */

/*
 * TRUE when the environment says CI=true (or CI=1): a missing external tool
 * is then a failure, not a skip.
 */
gboolean throng_test_in_ci (void);

/*
 * Marks the current test skipped with @reason on a developer machine, or
 * failed (with @reason as the message) under CI.  The caller returns right
 * after.
 */
void throng_test_skip_or_fail (const char *reason);

/*
 * For the first lines of a test that needs an external program (python3,
 * script, nginx, cc): its full path (@name looked up in PATH, or @name
 * itself when it holds a '/' and is executable), newly allocated; or NULL
 * after throng_test_skip_or_fail() said why, and the test returns.
 */
char *throng_test_require_program (const char *name);

/*
 * The same for a file the machine should provide (/dev/full): TRUE if
 * @path exists; otherwise skipped (failed under CI) and FALSE.
 */
gboolean throng_test_require_file (const char *path);

/*
 * A path under the source tree ($THRONG_SOURCE_DIR), newly allocated.
 * Asserts the variable is set.
 */
char *throng_test_source_path (const char *relative);

/*
 * The directory of the plugins built for the tests
 * ($THRONG_TEST_PLUGIN_DIR), or its subdirectory @sub ("bad",
 * "misbehave"; NULL for the directory itself), newly allocated.
 */
char *throng_test_plugin_dir (const char *sub);

/*
 * The plugins every build ships, as `throng plugins` lists them (name,
 * kind), ending with { NULL, NULL }.
 */
typedef struct {
    const char *name;
    const char *kind;
} ThrongTestPluginInfo;

extern const ThrongTestPluginInfo throng_test_builtin_plugins[];

/* The newline characters in @text: its lines, when each ends with one. */
guint throng_test_count_lines (const char *text);

/* How often @needle occurs in @text (occurrences may overlap). */
guint throng_test_count (const char *text, const char *needle);

/*
 * Asserts that @text (usually a captured stderr) carries no GLib
 * "CRITICAL", "WARNING" or "ERROR" log line, and no sanitizer report.
 */
void throng_test_assert_no_glib_noise (const char *text);

/* ------------------------------------------------------------------ */
/* Temporary directories and files                                     */

/*
 * Creates a fresh directory under the system temp dir
 * ("throng-test-XXXXXX").  Asserts on failure.  Free with
 * throng_test_tmpdir_free().
 */
char *throng_test_tmpdir_new (void);

/*
 * Removes @dir recursively and frees the string.  NULL is a no-op.  If
 * THRONG_TEST_KEEP is set in the environment, the directory is kept and
 * its path printed, for post-mortems.
 */
void throng_test_tmpdir_free (char *dir);

/*
 * A GTest fixture with one temporary directory per test:
 *   g_test_add ("/x/y", ThrongTestTmpdir, NULL,
 *               throng_test_tmpdir_setup, test_fn, throng_test_tmpdir_teardown);
 */
typedef struct {
    char *dir;
} ThrongTestTmpdir;

void throng_test_tmpdir_setup (ThrongTestTmpdir *fixture, gconstpointer data);
void throng_test_tmpdir_teardown (ThrongTestTmpdir *fixture, gconstpointer data);

/*
 * Writes @contents to DIR/NAME (creating or replacing it) and returns the
 * full path, newly allocated.  Asserts on failure.
 */
char *throng_test_write_file (const char *dir, const char *name, const char *contents);

/* The same, named for what the tests write most: a YAML plan. */
char *throng_test_write_plan (const char *dir, const char *name, const char *yaml);

/* ------------------------------------------------------------------ */
/* Network                                                             */

/*
 * A TCP port on 127.0.0.1 that was free a moment ago (bound, read back and
 * closed), below the kernel's ephemeral range when there is room there, so
 * that no outgoing connection takes it.  Asserts on failure.  Another
 * process may take it before the caller binds; callers that start servers
 * retry.
 */
guint16 throng_test_free_port (void);

/*
 * Waits until 127.0.0.1:@port accepts a TCP connection, trying every 10 ms
 * for up to @timeout_ms.  Returns TRUE when it did.
 */
gboolean throng_test_wait_port (guint16 port, guint timeout_ms);

/*
 * A test of a file that runs on the `fast` transport, and on `soup` too
 * when @both: registered as PREFIX/NAME/fast (and PREFIX/NAME/soup), the
 * transport's name as the test's data.  THRONG_TEST_CASE casts the test
 * function to GLib's fixture type, as g_test_add() does.
 */
typedef struct {
    const char *name;
    GTestFixtureFunc func;
    gboolean both;
} ThrongTestTransportCase;

#define THRONG_TEST_CASE(name, func, both) \
    { (name), (GTestFixtureFunc) (void (*) (void)) (func), (both) }

/* Registers @cases with a fixture of @fixture_size bytes, @setup and @teardown. */
#define throng_test_add_transport_cases(prefix, Fixture, setup, teardown, cases) \
    throng_test_add_transport_cases_full ((prefix), sizeof (Fixture), \
                                          (GTestFixtureFunc) (void (*) (void)) (setup), \
                                          (GTestFixtureFunc) (void (*) (void)) (teardown), \
                                          (cases), G_N_ELEMENTS (cases))
void throng_test_add_transport_cases_full (const char *prefix, gsize fixture_size,
                                           GTestFixtureFunc setup, GTestFixtureFunc teardown,
                                           const ThrongTestTransportCase *cases, gsize n_cases);

G_END_DECLS
