/* SPDX-License-Identifier: MIT */
/*
 * Tests of the latency histogram: percentiles of random and adversarial
 * data within 1% of the exact order statistics, merging, the serialised
 * form and its validation, reset.
 */
#include <string.h>

#include <throng/histogram.h>

#define ONE_HOUR G_GINT64_CONSTANT (3600000000)

static const gdouble percentiles[] = { 0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100 };

static int
compare_values (gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

    return x < y ? -1 : x > y;
}

/*
 * The tests build without libm (the test table links none): e^x and a
 * normal deviate by hand are plenty for generating data.
 */
static gdouble
exp_ (gdouble x)
{
    const gdouble ln2 = 0.693147180559945309417;
    int n = 0;
    gdouble term = 1, sum = 1;

    while (x >= ln2) {
        x -= ln2;
        n++;
    }
    while (x < 0) {
        x += ln2;
        n--;
    }
    for (int k = 1; k < 20; k++) {
        term *= x / k;
        sum += term;
    }
    for (; n > 0; n--)
        sum *= 2;
    for (; n < 0; n++)
        sum /= 2;
    return sum;
}

/* Irwin-Hall: twelve uniforms less six, close enough to N(0, 1) for test data. */
static gdouble
normal (void)
{
    gdouble sum = -6;

    for (int i = 0; i < 12; i++)
        sum += g_test_rand_double ();
    return sum;
}

/* The exact answer: the smallest value with at least @p per cent at or below it. */
static gint64
exact_percentile (const gint64 *sorted, gsize n, gdouble p)
{
    gdouble wanted = p / 100.0 * (gdouble) n;
    gsize rank = (gsize) wanted;

    if ((gdouble) rank < wanted)
        rank++;
    rank = CLAMP (rank, 1, n);
    return sorted[rank - 1];
}

/* Records @values, then checks every percentile, min, max and mean against the sorted copy. */
static void
check_against_exact (gint64 *values, gsize n)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();
    gdouble sum = 0;
    gint64 previous = 0;

    for (gsize i = 0; i < n; i++)
        throng_histogram_record (h, values[i]);
    for (gsize i = 0; i < n; i++) {
        values[i] = CLAMP (values[i], 0, ONE_HOUR);
        sum += (gdouble) values[i];
    }
    qsort (values, n, sizeof *values, compare_values);

    g_assert_cmpuint (throng_histogram_count (h), ==, n);
    g_assert_cmpint (throng_histogram_min (h), ==, values[0]);
    g_assert_cmpint (throng_histogram_max (h), ==, values[n - 1]);
    g_assert_cmpfloat_with_epsilon (throng_histogram_mean (h), sum / (gdouble) n,
                                    1e-9 * (sum / (gdouble) n) + 1e-9);
    for (gsize i = 0; i < G_N_ELEMENTS (percentiles); i++) {
        gint64 exact = exact_percentile (values, n, percentiles[i]);
        gint64 got = throng_histogram_percentile (h, percentiles[i]);

        if ((gdouble) ABS (got - exact) > 0.01 * (gdouble) exact)
            g_error ("p%g: %" G_GINT64_FORMAT ", exact %" G_GINT64_FORMAT " (%zu values)",
                     percentiles[i], got, exact, n);
        g_assert_cmpint (got, >=, values[0]);
        g_assert_cmpint (got, <=, values[n - 1]);
        g_assert_cmpint (got, >=, previous);
        previous = got;
    }
    g_assert_cmpint (throng_histogram_percentile (h, 0), ==, values[0]);
    g_assert_cmpint (throng_histogram_percentile (h, 100), ==, values[n - 1]);
}

#define N_RANDOM 200000

static void
test_uniform (void)
{
    g_autofree gint64 *values = g_new (gint64, N_RANDOM);

    for (gsize i = 0; i < N_RANDOM; i++)
        values[i] = g_test_rand_int_range (0, 2000000);
    check_against_exact (values, N_RANDOM);

    /* The whole range, a value per power of two, so that every octave is used. */
    for (gsize i = 0; i < N_RANDOM; i++)
        values[i] = (gint64) exp_ (0.693147180559945309417 * g_test_rand_double_range (0, 31.7));
    check_against_exact (values, N_RANDOM);
}

