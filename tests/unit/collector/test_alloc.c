/* No heap allocation in the steady state: once a tree has been seen and
 * the buffers have grown to fit, polls, discovery walks and interval
 * closes reuse what they have. An allocator call per poll would be a cost
 * and a failure mode (an out-of-memory in the middle of a sample) at 10
 * polls a second for every target.
 *
 * The test defines the allocator entry points itself, forwarding to
 * glibc's: glibc lets a program replace malloc, and its own functions
 * (opendir, regexec, ...) then call the replacement too, so every call
 * made on the library's behalf is counted. (Not under the sanitizers,
 * which replace the allocator themselves.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/collector.h"
#include "fixture.h"
#include "unit.h"

static long allocations;

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

void *malloc(size_t size)
{
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    allocations++;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    allocations++;
    return __libc_realloc(p, size);
}

static void put_status(const char *root, pid_t pid, int threads)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/status", (int)pid);
    snprintf(text, sizeof(text),
             "Name:\tproc\nUid:\t0\t0\t0\t0\nThreads:\t%d\nvoluntary_ctxt_switches:\t7\n"
             "nonvoluntary_ctxt_switches:\t1\n",
             threads);
    fx_write(root, rel, text, -1);
}

/* A root with three children, one of them with two threads, every file
 * there; and a --match target beside the --pid one, which breaks its
 * tree down by process name (two names). */
static void write_tree(const char *root)
{
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
    const char *children[] = {"101 102 103", "", "", ""};
    for (pid_t pid = 100; pid <= 103; pid++) {
        struct fx_proc p = {.pid = pid,
                            .ppid = pid == 100 ? 1 : 100,
                            .starttime = (uint64_t)pid,
                            .num_threads = pid == 102 ? 2 : 1,
                            .resident_pages = 10,
                            .size_pages = 40,
                            .children = children[pid - 100],
                            .comm = pid == 100 ? "sh" : "worker",
                            .pss_kb = 4};
        fx_put_proc(root, &p);
        put_status(root, pid, (int)p.num_threads);
        char rel[64];
        snprintf(rel, sizeof(rel), "%d/fd/0", (int)pid);
        fx_write(root, rel, "", 0);
        snprintf(rel, sizeof(rel), "%d/cmdline", (int)pid);
        fx_write(root, rel, "worker\0--flag\0", 14);
    }
    fx_write(root, "102/task/1020/status",
             "Name:\tproc\nUid:\t0\t0\t0\t0\nvoluntary_ctxt_switches:\t3\nnonvoluntary_ctxt_switches:\t0\n", -1);
    fx_write(root, "102/task/1020/children", "", 0);
    fx_write(root, "102/task/102/status",
             "Name:\tproc\nUid:\t0\t0\t0\t0\nvoluntary_ctxt_switches:\t4\nnonvoluntary_ctxt_switches:\t1\n", -1);
    struct fx_proc main_thread = {.pid = 102, .comm = "worker", .utime = 5}, gc = {.pid = 1020, .comm = "gc"};
    fx_put_thread(root, 102, &main_thread);
    fx_put_thread(root, 102, &gc);
}

