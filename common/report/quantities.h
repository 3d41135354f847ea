/* quantities: the names of what proctree measures of a tree, shared by
 * the code that reads them and the catalog that reports them: the
 * cumulative counters, the memory gauges, the other amounts a line
 * reports, what the kernel accounts for a cgroup, and the reads a lack of
 * descriptors can leave unknown. */
#ifndef PROCTREE_QUANTITIES_H
#define PROCTREE_QUANTITIES_H

#include <limits.h>
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

/* ... and a CPU counter (pt_ctr_is_cpu) as one of the pair. */
static inline enum pt_cpu pt_cpu_of_ctr(int k)
{
    return (enum pt_cpu)(k - PT_CTR_USER_TICKS);
}

/* What the kernel counts per thread and forgets when the thread exits,
 * unless its exit record carries it (exitrecords.h): a member's are
 * summed over its live threads at each interval's end and credited as
 * their growth (pt_membership_credit_tcounts). A mask of bits 1u << k says
 * which were read, or are counted. Delays in nanoseconds. */
enum pt_tcount {
    PT_TC_VOLUNTARY,   /* context switches: status voluntary_ctxt_switches; records nvcsw */
    PT_TC_INVOLUNTARY, /* status nonvoluntary_ctxt_switches; records nivcsw */
    PT_TC_RUN_DELAY,   /* runnable, waiting for a CPU: schedstat's second field; records cpu_delay_total */
    PT_TC_BLKIO_DELAY, /* waiting for block I/O: stat's delayacct_blkio_ticks; records blkio_delay_total */
    PT_TC_COUNT
};
#define PT_TC_SWITCHES ((1u << PT_TC_VOLUNTARY) | (1u << PT_TC_INVOLUNTARY))
#define PT_TC_ALL ((1u << PT_TC_COUNT) - 1)
_Static_assert(PT_TC_COUNT < sizeof(unsigned) * CHAR_BIT, "enum pt_tcount outgrows its unsigned masks and PT_TC_ALL");

/* Memory gauges: sums over the members at each poll (GPU: at each of
 * its samples, targetgpu.h; its extrema are the target's gpu part's). */
enum pt_gauge { PT_G_VM, PT_G_RSS, PT_G_ANON, PT_G_PSS, PT_G_SHARED, PT_G_USS, PT_G_SWAP, PT_G_GPU, PT_G_COUNT };

/* The other amounts a line is handed, each counted as it happens (in the
 * unit its metric reports: bytes, seconds, counts). */
enum pt_amount {
    PT_A_CTX_VOLUNTARY,
    PT_A_CTX_INVOLUNTARY,
    PT_A_PROCESSES,
    PT_A_THREADS,
    PT_A_FDS,
    PT_A_STARTED,
    PT_A_EXITED,
    PT_A_FAILED,
    PT_A_KILLED,
    PT_A_EXITED_RSS_PEAK, /* bytes */
    PT_A_SAMPLES,
    PT_A_VANISHED,
    PT_A_PSS_STALE,
    PT_A_BPF_READS,
    PT_A_COLLECTOR_CPU, /* seconds */
    PT_A_EXIT_RECORDS,
    PT_A_EXIT_RECORD_LOSSES,
    PT_A_RUNNING, /* live members by the state of their stat at the interval's end */
    PT_A_BLOCKED,
    PT_A_STOPPED,
    PT_A_ZOMBIE,
    /* the tree's network namespace's interfaces but lo (targetnetns.h):
     * bytes and packets received and sent */
    PT_A_NETNS_RECEIVED,
    PT_A_NETNS_SENT,
    PT_A_NETNS_RECEIVED_PACKETS,
    PT_A_NETNS_SENT_PACKETS,
    PT_A_OLDEST_AGE,          /* seconds since the oldest live member started */
    PT_A_FDS_LIMIT_PERCENT,   /* the highest share of its open-files limit a member has open */
    PT_A_FDS_HEADROOM,        /* the fewest more descriptors a member can open */
    PT_A_RESTARTS,            /* times the target's root was replaced */
    PT_A_CPU_DELAY,           /* seconds runnable but waiting for a CPU */
    PT_A_BLKIO_DELAY,         /* seconds waiting for block I/O */
    PT_A_GPU_BUSY,            /* seconds the tree kept GPU engines or SMs busy */
    PT_A_GPU_PROCESSES,       /* live members using a GPU */
    PT_A_NET_TCP_SENT,        /* bytes the tree's TCP sockets sent (acked by their peers) */
    PT_A_NET_TCP_RECEIVED,    /* bytes they received */
    PT_A_NET_TCP_CONNECTIONS, /* open TCP sockets of the live members at the interval's end */
    PT_A_NET_UDP_SENT,        /* bytes of UDP payload the tree's processes sent (BPF source) */
    PT_A_NET_UDP_RECEIVED,    /* bytes of UDP payload they received */
    PT_A_COUNT
};
/* lines.h keeps the amounts known as bits (its pt_line.has_amount asserts the width) */

