/* Delay rule: the run-queue delay (schedstat, per thread of a
 * multi-threaded member) and the block-I/O delay (stat's field 42, only
 * while delay accounting is on and counts every member) grow from the last
 * interval, a root's past not counted; absent, never 0, where the kernel
 * does not give them. docs/DESIGN.md, "Cadences" (interval end);
 * docs/METRICS.md, "Time spent waiting: run-queue and block-I/O delay". */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

/* pid's (tid 0) or its thread tid's schedstat: a run-queue delay in ns. */
static void put_schedstat(pid_t pid, pid_t tid, uint64_t delay_ns)
{
    char rel[64], text[96];
    if (tid)
        snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)pid, (int)tid);
    else
        snprintf(rel, sizeof(rel), "%d/schedstat", (int)pid);
    snprintf(text, sizeof(text), "123456 %" PRIu64 " 9\n", delay_ns);
    fx_write(root, rel, text, -1);
}

/* The run-queue delay: schedstat's second field, a single-threaded
 * member's own file, each thread's of a multi-threaded one (the process
 * directory's is its main thread's alone); the growth since the last
 * interval, a root's past not counted. */
START_TEST(run_queue_delay_of_processes_and_threads)
{
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    k.num_threads = 2;
    fx_put_proc(root, &k);
    put_thread_status(101, 101, 1);
    put_thread_status(101, 1011, 1);
    put_schedstat(101, 0, 1000000);
    put_schedstat(101, 101, 1000000);
    put_schedstat(101, 1011, 3000000);
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    put_status(100, 1, 1);
    put_schedstat(100, 0, 5000000);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_CPU_DELAY_SECONDS), 0.0);
    put_schedstat(100, 0, 5000000 + 250000000);
    put_schedstat(101, 0, 999999999); /* the main thread's alone: not read */
    put_schedstat(101, 101, 1000000 + 100000000);
    put_schedstat(101, 1011, 3000000 + 50000000);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_CPU_DELAY_SECONDS), 0.4, 1e-12);
    /* without schedstat (no CONFIG_SCHED_INFO): absent, never 0 */
    char path[512];
    for (int i = 0; i < 3; i++) {
        const char *rel[] = {"100/schedstat", "101/task/101/schedstat", "101/task/1011/schedstat"};
        snprintf(path, sizeof(path), "%s/%s", root, rel[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    watch_pid(100);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert(!value(b, 0, PT_M_PROC_CPU_DELAY_SECONDS)->present);
    ck_assert(value(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY)->present);
}
END_TEST

/* A starttime (clock ticks after boot) that many seconds from now: later
 * than any reading of the sysctl a test's collector makes, whichever
 * clock the test gives it (its own from 0, or pt_now()'s at its making). */
static uint64_t ticks_after_boot_from_now(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)(((double)ts.tv_sec + seconds) * (double)sysconf(_SC_CLK_TCK));
}

/* The block-I/O delay: stat's field 42 (clock ticks), only while
 * kernel.task_delayacct is 1, read at each interval's end; absent while
 * it is 0 or missing, and in the interval it is switched on in. */
START_TEST(blkio_delay_only_with_delayacct)
{
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    /* started after the switch is seen: the kernel counts all of its waits */
    struct fx_proc r = proc(100, 1, ticks_after_boot_from_now(1000), 0, 10, NULL);
    r.blkio_ticks = 40;
    put_status(100, 1, 1);
    watch_app(&r, NULL); /* no sys/kernel/task_delayacct */
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    fx_write(root, "sys/kernel/task_delayacct", "0\n", -1);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    /* the first end that finds it on reads the base: the waits between the
     * switch and that read are unknown, so the interval leaves it out */
    b = pt_collector_end_interval(c, 3.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    r.blkio_ticks = 40 + 7;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 7 * tick, 1e-9);
    fx_write(root, "sys/kernel/task_delayacct", "0\n", -1);
    r.blkio_ticks = 40 + 9;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    /* on again: a base again, then counted from it */
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    b = pt_collector_end_interval(c, 6.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    r.blkio_ticks = 49 + 3;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 7.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 3 * tick, 1e-9);
}
END_TEST

/* A tree with a process started before the switch was seen: the kernel
 * does not count that process's waits (its record of them is made at
 * fork), so the tree's delay is left out, however long it runs; with
 * delayacct on the kernel command line every task is counted. */
START_TEST(blkio_delay_left_out_for_a_tree_older_than_the_switch)
{
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    struct fx_proc r = proc(100, 1, ticks_after_boot_from_now(1000), 0, 10, "101");
    struct fx_proc old = proc(101, 100, 10, 0, 10, NULL);
    old.blkio_ticks = 5;
    put_status(100, 1, 1);
    put_status(101, 1, 1);
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    watch_app(&r, &old, NULL);
    for (int i = 1; i <= 3; i++) {
        old.blkio_ticks += 4;
        fx_put_proc(root, &old);
        const struct pt_batch *b = pt_collector_end_interval(c, (double)i);
        ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
        ck_assert(value(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY)->present);
    }
    fx_write(root, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda delayacct quiet\n", -1);
    watch_pid(100);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0); /* the base */
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    old.blkio_ticks += 6;
    fx_put_proc(root, &old);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 6 * tick, 1e-9);
    /* a word that only contains it is not the option */
    fx_write(root, "cmdline", "nodelayacct delayacct=0\n", -1);
    watch_pid(100);
    pt_collector_end_interval(c, 1.0);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_delays");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, run_queue_delay_of_processes_and_threads);
    tcase_add_test(tc, blkio_delay_only_with_delayacct);
    tcase_add_test(tc, blkio_delay_left_out_for_a_tree_older_than_the_switch);
    return unit_run(s);
}
