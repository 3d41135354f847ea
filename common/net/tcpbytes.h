/* tcpbytes: one target's TCP sockets and the bytes they moved, a ledger
 * of the sockets its members hold.
 *
 * A walk of the members' descriptors notes each socket inode it finds
 * (pt_tcpbytes_note); a dump of the host's TCP sockets (sockdiag.h) is
 * then taken socket by socket (pt_tcpbytes_take): one the ledger holds
 * adds the growth of its counters since it was last taken, once however
 * many members hold it (the ledger is keyed by the socket, not by its
 * holder). A socket is its inode and its cookie: a cookie that differs
 * from the one the ledger took is a new socket behind a reused inode,
 * counted from zero. A socket first taken counts whole when its walk
 * said so (it appeared since the last walk, or in a process born in the
 * tree), else from then on (a baseline: what it moved before proctree
 * looked is no part of any interval). A destroy notification
 * (pt_tcpbytes_destroyed) adds the growth to its last counters and
 * forgets the socket; one the ledger does not know is passed over.
 *
 * Entries: found by inode and by cookie, each in a hash (open
 * addressing, linear probing, load <= 1/2); at most max of them: a note
 * past it is refused (the caller says so once), what is held is counted.
 * pt_tcpbytes_sweep, after a walk and a dump, forgets the sockets that
 * neither saw: closed, their notification lost or never asked for.
 * Memory grows only with the sockets (base.h's out-of-memory policy). */
#ifndef PROCTREE_TCPBYTES_H
#define PROCTREE_TCPBYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/sockdiag.h"

/* The most sockets of one target: 65,536 entries, 3 MiB with their
 * hashes. */
#define PT_TCPBYTES_MAX 65536

struct pt_tcp_entry {
    uint64_t inode;
    uint64_t cookie; /* 0: not taken yet */
    uint64_t sent, received;
    bool whole;    /* not taken yet: its first counters count whole */
    uint32_t walk; /* the last walk that noted it */
    uint32_t dump; /* the last dump that took it */
    int32_t group; /* the group of the member that held it first (-1: none) */
    bool dead;     /* destroyed: found by neither hash, gone at the sweep */
};

struct pt_tcpbytes {
    struct pt_tcp_entry *v;
    size_t n, cap, max;
    uint32_t *by_inode, *by_cookie; /* index + 1 into v; 0: empty */
    size_t n_slots;
    uint32_t walk, dump; /* the current walk's and dump's numbers */
    size_t next;         /* the entry after the last one noted: the next note looks there first */
    /* since the last pt_tcpbytes_end: the bytes moved; and the sockets
     * the last dump took that the last walk noted */
    uint64_t sent, received;
    int64_t connections;
};

void pt_tcpbytes_init(struct pt_tcpbytes *l, size_t max);
void pt_tcpbytes_free(struct pt_tcpbytes *l);

/* A walk begins: the notes from now on are its. */
void pt_tcpbytes_walk(struct pt_tcpbytes *l);
/* The walk found socket inode in a member (of group, -1: none); whole:
 * its first counters count whole. 1: a socket new to the ledger, 0:
 * known, -1: the ledger is full (not noted). *at (at may be NULL): its
 * entry's index, for pt_tcpbytes_take_at, until the next sweep. The
 * entry after the last noted is looked at first: a walk finds the
 * sockets in the order the walk before did, which is the entries'. */
int pt_tcpbytes_note(struct pt_tcpbytes *l, uint64_t inode, bool whole, int32_t group, size_t *at);
/* Whether the ledger holds inode. */
bool pt_tcpbytes_holds(const struct pt_tcpbytes *l, uint64_t inode);

/* A dump begins: the sockets taken from now on are its. */
void pt_tcpbytes_dump(struct pt_tcpbytes *l);
/* One socket of the dump. Returns the entry it was counted in, or NULL
 * (not the tree's); *sent and *received (may be NULL) get its growth. */
const struct pt_tcp_entry *pt_tcpbytes_take(struct pt_tcpbytes *l, const struct pt_tcpsock *s, uint64_t *sent,
                                            uint64_t *received);
/* As pt_tcpbytes_take, for a socket the walk of this dump noted at entry
 * at (pt_tcpbytes_note's): with no lookup where that entry took s's
 * cookie before (the same socket: a cookie is never another's). */
const struct pt_tcp_entry *pt_tcpbytes_take_at(struct pt_tcpbytes *l, size_t at, const struct pt_tcpsock *s,
                                               uint64_t *sent, uint64_t *received);
/* A destroy notification: as take, then the socket forgotten. */
const struct pt_tcp_entry *pt_tcpbytes_destroyed(struct pt_tcpbytes *l, const struct pt_tcpsock *s, uint64_t *sent,
                                                 uint64_t *received);
/* After a walk and a dump: the connections counted (noted by the last
 * walk, taken by the last dump), the sockets neither saw forgotten. */
void pt_tcpbytes_sweep(struct pt_tcpbytes *l);
/* The interval's end: its sums forgotten. */
void pt_tcpbytes_end(struct pt_tcpbytes *l);

#endif
