/* taskrec: the records the task iterator writes, shared by the BPF
 * program (taskiter.bpf.c) and its reader (taskiter.c).
 *
 * Raw kernel fields only, in the kernel's units (nanoseconds, pages, the
 * state bits): the arithmetic procfs does on them (thread sums, the
 * adjusted CPU split, tick conversions, the state letter) is taskfold's,
 * in user space, where it can be tested and where 128-bit products are
 * at hand. A pass is of one mode: at a poll (PT_TR_MODE_STATM) one
 * struct pt_taskrec_statm per member, its memory; at the interval's end
 * (PT_TR_MODE_FULL) one struct pt_taskrec per task of each member (kind
 * PT_TR_TASK) and, after its leader's, one of the group (kind
 * PT_TR_GROUP: the leader's own fields again, what its signal_struct
 * holds for the whole group, and its mm's sizes). The group's TCP
 * sockets, one struct pt_taskrec_sock each, go to the program's array of
 * socket records, not to the stream: the group record says where they
 * begin and how many. Records come in the iterator's order, by tid, so a
 * group's tasks are not adjacent.
 *
 * The layouts are fixed (64-bit words, then 32-bit ones, no padding), so
 * that both compilers agree on them. */
#ifndef PROCTREE_TASKREC_H
#define PROCTREE_TASKREC_H

#ifdef __bpf__
typedef __u64 pt_rec_u64;
typedef __u32 pt_rec_u32;
#else
#include <stdint.h>
typedef uint64_t pt_rec_u64;
typedef uint32_t pt_rec_u32;
#endif

/* The members map's words: a bit for every pid up to PID_MAX_LIMIT
 * (4,194,304, the kernel's bound of pid_max on 64-bit). */
#define PT_TASKREC_PID_WORDS 65536

/* The members as a list too, for a poll that looks each up by its pid
 * (pt_statm) instead of walking the host's tasks: at most this many are
 * listed (the rest are read from their files), and one read of the
 * iterator writes at most PT_TASKREC_STATM_CHUNK records, which fill
 * under the 32 KiB a seq_file object may take (448 x 72 bytes: 32,256). */
#define PT_TASKREC_LIST_MAX 65536
#define PT_TASKREC_STATM_CHUNK 448
/* A list entry is a tgid (PT_TASKREC_LIST_PID: PID_MAX_LIMIT fits) and a
 * flag: PT_TASKREC_LIST_FDS asks the poll to count its descriptors too
 * (struct pt_taskrec_statm's fds), which costs a poll a load or two of
 * its descriptor table: asked for the members whose sockets a target
 * follows alone. */
#define PT_TASKREC_LIST_PID 0x7fffffffu
#define PT_TASKREC_LIST_FDS 0x80000000u

/* The largest fd table whose open descriptors a group's record counts, in
 * 64-bit words of its open_fds bitmap (65,536 descriptors). */
#define PT_TASKREC_FD_WORDS 1024

/* The most TCP sockets one pass lists, every group's together: the
 * entries of the program's array of socket records (56 bytes each:
 * 3.5 MiB, which the reader maps), the most one target follows
 * (tcpbytes.h's PT_TCPBYTES_MAX). A group past it is cut. */
#define PT_TASKREC_SOCKS_MAX 65536

/* A task's task_io_accounting, in its order. */
enum pt_taskrec_io {
    PT_TR_RCHAR,
    PT_TR_WCHAR,
    PT_TR_SYSCR,
    PT_TR_SYSCW,
    PT_TR_READ_BYTES,
    PT_TR_WRITE_BYTES,
    PT_TR_CANCELLED_WRITE_BYTES,
    PT_TR_IO_COUNT
};

enum pt_taskrec_kind {
    PT_TR_TASK = 1,
    PT_TR_GROUP = 2,
    PT_TR_STATM = 3,
    PT_TR_ALIVE = 4,
    PT_TR_CHILD = 5,
    PT_TR_SOCKET = 6
};
enum pt_taskrec_mode { PT_TR_MODE_FULL, PT_TR_MODE_STATM, PT_TR_MODE_CHILDREN };

/* A discovery's record (PT_TR_MODE_CHILDREN): a member's leader that is
 * there (PT_TR_ALIVE, pid its tgid), or a process whose real parent is a
 * thread of a member (PT_TR_CHILD, pid its tgid, parent the member's):
 * what the member's task/TID/children files list. */
struct pt_taskrec_child {
    pt_rec_u32 kind;
    pt_rec_u32 pid;
    pt_rec_u32 parent;
    pt_rec_u32 zero;
};

/* An mm's sizes as statm counts them: total_vm, and mm->rss_stat[i]
 * (MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES) summed over
 * every possible CPU's part (percpu_counter_sum_positive), in pages;
 * has_rss when every CPU's part could be read. All 0 without an mm (a
 * zombie, a kernel thread). */
