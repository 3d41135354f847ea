/* The ledger alone (ledger.h): synthetic sequences of events, no /proc,
 * one for each accounting rule of docs/METRICS.md, with the invariants
 * (pt_ledgercheck) asserted after every event.
 *
 * Counters here are CPU user ticks unless a case says otherwise; a
 * clock tick is 10 ms (100 per second). */
#include <check.h>
#include <signal.h>
#include <string.h>

#include "accounting/ledger.h"
#include "accounting/ledgerfolds.h"
#include "unit.h"
#include "accounting/ledgerrecords.h"
#include "accounting/ledgercheck.h"

#define MAX_LIVE 8
#define USER PT_CTR_USER_TICKS
#define FAULTS PT_CTR_MINFLT

static struct pt_ledger l;
static struct pt_account accounts[MAX_LIVE];
static bool alive[MAX_LIVE];
/* how long the intervals last: unbounded CPU unless a case says */
static double interval_seconds = 1e9;

/* The invariants, over the live accounts. */
static void check(void)
{
    const struct pt_account *live[MAX_LIVE];
    size_t n = 0;
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            live[n++] = &accounts[i];
    char why[160];
    ck_assert_msg(pt_ledgercheck(&l, live, n, why, sizeof(why)) == 0, "%s", why);
}

static void start(uint32_t groups)
{
    pt_ledger_init(&l, 100.0, 2, groups, true);
    interval_seconds = 1e9;
    memset(accounts, 0, sizeof(accounts));
    memset(alive, 0, sizeof(alive));
}

static void stop(void)
{
    pt_ledger_free(&l);
}

static int32_t group_of(const char *name)
{
    return l.groups.list ? (int32_t)pt_ledger_group_named(&l, name) : -1;
}

/* Slot i joins as pid with user ticks cpu (own: own_cpu, the rest its
 * reaped children's) and faults. */
static struct pt_account *join(int i, pid_t pid, const char *group, int64_t cpu, int64_t own_cpu, int64_t faults,
                               bool baseline)
{
    struct pt_account *a = &accounts[i];
    memset(a, 0, sizeof(*a));
    a->pid = pid;
    a->ctr[USER] = cpu;
    a->own[USER] = own_cpu;
    a->ctr[FAULTS] = a->own[FAULTS] = faults;
    a->has_stat = a->has_io = a->io_fresh = true;
    pt_ledger_join(&l, a, group ? group_of(group) : -1, baseline);
    alive[i] = true;
    check();
    return a;
}

/* A read of slot i showing user ticks cpu (own_cpu its own). */
static void read_cpu(int i, int64_t cpu, int64_t own_cpu)
{
    struct pt_account *a = &accounts[i];
    a->ctr[USER] = cpu;
    a->own[USER] = own_cpu;
    pt_ledger_io_changed(&l, a, a->has_io);
    pt_ledger_read(&l, a);
    pt_ledger_settle(&l, a, false);
    check();
}

static void leave(int i, int reaper)
{
    pt_ledger_leave(&l, &accounts[i], reaper >= 0 ? &accounts[reaper] : NULL);
    alive[i] = false;
    check();
}

static struct pt_account *live_by_pid(const void *ctx, pid_t pid)
{
    (void)ctx;
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i] && accounts[i].pid == pid)
            return &accounts[i];
    return NULL;
}

/* Deltas of the interval that ends: the tree's into tree, each group's
 * (by slot) into groups (when not NULL). The live accounts were read
 * with their values as the test set them, in a new round, first. */
static void end_interval(int64_t tree[PT_CTR_COUNT], int64_t groups[][PT_CTR_COUNT])
{
    pt_ledger_next_round(&l);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            read_cpu(i, accounts[i].ctr[USER], accounts[i].own[USER]);
    pt_ledgerfolds_share(&l, live_by_pid, NULL);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            pt_ledgerfolds_given(&l, &accounts[i]);
    check();
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            pt_ledger_add_account(&l, &accounts[i], 1);
    pt_ledger_deltas(&l, false, interval_seconds, tree);
    for (uint32_t g = 0; groups && g <= l.groups.limit; g++)
        pt_ledger_group_deltas(&l, g, false, groups[g]);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            pt_ledger_snapshot(&l, &accounts[i]);
    pt_ledger_end_interval(&l);
    check();
}

