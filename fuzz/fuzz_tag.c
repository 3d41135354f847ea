/* fuzz_tag: InfluxDB line protocol output (common/include/proctree/lines.h) on arbitrary
 * bytes.
 *
 * pt_lines_append_tag_value gets the whole input as a tag value, appended
 * after some existing content. What lines.h promises, checked both as
 * properties of the output and against a small independent model of the
 * rules:
 * - ',', '=' and ' ' only ever appear escaped as "\,", "\=", "\ ", and a
 *   '\' appears only as such an escape (a raw backslash becomes '_');
 * - no C0 control byte (< 0x20), no DEL (0x7f) and no C1 control
 *   (U+0080..U+009F); they become '_';
 * - the output is well-formed UTF-8: each input byte that does not start
 *   a well-formed sequence becomes one '?';
 * - the return value is the number of bytes appended, the existing
 *   content is untouched, and 0 (empty) happens exactly for an empty
 *   input: every input byte or sequence yields at least one output byte;
 * - the output equals the model byte for byte.
 *
 * pt_lines_append_report gets the input (up to its first NUL) as the target
 * name, plus an integer, a float and a timestamp taken from the input's
 * first bytes: the line must be "proctree[,target=<escaped>] f=v[,f=v]
 * <timestamp>\n" with exactly one '\n', no '\r', the tag left out when it
 * would be empty, a non-finite float dropped, integers ending in 'i',
 * floats carrying a '.' or an exponent (never a negative one), and nothing at all appended when
 * no field is present. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "report/catalog.h"
#include "report/lines.h"
#include "report/report.h"

/* ---- An independent model of the tag value rules ---- */

/* Decode one well-formed UTF-8 sequence at s (the Unicode definition:
 * shortest form, no surrogates, at most U+10FFFF). Returns its length and
 * sets *cp, or 0 when s does not start one. Written differently from
 * lines.c's tag values on purpose: decode first, then judge the code point. */
static size_t model_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
    size_t n;
    uint32_t c, min;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        n = 2, c = s[0] & 0x1f, min = 0x80;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3, c = s[0] & 0x0f, min = 0x800;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4, c = s[0] & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[k] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* The expected escaped form of value into dst (room for 2 * len bytes). */
static size_t model_tag_value(const unsigned char *value, size_t len, char *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = model_decode(value + i, len - i, &cp);
        if (n == 0) {
            dst[o++] = '?';
            i++;
            continue;
        }
        if (cp == ',' || cp == '=' || cp == ' ') {
            dst[o++] = '\\';
            dst[o++] = (char)cp;
        } else if (cp == '\\' || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
            dst[o++] = '_';
        } else {
            memcpy(dst + o, value + i, n);
            o += n;
        }
        i += n;
    }
    return o;
}

/* ---- Properties of an escaped tag value, checked on their own ---- */

static void check_tag_properties(const unsigned char *t, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = t[i];
        CHECK(c >= 0x20 && c != 0x7f);
        if (c == '\\') {
            CHECK(i + 1 < n); /* never a trailing backslash */
            CHECK(t[i + 1] == ',' || t[i + 1] == '=' || t[i + 1] == ' ');
            i += 2;
            continue;
        }
        CHECK(c != ',' && c != '=' && c != ' '); /* never unescaped */
        uint32_t cp;
        size_t len = model_decode(t + i, n - i, &cp);
        CHECK(len != 0);                    /* well-formed UTF-8 */
        CHECK(!(cp >= 0x80 && cp <= 0x9f)); /* no C1 control */
        i += len;
    }
}

static void fuzz_tag_value(const uint8_t *data, size_t size)
{
    static const char prefix[] = "proctree,target=";
    struct pt_buf out = {0};

    /* The value in a block of exactly its size, so overreads are caught. */
    char *value = malloc(size ? size : 1);
    CHECK(value != NULL);
    if (size)
        memcpy(value, data, size);

    pt_lines_append_tag_value(&out, prefix, strlen(prefix)); /* has '=' and ',' */
    size_t start = out.len;
    char *before = malloc(start ? start : 1);
    CHECK(before != NULL);
    memcpy(before, out.data, start);

    size_t n = pt_lines_append_tag_value(&out, size ? value : value + 1, size);
    CHECK(out.len == start + n);
    CHECK(memcmp(out.data, before, start) == 0);
    CHECK((n == 0) == (size == 0));

    const unsigned char *t = (const unsigned char *)out.data + start;
    check_tag_properties(t, n);

    char *expected = malloc(2 * size + 1);
    CHECK(expected != NULL);
    size_t en = model_tag_value(data, size, expected);
    CHECK(n == en);
    CHECK(memcmp(t, expected, n) == 0);

    /* Appending into a reset buffer gives the same bytes. */
    pt_buf_reset(&out);
    CHECK(out.len == 0);
    CHECK(pt_lines_append_tag_value(&out, size ? value : value + 1, size) == n);
    CHECK(memcmp(out.data ? out.data : "", expected, n) == 0);

    free(expected);
    free(before);
    free(value);
    pt_buf_free(&out);
}

