/* Accounting rule: who is a member, and from when it counts. A target
 * counts from its attach, not before (a root joins without its past); a
 * descendant born while it is watched counts from its birth; identity is
 * (pid, starttime), so a reused pid is a new member and a --pid root is
 * pinned; membership is sticky (an orphan stays, a departed root's last
 * work stays counted); without children files the tree comes from a scan
 * of every ppid. docs/DESIGN.md, "Accounting"; docs/METRICS.md,
 * "Accounting" (Identity, Membership is sticky, Not counted). */
#include <check.h>
#include <stdio.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

START_TEST(deltas_from_attach_not_before)
{
    struct fx_proc r = proc(100, 1, 10, 5000, 10, NULL);
    watch_app(&r, NULL);
    r.io.rchar = 5600;
    fx_put_proc(root, &r);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 600);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
}
END_TEST

/* Descendants born while we watch count from their birth. */
START_TEST(new_child_counts_from_birth)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    watch_app(&r, NULL);
    pt_collector_end_interval(c, 0.5);
    struct fx_proc k = proc(102, 100, 50, 700, 5, NULL);
    fx_put_proc(root, &k);
    r.children = "102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0); /* discovery */
    const struct pt_batch *b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 700);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STARTED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
}
END_TEST

/* The root is reaped by a process outside the tree: what it did since the
 * last read stays counted, and its orphan stays a member (sticky). */
START_TEST(orphans_and_departed_root)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 100, 5, NULL);
    watch_app(&r, &k, NULL);
    r.io.rchar = 1250; /* +250 by the root, read by the next poll */
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.1);
    fx_vanish(root, 100); /* reaped by its own parent, pid 1 */
    k.ppid = 1;           /* the child is re-parented to init */
    k.io.rchar = 180;     /* +80 */
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.2);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 250 + 80);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    /* the orphan is read at every poll, so its last values are fresh
     * when it goes too, reaped by init */
    k.io.rchar = 200;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.6);
    fx_vanish(root, 101);
    pt_collector_tick(c, 0.7);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 20);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
    /* nothing left: the line stays, with 0 processes and no memory */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
    ck_assert(!value(b, 0, PT_M_PROC_RSS_MAX)->present);
    ck_assert(!value(b, 0, PT_M_PROC_IO_READ_BYTES)->present);
}
END_TEST

/* A pid reused by an unrelated process is a new member, never merged into
 * the old one's numbers. */
START_TEST(pid_reuse_is_a_new_member)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 9000, 5, NULL);
    watch_app(&r, &k, NULL);
    /* 101 exits and is reaped by the root (absorbing its 9000) ... */
    fx_vanish(root, 101);
    r.io.rchar = 10000;
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.1);
    /* ... and a new child gets pid 101 with a new start time */
    struct fx_proc k2 = proc(101, 100, 99, 30, 7, NULL);
    fx_put_proc(root, &k2);
    pt_collector_tick(c, 1.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 30);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STARTED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 17 * page);
    /* a --pid root is pinned: a new process on the root's pid is not it */
    fx_vanish(root, 100);
    fx_vanish(root, 101);
    pt_collector_tick(c, 1.6);
    struct fx_proc impostor = proc(100, 1, 500, 0, 3, NULL);
    fx_put_proc(root, &impostor);
    pt_collector_tick(c, 2.0);
    b = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
}
END_TEST

/* Without children files (no CONFIG_PROC_CHILDREN) the tree comes from a
 * scan of every process's ppid. */
START_TEST(scan_fallback_without_children_files)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    struct fx_proc g = proc(102, 101, 12, 0, 2, NULL);
    struct fx_proc other = proc(200, 1, 13, 0, 50, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    fx_put_proc(root, &g);
    fx_put_proc(root, &other);
    char path[512];
    for (pid_t pid = 100; pid <= 102; pid++) {
        snprintf(path, sizeof(path), "%s/%d/task/%d/children", root, pid, pid);
        ck_assert_int_eq(unlink(path), 0);
    }
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 17 * page);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_members");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, deltas_from_attach_not_before);
    tcase_add_test(tc, new_child_counts_from_birth);
    tcase_add_test(tc, orphans_and_departed_root);
    tcase_add_test(tc, pid_reuse_is_a_new_member);
    tcase_add_test(tc, scan_fallback_without_children_files);
    return unit_run(s);
}
