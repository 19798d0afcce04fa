/* SPDX-License-Identifier: MIT */
/* Parts of the run-file writer (runfile-write.c) kept in files of their own. */
#pragma once

#include <throng/summary.h>

#include "jsonwrite-private.h"

G_BEGIN_DECLS

/* runfile-capacity.c: the summary's "capacity" member, when the run searched for one. */
void throng_runfile_write_capacity (JsonWrite *out, const ThrongSummary *summary);

G_END_DECLS
