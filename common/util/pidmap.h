/* pidmap: pid -> member index, open addressing with linear probing.
 *
 * Discovery asks "is this child already a member?" for every child it
 * reads, and accounting asks "is this member's parent a live member?" at
 * every poll, so both must be O(1). Members are compacted after some
 * vanish, which shifts indices, so the map is simply rebuilt then
 * (pt_pidmap_clear + put). Sets that lose one pid at a time (the
 * processes a target knows only from fork events) remove it. */
#ifndef PROCTREE_PIDMAP_H
#define PROCTREE_PIDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pt_pidmap {
    pid_t *keys; /* 0 = empty slot (pid 0 is never a member) */
    uint32_t *values;
    size_t cap; /* power of two */
    size_t count;
};

void pt_pidmap_clear(struct pt_pidmap *map);
void pt_pidmap_free(struct pt_pidmap *map);
/* Insert or overwrite (growing: base.h's out-of-memory policy); a pid
 * <= 0 names no process and is not stored. */
void pt_pidmap_put(struct pt_pidmap *map, pid_t pid, uint32_t value);
/* The value for pid, or -1. */
long pt_pidmap_get(const struct pt_pidmap *map, pid_t pid);
/* Remove pid; false when it was not there. */
bool pt_pidmap_remove(struct pt_pidmap *map, pid_t pid);

#endif
