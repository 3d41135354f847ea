#include "member/departures.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

struct pt_departure *pt_departures_add(struct pt_departures *ds, pid_t pid)
{
    if (ds->n == ds->cap) {
        ds->cap = ds->cap ? ds->cap * 2 : 16;
        ds->list = pt_xrealloc_array(ds->list, ds->cap, sizeof(*ds->list));
    }
    struct pt_departure *d = &ds->list[ds->n];
    memset(d, 0, sizeof(*d));
    d->pid = pid;
    pt_pidmap_put(&ds->index, pid, (uint32_t)ds->n++);
    return d;
}

struct pt_departure *pt_departures_of(const struct pt_departures *ds, pid_t pid)
{
    long i = pt_pidmap_get(&ds->index, pid);
    assert(i < (long)ds->n);
    return i < 0 ? NULL : &ds->list[i];
}

void pt_departures_clear(struct pt_departures *ds)
{
    for (size_t i = 0; i < ds->n; i++)
        pt_threads_free(&ds->list[i].threads, NULL); /* its descriptors closed when it left */
    ds->n = 0;
    pt_pidmap_clear(&ds->index);
}

void pt_departures_free(struct pt_departures *ds)
{
    pt_departures_clear(ds);
    free(ds->list);
    pt_pidmap_free(&ds->index);
    memset(ds, 0, sizeof(*ds));
}

const char *pt_departures_check(const struct pt_departures *ds, char *why, size_t whylen)
{
    for (size_t i = 0; i < ds->n; i++) {
        long at = pt_pidmap_get(&ds->index, ds->list[i].pid);
        bool later = false; /* a later record of the same pid */
        for (size_t k = i + 1; k < ds->n && !later; k++)
            later = ds->list[k].pid == ds->list[i].pid;
        if (later ? at <= (long)i : at != (long)i) {
            snprintf(why, whylen, "departure %d is at %zu, its index says %ld", (int)ds->list[i].pid, i, at);
            return "the index finds the last record of each pid";
        }
    }
    return NULL;
}
