/* Unit tests for units.c: memory units, durations, report values. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/lines.h"
#include "report/units.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------
 * Memory units
 * ------------------------------------------------------------------------ */

static const struct {
    const char *text;
    enum pt_mem_unit unit;
} good_mem_units[] = {
    {"bytes", PT_MEM_BYTES}, {"kB", PT_MEM_KB}, {"KiB", PT_MEM_KB}, {"MB", PT_MEM_MB},
    {"MiB", PT_MEM_MB},      {"GB", PT_MEM_GB}, {"GiB", PT_MEM_GB},
};

START_TEST(test_mem_unit_parse_good)
{
    enum pt_mem_unit unit = PT_MEM_GB + 1;

    ck_assert_msg(pt_units_mem_parse(good_mem_units[_i].text, &unit) == 0, "rejected \"%s\"", good_mem_units[_i].text);
    ck_assert_int_eq(unit, good_mem_units[_i].unit);
}
END_TEST

static const char *const bad_mem_units[] = {
    "",  "b",   "B",  "KB", "kb", "byte", "Bytes", "kB ",   " kB", "k",
    "K", "kiB", "Kb", "mb", "mB", "gb",   "TB",    "MiB\n", "1kB", "pages",
};

START_TEST(test_mem_unit_parse_bad)
{
    enum pt_mem_unit unit = PT_MEM_MB;

    ck_assert_msg(pt_units_mem_parse(bad_mem_units[_i], &unit) == -1, "accepted \"%s\"", bad_mem_units[_i]);
    ck_assert_int_eq(unit, PT_MEM_MB); /* untouched on failure */
}
END_TEST