static int64_t end_user(void)
{
    int64_t d[PT_CTR_COUNT];
    end_interval(d, NULL);
    return d[USER];
}

/* A child reaped by a member is counted once: what its reads showed,
 * then the rest of its life from the parent's fold. The root's past
 * before it joined is not counted. */
START_TEST(short_lived_child_reaped_by_a_member)
{
    start(0);
    join(0, 100, NULL, 1000, 1000, 0, true);
    ck_assert_int_eq(end_user(), 0);
    join(1, 200, NULL, 0, 0, 0, false);
    read_cpu(1, 30, 30);
    read_cpu(0, 1005, 1005);
    ck_assert_int_eq(end_user(), 35);
    read_cpu(1, 40, 40);
    leave(1, 0); /* reaped by 100: it owes 40 */
    read_cpu(0, 1005 + 3 + 40, 1008);
    ck_assert_int_eq(end_user(), 10 + 3);
    ck_assert_int_eq(end_user(), 0);
    stop();
}
END_TEST

/* Zombie slot i's exact CPU: user_us of user, none of system. */
static void exact(int i, double user_us)
{
    const double us[PT_CPU_COUNT] = {[PT_CPU_USER] = user_us, [PT_CPU_SYSTEM] = 0};
    pt_ledgerrecords_exact_cpu(&l, &accounts[i], us);
    check();
}

/* Zombies whose stats truncate 2.6 ticks to 2: the exit records' exact
 * run time counts the rest in the interval they ran in, carried to whole
 * ticks over the zombies (3 x 0.6: 2 ticks, 0.8 carried); the reaper's
 * fold, exact (7.8 ticks to 7 over its own 0), brings nothing more, and
 * a fold a tick short of the exact part is still the fold (no double
 * count): the reaper counts at what it owes (no dip) until its counter
 * passes it. Once only. */
START_TEST(zombies_exact_cpu)
{
    start(0);
    join(0, 100, NULL, 0, 0, 0, true);
    for (int i = 1; i <= 3; i++) {
        join(i, 200 + i, NULL, 0, 0, 0, false);
        read_cpu(i, 2, 2);
        exact(i, 26000);
    }
    exact(1, 99000); /* once */
    ck_assert_int_eq(end_user(), 6 + 2);
    for (int i = 1; i <= 3; i++)
        leave(i, 0);
    read_cpu(0, 7, 0); /* the fold: 7.8 ticks, truncated */
    ck_assert_int_eq(end_user(), 0);
    ck_assert(accounts[0].owes); /* the rounding's tick, till its counter shows it */
    read_cpu(0, 9, 2);
    ck_assert_int_eq(end_user(), 1); /* after the rounding's tick, its own work */
    ck_assert(!accounts[0].owes);
    stop();
}
END_TEST

/* By process: a child's exact CPU (2.6 ticks: 2 in its stat, the rest
 * carried to 1) is in its group; its reaper's fold truncates the exact
 * sum (2), a tick short; then another group works and the reaper never
 * again. Each interval's group deltas add up to the tree's, and the tree
 * has the child's 3 and the other's 5: the short fold is no dip that the
 * other group's work fills in the tree and nothing fills in the reaper's
 * group (the groups were a tick above the tree in CI's
 * execd-exit-record-groups). */
