/* base: what every file of common/ may use. It includes nothing of
 * proctree's own, so it is where a reader starts.
 *
 * Logging. One path: pt_logf() formats one line and hands it to the sink
 * the frontend installed (proctree-execd: stderr with Telegraf's "E! ",
 * "W! ", "I! " prefixes; the collectd plugin: plugin_log). No sink: no
 * output. The line is proctree's own words: text from outside (names,
 * paths, regexes) goes into it through pt_escape() (escape.h), never raw.
 *
 * Out of memory. One policy for the library and both frontends: an
 * allocation that fails logs one error line and aborts. proctree's
 * allocations are small and happen when a tree grows, so a host where
 * they fail cannot be measured; a half-measured tree reported as whole
 * would be worse than no report. Every allocation goes through pt_xalloc
 * and its siblings, so no caller has an error path for it.
 *
 * Clocks. pt_now() is CLOCK_MONOTONIC seconds: every deadline and interval
 * length (util/base.h has the library's other clocks).
 *
 * This is the frontends' part; util/base.h, which includes it, the
 * library's rest. */
#ifndef PROCTREE_BASE_H
#define PROCTREE_BASE_H

#include <stddef.h>

#define PT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum pt_log_level { PT_LOG_ERROR, PT_LOG_WARNING, PT_LOG_INFO, PT_LOG_DEBUG };

/* Receives one line, without its newline. */
typedef void (*pt_log_sink)(enum pt_log_level level, const char *line, void *arg);

/* Install the sink (the frontend does, once, before anything logs). */
void pt_log_set_sink(pt_log_sink sink, void *arg);

/* Format one line (cut at PT_LOG_LINE_MAX bytes) and hand it to the sink. */
#define PT_LOG_LINE_MAX 512
__attribute__((format(printf, 2, 3))) void pt_logf(enum pt_log_level level, const char *fmt, ...);

/* Absences. A line that says metrics are absent on this host (no GPU, no
 * exit records, a cgroup file the kernel does not offer) is logged at
 * INFO as any other, and its metrics' names, short ("proc_gpu_*"), are
 * also handed by pt_log_absent() (util/base.h) to the absence sink, for a frontend that
 * says only what is absent (proctree-execd at a terminal, in one line).
 * No sink: nothing. */
typedef void (*pt_absent_sink)(const char *what, void *arg);
void pt_log_set_absent_sink(pt_absent_sink sink, void *arg);

/* Allocate, or log "out of memory" and abort (util/base.h: the rest). */
void *pt_xrealloc_array(void *p, size_t n, size_t size); /* n * size, checked */

double pt_now(void);

#endif
