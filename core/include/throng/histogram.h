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
 * THRONG_HISTOGRAM_ERROR:
 *
 * The error domain of throng_histogram_deserialize().
 *
 * Since: 0.2
 */
#define THRONG_HISTOGRAM_ERROR (throng_histogram_error_quark ())
/**
 * throng_histogram_error_quark:
 *
 * Returns: the quark of %THRONG_HISTOGRAM_ERROR
 *
 * Since: 0.2
 */
THRONG_API GQuark throng_histogram_error_quark (void);

/**
 * ThrongHistogramError:
 * @THRONG_HISTOGRAM_ERROR_INVALID: the text is not a serialized histogram
 *   (bad prefix, base64 or numbers, or figures that contradict each other)
 *
 * Error codes of %THRONG_HISTOGRAM_ERROR.
 *
 * Since: 0.2
 */
typedef enum {
    THRONG_HISTOGRAM_ERROR_INVALID,
} ThrongHistogramError;

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

/**
 * throng_histogram_new:
 *
 * Returns: (transfer full): a new, empty histogram; free with
 *   throng_histogram_free() (or g_autoptr (ThrongHistogram))
 *
 * Since: 0.1
 */
THRONG_API ThrongHistogram *throng_histogram_new (void);
/**
 * throng_histogram_free:
 * @histogram: (nullable) (transfer full): a histogram the caller created
 *
 * Frees @histogram.  NULL is allowed.  Never free a histogram the core
 * handed you (those in #ThrongStats belong to the core).
 *
 * Since: 0.1
 */
THRONG_API void throng_histogram_free (ThrongHistogram *histogram);
/**
 * throng_histogram_record:
 * @histogram: a histogram
 * @value: a duration in µs; negative values count as 0, values above one
 *   hour as one hour
 *
 * Records one value.  O(1), no allocation.
 *
 * Since: 0.1
 */
THRONG_API void throng_histogram_record (ThrongHistogram *histogram, gint64 value);
/**
 * throng_histogram_record_n:
 * @histogram: a histogram
 * @value: a duration in µs, as for throng_histogram_record()
 * @count: how many times
 *
 * Records @value @count times.
 *
 * Since: 0.1
 */
THRONG_API void throng_histogram_record_n (ThrongHistogram *histogram, gint64 value, guint64 count);
/**
 * throng_histogram_merge:
 * @into: the histogram that receives
 * @from: (transfer none): the histogram added to @into, unchanged
 *
 * Adds every value of @from to @into, exactly (the buckets are the same).
 *
 * Since: 0.1
 */
THRONG_API void throng_histogram_merge (ThrongHistogram *into, const ThrongHistogram *from);
/**
 * throng_histogram_reset:
 * @histogram: a histogram
 *
 * Empties @histogram, keeping its memory.
 *
 * Since: 0.1
 */
THRONG_API void throng_histogram_reset (ThrongHistogram *histogram);
/**
 * throng_histogram_count:
 * @histogram: a histogram
 *
 * Returns: how many values were recorded
 *
 * Since: 0.1
 */
THRONG_API guint64 throng_histogram_count (const ThrongHistogram *histogram);
/**
 * throng_histogram_min:
 * @histogram: a histogram
 *
 * Returns: the smallest value recorded (exact), or 0 for an empty histogram
 *
 * Since: 0.1
 */
THRONG_API gint64 throng_histogram_min (const ThrongHistogram *histogram);
/**
 * throng_histogram_max:
 * @histogram: a histogram
 *
 * Returns: the largest value recorded (exact), or 0 for an empty histogram
 *
 * Since: 0.1
 */
THRONG_API gint64 throng_histogram_max (const ThrongHistogram *histogram);
/**
 * throng_histogram_mean:
 * @histogram: a histogram
 *
 * Returns: the mean of the values recorded, or 0 for an empty histogram
 *
 * Since: 0.1
 */
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
/**
 * throng_histogram_deserialize:
 * @text: what throng_histogram_serialize() returned
 * @error: return location for an error
 *
 * Returns: (transfer full) (nullable): the histogram @text describes, or
 *   NULL with a %THRONG_HISTOGRAM_ERROR_INVALID error when @text is not one
 *
 * Since: 0.1
 */
THRONG_API ThrongHistogram *throng_histogram_deserialize (const char *text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThrongHistogram, throng_histogram_free)

G_END_DECLS
