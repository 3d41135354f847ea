/* Unit tests for procparse (the /proc scanners), procfile (kept-fd reads),
 * pidfile (the pid file reader) and the fake /proc fixture.
 *
 * Every parser call goes through a heap copy exactly len bytes long with
 * no NUL after it, so ASan or valgrind report any read past len. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "pidfile.h"
#include "procfile.h"
#include "procparse.h"

/* ---- Real content captured from this machine's /proc (Linux 6.18) ---- */

static const char REAL_STAT_BASH[] =
    "2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 32153 5124096 1008 "
    "18446744073709551615 94881951490048 94881952279453 140722023783424 0 0 0 65536 4 1132560123 1 0 0 17 0 0 "
    "0 0 0 0 94881952512752 94881952560996 94882452586496 140722023787321 140722023787336 140722023787336 "
    "140722023788522 0\n";
/* pid 1: ppid 0, tpgid -1, nice -10, several threads. */
static const char REAL_STAT_INIT[] =
    "1 (process_api) S 0 0 0 0 -1 4194560 18874 354669 0 204 63 203 1291 996 10 -10 14 0 18 42885120 2595 "
    "18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
/* A kworker's comm carries its workqueue and is longer than 15 bytes. */
static const char REAL_STAT_KWORKER[] =
    "9 (kworker/0:0-virtio_vsock) I 2 0 0 0 -1 69238880 0 0 0 0 0 7 0 0 20 0 1 0 18 0 0 18446744073709551615 0 0 "
    "0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
static const char REAL_STAT_ZOMBIE[] =
    "10993 (z) Z 10992 10972 2973 0 -1 4227148 18 0 0 0 0 0 0 0 20 0 1 0 63286 0 0 18446744073709551615 0 0 0 0 "
    "0 0 0 0 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static const char REAL_STATM_BASH[] = "1251 1043 800 193 0 270 0\n";
static const char REAL_STATM_KTHREAD[] = "0 0 0 0 0 0 0\n";

static const char REAL_IO_BASH[] = "rchar: 6257799\n"
                                   "wchar: 133946\n"
                                   "syscr: 17066\n"
                                   "syscw: 546\n"
                                   "read_bytes: 63250432\n"
                                   "write_bytes: 516096\n"
                                   "cancelled_write_bytes: 172032\n";

static const char REAL_SMAPS_ROLLUP[] =
    "561233de2000-7fffdc0e8000 ---p 00000000 00:00 0                          [rollup]\n"
    "Rss:                1768 kB\n"
    "Pss:                 546 kB\n"
    "Pss_Dirty:           116 kB\n"
    "Pss_Anon:            116 kB\n"
    "Pss_File:            430 kB\n"
    "Pss_Shmem:             0 kB\n"
    "Shared_Clean:       1564 kB\n"
    "Shared_Dirty:          0 kB\n"
    "Private_Clean:        88 kB\n"
    "Private_Dirty:       116 kB\n"
    "Referenced:         1768 kB\n"
    "Anonymous:           116 kB\n"
    "KSM:                   0 kB\n"
    "LazyFree:              0 kB\n"
    "AnonHugePages:         0 kB\n"
    "ShmemPmdMapped:        0 kB\n"
    "FilePmdMapped:         0 kB\n"
    "Shared_Hugetlb:        0 kB\n"
    "Private_Hugetlb:       0 kB\n"
    "Swap:                  0 kB\n"
    "SwapPss:               0 kB\n"
    "Locked:                0 kB\n";

static const char REAL_MEMINFO[] = "MemTotal:       24683620 kB\n"
                                   "MemFree:        24529692 kB\n"
                                   "MemAvailable:   24443464 kB\n"
                                   "Buffers:            2372 kB\n"
                                   "Cached:            22184 kB\n"
                                   "SwapCached:            0 kB\n"
                                   "Active:            12440 kB\n"
                                   "Inactive:           8304 kB\n"
                                   "Active(anon):       1520 kB\n"
                                   "Inactive(anon):     3620 kB\n"
                                   "Active(file):      10920 kB\n"
                                   "Inactive(file):     4684 kB\n"
                                   "Unevictable:       11396 kB\n"
                                   "Mlocked:           10588 kB\n"
                                   "SwapTotal:             0 kB\n"
                                   "SwapFree:              0 kB\n"
                                   "Zswap:                 0 kB\n"
                                   "Zswapped:              0 kB\n"
                                   "Dirty:                96 kB\n"
                                   "Writeback:             0 kB\n"
                                   "AnonPages:          7608 kB\n"
                                   "Mapped:            11008 kB\n"
                                   "Shmem:              8952 kB\n"
                                   "KReclaimable:      57004 kB\n"
                                   "Slab:              78356 kB\n"
                                   "SReclaimable:      57004 kB\n"
                                   "SUnreclaim:        21352 kB\n"
                                   "KernelStack:        1364 kB\n"
                                   "PageTables:         1236 kB\n"
                                   "SecPageTables:         0 kB\n"
                                   "NFS_Unstable:          0 kB\n"
                                   "Bounce:                0 kB\n"
                                   "WritebackTmp:          0 kB\n"
                                   "CommitLimit:    12341808 kB\n"
                                   "Committed_AS:      53980 kB\n"
                                   "VmallocTotal:   34359738367 kB\n"
                                   "VmallocUsed:       14172 kB\n"
                                   "VmallocChunk:          0 kB\n"
                                   "Percpu:              688 kB\n"
                                   "AnonHugePages:         0 kB\n"
                                   "ShmemHugePages:        0 kB\n"
                                   "ShmemPmdMapped:        0 kB\n"
                                   "FileHugePages:         0 kB\n"
                                   "FilePmdMapped:         0 kB\n"
                                   "Balloon:               0 kB\n"
                                   "HugePages_Total:       0\n"
                                   "HugePages_Free:        0\n"
                                   "HugePages_Rsvd:        0\n"
                                   "HugePages_Surp:        0\n"
                                   "Hugepagesize:       2048 kB\n"
                                   "Hugetlb:               0 kB\n"
                                   "DirectMap4k:       28672 kB\n"
                                   "DirectMap2M:    25137152 kB\n";

static const char REAL_STATUS_BASH[] =
    "Name:\tbash\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t2973\n"
    "Ngid:\t0\n"
    "Pid:\t2973\n"
    "PPid:\t2972\n"
    "TracerPid:\t0\n"
    "Uid:\t0\t0\t0\t0\n"
    "Gid:\t0\t0\t0\t0\n"
    "FDSize:\t256\n"
    "Groups:\t \n"
    "NStgid:\t2973\n"
    "NSpid:\t2973\n"
    "NSpgid:\t2973\n"
    "NSsid:\t2973\n"
    "Kthread:\t0\n"
    "VmPeak:\t    5260 kB\n"
    "VmSize:\t    5184 kB\n"
    "VmLck:\t       0 kB\n"
    "VmPin:\t       0 kB\n"
    "VmHWM:\t    4364 kB\n"
    "VmRSS:\t    4364 kB\n"
    "RssAnon:\t    1164 kB\n"
    "RssFile:\t    3200 kB\n"
    "RssShmem:\t       0 kB\n"
    "VmData:\t    1128 kB\n"
    "VmStk:\t     132 kB\n"
    "VmExe:\t     772 kB\n"
    "VmLib:\t    1596 kB\n"
    "VmPTE:\t      48 kB\n"
    "VmSwap:\t       0 kB\n"
    "HugetlbPages:\t       0 kB\n"
    "CoreDumping:\t0\n"
    "THP_enabled:\t1\n"
    "untag_mask:\t0xffffffffffffffff\n"
    "Threads:\t1\n"
    "SigQ:\t1/96364\n"
    "SigPnd:\t0000000000000000\n"
    "ShdPnd:\t0000000000000000\n"
    "SigBlk:\t0000000000010000\n"
    "SigIgn:\t0000000000000004\n"
    "SigCgt:\t0000000043817efb\n"
    "CapInh:\t0000000000000000\n"
    "CapPrm:\t000001fffeffffff\n"
    "CapEff:\t000001fffeffffff\n"
    "CapBnd:\t000001fffeffffff\n"
    "CapAmb:\t0000000000000000\n"
    "NoNewPrivs:\t0\n"
    "Seccomp:\t0\n"
    "Seccomp_filters:\t0\n"
    "Speculation_Store_Bypass:\tvulnerable\n"
    "SpeculationIndirectBranch:\talways enabled\n"
    "Cpus_allowed:\t3\n"
    "Cpus_allowed_list:\t0-1\n"
    "Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000001\n"
    "Mems_allowed_list:\t0\n"
    "voluntary_ctxt_switches:\t293\n"
    "nonvoluntary_ctxt_switches:\t211\n";

/* kthreadd's children: trailing space, no newline. */
static const char REAL_CHILDREN_KTHREADD[] = "3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 24 25 26 27 28 29 30 "
                                             "31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 "
                                             "54 55 58 77 79 952 4379 ";

/* ---- Exact-size parser calls ---- */

/* A heap copy of exactly len bytes: the byte after the data is a redzone. */
static char *exact_copy(const char *data, size_t len)
{
    char *copy = malloc(len);
    ck_assert(copy != NULL || len == 0);
    if (len) memcpy(copy, data, len);
    return copy;
}

/* Each parser run on an exact-length heap copy of the input, so that a
 * read past len is caught by ASan or valgrind. */
#define EXACT_COPY_PARSER(name, type, parser)                                                    \
    static int name(const char *text, size_t len, type *out)                                     \
    {                                                                                            \
        char *copy = exact_copy(text, len);                                                      \
        int rc = parser(copy, len, out);                                                         \
        free(copy);                                                                              \
        return rc;                                                                               \
    }
EXACT_COPY_PARSER(parse_stat, struct pt_stat, pt_parse_stat)
EXACT_COPY_PARSER(parse_statm, struct pt_statm, pt_parse_statm)
EXACT_COPY_PARSER(parse_io, struct pt_io, pt_parse_io)
EXACT_COPY_PARSER(parse_rollup, struct pt_smaps_rollup, pt_parse_smaps_rollup)
EXACT_COPY_PARSER(parse_meminfo, struct pt_meminfo, pt_parse_meminfo)
EXACT_COPY_PARSER(parse_status, struct pt_status, pt_parse_status)
EXACT_COPY_PARSER(parse_pidfile, pid_t, pt_parse_pidfile)

/* The pids a children parse delivered, in order. */
#define PID_LIST_MAX 4096
struct pid_list {
    pid_t pids[PID_LIST_MAX];
    int count;
    int stop_at; /* the callback refuses the pid with this index */
};

static int collect_pid(pid_t pid, void *arg)
{
    struct pid_list *list = arg;
    if (list->count == list->stop_at || list->count == PID_LIST_MAX) return 1;
    list->pids[list->count++] = pid;
    return 0;
}

