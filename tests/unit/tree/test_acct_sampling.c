/* Sampling rule: the poll's statm of every member gives the interval's
 * extrema (min and max of the tree's sums; the next interval starts
 * afresh), the states of the members and the oldest one's age; a member
 * whose files read truncated or garbage is skipped for that poll, not
 * dropped; the host's meminfo is sampled with them. docs/DESIGN.md, "From
 * a `/proc` read to a line or a value list" (Sampling, Ending an
 * interval) and "Cadences"; docs/METRICS.md, "Process states, age and
 * restarts: what to alert on". */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

START_TEST(extrema_over_polls)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL); /* discovery + poll: 15 pages */
    k.resident_pages = 20;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.1); /* 30 pages */
    k.resident_pages = 8;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.2); /* 18 pages */
    const struct pt_batch *b = pt_collector_end_interval(c, 0.25);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 15 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 30 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_VM_SIZE_MAX), (10 + 5) * 4 * page); /* size did not move */
    /* anon = resident - shared, per member */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_ANON_MAX), (10 - 2 + 20 - 1) * page); /* shared stayed 1 page */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_SAMPLES), 4); /* 3 ticks + the closing sample */
    /* smaps_rollup is read once, at the close: min == max */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), (10 + 5) * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (10 + 5) * 1024);
    /* the next interval starts afresh */
    b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 18 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 18 * page);
}
END_TEST

/* Every state letter the kernel prints (fs/proc/array.c, and the x, K and
 * W of kernels before 4.14), one child in each: R, D, T and t, and Z are
 * counted; the others are not in any of the four. The oldest member's
 * age is its starttime against CLOCK_BOOTTIME. */
START_TEST(states_of_every_letter_and_the_oldest_age)
{
    static const char letters[] = "RSDTtXZPIxKW";
    enum { N = sizeof(letters) - 1 };
    struct fx_proc kids[N];
    char children[N * 8] = "";
    for (int i = 0; i < N; i++) {
        kids[i] = proc(200 + i, 100, 500 + i, 10, 5, NULL);
        kids[i].state = letters[i];
        fx_put_proc(root, &kids[i]);
        snprintf(children + strlen(children), sizeof(children) - strlen(children), "%s%d", i ? " " : "", 200 + i);
    }
    struct fx_proc r = proc(100, 1, 300, 1000, 10, children);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), N + 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_RUNNING), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_BLOCKED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STOPPED), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_ZOMBIE), 1);
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    const struct pt_value *age = value(b, 0, PT_M_PROC_OLDEST_AGE_SECONDS);
    ck_assert(age->present && !age->is_int);
    double want = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - 300.0 / (double)sysconf(_SC_CLK_TCK);
    ck_assert_msg(age->f <= want + 0.01 && age->f > want - 1.0, "age %f, want %f", age->f, want);
}
END_TEST

/* Files that are truncated or garbage for one poll are skipped and
 * counted, the process is not dropped. */
START_TEST(unreadable_member_is_skipped_not_dropped)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    fx_write(root, "101/statm", "12", -1);
    pt_collector_tick(c, 0.1);
    fx_write(root, "101/statm", "", 0);
    pt_collector_tick(c, 0.2);
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_VANISHED), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 10 * page); /* the poll that only read the root */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 15 * page);
}
END_TEST

START_TEST(global_meminfo)
{
    c = collector_for(root);
    pt_collector_tick(c, 0.0);
    fx_put_meminfo(root, 1000000, 100000, 500000, 310000, 120000, 40000);
    pt_collector_tick(c, 0.1);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert(b->has_global);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_MEM_USED_MIN].i, 400000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_MEM_USED_MAX].i, 500000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_CACHED_MAX].i, 310000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_ANON_MIN].i, 100000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_SWAP_FREE_MIN].i, 40000 * 1024);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_sampling");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, extrema_over_polls);
    tcase_add_test(tc, states_of_every_letter_and_the_oldest_age);
    tcase_add_test(tc, unreadable_member_is_skipped_not_dropped);
    tcase_add_test(tc, global_meminfo);
    return unit_run(s);
}
