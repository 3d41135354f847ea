/* fuzz_cgparse: the cgroup file scanners of common/cgroup/cgparse.h on arbitrary
 * bytes.
 *
 * Input: the first byte picks the parser (modulo PARSER_COUNT, see the enum
 * below), the rest is the file content, copied into a malloc'd buffer of
 * exactly its length, never NUL-terminated, so ASan reports any read past
 * len (cgparse.h: "never reads past len"). For pt_cgparse_keyed the key is
 * one of KEYS, picked by the content's length.
 *
 * Beyond "no crash, no sanitizer report", checked for every input:
 * - every parser returns 0 or -1 and is deterministic: two calls with the
 *   outputs pre-filled with different byte patterns give the same return
 *   value and, on success, the same values;
 * - every value on success is at most PT_MAX_COUNT (cgparse.h: clamped);
 * - each result equals an independent model of the rules cgparse.h states,
 *   a number being its decimal value clamped at PT_MAX_COUNT:
 *   keyed: the first line "KEY VALUE" gives the value, -1 when its VALUE
 *   is not all digits or no line has the key; single: 0 exactly when the
 *   content is one or more digits and an optional newline; pressure: 0
 *   exactly when the last "some " line has a "total=N" field (N digits to
 *   the end of the line or a space), has_full likewise for the last "full "
 *   line; io.stat: every non-empty line needs rbytes= and wbytes=, summed
 *   and clamped, else -1; blkio: "MAJ:MIN Read N" and "MAJ:MIN Write N"
 *   lines summed, "Total N" and other operations skipped, -1 when N is not
 *   all digits. A field is found at its first occurrence at the start of
 *   the line or after a space.
 * The PARSER_WELL_FORMED selector builds each file in the kernel's exact
 * format from 64-bit numbers taken from the input (any value, so 20-digit
 * ones too), and checks that every parser reads them back (clamped). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "cgroup/cgparse.h"
#include "procfs/procfile.h"

enum parser { P_KEYED, P_SINGLE, P_PRESSURE, P_IO_STAT, P_BLKIO, P_WELL_FORMED, PARSER_COUNT };

static const char *const KEYS[] = {"usage_usec", "user_usec", "oom_kill", "oom", "total_rss", "a"};
#define KEY_COUNT (sizeof(KEYS) / sizeof(KEYS[0]))

static const uint64_t PATTERNS[2] = {UINT64_C(0xa5a5a5a5a5a5a5a5), UINT64_C(0x5a5a5a5a5a5a5a5a)};

/* ---- The model ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The digits at s (at most n bytes): how many, and their value clamped. */
static size_t model_number(const char *s, size_t n, uint64_t *value)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < n && is_digit(s[i]); i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        v = v > (PT_MAX_COUNT - d) / 10 ? PT_MAX_COUNT : v * 10 + d;
    }
    *value = v;
    return i;
}

struct line {
    const char *p;
    size_t n;
};

/* The lines of buf: split at '\n'; a last line without one counts, an
 * empty tail after a last '\n' does not. */
static size_t split_lines(const char *buf, size_t len, struct line *out, size_t cap)
{
    size_t count = 0, start = 0;
    for (size_t i = 0; i <= len && count < cap; i++) {
        if (i == len || buf[i] == '\n') {
            if (i == len && start == len)
                break;
            out[count++] = (struct line){buf + start, i - start};
            start = i + 1;
        }
    }
    return count;
}

static bool starts(struct line l, const char *prefix)
{
    size_t n = strlen(prefix);
    return l.n >= n && memcmp(l.p, prefix, n) == 0;
}

/* "name=N" at its first occurrence at the start of the line or after a
 * space, with at least one byte after the name: 0 when N is digits ending
 * at the end of the line or a space. */
