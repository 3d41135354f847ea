#include "accounting/ledgerfolds.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "util/saturate.h"

void pt_ledgerfolds_add_share(struct pt_ledger *l, const struct pt_account *reaper, const char *name, int64_t weight_us)
{
    if (weight_us <= 0)
        return;
    if (l->n_shares == l->cap_shares) {
        l->cap_shares = l->cap_shares ? l->cap_shares * 2 : 16;
        l->shares = pt_xrealloc_array(l->shares, l->cap_shares, sizeof(*l->shares));
    }
    struct pt_share *s = &l->shares[l->n_shares++];
    *s = (struct pt_share){.reaper = reaper->pid, .weight_us = weight_us};
    memcpy(s->name, name, strnlen(name, sizeof(s->name) - 1)); /* NUL: zeroed above */
}

/* How many shares of folds a share waits for its reaper's: a reaper that
 * ignores SIGCHLD never shows it (nor does the tree, so nothing is lost). */
#define PT_SHARE_DRAINS 3

/* The whole ticks of CPU counter c that reaper r's kernel fold brought,
 * shared out among the groups whose fold_weight_us waits for them: each
 * group is given its weight's share of the ticks plus what rounding kept
 * from it before (cpu_rest_us), to whole ticks that add up to exactly the
 * fold. So the reaper's group gives away what the kernel folded into it,
 * never more: a group left below what it reported would hide its next
 * work, and the groups would add up to more than the tree. Summed over
 * many intervals, no group loses to rounding. */
static void share_fold(struct pt_ledger *l, struct pt_account *r, enum pt_cpu c, int64_t weight)
{
    struct pt_groups *gs = &l->groups;
    int64_t fold = r->unshared_cpu[c], given = 0;
    double tick_us = PT_US_PER_SECOND / l->ticks_per_second;
    for (uint32_t i = 0; i <= gs->limit; i++) {
        struct pt_group *g = &gs->list[i];
        if (g->fold_weight_us <= 0)
            continue;
        g->fold_want = (double)fold * (double)g->fold_weight_us / (double)weight + (double)g->cpu_rest_us[c] / tick_us;
        g->fold_ticks = g->fold_want <= 0 ? 0 : g->fold_want >= (double)INT64_MAX ? INT64_MAX : (int64_t)g->fold_want;
        given = pt_sat_add(given, g->fold_ticks);
    }
    while (given != fold) { /* a tick more to whom rounding took most from, or back from whom it gave most */
        struct pt_group *pick = NULL;
        for (uint32_t i = 0; i <= gs->limit; i++) {
            struct pt_group *g = &gs->list[i];
            if (g->fold_weight_us <= 0 || (given > fold && g->fold_ticks == 0))
                continue;
            double kept = g->fold_want - (double)g->fold_ticks;
            double best = pick ? pick->fold_want - (double)pick->fold_ticks : 0;
            if (!pick || (given < fold ? kept > best : kept < best))
                pick = g;
        }
        assert(pick); /* short: some group waits; over: some was given a tick */
        pick->fold_ticks += given < fold ? 1 : -1;
        given += given < fold ? 1 : -1;
    }
    for (uint32_t i = 0; i <= gs->limit; i++) {
        struct pt_group *g = &gs->list[i];
        if (g->fold_weight_us <= 0)
            continue;
        g->cpu_rest_us[c] = (int64_t)((g->fold_want - (double)g->fold_ticks) * tick_us);
        if (r->group >= 0 && (uint32_t)r->group != i) {
            pt_groups_move(gs, (uint32_t)r->group, i, pt_ctr_of_cpu(c), g->fold_ticks);
            g->stat_seen = true;
        }
    }
}

/* Do a's counters show a fold of what it reaped that is not shared out
 * yet (its children's CPU grew)? */
static bool fold_shown(const struct pt_account *a)
{
    return pt_sat_add(a->unshared_cpu[PT_CPU_USER], a->unshared_cpu[PT_CPU_SYSTEM]) > 0;
}

static int by_reaper(const void *a, const void *b)
{
    pid_t x = ((const struct pt_share *)a)->reaper, y = ((const struct pt_share *)b)->reaper;
    return (x > y) - (x < y);
}

/* A fold nobody waits for stays in the reaper's group (a process the
 * records did not weigh: a member joined as a root, a lost record). Done
 * once an interval: a reaper's children's CPU is in clock ticks, and a
 * short window's growth, a few ticks, would give each its rounding. */
void pt_ledgerfolds_share(struct pt_ledger *l, struct pt_account *(*live)(const void *ctx, pid_t pid), const void *ctx)
{
    assert(l->phase == PT_LEDGER_READING); /* the folds given are counted */
    if (!l->shares_folds)
        return;
    if (l->n_shares > 1) /* each reaper's shares in a run */
        qsort(l->shares, l->n_shares, sizeof(*l->shares), by_reaper);
    size_t kept = 0;
    for (size_t i = 0, end; i < l->n_shares; i = end) {
        struct pt_account *r = live(ctx, l->shares[i].reaper);
        int64_t weight = 0;
        for (end = i; end < l->n_shares && l->shares[end].reaper == l->shares[i].reaper; end++)
            weight = pt_sat_add(weight, l->shares[end].weight_us);
        if (!r)
            continue;
        r->share_weight_us = weight;
        if (!fold_shown(r)) {
            for (size_t j = i; j < end; j++)
                if (++l->shares[j].drains < PT_SHARE_DRAINS)
                    l->shares[kept++] = l->shares[j];
            continue;
        }
        if (r->fold_held)
            continue; /* the fold stays with the reaper; pt_ledgerfolds_given() lets it go */
        for (size_t j = i; j < end; j++) {
            struct pt_group *g = &l->groups.list[pt_groups_find(&l->groups, l->shares[j].name)];
            g->fold_weight_us = pt_sat_add(g->fold_weight_us, l->shares[j].weight_us);
        }
        for (int c = 0; c < PT_CPU_COUNT; c++)
            if (r->unshared_cpu[c] > 0)
                share_fold(l, r, (enum pt_cpu)c, weight);
        for (uint32_t k = 0; k <= l->groups.limit; k++)
            l->groups.list[k].fold_weight_us = 0;
    }
    l->n_shares = kept;
}

void pt_ledgerfolds_hold(const struct pt_ledger *l, struct pt_account *reaper)
{
    if (l->shares_folds) /* one hold however many processes it holds: the fold is kept whole */
        reaper->fold_held = PT_SHARE_DRAINS;
}

void pt_ledgerfolds_given(const struct pt_ledger *l, struct pt_account *a)
{
    if (!l->shares_folds)
        return;
    if (a->fold_held) /* it waits for the fold as a share does, and ends with it */
        a->fold_held = fold_shown(a) ? 0 : a->fold_held - 1;
    bool waiting = a->share_weight_us > 0 && !fold_shown(a);
    for (int c = 0; c < PT_CPU_COUNT && !waiting; c++)
        if (a->unshared_cpu[c] > 0) /* given, or nobody waits for it */
            a->unshared_cpu[c] = 0;
    a->share_weight_us = 0;
}

void pt_ledgerfolds_records_followed(struct pt_ledger *l, bool share)
{
    l->shares_folds = share;
}

void pt_ledgerfolds_records_stopped(struct pt_ledger *l)
{
    l->shares_folds = false;
    l->n_shares = 0;
}
