/* targetinterval: what a target's interval saw, told by its parts. */
#include "target/targetinterval.h"

#include <string.h>

void pt_interval_add_cpu(struct pt_target *t, double seconds)
{
    t->interval.cpu_seconds += seconds;
}

void pt_interval_add_restart(struct pt_target *t)
{
    t->interval.restarts++;
}

void pt_interval_add_short(struct pt_target *t, unsigned what)
{
    t->interval.short_of_fds |= what;
}

void pt_interval_add_vanished(struct pt_target *t)
{
    t->interval.vanished++;
}

void pt_interval_add_started(struct pt_target *t)
{
    t->interval.started++;
}

void pt_interval_add_exited(struct pt_target *t)
{
    t->interval.exited++;
}

void pt_interval_add_sample(struct pt_target *t)
{
    t->interval.samples++;
}

void pt_interval_add_gauges(struct pt_target *t, const int64_t sum[PT_G_COUNT], enum pt_gauge first, enum pt_gauge last)
{
    for (int g = first; g <= (int)last; g++)
        pt_extrema_add(&t->interval.gauges[g], sum[g]);
}

void pt_interval_add_pss_stale(struct pt_target *t)
{
    t->interval.pss_stale++;
}

void pt_interval_add_departure(struct pt_target *t, uint64_t starttime)
{
    if (!t->interval.departed_any || starttime < t->interval.departed_first_starttime)
        t->interval.departed_first_starttime = starttime;
    t->interval.departed_any = true;
}

void pt_interval_add_fd_limit(struct pt_target *t, double percent, int64_t headroom)
{
    if (!t->interval.fd_limit_known || percent > t->interval.fd_limit_worst_percent)
        t->interval.fd_limit_worst_percent = percent;
    if (!t->interval.fd_limit_known || headroom < t->interval.fd_headroom_least)
        t->interval.fd_headroom_least = headroom;
    t->interval.fd_limit_known = true;
}

bool pt_interval_begin_end_reads(struct pt_target *t, bool delayacct)
{
    bool was_read = t->interval.blkio_read;
    t->interval.blkio_read = delayacct;
    t->interval.fd_limit_known = false;
    return was_read;
}

void pt_interval_end_reads_done(struct pt_target *t, int64_t threads, int64_t fds, bool blkio_shown)
{
    t->interval.end_threads = threads;
    t->interval.end_fds = fds;
    t->interval.blkio_shown = blkio_shown;
    t->interval.departed_any = false;
    t->interval.end_read = true;
}

double pt_interval_lasted(struct pt_target *t, double seconds)
{
    t->interval.counter_seconds += seconds;
    return t->interval.counter_seconds;
}

void pt_interval_end(struct pt_target *t)
{
    if (!(t->interval.short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS)))
        t->interval.counter_seconds = 0;
    t->interval.short_of_fds = 0;
    memset(t->interval.gauges, 0, sizeof(t->interval.gauges));
    t->interval.samples = t->interval.vanished = t->interval.started = t->interval.exited = t->interval.pss_stale =
        t->interval.restarts = 0;
    t->interval.cpu_seconds = 0;
    t->interval.end_read = false;
}
