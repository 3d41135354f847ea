/* Unit tests for the cgroup accounting: cgparse on the kernel's formats
 * (Documentation/admin-guide/cgroup-v2.rst and the v1 docs) and hostile
 * bytes, cgstat choosing each quantity's file by what a fixture cgroup
 * offers (v2 first, its v1 twin else), the per-descriptor memory.peak
 * reset, and cgacct's intervals: growth, polls, a cgroup made again. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/blkiocount.h"
#include "cgroup/cgacct.h"
#include "cgroup/cgparse.h"
#include "cgroup/cgroupfs.h"
#include "cgroup/cgstat.h"
#include "proctree/collector.h"
#include "fixture.h"
#include "openats.h"
#include "unit.h"

/* ==== cgparse ==== (each on an exact copy: ASan sees an over-read) */

static int keyed(const char *text, const char *key, uint64_t *out)
{
    char *copy = exact_copy(text, strlen(text));
    int r = pt_cgparse_keyed(copy, strlen(text), key, out);
    free(copy);
    return r;
}

START_TEST(test_keyed)
{
    const char *cpu_stat = "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 10\n"
                           "nr_throttled 3\nthrottled_usec 2500\nnr_bursts 0\nburst_usec 0\n";
    uint64_t v;
    ck_assert_int_eq(keyed(cpu_stat, "user_usec", &v), 0);
    ck_assert_uint_eq(v, 1000);
    ck_assert_int_eq(keyed(cpu_stat, "throttled_usec", &v), 0);
    ck_assert_uint_eq(v, 2500);
    /* a key is whole: "usec" is no line's key, "usage" neither */
    ck_assert_int_eq(keyed(cpu_stat, "usec", &v), -1);
    ck_assert_int_eq(keyed(cpu_stat, "usage", &v), -1);
    /* memory.events: "oom" is not "oom_kill" nor "oom_group_kill" */
    const char *events = "low 0\nhigh 7\nmax 2\noom 1\noom_kill 3\noom_group_kill 0\n";
    ck_assert_int_eq(keyed(events, "oom", &v), 0);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(keyed(events, "oom_kill", &v), 0);
    ck_assert_uint_eq(v, 3);
    /* the last line without its newline; a value that is no number */
    ck_assert_int_eq(keyed("a 1\nb 22", "b", &v), 0);
    ck_assert_uint_eq(v, 22);
    ck_assert_int_eq(keyed("a x1\n", "a", &v), -1);
    ck_assert_int_eq(keyed("a 1x\n", "a", &v), -1);
    ck_assert_int_eq(keyed("", "a", &v), -1);
    /* clamped: what no cgroup can reach */
    ck_assert_int_eq(keyed("a 99999999999999999999999\n", "a", &v), 0);
    ck_assert_uint_eq(v, PT_MAX_COUNT);
    /* 20 digits that would wrap 2^64 if multiplied on (found by fuzz_cgparse) */
    ck_assert_int_eq(keyed("a 36893488147419103232\n", "a", &v), 0);
    ck_assert_uint_eq(v, PT_MAX_COUNT);
    ck_assert_int_eq(keyed("a 4611686018427387903\n", "a", &v), 0); /* 2^62 - 1: kept */
    ck_assert_uint_eq(v, PT_MAX_COUNT - 1);
}
END_TEST

START_TEST(test_single)
{
    uint64_t v;
    ck_assert_int_eq(pt_cgparse_single(TEXT("209715200\n"), &v), 0);
    ck_assert_uint_eq(v, 209715200);
    ck_assert_int_eq(pt_cgparse_single(TEXT("42"), &v), 0);
    ck_assert_uint_eq(v, 42);
    ck_assert_int_eq(pt_cgparse_single(TEXT("max\n"), &v), -1);
    ck_assert_int_eq(pt_cgparse_single(TEXT("\n"), &v), -1);
    ck_assert_int_eq(pt_cgparse_single(TEXT("1 2\n"), &v), -1);
    ck_assert_int_eq(pt_cgparse_single(TEXT("12\n\n"), &v), -1);
}
END_TEST

