/* SPDX-License-Identifier: MIT */
/*
 * The latency histogram: log-linear buckets over microseconds, as in
 * HdrHistogram.  Values below 128 µs have a bucket each; above, every
 * power of two is cut into 64 equal buckets, so a bucket is never wider
 * than 1/64 of its lower bound and its midpoint is within 1/128 (0.78%) of
 * every value in it.  Min, max and sum are kept exactly beside the buckets.
 *
 * Memory: 1708 buckets of 8 bytes (13,664 bytes) plus 40 bytes of totals,
 * 13,704 bytes per histogram, whatever is recorded.
 */
#include <string.h>

#include <throng/histogram.h>

/* Sub-buckets per power of two: 2^6 = 64 keeps the midpoint within 1/128 of any value. */
#define SUB_BITS 6
#define SUB_COUNT (1u << SUB_BITS)

/* One hour in µs: the largest value kept; larger ones are clamped to it. */
#define MAX_VALUE G_GINT64_CONSTANT (3600000000)

/* index_of (MAX_VALUE) + 1: MAX_VALUE < 2^32 has 32 bits, shift 25, top 107. */
#define N_BUCKETS (25 * SUB_COUNT + 107 + 1)

/* A 128-bit sum: record_n of an hour a few billion times overflows 64 bits. */
typedef struct {
    guint64 hi;
    guint64 lo;
} Sum128;

struct _ThrongHistogram {
    guint64 count;
    gint64 min;
    gint64 max;
    Sum128 sum;
    guint64 buckets[N_BUCKETS];
};

G_STATIC_ASSERT (sizeof (ThrongHistogram) == 13704);

/*
 * The bucket of @value: below 2 * SUB_COUNT the value itself; above, the
 * top SUB_BITS + 1 bits of the value, offset by how far they were shifted.
 */
static inline guint
index_of (guint64 value)
{
    guint bits = g_bit_storage (value);
    guint shift = bits > SUB_BITS + 1 ? bits - (SUB_BITS + 1) : 0;

    return (shift << SUB_BITS) + (guint) (value >> shift);
}

static inline guint64
bucket_low (guint index)
{
    guint shift;

    if (index < 2 * SUB_COUNT)
        return index;
    shift = (index >> SUB_BITS) - 1;
    return (guint64) (index - (shift << SUB_BITS)) << shift;
}

static inline guint64
bucket_width (guint index)
{
    return index < 2 * SUB_COUNT ? 1 : G_GUINT64_CONSTANT (1) << ((index >> SUB_BITS) - 1);
}

static inline void
sum_add (Sum128 *sum, guint64 value)
{
    sum->lo += value;
    sum->hi += sum->lo < value;
}

static inline void
sum_add128 (Sum128 *sum, const Sum128 *other)
{
    sum_add (sum, other->lo);
    sum->hi += other->hi;
}

/* a * b as 128 bits, from 32-bit halves (portable where __int128 is not). */
static Sum128
mul_64 (guint64 a, guint64 b)
{
    guint64 a_lo = a & 0xffffffffu, a_hi = a >> 32;
    guint64 b_lo = b & 0xffffffffu, b_hi = b >> 32;
    guint64 ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    guint64 mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    Sum128 r;

    r.lo = (mid << 32) | (ll & 0xffffffffu);
    r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return r;
}

static int
sum_compare (const Sum128 *a, const Sum128 *b)
{
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return 0;
}

ThrongHistogram *
throng_histogram_new (void)
{
    return g_new0 (ThrongHistogram, 1);
}

void
throng_histogram_free (ThrongHistogram *histogram)
{
    g_free (histogram);
}

void
throng_histogram_reset (ThrongHistogram *histogram)
{
    g_return_if_fail (histogram != NULL);

    memset (histogram, 0, sizeof *histogram);
}

static inline gint64
clamp_value (gint64 value)
{
    return value < 0 ? 0 : value > MAX_VALUE ? MAX_VALUE : value;
}

/* The hot path: a clamp, a bit count, two compares and three additions. */
void
throng_histogram_record (ThrongHistogram *histogram, gint64 value)
{
    g_return_if_fail (histogram != NULL);

    value = clamp_value (value);
    histogram->buckets[index_of ((guint64) value)]++;
    if (histogram->count == 0 || value < histogram->min)
        histogram->min = value;
    if (value > histogram->max)
        histogram->max = value;
    histogram->count++;
    sum_add (&histogram->sum, (guint64) value);
}

void
throng_histogram_record_n (ThrongHistogram *histogram, gint64 value, guint64 count)
{
    Sum128 product;

    g_return_if_fail (histogram != NULL);

    if (count == 0)
        return;
    value = clamp_value (value);
    histogram->buckets[index_of ((guint64) value)] += count;
    if (histogram->count == 0 || value < histogram->min)
        histogram->min = value;
    if (value > histogram->max)
        histogram->max = value;
    histogram->count += count;
    product = mul_64 ((guint64) value, count);
    sum_add128 (&histogram->sum, &product);
}