START_TEST(a_short_fold_leaves_the_groups_adding_up_to_the_tree)
{
    start(4);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT], trees = 0, grouped = 0;
    join(0, 100, "parent", 0, 0, 0, true);
    join(1, 201, "kid", 0, 0, 0, false);
    join(2, 300, "other", 0, 0, 0, true);
    for (int step = 0; step < 4; step++) {
        if (step == 1) {
            read_cpu(1, 2, 2);
            exact(1, 26000);
        } else if (step == 2) {
            leave(1, 0);
            read_cpu(0, 2, 0);         /* the fold, truncated once */
            accounts[2].ctr[USER] = 5; /* read at the interval's end */
            accounts[2].own[USER] = 5;
        }
        end_interval(tree, groups);
        int64_t sum = 0;
        for (uint32_t g = 0; g <= l.groups.limit; g++)
            sum += groups[g][USER];
        ck_assert_msg(sum == tree[USER], "interval %d: the groups %lld, the tree %lld", step, (long long)sum,
                      (long long)tree[USER]);
        trees += tree[USER];
        grouped += sum;
    }
    ck_assert_int_eq(trees, 3 + 5);
    ck_assert_int_eq(grouped, trees);
    stop();
}
END_TEST

/* A zombie reaped outside the tree keeps its exact CPU; one whose reaper
 * never shows it (SIGCHLD ignored: the kernel reaps without a fold) too,
 * with its truncated part, counted once. */
START_TEST(zombies_exact_cpu_without_a_fold)
{
    start(0);
    join(0, 100, NULL, 10, 10, 0, true);
    join(1, 201, NULL, 0, 0, 0, false);
    join(2, 202, NULL, 0, 0, 0, false);
    read_cpu(1, 4, 4);
    read_cpu(2, 4, 4);
    exact(1, 49000);
    exact(2, 49000);
    ck_assert_int_eq(end_user(), 10);
    leave(1, -1); /* outside */
    leave(2, 0);  /* by a reaper whose fold never comes */
    ck_assert_int_eq(end_user(), 0);
    ck_assert(!accounts[0].owes);
    read_cpu(0, 13, 13);
    ck_assert_int_eq(end_user(), 3);
    stop();
}
END_TEST

/* The reaper read before its counters show the child (the poll's reads
 * go parents first): the tree does not dip, and the fold that the next
 * read shows is not counted twice. */
START_TEST(transient_dip_is_carried)
{
    start(0);
    join(0, 100, NULL, 0, 0, 0, true);
    join(1, 200, NULL, 0, 0, 0, false);
    read_cpu(1, 50, 50);
    ck_assert_int_eq(end_user(), 50);
    read_cpu(0, 0, 0); /* not folded yet */
    leave(1, 0);
    ck_assert_int_eq(pt_ledger_account_value(&accounts[0], USER), 50);
    accounts[0].ctr[USER] = 52; /* the fold at the interval's last read: its last read's 50, 2 unseen */
    ck_assert_int_eq(end_user(), 2);
    ck_assert(!accounts[0].owes);
    ck_assert_int_eq(end_user(), 0);
    stop();
}
END_TEST

/* The parent ignores SIGCHLD: the kernel reaps the child without a fold.
 * Its last read's values stay counted (moved to adjust at the later
 * round's read), and the parent's own later work is not hidden. */
START_TEST(sigchld_ignored_loses_only_the_unseen)
{
    start(0);
    join(0, 100, NULL, 10, 10, 0, true);
    join(1, 200, NULL, 0, 0, 0, false);
    read_cpu(1, 40, 40);
    ck_assert_int_eq(end_user(), 40);
    leave(1, 0);
    ck_assert_int_eq(end_user(), 0); /* settled here: 10 < due 50 */
    ck_assert(!accounts[0].owes);
    read_cpu(0, 17, 17);
    ck_assert_int_eq(end_user(), 7);
    stop();
}
END_TEST

/* An orphan reaped outside the tree (by init): its last values stay. */
START_TEST(orphan_reaped_outside)
{
    start(0);
    join(0, 100, NULL, 0, 0, 0, true);
    join(1, 200, NULL, 0, 0, 0, false);
    read_cpu(1, 25, 25);
    ck_assert_int_eq(end_user(), 25);
    read_cpu(1, 31, 31);
    leave(1, -1);
    ck_assert_int_eq(end_user(), 6);
    ck_assert_int_eq(end_user(), 0);
    stop();
}
END_TEST

