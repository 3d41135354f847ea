/* PSS rule: smaps_rollup is read for every member at every sample (the
 * interval's end, or its own cadence), since a member's PSS moves with
 * its statm unchanged (a fork, a copy on write, an exec); only a member
 * slower than the PSS budget (off by default) is read less often, and
 * that is said once in a while. docs/DESIGN.md, "Cadences" (PSS). */
#include <check.h>
#include <string.h>

#include "acct_fixture.h"
#include "util/ratelimit.h"
#include "unit.h"

/* PSS on its own cadence: several samples in an interval give a real
 * min and max; an interval without a sample leaves PSS out. */
START_TEST(pss_on_its_own_cadence)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.pss_interval = 0.25;
    char err[256];
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    for (int tick = 0; tick <= 10; tick++) { /* 0.0 .. 1.0: PSS at .25 .5 .75 1.0 */
        r.pss_kb = 100 + (uint64_t)tick;
        r.resident_pages = 10 + (uint64_t)tick; /* memory that moves is read again */
        fx_put_proc(root, &r);
        pt_collector_tick(c, 0.1 * tick + 1e-9);
    }
    const struct pt_batch *b = pt_collector_end_interval(c, 1.05);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), (100 + 3) * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (100 + 10) * 1024);
    b = pt_collector_end_interval(c, 1.1); /* no PSS sample in between */
    ck_assert(!value(b, 0, PT_M_PROC_PSS_MAX)->present);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* A member's PSS moves with its statm unchanged when another process
 * starts or stops sharing its pages. Nothing cheaper than smaps_rollup
 * tells (membership.c), so it is read at every sample: each change shows at
 * the next one, and no value is carried. */
START_TEST(pss_read_at_every_sample)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    for (int sample = 1; sample <= 12; sample++) {
        r.pss_kb = 10 + (uint64_t)sample; /* another process let go of a shared page: statm is the same */
        fx_put_proc(root, &r);
        b = pt_collector_end_interval(c, 1.0 + sample);
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (10 + sample) * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    }
}
END_TEST

/* The prefork tree of issue 38. A fork shares all of the parent's pages:
 * its PSS halves, its statm the same. Then the child writes some of the
 * pages they share (copy on write): each gets a page of its own and both
 * PSS rise, with neither statm moving and no one joining or leaving. Then
 * the child exits and the parent's pages are its own again. At each
 * step the tree's PSS is the members' own. */
START_TEST(pss_across_a_fork_and_copy_on_write)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    /* the fork: 10 pages shared by two */
    struct fx_proc k = proc(101, 100, 11, 0, 10, NULL);
    r.children = "101";
    r.pss_kb = k.pss_kb = 5;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    pt_collector_tick(c, 2.5); /* discovery: the child joins */
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    /* the child writes 2 of the shared pages: 8 / 2 + 2 each */
    r.pss_kb = k.pss_kb = 6;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 12 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    /* the child exits, reaped by the parent */
    fx_vanish(root, 101);
    r.children = NULL;
    r.pss_kb = 10;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 6.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* A member that execs (its name changes) has a new memory map: its PSS is
 * read at the next sample, idle tree or not. */
START_TEST(exec_rereads_pss)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    r.comm = "newprog";
    r.pss_kb = 3;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 3 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* Target "app" on pid, with a smaps_rollup budget no read can meet, not
 * yet ticked. */
static void watch_pid_with_no_pss_budget(pid_t pid)
{
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = pid};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.pss_budget = 1e-12;
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)), 0);
}

/* The smaps_rollup cost guard, off by default (a carried PSS can be
 * wrong: membership.c): with a budget no read can meet, a member is read at
 * closes 1, 3, 7, ... and its last values stand in between. */
START_TEST(slow_smaps_read_less_often)
{
    struct pt_target_options defaults;
    pt_target_options_init(&defaults);
    ck_assert(defaults.pss_budget == 0);
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_with_no_pss_budget(100);
    pt_collector_tick(c, 0.0);
    int64_t expected_pss[] = {10, 10, 30, 30, 30, 30, 70};
    int64_t expected_stale[] = {0, 1, 0, 1, 1, 1, 0};
    for (int close = 0; close < 7; close++) {
        r.pss_kb = 10 + 10 * (uint64_t)close; /* changes at every interval */
        r.resident_pages = 10 + (uint64_t)close;
        fx_put_proc(root, &r);
        const struct pt_batch *b = pt_collector_end_interval(c, 1.0 + close);
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), expected_pss[close] * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), expected_stale[close]);
    }
}
END_TEST

static int count_said(const char *words)
{
    int n = 0;
    for (const char *p = said_text; (p = strstr(p, words)); p++)
        n++;
    return n;
}

/* Three members slow at once say it once, not three times: the line is
 * rate-limited per target (ratelimit.h), whose own rule is checked here
 * with a clock of the test's. */
START_TEST(slow_smaps_said_once_in_a_while)
{
    struct pt_ratelimit rl = {0};
    unsigned held = 99;
    ck_assert(pt_ratelimit_pass(&rl, 0.0, 600, &held));
    ck_assert_uint_eq(held, 0);
    ck_assert(!pt_ratelimit_pass(&rl, 1.0, 600, &held));
    ck_assert(!pt_ratelimit_pass(&rl, 599.9, 600, &held));
    ck_assert(pt_ratelimit_pass(&rl, 600.0, 600, &held));
    ck_assert_uint_eq(held, 2);
    ck_assert(!pt_ratelimit_pass(&rl, 601.0, 600, &held));
    /* the same rule with the line's tail: none for nothing held back */
    struct pt_ratelimit said = {0};
    char tail[96] = "stale";
    ck_assert(pt_ratelimit_say(&said, 0.0, "like it", tail, sizeof(tail)));
    ck_assert_str_eq(tail, "");
    ck_assert(!pt_ratelimit_say(&said, 599.9, "like it", tail, sizeof(tail)));
    ck_assert(pt_ratelimit_say(&said, 600.0, "like it", tail, sizeof(tail)));
    ck_assert_str_eq(tail, " (and 1 more like it in the last 10 minutes)");

    struct fx_proc r = proc(100, 1, 10, 0, 10, "101 102");
    struct fx_proc k1 = proc(101, 100, 11, 0, 10, NULL), k2 = proc(102, 100, 12, 0, 10, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &k1);
    fx_put_proc(root, &k2);
    watch_pid_with_no_pss_budget(100);
    listen_to_the_log();
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    pt_log_set_sink(NULL, NULL);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(count_said("smaps_rollup of pid"), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_pss");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, slow_smaps_read_less_often);
    tcase_add_test(tc, slow_smaps_said_once_in_a_while);
    tcase_add_test(tc, pss_read_at_every_sample);
    tcase_add_test(tc, pss_across_a_fork_and_copy_on_write);
    tcase_add_test(tc, exec_rereads_pss);
    tcase_add_test(tc, pss_on_its_own_cadence);
    return unit_run(s);
}