START_TEST(test_pressure)
{
    uint64_t some, full;
    bool has_full;
    ck_assert_int_eq(pt_cgparse_pressure(TEXT("some avg10=1.50 avg60=0.20 avg300=0.00 total=123456\n"
                                              "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n"),
                                         &some, &full, &has_full),
                     0);
    ck_assert_uint_eq(some, 123456);
    ck_assert(has_full);
    ck_assert_uint_eq(full, 789);
    /* cpu.pressure before Linux 5.13: no full line */
    ck_assert_int_eq(
        pt_cgparse_pressure(TEXT("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), &some, &full, &has_full), 0);
    ck_assert_uint_eq(some, 5);
    ck_assert(!has_full);
    /* no some line, a total that is no number */
    ck_assert_int_eq(pt_cgparse_pressure(TEXT("full avg10=0.00 total=5\n"), &some, &full, &has_full), -1);
    ck_assert_int_eq(pt_cgparse_pressure(TEXT("some avg10=0.00 total=x\n"), &some, &full, &has_full), -1);
    ck_assert_int_eq(pt_cgparse_pressure(TEXT(""), &some, &full, &has_full), -1);
}
END_TEST

START_TEST(test_io_stat)
{
    uint64_t r, w;
    ck_assert_int_eq(pt_cgparse_io_stat(TEXT("8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n"
                                             "8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=1252 dbytes=50331648 "
                                             "dios=3021\n"),
                                        &r, &w),
                     0);
    ck_assert_uint_eq(r, 1459200 + 90430464);
    ck_assert_uint_eq(w, 314773504 + 299008000);
    /* no I/O yet: an empty file */
    ck_assert_int_eq(pt_cgparse_io_stat(TEXT(""), &r, &w), 0);
    ck_assert_uint_eq(r + w, 0);
    /* "xrbytes=" is not rbytes */
    ck_assert_int_eq(pt_cgparse_io_stat(TEXT("8:0 xrbytes=5 wbytes=1\n"), &r, &w), -1);
}
END_TEST

START_TEST(test_blkio_bytes)
{
    uint64_t r, w;
    ck_assert_int_eq(pt_cgparse_blkio_bytes(TEXT("8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 12288\n8:0 Async 0\n"
                                                 "8:0 Discard 0\n8:0 Total 12288\n8:16 Read 100\n8:16 Write 0\n"
                                                 "Total 12388\n"),
                                            &r, &w),
                     0);
    ck_assert_uint_eq(r, 4196);
    ck_assert_uint_eq(w, 8192);
    ck_assert_int_eq(pt_cgparse_blkio_bytes(TEXT("Total 0\n"), &r, &w), 0);
    ck_assert_uint_eq(r + w, 0);
    ck_assert_int_eq(pt_cgparse_blkio_bytes(TEXT("8:0 Read 4x\n"), &r, &w), -1);
    /* a line shorter than "Total " (found by fuzz_cgparse: an over-read) */
    char *short_line = exact_copy("a b", 3);
    ck_assert_int_eq(pt_cgparse_blkio_bytes(short_line, 3, &r, &w), 0);
    free(short_line);
}
END_TEST

/* The root's file of a disk-less v1 blkio, or of a kernel that counts
 * none of its disks ("Total 0"), against one that counts a disk: lines
 * for it, zeros or not. */
START_TEST(test_blkio_lists_device)
{
    ck_assert(!pt_cgparse_blkio_lists_device(TEXT("Total 0\n")));
    ck_assert(!pt_cgparse_blkio_lists_device(TEXT("")));
    ck_assert(pt_cgparse_blkio_lists_device(TEXT("254:0 Read 0\n254:0 Write 0\n254:0 Sync 0\n254:0 Async 0\n"
                                                 "254:0 Discard 0\n254:0 Total 0\nTotal 0\n")));
    ck_assert(pt_cgparse_blkio_lists_device(TEXT("Total 0\n8:16 Read 4096\n")));
    /* no device: a number alone, no minor, letters, no space after it */
    ck_assert(!pt_cgparse_blkio_lists_device(TEXT("8 Read 1\n8: Read 1\nx:0 Read 1\n8:0\n8:0x Read 1\n")));
    char *cut = exact_copy("8:0 Read", 4); /* "8:0 " */
    ck_assert(pt_cgparse_blkio_lists_device(cut, 4));
    ck_assert(!pt_cgparse_blkio_lists_device(cut, 3)); /* "8:0": nothing after it */
    free(cut);
}
END_TEST

/* ==== cgstat and cgacct on fixture cgroups ==== */

static char *root;

static void setup(void)
{
    root = fx_root_new();
}

static void teardown(void)
{
    fx_root_free(root);
}

static void put(const char *rel, const char *content)
{
    fx_write(root, rel, content, -1);
}

static struct pt_cgroup_dirs dirs_of(const char *v2, const char *memory)
{
    struct pt_cgroup_dirs d;
    memset(&d, 0, sizeof(d));
    if (v2)
        snprintf(d.v2, sizeof(d.v2), "%s/%s", root, v2);
    if (memory)
        snprintf(d.v1[PT_V1_MEMORY], sizeof(d.v1[PT_V1_MEMORY]), "%s/%s", root, memory);
    return d;
}

#define BIT(q) (1u << (q))

/* Every quantity of a full v2 cgroup from its v2 file; memory.peak
 * written through our own descriptor is taken as reset per descriptor
 * (the kernel's since 6.12; a fixture file takes the write too), so the
 * peak is the interval's. */
START_TEST(test_v2_everything)
{
    fx_put_cgroup_v2(root, "cg", 700, 1000, 5000);
    struct pt_cgroup_dirs dirs = dirs_of("cg", NULL);
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_cgstat_open(&s, &dirs, NULL, &buf), 0);
    ck_assert(s.peak_resets);
    uint32_t all = BIT(PT_CGQ_COUNT) - 1;
    ck_assert_uint_eq(s.offered, all & ~BIT(PT_CGQ_MEMORY_PEAK_LIFETIME));
    /* the peak through the kept descriptor: after the open's reset, what
     * the kernel would show since (the test writes it, as the kernel would) */
    put("cg/memory.peak", "3000\n");
    ck_assert_int_eq(pt_cgstat_read(&s, &buf), 0);
    ck_assert(s.read & BIT(PT_CGQ_MEMORY_PEAK));
    ck_assert(!(s.read & BIT(PT_CGQ_MEMORY_PEAK_LIFETIME)));
    ck_assert_uint_eq(s.value[PT_CGQ_MEMORY_PEAK], 3000);
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_USER_US], 700);
    ck_assert_uint_eq(s.value[PT_CGQ_THROTTLED_US], 300);
    ck_assert_uint_eq(s.value[PT_CGQ_THROTTLED_PERIODS], 2);
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_SOME_US], 1000);
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_FULL_US], 400);
    ck_assert_uint_eq(s.value[PT_CGQ_MEMORY_SOME_US], 20);
    ck_assert_uint_eq(s.value[PT_CGQ_OOMS], 1);
    ck_assert_uint_eq(s.value[PT_CGQ_OOM_KILLS], 1);
    ck_assert_uint_eq(s.value[PT_CGQ_HIGH_EVENTS], 5);
    ck_assert_uint_eq(s.value[PT_CGQ_MAX_EVENTS], 1);
    ck_assert_uint_eq(s.value[PT_CGQ_IO_READ_BYTES], 4096);
    ck_assert_uint_eq(s.value[PT_CGQ_PIDS], 3);
    uint64_t current;
    ck_assert_int_eq(pt_cgstat_read_current(&s, &buf, &current), 0);
    ck_assert_uint_eq(current, 1000);
    pt_cgstat_close(&s);
    pt_buf_free(&buf);
}
END_TEST

/* What test_v2_peak_without_reset checks, as one who may not write
 * memory.peak: 0, or the number of the check that failed. */
static int lifetime_peak_checks(void)
{
    struct pt_cgroup_dirs dirs = dirs_of("cg", NULL);
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    if (pt_cgstat_open(&s, &dirs, NULL, &buf) != 0)
        return 1;
    int failed = s.peak_resets                                     ? 2
                 : !(s.offered & BIT(PT_CGQ_MEMORY_PEAK_LIFETIME)) ? 3
                 : s.offered & BIT(PT_CGQ_MEMORY_PEAK)             ? 4
                 : s.value[PT_CGQ_MEMORY_PEAK_LIFETIME] != 5000    ? 5
                 : pt_cgstat_read(&s, &buf) != 0                   ? 6
                 : s.value[PT_CGQ_MEMORY_PEAK_LIFETIME] != 5000    ? 7
                                                                   : 0;
    pt_cgstat_close(&s);
    pt_buf_free(&buf);
    return failed;
}

/* A memory.peak our descriptor cannot write (a kernel before 6.12 has
 * it read-only; here: a file we may not write): the lifetime peak, under
 * its own name, read again unchanged (nothing written). Root writes a
 * 0444 file, so root runs the checks in a child as nobody. */
