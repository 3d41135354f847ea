/* Accounting rule: deltas are never negative and sums saturate. A
 * counter that goes down gives 0, never less; members at the top of the
 * integer range neither wrap nor overflow; an interval's CPU is at most
 * what the host's CPUs ran in it. docs/DESIGN.md, "Accounting";
 * docs/METRICS.md, "Accounting" (No interval holds more CPU than the host
 * has). */
#include <check.h>
#include <math.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

/* A counter that goes down (a member whose io became unreadable and came
 * back with smaller numbers is the same as a parent read before its dead
 * child was folded in) never produces a negative delta. */
START_TEST(deltas_never_negative)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    watch_app(&r, NULL);
    r.io.rchar = 900;
    fx_put_proc(root, &r);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    r.io.rchar = 1100;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
}
END_TEST

/* Hostile or broken /proc values at the top of the integer range are
 * clamped when parsed (procfile.h) and every sum saturates: two members
 * of 2^62 pages each must not wrap to 0 (nor be undefined behaviour). */
START_TEST(huge_memory_and_thread_sums_saturate)
{
    struct fx_proc r = proc(100, 1, 10, 0, 0, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 0, NULL);
    struct fx_proc *both[] = {&r, &k};
    for (int i = 0; i < 2; i++) {
        both[i]->size_pages = both[i]->resident_pages = 1ULL << 62;
        both[i]->num_threads = INT64_MAX;
        both[i]->pss_kb = 1ULL << 62;
    }
    watch_app(&r, &k, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    int64_t member_bytes = (int64_t)PT_MAX_PAGES * page;
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_VM_SIZE_MAX), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_ANON_MAX), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 2 * (int64_t)PT_MAX_BYTES);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_THREADS), 2 * (int64_t)PT_MAX_THREADS);
}
END_TEST

/* Counters at the top of uint64: a new root's (its past is subtracted:
 * -1 * INT64_MIN once) and two born children's, whose sums saturate. */
START_TEST(huge_counters_saturate)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.io.rchar = UINT64_MAX;
    r.utime = INT64_MAX;
    r.cutime = 1; /* utime + cutime = 2^63 */
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    for (pid_t pid = 101; pid <= 102; pid++) {
        struct fx_proc k = proc(pid, 100, 20 + (uint64_t)pid, 0, 5, NULL);
        k.io.rchar = k.io.syscr = UINT64_MAX;
        k.utime = k.stime = k.cutime = k.cstime = UINT64_MAX;
        k.minflt = k.cminflt = (uint64_t)INT64_MAX;
        fx_put_proc(root, &k);
        put_status(pid, UINT64_MAX, (uint64_t)INT64_MAX + 1);
    }
    r.children = "101 102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0); /* discovery: both are born in the tree */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_SYSCALLS), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_MINOR_FAULTS), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY), INT64_MAX);
    /* the CPU at most what the host's CPUs run in the 1 s (user and
     * system share it); the rest waits, whole, for later lines */
    const struct pt_value *cpu = value(b, 0, PT_M_PROC_CPU_USER_SECONDS);
    const struct pt_value *sys = value(b, 0, PT_M_PROC_CPU_SYSTEM_SECONDS);
    double most = 1.0 * (double)sysconf(_SC_NPROCESSORS_ONLN);
    ck_assert(cpu->present && isfinite(cpu->f) && sys->present && isfinite(sys->f));
    ck_assert(cpu->f + sys->f >= most - 1e-9 && cpu->f + sys->f <= most + 1.0 / (double)sysconf(_SC_CLK_TCK));
    ck_assert(value(b, 0, PT_M_PROC_CPU_PERCENT)->present);
    /* saturated: nothing more to report, and nothing negative */
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_MINOR_FAULTS), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_bounds");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, deltas_never_negative);
    tcase_add_test(tc, huge_memory_and_thread_sums_saturate);
    tcase_add_test(tc, huge_counters_saturate);
    return unit_run(s);
}
