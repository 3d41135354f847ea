/* The ranked breakdown (rank.h): the choice of names alone, then the
 * ledger moving its groups at each choice, with the invariants
 * (pt_ledgercheck) asserted after every event, as test_ledger.c does.
 *
 * Counters are CPU user ticks unless a case says otherwise; a clock tick
 * is 10 ms (100 per second). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "accounting/ledger.h"
#include "accounting/ledgerfolds.h"
#include "accounting/rank.h"
#include "unit.h"
#include "accounting/ledgerrecords.h"
#include "accounting/ledgerrank.h"
#include "accounting/ledgercheck.h"

#define USER PT_CTR_USER_TICKS

/* ---- the choice alone ------------------------------------------------- */

static struct pt_rank r;

static bool named(const char *name)
{
    const struct pt_rank_name *e = pt_rank_find(&r, name);
    ck_assert_msg(e != NULL, "%s was not noted", name);
    return e->named;
}

START_TEST(parse_and_name)
{
    enum pt_rank_by by = PT_RANK_SEEN;
    ck_assert_int_eq(pt_rank_parse("cpu", &by), 0);
    ck_assert_int_eq(by, PT_RANK_CPU);
    ck_assert_int_eq(pt_rank_parse("memory", &by), 0);
    ck_assert_int_eq(by, PT_RANK_MEMORY);
    ck_assert_int_eq(pt_rank_parse("io", &by), 0);
    ck_assert_int_eq(pt_rank_parse("seen", &by), 0);
    ck_assert_int_eq(by, PT_RANK_SEEN);
    ck_assert_int_eq(pt_rank_parse("CPU", &by), -1);
    ck_assert_int_eq(pt_rank_parse("", &by), -1);
    ck_assert_int_eq(pt_rank_parse("cpu ", &by), -1);
    ck_assert_int_eq(by, PT_RANK_SEEN);
    ck_assert_str_eq(pt_rank_name(PT_RANK_IO), "io");
    ck_assert_ptr_null(pt_rank_name((enum pt_rank_by)9));
}
END_TEST

/* Heavy names in "other" take the slots of idle named ones; a member's
 * notes of one name are summed. */
START_TEST(the_heaviest_take_the_slots)
{
    pt_rank_init(&r, PT_RANK_CPU);
    bool held[3] = {true, true, true};
    pt_rank_note(&r, "idle00", 0, 0);
    pt_rank_note(&r, "idle01", 0, 1);
    pt_rank_note(&r, "idle02", 1, 2);
    pt_rank_note(&r, "hot0", 100, -1);
    pt_rank_note(&r, "hot1", 60, -1);
    pt_rank_note(&r, "hot1", 40, -1);
    pt_rank_note(&r, "hot2", 4, -1);
    pt_rank_note(&r, "idle03", 0, -1);
    pt_rank_choose(&r, held, 3);
    ck_assert(named("hot0") && named("hot1"));
    ck_assert_int_eq(pt_rank_find(&r, "hot1")->weight, 100);
    /* 4 ticks against the last idle name's 1: more than 2 x 1 + 1 */
    ck_assert(named("hot2"));
    ck_assert(!named("idle00") && !named("idle01") && !named("idle02") && !named("idle03"));
    pt_rank_free(&r);
}
END_TEST

/* The rule against flapping: a named group keeps its slot until a name in
 * "other" weighs more than PT_RANK_FACTOR times it plus the floor (a
 * tick); a free slot goes to the heaviest in "other", whatever it weighs. */
START_TEST(a_slot_changes_hands_only_by_a_clear_factor)
{
    pt_rank_init(&r, PT_RANK_CPU);
    bool held[1] = {true};
    const struct {
        int64_t a, b;
        bool b_named;
    } rounds[] = {
        {10, 15, false},                /* heavier, not by the factor */
        {10, 21, false},                /* 2 x 10 + 1: equal is not more */
        {10, 22, true},  {0, 1, false}, /* a stray tick against an idle name */
        {0, 2, true},
    };
    for (size_t i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
        pt_rank_note(&r, "a", rounds[i].a, 0);
        pt_rank_note(&r, "b", rounds[i].b, -1);
        pt_rank_choose(&r, held, 1);
        ck_assert_msg(named("b") == rounds[i].b_named, "round %zu", i);
        ck_assert(named("a") != rounds[i].b_named);
    }
    /* the same weights swapped back leave b where it is */
    pt_rank_note(&r, "b", 10, 0);
    pt_rank_note(&r, "a", 15, -1);
    pt_rank_choose(&r, held, 1);
    ck_assert(named("b") && !named("a"));
    /* a slot freed (its group emptied) goes to the heaviest in other */
    held[0] = false;
    pt_rank_note(&r, "b", 10, 0);
    pt_rank_note(&r, "c", 0, -1);
    pt_rank_note(&r, "d", 1, -1);
    pt_rank_choose(&r, held, 1);
    ck_assert(named("d") && !named("c"));
    ck_assert_ptr_null(pt_rank_find(&r, "b")); /* no member left to name */
    pt_rank_free(&r);
}
END_TEST