/* What the kernel accounts for a cgroup (cgstat.h reads them), in the
 * files' units: microseconds (_US), bytes, counts. */
enum pt_cgq {
    /* cumulative: an interval reports their growth */
    PT_CGQ_CPU_USER_US,
    PT_CGQ_CPU_SYSTEM_US,
    PT_CGQ_THROTTLED_US,
    PT_CGQ_THROTTLED_PERIODS,
    PT_CGQ_CPU_SOME_US, /* pressure stall time; the six in this order */
    PT_CGQ_CPU_FULL_US,
    PT_CGQ_MEMORY_SOME_US,
    PT_CGQ_MEMORY_FULL_US,
    PT_CGQ_IO_SOME_US,
    PT_CGQ_IO_FULL_US,
    PT_CGQ_OOMS,
    PT_CGQ_OOM_KILLS,
    PT_CGQ_HIGH_EVENTS,
    PT_CGQ_MAX_EVENTS,
    PT_CGQ_IO_READ_BYTES,
    PT_CGQ_IO_WRITE_BYTES,
    PT_CGQ_CUMULATIVE_END,
    /* values now */
    PT_CGQ_MEMORY_CURRENT = PT_CGQ_CUMULATIVE_END,
    PT_CGQ_MEMORY_PEAK,          /* since the last read: v2 memory.peak, reset per descriptor */
    PT_CGQ_MEMORY_PEAK_LIFETIME, /* since the cgroup was made: memory.peak without the
                                    reset, v1's memory.max_usage_in_bytes */
    PT_CGQ_PIDS,
    PT_CGQ_COUNT
};
/* cgstat.h's offered and cgacct.h's known and gained are uint32_t bits
 * of it, and all of them are (1u << PT_CGQ_COUNT) - 1 */
_Static_assert(PT_CGQ_COUNT < 32, "enum pt_cgq outgrows the uint32_t masks of it");

/* The two peaks, of which a cgroup offers one at a time: the interval's
 * (reset per descriptor) or the lifetime's. */
#define PT_CGQ_PEAKS ((1u << PT_CGQ_MEMORY_PEAK) | (1u << PT_CGQ_MEMORY_PEAK_LIFETIME))

/* The bits of a struct's mask member, for the headers that hold masks
 * of these enums to assert each is wide enough. */
#define PT_MASK_BITS(type, member) (sizeof(((type *)0)->member) * CHAR_BIT)

/* What a lack of descriptors (EMFILE, ENFILE) left unknown in an interval:
 * those metrics are absent for it, never a partial sum. */
enum pt_short {
    PT_SHORT_MEMBERS = 1,  /* a process could not join: every sum is partial */
    PT_SHORT_STATM = 2,    /* vm, rss, anon */
    PT_SHORT_COUNTERS = 4, /* stat and io: CPU, faults, threads, I/O */
    PT_SHORT_SMAPS = 8,    /* pss, shared, uss, swap */
    PT_SHORT_CTX = 16,     /* the per-thread counts: context switches, delays */
    PT_SHORT_FDS = 32,     /* open descriptors */
};

#endif
