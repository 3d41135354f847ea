/* The kernel's exit records, fed by hand to a target on a fixture /proc
 * through pt_target_follow_exits (exits.c), the function the collector hands each
 * drain to: which records are the tree's, the exit statuses and peaks
 * they bring, the switches of processes never read, and what a lost
 * record does to the interval. Only target.h's public part is used, and
 * what it says is read from the reports it fills. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree/base.h"
#include "fixture.h"
#include "tree/target.h"
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
    ck_assert(pt_targetstate_has_member(target, 205));
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

/* The target again, with breakdown by, not yet discovered. */
static void init_with(enum pt_breakdown by)
{
    pt_target_free(target);
    struct pt_selector selector = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options options;
    pt_target_options_init(&options);
    options.breakdown = by;
    char err[256];
    ck_assert_msg(pt_target_init(target, "app", &selector, &options, true, tree.root_fd, "/sys", &tree.budget, err,
                                 sizeof(err)) == 0,
                  "%s", err);
}

static void init_by_process(void)
{
    init_with(PT_BY_PROCESS);
}

/* The target again, with a breakdown by process. */
static void by_process(void)
{
    init_by_process();
    pt_target_discover(target, pt_now());
}

/* Group name's line of the last interval, or NULL. */
static const struct pt_report *group_report(const char *name)
{
    size_t n;
    const struct pt_group_report *groups = pt_target_group_reports(target, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(groups[i].name, name) == 0)
            return &groups[i].report;
    return NULL;
}

static double group_cpu(const char *name)
{
    const struct pt_report *r = group_report(name);
    return r && r->v[PT_M_PROC_CPU_USER_SECONDS].present ? r->v[PT_M_PROC_CPU_USER_SECONDS].f : 0;
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
    ck_assert(pt_targetstate_has_member(target, 205));
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

/* The collector's order at an interval's end: the last reads, then the
 * drain of the records (which may make a zombie child join), then the
 * line. The child is a process of the line and of its group, and so is
 * its thread: the tree's proc_threads is its groups' sum, as its
 * proc_processes is (a line once counted the threads at the reads and
 * the groups at the line, one apart). */
START_TEST(a_child_joined_after_the_last_reads_counts_its_thread)
{
    by_process();
    pt_target_follow_exits(target, NULL, 0, true);
    end_interval();
    int64_t before = value(PT_M_PROC_THREADS);
    struct fx_proc zombie = {
        .pid = 205, .ppid = 100, .comm = "kid", .state = 'Z', .starttime = 205, .utime = 4, .stime = 1};
    fx_put_proc(tree.root, &zombie);
    pt_target_end_reads(target, pt_now(), pt_boottime(), NAN);
    struct pt_exitrecord record = exited(205, 100, 0, 2, 100);
    memcpy(record.comm, "kid", 4);
    pt_target_follow_exits(target, &record, 1, true);
    ck_assert(pt_targetstate_has_member(target, 205));
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_THREADS), before + 1);
    size_t n;
    const struct pt_group_report *groups = pt_target_group_reports(target, &n);
    int64_t processes = 0, threads = 0;
    for (size_t i = 0; i < n; i++) {
        processes += groups[i].report.v[PT_M_PROC_PROCESSES].i;
        threads += groups[i].report.v[PT_M_PROC_THREADS].i;
    }
    ck_assert_int_eq(processes, value(PT_M_PROC_PROCESSES));
    ck_assert_int_eq(threads, value(PT_M_PROC_THREADS));
    ck_assert_ptr_nonnull(group_report("kid"));
    ck_assert_int_eq(group_report("kid")->v[PT_M_PROC_THREADS].i, 1);
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
    pt_exits_note_exit(target, 101, pt_now() + 0.4);
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

/* A record whose run time says more than the CPUs could run between the
 * last read and the exit (0.4 s later): a kernel clock that jumped, as
 * under an emulated CPU. The line gets at most that time on every CPU and
 * the two ticks the read cut, in the split the record gives. */
