/* The kernel's exit records, fed by hand to a target on a fixture /proc
 * through pt_target_follow_exits, the function the collector hands each
 * drain to: which records are the tree's, the exit statuses and peaks
 * they bring, the switches of processes never read, and what a lost
 * record does to the interval. Only target.h's public part is used, and
 * what it says is read from the reports it fills. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree/base.h"
#include "fixture.h"
#include "target/target.h"
#include "unit.h"

static struct unit_tree tree;
static struct pt_target *target; /* tree's */
static struct pt_report report;

static void setup(void)
{
    unit_tree_open(&tree);
    target = &tree.target;
    pt_target_discover(target, pt_now());
}

static void teardown(void)
{
    unit_tree_close(&tree);
}

/* A process exit (its main thread's record) with a wait(2) status. */
static struct pt_exitrecord exited(pid_t pid, pid_t ppid, uint32_t status, int64_t nvcsw, int64_t peak_kb)
{
    return (struct pt_exitrecord){.pid = pid,
                                  .tgid = pid,
                                  .ppid = ppid,
                                  .exitcode = status,
                                  .nvcsw = nvcsw,
                                  .nivcsw = 1,
                                  .cpu_delay_ns = nvcsw * 1000000, /* a millisecond a switch */
                                  .rss_peak_kb = peak_kb};
}

static void end_interval(void)
{
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    pt_target_end_interval(target, 1.0, &units, &report);
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
        exited(999, 1, 1 << 8, 50, 9000000),                                          /* not ours */
        {.pid = 2041, .tgid = 204, .ppid = 100, .nvcsw = 7, .cpu_delay_ns = 7000000}, /* a thread of a child */
    };
    pt_target_follow_exits(target, records, sizeof(records) / sizeof(records[0]), true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 1);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_KILLED), 1);
    ck_assert_int_eq(value(PT_M_PROC_EXITED_RSS_PEAK_MAX), (int64_t)512 * 1024 * 1024);
    /* never read: their switches come whole (the baseline root's are not new) */
    ck_assert_int_eq(value(PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 3 + 4 + 5 + 7);
    ck_assert(report.v[PT_M_PROC_CPU_DELAY_SECONDS].present);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_DELAY_SECONDS].f, (3 + 4 + 5 + 7) * 1e-3, 1e-12);
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
    pt_target_follow_exits(target, NULL, 0, true);
    end_interval();
    struct fx_proc zombie = {.pid = 205, .ppid = 100, .state = 'Z', .starttime = 205, .utime = 40, .stime = 10};
    fx_put_proc(tree.root, &zombie);
    const struct pt_exitrecord record = exited(205, 100, 0, 2, 100);
    pt_target_follow_exits(target, &record, 1, true);
    ck_assert(pt_target_has_member(target, 205));
    end_interval();
    ck_assert(report.v[PT_M_PROC_CPU_USER_SECONDS].present);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 40.0 / (double)sysconf(_SC_CLK_TCK), 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_STARTED), 1);
    /* reaped: the parent's counters take it, and nothing is new */
    fx_vanish(tree.root, 205);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .starttime = 100, .cutime = 40, .cstime = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    pt_target_poll(target);
    end_interval();
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.0, 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_EXITED), 1);
}
END_TEST

/* The target again, with a breakdown by process, not yet discovered. */
static void init_by_process(void)
{
    pt_target_free(target);
    struct pt_selector selector = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options options;
    pt_target_options_init(&options);
    options.breakdown = PT_BY_PROCESS;
    char err[256];
    ck_assert_msg(pt_target_init(target, "app", &selector, &options, true, tree.root_fd, "/sys", &tree.budget, err,
                                 sizeof(err)) == 0,
                  "%s", err);
}

/* The target again, with a breakdown by process. */
static void by_process(void)
{
    init_by_process();
    pt_target_discover(target, pt_now());
}

static double group_cpu(const char *name)
{
    size_t n;
    const struct pt_group_report *groups = pt_target_group_reports(target, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(groups[i].name, name) == 0 && groups[i].report.v[PT_M_PROC_CPU_USER_SECONDS].present)
            return groups[i].report.v[PT_M_PROC_CPU_USER_SECONDS].f;
    return 0;
}

/* The same by process: the zombie joins from its record too, so its CPU
 * is its group's in the interval it ran in, not the reaper's at the reap
 * (it used to stay out, and all of it came at the reap). */
