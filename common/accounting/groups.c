#include "accounting/groups.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
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

void pt_groups_merge_other(struct pt_groups *gs, uint32_t slot)
{
    assert(slot < gs->limit);
    struct pt_group *g = &gs->list[slot], *other = &gs->list[gs->limit];
    if (!g->in_use)
        return;
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        other->adjust[k] = pt_sat_add(other->adjust[k], g->adjust[k]);
        other->high_water[k] = pt_sat_add(other->high_water[k], g->high_water[k]);
        other->interval_base[k] = pt_sat_add(other->interval_base[k], g->interval_base[k]);
    }
    for (int c = 0; c < 2; c++)
        other->cpu_rest_us[c] = pt_sat_add(other->cpu_rest_us[c], g->cpu_rest_us[c]);
    other->cpu_waits |= g->cpu_waits; /* its CPU over the bound shows on other's next line */
    other->in_use = true;
    memset(g, 0, sizeof(*g));
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

void pt_groups_marks(struct pt_groups *gs, int64_t marks[PT_CTR_COUNT])
{
    memcpy(marks, gs->retired_marks, sizeof(gs->retired_marks));
    for (uint32_t i = 0; i <= gs->limit; i++) {
        struct pt_group *g = &gs->list[i];
        if (!g->in_use)
            continue;
        for (int k = 0; k < PT_CTR_COUNT; k++) {
            int64_t now = pt_sat_add(g->adjust[k], g->live[k]);
            if (now > g->high_water[k])
                g->high_water[k] = now;
            marks[k] = pt_sat_add(marks[k], g->high_water[k]);
        }
    }
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
            for (int k = 0; k < PT_CTR_COUNT; k++) {
                gs->retired[k] = pt_sat_add(gs->retired[k], g->adjust[k]);
                gs->retired_marks[k] = pt_sat_add(gs->retired_marks[k], g->high_water[k]);
            }
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
