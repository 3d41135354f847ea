/* catalog: every metric proctree reports, defined once.
 *
 * Both frontends and the metric table of docs/METRICS.md are driven by this
 * list (tests/unit/test_metrics.c checks the table against it), so a metric
 * name, its kind and its unit cannot drift between collectd and Telegraf.
 *
 * X(ID, name, scope, kind, unit, collectd_type, source, description)
 *   scope: the line it belongs to: a target's line or the global line.
 *   kind:  GAUGE_MIN/GAUGE_MAX — lowest/highest tree sum seen by the polls
 *          of the interval; DELTA — amount done during the interval (never
 *          negative); COUNT — value at the interval's end; RATIO — a
 *          delta divided by the interval's wall time.
 *   unit:  PROC_MEMORY/GLOBAL_MEMORY follow the configured memory units;
 *          the others are fixed.
 *   collectd_type: a stock types.db type with one value. Virtual size uses
 *          "bytes", not "memory": the latter is capped at 2^48 and a tree
 *          of sanitizer-built processes reserves more than that.
 * Every GAUGE_MIN entry is immediately followed by its GAUGE_MAX twin
 * (code indexes the pair as id, id + 1; a unit test checks it). */
#ifndef PROCTREE_CATALOG_H
#define PROCTREE_CATALOG_H

#include <stddef.h>

enum pt_scope { PT_SCOPE_PROC, PT_SCOPE_GLOBAL };
enum pt_kind { PT_KIND_GAUGE_MIN, PT_KIND_GAUGE_MAX, PT_KIND_DELTA, PT_KIND_COUNT, PT_KIND_RATIO };
enum pt_unit {
    PT_UNIT_PROC_MEMORY,   /* bytes|kB|MB|GB, --proc-memory-unit */
    PT_UNIT_GLOBAL_MEMORY, /* bytes|kB|MB|GB, --global-memory-unit */
    PT_UNIT_BYTES,
    PT_UNIT_SECONDS,
    PT_UNIT_PERCENT,
    PT_UNIT_NUMBER,
};

