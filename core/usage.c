/* SPDX-License-Identifier: MIT */
/*
 * CPU time from getrusage(): the process's, for the summary (the cost of
 * the whole generator, reporters included).
 */
#include "usage.h"

#include <sys/resource.h>

static void
read_usage (int who, gint64 *user_us, gint64 *system_us)
{
    struct rusage usage;

    if (getrusage (who, &usage) != 0) {
        *user_us = *system_us = 0;
        return;
    }
    *user_us = (gint64) usage.ru_utime.tv_sec * G_USEC_PER_SEC + usage.ru_utime.tv_usec;
    *system_us = (gint64) usage.ru_stime.tv_sec * G_USEC_PER_SEC + usage.ru_stime.tv_usec;
}

void
throng_usage_process (gint64 *user_us, gint64 *system_us)
{
    read_usage (RUSAGE_SELF, user_us, system_us);
}

