/* udprec: the UDP counters' map entries, shared by the BPF program that
 * counts them (udpcount.bpf.c) and its reader (udpcount.c).
 *
 * One entry per member process that moved UDP payload while it was a
 * member, keyed by its thread group id and its start time in clock ticks
 * (the starttime field of /proc/PID/stat, which a member keeps): a pid
 * taken again by another process is another key. The value is what its
 * threads' sendmsg and recvmsg returned, summed since the entry was made.
 *
 * The layouts are fixed (64-bit words, then 32-bit ones, no padding), so
 * that both compilers agree on them. */
#ifndef PROCTREE_UDPREC_H
#define PROCTREE_UDPREC_H

#include "bpf/taskrec.h"

/* The most entries: one per member, as many as the members' list holds
 * (PT_TASKREC_LIST_MAX); allocated as they are made, not up front. */
#define PT_UDPREC_MAX PT_TASKREC_LIST_MAX

/* How far up its real parents a sender that is no member is walked to
 * the nearest member, whose entry its bytes go to (a child that sent
 * before proctree found it). */
#define PT_UDPREC_ANCESTORS 8

struct pt_udpkey {
    pt_rec_u64 start; /* clock ticks since boot: /proc/PID/stat's starttime */
    pt_rec_u32 tgid;
    pt_rec_u32 zero;
};

struct pt_udpval {
    pt_rec_u64 sent;     /* bytes of payload udp(v6)_sendmsg returned */
    pt_rec_u64 received; /* bytes udp(v6)_recvmsg returned, peeks and error queue reads left out */
};

#endif
