/* Descriptor headroom rule: the member closest to its open-files limit
 * decides proc_fds_limit_percent and proc_fds_headroom; a limit that is
 * unlimited, garbage or missing leaves its member out, never taken as 0;
 * limits are read once a minute and at once after an exec.
 * docs/DESIGN.md, "Cadences" (interval end); docs/METRICS.md, "Descriptor
 * headroom: what to alert on". */
#include <check.h>
#include <stdio.h>

#include "acct_fixture.h"
#include "unit.h"

/* pid's limits file, its "Max open files" soft value written as soft. */
static void put_limits(pid_t pid, const char *soft)
{
    char rel[64], text[512];
    snprintf(rel, sizeof(rel), "%d/limits", (int)pid);
    snprintf(text, sizeof(text),
             "Limit                     Soft Limit           Hard Limit           Units     \n"
             "Max processes             96362                96362                processes \n"
             "Max open files            %-20s 524288               files     \n",
             soft);
    fx_write(root, rel, text, -1);
}

static void put_fds(pid_t pid, int n)
{
    for (int i = 0; i < n; i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "%d/fd/%d", (int)pid, i);
        fx_write(root, rel, "", 0);
    }
}

/* The worst member decides; members whose limit is unlimited, garbage or
 * missing are left out of both, never taken as 0. */
START_TEST(descriptor_headroom_of_the_worst_member)
{
    struct fx_proc k[4];
    for (int i = 0; i < 4; i++) {
        k[i] = proc(101 + i, 100, 11 + i, 0, 5, NULL);
        fx_put_proc(root, &k[i]);
        put_fds(101 + i, 1 + i);
    }
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101 102 103 104");
    put_fds(100, 3);
    put_limits(100, "4");    /* 75 %, headroom 1 */
    put_limits(101, "1024"); /* 1 of 1024 */
    put_limits(102, "unlimited");
    fx_write(root, "103/limits", "Max open files  lots  of  files\n", -1);
    /* 104 has no limits file */
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3 + 1 + 2 + 3 + 4);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 1);
}
END_TEST

/* Limits are read at the first count, then once a minute of the
 * collector's clock, and at once after an exec (a new name here). */
START_TEST(descriptor_limits_read_once_a_minute_and_after_exec)
{
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    fx_put_proc(root, &k);
    put_fds(101, 2);
    put_limits(101, "1024");
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    put_fds(100, 3);
    put_limits(100, "4");
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    /* raised and lowered from outside (prlimit): seen within a minute */
    put_limits(100, "8");
    put_limits(101, "1");
    b = pt_collector_end_interval(c, 30.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 1);
    b = pt_collector_end_interval(c, 61.0);
    /* 101 holds 2 under a limit of 1: 200 %, no headroom left (not -1) */
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 200.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 0);
    /* 101 execs a program whose limit is unlimited: read at once */
    put_limits(101, "unlimited");
    k.comm = "newprog";
    fx_put_proc(root, &k);
    b = pt_collector_end_interval(c, 62.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 37.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 5);
}
END_TEST

/* No member with a limit that is a number: both are absent, proc_fds is not. */
START_TEST(descriptor_headroom_absent_without_a_limit)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    put_fds(100, 3);
    put_limits(100, "unlimited");
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
    ck_assert(!value(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT)->present);
    ck_assert(!value(b, 0, PT_M_PROC_FDS_HEADROOM)->present);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_fds");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, descriptor_headroom_of_the_worst_member);
    tcase_add_test(tc, descriptor_limits_read_once_a_minute_and_after_exec);
    tcase_add_test(tc, descriptor_headroom_absent_without_a_limit);
    return unit_run(s);
}
