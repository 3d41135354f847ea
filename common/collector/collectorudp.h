/* collectorudp: the UDP counters (udpcount.h) the collector holds for its
 * targets: loaded with the task iterator where the BPF source serves
 * (collectorsource.c, the capabilities raised for that load serving
 * both), attached at the first tick where a target follows the network
 * (else closed: nothing attached, the host's UDP untouched), read once at
 * each interval's end for every target. Where they cannot serve (the
 * procfs source, no BTF, a kernel without the socket tracepoints: before
 * 6.3) one I! line says why at the first tick, for the targets that
 * follow the network: proc_net_udp_* are left out, nothing else changes. */
#ifndef PROCTREE_COLLECTORUDP_H
#define PROCTREE_COLLECTORUDP_H

#include "collector/collectorstate.h"

/* The first tick, targets added: attached and handed to the targets that
 * follow the network, or closed and said why. */
void pt_collector_udp_start(struct pt_collector *c);
/* The interval's end, before the targets' lines: one read of the
 * counters, each target's bytes taken, then the entries of processes no
 * target follows any more deleted. */
void pt_collector_udp_end(struct pt_collector *c);
void pt_collector_udp_free(struct pt_collector *c);

#endif
