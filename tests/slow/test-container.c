/* SPDX-License-Identifier: MIT */
/*
 * deploy/Containerfile builds and the image runs: podman builds it from
 * the source tree, then runs `throng --version` in it with a read-only
 * root filesystem, as the Kubernetes Job does.  Without podman the test
 * says it is skipped, in CI too: the image is an optional deliverable
 * and this machine's CI does not install podman.
 */
#include "test-utils.h"

#include <string.h>
#include <throng/throng.h>

static void
test_build_and_run (void)
{
    g_autofree char *podman = g_find_program_in_path ("podman");
    if (podman == NULL) {
        g_test_skip ("podman is not installed: deploy/Containerfile not built");
        return;
    }
    g_autofree char *source = throng_test_source_path (".");
    g_autofree char *containerfile = throng_test_source_path ("deploy/Containerfile");
    const char *tag = "localhost/throng-test:latest";
    const char *const build[] = { podman, "build", "-f", containerfile, "-t", tag, source, NULL };
    g_autofree char *out = NULL;
    int status = throng_test_process_run (build, NULL, 1500, &out, NULL);
    if (status != 0)
        g_error ("podman build failed:\n%s", out);

    const char *const run[] = { podman, "run", "--rm", "--read-only", tag, "--version", NULL };
    g_autofree char *version = NULL;
    g_assert_cmpint (throng_test_process_run (run, NULL, 120, &version, NULL), ==, 0);
    g_autofree char *expected = g_strdup_printf ("throng %s", THRONG_VERSION_STRING);
    g_assert_nonnull (strstr (version, expected));

    const char *const plugins[] = { podman, "run", "--rm", "--read-only", tag, "plugins", NULL };
    g_autofree char *listing = NULL;
    g_assert_cmpint (throng_test_process_run (plugins, NULL, 120, &listing, NULL), ==, 0);
    g_assert_nonnull (strstr (listing, "json"));
    g_assert_nonnull (strstr (listing, "http"));
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);
    g_test_add_func ("/container/build-and-run", test_build_and_run);
    return g_test_run ();
}