START_TEST(zombie_child_counts_when_its_record_comes_by_process)
{
    by_process();
    pt_target_follow_exits(target, NULL, 0, true);
    end_interval();
    struct fx_proc zombie = {
        .pid = 205, .ppid = 100, .comm = "kid", .state = 'Z', .starttime = 205, .utime = 40, .stime = 10};
    fx_put_proc(tree.root, &zombie);
    struct pt_exitrecord record = exited(205, 100, 0, 2, 100);
    memcpy(record.comm, "kid", 4);
    record.utime_us = 400000;
    record.stime_us = 100000;
    pt_target_follow_exits(target, &record, 1, true);
    ck_assert(pt_target_has_member(target, 205));
    end_interval();
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 40 * tick, 1e-9);
    ck_assert_double_eq_tol(group_cpu("kid"), 40 * tick, 1e-9);
    /* reaped: the parent's fold is exact, a tick more than the zombie's
     * stat showed; only that tick is new, and it is kid's */
    fx_vanish(tree.root, 205);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .starttime = 100, .cutime = 41, .cstime = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    pt_target_poll(target);
    pt_target_follow_exits(target, NULL, 0, true);
    end_interval();
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, tick, 1e-9);
    ck_assert_double_eq_tol(group_cpu("kid"), tick, 1e-9);
}
END_TEST

/* A member born in the tree (101, a daemon: its parent exited, it was
 * re-parented to init) that init reaps at once: its last read showed 100
 * ticks of user CPU, 20 of system and 10 faults; its record 1.2 s and
 * 0.3 s of samples, run_us of exact run time and 30 faults. */
static void reaped_outside(int64_t run_us)
{
    pt_target_follow_exits(target, NULL, 0, true);
    unit_tree_put(&tree, 100, 1, "101");
    unit_tree_put(&tree, 101, 100, "");
    pt_target_discover(target, pt_now()); /* born in the tree */
    struct fx_proc daemon = {
        .pid = 101, .ppid = 1, .starttime = 101, .utime = 100, .stime = 20, .minflt = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &daemon);
    unit_tree_put(&tree, 100, 1, "");
    pt_target_poll(target); /* read at every poll now: nobody in the tree reaps it */
    end_interval();
    pt_target_note_exit(target, 101, pt_now() + 0.4);
    fx_vanish(tree.root, 101);
    pt_target_poll(target);
    struct pt_exitrecord record = exited(101, 1, 0, 1, 10);
    record.utime_us = 1200000;
    record.stime_us = 300000;
    record.run_us = run_us;
    record.minflt = 30;
    record.elapsed_us = 2000000;
    pt_target_follow_exits(target, &record, 1, true);
    end_interval();
}

/* Its 20 last faults count, and its CPU after the read is what /proc
 * would have shown at its exit less what the read showed: 1.4 s of run
 * time split 4:1 as its samples are, 1.12 s user and 0.28 s system, less
 * 1.0 s and 0.2 s. It used to be lost, then estimated from the rate it ran
 * at until its last read. */
START_TEST(last_moments_of_a_member_reaped_outside)
{
    reaped_outside(1400000);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.12, 1e-9);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_SYSTEM_SECONDS].f, 0.08, 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_MINOR_FAULTS), 20);
}
END_TEST

/* As in the kernel's split, neither part goes below what the read
 * showed: 1.21 s split 4:1 would show 0.968 s of user, below its 1.0 s,
 * so user stays and system takes the rest (0.21 s, 0.01 s past the read). */
START_TEST(last_moments_never_below_the_last_read)
{
    reaped_outside(1210000);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.0, 1e-9);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_SYSTEM_SECONDS].f, 0.01, 1e-9);
}
END_TEST

/* A record without the run time (a kernel built without delay
 * accounting): nothing past the last read, its faults still. */
START_TEST(last_moments_without_the_run_time)
{
    reaped_outside(-1);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.0, 1e-9);
    ck_assert_double_eq_tol(report.v[PT_M_PROC_CPU_SYSTEM_SECONDS].f, 0.0, 1e-9);
    ck_assert_int_eq(value(PT_M_PROC_MINOR_FAULTS), 20);
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
    pt_target_follow_exits(target, records, 1, false);
    end_interval();
    ck_assert(!report.v[PT_M_PROC_PROCESSES_FAILED].present);
    ck_assert(!report.v[PT_M_PROC_EXITED_RSS_PEAK_MAX].present);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORD_LOSSES), 1);
    pt_target_follow_exits(target, NULL, 0, true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 0);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORD_LOSSES), 0);
}
END_TEST

/* A member born in the tree (101) and its child (102) exit: 102,
 * orphaned, is reaped by init, so only its having been a member (it left
 * since the last drain) makes its record the tree's. stop: the collector
 * stops listening after they left, before their records come. */
static void orphaned_member_exits(bool stop)
{
    pt_target_follow_exits(target, NULL, 0, true);
    unit_tree_put(&tree, 100, 1, "101");
    unit_tree_put(&tree, 101, 100, "102");
    unit_tree_put(&tree, 102, 101, "");
    pt_target_discover(target, pt_now());
    end_interval();
    fx_vanish(tree.root, 101);
    fx_vanish(tree.root, 102);
    unit_tree_put(&tree, 100, 1, "");
    pt_target_poll(target);
    if (stop)
        pt_target_stop_exits(target);
    const struct pt_exitrecord record = exited(102, 1, 1 << 8, 1, 10);
    pt_target_follow_exits(target, &record, 1, true);
    end_interval();
}