START_TEST(test_v2_peak_without_reset)
{
    fx_put_cgroup_v2(root, "cg", 700, 1000, 5000);
    char path[512];
    snprintf(path, sizeof(path), "%s/cg/memory.peak", root);
    ck_assert_int_eq(chmod(path, 0444), 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(lifetime_peak_checks(), 0);
        return;
    }
    snprintf(path, sizeof(path), "%s/cg", root);
    ck_assert_int_eq(chmod(root, 0755), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
            _exit(100);
        _exit(lifetime_peak_checks());
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "check %d failed as nobody",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

/* This host's kind: v2 without controllers (cpu.stat's usage only, and
 * PSI), the memory controller on v1. Each quantity from where the kernel
 * has it: CPU and stalls from v2, memory from v1 (the lifetime peak, never
 * written), and what neither has is not offered. */
START_TEST(test_hybrid_v2_and_v1)
{
    put("cg/cgroup.procs", "");
    put("cg/cpu.stat", "usage_usec 900\nuser_usec 600\nsystem_usec 300\n");
    put("cg/cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=77\n"
                           "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    put("mem/cgroup.procs", "");
    put("mem/memory.usage_in_bytes", "2048\n");
    put("mem/memory.max_usage_in_bytes", "9999\n");
    put("mem/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    struct pt_cgroup_dirs dirs = dirs_of("cg", "mem");
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_cgstat_open(&s, &dirs, NULL, &buf), 0);
    ck_assert_uint_eq(s.offered, BIT(PT_CGQ_CPU_USER_US) | BIT(PT_CGQ_CPU_SYSTEM_US) | BIT(PT_CGQ_CPU_SOME_US) |
                                     BIT(PT_CGQ_CPU_FULL_US) | BIT(PT_CGQ_MEMORY_CURRENT) |
                                     BIT(PT_CGQ_MEMORY_PEAK_LIFETIME) | BIT(PT_CGQ_OOM_KILLS));
    ck_assert_uint_eq(s.value[PT_CGQ_OOM_KILLS], 2);
    ck_assert_uint_eq(s.value[PT_CGQ_MEMORY_PEAK_LIFETIME], 9999);
    pt_cgstat_close(&s);
    /* the v1 peak is read, never written: a write would reset it for everyone */
    char text[64] = "", path[600];
    snprintf(path, sizeof(path), "%s/memory.max_usage_in_bytes", dirs.v1[PT_V1_MEMORY]);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(text, sizeof(text), f));
    fclose(f);
    ck_assert_str_eq(text, "9999\n");
    pt_buf_free(&buf);
}
END_TEST

/* A v2 file first, its v1 twin only for what the v2 one lacks: v2's
 * cpu.stat without the cpu controller has no throttling, v1's cpu.stat
 * has it (in ns); v2's usage is kept over v1's cpuacct. */
START_TEST(test_v2_first_then_v1)
{
    put("cg/cgroup.procs", "");
    put("cg/cpu.stat", "usage_usec 900\nuser_usec 600\nsystem_usec 300\n");
    put("cpu/cgroup.procs", "");
    put("cpu/cpu.stat", "nr_periods 10\nnr_throttled 4\nthrottled_time 5000000\n");
    put("cpu/cpuacct.usage_user", "999999000\n");
    struct pt_cgroup_dirs dirs = dirs_of("cg", NULL);
    snprintf(dirs.v1[PT_V1_CPU], sizeof(dirs.v1[PT_V1_CPU]), "%s/cpu", root);
    snprintf(dirs.v1[PT_V1_CPUACCT], sizeof(dirs.v1[PT_V1_CPUACCT]), "%s/cpu", root);
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_cgstat_open(&s, &dirs, NULL, &buf), 0);
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_USER_US], 600);
    ck_assert_uint_eq(s.value[PT_CGQ_THROTTLED_US], 5000);
    ck_assert_uint_eq(s.value[PT_CGQ_THROTTLED_PERIODS], 4);
    pt_cgstat_close(&s);
    pt_buf_free(&buf);
}
END_TEST

/* Every file there at the open is kept: read again through its
 * descriptor (here: with the directory moved away, no path leads to
 * it), each descriptor counted in the budget (memory in use as a hot
 * one) and given back at the close. */
START_TEST(test_files_kept_open)
{
    fx_put_cgroup_v2(root, "cg", 700, 1000, 5000);
    struct pt_cgroup_dirs dirs = dirs_of("cg", NULL);
    struct pt_fd_budget budget = {.limit = 100};
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_cgstat_open(&s, &dirs, &budget, &buf), 0);
    ck_assert_uint_eq(budget.kept, 7 + 2); /* the seven v2 files, memory.current and memory.peak */
    ck_assert_uint_eq(budget.by_rank[PT_FD_OTHER], 7 + 1);
    char from[600], to[600];
    snprintf(from, sizeof(from), "%s/cg", root);
    snprintf(to, sizeof(to), "%s/moved", root);
    ck_assert_int_eq(rename(from, to), 0);
    fx_write(root, "moved/cpu.stat", "usage_usec 0\nuser_usec 900\nsystem_usec 0\n", -1);
    fx_write(root, "moved/pids.current", "9\n", -1);
    fx_write(root, "moved/memory.current", "2000\n", -1);
    ck_assert_int_eq(pt_cgstat_read(&s, &buf), 0);
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_USER_US], 900);
    ck_assert_uint_eq(s.value[PT_CGQ_PIDS], 9);
    ck_assert_uint_eq(s.value[PT_CGQ_MEMORY_CURRENT], 2000);
    pt_cgstat_close(&s);
    ck_assert_uint_eq(budget.kept, 0);
    ck_assert_uint_eq(budget.by_rank[PT_FD_OTHER], 0);
    pt_buf_free(&buf);
}
END_TEST

/* A file not there at the open is not looked for at each read (the
 * looks again of cgacct find it); past the budget a file is read by its
 * path, the same numbers, and nothing is kept beyond it. */
START_TEST(test_files_absent_and_past_the_budget)
{
    fx_put_cgroup_v2(root, "cg", 700, 1000, 5000);
    char path[600];
    snprintf(path, sizeof(path), "%s/cg/pids.current", root);
    ck_assert_int_eq(unlink(path), 0);
    struct pt_cgroup_dirs dirs = dirs_of("cg", NULL);
    struct pt_fd_budget budget = {.limit = 4}; /* three cold ones at most */
    struct pt_cgstat s;
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_cgstat_open(&s, &dirs, &budget, &buf), 0);
    ck_assert_uint_eq(budget.kept, 4);
    ck_assert(!(s.offered & BIT(PT_CGQ_PIDS)));
    fx_write(root, "cg/pids.current", "3\n", -1);
    fx_write(root, "cg/io.stat", "8:0 rbytes=8192 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n", -1);
    ck_assert_int_eq(pt_cgstat_read(&s, &buf), 0);
    ck_assert(!(s.read & BIT(PT_CGQ_PIDS)));
    ck_assert_uint_eq(s.value[PT_CGQ_IO_READ_BYTES], 8192); /* a file past the budget, read by its path */
    ck_assert_uint_eq(s.value[PT_CGQ_CPU_USER_US], 700);
    ck_assert_uint_eq(s.value[PT_CGQ_MEMORY_CURRENT], 1000);
    ck_assert_uint_eq(budget.kept, 4);
    pt_cgstat_close(&s);
    ck_assert_uint_eq(budget.kept, 0);
    pt_buf_free(&buf);
}
END_TEST

/* What the collector said while a test listened, one line per row. */
static char said[4096];

static void keep_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    size_t used = strlen(said);
    snprintf(said + used, sizeof(said) - used, "%s\n", line);
}

static int count_said(const char *words)
{
    int n = 0;
    for (const char *p = said; (p = strstr(p, words)); p++)
        n++;
    return n;
}

/* One interval's end, memory.peak holding peak; with refuse, the
 * fixture refuses the reset's write as the kernel might (a file size
 * limit below our descriptor's offset, past which a write fails). */
