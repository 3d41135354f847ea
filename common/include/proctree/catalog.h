/* catalog: every metric proctree reports, defined once.
 *
 * Both frontends and the metric table of docs/METRICS.md are driven by this
 * list (tests/unit/report/test_metrics.c checks the table against it), so a metric
 * name, its kind and its unit cannot drift between collectd and Telegraf.
 * It also decides where each value is set (lines.c fills a line from these
 * columns), so grepping a metric's id finds its line here, and the from
 * column names the gauge, counter, amount or cgroup quantity it is set
 * from.
 *
 * X(ID, name, scope, kind, unit, collectd_type, from, reads, lines, source, description)
 *   scope: the line it belongs to: a target's line, the global line, or
 *          ALL: every line, the global one too (its lines column says
 *          which breakdown lines besides).
 *   kind:  GAUGE_MIN/GAUGE_MAX — lowest/highest tree sum seen by the polls
 *          of the interval; DELTA — amount done during the interval (never
 *          negative); COUNT — value at the interval's end; RATIO — a
 *          delta divided by the interval's wall time. The interval's
 *          length is a DELTA too, the wall clock's: summed over intervals
 *          (a run's summary, a dashboard's bucket) it is the time they
 *          cover, what the deltas summed with it are a rate over.
 *   unit:  PROC_MEMORY/GLOBAL_MEMORY follow the configured memory units;
 *          the others are fixed.
 *   collectd_type: a stock types.db type with one value. Virtual size uses
 *          "bytes", not "memory": the latter is capped at 2^48 and a tree
 *          of sanitizer-built processes reserves more than that.
 *   from:  PT_GAUGE(enum pt_gauge) — its min or max, by the kind;
 *          PT_COUNTER(enum pt_counter) — its delta (CPU ticks in seconds);
 *          PT_CPU_PERCENT — the CPU counters' deltas over the wall time;
 *          PT_AMOUNT(enum pt_amount) — an amount the line is handed;
 *          PT_CG(enum pt_cgq) — the kernel's accounting of the target's
 *          cgroups (cgacct.h), on a cgroup target's line only: its growth
 *          for a cumulative one, microseconds as seconds;
 *          PT_MEMINFO — the global line's (procfs/sysmem.c);
 *          PT_INTERVAL — the interval's wall time, every line's.
 *   reads: the enum pt_short bits of the reads it needs whole: short of
 *          descriptors for one of them, it is left out (collector_* need
 *          none: they tell what happened).
 *   lines: the breakdown lines that carry it besides its scope's line:
 *          ONE (none), BY_PROCESS (--by process, title and cgroup), BY_ANY
 *          (--by thread too), BY_CGROUP (--by cgroup only).
 * Every GAUGE_MIN entry is immediately followed by its GAUGE_MAX twin
 * (procfs/sysmem.c indexes the pair as id, id + 1; a unit test checks it).
 *
 * The from and reads columns name quantities.h's enums: what expands
 * them whole includes report/catalog.h, the library's part, which
 * includes this one and quantities.h. */
#ifndef PROCTREE_CATALOG_H
#define PROCTREE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

enum pt_scope { PT_SCOPE_PROC, PT_SCOPE_GLOBAL, PT_SCOPE_ALL };
enum pt_kind { PT_KIND_GAUGE_MIN, PT_KIND_GAUGE_MAX, PT_KIND_DELTA, PT_KIND_COUNT, PT_KIND_RATIO };
enum pt_unit {
    PT_UNIT_PROC_MEMORY,   /* bytes|kB|MB|GB, --proc-memory-unit */
    PT_UNIT_GLOBAL_MEMORY, /* bytes|kB|MB|GB, --global-memory-unit */
    PT_UNIT_BYTES,
    PT_UNIT_SECONDS,
    PT_UNIT_PERCENT,
    PT_UNIT_NUMBER,
};

enum pt_from {
    PT_FROM_GAUGE,
    PT_FROM_COUNTER,
    PT_FROM_CPU_PERCENT,
    PT_FROM_AMOUNT,
    PT_FROM_CGROUP,
    PT_FROM_MEMINFO,
    PT_FROM_INTERVAL
};
/* The breakdown lines that carry a metric: bits of PT_LINES_BY_PROCESS,
 * PT_LINES_BY_THREAD and PT_LINES_BY_CGROUP. A --by cgroup line is of
 * BY_PROCESS | BY_CGROUP: it carries what a process name's does, and
 * its cgroup's own accounting. */
