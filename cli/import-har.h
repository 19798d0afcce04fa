/* SPDX-License-Identifier: MIT */
/*
 * `throng import har`: a browser's HAR recording turned into a plan
 * (docs/har.md).  Private to the command line.
 */
#pragma once

/*
 * Runs `throng import har …` (@argv[0] is "import").  Returns the exit
 * status: 0 the plan was written, 2 usage error or input that is not a
 * HAR 1.2 recording, 4 the plan or a body file could not be written.
 */
int throng_import_command (int argc, char **argv);
