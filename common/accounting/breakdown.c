#include "accounting/breakdown.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/base.h"
#include "util/saturate.h"

void pt_groups_init(struct pt_groups *gs, uint32_t limit)
{
    gs->limit = limit;
    gs->list = pt_xalloc(((size_t)limit + 1) * sizeof(*gs->list));
    memset(gs->list, 0, ((size_t)limit + 1) * sizeof(*gs->list));
    strcpy(gs->list[limit].name, PT_GROUP_OTHER);
}

void pt_groups_free(struct pt_groups *gs)
{
    free(gs->list);
    memset(gs, 0, sizeof(*gs));
}

uint32_t pt_groups_find(struct pt_groups *gs, const char *name)
{
    uint32_t free_slot = gs->limit;
    bool same_name = false; /* a free slot that had this name keeps its CPU rest */
    for (uint32_t i = 0; i < gs->limit; i++) {
        bool named = strcmp(gs->list[i].name, name) == 0;
        if (gs->list[i].in_use && named)
            return i;
        if (!gs->list[i].in_use && (free_slot == gs->limit || (named && !same_name))) {
            free_slot = i;
            same_name = named;
        }
    }
    struct pt_group *g = &gs->list[free_slot];
    if (free_slot < gs->limit && !same_name) {
        memset(g, 0, sizeof(*g));
        strncpy(g->name, name, sizeof(g->name) - 1);
    }
    g->in_use = true;
    return free_slot;
}

void pt_groups_adjust(struct pt_groups *gs, uint32_t g, int k, int64_t v)
{
    assert(g <= gs->limit && k >= 0 && k < PT_CTR_COUNT);
    gs->list[g].adjust[k] = pt_sat_add(gs->list[g].adjust[k], v);
}

void pt_groups_move(struct pt_groups *gs, uint32_t from, uint32_t to, int k, int64_t v)
{
    pt_groups_adjust(gs, from, k, -v);
    pt_groups_adjust(gs, to, k, v);
}

void pt_groups_end_poll(struct pt_groups *gs, int first, int last)
{
    for (uint32_t i = 0; i <= gs->limit; i++) {
        struct pt_group *g = &gs->list[i];
        if (!g->in_use)
            continue;
        for (int k = first; k <= last; k++) {
            pt_extrema_add(&g->gauges[k], g->poll[k]);
            g->poll[k] = 0;
        }
    }
}

int64_t pt_counter_deltas(int64_t high_water[PT_CTR_COUNT], int64_t base[PT_CTR_COUNT], const int64_t now[PT_CTR_COUNT],
                          bool keep_base, int64_t cpu_max, bool *stat_seen, bool *cpu_waits,
                          int64_t delta[PT_CTR_COUNT])
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

void pt_groups_deltas(struct pt_groups *gs, uint32_t i, bool keep_base, int64_t cpu_max, int64_t delta[PT_CTR_COUNT])
{
    assert(i <= gs->limit);
    struct pt_group *g = &gs->list[i];
    int64_t now[PT_CTR_COUNT];
    for (int k = 0; k < PT_CTR_COUNT; k++)
        now[k] = pt_sat_add(g->adjust[k], g->live[k]);
    g->cpu_max = g->processes > 0 ? cpu_max : -1;
    g->cpu_reported = pt_counter_deltas(g->high_water, g->interval_base, now, keep_base, g->cpu_max, &g->stat_seen,
                                        &g->cpu_waits, delta);
}

/* What g has not reported yet (its CPU over a bound, or all of an
 * interval whose base was kept). */
static bool has_pending(const struct pt_group *g)
{
    for (int k = 0; k < PT_CTR_COUNT; k++)
        if (g->high_water[k] != g->interval_base[k])
            return true;
    return false;
}

void pt_groups_end_interval(struct pt_groups *gs)
{
    for (uint32_t i = 0; i <= gs->limit; i++) {
        struct pt_group *g = &gs->list[i];
        if (!g->in_use)
            continue;
        /* Empty, its G cannot move again (no member, no debt), so
         * nothing is lost by forgetting it once it reported all it did
         * (the interval it empties in reports all its CPU). */
        if (g->processes == 0 && !has_pending(g)) {
            for (int k = 0; k < PT_CTR_COUNT; k++)
                gs->retired[k] = pt_sat_add(gs->retired[k], g->adjust[k]);
            char name[PT_GROUP_NAME_MAX];
            int64_t rest[2];
            memcpy(name, g->name, sizeof(name));
            memcpy(rest, g->cpu_rest_us, sizeof(rest));
            memset(g, 0, sizeof(*g));
            memcpy(g->name, name, sizeof(name));
            memcpy(g->cpu_rest_us, rest, sizeof(rest));
            continue;
        }
        memset(g->gauges, 0, sizeof(g->gauges));
        g->stat_seen = g->io_seen = g->fds_seen = false;
        g->tc_seen = 0;
        memset(g->tc, 0, sizeof(g->tc));
        g->processes = g->threads = g->fds = 0;
        memset(g->live, 0, sizeof(g->live));
    }
}