/* A reused pid is a new account: the old one's debt is its reaper's,
 * the new one counts from its birth. */
START_TEST(pid_reuse_is_a_new_account)
{
    start(0);
    join(0, 100, NULL, 0, 0, 0, true);
    join(1, 200, NULL, 0, 0, 0, false);
    read_cpu(1, 20, 20);
    leave(1, 0);
    join(2, 200, NULL, 5, 5, 0, false);
    read_cpu(0, 20, 0);
    ck_assert_int_eq(end_user(), 20 + 5);
    read_cpu(2, 9, 9);
    ck_assert_int_eq(end_user(), 4);
    stop();
}
END_TEST

/* A counter that goes backwards never makes a negative delta, and what
 * comes after is reported only past the mark. */
START_TEST(deltas_never_negative)
{
    start(0);
    join(0, 100, NULL, 0, 0, 0, false);
    read_cpu(0, 50, 50);
    ck_assert_int_eq(end_user(), 50);
    read_cpu(0, 45, 45);
    ck_assert_int_eq(end_user(), 0);
    read_cpu(0, 60, 60);
    ck_assert_int_eq(end_user(), 10);
    stop();
}
END_TEST

/* An interval's CPU is at most its length x the CPUs (2 here, 100 ticks
 * a second: 200 ticks in 1 s): what a counter brings late (the ticks the
 * stats of many members truncated, given at once) waits for the next
 * intervals, the tree's and each group's, and nothing is lost or counted
 * twice. A group that empties, and the tree once it has no live account,
 * report all they have left: no later line would. */
START_TEST(interval_cpu_bounded_by_the_cpus)
{
    start(4);
    interval_seconds = 1.0;
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    int64_t tree_sum = 0, cc_sum = 0;
    join(0, 100, "sh", 0, 0, 0, false);
    join(1, 200, "cc", 0, 0, 0, false);
    join(2, 300, "cc", 0, 0, 0, false);
    read_cpu(0, 150, 150);
    read_cpu(1, 130, 130);
    read_cpu(2, 130, 130);
    const int64_t want[][3] = {{200, 150, 200}, {200, 0, 60}, {10, 0, 0}, {200, 0, 200}, {200, 0, 500}, {300, 0, 0}};
    for (int i = 0; i < 6; i++) {
        if (i == 3) { /* cc's two grow by 700 and one leaves */
            read_cpu(2, 530, 530);
            leave(2, -1);
            read_cpu(1, 430, 430);
        }
        if (i == 4) /* cc empties: its line reports the rest */
            leave(1, -1);
        if (i == 5) /* so does the tree's */
            leave(0, -1);
        end_interval(tree, groups);
        ck_assert_int_eq(tree[USER], want[i][0]);
        ck_assert_int_eq(groups[group_of("sh")][USER], want[i][1]);
        if (i < 5)
            ck_assert_int_eq(groups[group_of("cc")][USER], want[i][2]);
        tree_sum += tree[USER];
        cc_sum += i < 5 ? groups[group_of("cc")][USER] : 0;
    }
    ck_assert_int_eq(tree_sum, 150 + 430 + 530);
    ck_assert_int_eq(cc_sum, 430 + 530);
    /* the bound is rounded up to a whole tick: 0.5025 s on 2 CPUs, 100.5
     * ticks, 101 */
    join(3, 400, "sh", 0, 0, 0, false);
    read_cpu(3, 1000, 1000);
    interval_seconds = 0.5025;
    ck_assert_int_eq(end_user(), 101);
    ck_assert_int_eq(end_user(), 101);
    interval_seconds = 10;
    ck_assert_int_eq(end_user(), 1000 - 202);
    stop();
}
END_TEST

/* io that stops answering keeps what it showed; io that starts counts
 * from then on. */