START_TEST(departed_member_waits_for_its_records)
{
    orphaned_member_exits(false);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 1);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORDS), 1);
}
END_TEST

/* The collector stopped listening (a kernel whose records it cannot
 * use): the target reports as one that never had records, and nothing it
 * kept for records to come waits on: were records to come again, a
 * member that left before the stop is not the tree's any more. */
START_TEST(stopped_records_leave_nothing_waiting)
{
    pt_target_follow_exits(target, NULL, 0, true);
    pt_target_stop_exits(target);
    end_interval();
    ck_assert(!report.v[PT_M_PROC_PROCESSES_FAILED].present);
    ck_assert(!report.v[PT_M_COLLECTOR_EXIT_RECORDS].present);

    orphaned_member_exits(true);
    ck_assert_int_eq(value(PT_M_PROC_PROCESSES_FAILED), 0);
    ck_assert_int_eq(value(PT_M_COLLECTOR_EXIT_RECORDS), 0);
}
END_TEST

/* Breakdown by process: sh (100), and worker (101) born in the tree
 * while records flow, with 10 minor faults at its last read; it makes 20
 * more, exits, and sh reaps it (sh's children's faults gain its 30). Its
 * record holds its whole life, so its last 20 go to worker's line. stop:
 * the collector stops listening before worker exits (and then hears
 * records again): worker's claim that its records hold its whole life is
 * gone with the stop, so its last moments stay in its reaper's line. */
static void last_moments(bool stop, int64_t *worker, int64_t *sh)
{
    init_by_process();
    pt_target_follow_exits(target, NULL, 0, true);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .comm = "sh", .starttime = 100, .resident_pages = 1};
    struct fx_proc child = {
        .pid = 101, .ppid = 100, .comm = "worker", .starttime = 101, .minflt = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    pt_target_discover(target, pt_now()); /* sh joins as the root */
    parent.children = "101";
    fx_put_proc(tree.root, &parent);
    fx_put_proc(tree.root, &child);
    pt_target_discover(target, pt_now()); /* worker is born in the tree */
    end_interval();
    if (stop) {
        pt_target_stop_exits(target);
        pt_target_follow_exits(target, NULL, 0, true);
    }
    fx_vanish(tree.root, 101);
    parent.children = "", parent.cminflt = 30;
    fx_put_proc(tree.root, &parent);
    pt_target_poll(target);
    const struct pt_exitrecord record = {.pid = 101, .tgid = 101, .ppid = 100, .comm = "worker", .minflt = 30};
    pt_target_follow_exits(target, &record, 1, true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_MINOR_FAULTS), 20);
    size_t n;
    const struct pt_group_report *groups = pt_target_group_reports(target, &n);
    *worker = *sh = -1;
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert(groups[i].report.v[PT_M_PROC_MINOR_FAULTS].present);
        int64_t faults = groups[i].report.v[PT_M_PROC_MINOR_FAULTS].i;
        if (strcmp(groups[i].name, "worker") == 0)
            *worker = faults;
        else if (strcmp(groups[i].name, "sh") == 0)
            *sh = faults;
    }
}

START_TEST(last_moments_go_to_their_group)
{
    int64_t worker, sh;
    last_moments(false, &worker, &sh);
    ck_assert_int_eq(worker, 20);
    ck_assert_int_eq(sh, 0);
}
END_TEST

START_TEST(stopped_records_drop_a_members_claim)
{
    int64_t worker, sh;
    last_moments(true, &worker, &sh);
    ck_assert_int_eq(worker, 0);
    ck_assert_int_eq(sh, 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exits");
    TCase *tc = tcase_create("records");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, exits_of_the_tree_count);
    tcase_add_test(tc, zombie_child_counts_when_its_record_comes);
    tcase_add_test(tc, zombie_child_counts_when_its_record_comes_by_process);
    tcase_add_test(tc, last_moments_of_a_member_reaped_outside);
    tcase_add_test(tc, last_moments_never_below_the_last_read);
    tcase_add_test(tc, last_moments_without_the_run_time);
    tcase_add_test(tc, no_records_no_metrics);
    tcase_add_test(tc, lost_records_leave_the_interval_out);
    tcase_add_test(tc, departed_member_waits_for_its_records);
    tcase_add_test(tc, stopped_records_leave_nothing_waiting);
    tcase_add_test(tc, last_moments_go_to_their_group);
    tcase_add_test(tc, stopped_records_drop_a_members_claim);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
