/* SPDX-License-Identifier: MIT */
/*
 * A batch of samples on its way from a worker to the reporters, with the
 * storage for the messages set by throng_sample_set_message(), which
 * lives and dies with the batch.  Private to the core.
 */
#pragma once

#include <throng/sample.h>

typedef struct {
    GArray *samples;            /* ThrongSample */
    GPtrArray *chunks;          /* message storage, MESSAGE_CHUNK bytes each; kept across reuse */
    guint chunk;                /* the chunk being filled */
    gsize used;                 /* bytes of it used */
} ThrongSampleBatch;

ThrongSampleBatch *throng_sample_batch_new (guint reserve);
void throng_sample_batch_free (ThrongSampleBatch *batch);

/* Empties @batch for reuse, keeping its memory. */
void throng_sample_batch_reset (ThrongSampleBatch *batch);

/*
 * Appends a copy of @sample.  With @copy_message, its message (set with
 * throng_sample_set_message(), in its user's buffer) is copied into the
 * batch and the copy points there.
 */
void throng_sample_batch_append (ThrongSampleBatch *batch, const ThrongSample *sample,
                                 gboolean copy_message);

/*
 * Copies @text into @dest (THRONG_SAMPLE_MESSAGE_MAX + 1 bytes), cut on a
 * UTF-8 boundary, NUL-terminated; returns the length copied.
 */
gsize throng_sample_copy_message (char *dest, const char *text);
