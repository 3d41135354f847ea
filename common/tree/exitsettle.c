/* exitsettle: a departed member's last moments, settled once all its
 * exit records are in (the rule is exits.c's): what its records show past
 * its last read, moved from its reaper's group to its own, or added to
 * the tree where it was reaped outside it. */
#include "tree/exitsettle.h"

#include "accounting/ledgerfolds.h"
#include "accounting/ledgerrecords.h"
#include "util/saturate.h"

/* The share of a departed member's life that came after its last read,
 * 0 to 1; -1 without its main thread's record. */
static double share_after_read(const struct pt_departure *d)
{
    if (d->life_us <= 0)
        return -1;
    /* its exit event's time, else its start (to a clock tick) and life */
    double life = (double)d->life_us / PT_US_PER_SECOND;
    double after = (d->exited_at > 0 ? d->exited_at : d->start + life) - d->read_at;
    return after < 0 ? 0 : after > life ? 1 : after / life;
}

/* The CPU a departed member used after its last read, as its records'
 * samples weigh it: their sum over its life, in the share of its life
 * that came after the read (on a busy host the samples fall short of the
 * run time its reads showed, so their difference would say nothing). */
static int64_t last_moments_weight(const struct pt_departure *d)
{
    int64_t samples = pt_sat_add(d->recorded[PT_REC_USER_US], d->recorded[PT_REC_SYSTEM_US]);
    double after = share_after_read(d);
    if (after < 0)
        return 1; /* no main thread record: a little, and alone the whole fold */
    int64_t weight = (int64_t)((double)samples * after);
    return weight > 0 ? weight : 1;
}

/* CPU after a departed member's last read, in microseconds, at most what
 * the CPUs can run between that read and its exit (its exit event's time,
 * else now), plus the two ticks its read's counters were cut by: a clock
 * of the kernel's that jumped (seen under an emulated CPU) must not give a
 * line more CPU than its time can hold. Cut in the ratio of the two. */
static void bound_after_read(const struct pt_target *t, const struct pt_departure *d, double after[PT_CPU_COUNT])
{
    unsigned cpus = t->ledger.cpus;
    if (cpus == 0 || !(t->ticks_per_second > 0))
        return;
    double wall = (d->exited_at > 0 ? d->exited_at : pt_now()) - d->read_at;
    double most = (wall > 0 ? wall : 0) * PT_US_PER_SECOND * cpus + 2.0 * PT_US_PER_SECOND / t->ticks_per_second;
    double total = after[PT_CPU_USER] + after[PT_CPU_SYSTEM];
    if (!(total > most))
        return;
    after[PT_CPU_USER] = most * after[PT_CPU_USER] / total;
    after[PT_CPU_SYSTEM] = most - after[PT_CPU_USER];
}

/* The last moments of a member reaped outside the tree (a daemon that
 * init reaps at once), which no reaper's counters bring: what its records
 * show past its last read. Faults and I/O are exact. CPU, in
 * microseconds, is what /proc would have shown at its exit less what its
 * last read showed: its records' exact run time split as the kernel
 * splits it (its samples alone part from the run time by several percent
 * of its whole life on a busy host, 6.45 s for 6.0 s here). Without the
 * run time in a record, nothing past the last read. */
static void settle_outside(const struct pt_target *t, struct pt_ledger *ledger, const struct pt_departure *d,
                           int64_t last[PT_CTR_COUNT])
{
    if (d->has_stat && d->recorded_run_us > 0) {
        double shown[PT_CPU_COUNT], before[PT_CPU_COUNT];
        for (int c = 0; c < PT_CPU_COUNT; c++)
            shown[c] = before[c] = (double)d->own[pt_ctr_of_cpu(c)] * PT_US_PER_SECOND / t->ticks_per_second;
        pt_ledgerrecords_split_run_time((double)d->recorded_run_us, (double)d->recorded[PT_REC_USER_US],
                                        (double)d->recorded[PT_REC_SYSTEM_US], shown);
        double after[PT_CPU_COUNT];
        for (int c = 0; c < PT_CPU_COUNT; c++)
            after[c] = shown[c] - before[c];
        bound_after_read(t, d, after);
        for (int c = 0; c < PT_CPU_COUNT; c++)
            last[pt_ctr_of_cpu(c)] = (int64_t)after[c];
    }
    /* by cgroup the group it was in; by process or title its name's at its end */
    int32_t group =
        t->options.breakdown == PT_BY_CGROUP ? d->group : pt_membership_group_of(t, ledger, d->group_name, 0);
    pt_ledgerrecords_add_lost(ledger, group, last);
}

/* A departed member's last moments, now that all its records are in: from
 * its reaper's group to its own; the faults and I/O its records show past
 * its last read, its CPU as a share of the reaper's fold. */
static void settle_departure(const struct pt_target *t, struct pt_ledger *ledger, const struct pt_departure *d)
{
    struct pt_member *reaper = d->reaper ? pt_targetstate_live_member(t, d->reaper) : NULL;
    if (d->reaper && !reaper) /* it left too: whether its last read held them is unknown */
        return;
    if (!d->whole) { /* its records do not weigh it: its last moments, and the fold's, stay with the reaper */
        if (reaper && pt_target_by_member_name(t))
            pt_ledgerfolds_hold(ledger, &reaper->acct);
        return;
    }
    int64_t last[PT_CTR_COUNT] = {0};
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        bool has = k < PT_CTR_IO_END ? d->has_io : d->has_stat;
        int64_t v = has && !pt_ctr_is_cpu(k) ? pt_sat_sub(d->recorded[k], d->own[k]) : 0;
        last[k] = v > 0 ? v : 0;
    }
    if (!reaper) {
        settle_outside(t, ledger, d, last);
        return;
    }
    if (!pt_target_by_member_name(t))
        return; /* the reaper's counters bring the rest to the tree and its group */
    pt_ledgerrecords_move(ledger, &reaper->acct, pt_ledger_group_named(ledger, d->group_name), last);
    pt_ledgerfolds_add_share(ledger, &reaper->acct, d->group_name, last_moments_weight(d));
}

void pt_exitsettle_departures(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    for (size_t i = 0; i < t->departures.n; i++)
        settle_departure(t, mp->ledger, &t->departures.list[i]);
    pt_membership_departures_settled(mp);
}