START_TEST(test_mem_unit_name_round_trip)
{
    const enum pt_mem_unit units[] = {PT_MEM_BYTES, PT_MEM_KB, PT_MEM_MB, PT_MEM_GB};
    const char *names[] = {"bytes", "kB", "MB", "GB"};

    for (size_t k = 0; k < COUNT(units); k++) {
        enum pt_mem_unit back;
        ck_assert_str_eq(pt_units_mem_name(units[k]), names[k]);
        ck_assert_int_eq(pt_units_mem_parse(pt_units_mem_name(units[k]), &back), 0);
        ck_assert_int_eq(back, units[k]);
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Durations
 * ------------------------------------------------------------------------ */

/* Expected values are written as the double literal the text denotes, and
 * compared exactly: the parser promises a single rounding. */
static const struct {
    const char *text;
    double seconds;
} good_durations[] = {
    {"1", 1},
    {"2s", 2},
    {"1.5", 1.5},
    {"0.1", 0.1},
    {"0.25s", 0.25},
    {"250ms", 0.25},
    {"1.5ms", 0.0015},
    {"100us", 0.0001},
    {"10ns", 1e-8},
    {"1ns", 1e-9},
    {"0.001us", 1e-9}, /* the shortest accepted */
    {"1m", 60},
    {"1.5m", 90},
    {"2h", 7200},
    {"007s", 7},
    {"10.000", 10},
    {"0.000000001", 1e-9},
    {"123456.789ms", 123.456789},
    {"31536000", 31536000}, /* one year: the limit */
    {"31536000s", 31536000},
    {"525600m", 31536000},
    {"8760h", 31536000},
    {"31536000000ms", 31536000},
    {"0.1234567890123456789012345", 0.1234567890123456789012345}, /* > 19 digits */
    {"000000000000000000000000000000000000000000001", 1},         /* 45 chars */
};

START_TEST(test_duration_good)
{
    double seconds = -1;

    ck_assert_msg(pt_units_duration_parse(good_durations[_i].text, &seconds) == 0, "rejected \"%s\"",
                  good_durations[_i].text);
    ck_assert_msg(seconds == good_durations[_i].seconds, "\"%s\": got %.17g, want %.17g", good_durations[_i].text,
                  seconds, good_durations[_i].seconds);
}
END_TEST

static const char *const bad_durations[] = {
    "",
    "0",
    "0s",
    "0.0",
    "000ms",
    "0.5ns",
    "0.0000000001", /* below 1 ns */
    "0.0000000000000000000000000000000000000000001ns",
    "1.2.3",
    "-1s",
    "+1s",
    "-0",
    "1x",
    "ms",
    "s",
    ".",
    ".5",
    "5.",
    "1.s",
    "1 s",
    " 1s",
    "1s ",
    "1\n",
    "1,5",
    "1e3",
    "1E3",
    "0x10",
    "inf",
    "nan",
    "INF",
    "infinity",
    "1S",
    "1sec",
    "1ms5",
    "1mm",
    "1hh",
    "1us ",
    "1µs",
    "8760.001h",
    "31536000.000001",
    "31536001",
    "525601m",
    "99999999999999999999999999999",
    "100000000000000000000000000000000000000",
    "00000000000000000000000000000000000000000000000000000000000000001", /* 65 chars */
};

START_TEST(test_duration_bad)
{
    double seconds = 42;

    ck_assert_msg(pt_units_duration_parse(bad_durations[_i], &seconds) == -1, "accepted \"%s\"", bad_durations[_i]);
    ck_assert(seconds == 42); /* untouched on failure */
}
END_TEST

/* ---------------------------------------------------------------------------
 * Report values
 * ------------------------------------------------------------------------ */

static const struct pt_units units_bytes = {PT_MEM_BYTES, PT_MEM_BYTES};

static struct pt_value value_of(enum pt_metric_id id, double raw, enum pt_mem_unit mem)
{
    const struct pt_units units = {mem, mem};
    struct pt_value v;

    pt_lines_value_set(&v, id, raw, &units);
    return v;
}

static void assert_int_value(struct pt_value v, int64_t want)
{
    ck_assert(v.present);
    ck_assert(v.is_int);
    ck_assert_msg(v.i == want, "got %lld, want %lld", (long long)v.i, (long long)want);
}

static void assert_float_value(struct pt_value v, double want)
{
    ck_assert(v.present);
    ck_assert(!v.is_int);
    ck_assert_msg(v.f == want, "got %.17g, want %.17g", v.f, want);
}

START_TEST(test_memory_bytes)
{
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 0, PT_MEM_BYTES), 0);
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 4096, PT_MEM_BYTES), 4096);
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 1536.4, PT_MEM_BYTES), 1536);
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 1536.5, PT_MEM_BYTES), 1537);
    /* llround() agrees: the largest double below 0.5 is not rounded up. */
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 0.49999999999999994, PT_MEM_BYTES), 0);
    assert_int_value(value_of(PT_M_PROC_RSS_MAX, 0x1p52 + 1, PT_MEM_BYTES), 4503599627370497);
}
END_TEST

/* kB rounds half up: 1536 bytes = 1.5 kB -> 2. */
START_TEST(test_memory_kb)
{
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 0, PT_MEM_KB), 0);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 511, PT_MEM_KB), 0);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 512, PT_MEM_KB), 1);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 1024, PT_MEM_KB), 1);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 1535, PT_MEM_KB), 1);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 1536, PT_MEM_KB), 2);
    assert_int_value(value_of(PT_M_PROC_PSS_MIN, 8.0 * 1024 * 1024 * 1024, PT_MEM_KB), 8388608);
}
END_TEST

START_TEST(test_memory_mb_gb)
{
    assert_float_value(value_of(PT_M_PROC_USS_MAX, 0, PT_MEM_MB), 0.0);
    assert_float_value(value_of(PT_M_PROC_USS_MAX, 1572864, PT_MEM_MB), 1.5);
    assert_float_value(value_of(PT_M_PROC_USS_MAX, 1024, PT_MEM_MB), 1.0 / 1024);
    assert_float_value(value_of(PT_M_PROC_USS_MAX, 3.0 * 1024 * 1024 * 1024, PT_MEM_GB), 3.0);
    assert_float_value(value_of(PT_M_PROC_USS_MAX, 512.0 * 1024 * 1024, PT_MEM_GB), 0.5);
}
END_TEST

