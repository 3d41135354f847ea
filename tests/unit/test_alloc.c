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

#include "collector.h"
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

START_TEST(steady_state_allocates_nothing)
{
    char *root = fx_root_new();
    write_tree(root);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    char err[256] = "";
    struct pt_collector *c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
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

    /* warm up: the first discovery, polls and closes size every buffer */
    double now = 0;
    for (int interval = 0; interval < 3; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        pt_collector_end_interval(c, now);
    }
    /* no check assertion inside the window: check allocates for each */
    int64_t processes[5];
    size_t groups[5], thread_groups[5];
    allocations = 0;
    for (int interval = 0; interval < 5; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        const struct pt_batch *b = pt_collector_end_interval(c, now);
        processes[interval] = b->targets[0].report.v[PT_M_PROC_PROCESSES].i;
        groups[interval] = b->targets[2].n_groups;
        thread_groups[interval] = b->targets[3].n_groups;
    }
    long counted = allocations;
    for (int interval = 0; interval < 5; interval++) {
        ck_assert_int_eq(processes[interval], 4);
        ck_assert_uint_eq(groups[interval], 2);
        ck_assert_uint_eq(thread_groups[interval], 3); /* sh, worker, gc */
    }
    pt_collector_free(c);
    fx_root_free(root);
    ck_assert_msg(counted == 0, "%ld allocator calls in 50 polls, 5 discoveries and 5 closes", counted);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("steady state");
    tcase_add_test(tc, steady_state_allocates_nothing);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