static int parse_children(const char *text, size_t len, struct pid_list *list)
{
    list->count = 0;
    list->stop_at = -1;
    char *copy = exact_copy(text, len);
    int rc = pt_parse_children(copy, len, collect_pid, list);
    free(copy);
    return rc;
}

/* A string literal or char array as (text, len), without its NUL. */
#define TEXT(s) (s), strlen(s)

/* ---- Stat helpers ---- */

static void assert_stat_eq(const struct pt_stat *got, const struct pt_stat *want)
{
    ck_assert_int_eq(got->pid, want->pid);
    ck_assert_str_eq(got->comm, want->comm);
    ck_assert_int_eq(got->state, want->state);
    ck_assert_int_eq(got->ppid, want->ppid);
    ck_assert_uint_eq(got->minflt, want->minflt);
    ck_assert_uint_eq(got->cminflt, want->cminflt);
    ck_assert_uint_eq(got->majflt, want->majflt);
    ck_assert_uint_eq(got->cmajflt, want->cmajflt);
    ck_assert_uint_eq(got->utime, want->utime);
    ck_assert_uint_eq(got->stime, want->stime);
    ck_assert_uint_eq(got->cutime, want->cutime);
    ck_assert_uint_eq(got->cstime, want->cstime);
    ck_assert_int_eq(got->num_threads, want->num_threads);
    ck_assert_uint_eq(got->starttime, want->starttime);
    ck_assert_uint_eq(got->vsize, want->vsize);
    ck_assert_int_eq(got->rss_pages, want->rss_pages);
}

static const struct pt_stat BASH = {
    .pid = 2973, .comm = "bash", .state = 'S', .ppid = 2972,
    .minflt = 2797, .cminflt = 61914, .majflt = 0, .cmajflt = 65,
    .utime = 5, .stime = 8, .cutime = 138, .cstime = 180,
    .num_threads = 1, .starttime = 32153, .vsize = 5124096, .rss_pages = 1008,
};

/* REAL_STAT_BASH with its comm replaced by comm[0..len). malloc'd. */
static char *bash_stat_with_comm(const char *comm, size_t len, size_t *line_len)
{
    const char *tail = strrchr(REAL_STAT_BASH, ')');
    size_t tail_len = strlen(tail);
    char *line = malloc(6 + len + tail_len + 1);
    ck_assert_ptr_nonnull(line);
    memcpy(line, "2973 (", 6);
    memcpy(line + 6, comm, len);
    memcpy(line + 6 + len, tail, tail_len + 1);
    *line_len = 6 + len + tail_len;
    return line;
}

/* REAL_STAT_BASH with field number `field` (>= 3, numbered as in
 * proc(5)) replaced by value. malloc'd. */
static char *bash_stat_with_field(int field, const char *value)
{
    const char *start = strrchr(REAL_STAT_BASH, ')') + 1;
    for (int k = 3; k <= field; k++) start = strchr(start, ' ') + 1;
    const char *end = start + strcspn(start, " \n");
    char *line;
    ck_assert_int_ge(asprintf(&line, "%.*s%s%s", (int)(start - REAL_STAT_BASH), REAL_STAT_BASH, value, end), 0);
    return line;
}

/* Shortest prefix of a stat line the parser may accept: through the
 * separator after rss (field 24), the 23rd space after the last ')'.
 * Worked out here independently of the parser. */
static size_t stat_required_len(const char *line, size_t len)
{
    const char *p = memrchr(line, ')', len);
    ck_assert_ptr_nonnull(p);
    for (int spaces = 0; p < line + len; p++)
        if (*p == ' ' && ++spaces == 23) return (size_t)(p - line) + 1;
    ck_abort_msg("stat line has fewer than 24 fields");
    return 0;
}

/* Every prefix of line fails, except those holding all of fields 1-24,
 * which parse exactly like the whole line. */
static void check_stat_prefixes(const char *line, size_t len)
{
    struct pt_stat whole, part;
    ck_assert_int_eq(parse_stat(line, len, &whole), 0);
    size_t required = stat_required_len(line, len);
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_stat(line, n, &part);
        if (n < required) {
            ck_assert_msg(rc == -1, "prefix of %zu bytes (of %zu) accepted", n, len);
        } else {
            ck_assert_msg(rc == 0, "prefix of %zu bytes (of %zu) rejected", n, len);
            assert_stat_eq(&part, &whole);
        }
    }
}

/* ==== stat ==== */

START_TEST(test_stat_real_bash)
{
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_BASH), &st), 0);
    assert_stat_eq(&st, &BASH);
}
END_TEST

START_TEST(test_stat_real_init_kworker_zombie)
{
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_INIT), &st), 0);
    assert_stat_eq(&st, &(struct pt_stat){
        .pid = 1, .comm = "process_api", .state = 'S', .ppid = 0,
        .minflt = 18874, .cminflt = 354669, .majflt = 0, .cmajflt = 204,
        .utime = 63, .stime = 203, .cutime = 1291, .cstime = 996,
        .num_threads = 14, .starttime = 18, .vsize = 42885120, .rss_pages = 2595,
    });

    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_KWORKER), &st), 0);
    ck_assert_str_eq(st.comm, "kworker/0:0-virtio_vsock");
    ck_assert_int_eq(st.state, 'I');
    ck_assert_int_eq(st.ppid, 2);
    ck_assert_uint_eq(st.stime, 7);
    ck_assert_uint_eq(st.vsize, 0);

    ck_assert_int_eq(parse_stat(TEXT(REAL_STAT_ZOMBIE), &st), 0);
    ck_assert_int_eq(st.pid, 10993);
    ck_assert_int_eq(st.state, 'Z');
    ck_assert_uint_eq(st.starttime, 63286);
    ck_assert_int_eq(st.rss_pages, 0);
}
END_TEST

/* comm values a process can give itself (or a fixture can write). */
static const char *const HOSTILE_COMMS[] = {
    "a b", "two  spaces ", " ", "a)", ")", "))", "(", "((", ") (", "x) (y", ") R 1 2 3",
    "a\nb", "\n", "line\n", "a,b", "a=b", "k=v,x=y z", "\"quoted\"", "back\\slash\\", "\xff\xfe",
    "bad\xc3(utf8)", "tab\there", "", "123456789012345",
    "012345678901234567890123456789012345678901234567890123456789012", /* 63: fits exactly */
    "0123456789012345678901234567890123456789012345678901234567890123",
    "0123456789012345678901234567890123456789012345678901234567890123456789) (trailing) S 9",
};

/* comm is kept whole up to PT_COMM_MAX - 1 bytes, the rest is cut. */
START_TEST(test_stat_hostile_comm)
{
    const char *comm = HOSTILE_COMMS[_i];
    size_t len;
    char *line = bash_stat_with_comm(comm, strlen(comm), &len);
    struct pt_stat st, expected = BASH;
    size_t kept = strlen(comm) < PT_COMM_MAX ? strlen(comm) : PT_COMM_MAX - 1;
    memcpy(expected.comm, comm, kept);
    expected.comm[kept] = '\0';
    ck_assert_int_eq(parse_stat(line, len, &st), 0);
    assert_stat_eq(&st, &expected);
    check_stat_prefixes(line, len);
    free(line);
}
END_TEST

START_TEST(test_stat_comm_truncated)
{
    static const char line[] =
        "5 (0123456789012345678901234567890123456789012345678901234567890123456789) (x) S 1 "
        "0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 0 0 0\n";
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_str_eq(st.comm, "012345678901234567890123456789012345678901234567890123456789012");
    ck_assert_int_eq(st.state, 'S');
    ck_assert_int_eq(st.ppid, 1);
    ck_assert_uint_eq(st.starttime, 9);
}
END_TEST

/* A comm holding a whole stat line. Ending comm at the first ')' would
 * read the fake fields; the last ')' reads the real ones. */
START_TEST(test_stat_comm_spoof)
{
    static const char spoof[] = ") Z 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 ";
    size_t len;
    char *line = bash_stat_with_comm(TEXT(spoof), &len);
    struct pt_stat st, expected = BASH;
    memcpy(expected.comm, spoof, sizeof(spoof));
    ck_assert_int_eq(parse_stat(line, len, &st), 0);
    assert_stat_eq(&st, &expected);
    /* Known limit, not checked by prefix: a read cut inside such a comm
     * looks like a whole line. Only a fixture can write it; the kernel
     * caps a process's comm at 15 bytes, far too short for 21 fields. */
    free(line);
}
END_TEST

/* The comm the kernel itself reports, set through prctl: proves the
 * kernel writes such bytes raw into stat and that we read them back. */
START_TEST(test_stat_live_hostile_comm)
{
    static const char name[] = ") (x\n\"=,\\\xff" "a";
    char saved[16] = {0};
    ck_assert_int_eq(prctl(PR_GET_NAME, saved), 0);
    ck_assert_int_eq(prctl(PR_SET_NAME, name), 0);

    int fd = pt_open_at(AT_FDCWD, "/proc/thread-self/stat");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ssize_t n = pt_pread_all(fd, &buf);
    ck_assert_int_eq(prctl(PR_SET_NAME, saved), 0);
    ck_assert_int_gt(n, 0);

    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_str_eq(st.comm, name);
    ck_assert_int_eq(st.pid, gettid());
    ck_assert_int_eq(st.ppid, getppid());
    ck_assert_int_eq(st.state, 'R');
    check_stat_prefixes(buf.data, buf.len);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

START_TEST(test_stat_every_prefix_of_real_lines)
{
    check_stat_prefixes(TEXT(REAL_STAT_BASH));
    check_stat_prefixes(TEXT(REAL_STAT_INIT));
    check_stat_prefixes(TEXT(REAL_STAT_KWORKER));
    check_stat_prefixes(TEXT(REAL_STAT_ZOMBIE));
}
END_TEST

START_TEST(test_stat_empty_and_garbage)
{
    static const char *const bad[] = {
        "", " ", "\n", "hello", "1", "1 ", "1 (", "1 (a", "1 ()", "1 () ", "1 () S", "(bash) S 1",
        "2973 bash S 2972", "2973 (bash S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 1 1 1 ",
        "\xff\xfe\xfd", "0 (x) S 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 ",
    };
    struct pt_stat st;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_stat(TEXT(bad[i]), &st) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_stat("\0\0\0\0", 4, &st), -1);
}
END_TEST

