/* netnsbytes: one target's ledger of a network namespace's interface
 * counters (netdev.h's readings), and the growth of each interval. No
 * I/O.
 *
 * A reading is taken with the namespace it is of (its ns/net inode). The
 * interval's growth is the sum, over the interfaces but "lo" (loopback
 * traffic never leaves the namespace), of each counter's growth since the
 * reading before, where it is known:
 *
 * - a reading of another namespace than the last one's (or the first)
 *   is a new base: no growth is known, the interval's sums are unknown;
 * - an interface of the last reading found again by its name, none of
 *   whose four counters fell, adds their growth;
 * - an interface new to the namespace (made, renamed or moved in since),
 *   or one of whose counters fell (made again under the same name: a veth
 *   recreated), adds nothing: its counters are its new base, for what it
 *   moved before this reading is not known to be of this interval (an
 *   interface moved in brings its counters from another namespace);
 * - an interface gone since adds nothing: what it moved between the last
 *   reading and its going is lost.
 *
 * So no interval's sum is negative, and none holds what an interval
 * before it moved. pt_netnsbytes_forget drops the base (an interval
 * without a reading: the next one is a new base). */
#ifndef PROCTREE_NETNSBYTES_H
#define PROCTREE_NETNSBYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/netdev.h"

struct pt_netnsbytes {
    uint64_t ns;               /* the namespace of the base; 0: no base */
    struct pt_netdev_if *base; /* its interfaces at the last reading (PT_NETDEV_MAX of room) */
    size_t n_base;
    bool known; /* the last reading gave the interval's growth */
    uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
    size_t unknown; /* interfaces (but lo) of the last reading whose growth was not known */
};

/* A reading of namespace ns: its interfaces ifs[0..n), n at most
 * PT_NETDEV_MAX, become the base; the growth since the last one is
 * counted (known) when that was of the same namespace. */
void pt_netnsbytes_take(struct pt_netnsbytes *l, uint64_t ns, const struct pt_netdev_if *ifs, size_t n);
/* No reading this interval: its growth unknown, the base dropped. */
void pt_netnsbytes_forget(struct pt_netnsbytes *l);
/* Is this the name of the loopback interface, left out of the sums? */
bool pt_netnsbytes_is_loopback(const char *name);
void pt_netnsbytes_free(struct pt_netnsbytes *l);

#endif