/* Hundreds of names, each noted twice (two members), in a scrambled
 * order: free slots go to the heaviest sums, and every name is found. */
START_TEST(many_names_sorted)
{
    pt_rank_init(&r, PT_RANK_CPU);
    enum { NAMES = 300, LIMIT = 20 };
    bool held[LIMIT] = {false};
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < NAMES; k++) {
            int i = (k * 7 + round * 13) % NAMES; /* 7 and 300 are coprime: every name once */
            char name[16];
            snprintf(name, sizeof(name), "p%03d", i);
            pt_rank_note(&r, name, i, -1); /* sums to 2i */
        }
        pt_rank_choose(&r, held, LIMIT);
        for (int i = 0; i < NAMES; i++) {
            char name[16];
            snprintf(name, sizeof(name), "p%03d", i);
            ck_assert_int_eq(pt_rank_find(&r, name)->weight, i);
            ck_assert_msg(named(name) == (i >= NAMES - LIMIT), "%s", name);
        }
    }
    pt_rank_free(&r);
}
END_TEST

/* Memory and I/O weigh in bytes, with a floor of 1 MiB. */
START_TEST(memory_floor)
{
    static const enum pt_rank_by kinds[] = {PT_RANK_MEMORY, PT_RANK_IO};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        pt_rank_init(&r, kinds[k]);
        bool held[1] = {true};
        pt_rank_note(&r, "a", 8 << 20, 0);
        pt_rank_note(&r, "b", 17 << 20, -1);
        pt_rank_choose(&r, held, 1);
        ck_assert_msg(!named("b"), "%s", pt_rank_name(kinds[k]));
        pt_rank_note(&r, "a", 8 << 20, 0);
        pt_rank_note(&r, "b", (17 << 20) + 1, -1);
        pt_rank_choose(&r, held, 1);
        ck_assert_msg(named("b"), "%s", pt_rank_name(kinds[k]));
        pt_rank_free(&r);
    }
}
END_TEST

/* ---- the ledger's groups through the choices ---------------------------- */

#define MAX_LIVE 8

static struct pt_ledger l;
static struct pt_account accounts[MAX_LIVE];
static const char *names[MAX_LIVE];
static bool alive[MAX_LIVE];
static double interval_seconds = 1e9;

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

static void start(uint32_t limit, bool partitions)
{
    pt_ledger_init(&l, 100.0, 2, limit, partitions);
    pt_ledgerrank_set(&l, PT_RANK_CPU);
    interval_seconds = 1e9;
    memset(accounts, 0, sizeof(accounts));
    memset(alive, 0, sizeof(alive));
}

static void stop(void)
{
    pt_ledger_free(&l);
}

/* The slot of the group named name, or -1 when none holds it. */
static int32_t slot_of(const char *name)
{
    for (uint32_t g = 0; g < l.groups.limit; g++)
        if (l.groups.list[g].in_use && strcmp(l.groups.list[g].name, name) == 0)
            return (int32_t)g;
    return -1;
}

static void join(int i, pid_t pid, const char *name)
{
    struct pt_account *a = &accounts[i];
    memset(a, 0, sizeof(*a));
    a->pid = pid;
    a->has_stat = a->has_io = a->io_fresh = true;
    names[i] = name;
    pt_ledger_join(&l, a, (int32_t)pt_ledger_group_named(&l, name), false);
    alive[i] = true;
    check();
}

static void read_cpu(int i, int64_t cpu)
{
    struct pt_account *a = &accounts[i];
    a->ctr[USER] = a->own[USER] = cpu;
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

/* The interval ends as target.c ends it: the members in "other" noted,
 * the count, the deltas (every group's noted), the end, the choice and
 * every live account following it; the deltas of the group named name at
 * the end into groups[], by slot. Returns the tree's user CPU. */
static int64_t end_interval(int64_t groups[][PT_CTR_COUNT])
{
    pt_ledger_next_round(&l);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            read_cpu(i, accounts[i].ctr[USER]);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i] && l.partitions)
            pt_ledgerrank_account(&l, &accounts[i], names[i], 0);
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            pt_ledger_add_account(&l, &accounts[i], 1);
    int64_t tree[PT_CTR_COUNT];
    pt_ledger_deltas(&l, false, interval_seconds, tree);
    for (uint32_t g = 0; g <= l.groups.limit; g++) {
        int64_t scratch[PT_CTR_COUNT];
        pt_ledger_group_deltas(&l, g, false, groups ? groups[g] : scratch);
    }
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive[i])
            pt_ledger_snapshot(&l, &accounts[i]);
    pt_ledger_end_interval(&l);
    check();
    pt_ledgerrank_choose(&l);
    check();
    for (int i = 0; i < MAX_LIVE; i++) {
        if (alive[i] && l.partitions) {
            pt_ledgerrank_follow(&l, &accounts[i], names[i]);
            check();
        }
    }
    return tree[USER];
}

