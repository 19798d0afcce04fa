/* SPDX-License-Identifier: MIT */
/*
 * What every libFuzzer target here does first: GLib criticals and
 * warnings made fatal, and a fatal GLib message turned into an abort.
 * GLib stops on a fatal message with G_BREAKPOINT (SIGTRAP), which
 * libFuzzer does not catch: the process would die without writing the
 * input that did it.  On SIGABRT libFuzzer writes the crash-… artifact.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdlib.h>

static void
fuzz_glib_trap (int signal_number)
{
    (void) signal_number;
    abort ();
}

static inline void
fuzz_glib_init (void)
{
    signal (SIGTRAP, fuzz_glib_trap);
    /* A critical or a warning is a bug the fuzzer should stop on. */
    g_log_set_always_fatal (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
}
