#include "accounting/ledgerrank.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "util/saturate.h"

void pt_ledgerrank_set(struct pt_ledger *l, enum pt_rank_by by)
{
    pt_rank_free(&l->rank);
    free(l->rank_slot);
    l->rank_slot = NULL;
    pt_rank_init(&l->rank, by);
    if (by != PT_RANK_SEEN && l->groups.list)
        l->rank_slot = pt_xalloc(l->groups.limit * sizeof(*l->rank_slot));
}

void pt_ledgerrank_account(struct pt_ledger *l, const struct pt_account *a, const char *name, int64_t rss_bytes)
{
    assert(l->phase != PT_LEDGER_REPORTING); /* before the snapshot */
    if (!pt_ledger_ranks(l) || a->group < 0 || (uint32_t)a->group != l->groups.limit)
        return;
    int64_t delta[PT_CTR_COUNT] = {0};
    for (int k = 0; k < PT_CTR_COUNT; k++)
        if (pt_account_has(a, k))
            delta[k] = pt_sat_sub(a->ctr[k], a->ctr_at_end[k]);
    pt_rank_note(&l->rank, name, pt_ledger_rank_weight(l->rank.by, delta, rss_bytes), -1);
}

void pt_ledgerrank_choose(struct pt_ledger *l)
{
    assert(l->phase == PT_LEDGER_READING); /* between intervals */
    if (!pt_ledger_ranks(l))
        return;
    struct pt_groups *gs = &l->groups;
    for (uint32_t i = 0; i < gs->limit; i++)
        l->rank_slot[i] = gs->list[i].in_use;
    pt_rank_choose(&l->rank, l->rank_slot, gs->limit);
    memset(l->rank_slot, 0, gs->limit * sizeof(*l->rank_slot));
    /* the names that lose their slot first, so that those that gain one find it free */
    for (size_t i = 0; i < l->rank.n; i++) {
        const struct pt_rank_name *e = &l->rank.list[i];
        if (e->slot >= 0 && !e->named) {
            pt_groups_merge_other(gs, (uint32_t)e->slot);
            l->rank_slot[e->slot] = true;
        }
    }
    for (size_t i = 0; i < l->rank.n; i++) {
        const struct pt_rank_name *e = &l->rank.list[i];
        if (e->slot < 0 && e->named) {
            uint32_t got = pt_groups_find(gs, e->name);
            assert(got < gs->limit); /* as many slots were freed as names gain one */
            (void)got;
        }
    }
}

void pt_ledgerrank_regroup_all(struct pt_ledger *l, struct pt_account *a, uint32_t to)
{
    if (a->group < 0 || (uint32_t)a->group == to)
        return;
    for (int k = 0; k < PT_CTR_COUNT; k++)
        if (pt_account_has(a, k))
            pt_ledger_move_counter(l, (int32_t)to, (uint32_t)a->group, k, pt_ledger_account_value(a, k));
    a->group = (int32_t)to;
}

int32_t pt_ledgerrank_regrouped(const struct pt_ledger *l, int32_t group)
{
    if (!pt_ledger_ranks(l) || group < 0 || (uint32_t)group >= l->groups.limit || !l->rank_slot[group])
        return group;
    return (int32_t)l->groups.limit; /* its group's counters went there whole */
}

void pt_ledgerrank_follow(struct pt_ledger *l, struct pt_account *a, const char *name)
{
    if (!pt_ledger_ranks(l) || a->group < 0)
        return;
    uint32_t other = l->groups.limit;
    a->group = pt_ledgerrank_regrouped(l, a->group);
    if ((uint32_t)a->group != other)
        return;
    const struct pt_rank_name *e = pt_rank_find(&l->rank, name);
    if (!e || !e->named)
        return;
    uint32_t to = pt_groups_find(&l->groups, name);
    if (to < other)
        pt_ledgerrank_regroup_all(l, a, to);
}
