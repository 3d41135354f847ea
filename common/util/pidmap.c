#include "util/pidmap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

static size_t slot_of(pid_t pid, size_t cap)
{
    assert(cap > 0 && (cap & (cap - 1)) == 0);
    /* The pid times an odd constant (2^32 over the golden ratio), its low
     * bits: not Fibonacci hashing (whose high bits mix in the whole pid),
     * but a permutation of the pids modulo the table's size, which is
     * what counts here: a run of sequential pids takes distinct slots,
     * spread over the table instead of side by side (one long run that
     * linear probing would walk for every pid not in it). */
    return (size_t)(((uint32_t)pid * 2654435769u) & (cap - 1));
}

static void grow(struct pt_pidmap *map)
{
    size_t cap = map->cap ? map->cap * 2 : 64;
    struct pt_pidmap bigger = {pt_xalloc(cap * sizeof(pid_t)), pt_xalloc(cap * sizeof(uint32_t)), cap, 0};
    for (size_t i = 0; i < map->cap; i++)
        if (map->keys[i])
            pt_pidmap_put(&bigger, map->keys[i], map->values[i]);
    pt_pidmap_free(map);
    *map = bigger;
}

void pt_pidmap_clear(struct pt_pidmap *map)
{
    if (map->cap)
        memset(map->keys, 0, map->cap * sizeof(pid_t));
    map->count = 0;
}

void pt_pidmap_free(struct pt_pidmap *map)
{
    free(map->keys);
    free(map->values);
    *map = (struct pt_pidmap){0};
}

void pt_pidmap_put(struct pt_pidmap *map, pid_t pid, uint32_t value)
{
    if (pid <= 0) /* no process: and 0 marks a free slot */
        return;
    if ((map->count + 1) * 2 > map->cap) /* keep the load factor <= 1/2 */
        grow(map);
    assert(map->count < map->cap); /* an empty slot ends every probe */
    size_t i = slot_of(pid, map->cap);
    while (map->keys[i] && map->keys[i] != pid)
        i = (i + 1) & (map->cap - 1);
    if (!map->keys[i])
        map->count++;
    map->keys[i] = pid;
    map->values[i] = value;
}

long pt_pidmap_get(const struct pt_pidmap *map, pid_t pid)
{
    if (!map->cap || pid <= 0)
        return -1;
    for (size_t i = slot_of(pid, map->cap);; i = (i + 1) & (map->cap - 1)) {
        if (!map->keys[i])
            return -1;
        if (map->keys[i] == pid)
            return map->values[i];
    }
}

/* Linear probing without tombstones: the keys after the hole, up to the
 * next empty slot, move back into it when their home slot is not between
 * the hole and them, so every lookup still finds its key before an empty
 * slot. */
bool pt_pidmap_remove(struct pt_pidmap *map, pid_t pid)
{
    if (!map->cap || pid <= 0)
        return false;
    size_t mask = map->cap - 1, hole = slot_of(pid, map->cap);
    while (map->keys[hole] != pid) {
        if (!map->keys[hole])
            return false;
        hole = (hole + 1) & mask;
    }
    map->keys[hole] = 0;
    map->count--;
    for (size_t i = (hole + 1) & mask; map->keys[i]; i = (i + 1) & mask) {
        size_t home = slot_of(map->keys[i], map->cap);
        /* stays when home lies cyclically in (hole, i] */
        if (((i - home) & mask) < ((i - hole) & mask))
            continue;
        map->keys[hole] = map->keys[i];
        map->values[hole] = map->values[i];
        map->keys[i] = 0;
        hole = i;
    }
    return true;
}
