/* SPDX-License-Identifier: MIT */
/*
 * `throng __complete WHAT`: what the shell completions (completions/)
 * offer, one candidate a line, "WORD\tDESCRIPTION" where there is one:
 * `commands`, `options COMMAND`, `reporters`, `protocols`.  Hidden from
 * --help; read from the same sources as --help, so the completions stay
 * true to the executable they complete.
 */
#pragma once

#include "usage.h"

int throng_complete_command (int argc, char **argv, const ThrongCliCommand *commands);
