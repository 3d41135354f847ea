/* Unit tests for the "key: value" parsers of procfile.h: io,
 * smaps_rollup, meminfo and status. */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "procfs/procfile.h"
#include "unit.h"

/* ---- Real content captured from this machine's /proc (Linux 6.18) ---- */

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
    "Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
    "00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
    "00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000001\n"
    "Mems_allowed_list:\t0\n"
    "voluntary_ctxt_switches:\t293\n"
    "nonvoluntary_ctxt_switches:\t211\n";

/* ==== io ==== */

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
    for (int line = 0; line < _i; line++)
        skip = strchr(skip, '\n') + 1;
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
    static const char tail[] =
        "wchar: 1\nsyscr: 1\nsyscw: 1\nread_bytes: 1\nwrite_bytes: 1\ncancelled_write_bytes: 1\n";
    static const char *const bad_rchar[] = {
        "rchar: \n",      "rchar: x\n",   "rchar: -1\n",   "rchar: 18446744073709551616\n",
        "rchar: 12 34\n", "rchar: 12x\n", "rchar: 0x10\n",
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
    for (size_t n = 0; n < len; n++)
        ck_assert_int_eq(parse_io(REAL_IO_BASH, n, &io), -1);
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
        "Rss: 12 MB\nPss: 1 kB\n",  "Rss: 12 k\nPss: 1 kB\n", "Rss: 12 kBx\nPss: 1 kB\n",   "Rss: kB\nPss: 1 kB\n",
        "Rss: -12 kB\nPss: 1 kB\n", "Rss: 12 kB\nPss: 1 kB",  "Rss: 12 kB kB\nPss: 1 kB\n",
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
        if (rc != 0)
            continue; /* cut inside a wanted line */
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
        if (rc != 0)
            continue; /* cut inside a wanted line */
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
    if (_i == 1)
        skip = strstr(MINIMAL_STATUS, "\nvoluntary") + 1;
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
    for (size_t n = 0; n < len; n++)
        ck_assert_int_eq(parse_status(REAL_STATUS_BASH, n, &st), -1);
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
    int fd = pt_procfs_open_at(AT_FDCWD, "/proc/thread-self/status");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ssize_t n = pt_procfs_pread_all(fd, &buf);
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

/* ---- NSpid ---- */

static int parse_nspid(const char *text, size_t len, pid_t *out, size_t max)
{
    char *copy = exact_copy(text, len);
    int n = pt_pidparse_nspid(copy, len, out, max);
    free(copy);
    return n;
}

/* A container's process seen in the host's /proc: outermost first. */
START_TEST(test_nspid_nested)
{
    static const char text[] = "Name:\tsleep\nTgid:\t21058\nNgid:\t0\nPid:\t21058\nPPid:\t21057\nTracerPid:\t0\n"
                               "NStgid:\t21058\t7\nNSpid:\t21058\t7\nNSpgid:\t21057\t6\nNSsid:\t1\t0\n";
    pid_t pids[PT_NSPID_MAX];
    ck_assert_int_eq(parse_nspid(TEXT(text), pids, PT_NSPID_MAX), 2);
    ck_assert_int_eq(pids[0], 21058);
    ck_assert_int_eq(pids[1], 7);
    ck_assert_int_eq(parse_nspid(TEXT(text), pids, 1), -1); /* more than max */
    /* a line cut short may have lost a pid or digits of one */
    size_t end = strstr(text, "\nNSpgid") - text;
    for (size_t n = strstr(text, "NSpid:") - text + 6; n <= end; n++)
        ck_assert_int_eq(parse_nspid(text, n, pids, PT_NSPID_MAX), -1);
    ck_assert_int_eq(parse_nspid(text, end + 1, pids, PT_NSPID_MAX), 2);
}
END_TEST

START_TEST(test_nspid_absent_and_malformed)
{
    pid_t pids[PT_NSPID_MAX];
    /* kernels before 4.1; a lookalike key inside another line */
    ck_assert_int_eq(parse_nspid(TEXT("Name:\tNSpid:\t5\nPid:\t5\n"), pids, PT_NSPID_MAX), 0);
    ck_assert_int_eq(parse_nspid(TEXT("NSpid:\t1\n"), pids, PT_NSPID_MAX), 1);
    ck_assert_int_eq(pids[0], 1);
    ck_assert_int_eq(parse_nspid(TEXT("NSpid:\n"), pids, PT_NSPID_MAX), -1);
    ck_assert_int_eq(parse_nspid(TEXT("NSpid:\t0\n"), pids, PT_NSPID_MAX), -1);
    ck_assert_int_eq(parse_nspid(TEXT("NSpid:\t12x\n"), pids, PT_NSPID_MAX), -1);
    ck_assert_int_eq(parse_nspid(TEXT("NSpid:\t99999999999\n"), pids, PT_NSPID_MAX), -1);
}
END_TEST

/* ---- limits: Max open files ---- */

/* As Linux 6.1 writes it (fs/proc/base.c, proc_pid_limits). */
#define LIMITS_HEAD                                                                                                    \
    "Limit                     Soft Limit           Hard Limit           Units     \n"                                 \
    "Max cpu time              unlimited            unlimited            seconds   \n"                                 \
    "Max processes             96362                96362                processes \n"
#define LIMITS_TAIL                                                                                                    \
    "Max locked memory         8388608              8388608              bytes     \n"                                 \
    "Max realtime timeout      unlimited            unlimited            us        \n"

static const char REAL_LIMITS[] =
    LIMITS_HEAD "Max open files            1024                 524288               files     \n" LIMITS_TAIL;

START_TEST(test_limits_real_and_unlimited)
{
    uint64_t soft = 7;
    ck_assert_int_eq(parse_nofile_limit(TEXT(REAL_LIMITS), &soft), 0);
    ck_assert_uint_eq(soft, 1024);
    /* a soft limit above the hard one cannot be set, but is read as written */
    static const char odd[] = "Max open files            64                   unlimited            files     \n";
    ck_assert_int_eq(parse_nofile_limit(TEXT(odd), &soft), 0);
    ck_assert_uint_eq(soft, 64);
    /* unlimited: 1, the value untouched (it is not 0, nor a number) */
    static const char unlimited[] =
        LIMITS_HEAD "Max open files            unlimited            unlimited            files     \n" LIMITS_TAIL;
    soft = 7;
    ck_assert_int_eq(parse_nofile_limit(TEXT(unlimited), &soft), 1);
    ck_assert_uint_eq(soft, 7);
    /* a value no process can have is clamped, like every count */
    static const char huge[] = "Max open files            99999999999999999999 1 files\n";
    ck_assert_int_eq(parse_nofile_limit(TEXT(huge), &soft), -1); /* beyond uint64 */
    static const char big[] = "Max open files            9999999999999999999 1 files\n";
    ck_assert_int_eq(parse_nofile_limit(TEXT(big), &soft), 0);
    ck_assert_uint_eq(soft, PT_MAX_COUNT);
}
END_TEST

/* Missing, garbage, lookalikes: -1, never a number. */
START_TEST(test_limits_missing_and_garbage)
{
    static const char *bad[] = {
        "",
        LIMITS_HEAD LIMITS_TAIL,                                                            /* no such line */
        "Max open filesystems      10                   10                   files     \n", /* a lookalike key */
        "  Max open files          10                   10                   files     \n", /* not at a line's start */
        "Max open files            -1                   10                   files     \n",
        "Max open files            10x                  10                   files     \n",
        "Max open files            unlimitedx           10                   files     \n",
        "Max open files            10                   ten                  files     \n",
        "Max open files            10                   10                   bytes     \n",
        "Max open files            10                                                  \n",
        "Max open files\n",
        "Max open files            10                   10                   files     x\n",
        "Max open files            10\n                   10                   files\n",
        "\0\0\0",
    };
    uint64_t soft = 7;
    for (size_t i = 0; i < COUNT(bad); i++) {
        ck_assert_msg(parse_nofile_limit(bad[i], strlen(bad[i]) + (i == COUNT(bad) - 1 ? 3 : 0), &soft) == -1,
                      "accepted \"%s\"", bad[i]);
        ck_assert_uint_eq(soft, 7);
    }
}
END_TEST

/* Every cut before the line's newline loses its units, maybe digits. */
START_TEST(test_limits_every_prefix)
{
    const char *line = strstr(REAL_LIMITS, "Max open files");
    size_t end = (size_t)(strchr(line, '\n') - REAL_LIMITS);
    uint64_t soft;
    for (size_t n = 0; n <= end; n++)
        ck_assert_msg(parse_nofile_limit(REAL_LIMITS, n, &soft) == -1, "accepted a cut at %zu", n);
    for (size_t n = end + 1; n <= strlen(REAL_LIMITS); n++) {
        ck_assert_int_eq(parse_nofile_limit(REAL_LIMITS, n, &soft), 0);
        ck_assert_uint_eq(soft, 1024);
    }
}
END_TEST

/* This process's own file, against getrlimit(2). */
START_TEST(test_limits_live)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    int fd = pt_procfs_open_at(AT_FDCWD, "/proc/self/limits");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ssize_t n = pt_procfs_pread_all(fd, &buf);
    close(fd);
    ck_assert_int_gt(n, 0);
    uint64_t soft;
    int rc = parse_nofile_limit(buf.data, buf.len, &soft);
    if (rl.rlim_cur == RLIM_INFINITY)
        ck_assert_int_eq(rc, 1);
    else {
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(soft, rl.rlim_cur);
    }
    pt_buf_free(&buf);
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("parse_kv");

    TCase *tc = unit_tcase(suite, "io");
    tcase_add_test(tc, test_io_real);
    tcase_add_loop_test(tc, test_io_missing_each_field, 0, 7);
    tcase_add_test(tc, test_io_keys_match_whole);
    tcase_add_test(tc, test_io_malformed);
    tcase_add_test(tc, test_io_every_prefix);

    tc = unit_tcase(suite, "smaps_rollup");
    tcase_add_test(tc, test_rollup_real);
    tcase_add_test(tc, test_rollup_lookalike_keys);
    tcase_add_test(tc, test_rollup_optional_and_required);
    tcase_add_test(tc, test_rollup_units_and_overflow);
    tcase_add_test(tc, test_rollup_every_prefix);

    tc = unit_tcase(suite, "meminfo");
    tcase_add_test(tc, test_meminfo_real);
    tcase_add_test(tc, test_meminfo_old_kernel_and_lookalikes);
    tcase_add_test(tc, test_meminfo_every_prefix);

    tc = unit_tcase(suite, "status");
    tcase_add_test(tc, test_status_real);
    tcase_add_test(tc, test_status_uids);
    tcase_add_loop_test(tc, test_status_missing_each_field, 0, 3);
    tcase_add_test(tc, test_status_every_prefix);
    tcase_add_test(tc, test_status_live_hostile_name);

    tc = unit_tcase(suite, "nspid");
    tcase_add_test(tc, test_nspid_nested);
    tcase_add_test(tc, test_nspid_absent_and_malformed);

    tc = unit_tcase(suite, "limits");
    tcase_add_test(tc, test_limits_real_and_unlimited);
    tcase_add_test(tc, test_limits_missing_and_garbage);
    tcase_add_test(tc, test_limits_every_prefix);
    tcase_add_test(tc, test_limits_live);

    return unit_run(suite);
}
