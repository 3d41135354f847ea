#include "accounting/ledger.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/saturate.h"

void pt_ledger_init(struct pt_ledger *l, double ticks_per_second, unsigned cpus, uint32_t groups, bool partitions)
{
    memset(l, 0, sizeof(*l));
    l->ticks_per_second = ticks_per_second;
    l->cpus = cpus;
    l->cpu_max = -1;
    l->partitions = groups > 0 && partitions;
    if (groups > 0)
        pt_groups_init(&l->groups, groups);
}

void pt_ledger_free(struct pt_ledger *l)
{
    if (l->groups.list)
        pt_groups_free(&l->groups);
    pt_rank_free(&l->rank);
    free(l->rank_slot);
    free(l->shares);
    memset(l, 0, sizeof(*l));
}

struct pt_group *pt_ledger_group_at(const struct pt_ledger *l, int32_t g)
{
    assert(l->groups.list && g >= 0 && (uint32_t)g <= l->groups.limit);
    return &l->groups.list[g];
}

int64_t pt_ledger_account_value(const struct pt_account *a, int k)
{
    assert(k >= 0 && k < PT_CTR_COUNT);
    int64_t v = a->owed[k] > 0 && a->due[k] > a->ctr[k] ? a->due[k] : a->ctr[k];
    return pt_ctr_is_cpu(k) ? pt_sat_add(v, a->exact_cpu[pt_cpu_of_ctr(k)]) : v;
}

void pt_ledger_credit(struct pt_ledger *l, int32_t group, int k, int64_t v)
{
    assert(l->phase == PT_LEDGER_READING); /* the count copies adjust */
    l->adjust[k] = pt_sat_add(l->adjust[k], v);
    if (group >= 0)
        pt_groups_adjust(&l->groups, (uint32_t)group, k, v);
}

/* Every counter a holds, times sign, to the tree and its group. */
static void credit_account(struct pt_ledger *l, const struct pt_account *a, int sign)
{
    for (int k = 0; k < PT_CTR_COUNT; k++)
        if (pt_account_has(a, k))
            pt_ledger_credit(l, a->group, k, sign > 0 ? pt_ledger_account_value(a, k) : -pt_ledger_account_value(a, k));
}

void pt_ledger_move_counter(struct pt_ledger *l, int32_t from, uint32_t to, int k, int64_t v)
{
    assert(l->phase != PT_LEDGER_REPORTING);
    pt_groups_move(&l->groups, (uint32_t)from, to, k, v);
}

/* ---- membership events ---------------------------------------------- */

static void note_folds(struct pt_ledger *l, struct pt_account *a, bool first)
{
    if (!a->has_stat)
        return;
    for (int c = 0; c < PT_CPU_COUNT; c++) {
        int k = pt_ctr_of_cpu((enum pt_cpu)c);
        int64_t children = pt_sat_sub(a->ctr[k], a->own[k]);
        if (!first && l->shares_folds)
            a->unshared_cpu[c] = pt_sat_add(a->unshared_cpu[c], pt_sat_sub(children, a->children_cpu[c]));
        a->children_cpu[c] = children;
    }
}

void pt_ledger_join(struct pt_ledger *l, struct pt_account *a, int32_t group, bool baseline)
{
    a->group = group;
    note_folds(l, a, true);
    memcpy(a->ctr_at_end, a->ctr, sizeof(a->ctr));
    if (baseline)
        credit_account(l, a, -1);
    pt_ledger_seen(l, a);
}

void pt_ledger_seen(struct pt_ledger *l, const struct pt_account *a)
{
    l->stat_seen |= a->has_stat;
    l->io_seen |= a->has_io;
    if (a->group >= 0) {
        struct pt_group *g = pt_ledger_group_at(l, a->group);
        g->stat_seen |= a->has_stat;
        g->io_seen |= a->has_io;
    }
}

void pt_ledger_io_changed(struct pt_ledger *l, struct pt_account *a, bool had_io)
{
    if (had_io == a->has_io)
        return;
    for (int k = 0; k < PT_CTR_IO_END; k++) {
        if (had_io) { /* left: what it showed stays counted; its io debts are counted now */
            pt_ledger_credit(l, a->group, k, pt_ledger_account_value(a, k));
            a->owed[k] = 0;
        } else { /* joined: its past was not seen */
            pt_ledger_credit(l, a->group, k, -a->ctr[k]);
            a->ctr_at_end[k] = a->ctr[k];
        }
    }
}

void pt_ledger_read(struct pt_ledger *l, struct pt_account *a)
{
    if (l->shares_folds)
        note_folds(l, a, false);
    pt_ledger_seen(l, a);
}

