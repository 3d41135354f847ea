/* targetnet: a target's TCP bytes and connections (struct
 * pt_target_net, targetstate.h), from sock_diag (sockdiag.h) without
 * BPF. Only this file writes it: its functions are handed the part, the
 * target only to read.
 *
 * The sockets are the members' by their inodes: a whole walk of every
 * live member's fd/ at each interval's end, and at each poll a walk of
 * the members that held a socket at the last whole walk (a connection
 * such a member opens and closes between two polls is seen no more than
 * one a member that held none); a holder is walked at a poll only when
 * its number of descriptors changed since its last walk: as the poll's
 * BPF pass counted them (pt_taskiter_count_fds, asked for the holders),
 * else its fd/'s size (Linux 6.2 and later; one fstat). At most PT_NET_POLL_READS link
 * reads a poll and PT_NET_END_READS at an end, PT_TCPBYTES_MAX sockets (one W!
 * line says a bound was reached, the first time; what was found is
 * counted). A walk that found a socket new to the ledger asks the
 * collector for a dump, so a short connection's cookie is known before
 * its destroy notification comes.
 *
 * Each dump adds the growth of the tree's sockets' counters (tcpbytes.h),
 * each destroy notification a closed socket's last growth. A socket
 * first seen counts whole when its holder was born in the tree or was
 * walked before (it appeared since), else from then on.
 *
 * A member in another network namespace (its ns/net link, read at the
 * end's walk) has the interval's sums left out: sock_diag answers for
 * ours, where its sockets are not (one I! line, once).
 *
 * With a breakdown that partitions the members, each group's line has
 * the bytes and connections of the sockets its members held first (a
 * socket shared across groups in the first holder's, in tree order). */
#ifndef PROCTREE_TARGETNET_H
#define PROCTREE_TARGETNET_H

#include <stdbool.h>

#include "net/sockdiag.h"
#include "report/lines.h"
#include "tree/targetstate.h"

/* The most descriptor links read for one target at one poll, and at one
 * interval's end: a link read costs 1 to 2.5 microseconds (measured:
 * 0.21 s of CPU for a tree of 95,000 descriptors read whole), so at most
 * about 10 ms a poll and 0.15 s at an end, whatever the tree holds; the
 * end's bound is the ledger's (PT_TCPBYTES_MAX), past which what a link
 * names could not be kept anyway. */
#define PT_NET_POLL_READS 4096
#define PT_NET_END_READS 65536

/* A walk: at the interval's end (whole) every live member's descriptors,
 * at a poll those of the last whole walk's holders. Returns whether it
 * found a socket new to the ledger (a dump is due). */
bool pt_targetnet_walk(const struct pt_target *t, struct pt_target_net *net, bool whole);
/* After the end's walk: where the BPF pass told every member's sockets,
 * each named by its cookie (net->passed), the dump made of the pass's
 * records, the fields sock_diag would give (the kernel's tcp_info is
 * tcp_sock's bytes_acked and bytes_received); else nothing. */
void pt_targetnet_take_pass(const struct pt_target *t, struct pt_target_net *net);
/* Does its ledger hold a socket? A dump would take nothing else: where
 * no target's does, the collector makes the dump without asking the
 * kernel (exact: nothing to take, nothing to sweep). */
bool pt_targetnet_holds(const struct pt_target_net *net);
/* A dump begins (every target's, before its sockets are taken). */
void pt_targetnet_dump(struct pt_target_net *net);
/* One socket of a dump, and one destroy notification. */
void pt_targetnet_take(struct pt_target_net *net, const struct pt_tcpsock *s);
void pt_targetnet_destroyed(struct pt_target_net *net, const struct pt_tcpsock *s);
/* After the end's walk and dump: the connections counted, the sockets
 * neither saw forgotten. */
void pt_targetnet_sweep(struct pt_target_net *net);
/* The amounts of the tree's line (group -1) or of group's line: none
 * before a dump took the sockets. */
void pt_targetnet_put(const struct pt_target_net *net, int32_t group, struct pt_line *line);
void pt_targetnet_end_interval(struct pt_target_net *net);
void pt_targetnet_free(struct pt_target_net *net);

#endif