START_TEST(last_moments_at_most_what_the_time_since_the_read_holds)
{
    reaped_outside(6200000);
    double cpus = (double)sysconf(_SC_NPROCESSORS_ONLN), tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    double user = report.v[PT_M_PROC_CPU_USER_SECONDS].f, system = report.v[PT_M_PROC_CPU_SYSTEM_SECONDS].f;
    ck_assert_msg(user + system <= 0.41 * cpus + 2 * tick + 1e-9, "%f + %f", user, system);
    ck_assert_msg(user + system >= 0.4 * cpus, "%f + %f: the time it had is given", user, system);
    ck_assert_msg(user > 2 * system, "%f, %f: the record's split kept", user, system);
    ck_assert_int_eq(value(PT_M_PROC_MINOR_FAULTS), 20);
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

/* pid's command line in the fixture: len bytes of raw, NULs and all. */
static void put_cmdline(pid_t pid, const char *raw, size_t len)
{
    char rel[32];
    snprintf(rel, sizeof(rel), "%d/cmdline", (int)pid);
    fx_write(tree.root, rel, raw, (long)len);
}

#define PUT_CMDLINE(pid, literal) put_cmdline((pid), (literal), sizeof(literal) - 1)

/* The minor faults of group name's line of the last interval (-1: no
 * such line). */
static int64_t group_faults(const char *name)
{
    const struct pt_report *r = group_report(name);
    return r && r->v[PT_M_PROC_MINOR_FAULTS].present ? r->v[PT_M_PROC_MINOR_FAULTS].i : -1;
}

/* Breakdown by title, as last_moments: worker (101, "worker --job one")
 * exits after 20 faults past its last read, and a child sh forked and
 * reaped between two polls (102, never seen, 5 faults) too. worker's last
 * 20 go to its title's line, which its record does not name (it names
 * comm): its title as last read does. 102's title was never read: it is
 * "[kid]", what ps shows of a process without one. sh's line keeps only
 * its own; the lines add up to the tree. */
START_TEST(last_moments_go_to_their_title)
{
    init_with(PT_BY_TITLE);
    pt_target_follow_exits(target, NULL, 0, true);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .comm = "sh", .starttime = 100, .resident_pages = 1};
    struct fx_proc child = {
        .pid = 101, .ppid = 100, .comm = "worker", .starttime = 101, .minflt = 10, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    PUT_CMDLINE(100, "sh\0-c\0work\0");
    pt_target_discover(target, pt_now()); /* sh joins as the root */
    parent.children = "101";
    fx_put_proc(tree.root, &parent);
    fx_put_proc(tree.root, &child);
    PUT_CMDLINE(101, "worker\0--job\0one\0");
    pt_target_discover(target, pt_now()); /* worker is born in the tree */
    end_interval();
    ck_assert_int_eq(group_faults("worker --job one"), 10);
    fx_vanish(tree.root, 101);
    parent.children = "", parent.cminflt = 30 + 5;
    fx_put_proc(tree.root, &parent);
    pt_target_poll(target);
    const struct pt_exitrecord records[] = {
        {.pid = 101, .tgid = 101, .ppid = 100, .comm = "worker", .minflt = 30},
        {.pid = 102, .tgid = 102, .ppid = 100, .comm = "kid", .minflt = 5},
    };
    pt_target_follow_exits(target, records, 2, true);
    end_interval();
    ck_assert_int_eq(value(PT_M_PROC_MINOR_FAULTS), 20 + 5);
    ck_assert_int_eq(group_faults("worker --job one"), 20);
    ck_assert_int_eq(group_faults("[kid]"), 5);
    ck_assert_int_eq(group_faults("sh -c work"), 0);
    ck_assert_int_eq(group_faults("[worker]"), -1);
}
END_TEST

/* ---- --by thread: short children reaped late ------------------------------ */

#define KIDS 300
#define KID_RUN_US 20300 /* each child's exact run time */

static double tick_us(void)
{
    return 1e6 / (double)sysconf(_SC_CLK_TCK);
}

/* Child i's records' tick samples: 0 to 40 ms, 20 ms on average, as a
 * child of 20 ms sharing a busy host with 300 others is sampled. */
static int64_t kid_samples_us(int i, enum pt_cpu c)
{
    return c == PT_CPU_USER ? 10000 * (i % 4) : 10000 * (i / 4 % 2);
}

/* Its CPU (enum pt_cpu) in microseconds as /proc shows it at its end:
 * the run time split in the ratio of the samples (cputime_adjust). */
static double kid_split_us(int i, enum pt_cpu c)
{
    double user = (double)kid_samples_us(i, PT_CPU_USER), system = (double)kid_samples_us(i, PT_CPU_SYSTEM);
    double system_us = system <= 0 ? 0 : user <= 0 ? KID_RUN_US : KID_RUN_US * system / (user + system);
    return c == PT_CPU_USER ? KID_RUN_US - system_us : system_us;
}

/* ... in whole ticks as its zombie's stat shows it: each part truncated. */
static uint64_t kid_final_ticks(int i, enum pt_cpu c)
{
    return (uint64_t)(kid_split_us(i, c) / tick_us());
}

/* pid's schedstat (a run-queue delay in ns) and status (switches). */
static void put_sched(pid_t pid, int64_t delay_ns, int64_t voluntary, int64_t involuntary)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/schedstat", (int)pid);
    snprintf(text, sizeof(text), "1000 %lld 9\n", (long long)delay_ns);
    fx_write(tree.root, rel, text, -1);
    snprintf(rel, sizeof(rel), "%d/status", (int)pid);
    snprintf(text, sizeof(text),
             "Name:\tkid\nUid:\t0\t0\t0\t0\nThreads:\t1\nvoluntary_ctxt_switches:\t%lld\n"
             "nonvoluntary_ctxt_switches:\t%lld\n",
             (long long)voluntary, (long long)involuntary);
    fx_write(tree.root, rel, text, -1);
}

