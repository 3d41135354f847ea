/* Unit tests for the children-list parser of procfile.h
 * (task/TID/children, cgroup.procs). */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs/procfile.h"
#include "unit.h"

/* ---- Real content captured from this machine's /proc (Linux 6.18) ---- */

/* kthreadd's children: trailing space, no newline. */
static const char REAL_CHILDREN_KTHREADD[] =
    "3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 24 25 26 27 28 29 30 "
    "31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 "
    "54 55 58 77 79 952 4379 ";

START_TEST(test_children_small)
{
    struct pid_list list;
    ck_assert_int_eq(parse_children(TEXT(""), &list), 0);
    ck_assert_int_eq(parse_children(TEXT("\n"), &list), 0);
    ck_assert_int_eq(parse_children(TEXT(" "), &list), 0);
    ck_assert_int_eq(parse_children(TEXT("123"), &list), 1);
    ck_assert_int_eq(list.pids[0], 123);
    ck_assert_int_eq(parse_children(TEXT("123 "), &list), 1);
    ck_assert_int_eq(parse_children(TEXT("123 \n"), &list), 1);
    ck_assert_int_eq(parse_children(TEXT("1 2 2147483647\n"), &list), 3);
    ck_assert_int_eq(list.pids[2], INT_MAX);
    ck_assert_int_eq(parse_children(TEXT("1\n2\t3  4"), &list), 4);
    ck_assert_int_eq(list.pids[3], 4);
}
END_TEST

START_TEST(test_children_real)
{
    struct pid_list list;
    static const pid_t some[] = {3, 4, 5, 22, 24, 55, 58, 77, 79, 952, 4379};
    ck_assert_int_eq(parse_children(TEXT(REAL_CHILDREN_KTHREADD), &list), 57);
    /* Some known pids, found in order. */
    for (size_t i = 0, j = 0; i < sizeof(some) / sizeof(some[0]); i++) {
        while (list.pids[j] != some[i])
            ck_assert_int_lt(++j, 57);
    }
    ck_assert_int_eq(list.pids[56], 4379);
}
END_TEST

/* 2000 pids, several pages of text, all delivered in order. */
START_TEST(test_children_many)
{
    char *text = malloc(2000 * 6 + 1);
    ck_assert_ptr_nonnull(text);
    size_t len = 0;
    for (int i = 0; i < 2000; i++)
        len += (size_t)sprintf(text + len, "%d ", 30000 + i);
    ck_assert_uint_gt(len, 4096);
    struct pid_list list;
    ck_assert_int_eq(parse_children(text, len, &list), 2000);
    for (int i = 0; i < 2000; i++)
        ck_assert_int_eq(list.pids[i], 30000 + i);
    free(text);
}
END_TEST

START_TEST(test_children_malformed)
{
    struct pid_list list;
    static const char *const bad[] = {
        "12a 3", "-1", "0", "1 0 2", "2147483648", "99999999999999999999", "1,2", "+5", "x", "1 2 3x",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(parse_children(TEXT(bad[i]), &list) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(parse_children("1 \0 2", 5, &list), -1);
    /* Pids before the bad token have been delivered already. */
    ck_assert_int_eq(parse_children(TEXT("7 8 9x 10"), &list), -1);
    ck_assert_int_eq(list.count, 2);
}
END_TEST

/* cgroup.procs: a 0 (a process outside the reader's pid namespace, as
 * cgroup v2 writes it) is passed on; anything else as in children files. */
START_TEST(test_cgroup_procs_zeros)
{
    struct pid_list list = {.stop_at = -1};
    ck_assert_int_eq(pt_pidparse_cgroup_procs("5\n0\n7\n0\n", 8, collect_pid, &list), 4);
    ck_assert_int_eq(list.count, 4);
    ck_assert_int_eq(list.pids[0], 5);
    ck_assert_int_eq(list.pids[1], 0);
    ck_assert_int_eq(list.pids[2], 7);
    ck_assert_int_eq(list.pids[3], 0);
    list.count = 0;
    ck_assert_int_eq(pt_pidparse_cgroup_procs("-1\n", 3, collect_pid, &list), -1);
    ck_assert_int_eq(pt_pidparse_cgroup_procs("00x\n", 4, collect_pid, &list), -1);
    ck_assert_int_eq(list.count, 0);
}
END_TEST

START_TEST(test_children_callback_stops)
{
    struct pid_list list = {.stop_at = 2};
    ck_assert_int_eq(pt_pidparse_children("1 2 3 4 ", 8, collect_pid, &list), -1);
    ck_assert_int_eq(list.count, 2);
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("parse_children");

    TCase *tc = unit_tcase(suite, "children");
    tcase_add_test(tc, test_children_small);
    tcase_add_test(tc, test_children_real);
    tcase_add_test(tc, test_children_many);
    tcase_add_test(tc, test_children_malformed);
    tcase_add_test(tc, test_children_callback_stops);
    tcase_add_test(tc, test_cgroup_procs_zeros);

    return unit_run(suite);
}