static void
test_lognormal (void)
{
    g_autofree gint64 *values = g_new (gint64, N_RANDOM);

    for (gsize i = 0; i < N_RANDOM; i++)
        values[i] = (gint64) (5000 * exp_ (1.5 * normal ()));
    check_against_exact (values, N_RANDOM);
}

static void
test_bimodal (void)
{
    g_autofree gint64 *values = g_new (gint64, N_RANDOM);

    /* A fast path near 200 µs and a slow one near 2 s, as a cache miss would make. */
    for (gsize i = 0; i < N_RANDOM; i++) {
        if (g_test_rand_int_range (0, 10) < 9)
            values[i] = (gint64) MAX (1, 200 + 30 * normal ());
        else
            values[i] = (gint64) MAX (1, 2000000 + 100000 * normal ());
    }
    check_against_exact (values, N_RANDOM);
}

static void
test_adversarial (void)
{
    gint64 values[4096];
    gsize n;

    /* All equal. */
    for (n = 0; n < 1000; n++)
        values[n] = 12345;
    check_against_exact (values, n);

    /* Zeros only; ones only. */
    for (n = 0; n < 100; n++)
        values[n] = 0;
    check_against_exact (values, n);
    for (n = 0; n < 100; n++)
        values[n] = 1;
    check_against_exact (values, n);

    /* The edges of buckets: each power of two, one below and one above. */
    n = 0;
    for (int bit = 0; bit < 32; bit++) {
        gint64 p = G_GINT64_CONSTANT (1) << bit;

        values[n++] = p - 1;
        values[n++] = p;
        values[n++] = p + 1;
    }
    check_against_exact (values, n);

    /* All at the top edge of one wide bucket: 2^31 + k * 2^25 - 1. */
    for (n = 0; n < 500; n++)
        values[n] = (G_GINT64_CONSTANT (1) << 31) + (G_GINT64_CONSTANT (1) << 25) - 1;
    check_against_exact (values, n);

    /* Alternating extremes, and values past the hour (clamped) or negative (0). */
    n = 0;
    for (int i = 0; i < 1000; i++) {
        values[n++] = i % 2 ? 0 : ONE_HOUR;
        values[n++] = i % 3 ? ONE_HOUR * 10 : -5;
    }
    check_against_exact (values, n);

    /* A single value. */
    values[0] = 777777;
    check_against_exact (values, 1);
}

static void
test_clamp (void)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();

    throng_histogram_record (h, G_MAXINT64);
    throng_histogram_record (h, G_MININT64);
    g_assert_cmpuint (throng_histogram_count (h), ==, 2);
    g_assert_cmpint (throng_histogram_max (h), ==, ONE_HOUR);
    g_assert_cmpint (throng_histogram_min (h), ==, 0);
    g_assert_cmpint (throng_histogram_percentile (h, 99), ==, ONE_HOUR);
    g_assert_cmpfloat (throng_histogram_mean (h), ==, ONE_HOUR / 2.0);
}

static void
test_record_n (void)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();
    g_autoptr (ThrongHistogram) back = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *text = NULL;
    const guint64 many = G_GUINT64_CONSTANT (1000000000000000); /* 1e15 */

    throng_histogram_record_n (h, 100, many);
    throng_histogram_record_n (h, 1000000000, many);
    throng_histogram_record_n (h, 5, 0); /* nothing */
    g_assert_cmpuint (throng_histogram_count (h), ==, 2 * many);
    g_assert_cmpint (throng_histogram_min (h), ==, 100);
    g_assert_cmpint (throng_histogram_max (h), ==, 1000000000);
    /* The sum, 1.000000100e24, overflows 64 bits; the mean must still be exact. */
    g_assert_cmpfloat_with_epsilon (throng_histogram_mean (h), 500000050.0, 1e-3);
    g_assert_cmpint (throng_histogram_percentile (h, 50), ==, 100);
    g_assert_cmpint (ABS (throng_histogram_percentile (h, 50.0001) - 1000000000), <=, 10000000);
    g_assert_cmpint (ABS (throng_histogram_percentile (h, 99.9) - 1000000000), <=, 10000000);

    /* An hour, 2^63 times: count and sum at their limits survive the round trip. */
    throng_histogram_reset (h);
    throng_histogram_record_n (h, ONE_HOUR * 2, G_GUINT64_CONSTANT (1) << 63);
    text = throng_histogram_serialize (h);
    back = throng_histogram_deserialize (text, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (throng_histogram_count (back), ==, G_GUINT64_CONSTANT (1) << 63);
    g_assert_cmpfloat_with_epsilon (throng_histogram_mean (back), (gdouble) ONE_HOUR, 1e-3);
    g_assert_cmpint (throng_histogram_percentile (back, 50), ==, ONE_HOUR);
}

