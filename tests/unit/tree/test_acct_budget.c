/* Descriptor budget rule: the descriptors kept open stay within the
 * budget, spent where they save most (each member's statm, then its stat,
 * then the files read once an interval; a growing tree takes seats back
 * for its statm); files read by path give the same numbers and never a
 * reused pid's; out of descriptors, a sum not read whole is left out.
 * docs/DESIGN.md, "Policies" (Descriptors). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "proctree/fdbudget.h"
#include "unit.h"

START_TEST(budget_hot_files_may_use_all_of_it)
{
    struct pt_fd_budget b = {.limit = 8};
    ck_assert(pt_fdbudget_take(&b, true));
    for (int i = 0; i < 6; i++)
        ck_assert(pt_fdbudget_take(&b, false));
    ck_assert(!pt_fdbudget_take(&b, false)); /* the others: three quarters */
    ck_assert(b.reached);
    ck_assert(pt_fdbudget_take(&b, true)); /* hot ones: all of it */
    ck_assert(!pt_fdbudget_take(&b, true));
    pt_fdbudget_give(&b, true);
    ck_assert(!pt_fdbudget_take(&b, false)); /* room, but the others have their share */
    ck_assert(pt_fdbudget_take(&b, true));
    pt_fdbudget_give(&b, false);
    ck_assert(pt_fdbudget_take(&b, false));
    ck_assert_uint_eq(b.kept, 8);
    ck_assert_uint_eq(b.by_rank[PT_FD_OTHER], 6);
}
END_TEST

/* Members reserve a statm, then a stat, each: the others get what is
 * left, and give it back when the tree grows. */
START_TEST(budget_members_reserve_statm_then_stat)
{
    struct pt_fd_budget b = {.limit = 10};
    for (int i = 0; i < 3; i++)
        pt_fdbudget_join(&b);
    /* 3 statm + 3 stat reserved: 4 left for the others (under 3/4 of 10) */
    for (int i = 0; i < 4; i++)
        ck_assert(pt_fdbudget_take_rank(&b, PT_FD_OTHER));
    ck_assert(!pt_fdbudget_take_rank(&b, PT_FD_OTHER));
    ck_assert(!pt_fdbudget_over(&b, PT_FD_OTHER));
    for (int i = 0; i < 3; i++)
        ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STAT));
    for (int i = 0; i < 3; i++)
        ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STATM));
    ck_assert_uint_eq(b.kept, 10);
    /* two members more: their statm first, then their stat */
    pt_fdbudget_join(&b);
    pt_fdbudget_join(&b);
    ck_assert(pt_fdbudget_over(&b, PT_FD_OTHER));
    ck_assert(pt_fdbudget_over(&b, PT_FD_STAT)); /* 2 statm wanted, 0 free */
    ck_assert(!pt_fdbudget_over(&b, PT_FD_STATM));
    ck_assert(!pt_fdbudget_take_rank(&b, PT_FD_STATM));
    pt_fdbudget_give_rank(&b, PT_FD_OTHER);
    pt_fdbudget_give_rank(&b, PT_FD_OTHER);
    ck_assert(!pt_fdbudget_over(&b, PT_FD_STAT)); /* the two statm fit now */
    ck_assert(pt_fdbudget_over(&b, PT_FD_OTHER)); /* not yet the two stat */
    ck_assert(!pt_fdbudget_take_rank(&b, PT_FD_STAT));
    ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STATM));
    ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STATM));
    pt_fdbudget_give_rank(&b, PT_FD_OTHER);
    pt_fdbudget_give_rank(&b, PT_FD_OTHER);
    ck_assert(!pt_fdbudget_over(&b, PT_FD_OTHER));
    ck_assert(!pt_fdbudget_take_rank(&b, PT_FD_OTHER)); /* the stats' seats */
    ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STAT));
    ck_assert(pt_fdbudget_take_rank(&b, PT_FD_STAT));
    ck_assert_uint_eq(b.kept, 10);
    ck_assert_uint_eq(b.by_rank[PT_FD_STATM], 5);
    ck_assert_uint_eq(b.by_rank[PT_FD_STAT], 5);
    /* more members than the budget: statm takes all of it */
    for (int i = 0; i < 10; i++)
        pt_fdbudget_join(&b);
    ck_assert(pt_fdbudget_over(&b, PT_FD_STAT));
    ck_assert(!pt_fdbudget_over(&b, PT_FD_STATM));
    for (int i = 0; i < 15; i++)
        pt_fdbudget_leave(&b);
    ck_assert_uint_eq(b.members, 0);
}
END_TEST

