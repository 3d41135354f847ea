#include "cgroup/cgparse.h"

#include <string.h>

#include "procfs/procfile.h"

/* One line of buf: [*pos, end of line); *pos moves past its newline. */
static bool next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *line_len)
{
    if (*pos >= len)
        return false;
    const char *start = buf + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    *line = start;
    *line_len = nl ? (size_t)(nl - start) : len - *pos;
    *pos += *line_len + (nl ? 1 : 0);
    return true;
}

/* The decimal number at s (len bytes), to its end or a space: its end, or
 * NULL when there is no digit. Clamped at PT_MAX_COUNT. */
static const char *scan_number(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) /* past the clamp, no digit can wrap it */
        v = v > PT_MAX_COUNT / 10 ? PT_MAX_COUNT + 1 : v * 10 + (uint64_t)(s[i] - '0');
    if (i == 0)
        return NULL;
    *out = v > PT_MAX_COUNT ? PT_MAX_COUNT : v;
    return s + i;
}

int pt_cgparse_keyed(const char *buf, size_t len, const char *key, uint64_t *out)
{
    size_t klen = strlen(key), pos = 0, n;
    const char *line;
    while (next_line(buf, len, &pos, &line, &n)) {
        if (n <= klen + 1 || memcmp(line, key, klen) != 0 || line[klen] != ' ')
            continue;
        const char *end = scan_number(line + klen + 1, n - klen - 1, out);
        return end == line + n ? 0 : -1;
    }
    return -1;
}

int pt_cgparse_single(const char *buf, size_t len, uint64_t *out)
{
    if (len > 0 && buf[len - 1] == '\n')
        len--;
    const char *end = scan_number(buf, len, out);
    return end && end == buf + len ? 0 : -1;
}

/* The value of "name=" among the space-separated fields of a line. */
static int field(const char *line, size_t n, const char *name, uint64_t *out)
{
    size_t nlen = strlen(name);
    for (size_t i = 0; i + nlen < n; i++) {
        if ((i == 0 || line[i - 1] == ' ') && memcmp(line + i, name, nlen) == 0) {
            const char *end = scan_number(line + i + nlen, n - i - nlen, out);
            return end && (end == line + n || *end == ' ') ? 0 : -1;
        }
    }
    return -1;
}

int pt_cgparse_pressure(const char *buf, size_t len, uint64_t *some_us, uint64_t *full_us, bool *has_full)
{
    size_t pos = 0, n;
    const char *line;
    bool has_some = false;
    *has_full = false;
    while (next_line(buf, len, &pos, &line, &n)) {
        if (n > 5 && memcmp(line, "some ", 5) == 0)
            has_some = field(line, n, "total=", some_us) == 0;
        else if (n > 5 && memcmp(line, "full ", 5) == 0)
            *has_full = field(line, n, "total=", full_us) == 0;
    }
    return has_some ? 0 : -1;
}

static uint64_t add_clamped(uint64_t a, uint64_t b)
{
    return a + b > PT_MAX_COUNT ? PT_MAX_COUNT : a + b;
}

int pt_cgparse_io_stat(const char *buf, size_t len, uint64_t *read_bytes, uint64_t *write_bytes)
{
    size_t pos = 0, n;
    const char *line;
    *read_bytes = *write_bytes = 0;
    while (next_line(buf, len, &pos, &line, &n)) {
        uint64_t r = 0, w = 0;
        if (n == 0)
            continue;
        if (field(line, n, "rbytes=", &r) != 0 || field(line, n, "wbytes=", &w) != 0)
            return -1;
        *read_bytes = add_clamped(*read_bytes, r);
        *write_bytes = add_clamped(*write_bytes, w);
    }
    return 0;
}

int pt_cgparse_blkio_bytes(const char *buf, size_t len, uint64_t *read_bytes, uint64_t *write_bytes)
{
    size_t pos = 0, n;
    const char *line;
    *read_bytes = *write_bytes = 0;
    while (next_line(buf, len, &pos, &line, &n)) {
        const char *sp = memchr(line, ' ', n);
        if (!sp || (n >= 6 && memcmp(line, "Total ", 6) == 0))
            continue;
        size_t rest = n - (size_t)(sp + 1 - line);
        uint64_t *sum = rest > 5 && memcmp(sp + 1, "Read ", 5) == 0    ? read_bytes
                        : rest > 6 && memcmp(sp + 1, "Write ", 6) == 0 ? write_bytes
                                                                       : NULL;
        if (!sum)
            continue;
        const char *num = memchr(sp + 1, ' ', rest) + 1;
        uint64_t v;
        if (scan_number(num, n - (size_t)(num - line), &v) != line + n)
            return -1;
        *sum = add_clamped(*sum, v);
    }
    return 0;
}

bool pt_cgparse_blkio_lists_device(const char *buf, size_t len)
{
    size_t pos = 0, n;
    const char *line;
    while (next_line(buf, len, &pos, &line, &n)) {
        uint64_t major, minor;
        const char *colon = scan_number(line, n, &major);
        if (!colon || colon == line + n || *colon != ':')
            continue;
        const char *end = scan_number(colon + 1, n - (size_t)(colon + 1 - line), &minor);
        if (end && end < line + n && *end == ' ')
            return true;
    }
    return false;
}