static void
test_empty (void)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();
    g_autoptr (ThrongHistogram) back = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree char *text = NULL;

    g_assert_cmpuint (throng_histogram_count (h), ==, 0);
    g_assert_cmpint (throng_histogram_min (h), ==, 0);
    g_assert_cmpint (throng_histogram_max (h), ==, 0);
    g_assert_cmpfloat (throng_histogram_mean (h), ==, 0);
    g_assert_cmpint (throng_histogram_percentile (h, 50), ==, 0);
    g_assert_cmpint (throng_histogram_percentile (h, 100), ==, 0);

    text = throng_histogram_serialize (h);
    g_assert_cmpstr (text, ==, "v1:AAAAAA==");
    back = throng_histogram_deserialize (text, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (throng_histogram_count (back), ==, 0);
}

static ThrongHistogram *
random_histogram (gint64 *values, gsize n)
{
    ThrongHistogram *h = throng_histogram_new ();

    for (gsize i = 0; i < n; i++)
        throng_histogram_record (h, values[i]);
    return h;
}

static void
assert_same (const ThrongHistogram *a, const ThrongHistogram *b)
{
    g_autofree char *text_a = throng_histogram_serialize (a);
    g_autofree char *text_b = throng_histogram_serialize (b);

    /* The serialised form is canonical: equal text means equal buckets, min, max and sum. */
    g_assert_cmpstr (text_a, ==, text_b);
    g_assert_cmpuint (throng_histogram_count (a), ==, throng_histogram_count (b));
    g_assert_cmpint (throng_histogram_min (a), ==, throng_histogram_min (b));
    g_assert_cmpint (throng_histogram_max (a), ==, throng_histogram_max (b));
    g_assert_cmpfloat (throng_histogram_mean (a), ==, throng_histogram_mean (b));
    for (gsize i = 0; i < G_N_ELEMENTS (percentiles); i++)
        g_assert_cmpint (throng_histogram_percentile (a, percentiles[i]), ==,
                         throng_histogram_percentile (b, percentiles[i]));
}

static void
test_merge (void)
{
    enum { N_PARTS = 8, PER_PART = 5000 };
    g_autofree gint64 *values = g_new (gint64, N_PARTS * PER_PART);
    g_autoptr (ThrongHistogram) all = NULL;
    g_autoptr (ThrongHistogram) merged = throng_histogram_new ();
    g_autoptr (ThrongHistogram) empty = throng_histogram_new ();

    for (gsize i = 0; i < N_PARTS * PER_PART; i++) {
        /* Each part its own range, so min and max come from different parts. */
        gsize part = i / PER_PART;

        values[i] = (gint64) (100.0 * (gdouble) (part + 1) * exp_ (normal ()));
    }
    all = random_histogram (values, N_PARTS * PER_PART);

    throng_histogram_merge (merged, empty);
    g_assert_cmpuint (throng_histogram_count (merged), ==, 0);
    for (gsize part = 0; part < N_PARTS; part++) {
        g_autoptr (ThrongHistogram) h = random_histogram (values + part * PER_PART, PER_PART);

        throng_histogram_merge (merged, h);
    }
    throng_histogram_merge (merged, empty);
    assert_same (merged, all);
    check_against_exact (values, N_PARTS * PER_PART);
}

