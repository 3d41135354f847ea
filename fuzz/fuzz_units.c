/* fuzz_units: the user-text parsers and the value conversion of
 * common/report/units.h.
 *
 * The input, as a C string (cut at its first NUL), goes to
 * pt_units_duration_parse and pt_units_mem_parse; its first bytes also make raw
 * amounts for pt_lines_value_set. Checked, as units.h and lines.h document:
 * - pt_units_duration_parse: on success the text matches
 *   [0-9]+(\.[0-9]+)?(|ns|us|ms|s|m|h), the value is finite, between 1 ns
 *   and 365 days, and within 1e-12 (relative) of strtod's reading of the
 *   number times the suffix; on failure *seconds is left alone. The other
 *   way round, text that matches the syntax, is at most 64 bytes long (the
 *   implementation's sanity limit) and whose value is clearly inside the
 *   bounds must be accepted.
 * - pt_units_mem_parse: accepts exactly the documented spellings with the
 *   documented units, leaves *out alone otherwise, and
 *   pt_units_mem_name() gives back a spelling that parses to the same unit.
 * - pt_lines_value_set (raw from 8 input bytes as a double, and as an integer
 *   counter): a non-finite or negative raw amount gives an absent value;
 *   otherwise the value is present, an integer exactly for bytes/kB
 *   memory, byte and number units, rounded half up and saturating at
 *   INT64_MAX, a float (finite, >= 0, exact) for MB/GB memory, seconds and
 *   percent; pt_lines_value_as_double agrees. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "report/catalog.h"
#include "report/report.h"
#include "report/lines.h"
#include "report/units.h"

#define YEAR_SECONDS (365.0 * 24 * 3600)
#define TEXT_LIMIT 64 /* DURATION_MAX_TEXT in units.c */

/* ---- Durations ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Does text match the documented syntax? Sets the number's end and the
 * suffix multiplier. */
static bool duration_syntax(const char *text, size_t *number_len, double *multiplier)
{
    static const struct {
        const char *suffix;
        double multiplier;
    } suffixes[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"m", 60}, {"h", 3600}};
    const char *p = text;
    if (!is_digit(*p))
        return false;
    while (is_digit(*p))
        p++;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
    }
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        if (strcmp(p, suffixes[i].suffix) == 0) {
            *number_len = (size_t)(p - text);
            *multiplier = suffixes[i].multiplier;
            return true;
        }
    }
    return false;
}

static void fuzz_duration(const char *text)
{
    const double sentinel = -12345.5;
    double seconds = sentinel;
    int rc = pt_units_duration_parse(text, &seconds);
    CHECK(rc == 0 || rc == -1);

    size_t number_len = 0;
    double multiplier = 0;
    bool syntax = duration_syntax(text, &number_len, &multiplier);

    if (rc != 0) {
        CHECK(seconds == sentinel); /* left alone */
    } else {
        CHECK(syntax);
        CHECK(isfinite(seconds));
        CHECK(seconds > 0);
        CHECK(seconds >= 1e-9);
        CHECK(seconds <= YEAR_SECONDS);
    }
    if (!syntax)
        return;

    /* strtod's reading (the "C" locale: this harness never calls
     * setlocale) times the suffix. */
    char *number = malloc(number_len + 1);
    CHECK(number != NULL);
    memcpy(number, text, number_len);
    number[number_len] = '\0';
    double expected = strtod(number, NULL) * multiplier;
    free(number);

    if (rc == 0)
        CHECK(fabs(seconds - expected) <= 1e-12 * expected);
    else if (strlen(text) <= TEXT_LIMIT && expected >= 1e-9 * (1 + 1e-9) && expected <= YEAR_SECONDS * (1 - 1e-9))
        CHECK(!"a valid duration inside the bounds was rejected");
}

/* ---- Memory units ---- */

