/* interval.h: what one interval saw, told event by event; its invariants
 * (pt_interval_check) hold after every event, and each is caught when
 * broken. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/interval.h"
#include "unit.h"

/* Every event is followed by the check, as the ledger's tests do. */
#define CHECKED(iv, call)                                                                                              \
    do {                                                                                                               \
        call;                                                                                                          \
        const char *broken = pt_interval_check(iv);                                                                    \
        ck_assert_msg(broken == NULL, "%s after %s", broken, #call);                                                   \
    } while (0)

static void add_poll(struct pt_interval *iv, int64_t vm, int64_t rss)
{
    int64_t sum[PT_G_COUNT] = {0};
    sum[PT_G_VM] = vm;
    sum[PT_G_RSS] = rss;
    CHECKED(iv, pt_interval_add_gauges(iv, sum, PT_G_VM, PT_G_RSS));
    CHECKED(iv, pt_interval_add_sample(iv));
}

START_TEST(test_counts_and_extrema_then_end_starts_again)
{
    struct pt_interval iv = {0};
    ck_assert_ptr_null(pt_interval_check(&iv));
    add_poll(&iv, 500, 300);
    add_poll(&iv, 700, 100);
    add_poll(&iv, 600, 200);
    CHECKED(&iv, pt_interval_add_started(&iv));
    CHECKED(&iv, pt_interval_add_started(&iv));
    CHECKED(&iv, pt_interval_add_exited(&iv));
    CHECKED(&iv, pt_interval_add_vanished(&iv));
    CHECKED(&iv, pt_interval_add_restart(&iv));
    CHECKED(&iv, pt_interval_add_pss_stale(&iv));
    CHECKED(&iv, pt_interval_add_cpu(&iv, 0.25));
    CHECKED(&iv, pt_interval_add_cpu(&iv, 0.5));
    /* the GPU's memory is set whole, each time in place of the last */
    CHECKED(&iv, pt_interval_set_gpu(&iv, (struct pt_extrema){.min = 40, .max = 90, .any = true}));
    CHECKED(&iv, pt_interval_set_gpu(&iv, (struct pt_extrema){.min = 10, .max = 30, .any = true}));
    ck_assert_int_eq(iv.samples, 3);
    ck_assert_int_eq(iv.gauges[PT_G_VM].min, 500);
    ck_assert_int_eq(iv.gauges[PT_G_VM].max, 700);
    ck_assert_int_eq(iv.gauges[PT_G_RSS].min, 100);
    ck_assert_int_eq(iv.gauges[PT_G_RSS].max, 300);
    ck_assert(!iv.gauges[PT_G_PSS].any); /* not in the range polled */
    ck_assert_int_eq(iv.gauges[PT_G_GPU].min, 10);
    ck_assert_int_eq(iv.gauges[PT_G_GPU].max, 30);
    ck_assert(iv.gauges[PT_G_VM].any && iv.gauges[PT_G_VM].max == 700); /* the others as they were */
    ck_assert_int_eq(iv.started, 2);
    ck_assert_int_eq(iv.exited, 1);
    ck_assert_int_eq(iv.vanished, 1);
    ck_assert_int_eq(iv.restarts, 1);
    ck_assert_int_eq(iv.pss_stale, 1);
    ck_assert_double_eq_tol(iv.cpu_seconds, 0.75, 1e-12);

    ck_assert_double_eq_tol(pt_interval_lasted(&iv, 1.0), 1.0, 1e-12);
    CHECKED(&iv, pt_interval_end(&iv));
    ck_assert_int_eq(iv.samples + iv.started + iv.exited + iv.vanished + iv.restarts + iv.pss_stale, 0);
    ck_assert(!iv.gauges[PT_G_VM].any && !iv.gauges[PT_G_RSS].any && !iv.gauges[PT_G_GPU].any);
    ck_assert_double_eq(iv.cpu_seconds, 0);
    /* nothing short of descriptors: the counters' next delta spans the next interval alone */
    ck_assert_double_eq_tol(pt_interval_lasted(&iv, 1.0), 1.0, 1e-12);
}
END_TEST

/* The line's CPU is what was spent until its window closed; what the
 * interval's end spends after (its reads, a dump) is the next line's, so a
 * short line never says more than its time could hold. */
START_TEST(test_the_ends_own_work_goes_to_the_next_line)
{
    struct pt_interval iv = {0};
    CHECKED(&iv, pt_interval_add_cpu(&iv, 0.25));
    CHECKED(&iv, pt_interval_close_cpu(&iv));
    CHECKED(&iv, pt_interval_add_cpu(&iv, 0.5)); /* the end's reads */
    CHECKED(&iv, pt_interval_close_cpu(&iv));    /* once: a second close moves nothing */
    ck_assert_double_eq_tol(pt_interval_line_cpu(&iv), 0.25, 1e-12);
    CHECKED(&iv, pt_interval_end(&iv));
    ck_assert_double_eq_tol(pt_interval_line_cpu(&iv), 0.5, 1e-12); /* the next line's, so far */
    CHECKED(&iv, pt_interval_add_cpu(&iv, 0.125));
    CHECKED(&iv, pt_interval_end(&iv)); /* never closed (no collector): the whole is the line's, then 0 */
    ck_assert_double_eq(pt_interval_line_cpu(&iv), 0);
}
END_TEST

/* An interval short of descriptors for the counters keeps their base: the
 * next delta spans both intervals; the short bits do not outlive it. */
START_TEST(test_short_interval_keeps_the_counters_base)
{
    struct pt_interval iv = {0};
    CHECKED(&iv, pt_interval_add_short(&iv, PT_SHORT_COUNTERS));
    ck_assert_double_eq_tol(pt_interval_lasted(&iv, 1.0), 1.0, 1e-12);
    CHECKED(&iv, pt_interval_end(&iv));
    ck_assert_uint_eq(iv.short_of_fds, 0);
    ck_assert_double_eq_tol(pt_interval_lasted(&iv, 0.5), 1.5, 1e-12);
    CHECKED(&iv, pt_interval_end(&iv));
    ck_assert_double_eq_tol(pt_interval_lasted(&iv, 2.0), 2.0, 1e-12);
}
END_TEST

/* The earliest start of those that left, until the end reads are done;
 * the descriptors' worst share and least headroom, counted again at each
 * interval's last reads; whether the block-I/O delay was read over the
 * interval that ends. */
START_TEST(test_departures_fd_limits_and_end_reads)
{
    struct pt_interval iv = {0};
    CHECKED(&iv, pt_interval_add_departure(&iv, 900));
    CHECKED(&iv, pt_interval_add_departure(&iv, 400));
    CHECKED(&iv, pt_interval_add_departure(&iv, 700));
    ck_assert(iv.departed_any);
    ck_assert_uint_eq(iv.departed_first_starttime, 400);

    ck_assert(!pt_interval_begin_end_reads(&iv, 7.5, true));
    ck_assert_double_eq(iv.ended_boottime, 7.5); /* the end the line is stamped at */
    CHECKED(&iv, pt_interval_add_fd_limit(&iv, 10.0, 900));
    CHECKED(&iv, pt_interval_add_fd_limit(&iv, 50.0, 1000));
    CHECKED(&iv, pt_interval_add_fd_limit(&iv, 20.0, 100));
    ck_assert(iv.fd_limit_known);
    ck_assert_double_eq(iv.fd_limit_worst_percent, 50.0);
    ck_assert_int_eq(iv.fd_headroom_least, 100);
    CHECKED(&iv, pt_interval_end_reads_done(&iv, 40, true));
    ck_assert(iv.end_read && iv.blkio_shown && !iv.departed_any);
    ck_assert_int_eq(iv.end_fds, 40);
    CHECKED(&iv, pt_interval_end(&iv));
    ck_assert(!iv.end_read);

    /* read over the interval that ends (on at its start); off from now */
    ck_assert(pt_interval_begin_end_reads(&iv, 8.5, false));
    ck_assert_double_eq(iv.ended_boottime, 8.5);
    ck_assert(!iv.fd_limit_known); /* counted again */
    CHECKED(&iv, pt_interval_add_fd_limit(&iv, 5.0, 2000));
    ck_assert_double_eq(iv.fd_limit_worst_percent, 5.0);
    ck_assert_int_eq(iv.fd_headroom_least, 2000);
    ck_assert(!pt_interval_begin_end_reads(&iv, 9.5, true));
}
END_TEST

/* Each invariant, broken by hand, is named. */
START_TEST(test_check_names_each_broken_invariant)
{
    struct pt_interval iv;
    memset(&iv, 0, sizeof(iv));
    iv.exited = -1;
    ck_assert_str_eq(pt_interval_check(&iv), "a count is negative");
    memset(&iv, 0, sizeof(iv));
    iv.cpu_seconds = -0.1;
    ck_assert_str_eq(pt_interval_check(&iv), "our own CPU time is negative");
    iv.cpu_seconds = NAN;
    ck_assert_str_eq(pt_interval_check(&iv), "our own CPU time is negative");
    memset(&iv, 0, sizeof(iv));
    iv.gauges[PT_G_RSS] = (struct pt_extrema){.min = 5, .max = 4, .any = true};
    ck_assert_str_eq(pt_interval_check(&iv), "a gauge's min is above its max");
    memset(&iv, 0, sizeof(iv));
    iv.fd_limit_known = true;
    iv.fd_headroom_least = -3;
    ck_assert_str_eq(pt_interval_check(&iv), "the descriptors' worst share or least headroom is negative");
    memset(&iv, 0, sizeof(iv));
    iv.counter_seconds = -1;
    ck_assert_str_eq(pt_interval_check(&iv), "the counters' seconds are negative");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("interval");
    TCase *tc = unit_tcase(suite, "interval");
    tcase_add_test(tc, test_counts_and_extrema_then_end_starts_again);
    tcase_add_test(tc, test_short_interval_keeps_the_counters_base);
    tcase_add_test(tc, test_the_ends_own_work_goes_to_the_next_line);
    tcase_add_test(tc, test_departures_fd_limits_and_end_reads);
    tcase_add_test(tc, test_check_names_each_broken_invariant);
    return unit_run(suite);
}
