/* quantities: what proctree adds up for a tree, by kind: cumulative
 * counters (reported as an interval's deltas) and memory gauges (reported
 * as an interval's min and max). */
#ifndef PROCTREE_QUANTITIES_H
#define PROCTREE_QUANTITIES_H

#include <stdbool.h>

/* Cumulative counters, each inclusive of reaped children where the kernel
 * folds them in: io (reaped children's I/O is added into the parent's own
 * io) and stat (utime+cutime etc.). */
enum pt_counter {
    PT_CTR_RCHAR,
    PT_CTR_WCHAR,
    PT_CTR_STORAGE_READ,
    PT_CTR_STORAGE_WRITE,
    PT_CTR_CANCELLED_WRITE,
    PT_CTR_SYSCR,
    PT_CTR_SYSCW,
    PT_CTR_USER_TICKS,
    PT_CTR_SYSTEM_TICKS,
    PT_CTR_MINFLT,
    PT_CTR_MAJFLT,
    PT_CTR_COUNT
};
#define PT_CTR_IO_END PT_CTR_USER_TICKS /* [0, IO_END) come from io */

/* The two counters in clock ticks (CPU), the others in bytes or counts. */
static inline bool pt_ctr_is_cpu(int k)
{
    return k == PT_CTR_USER_TICKS || k == PT_CTR_SYSTEM_TICKS;
}

/* The CPU counters as a pair: 0 user, 1 system. */
enum pt_cpu { PT_CPU_USER, PT_CPU_SYSTEM, PT_CPU_COUNT };

static inline int pt_ctr_of_cpu(enum pt_cpu c)
{
    return PT_CTR_USER_TICKS + (int)c;
}

/* Memory gauges. */
enum pt_gauge { PT_G_VM, PT_G_RSS, PT_G_ANON, PT_G_PSS, PT_G_SHARED, PT_G_USS, PT_G_SWAP, PT_G_COUNT };

#endif