/* Child i (pid 1000 + i) of kids (100): running with a tick of the CPU it
 * will end with shown, or a zombie with its final stat. */
static void put_kid(int i, bool zombie)
{
    uint64_t user = kid_final_ticks(i, PT_CPU_USER), system = kid_final_ticks(i, PT_CPU_SYSTEM);
    if (!zombie) { /* a tick of the part that has one at the end: its stat never goes back */
        user = user > 0, system = user ? 0 : 1;
    }
    struct fx_proc kid = {.pid = 1000 + i,
                          .ppid = 100,
                          .comm = "kid",
                          .state = zombie ? 'Z' : 'R',
                          .starttime = 1000 + (uint64_t)i,
                          .utime = user,
                          .stime = system,
                          .resident_pages = zombie ? 0 : 1};
    fx_put_proc(tree.root, &kid);
}

/* Its exit record: its exact run time, its samples, and its whole life's
 * run-queue delay and switches. */
static struct pt_exitrecord kid_record(int i, int64_t delay_ns, int64_t voluntary, int64_t involuntary)
{
    struct pt_exitrecord r = exited(1000 + i, 100, 0, voluntary, 100);
    memcpy(r.comm, "kid", 4);
    r.nivcsw = involuntary;
    r.cpu_delay_ns = delay_ns;
    r.run_us = KID_RUN_US;
    r.utime_us = kid_samples_us(i, PT_CPU_USER);
    r.stime_us = kid_samples_us(i, PT_CPU_SYSTEM);
    r.elapsed_us = delay_ns / 1000 + KID_RUN_US;
    return r;
}

/* kids (100), with children 1000 .. 1000 + n - 1 in its children file. */
static void put_parent(int n, uint64_t cutime, uint64_t cstime)
{
    static char children[KIDS * 8];
    size_t len = 0;
    children[0] = '\0';
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(children + len, sizeof(children) - len, "%s%d", i ? " " : "", 1000 + i);
    struct fx_proc parent = {.pid = 100,
                             .ppid = 1,
                             .comm = "kids",
                             .starttime = 100,
                             .utime = 5,
                             .cutime = cutime,
                             .cstime = cstime,
                             .resident_pages = 1,
                             .children = children};
    fx_put_proc(tree.root, &parent);
}

static double cpu_of(const struct pt_report *r)
{
    double cpu = 0;
    for (int k = 0; r && k < 2; k++) {
        enum pt_metric_id id = k ? PT_M_PROC_CPU_SYSTEM_SECONDS : PT_M_PROC_CPU_USER_SECONDS;
        cpu += r->v[id].present ? r->v[id].f : 0;
    }
    return cpu;
}

static int64_t int_of(const struct pt_report *r, enum pt_metric_id id)
{
    return r && r->v[id].present ? r->v[id].i : 0;
}