enum pt_lines {
    PT_LINES_ONE = 0,
    PT_LINES_BY_PROCESS = 1,
    PT_LINES_BY_THREAD = 2,
    PT_LINES_BY_ANY = 3,
    PT_LINES_BY_CGROUP = 4
};

/* The from column: two fields of struct pt_metric_def, from and quantity. */
#define PT_GAUGE(g) PT_FROM_GAUGE, (g)
#define PT_COUNTER(k) PT_FROM_COUNTER, (k)
#define PT_CPU_PERCENT PT_FROM_CPU_PERCENT, 0
#define PT_AMOUNT(a) PT_FROM_AMOUNT, (a)
#define PT_MEMINFO PT_FROM_MEMINFO, 0
#define PT_INTERVAL PT_FROM_INTERVAL, 0
#define PT_CG(q) PT_FROM_CGROUP, (q)

/* clang-format off */
#define PT_CATALOG(X) \
  X(PT_M_PROC_VM_SIZE_MIN, "proc_vm_size_min", PROC, GAUGE_MIN, PROC_MEMORY, "bytes", PT_GAUGE(PT_G_VM), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm size", "virtual memory size of the tree (sum over members)") \
  X(PT_M_PROC_VM_SIZE_MAX, "proc_vm_size_max", PROC, GAUGE_MAX, PROC_MEMORY, "bytes", PT_GAUGE(PT_G_VM), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm size", "virtual memory size of the tree (sum over members)") \
  X(PT_M_PROC_RSS_MIN, "proc_rss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_RSS), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm resident", "resident memory of the tree (shared pages counted in every member)") \
  X(PT_M_PROC_RSS_MAX, "proc_rss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_RSS), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm resident", "resident memory of the tree (shared pages counted in every member)") \
  X(PT_M_PROC_ANON_MIN, "proc_anon_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_ANON), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm resident - shared", "anonymous resident memory (heap, stacks, private mappings; = RssAnon)") \
  X(PT_M_PROC_ANON_MAX, "proc_anon_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_ANON), PT_SHORT_MEMBERS|PT_SHORT_STATM, BY_PROCESS, "statm resident - shared", "anonymous resident memory (heap, stacks, private mappings; = RssAnon)") \
  X(PT_M_PROC_PSS_MIN, "proc_pss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_PSS), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Pss", "proportional set size: shared pages divided among their users; the lowest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_PSS_MAX, "proc_pss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_PSS), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Pss", "proportional set size: shared pages divided among their users; the highest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_SHARED_MIN, "proc_shared_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_SHARED), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Shared_Clean+Shared_Dirty", "resident pages also mapped by another process; the lowest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_SHARED_MAX, "proc_shared_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_SHARED), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Shared_Clean+Shared_Dirty", "resident pages also mapped by another process; the highest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_USS_MIN, "proc_uss_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_USS), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Private_Clean+Private_Dirty", "unique set size: resident pages mapped by this process only; the lowest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_USS_MAX, "proc_uss_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_USS), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Private_Clean+Private_Dirty", "unique set size: resident pages mapped by this process only; the highest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_SWAP_MIN, "proc_swap_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_SWAP), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Swap", "memory of the tree that is swapped out; the lowest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_SWAP_MAX, "proc_swap_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_SWAP), PT_SHORT_MEMBERS|PT_SHORT_SMAPS, BY_PROCESS, "smaps_rollup Swap", "memory of the tree that is swapped out; the highest of the interval's smaps_rollup samples (one, at its end, by default: then _min = _max)") \
  X(PT_M_PROC_IO_READ_BYTES, "proc_io_read_bytes", PROC, DELTA, BYTES, "bytes", PT_COUNTER(PT_CTR_RCHAR), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io rchar", "bytes read by the read(2) family (read, readv, pread, sendfile): files, pipes, and sockets read with read(); not recv(2), recvmsg(2), io_uring or mmap") \
  X(PT_M_PROC_IO_WRITE_BYTES, "proc_io_write_bytes", PROC, DELTA, BYTES, "bytes", PT_COUNTER(PT_CTR_WCHAR), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io wchar", "bytes written by the write(2) family (write, writev, pwrite, sendfile): files, pipes, and sockets written with write(); not send(2), sendmsg(2), io_uring or mmap") \
  X(PT_M_PROC_IO_STORAGE_READ_BYTES, "proc_io_storage_read_bytes", PROC, DELTA, BYTES, "bytes", PT_COUNTER(PT_CTR_STORAGE_READ), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io read_bytes", "bytes fetched from the block layer (storage)") \
  X(PT_M_PROC_IO_STORAGE_WRITE_BYTES, "proc_io_storage_write_bytes", PROC, DELTA, BYTES, "bytes", PT_COUNTER(PT_CTR_STORAGE_WRITE), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io write_bytes", "bytes sent to the block layer (storage)") \
  X(PT_M_PROC_IO_CANCELLED_WRITE_BYTES, "proc_io_cancelled_write_bytes", PROC, DELTA, BYTES, "bytes", PT_COUNTER(PT_CTR_CANCELLED_WRITE), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io cancelled_write_bytes", "dirty page-cache bytes dropped before writeback (truncated files)") \
  X(PT_M_PROC_IO_READ_SYSCALLS, "proc_io_read_syscalls", PROC, DELTA, NUMBER, "count", PT_COUNTER(PT_CTR_SYSCR), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io syscr", "read(2)-family syscalls (not recv(2))") \
  X(PT_M_PROC_IO_WRITE_SYSCALLS, "proc_io_write_syscalls", PROC, DELTA, NUMBER, "count", PT_COUNTER(PT_CTR_SYSCW), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "io syscw", "write(2)-family syscalls (not send(2))") \
  X(PT_M_PROC_CPU_USER_SECONDS, "proc_cpu_user_seconds", PROC, DELTA, SECONDS, "duration", PT_COUNTER(PT_CTR_USER_TICKS), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_ANY, "stat utime+cutime", "CPU time in user mode, reaped children included") \
  X(PT_M_PROC_CPU_SYSTEM_SECONDS, "proc_cpu_system_seconds", PROC, DELTA, SECONDS, "duration", PT_COUNTER(PT_CTR_SYSTEM_TICKS), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_ANY, "stat stime+cstime", "CPU time in kernel mode, reaped children included") \
  X(PT_M_PROC_CPU_PERCENT, "proc_cpu_percent", PROC, RATIO, PERCENT, "gauge", PT_CPU_PERCENT, PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_ANY, "stat utime+stime+cutime+cstime", "CPU use over the interval; 100 = one core, at most 100 x the host's CPUs") \
  X(PT_M_PROC_MINOR_FAULTS, "proc_minor_faults", PROC, DELTA, NUMBER, "count", PT_COUNTER(PT_CTR_MINFLT), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "stat minflt+cminflt", "page faults served without I/O, reaped children included") \
  X(PT_M_PROC_MAJOR_FAULTS, "proc_major_faults", PROC, DELTA, NUMBER, "count", PT_COUNTER(PT_CTR_MAJFLT), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "stat majflt+cmajflt", "page faults that needed I/O, reaped children included") \
  X(PT_M_PROC_CTX_SWITCHES_VOLUNTARY, "proc_ctx_switches_voluntary", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_CTX_VOLUNTARY), PT_SHORT_MEMBERS|PT_SHORT_CTX, BY_ANY, "task/*/status voluntary_ctxt_switches; exit records nvcsw", "voluntary context switches (waits) of the live threads, and with exit records of the exited ones") \
  X(PT_M_PROC_CTX_SWITCHES_INVOLUNTARY, "proc_ctx_switches_involuntary", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_CTX_INVOLUNTARY), PT_SHORT_MEMBERS|PT_SHORT_CTX, BY_ANY, "task/*/status nonvoluntary_ctxt_switches; exit records nivcsw", "involuntary context switches (preemptions) of the live threads, and with exit records of the exited ones") \
  X(PT_M_PROC_CPU_DELAY_SECONDS, "proc_cpu_delay_seconds", PROC, DELTA, SECONDS, "duration", PT_AMOUNT(PT_A_CPU_DELAY), PT_SHORT_MEMBERS|PT_SHORT_CTX, BY_PROCESS, "task/*/schedstat run_delay; exit records cpu_delay_total", "time the tree's threads were runnable but waited for a CPU (run-queue delay), summed over threads: its own CPU pressure; exited threads included with exit records") \
  X(PT_M_PROC_BLKIO_DELAY_SECONDS, "proc_blkio_delay_seconds", PROC, DELTA, SECONDS, "duration", PT_AMOUNT(PT_A_BLKIO_DELAY), PT_SHORT_MEMBERS|PT_SHORT_CTX, BY_PROCESS, "task/*/stat delayacct_blkio_ticks; exit records blkio_delay_total", "time the tree's threads waited for block I/O, summed over threads, to a clock tick; only while kernel.task_delayacct is 1 and the kernel times every process of the tree (started after it was switched on, or delayacct at boot), absent otherwise; exited threads included with exit records") \
  X(PT_M_PROC_PROCESSES, "proc_processes", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_PROCESSES), PT_SHORT_MEMBERS, BY_PROCESS, "membership", "live processes in the tree") \
  X(PT_M_PROC_PROCESSES_RUNNING, "proc_processes_running", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_RUNNING), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, ONE, "stat state R", "live processes running or waiting for a CPU (R) at the interval's end") \
  X(PT_M_PROC_PROCESSES_BLOCKED, "proc_processes_blocked", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_BLOCKED), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, ONE, "stat state D", "live processes in uninterruptible sleep (D), blocked in the kernel (I/O, a lock), at the interval's end") \
  X(PT_M_PROC_PROCESSES_STOPPED, "proc_processes_stopped", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_STOPPED), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, ONE, "stat state T, t", "live processes stopped by a signal or a tracer (T, t) at the interval's end") \
  X(PT_M_PROC_PROCESSES_ZOMBIE, "proc_processes_zombie", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_ZOMBIE), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, ONE, "stat state Z", "processes that exited and wait for their parent to reap them (Z) at the interval's end") \
  X(PT_M_PROC_THREADS, "proc_threads", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_THREADS), PT_SHORT_MEMBERS|PT_SHORT_COUNTERS, BY_PROCESS, "stat num_threads", "threads of the live processes") \
  X(PT_M_PROC_FDS, "proc_fds", PROC, COUNT, NUMBER, "file_handles", PT_AMOUNT(PT_A_FDS), PT_SHORT_MEMBERS|PT_SHORT_FDS, BY_PROCESS, "fd/", "open file descriptors of the live processes") \
  X(PT_M_PROC_FDS_LIMIT_PERCENT, "proc_fds_limit_percent", PROC, COUNT, PERCENT, "gauge", PT_AMOUNT(PT_A_FDS_LIMIT_PERCENT), PT_SHORT_MEMBERS|PT_SHORT_FDS, ONE, "fd/; limits Max open files", "the highest share of its soft open-files limit (RLIMIT_NOFILE) a live process has open, at the interval's end; 100 or more: it can open no more. Processes whose limit is unlimited or unreadable are left out; the limits are read once a minute and after an exec") \
  X(PT_M_PROC_FDS_HEADROOM, "proc_fds_headroom", PROC, COUNT, NUMBER, "file_handles", PT_AMOUNT(PT_A_FDS_HEADROOM), PT_SHORT_MEMBERS|PT_SHORT_FDS, ONE, "fd/; limits Max open files", "the fewest more descriptors a live process can open before its soft open-files limit, at the interval's end (0 at or past it); the same processes as proc_fds_limit_percent") \
  X(PT_M_PROC_PROCESSES_STARTED, "proc_processes_started", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_STARTED), PT_SHORT_MEMBERS, ONE, "membership", "processes started in the tree (with process events: every fork of a member; without: processes seen by a poll or discovery)") \
  X(PT_M_PROC_PROCESSES_EXITED, "proc_processes_exited", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_EXITED), PT_SHORT_MEMBERS, ONE, "membership", "processes of the tree that exited (with process events: every one; without: members seen, once reaped)") \
  X(PT_M_PROC_PROCESSES_FAILED, "proc_processes_failed", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_FAILED), PT_SHORT_MEMBERS, ONE, "exit records ac_exitcode", "processes of the tree that exited with a non-zero status (only with exit records)") \
  X(PT_M_PROC_PROCESSES_KILLED, "proc_processes_killed", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_KILLED), PT_SHORT_MEMBERS, ONE, "exit records ac_exitcode", "processes of the tree killed by a signal, an OOM kill included (only with exit records)") \
  X(PT_M_PROC_OLDEST_AGE_SECONDS, "proc_oldest_age_seconds", PROC, COUNT, SECONDS, "duration", PT_AMOUNT(PT_A_OLDEST_AGE), PT_SHORT_MEMBERS, ONE, "stat starttime", "seconds since the oldest live member started, at the interval's end: it falls when the service restarts") \
  X(PT_M_PROC_RESTARTS, "proc_restarts", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_RESTARTS), PT_SHORT_MEMBERS, ONE, "pid file; cgroup id", "times the target's root was replaced in the interval: a pid file naming a new process, a --cgroup's or single --unit's cgroup made again (seen at a discovery); 0 for --pid and a launched command; absent for --match, --exe, --user and unit globs, which have no one root") \
  X(PT_M_PROC_EXITED_RSS_PEAK_MAX, "proc_exited_rss_peak_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_AMOUNT(PT_A_EXITED_RSS_PEAK), PT_SHORT_MEMBERS, ONE, "exit records hiwater_rss", "highest peak resident memory of a process of the tree that exited in the interval, however short its life; 0 when none exited (only with exit records)") \
  X(PT_M_PROC_GPU_MEMORY_MIN, "proc_gpu_memory_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_GAUGE(PT_G_GPU), PT_SHORT_MEMBERS, BY_PROCESS, "NVML usedGpuMemory; fdinfo drm-resident-*", "GPU memory of the tree's processes, every device summed: NVIDIA's used memory of their pids (sampled at every discovery), the DRM clients' resident memory of every region (at the interval's end), each client once; the lowest sample; absent where the host has no GPU, and in an interval whose DRM read passed 4,096 fdinfo reads") \
  X(PT_M_PROC_GPU_MEMORY_MAX, "proc_gpu_memory_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_GAUGE(PT_G_GPU), PT_SHORT_MEMBERS, BY_PROCESS, "NVML usedGpuMemory; fdinfo drm-resident-*", "GPU memory of the tree's processes, every device summed: NVIDIA's used memory of their pids (sampled at every discovery), the DRM clients' resident memory of every region (at the interval's end), each client once; the highest sample; absent where the host has no GPU, and in an interval whose DRM read passed 4,096 fdinfo reads") \
  X(PT_M_PROC_GPU_BUSY_SECONDS, "proc_gpu_busy_seconds", PROC, DELTA, SECONDS, "duration", PT_AMOUNT(PT_A_GPU_BUSY), PT_SHORT_MEMBERS, BY_PROCESS, "NVML process utilization smUtil; fdinfo drm-engine-*", "time the tree's processes kept a GPU busy in the interval, summed over devices and engines: NVIDIA's SM utilisation samples times their period, DRM's engine busy time (each client once); can pass the interval's length; absent where the host has no GPU, and in an interval whose DRM read passed 4,096 fdinfo reads") \
  X(PT_M_PROC_GPU_PROCESSES, "proc_gpu_processes", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_GPU_PROCESSES), PT_SHORT_MEMBERS, BY_PROCESS, "NVML process lists; fd/ DRM descriptors", "live processes of the tree that NVML lists or that hold a DRM client, at the interval's end; absent where the host has no GPU, and in an interval whose DRM read passed 4,096 fdinfo reads") \
  X(PT_M_PROC_NET_TCP_SENT_BYTES, "proc_net_tcp_sent_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NET_TCP_SENT), PT_SHORT_MEMBERS, BY_PROCESS, "sock_diag tcp_info tcpi_bytes_acked; fd/ socket inodes", "bytes the tree's TCP sockets (IPv4 and IPv6) sent and had acknowledged by their peers in the interval, each socket once however many members hold it; a connection closed in the interval by its destroy notification, if a walk of the members' descriptors saw it open; not UDP, not a tree in another network namespace (docs/METRICS.md, Network)") \
  X(PT_M_PROC_NET_TCP_RECEIVED_BYTES, "proc_net_tcp_received_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NET_TCP_RECEIVED), PT_SHORT_MEMBERS, BY_PROCESS, "sock_diag tcp_info tcpi_bytes_received; fd/ socket inodes", "bytes the tree's TCP sockets received in the interval; the same sockets as proc_net_tcp_sent_bytes") \
  X(PT_M_PROC_NET_TCP_CONNECTIONS, "proc_net_tcp_connections", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_NET_TCP_CONNECTIONS), PT_SHORT_MEMBERS, BY_PROCESS, "sock_diag; fd/ socket inodes", "TCP sockets the live members hold at the interval's end, in any state but LISTEN (connecting, established, closing)") \
  X(PT_M_PROC_NET_UDP_SENT_BYTES, "proc_net_udp_sent_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NET_UDP_SENT), PT_SHORT_MEMBERS, BY_PROCESS, "BPF tracepoint sock_send_length (UDP sockets)", "bytes of UDP payload (IPv4 and IPv6; no UDP or IP header) the tree's processes sent in the interval, as the kernel's sendmsg returned them, each message once, sockets of any lifetime; a process not yet found counts in its nearest member ancestor's; only with the BPF source, absent with procfs (docs/METRICS.md, Network)") \
  X(PT_M_PROC_NET_UDP_RECEIVED_BYTES, "proc_net_udp_received_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NET_UDP_RECEIVED), PT_SHORT_MEMBERS, BY_PROCESS, "BPF tracepoint sock_recv_length (UDP sockets)", "bytes of UDP payload the tree's processes received in the interval, as the kernel's recvmsg returned them (peeks and error-queue reads left out); the same processes as proc_net_udp_sent_bytes") \
  X(PT_M_COLLECTOR_INTERVAL_SECONDS, "collector_interval_seconds", ALL, DELTA, SECONDS, "duration", PT_INTERVAL, 0, BY_ANY, "the monotonic clock", "wall time the line's interval covers, since the batch before (the first: since proctree started), the time its deltas were done in: a rate is a delta / collector_interval_seconds, over several lines sum(delta) / sum(collector_interval_seconds); on every line, a breakdown's and the global one too") \
  X(PT_M_COLLECTOR_SAMPLES, "collector_samples", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_SAMPLES), 0, ONE, "the sampler", "memory polls of this target in the interval") \
  X(PT_M_COLLECTOR_VANISHED, "collector_vanished", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_VANISHED), 0, ONE, "the sampler", "reads of a member's statm, stat or io skipped because the process vanished or the file was unreadable") \
  X(PT_M_COLLECTOR_PSS_STALE, "collector_pss_stale", PROC, COUNT, NUMBER, "count", PT_AMOUNT(PT_A_PSS_STALE), 0, ONE, "the sampler", "members whose smaps_rollup was due (their tree moved, or their --pss-every turn) but not read this interval, slower to read than --pss-budget / PssBudget (none by default: that guard is off): their last values were used; values carried because nothing of the tree moved are not counted") \
  X(PT_M_COLLECTOR_BPF_READS, "collector_bpf_reads", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_BPF_READS), 0, ONE, "the sampler", "members' interval counters (stat, io, the threads' counts) read through the BPF task iterator in the interval, the same numbers as their /proc files (its polls read their statm too); 0 where proctree reads procfs alone (--source / Source, and the start line that says why)") \
  X(PT_M_COLLECTOR_CPU_SECONDS, "collector_cpu_seconds", PROC, DELTA, SECONDS, "duration", PT_AMOUNT(PT_A_COLLECTOR_CPU), 0, ONE, "the sampler", "CPU time proctree spent measuring this target in the line's time (what an interval's end reads after the line's moment is in the next line's)") \
  X(PT_M_COLLECTOR_EXIT_RECORDS, "collector_exit_records", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_EXIT_RECORDS), 0, ONE, "exit records", "kernel exit records (one per exited thread) used for this target in the interval (only with exit records)") \
  X(PT_M_COLLECTOR_EXIT_RECORD_LOSSES, "collector_exit_record_losses", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_EXIT_RECORD_LOSSES), 0, ONE, "exit records", "overflows of the exit-record socket in the interval, each losing one or more records: then failed, killed and peak are left out (only with exit records)") \
  X(PT_M_CGROUP_CPU_USER_SECONDS, "cgroup_cpu_user_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_CPU_USER_US), 0, BY_CGROUP, "cpu.stat user_usec (v1: cpuacct.usage_user)", "CPU time of the cgroups' tasks in user mode, exact (the scheduler's run time), exited tasks included") \
  X(PT_M_CGROUP_CPU_SYSTEM_SECONDS, "cgroup_cpu_system_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_CPU_SYSTEM_US), 0, BY_CGROUP, "cpu.stat system_usec (v1: cpuacct.usage_sys)", "CPU time of the cgroups' tasks in kernel mode, exact, exited tasks included") \
  X(PT_M_CGROUP_CPU_THROTTLED_SECONDS, "cgroup_cpu_throttled_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_THROTTLED_US), 0, BY_CGROUP, "cpu.stat throttled_usec (v1: cpu.stat throttled_time)", "time the cgroups were throttled by their CPU quota (cpu controller)") \
  X(PT_M_CGROUP_CPU_THROTTLED_PERIODS, "cgroup_cpu_throttled_periods", PROC, DELTA, NUMBER, "count", PT_CG(PT_CGQ_THROTTLED_PERIODS), 0, BY_CGROUP, "cpu.stat nr_throttled", "enforcement periods in which the cgroups were throttled (cpu controller)") \
  X(PT_M_CGROUP_PRESSURE_CPU_SOME_SECONDS, "cgroup_pressure_cpu_some_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_CPU_SOME_US), 0, BY_CGROUP, "cpu.pressure some total", "time some of the cgroups' tasks waited for a CPU (pressure stall information)") \
  X(PT_M_CGROUP_PRESSURE_CPU_FULL_SECONDS, "cgroup_pressure_cpu_full_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_CPU_FULL_US), 0, BY_CGROUP, "cpu.pressure full total", "time all of the cgroups' non-idle tasks waited for a CPU at once (Linux >= 5.13)") \
  X(PT_M_CGROUP_PRESSURE_MEMORY_SOME_SECONDS, "cgroup_pressure_memory_some_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_MEMORY_SOME_US), 0, BY_CGROUP, "memory.pressure some total", "time some of the cgroups' tasks stalled on memory (reclaim, swap-in, refaults)") \
  X(PT_M_CGROUP_PRESSURE_MEMORY_FULL_SECONDS, "cgroup_pressure_memory_full_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_MEMORY_FULL_US), 0, BY_CGROUP, "memory.pressure full total", "time all of the cgroups' non-idle tasks stalled on memory at once") \
  X(PT_M_CGROUP_PRESSURE_IO_SOME_SECONDS, "cgroup_pressure_io_some_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_IO_SOME_US), 0, BY_CGROUP, "io.pressure some total", "time some of the cgroups' tasks waited for I/O") \
  X(PT_M_CGROUP_PRESSURE_IO_FULL_SECONDS, "cgroup_pressure_io_full_seconds", PROC, DELTA, SECONDS, "duration", PT_CG(PT_CGQ_IO_FULL_US), 0, BY_CGROUP, "io.pressure full total", "time all of the cgroups' non-idle tasks waited for I/O at once") \
  X(PT_M_CGROUP_MEMORY_CURRENT_MIN, "cgroup_memory_current_min", PROC, GAUGE_MIN, PROC_MEMORY, "memory", PT_CG(PT_CGQ_MEMORY_CURRENT), 0, BY_CGROUP, "memory.current (v1: memory.usage_in_bytes)", "memory charged to the cgroups (anonymous, page cache, kernel), lowest at a poll") \
  X(PT_M_CGROUP_MEMORY_CURRENT_MAX, "cgroup_memory_current_max", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_CG(PT_CGQ_MEMORY_CURRENT), 0, BY_CGROUP, "memory.current (v1: memory.usage_in_bytes)", "memory charged to the cgroups (anonymous, page cache, kernel), highest at a poll") \
  X(PT_M_CGROUP_MEMORY_PEAK, "cgroup_memory_peak", PROC, GAUGE_MAX, PROC_MEMORY, "memory", PT_CG(PT_CGQ_MEMORY_PEAK), 0, BY_CGROUP, "memory.peak, reset per descriptor (Linux >= 6.12)", "the exact highest memory charged to the cgroups in the interval, however short the spike") \
  X(PT_M_CGROUP_MEMORY_PEAK_LIFETIME, "cgroup_memory_peak_lifetime", PROC, COUNT, PROC_MEMORY, "memory", PT_CG(PT_CGQ_MEMORY_PEAK_LIFETIME), 0, BY_CGROUP, "memory.peak (v1: memory.max_usage_in_bytes)", "the highest memory charged to the cgroups since they were made, where the kernel cannot give the interval's") \
  X(PT_M_CGROUP_MEMORY_OOMS, "cgroup_memory_ooms", PROC, DELTA, NUMBER, "count", PT_CG(PT_CGQ_OOMS), 0, BY_CGROUP, "memory.events oom", "times the cgroups reached their memory limit and the OOM killer was invoked") \
  X(PT_M_CGROUP_MEMORY_OOM_KILLS, "cgroup_memory_oom_kills", PROC, DELTA, NUMBER, "count", PT_CG(PT_CGQ_OOM_KILLS), 0, BY_CGROUP, "memory.events oom_kill (v1: memory.oom_control oom_kill)", "processes of the cgroups killed by the OOM killer") \
  X(PT_M_CGROUP_MEMORY_HIGH_EVENTS, "cgroup_memory_high_events", PROC, DELTA, NUMBER, "count", PT_CG(PT_CGQ_HIGH_EVENTS), 0, BY_CGROUP, "memory.events high", "times the cgroups' usage went over memory.high and was throttled") \
  X(PT_M_CGROUP_MEMORY_MAX_EVENTS, "cgroup_memory_max_events", PROC, DELTA, NUMBER, "count", PT_CG(PT_CGQ_MAX_EVENTS), 0, BY_CGROUP, "memory.events max", "times the cgroups' usage was about to go over memory.max") \
  X(PT_M_CGROUP_PIDS, "cgroup_pids", PROC, COUNT, NUMBER, "count", PT_CG(PT_CGQ_PIDS), 0, BY_CGROUP, "pids.current", "tasks (threads) in the cgroups (pids controller)") \
  X(PT_M_CGROUP_IO_READ_BYTES, "cgroup_io_read_bytes", PROC, DELTA, BYTES, "bytes", PT_CG(PT_CGQ_IO_READ_BYTES), 0, BY_CGROUP, "io.stat rbytes (v1: blkio.throttle.io_service_bytes Read)", "bytes the cgroups read from block devices, summed over the devices; absent on cgroup v1 where the kernel counts none (no disk with a blkio.throttle limit, Linux >= 6.10)") \
  X(PT_M_CGROUP_IO_WRITE_BYTES, "cgroup_io_write_bytes", PROC, DELTA, BYTES, "bytes", PT_CG(PT_CGQ_IO_WRITE_BYTES), 0, BY_CGROUP, "io.stat wbytes (v1: blkio.throttle.io_service_bytes Write)", "bytes the cgroups wrote to block devices, summed over the devices; absent on cgroup v1 where the kernel counts none (no disk with a blkio.throttle limit, Linux >= 6.10)") \
  X(PT_M_NETNS_RECEIVED_BYTES, "netns_received_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NETNS_RECEIVED), PT_SHORT_MEMBERS, ONE, "PID/net/dev receive bytes, every interface but lo", "bytes the interfaces of the tree's network namespace received in the interval (frames as their drivers count them), summed over its interfaces but lo, when every live process of the tree is in one network namespace that is not proctree's (a container, unshare --net, ip netns exec): the namespace's whole traffic, the tree's own where nothing else lives there; absent otherwise (docs/METRICS.md, Network)") \
  X(PT_M_NETNS_SENT_BYTES, "netns_sent_bytes", PROC, DELTA, BYTES, "bytes", PT_AMOUNT(PT_A_NETNS_SENT), PT_SHORT_MEMBERS, ONE, "PID/net/dev transmit bytes, every interface but lo", "bytes the same interfaces sent in the interval; when and whose as netns_received_bytes") \
  X(PT_M_NETNS_RECEIVED_PACKETS, "netns_received_packets", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_NETNS_RECEIVED_PACKETS), PT_SHORT_MEMBERS, ONE, "PID/net/dev receive packets, every interface but lo", "packets the same interfaces received in the interval; when and whose as netns_received_bytes") \
  X(PT_M_NETNS_SENT_PACKETS, "netns_sent_packets", PROC, DELTA, NUMBER, "count", PT_AMOUNT(PT_A_NETNS_SENT_PACKETS), PT_SHORT_MEMBERS, ONE, "PID/net/dev transmit packets, every interface but lo", "packets the same interfaces sent in the interval; when and whose as netns_received_bytes") \
  X(PT_M_GLOBAL_MEM_USED_MIN, "global_mem_used_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo MemTotal-MemAvailable", "memory in use system-wide (as free(1) and Telegraf mem.used)") \
  X(PT_M_GLOBAL_MEM_USED_MAX, "global_mem_used_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo MemTotal-MemAvailable", "memory in use system-wide (as free(1) and Telegraf mem.used)") \
  X(PT_M_GLOBAL_CACHED_MIN, "global_cached_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo Cached", "page cache system-wide") \
  X(PT_M_GLOBAL_CACHED_MAX, "global_cached_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo Cached", "page cache system-wide") \
  X(PT_M_GLOBAL_ANON_MIN, "global_anon_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo AnonPages", "anonymous memory system-wide") \
  X(PT_M_GLOBAL_ANON_MAX, "global_anon_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo AnonPages", "anonymous memory system-wide") \
  X(PT_M_GLOBAL_SWAP_FREE_MIN, "global_swap_free_min", GLOBAL, GAUGE_MIN, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo SwapFree", "free swap space") \
  X(PT_M_GLOBAL_SWAP_FREE_MAX, "global_swap_free_max", GLOBAL, GAUGE_MAX, GLOBAL_MEMORY, "memory", PT_MEMINFO, 0, ONE, "meminfo SwapFree", "free swap space")
/* clang-format on */

enum pt_metric_id {
#define PT_X_ENUM(id, ...) id,
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
    enum pt_from from;
    int quantity;   /* the enum pt_gauge, pt_counter, pt_amount or pt_cgq it is set from, else 0 */
    unsigned reads; /* enum pt_short bits */
    enum pt_lines lines;
    const char *source;
    const char *description;
};

extern const struct pt_metric_def pt_catalog[PT_METRIC_COUNT];

/* Whether metric id is written on a line of scope line (PROC: a target's
 * or a breakdown group's; GLOBAL): its own scope's, or every line's. */
bool pt_catalog_metric_on(enum pt_metric_id id, enum pt_scope line);

#endif