static void
test_round_trip (void)
{
    g_autofree gint64 *values = g_new (gint64, 50000);

    for (gsize n = 1; n <= 50000; n *= 10) {
        g_autoptr (ThrongHistogram) h = NULL;
        g_autoptr (ThrongHistogram) back = NULL;
        g_autoptr (GError) error = NULL;
        g_autofree char *text = NULL;

        for (gsize i = 0; i < n; i++)
            values[i] = (gint64) exp_ (0.693147180559945309417 * g_test_rand_double_range (0, 32));
        h = random_histogram (values, n);
        text = throng_histogram_serialize (h);
        g_assert_true (g_str_has_prefix (text, "v1:"));
        back = throng_histogram_deserialize (text, &error);
        g_assert_no_error (error);
        g_assert_nonnull (back);
        assert_same (h, back);
    }
}

/* Builds "v1:" + base64 of the given varints, for inputs no histogram would produce. */
static char *
encode (const guint64 *numbers, gsize n)
{
    g_autoptr (GByteArray) bytes = g_byte_array_new ();
    g_autofree char *b64 = NULL;

    for (gsize i = 0; i < n; i++) {
        guint64 v = numbers[i];

        do {
            guint8 byte = (v & 0x7f) | (v >> 7 ? 0x80 : 0);

            g_byte_array_append (bytes, &byte, 1);
            v >>= 7;
        } while (v != 0);
    }
    b64 = g_base64_encode (bytes->data, bytes->len);
    return g_strconcat ("v1:", b64, NULL);
}

static char *
encode_bytes (const guint8 *bytes, gsize n)
{
    g_autofree char *b64 = g_base64_encode (bytes, n);

    return g_strconcat ("v1:", b64, NULL);
}

static void
assert_refused (const char *text, const char *why)
{
    g_autoptr (GError) error = NULL;
    ThrongHistogram *h = throng_histogram_deserialize (text, &error);

    if (h != NULL)
        g_error ("'%s' was accepted; expected: %s", text, why);
    g_assert_nonnull (error);
    g_assert_error (error, THRONG_HISTOGRAM_ERROR, THRONG_HISTOGRAM_ERROR_INVALID);
    if (strstr (error->message, why) == NULL)
        g_error ("'%s': message '%s' does not say '%s'", text, error->message, why);
    g_assert_true (g_str_has_prefix (error->message, "invalid histogram: "));
}

#define REFUSED_NUMBERS(why, ...)                                                                 \
    do {                                                                                          \
        const guint64 numbers_[] = { __VA_ARGS__ };                                               \
        g_autofree char *text_ = encode (numbers_, G_N_ELEMENTS (numbers_));                      \
        assert_refused (text_, why);                                                              \
    } while (0)

