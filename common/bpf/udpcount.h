/* udpcount: the UDP counters' loader and reader (udpcount.bpf.c counts,
 * udprec.h says what).
 *
 * One per process (the collector's), beside the task iterator, whose
 * members map it shares: a member's bytes are counted while its bit is
 * set, whoever set it. Loaded with the task iterator (the capabilities
 * raised for that load serve both), attached later or never (--no-net
 * for every target: nothing attached, nothing counted, the host's UDP
 * untouched). A read takes the whole map in one pass (batched lookups)
 * into a snapshot sorted by key; what the snapshot holds of a process
 * that no target follows any more is deleted from the map once its
 * targets took it (pt_udpcount_retire).
 *
 * Invariants: snap[0, n) is the last read's entries, sorted by (tgid,
 * start), each key once. Ownership: the struct owns its object, links
 * and snapshot; pt_udpcount_close gives them back. Built without libbpf,
 * pt_udpcount_open always fails and says so. */
#ifndef PROCTREE_UDPCOUNT_H
#define PROCTREE_UDPCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/udprec.h"

struct pt_udpcount;

/* A member's bytes as the map holds them. */
struct pt_udpcount_bytes {
    uint64_t sent, received;
};

/* Load the programs (not attached), with members_fd as their members
 * map: the task iterator's (taskiter.h's pt_taskiter_members_fd). btf_fd
 * as pt_taskiter_open's. NULL on failure, why (a phrase) in why. */
struct pt_udpcount *pt_udpcount_open(int members_fd, int btf_fd, char *why, size_t whylen);
/* Attach the two programs: 0, or -errno with why (a phrase); nothing
 * stays attached then. */
int pt_udpcount_attach(struct pt_udpcount *u, char *why, size_t whylen);
void pt_udpcount_close(struct pt_udpcount *u);

/* Read the whole map into the snapshot: 0 or -errno (the snapshot is
 * then empty). */
int pt_udpcount_read(struct pt_udpcount *u);
/* The last snapshot's bytes of (tgid, starttime in clock ticks): false,
 * and 0s, when it had no entry. */
bool pt_udpcount_get(const struct pt_udpcount *u, pid_t tgid, uint64_t starttime, struct pt_udpcount_bytes *out);
/* The map's entry now (one system call): false, and 0s, when none. */
bool pt_udpcount_lookup(const struct pt_udpcount *u, pid_t tgid, uint64_t starttime, struct pt_udpcount_bytes *out);
/* Delete from the map the snapshot's entries of processes followed no
 * more (followed(tgid, arg) false): their last bytes were taken. */
void pt_udpcount_retire(struct pt_udpcount *u, bool (*followed)(pid_t tgid, void *arg), void *arg);
/* Entries the map refused so far (it was full): bytes lost. */
uint64_t pt_udpcount_lost(const struct pt_udpcount *u);
/* Entries in the last snapshot. */
size_t pt_udpcount_entries(const struct pt_udpcount *u);

#endif