/* Process and global memory follow their own setting. */
START_TEST(test_memory_units_are_separate)
{
    const struct pt_units units = {.proc_memory = PT_MEM_KB, .global_memory = PT_MEM_GB};
    struct pt_value proc, global;

    pt_lines_value_set(&proc, PT_M_PROC_RSS_MAX, 1073741824.0, &units);
    pt_lines_value_set(&global, PT_M_GLOBAL_MEM_USED_MAX, 1073741824.0, &units);
    assert_int_value(proc, 1048576);
    assert_float_value(global, 1.0);
}
END_TEST

START_TEST(test_bytes_and_numbers)
{
    assert_int_value(value_of(PT_M_PROC_IO_READ_BYTES, 12.5, PT_MEM_GB), 13);
    assert_int_value(value_of(PT_M_PROC_IO_READ_BYTES, 12.49, PT_MEM_GB), 12);
    assert_int_value(value_of(PT_M_PROC_THREADS, 7, PT_MEM_GB), 7);
    assert_int_value(value_of(PT_M_COLLECTOR_SAMPLES, 0, PT_MEM_GB), 0);
    assert_int_value(value_of(PT_M_PROC_IO_WRITE_BYTES, 9.2e18, PT_MEM_BYTES), 9200000000000000000);
}
END_TEST

/* Beyond int64 the value saturates rather than wrapping or being UB. */
START_TEST(test_int_saturates)
{
    assert_int_value(value_of(PT_M_PROC_IO_READ_BYTES, 0x1p63, PT_MEM_BYTES), INT64_MAX);
    assert_int_value(value_of(PT_M_PROC_IO_READ_BYTES, 1e30, PT_MEM_BYTES), INT64_MAX);
    assert_int_value(value_of(PT_M_PROC_MINOR_FAULTS, 1.7976931348623157e308, PT_MEM_BYTES), INT64_MAX);
    assert_int_value(value_of(PT_M_PROC_VM_SIZE_MAX, 1e30, PT_MEM_BYTES), INT64_MAX);
    assert_int_value(value_of(PT_M_PROC_VM_SIZE_MAX, 0x1p63 - 1024, PT_MEM_BYTES), INT64_MAX - 1023);
}
END_TEST

START_TEST(test_seconds_and_percent)
{
    assert_float_value(value_of(PT_M_PROC_CPU_USER_SECONDS, 0.25, PT_MEM_KB), 0.25);
    assert_float_value(value_of(PT_M_COLLECTOR_CPU_SECONDS, 0, PT_MEM_KB), 0.0);
    assert_float_value(value_of(PT_M_PROC_CPU_PERCENT, 150.5, PT_MEM_KB), 150.5);
    assert_float_value(value_of(PT_M_PROC_CPU_PERCENT, 3, PT_MEM_KB), 3.0);
}
END_TEST

/* Non-finite or negative raw amounts leave the value absent, whatever the
 * unit, and whatever the value held before. */
START_TEST(test_absent_inputs)
{
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY, -1, -0.5, -1e-300, -1e300};

    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        for (size_t k = 0; k < COUNT(bad); k++) {
            struct pt_value v = {.present = true, .is_int = true, .i = 5, .f = 5};
            pt_lines_value_set(&v, (enum pt_metric_id)id, bad[k], &units_bytes);
            ck_assert_msg(!v.present, "%s with raw %g is present", pt_catalog[id].name, bad[k]);
        }
    }
}
END_TEST