/* Absorption adds at least the owed values, so a counter still below due
 * proves they never arrived (parent ignoring SIGCHLD, re-parented and
 * reaped by init). They are then counted as for an account that left
 * alone (adjust), and the reaper's own work counts in full from its
 * counters. A counter at or above due took them. Either way the debt is
 * over, so the tree total is adjust plus what was read again, and nothing
 * keeps the high-water mark above it. */
void pt_ledger_settle(struct pt_ledger *l, struct pt_account *a, bool final)
{
    if (!a->owes || (!final && a->owed_round == l->round))
        return;
    a->owes = false;
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (a->owed[k] == 0)
            continue;
        if (k < PT_CTR_IO_END && !a->io_fresh) {
            a->owes = true;
            continue;
        }
        /* what exact CPU it owes is rounding: a fold short of it is one */
        int64_t rounding = pt_ctr_is_cpu(k) ? a->owed_exact[pt_cpu_of_ctr(k)] : 0;
        if (a->ctr[k] < pt_sat_sub(a->due[k], rounding)) {
            pt_ledger_credit(l, a->group, k, a->owed[k]);
            if (pt_ctr_is_cpu(k)) /* no fold is coming */
                a->unshared_cpu[pt_cpu_of_ctr(k)] = pt_sat_add(a->unshared_cpu[pt_cpu_of_ctr(k)], a->owed[k]);
        } else if (a->ctr[k] < a->due[k]) {
            /* The fold came, short of the exact part: the kernel sums the
             * children's run times exact and truncates the sum once, so
             * the rest comes with a later fold (or is the reaper's own
             * work to come). Until its counter shows it, the reaper
             * counts at due: the tree does not dip, nor does the
             * reaper's group. A dip there that other groups' work fills
             * in the tree, and nothing fills in the reaper's group, left
             * the groups one tick above the tree (execd-exit-record-groups). */
            a->owed[k] = a->owed_exact[pt_cpu_of_ctr(k)] = pt_sat_sub(a->due[k], a->ctr[k]);
            a->owes = true;
            continue;
        }
        if (pt_ctr_is_cpu(k))
            a->owed_exact[pt_cpu_of_ctr(k)] = 0;
        a->owed[k] = 0;
    }
}

/* a moves to group to, with what it did since the last interval's end
 * (or its join); what it did before stays in its old group. */
static void regroup(struct pt_ledger *l, struct pt_account *a, uint32_t to)
{
    if (a->group < 0 || (uint32_t)a->group == to)
        return;
    for (int k = 0; k < PT_CTR_COUNT; k++)
        if (pt_account_has(a, k))
            pt_ledger_move_counter(l, (int32_t)to, (uint32_t)a->group, k, a->ctr_at_end[k]);
    a->group = (int32_t)to;
}

/* reaper's counters gain at least a's last values, but only at a read
 * that follows the reaping; until they show them, it counts as due = its
 * counters at the last interval's end (read before a was last seen alive,
 * so before the reaping) plus everything it owes. The tree total never
 * dips, and pt_ledger_settle() decides later whether the usage arrived.
 * A half the reaper's counters lack (io denied) can never show it: a's
 * values of that half stay counted as if a had left alone. */
static void owe(struct pt_ledger *l, struct pt_account *reaper, const struct pt_account *a)
{
    if (!reaper->owes) {
        memcpy(reaper->due, reaper->ctr_at_end, sizeof(reaper->due));
        memset(reaper->owed, 0, sizeof(reaper->owed));
        memset(reaper->owed_exact, 0, sizeof(reaper->owed_exact));
        reaper->owes = true;
    }
    reaper->owed_round = l->round;
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (!pt_account_has(a, k))
            continue;
        int64_t v = pt_ledger_account_value(a, k);
        if (!pt_account_has(reaper, k)) {
            pt_ledger_credit(l, a->group, k, v);
            continue;
        }
        /* a's group keeps what a was seen doing; the reaper's gives it
         * back, since the reaper's counters bring it */
        reaper->owed[k] = pt_sat_add(reaper->owed[k], v);
        reaper->due[k] = pt_sat_add(reaper->due[k], v);
        if (pt_ctr_is_cpu(k))
            reaper->owed_exact[pt_cpu_of_ctr(k)] =
                pt_sat_add(reaper->owed_exact[pt_cpu_of_ctr(k)], a->exact_cpu[pt_cpu_of_ctr(k)]);
        if (a->group >= 0 && reaper->group >= 0)
            pt_ledger_move_counter(l, reaper->group, (uint32_t)a->group, k, v);
        if (pt_ctr_is_cpu(k)) /* given out of its folds */
            reaper->unshared_cpu[pt_cpu_of_ctr(k)] = pt_sat_sub(reaper->unshared_cpu[pt_cpu_of_ctr(k)], v);
    }
}

void pt_ledger_leave(struct pt_ledger *l, const struct pt_account *a, struct pt_account *reaper)
{
    if (reaper)
        owe(l, reaper, a);
    else
        credit_account(l, a, +1);
}