/* A field replaced by a value that must be accepted (want_rc 0) or not. */
static const struct {
    int field;
    const char *value;
    int want_rc;
} STAT_FIELD_CASES[] = {
    {1, "0", -1},                      /* pid 0 is no process */
    {1, "-1", -1},
    {1, "2147483647", 0},              /* largest pid_t */
    {1, "2147483648", -1},
    {1, "99999999999999999999", -1},   /* 20 digits */
    {1, "+5", -1},
    {1, "0x10", -1},
    {3, "RS", -1},                     /* state is one character */
    {3, "", -1},
    {4, "0", 0},                       /* ppid 0: a child of the kernel */
    {4, "-1", -1},
    {4, "2147483648", -1},
    {8, "-1", 0},                      /* tpgid is signed */
    {8, "-", -1},
    {9, "-5", -1},                     /* flags are unsigned */
    {10, "18446744073709551615", 0},   /* largest uint64 */
    {10, "18446744073709551616", -1},  /* one more */
    {10, "99999999999999999999", -1},
    {10, "00000000000000000000000000042", 0},
    {10, "-5", -1},                    /* negative where unsigned */
    {10, "1.5", -1},
    {10, "1e3", -1},
    {10, "", -1},                      /* two spaces in a row */
    {14, "-1", -1},
    {17, "-1", -1},
    {19, "-20", 0},                    /* nice is signed */
    {20, "-1", 0},                     /* num_threads is signed */
    {22, "18446744073709551616", -1},
    {24, "-1", 0},                     /* rss is kept signed */
    {24, "9223372036854775807", 0},
    {24, "9223372036854775808", -1},
    {24, "-9223372036854775808", 0},
    {24, "-9223372036854775809", -1},
    {24, "--1", -1},
    {25, "garbage after rss is not our business", 0},
};

START_TEST(test_stat_field_values)
{
    int field = STAT_FIELD_CASES[_i].field;
    const char *value = STAT_FIELD_CASES[_i].value;
    char *line;
    if (field == 1) {
        ck_assert_int_ge(asprintf(&line, "%s%s", value, strchr(REAL_STAT_BASH, ' ')), 0);
    } else {
        line = bash_stat_with_field(field, value);
    }
    struct pt_stat st;
    int rc = parse_stat(TEXT(line), &st);
    ck_assert_msg(rc == STAT_FIELD_CASES[_i].want_rc, "field %d = \"%s\": rc %d", field, value, rc);
    free(line);
}
END_TEST

START_TEST(test_stat_field_extremes_land_in_the_right_place)
{
    struct pt_stat st;
    char *line = bash_stat_with_field(10, "18446744073709551615");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_uint_eq(st.minflt, PT_MAX_COUNT); /* clamped: see procparse.h */
    ck_assert_uint_eq(st.cminflt, BASH.cminflt);
    free(line);

    line = bash_stat_with_field(24, "-9223372036854775808");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.rss_pages, INT64_MIN);
    free(line);

    line = bash_stat_with_field(20, "-1");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.num_threads, 0);
    free(line);
    line = bash_stat_with_field(20, "9223372036854775807");
    ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
    ck_assert_int_eq(st.num_threads, PT_MAX_THREADS);
    free(line);
    for (int field = 14; field <= 17; field++) { /* utime stime cutime cstime */
        line = bash_stat_with_field(field, "9223372036854775807");
        ck_assert_int_eq(parse_stat(TEXT(line), &st), 0);
        uint64_t ticks[] = {st.utime, st.stime, st.cutime, st.cstime};
        ck_assert_uint_eq(ticks[field - 14], PT_MAX_COUNT);
        free(line);
    }
}
END_TEST

START_TEST(test_stat_separators)
{
    struct pt_stat st;
    /* Exactly the 24 required fields are enough, if the last one is ended. */
    static const char just_required[] =
        "2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 0 32153 5124096 1008\n";
    ck_assert_int_eq(parse_stat(TEXT(just_required), &st), 0);
    assert_stat_eq(&st, &BASH);
    /* Without its newline, rss might have lost digits. */
    ck_assert_int_eq(parse_stat(just_required, strlen(just_required) - 1, &st), -1);
    /* 23 fields. */
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 1 "
                                     "0 32153 5124096\n"),
                                &st),
                     -1);
    /* The kernel separates with exactly one space. */
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S  2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash) S\t2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973 (bash)S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT("2973(bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
    ck_assert_int_eq(parse_stat(TEXT(" 2973 (bash) S 2972 2973 2973 0 -1 4194560 2797 61914 0 65 5 8 138 180 20 0 "
                                     "1 0 32153 5124096 1008 0\n"),
                                &st),
                     -1);
}
END_TEST

/* xorshift64*: a fixed seed keeps failures reproducible. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Random edits of real lines, biased towards the bytes the parser cares
 * about. Whatever comes out, the parser must not crash or overread, and
 * an accepted line must give sane values. */
START_TEST(test_stat_fuzz)
{
    static const char interesting[] = "0123456789 ()-\n\xff";
    const char *bases[] = {REAL_STAT_BASH, REAL_STAT_INIT, REAL_STAT_KWORKER, REAL_STAT_ZOMBIE};
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    char line[512];
    int accepted = 0;

    for (int iter = 0; iter < 20000; iter++) {
        const char *base = bases[next_random(&seed) % 4];
        size_t len = strlen(base);
        memcpy(line, base, len);
        int edits = 1 + (int)(next_random(&seed) % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = next_random(&seed) % len;
            char byte = next_random(&seed) % 4 ? interesting[next_random(&seed) % (sizeof(interesting) - 1)]
                                               : (char)next_random(&seed);
            switch (next_random(&seed) % 4) {
            case 0: line[at] = byte; break;
            case 1: memmove(line + at, line + at + 1, len - at - 1), len--; break;
            case 2:
                if (len < sizeof(line)) memmove(line + at + 1, line + at, len - at), line[at] = byte, len++;
                break;
            case 3: len = at; break;
            }
        }
        struct pt_stat st;
        if (parse_stat(line, len, &st) == 0) {
            accepted++;
            ck_assert_ptr_nonnull(memchr(st.comm, '\0', PT_COMM_MAX));
            ck_assert_int_gt(st.pid, 0);
            ck_assert_int_ge(st.ppid, 0);
            ck_assert_int_ne(st.state, ' ');
        }
    }
    /* Single-byte edits past rss keep lines valid: the fuzzer reached the accepting path. */
    ck_assert_int_gt(accepted, 0);
}
END_TEST

/* ==== statm ==== */

START_TEST(test_statm_real)
{
    struct pt_statm m;
    ck_assert_int_eq(parse_statm(TEXT(REAL_STATM_BASH), &m), 0);
    ck_assert_uint_eq(m.size, 1251);
    ck_assert_uint_eq(m.resident, 1043);
    ck_assert_uint_eq(m.shared, 800);
    ck_assert_int_eq(parse_statm(TEXT(REAL_STATM_KTHREAD), &m), 0);
    ck_assert_uint_eq(m.size + m.resident + m.shared, 0);
}
END_TEST

