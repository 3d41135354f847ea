#include "accounting/rank.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "util/saturate.h"

static const char *const rank_names[] = {
    [PT_RANK_SEEN] = "seen",
    [PT_RANK_CPU] = "cpu",
    [PT_RANK_MEMORY] = "memory",
    [PT_RANK_IO] = "io",
};

int pt_rank_parse(const char *text, enum pt_rank_by *out)
{
    for (size_t i = 0; i < sizeof(rank_names) / sizeof(rank_names[0]); i++) {
        if (strcmp(text, rank_names[i]) == 0) {
            *out = (enum pt_rank_by)i;
            return 0;
        }
    }
    return -1;
}

const char *pt_rank_name(enum pt_rank_by by)
{
    return (size_t)by < sizeof(rank_names) / sizeof(rank_names[0]) ? rank_names[by] : NULL;
}

/* What a challenger must weigh more than a named group by, at least, in
 * the resource's unit: a clock tick, 1 MiB of memory, 1 MiB of I/O; so a
 * few stray ticks or pages never take a slot from an idle name. */
static int64_t rank_floor(enum pt_rank_by by)
{
    return by == PT_RANK_CPU ? 1 : (int64_t)1 << 20;
}

void pt_rank_init(struct pt_rank *r, enum pt_rank_by by)
{
    memset(r, 0, sizeof(*r));
    r->by = by;
}

void pt_rank_free(struct pt_rank *r)
{
    pt_buf_free(&r->names);
    free(r->notes);
    free(r->list);
    free(r->order);
    memset(r, 0, sizeof(*r));
}

void pt_rank_note(struct pt_rank *r, const char *name, int64_t weight, int32_t slot)
{
    if (r->chosen) { /* the last choice's names are read no more */
        pt_buf_reset(&r->names);
        r->n = 0;
        r->chosen = false;
    }
    if (r->n_notes == r->cap_notes) {
        r->cap_notes = r->cap_notes ? 2 * r->cap_notes : 64;
        r->notes = pt_xrealloc_array(r->notes, r->cap_notes, sizeof(*r->notes));
    }
    r->notes[r->n_notes++] =
        (struct pt_rank_note){.name = r->names.len, .weight = weight > 0 ? weight : 0, .slot = slot};
    pt_buf_append(&r->names, name, strlen(name) + 1);
}

/* base[n] of size bytes each sorted by cmp: a heap sort, in place (glibc's
 * qsort allocates past 1 KiB, and an interval's end allocates nothing once
 * the tree is known). cmp orders totally here, so the order is the same
 * whatever the notes' order. */
static void heap_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    char *b = base, tmp[64];
    assert(size <= sizeof(tmp));
#define AT(i) (b + (i)*size)
#define SWAP(i, j) (memcpy(tmp, AT(i), size), memcpy(AT(i), AT(j), size), memcpy(AT(j), tmp, size))
    for (size_t end = n, start = n / 2;;) {
        size_t root;
        if (start > 0) {
            root = --start; /* building the heap */
        } else {
            if (end <= 1)
                break;
            end--; /* the largest to the end, the heap one shorter */
            SWAP(0, end);
            root = 0;
        }
        for (size_t child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && cmp(AT(child), AT(child + 1)) < 0)
                child++;
            if (cmp(AT(root), AT(child)) >= 0)
                break;
            SWAP(root, child);
        }
    }
#undef SWAP
#undef AT
}

/* By name, the named slot first. */
static int by_name(const void *a, const void *b)
{
    const struct pt_rank_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->slot < y->slot) - (x->slot > y->slot);
}

/* By weight, heaviest first; among equals a named slot first (it stays),
 * then by name, so that the choice does not depend on the notes' order. */
static int by_weight(const void *a, const void *b)
{
    const struct pt_rank_name *x = *(struct pt_rank_name *const *)a, *y = *(struct pt_rank_name *const *)b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if ((x->slot >= 0) != (y->slot >= 0))
        return x->slot >= 0 ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The notes summed by name into list. */
static void sum_notes(struct pt_rank *r, const bool *held, uint32_t limit)
{
    if (r->cap < r->n_notes) {
        r->cap = r->n_notes;
        r->list = pt_xrealloc_array(r->list, r->cap, sizeof(*r->list));
        r->order = pt_xrealloc_array(r->order, r->cap, sizeof(*r->order));
    }
    for (size_t i = 0; i < r->n_notes; i++)
        r->list[i] = (struct pt_rank_name){
            .name = r->names.data + r->notes[i].name, .weight = r->notes[i].weight, .slot = r->notes[i].slot};
    heap_sort(r->list, r->n_notes, sizeof(*r->list), by_name);
    r->n = 0;
    for (size_t i = 0; i < r->n_notes; i++) {
        struct pt_rank_name *e = &r->list[i];
        /* a group freed since its note had no member left: nothing to name */
        if (e->slot >= 0 && ((uint32_t)e->slot >= limit || !held[e->slot]))
            continue;
        int32_t slot = e->slot;
        struct pt_rank_name *last = r->n ? &r->list[r->n - 1] : NULL;
        if (last && strcmp(last->name, e->name) == 0) {
            last->weight = pt_sat_add(last->weight, e->weight);
            if (last->slot < 0)
                last->slot = slot;
            continue;
        }
        r->list[r->n++] = (struct pt_rank_name){.name = e->name, .weight = e->weight, .slot = slot};
    }
}

void pt_rank_choose(struct pt_rank *r, const bool *held, uint32_t limit)
{
    sum_notes(r, held, limit);
    r->n_notes = 0;
    uint32_t free_slots = 0;
    for (uint32_t i = 0; i < limit; i++)
        free_slots += !held[i];
    for (size_t i = 0; i < r->n; i++) {
        r->list[i].named = r->list[i].slot >= 0;
        r->order[i] = &r->list[i];
    }
    heap_sort(r->order, r->n, sizeof(*r->order), by_weight);
    int64_t floor = rank_floor(r->by);
    size_t weakest = r->n; /* scans the named slots from the lightest up */
    for (size_t i = 0; i < r->n; i++) {
        struct pt_rank_name *c = r->order[i];
        if (c->slot >= 0)
            continue;
        if (free_slots > 0) {
            free_slots--;
            c->named = true;
            continue;
        }
        while (weakest > i + 1 && !(r->order[weakest - 1]->slot >= 0 && r->order[weakest - 1]->named))
            weakest--;
        if (weakest <= i + 1)
            break; /* every named slot left weighs at least c */
        struct pt_rank_name *w = r->order[weakest - 1];
        int64_t bar =
            pt_sat_add(w->weight > INT64_MAX / PT_RANK_FACTOR ? INT64_MAX : w->weight * PT_RANK_FACTOR, floor);
        if (c->weight <= bar)
            break; /* the heaviest left does not outweigh it: none does */
        w->named = false;
        c->named = true;
        weakest--;
    }
    r->chosen = true;
}

const struct pt_rank_name *pt_rank_find(const struct pt_rank *r, const char *name)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, r->list[mid].name);
        if (c == 0)
            return &r->list[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
