/* units: memory units, durations, and turning raw sums into report values.
 *
 * Everything here is locale-independent on purpose: configuration text is
 * scanned by hand (no strtod/sscanf, whose decimal point follows
 * LC_NUMERIC), and rounding is done without libm so that neither frontend
 * needs -lm for it. */
#include "report/units.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/base.h"

/* ---------------------------------------------------------------------------
 * Memory units
 * ------------------------------------------------------------------------ */

static const struct {
    const char *text;
    enum pt_mem_unit unit;
} mem_unit_names[] = {
    /* The canonical spellings (pt_units_mem_name()'s) first, then the IEC
     * names of the same binary units: every one means powers of 1024, and
     * the man pages, --help and the error list them all. "B", "KB" or "kb"
     * are refused: documented nowhere, and "KB" reads as 1000 to some. */
    {"bytes", PT_MEM_BYTES}, {"kB", PT_MEM_KB},  {"MB", PT_MEM_MB},  {"GB", PT_MEM_GB},
    {"KiB", PT_MEM_KB},      {"MiB", PT_MEM_MB}, {"GiB", PT_MEM_GB},
};

int pt_units_mem_parse(const char *text, enum pt_mem_unit *out)
{
    for (size_t i = 0; i < PT_ARRAY_LEN(mem_unit_names); i++) {
        if (strcmp(text, mem_unit_names[i].text) == 0) {
            *out = mem_unit_names[i].unit;
            return 0;
        }
    }
    return -1;
}

double pt_units_mem_bytes(enum pt_mem_unit unit)
{
    switch (unit) {
    case PT_MEM_BYTES:
        break;
    case PT_MEM_KB:
        return 1024.0;
    case PT_MEM_MB:
        return 1024.0 * 1024;
    case PT_MEM_GB:
        return 1024.0 * 1024 * 1024;
    }
    return 1.0;
}

const char *pt_units_mem_name(enum pt_mem_unit unit)
{
    switch (unit) {
    case PT_MEM_BYTES:
        return "bytes";
    case PT_MEM_KB:
        return "kB";
    case PT_MEM_MB:
        return "MB";
    case PT_MEM_GB:
        return "GB";
    }
    return "?";
}

/* ---------------------------------------------------------------------------
 * Durations
 * ------------------------------------------------------------------------ */

/* Longer than a year is certainly a typo (an interval in ms written as s,
 * or a stray digit), and rejecting it keeps every later conversion to
 * nanoseconds far inside int64. */
#define DURATION_MAX_SECONDS (365.0 * 24 * 3600)

/* Nothing can sleep, be timed or be timestamped more finely than 1 ns; a
 * shorter duration would become 0 ns later on (a busy loop, a division by
 * zero), so it is rejected here rather than trusted to every caller. */
#define DURATION_MIN_SECONDS 1e-9

/* No legitimate duration is longer; bounding the text also bounds the
 * decimal exponent below, so it cannot overflow an int. */
#define DURATION_MAX_TEXT 64

/* A scanned decimal number: mantissa * 10^exp10. */
struct decimal {
    uint64_t mantissa;
    int exp10;
};

/* Scan a run of digits into d. Digits that no longer fit in the mantissa
 * are dropped: in the integer part each still multiplies the value by 10,
 * in the fraction it is below the precision of a double anyway. */
static const char *scan_digits(const char *p, struct decimal *d, int in_fraction)
{
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (d->mantissa <= (UINT64_MAX - digit) / 10) {
            d->mantissa = d->mantissa * 10 + digit;
            d->exp10 -= in_fraction;
        } else if (!in_fraction) {
            d->exp10++;
        }
    }
    return p;
}

/* Scan [0-9]+(\.[0-9]+)? — no sign, no exponent, no ".5" or "5." (neither
 * is worth the ambiguity in a config file). Returns the end, or NULL. */
static const char *scan_decimal(const char *p, struct decimal *d)
{
    const char *start = p;

    d->mantissa = 0;
    d->exp10 = 0;
    p = scan_digits(p, d, 0);
    if (p == start)
        return NULL;
    if (*p == '.') {
        const char *fraction = ++p;
        p = scan_digits(p, d, 1);
        if (p == fraction)
            return NULL;
    }
    return p;
}

/* mantissa * 10^exp10 with a single rounding whenever the mantissa has at
 * most 53 bits and |exp10| <= 22 (powers of ten up to 1e22 are exact), so
 * "0.1", "250ms" and "1.5ms" give the same double as the literal would. */
static double decimal_value(uint64_t mantissa, int exp10)
{
    double scale = 1.0;

    for (int i = 0; i < (exp10 < 0 ? -exp10 : exp10); i++)
        scale *= 10.0;
    return exp10 < 0 ? (double)mantissa / scale : (double)mantissa * scale;
}

/* Sub-second suffixes shift the decimal exponent instead of dividing, so
 * that the conversion above stays a single rounding. */
static const struct {
    const char *suffix;
    int exp10;
    double multiplier;
} duration_suffixes[] = {
    {"", 0, 1}, {"s", 0, 1}, {"ms", -3, 1}, {"us", -6, 1}, {"ns", -9, 1}, {"m", 0, 60}, {"h", 0, 3600},
};

int pt_units_duration_parse(const char *text, double *seconds)
{
    struct decimal d;
    const char *suffix;

    if (strlen(text) > DURATION_MAX_TEXT)
        return -1;
    suffix = scan_decimal(text, &d);
    if (suffix == NULL)
        return -1;
    for (size_t i = 0; i < PT_ARRAY_LEN(duration_suffixes); i++) {
        if (strcmp(suffix, duration_suffixes[i].suffix) != 0)
            continue;
        double value =
            decimal_value(d.mantissa, d.exp10 + duration_suffixes[i].exp10) * duration_suffixes[i].multiplier;
        /* The bounds also reject 0, underflow and infinity. */
        if (!(value >= DURATION_MIN_SECONDS) || value > DURATION_MAX_SECONDS)
            return -1;
        *seconds = value;
        return 0;
    }
    return -1;
}
