/* The kernel's exit records, fed by hand to a target on a fixture /proc
 * through pt_target_follow_exits, the function the collector hands each
 * drain to: which records are the tree's, the exit statuses and peaks
 * they bring, the switches of processes never read, and what a lost
 * record does to the interval. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base.h"
#include "fixture.h"
#include "target.h"
#include "unit.h"

static struct unit_tree tree;
#define t (tree.target)
static struct pt_report report;

static void setup(void)
{
    unit_tree_open(&tree);
    pt_target_discover(&t);
}

static void teardown(void)
{
    unit_tree_close(&tree);
}

/* A process exit (its main thread's record) with a wait(2) status. */
static struct pt_exitrecord exited(pid_t pid, pid_t ppid, uint32_t status, int64_t nvcsw, int64_t peak_kb)
{
    return (struct pt_exitrecord){
        .pid = pid, .tgid = pid, .ppid = ppid, .exitcode = status, .nvcsw = nvcsw, .nivcsw = 1, .rss_peak_kb = peak_kb};
}

static void end_interval(void)
{
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    pt_target_end_interval(&t, 1.0, &units, &report);
}

static int64_t value(enum pt_metric_id id)
{
    ck_assert_msg(report.v[id].present, "%s absent", pt_catalog[id].name);
    return report.v[id].i;
}

/* Children of a member that lived less than a poll: one exits 1, one is
 * killed (SIGKILL: status 9), one peaked at 512 MiB; a stranger's exit
 * and a thread's are not processes of the tree. */
START_TEST(exits_of_the_tree_count)
{
    const struct pt_exitrecord records[] = {
        exited(201, 100, 1 << 8, 3, 1000),
        exited(202, 100, 9, 4, 2000),
        exited(203, 100, 0, 5, 512 * 1024),
        exited(999, 1, 1 << 8, 50, 9000000),                 /* not ours */
        {.pid = 2041, .tgid = 204, .ppid = 100, .nvcsw = 7}, /* a thread of a child: switches only */
    };
    pt_target_follow_exits(&t, records, sizeof(records) / sizeof(records[0]), true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 1);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_KILLED), 1);
    ck_assert_int_eq(value(PT_M_PROC_EXITED_RSS_PEAK_MAX), (int64_t)512 * 1024 * 1024);
    /* never read: their switches come whole (the baseline root's are not new) */
    ck_assert_int_eq(value(PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 3 + 4 + 5 + 7);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORDS), 4);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 0);
    ck_assert_int_eq(value(PT_M_PROC_EXITED_RSS_PEAK_MAX), 0);
}
END_TEST

/* A child of a member that exited before any poll saw it, not reaped
 * yet: its record makes it join, so its CPU counts in this interval from
 * its zombie's stat (not in its parent's at the reap, however late), and
 * the parent's fold at the reap is owed, not counted again. */
START_TEST(zombie_child_counts_when_its_record_comes)
{
    pt_target_follow_exits(&t, NULL, 0, true);
    end_interval();
    struct fx_proc zombie = {.pid = 205, .ppid = 100, .state = 'Z', .starttime = 205, .utime = 40, .stime = 10};
    fx_put_proc(tree.root, &zombie);
    const struct pt_exitrecord record = exited(205, 100, 0, 2, 100);
    pt_target_follow_exits(&t, &record, 1, true);
    ck_assert(pt_target_live_member(&t, 205) != NULL);
    end_interval();
    ck_assert(report.v[PT_M_PROC_CPU_USER_SECONDS].present);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 40.0 / t.ticks_per_second, 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_STARTED), 1);
    /* reaped: the parent's counters take it, and nothing is new */
    fx_vanish(tree.root, 205);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .starttime = 100, .cutime = 40, .cstime = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    pt_target_poll(&t);
    end_interval();
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.0, 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_EXITED), 1);
}
END_TEST

/* Without exit records the metrics they feed are absent, never 0. */
START_TEST(no_records_no_metrics)
{
    end_interval();
    ck_assert(!report.v[PT_M_PROC_PROCESSES_FAILED].present);
    ck_assert(!report.v[PT_M_PROC_PROCESSES_KILLED].present);
    ck_assert(!report.v[PT_M_PROC_EXITED_RSS_PEAK_MAX].present);
    ck_assert(!report.v[PT_M_COLLECTOR_EXIT_RECORDS].present);
}
END_TEST

/* Records lost in an interval (the socket overflowed): what they would
 * have counted is unknown, so it is left out for that interval only. */
START_TEST(lost_records_leave_the_interval_out)
{
    const struct pt_exitrecord records[] = {exited(201, 100, 1 << 8, 1, 10)};
    pt_target_follow_exits(&t, records, 1, false);
    end_interval();
    ck_assert(!report.v[PT_M_PROC_PROCESSES_FAILED].present);
    ck_assert(!report.v[PT_M_PROC_EXITED_RSS_PEAK_MAX].present);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORD_LOSSES), 1);
    pt_target_follow_exits(&t, NULL, 0, true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 0);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORD_LOSSES), 0);
}
END_TEST

/* The collector stopped listening (a kernel whose records it cannot
 * use): the target reports as one that never had records, and nothing it
 * kept for records to come waits on (a departed member, a member's claim
 * that its records hold its whole life). */
START_TEST(stopped_records_leave_nothing_waiting)
{
    pt_target_follow_exits(&t, NULL, 0, true);
    unit_tree_put(&tree, 100, 1, "101 102");
    unit_tree_put(&tree, 101, 100, "");
    unit_tree_put(&tree, 102, 100, "");
    pt_target_discover(&t);
    ck_assert(pt_target_live_member(&t, 101)->recorded_whole);
    fx_vanish(tree.root, 102);
    unit_tree_put(&tree, 100, 1, "101");
    pt_target_poll(&t);
    ck_assert_uint_eq(t.n_departures, 1);
    ck_assert_int_ge(pt_pidmap_get(&t.left, 102), 0);

    pt_target_stop_exits(&t);
    ck_assert_uint_eq(t.n_departures, 0);
    ck_assert_int_lt(pt_pidmap_get(&t.left, 102), 0);
    ck_assert(!pt_target_live_member(&t, 101)->recorded_whole);
    end_interval();
    ck_assert(!report.v[PT_M_PROC_PROCESSES_FAILED].present);
    ck_assert(!report.v[PT_M_COLLECTOR_EXIT_RECORDS].present);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exits");
    TCase *tc = tcase_create("records");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, exits_of_the_tree_count);
    tcase_add_test(tc, zombie_child_counts_when_its_record_comes);
    tcase_add_test(tc, no_records_no_metrics);
    tcase_add_test(tc, lost_records_leave_the_interval_out);
    tcase_add_test(tc, stopped_records_leave_nothing_waiting);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