/* --by thread: 300 children of 20.3 ms each (as exitkids latereap runs
 * them), reaped together long after they exited. 100 are read running
 * at the first interval's end (a tick of CPU shown, 0.5 s of run-queue
 * delay, 3 and 10 switches), then exit in the second; 100 more are born
 * and exit within the second, 100 within the third, never seen running.
 * Their parent reaps them all at the eighth. Each child's records give
 * its exact run time, its tick samples (0 to 40 ms: tens of percent off
 * either way), its final delay and switches.
 *
 * The thread lines hold each child's CPU exactly once: what its reads
 * showed, then what its record's run time adds past the last read, and
 * nothing from its zombie's stat after (which shows its end again,
 * truncated) nor at the reap. So thread=kid adds up to the children's
 * exact run time (300 x 20.3 ms, as the parent's fold at the reap shows
 * it), as the tree's line does. It used to take each child's CPU from
 * two measures against one baseline: its record's samples as grown past
 * the last read (the baseline set to them even when lower), then its
 * zombie's stat as grown past the samples, so a child counted about the
 * larger of the two and each dip again: 6.62 s here, 8.72 s against the
 * children's 6.06 in exitkids latereap; and the zombies never seen
 * running did not join, so the tree's line had their CPU at the reap.
 * No line holds more CPU than the interval's length x the CPUs, rounded
 * up to a tick; each child's delay and switches count once. */
START_TEST(late_reap_by_thread_counts_each_child_once)
{
    const double tick = tick_us() / 1e6;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    init_with(PT_BY_THREAD);
    pt_target_follow_exits(target, NULL, 0, true);
    put_parent(0, 0, 0);
    put_sched(100, 0, 0, 0);
    pt_target_discover(target, pt_now()); /* the root, its past not counted */
    end_interval();
    ck_assert_str_eq(pt_target_breakdown_key(target), "thread");

    double kid_cpu = 0, tree_cpu = 0, delay = 0;
    int64_t voluntary = 0, involuntary = 0, tree_voluntary = 0, tree_involuntary = 0;
    for (int interval = 1; interval <= 10; interval++) {
        struct pt_exitrecord records[100];
        size_t n = 0;
        if (interval == 1) { /* 100 born, read running */
            for (int i = 0; i < 100; i++) {
                put_kid(i, false);
                put_sched(1000 + i, 500000000, 3, 10);
            }
            put_parent(100, 0, 0);
        } else if (interval == 2 || interval == 3) {
            if (interval == 2) /* the first 100 end */
                for (int i = 0; i < 100; i++) {
                    put_kid(i, true);
                    records[n++] = kid_record(i, 1500000000, 5, 30);
                }
            /* 100 are born and end within the interval */
            int first = interval == 2 ? 100 : 200;
            for (int i = first; i < first + 100; i++)
                put_kid(i, true);
            put_parent(first + 100, 0, 0);
        } else if (interval == 8) { /* reaped: the kernel folds their exact CPU, summed, into kids' */
            double user_us = 0, system_us = 0;
            for (int i = 0; i < KIDS; i++) {
                fx_vanish(tree.root, 1000 + i);
                user_us += kid_split_us(i, PT_CPU_USER);
                system_us += kid_split_us(i, PT_CPU_SYSTEM);
            }
            put_parent(0, (uint64_t)(user_us / tick_us()), (uint64_t)(system_us / tick_us()));
        }
        pt_target_discover(target, pt_now());
        pt_target_poll(target);
        pt_target_follow_exits(target, records, n, true);
        if (interval == 2 || interval == 3) { /* the records of the children never seen running */
            n = 0;
            int first = interval == 2 ? 100 : 200;
            for (int i = first; i < first + 100; i++)
                records[n++] = kid_record(i, 800000000, 2, 20);
            pt_target_follow_exits(target, records, n, true);
        }
        end_interval();
        const struct pt_report *kid = group_report("kid");
        double bound = (1.0 + tick) * (double)cpus + 1e-9;
        ck_assert_msg(cpu_of(kid) <= bound, "interval %d: thread=kid %.3f s, more than %.3f", interval, cpu_of(kid),
                      bound);
        ck_assert_msg(cpu_of(&report) <= bound, "interval %d: the tree %.3f s", interval, cpu_of(&report));
        ck_assert_double_eq_tol(cpu_of(group_report("kids")), 0, 1e-9); /* the parent only waited */
        if (interval >= 8) {                                            /* at the reap, and after, nothing new */
            ck_assert_msg(cpu_of(kid) < 1e-9, "interval %d: thread=kid %.3f s", interval, cpu_of(kid));
            ck_assert_msg(cpu_of(&report) < 1e-9, "interval %d: the tree %.3f s", interval, cpu_of(&report));
        }
        kid_cpu += cpu_of(kid);
        tree_cpu += cpu_of(&report);
        voluntary += int_of(kid, PT_M_PROC_CTX_SWITCHES_VOLUNTARY);
        involuntary += int_of(kid, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY);
        tree_voluntary += int_of(&report, PT_M_PROC_CTX_SWITCHES_VOLUNTARY);
        tree_involuntary += int_of(&report, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY);
        double d = report.v[PT_M_PROC_CPU_DELAY_SECONDS].present ? report.v[PT_M_PROC_CPU_DELAY_SECONDS].f : 0;
        const double want[] = {[1] = 100 * 0.5, [2] = 100 * 1.0 + 100 * 0.8, [3] = 100 * 0.8};
        ck_assert_msg(fabs(d - (interval <= 3 ? want[interval] : 0)) < 1e-6, "interval %d: %.3f s of run-queue delay",
                      interval, d);
        delay += d;
    }
    const double exact = KIDS * KID_RUN_US / 1e6;
    ck_assert_msg(fabs(kid_cpu - exact) <= 0.01 * exact, "thread=kid %.3f s against %.3f", kid_cpu, exact);
    ck_assert_msg(fabs(tree_cpu - exact) <= 0.01 * exact, "the tree %.3f s against %.3f", tree_cpu, exact);
    ck_assert_double_eq_tol(delay, 100 * 1.5 + 200 * 0.8, 1e-6);
    ck_assert_int_eq(voluntary, 100 * 5 + 200 * 2);
    ck_assert_int_eq(involuntary, 100 * 30 + 200 * 20);
    ck_assert_int_eq(tree_voluntary, voluntary);
    ck_assert_int_eq(tree_involuntary, involuntary);
}
END_TEST

