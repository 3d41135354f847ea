/* Membership and counts from the kernel's process events, fed by hand to
 * a target on a fixture /proc through pt_target_follow_events, the
 * function the collector hands each drain to. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "proctree/base.h"
#include "fixture.h"
#include "tree/target.h"
#include "unit.h"

static struct unit_tree tree;
#define t (tree.target)

static void setup(void)
{
    unit_tree_open(&tree);
    pt_target_follow_events(&t, NULL, 0, true); /* a target that followed a drain already */
    pt_target_discover(&t, pt_now());
}

static void teardown(void)
{
    unit_tree_close(&tree);
}

static struct pt_procevent start(pid_t pid, pid_t parent, bool ends)
{
    return (struct pt_procevent){PT_PROCEVENT_START, pid, parent, ends, pt_now()};
}

static struct pt_procevent stop(pid_t pid)
{
    return (struct pt_procevent){PT_PROCEVENT_EXIT, pid, 0, false, pt_now()};
}

static int64_t count(enum pt_metric_id id)
{
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    struct pt_report report;
    pt_target_end_interval(&t, 1.0, &units, &report);
    ck_assert(report.v[id].present);
    return report.v[id].i;
}

/* 101 is forked and orphaned; 102 forks 103 and is gone before the drain:
 * 101 and 103 join, 102 is counted from its events, a stranger's fork is
 * nobody's, and the discovery that follows joins nobody twice. */
START_TEST(forks_join_at_once_and_every_one_counts)
{
    unit_tree_put(&tree, 101, 1, "");
    unit_tree_put(&tree, 103, 1, "");
    unit_tree_put(&tree, 104, 1, "");
    const struct pt_procevent events[] = {
        start(101, 100, false), start(102, 100, true), start(103, 102, false), stop(102), start(104, 999, false),
    };
    pt_target_follow_events(&t, events, sizeof(events) / sizeof(events[0]), true);
    ck_assert(pt_targetstate_has_member(&t, 101));
    ck_assert(pt_targetstate_has_member(&t, 103));
    ck_assert(!pt_targetstate_has_member(&t, 102));
    ck_assert(!pt_targetstate_has_member(&t, 104));
    unit_tree_put(&tree, 100, 1, "101");
    pt_target_discover(&t, pt_now());
    ck_assert_uint_eq(pt_targetstate_live_members(&t), 3);
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    struct pt_report report;
    pt_target_end_interval(&t, 1.0, &units, &report);
    ck_assert_int_eq(report.v[PT_M_PROC_PROCESSES_STARTED].i, 3);
    ck_assert_int_eq(report.v[PT_M_PROC_PROCESSES_EXITED].i, 1);
    ck_assert_int_eq(report.v[PT_M_PROC_PROCESSES].i, 3);
}
END_TEST

/* 101 joins from its fork and exits; before a poll finds it gone, a
 * fork storm gives its pid to a stranger (another start), whose children
 * are not the tree's. A member whose main thread exited while the
 * others live on (the same start) still forks in the tree. */
START_TEST(a_fork_by_a_pid_another_took_after_a_member_exited_is_not_followed)
{
    unit_tree_put(&tree, 101, 100, "");
    unit_tree_put(&tree, 102, 100, "");
    const struct pt_procevent joined[] = {start(101, 100, false), start(102, 100, false)};
    pt_target_follow_events(&t, joined, 2, true);
    ck_assert(pt_targetstate_has_member(&t, 101) && pt_targetstate_has_member(&t, 102));
    struct fx_proc stranger = {.pid = 101, .ppid = 1, .starttime = 5000, .resident_pages = 1};
    fx_put_proc(tree.root, &stranger);
    unit_tree_put(&tree, 201, 101, "");
    unit_tree_put(&tree, 202, 102, "");
    const struct pt_procevent events[] = {stop(101), start(201, 101, false), stop(102), start(202, 102, false)};
    pt_target_follow_events(&t, events, sizeof(events) / sizeof(events[0]), true);
    ck_assert(!pt_targetstate_has_member(&t, 201));
    ck_assert(pt_targetstate_has_member(&t, 202));
}
END_TEST

/* Discovery read 105 before its fork event was drained, and it left
 * before then: it was counted once, when it joined. */
START_TEST(discovery_first_counts_once)
{
    unit_tree_put(&tree, 105, 100, "");
    unit_tree_put(&tree, 100, 1, "105");
    pt_target_discover(&t, pt_now());
    ck_assert(pt_targetstate_has_member(&t, 105));
    fx_vanish(tree.root, 105);
    unit_tree_put(&tree, 100, 1, "");
    pt_target_poll(&t);
    const struct pt_procevent events[] = {start(105, 100, true), stop(105)};
    pt_target_follow_events(&t, events, 2, true);
    ck_assert_int_eq(count(PT_M_PROC_PROCESSES_STARTED), 1);
}
END_TEST

/* The collector's listener open, discoveries before the first drain
 * (as a launched command's first tick has: the second here joins 105,
 * born in the tree, which is gone by the poll), then the first drain,
 * where 105's fork and exit wait: counted once (twice when the joins
 * before the first drain were not noted: forkstorm launched, 1 run of
 * 60). */
START_TEST(a_member_gone_before_the_first_drain_counts_once)
{
    struct unit_tree fresh;
    unit_tree_open(&fresh);
    pt_target_events_listened(&fresh.target);
    pt_target_discover(&fresh.target, pt_now()); /* the root */
    unit_tree_put(&fresh, 105, 100, "");
    unit_tree_put(&fresh, 100, 1, "105");
    pt_target_discover(&fresh.target, pt_now()); /* born in the tree: started */
    ck_assert(pt_targetstate_has_member(&fresh.target, 105));
    fx_vanish(fresh.root, 105);
    unit_tree_put(&fresh, 100, 1, "");
    pt_target_poll(&fresh.target);
    const struct pt_procevent events[] = {start(105, 100, true), stop(105)};
    pt_target_follow_events(&fresh.target, events, 2, true);
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    struct pt_report report;
    pt_target_end_interval(&fresh.target, 1.0, &units, &report);
    ck_assert_int_eq(report.v[PT_M_PROC_PROCESSES_STARTED].i, 1);
    ck_assert_int_eq(report.v[PT_M_PROC_PROCESSES_EXITED].i, 1);
    unit_tree_close(&fresh);
}
END_TEST

/* A fork before the root was attached is not the tree's. */
START_TEST(forks_before_the_root_joined_are_not_counted)
{
    struct pt_procevent early = start(106, 100, true);
    early.when -= 3600;
    pt_target_follow_events(&t, &early, 1, true);
    ck_assert_int_eq(count(PT_M_PROC_PROCESSES_STARTED), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("forks");
    TCase *tc = tcase_create("forks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, forks_join_at_once_and_every_one_counts);
    tcase_add_test(tc, a_fork_by_a_pid_another_took_after_a_member_exited_is_not_followed);
    tcase_add_test(tc, discovery_first_counts_once);
    tcase_add_test(tc, a_member_gone_before_the_first_drain_counts_once);
    tcase_add_test(tc, forks_before_the_root_joined_are_not_counted);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