static int64_t groups_sum(int64_t groups[][PT_CTR_COUNT], int k)
{
    int64_t sum = 0;
    for (uint32_t g = 0; g <= l.groups.limit; g++)
        sum += groups[g][k];
    return sum;
}

/* A burner that starts after the idle helpers took the slots is named
 * from the interval after the one it first ran in; the helper it displaces
 * goes to "other" with all it counted; every interval the groups add up
 * to the tree. */
START_TEST(a_late_burner_takes_an_idle_slot)
{
    start(2, true);
    int64_t groups[3][PT_CTR_COUNT];
    join(0, 100, "idle0");
    join(1, 101, "idle1");
    read_cpu(0, 5);
    read_cpu(1, 1);
    join(2, 102, "hot");
    ck_assert_int_eq(accounts[2].group, 2); /* other */
    read_cpu(2, 50);
    ck_assert_int_eq(end_interval(groups), 56);
    ck_assert_int_eq(groups[2][USER], 50);
    ck_assert_int_eq(groups_sum(groups, USER), 56);
    /* chosen: hot named, idle1 (1 tick) into other, idle0 (5) kept as
     * hot's 50 outweighs only the lightest */
    int32_t hot = slot_of("hot");
    ck_assert_int_ge(hot, 0);
    ck_assert_int_eq(accounts[2].group, hot);
    ck_assert_int_eq(slot_of("idle1"), -1);
    ck_assert_int_eq(accounts[1].group, 2);
    int32_t idle0 = slot_of("idle0");
    ck_assert_int_eq(accounts[0].group, idle0);
    read_cpu(2, 150);
    read_cpu(1, 3);
    ck_assert_int_eq(end_interval(groups), 102);
    ck_assert_int_eq(groups[hot][USER], 100);
    ck_assert_int_eq(groups[2][USER], 2);
    ck_assert_int_eq(groups[idle0][USER], 0);
    ck_assert_int_eq(groups_sum(groups, USER), 102);
    /* idle1's 2 ticks in other outweigh idle0's none by more than the
     * floor (2 x 0 + 1): they change places */
    ck_assert_int_eq(slot_of("idle0"), -1);
    ck_assert_int_ge(slot_of("idle1"), 0);
    ck_assert_int_eq(accounts[0].group, 2);
    ck_assert_int_eq(accounts[1].group, slot_of("idle1"));
    /* a name's members leave: what they did stays counted in their group
     * or in other, and the lines still add up */
    leave(2, -1);
    read_cpu(0, 9);
    ck_assert_int_eq(end_interval(groups), 4);
    ck_assert_int_eq(groups[2][USER], 4);
    ck_assert_int_eq(groups_sum(groups, USER), 4);
    stop();
}
END_TEST

/* Ranked by I/O: a member in "other" weighs its storage bytes of the
 * interval (not its CPU); the named group it displaces took none. */
START_TEST(io_weighs_storage_bytes)
{
    start(1, true);
    pt_ledgerrank_set(&l, PT_RANK_IO);
    int64_t groups[2][PT_CTR_COUNT];
    join(0, 100, "cpu");
    join(1, 101, "disk");                            /* other */
    accounts[1].ctr[PT_CTR_STORAGE_WRITE] = 1 << 20; /* not more than 2 x 0 + 1 MiB */
    read_cpu(0, 500);
    end_interval(groups);
    ck_assert_int_eq(slot_of("cpu"), 0);
    accounts[1].ctr[PT_CTR_STORAGE_WRITE] += (1 << 20) + 1;
    read_cpu(0, 1000);
    end_interval(groups);
    ck_assert_int_eq(groups[1][PT_CTR_STORAGE_WRITE], (1 << 20) + 1);
    ck_assert_int_eq(slot_of("disk"), 0);
    ck_assert_int_eq(accounts[0].group, 1);
    accounts[1].ctr[PT_CTR_STORAGE_WRITE] += 7;
    end_interval(groups);
    ck_assert_int_eq(groups[0][PT_CTR_STORAGE_WRITE], 7);
    ck_assert_int_eq(groups[1][PT_CTR_STORAGE_WRITE], 0);
    stop();
}
END_TEST