START_TEST(test_statm_whitespace_and_limits)
{
    struct pt_statm m;
    ck_assert_int_eq(parse_statm(TEXT("  7\t 8   9\n"), &m), 0);
    ck_assert_uint_eq(m.size, 7);
    ck_assert_uint_eq(m.resident, 8);
    ck_assert_uint_eq(m.shared, 9);
    ck_assert_int_eq(parse_statm(TEXT("1 2 3 "), &m), 0);
    ck_assert_int_eq(parse_statm(TEXT("18446744073709551615 0 0\n"), &m), 0);
    ck_assert_uint_eq(m.size, PT_MAX_PAGES);
    ck_assert_int_eq(parse_statm(TEXT("4611686018427387904 9223372036854775807 281474976710655\n"), &m), 0);
    ck_assert_uint_eq(m.size, PT_MAX_PAGES);
    ck_assert_uint_eq(m.resident, PT_MAX_PAGES);
    ck_assert_uint_eq(m.shared, PT_MAX_PAGES - 1);

    static const char *const bad[] = {
        "", "\n", "1 2\n", "1 2 3", "1\n2 3\n", "1 -2 3\n", "1 2 x\n", "a 1 2\n",
        "18446744073709551616 1 1\n", "1 2 3x\n", "1,2,3\n", "0x1 2 3\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_statm(TEXT(bad[i]), &m) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

START_TEST(test_statm_every_prefix)
{
    size_t len = strlen(REAL_STATM_BASH);
    size_t required = strlen("1251 1043 800 ");
    struct pt_statm m;
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_statm(REAL_STATM_BASH, n, &m);
        ck_assert_int_eq(rc, n < required ? -1 : 0);
        if (rc == 0) ck_assert_uint_eq(m.shared, 800);
    }
}
END_TEST

/* ==== io ==== */

static void assert_io_eq(const struct pt_io *got, const struct pt_io *want)
{
    ck_assert_uint_eq(got->rchar, want->rchar);
    ck_assert_uint_eq(got->wchar, want->wchar);
    ck_assert_uint_eq(got->syscr, want->syscr);
    ck_assert_uint_eq(got->syscw, want->syscw);
    ck_assert_uint_eq(got->read_bytes, want->read_bytes);
    ck_assert_uint_eq(got->write_bytes, want->write_bytes);
    ck_assert_uint_eq(got->cancelled_write_bytes, want->cancelled_write_bytes);
}

static const struct pt_io BASH_IO = {6257799, 133946, 17066, 546, 63250432, 516096, 172032};

START_TEST(test_io_real)
{
    struct pt_io io;
    ck_assert_int_eq(parse_io(TEXT(REAL_IO_BASH), &io), 0);
    assert_io_eq(&io, &BASH_IO);
}
END_TEST

/* Dropping any one of the seven lines fails the file. */
START_TEST(test_io_missing_each_field)
{
    const char *skip = REAL_IO_BASH;
    for (int line = 0; line < _i; line++) skip = strchr(skip, '\n') + 1;
    const char *next = strchr(skip, '\n') + 1;
    char *text;
    ck_assert_int_ge(asprintf(&text, "%.*s%s", (int)(skip - REAL_IO_BASH), REAL_IO_BASH, next), 0);
    struct pt_io io;
    ck_assert_int_eq(parse_io(TEXT(text), &io), -1);
    free(text);
}
END_TEST

START_TEST(test_io_keys_match_whole)
{
    struct pt_io io;
    static const char lookalikes[] = "rchar2: 1\nxrchar: 2\nrchar_: 3\nRCHAR: 4\n"
                                     "syscr: 17066\nwrite_bytes: 516096\nrchar: 6257799\nwchar: 133946\n"
                                     "future_key: 99\nsyscw: 546\nread_bytes: 63250432\nno colon here\n"
                                     "cancelled_write_bytes: 172032\nwchar_new: 8\n";
    ck_assert_int_eq(parse_io(TEXT(lookalikes), &io), 0);
    assert_io_eq(&io, &BASH_IO);
    /* "rchar2" does not stand in for a missing rchar. */
    ck_assert_int_eq(parse_io(TEXT("rchar2: 1\nwchar: 1\nsyscr: 1\nsyscw: 1\nread_bytes: 1\nwrite_bytes: 1\n"
                                   "cancelled_write_bytes: 1\n"),
                              &io),
                     -1);
}
END_TEST

START_TEST(test_io_malformed)
{
    static const char tail[] = "wchar: 1\nsyscr: 1\nsyscw: 1\nread_bytes: 1\nwrite_bytes: 1\ncancelled_write_bytes: 1\n";
    static const char *const bad_rchar[] = {
        "rchar: \n", "rchar: x\n", "rchar: -1\n", "rchar: 18446744073709551616\n", "rchar: 12 34\n",
        "rchar: 12x\n", "rchar: 0x10\n",
    };
    struct pt_io io;
    for (size_t i = 0; i < sizeof(bad_rchar) / sizeof(bad_rchar[0]); i++) {
        char *text;
        ck_assert_int_ge(asprintf(&text, "%s%s", bad_rchar[i], tail), 0);
        ck_assert_msg(parse_io(TEXT(text), &io) == -1, "accepted \"%s\"", bad_rchar[i]);
        free(text);
    }
    char *text;
    ck_assert_int_ge(asprintf(&text, "rchar:18446744073709551615\t \n%s", tail), 0);
    ck_assert_int_eq(parse_io(TEXT(text), &io), 0);
    ck_assert_uint_eq(io.rchar, PT_MAX_COUNT);
    free(text);
    ck_assert_int_eq(parse_io(TEXT(""), &io), -1);
    ck_assert_int_eq(parse_io(TEXT("\n\n\n"), &io), -1);
}
END_TEST

/* The last line is required, so only the whole file (with its final
 * newline) parses. */
START_TEST(test_io_every_prefix)
{
    size_t len = strlen(REAL_IO_BASH);
    struct pt_io io;
    for (size_t n = 0; n < len; n++) ck_assert_int_eq(parse_io(REAL_IO_BASH, n, &io), -1);
    ck_assert_int_eq(parse_io(REAL_IO_BASH, len, &io), 0);
}
END_TEST

/* ==== smaps_rollup ==== */

START_TEST(test_rollup_real)
{
    struct pt_smaps_rollup r;
    ck_assert_int_eq(parse_rollup(TEXT(REAL_SMAPS_ROLLUP), &r), 0);
    ck_assert_uint_eq(r.rss, 1768 * 1024);
    ck_assert_uint_eq(r.pss, 546 * 1024);
    ck_assert_uint_eq(r.shared_clean, 1564 * 1024);
    ck_assert_uint_eq(r.shared_dirty, 0);
    ck_assert_uint_eq(r.private_clean, 88 * 1024);
    ck_assert_uint_eq(r.private_dirty, 116 * 1024);
    ck_assert_uint_eq(r.swap, 0);
}
END_TEST

/* Pss_* and SwapPss around the real keys, with values of their own. */
START_TEST(test_rollup_lookalike_keys)
{
    static const char text[] = "00400000-7ffc3f5d1000 ---p 00000000 00:00 0                          [rollup]\n"
                               "Rss:                 900 kB\n"
                               "Pss_Anon:            111 kB\n"
                               "Pss_Dirty:           112 kB\n"
                               "Pss:                 300 kB\n"
                               "Pss_File:            113 kB\n"
                               "SwapPss:             114 kB\n"
                               "Swap:                 40 kB\n"
                               "SwapPss:             115 kB\n"
                               "Shared_Clean:          1 kB\n"
                               "Shared_Dirty:          2 kB\n"
                               "Private_Clean:         3 kB\n"
                               "Private_Dirty:         4 kB\n"
                               "Private_Hugetlb:     116 kB\n";
    struct pt_smaps_rollup r;
    ck_assert_int_eq(parse_rollup(TEXT(text), &r), 0);
    ck_assert_uint_eq(r.rss, 900 * 1024);
    ck_assert_uint_eq(r.pss, 300 * 1024);
    ck_assert_uint_eq(r.swap, 40 * 1024);
    ck_assert_uint_eq(r.shared_clean, 1024);
    ck_assert_uint_eq(r.shared_dirty, 2 * 1024);
    ck_assert_uint_eq(r.private_clean, 3 * 1024);
    ck_assert_uint_eq(r.private_dirty, 4 * 1024);
}
END_TEST

START_TEST(test_rollup_optional_and_required)
{
    struct pt_smaps_rollup r;
    ck_assert_int_eq(parse_rollup(TEXT("hdr 00:00 [rollup]\nRss: 10 kB\nPss: 5 kB\n"), &r), 0);
    ck_assert_uint_eq(r.rss, 10240);
    ck_assert_uint_eq(r.pss, 5120);
    ck_assert_uint_eq(r.shared_clean + r.shared_dirty + r.private_clean + r.private_dirty + r.swap, 0);

    ck_assert_int_eq(parse_rollup(TEXT(""), &r), -1); /* a kernel thread's read fails, an empty one too */
    ck_assert_int_eq(parse_rollup(TEXT("561233de2000-7fffdc0e8000 ---p 00000000 00:00 0 [rollup]\n"), &r), -1);
    ck_assert_int_eq(parse_rollup(TEXT("Rss: 10 kB\nPss_Anon: 5 kB\nSwapPss: 1 kB\n"), &r), -1);
    ck_assert_int_eq(parse_rollup(TEXT("Pss: 10 kB\nRss_x: 5 kB\n"), &r), -1);
}
END_TEST

START_TEST(test_rollup_units_and_overflow)
{
    struct pt_smaps_rollup r;
    /* Sizes are clamped to PT_MAX_BYTES, with or without "kB"; 2^54 kB
     * would be 2^64 bytes. */
    ck_assert_int_eq(parse_rollup(TEXT("Rss: 18014398509481983 kB\nPss: 1125899906842623 kB\n"), &r), 0);
    ck_assert_uint_eq(r.rss, PT_MAX_BYTES);
    ck_assert_uint_eq(r.pss, PT_MAX_BYTES - 1024);
    ck_assert_int_eq(parse_rollup(TEXT("Rss: 18446744073709551615 kB\nPss: 18446744073709551615\n"), &r), 0);
    ck_assert_uint_eq(r.rss, PT_MAX_BYTES);
    ck_assert_uint_eq(r.pss, PT_MAX_BYTES);
    ck_assert_int_eq(parse_rollup(TEXT("Rss: 99999999999999999999 kB\nPss: 0 kB\n"), &r), -1);
    static const char *const bad[] = {
        "Rss: 12 MB\nPss: 1 kB\n", "Rss: 12 k\nPss: 1 kB\n", "Rss: 12 kBx\nPss: 1 kB\n",
        "Rss: kB\nPss: 1 kB\n",    "Rss: -12 kB\nPss: 1 kB\n", "Rss: 12 kB\nPss: 1 kB",
        "Rss: 12 kB kB\nPss: 1 kB\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_rollup(TEXT(bad[i]), &r) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

/* A truncated read either fails or yields a subset of the real values:
 * never a value cut short. */
START_TEST(test_rollup_every_prefix)
{
    size_t len = strlen(REAL_SMAPS_ROLLUP);
    struct pt_smaps_rollup whole, part;
    ck_assert_int_eq(parse_rollup(REAL_SMAPS_ROLLUP, len, &whole), 0);
    size_t required = (size_t)(strstr(REAL_SMAPS_ROLLUP, "Pss_Dirty") - REAL_SMAPS_ROLLUP);
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_rollup(REAL_SMAPS_ROLLUP, n, &part);
        if (n < required) {
            ck_assert_int_eq(rc, -1);
            continue;
        }
        if (rc != 0) continue; /* cut inside a wanted line */
        ck_assert_uint_eq(part.rss, whole.rss);
        ck_assert_uint_eq(part.pss, whole.pss);
        ck_assert(part.shared_clean == whole.shared_clean || part.shared_clean == 0);
        ck_assert(part.private_clean == whole.private_clean || part.private_clean == 0);
        ck_assert(part.private_dirty == whole.private_dirty || part.private_dirty == 0);
    }
    ck_assert_int_eq(parse_rollup(REAL_SMAPS_ROLLUP, required, &part), 0);
}
END_TEST

/* ==== meminfo ==== */

START_TEST(test_meminfo_real)
{
    struct pt_meminfo m;
    ck_assert_int_eq(parse_meminfo(TEXT(REAL_MEMINFO), &m), 0);
    ck_assert_uint_eq(m.mem_total, 24683620ULL * 1024);
    ck_assert_uint_eq(m.mem_free, 24529692ULL * 1024);
    ck_assert(m.has_available);
    ck_assert_uint_eq(m.mem_available, 24443464ULL * 1024);
    ck_assert_uint_eq(m.buffers, 2372 * 1024);
    ck_assert_uint_eq(m.cached, 22184 * 1024);
    ck_assert_uint_eq(m.anon_pages, 7608 * 1024);
    ck_assert_uint_eq(m.swap_total, 0);
    ck_assert_uint_eq(m.swap_free, 0);
}
END_TEST

/* Linux before 3.14 has no MemAvailable; SwapCached is not Cached, in
 * either order. */
START_TEST(test_meminfo_old_kernel_and_lookalikes)
{
    static const char old[] = "MemTotal:        2052016 kB\n"
                              "MemFree:          163864 kB\n"
                              "Buffers:          147488 kB\n"
                              "SwapCached:         9999 kB\n"
                              "Cached:           961724 kB\n"
                              "SwapCached:         8888 kB\n"
                              "AnonPages:        501236 kB\n"
                              "SwapTotal:       4194300 kB\n"
                              "SwapFree:        4169708 kB\n";
    struct pt_meminfo m;
    ck_assert_int_eq(parse_meminfo(TEXT(old), &m), 0);
    ck_assert(!m.has_available);
    ck_assert_uint_eq(m.mem_available, 0);
    ck_assert_uint_eq(m.cached, 961724ULL * 1024);
    ck_assert_uint_eq(m.buffers, 147488ULL * 1024);
    ck_assert_uint_eq(m.swap_total, 4194300ULL * 1024);
    ck_assert_uint_eq(m.swap_free, 4169708ULL * 1024);

    ck_assert_int_eq(parse_meminfo(TEXT("MemTotal: 1 kB\n"), &m), -1);
    ck_assert_int_eq(parse_meminfo(TEXT("MemFree: 1 kB\n"), &m), -1);
    ck_assert_int_eq(parse_meminfo(TEXT("MemTotalX: 1 kB\nMemFree: 1 kB\n"), &m), -1);
    ck_assert_int_eq(parse_meminfo(TEXT(""), &m), -1);
    ck_assert_int_eq(parse_meminfo(TEXT("MemTotal: 1 kB\nMemFree: 1 kB\nMemAvailable: lots\n"), &m), -1);
    ck_assert_int_eq(parse_meminfo(TEXT("MemTotal: 1 kB\nMemFree: 1 kB\nMemAvailable: 0 kB\n"), &m), 0);
    ck_assert(m.has_available);
    /* clamped, so that free + buffers + cached cannot wrap */
    ck_assert_int_eq(parse_meminfo(TEXT("MemTotal: 18446744073709551615 kB\nMemFree: 9223372036854775807 kB\n"
                                        "Buffers: 18014398509481984 kB\nCached: 18446744073709551615\n"),
                                   &m),
                     0);
    ck_assert_uint_eq(m.mem_total, PT_MAX_BYTES);
    ck_assert_uint_eq(m.mem_free, PT_MAX_BYTES);
    ck_assert_uint_eq(m.buffers, PT_MAX_BYTES);
    ck_assert_uint_eq(m.cached, PT_MAX_BYTES);
}
END_TEST

START_TEST(test_meminfo_every_prefix)
{
    size_t len = strlen(REAL_MEMINFO);
    struct pt_meminfo whole, part;
    ck_assert_int_eq(parse_meminfo(REAL_MEMINFO, len, &whole), 0);
    size_t required = (size_t)(strstr(REAL_MEMINFO, "MemAvailable") - REAL_MEMINFO);
    int accepted = 0;
    for (size_t n = 0; n <= len; n++) {
        int rc = parse_meminfo(REAL_MEMINFO, n, &part);
        if (n < required) {
            ck_assert_int_eq(rc, -1);
            continue;
        }
        if (rc != 0) continue; /* cut inside a wanted line */
        accepted++;
        ck_assert_uint_eq(part.mem_total, whole.mem_total);
        ck_assert_uint_eq(part.mem_free, whole.mem_free);
        ck_assert(part.has_available ? part.mem_available == whole.mem_available : part.mem_available == 0);
        ck_assert(part.buffers == whole.buffers || part.buffers == 0);
        ck_assert(part.cached == whole.cached || part.cached == 0);
        ck_assert(part.anon_pages == whole.anon_pages || part.anon_pages == 0);
    }
    ck_assert_int_gt(accepted, 0);
}
END_TEST

/* ==== status ==== */

START_TEST(test_status_real)
{
    struct pt_status st;
    ck_assert_int_eq(parse_status(TEXT(REAL_STATUS_BASH), &st), 0);
    ck_assert_uint_eq(st.voluntary_ctxt_switches, 293);
    ck_assert_uint_eq(st.nonvoluntary_ctxt_switches, 211);
    ck_assert_uint_eq(st.real_uid, 0);
    ck_assert_uint_eq(st.effective_uid, 0);
}
END_TEST

static const char MINIMAL_STATUS[] = "Name:\tsu\n"
                                     "Uid:\t1000\t0\t1002\t1003\n"
                                     "Gid:\t5\t6\t7\t8\n"
                                     "voluntary_ctxt_switches:\t18446744073709551615\n"
                                     "nonvoluntary_ctxt_switches:\t9\n";

START_TEST(test_status_uids)
{
    struct pt_status st;
    ck_assert_int_eq(parse_status(TEXT(MINIMAL_STATUS), &st), 0);
    ck_assert_uint_eq(st.real_uid, 1000);
    ck_assert_uint_eq(st.effective_uid, 0);
    ck_assert_uint_eq(st.voluntary_ctxt_switches, PT_MAX_COUNT);
    ck_assert_uint_eq(st.nonvoluntary_ctxt_switches, 9);

    static const char tail[] = "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t2\n";
    static const struct {
        const char *uid_line;
        int want_rc;
    } cases[] = {
        {"Uid:\t4294967295\t4294967295\t0\t0\n", 0}, /* the largest uid_t */
        {"Uid:\t4294967296\t0\t0\t0\n", -1},
        {"Uid:\t0\t4294967296\t0\t0\n", -1},
        {"Uid:\t1\t2\t3\n", -1},
        {"Uid:\t1\t2\t3\t4\t5\n", -1},
        {"Uid:\t-1\t0\t0\t0\n", -1},
        {"Uid:\t1,2,3,4\n", -1},
        {"Uid: 1 2 3 4\n", 0},
        {"Uid:\t1\t2\t3\t4", -1}, /* not the last line here, but cut */
        {"Uids:\t1\t2\t3\t4\n", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text;
        ck_assert_int_ge(asprintf(&text, "%s%s", cases[i].uid_line, tail), 0);
        ck_assert_msg(parse_status(TEXT(text), &st) == cases[i].want_rc, "\"%s\"", cases[i].uid_line);
        free(text);
    }
}
END_TEST

/* Dropping any one of the wanted lines fails the file. */
START_TEST(test_status_missing_each_field)
{
    static const char *const wanted[] = {"Uid:", "voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"};
    const char *skip = strstr(MINIMAL_STATUS, wanted[_i]);
    if (_i == 1) skip = strstr(MINIMAL_STATUS, "\nvoluntary") + 1;
    const char *next = strchr(skip, '\n') + 1;
    char *text;
    ck_assert_int_ge(asprintf(&text, "%.*s%s", (int)(skip - MINIMAL_STATUS), MINIMAL_STATUS, next), 0);
    struct pt_status st;
    ck_assert_int_eq(parse_status(TEXT(text), &st), -1);
    free(text);
}
END_TEST

START_TEST(test_status_every_prefix)
{
    size_t len = strlen(REAL_STATUS_BASH);
    struct pt_status st;
    for (size_t n = 0; n < len; n++) ck_assert_int_eq(parse_status(REAL_STATUS_BASH, n, &st), -1);
    ck_assert_int_eq(parse_status(REAL_STATUS_BASH, len, &st), 0);
}
END_TEST

/* The kernel escapes Name, so a comm cannot forge the Uid line. */
START_TEST(test_status_live_hostile_name)
{
    static const char name[] = "x\nUid:\t7\t7\t7\t7";
    char saved[16] = {0};
    ck_assert_int_eq(prctl(PR_GET_NAME, saved), 0);
    ck_assert_int_eq(prctl(PR_SET_NAME, name), 0);
    int fd = pt_open_at(AT_FDCWD, "/proc/thread-self/status");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ssize_t n = pt_pread_all(fd, &buf);
    ck_assert_int_eq(prctl(PR_SET_NAME, saved), 0);
    ck_assert_int_gt(n, 0);

    struct pt_status st;
    ck_assert_int_eq(parse_status(buf.data, buf.len, &st), 0);
    ck_assert_uint_eq(st.real_uid, getuid());
    ck_assert_uint_eq(st.effective_uid, geteuid());
    ck_assert_ptr_nonnull(strstr(buf.data, "Name:\tx\\nUid:"));
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

/* ==== children ==== */

START_TEST(test_children_small)
{
    struct pid_list list;
    ck_assert_int_eq(parse_children(TEXT(""), &list), 0);
    ck_assert_int_eq(parse_children(TEXT("\n"), &list), 0);
    ck_assert_int_eq(parse_children(TEXT(" "), &list), 0);
    ck_assert_int_eq(parse_children(TEXT("123"), &list), 1);
    ck_assert_int_eq(list.pids[0], 123);
    ck_assert_int_eq(parse_children(TEXT("123 "), &list), 1);
    ck_assert_int_eq(parse_children(TEXT("123 \n"), &list), 1);
    ck_assert_int_eq(parse_children(TEXT("1 2 2147483647\n"), &list), 3);
    ck_assert_int_eq(list.pids[2], INT_MAX);
    ck_assert_int_eq(parse_children(TEXT("1\n2\t3  4"), &list), 4);
    ck_assert_int_eq(list.pids[3], 4);
}
END_TEST

START_TEST(test_children_real)
{
    struct pid_list list;
    static const pid_t some[] = {3, 4, 5, 22, 24, 55, 58, 77, 79, 952, 4379};
    ck_assert_int_eq(parse_children(TEXT(REAL_CHILDREN_KTHREADD), &list), 57);
    /* Some known pids, found in order. */
    for (size_t i = 0, j = 0; i < sizeof(some) / sizeof(some[0]); i++) {
        while (list.pids[j] != some[i]) ck_assert_int_lt(++j, 57);
    }
    ck_assert_int_eq(list.pids[56], 4379);
}
END_TEST

/* 2000 pids, several pages of text, all delivered in order. */
START_TEST(test_children_many)
{
    char *text = malloc(2000 * 6 + 1);
    ck_assert_ptr_nonnull(text);
    size_t len = 0;
    for (int i = 0; i < 2000; i++) len += (size_t)sprintf(text + len, "%d ", 30000 + i);
    ck_assert_uint_gt(len, 4096);
    struct pid_list list;
    ck_assert_int_eq(parse_children(text, len, &list), 2000);
    for (int i = 0; i < 2000; i++) ck_assert_int_eq(list.pids[i], 30000 + i);
    free(text);
}
END_TEST

START_TEST(test_children_malformed)
{
    struct pid_list list;
    static const char *const bad[] = {
        "12a 3", "-1", "0", "1 0 2", "2147483648", "99999999999999999999", "1,2", "+5", "x", "1 2 3x",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_children(TEXT(bad[i]), &list) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_children("1 \0 2", 5, &list), -1);
    /* Pids before the bad token have been delivered already. */
    ck_assert_int_eq(parse_children(TEXT("7 8 9x 10"), &list), -1);
    ck_assert_int_eq(list.count, 2);
}
END_TEST

START_TEST(test_children_callback_stops)
{
    struct pid_list list = {.stop_at = 2};
    ck_assert_int_eq(pt_parse_children("1 2 3 4 ", 8, collect_pid, &list), -1);
    ck_assert_int_eq(list.count, 2);
}
END_TEST

/* ==== pidfile ==== */

/* What PostgreSQL 15 writes in postmaster.pid: the pid, then more lines. */
static const char POSTMASTER_PID[] = "4242\n/var/lib/postgresql/15/main\n1700000000\n5432\n/var/run/postgresql\n"
                                     "localhost\n  5432001         0\nready   \n";

START_TEST(test_pidfile_good)
{
    static const struct {
        const char *text;
        pid_t want;
    } good[] = {
        {"123\n", 123}, {"123", 123}, {"  42  \n", 42}, {"\t7\r\n", 7}, {"4194304", PT_PID_MAX_LIMIT},
        {"007\n", 7}, {"1", 1}, {"99\n\n", 99}, {"12\nanything at all", 12}, {"12\n-1\n0x10\n", 12},
        {POSTMASTER_PID, 4242},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        pid_t pid = -1;
        ck_assert_msg(parse_pidfile(TEXT(good[i].text), &pid) == 0, "rejected \"%s\"", good[i].text);
        ck_assert_int_eq(pid, good[i].want);
    }
    pid_t pid = -1;
    ck_assert_int_eq(parse_pidfile("12\n\0\0\0", 6, &pid), 0); /* NULs after the first line are ignored */
    ck_assert_int_eq(pid, 12);
}
END_TEST

START_TEST(test_pidfile_bad)
{
    static const char *const bad[] = {
        "12abc", "123abc\n", "", "\n", "   ", "0", "0\n", "-5", "-5\n", "+5", "1 2", "1 2\n", "\n99\n",
        "\n\n99\n\n", "abc\n123\n", "pid=12", "x12\n", "99999999999999999999", "4194305", "2147483648",
        "0x10", "abc", "12.0", "\xff", "\xef\xbb\xbf" "12\n",
    };
    pid_t pid = 777;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_pidfile(TEXT(bad[i]), &pid) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_pidfile("12\0", 3, &pid), -1);
    ck_assert_int_eq(parse_pidfile("\0" "12\n", 4, &pid), -1);
    ck_assert_int_eq(parse_pidfile("1\0" "2\n", 4, &pid), -1);
    ck_assert_int_eq(pid, 777);
}
END_TEST

/* The reader reads at most PT_PIDFILE_MAX bytes: a buffer that full may
 * be a longer file cut short, so its first line must end inside it. */
START_TEST(test_pidfile_bound)
{
    char text[PT_PIDFILE_MAX];
    pid_t pid = 777;
    /* a first line as long as the bound: "   ...   123", maybe "1234..." in the file */
    memset(text, ' ', sizeof(text));
    memcpy(text + sizeof(text) - 3, "123", 3);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
    /* the same line one byte shorter is a whole file */
    ck_assert_int_eq(parse_pidfile(text + 1, sizeof(text) - 1, &pid), 0);
    ck_assert_int_eq(pid, 123);
    /* a huge first line of digits */
    memset(text, '7', sizeof(text));
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text) - 1, &pid), -1);
    /* a short first line, then bytes up to the bound: the rest is ignored */
    memset(text, 'x', sizeof(text));
    memcpy(text, "56\n", 3);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), 0);
    ck_assert_int_eq(pid, 56);
    /* a pid then trailing blanks up to the bound: the line may go on */
    memset(text, ' ', sizeof(text));
    memcpy(text, "56", 2);
    ck_assert_int_eq(parse_pidfile(text, sizeof(text), &pid), -1);
}
END_TEST