static void
test_corrupt (void)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();
    g_autofree char *valid = NULL;
    g_autofree char *truncated = NULL;
    g_autofree char *bad = NULL;

    assert_refused ("", "does not start with \"v1:\"");
    assert_refused ("v2:AAAAAA==", "does not start with \"v1:\"");
    assert_refused ("v1:", "nothing after \"v1:\"");
    assert_refused ("v1:AAAAA", "multiple of 4");
    assert_refused ("v1:AA*AAA==", "not base64");
    assert_refused ("v1:AAAA AA=", "not base64");
    assert_refused ("v1:A===", "not base64");

    throng_histogram_record (h, 1000);
    throng_histogram_record (h, 2000);
    valid = throng_histogram_serialize (h);
    /* Cut the payload short: decode, drop the last byte, re-encode. */
    {
        gsize len;
        g_autofree guint8 *data = g_base64_decode (valid + 3, &len);

        truncated = encode_bytes (data, len - 1);
        assert_refused (truncated, "truncated");
    }

    /* min, max, sum hi, sum lo, then (gap, count) pairs; buckets below 128 are the values. */
    REFUSED_NUMBERS ("no values but a non-zero", 0, 0, 0, 1);
    REFUSED_NUMBERS ("an empty bucket", 5, 5, 0, 5, 5, 0);
    REFUSED_NUMBERS ("out of range", 5, 5, 0, 5, 100000, 1);
    REFUSED_NUMBERS ("out of range", 5, 5, 0, 5, 5, 1, 1702, 1);
    REFUSED_NUMBERS ("min above max", 7, 5, 0, 12, 5, 1, 1, 1);
    REFUSED_NUMBERS ("outside the first or last bucket", 4, 6, 0, 11, 5, 1, 0, 1);
    REFUSED_NUMBERS ("outside the first or last bucket", 5, 7, 0, 11, 5, 1, 0, 1);
    REFUSED_NUMBERS ("a sum that does not lie between", 5, 6, 0, 100, 5, 1, 0, 1);
    REFUSED_NUMBERS ("a sum that does not lie between", 5, 6, 0, 9, 5, 1, 0, 1);
    REFUSED_NUMBERS ("a sum that does not lie between", 5, 6, 1, 11, 5, 1, 0, 1);
    REFUSED_NUMBERS ("larger than 64 bits", 5, 5, 0, 0, 5, G_MAXUINT64, 0, 1);
    REFUSED_NUMBERS ("above one hour", ONE_HOUR + 1, ONE_HOUR + 1, 0, ONE_HOUR + 1, 1707, 1);
    REFUSED_NUMBERS ("truncated", 5, 5, 0, 5, 5);
    REFUSED_NUMBERS ("truncated", 5, 5, 0);
    {
        /* Eleven continuation bytes, and a zero padded to two bytes. */
        const guint8 long_varint[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0x7f, 0 };
        const guint8 redundant[] = { 0x80, 0x00, 0, 0, 0 };

        bad = encode_bytes (long_varint, sizeof long_varint);
        assert_refused (bad, "larger than 64 bits");
        g_clear_pointer (&bad, g_free);
        bad = encode_bytes (redundant, sizeof redundant);
        assert_refused (bad, "redundant encoding");
        g_clear_pointer (&bad, g_free);
    }

    /* And the well-formed counterpart of the cases above is accepted. */
    {
        g_autoptr (ThrongHistogram) back = NULL;
        g_autoptr (GError) error = NULL;

        bad = encode ((const guint64[]){ 5, 6, 0, 11, 5, 1, 0, 1 }, 8);
        back = throng_histogram_deserialize (bad, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (throng_histogram_count (back), ==, 2);
        g_assert_cmpint (throng_histogram_min (back), ==, 5);
        g_assert_cmpint (throng_histogram_max (back), ==, 6);
    }
}

static void
test_reset (void)
{
    g_autoptr (ThrongHistogram) h = throng_histogram_new ();
    g_autoptr (ThrongHistogram) fresh = throng_histogram_new ();

    for (gint64 v = 1; v < ONE_HOUR; v *= 3)
        throng_histogram_record (h, v);
    g_assert_cmpuint (throng_histogram_count (h), >, 0);
    throng_histogram_reset (h);
    assert_same (h, fresh);

    /* Usable again, with min no longer stuck at the old minimum. */
    throng_histogram_record (h, 500);
    g_assert_cmpint (throng_histogram_min (h), ==, 500);
    g_assert_cmpint (throng_histogram_max (h), ==, 500);
    g_assert_cmpint (throng_histogram_percentile (h, 50), ==, 500);
}

int
main (int argc, char **argv)
{
    g_test_init (&argc, &argv, NULL);

    g_test_add_func ("/histogram/empty", test_empty);
    g_test_add_func ("/histogram/percentile/uniform", test_uniform);
    g_test_add_func ("/histogram/percentile/lognormal", test_lognormal);
    g_test_add_func ("/histogram/percentile/bimodal", test_bimodal);
    g_test_add_func ("/histogram/percentile/adversarial", test_adversarial);
    g_test_add_func ("/histogram/clamp", test_clamp);
    g_test_add_func ("/histogram/record-n", test_record_n);
    g_test_add_func ("/histogram/merge", test_merge);
    g_test_add_func ("/histogram/serialize/round-trip", test_round_trip);
    g_test_add_func ("/histogram/serialize/corrupt", test_corrupt);
    g_test_add_func ("/histogram/reset", test_reset);
    return g_test_run ();
}