static int model_field(struct line l, const char *name, uint64_t *out)
{
    size_t nlen = strlen(name);
    for (size_t i = 0; i + nlen < l.n; i++) {
        if ((i == 0 || l.p[i - 1] == ' ') && memcmp(l.p + i, name, nlen) == 0) {
            size_t at = i + nlen, k = model_number(l.p + at, l.n - at, out);
            return k > 0 && (at + k == l.n || l.p[at + k] == ' ') ? 0 : -1;
        }
    }
    return -1;
}

static uint64_t add_clamped(uint64_t a, uint64_t b)
{
    return b > PT_MAX_COUNT - a ? PT_MAX_COUNT : a + b;
}

/* A line table as large as any input can need (one line per byte + 1). */
static struct line *lines_of(const char *buf, size_t len, size_t *count)
{
    struct line *lines = malloc((len + 1) * sizeof(*lines));
    CHECK(lines != NULL);
    *count = split_lines(buf, len, lines, len + 1);
    return lines;
}

/* ---- The parsers ---- */

static void fuzz_keyed(const char *buf, size_t len, const char *key)
{
    uint64_t v[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        v[k] = PATTERNS[k];
        rc[k] = pt_cgparse_keyed(buf, len, key, &v[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);

    size_t count, klen = strlen(key);
    struct line *lines = lines_of(buf, len, &count);
    int want = -1;
    uint64_t value = 0;
    for (size_t i = 0; i < count; i++) {
        struct line l = lines[i];
        if (l.n <= klen + 1 || memcmp(l.p, key, klen) != 0 || l.p[klen] != ' ')
            continue;
        size_t digits = model_number(l.p + klen + 1, l.n - klen - 1, &value);
        want = digits > 0 && digits == l.n - klen - 1 ? 0 : -1;
        break;
    }
    free(lines);
    CHECK(rc[0] == want);
    if (rc[0] == 0) {
        CHECK(v[0] == v[1]);
        CHECK(v[0] <= PT_MAX_COUNT);
        CHECK(v[0] == value);
    }
}

static void fuzz_single(const char *buf, size_t len)
{
    uint64_t v[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        v[k] = PATTERNS[k];
        rc[k] = pt_cgparse_single(buf, len, &v[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    size_t n = len > 0 && buf[len - 1] == '\n' ? len - 1 : len;
    uint64_t value;
    size_t digits = model_number(buf, n, &value);
    /* Success exactly for digits and an optional newline. */
    CHECK((rc[0] == 0) == (digits > 0 && digits == n));
    if (rc[0] == 0) {
        CHECK(v[0] == v[1]);
        CHECK(v[0] <= PT_MAX_COUNT);
        CHECK(v[0] == value);
    }
}

static void fuzz_pressure(const char *buf, size_t len)
{
    uint64_t some[2], full[2];
    bool has_full[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        some[k] = full[k] = PATTERNS[k];
        has_full[k] = k == 0;
        rc[k] = pt_cgparse_pressure(buf, len, &some[k], &full[k], &has_full[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    CHECK(has_full[0] == has_full[1]);

    size_t count;
    struct line *lines = lines_of(buf, len, &count);
    bool want_some = false, want_full = false;
    uint64_t some_v = 0, full_v = 0, v;
    for (size_t i = 0; i < count; i++) {
        struct line l = lines[i];
        if (l.n > 5 && starts(l, "some ")) {
            want_some = model_field(l, "total=", &v) == 0;
            if (want_some)
                some_v = v;
        } else if (l.n > 5 && starts(l, "full ")) {
            want_full = model_field(l, "total=", &v) == 0;
            if (want_full)
                full_v = v;
        }
    }
    free(lines);
    CHECK(rc[0] == (want_some ? 0 : -1));
    CHECK(has_full[0] == want_full);
    if (rc[0] == 0) {
        CHECK(some[0] == some[1]);
        CHECK(some[0] <= PT_MAX_COUNT);
        CHECK(some[0] == some_v);
    }
    if (has_full[0]) {
        CHECK(full[0] == full[1]);
        CHECK(full[0] <= PT_MAX_COUNT);
        CHECK(full[0] == full_v);
    }
}

static void fuzz_io_stat(const char *buf, size_t len)
{
    uint64_t r[2], w[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        r[k] = w[k] = PATTERNS[k];
        rc[k] = pt_cgparse_io_stat(buf, len, &r[k], &w[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);

    size_t count;
    struct line *lines = lines_of(buf, len, &count);
    int want = 0;
    uint64_t rsum = 0, wsum = 0;
    for (size_t i = 0; i < count && want == 0; i++) {
        uint64_t rv, wv;
        if (lines[i].n == 0)
            continue;
        if (model_field(lines[i], "rbytes=", &rv) != 0 || model_field(lines[i], "wbytes=", &wv) != 0)
            want = -1;
        else
            rsum = add_clamped(rsum, rv), wsum = add_clamped(wsum, wv);
    }
    free(lines);
    CHECK(rc[0] == want);
    if (len == 0)
        CHECK(rc[0] == 0 && r[0] == 0 && w[0] == 0);
    if (rc[0] == 0) {
        CHECK(r[0] == r[1] && w[0] == w[1]);
        CHECK(r[0] <= PT_MAX_COUNT && w[0] <= PT_MAX_COUNT);
        CHECK(r[0] == rsum && w[0] == wsum);
    }
}

static void fuzz_blkio(const char *buf, size_t len)
{
    uint64_t r[2], w[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        r[k] = w[k] = PATTERNS[k];
        rc[k] = pt_cgparse_blkio_bytes(buf, len, &r[k], &w[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);

    size_t count;
    struct line *lines = lines_of(buf, len, &count);
    int want = 0;
    uint64_t rsum = 0, wsum = 0;
    for (size_t i = 0; i < count && want == 0; i++) {
        struct line l = lines[i];
        const char *sp = memchr(l.p, ' ', l.n);
        if (!sp || starts(l, "Total "))
            continue;
        struct line op = {sp + 1, l.n - (size_t)(sp + 1 - l.p)};
        uint64_t *sum = op.n > 5 && starts(op, "Read ") ? &rsum : op.n > 6 && starts(op, "Write ") ? &wsum : NULL;
        if (!sum)
            continue;
        size_t skip = sum == &rsum ? 5 : 6;
        uint64_t v;
        if (model_number(op.p + skip, op.n - skip, &v) != op.n - skip)
            want = -1;
        else
            *sum = add_clamped(*sum, v);
    }
    free(lines);
    CHECK(rc[0] == want);
    if (len == 0)
        CHECK(rc[0] == 0 && r[0] == 0 && w[0] == 0);
    if (rc[0] == 0) {
        CHECK(r[0] == r[1] && w[0] == w[1]);
        CHECK(r[0] <= PT_MAX_COUNT && w[0] <= PT_MAX_COUNT);
        CHECK(r[0] == rsum && w[0] == wsum);
    }
}

/* ---- Well-formed files ---- */

static uint64_t clamp(uint64_t v)
{
    return v > PT_MAX_COUNT ? PT_MAX_COUNT : v;
}

/* Parse the first len bytes of text from a block of exactly that size. */
static char *exact_copy(const char *text, size_t len)
{
    char *p = malloc(len ? len : 1);
    CHECK(p != NULL);
    memcpy(p, text, len);
    return p;
}

static void fuzz_well_formed(const uint8_t *data, size_t size)
{
    uint64_t n[6] = {0};
    for (size_t i = 0; i < 6 && i * 8 < size; i++)
        memcpy(&n[i], data + i * 8, size - i * 8 < 8 ? size - i * 8 : 8);
    char text[512];
    uint64_t a, b;
    bool has_full;

    int len = snprintf(text, sizeof(text), "usage_usec %" PRIu64 "\nuser_usec %" PRIu64 "\nsystem_usec %" PRIu64 "\n",
                       n[0], n[1], n[2]);
    char *buf = exact_copy(text, (size_t)len);
    CHECK(pt_cgparse_keyed(buf, (size_t)len, "usage_usec", &a) == 0 && a == clamp(n[0]));
    CHECK(pt_cgparse_keyed(buf, (size_t)len, "user_usec", &a) == 0 && a == clamp(n[1]));
    CHECK(pt_cgparse_keyed(buf, (size_t)len, "system_usec", &a) == 0 && a == clamp(n[2]));
    CHECK(pt_cgparse_keyed(buf, (size_t)len, "nice_usec", &a) == -1);
    free(buf);

    len = snprintf(text, sizeof(text), "%" PRIu64 "\n", n[3]);
    buf = exact_copy(text, (size_t)len);
    CHECK(pt_cgparse_single(buf, (size_t)len, &a) == 0 && a == clamp(n[3]));
    CHECK(pt_cgparse_single(buf, (size_t)len - 1, &a) == 0 && a == clamp(n[3]));
    free(buf);

    len = snprintf(text, sizeof(text),
                   "some avg10=1.25 avg60=0.50 avg300=0.00 total=%" PRIu64 "\n"
                   "full avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n",
                   n[0], n[1]);
    buf = exact_copy(text, (size_t)len);
    CHECK(pt_cgparse_pressure(buf, (size_t)len, &a, &b, &has_full) == 0);
    CHECK(has_full && a == clamp(n[0]) && b == clamp(n[1]));
    free(buf);

    len = snprintf(text, sizeof(text),
                   "8:0 rbytes=%" PRIu64 " wbytes=%" PRIu64 " rios=3 wios=4 dbytes=0 dios=0\n"
                   "253:1 rbytes=%" PRIu64 " wbytes=%" PRIu64 " rios=1 wios=2 dbytes=0 dios=0\n",
                   n[2], n[3], n[4], n[5]);
    buf = exact_copy(text, (size_t)len);
    CHECK(pt_cgparse_io_stat(buf, (size_t)len, &a, &b) == 0);
    CHECK(a == add_clamped(clamp(n[2]), clamp(n[4])) && b == add_clamped(clamp(n[3]), clamp(n[5])));
    free(buf);

    len = snprintf(text, sizeof(text),
                   "8:0 Read %" PRIu64 "\n8:0 Write %" PRIu64 "\n8:0 Sync 7\n8:0 Async 8\n8:0 Discard 0\n8:0 Total 15\n"
                   "8:16 Read %" PRIu64 "\n8:16 Write %" PRIu64 "\n8:16 Total 9\nTotal 24\n",
                   n[2], n[3], n[4], n[5]);
    buf = exact_copy(text, (size_t)len);
    CHECK(pt_cgparse_blkio_bytes(buf, (size_t)len, &a, &b) == 0);
    CHECK(a == add_clamped(clamp(n[2]), clamp(n[4])) && b == add_clamped(clamp(n[3]), clamp(n[5])));
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    enum parser which = (enum parser)(data[0] % PARSER_COUNT);
    size_t len = size - 1;
    if (which == P_WELL_FORMED) {
        fuzz_well_formed(data + 1, len);
        return 0;
    }
    /* Exactly len bytes, so ASan's redzone starts at buf + len. For len 0
     * a one-byte block is allocated and buf points just past it: any read
     * at all is then out of bounds. */
    char *block = malloc(len ? len : 1);
    if (block == NULL)
        return 0;
    char *buf = len ? block : block + 1;
    if (len)
        memcpy(buf, data + 1, len);

    switch (which) {
    case P_KEYED:
        fuzz_keyed(buf, len, KEYS[len % KEY_COUNT]);
        break;
    case P_SINGLE:
        fuzz_single(buf, len);
        break;
    case P_PRESSURE:
        fuzz_pressure(buf, len);
        break;
    case P_IO_STAT:
        fuzz_io_stat(buf, len);
        break;
    case P_BLKIO:
        fuzz_blkio(buf, len);
        break;
    case P_WELL_FORMED:
    case PARSER_COUNT:
        break;
    }
    free(block);
    return 0;
}
