/* totals alone (totals.h): synthetic interval lines turned into totals,
 * the invariants (pt_totals_check, and never decreasing) asserted after
 * every step, the groups' bound and their index against a plain model. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/totals.h"

static struct pt_totals totals;

static void check(void)
{
    char why[200];
    ck_assert_msg(pt_totals_check(&totals, why, sizeof(why)) == 0, "%s", why);
}

static void set_int(struct pt_report *r, enum pt_metric_id id, int64_t value)
{
    r->v[id] = (struct pt_value){.present = true, .is_int = true, .i = value};
}

static void set_float(struct pt_report *r, enum pt_metric_id id, double value)
{
    r->v[id] = (struct pt_value){.present = true, .f = value};
}

static double as_double(const struct pt_value *v)
{
    return v->is_int ? (double)v->i : v->f;
}

/* Every DELTA present before is present after, not lower. */
static void assert_not_lower(const struct pt_report *before, const struct pt_report *after)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].kind != PT_KIND_DELTA || !before->v[id].present || !after->v[id].present)
            continue;
        ck_assert_msg(as_double(&after->v[id]) >= as_double(&before->v[id]), "%s fell from %g to %g",
                      pt_catalog[id].name, as_double(&before->v[id]), as_double(&after->v[id]));
    }
}

/* The line of one interval: a DELTA of each kind of value, and a
 * gauge, a count and a ratio that are no business of totals. */
static struct pt_report interval(int64_t bytes, double cpu, int64_t rss, double percent)
{
    struct pt_report r;
    memset(&r, 0, sizeof(r));
    set_int(&r, PT_M_PROC_IO_READ_BYTES, bytes);
    set_int(&r, PT_M_PROC_PROCESSES_STARTED, 1);
    set_float(&r, PT_M_PROC_CPU_USER_SECONDS, cpu);
    set_float(&r, PT_M_COLLECTOR_INTERVAL_SECONDS, 1.0);
    set_int(&r, PT_M_PROC_RSS_MAX, rss);
    set_int(&r, PT_M_PROC_PROCESSES, 3);
    set_float(&r, PT_M_PROC_CPU_PERCENT, percent);
    return r;
}

START_TEST(test_line_totals)
{
    pt_totals_init(&totals, 0);
    check();
    int64_t bytes[4] = {100, 0, 4096, 7};
    double cpu[4] = {0.25, 0.5, 0, 0.01};
    int64_t want_bytes = 0;
    double want_cpu = 0;
    struct pt_report last;
    memset(&last, 0, sizeof(last));
    for (int i = 0; i < 4; i++) {
        struct pt_report r = interval(bytes[i], cpu[i], 1000 - 100 * i, 10.0 * i);
        pt_totals_line(&totals, &r);
        check();
        assert_not_lower(&last, &r);
        last = r;
        want_bytes += bytes[i];
        want_cpu += cpu[i];
        ck_assert(r.v[PT_M_PROC_IO_READ_BYTES].is_int);
        ck_assert_int_eq(r.v[PT_M_PROC_IO_READ_BYTES].i, want_bytes);
        ck_assert_int_eq(r.v[PT_M_PROC_PROCESSES_STARTED].i, i + 1);
        ck_assert(!r.v[PT_M_PROC_CPU_USER_SECONDS].is_int);
        ck_assert_double_eq_tol(r.v[PT_M_PROC_CPU_USER_SECONDS].f, want_cpu, 1e-12);
        ck_assert_double_eq(r.v[PT_M_COLLECTOR_INTERVAL_SECONDS].f, i + 1.0);
        /* the others as handed in */
        ck_assert_int_eq(r.v[PT_M_PROC_RSS_MAX].i, 1000 - 100 * i);
        ck_assert_int_eq(r.v[PT_M_PROC_PROCESSES].i, 3);
        ck_assert_double_eq(r.v[PT_M_PROC_CPU_PERCENT].f, 10.0 * i);
        ck_assert(!r.v[PT_M_PROC_IO_WRITE_BYTES].present);
    }
    pt_totals_free(&totals);
}
END_TEST

/* Unknown in one interval: absent there, as in delta mode; the next
 * line that has it goes on from the sum before. */
START_TEST(test_absent_stays_absent)
{
    pt_totals_init(&totals, 0);
    struct pt_report r = interval(10, 0.5, 1, 0);
    pt_totals_line(&totals, &r);
    check();
    struct pt_report gap = interval(10, 0.5, 1, 0);
    gap.v[PT_M_PROC_IO_READ_BYTES].present = false;
    pt_totals_line(&totals, &gap);
    check();
    ck_assert(!gap.v[PT_M_PROC_IO_READ_BYTES].present);
    ck_assert_int_eq(gap.v[PT_M_PROC_PROCESSES_STARTED].i, 2);
    struct pt_report after = interval(5, 0.5, 1, 0);
    pt_totals_line(&totals, &after);
    check();
    assert_not_lower(&r, &after);
    ck_assert_int_eq(after.v[PT_M_PROC_IO_READ_BYTES].i, 15);
    pt_totals_free(&totals);
}
END_TEST

