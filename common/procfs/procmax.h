/* procmax: the largest value of each kind a /proc parser passes on.
 *
 * The values proctree adds up are clamped to the maxima below: a number
 * that fits the syntax but no real process can reach (a fake /proc, a
 * hostile FUSE mount given as proc root, a kernel bug) is taken as the
 * maximum of its kind, so that every value fits int64 with room to spare
 * and the saturating sums (saturate.h) stay meaningful. Apart from
 * procfile.h because every parser of /proc clamps to them (procfile.c,
 * kvparse.c). */
#ifndef PROCTREE_PROCMAX_H
#define PROCTREE_PROCMAX_H

#include <stdint.h>

/* Cumulative counts: clock ticks, page faults, I/O bytes and syscalls,
 * context switches. 2^62 ticks at 1000 Hz is 146 million years; 2^62
 * bytes is 4 EiB, 14,000 years at 10 GB/s. */
#define PT_MAX_COUNT (UINT64_C(1) << 62)
/* Memory in bytes (smaps_rollup, meminfo): 1 EiB, 8 times the largest
 * address space Linux supports (2^57 bytes with 5-level page tables). */
#define PT_MAX_BYTES (UINT64_C(1) << 60)
/* Memory in pages (statm): 2^48 pages, the same 2^60 bytes with 4 KiB pages
 * and above any real value with larger ones. */
#define PT_MAX_PAGES (UINT64_C(1) << 48)
/* Threads of one process: no more than there can be pids (PID_MAX_LIMIT). */
#define PT_MAX_THREADS (INT64_C(1) << 22)

#endif
