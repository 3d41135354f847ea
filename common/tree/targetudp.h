/* targetudp: a target's UDP bytes (struct pt_udpbytes, udpbytes.h) at its
 * start and at each interval's end, from the collector's UDP counters
 * (udpcount.h) where they are attached and the target follows the
 * network. The part is written here and by membership.c (a member that
 * leaves); the members' taken bytes here, through their list, which
 * target.c hands over. */
#ifndef PROCTREE_TARGETUDP_H
#define PROCTREE_TARGETUDP_H

#include "bpf/udpbytes.h"
#include "member/memberlist.h"
#include "tree/targetstate.h"

/* On, from counts: with a breakdown that partitions the members, one
 * line's sums a group. */
void pt_targetudp_start(const struct pt_target *t, struct pt_udpbytes *u, const struct pt_udpcount *counts);
/* The interval's end, after the counters' snapshot was read: every live
 * member's growth, then the departures'. */
void pt_targetudp_take(const struct pt_target *t, struct pt_memberlist *list, struct pt_udpbytes *u);

#endif
