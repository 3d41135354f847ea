/* tasksockets: the TCP sockets of each thread group in an interval end's
 * snapshot of the task iterator (taskrec.h's struct pt_taskrec_sock, one
 * per TCP socket open at a descriptor of a member's leader), taken out of
 * the pass's records and indexed by thread group. No I/O.
 *
 * The program writes a group's socket records right after its group
 * record, as many as that record's sockets says. pt_tasksockets_take
 * moves them here and packs the task and group records in their place,
 * so that the rest of the pass is of one record size again (taskiter's
 * index). The bytes are the kernel's: every count and size is checked
 * before it is used, and a pass that is not what the program writes is
 * refused whole.
 *
 * Invariants: recs[0, count) are the last pass's sockets, each group's
 * adjacent and in descriptor order; groups[0, groups_count) one entry per
 * group record of the pass (its first socket, how many, whether some may
 * be missing), group_of maps each tgid to its entry.
 * Ownership: the struct owns its arrays; pt_tasksockets_free gives them
 * back. A zeroed struct is an empty one. */
#ifndef PROCTREE_TASKSOCKETS_H
#define PROCTREE_TASKSOCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/taskrec.h"
#include "util/pidmap.h"

struct pt_tasksockets_group {
    size_t first, count;
    bool cut;
    /* from its group record: its open descriptors (when has_fds), its
     * sockets of any kind (TCP, UDP, unix; when !cut) and its network
     * namespace's inode (0: none) */
    bool has_fds;
    uint64_t fds, any, netns;
};

struct pt_tasksockets {
    struct pt_taskrec_sock *recs;
    size_t count, cap;
    struct pt_tasksockets_group *groups;
    size_t groups_count, groups_cap;
    struct pt_pidmap group_of;
};

/* A full pass's records, bytes[0, *len): the socket records taken out
 * into s (what it held before is dropped), the task and group records
 * packed at the start of bytes and *len their size. 0, or -EIO when the
 * records are not what the program writes (one cut short, a count past
 * PT_TASKREC_SOCK_MAX, a socket record of another kind or group): s is
 * then empty and bytes undefined. */
int pt_tasksockets_take(struct pt_tasksockets *s, char *bytes, size_t *len);

/* Thread group tgid's TCP sockets: how many, the first in *out (NULL when
 * none). *cut (when cut is not NULL) says whether some may be missing:
 * more than PT_TASKREC_SOCK_MAX, or a descriptor table the program did
 * not walk. 0 and not cut when the pass had no group record of tgid, or s
 * is NULL. */
size_t pt_tasksockets_of(const struct pt_tasksockets *s, pid_t tgid, const struct pt_taskrec_sock **out, bool *cut);

/* Thread group tgid's entry, NULL when the pass had no group record of
 * it (reaped, joined since, not followed) or s is NULL. */
const struct pt_tasksockets_group *pt_tasksockets_group(const struct pt_tasksockets *s, pid_t tgid);

void pt_tasksockets_free(struct pt_tasksockets *s);

#endif
