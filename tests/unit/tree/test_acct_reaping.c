/* Accounting rule: a child reaped by a member is counted once. The
 * kernel folds a reaped child's I/O and CPU into its reaper's counters, so
 * the tree's counter is the live members' inclusive counters (plus what
 * left the tree): nested reaping is counted once, and a reaper owes what
 * it absorbed until its counters show it, so a transient dip is never a
 * negative delta and a child whose usage never reaches its parent (SIGCHLD
 * ignored, an orphan reaped by init) never hides the parent's later work.
 * docs/DESIGN.md, "Accounting"; docs/METRICS.md, "Accounting" (Includes
 * reaped children, Not counted). */
#include <check.h>
#include <stdio.h>

#include "acct_fixture.h"
#include "unit.h"

/* The kernel adds a reaped child's I/O into the parent's own io: the
 * child's work must show once, not twice. */
START_TEST(reaped_child_absorbed_once)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 200, 5, NULL);
    watch_app(&r, &k, NULL);
    k.io.rchar = 500; /* the child reads 300 more */
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.1);
    /* it exits; the root reaps it and gets its 500 */
    fx_vanish(root, 101);
    r.io.rchar = 1500;
    r.children = "";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.2);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 300);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
}
END_TEST

/* make -> sh -> cc: the grandchild is reaped by the child, the child by
 * the root, all between two polls. The root's counters now hold both;
 * neither may be added again when they are found gone. */
START_TEST(nested_reaping_counted_once)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 100, 5, "102");
    struct fx_proc g = proc(102, 101, 12, 10, 2, NULL);
    watch_app(&r, &k, &g, NULL);
    g.io.rchar = 510; /* +500 */
    fx_put_proc(root, &g);
    k.io.rchar = 150; /* +50 */
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 550);
    fx_vanish(root, 102);
    fx_vanish(root, 101);
    r.io.rchar = 1000 + 150 + 510 + 5; /* both folded in, +5 of its own */
    r.children = "";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.6);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 2);
}
END_TEST

/* A child reaped between the read of its parent and its own read makes the
 * tree sum dip for one close: no negative delta, and the amount arrives
 * with the parent's next read. */
START_TEST(transient_dip_is_carried)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    pt_collector_end_interval(c, 0.5);
    k.io.rchar = 400;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.6);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400);
    /* child gone, parent not yet showing it */
    fx_vanish(root, 101);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    /* parent shows it (400), plus 100 of its own */
    r.io.rchar = 1500;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
}
END_TEST

/* A child whose usage never reaches its parent (the parent ignores
 * SIGCHLD, so the kernel reaps the child without adding it to the parent):
 * once the parent has been read again, the parent's own later work is
 * reported in full, not hidden under the high-water mark of the child's
 * last values. Whether the parent works before or after the check. */
START_TEST(lost_departure_does_not_hide_later_work)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    pt_collector_end_interval(c, 0.5);
    k.io.rchar = 100;
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
    fx_vanish(root, 101); /* auto-reaped: the parent's counters never show it */
    r.children = "";
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    r.io.rchar = 1050; /* the parent's own 50 */
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 50);
    /* again, with the parent's work in the same interval as the departure:
     * it shows once the parent has been read again */
    struct fx_proc k2 = proc(102, 100, 30, 300, 5, NULL);
    fx_put_proc(root, &k2);
    r.children = "102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 2.1); /* discovery: k2 is born with 300 */
    b = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 300);
    fx_vanish(root, 102);
    r.io.rchar = 1070;
    r.children = "";
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 3.0);
    int64_t first = ivalue(b, 0, PT_M_PROC_IO_READ_BYTES);
    b = pt_collector_end_interval(c, 3.5);
    ck_assert_int_eq(first + ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 20);
    r.io.rchar = 1075;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 5);
}
END_TEST

/* A grandchild re-parented to init when its parent exited, and reaped by
 * init: taken as reaped by its (zombie) parent, whose final counters then
 * show that it never arrived. Later work is not hidden. */
START_TEST(orphan_reaped_by_init_does_not_hide_later_work)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc p = proc(101, 100, 11, 0, 5, "102");
    struct fx_proc g = proc(102, 101, 12, 0, 2, NULL);
    watch_app(&r, &p, &g, NULL);
    g.io.rchar = 400;
    fx_put_proc(root, &g);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400);
    p.state = 'Z'; /* exits; g goes to init, which reaps it */
    p.children = "";
    fx_put_proc(root, &p);
    fx_vanish(root, 102);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    r.io.rchar = 1030;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 30);
}
END_TEST

/* Churn: a child leaves in every interval, half of them absorbed by the
 * parent and half lost. The debts of one interval never keep the mark up
 * in the next: every amount is reported once, in the interval it happened
 * or the next one, and the parent's own work is never hidden. */
START_TEST(churn_of_departures_never_hides_work)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    pt_collector_end_interval(c, 0.5);
    int64_t reported = 0, expected = 0;
    for (int i = 1; i <= 20; i++) {
        pid_t pid = 100 + i;
        struct fx_proc k = proc(pid, 100, 100 + (uint64_t)i, 1000, 5, NULL);
        char children[16];
        snprintf(children, sizeof(children), "%d", (int)pid);
        fx_put_proc(root, &k);
        r.children = children;
        fx_put_proc(root, &r);
        pt_collector_tick(c, i); /* discovery: the child is born with 1000 */
        k.io.rchar = 1100;
        fx_put_proc(root, &k);
        reported += ivalue(pt_collector_end_interval(c, i + 0.25), 0, PT_M_PROC_IO_READ_BYTES);
        fx_vanish(root, pid);
        bool absorbed = i % 2 == 0;
        r.io.rchar += 7 + (absorbed ? 1100 : 0); /* its own 7, and the child when it reaps it */
        r.children = "";
        fx_put_proc(root, &r);
        reported += ivalue(pt_collector_end_interval(c, i + 0.5), 0, PT_M_PROC_IO_READ_BYTES);
        expected += 1100 + 7;
        /* everything up to the interval before is out */
        ck_assert_int_le(reported, expected);
        ck_assert_int_ge(reported, expected - 1100 - 7);
    }
    reported += ivalue(pt_collector_end_interval(c, 21.0), 0, PT_M_PROC_IO_READ_BYTES);
    ck_assert_int_eq(reported, expected);
    r.io.rchar += 3;
    fx_put_proc(root, &r);
    ck_assert_int_eq(ivalue(pt_collector_end_interval(c, 21.5), 0, PT_M_PROC_IO_READ_BYTES), 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_reaping");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, reaped_child_absorbed_once);
    tcase_add_test(tc, transient_dip_is_carried);
    tcase_add_test(tc, lost_departure_does_not_hide_later_work);
    tcase_add_test(tc, orphan_reaped_by_init_does_not_hide_later_work);
    tcase_add_test(tc, churn_of_departures_never_hides_work);
    tcase_add_test(tc, nested_reaping_counted_once);
    return unit_run(s);
}
