#include "procfs/sysmem.h"

#include <string.h>
#include <unistd.h>

#include "procfs/procfile.h"

int pt_sysmem_init(struct pt_sysmem *g, int proc_root_fd)
{
    memset(g, 0, sizeof(*g));
    g->fd = pt_procfs_open_at(proc_root_fd, "meminfo");
    return g->fd < 0 ? g->fd : 0;
}

void pt_sysmem_free(struct pt_sysmem *g)
{
    if (g->fd >= 0)
        close(g->fd);
    pt_buf_free(&g->buf);
    g->fd = -1;
}

void pt_sysmem_poll(struct pt_sysmem *g)
{
    struct pt_meminfo mi;
    ssize_t n = pt_procfs_pread_record(g->fd, &g->buf);
    if (n <= 0 || pt_kvparse_meminfo(g->buf.data, (size_t)n, &mi) != 0)
        return;
    /* Kernels before 3.14 lack MemAvailable: fall back to the classic
     * "neither free nor buffers/cache" definition. */
    uint64_t unused = mi.has_available ? mi.mem_available : mi.mem_free + mi.buffers + mi.cached;
    pt_extrema_add(&g->used, mi.mem_total > unused ? (int64_t)(mi.mem_total - unused) : 0);
    pt_extrema_add(&g->cached, (int64_t)mi.cached);
    pt_extrema_add(&g->anon, (int64_t)mi.anon_pages);
    pt_extrema_add(&g->swap_free, (int64_t)mi.swap_free);
}

static void put_extrema(struct pt_report *report, enum pt_metric_id min_id, const struct pt_extrema *e,
                        const struct pt_units *units)
{
    pt_lines_value_set(&report->v[min_id], min_id, (double)e->min, units);
    pt_lines_value_set(&report->v[min_id + 1], min_id + 1, (double)e->max, units);
}

bool pt_sysmem_end_interval(struct pt_sysmem *g, double seconds, const struct pt_units *units, struct pt_report *report)
{
    pt_sysmem_poll(g); /* the last sample of the interval */
    memset(report, 0, sizeof(*report));
    bool any = g->used.any;
    if (any) {
        put_extrema(report, PT_M_GLOBAL_MEM_USED_MIN, &g->used, units);
        put_extrema(report, PT_M_GLOBAL_CACHED_MIN, &g->cached, units);
        put_extrema(report, PT_M_GLOBAL_ANON_MIN, &g->anon, units);
        put_extrema(report, PT_M_GLOBAL_SWAP_FREE_MIN, &g->swap_free, units);
        pt_lines_report_global(seconds, units, report); /* the interval's length, as every line says it */
    }
    g->used = g->cached = g->anon = g->swap_free = (struct pt_extrema){0};
    return any;
}