static void fuzz_mem_unit(const char *text)
{
    static const struct {
        const char *text;
        enum pt_mem_unit unit;
    } documented[] = {
        {"bytes", PT_MEM_BYTES}, {"kB", PT_MEM_KB},  {"MB", PT_MEM_MB},  {"GB", PT_MEM_GB},
        {"KiB", PT_MEM_KB},      {"MiB", PT_MEM_MB}, {"GiB", PT_MEM_GB},
    };
    const enum pt_mem_unit sentinel = (enum pt_mem_unit)77;
    enum pt_mem_unit unit = sentinel;
    int rc = pt_units_mem_parse(text, &unit);
    CHECK(rc == 0 || rc == -1);

    int want = -1;
    for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
        if (strcmp(text, documented[i].text) == 0)
            want = (int)i;
    if (want < 0) {
        CHECK(rc == -1);
        CHECK(unit == sentinel);
        return;
    }
    CHECK(rc == 0);
    CHECK(unit == documented[want].unit);
    const char *name = pt_units_mem_name(unit);
    CHECK(name != NULL);
    enum pt_mem_unit again = sentinel;
    CHECK(pt_units_mem_parse(name, &again) == 0 && again == unit);
}

/* ---- Report values ---- */

static void check_value(enum pt_metric_id id, double raw, const struct pt_units *units)
{
    struct pt_value v;
    memset(&v, 0x5a, sizeof(v));
    pt_lines_value_set(&v, id, raw, units);

    if (!isfinite(raw) || raw < 0) {
        CHECK(!v.present);
        CHECK(isnan(pt_lines_value_as_double(&v)));
        return;
    }
    CHECK(v.present);

    enum pt_mem_unit mem = PT_MEM_BYTES;
    bool memory = false;
    switch (pt_catalog[id].unit) {
    case PT_UNIT_PROC_MEMORY:
        memory = true, mem = units->proc_memory;
        break;
    case PT_UNIT_GLOBAL_MEMORY:
        memory = true, mem = units->global_memory;
        break;
    default:
        break;
    }
    bool want_int;
    double divisor = 1;
    if (memory) {
        want_int = mem == PT_MEM_BYTES || mem == PT_MEM_KB;
        divisor = mem == PT_MEM_BYTES ? 1
                  : mem == PT_MEM_KB  ? 1024
                  : mem == PT_MEM_MB  ? 1024.0 * 1024
                                      : 1024.0 * 1024 * 1024;
    } else {
        want_int = pt_catalog[id].unit == PT_UNIT_BYTES || pt_catalog[id].unit == PT_UNIT_NUMBER;
    }
    CHECK(v.is_int == want_int);

    double x = raw / divisor; /* a power of two: exact unless subnormal */
    if (v.is_int) {
        CHECK(v.i >= 0);
        if (x >= 0x1p63) {
            CHECK(v.i == INT64_MAX);
        } else if (x >= 0x1p53) {
            CHECK(v.i == (int64_t)x); /* already an integer */
        } else {
            double d = x - (double)v.i;  /* exact here */
            CHECK(d >= -0.5 && d < 0.5); /* round half up */
        }
        CHECK(pt_lines_value_as_double(&v) == (double)v.i);
    } else {
        CHECK(isfinite(v.f));
        CHECK(v.f >= 0);
        CHECK(v.f == x);
        CHECK(pt_lines_value_as_double(&v) == v.f);
    }
}

static void fuzz_value_set(const uint8_t *data, size_t size)
{
    uint8_t raw[11] = {0};
    memcpy(raw, data, size < sizeof(raw) ? size : sizeof(raw));
    enum pt_metric_id id = (enum pt_metric_id)(raw[0] % PT_METRIC_COUNT);
    struct pt_units units = {
        .proc_memory = (enum pt_mem_unit)(raw[1] % 4),
        .global_memory = (enum pt_mem_unit)(raw[2] % 4),
    };
    double as_double;
    uint64_t as_u64;
    memcpy(&as_double, raw + 3, 8);
    memcpy(&as_u64, raw + 3, 8);

    check_value(id, as_double, &units);
    check_value(id, (double)as_u64, &units);                  /* a counter, as /proc gives them */
    check_value(id, (double)(as_u64 >> 11) / 1024.0, &units); /* fractions, exactly representable */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    fuzz_duration(text);
    fuzz_mem_unit(text);
    fuzz_value_set(data, size);

    /* A duration the parser accepted feeds pt_lines_value_set as seconds. */
    double seconds;
    if (pt_units_duration_parse(text, &seconds) == 0) {
        struct pt_units units = {PT_MEM_BYTES, PT_MEM_KB};
        check_value(PT_M_PROC_CPU_USER_SECONDS, seconds, &units);
        check_value(PT_M_PROC_PROCESSES, seconds, &units);
    }
    free(text);
    return 0;
}