/* A named group whose CPU waits over the interval's bound goes to "other"
 * with what waits: other's lines report it, nothing is reported twice or
 * lost (the run's totals). */
START_TEST(what_waits_moves_with_the_group)
{
    start(1, true);
    interval_seconds = 1.0; /* 2 CPUs: 200 ticks an interval at most */
    int64_t groups[2][PT_CTR_COUNT];
    int64_t tree_sum = 0, groups_total = 0;
    join(0, 100, "a");
    join(1, 101, "b");
    read_cpu(0, 350); /* a: 150 wait */
    tree_sum += end_interval(groups);
    groups_total += groups_sum(groups, USER);
    ck_assert_int_eq(groups[0][USER], 200);
    read_cpu(1, 2000); /* b outweighs a's 200 by far: a goes to other, 150 waiting */
    tree_sum += end_interval(groups);
    groups_total += groups_sum(groups, USER);
    ck_assert_int_eq(slot_of("a"), -1);
    ck_assert_int_eq(slot_of("b"), 0);
    for (int i = 0; i < 12; i++) {
        tree_sum += end_interval(groups);
        groups_total += groups_sum(groups, USER);
    }
    ck_assert_int_eq(tree_sum, 2350);
    ck_assert_int_eq(groups_total, 2350);
    stop();
}
END_TEST

/* A member that joins a name held by a slot while others of that name
 * sit in "other" (they joined while no slot was free) is joined by them at
 * the next choice. */
START_TEST(a_name_split_between_a_slot_and_other_is_rejoined)
{
    start(1, true);
    int64_t groups[2][PT_CTR_COUNT];
    join(0, 100, "a");
    join(1, 101, "b"); /* other */
    read_cpu(0, 10);
    read_cpu(1, 10);
    end_interval(groups);
    ck_assert_int_eq(slot_of("a"), 0);
    leave(0, -1);
    end_interval(groups); /* a reports its last and frees the slot */
    /* the free slot went to b, the heaviest (and only) name in other */
    ck_assert_int_eq(slot_of("b"), 0);
    ck_assert_int_eq(accounts[1].group, 0);
    join(2, 102, "c"); /* other */
    join(3, 103, "b"); /* b's slot */
    ck_assert_int_eq(accounts[3].group, 0);
    read_cpu(2, 4);
    read_cpu(3, 3);
    ck_assert_int_eq(end_interval(groups), 7);
    ck_assert_int_eq(groups_sum(groups, USER), 7);
    stop();
}
END_TEST

/* By thread: a thread name in "other" weighs by its credits, and takes an
 * idle name's slot; the past stays where it was counted. */
START_TEST(threads_ranked_by_their_credits)
{
    start(1, false);
    int64_t groups[2][PT_CTR_COUNT];
    pt_ledgerrecords_credit_thread(&l, "idle", 1, 0, false, 0, 0);
    pt_ledgerrecords_credit_thread(&l, "worker", 30, 10, false, 0, 0);
    check();
    end_interval(groups);
    ck_assert_int_eq(groups[1][USER] + groups[1][PT_CTR_SYSTEM_TICKS], 40);
    ck_assert_int_eq(slot_of("worker"), 0);
    ck_assert_int_eq(slot_of("idle"), -1);
    pt_ledgerrecords_credit_thread(&l, "idle", 1, 0, false, 0, 0);
    pt_ledgerrecords_credit_thread(&l, "worker", 30, 0, false, 0, 0);
    check();
    end_interval(groups);
    ck_assert_int_eq(groups[0][USER], 30);
    ck_assert_int_eq(groups[1][USER], 1);
    stop();
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("rank");
    TCase *tc = unit_tcase(suite, "rank");
    tcase_add_test(tc, parse_and_name);
    tcase_add_test(tc, the_heaviest_take_the_slots);
    tcase_add_test(tc, a_slot_changes_hands_only_by_a_clear_factor);
    tcase_add_test(tc, many_names_sorted);
    tcase_add_test(tc, memory_floor);
    tcase_add_test(tc, io_weighs_storage_bytes);
    tcase_add_test(tc, a_late_burner_takes_an_idle_slot);
    tcase_add_test(tc, what_waits_moves_with_the_group);
    tcase_add_test(tc, a_name_split_between_a_slot_and_other_is_rejoined);
    tcase_add_test(tc, threads_ranked_by_their_credits);
    return unit_run(suite);
}
