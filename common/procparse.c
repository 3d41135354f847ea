#include "procparse.h"

#include <limits.h>
#include <string.h>

#include "base.h"

_Static_assert(sizeof(pid_t) == sizeof(int), "pid ranges below assume pid_t is int");

/* ---- Cursor: the only way this file touches a buffer ----
 *
 * Buffers are not NUL-terminated, so every access goes through a cursor
 * that checks p < end first. */
struct cursor {
    const char *p;
    const char *end;
};

static bool at_end(const struct cursor *c)
{
    return c->p >= c->end;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static bool is_space(char ch)
{
    return is_blank(ch) || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static void skip_blanks(struct cursor *c)
{
    while (!at_end(c) && is_blank(*c->p))
        c->p++;
}

static void skip_spaces(struct cursor *c)
{
    while (!at_end(c) && is_space(*c->p))
        c->p++;
}

/* Consume ch when it comes next. */
static bool take_char(struct cursor *c, char ch)
{
    if (at_end(c) || *c->p != ch)
        return false;
    c->p++;
    return true;
}

/* ---- Numbers ---- */

/* One or more decimal digits, no sign, within uint64. */
static int scan_u64(struct cursor *c, uint64_t *out)
{
    if (at_end(c) || !is_digit(*c->p))
        return -1;
    uint64_t value = 0;
    while (!at_end(c) && is_digit(*c->p)) {
        unsigned digit = (unsigned)(*c->p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
        c->p++;
    }
    *out = value;
    return 0;
}

/* Optional '-', then decimal digits, within int64. */
static int scan_i64(struct cursor *c, int64_t *out)
{
    bool negative = take_char(c, '-');
    uint64_t magnitude;
    if (scan_u64(c, &magnitude))
        return -1;
    if (magnitude > (uint64_t)INT64_MAX + negative)
        return -1;
    /* Written so that INT64_MIN never passes through an overflowing negation. */
    *out = negative && magnitude ? -(int64_t)(magnitude - 1) - 1 : (int64_t)magnitude;
    return 0;
}

/* The maximum of its kind for a value no real process reaches (see
 * procparse.h). */
static uint64_t at_most(uint64_t value, uint64_t max)
{
    return value < max ? value : max;
}

/* A pid as /proc writes it: unsigned decimal that fits pid_t. 0 passes
 * (a ppid may be 0); callers that need a real process reject it. */
static int scan_pid(struct cursor *c, pid_t *out)
{
    uint64_t value;
    if (scan_u64(c, &value) || value > INT_MAX)
        return -1;
    *out = (pid_t)value;
    return 0;
}

/* True when the number just scanned is followed by whitespace. A number
 * that runs into the end of the buffer may have lost digits to a
 * truncated read, so it is not trusted. */
static bool number_ended(const struct cursor *c)
{
    return !at_end(c) && is_space(*c->p);
}

/* ---- /proc/PID/stat ---- */

/* One stat field as the kernel writes it: exactly one space, the number,
 * then the next separator. */
static int stat_u64(struct cursor *c, uint64_t *out)
{
    return take_char(c, ' ') && !scan_u64(c, out) && number_ended(c) ? 0 : -1;
}

static int stat_i64(struct cursor *c, int64_t *out)
{
    return take_char(c, ' ') && !scan_i64(c, out) && number_ended(c) ? 0 : -1;
}

/* Copy comm bytes as they are, cut to fit, always NUL-terminated. */
static void copy_comm(char *dst, const char *src, size_t len)
{
    if (len > PT_COMM_MAX - 1)
        len = PT_COMM_MAX - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* Fields 1-3: "pid (comm) state". A process chooses its own comm and may
 * put ") " in it, but no field after comm can hold ')', so comm ends at
 * the last ')' in the buffer. */
static int scan_stat_head(struct cursor *c, struct pt_stat *st)
{
    if (scan_pid(c, &st->pid) || st->pid == 0)
        return -1;
    if (!take_char(c, ' ') || !take_char(c, '('))
        return -1;
    const char *last_paren = memrchr(c->p, ')', (size_t)(c->end - c->p));
    if (!last_paren)
        return -1;
    copy_comm(st->comm, c->p, (size_t)(last_paren - c->p));
    c->p = last_paren + 1;
    if (!take_char(c, ' ') || at_end(c) || is_space(*c->p))
        return -1;
    st->state = *c->p++;
    return 0;
}

/* Fields 4-24, ppid to rss. Fields we do not keep are still checked, so
 * that a malformed line cannot shift the ones we keep. */
static int scan_stat_fields(struct cursor *c, struct pt_stat *st)
{
    int64_t ppid, ignored_signed;

    if (stat_i64(c, &ppid) || ppid < 0 || ppid > INT_MAX)
        return -1; /* 4 */
    st->ppid = (pid_t)ppid;
    for (int field = 5; field <= 8; field++) /* pgrp session tty_nr tpgid */
        if (stat_i64(c, &ignored_signed))
            return -1;
    if (stat_u64(c, &st->flags))
        return -1; /* 9 */
    if (stat_u64(c, &st->minflt) || stat_u64(c, &st->cminflt) || stat_u64(c, &st->majflt) || stat_u64(c, &st->cmajflt))
        return -1; /* 10-13 */
    if (stat_u64(c, &st->utime) || stat_u64(c, &st->stime) || stat_u64(c, &st->cutime) || stat_u64(c, &st->cstime))
        return -1; /* 14-17 */
    if (stat_i64(c, &ignored_signed) || stat_i64(c, &ignored_signed))
        return -1; /* 18-19: priority nice */
    if (stat_i64(c, &st->num_threads))
        return -1; /* 20 */
    if (stat_i64(c, &ignored_signed))
        return -1; /* 21: itrealvalue */
    if (stat_u64(c, &st->starttime) || stat_u64(c, &st->vsize))
        return -1;                      /* 22-23 */
    return stat_i64(c, &st->rss_pages); /* 24 */
}

/* Clamp what proctree adds up; a negative thread count is none. */
static void clamp_stat(struct pt_stat *st)
{
    uint64_t *counts[] = {&st->minflt, &st->cminflt, &st->majflt, &st->cmajflt,
                          &st->utime,  &st->stime,   &st->cutime, &st->cstime};
    for (size_t i = 0; i < PT_ARRAY_LEN(counts); i++)
        *counts[i] = at_most(*counts[i], PT_MAX_COUNT);
    if (st->num_threads < 0)
        st->num_threads = 0;
    if (st->num_threads > PT_MAX_THREADS)
        st->num_threads = PT_MAX_THREADS;
}

/* One field of any number the kernel prints there, signed or not, which
 * is not kept (rsslim is 2^64 - 1 when unlimited, exit_signal may be -1). */
static int stat_skip(struct cursor *c)
{
    uint64_t ignored;
    if (!take_char(c, ' '))
        return -1;
    take_char(c, '-');
    return !scan_u64(c, &ignored) && number_ended(c) ? 0 : -1;
}

/* Fields 25-42, rsslim to delayacct_blkio_ticks. */
static int scan_stat_blkio(struct cursor *c, struct pt_stat *st)
{
    for (int field = 25; field <= 41; field++)
        if (stat_skip(c))
            return -1;
    if (stat_u64(c, &st->blkio_ticks))
        return -1;
    st->blkio_ticks = at_most(st->blkio_ticks, PT_MAX_COUNT);
    return 0;
}

static int parse_stat(const char *buf, size_t len, bool blkio, struct pt_stat *out)
{
    struct cursor c = {buf, buf + len};
    struct pt_stat st;
    if (scan_stat_head(&c, &st) || scan_stat_fields(&c, &st))
        return -1;
    st.has_blkio = blkio && scan_stat_blkio(&c, &st) == 0;
    if (!st.has_blkio)
        st.blkio_ticks = 0;
    clamp_stat(&st);
    *out = st;
    return 0;
}

int pt_parse_stat(const char *buf, size_t len, struct pt_stat *out)
{
    return parse_stat(buf, len, false, out);
}

int pt_parse_stat_with_blkio(const char *buf, size_t len, struct pt_stat *out)
{
    return parse_stat(buf, len, true, out);
}

/* ---- /proc/PID/statm ---- */

/* A field of a blank-separated line: blanks, then a number ended by whitespace. */
static int spaced_u64(struct cursor *c, uint64_t *out)
{
    skip_blanks(c);
    return !scan_u64(c, out) && number_ended(c) ? 0 : -1;
}

enum pt_task_state pt_task_state_of(char letter)
{
    switch (letter) {
    case 'R':
        return PT_TS_RUNNING;
    case 'S':
    case 'I':
        return PT_TS_SLEEPING;
    case 'D':
        return PT_TS_BLOCKED;
    case 'T':
    case 't':
        return PT_TS_STOPPED;
    case 'Z':
        return PT_TS_ZOMBIE;
    default:
        return PT_TS_OTHER;
    }
}

int pt_parse_statm(const char *buf, size_t len, struct pt_statm *out)
{
    struct cursor c = {buf, buf + len};
    struct pt_statm statm;
    if (spaced_u64(&c, &statm.size) || spaced_u64(&c, &statm.resident) || spaced_u64(&c, &statm.shared))
        return -1;
    statm.size = at_most(statm.size, PT_MAX_PAGES);
    statm.resident = at_most(statm.resident, PT_MAX_PAGES);
    statm.shared = at_most(statm.shared, PT_MAX_PAGES);
    *out = statm;
    return 0;
}

/* ---- /proc/PID/schedstat ---- */

int pt_parse_schedstat(const char *buf, size_t len, struct pt_schedstat *out)
{
    struct cursor c = {buf, buf + len};
    uint64_t run_ns, wait_ns, slices;
    if (spaced_u64(&c, &run_ns) || spaced_u64(&c, &wait_ns) || spaced_u64(&c, &slices))
        return -1;
    out->run_delay_ns = at_most(wait_ns, PT_MAX_COUNT);
    out->timeslices = slices;
    return 0;
}

/* The first line of buf[0..len) that starts with key, or NULL. */
static const char *find_line(const char *buf, size_t len, const char *key, size_t key_len)
{
    for (const char *p = buf; p && p + key_len <= buf + len;) {
        if (memcmp(p, key, key_len) == 0)
            return p;
        const char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* Consume word when it comes next, followed by a blank or a newline. */
static bool take_word(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, word, n) != 0 || !is_space(c->p[n]))
        return false;
    c->p += n;
    return true;
}

/* ---- /proc/PID/limits: "Max open files" ---- */

/* One column of a limits line: blanks, then a number or "unlimited"
 * (*value untouched), then a blank. */
static int scan_limit(struct cursor *c, uint64_t *value, bool *unlimited)
{
    skip_blanks(c);
    *unlimited = take_word(c, "unlimited");
    if (!*unlimited && (scan_u64(c, value) || !number_ended(c)))
        return -1;
    return 0;
}

int pt_parse_nofile_limit(const char *buf, size_t len, uint64_t *soft)
{
    static const char key[] = "Max open files ";
    const char *line = find_line(buf, len, key, sizeof(key) - 1);
    if (!line)
        return -1;
    struct cursor c = {line + sizeof(key) - 1, buf + len};
    uint64_t soft_value = 0, hard_value;
    bool soft_unlimited, hard_unlimited;
    if (scan_limit(&c, &soft_value, &soft_unlimited) || scan_limit(&c, &hard_value, &hard_unlimited))
        return -1;
    /* the units end the line: a line cut short lost them, and maybe digits */
    skip_blanks(&c);
    if (!take_word(&c, "files"))
        return -1;
    skip_blanks(&c);
    if (!take_char(&c, '\n'))
        return -1;
    if (soft_unlimited)
        return 1;
    *soft = at_most(soft_value, PT_MAX_COUNT);
    return 0;
}

/* ---- "Key: value [kB]" files: io, smaps_rollup, meminfo, status ---- */

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

int pt_parse_io(const char *buf, size_t len, struct pt_io *out)
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

int pt_parse_smaps_rollup(const char *buf, size_t len, struct pt_smaps_rollup *out)
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

int pt_parse_meminfo(const char *buf, size_t len, struct pt_meminfo *out)
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
int pt_parse_status(const char *buf, size_t len, struct pt_status *out)
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

/* ---- Lists of pids ---- */

/* pids separated by whitespace; 0 among them only where zero_ok. */
static int parse_pids(const char *buf, size_t len, bool zero_ok, int (*fn)(pid_t pid, void *arg), void *arg)
{
    struct cursor c = {buf, buf + len};
    int count = 0;
    for (;;) {
        skip_spaces(&c);
        if (at_end(&c))
            return count;
        /* The kernel writes whole records only, so a pid at the very end
         * is complete: unlike stat, no separator is needed after it. */
        pid_t pid;
        if (scan_pid(&c, &pid) || (pid == 0 && !zero_ok))
            return -1;
        if (!at_end(&c) && !is_space(*c.p))
            return -1;
        if (fn(pid, arg))
            return -1;
        count++;
    }
}

int pt_parse_children(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg)
{
    return parse_pids(buf, len, false, fn, arg);
}

int pt_parse_cgroup_procs(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg)
{
    return parse_pids(buf, len, true, fn, arg);
}

/* Whitespace that does not end a line. */
static void skip_line_spaces(struct cursor *c)
{
    while (!at_end(c) && *c->p != '\n' && is_space(*c->p))
        c->p++;
}

int pt_parse_pidfile(const char *buf, size_t len, pid_t *out)
{
    struct cursor c = {buf, buf + len};
    pid_t pid;
    skip_line_spaces(&c);
    if (scan_pid(&c, &pid) || pid == 0 || pid > PT_PID_LIMIT)
        return -1;
    skip_line_spaces(&c);
    /* Ending without a newline is fine for a whole file, not for a cut one. */
    bool line_ends = at_end(&c) ? len < PT_PIDFILE_MAX : *c.p == '\n';
    if (!line_ends)
        return -1;
    *out = pid;
    return 0;
}

/* ---- /proc/PID/status: NSpid ---- */

int pt_parse_nspid(const char *buf, size_t len, pid_t *out, size_t max)
{
    static const char key[] = "NSpid:";
    /* a key only at a line's start: the Name line above escapes newlines */
    const char *line = find_line(buf, len, key, sizeof(key) - 1);
    if (!line)
        return 0;
    struct cursor c = {line + sizeof(key) - 1, buf + len};
    size_t n = 0;
    for (;;) {
        skip_blanks(&c);
        if (at_end(&c) || *c.p == '\n')
            break;
        pid_t pid;
        if (n == max || scan_pid(&c, &pid) || pid == 0 || !number_ended(&c))
            return -1;
        out[n++] = pid;
    }
    /* a line cut by a short read may have lost a pid */
    return !at_end(&c) && n > 0 ? (int)n : -1;
}