struct pt_taskrec_mm {
    pt_rec_u64 total_vm;
    pt_rec_u64 rss[4];
    pt_rec_u64 has_rss;
};

/* A poll's record of one member: its leader's memory, and, for a member
 * listed with PT_TASKREC_LIST_FDS, its open descriptors counted as a
 * group record counts them (fds, when has_fds), so that a poll learns
 * whether they changed without a stat of its fd/. */
struct pt_taskrec_statm {
    pt_rec_u64 start_boottime; /* ns: with tgid, the identity */
    struct pt_taskrec_mm mm;
    pt_rec_u32 kind; /* PT_TR_STATM */
    pt_rec_u32 tgid;
    pt_rec_u32 fds; /* at most PT_TASKREC_FD_WORDS x 64 */
    pt_rec_u32 has_fds;
};

/* What the leader's signal_struct holds for the group: what its exited
 * threads did (folded in at their exit) and what its reaped children did. */
struct pt_taskrec_group {
    pt_rec_u64 utime, stime, sum_sched_runtime; /* ns: exited threads' */
    pt_rec_u64 cutime, cstime;                  /* ns: reaped children's */
    pt_rec_u64 min_flt, maj_flt, cmin_flt, cmaj_flt;
    pt_rec_u64 nvcsw, nivcsw;
    pt_rec_u64 prev_utime, prev_stime; /* the adjusted split procfs showed last (prev_cputime) */
    pt_rec_u64 io[PT_TR_IO_COUNT];
    pt_rec_u64 nr_threads;  /* signal->nr_threads */
    pt_rec_u64 real_parent; /* its real parent's tgid */
    struct pt_taskrec_mm mm;
    /* its open descriptors, as the size of its fd/ directory counts them
     * (the bits set in its fd table's open_fds, up to max_fds; 0 without a
     * table), when has_fds: a table over PT_TASKREC_FD_WORDS words is left
     * to the directory */
    pt_rec_u64 fds;
    pt_rec_u64 has_fds;
    /* its TCP sockets among those descriptors: the socket records
     * [sockets_first, sockets_first + sockets) of the array;
     * sockets_cut when some may be missing (the array full, a table the
     * walk does not take, a descriptor that could not be read) */
    pt_rec_u64 sockets_first;
    pt_rec_u64 sockets;
    pt_rec_u64 sockets_cut;
    /* the sockets of any kind among those descriptors (TCP, UDP, unix:
     * what fd/'s socket:[INODE] links show), when !sockets_cut; and the
     * inode of its network namespace (ns/net's net:[INODE]), 0 without
     * one (exiting) */
    pt_rec_u64 sockets_any;
    pt_rec_u64 netns;
};

/* A TCP socket (IPPROTO_TCP, SOCK_STREAM; AF_INET or AF_INET6) open at a
 * descriptor of a group's leader, as the kernel holds it. */
struct pt_taskrec_sock {
    pt_rec_u64 inode;          /* the socket's: /proc/PID/fd/N is socket:[inode] */
    pt_rec_u64 cookie;         /* sk_cookie: sock_diag's; 0 when none was ever asked for */
    pt_rec_u64 bytes_acked;    /* tcp_sock's: TCP_INFO's tcpi_bytes_acked */
    pt_rec_u64 bytes_received; /* tcpi_bytes_received */
    pt_rec_u32 kind;           /* PT_TR_SOCKET */
    pt_rec_u32 tgid;
    pt_rec_u32 fd;
    pt_rec_u32 family; /* AF_INET, AF_INET6 */
    pt_rec_u32 state;  /* skc_state: TCP_ESTABLISHED, TCP_LISTEN, ... */
    pt_rec_u32 zero;
};

struct pt_taskrec {
    pt_rec_u64 utime, stime;     /* ns, this task's */
    pt_rec_u64 sum_exec_runtime; /* ns, se.sum_exec_runtime */
    pt_rec_u64 min_flt, maj_flt;
    pt_rec_u64 nvcsw, nivcsw;
    pt_rec_u64 run_delay, pcount; /* sched_info */
    pt_rec_u64 blkio_delay;       /* ns, delays->blkio_delay; 0 without delays */
    pt_rec_u64 start_boottime;    /* ns */
    pt_rec_u64 io[PT_TR_IO_COUNT];
    struct pt_taskrec_group group; /* kind PT_TR_GROUP only */
    pt_rec_u32 kind;               /* enum pt_taskrec_kind */
    pt_rec_u32 pid, tgid;          /* a group's: its leader's pid */
    pt_rec_u32 state, exit_state;  /* __state and exit_state's bits */
    pt_rec_u32 flags;              /* PF_* */
    char comm[16];
};

#endif
