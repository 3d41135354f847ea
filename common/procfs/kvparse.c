/* kvparse: the "Key: value [kB]" files, read by table. */
#include "procfs/kvparse.h"

#include <assert.h>
#include <string.h>

#include "util/base.h"
#include "util/parsecursor.h"
#include "procfs/procmax.h"

/* A line wanted from a key-value file, holding count numbers (status's
 * "Uid:" has four, every other line one), each clamped to max (in bytes
 * for a kB line). Keys match whole, so "Pss" is not taken from "Pss_Anon"
 * nor "Cached" from "SwapCached". */
struct kv_field {
    const char *key;
    uint64_t *dst;
    size_t count;
    bool required;
    uint64_t max;
};

/* Index of the field named key[0..key_len), or nfields when none is. */
static size_t find_kv_field(const struct kv_field *fields, size_t nfields, const char *key, size_t key_len)
{
    for (size_t i = 0; i < nfields; i++)
        if (strlen(fields[i].key) == key_len && memcmp(fields[i].key, key, key_len) == 0)
            return i;
    return nfields;
}

/* The rest of a wanted line after its ':': count blank-separated decimals,
 * an optional "kB" (then they are scaled to bytes), blanks, and the
 * newline. The newline is required: a last line without one may have been
 * cut mid-number. Values end up at most max. */
static int scan_kv_values(struct cursor *c, uint64_t *dst, size_t count, uint64_t max)
{
    for (size_t i = 0; i < count; i++) {
        skip_blanks(c);
        if (scan_u64(c, &dst[i]))
            return -1;
    }
    skip_blanks(c);
    bool kb = take_char(c, 'k');
    if (kb && !take_char(c, 'B'))
        return -1;
    for (size_t i = 0; i < count; i++)
        dst[i] = kb ? at_most(dst[i], max / 1024) * 1024 : at_most(dst[i], max);
    skip_blanks(c);
    return take_char(c, '\n') ? 0 : -1;
}

/* Fill the wanted fields (at most 64) from the lines of buf. Other lines
 * (headers, keys we do not use, keys newer kernels add) are skipped
 * unread. A wanted line that is malformed, or a required one that is
 * absent, fails the whole file. When seen is not NULL it gets a bitmask of
 * the fields found. */
static int scan_kv_lines(const char *buf, size_t len, const struct kv_field *fields, size_t nfields, uint64_t *seen)
{
    assert(nfields <= 64); /* found holds one bit per field */
    struct cursor c = {buf, buf + len};
    uint64_t found = 0;

    while (!at_end(&c)) {
        const char *line_end = memchr(c.p, '\n', (size_t)(c.end - c.p));
        if (!line_end)
            line_end = c.end;
        const char *colon = memchr(c.p, ':', (size_t)(line_end - c.p));
        size_t i = colon ? find_kv_field(fields, nfields, c.p, (size_t)(colon - c.p)) : nfields;
        if (i == nfields) {
            c.p = line_end == c.end ? c.end : line_end + 1;
            continue;
        }
        c.p = colon + 1;
        if (scan_kv_values(&c, fields[i].dst, fields[i].count, fields[i].max))
            return -1;
        found |= (uint64_t)1 << i;
    }
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].required && !(found & ((uint64_t)1 << i)))
            return -1;
    if (seen)
        *seen = found;
    return 0;
}

int pt_kvparse_io(const char *buf, size_t len, struct pt_io *out)
{
    struct pt_io io = {0};
    const struct kv_field fields[] = {
        {"rchar", &io.rchar, 1, true, PT_MAX_COUNT},
        {"wchar", &io.wchar, 1, true, PT_MAX_COUNT},
        {"syscr", &io.syscr, 1, true, PT_MAX_COUNT},
        {"syscw", &io.syscw, 1, true, PT_MAX_COUNT},
        {"read_bytes", &io.read_bytes, 1, true, PT_MAX_COUNT},
        {"write_bytes", &io.write_bytes, 1, true, PT_MAX_COUNT},
        {"cancelled_write_bytes", &io.cancelled_write_bytes, 1, true, PT_MAX_COUNT},
    };
    if (scan_kv_lines(buf, len, fields, PT_ARRAY_LEN(fields), NULL))
        return -1;
    *out = io;
    return 0;
}

int pt_kvparse_smaps_rollup(const char *buf, size_t len, struct pt_smaps_rollup *out)
{
    struct pt_smaps_rollup rollup = {0};
    const struct kv_field fields[] = {
        {"Rss", &rollup.rss, 1, true, PT_MAX_BYTES},
        {"Pss", &rollup.pss, 1, true, PT_MAX_BYTES},
        {"Shared_Clean", &rollup.shared_clean, 1, false, PT_MAX_BYTES},
        {"Shared_Dirty", &rollup.shared_dirty, 1, false, PT_MAX_BYTES},
        {"Private_Clean", &rollup.private_clean, 1, false, PT_MAX_BYTES},
        {"Private_Dirty", &rollup.private_dirty, 1, false, PT_MAX_BYTES},
        {"Swap", &rollup.swap, 1, false, PT_MAX_BYTES},
    };
    if (scan_kv_lines(buf, len, fields, PT_ARRAY_LEN(fields), NULL))
        return -1;
    *out = rollup;
    return 0;
}

int pt_kvparse_meminfo(const char *buf, size_t len, struct pt_meminfo *out)
{
    struct pt_meminfo info = {0};
    enum { AVAILABLE = 2 };
    const struct kv_field fields[] = {
        {"MemTotal", &info.mem_total, 1, true, PT_MAX_BYTES},
        {"MemFree", &info.mem_free, 1, true, PT_MAX_BYTES},
        [AVAILABLE] = {"MemAvailable", &info.mem_available, 1, false, PT_MAX_BYTES},
        {"Buffers", &info.buffers, 1, false, PT_MAX_BYTES},
        {"Cached", &info.cached, 1, false, PT_MAX_BYTES},
        {"AnonPages", &info.anon_pages, 1, false, PT_MAX_BYTES},
        {"SwapTotal", &info.swap_total, 1, false, PT_MAX_BYTES},
        {"SwapFree", &info.swap_free, 1, false, PT_MAX_BYTES},
    };
    uint64_t seen;
    if (scan_kv_lines(buf, len, fields, PT_ARRAY_LEN(fields), &seen))
        return -1;
    info.has_available = seen & ((uint64_t)1 << AVAILABLE);
    *out = info;
    return 0;
}

/* Proc writes Name escaped (a newline in comm becomes "\\n"), so a
 * process cannot forge a "Uid:" line through its name. */
int pt_kvparse_status(const char *buf, size_t len, struct pt_status *out)
{
    struct pt_status status = {0};
    uint64_t uids[4]; /* real, effective, saved, filesystem */
    const struct kv_field fields[] = {
        {"Uid", uids, 4, true, UINT64_MAX},
        {"voluntary_ctxt_switches", &status.voluntary_ctxt_switches, 1, true, PT_MAX_COUNT},
        {"nonvoluntary_ctxt_switches", &status.nonvoluntary_ctxt_switches, 1, true, PT_MAX_COUNT},
    };
    if (scan_kv_lines(buf, len, fields, PT_ARRAY_LEN(fields), NULL))
        return -1;
    status.real_uid = (uid_t)uids[0];
    status.effective_uid = (uid_t)uids[1];
    if (status.real_uid != uids[0] || status.effective_uid != uids[1])
        return -1;
    *out = status;
    return 0;
}
