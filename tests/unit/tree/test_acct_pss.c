/* PSS rule: a member's smaps_rollup is read at a sample (the interval's
 * end, or its own cadence) when it can have moved since its last read:
 * never read, reopened, a member joined, left or exec'd, any member's
 * statm or faults moved (a child's copy on write moves its parent's PSS),
 * and at least at every Nth sample (--pss-every) for what no counter of
 * the tree shows; its last values stand in otherwise, and are not stale.
 * A member slower than the PSS budget (off by default) is read less
 * often, and that is said once in a while. The comment above
 * PT_SMAPS_MAX_PERIOD in tree/sampling.c; docs/METRICS.md, PSS. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "acct_fixture.h"
#include "preads.h"
#include "util/ratelimit.h"
#include "unit.h"

/* Target "app" on pid with --pss-every every, and its first tick. */
static void watch_pid_every(pid_t pid, unsigned every)
{
    pt_collector_free(c);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.pss_every = every;
    add_pid_target_with("app", pid, &opt);
    pt_collector_tick(c, 0.0);
}

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

/* --pss-every 1: every member read at every sample, as before the rule
 * (the PSS moves here with nothing else: another process let go of a
 * shared page). */
START_TEST(pss_every_1_reads_at_every_sample)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_every(100, 1);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    for (int sample = 1; sample <= 12; sample++) {
        r.pss_kb = 10 + (uint64_t)sample; /* statm, stat the same */
        fx_put_proc(root, &r);
        long reads = unit_smaps_reads();
        b = pt_collector_end_interval(c, 1.0 + sample);
        ck_assert_int_eq(unit_smaps_reads() - reads, 1);
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (10 + sample) * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    }
}
END_TEST

/* A movement no counter of the tree shows (a process outside it let go
 * of a page it shares, KSM) shows within --pss-every samples (the
 * default, 6): a carried value is at most 5 samples older than the
 * sample it stands in, and is not counted stale. */
START_TEST(pss_moved_outside_shows_within_every_samples)
{
    struct pt_target_options defaults;
    pt_target_options_init(&defaults);
    ck_assert_uint_eq(defaults.pss_every, 6);
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    int fresh = 0;
    for (int sample = 1; sample <= 18; sample++) {
        r.pss_kb = 10 + (uint64_t)sample;
        fx_put_proc(root, &r);
        b = pt_collector_end_interval(c, 1.0 + sample);
        int64_t got = ivalue(b, 0, PT_M_PROC_PSS_MAX) / 1024;
        ck_assert_int_le(got, 10 + sample);
        ck_assert_int_ge(got, 10 + sample - 5);
        fresh += got == 10 + sample;
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    }
    ck_assert_int_eq(fresh, 3); /* one read in 6 */
}
END_TEST

/* The prefork tree of issue 38, with --pss-every 1000: the rule, not the
 * bound, reads it again. A fork shares all of the parent's pages: its
 * PSS halves, its statm the same; the child joins. While nothing moves
 * (the file is changed behind the counters' back, as only a process
 * outside the tree could) the last values stand in. Then the child
 * writes some of the pages they share (copy on write): each gets a page
 * of its own and both PSS rise, with neither statm moving, only the
 * child's faults. Then the child exits and the parent's pages are its
 * own again. At each step the tree's PSS is the members' own. */
START_TEST(pss_across_a_fork_and_copy_on_write)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_every(100, 1000);
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
    /* nothing of the tree moves: not read, not stale */
    r.pss_kb = k.pss_kb = 50;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    long reads = unit_smaps_reads();
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(unit_smaps_reads(), reads);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    /* the child writes 2 of the shared pages: 8 / 2 + 2 each; two
     * faults of the child's, nothing of the parent's */
    r.pss_kb = k.pss_kb = 6;
    k.minflt += 2;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert_int_eq(unit_smaps_reads() - reads, 2);
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

/* Any member's statm that moved reads every member again (with
 * --pss-every 1000): the child maps more of a file the parent maps too,
 * and the parent's share of it falls. Then the parent's own faults. */
START_TEST(another_members_statm_rereads_the_tree)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 10, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    watch_pid_every(100, 1000);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 20 * 1024);
    k.resident_pages = 14;
    k.pss_kb = 12;
    r.pss_kb = 8;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    long reads = unit_smaps_reads();
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(unit_smaps_reads() - reads, 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 20 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), 20 * 1024);
    /* its own faults alone (a major fault: a page read back in) */
    r.majflt++;
    r.pss_kb = 9;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(unit_smaps_reads() - reads, 4);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 21 * 1024);
}
END_TEST

