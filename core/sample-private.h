/* SPDX-License-Identifier: MIT */
/*
 * The sample as the core keeps it: the slot a user hands to a protocol,
 * which holds the room for the message throng_sample_set_message()
 * copies, and the batch that carries samples and copies of their
 * messages from a worker to the reporters.  Private to the core.
 */
#pragma once

#include <throng/sample.h>

#include <string.h>

/*
 * A sample a protocol writes, with the room its message is copied into.
 * The sample's owner points at its slot, so throng_sample_set_message()
 * finds the room from the sample alone, whoever holds the slot.
 */
typedef struct {
    ThrongSample sample;
    char *message;              /* THRONG_SAMPLE_MESSAGE_MAX + 1 bytes, made on first use */
} ThrongSampleSlot;

/*
 * Zeroes the sample for a new step; its owner is @slot.  Keeps the room.
 * Inline: it runs for every request, and a call around a memset of a
 * known size costs more than the stores the compiler makes of it.
 */
static inline void
throng_sample_slot_reset (ThrongSampleSlot *slot)
{
    memset (&slot->sample, 0, sizeof slot->sample);
    slot->sample.owner = slot;
}
/* The room for @slot's message (made on first use, then reused). */
char *throng_sample_slot_message (ThrongSampleSlot *slot);
/* Frees the room; @slot may be reset and used again. */
void throng_sample_slot_clear (ThrongSampleSlot *slot);
/*
 * Whether @sample's message is the copy in its slot's room, which the
 * next step overwrites: a sample kept past its step needs its own copy.
 */
gboolean throng_sample_message_in_slot (const ThrongSample *sample);

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
 * throng_sample_set_message(), in its slot's room) is copied into the
 * batch and the copy points there.
 */
void throng_sample_batch_append (ThrongSampleBatch *batch, const ThrongSample *sample,
                                 gboolean copy_message);

/*
 * Copies @text into @dest (THRONG_SAMPLE_MESSAGE_MAX + 1 bytes), cut on a
 * UTF-8 boundary, NUL-terminated; returns the length copied.
 */
gsize throng_sample_copy_message (char *dest, const char *text);