/* Thread tid of pid: its task/TID/stat with this name and CPU, or gone
 * (its directory removed, as a walk of task/ finds it then). */
static void put_task(pid_t pid, pid_t tid, const char *comm, uint64_t utime, uint64_t stime)
{
    struct fx_proc th = {.pid = tid, .ppid = 1, .comm = comm, .utime = utime, .stime = stime};
    fx_put_thread(tree.root, pid, &th);
}

static void task_gone(pid_t pid, pid_t tid)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%d/task/%d/stat", tree.root, (int)pid, (int)tid);
    ck_assert_int_eq(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/%d/task/%d", tree.root, (int)pid, (int)tid);
    ck_assert_int_eq(rmdir(path), 0);
}

/* A thread's record: its run time, its (inflated) samples, its switches. */
static struct pt_exitrecord thread_record(pid_t tid, pid_t tgid, const char *comm, int64_t run_us)
{
    struct pt_exitrecord r = exited(tid, 100, 0, 4, 10);
    r.tgid = tgid;
    snprintf(r.comm, sizeof(r.comm), "%s", comm);
    r.run_us = run_us;
    r.utime_us = 2 * run_us; /* samples: nothing to go by */
    r.elapsed_us = 1000000;
    return r;
}

/* The seconds of CPU of each thread name's line, summed over the
 * intervals so far. */
static double sum_app, sum_worker, sum_tool;

static void end_thread_interval(void)
{
    end_interval();
    sum_app += cpu_of(group_report("app"));
    sum_worker += cpu_of(group_report("worker"));
    sum_tool += cpu_of(group_report("tool"));
}

/* --by thread, each thread that ends credited once: its reads up to the
 * last, then its record's run time past that read, whatever order its
 * end is seen in.
 *   - worker (1011), a thread of app (101, born in the tree), read at 3
 *     ticks, exits; a walk of app's task/ finds it gone before its record
 *     comes (its usage is kept for the record, which settles it then);
 *   - app itself exits and its parent reaps it before its record comes
 *     (its main thread's usage leaves with it for the record);
 *   - tool (102, single-threaded) is read running at a tick, then as a
 *     zombie at 2 (its stat truncated), and only then its record comes.
 * Each record's run time is whole ticks (50, 40 and 30 ms), its samples
 * twice that: a line that took the samples, or added the zombie's stat to
 * them, shows more. */