/* A still tree of 50 members, --pss-every 3: after the first sample each
 * member is read at one sample in 3, in turn (a third of them at each),
 * the sums the same. A member that joins reads the whole tree again. */
START_TEST(still_tree_read_in_turn)
{
    enum { KIDS = 49 };
    char children[KIDS * 8] = "";
    for (int i = 0; i < KIDS; i++) {
        char one[16];
        snprintf(one, sizeof(one), "%s%d", i ? " " : "", 101 + i);
        strcat(children, one);
        struct fx_proc k = proc(101 + i, 100, 11, 0, 10, NULL);
        fx_put_proc(root, &k);
    }
    struct fx_proc r = proc(100, 1, 10, 0, 10, children);
    fx_put_proc(root, &r);
    long reads = unit_smaps_reads();
    watch_pid_every(100, 3);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), KIDS + 1);
    ck_assert_int_eq(unit_smaps_reads() - reads, KIDS + 1);
    long total = 0;
    for (int sample = 1; sample <= 9; sample++) {
        reads = unit_smaps_reads();
        b = pt_collector_end_interval(c, 1.0 + sample);
        long now = unit_smaps_reads() - reads;
        ck_assert_int_ge(now, (KIDS + 1) / 3);
        ck_assert_int_le(now, (KIDS + 1) / 3 + 1);
        total += now;
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (KIDS + 1) * 10 * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    }
    ck_assert_int_eq(total, 3 * (KIDS + 1)); /* each member once in every 3 samples */
    /* a fork: the whole tree is read at the next sample */
    struct fx_proc late = proc(200, 100, 20, 0, 10, NULL);
    fx_put_proc(root, &late);
    strcat(children, " 200");
    r.children = children;
    fx_put_proc(root, &r);
    pt_collector_tick(c, 11.0);
    reads = unit_smaps_reads();
    b = pt_collector_end_interval(c, 11.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), KIDS + 2);
    ck_assert_int_eq(unit_smaps_reads() - reads, KIDS + 2);
}
END_TEST

/* On its own cadence (--pss-interval) a sample comes between the
 * interval's ends, and the polls read the faults of the exposed members
 * only: a child's copy on write is still seen at the next sample, its
 * counters read first. */
START_TEST(copy_on_write_seen_on_the_pss_cadence)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 10, NULL);
    r.pss_kb = k.pss_kb = 5;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.pss_interval = 0.25;
    char err[256];
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.pss_every = 1000;
    add_pid_target_with("app", 100, &opt);
    for (int tick = 0; tick <= 10; tick++)
        pt_collector_tick(c, 0.1 * tick + 1e-9);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.05);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    /* the child writes 2 pages it shares: 2 faults of its own */
    r.pss_kb = k.pss_kb = 6;
    k.minflt += 2;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    for (int tick = 11; tick <= 13; tick++) /* a sample at 1.25 */
        pt_collector_tick(c, 0.1 * tick + 1e-9);
    b = pt_collector_end_interval(c, 1.35);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), 12 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 12 * 1024);
}
END_TEST

/* A member that execs (its name changes) has a new memory map: its PSS is
 * read at the next sample, with --pss-every 1000 too. */
START_TEST(exec_rereads_pss)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_every(100, 1000);
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

/* The budget and the rule compose: a slow member that waits while
 * nothing of its tree moved is not stale (the rule would not read it
 * either); one that waits while its memory moved is. */
START_TEST(slow_still_member_not_stale)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_with_no_pss_budget(100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0); /* read: slow, waits 1 */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    b = pt_collector_end_interval(c, 2.0); /* waits; nothing moved */
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    r.resident_pages = 11;
    r.pss_kb = 11;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 3.0); /* read: slow, waits 3 */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 11 * 1024);
    r.resident_pages = 12;
    r.pss_kb = 12;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 4.0); /* waits while it moved */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 11 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 1);
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
    tcase_add_test(tc, slow_still_member_not_stale);
    tcase_add_test(tc, pss_every_1_reads_at_every_sample);
    tcase_add_test(tc, pss_moved_outside_shows_within_every_samples);
    tcase_add_test(tc, pss_across_a_fork_and_copy_on_write);
    tcase_add_test(tc, another_members_statm_rereads_the_tree);
    tcase_add_test(tc, still_tree_read_in_turn);
    tcase_add_test(tc, copy_on_write_seen_on_the_pss_cadence);
    tcase_add_test(tc, exec_rereads_pss);
    tcase_add_test(tc, pss_on_its_own_cadence);
    return unit_run(s);
}
