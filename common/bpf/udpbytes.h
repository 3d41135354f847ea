/* udpbytes: one target's UDP bytes in an interval, taken from the UDP
 * counters (udpcount.h): the tree's and, with a breakdown that partitions
 * the members, each group's.
 *
 * A member keeps what it took of its entry so far (its taken bytes): at
 * the interval's end each live member takes its entry's growth since
 * (pt_udpbytes_take), into its group as it is then; a member that leaves
 * in the interval is kept as a departure (pt_udpbytes_left: its group,
 * what it took) whose last growth the end takes from the same snapshot
 * (pt_udpbytes_take_departed), so a member that exits mid-interval still
 * gives that interval its bytes. Each byte is taken once, into one group:
 * the groups add up to the tree. A member born in the tree takes its
 * entry whole (its first bytes went to its nearest member ancestor until
 * it joined, udpcount.bpf.c); one that joined with its past left out
 * took what its entry held then.
 *
 * Invariants: departed[0, n_departed) are the members gone since the
 * last end, at most PT_UDPBYTES_DEPARTED_MAX (one past it takes its
 * growth at once, one lookup); group[0, groups) when groups > 0. Memory:
 * the departures of one interval. */
#ifndef PROCTREE_UDPBYTES_H
#define PROCTREE_UDPBYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/udpcount.h"
#include "report/lines.h"

#define PT_UDPBYTES_DEPARTED_MAX 65536

struct pt_udpbytes_departed {
    uint64_t starttime;
    struct pt_udpcount_bytes taken;
    pid_t pid;
    int32_t group;
};

struct pt_udpbytes {
    const struct pt_udpcount *counts; /* the collector's; NULL: off (no BPF source, --no-net) */
    bool taken;                       /* this interval's end took the snapshot: its sums are known */
    struct pt_udpcount_bytes tree;    /* since the last end */
    size_t groups;                    /* 0, or the breakdown's limit + 1 */
    struct pt_udpcount_bytes *group;
    struct pt_udpbytes_departed *departed;
    size_t n_departed, cap_departed;
};

/* On, from counts, with groups group lines (0: none). */
void pt_udpbytes_start(struct pt_udpbytes *u, const struct pt_udpcount *counts, size_t groups);
/* A live member's growth since taken, from the last snapshot, into the
 * tree and group (-1: none); taken moves on. */
void pt_udpbytes_take(struct pt_udpbytes *u, pid_t pid, uint64_t starttime, int32_t group,
                      struct pt_udpcount_bytes *taken);
/* A member left (gone, or out of the tree): kept for the end's take. */
void pt_udpbytes_left(struct pt_udpbytes *u, pid_t pid, uint64_t starttime, int32_t group,
                      const struct pt_udpcount_bytes *taken);
/* The departures' last growth, from the last snapshot; then forgotten.
 * The interval's sums are known from here to its end. */
void pt_udpbytes_take_departed(struct pt_udpbytes *u);
/* The tree's line (group -1) or group's: the interval's bytes, when this
 * end took them. */
void pt_udpbytes_put(const struct pt_udpbytes *u, int32_t group, struct pt_line *line);
void pt_udpbytes_end_interval(struct pt_udpbytes *u);
void pt_udpbytes_free(struct pt_udpbytes *u);

#endif