START_TEST(io_that_changes_its_answer)
{
    start(0);
    struct pt_account *a = join(0, 100, NULL, 0, 0, 0, false);
    int64_t d[PT_CTR_COUNT];
    a->ctr[PT_CTR_RCHAR] = 700;
    end_interval(d, NULL);
    ck_assert_int_eq(d[PT_CTR_RCHAR], 700);
    a->has_io = false; /* denied from now on */
    pt_ledger_io_changed(&l, a, true);
    check();
    end_interval(d, NULL);
    ck_assert_int_eq(d[PT_CTR_RCHAR], 0);
    a->has_io = true;
    a->ctr[PT_CTR_RCHAR] = 5000; /* its past is not ours */
    pt_ledger_io_changed(&l, a, false);
    check();
    end_interval(d, NULL);
    ck_assert_int_eq(d[PT_CTR_RCHAR], 0);
    a->ctr[PT_CTR_RCHAR] = 5100;
    end_interval(d, NULL);
    ck_assert_int_eq(d[PT_CTR_RCHAR], 100);
    stop();
}
END_TEST

/* By process: a reaped child keeps in its group what its reads showed;
 * its unseen last moments are in its reaper's (no records); a member
 * that execs takes what it did since the interval's end to its new
 * name's group. The groups add up to the tree all along (check()). */
START_TEST(groups_without_records)
{
    start(4);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    join(0, 100, "sh", 0, 0, 0, false);
    join(1, 200, "cc", 0, 0, 0, false);
    read_cpu(1, 30, 30);
    end_interval(tree, groups);
    ck_assert_int_eq(groups[group_of("cc")][USER], 30);
    leave(1, 0);
    read_cpu(0, 34, 0); /* 30 seen, 4 unseen */
    end_interval(tree, groups);
    ck_assert_int_eq(tree[USER], 4);
    ck_assert_int_eq(groups[group_of("sh")][USER], 4);
    ck_assert_int_eq(groups[group_of("cc")][USER], 0);
    read_cpu(0, 40, 6);
    pt_ledger_renamed(&l, &accounts[0], "make"); /* an exec */
    check();
    end_interval(tree, groups);
    ck_assert_int_eq(groups[group_of("make")][USER], 6);
    ck_assert_int_eq(groups[group_of("sh")][USER], 0);
    stop();
}
END_TEST

/* With exit records: a departed child's last moments and a child never
 * seen get their share of the reaper's fold, in whole ticks that add up
 * to the fold; faults move as the records give them. */
START_TEST(folds_shared_by_the_records)
{
    start(4);
    pt_ledgerfolds_records_followed(&l, true);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    join(0, 100, "parent", 0, 0, 0, false);
    join(1, 200, "alpha", 0, 0, 0, false);
    read_cpu(1, 10, 10);
    end_interval(tree, groups);
    leave(1, 0);                 /* departs after its last read: 10 */
    read_cpu(0, 10 + 8 + 12, 0); /* folds alpha's 10 + 8 unseen, and 12 of a child never seen */
    /* the records: alpha's last moments weigh 1, the unseen beta's 3 */
    int64_t faults[PT_CTR_COUNT] = {[FAULTS] = 7};
    pt_ledgerrecords_move(&l, &accounts[0], (uint32_t)group_of("alpha"), faults);
    pt_ledgerfolds_add_share(&l, &accounts[0], "alpha", 1000);
    pt_ledgerfolds_add_share(&l, &accounts[0], "beta", 3000);
    check();
    end_interval(tree, groups);
    ck_assert_int_eq(tree[USER], 20);
    ck_assert_int_eq(groups[group_of("alpha")][USER], 5); /* a quarter of 20 */
    ck_assert_int_eq(groups[group_of("beta")][USER], 15);
    ck_assert_int_eq(groups[group_of("parent")][USER], 0);
    ck_assert_int_eq(groups[group_of("alpha")][FAULTS], 7);
    stop();
}
END_TEST

/* A fold that holds a process the records did not weigh (a record lost,
 * a past not the tree's) cannot be told apart: it stays whole in the
 * reaper's group, and the share waiting with it is let go, so alpha is
 * never given the other's CPU. A hold waits for its fold as a share does,
 * and the next fold, weighed whole, is shared again. */