/* ==== pidfile reader ==== */

struct log_record {
    int count;
    char last[512];
};

static void record_log(enum pt_log_level level, const char *message, void *arg)
{
    struct log_record *rec = arg;
    ck_assert_int_eq(level, PT_LOG_WARNING);
    rec->count++;
    snprintf(rec->last, sizeof(rec->last), "%s", message);
}

/* Read path through pf: the pid, and whether exactly one new warning
 * holding why was logged (why NULL: none). */
static pid_t read_expect(struct pt_pidfile *pf, const char *path, struct log_record *rec, const char *why)
{
    int before = rec->count;
    pt_log_set_sink(record_log, rec);
    pid_t pid = pt_pidfile_read(pf, path, "svc");
    pt_log_set_sink(NULL, NULL);
    ck_assert_int_eq(rec->count, before + (why != NULL));
    if (why) {
        ck_assert_msg(strstr(rec->last, why) && strstr(rec->last, path), "%s", rec->last);
        ck_assert_ptr_null(strchr(rec->last, '\n'));
    }
    return pid;
}

static void replace_with_data(const char *path, const char *data, size_t len)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

START_TEST(test_pidfile_reader)
{
    char *root = fx_root_new();
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/svc.pid", root);
    struct pt_pidfile pf = {0};
    struct log_record rec = {0};

    /* a missing file is no problem: a stopped service often has none */
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);
    replace_with_data(path, TEXT(POSTMASTER_PID));
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 4242);

    /* a FIFO without a writer: refused at once, one warning however often read */
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a FIFO, not a regular file"), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);

    /* a symlink to /dev/zero: a new problem, a new warning; nothing read */
    unlink(path);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a character device"), 0);
    unlink(path);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "is a directory"), 0);
    rmdir(path);

    /* a symlink to a regular file is followed (/var/run -> /run) */
    char target[PATH_MAX];
    snprintf(target, sizeof(target), "%s/real.pid", root);
    replace_with_data(target, TEXT("31\n"));
    ck_assert_int_eq(symlink(target, path), 0);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 31);

    /* a big file: its first line holds the pid, or the file is refused */
    size_t big = 1 << 20;
    char *data = malloc(big);
    ck_assert_ptr_nonnull(data);
    memset(data, '7', big);
    replace_with_data(path, data, big);
    ck_assert_int_eq(read_expect(&pf, path, &rec, "has no pid on its first line"), 0);
    memcpy(data, "12\n", 3);
    replace_with_data(path, data, big);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 12);
    free(data);

    /* the same problem after a good read is news again */
    replace_with_data(path, TEXT("not a pid\n"));
    ck_assert_int_eq(read_expect(&pf, path, &rec, "has no pid on its first line"), 0);
    unlink(path);
    ck_assert_int_eq(read_expect(&pf, path, &rec, NULL), 0);
    fx_root_free(root);
}
END_TEST