/* ---- A whole line with a fuzzed target name ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* One "name=value" field of the line, without the separators. */
static void check_field(const char *f, size_t n, bool *saw_int, bool *saw_float)
{
    const char *eq = memchr(f, '=', n);
    CHECK(eq != NULL && eq > f);
    for (const char *p = f; p < eq; p++)
        CHECK((*p >= 'a' && *p <= 'z') || is_digit(*p) || *p == '_');
    const char *v = eq + 1;
    size_t vn = (size_t)(f + n - v);
    CHECK(vn > 0);
    if (v[vn - 1] == 'i') {
        size_t k = v[0] == '-' ? 1 : 0;
        CHECK(vn - 1 > k);
        for (; k < vn - 1; k++)
            CHECK(is_digit(v[k]));
        *saw_int = true;
    } else {
        bool point_or_exp = false;
        for (size_t k = 0; k < vn; k++) {
            CHECK(is_digit(v[k]) || v[k] == '.' || v[k] == 'e' || v[k] == '-' || v[k] == '+');
            point_or_exp |= v[k] == '.' || v[k] == 'e';
        }
        CHECK(point_or_exp);
        for (size_t k = 0; k + 1 < vn; k++) /* below 1e-4 in fixed point: 7.5e-05 reads as 7.5 */
            CHECK(!(v[k] == 'e' && v[k + 1] == '-'));
        *saw_float = true;
    }
}

static void fuzz_report(const uint8_t *data, size_t size)
{
    /* The target: the input as a C string (it stops at the first NUL). */
    char *target = malloc(size + 1);
    CHECK(target != NULL);
    memcpy(target, data, size);
    target[size] = '\0';
    size_t target_len = strlen(target);

    /* Numbers from the first 24 bytes (zero-padded). */
    uint8_t raw[24] = {0};
    memcpy(raw, data, size < sizeof(raw) ? size : sizeof(raw));
    int64_t count, ts;
    double percent;
    memcpy(&count, raw, 8);
    memcpy(&percent, raw + 8, 8);
    memcpy(&ts, raw + 16, 8);

    struct pt_report report;
    memset(&report, 0, sizeof(report));
    struct pt_buf out = {0};

    /* No field present: nothing appended at all. */
    CHECK(pt_lines_append_report(&out, target, PT_SCOPE_PROC, &report, ts) == 0);
    CHECK(out.len == 0);

    report.v[PT_M_PROC_PROCESSES] = (struct pt_value){.present = true, .is_int = true, .i = count};
    report.v[PT_M_PROC_CPU_PERCENT] = (struct pt_value){.present = true, .is_int = false, .f = percent};
    int want_fields = 1 + (isfinite(percent) ? 1 : 0);

    /* Once with the target, once as the global-style line without one. */
    for (int with_target = 0; with_target < 2; with_target++) {
        pt_buf_reset(&out);
        int fields = pt_lines_append_report(&out, with_target ? target : NULL, PT_SCOPE_PROC, &report, ts);
        CHECK(fields == want_fields);
        const char *line = out.data;
        size_t n = out.len;
        CHECK(n > 0 && line[n - 1] == '\n');
        CHECK(memchr(line, '\n', n - 1) == NULL);
        CHECK(memchr(line, '\r', n) == NULL);

        /* measurement and optional tag */
        CHECK(n > 8 && memcmp(line, "proctree", 8) == 0);
        size_t p = 8;
        char *escaped = malloc(2 * target_len + 1);
        CHECK(escaped != NULL);
        size_t en = model_tag_value((const unsigned char *)target, target_len, escaped);
        if (with_target && en > 0) {
            CHECK(n - p > 8 + en && memcmp(line + p, ",target=", 8) == 0);
            p += 8;
            CHECK(memcmp(line + p, escaped, en) == 0);
            check_tag_properties((const unsigned char *)line + p, en);
            p += en;
        }
        free(escaped);
        CHECK(line[p] == ' ');
        p++;

        /* fields, then one space, the timestamp and the newline */
        const char *fields_end = memchr(line + p, ' ', n - p);
        CHECK(fields_end != NULL);
        bool saw_int = false, saw_float = false;
        int seen = 0;
        const char *f = line + p;
        while (f < fields_end) {
            const char *comma = memchr(f, ',', (size_t)(fields_end - f));
            const char *fe = comma ? comma : fields_end;
            check_field(f, (size_t)(fe - f), &saw_int, &saw_float);
            seen++;
            f = comma ? comma + 1 : fields_end;
        }
        CHECK(seen == want_fields);
        CHECK(saw_int && saw_float == isfinite(percent));

        char ts_text[32];
        int tn = snprintf(ts_text, sizeof(ts_text), "%" PRId64 "\n", ts);
        CHECK((size_t)(line + n - (fields_end + 1)) == (size_t)tn);
        CHECK(memcmp(fields_end + 1, ts_text, (size_t)tn) == 0);
    }

    pt_buf_free(&out);
    free(target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_tag_value(data, size);
    fuzz_report(data, size);
    return 0;
}
