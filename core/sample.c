/* SPDX-License-Identifier: MIT */
/*
 * The sample beyond its struct: the names of the error classes, as
 * reporters print them (stable: CSV files and thresholds refer to them),
 * per-request messages and the slots that hold them while a step runs,
 * and the batches that carry samples and their messages to the reporters.
 */
#include "sample-private.h"

#include <stddef.h>
#include <string.h>

/* Message storage of a batch grows by chunks this large, each holding many messages. */
#define MESSAGE_CHUNK (64 * 1024)

/*
 * 0.2 widened `iteration` without moving a field a 0.1 plugin reads: the
 * 32-bit field kept its place (as iteration32) and the 64-bit one took
 * reserved slots, so the struct's size is unchanged too.  0.4's
 * `protocol` took another reserved slot: reporters walk arrays of samples
 * whose stride a plugin built against 0.1 fixed.
 */
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (offsetof (ThrongSample, iteration32) == 68);
G_STATIC_ASSERT (offsetof (ThrongSample, status) == 72);
G_STATIC_ASSERT (offsetof (ThrongSample, message) == 88);
G_STATIC_ASSERT (offsetof (ThrongSample, wall_start_us) == 104);
G_STATIC_ASSERT (offsetof (ThrongSample, protocol) == 128);
G_STATIC_ASSERT (sizeof (ThrongSample) == 144);
#endif

static const char *const class_names[] = {
    [THRONG_ERROR_NONE] = "none",
    [THRONG_ERROR_CONNECT] = "connect",
    [THRONG_ERROR_DNS] = "dns",
    [THRONG_ERROR_TLS] = "tls",
    [THRONG_ERROR_CERTIFICATE] = "certificate",
    [THRONG_ERROR_TIMEOUT] = "timeout",
    [THRONG_ERROR_RESET] = "reset",
    [THRONG_ERROR_PROTOCOL] = "protocol",
    [THRONG_ERROR_STATUS] = "status",
    [THRONG_ERROR_BODY_LIMIT] = "body-limit",
    [THRONG_ERROR_OTHER] = "other",
    [THRONG_ERROR_CHECK] = "check",
    [THRONG_ERROR_VARIABLE] = "variable",
};

const char *
throng_error_class_name (ThrongErrorClass error_class)
{
    if ((guint) error_class >= G_N_ELEMENTS (class_names) || class_names[error_class] == NULL)
        return "other";
    return class_names[error_class];
}

gsize
throng_sample_copy_message (char *dest, const char *text)
{
    gsize length = strnlen (text, THRONG_SAMPLE_MESSAGE_MAX + 1);

    if (length > THRONG_SAMPLE_MESSAGE_MAX) {
        length = THRONG_SAMPLE_MESSAGE_MAX;
        /* Back over continuation bytes to the start of the character cut in two. */
        while (length > 0 && ((guchar) text[length] & 0xC0) == 0x80)
            length--;
    }
    memcpy (dest, text, length);
    dest[length] = '\0';
    return length;
}

void
throng_sample_set_message (ThrongSample *sample, const char *message)
{
    g_return_if_fail (sample != NULL);
    g_return_if_fail (sample->owner != NULL);

    if (message == NULL) {
        sample->message = NULL;
        return;
    }
    char *room = throng_sample_slot_message (sample->owner);
    throng_sample_copy_message (room, message);
    sample->message = room;
}

char *
throng_sample_slot_message (ThrongSampleSlot *slot)
{
    if (slot->message == NULL)
        slot->message = g_malloc (THRONG_SAMPLE_MESSAGE_MAX + 1);
    return slot->message;
}

void
throng_sample_slot_clear (ThrongSampleSlot *slot)
{
    g_clear_pointer (&slot->message, g_free);
}

gboolean
throng_sample_message_in_slot (const ThrongSample *sample)
{
    const ThrongSampleSlot *slot = sample->owner;

    return sample->message != NULL && slot != NULL && sample->message == slot->message;
}

ThrongSampleBatch *
throng_sample_batch_new (guint reserve)
{
    ThrongSampleBatch *batch = g_new0 (ThrongSampleBatch, 1);

    batch->samples = g_array_sized_new (FALSE, FALSE, sizeof (ThrongSample), reserve);
    batch->chunks = g_ptr_array_new_with_free_func (g_free);
    return batch;
}

void
throng_sample_batch_free (ThrongSampleBatch *batch)
{
    if (batch == NULL)
        return;
    g_array_unref (batch->samples);
    g_ptr_array_unref (batch->chunks);
    g_free (batch);
}

void
throng_sample_batch_reset (ThrongSampleBatch *batch)
{
    g_array_set_size (batch->samples, 0);
    batch->chunk = 0;
    batch->used = 0;
}

/* Room for one message of at most THRONG_SAMPLE_MESSAGE_MAX bytes; chunks are reused, not freed. */
static char *
batch_message_room (ThrongSampleBatch *batch)
{
    if (batch->chunk < batch->chunks->len
        && MESSAGE_CHUNK - batch->used < THRONG_SAMPLE_MESSAGE_MAX + 1) {
        batch->chunk++;
        batch->used = 0;
    }
    if (batch->chunk == batch->chunks->len)
        g_ptr_array_add (batch->chunks, g_malloc (MESSAGE_CHUNK));
    return (char *) g_ptr_array_index (batch->chunks, batch->chunk) + batch->used;
}

void
throng_sample_batch_append (ThrongSampleBatch *batch, const ThrongSample *sample,
                            gboolean copy_message)
{
    g_array_append_vals (batch->samples, sample, 1);
    if (copy_message && sample->message != NULL) {
        char *room = batch_message_room (batch);
        batch->used += throng_sample_copy_message (room, sample->message) + 1;
        g_array_index (batch->samples, ThrongSample, batch->samples->len - 1).message = room;
    }
}