START_TEST(test_saturates)
{
    pt_totals_init(&totals, 0);
    struct pt_report last;
    memset(&last, 0, sizeof(last));
    for (int i = 0; i < 3; i++) {
        struct pt_report r = interval(INT64_MAX - 5, 1e300, 0, 0);
        set_float(&r, PT_M_COLLECTOR_INTERVAL_SECONDS, 1.7e308);
        pt_totals_line(&totals, &r);
        check();
        assert_not_lower(&last, &r);
        last = r;
        ck_assert_int_eq(r.v[PT_M_PROC_IO_READ_BYTES].i, i == 0 ? INT64_MAX - 5 : INT64_MAX);
        ck_assert(isfinite(r.v[PT_M_COLLECTOR_INTERVAL_SECONDS].f));
    }
    pt_totals_free(&totals);
}
END_TEST

/* A value no report holds (negative, NaN) adds nothing. */
START_TEST(test_bad_value_adds_nothing)
{
    pt_totals_init(&totals, 0);
    struct pt_report r = interval(10, 1, 0, 0);
    pt_totals_line(&totals, &r);
    struct pt_report bad = interval(-3, NAN, 0, 0);
    pt_totals_line(&totals, &bad);
    check();
    ck_assert_int_eq(bad.v[PT_M_PROC_IO_READ_BYTES].i, 10);
    ck_assert_double_eq(bad.v[PT_M_PROC_CPU_USER_SECONDS].f, 1);
    struct pt_report inf = interval(0, INFINITY, 0, 0);
    pt_totals_line(&totals, &inf);
    check();
    ck_assert_double_eq(inf.v[PT_M_PROC_CPU_USER_SECONDS].f, 1);
    pt_totals_free(&totals);
}
END_TEST

static struct pt_group_report group(const char *key, int64_t bytes)
{
    struct pt_group_report g = {.name = key, .key = key};
    g.report = interval(bytes, 0.125, 7, 1);
    return g;
}

/* A group that empties and comes back goes on from its total; "other",
 * the group past the limit, is a series as any. */
START_TEST(test_group_comes_back)
{
    pt_totals_init(&totals, 2 * (2 + 1));
    struct pt_group_report g[3] = {group("a", 100), group("b", 10), group("other", 1)};
    pt_totals_groups(&totals, g, 3);
    check();
    ck_assert_int_eq(g[0].report.v[PT_M_PROC_IO_READ_BYTES].i, 100);
    struct pt_group_report only_b[1] = {group("b", 10)};
    pt_totals_groups(&totals, only_b, 1);
    check();
    ck_assert_int_eq(only_b[0].report.v[PT_M_PROC_IO_READ_BYTES].i, 20);
    struct pt_group_report back[3] = {group("other", 1), group("a", 5), group("b", 0)};
    pt_totals_groups(&totals, back, 3);
    check();
    ck_assert_int_eq(back[0].report.v[PT_M_PROC_IO_READ_BYTES].i, 2);
    ck_assert_int_eq(back[1].report.v[PT_M_PROC_IO_READ_BYTES].i, 105);
    ck_assert_int_eq(back[2].report.v[PT_M_PROC_IO_READ_BYTES].i, 20);
    ck_assert_double_eq(back[1].report.v[PT_M_PROC_CPU_USER_SECONDS].f, 0.25);
    ck_assert_int_eq(back[1].report.v[PT_M_PROC_RSS_MAX].i, 7); /* a gauge, untouched */
    /* the line's sums are apart from the groups' */
    struct pt_report line = interval(1, 0, 0, 0);
    pt_totals_line(&totals, &line);
    check();
    ck_assert_int_eq(line.v[PT_M_PROC_IO_READ_BYTES].i, 1);
    pt_totals_free(&totals);
}
END_TEST

/* More groups than kept, handed in: kept grows to hold them all. */
START_TEST(test_more_than_kept)
{
    pt_totals_init(&totals, 0);
    char names[5][8];
    struct pt_group_report g[5];
    for (int round = 1; round <= 2; round++) {
        for (int i = 0; i < 5; i++) {
            snprintf(names[i], sizeof(names[i]), "g%d", i);
            g[i] = group(names[i], i);
        }
        pt_totals_groups(&totals, g, 5);
        check();
        for (int i = 0; i < 5; i++)
            ck_assert_int_eq(g[i].report.v[PT_M_PROC_IO_READ_BYTES].i, round * i);
    }
    ck_assert_uint_ge(totals.kept, 5);
    pt_totals_free(&totals);
}
END_TEST