/* -0.0 is zero, not negative, and must not come out as "-0.0". */
START_TEST(test_negative_zero)
{
    struct pt_value v = value_of(PT_M_PROC_CPU_PERCENT, -0.0, PT_MEM_MB);

    assert_float_value(v, 0.0);
    ck_assert(!signbit(v.f));
    assert_float_value(value_of(PT_M_PROC_SWAP_MAX, -0.0, PT_MEM_GB), 0.0);
    ck_assert(!signbit(value_of(PT_M_PROC_SWAP_MAX, -0.0, PT_MEM_GB).f));
    assert_int_value(value_of(PT_M_PROC_THREADS, -0.0, PT_MEM_MB), 0);
}
END_TEST

/* A field must keep its type forever: for a given configuration the
 * representation depends on the metric only, never on the amount. */
START_TEST(test_type_is_stable)
{
    const enum pt_mem_unit mems[] = {PT_MEM_BYTES, PT_MEM_KB, PT_MEM_MB, PT_MEM_GB};
    const double raws[] = {0, 0.4, 1, 1536, 1e12, 1e30};

    for (size_t m = 0; m < COUNT(mems); m++) {
        for (int id = 0; id < PT_METRIC_COUNT; id++) {
            enum pt_unit unit = pt_catalog[id].unit;
            bool want_int = unit == PT_UNIT_BYTES || unit == PT_UNIT_NUMBER ||
                            ((unit == PT_UNIT_PROC_MEMORY || unit == PT_UNIT_GLOBAL_MEMORY) &&
                             (mems[m] == PT_MEM_BYTES || mems[m] == PT_MEM_KB));
            for (size_t r = 0; r < COUNT(raws); r++) {
                struct pt_value v = value_of((enum pt_metric_id)id, raws[r], mems[m]);
                ck_assert(v.present);
                ck_assert_msg(v.is_int == want_int, "%s in %s: is_int=%d", pt_catalog[id].name,
                              pt_units_mem_name(mems[m]), v.is_int);
                ck_assert(v.is_int || isfinite(v.f));
            }
        }
    }
}
END_TEST

START_TEST(test_value_as_double)
{
    const struct pt_value i = {.present = true, .is_int = true, .i = 1536};
    const struct pt_value f = {.present = true, .is_int = false, .f = 2.5};
    const struct pt_value big = {.present = true, .is_int = true, .i = INT64_MAX};
    const struct pt_value absent = {.present = false, .is_int = true, .i = 7, .f = 7};

    ck_assert(pt_lines_value_as_double(&i) == 1536.0);
    ck_assert(pt_lines_value_as_double(&f) == 2.5);
    ck_assert(pt_lines_value_as_double(&big) == 0x1p63);
    ck_assert(isnan(pt_lines_value_as_double(&absent)));
}
END_TEST

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *mem = tcase_create("mem_unit");
    TCase *dur = tcase_create("duration");
    TCase *val = tcase_create("value");

    tcase_add_loop_test(mem, test_mem_unit_parse_good, 0, COUNT(good_mem_units));
    tcase_add_loop_test(mem, test_mem_unit_parse_bad, 0, COUNT(bad_mem_units));
    tcase_add_test(mem, test_mem_unit_name_round_trip);
    suite_add_tcase(s, mem);

    tcase_add_loop_test(dur, test_duration_good, 0, COUNT(good_durations));
    tcase_add_loop_test(dur, test_duration_bad, 0, COUNT(bad_durations));
    suite_add_tcase(s, dur);

    tcase_add_test(val, test_memory_bytes);
    tcase_add_test(val, test_memory_kb);
    tcase_add_test(val, test_memory_mb_gb);
    tcase_add_test(val, test_memory_units_are_separate);
    tcase_add_test(val, test_bytes_and_numbers);
    tcase_add_test(val, test_int_saturates);
    tcase_add_test(val, test_seconds_and_percent);
    tcase_add_test(val, test_absent_inputs);
    tcase_add_test(val, test_negative_zero);
    tcase_add_test(val, test_type_is_stable);
    tcase_add_test(val, test_value_as_double);
    suite_add_tcase(s, val);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(units_suite());
    int failed;

    srunner_run_all(runner, CK_NORMAL);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