static const struct pt_report *end_with_peak(struct pt_collector *c, double now, const char *peak, bool refuse)
{
    fx_write(root, "sys/fs/cgroup/svc\"x/memory.peak", peak, -1);
    struct rlimit was, low = {.rlim_cur = 1};
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
    low.rlim_max = was.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, refuse ? &low : &was), 0);
    const struct pt_batch *b = pt_collector_end_interval(c, now);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
    return &b->targets[0].report;
}

/* A memory.peak reset refused after one was taken: the interval it is
 * refused in still has its peak (the reset before it was taken), the
 * next ones the lifetime's under its own name, and one warning naming
 * the cgroup (escaped) says so, once. */
/* A collector over the fixture's /proc and /sys with one target, "svc",
 * the cgroup at path. */
static struct pt_collector *collector_of_cgroup(const char *path)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    char sys[512], err[256] = "";
    snprintf(sys, sizeof(sys), "%s/sys", root);
    config.proc_root = root;
    config.sys_root = sys;
    struct pt_collector *c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    struct pt_target_options options;
    pt_target_options_init(&options);
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = path};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &options, err, sizeof(err)) == 0, "%s", err);
    return c;
}

START_TEST(test_refused_reset_is_said_once)
{
    signal(SIGXFSZ, SIG_IGN); /* the refused write fails with EFBIG instead */
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    fx_put_cgroup_v2(root, "sys/fs/cgroup/svc\"x", 700, 1000, 5000);
    struct pt_collector *c = collector_of_cgroup("/svc\"x");
    said[0] = '\0';
    pt_log_set_sink(keep_said, NULL);
    pt_collector_tick(c, 0.0);
    const struct pt_report *r = end_with_peak(c, 1.0, "3000\n", false);
    ck_assert(r->v[PT_M_CGROUP_MEMORY_PEAK].present);
    ck_assert_int_eq(r->v[PT_M_CGROUP_MEMORY_PEAK].i, 3000);
    ck_assert_int_eq(count_said("memory.peak could not be reset"), 0);
    r = end_with_peak(c, 2.0, "4000\n", true);
    ck_assert_int_eq(r->v[PT_M_CGROUP_MEMORY_PEAK].i, 4000);
    ck_assert_msg(count_said("\"") && strstr(said, "svc\\\"x\": its memory.peak could not be reset"), "%s", said);
    for (int k = 0; k < 2; k++) {
        r = end_with_peak(c, 3.0 + k, "9000\n", k == 0);
        ck_assert(!r->v[PT_M_CGROUP_MEMORY_PEAK].present);
        ck_assert(r->v[PT_M_CGROUP_MEMORY_PEAK_LIFETIME].present);
        ck_assert_int_eq(r->v[PT_M_CGROUP_MEMORY_PEAK_LIFETIME].i, 9000);
    }
    ck_assert_msg(count_said("memory.peak could not be reset") == 1, "%s", said);
    pt_log_set_sink(NULL, NULL);
    pt_collector_free(c);
}
END_TEST

/* The cgroup svc on the fixture's v2 hierarchy, its user time user_usec
 * (fx_put_cgroup_v2), in a set of its own (no budget): what the cases of
 * one cgroup start from. */
struct one_cgroup {
    struct pt_cgroupfs fs;
    struct pt_cgacct a;
    char dir[600];
    const char *dirs[1];
};

static void one_cgroup_set(struct one_cgroup *c, unsigned user_usec)
{
    fx_put_cgroup_v2(root, "sys/fs/cgroup/svc", user_usec, 100, 500);
    put("sys/fs/cgroup/cgroup.procs", "");
    memset(c, 0, sizeof(*c));
    snprintf(c->fs.v2, sizeof(c->fs.v2), "%s/sys/fs/cgroup", root);
    pt_cgacct_init(&c->a, &c->fs, NULL);
    snprintf(c->dir, sizeof(c->dir), "%s/svc", c->fs.v2);
    c->dirs[0] = c->dir;
    pt_cgacct_set(&c->a, c->dirs, 1);
}

/* cgacct: growth per interval, never negative; memory in use from the
 * polls; a cgroup there at the first set counts from then, one made
 * again at its path (another inode) from its start; one gone reports
 * nothing; what is missing is named. */
START_TEST(test_cgacct_intervals)
{
    struct one_cgroup c;
    one_cgroup_set(&c, 1000);
    struct pt_cgacct *a = &c.a;
    const char *dir = c.dir, *const *dirs = c.dirs;
    char missing[256];
    ck_assert(pt_cgacct_missing(a, missing, sizeof(missing)));
    ck_assert_str_eq(missing, ""); /* the interval's peak stands for the lifetime's */

    put("sys/fs/cgroup/svc/memory.current", "300\n");
    pt_cgacct_poll(a);
    put("sys/fs/cgroup/svc/memory.current", "200\n");
    pt_cgacct_poll(a);
    fx_put_cgroup_v2(root, "sys/fs/cgroup/svc", 1600, 200, 700);
    struct pt_cgvalues v;
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 600); /* not the 1000 before the first set */
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_SOME_US], 0);
    ck_assert(v.known & BIT(PT_CGQ_MEMORY_CURRENT));
    ck_assert_int_eq(v.current.min, 200);
    ck_assert_int_eq(v.current.max, 300);
    ck_assert_uint_eq(v.value[PT_CGQ_MEMORY_PEAK], 700);
    ck_assert_uint_eq(v.value[PT_CGQ_PIDS], 3);

    /* made again (a restart): new inode, counts from its start */
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    fx_put_cgroup_v2(root, "sys/fs/cgroup/svc", 250, 50, 60);
    pt_cgacct_set(a, dirs, 1);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 250);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_SOME_US], 1000);
    ck_assert(!(v.known & BIT(PT_CGQ_MEMORY_CURRENT))); /* no poll since */

    /* gone: nothing known, not zeros */
    ck_assert_int_eq(system(cmd), 0);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.known, 0);
    ck_assert(!pt_cgacct_missing(a, missing, sizeof(missing))); /* none open: nothing to say yet */
    pt_cgacct_free(a);
}
END_TEST

/* pt_cgacct_bound: a cgroup's times grew over a window of reads longer
 * than the interval (its reads lagged under load); the interval reports
 * what it can hold, CPU time at most seconds x CPUs with user and system
 * in proportion, a stall at most seconds, full never above some, and the
 * rest the next interval: the totals are the kernel's. */
