/* base, the library's part: allocation, the clocks a process's times
 * are in, and absences said to the absence sink (proctree/base.h, the
 * frontends' part, says why and how: one policy for memory, one path for
 * log lines). */
#ifndef PROCTREE_UTIL_BASE_H
#define PROCTREE_UTIL_BASE_H

#include <stddef.h>

#include "proctree/base.h"

/* Hand what (short names of absent metrics, "proc_gpu_*") to the absence
 * sink the frontend installed (pt_log_set_absent_sink); none: nothing. */
void pt_log_absent(const char *what);

/* Allocate, or log "out of memory" and abort. pt_xrealloc(p, 0) frees. */
void *pt_xalloc(size_t size); /* zeroed */
void *pt_xrealloc(void *p, size_t size);
char *pt_xstrdup(const char *s);

/* pt_boottime() is CLOCK_BOOTTIME seconds, the clock a process's
 * starttime is in (it counts suspended time too). pt_thread_cpu_seconds()
 * is the calling thread's CPU time: what proctree itself costs
 * (collector_cpu_seconds). */
double pt_boottime(void);
/* The kernel's exit records give CPU and times in microseconds. */
#define PT_US_PER_SECOND 1e6
double pt_thread_cpu_seconds(void);

#endif
