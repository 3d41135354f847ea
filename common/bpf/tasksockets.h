/* tasksockets: the TCP sockets of each thread group in an interval end's
 * snapshot of the task iterator (taskrec.h's struct pt_taskrec_sock, one
 * per TCP socket open at a descriptor of a member's leader), indexed by
 * thread group. No I/O.
 *
 * The program writes every group's socket records to an array the reader
 * maps, one group's after another, and says in each group record where
 * its own begin and how many there are; the task and group records stay
 * in the pass's stream, of one size. The bytes are the kernel's: every
 * index and count is checked before it is used, and a pass that is not
 * what the program writes is refused whole.
 *
 * Invariants: recs[0, count) are the last pass's sockets (the reader's
 * array, not owned), each group's adjacent and in descriptor order;
 * groups[0, groups_count) one entry per group record of the pass (its
 * first socket, how many, whether some may be missing), group_of maps
 * each tgid to its entry.
 * Ownership: the struct owns its index; pt_tasksockets_free gives it
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
    const struct pt_taskrec_sock *recs;
    size_t count;
    struct pt_tasksockets_group *groups;
    size_t groups_count, groups_cap;
    struct pt_pidmap group_of;
};

/* A full pass's records, bytes[0, len) (task and group records), and its
 * socket records, recs[0, used): each group record's sockets indexed
 * (what s held before is dropped). 0, or -EIO when the records are not
 * what the program writes (a record cut short, a group's sockets past
 * used, one of another kind or group): s is then empty. recs must stand
 * unchanged while s is used. */
int pt_tasksockets_take(struct pt_tasksockets *s, const char *bytes, size_t len, const struct pt_taskrec_sock *recs,
                        size_t used);

/* Thread group tgid's TCP sockets: how many, the first in *out (NULL when
 * none). *cut (when cut is not NULL) says whether some may be missing:
 * the array full (PT_TASKREC_SOCKS_MAX), or a descriptor table the
 * program did not walk. 0 and not cut when the pass had no group record of tgid, or s
 * is NULL. */
size_t pt_tasksockets_of(const struct pt_tasksockets *s, pid_t tgid, const struct pt_taskrec_sock **out, bool *cut);

/* Thread group tgid's entry, NULL when the pass had no group record of
 * it (reaped, joined since, not followed) or s is NULL. */
const struct pt_tasksockets_group *pt_tasksockets_group(const struct pt_tasksockets *s, pid_t tgid);

void pt_tasksockets_free(struct pt_tasksockets *s);

#endif
