#include "accounting/ledgerrecords.h"

#include <assert.h>

#include "util/base.h"
#include "util/saturate.h"

/* Counts v of which (enum pt_tcount bits) into tc, seen. */
static void add_tcounts(int64_t tc[PT_TC_COUNT], unsigned *seen, const int64_t v[PT_TC_COUNT], unsigned which)
{
    for (int k = 0; k < PT_TC_COUNT; k++)
        if (which & (1u << k))
            tc[k] = pt_sat_add(tc[k], v[k]);
    *seen |= which;
}

void pt_ledgerrecords_credit_tcounts(struct pt_ledger *l, int32_t group, const int64_t v[PT_TC_COUNT], unsigned which)
{
    assert((which & ~PT_TC_ALL) == 0);
    add_tcounts(l->tc, &l->tc_seen, v, which);
    if (group >= 0) {
        struct pt_group *g = pt_ledger_group_at(l, group);
        add_tcounts(g->tc, &g->tc_seen, v, which);
    }
}

static int64_t carry_ticks(const struct pt_ledger *l, int64_t *rest, int64_t us);

/* CPU ticks and switches of a thread named comm to group gi alone. */
static void credit_thread(struct pt_ledger *l, const char *comm, uint32_t gi, int64_t user_ticks, int64_t system_ticks,
                          bool ctx, int64_t voluntary, int64_t involuntary)
{
    struct pt_group *g = pt_ledger_group_at(l, (int32_t)gi);
    if (pt_ledger_ranks(l) && gi == l->groups.limit) /* a name in other weighs by its threads' CPU */
        pt_rank_note(&l->rank, comm, pt_sat_add(user_ticks, system_ticks), -1);
    g->processes++; /* its live threads: the slot is kept while there are some */
    g->stat_seen = true;
    pt_groups_adjust(&l->groups, gi, PT_CTR_USER_TICKS, user_ticks);
    pt_groups_adjust(&l->groups, gi, PT_CTR_SYSTEM_TICKS, system_ticks);
    if (ctx) {
        const int64_t v[PT_TC_COUNT] = {[PT_TC_VOLUNTARY] = voluntary, [PT_TC_INVOLUNTARY] = involuntary};
        add_tcounts(g->tc, &g->tc_seen, v, PT_TC_SWITCHES);
    }
}

void pt_ledgerrecords_credit_thread(struct pt_ledger *l, const char *comm, int64_t user_ticks, int64_t system_ticks,
                                    bool ctx, int64_t voluntary, int64_t involuntary)
{
    credit_thread(l, comm, pt_groups_find(&l->groups, comm), user_ticks, system_ticks, ctx, voluntary, involuntary);
}

void pt_ledgerrecords_credit_thread_exit(struct pt_ledger *l, const char *comm, const int64_t cpu_us[PT_CPU_COUNT],
                                         int64_t voluntary, int64_t involuntary)
{
    uint32_t gi = pt_groups_find(&l->groups, comm);
    struct pt_group *g = pt_ledger_group_at(l, (int32_t)gi);
    int64_t ticks[PT_CPU_COUNT];
    for (int c = 0; c < PT_CPU_COUNT; c++) {
        assert(cpu_us[c] >= 0);
        ticks[c] = carry_ticks(l, &g->cpu_rest_us[c], cpu_us[c]);
    }
    credit_thread(l, comm, gi, ticks[PT_CPU_USER], ticks[PT_CPU_SYSTEM], true, voluntary, involuntary);
}

static int64_t ticks_to_us(const struct pt_ledger *l, int64_t ticks)
{
    double us = (double)ticks * PT_US_PER_SECOND / l->ticks_per_second;
    return us >= (double)INT64_MAX ? INT64_MAX : (int64_t)us;
}

/* Microseconds (an exit record's CPU) to clock ticks, to the nearest. */
static int64_t us_to_ticks(const struct pt_ledger *l, int64_t us)
{
    double ticks = (double)us * l->ticks_per_second / PT_US_PER_SECOND + 0.5;
    return ticks >= (double)INT64_MAX ? INT64_MAX : (int64_t)ticks;
}

/* us microseconds of CPU as whole clock ticks, to the nearest, with what
 * rounding left over carried in *rest for the next: summed over many
 * short processes, nothing is lost to rounding. */
static int64_t carry_ticks(const struct pt_ledger *l, int64_t *rest, int64_t us)
{
    int64_t total = pt_sat_add(*rest, us);
    int64_t ticks = us_to_ticks(l, total);
    *rest = pt_sat_sub(total, ticks_to_us(l, ticks));
    return ticks;
}

void pt_ledgerrecords_exact_cpu(struct pt_ledger *l, struct pt_account *a, const double exact_us[PT_CPU_COUNT])
{
    assert(l->phase == PT_LEDGER_READING); /* counted from now on */
    if (a->has_exact || !a->has_stat)
        return;
    a->has_exact = true;
    double tick_us = PT_US_PER_SECOND / l->ticks_per_second;
    for (int c = 0; c < PT_CPU_COUNT; c++) {
        /* the truncation: less than a tick, whatever the records say */
        double left = exact_us[c] - (double)a->own[pt_ctr_of_cpu((enum pt_cpu)c)] * tick_us;
        left = left < 0 ? 0 : left >= tick_us ? tick_us - 1 : left;
        a->exact_cpu[c] = carry_ticks(l, &l->exact_rest_us[c], (int64_t)left);
    }
}

void pt_ledgerrecords_split_run_time(double run, double user_samples, double system_samples, double shown[PT_CPU_COUNT])
{
    if (shown[PT_CPU_USER] + shown[PT_CPU_SYSTEM] >= run)
        return;
    double system = system_samples <= 0 ? 0
                    : user_samples <= 0 ? run
                                        : run * system_samples / (user_samples + system_samples);
    if (system < shown[PT_CPU_SYSTEM])
        system = shown[PT_CPU_SYSTEM];
    double user = run - system;
    if (user < shown[PT_CPU_USER]) {
        user = shown[PT_CPU_USER];
        system = run - user;
    }
    shown[PT_CPU_USER] = user;
    shown[PT_CPU_SYSTEM] = system;
}

void pt_ledgerrecords_add_lost(struct pt_ledger *l, int32_t group, const int64_t v[PT_CTR_COUNT])
{
    struct pt_group *g = group >= 0 ? pt_ledger_group_at(l, group) : NULL;
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        int64_t n = v[k];
        if (pt_ctr_is_cpu(k))
            n = carry_ticks(l, g ? &g->cpu_rest_us[pt_cpu_of_ctr(k)] : &l->cpu_rest_us[pt_cpu_of_ctr(k)], n);
        pt_ledger_credit(l, group, k, n);
    }
    l->io_seen = l->stat_seen = true;
    if (g)
        g->io_seen = g->stat_seen = true;
}

void pt_ledgerrecords_move(struct pt_ledger *l, const struct pt_account *from, uint32_t to,
                           const int64_t v[PT_CTR_COUNT])
{
    if (from->group < 0 || (uint32_t)from->group == to)
        return;
    struct pt_group *g = pt_ledger_group_at(l, (int32_t)to);
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (v[k] == 0 || pt_ctr_is_cpu(k) || !pt_account_has(from, k))
            continue;
        pt_ledger_move_counter(l, from->group, to, k, v[k]);
        g->io_seen |= k < PT_CTR_IO_END;
        g->stat_seen |= k >= PT_CTR_IO_END;
    }
}
