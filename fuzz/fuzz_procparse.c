/* fuzz_procparse: the /proc scanners of common/procfs/procparse.h on arbitrary bytes.
 *
 * Input: the first byte picks the parser (modulo PARSER_COUNT, see the enum
 * below), the rest is the file content. The content is copied into a
 * malloc'd buffer of exactly its length, never NUL-terminated, so ASan
 * reports any read past len.
 *
 * Beyond "no crash, no sanitizer report", only invariants that hold for
 * every input are checked:
 * - every parser is deterministic: two calls give the same return value
 *   and, on success, the same fields, even when the output struct and the
 *   stack are pre-filled with different garbage (a field the parser forgets
 *   to set shows up as a difference);
 * - the return value is 0 or -1 (children: -1 or a count >= 0; the limit
 *   of open files: 1 too, "unlimited", with the value untouched);
 * - stat with field 42 or without: the same result and fields before it;
 * - stat on success: pid > 0, ppid >= 0, comm is NUL-terminated, shorter
 *   than PT_COMM_MAX, and holds exactly the raw bytes between the first '('
 *   and the last ')' of the buffer, truncated to PT_COMM_MAX - 1;
 * - children: a count >= 0 equals the number of callbacks, every pid is
 *   > 0, an empty buffer gives 0, and a callback that returns non-zero at
 *   call k stops the scan there (exactly k calls, same pids) with -1;
 * - pidfile: the pid found, if any, is the one an independent model of the
 *   rules in pidparse.h finds (first line only, whitespace around the pid,
 *   1 .. PT_PID_LIMIT - 1, a first line that fills PT_PIDFILE_MAX bytes is
 *   refused), also for the input padded to PT_PIDFILE_MAX bytes;
 * - the values proctree adds up stay within the maxima of procparse.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "procfs/procfile.h"

enum parser {
    P_STAT,
    P_STATM,
    P_IO,
    P_STATUS,
    P_SMAPS_ROLLUP,
    P_MEMINFO,
    P_CHILDREN,
    P_PIDFILE,
    P_SCHEDSTAT,
    P_NOFILE_LIMIT,
    PARSER_COUNT
};

/* Leave a recognisable pattern on the stack below the caller, so that a
 * parser which copies an uninitialised local out gives a different result
 * for each pattern. A heuristic (MSan would be exact), but cheap. */
static __attribute__((noinline)) void scribble_stack(unsigned char pattern)
{
    volatile unsigned char junk[8192];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = pattern;
}

static const unsigned char patterns[2] = {0x00, 0xa5};

/* The clamping procparse.h promises for the values proctree adds up. */
static bool all_at_most(const uint64_t *values, size_t n, uint64_t max)
{
    for (size_t i = 0; i < n; i++)
        if (values[i] > max)
            return false;
    return true;
}
#define ALL_AT_MOST(max, ...)                                                                                          \
    all_at_most((const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), max)

/* ---- stat ---- */

static void check_stat_comm(const char *buf, size_t len, const struct pt_stat *st)
{
    const char *open = memchr(buf, '(', len);
    CHECK(open != NULL);
    const char *close = memrchr(buf, ')', len);
    CHECK(close != NULL && close > open);
    size_t n = (size_t)(close - open - 1);
    if (n > PT_COMM_MAX - 1)
        n = PT_COMM_MAX - 1;
    CHECK(memcmp(st->comm, open + 1, n) == 0);
    CHECK(st->comm[n] == '\0');
    CHECK(strnlen(st->comm, PT_COMM_MAX) < PT_COMM_MAX);
}