START_TEST(exited_threads_credited_once)
{
    const double tick = tick_us() / 1e6;
    sum_app = sum_worker = sum_tool = 0;
    init_with(PT_BY_THREAD);
    pt_target_follow_exits(target, NULL, 0, true);
    struct fx_proc parent = {.pid = 100, .ppid = 1, .comm = "sh", .starttime = 100, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    pt_target_discover(target, pt_now()); /* sh the root, its past not counted */
    end_thread_interval();
    parent.children = "101 102";
    struct fx_proc app = {
        .pid = 101, .ppid = 100, .comm = "app", .starttime = 101, .utime = 4, .num_threads = 2, .resident_pages = 1};
    struct fx_proc tool = {.pid = 102, .ppid = 100, .comm = "tool", .starttime = 102, .utime = 1, .resident_pages = 1};
    fx_put_proc(tree.root, &parent);
    fx_put_proc(tree.root, &app);
    fx_put_proc(tree.root, &tool);
    put_task(101, 101, "app", 1, 0);
    put_task(101, 1011, "worker", 3, 0);
    pt_target_discover(target, pt_now()); /* app and tool born in the tree */
    end_thread_interval();
    ck_assert_double_eq_tol(sum_worker, 3 * tick, 1e-9);
    ck_assert_double_eq_tol(sum_app, tick, 1e-9);
    ck_assert_double_eq_tol(sum_tool, tick, 1e-9);

    /* worker ends: app's walk finds it gone, its record is not in yet;
     * tool ends, its zombie read */
    app.num_threads = 1, app.utime = 5;
    fx_put_proc(tree.root, &app);
    task_gone(101, 1011);
    tool.state = 'Z', tool.utime = 2;
    fx_put_proc(tree.root, &tool);
    pt_target_follow_exits(target, NULL, 0, true);
    end_thread_interval();
    ck_assert_double_eq_tol(sum_worker, 3 * tick, 1e-9);
    ck_assert_double_eq_tol(sum_tool, 2 * tick, 1e-9);

    /* their records: worker's 50 ms and tool's 30 ms, past the reads */
    const struct pt_exitrecord late[] = {thread_record(1011, 101, "worker", 50000),
                                         thread_record(102, 102, "tool", 30000)};
    pt_target_follow_exits(target, late, 2, true);
    end_thread_interval();
    ck_assert_double_eq_tol(sum_worker, 0.05, 1e-9);
    ck_assert_double_eq_tol(sum_tool, 0.03, 1e-9);

    /* app exits at 4 ticks of its main thread, and is reaped before its
     * record comes */
    put_task(101, 101, "app", 2, 0);
    end_thread_interval();
    ck_assert_double_eq_tol(sum_app, 2 * tick, 1e-9);
    fx_vanish(tree.root, 101);
    parent.children = "102", parent.cutime = 9;
    fx_put_proc(tree.root, &parent);
    pt_target_poll(target);
    const struct pt_exitrecord app_end = thread_record(101, 101, "app", 40000);
    pt_target_follow_exits(target, &app_end, 1, true);
    end_thread_interval();
    end_thread_interval();
    ck_assert_double_eq_tol(sum_app, 0.04, 1e-9);
    ck_assert_double_eq_tol(sum_worker, 0.05, 1e-9);
    ck_assert_double_eq_tol(sum_tool, 0.03, 1e-9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exits");
    TCase *tc = unit_tcase(s, "records");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, exits_of_the_tree_count);
    tcase_add_test(tc, zombie_child_counts_when_its_record_comes);
    tcase_add_test(tc, zombie_child_counts_when_its_record_comes_by_process);
    tcase_add_test(tc, a_child_joined_after_the_last_reads_counts_its_thread);
    tcase_add_test(tc, last_moments_of_a_member_reaped_outside);
    tcase_add_test(tc, last_moments_at_most_what_the_time_since_the_read_holds);
    tcase_add_test(tc, last_moments_never_below_the_last_read);
    tcase_add_test(tc, last_moments_without_the_run_time);
    tcase_add_test(tc, no_records_no_metrics);
    tcase_add_test(tc, lost_records_leave_the_interval_out);
    tcase_add_test(tc, departed_member_waits_for_its_records);
    tcase_add_test(tc, stopped_records_leave_nothing_waiting);
    tcase_add_test(tc, last_moments_go_to_their_group);
    tcase_add_test(tc, stopped_records_drop_a_members_claim);
    tcase_add_test(tc, last_moments_go_to_their_title);
    tcase_add_test(tc, late_reap_by_thread_counts_each_child_once);
    tcase_add_test(tc, exited_threads_credited_once);
    return unit_run(s);
}