/* ==== procfile ==== */

/* A fixture root with file rel holding len bytes of a repeating pattern. */
static char *pattern(size_t len)
{
    char *data = malloc(len);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < len; i++) data[i] = (char)('a' + i % 26 + (i % 4096 == 0));
    return data;
}

static int open_in(const char *root, const char *rel)
{
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/%s", root, rel), 0);
    int fd = pt_open_at(AT_FDCWD, path);
    ck_assert_int_ge(fd, 0);
    free(path);
    return fd;
}

/* Both readers must return whole files: pt_pread_all for multi-record
 * files, pt_pread_record (one pread when the buffer is big enough) for
 * single-record ones. Loop tests run each case with both. */
static ssize_t (*const readers[])(int fd, struct pt_buf *buf) = {pt_pread_all, pt_pread_record};

START_TEST(test_pread_large_file)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    size_t len = 100003;
    char *data = pattern(len);
    fx_write(root, "big", data, (long)len);
    int fd = open_in(root, "big");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), (ssize_t)len);
    ck_assert_uint_eq(buf.len, len);
    ck_assert_uint_gt(buf.cap, len);
    ck_assert_mem_eq(buf.data, data, len);
    ck_assert_int_eq(buf.data[len], '\0');

    /* Reused: a shorter file shrinks len, not the buffer. */
    size_t cap = buf.cap;
    fx_write(root, "big", "short", -1);
    ck_assert_int_eq(read_file(fd, &buf), 5);
    ck_assert_str_eq(buf.data, "short");
    ck_assert_uint_eq(buf.cap, cap);

    fx_write(root, "big", "", -1);
    ck_assert_int_eq(read_file(fd, &buf), 0);
    ck_assert_str_eq(buf.data, "");

    pt_buf_free(&buf);
    ck_assert_ptr_null(buf.data);
    ck_assert_uint_eq(buf.cap, 0);
    close(fd);
    free(data);
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_empty_file_fresh_buffer)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    fx_write(root, "empty", "", -1);
    int fd = open_in(root, "empty");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), 0);
    ck_assert_ptr_nonnull(buf.data);
    ck_assert_str_eq(buf.data, "");
    pt_buf_free(&buf);
    close(fd);
    fx_root_free(root);
}
END_TEST

/* A kept fd reads the file as it is now, as on procfs. */
START_TEST(test_pread_sees_rewrite)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    fx_write(root, "1/stat", "first", -1);
    int fd = open_in(root, "1/stat");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), 5);
    ck_assert_str_eq(buf.data, "first");
    fx_write(root, "1/stat", "second, and longer", -1);
    ck_assert_int_eq(read_file(fd, &buf), 18);
    ck_assert_str_eq(buf.data, "second, and longer");
    fx_write(root, "1/stat", "3", -1);
    ck_assert_int_eq(read_file(fd, &buf), 1);
    ck_assert_str_eq(buf.data, "3");
    pt_buf_free(&buf);
    close(fd);
    fx_root_free(root);
}
END_TEST

/* Sizes around the first buffer (4096 with room for the NUL): a read that
 * fills the buffer must not be taken for the whole file. */
START_TEST(test_pread_buffer_boundaries)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    size_t sizes[] = {4094, 4095, 4096, 4097, 8191, 8192};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *data = pattern(sizes[k]);
        fx_write(root, "f", data, (long)sizes[k]);
        int fd = open_in(root, "f");
        struct pt_buf buf = {0};
        ck_assert_int_eq(read_file(fd, &buf), (ssize_t)sizes[k]);
        ck_assert_mem_eq(buf.data, data, sizes[k]);
        pt_buf_free(&buf);
        close(fd);
        free(data);
    }
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_size_limit)
{
    const size_t limit = (size_t)16 << 20;
    char *root = fx_root_new();
    fx_write(root, "huge", "", -1);
    int fd = open_in(root, "huge");
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/huge", root), 0);
    struct pt_buf buf = {0};

    ck_assert_int_eq(truncate(path, (off_t)limit), 0);
    ck_assert_int_eq(pt_pread_all(fd, &buf), (ssize_t)limit);
    ck_assert_int_eq(buf.data[limit], '\0');

    ck_assert_int_eq(truncate(path, (off_t)limit + 1), 0);
    ck_assert_int_eq(pt_pread_all(fd, &buf), -EFBIG);
    ck_assert_uint_eq(buf.len, 0);
    ck_assert_str_eq(buf.data, "");
    ck_assert_uint_le(buf.cap, limit + 1);

    pt_buf_free(&buf);
    close(fd);
    free(path);
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_bad_descriptors)
{
    struct pt_buf buf = {0};
    int pipe_fds[2];
    ck_assert_int_eq(pipe(pipe_fds), 0);
    ck_assert_int_eq(pt_pread_all(pipe_fds[0], &buf), -ESPIPE);
    ck_assert_uint_eq(buf.len, 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    int dir = open("/", O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dir, 0);
    ck_assert_int_eq(pt_pread_all(dir, &buf), -EISDIR);
    close(dir);

    int path_fd = open("/proc/self/stat", O_PATH);
    ck_assert_int_ge(path_fd, 0);
    ck_assert_int_eq(pt_pread_all(path_fd, &buf), -EBADF);
    close(path_fd);

    ck_assert_int_eq(pt_pread_all(-1, &buf), -EBADF);
    ck_assert_uint_eq(buf.len, 0);
    pt_buf_free(&buf);
}
END_TEST

START_TEST(test_pread_proc_self_stat)
{
    int fd = pt_open_at(AT_FDCWD, "/proc/self/stat");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ck_assert_int_gt(pt_pread_all(fd, &buf), 0);
    ck_assert_uint_eq(strlen(buf.data), buf.len);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_int_eq(st.pid, getpid());
    ck_assert_int_eq(st.ppid, getppid());

    char comm[32] = {0};
    ck_assert_int_eq(prctl(PR_GET_NAME, comm), 0);
    ck_assert_str_eq(st.comm, comm);
    ck_assert_int_ge(st.num_threads, 1);
    ck_assert_int_gt(st.rss_pages, 0);

    /* Sampled again through the same fd: the counters only move forward. */
    struct pt_stat later;
    ck_assert_int_gt(pt_pread_all(fd, &buf), 0);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &later), 0);
    ck_assert_uint_eq(later.starttime, st.starttime);
    ck_assert_uint_ge(later.minflt, st.minflt);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

/* Start a child process that lives until gate_write is closed: `cat`
 * reading the gate's other end, exiting at EOF, which also comes if the
 * test dies. posix_spawn does not copy the address space, so a thousand
 * children are cheap even under ASan. Both gate ends must be O_CLOEXEC. */
