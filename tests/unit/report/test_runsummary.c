/* runsummary alone (runsummary.h): synthetic interval reports folded into
 * one run, each fold rule by a case, the invariants
 * (pt_runsummary_check) asserted after every interval. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/runsummary.h"

static struct pt_run_summary run;

static void check(void)
{
    char why[160];
    ck_assert_msg(pt_runsummary_check(&run, why, sizeof(why)) == 0, "%s", why);
}

static void set_int(struct pt_report *r, enum pt_metric_id id, int64_t value)
{
    r->v[id] = (struct pt_value){.present = true, .is_int = true, .i = value};
}

static void set_float(struct pt_report *r, enum pt_metric_id id, double value)
{
    r->v[id] = (struct pt_value){.present = true, .f = value};
}

static void add(const struct pt_report *r, double seconds)
{
    pt_runsummary_add(&run, r, seconds);
    check();
}

/* Three intervals of a tree whose memory rises then falls, which reads
 * and forks, and whose CPU is 50 % for 1 s then 100 % for 3 s. */
START_TEST(test_three_intervals)
{
    pt_runsummary_init(&run);
    check();
    int64_t rss[3][2] = {{100, 300}, {250, 900}, {50, 400}};
    double percent[3] = {50, 100, 100}, seconds[3] = {1, 1, 2};
    for (int i = 0; i < 3; i++) {
        struct pt_report r = {0};
        set_int(&r, PT_M_PROC_RSS_MIN, rss[i][0]);
        set_int(&r, PT_M_PROC_RSS_MAX, rss[i][1]);
        set_int(&r, PT_M_PROC_IO_READ_BYTES, 1000 * (i + 1));
        set_int(&r, PT_M_PROC_PROCESSES_STARTED, i);
        set_float(&r, PT_M_PROC_CPU_USER_SECONDS, 0.25 * (i + 1));
        set_float(&r, PT_M_PROC_CPU_PERCENT, percent[i]);
        set_int(&r, PT_M_PROC_PROCESSES, 3 - i);
        set_float(&r, PT_M_COLLECTOR_INTERVAL_SECONDS, seconds[i]);
        add(&r, seconds[i]);
    }
    struct pt_report out;
    pt_runsummary_report(&run, &out);
    ck_assert_int_eq(out.v[PT_M_PROC_RSS_MIN].i, 50);
    ck_assert_int_eq(out.v[PT_M_PROC_RSS_MAX].i, 900);
    ck_assert(out.v[PT_M_PROC_IO_READ_BYTES].is_int);
    ck_assert_int_eq(out.v[PT_M_PROC_IO_READ_BYTES].i, 6000);
    ck_assert_int_eq(out.v[PT_M_PROC_PROCESSES_STARTED].i, 3);
    ck_assert_double_eq_tol(out.v[PT_M_PROC_CPU_USER_SECONDS].f, 1.5, 1e-12);
    ck_assert_double_eq_tol(out.v[PT_M_PROC_CPU_PERCENT].f, (50 + 100 + 200) / 4.0, 1e-12);
    ck_assert_int_eq(out.v[PT_M_PROC_PROCESSES].i, 1); /* the last interval's */
    ck_assert_double_eq_tol(run.seconds, 4, 1e-12);
    ck_assert_double_eq(out.v[PT_M_COLLECTOR_INTERVAL_SECONDS].f, run.seconds); /* the run's length */
    ck_assert_uint_eq(run.intervals, 3);
}
END_TEST

/* An interval's length that is not the one added breaks the run's. */
START_TEST(test_interval_is_the_runs_length)
{
    pt_runsummary_init(&run);
    struct pt_report r = {0};
    set_float(&r, PT_M_COLLECTOR_INTERVAL_SECONDS, 0.5);
    add(&r, 0.5);
    r.v[PT_M_COLLECTOR_INTERVAL_SECONDS].present = false; /* an interval of no length */
    add(&r, 0);
    set_float(&r, PT_M_COLLECTOR_INTERVAL_SECONDS, 1.5);
    pt_runsummary_add(&run, &r, 1.25);
    char why[160];
    ck_assert_int_eq(pt_runsummary_check(&run, why, sizeof(why)), -1);
    ck_assert_str_eq(why, "collector_interval_seconds 2 is not the run's 1.75 s");
}
END_TEST

/* A metric no interval had stays absent; one that only some had is
 * folded from those alone. */
START_TEST(test_absent_stays_absent)
{
    pt_runsummary_init(&run);
    struct pt_report r = {0};
    add(&r, 1);
    set_int(&r, PT_M_PROC_PSS_MAX, 7);
    add(&r, 1);
    r.v[PT_M_PROC_PSS_MAX].present = false;
    add(&r, 1);
    struct pt_report out;
    pt_runsummary_report(&run, &out);
    ck_assert(!out.v[PT_M_PROC_RSS_MAX].present);
    ck_assert(!out.v[PT_M_PROC_CPU_PERCENT].present);
    ck_assert(out.v[PT_M_PROC_PSS_MAX].present);
    ck_assert_int_eq(out.v[PT_M_PROC_PSS_MAX].i, 7);
}
END_TEST

/* Integer deltas saturate rather than wrap into a negative amount. */
START_TEST(test_delta_saturates)
{
    pt_runsummary_init(&run);
    struct pt_report r = {0};
    set_int(&r, PT_M_PROC_IO_WRITE_BYTES, INT64_MAX - 5);
    add(&r, 1);
    set_int(&r, PT_M_PROC_IO_WRITE_BYTES, 10);
    add(&r, 1);
    ck_assert_int_eq(run.folded.v[PT_M_PROC_IO_WRITE_BYTES].i, INT64_MAX);
}
END_TEST

/* A negative or NaN interval length adds nothing to the run's time. */
START_TEST(test_bad_seconds)
{
    pt_runsummary_init(&run);
    struct pt_report r = {0};
    set_float(&r, PT_M_PROC_CPU_PERCENT, 10);
    add(&r, -1);
    add(&r, NAN);
    struct pt_report out;
    pt_runsummary_report(&run, &out);
    ck_assert_double_eq(run.seconds, 0);
    ck_assert_double_eq(out.v[PT_M_PROC_CPU_PERCENT].f, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runsummary");
    TCase *tc = tcase_create("fold");
    tcase_add_test(tc, test_three_intervals);
    tcase_add_test(tc, test_absent_stays_absent);
    tcase_add_test(tc, test_delta_saturates);
    tcase_add_test(tc, test_bad_seconds);
    tcase_add_test(tc, test_interval_is_the_runs_length);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