START_TEST(test_cgacct_times_bounded_by_the_interval)
{
    struct one_cgroup c;
    one_cgroup_set(&c, 0);
    struct pt_cgacct *a = &c.a;
    /* 0.5 s on 2 CPUs: user 1.5 s and system 0.5 s grew (2 s > 1 s);
     * some 0.8 s and full 0.6 s grew, at most 0.5 s each */
    put("sys/fs/cgroup/svc/cpu.stat", "usage_usec 2000000\nuser_usec 1500000\nsystem_usec 500100\nnr_periods 4\n"
                                      "nr_throttled 2\nthrottled_usec 300\n");
    put("sys/fs/cgroup/svc/cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=801000\n"
                                          "full avg10=0.00 avg60=0.00 avg300=0.00 total=600400\n");
    struct pt_cgvalues v;
    pt_cgacct_bound(a, 0.5, 2);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US] + v.value[PT_CGQ_CPU_SYSTEM_US], 1000000);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 750000); /* three quarters, as grown */
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_SOME_US], 500000);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_FULL_US], 500000);
    ck_assert_uint_eq(v.value[PT_CGQ_THROTTLED_US], 0);
    /* nothing grows in the next 2 s: the deferred rest comes, within it */
    pt_cgacct_bound(a, 2.0, 2);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 750000);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_SYSTEM_US], 250000);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_SOME_US], 300000);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_FULL_US], 100000);
    ck_assert_uint_le(v.value[PT_CGQ_CPU_FULL_US], v.value[PT_CGQ_CPU_SOME_US]);
    /* and nothing is left */
    pt_cgacct_bound(a, 1.0, 2);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US] + v.value[PT_CGQ_CPU_SYSTEM_US] + v.value[PT_CGQ_CPU_SOME_US], 0);
    pt_cgacct_free(a);
}
END_TEST

/* A set of cgroups on the fixture's v2 hierarchy (no budget), and the
 * paths of the cgroups a and b below its root: what the cases of two
 * cgroups start from. */
struct two_cgroups {
    struct pt_cgroupfs fs;
    struct pt_cgacct acct;
    char a[600], b[600];
};

static void two_cgroups_init(struct two_cgroups *c)
{
    memset(&c->fs, 0, sizeof(c->fs));
    snprintf(c->fs.v2, sizeof(c->fs.v2), "%s/sys/fs/cgroup", root);
    pt_cgacct_init(&c->acct, &c->fs, NULL);
    snprintf(c->a, sizeof(c->a), "%s/a", c->fs.v2);
    snprintf(c->b, sizeof(c->b), "%s/b", c->fs.v2);
}

/* Two cgroups (a glob of units): summed, a quantity known when both give
 * it; a cgroup that appears later counts whole; what neither gives is
 * named for the start line. */
START_TEST(test_cgacct_two_cgroups)
{
    put("sys/fs/cgroup/cgroup.procs", "");
    put("sys/fs/cgroup/a/cgroup.procs", "");
    put("sys/fs/cgroup/a/cpu.stat", "usage_usec 10\nuser_usec 10\nsystem_usec 0\n");
    put("sys/fs/cgroup/a/pids.current", "2\n");
    struct two_cgroups c;
    two_cgroups_init(&c);
    struct pt_cgacct *a = &c.acct;
    const char *da = c.a, *db = c.b;
    const char *one[] = {da}, *two[] = {da, db};
    pt_cgacct_set(a, one, 1);
    char missing[512];
    ck_assert(pt_cgacct_missing(a, missing, sizeof(missing)));
    ck_assert_msg(strstr(missing, "cpu.pressure") && strstr(missing, "memory.current") &&
                      !strstr(missing, "user_usec") && !strstr(missing, "pids.current"),
                  "%s", missing);
    put("sys/fs/cgroup/b/cgroup.procs", "");
    put("sys/fs/cgroup/b/cpu.stat", "usage_usec 40\nuser_usec 40\nsystem_usec 0\n");
    pt_cgacct_set(a, two, 2);
    put("sys/fs/cgroup/a/cpu.stat", "usage_usec 15\nuser_usec 15\nsystem_usec 0\n");
    struct pt_cgvalues v;
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 5 + 40);
    ck_assert(v.known & BIT(PT_CGQ_CPU_USER_US));
    ck_assert(!(v.known & BIT(PT_CGQ_PIDS))); /* b has no pids controller */
    ck_assert_ptr_nonnull(pt_cgacct_values_of(a, db));
    ck_assert_uint_eq(pt_cgacct_values_of(a, da)->value[PT_CGQ_PIDS], 2);
    pt_cgacct_free(a);
}
END_TEST

/* cpu.stat of the fixture cgroup rel with user_usec. */
static void put_user_usec(const char *rel, unsigned user_usec)
{
    char path[256], text[160];
    snprintf(path, sizeof(path), "%s/cpu.stat", rel);
    snprintf(text, sizeof(text), "usage_usec %u\nuser_usec %u\nsystem_usec 0\n", user_usec, user_usec);
    fx_write(root, path, text, -1);
}

/* A cgroup dropped from the set while it exists (a unit of a glob no
 * longer matched, a --by cgroup line's cgroup no longer in use) is read
 * one last time: its growth since the last end is in the next one, what
 * it does after is not; it takes no gauge away from the others, is
 * reported once, then forgotten. One named again before the end (the
 * same directory inode) counts on from then, what it carried kept. */
START_TEST(test_cgacct_last_read)
{
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    fx_put_cgroup_v2(root, "sys/fs/cgroup/a", 100, 10, 10);
    fx_put_cgroup_v2(root, "sys/fs/cgroup/b", 1000, 10, 10);
    struct two_cgroups c;
    two_cgroups_init(&c);
    struct pt_cgacct *a = &c.acct;
    const char *da = c.a, *db = c.b;
    const char *both[] = {da, db}, *one[] = {da};
    pt_cgacct_set(a, both, 2);
    struct pt_cgvalues v;
    pt_cgacct_end_interval(a, &v);
    put_user_usec("sys/fs/cgroup/a", 150);
    put_user_usec("sys/fs/cgroup/b", 1030);
    pt_cgacct_set(a, one, 1);
    put_user_usec("sys/fs/cgroup/b", 5000); /* no longer the target's */
    pt_cgacct_poll(a);
    pt_cgacct_end_interval(a, &v);
    ck_assert(v.known & BIT(PT_CGQ_CPU_USER_US));
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 50 + 30);
    ck_assert(v.known & BIT(PT_CGQ_PIDS));
    ck_assert_uint_eq(v.value[PT_CGQ_PIDS], 3); /* a's alone */
    ck_assert(v.known & BIT(PT_CGQ_MEMORY_CURRENT));
    ck_assert_ptr_nonnull(pt_cgacct_values_of(a, db));
    ck_assert_uint_eq(pt_cgacct_values_of(a, db)->value[PT_CGQ_CPU_USER_US], 30);
    pt_cgacct_end_interval(a, &v);
    ck_assert_ptr_null(pt_cgacct_values_of(a, db));

    /* dropped, then named again before the end */
    pt_cgacct_set(a, both, 2); /* b counts whole: it appeared after the first set */
    pt_cgacct_end_interval(a, &v);
    put_user_usec("sys/fs/cgroup/b", 5010);
    pt_cgacct_set(a, one, 1);
    put_user_usec("sys/fs/cgroup/b", 5100); /* while it is out */
    pt_cgacct_set(a, both, 2);
    put_user_usec("sys/fs/cgroup/b", 5105);
    pt_cgacct_end_interval(a, &v);
    ck_assert_uint_eq(pt_cgacct_values_of(a, db)->value[PT_CGQ_CPU_USER_US], 10 + 5);

    /* b removed between a discovery and the end: a's amounts and gauges still */
    char from[700], to[700];
    snprintf(from, sizeof(from), "%s", db);
    snprintf(to, sizeof(to), "%s.removed", db);
    ck_assert_int_eq(rename(from, to), 0);
    put_user_usec("sys/fs/cgroup/a", 170);
    pt_cgacct_end_interval(a, &v);
    ck_assert(v.known & BIT(PT_CGQ_CPU_USER_US));
    ck_assert(v.known & BIT(PT_CGQ_PIDS));
    ck_assert_uint_eq(v.value[PT_CGQ_CPU_USER_US], 20);
    pt_cgacct_free(a);
}
END_TEST

