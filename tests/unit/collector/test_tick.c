/* The tick's deadlines (collectortick.c) at large CLOCK_MONOTONIC values.
 *
 * Why: the tick returns now + a cadence as a double; past 2^24 s of
 * uptime (194 days) a cadence of 1 ns is lost to rounding, the deadline
 * equalled now and assert(next > now) aborted proctree-execd (and
 * collectd, whose config took any positive number) (issue 36). The tick
 * must return a deadline after now for every cadence, never abort. */
#include <check.h>
#include <stdlib.h>

#include "proctree/collector.h"
#include "fixture.h"
#include "unit.h"

static char *root;
static struct pt_collector *c;

static void setup(void)
{
    root = fx_root_new();
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
    fx_put_proc(root, &(struct fx_proc){.pid = 100, .ppid = 1, .comm = "app", .resident_pages = 1});
}

static void teardown(void)
{
    pt_collector_free(c);
    c = NULL;
    fx_root_free(root);
}

/* A collector on the fixture with every cadence set to seconds (the PSS
 * one on its own timer) and a target on pid 100. */
static void collector_every(double seconds)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.poll_interval = config.discovery_interval = config.pss_interval = seconds;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "collector: %s", err);
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    ck_assert_msg(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
}

/* Tick from start as a frontend does, each time at the deadline the last
 * tick gave: every deadline is after its now, and at least min later. */
static void tick_from(double start, double min)
{
    double now = start;
    for (int i = 0; i < 50; i++) {
        double next = pt_collector_tick(c, now);
        ck_assert_msg(next > now, "tick %d at %.17g: deadline %.17g", i, now, next);
        ck_assert_msg(next - now >= min, "tick %d at %.17g: deadline only %.3g s later", i, now, next - now);
        now = next;
    }
}

/* 1 ns, which proctree-execd's --poll-interval took, at 1.7e7 s of
 * uptime: the tick keeps PT_DURATION_MIN_MS (an ulp there is 3.7 ns). */
START_TEST(nanosecond_cadence_after_194_days)
{
    collector_every(1e-9);
    tick_from(1.7e7, PT_DURATION_MIN_MS / 1000.0 * 0.999);
}
END_TEST

/* collectd took 0.<300 zeros>1: the same, from the first tick. */
START_TEST(vanishing_cadence)
{
    collector_every(1e-301);
    tick_from(1.7e7, PT_DURATION_MIN_MS / 1000.0 * 0.999);
}
END_TEST

/* The table's least cadence where even 1 ms is lost to rounding (2^44 s,
 * an ulp of 4 ms): the deadline is still after now, not a spin. */
START_TEST(millisecond_cadence_beyond_its_precision)
{
    collector_every(PT_DURATION_MIN_MS / 1000.0);
    tick_from(17592186044416.0, 0);
}
END_TEST

/* The table's longest cadence: one deadline a day. */
START_TEST(day_cadence)
{
    collector_every(PT_DURATION_MAX_MS / 1000.0);
    double now = 1.7e7, next = pt_collector_tick(c, now);
    ck_assert_double_eq(next, now + PT_DURATION_MAX_MS / 1000.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tick");
    TCase *tc = unit_tcase(s, "deadlines");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, nanosecond_cadence_after_194_days);
    tcase_add_test(tc, vanishing_cadence);
    tcase_add_test(tc, millisecond_cadence_beyond_its_precision);
    tcase_add_test(tc, day_cadence);
    return unit_run(s);
}