/* ---- the breakdown's groups ------------------------------------------ */

uint32_t pt_ledger_group_named(struct pt_ledger *l, const char *name)
{
    return pt_groups_find(&l->groups, name);
}

void pt_ledger_renamed(struct pt_ledger *l, struct pt_account *a, const char *name)
{
    if (a->group >= 0 && strcmp(pt_ledger_group_at(l, a->group)->name, name) != 0)
        regroup(l, a, pt_groups_find(&l->groups, name));
}

void pt_ledger_poll_gauges(struct pt_ledger *l, const struct pt_account *a, const int64_t *now, int first, int last)
{
    assert(first >= 0 && first <= last && last < PT_G_COUNT);
    if (a->group < 0)
        return;
    struct pt_group *g = pt_ledger_group_at(l, a->group);
    for (int k = first; k <= last; k++)
        g->poll[k] = pt_sat_add(g->poll[k], now[k]);
}

void pt_ledger_end_poll(struct pt_ledger *l, int first, int last)
{
    assert(first >= 0 && first <= last && last < PT_G_COUNT);
    if (l->partitions)
        pt_groups_end_poll(&l->groups, first, last);
}

void pt_ledger_fds(struct pt_ledger *l, const struct pt_account *a, int64_t fds)
{
    if (a->group < 0)
        return;
    struct pt_group *g = pt_ledger_group_at(l, a->group);
    g->fds = pt_sat_add(g->fds, fds);
    g->fds_seen = true;
}

const struct pt_group *pt_ledger_group(const struct pt_ledger *l, uint32_t g)
{
    return pt_ledger_group_at(l, (int32_t)g);
}

/* ---- the interval ----------------------------------------------------- */

void pt_ledger_next_round(struct pt_ledger *l)
{
    assert(l->phase == PT_LEDGER_READING);
    l->round++;
}

void pt_ledger_add_account(struct pt_ledger *l, const struct pt_account *a, int64_t threads)
{
    assert(l->phase != PT_LEDGER_REPORTING);
    if (l->phase == PT_LEDGER_READING) { /* C from adjust, then account by account: saturation then loses least */
        memcpy(l->tree, l->adjust, sizeof(l->tree));
        l->phase = PT_LEDGER_COUNTING;
    }
    struct pt_group *g = l->partitions && a->group >= 0 ? pt_ledger_group_at(l, a->group) : NULL;
    if (g) {
        g->processes++;
        if (a->has_stat)
            g->threads = pt_sat_add(g->threads, threads);
    }
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (!pt_account_has(a, k))
            continue;
        l->tree[k] = pt_sat_add(l->tree[k], pt_ledger_account_value(a, k));
        if (g)
            g->live[k] = pt_sat_add(g->live[k], pt_ledger_account_value(a, k));
    }
}

/* The deltas of one cumulative counter set (the tree's, a group's) from
 * its value now (the formula of ledger.h): never negative, the growth of
 * its high-water mark past the base. The CPU (user + system) is at most
 * cpu_max ticks (-1: unbounded), cut in the ratio of the two; none where
 * the line shows no CPU (!*stat_seen); what it does not report stays between the base and
 * the mark for a later line. *cpu_waits says the last deltas left CPU
 * over their bound: this line then shows CPU (*stat_seen set). keep_base
 * leaves the whole work for the next interval. Returns the CPU reported,
 * user + system. */
static int64_t counter_deltas(int64_t high_water[PT_CTR_COUNT], int64_t base[PT_CTR_COUNT],
                              const int64_t now[PT_CTR_COUNT], bool keep_base, int64_t cpu_max, bool *stat_seen,
                              bool *cpu_waits, int64_t delta[PT_CTR_COUNT])
{
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (now[k] > high_water[k])
            high_water[k] = now[k];
        delta[k] = pt_sat_sub(high_water[k], base[k]);
    }
    *stat_seen |= *cpu_waits; /* this line shows what waits */
    int64_t user = delta[PT_CTR_USER_TICKS], system = delta[PT_CTR_SYSTEM_TICKS];
    int64_t total = pt_sat_add(user, system);
    bool over = *stat_seen && cpu_max >= 0 && total > cpu_max;
    if (!*stat_seen) { /* no line shows it: it waits for one that does */
        user = system = 0;
    } else if (over) { /* cpu_max in the ratio of the two */
        user = (int64_t)((__int128)cpu_max * user / total);
        system = cpu_max - user; /* <= system, as user's share is rounded down */
    }
    delta[PT_CTR_USER_TICKS] = user;
    delta[PT_CTR_SYSTEM_TICKS] = system;
    if (!keep_base) {
        for (int k = 0; k < PT_CTR_COUNT; k++)
            base[k] = pt_ctr_is_cpu(k) ? pt_sat_add(base[k], delta[k]) : high_water[k];
        *cpu_waits = over;
    }
    return pt_sat_add(user, system);
}