void
throng_histogram_merge (ThrongHistogram *into, const ThrongHistogram *from)
{
    g_return_if_fail (into != NULL);
    g_return_if_fail (from != NULL);

    if (from->count == 0)
        return;
    /* Only the buckets of min to max hold values (deserialize checks it):
     * merging a shard's or an interval's narrow histogram stays cheap. */
    for (guint i = index_of ((guint64) from->min); i <= index_of ((guint64) from->max); i++)
        into->buckets[i] += from->buckets[i];
    if (into->count == 0 || from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->count += from->count;
    sum_add128 (&into->sum, &from->sum);
}

guint64
throng_histogram_count (const ThrongHistogram *histogram)
{
    g_return_val_if_fail (histogram != NULL, 0);

    return histogram->count;
}

gint64
throng_histogram_min (const ThrongHistogram *histogram)
{
    g_return_val_if_fail (histogram != NULL, 0);

    return histogram->min;
}

gint64
throng_histogram_max (const ThrongHistogram *histogram)
{
    g_return_val_if_fail (histogram != NULL, 0);

    return histogram->max;
}

gdouble
throng_histogram_mean (const ThrongHistogram *histogram)
{
    g_return_val_if_fail (histogram != NULL, 0);

    if (histogram->count == 0)
        return 0;
    return ((gdouble) histogram->sum.hi * 18446744073709551616.0 + (gdouble) histogram->sum.lo) /
           (gdouble) histogram->count;
}

gint64
throng_histogram_percentile (const ThrongHistogram *histogram, gdouble percentile)
{
    gdouble wanted;
    guint64 rank, seen = 0;

    g_return_val_if_fail (histogram != NULL, 0);

    if (histogram->count == 0)
        return 0;
    if (!(percentile > 0)) /* also NaN */
        return histogram->min;
    if (percentile >= 100)
        return histogram->max;

    /* The rank of the value asked for, from 1: the smallest with @percentile at or below it. */
    wanted = percentile / 100.0 * (gdouble) histogram->count;
    if (wanted >= (gdouble) histogram->count)
        return histogram->max;
    /* The ceiling, by hand: the core does not link libm for one call. */
    rank = (guint64) wanted;
    if ((gdouble) rank < wanted)
        rank++;
    if (rank == 0)
        rank = 1;
    if (rank == histogram->count)
        return histogram->max;

    for (guint i = 0; i < N_BUCKETS; i++) {
        seen += histogram->buckets[i];
        if (seen >= rank) {
            /* The bucket's midpoint, which is within half a bucket of every value in it. */
            gint64 value = (gint64) (bucket_low (i) + (bucket_width (i) - 1) / 2);

            return CLAMP (value, histogram->min, histogram->max);
        }
    }
    g_assert_not_reached ();
    return histogram->max;
}

/*
 * The serialised form, after "v1:", is base64 of LEB128 varints:
 *
 *   min, max, sum (high 64 bits), sum (low 64 bits),
 *   then for each non-empty bucket in ascending order:
 *     the gap from the previous bucket's index + 1 (the first: its index),
 *     its count (never 0).
 *
 * The count is the sum of the bucket counts.  An empty histogram is four
 * zeros.  The form is canonical: one histogram has exactly one text.
 */
#define SERIAL_PREFIX "v1:"

static void
put_varint (GByteArray *out, guint64 value)
{
    guint8 byte;

    do {
        byte = value & 0x7f;
        value >>= 7;
        if (value != 0)
            byte |= 0x80;
        g_byte_array_append (out, &byte, 1);
    } while (value != 0);
}

char *
throng_histogram_serialize (const ThrongHistogram *histogram)
{
    g_autoptr (GByteArray) out = NULL;
    guint next = 0;
    char *encoded, *text;

    g_return_val_if_fail (histogram != NULL, NULL);

    out = g_byte_array_new ();
    put_varint (out, (guint64) histogram->min);
    put_varint (out, (guint64) histogram->max);
    put_varint (out, histogram->sum.hi);
    put_varint (out, histogram->sum.lo);
    for (guint i = 0; i < N_BUCKETS; i++) {
        if (histogram->buckets[i] == 0)
            continue;
        put_varint (out, i - next);
        put_varint (out, histogram->buckets[i]);
        next = i + 1;
    }
    encoded = g_base64_encode (out->data, out->len);
    text = g_strconcat (SERIAL_PREFIX, encoded, NULL);
    g_free (encoded);
    return text;
}

GQuark
throng_histogram_error_quark (void)
{
    return g_quark_from_static_string ("throng-histogram-error-quark");
}

static gboolean
fail (GError **error, const char *what)
{
    g_set_error (error, THRONG_HISTOGRAM_ERROR, THRONG_HISTOGRAM_ERROR_INVALID,
                 "invalid histogram: %s", what);
    return FALSE;
}

static gboolean
is_base64_char (char c)
{
    return g_ascii_isalnum (c) || c == '+' || c == '/';
}

/* g_base64_decode() skips what it does not understand: check the text first. */
static gboolean
check_base64 (const char *text, gsize len, GError **error)
{
    gsize padding = 0;

    if (len == 0)
        return fail (error, "nothing after \"" SERIAL_PREFIX "\"");
    if (len % 4 != 0)
        return fail (error, "the base64 text has a length that is not a multiple of 4");
    if (text[len - 1] == '=')
        padding = text[len - 2] == '=' ? 2 : 1;
    for (gsize i = 0; i < len - padding; i++)
        if (!is_base64_char (text[i]))
            return fail (error, "a character that is not base64");
    return TRUE;
}

typedef struct {
    const guint8 *p;
    const guint8 *end;
} Reader;

static gboolean
get_varint (Reader *reader, guint64 *out, GError **error)
{
    guint64 value = 0;

    for (guint shift = 0; shift < 64; shift += 7) {
        guint8 byte;

        if (reader->p == reader->end)
            return fail (error, "truncated");
        byte = *reader->p++;
        /* The tenth byte may carry only the 64th bit. */
        if (shift == 63 && (byte & 0xfe) != 0)
            return fail (error, "a number larger than 64 bits");
        value |= (guint64) (byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
            /* A trailing zero byte would give a second text for the same number. */
            if (byte == 0 && shift > 0)
                return fail (error, "a number with a redundant encoding");
            *out = value;
            return TRUE;
        }
    }
    return fail (error, "a number larger than 64 bits");
}

static gboolean
decode_into (ThrongHistogram *h, const guint8 *data, gsize len, GError **error)
{
    Reader reader = { data, data + len };
    guint64 min, max, first = N_BUCKETS, last = 0;
    guint64 next = 0;
    Sum128 low, high;

    if (!get_varint (&reader, &min, error) || !get_varint (&reader, &max, error) ||
        !get_varint (&reader, &h->sum.hi, error) || !get_varint (&reader, &h->sum.lo, error))
        return FALSE;
    if (min > (guint64) MAX_VALUE || max > (guint64) MAX_VALUE)
        return fail (error, "min or max above one hour");
    h->min = (gint64) min;
    h->max = (gint64) max;

    while (reader.p < reader.end) {
        guint64 gap, count;

        if (!get_varint (&reader, &gap, error) || !get_varint (&reader, &count, error))
            return FALSE;
        if (gap >= N_BUCKETS - next)
            return fail (error, "a bucket index out of range");
        if (count == 0)
            return fail (error, "an empty bucket");
        if (h->count + count < h->count)
            return fail (error, "a total count larger than 64 bits");
        next += gap;
        h->buckets[next] = count;
        h->count += count;
        if (first == N_BUCKETS)
            first = next;
        last = next;
        next++;
    }

    if (h->count == 0) {
        if (min != 0 || max != 0 || h->sum.hi != 0 || h->sum.lo != 0)
            return fail (error, "no values but a non-zero min, max or sum");
        return TRUE;
    }
    if (min > max)
        return fail (error, "min above max");
    if (index_of (min) != first || index_of (max) != last)
        return fail (error, "min or max outside the first or last bucket");
    low = mul_64 (min, h->count);
    high = mul_64 (max, h->count);
    if (sum_compare (&h->sum, &low) < 0 || sum_compare (&h->sum, &high) > 0)
        return fail (error, "a sum that does not lie between count * min and count * max");
    return TRUE;
}

ThrongHistogram *
throng_histogram_deserialize (const char *text, GError **error)
{
    g_autoptr (ThrongHistogram) histogram = NULL;
    g_autofree guint8 *data = NULL;
    gsize text_len, len = 0;

    g_return_val_if_fail (text != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    if (!g_str_has_prefix (text, SERIAL_PREFIX)) {
        fail (error, "it does not start with \"" SERIAL_PREFIX "\"");
        return NULL;
    }
    text += strlen (SERIAL_PREFIX);
    text_len = strlen (text);
    /* The densest histogram encodes to well under this; more is not ours. */
    if (text_len > 64 * 1024) {
        fail (error, "too long");
        return NULL;
    }
    if (!check_base64 (text, text_len, error))
        return NULL;
    data = g_base64_decode (text, &len);
    histogram = throng_histogram_new ();
    if (!decode_into (histogram, data, len, error))
        return NULL;
    return g_steal_pointer (&histogram);
}