/* clang-format off */
#define PT_CATALOG(X) \
  X(PROC_VM_SIZE_MIN, "proc_vm_size_min", PROC, GAUGE_MIN, PROC_MEMORY, "bytes", "statm size", "virtual memory size of the tree (sum over members)") \
  X(PROC_VM_SIZE_MAX, "proc_vm_size_max", PROC, GAUGE_MAX, PROC_MEMORY, "bytes", "statm size", "virtual memory size of the tree (sum over members)") \
  X(PROC_RSS_MIN, "proc_rss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "statm resident", "resident memory of the tree (shared pages counted in every member)") \
  X(PROC_RSS_MAX, "proc_rss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "statm resident", "resident memory of the tree (shared pages counted in every member)") \
  X(PROC_ANON_MIN, "proc_anon_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "statm resident - shared", "anonymous resident memory (heap, stacks, private mappings; = RssAnon)") \
  X(PROC_ANON_MAX, "proc_anon_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "statm resident - shared", "anonymous resident memory (heap, stacks, private mappings; = RssAnon)") \
  X(PROC_PSS_MIN, "proc_pss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "smaps_rollup Pss", "proportional set size: shared pages divided among their users") \
  X(PROC_PSS_MAX, "proc_pss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "smaps_rollup Pss", "proportional set size: shared pages divided among their users") \
  X(PROC_SHARED_MIN, "proc_shared_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "smaps_rollup Shared_Clean+Shared_Dirty", "resident pages also mapped by another process") \
  X(PROC_SHARED_MAX, "proc_shared_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "smaps_rollup Shared_Clean+Shared_Dirty", "resident pages also mapped by another process") \
  X(PROC_USS_MIN, "proc_uss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "smaps_rollup Private_Clean+Private_Dirty", "unique set size: resident pages mapped by this process only") \
  X(PROC_USS_MAX, "proc_uss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "smaps_rollup Private_Clean+Private_Dirty", "unique set size: resident pages mapped by this process only") \
  X(PROC_SWAP_MIN, "proc_swap_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", "smaps_rollup Swap", "memory of the tree that is swapped out") \
  X(PROC_SWAP_MAX, "proc_swap_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "smaps_rollup Swap", "memory of the tree that is swapped out") \
  X(PROC_IO_READ_BYTES, "proc_io_read_bytes", PROC, DELTA, BYTES, "bytes", "io rchar", "bytes read by read-like syscalls: files, page cache, pipes, sockets") \
  X(PROC_IO_WRITE_BYTES, "proc_io_write_bytes", PROC, DELTA, BYTES, "bytes", "io wchar", "bytes written by write-like syscalls: files, page cache, pipes, sockets") \
  X(PROC_IO_STORAGE_READ_BYTES, "proc_io_storage_read_bytes", PROC, DELTA, BYTES, "bytes", "io read_bytes", "bytes fetched from the block layer (storage)") \
  X(PROC_IO_STORAGE_WRITE_BYTES, "proc_io_storage_write_bytes", PROC, DELTA, BYTES, "bytes", "io write_bytes", "bytes sent to the block layer (storage)") \
  X(PROC_IO_CANCELLED_WRITE_BYTES, "proc_io_cancelled_write_bytes", PROC, DELTA, BYTES, "bytes", "io cancelled_write_bytes", "dirty page-cache bytes dropped before writeback (truncated files)") \
  X(PROC_IO_READ_SYSCALLS, "proc_io_read_syscalls", PROC, DELTA, NUMBER, "count", "io syscr", "read-like syscalls") \
  X(PROC_IO_WRITE_SYSCALLS, "proc_io_write_syscalls", PROC, DELTA, NUMBER, "count", "io syscw", "write-like syscalls") \
  X(PROC_CPU_USER_SECONDS, "proc_cpu_user_seconds", PROC, DELTA, SECONDS, "duration", "stat utime+cutime", "CPU time in user mode, reaped children included") \
  X(PROC_CPU_SYSTEM_SECONDS, "proc_cpu_system_seconds", PROC, DELTA, SECONDS, "duration", "stat stime+cstime", "CPU time in kernel mode, reaped children included") \
  X(PROC_CPU_PERCENT, "proc_cpu_percent", PROC, RATIO, PERCENT, "gauge", "stat utime+stime+cutime+cstime", "CPU use over the interval; 100 = one core, at most 100 x the host's CPUs") \
  X(PROC_MINOR_FAULTS, "proc_minor_faults", PROC, DELTA, NUMBER, "count", "stat minflt+cminflt", "page faults served without I/O, reaped children included") \
  X(PROC_MAJOR_FAULTS, "proc_major_faults", PROC, DELTA, NUMBER, "count", "stat majflt+cmajflt", "page faults that needed I/O, reaped children included") \
  X(PROC_CTX_SWITCHES_VOLUNTARY, "proc_ctx_switches_voluntary", PROC, DELTA, NUMBER, "count", "task/*/status voluntary_ctxt_switches; exit records nvcsw", "voluntary context switches (waits) of the live threads, and with exit records of the exited ones") \
  X(PROC_CTX_SWITCHES_INVOLUNTARY, "proc_ctx_switches_involuntary", PROC, DELTA, NUMBER, "count", "task/*/status nonvoluntary_ctxt_switches; exit records nivcsw", "involuntary context switches (preemptions) of the live threads, and with exit records of the exited ones") \
  X(PROC_PROCESSES, "proc_processes", PROC, COUNT, NUMBER, "count", "membership", "live processes in the tree") \
  X(PROC_THREADS, "proc_threads", PROC, COUNT, NUMBER, "count", "stat num_threads", "threads of the live processes") \
  X(PROC_FDS, "proc_fds", PROC, COUNT, NUMBER, "file_handles", "fd/", "open file descriptors of the live processes") \
  X(PROC_PROCESSES_STARTED, "proc_processes_started", PROC, DELTA, NUMBER, "count", "membership", "processes started in the tree (with process events: every fork of a member; without: processes seen by a poll or discovery)") \
  X(PROC_PROCESSES_EXITED, "proc_processes_exited", PROC, DELTA, NUMBER, "count", "membership", "processes of the tree that exited (with process events: every one; without: members seen, once reaped)") \
  X(PROC_PROCESSES_FAILED, "proc_processes_failed", PROC, DELTA, NUMBER, "count", "exit records ac_exitcode", "processes of the tree that exited with a non-zero status (only with exit records)") \
  X(PROC_PROCESSES_KILLED, "proc_processes_killed", PROC, DELTA, NUMBER, "count", "exit records ac_exitcode", "processes of the tree killed by a signal, an OOM kill included (only with exit records)") \
  X(PROC_EXITED_RSS_PEAK_MAX, "proc_exited_rss_peak_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", "exit records hiwater_rss", "highest peak resident memory of a process of the tree that exited in the interval, however short its life; 0 when none exited (only with exit records)") \
  X(COLLECTOR_SAMPLES, "collector_samples", PROC, DELTA, NUMBER, "count", "the sampler", "memory polls of this target in the interval") \
  X(COLLECTOR_VANISHED, "collector_vanished", PROC, DELTA, NUMBER, "count", "the sampler", "member reads skipped because the process vanished or its file was unreadable") \
  X(COLLECTOR_PSS_STALE, "collector_pss_stale", PROC, COUNT, NUMBER, "count", "the sampler", "members whose smaps_rollup was not read this interval (too slow to read, or the tree's memory unchanged since the last read): their last values were used") \
  X(COLLECTOR_CPU_SECONDS, "collector_cpu_seconds", PROC, DELTA, SECONDS, "duration", "the sampler", "CPU time proctree spent measuring this target in the interval") \
  X(COLLECTOR_EXIT_RECORDS, "collector_exit_records", PROC, DELTA, NUMBER, "count", "exit records", "kernel exit records (one per exited thread) used for this target in the interval (only with exit records)") \
  X(COLLECTOR_EXIT_RECORD_LOSSES, "collector_exit_record_losses", PROC, DELTA, NUMBER, "count", "exit records", "overflows of the exit-record socket in the interval, each losing one or more records: then failed, killed and peak are left out (only with exit records)") \
  X(GLOBAL_MEM_USED_MIN, "global_mem_used_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", "meminfo MemTotal-MemAvailable", "memory in use system-wide (as free(1) and Telegraf mem.used)") \
  X(GLOBAL_MEM_USED_MAX, "global_mem_used_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", "meminfo MemTotal-MemAvailable", "memory in use system-wide (as free(1) and Telegraf mem.used)") \
  X(GLOBAL_CACHED_MIN, "global_cached_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", "meminfo Cached", "page cache system-wide") \
  X(GLOBAL_CACHED_MAX, "global_cached_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", "meminfo Cached", "page cache system-wide") \
  X(GLOBAL_ANON_MIN, "global_anon_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", "meminfo AnonPages", "anonymous memory system-wide") \
  X(GLOBAL_ANON_MAX, "global_anon_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", "meminfo AnonPages", "anonymous memory system-wide") \
  X(GLOBAL_SWAP_FREE_MIN, "global_swap_free_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", "meminfo SwapFree", "free swap space") \
  X(GLOBAL_SWAP_FREE_MAX, "global_swap_free_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", "meminfo SwapFree", "free swap space")
/* clang-format on */

enum pt_metric_id {
#define PT_X_ENUM(id, ...) PT_M_##id,
    PT_CATALOG(PT_X_ENUM)
#undef PT_X_ENUM
        PT_METRIC_COUNT
};

struct pt_metric_def {
    const char *name;
    enum pt_scope scope;
    enum pt_kind kind;
    enum pt_unit unit;
    const char *collectd_type; /* a stock types.db type with one value */
    const char *source;
    const char *description;
};

extern const struct pt_metric_def pt_catalog[PT_METRIC_COUNT];

/* "gauge (min)", "delta", ... and "bytes", "seconds", ... as the table of
 * docs/METRICS.md spells them. */
const char *pt_kind_name(enum pt_kind kind);
const char *pt_unit_name(enum pt_unit unit);

/* The proctree-execd option that switches the metric off ("--no-pss"), or
 * NULL for metrics that are always collected. The collectd plugin's
 * options map one to one (CollectPss, ...). */
const char *pt_metric_switch(enum pt_metric_id id);

#endif