/* The model: every name's sum and when it was last handed in, letting
 * go of the one not handed in for the longest (the first by name of
 * those) when more than kept are held, as totals.h says. */
#define POOL 40
#define KEPT 8
static struct {
    bool held;
    int64_t sum;
    uint64_t seen;
} model[POOL];

static char names[POOL][8];

static void model_call(const int *picked, const int64_t *bytes, size_t n, uint64_t call, int64_t *want)
{
    for (size_t i = 0; i < n; i++)
        if (model[picked[i]].held)
            model[picked[i]].seen = call;
    for (size_t i = 0; i < n; i++) {
        int k = picked[i];
        if (!model[k].held) {
            size_t held = 0;
            int oldest = -1;
            for (int j = 0; j < POOL; j++) {
                if (!model[j].held)
                    continue;
                held++;
                if (oldest < 0 || model[j].seen < model[oldest].seen ||
                    (model[j].seen == model[oldest].seen && strcmp(names[j], names[oldest]) < 0))
                    oldest = j;
            }
            if (held == KEPT) {
                ck_assert_uint_lt(model[oldest].seen, call); /* never one of this call */
                model[oldest].held = false;
            }
            model[k].held = true;
            model[k].sum = 0;
        }
        model[k].seen = call;
        model[k].sum += bytes[i];
        want[i] = model[k].sum;
    }
}

/* Names come and go far more than kept: at most KEPT are held, a name
 * of two calls running goes on from its total, each sum is the model's
 * (which also checks the index after the groups let go: a name still
 * held is found, one let go starts again). */
START_TEST(test_churn_is_bounded)
{
    for (int i = 0; i < POOL; i++)
        snprintf(names[i], sizeof(names[i]), "n%d", i);
    memset(model, 0, sizeof(model));
    pt_totals_init(&totals, KEPT);
    unsigned seed = 12345;
    for (uint64_t call = 1; call <= 3000; call++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = 1 + (seed >> 16) % (KEPT / 2); /* below kept: no growth */
        int picked[KEPT];
        int64_t bytes[KEPT], want[KEPT];
        struct pt_group_report g[KEPT];
        for (size_t i = 0; i < n; i++) {
            bool again;
            do { /* keys of one call are unique */
                seed = seed * 1103515245u + 12345u;
                picked[i] = (int)((seed >> 16) % (call % 7 == 0 ? POOL : 12));
                again = false;
                for (size_t j = 0; j < i; j++)
                    again |= picked[j] == picked[i];
            } while (again);
            bytes[i] = (int64_t)((seed >> 8) % 1000);
            g[i] = group(names[picked[i]], bytes[i]);
        }
        model_call(picked, bytes, n, call, want);
        pt_totals_groups(&totals, g, n);
        check();
        ck_assert_uint_le(totals.n_groups, KEPT);
        ck_assert_uint_eq(totals.kept, KEPT);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(g[i].report.v[PT_M_PROC_IO_READ_BYTES].i == want[i], "call %llu %s: %lld, the model %lld",
                          (unsigned long long)call, names[picked[i]],
                          (long long)g[i].report.v[PT_M_PROC_IO_READ_BYTES].i, (long long)want[i]);
    }
    pt_totals_free(&totals);
}
END_TEST

START_TEST(test_parse)
{
    enum pt_counters c = PT_COUNTERS_TOTAL;
    ck_assert_int_eq(pt_totals_counters_parse("delta", &c), 0);
    ck_assert_int_eq(c, PT_COUNTERS_DELTA);
    ck_assert_int_eq(pt_totals_counters_parse("total", &c), 0);
    ck_assert_int_eq(c, PT_COUNTERS_TOTAL);
    ck_assert_int_eq(pt_totals_counters_parse("Total", &c), -1);
    ck_assert_int_eq(pt_totals_counters_parse("", &c), -1);
    ck_assert_int_eq(c, PT_COUNTERS_TOTAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("totals");
    TCase *tc = tcase_create("totals");
    tcase_add_test(tc, test_line_totals);
    tcase_add_test(tc, test_absent_stays_absent);
    tcase_add_test(tc, test_saturates);
    tcase_add_test(tc, test_bad_value_adds_nothing);
    tcase_add_test(tc, test_group_comes_back);
    tcase_add_test(tc, test_more_than_kept);
    tcase_add_test(tc, test_churn_is_bounded);
    tcase_add_test(tc, test_parse);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