/* A collector on the fixture at root (its sys_root too, when sys). */
static struct pt_collector *collector_on(const char *root, bool sys)
{
    static char sys_root[512];
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
    config.sys_root = sys ? sys_root : NULL;
    char err[256] = "";
    struct pt_collector *c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

/* Three intervals of 10 polls each to warm up (the first discovery,
 * polls and closes size every buffer), then the allocator calls of five
 * more: 50 polls, 5 discoveries and 5 closes. Each interval's batch goes
 * to seen (NULL: not looked at), which reads what the test checks after
 * the window: check allocates for each assertion. */
static long steady_intervals(struct pt_collector *c, void (*seen)(const struct pt_batch *b, int interval), int n)
{
    double now = 0;
    for (int interval = 0; interval < 3; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        pt_collector_end_interval(c, now);
    }
    allocations = 0;
    for (int interval = 0; interval < n; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        const struct pt_batch *b = pt_collector_end_interval(c, now);
        if (seen)
            seen(b, interval);
    }
    return allocations;
}

static long steady_allocations(struct pt_collector *c, void (*seen)(const struct pt_batch *b, int interval))
{
    return steady_intervals(c, seen, 5);
}

static int64_t processes[10];
static size_t groups[10], thread_groups[10], title_groups[10];

static void seen_pid_targets(const struct pt_batch *b, int interval)
{
    processes[interval] = b->targets[0].report.v[PT_M_PROC_PROCESSES].i;
    groups[interval] = b->targets[2].n_groups;
    thread_groups[interval] = b->targets[3].n_groups;
    title_groups[interval] = b->targets[4].n_groups;
}

START_TEST(steady_state_allocates_nothing)
{
    char *root = fx_root_new();
    write_tree(root);
    struct pt_collector *c = collector_on(root, false);
    char err[256] = "";
    struct pt_target_options options;
    pt_target_options_init(&options);
    struct pt_selector pid = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_selector match = {.kind = PT_SELECT_MATCH, .value = "^worker"};
    ck_assert_int_eq(pt_collector_add_target(c, "pid", &pid, &options, err, sizeof(err)), 0);
    ck_assert_int_eq(pt_collector_add_target(c, "match", &match, &options, err, sizeof(err)), 0);
    options.breakdown = PT_BY_PROCESS;
    ck_assert_int_eq(pt_collector_add_target(c, "by", &pid, &options, err, sizeof(err)), 0);
    options.breakdown = PT_BY_THREAD;
    ck_assert_int_eq(pt_collector_add_target(c, "threads", &pid, &options, err, sizeof(err)), 0);
    options.breakdown = PT_BY_TITLE;
    options.title_pattern = "^(\\S+) (--\\S+)";
    ck_assert_int_eq(pt_collector_add_target(c, "titles", &pid, &options, err, sizeof(err)), 0);
    long counted = steady_allocations(c, seen_pid_targets);
    for (int interval = 0; interval < 5; interval++) {
        ck_assert_int_eq(processes[interval], 4);
        ck_assert_uint_eq(groups[interval], 2);
        ck_assert_uint_eq(thread_groups[interval], 3); /* sh, worker, gc */
        ck_assert_uint_eq(title_groups[interval], 1);  /* "worker" of "worker --flag" */
    }
    pt_collector_free(c);
    fx_root_free(root);
    ck_assert_msg(counted == 0, "%ld allocator calls in 50 polls, 5 discoveries and 5 closes", counted);
}
END_TEST

/* A cgroup of every controller whose cgroup.procs lists procs. */
static void put_cgroup(const char *root, const char *rel, const char *procs)
{
    char path[256];
    fx_put_cgroup_v2(root, rel, 600, 4096, 8192);
    snprintf(path, sizeof(path), "%s/cgroup.procs", rel);
    fx_write(root, path, procs, -1);
}

/* The tree of write_tree in systemd's layout, below a cgroup2 mount of
 * the fixture: app.service holds the root, its sub-cgroups web and db a
 * child each; app-two.service (a second match of "app*") the third,
 * which is the root's child too: every target has the four. */
static void write_cgroup_tree(const char *root)
{
    write_tree(root);
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory io pids\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    fx_write(root, "sys/fs/cgroup/system.slice/cgroup.procs", "", -1);
    put_cgroup(root, "sys/fs/cgroup/system.slice/app.service", "100\n");
    put_cgroup(root, "sys/fs/cgroup/system.slice/app.service/web", "101\n");
    put_cgroup(root, "sys/fs/cgroup/system.slice/app.service/db", "102\n");
    put_cgroup(root, "sys/fs/cgroup/system.slice/app-two.service", "103\n");
}

static bool cgroup_seen[10];

static void seen_cgroup_target(const struct pt_batch *b, int interval)
{
    processes[interval] = b->targets[0].report.v[PT_M_PROC_PROCESSES].i;
    groups[interval] = b->targets[0].n_groups;
    cgroup_seen[interval] = b->targets[0].report.v[PT_M_CGROUP_CPU_USER_SECONDS].present;
}

/* One cgroup target of the fixture, alone: its allocator calls in the
 * steady state (intervals of them), its processes, groups and cgroup_*
 * metrics each interval checked after the window. deeper: web's
 * processes one level further down (web/worker), db with an empty
 * sub-cgroup of its own (db/idle). */
static void check_cgroup_target_over(const struct pt_selector *sel, enum pt_breakdown by, size_t want_groups,
                                     int intervals, bool deeper)
{
    char *root = fx_root_new();
    write_cgroup_tree(root);
    if (deeper) {
        put_cgroup(root, "sys/fs/cgroup/system.slice/app.service/web", "");
        put_cgroup(root, "sys/fs/cgroup/system.slice/app.service/web/worker", "101\n");
        put_cgroup(root, "sys/fs/cgroup/system.slice/app.service/db/idle", "");
    }
    struct pt_collector *c = collector_on(root, true);
    struct pt_target_options options;
    pt_target_options_init(&options);
    options.breakdown = by;
    char err[256] = "";
    ck_assert_msg(pt_collector_add_target(c, "cg", sel, &options, err, sizeof(err)) == 0, "%s", err);
    long counted = steady_intervals(c, seen_cgroup_target, intervals);
    for (int interval = 0; interval < intervals; interval++) {
        ck_assert_int_eq(processes[interval], 4);
        ck_assert_uint_eq(groups[interval], want_groups);
        ck_assert(cgroup_seen[interval]);
    }
    pt_collector_free(c);
    fx_root_free(root);
    ck_assert_msg(counted == 0, "%ld allocator calls in %d polls, %d discoveries and %d closes", counted,
                  intervals * 10, intervals, intervals);
}

static void check_cgroup_target(const struct pt_selector *sel, enum pt_breakdown by, size_t want_groups)
{
    check_cgroup_target_over(sel, by, want_groups, 5, false);
}

START_TEST(cgroup_target_allocates_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/system.slice/app.service"};
    check_cgroup_target(&sel, PT_BY_NONE, 0);
}
END_TEST

/* ".", web and db: each a line with its cgroup's accounting */
START_TEST(cgroup_breakdown_allocates_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/system.slice/app.service"};
    check_cgroup_target(&sel, PT_BY_CGROUP, 3);
}
END_TEST

START_TEST(unit_target_allocates_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_UNIT, .value = "app.service"};
    check_cgroup_target(&sel, PT_BY_NONE, 0);
}
END_TEST

