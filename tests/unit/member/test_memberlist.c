/* memberlist.h: a target's members in tree order, found by pid; its
 * invariants (pt_memberlist_check) hold after every event, and each is
 * caught when broken. */
#include <check.h>
#include <string.h>

#include "member/memberlist.h"
#include "unit.h"

#define CHECKED(ml, call) UNIT_CHECKED(pt_memberlist_check, ml, call)

/* A member with no kept file (nothing for a close to give back). */
static struct pt_member member(pid_t pid, pid_t ppid)
{
    struct pt_member m;
    memset(&m, 0, sizeof(m));
    for (int f = 0; f < PT_MF_COUNT; f++)
        m.fd[f] = -1;
    m.pid = pid;
    m.ppid = ppid;
    return m;
}

static void add(struct pt_memberlist *ml, pid_t pid, pid_t ppid)
{
    struct pt_member m = member(pid, ppid);
    struct pt_member *in = NULL;
    CHECKED(ml, in = pt_memberlist_add(ml, &m));
    ck_assert_ptr_eq(in, pt_memberlist_live(ml, pid));
    ck_assert_int_eq(in->ppid, ppid);
}

/* m leaves as membership.c makes it: marked gone, the list told. */
static void leave(struct pt_memberlist *ml, pid_t pid)
{
    struct pt_member *m = pt_memberlist_live(ml, pid);
    ck_assert_ptr_nonnull(m);
    m->gone = true;
    CHECKED(ml, pt_memberlist_left(ml));
}

START_TEST(test_join_leave_compact_keeps_order_and_index)
{
    struct pt_memberlist ml = {0};
    add(&ml, 100, 1);
    for (pid_t p = 101; p <= 140; p++) /* past the first allocation: the array moves */
        add(&ml, p, p % 3 ? 100 : p - 1);
    ck_assert_uint_eq(ml.n_members, 41);
    leave(&ml, 120);
    leave(&ml, 100);
    ck_assert_ptr_null(pt_memberlist_live(&ml, 100));
    ck_assert_ptr_null(pt_memberlist_live(&ml, 120));
    ck_assert_uint_eq(ml.n_members, 41); /* until the compaction */
    CHECKED(&ml, pt_memberlist_compact(&ml));
    ck_assert_uint_eq(ml.n_members, 39);
    ck_assert(!ml.need_compaction);
    for (pid_t p = 101; p <= 140; p++)
        if (p != 120)
            ck_assert_int_eq(pt_memberlist_live(&ml, p)->pid, p);
    /* a pid reused by a new process: the new member is the live one */
    leave(&ml, 130);
    add(&ml, 130, 101);
    ck_assert_ptr_eq(pt_memberlist_live(&ml, 130), &ml.members[ml.n_members - 1]);
    CHECKED(&ml, pt_memberlist_compact(&ml));
    ck_assert_int_eq(pt_memberlist_live(&ml, 130)->ppid, 101);
    CHECKED(&ml, pt_memberlist_compact(&ml)); /* nothing due: nothing moves */
    CHECKED(&ml, pt_memberlist_free(&ml));
    ck_assert_uint_eq(ml.n_members, 0);
    ck_assert_ptr_null(pt_memberlist_live(&ml, 101));
}
END_TEST

START_TEST(test_each_broken_invariant_is_caught)
{
    char why[160];
    struct pt_memberlist ml = {0};
    add(&ml, 10, 1);
    add(&ml, 11, 10);
    add(&ml, 12, 10);

    /* tree order: a child before its parent */
    struct pt_member swap = ml.members[0];
    ml.members[0] = ml.members[1];
    ml.members[1] = swap;
    pt_pidmap_put(&ml.position_of, 10, 1);
    pt_pidmap_put(&ml.position_of, 11, 0);
    ck_assert_str_eq(pt_memberlist_check(&ml, why, sizeof(why)), "tree order");
    ck_assert_ptr_nonnull(strstr(why, "member 11 comes before its parent 10"));
    ml.members[1] = ml.members[0];
    ml.members[0] = swap;
    pt_pidmap_put(&ml.position_of, 10, 0);
    pt_pidmap_put(&ml.position_of, 11, 1);
    ck_assert_ptr_null(pt_memberlist_check(&ml, why, sizeof(why)));

    /* the index: a live member not where it says */
    pt_pidmap_put(&ml.position_of, 12, 1);
    ck_assert_str_eq(pt_memberlist_check(&ml, why, sizeof(why)), "the index finds every live member");
    pt_pidmap_put(&ml.position_of, 12, 2);

    /* a member gone without the list told */
    ml.members[2].gone = true;
    ck_assert_str_eq(pt_memberlist_check(&ml, why, sizeof(why)), "a gone member is told");
    CHECKED(&ml, pt_memberlist_left(&ml));
    pt_memberlist_free(&ml);
}
END_TEST

/* pids wrapped, or a parent that started to match after its child: the
 * list says a reorder is due, and the next compaction puts each parent
 * before its children, the others in their order. */
START_TEST(test_parent_joining_after_its_child_is_put_before_it)
{
    struct pt_memberlist ml = {0};
    add(&ml, 7, 1);     /* an unrelated root */
    add(&ml, 300, 200); /* grandchild of 50, child of 200 (neither in yet) */
    add(&ml, 200, 50);
    ck_assert(ml.need_order);
    add(&ml, 50, 1);
    add(&ml, 301, 200);
    add(&ml, 8, 7);
    ck_assert(ml.need_order && ml.need_compaction);
    CHECKED(&ml, pt_memberlist_compact(&ml));
    ck_assert(!ml.need_order);
    pid_t want[] = {7, 50, 200, 8, 300, 301}; /* by depth, each depth in list order */
    ck_assert_uint_eq(ml.n_members, 6);
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(ml.members[i].pid, want[i]);
        ck_assert_ptr_eq(pt_memberlist_live(&ml, want[i]), &ml.members[i]);
    }
    /* a child whose parent is in the list already: nothing due */
    add(&ml, 302, 200);
    ck_assert(!ml.need_order);
    pt_memberlist_free(&ml);
}
END_TEST

/* Hostile ppids that make a cycle: the order still ends. */
START_TEST(test_a_cycle_of_parents_ends)
{
    struct pt_memberlist ml = {0};
    add(&ml, 20, 21);
    struct pt_member m = member(21, 20);
    pt_memberlist_add(&ml, &m);
    ck_assert(ml.need_order);
    pt_memberlist_compact(&ml);
    ck_assert_uint_eq(ml.n_members, 2);
    ck_assert_ptr_nonnull(pt_memberlist_live(&ml, 20));
    ck_assert_ptr_nonnull(pt_memberlist_live(&ml, 21));
    pt_memberlist_free(&ml);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memberlist");
    TCase *tc = unit_tcase(s, "list");
    tcase_add_test(tc, test_join_leave_compact_keeps_order_and_index);
    tcase_add_test(tc, test_each_broken_invariant_is_caught);
    tcase_add_test(tc, test_parent_joining_after_its_child_is_put_before_it);
    tcase_add_test(tc, test_a_cycle_of_parents_ends);
    return unit_run(s);
}
