/* targetnetns: a tree wholly in one network namespace that is not
 * proctree's (a container, unshare --net, ip netns exec) gets that
 * namespace's interface counters: netns_received_bytes, netns_sent_bytes
 * and their packets (struct pt_target_netns, targetstate.h). Only this
 * file writes it: targetnet.c's end walk hands it the part and tells it
 * each live member's namespace (its ns/net link, or the BPF pass's
 * record), the target only to read.
 *
 * At each interval's end, when every live member whose namespace is
 * known is in one namespace, not proctree's, and none's is unknown, one
 * of them has its /proc/PID/net/dev read (netdev.h: procfs shows that
 * pid's namespace to any reader, no setns, no capability) and handed to
 * the ledger (netnsbytes.h), which gives the growth since the last end's
 * reading of the same namespace, over its interfaces but lo. A member
 * whose namespace is gone (exiting: its ns/net reads ENOENT) is passed
 * over. Anything else leaves the interval's sums out and the base
 * dropped, the next reading a new base: a tree in proctree's namespace
 * (silently: the TCP path measures it), members in two namespaces or in
 * ours and another, a member whose namespace cannot be read (another
 * user's, without CAP_SYS_PTRACE), an end walk cut by its bound, the
 * reader gone or moved, a net/dev of another layout or past the bound
 * (each said once). */
#ifndef PROCTREE_TARGETNETNS_H
#define PROCTREE_TARGETNETNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/lines.h"
#include "tree/targetstate.h"

/* The end's walk begins: no member told yet. */
void pt_targetnetns_begin(struct pt_target_netns *n);
/* Live member pid is in namespace ns (0: its link could not be read);
 * own is proctree's (0: not known, then nothing is). */
void pt_targetnetns_member(const struct pt_target *t, struct pt_target_netns *n, pid_t pid, uint64_t ns, uint64_t own);
/* The end's walk is over (whole: it told every live member): the
 * namespace's reading taken, or the interval's sums left out. */
void pt_targetnetns_end(const struct pt_target *t, struct pt_target_netns *n, uint64_t own, bool whole);
/* The tree's line: the interval's growth, where it is known. */
void pt_targetnetns_put(const struct pt_target_netns *n, struct pt_line *line);
void pt_targetnetns_free(struct pt_target_netns *n);

#endif