/* This interval's deltas of group g, from its live[] (counter_deltas):
 * its CPU at most cpu_max, all of it once it has no live member (no later
 * line would show the rest); keep_base leaves the work for the next
 * interval. */
static void group_deltas(struct pt_groups *gs, uint32_t i, bool keep_base, int64_t cpu_max, int64_t delta[PT_CTR_COUNT])
{
    assert(i <= gs->limit);
    struct pt_group *g = &gs->list[i];
    int64_t now[PT_CTR_COUNT];
    for (int k = 0; k < PT_CTR_COUNT; k++)
        now[k] = pt_sat_add(g->adjust[k], g->live[k]);
    g->cpu_max = g->processes > 0 ? cpu_max : -1;
    g->cpu_reported = counter_deltas(g->high_water, g->interval_base, now, keep_base, g->cpu_max, &g->stat_seen,
                                     &g->cpu_waits, delta);
}

/* The most CPU, in ticks, that the CPUs can run in seconds: rounded up,
 * so that a tree that keeps them all busy never falls behind by the
 * rounding (-1: unbounded). */
static int64_t cpu_max_of(const struct pt_ledger *l, double seconds)
{
    double ticks = seconds * (double)l->cpus * l->ticks_per_second;
    if (l->cpus == 0 || !(ticks >= 0 && ticks < 0x1p62)) /* NAN, infinite */
        return -1;
    int64_t whole = (int64_t)ticks;
    return (double)whole < ticks ? whole + 1 : whole;
}

void pt_ledger_deltas(struct pt_ledger *l, bool keep_base, double seconds, int64_t delta[PT_CTR_COUNT])
{
    assert(l->phase != PT_LEDGER_REPORTING); /* once an interval */
    /* with no live account the tree has ended: no later line would show
     * what it still has to report */
    bool live = l->phase == PT_LEDGER_COUNTING;
    l->cpu_max = live ? cpu_max_of(l, seconds) : -1;
    const int64_t *now = live ? l->tree : l->adjust;
    /* Groups that partition the tree: its mark is theirs summed (never
     * below C, as each group's is never below its G). A group whose G
     * dips (a reaper's fold a tick short of what its child was counted)
     * holds its mark until its own work passes it, where the tree's own
     * mark would fill the dip with any group's work: the groups' lines
     * would then add up to more than the tree's. */
    int64_t marks[PT_CTR_COUNT];
    if (l->partitions) {
        pt_groups_marks(&l->groups, marks);
        now = marks;
    }
    l->cpu_reported = counter_deltas(l->high_water, l->interval_base, now, keep_base, l->cpu_max, &l->stat_seen,
                                     &l->cpu_waits, delta);
    l->phase = PT_LEDGER_REPORTING;
}

int64_t pt_ledger_rank_weight(enum pt_rank_by by, const int64_t delta[PT_CTR_COUNT], int64_t rss)
{
    switch (by) {
    case PT_RANK_CPU:
        return pt_sat_add(delta[PT_CTR_USER_TICKS], delta[PT_CTR_SYSTEM_TICKS]);
    case PT_RANK_IO:
        return pt_sat_add(delta[PT_CTR_STORAGE_READ], delta[PT_CTR_STORAGE_WRITE]);
    case PT_RANK_MEMORY:
        return rss;
    case PT_RANK_SEEN:
        break;
    }
    return 0;
}

void pt_ledger_group_deltas(struct pt_ledger *l, uint32_t g, bool keep_base, int64_t delta[PT_CTR_COUNT])
{
    assert(l->phase == PT_LEDGER_REPORTING && g <= l->groups.limit);
    group_deltas(&l->groups, g, keep_base, l->cpu_max, delta);
    const struct pt_group *gr = &l->groups.list[g];
    if (pt_ledger_ranks(l) && g < l->groups.limit && gr->in_use) /* the name weighs what its line shows */
        pt_rank_note(&l->rank, gr->name,
                     pt_ledger_rank_weight(l->rank.by, delta, gr->gauges[PT_G_RSS].any ? gr->gauges[PT_G_RSS].max : 0),
                     (int32_t)g);
}

void pt_ledger_snapshot(const struct pt_ledger *l, struct pt_account *a)
{
    assert(l->phase != PT_LEDGER_READING);
    memcpy(a->ctr_at_end, a->ctr, sizeof(a->ctr));
}

void pt_ledger_end_interval(struct pt_ledger *l)
{
    assert(l->phase == PT_LEDGER_REPORTING);
    l->stat_seen = l->io_seen = false;
    l->tc_seen = 0;
    memset(l->tc, 0, sizeof(l->tc));
    l->phase = PT_LEDGER_READING;
    if (l->groups.list)
        pt_groups_end_interval(&l->groups);
}
