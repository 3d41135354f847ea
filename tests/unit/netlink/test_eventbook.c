/* eventbook.h: what a tree following the process events keeps, told
 * event by event; its invariant holds for every pid after every event. */
#include <check.h>
#include <stdlib.h>

#include "netlink/eventbook.h"
#include "unit.h"

static const pid_t pids[] = {100, 101, 102, 103};

/* Every event is followed by the check of every pid the test uses. */
#define CHECKED(b, call)                                                                                               \
    do {                                                                                                               \
        call;                                                                                                          \
        for (size_t i_ = 0; i_ < sizeof(pids) / sizeof(pids[0]); i_++) {                                               \
            const char *broken = pt_eventbook_check_pid(b, pids[i_]);                                                  \
            ck_assert_msg(broken == NULL, "pid %d: %s after %s", (int)pids[i_], broken, #call);                        \
        }                                                                                                              \
    } while (0)

/* A fork that never joined awaits its exit; its exit makes it an
 * unjoined exit (its parent returned); a zombie of it that joins is no
 * longer one; a settle forgets the rest. */
START_TEST(test_unjoined_fork_exit_join_settle)
{
    struct pt_eventbook b = {0};
    CHECKED(&b, pt_eventbook_drain_begins(&b, true));
    ck_assert(b.follows);
    CHECKED(&b, pt_eventbook_forked(&b, 101));
    CHECKED(&b, pt_eventbook_forked_unjoined(&b, 101, 100));
    CHECKED(&b, pt_eventbook_forked(&b, 102));
    CHECKED(&b, pt_eventbook_forked_unjoined(&b, 102, 100));
    pid_t parent;
    CHECKED(&b, parent = pt_eventbook_exited(&b, 101));
    ck_assert_int_eq(parent, 100);
    CHECKED(&b, parent = pt_eventbook_exited(&b, 103)); /* never forked in the tree */
    ck_assert_int_eq(parent, -1);
    bool was;
    CHECKED(&b, was = pt_eventbook_joins_exited(&b, 101)); /* its zombie joins */
    ck_assert(was);
    CHECKED(&b, was = pt_eventbook_joins_exited(&b, 101));
    ck_assert(!was);
    CHECKED(&b, was = pt_eventbook_joins_forked(&b, 102)); /* alive after all */
    ck_assert(was);
    CHECKED(&b, parent = pt_eventbook_exited(&b, 102)); /* a member's exit is not the book's */
    ck_assert_int_eq(parent, -1);
    CHECKED(&b, pt_eventbook_drain_done(&b));
    pt_eventbook_free(&b);
}
END_TEST

/* A pid reused: the exit of the first process, then a fork of the same
 * pid; the new one's fork clears the old one's unjoined exit. */
START_TEST(test_pid_reused_after_an_unjoined_exit)
{
    struct pt_eventbook b = {0};
    CHECKED(&b, pt_eventbook_drain_begins(&b, true));
    CHECKED(&b, pt_eventbook_forked(&b, 101));
    CHECKED(&b, pt_eventbook_forked_unjoined(&b, 101, 100));
    CHECKED(&b, pt_eventbook_exited(&b, 101));
    ck_assert_int_ge(pt_pidmap_get(&b.unjoined_exits, 101), 0);
    CHECKED(&b, pt_eventbook_forked(&b, 101));
    ck_assert_int_lt(pt_pidmap_get(&b.unjoined_exits, 101), 0);
    CHECKED(&b, pt_eventbook_forked_unjoined(&b, 101, 102));
    ck_assert_int_eq(pt_pidmap_get(&b.parent_of_forked, 101), 102);
    CHECKED(&b, pt_eventbook_unjoined_exits_settled(&b));
    pt_eventbook_free(&b);
}
END_TEST

/* Members that move are remembered only while the events are followed,
 * until the next drain is done; a drain the kernel cut short forgets the
 * forks that await their exits (it may have dropped those exits). */
START_TEST(test_moves_and_a_drain_cut_short)
{
    struct pt_eventbook b = {0};
    CHECKED(&b, pt_eventbook_member_moved(&b, 100, true));
    ck_assert_int_lt(pt_pidmap_get(&b.forks_ours_lately, 100), 0); /* not followed yet */
    CHECKED(&b, pt_eventbook_drain_begins(&b, true));
    CHECKED(&b, pt_eventbook_member_moved(&b, 100, true));
    CHECKED(&b, pt_eventbook_member_moved(&b, 103, false));
    ck_assert_int_eq(pt_pidmap_get(&b.forks_ours_lately, 100), 1);
    ck_assert_int_eq(pt_pidmap_get(&b.forks_ours_lately, 103), 0);
    CHECKED(&b, pt_eventbook_drain_done(&b));
    ck_assert_int_lt(pt_pidmap_get(&b.forks_ours_lately, 100), 0);
    CHECKED(&b, pt_eventbook_forked_unjoined(&b, 102, 100));
    CHECKED(&b, pt_eventbook_drain_begins(&b, false));
    ck_assert_int_lt(pt_pidmap_get(&b.parent_of_forked, 102), 0);
    pt_eventbook_free(&b);
}
END_TEST

/* The check names the broken invariant. */
START_TEST(test_check_names_a_pid_in_both_maps)
{
    struct pt_eventbook b = {0};
    pt_pidmap_put(&b.parent_of_forked, 101, 100);
    pt_pidmap_put(&b.unjoined_exits, 101, 1);
    ck_assert_str_eq(pt_eventbook_check_pid(&b, 101), "a pid both awaits its exit and has exited unjoined");
    ck_assert_ptr_null(pt_eventbook_check_pid(&b, 102));
    pt_eventbook_free(&b);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("eventbook");
    TCase *tc = unit_tcase(suite, "eventbook");
    tcase_add_test(tc, test_unjoined_fork_exit_join_settle);
    tcase_add_test(tc, test_pid_reused_after_an_unjoined_exit);
    tcase_add_test(tc, test_moves_and_a_drain_cut_short);
    tcase_add_test(tc, test_check_names_a_pid_in_both_maps);
    return unit_run(suite);
}