START_TEST(a_fold_holding_a_process_not_weighed_stays_with_the_reaper)
{
    start(4);
    pt_ledgerfolds_records_followed(&l, true);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    join(0, 100, "parent", 0, 0, 0, false);
    end_interval(tree, groups);
    pt_ledgerfolds_add_share(&l, &accounts[0], "alpha", 1000);
    pt_ledgerfolds_hold(&l, &accounts[0]);
    check();
    end_interval(tree, groups); /* no fold yet: both wait */
    ck_assert_int_eq(l.n_shares, 1);
    ck_assert_uint_gt(accounts[0].fold_held, 0);
    read_cpu(0, 20, 0); /* alpha's 5 and the other's 15 */
    end_interval(tree, groups);
    ck_assert_int_eq(tree[USER], 20);
    ck_assert_int_eq(groups[group_of("parent")][USER], 20);
    ck_assert_int_eq(groups[group_of("alpha")][USER], 0);
    ck_assert_int_eq(l.n_shares, 0);
    ck_assert_uint_eq(accounts[0].fold_held, 0);
    pt_ledgerfolds_add_share(&l, &accounts[0], "alpha", 1000);
    read_cpu(0, 26, 0);
    end_interval(tree, groups);
    ck_assert_int_eq(groups[group_of("alpha")][USER], 6);
    ck_assert_int_eq(groups[group_of("parent")][USER], 0);
    stop();
}
END_TEST

/* The sum of each interval's group deltas, counter k. */
static int64_t groups_sum(int64_t groups[][PT_CTR_COUNT], int k)
{
    int64_t sum = 0;
    for (uint32_t g = 0; g <= l.groups.limit; g++)
        sum += groups[g][k];
    return sum;
}

/* An exit record moves its child's faults from the reaper's group to the
 * child's before the reaper's counters show the fold (drained before the
 * reaper's read): the reaper's group is below its mark at the interval's
 * end, and holds it until the fold comes. Each interval, the groups add up
 * to the tree: the tree's mark is theirs summed, so the move shows in the
 * tree's line when it shows in the child's group's, and the fold in none. */
START_TEST(a_move_before_the_fold_shows_in_the_tree_with_the_group)
{
    start(4);
    pt_ledgerfolds_records_followed(&l, true);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    join(0, 100, "parent", 0, 0, 50, true);
    end_interval(tree, groups);
    int64_t faults[PT_CTR_COUNT] = {[FAULTS] = 7};
    pt_ledgerrecords_move(&l, &accounts[0], (uint32_t)group_of("alpha"), faults);
    check();
    end_interval(tree, groups);
    ck_assert_int_eq(groups[group_of("alpha")][FAULTS], 7);
    ck_assert_int_eq(groups_sum(groups, FAULTS), tree[FAULTS]);
    accounts[0].ctr[FAULTS] += 7; /* the fold */
    end_interval(tree, groups);
    ck_assert_int_eq(groups_sum(groups, FAULTS), 0);
    ck_assert_int_eq(tree[FAULTS], 0);
    accounts[0].ctr[FAULTS] += 2; /* its own */
    end_interval(tree, groups);
    ck_assert_int_eq(groups[group_of("parent")][FAULTS], 2);
    ck_assert_int_eq(tree[FAULTS], 2);
    stop();
}
END_TEST

/* One tick of fold at a time among three equal shares: each interval
 * gives exactly the tick, and over three intervals each group has had
 * one (the rests carry). A share whose reaper shows no fold waits. */