/* A tree of three with every kind of file, as the collector with budget
 * limit sees it over two intervals. */
static void three_with_everything(void)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101 102");
    struct fx_proc a = proc(101, 100, 11, 2000, 20, NULL);
    struct fx_proc k = proc(102, 100, 12, 3000, 30, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &a);
    fx_put_proc(root, &k);
    for (pid_t pid = 100; pid <= 102; pid++) {
        put_status(pid, pid, 1);
        char rel[32];
        snprintf(rel, sizeof(rel), "%d/fd/%d", (int)pid, (int)pid);
        fx_write(root, rel, "", 0);
    }
}

static const struct pt_batch *two_intervals(size_t budget)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.fd_budget = budget;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    pt_collector_end_interval(c, 1.0);
    struct fx_proc a = proc(101, 100, 11, 2500, 25, NULL);
    fx_put_proc(root, &a);
    put_status(101, 150, 2);
    pt_collector_tick(c, 1.1);
    return pt_collector_end_interval(c, 2.0);
}

/* The two intervals of three_with_everything with a descriptor budget of
 * budget: the batch, its every proc_* value checked equal to the one a
 * budget that keeps every file gives (but the two clocks read: our CPU,
 * the time now). */
static const struct pt_batch *same_numbers_with_budget(size_t budget)
{
    three_with_everything();
    struct pt_report kept = two_intervals(1000)->targets[0].report;
    pt_collector_free(c);
    c = NULL;
    three_with_everything();
    const struct pt_batch *b = two_intervals(budget);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope != PT_SCOPE_PROC || id == PT_M_COLLECTOR_CPU_SECONDS ||
            id == PT_M_PROC_OLDEST_AGE_SECONDS)
            continue;
        const struct pt_value *v = value(b, 0, id);
        ck_assert_msg(v->present == kept.v[id].present, "%s", pt_catalog[id].name);
        ck_assert_msg(v->i == kept.v[id].i && v->f == kept.v[id].f, "%s", pt_catalog[id].name);
    }
    return b;
}

/* Files read by open-read-close give what kept ones give. */
START_TEST(no_budget_reads_the_same_numbers)
{
    const struct pt_batch *b = same_numbers_with_budget(0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 500);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 150 - 101);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
}
END_TEST

/* Descriptors of the fixture's files named name (".../PID/name") this
 * process holds. */
static int kept_files(const char *name)
{
    int n = 0;
    for (int fd = 0; fd < 4096; fd++) {
        char link[64], target[1024];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        const char *slash = strrchr(target, '/');
        n += strncmp(target, root, strlen(root)) == 0 && slash && strcmp(slash + 1, name) == 0;
    }
    return n;
}

/* A budget that keeps some of the files reads the same numbers as one
 * that keeps all, and is spent on statm first (fdbudget.h): three
 * members and five descriptors are the three statm and two stat. */