static pid_t spawn_gated_child(int gate_read)
{
    posix_spawn_file_actions_t actions;
    ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
    ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, gate_read, STDIN_FILENO), 0);
    ck_assert_int_eq(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0), 0);
    char *argv[] = {"cat", NULL};
    pid_t pid;
    ck_assert_int_eq(posix_spawnp(&pid, "cat", &actions, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

static int compare_pids(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

static size_t decimal_width(pid_t pid)
{
    size_t width = 1;
    while (pid >= 10) pid /= 10, width++;
    return width;
}

/* The real multi-record case: a children list longer than a page, which
 * procfs hands out one page per read. */
START_TEST(test_pread_real_children_over_a_page)
{
    pid_t kids[PID_LIST_MAX];
    int nkids = 0;
    size_t listed = 0;
    int gate[2];
    ck_assert_int_eq(pipe2(gate, O_CLOEXEC), 0);

    while (listed <= 6000) {
        ck_assert_int_lt(nkids, PID_LIST_MAX);
        pid_t pid = spawn_gated_child(gate[0]);
        kids[nkids++] = pid;
        listed += decimal_width(pid) + 1;
    }
    close(gate[0]);

    int fd = pt_open_at(AT_FDCWD, "/proc/thread-self/children");
    ck_assert_int_ge(fd, 0);
    char one_read[65536];
    ssize_t first = pread(fd, one_read, sizeof(one_read), 0);
    struct pt_buf buf = {0};
    ssize_t total = pt_pread_all(fd, &buf);
    ck_assert_int_eq(total, (ssize_t)listed);
    ck_assert_msg(first > 0 && first < total, "one read gave %zd of %zd bytes: the kernel no longer splits", first,
                  total);

    struct pid_list list = {.stop_at = -1};
    ck_assert_int_eq(pt_parse_children(buf.data, buf.len, collect_pid, &list), nkids);
    qsort(list.pids, (size_t)nkids, sizeof(pid_t), compare_pids);
    qsort(kids, (size_t)nkids, sizeof(pid_t), compare_pids);
    ck_assert_mem_eq(list.pids, kids, (size_t)nkids * sizeof(pid_t));

    close(gate[1]);
    for (int i = 0; i < nkids; i++) ck_assert_int_eq(waitpid(kids[i], NULL, 0), kids[i]);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

/* A process's directory under a proc root, as an O_PATH fd, or -errno. */
static int open_pid_dir(int proc_root_fd, pid_t pid)
{
    char name[16];
    snprintf(name, sizeof(name), "%d", (int)pid);
    int fd = openat(proc_root_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

/* What a poller sees through fds kept across a process's death. */
START_TEST(test_pread_reaped_process)
{
    int gate[2];
    ck_assert_int_eq(pipe2(gate, O_CLOEXEC), 0);
    pid_t kid = spawn_gated_child(gate[0]);
    close(gate[0]);

    int proc = open("/proc", O_PATH | O_DIRECTORY);
    int dir = open_pid_dir(proc, kid);
    ck_assert_int_ge(dir, 0);
    static const char *const names[] = {"stat", "statm", "io", "smaps_rollup"};
    int fds[4];
    struct pt_buf buf = {0};
    for (int i = 0; i < 4; i++) {
        fds[i] = pt_open_at(dir, names[i]);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_gt(pt_pread_all(fds[i], &buf), 0);
    }
    char children_name[64];
    snprintf(children_name, sizeof(children_name), "task/%d/children", kid);
    int children = pt_open_at(dir, children_name);
    ck_assert_int_ge(children, 0);

    close(gate[1]);
    ck_assert_int_eq(waitpid(kid, NULL, 0), kid);

    for (int i = 0; i < 4; i++) {
        ssize_t rc = pt_pread_all(fds[i], &buf);
        ck_assert_msg(rc == -ESRCH, "%s: %zd", names[i], rc);
        ck_assert(pt_errno_is_gone((int)rc));
        close(fds[i]);
    }
    /* The children list of a reaped process reads empty, not ESRCH. */
    ck_assert_int_eq(pt_pread_all(children, &buf), 0);
    int again = open_pid_dir(proc, kid);
    ck_assert_int_eq(again, -ENOENT);
    ck_assert(pt_errno_is_gone(again));

    pt_buf_free(&buf);
    close(children);
    close(dir);
    close(proc);
}
END_TEST

START_TEST(test_open_at)
{
    char *root = fx_root_new();
    fx_write(root, "a/b", "x", -1);
    int dir = open(root, O_PATH | O_DIRECTORY);
    ck_assert_int_ge(dir, 0);
    int fd = pt_open_at(dir, "a/b");
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
    close(fd);
    ck_assert_int_eq(pt_open_at(dir, "a/missing"), -ENOENT);
    ck_assert_int_eq(pt_open_at(dir, "a/b/c"), -ENOTDIR);
    ck_assert_int_eq(pt_open_at(-1, "a/b"), -EBADF);
    close(dir);
    fx_root_free(root);
}
END_TEST

START_TEST(test_errno_is_gone)
{
    ck_assert(pt_errno_is_gone(-ESRCH));
    ck_assert(pt_errno_is_gone(-ENOENT));
    ck_assert(!pt_errno_is_gone(0));
    ck_assert(!pt_errno_is_gone(ESRCH));
    ck_assert(!pt_errno_is_gone(ENOENT));
    ck_assert(!pt_errno_is_gone(-EACCES));
    ck_assert(!pt_errno_is_gone(-EBADF));
    ck_assert(!pt_errno_is_gone(-EFBIG));
}
END_TEST

/* ==== fixture ==== */

static void read_rel(const char *root, const char *rel, struct pt_buf *buf)
{
    int fd = open_in(root, rel);
    ck_assert_int_ge(pt_pread_all(fd, buf), 0);
    close(fd);
}

static const struct fx_proc ROUND_TRIP = {
    .pid = 4242, .ppid = 17, .comm = ") (x\n\"=,\\\xff" "a b", .state = 'D', .starttime = 123456789,
    .utime = 11, .stime = 12, .cutime = 13, .cstime = 14,
    .minflt = 21, .cminflt = 22, .majflt = 23, .cmajflt = 24, .num_threads = 7,
    .size_pages = 1000, .resident_pages = 400, .shared_pages = 300,
    .io = {31, 32, 33, 34, 35, 36, 37},
    .children = "4243 4244 ",
    .pss_kb = 501, .swap_kb = 61, .shared_kb = 201, .private_kb = 301,
};

/* Read p's files back through the parsers and compare every field. */
static void assert_proc_files_match(const char *root, const struct fx_proc *p)
{
    struct pt_buf buf = {0};
    char rel[64];
    uint64_t page_size = (uint64_t)sysconf(_SC_PAGESIZE);

    snprintf(rel, sizeof(rel), "%d/stat", p->pid);
    read_rel(root, rel, &buf);
    struct pt_stat st, want = {
        .pid = p->pid, .state = p->state ? p->state : 'S', .ppid = p->ppid,
        .minflt = p->minflt, .cminflt = p->cminflt, .majflt = p->majflt, .cmajflt = p->cmajflt,
        .utime = p->utime, .stime = p->stime, .cutime = p->cutime, .cstime = p->cstime,
        .num_threads = p->num_threads ? p->num_threads : 1, .starttime = p->starttime,
        .vsize = p->size_pages * page_size, .rss_pages = (int64_t)p->resident_pages,
    };
    snprintf(want.comm, sizeof(want.comm), "%s", p->comm ? p->comm : "proc");
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    assert_stat_eq(&st, &want);

    snprintf(rel, sizeof(rel), "%d/statm", p->pid);
    read_rel(root, rel, &buf);
    struct pt_statm statm;
    ck_assert_int_eq(parse_statm(buf.data, buf.len, &statm), 0);
    ck_assert_uint_eq(statm.size, p->size_pages);
    ck_assert_uint_eq(statm.resident, p->resident_pages);
    ck_assert_uint_eq(statm.shared, p->shared_pages);

    snprintf(rel, sizeof(rel), "%d/io", p->pid);
    read_rel(root, rel, &buf);
    struct pt_io io;
    ck_assert_int_eq(parse_io(buf.data, buf.len, &io), 0);
    assert_io_eq(&io, &p->io);

    snprintf(rel, sizeof(rel), "%d/smaps_rollup", p->pid);
    read_rel(root, rel, &buf);
    struct pt_smaps_rollup r;
    ck_assert_int_eq(parse_rollup(buf.data, buf.len, &r), 0);
    ck_assert_uint_eq(r.rss, (p->shared_kb + p->private_kb) * 1024);
    ck_assert_uint_eq(r.pss, p->pss_kb * 1024);
    ck_assert_uint_eq(r.shared_clean, p->shared_kb * 1024);
    ck_assert_uint_eq(r.shared_dirty, 0);
    ck_assert_uint_eq(r.private_clean, 0);
    ck_assert_uint_eq(r.private_dirty, p->private_kb * 1024);
    ck_assert_uint_eq(r.swap, p->swap_kb * 1024);

    snprintf(rel, sizeof(rel), "%d/task/%d/children", p->pid, p->pid);
    read_rel(root, rel, &buf);
    ck_assert_str_eq(buf.data, p->children ? p->children : "");
    pt_buf_free(&buf);
}

START_TEST(test_fixture_round_trip)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    assert_proc_files_match(root, &ROUND_TRIP);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_defaults)
{
    char *root = fx_root_new();
    struct fx_proc p = {.pid = 5};
    fx_put_proc(root, &p);
    assert_proc_files_match(root, &p);

    struct pt_buf buf = {0};
    read_rel(root, "5/stat", &buf);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_str_eq(st.comm, "proc");
    ck_assert_int_eq(st.state, 'S');
    ck_assert_int_eq(st.num_threads, 1);
    read_rel(root, "5/task/5/children", &buf);
    struct pid_list list;
    ck_assert_int_eq(parse_children(buf.data, buf.len, &list), 0);
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

/* The stat line has the kernel's shape: 52 fields, one space apart, a newline. */
START_TEST(test_fixture_stat_shape)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    struct pt_buf buf = {0};
    read_rel(root, "4242/stat", &buf);
    ck_assert_int_eq(buf.data[buf.len - 1], '\n');
    const char *close = memrchr(buf.data, ')', buf.len);
    int spaces = 0;
    for (const char *p = close; p < buf.data + buf.len; p++) {
        spaces += *p == ' ';
        ck_assert(*p != ' ' || p[1] != ' ');
    }
    ck_assert_int_eq(spaces, 52 - 2); /* fields 3 to 52, each after a space */

    read_rel(root, "4242/statm", &buf);
    ck_assert_str_eq(buf.data, "1000 400 300 0 0 0 0\n");
    read_rel(root, "4242/smaps_rollup", &buf);
    ck_assert_ptr_nonnull(strstr(buf.data, "[rollup]\nRss:                 502 kB\nPss:                 501 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nSwapPss:"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nPss_Anon:"));
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

/* A second put rewrites the same inodes, and kept fds see the new values. */
START_TEST(test_fixture_rewrite_in_place)
{
    char *root = fx_root_new();
    struct fx_proc p = ROUND_TRIP;
    fx_put_proc(root, &p);
    int stat_fd = open_in(root, "4242/stat");
    int io_fd = open_in(root, "4242/io");
    struct stat before, after;
    ck_assert_int_eq(fstat(stat_fd, &before), 0);

    p.utime = 999999;
    p.comm = "short";
    p.io.rchar = 123456789012ULL;
    p.children = "";
    fx_put_proc(root, &p);
    ck_assert_int_eq(fstat(stat_fd, &after), 0);
    ck_assert_uint_eq(after.st_ino, before.st_ino);

    struct pt_buf buf = {0};
    struct pt_stat st;
    ck_assert_int_gt(pt_pread_all(stat_fd, &buf), 0);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_uint_eq(st.utime, 999999);
    ck_assert_str_eq(st.comm, "short");
    struct pt_io io;
    ck_assert_int_gt(pt_pread_all(io_fd, &buf), 0);
    ck_assert_int_eq(parse_io(buf.data, buf.len, &io), 0);
    ck_assert_uint_eq(io.rchar, 123456789012ULL);
    assert_proc_files_match(root, &p);

    pt_buf_free(&buf);
    close(stat_fd);
    close(io_fd);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_vanish)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    fx_put_proc(root, &(struct fx_proc){.pid = 4243, .ppid = 4242});
    int proc = open(root, O_PATH | O_DIRECTORY);
    int dir = open_pid_dir(proc, 4242);
    ck_assert_int_ge(dir, 0);
    int stat_fd = pt_open_at(dir, "stat");
    int children_fd = pt_open_at(dir, "task/4242/children");
    ck_assert_int_ge(stat_fd, 0);
    ck_assert_int_ge(children_fd, 0);

    fx_vanish(root, 4242);

    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_pread_all(stat_fd, &buf), 0);
    ck_assert_int_eq(pt_pread_all(children_fd, &buf), 0);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), -1);
    int again = open_pid_dir(proc, 4242);
    ck_assert_int_eq(again, -ENOENT);
    ck_assert(pt_errno_is_gone(again));
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/4242", root), 0);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), -1);
    ck_assert_int_eq(errno, ENOENT);
    free(path);
    /* The sibling is untouched. */
    read_rel(root, "4243/stat", &buf);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_int_eq(st.ppid, 4242);

    pt_buf_free(&buf);
    close(stat_fd);
    close(children_fd);
    close(dir);
    close(proc);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_meminfo)
{
    char *root = fx_root_new();
    fx_put_meminfo(root, 16000000, 8000000, 12000000, 3000000, 2000000, 1000000);
    struct pt_buf buf = {0};
    read_rel(root, "meminfo", &buf);
    struct pt_meminfo m;
    ck_assert_int_eq(parse_meminfo(buf.data, buf.len, &m), 0);
    ck_assert_uint_eq(m.mem_total, 16000000ULL * 1024);
    ck_assert_uint_eq(m.mem_free, 8000000ULL * 1024);
    ck_assert(m.has_available);
    ck_assert_uint_eq(m.mem_available, 12000000ULL * 1024);
    ck_assert_uint_eq(m.cached, 3000000ULL * 1024);
    ck_assert_uint_eq(m.anon_pages, 2000000ULL * 1024);
    ck_assert_uint_eq(m.swap_free, 1000000ULL * 1024);
    ck_assert_uint_eq(m.swap_total, 1000000ULL * 1024);
    ck_assert_uint_eq(m.buffers, 2048 * 1024);
    /* Laid out like the real file. */
    ck_assert_ptr_nonnull(strstr(buf.data, "MemTotal:       16000000 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nSwapCached:            0 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nHugePages_Total:       0\n"));

    /* Rewritten in place, like every fixture file. */
    int fd = open_in(root, "meminfo");
    fx_put_meminfo(root, 1, 1, 1, 1, 1, 1);
    ck_assert_int_gt(pt_pread_all(fd, &buf), 0);
    ck_assert_int_eq(parse_meminfo(buf.data, buf.len, &m), 0);
    ck_assert_uint_eq(m.mem_total, 1024);
    close(fd);
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_write)
{
    char *root = fx_root_new();
    fx_write(root, "deep/er/and/deeper/file", "with\0nul", 8);
    struct pt_buf buf = {0};
    read_rel(root, "deep/er/and/deeper/file", &buf);
    ck_assert_uint_eq(buf.len, 8);
    ck_assert_mem_eq(buf.data, "with\0nul", 8);
    fx_write(root, "deep/er/and/deeper/file", "x", -1);
    read_rel(root, "deep/er/and/deeper/file", &buf);
    ck_assert_str_eq(buf.data, "x");
    pt_buf_free(&buf);

    char *copy = strdup(root);
    fx_root_free(root);
    ck_assert_int_eq(access(copy, F_OK), -1);
    ck_assert_int_eq(errno, ENOENT);
    free(copy);
}
END_TEST

START_TEST(test_fixture_root_honours_tmpdir)
{
    const char *original = getenv("TMPDIR");
    char *saved = original ? strdup(original) : NULL;
    char *outer = fx_root_new();
    ck_assert_int_eq(setenv("TMPDIR", outer, 1), 0);
    char *inner = fx_root_new();
    ck_assert_int_eq(strncmp(inner, outer, strlen(outer)), 0);
    ck_assert_int_eq(saved ? setenv("TMPDIR", saved, 1) : unsetenv("TMPDIR"), 0);
    free(saved);
    fx_root_free(inner);
    fx_root_free(outer);
}
END_TEST

/* A fixture that cannot do what it was asked stops the test, saying why.
 * The failing call runs in a child of our own, to watch it die. */
START_TEST(test_fixture_aborts_on_error)
{
    char *root = fx_root_new();
    fx_write(root, "file", "x", -1);
    int err[2];
    ck_assert_int_eq(pipe(err), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(err[1], STDERR_FILENO);
        fx_write(root, "file/below", "x", -1); /* "file" is not a directory */
        _exit(0);
    }
    close(err[1]);
    char message[512] = {0};
    size_t got = 0;
    ssize_t n;
    while ((n = read(err[0], message + got, sizeof(message) - 1 - got)) > 0) got += (size_t)n;
    close(err[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    ck_assert_ptr_nonnull(strstr(message, "file/below"));
    ck_assert_ptr_nonnull(strstr(message, strerror(ENOTDIR)));
    fx_root_free(root);
}
END_TEST

/* ==== Runner ==== */

static TCase *tcase(Suite *suite, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(suite, tc);
    return tc;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *procparse_suite(void)
{
    Suite *suite = suite_create("procparse");

    TCase *tc = tcase(suite, "stat");
    tcase_add_test(tc, test_stat_real_bash);
    tcase_add_test(tc, test_stat_real_init_kworker_zombie);
    tcase_add_loop_test(tc, test_stat_hostile_comm, 0, COUNT(HOSTILE_COMMS));
    tcase_add_test(tc, test_stat_comm_truncated);
    tcase_add_test(tc, test_stat_comm_spoof);
    tcase_add_test(tc, test_stat_live_hostile_comm);
    tcase_add_test(tc, test_stat_every_prefix_of_real_lines);
    tcase_add_test(tc, test_stat_empty_and_garbage);
    tcase_add_loop_test(tc, test_stat_field_values, 0, COUNT(STAT_FIELD_CASES));
    tcase_add_test(tc, test_stat_field_extremes_land_in_the_right_place);
    tcase_add_test(tc, test_stat_separators);
    tcase_add_test(tc, test_stat_fuzz);

    tc = tcase(suite, "statm");
    tcase_add_test(tc, test_statm_real);
    tcase_add_test(tc, test_statm_whitespace_and_limits);
    tcase_add_test(tc, test_statm_every_prefix);

    tc = tcase(suite, "io");
    tcase_add_test(tc, test_io_real);
    tcase_add_loop_test(tc, test_io_missing_each_field, 0, 7);
    tcase_add_test(tc, test_io_keys_match_whole);
    tcase_add_test(tc, test_io_malformed);
    tcase_add_test(tc, test_io_every_prefix);

    tc = tcase(suite, "smaps_rollup");
    tcase_add_test(tc, test_rollup_real);
    tcase_add_test(tc, test_rollup_lookalike_keys);
    tcase_add_test(tc, test_rollup_optional_and_required);
    tcase_add_test(tc, test_rollup_units_and_overflow);
    tcase_add_test(tc, test_rollup_every_prefix);

    tc = tcase(suite, "meminfo");
    tcase_add_test(tc, test_meminfo_real);
    tcase_add_test(tc, test_meminfo_old_kernel_and_lookalikes);
    tcase_add_test(tc, test_meminfo_every_prefix);

    tc = tcase(suite, "status");
    tcase_add_test(tc, test_status_real);
    tcase_add_test(tc, test_status_uids);
    tcase_add_loop_test(tc, test_status_missing_each_field, 0, 3);
    tcase_add_test(tc, test_status_every_prefix);
    tcase_add_test(tc, test_status_live_hostile_name);

    tc = tcase(suite, "children");
    tcase_add_test(tc, test_children_small);
    tcase_add_test(tc, test_children_real);
    tcase_add_test(tc, test_children_many);
    tcase_add_test(tc, test_children_malformed);
    tcase_add_test(tc, test_children_callback_stops);

    tc = tcase(suite, "pidfile");
    tcase_add_test(tc, test_pidfile_good);
    tcase_add_test(tc, test_pidfile_bad);
    tcase_add_test(tc, test_pidfile_bound);
    tcase_add_test(tc, test_pidfile_reader);

    tc = tcase(suite, "procfile");
    tcase_add_loop_test(tc, test_pread_large_file, 0, 2);
    tcase_add_loop_test(tc, test_pread_empty_file_fresh_buffer, 0, 2);
    tcase_add_loop_test(tc, test_pread_sees_rewrite, 0, 2);
    tcase_add_loop_test(tc, test_pread_buffer_boundaries, 0, 2);
    tcase_add_test(tc, test_pread_size_limit);
    tcase_add_test(tc, test_pread_bad_descriptors);
    tcase_add_test(tc, test_pread_proc_self_stat);
    tcase_add_test(tc, test_pread_real_children_over_a_page);
    tcase_add_test(tc, test_pread_reaped_process);
    tcase_add_test(tc, test_open_at);
    tcase_add_test(tc, test_errno_is_gone);

    tc = tcase(suite, "fixture");
    tcase_add_test(tc, test_fixture_round_trip);
    tcase_add_test(tc, test_fixture_defaults);
    tcase_add_test(tc, test_fixture_stat_shape);
    tcase_add_test(tc, test_fixture_rewrite_in_place);
    tcase_add_test(tc, test_fixture_vanish);
    tcase_add_test(tc, test_fixture_meminfo);
    tcase_add_test(tc, test_fixture_write);
    tcase_add_test(tc, test_fixture_root_honours_tmpdir);
    tcase_add_test(tc, test_fixture_aborts_on_error);

    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(procparse_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