static void fuzz_stat(const char *buf, size_t len)
{
    struct pt_stat st[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&st[k], patterns[k], sizeof(st[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_procfs_parse_stat(buf, len, &st[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    /* on to field 42: the same fields before it, whatever follows */
    struct pt_stat w;
    memset(&w, patterns[1], sizeof(w));
    CHECK(pt_procfs_parse_stat_with_blkio(buf, len, &w) == rc[0]);
    if (rc[0] != 0)
        return;
    CHECK(w.pid == st[0].pid && w.utime == st[0].utime && w.starttime == st[0].starttime &&
          w.rss_pages == st[0].rss_pages && w.num_threads == st[0].num_threads);
    CHECK(w.has_blkio ? w.blkio_ticks <= PT_MAX_COUNT : w.blkio_ticks == 0);
    CHECK(!st[0].has_blkio && st[0].blkio_ticks == 0);
    for (int k = 0; k < 2; k++) {
        CHECK(st[k].pid > 0);
        CHECK(st[k].ppid >= 0);
        check_stat_comm(buf, len, &st[k]);
        CHECK(ALL_AT_MOST(PT_MAX_COUNT, st[k].minflt, st[k].cminflt, st[k].majflt, st[k].cmajflt, st[k].utime,
                          st[k].stime, st[k].cutime, st[k].cstime));
        CHECK(st[k].num_threads >= 0 && st[k].num_threads <= PT_MAX_THREADS);
    }
    const struct pt_stat *a = &st[0], *b = &st[1];
    CHECK(strcmp(a->comm, b->comm) == 0);
    CHECK(a->pid == b->pid && a->state == b->state && a->ppid == b->ppid);
    CHECK(a->minflt == b->minflt && a->cminflt == b->cminflt);
    CHECK(a->majflt == b->majflt && a->cmajflt == b->cmajflt);
    CHECK(a->utime == b->utime && a->stime == b->stime);
    CHECK(a->cutime == b->cutime && a->cstime == b->cstime);
    CHECK(a->num_threads == b->num_threads && a->starttime == b->starttime);
    CHECK(a->vsize == b->vsize && a->rss_pages == b->rss_pages);
}

/* ---- statm, io, status, smaps_rollup, meminfo ---- */

static void fuzz_statm(const char *buf, size_t len)
{
    struct pt_statm s[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&s[k], patterns[k], sizeof(s[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_procfs_parse_statm(buf, len, &s[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0) {
        CHECK(s[0].size == s[1].size && s[0].resident == s[1].resident && s[0].shared == s[1].shared);
        CHECK(ALL_AT_MOST(PT_MAX_PAGES, s[0].size, s[0].resident, s[0].shared));
    }
}

static void fuzz_io(const char *buf, size_t len)
{
    struct pt_io s[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&s[k], patterns[k], sizeof(s[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_kvparse_io(buf, len, &s[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0) {
        CHECK(s[0].rchar == s[1].rchar && s[0].wchar == s[1].wchar);
        CHECK(s[0].syscr == s[1].syscr && s[0].syscw == s[1].syscw);
        CHECK(s[0].read_bytes == s[1].read_bytes && s[0].write_bytes == s[1].write_bytes);
        CHECK(s[0].cancelled_write_bytes == s[1].cancelled_write_bytes);
        CHECK(ALL_AT_MOST(PT_MAX_COUNT, s[0].rchar, s[0].wchar, s[0].syscr, s[0].syscw, s[0].read_bytes,
                          s[0].write_bytes, s[0].cancelled_write_bytes));
    }
}

static void fuzz_status(const char *buf, size_t len)
{
    struct pt_status s[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&s[k], patterns[k], sizeof(s[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_kvparse_status(buf, len, &s[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0) {
        CHECK(s[0].voluntary_ctxt_switches == s[1].voluntary_ctxt_switches);
        CHECK(s[0].nonvoluntary_ctxt_switches == s[1].nonvoluntary_ctxt_switches);
        CHECK(s[0].real_uid == s[1].real_uid && s[0].effective_uid == s[1].effective_uid);
        CHECK(ALL_AT_MOST(PT_MAX_COUNT, s[0].voluntary_ctxt_switches, s[0].nonvoluntary_ctxt_switches));
    }
}

static void fuzz_smaps_rollup(const char *buf, size_t len)
{
    struct pt_smaps_rollup s[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&s[k], patterns[k], sizeof(s[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_kvparse_smaps_rollup(buf, len, &s[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0) {
        CHECK(s[0].rss == s[1].rss && s[0].pss == s[1].pss && s[0].swap == s[1].swap);
        CHECK(s[0].shared_clean == s[1].shared_clean && s[0].shared_dirty == s[1].shared_dirty);
        CHECK(s[0].private_clean == s[1].private_clean && s[0].private_dirty == s[1].private_dirty);
        CHECK(ALL_AT_MOST(PT_MAX_BYTES, s[0].rss, s[0].pss, s[0].shared_clean, s[0].shared_dirty, s[0].private_clean,
                          s[0].private_dirty, s[0].swap));
    }
}

static void fuzz_meminfo(const char *buf, size_t len)
{
    struct pt_meminfo s[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&s[k], patterns[k], sizeof(s[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_kvparse_meminfo(buf, len, &s[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0) {
        CHECK(s[0].mem_total == s[1].mem_total && s[0].mem_free == s[1].mem_free);
        CHECK(s[0].has_available == s[1].has_available);
        if (s[0].has_available)
            CHECK(s[0].mem_available == s[1].mem_available);
        CHECK(s[0].buffers == s[1].buffers && s[0].cached == s[1].cached);
        CHECK(s[0].anon_pages == s[1].anon_pages);
        CHECK(s[0].swap_total == s[1].swap_total && s[0].swap_free == s[1].swap_free);
        CHECK(ALL_AT_MOST(PT_MAX_BYTES, s[0].mem_total, s[0].mem_free, s[0].mem_available, s[0].buffers, s[0].cached,
                          s[0].anon_pages, s[0].swap_total, s[0].swap_free));
    }
}

/* ---- children and pidfile ---- */

struct pid_log {
    pid_t *pids;
    size_t n, cap;
    size_t stop_at; /* return non-zero on this call (1-based); 0: never */
};

static int record_pid(pid_t pid, void *arg)
{
    struct pid_log *log = arg;
    CHECK(log->n < log->cap);
    log->pids[log->n++] = pid;
    return log->stop_at != 0 && log->n == log->stop_at;
}

static int run_children(const char *buf, size_t len, struct pid_log *log, size_t stop_at)
{
    log->n = 0;
    log->stop_at = stop_at;
    return pt_pidparse_children(buf, len, record_pid, log);
}

static void fuzz_children(const char *buf, size_t len)
{
    /* Each pid takes at least one digit and one separator (the last one
     * none), so there can be at most len / 2 + 1 callbacks. */
    size_t cap = len / 2 + 1;
    struct pid_log a = {malloc(cap * sizeof(pid_t)), 0, cap, 0};
    struct pid_log b = {malloc(cap * sizeof(pid_t)), 0, cap, 0};
    CHECK(a.pids && b.pids);

    int rc = run_children(buf, len, &a, 0);
    CHECK(rc >= -1);
    if (len == 0)
        CHECK(rc == 0);
    if (rc >= 0)
        CHECK((size_t)rc == a.n);
    for (size_t i = 0; i < a.n; i++)
        CHECK(a.pids[i] > 0);

    int rc2 = run_children(buf, len, &b, 0);
    CHECK(rc2 == rc && b.n == a.n);
    CHECK(a.n == 0 || memcmp(a.pids, b.pids, a.n * sizeof(pid_t)) == 0);

    /* A callback that says stop at call k: -1 after exactly k calls, and
     * the same pids up to there. Try the first and the last call. */
    if (rc > 0) {
        size_t stops[2] = {1, (size_t)rc};
        for (int s = 0; s < 2; s++) {
            int rc3 = run_children(buf, len, &b, stops[s]);
            CHECK(rc3 == -1);
            CHECK(b.n == stops[s]);
            CHECK(memcmp(a.pids, b.pids, b.n * sizeof(pid_t)) == 0);
        }
    }

    free(a.pids);
    free(b.pids);
}

/* The whitespace a pid file's first line may have around its pid: every
 * isspace() byte but the newline that ends the line (so "123\r\n" from a
 * Windows editor is 123). */
static bool model_line_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* What pidparse.h promises for a pid file, written as a model: the first
 * line is optional whitespace, decimal digits naming 1 .. PT_PID_LIMIT - 1
 * (PT_PID_LIMIT is the kernel's PID_MAX_LIMIT, which no pid reaches),
 * optional whitespace; the line ends at a newline, or at the end of a
 * buffer shorter than PT_PIDFILE_MAX (a full buffer may have been cut).
 * Returns the pid, or 0 when the file names none. */
static pid_t model_pidfile(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len && model_line_space(buf[i]))
        i++;
    size_t digits = i;
    uint64_t value = 0;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++)
        if (value <= PT_PID_LIMIT) /* once above, it stays above, without overflowing */
            value = value * 10 + (uint64_t)(buf[i] - '0');
    if (i == digits || value == 0 || value >= PT_PID_LIMIT)
        return 0;
    while (i < len && model_line_space(buf[i]))
        i++;
    bool line_ends = i == len ? len < PT_PIDFILE_MAX : buf[i] == '\n';
    return line_ends ? (pid_t)value : 0;
}

/* The pid the parser finds (twice, over different stack garbage, with the
 * same result), or 0 when it finds none. */
static pid_t parse_pidfile_twice(const char *buf, size_t len)
{
    pid_t got[2] = {-1, -2};
    int rc[2];
    for (int k = 0; k < 2; k++) {
        scribble_stack(patterns[k]);
        rc[k] = pt_pidparse_pidfile(buf, len, &got[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] != 0)
        return 0;
    CHECK(got[0] == got[1] && got[0] > 0 && got[0] < PT_PID_LIMIT);
    return got[0];
}

/* pidfile.c hands the parser at most PT_PIDFILE_MAX bytes, so a longer
 * input is cut there as its read would cut it. The same content padded
 * with spaces to exactly PT_PIDFILE_MAX bytes tries the rule for a cut
 * first line, which inputs of libFuzzer's usual sizes never reach. */
static void fuzz_pidfile(const char *buf, size_t len)
{
    if (len > PT_PIDFILE_MAX)
        len = PT_PIDFILE_MAX;
    pid_t pid = parse_pidfile_twice(buf, len);
    CHECK(pid == model_pidfile(buf, len));

    char *full = malloc(PT_PIDFILE_MAX);
    CHECK(full != NULL);
    memcpy(full, buf, len);
    memset(full + len, ' ', PT_PIDFILE_MAX - len);
    pid_t padded = parse_pidfile_twice(full, PT_PIDFILE_MAX);
    CHECK(padded == model_pidfile(full, PT_PIDFILE_MAX));
    CHECK(padded == (memchr(buf, '\n', len) ? pid : 0));
    free(full);
}

/* ---- schedstat ---- */

static void fuzz_schedstat(const char *buf, size_t len)
{
    struct pt_schedstat ss[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&ss[k], patterns[k], sizeof(ss[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_procfs_parse_schedstat(buf, len, &ss[k]);
        CHECK(rc[k] == 0 || rc[k] == -1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0)
        CHECK(ss[0].timeslices == ss[1].timeslices && ss[0].run_delay_ns == ss[1].run_delay_ns &&
              ss[0].run_delay_ns <= PT_MAX_COUNT);
}

/* ---- limits ---- */

static void fuzz_nofile_limit(const char *buf, size_t len)
{
    uint64_t soft[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        memset(&soft[k], patterns[k], sizeof(soft[k]));
        scribble_stack(patterns[k]);
        rc[k] = pt_procfs_parse_nofile_limit(buf, len, &soft[k]);
        CHECK(rc[k] >= -1 && rc[k] <= 1);
    }
    CHECK(rc[0] == rc[1]);
    if (rc[0] == 0)
        CHECK(soft[0] == soft[1] && soft[0] <= PT_MAX_COUNT);
    else /* untouched */
        for (int k = 0; k < 2; k++) {
            uint64_t pattern;
            memset(&pattern, patterns[k], sizeof(pattern));
            CHECK(soft[k] == pattern);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    enum parser which = (enum parser)(data[0] % PARSER_COUNT);
    size_t len = size - 1;
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
    case P_STAT:
        fuzz_stat(buf, len);
        break;
    case P_STATM:
        fuzz_statm(buf, len);
        break;
    case P_IO:
        fuzz_io(buf, len);
        break;
    case P_STATUS:
        fuzz_status(buf, len);
        break;
    case P_SMAPS_ROLLUP:
        fuzz_smaps_rollup(buf, len);
        break;
    case P_MEMINFO:
        fuzz_meminfo(buf, len);
        break;
    case P_CHILDREN:
        fuzz_children(buf, len);
        break;
    case P_PIDFILE:
        fuzz_pidfile(buf, len);
        break;
    case P_SCHEDSTAT:
        fuzz_schedstat(buf, len);
        break;
    case P_NOFILE_LIMIT:
        fuzz_nofile_limit(buf, len);
        break;
    case PARSER_COUNT:
        break;
    }
    free(block);
    return 0;
}