START_TEST(small_budget_keeps_statm_first)
{
    same_numbers_with_budget(5);
    ck_assert_int_eq(kept_files("statm"), 3);
    ck_assert_int_eq(kept_files("stat"), 2);
    ck_assert_int_eq(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
}
END_TEST

/* A tree that grows past the budget takes the seats of the files read
 * once an interval for its statm: one member with all of its files kept,
 * then six more, within nine descriptors. */
START_TEST(growing_tree_takes_seats_back_for_statm)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 100, 1);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.fd_budget = 9;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    double now = 0;
    for (int tick = 0; tick < 10; tick++, now += 0.1)
        pt_collector_tick(c, now);
    pt_collector_end_interval(c, now);
    ck_assert_int_eq(kept_files("statm"), 1);
    ck_assert_int_gt(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
    r.children = "101 102 103 104 105 106";
    fx_put_proc(root, &r);
    for (pid_t pid = 101; pid <= 106; pid++) {
        struct fx_proc k = proc(pid, 100, (uint64_t)pid, 100, 5, NULL);
        fx_put_proc(root, &k);
        put_status(pid, pid, 1);
    }
    const struct pt_batch *b = NULL;
    for (int interval = 0; interval < 2; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        b = pt_collector_end_interval(c, now);
    }
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 7);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), (10 + 6 * 5) * page);
    ck_assert_int_eq(kept_files("statm"), 7);
    ck_assert_int_eq(kept_files("stat"), 2);
    ck_assert_int_eq(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
}
END_TEST

/* A file read by path after its process was reaped and the pid reused is
 * not taken for the member's: the member is gone. */
START_TEST(no_budget_never_reads_a_reused_pid)
{
    three_with_everything();
    two_intervals(0);
    fx_vanish(root, 101);
    struct fx_proc reused = proc(101, 1, 99, 900000, 900, NULL);
    fx_put_proc(root, &reused);
    pt_collector_tick(c, 2.1);
    const struct pt_batch *b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_lt(ivalue(b, 0, PT_M_PROC_RSS_MAX), 900 * page);
}
END_TEST

static long open_descriptors(void)
{
    long n = 0;
    for (int fd = 0; fd < 4096; fd++)
        n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

/* The soft limit only: it can be raised again. */
static void limit_descriptors(rlim_t n)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = n;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* Out of descriptors (a budget above the limit): what was not read whole
 * is absent, never a partial sum, and nothing is lost once they are back. */
START_TEST(out_of_descriptors_leaves_sums_out)
{
    struct rlimit saved;
    getrlimit(RLIMIT_NOFILE, &saved);
    three_with_everything();
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    /* a child born now cannot join: the membership is incomplete */
    struct fx_proc r = proc(100, 1, 10, 1400, 10, "101 102 103");
    struct fx_proc n = proc(103, 100, 13, 700, 5, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &n);
    limit_descriptors((rlim_t)open_descriptors());
    pt_collector_tick(c, 1.5);
    b = pt_collector_end_interval(c, 2.0);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope == PT_SCOPE_PROC && strncmp(pt_catalog[id].name, "proc_", 5) == 0)
            ck_assert_msg(!value(b, 0, id)->present, "%s present", pt_catalog[id].name);
    }
    ck_assert(value(b, 0, PT_M_COLLECTOR_SAMPLES)->present);
    ck_assert_double_eq(fvalue(b, 0, PT_M_COLLECTOR_INTERVAL_SECONDS), 1.0);
    limit_descriptors(saved.rlim_cur);
    pt_collector_tick(c, 2.5);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 4);
    /* the root's 400 and the newcomer's 700 of the short interval */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400 + 700);
    /* the line covers its own second, as the short one did its own: their
     * sum is the time the deltas were done in, whose CPU share is over both */
    ck_assert_double_eq(fvalue(b, 0, PT_M_COLLECTOR_INTERVAL_SECONDS), 1.0);
    double cpu = fvalue(b, 0, PT_M_PROC_CPU_USER_SECONDS) + fvalue(b, 0, PT_M_PROC_CPU_SYSTEM_SECONDS);
    ck_assert_double_gt(cpu, 0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_CPU_PERCENT), 100 * cpu / 2.0, 1e-9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_budget");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, budget_hot_files_may_use_all_of_it);
    tcase_add_test(tc, budget_members_reserve_statm_then_stat);
    tcase_add_test(tc, no_budget_reads_the_same_numbers);
    tcase_add_test(tc, no_budget_never_reads_a_reused_pid);
    tcase_add_test(tc, small_budget_keeps_statm_first);
    tcase_add_test(tc, growing_tree_takes_seats_back_for_statm);
    tcase_add_test(tc, out_of_descriptors_leaves_sums_out);
    return unit_run(s);
}