START_TEST(fold_rounding_is_carried)
{
    start(4);
    pt_ledgerfolds_records_followed(&l, true);
    static const char *const names[] = {"a", "b", "c"};
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT], got[3] = {0};
    join(0, 100, "reaper", 0, 0, 0, false);
    end_interval(tree, groups);
    for (int round = 1; round <= 3; round++) {
        for (int n = 0; n < 3; n++)
            pt_ledgerfolds_add_share(&l, &accounts[0], names[n], 500);
        if (round == 2) { /* no fold yet: the shares wait */
            end_interval(tree, groups);
            ck_assert_int_eq(l.n_shares, 3);
        }
        read_cpu(0, accounts[0].ctr[USER] + 1, 0);
        end_interval(tree, groups);
        int64_t given = 0;
        for (int n = 0; n < 3; n++) {
            got[n] += groups[group_of(names[n])][USER];
            given += groups[group_of(names[n])][USER];
        }
        ck_assert_int_eq(given, 1);
        ck_assert_int_eq(l.n_shares, 0);
    }
    for (int n = 0; n < 3; n++)
        ck_assert_int_eq(got[n], 1);
    stop();
}
END_TEST

/* A process the tree forked that was reaped outside it: its record's
 * usage is the tree's and its group's, CPU to whole ticks with the rest
 * carried. */
START_TEST(record_of_a_process_never_seen)
{
    start(4);
    int64_t tree[PT_CTR_COUNT], groups[5][PT_CTR_COUNT];
    join(0, 100, "root", 0, 0, 0, false);
    int64_t v[PT_CTR_COUNT] = {[USER] = 15000, [FAULTS] = 9}; /* 1.5 ticks */
    pt_ledgerrecords_add_lost(&l, group_of("orphan"), v);
    check();
    pt_ledgerrecords_add_lost(&l, group_of("orphan"), v);
    check();
    end_interval(tree, groups);
    ck_assert_int_eq(tree[USER], 3);
    ck_assert_int_eq(groups[group_of("orphan")][USER], 3);
    ck_assert_int_eq(tree[FAULTS], 18);
    stop();
}
END_TEST

/* The order rules are asserted (the builds keep assert on, b_ndebug's
 * default): an interval ended before its deltas aborts, and so does usage
 * credited once the count copied adjust into the tree's sums. */
START_TEST(end_before_the_deltas_aborts)
{
    start(0);
    join(0, 100, NULL, 5, 5, 0, false);
    pt_ledger_add_account(&l, &accounts[0], 1);
    pt_ledger_end_interval(&l);
}
END_TEST

START_TEST(credit_after_the_count_aborts)
{
    start(0);
    join(0, 100, NULL, 5, 5, 0, false);
    pt_ledger_add_account(&l, &accounts[0], 1);
    int64_t v[PT_CTR_COUNT] = {[FAULTS] = 1};
    pt_ledgerrecords_add_lost(&l, -1, v);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("ledger");
    TCase *tc = unit_tcase(suite, "ledger");
    tcase_add_test(tc, short_lived_child_reaped_by_a_member);
    tcase_add_test(tc, transient_dip_is_carried);
    tcase_add_test(tc, zombies_exact_cpu);
    tcase_add_test(tc, zombies_exact_cpu_without_a_fold);
    tcase_add_test(tc, sigchld_ignored_loses_only_the_unseen);
    tcase_add_test(tc, orphan_reaped_outside);
    tcase_add_test(tc, pid_reuse_is_a_new_account);
    tcase_add_test(tc, deltas_never_negative);
    tcase_add_test(tc, interval_cpu_bounded_by_the_cpus);
    tcase_add_test(tc, io_that_changes_its_answer);
    tcase_add_test(tc, groups_without_records);
    tcase_add_test(tc, folds_shared_by_the_records);
    tcase_add_test(tc, a_fold_holding_a_process_not_weighed_stays_with_the_reaper);
    tcase_add_test(tc, fold_rounding_is_carried);
    tcase_add_test(tc, a_short_fold_leaves_the_groups_adding_up_to_the_tree);
    tcase_add_test(tc, a_move_before_the_fold_shows_in_the_tree_with_the_group);
    tcase_add_test(tc, record_of_a_process_never_seen);
    tcase_add_test_raise_signal(tc, end_before_the_deltas_aborts, SIGABRT);
    tcase_add_test_raise_signal(tc, credit_after_the_count_aborts, SIGABRT);
    return unit_run(suite);
}