/* The opens of one set of c (n of its cgroups named). */
static long opens_of_set(struct two_cgroups *c, size_t n)
{
    const char *dirs[] = {c->a, c->b};
    long before = unit_openats();
    pt_cgacct_set(&c->acct, dirs, n);
    return unit_openats() - before;
}

/* The looks again at what a cgroup lacks (every PT_CGACCT_REPROBE_SETS
 * sets) open the files it lacks and nothing else: none for a cgroup that
 * lacks nothing (b), one failed open per missing file of a (five of v2,
 * two of v1 memory whose directory is not made yet), its kept
 * descriptors the same. A file that appears is then taken, counted from
 * that look, and looked for no more; the directory of a v1 controller
 * made since is found. */
START_TEST(test_looks_again_open_only_what_is_missing)
{
    put("sys/fs/cgroup/cgroup.procs", "");
    put("sys/fs/cgroup/memory/cgroup.procs", ""); /* v1 memory's root */
    put("sys/fs/cgroup/a/cgroup.procs", "");
    put("sys/fs/cgroup/a/cpu.stat", "usage_usec 10\nuser_usec 10\nsystem_usec 0\n");
    put("sys/fs/cgroup/a/cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n");
    put("sys/fs/cgroup/a/memory.current", "100\n");
    put("sys/fs/cgroup/a/memory.peak", "200\n");
    fx_put_cgroup_v2(root, "sys/fs/cgroup/b", 700, 1000, 5000);
    struct two_cgroups c;
    two_cgroups_init(&c);
    snprintf(c.fs.v1[PT_V1_MEMORY], sizeof(c.fs.v1[PT_V1_MEMORY]), "%s/sys/fs/cgroup/memory", root);
    struct pt_fd_budget budget = {.limit = 100};
    pt_cgacct_init(&c.acct, &c.fs, &budget);
    ck_assert_int_gt(opens_of_set(&c, 2), 0);
    const struct pt_cgstat *sa = &c.acct.entries[0].stat;
    ck_assert_str_eq(c.acct.entries[0].dir, c.a);
    int kept[PT_CGSTAT_FILES + 2];
    memcpy(kept, sa->fd, sizeof(sa->fd));
    kept[PT_CGSTAT_FILES] = sa->current_fd;
    kept[PT_CGSTAT_FILES + 1] = sa->peak_fd;
    size_t kept_then = budget.kept;
    for (int k = 1; k < PT_CGACCT_REPROBE_SETS; k++)
        ck_assert_int_eq(opens_of_set(&c, 2), 0);
    ck_assert_int_eq(opens_of_set(&c, 2), 5 + 2); /* the look */
    ck_assert_int_eq(memcmp(kept, sa->fd, sizeof(sa->fd)), 0);
    ck_assert_int_eq(kept[PT_CGSTAT_FILES], sa->current_fd);
    ck_assert_int_eq(kept[PT_CGSTAT_FILES + 1], sa->peak_fd);
    ck_assert_uint_eq(budget.kept, kept_then);
    char gained[256];
    ck_assert(!pt_cgacct_gained(&c.acct, gained, sizeof(gained)));

    /* io.stat appears, and v1 memory's directory with its oom_control */
    put("sys/fs/cgroup/a/io.stat", "8:0 rbytes=100 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    put("sys/fs/cgroup/memory/a/cgroup.procs", "");
    put("sys/fs/cgroup/memory/a/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    for (int k = 1; k < PT_CGACCT_REPROBE_SETS; k++)
        ck_assert_int_eq(opens_of_set(&c, 2), 0);
    ck_assert_int_eq(opens_of_set(&c, 2), 5 + 2);
    for (int i = 0; i < PT_CGSTAT_FILES; i++)
        ck_assert(kept[i] < 0 || kept[i] == sa->fd[i]); /* the two found kept beside */
    ck_assert_uint_eq(budget.kept, kept_then + 2);
    ck_assert(pt_cgacct_gained(&c.acct, gained, sizeof(gained)));
    ck_assert_msg(strstr(gained, "io.stat") && strstr(gained, "memory.events oom_kill"), "%s", gained);
    put("sys/fs/cgroup/a/io.stat", "8:0 rbytes=160 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    put("sys/fs/cgroup/memory/a/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
    struct pt_cgvalues v;
    pt_cgacct_end_interval(&c.acct, &v);
    const struct pt_cgvalues *va = pt_cgacct_values_of(&c.acct, c.a);
    ck_assert(va->known & BIT(PT_CGQ_IO_READ_BYTES));
    ck_assert_uint_eq(va->value[PT_CGQ_IO_READ_BYTES], 60); /* from the look */
    ck_assert_uint_eq(va->value[PT_CGQ_OOM_KILLS], 1);
    for (int k = 1; k < PT_CGACCT_REPROBE_SETS; k++)
        ck_assert_int_eq(opens_of_set(&c, 2), 0);
    ck_assert_int_eq(opens_of_set(&c, 2), 4 + 1); /* what is still missing */
    pt_cgacct_free(&c.acct);
}
END_TEST

/* ==== v1 blkio that counts nothing ==== */

/* A hybrid fixture below root/sys/fs/cgroup: v2 at unified (without
 * io.stat, as on a host whose io controller is on v1) and v1 blkio,
 * whose root's blkio.throttle.io_service_bytes is root_file, with the
 * cgroup svc in both. svc's own blkio file reads 4096 and 8192 bytes: no
 * kernel that counts nothing would show them, so a value of its that
 * reached a line would be a read of a file set aside. */
static void put_hybrid_blkio(const char *root_file)
{
    put("sys/fs/cgroup/unified/cgroup.procs", "");
    fx_put_cgroup_v2(root, "sys/fs/cgroup/unified/svc", 700, 1000, 5000);
    char path[600];
    snprintf(path, sizeof(path), "%s/sys/fs/cgroup/unified/svc/io.stat", root);
    ck_assert_int_eq(unlink(path), 0);
    put("sys/fs/cgroup/blkio/cgroup.procs", "");
    put("sys/fs/cgroup/blkio/cgroup.sane_behavior", "0\n");
    put("sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes", root_file);
    put("sys/fs/cgroup/blkio/svc/cgroup.procs", "");
    put("sys/fs/cgroup/blkio/svc/blkio.throttle.io_service_bytes",
        "8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 0\n8:0 Async 12288\n8:0 Total 12288\nTotal 12288\n");
}

static const char counts_none[] = "Total 0\n";
static const char counts_8_0[] = "8:0 Read 0\n8:0 Write 0\n8:0 Sync 0\n8:0 Async 0\n8:0 Total 0\nTotal 0\n";

/* Whether the hierarchy counts nothing is told by its root's file
 * alone, found from any cgroup of it; where the root is not in view (a
 * container's mount of its own cgroup: no cgroup.sane_behavior, and no
 * cgroup above) or has no such file, it cannot be told: not "nothing". */
START_TEST(test_blkiocount_from_the_root)
{
    put_hybrid_blkio(counts_none);
    put("sys/fs/cgroup/blkio/svc/deeper/cgroup.procs", "");
    char mount[600], deeper[700], found[PT_CGROUPFS_PATH_MAX];
    snprintf(mount, sizeof(mount), "%s/sys/fs/cgroup/blkio", root);
    snprintf(deeper, sizeof(deeper), "%s/svc/deeper", mount);
    struct pt_buf buf = {0};
    ck_assert(pt_blkiocount_none(mount, &buf, found, sizeof(found)));
    ck_assert_str_eq(found, mount);
    found[0] = '\0';
    ck_assert(pt_blkiocount_none(deeper, &buf, found, sizeof(found)));
    ck_assert_str_eq(found, mount);

    put("sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes", counts_8_0); /* a disk counted, zeros yet */
    ck_assert(!pt_blkiocount_none(deeper, &buf, found, sizeof(found)));

    /* a mount of a cgroup below the root: its file says what it did, not what the kernel counts */
    put("ctr/blkio/cgroup.procs", "");
    put("ctr/blkio/blkio.throttle.io_service_bytes", counts_none);
    char ctr[600];
    snprintf(ctr, sizeof(ctr), "%s/ctr/blkio", root);
    ck_assert(!pt_blkiocount_none(ctr, &buf, found, sizeof(found)));
    /* no throttle files at all (CONFIG_BLK_DEV_THROTTLING off) */
    char file[700];
    snprintf(file, sizeof(file), "%s/blkio.throttle.io_service_bytes", mount);
    ck_assert_int_eq(unlink(file), 0);
    ck_assert(!pt_blkiocount_none(deeper, &buf, found, sizeof(found)));
    pt_buf_free(&buf);
}
END_TEST

/* A cgroup whose v1 blkio counts nothing: its blkio file is set aside
 * (its 4096 bytes never read), cgroup_io_* not offered, and left to
 * pt_cgacct_blkio_uncounted, not to the start line's list; a cgroup with
 * no blkio directory lacks them the ordinary way. Once a limit switches
 * the counting on, the look again takes the file, counting from then. */
START_TEST(test_cgacct_blkio_set_aside)
{
    put_hybrid_blkio(counts_none);
    put("sys/fs/cgroup/unified/plain/cgroup.procs", "");
    put("sys/fs/cgroup/unified/plain/cpu.stat", "usage_usec 10\nuser_usec 10\nsystem_usec 0\n");
    struct pt_cgroupfs fs;
    memset(&fs, 0, sizeof(fs));
    snprintf(fs.v2, sizeof(fs.v2), "%s/sys/fs/cgroup/unified", root);
    snprintf(fs.v1[PT_V1_BLKIO], sizeof(fs.v1[PT_V1_BLKIO]), "%s/sys/fs/cgroup/blkio", root);
    char svc[600], plain[600];
    snprintf(svc, sizeof(svc), "%s/svc", fs.v2);
    snprintf(plain, sizeof(plain), "%s/plain", fs.v2);
    const char *dirs[] = {svc, plain};
    const uint32_t io = BIT(PT_CGQ_IO_READ_BYTES) | BIT(PT_CGQ_IO_WRITE_BYTES);
    char missing[256];

    /* plain alone: no blkio directory, nothing set aside */
    struct pt_cgacct a;
    pt_cgacct_init(&a, &fs, NULL);
    ck_assert(a.blkio_none);
    pt_cgacct_set(&a, dirs + 1, 1);
    ck_assert_ptr_null(pt_cgacct_blkio_uncounted(&a));
    ck_assert(pt_cgacct_missing(&a, missing, sizeof(missing)));
    ck_assert_msg(strstr(missing, "io.stat"), "%s", missing);
    pt_cgacct_free(&a);

    pt_cgacct_init(&a, &fs, NULL);
    pt_cgacct_set(&a, dirs, 1);
    const struct pt_cgstat *s = &a.entries[0].stat;
    ck_assert(s->offered & BIT(PT_CGQ_CPU_USER_US));
    ck_assert_uint_eq(s->offered & io, 0);
    ck_assert_str_eq(s->dirs.v1[PT_V1_BLKIO], "");
    ck_assert_ptr_nonnull(pt_cgacct_blkio_uncounted(&a));
    ck_assert_str_eq(pt_cgacct_blkio_uncounted(&a), fs.v1[PT_V1_BLKIO]);
    ck_assert(pt_cgacct_missing(&a, missing, sizeof(missing)));
    ck_assert_msg(!strstr(missing, "io.stat"), "%s", missing); /* said apart */
    struct pt_cgvalues v;
    pt_cgacct_end_interval(&a, &v);
    ck_assert(v.known & BIT(PT_CGQ_CPU_USER_US));
    ck_assert_uint_eq(v.known & io, 0);

    /* still nothing at the look: still set aside */
    for (int k = 0; k < PT_CGACCT_REPROBE_SETS; k++)
        pt_cgacct_set(&a, dirs, 1);
    char gained[256];
    ck_assert(!pt_cgacct_gained(&a, gained, sizeof(gained)));
    ck_assert_ptr_nonnull(pt_cgacct_blkio_uncounted(&a));

    /* a limit written for disk 8:0: counted from the next look on */
    put("sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes", counts_8_0);
    for (int k = 0; k < PT_CGACCT_REPROBE_SETS; k++)
        pt_cgacct_set(&a, dirs, 1);
    ck_assert(pt_cgacct_gained(&a, gained, sizeof(gained)));
    ck_assert_msg(strstr(gained, "io.stat"), "%s", gained);
    ck_assert_ptr_null(pt_cgacct_blkio_uncounted(&a));
    ck_assert_uint_eq(s->offered & io, io);
    put("sys/fs/cgroup/blkio/svc/blkio.throttle.io_service_bytes",
        "8:0 Read 5096\n8:0 Write 8192\n8:0 Total 13288\nTotal 13288\n");
    pt_cgacct_end_interval(&a, &v);
    ck_assert_uint_eq(v.known & io, io);
    ck_assert_uint_eq(v.value[PT_CGQ_IO_READ_BYTES], 1000); /* from the look */
    ck_assert_uint_eq(v.value[PT_CGQ_IO_WRITE_BYTES], 0);
    pt_cgacct_free(&a);
}
END_TEST

/* Through the collector, as proctree-execd runs it on a hybrid host
 * whose v1 blkio counts nothing: the target's lines lack cgroup_io_*
 * and keep the rest, and one line, once, says why, naming the root's
 * file; the start line's list of what is missing does not name io.stat. */
START_TEST(test_blkio_uncounted_is_said_once)
{
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
    put_hybrid_blkio(counts_none);
    struct pt_collector *c = collector_of_cgroup("/svc");
    said[0] = '\0';
    pt_log_set_sink(keep_said, NULL);
    for (int k = 0; k < 3; k++) {
        pt_collector_tick(c, k);
        const struct pt_report *r = &pt_collector_end_interval(c, k + 1.0)->targets[0].report;
        ck_assert(r->v[PT_M_CGROUP_CPU_USER_SECONDS].present);
        ck_assert(r->v[PT_M_CGROUP_MEMORY_CURRENT_MAX].present);
        ck_assert(!r->v[PT_M_CGROUP_IO_READ_BYTES].present);
        ck_assert(!r->v[PT_M_CGROUP_IO_WRITE_BYTES].present);
    }
    pt_log_set_sink(NULL, NULL);
    ck_assert_msg(count_said("blkio.throttle.io_service_bytes\" lists no disk") == 1, "%s", said);
    ck_assert_msg(strstr(said, "/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes"), "%s", said);
    ck_assert_msg(count_said("cgroup_io_read_bytes and cgroup_io_write_bytes are left out") == 1, "%s", said);
    ck_assert_msg(count_said("io.stat") == 0, "%s", said);
    pt_collector_free(c);
}
END_TEST

/* ==== cgroupfs: our own cgroup as our own mounts show it ==== */

/* The mountinfo of a container with a private cgroup namespace and the
 * host's /sys mounted at /hostfs/sys (its cgroup mounts first, shown from
 * above our namespace's root, writable), then its own read-only ones. */
static const char container_mounts[] =
    "82 78 0:32 /../.. /hostfs/sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "88 78 0:38 /../.. /hostfs/sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "99 95 0:32 / /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
    "100 95 0:30 / /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n";

START_TEST(test_own_dir_in_a_container)
{
    char dir[PT_CGROUPFS_PATH_MAX];
    /* never the host's mount, whose root lies above ours */
    ck_assert_int_eq(pt_cgroupfs_own_dir(container_mounts, "memory", "/", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/sys/fs/cgroup/memory");
    ck_assert_int_eq(pt_cgroupfs_own_dir(container_mounts, "memory", "/job/a", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/sys/fs/cgroup/memory/job/a");
    /* a controller named whole in the super options */
    ck_assert_int_eq(pt_cgroupfs_own_dir(container_mounts, "cpuacct", "/", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/sys/fs/cgroup/cpu,cpuacct");
    ck_assert_int_eq(pt_cgroupfs_own_dir(container_mounts, "cpuac", "/", NULL, dir, sizeof(dir)), -1);
    /* v2 is only the host's here: none */
    ck_assert_int_eq(pt_cgroupfs_own_dir(container_mounts, NULL, "/", NULL, dir, sizeof(dir)), -1);
    ck_assert(pt_cgroupfs_shows_part(container_mounts));
}
END_TEST

START_TEST(test_own_dir_roots_and_exclusions)
{
    /* a host cgroup namespace: the container's own cgroup bind-mounted
     * (its root is our path), and the host's whole tree below HOST_SYS */
    const char *mounts = "30 22 0:26 / /hostfs/sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
                         "31 22 0:26 /machine/ctr /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
                         "32 22 0:26 / /mnt/with\\040space rw - cgroup2 cgroup2 rw\n";
    char dir[PT_CGROUPFS_PATH_MAX];
    /* the longest root that holds the path */
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/machine/ctr", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/sys/fs/cgroup");
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/machine/ctr/sub", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/sys/fs/cgroup/sub");
    /* "/machine/ctrl" is not below "/machine/ctr" */
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/machine/ctrl", NULL, dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/hostfs/sys/fs/cgroup/unified/machine/ctrl");
    /* nothing below the host's /sys, when told */
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/machine/ctrl", "/hostfs/sys", dir, sizeof(dir)), 0);
    ck_assert_str_eq(dir, "/mnt/with space/machine/ctrl");
    /* too long for out: that mount does not count */
    char small[20];
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/machine/ctr/sub", NULL, small, sizeof(small)), 0);
    ck_assert_str_eq(small, "/sys/fs/cgroup/sub");
    ck_assert_int_eq(pt_cgroupfs_own_dir(mounts, NULL, "/a/very/long/path", "/hostfs", small, sizeof(small)), -1);
    ck_assert(pt_cgroupfs_shows_part(mounts));
    ck_assert(!pt_cgroupfs_shows_part("30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
                                      "40 22 0:5 /x /y rw - tmpfs tmpfs rw\n"));
    /* malformed lines are skipped, never read past */
    ck_assert_int_eq(
        pt_cgroupfs_own_dir("garbage\n1 2 3 - cgroup2\n- cgroup2 x y\n", NULL, "/", NULL, dir, sizeof(dir)), -1);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("cgroup");
    TCase *tc = unit_tcase(suite, "cgparse");
    tcase_add_test(tc, test_keyed);
    tcase_add_test(tc, test_single);
    tcase_add_test(tc, test_pressure);
    tcase_add_test(tc, test_io_stat);
    tcase_add_test(tc, test_blkio_bytes);
    tcase_add_test(tc, test_blkio_lists_device);
    tc = unit_tcase(suite, "cgstat");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_v2_everything);
    tcase_add_test(tc, test_v2_peak_without_reset);
    tcase_add_test(tc, test_hybrid_v2_and_v1);
    tcase_add_test(tc, test_v2_first_then_v1);
    tcase_add_test(tc, test_files_kept_open);
    tcase_add_test(tc, test_files_absent_and_past_the_budget);
    tcase_add_test(tc, test_refused_reset_is_said_once);
    tcase_add_test(tc, test_cgacct_intervals);
    /* in the fixture's temp tree: without it the files it writes land in
     * "(null)/sys/..." under the current directory */
    tcase_add_test(tc, test_cgacct_times_bounded_by_the_interval);
    tcase_add_test(tc, test_cgacct_two_cgroups);
    tcase_add_test(tc, test_cgacct_last_read);
    tcase_add_test(tc, test_looks_again_open_only_what_is_missing);
    tcase_add_test(tc, test_blkiocount_from_the_root);
    tcase_add_test(tc, test_cgacct_blkio_set_aside);
    tcase_add_test(tc, test_blkio_uncounted_is_said_once);
    tc = unit_tcase(suite, "cgroupfs");
    tcase_add_test(tc, test_own_dir_in_a_container);
    tcase_add_test(tc, test_own_dir_roots_and_exclusions);
    return unit_run(suite);
}
