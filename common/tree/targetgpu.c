#include "tree/targetgpu.h"

#include <stdlib.h>
#include <string.h>

#include "util/base.h"

/* The host's GPU is known now: the group arrays, once. */
static void start(const struct pt_target *t, struct pt_target_gpu *gpu)
{
    gpu->on = true;
    if (!pt_target_partitions(t))
        return;
    size_t n = (size_t)t->ledger.groups.limit + 1;
    gpu->groups = n;
    gpu->group_memory = pt_xalloc(n * sizeof(*gpu->group_memory));
    gpu->group_busy = pt_xalloc(n * sizeof(*gpu->group_busy));
    gpu->group_users = pt_xalloc(n * sizeof(*gpu->group_users));
    gpu->group_drm_memory = pt_xalloc(n * sizeof(*gpu->group_drm_memory));
    gpu->group_sum = pt_xalloc(n * sizeof(*gpu->group_sum));
}

static bool ready(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g)
{
    if (!pt_gpu_on(g))
        return false;
    if (!gpu->on)
        start(t, gpu);
    return true;
}

/* m's group slot, or -1 (no breakdown that partitions the members). */
static int32_t group_of(const struct pt_target_gpu *gpu, const struct pt_member *m)
{
    int32_t gi = m->acct.group;
    return gpu->groups && gi >= 0 && (size_t)gi < gpu->groups ? gi : -1;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static bool live(const struct pt_member *m)
{
    return !m->gone && !m->zombie;
}

/* One memory sample: NVML's bytes of each live member plus the DRM
 * clients' of the last end. */
static void sample(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g)
{
    if (g->nvml_on && !g->memory_known)
        return; /* a device's listing failed: no partial sum */
    if (gpu->drm_short)
        return; /* the DRM memory that stands is of a read cut short */
    uint64_t sum = gpu->drm_memory;
    for (size_t k = 0; k < gpu->groups; k++)
        gpu->group_sum[k] = gpu->group_drm_memory[k];
    if (g->nvml_on)
        for (size_t i = 0; i < t->membership.n_members; i++) {
            const struct pt_member *m = &t->membership.members[i];
            const struct pt_gpu_proc *p;
            if (!live(m) || !(p = pt_gpu_find(g, m->pid)))
                continue;
            sum = sat_add(sum, p->bytes);
            int32_t gi = group_of(gpu, m);
            if (gi >= 0)
                gpu->group_sum[gi] = sat_add(gpu->group_sum[gi], p->bytes);
        }
    pt_extrema_add(&gpu->memory, sum > INT64_MAX ? INT64_MAX : (int64_t)sum);
    for (size_t k = 0; k < gpu->groups; k++)
        pt_extrema_add(&gpu->group_memory[k], gpu->group_sum[k] > INT64_MAX ? INT64_MAX : (int64_t)gpu->group_sum[k]);
}

void pt_targetgpu_sample(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g)
{
    if (!ready(t, gpu, g) || !g->nvml_on)
        return;
    sample(t, gpu, g);
}

/* ---- DRM clients ------------------------------------------------------ */

struct scan {
    struct pt_target_gpu *gpu;
    const struct pt_member *m;
    int32_t group;
    double now;
    bool holds; /* m holds a DRM client */
    uint64_t memory;
    double busy;
};

/* The busy seconds of engine e since before (NULL: since it began). */
static double engine_busy(const struct pt_drm_engine *e, const struct pt_drm_engine *before, double wall)
{
    if (e->has & PT_DRM_HAS_NS) {
        uint64_t from = before && (before->has & PT_DRM_HAS_NS) ? before->ns : 0;
        return e->ns > from ? (double)(e->ns - from) / 1e9 : 0;
    }
    if ((e->has & PT_DRM_HAS_CYCLES) && (e->has & PT_DRM_HAS_TOTAL_CYCLES) && before &&
        (before->has & PT_DRM_HAS_CYCLES) && (before->has & PT_DRM_HAS_TOTAL_CYCLES) && wall > 0) {
        if (e->cycles <= before->cycles || e->total_cycles <= before->total_cycles)
            return 0;
        double share = (double)(e->cycles - before->cycles) / (double)(e->total_cycles - before->total_cycles);
        return (share < 1 ? share : 1) * wall;
    }
    return 0; /* cycles first seen: a base */
}

static void take_client(const struct pt_drm_client *c, void *arg)
{
    struct scan *s = arg;
    struct pt_target_gpu *gpu = s->gpu;
    s->holds = true;
    struct pt_drm_known *known = pt_drmclients_find(&gpu->clients, c->pdev, c->client_id);
    if (known && known->seen)
        return; /* another member's descriptor of the same client: counted */
    uint64_t bytes;
    if (pt_drmfdinfo_client_memory(c, &bytes))
        s->memory = sat_add(s->memory, bytes);
    double wall = known ? s->now - known->read_at : 0;
    bool whole = !known && s->m->born;
    for (size_t i = 0; i < c->n_engines; i++) {
        const struct pt_drm_engine *before = NULL;
        if (known)
            for (size_t k = 0; k < known->n_engines && !before; k++)
                if (strcmp(known->engine[k].name, c->engine[i].name) == 0)
                    before = &known->engine[k];
        if (known || whole)
            s->busy += engine_busy(&c->engine[i], before, wall);
    }
    if (!known)
        known = pt_drmclients_add(&gpu->clients, c->pdev, c->client_id);
    known->seen = true;
    known->read_at = s->now;
    known->n_engines = c->n_engines;
    memcpy(known->engine, c->engine, c->n_engines * sizeof(*c->engine));
}

/* The bound reached: the GPU sums of this end are left out; said once. */
static void cut(const struct pt_target *t, struct pt_target_gpu *gpu)
{
    gpu->drm_short = true;
    gpu->drm_cuts++;
    if (gpu->said_bound)
        return;
    gpu->said_bound = true;
    pt_targetstate_logf(
        t, PT_LOG_WARNING,
        "GPU: the tree holds more than %d DRM descriptors, the most fdinfo reads of one interval's end; "
        "proc_gpu_* are left out of every interval that reaches it, and its busy time reported by the "
        "next that does not (said once)",
        PT_DRM_READS_MAX);
}

/* Every live member's DRM clients: the DRM memory that stands until the
 * next end, their busy time into the interval's, their holders users.
 * At most PT_DRM_READS_MAX fdinfo reads: the walk stops at the first
 * DRM descriptor past them (the members after it not walked), the read
 * cut short. Returns whether the busy time it read lacks clients an
 * earlier cut forgot. */
static bool read_drm(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g, bool *uses)
{
    gpu->drm_memory = 0;
    for (size_t k = 0; k < gpu->groups; k++)
        gpu->group_drm_memory[k] = 0;
    gpu->drm_short = false;
    double now = pt_now();
    size_t reads_left = PT_DRM_READS_MAX;
    for (size_t i = 0; i < t->membership.n_members && !gpu->drm_short; i++) {
        const struct pt_member *m = &t->membership.members[i];
        if (!live(m))
            continue;
        struct scan s = {.gpu = gpu, .m = m, .group = group_of(gpu, m), .now = now};
        if (pt_gpu_drm_scan(t->proc_root_fd, m->pid, g->drm_major, &reads_left, take_client, &s) == PT_DRM_SCAN_CUT)
            cut(t, gpu);
        if (!s.holds)
            continue;
        uses[i] = true;
        gpu->drm_memory = sat_add(gpu->drm_memory, s.memory);
        gpu->busy += s.busy;
        if (s.group >= 0) {
            gpu->group_drm_memory[s.group] = sat_add(gpu->group_drm_memory[s.group], s.memory);
            gpu->group_busy[s.group] += s.busy;
        }
    }
    /* a whole read after two cut in a row (drm_cuts counts the cuts since
     * the last whole read): clients not reached were forgotten, so this
     * read counted them from now; its busy time is not the whole */
    bool busy_lost = !gpu->drm_short && gpu->drm_cuts > 1;
    if (!gpu->drm_short)
        gpu->drm_cuts = 0;
    /* the clients closed since are forgotten; after a cut read, those it
     * did not reach are kept for one more read (so at most twice the
     * bound are kept), their busy time then counted since their last */
    pt_drmclients_sweep(&gpu->clients, gpu->drm_short ? 1 : 0);
    return busy_lost;
}

void pt_targetgpu_end_reads(const struct pt_target *t, struct pt_target_gpu *gpu, const struct pt_gpu *g)
{
    if (!ready(t, gpu, g))
        return;
    /* whether each member uses a GPU, kept: a tree grows it */
    size_t n = t->membership.n_members;
    if (n > gpu->cap_uses) {
        gpu->cap_uses = n + n / 2 + 16;
        gpu->uses = pt_xrealloc(gpu->uses, gpu->cap_uses * sizeof(*gpu->uses));
    }
    bool *uses = gpu->uses;
    memset(uses, 0, n * sizeof(*uses));
    bool busy_lost = g->drm_on && read_drm(t, gpu, g, uses);
    gpu->busy_known = (!g->nvml_on || g->busy_known) && !busy_lost;
    if (g->nvml_on)
        for (size_t i = 0; i < n; i++) {
            const struct pt_member *m = &t->membership.members[i];
            const struct pt_gpu_proc *p;
            if (!live(m) || !(p = pt_gpu_find(g, m->pid)))
                continue;
            uses[i] = true;
            gpu->busy += p->busy;
            int32_t gi = group_of(gpu, m);
            if (gi >= 0)
                gpu->group_busy[gi] += p->busy;
        }
    sample(t, gpu, g);
    gpu->users = 0;
    for (size_t k = 0; k < gpu->groups; k++)
        gpu->group_users[k] = 0;
    for (size_t i = 0; i < n; i++)
        if (uses[i]) {
            gpu->users++;
            int32_t gi = group_of(gpu, &t->membership.members[i]);
            if (gi >= 0)
                gpu->group_users[gi]++;
        }
    gpu->users_known = true;
}

void pt_targetgpu_put(const struct pt_target_gpu *gpu, int32_t group, struct pt_line *line)
{
    if (!gpu->on || (group >= 0 && (size_t)group >= gpu->groups) || gpu->drm_short)
        return; /* the DRM read cut short: every sum partial, none put */
    if (gpu->busy_known)
        /* to the nanosecond: sums of doubles are not finer */
        pt_lines_put(line, PT_A_GPU_BUSY,
                     (double)(int64_t)((group >= 0 ? gpu->group_busy[group] : gpu->busy) * 1e9 + 0.5) / 1e9);
    if (gpu->users_known)
        pt_lines_put(line, PT_A_GPU_PROCESSES, (double)(group >= 0 ? gpu->group_users[group] : gpu->users));
}

struct pt_extrema pt_targetgpu_memory(const struct pt_target_gpu *gpu, int32_t group)
{
    struct pt_extrema none = {0};
    if (!gpu->on || (group >= 0 && (size_t)group >= gpu->groups) || gpu->drm_short)
        return none;
    return group >= 0 ? gpu->group_memory[group] : gpu->memory;
}

void pt_targetgpu_end_interval(struct pt_target_gpu *gpu)
{
    memset(&gpu->memory, 0, sizeof(gpu->memory));
    /* an end whose DRM read was cut reported no busy time: it goes into
     * the next end's, as the growth of the clients it did not reach does */
    bool carry = gpu->drm_short;
    if (!carry)
        gpu->busy = 0;
    gpu->busy_known = false;
    gpu->users_known = false;
    for (size_t k = 0; k < gpu->groups; k++) {
        memset(&gpu->group_memory[k], 0, sizeof(gpu->group_memory[k]));
        if (!carry)
            gpu->group_busy[k] = 0;
    }
}

void pt_targetgpu_free(struct pt_target_gpu *gpu)
{
    free(gpu->group_memory);
    free(gpu->group_busy);
    free(gpu->group_users);
    free(gpu->group_drm_memory);
    free(gpu->group_sum);
    pt_drmclients_free(&gpu->clients);
    free(gpu->uses);
    memset(gpu, 0, sizeof(*gpu));
}
