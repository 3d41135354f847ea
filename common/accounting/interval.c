/* interval: what a target's interval saw, told by its parts. */
#include "accounting/interval.h"

#include <string.h>

void pt_interval_add_cpu(struct pt_interval *iv, double seconds)
{
    iv->cpu_seconds += seconds;
}

void pt_interval_close_cpu(struct pt_interval *iv)
{
    if (iv->cpu_closed)
        return;
    iv->cpu_closed = true;
    iv->cpu_line = iv->cpu_seconds;
    iv->cpu_seconds = 0;
}

double pt_interval_line_cpu(const struct pt_interval *iv)
{
    return iv->cpu_closed ? iv->cpu_line : iv->cpu_seconds;
}

void pt_interval_add_restart(struct pt_interval *iv)
{
    iv->restarts++;
}

void pt_interval_add_short(struct pt_interval *iv, unsigned what)
{
    iv->short_of_fds |= what;
}

void pt_interval_add_vanished(struct pt_interval *iv)
{
    iv->vanished++;
}

void pt_interval_add_started(struct pt_interval *iv)
{
    iv->started++;
}

void pt_interval_add_exited(struct pt_interval *iv)
{
    iv->exited++;
}

void pt_interval_add_bpf_read(struct pt_interval *iv)
{
    iv->bpf_reads++;
}

void pt_interval_add_sample(struct pt_interval *iv)
{
    iv->samples++;
}

void pt_interval_add_gauges(struct pt_interval *iv, const int64_t sum[PT_G_COUNT], enum pt_gauge first,
                            enum pt_gauge last)
{
    for (int g = first; g <= (int)last; g++)
        pt_extrema_add(&iv->gauges[g], sum[g]);
}

void pt_interval_set_gpu(struct pt_interval *iv, struct pt_extrema memory)
{
    iv->gauges[PT_G_GPU] = memory;
}

void pt_interval_add_pss_stale(struct pt_interval *iv)
{
    iv->pss_stale++;
}

void pt_interval_add_departure(struct pt_interval *iv, uint64_t starttime)
{
    if (!iv->departed_any || starttime < iv->departed_first_starttime)
        iv->departed_first_starttime = starttime;
    iv->departed_any = true;
}

void pt_interval_add_fd_limit(struct pt_interval *iv, double percent, int64_t headroom)
{
    if (!iv->fd_limit_known || percent > iv->fd_limit_worst_percent)
        iv->fd_limit_worst_percent = percent;
    if (!iv->fd_limit_known || headroom < iv->fd_headroom_least)
        iv->fd_headroom_least = headroom;
    iv->fd_limit_known = true;
}

bool pt_interval_begin_end_reads(struct pt_interval *iv, double boottime, bool delayacct)
{
    iv->ended_boottime = boottime;
    bool was_read = iv->blkio_read;
    iv->blkio_read = delayacct;
    iv->fd_limit_known = false;
    return was_read;
}

void pt_interval_end_reads_done(struct pt_interval *iv, int64_t fds, bool blkio_shown)
{
    iv->end_fds = fds;
    iv->blkio_shown = blkio_shown;
    iv->departed_any = false;
    iv->end_read = true;
}

double pt_interval_lasted(struct pt_interval *iv, double seconds)
{
    iv->counter_seconds += seconds;
    return iv->counter_seconds;
}

void pt_interval_end(struct pt_interval *iv)
{
    if (!(iv->short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS)))
        iv->counter_seconds = 0;
    iv->short_of_fds = 0;
    memset(iv->gauges, 0, sizeof(iv->gauges));
    iv->samples = iv->vanished = iv->started = iv->exited = iv->pss_stale = iv->restarts = iv->bpf_reads = 0;
    if (!iv->cpu_closed)
        iv->cpu_seconds = 0; /* else what the end did since it closed is the next line's */
    iv->cpu_line = 0;
    iv->cpu_closed = false;
    iv->end_read = false;
}

const char *pt_interval_check(const struct pt_interval *iv)
{
    if (iv->samples < 0 || iv->vanished < 0 || iv->started < 0 || iv->exited < 0 || iv->pss_stale < 0 ||
        iv->restarts < 0 || iv->bpf_reads < 0)
        return "a count is negative";
    if (!(iv->cpu_seconds >= 0) || !(iv->cpu_line >= 0))
        return "our own CPU time is negative";
    for (int g = 0; g < PT_G_COUNT; g++)
        if (iv->gauges[g].any && iv->gauges[g].min > iv->gauges[g].max)
            return "a gauge's min is above its max";
    if (iv->fd_limit_known && (!(iv->fd_limit_worst_percent >= 0) || iv->fd_headroom_least < 0))
        return "the descriptors' worst share or least headroom is negative";
    if (!(iv->counter_seconds >= 0))
        return "the counters' seconds are negative";
    return NULL;
}
