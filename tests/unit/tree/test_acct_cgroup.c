/* cgroup_* rule: a cgroup target's line carries the kernel's accounting
 * of its cgroup, and with --by cgroup each group's line its own cgroup's;
 * an interval without a poll samples them at its end; --no-cgroup-metrics
 * leaves them out. docs/DESIGN.md, "Cadences" (interval end);
 * docs/METRICS.md, "The kernel's accounting of cgroup targets
 * (`cgroup_*`)" and "Breakdown by cgroup". */
#include <check.h>
#include <stdio.h>

#include "acct_fixture.h"
#include "unit.h"

/* A cgroup's cpu.stat and memory.current in the fixture. */
static void put_cgroup_stats(const char *rel, unsigned user_usec, unsigned current)
{
    char path[256], text[160];
    snprintf(path, sizeof(path), "%s/cpu.stat", rel);
    snprintf(text, sizeof(text), "usage_usec %u\nuser_usec %u\nsystem_usec 0\n", user_usec, user_usec);
    fx_write(root, path, text, -1);
    snprintf(path, sizeof(path), "%s/memory.current", rel);
    snprintf(text, sizeof(text), "%u\n", current);
    fx_write(root, path, text, -1);
}

/* A cgroup target below the cgroup2 mount (the sys root's convention)
 * carries its cgroup's accounting on its line, and with --by cgroup each
 * cgroup's line its own; "." has none (its cgroup is the target's, whose
 * counters hold the others'); --no-cgroup-metrics leaves them all out. */
START_TEST(cgroup_metrics_on_lines)
{
    struct fx_proc a = proc(200, 1, 20, 2000, 20, NULL), b = proc(300, 1, 30, 3000, 30, NULL);
    fx_put_proc(root, &a), fx_put_proc(root, &b);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "", -1);
    fx_write(root, "sys/fs/cgroup/svc/a.service/cgroup.procs", "200\n", -1);
    fx_write(root, "sys/fs/cgroup/svc/b.service/cgroup.procs", "300\n", -1);
    put_cgroup_stats("sys/fs/cgroup/svc", 1000, 900);
    put_cgroup_stats("sys/fs/cgroup/svc/a.service", 400, 300);
    put_cgroup_stats("sys/fs/cgroup/svc/b.service", 600, 600);
    collector_with_cgroup2();
    char err[256] = "";
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_CGROUP;
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/svc"};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    opt.breakdown = PT_BY_NONE;
    opt.collect_cgroup = false;
    ck_assert_msg(pt_collector_add_target(c, "off", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    pt_collector_tick(c, 0.0);
    put_cgroup_stats("sys/fs/cgroup/svc", 1500, 700);
    put_cgroup_stats("sys/fs/cgroup/svc/a.service", 700, 100);
    put_cgroup_stats("sys/fs/cgroup/svc/b.service", 800, 600);
    pt_collector_tick(c, 0.1); /* a poll: memory in use */
    const struct pt_batch *bt = pt_collector_end_interval(c, 1.0);
    ck_assert(value(bt, 0, PT_M_CGROUP_CPU_USER_SECONDS)->present);
    ck_assert_double_eq_tol(value(bt, 0, PT_M_CGROUP_CPU_USER_SECONDS)->f, 0.0005, 1e-9);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MIN), 700);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MAX), 900);
    const struct pt_report *ra = group(bt, "a.service"), *rb = group(bt, "b.service");
    ck_assert_ptr_nonnull(ra);
    ck_assert_ptr_nonnull(rb);
    ck_assert(ra->v[PT_M_CGROUP_CPU_USER_SECONDS].present);
    ck_assert_double_eq_tol(ra->v[PT_M_CGROUP_CPU_USER_SECONDS].f, 0.0003, 1e-9);
    ck_assert_double_eq_tol(rb->v[PT_M_CGROUP_CPU_USER_SECONDS].f, 0.0002, 1e-9);
    ck_assert_int_eq(ra->v[PT_M_CGROUP_MEMORY_CURRENT_MAX].i, 300);
    ck_assert(!value(bt, 0, PT_M_CGROUP_PRESSURE_CPU_SOME_SECONDS)->present); /* no cpu.pressure: left out */
    ck_assert(!value(bt, 1, PT_M_CGROUP_CPU_USER_SECONDS)->present);          /* switched off */
    ck_assert_int_eq(ivalue(bt, 1, PT_M_PROC_PROCESSES), 2);
    /* an interval without a poll (the last one after a launched command
     * exits can be): its end samples the cgroups as it does the members */
    put_cgroup_stats("sys/fs/cgroup/svc", 1600, 650);
    bt = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MIN), 650);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MAX), 650);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_cgroup");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, cgroup_metrics_on_lines);
    return unit_run(s);
}