/* a walk of system.slice at each discovery, two units matched */
START_TEST(unit_glob_allocates_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_UNIT, .value = "app*"};
    check_cgroup_target(&sel, PT_BY_NONE, 0);
}
END_TEST

/* Sub-cgroups two levels deep, kept open (cgscan.h): ten intervals, and
 * by cgroup too */
START_TEST(cgroup_sub_cgroups_allocate_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/system.slice/app.service"};
    check_cgroup_target_over(&sel, PT_BY_NONE, 0, 10, true);
}
END_TEST

START_TEST(cgroup_sub_cgroups_breakdown_allocates_nothing)
{
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/system.slice/app.service"};
    check_cgroup_target_over(&sel, PT_BY_CGROUP, 3, 10, true);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("steady state");
    tcase_add_test(tc, steady_state_allocates_nothing);
    tcase_add_test(tc, cgroup_target_allocates_nothing);
    tcase_add_test(tc, cgroup_breakdown_allocates_nothing);
    tcase_add_test(tc, unit_target_allocates_nothing);
    tcase_add_test(tc, unit_glob_allocates_nothing);
    tcase_add_test(tc, cgroup_sub_cgroups_allocate_nothing);
    tcase_add_test(tc, cgroup_sub_cgroups_breakdown_allocates_nothing);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
