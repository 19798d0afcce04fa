/* SPDX-License-Identifier: MIT */
/*
 * A mergeable log-linear histogram of durations in microseconds: fixed
 * memory, O(1) record, at most 1% relative error from 1 µs to 1 h.
 */
#pragma once

#include <glib.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * ThrongHistogram:
 *
 * An opaque histogram of non-negative integer values (µs).  Values above
 * one hour are clamped to one hour and counted.  Not thread-safe: each
 * worker records into its own and the main thread merges.
 *
 * Since: 0.1
 */
typedef struct _ThrongHistogram ThrongHistogram;

THRONG_API ThrongHistogram *throng_histogram_new (void);
THRONG_API void throng_histogram_free (ThrongHistogram *histogram);
THRONG_API void throng_histogram_record (ThrongHistogram *histogram, gint64 value);
THRONG_API void throng_histogram_record_n (ThrongHistogram *histogram, gint64 value, guint64 count);
THRONG_API void throng_histogram_merge (ThrongHistogram *into, const ThrongHistogram *from);
THRONG_API void throng_histogram_reset (ThrongHistogram *histogram);
THRONG_API guint64 throng_histogram_count (const ThrongHistogram *histogram);
/* min, max, mean and percentiles return 0 for an empty histogram. */
THRONG_API gint64 throng_histogram_min (const ThrongHistogram *histogram);
THRONG_API gint64 throng_histogram_max (const ThrongHistogram *histogram);
THRONG_API gdouble throng_histogram_mean (const ThrongHistogram *histogram);
/**
 * throng_histogram_percentile:
 * @histogram: a histogram
 * @percentile: from 0 to 100
 *
 * Returns: the smallest recorded value such that at least @percentile per
 *   cent of the values are at or below it, within the histogram's error,
 *   and never outside [min, max]
 *
 * Since: 0.1
 */
THRONG_API gint64 throng_histogram_percentile (const ThrongHistogram *histogram, gdouble percentile);
/**
 * throng_histogram_serialize:
 * @histogram: a histogram
 *
 * Returns: (transfer full): a compact printable form ("v1:" then base64 of
 *   the non-empty buckets) that throng_histogram_deserialize() reads back
 *   exactly
 *
 * Since: 0.1
 */
THRONG_API char *throng_histogram_serialize (const ThrongHistogram *histogram);
THRONG_API ThrongHistogram *throng_histogram_deserialize (const char *text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongHistogram, throng_histogram_free)

G_END_DECLS
