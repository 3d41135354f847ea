/* taskiter.bpf: the task iterator proctree reads its members through. It
 * visits every task of the host and writes records (taskrec.h) for those
 * whose thread group is in the members map: at a poll (mode
 * PT_TR_MODE_STATM) one small record of each member's memory, from its
 * leader; at the interval's end (PT_TR_MODE_FULL) one per task of each
 * member and one of each group; at a discovery (PT_TR_MODE_CHILDREN) one
 * per member there and one per process whose parent is a member. A poll
 * goes by pt_statm instead where the kernel has bpf_task_from_pid: one
 * visit that looks each listed member up by its pid. Built with clang
 * against the kernel's BTF (CO-RE: libbpf moves each field access to where
 * the running kernel has it).
 *
 * Every visit is one object of the kernel's seq_file, whose buffer holds
 * 32 KiB: a walk's visit writes at most two records, pt_statm's at most
 * PT_TASKREC_STATM_CHUNK records, so none outgrows it; a group's sockets
 * go to an array the reader maps (tasksockets.bpf.h), however many.
 *
 * It only reads: nothing it is given but the members map's pids decides
 * what it touches, and what it writes goes to the reader's seq file. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "bpf/taskrec.h"

/* Both licences of the project's choice: the kernel lets a program whose
 * licence is GPL-compatible use the helpers and kfuncs it needs. */
char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* The numeric iterator of the kernel's (a kfunc, Linux >= 6.4): a loop the
 * verifier need not unroll. */
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;
/* A kernel address as a type of the kernel's BTF, to read (Linux >= 6.2):
 * each field is then a plain load the verifier guards (0 at a bad
 * address), where bpf_probe_read_kernel would be a call per field. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
/* A task by its pid in the host's namespace, with a reference (Linux >= 6.2). */
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* Set by the reader before the load: the possible CPUs, whose parts of
 * each per-CPU counter statm sums. */
const volatile __u32 nr_cpus = 1;
#define PT_CPUS_MAX 1024

/* Set by the reader before each pass: enum pt_taskrec_mode. */
__u32 mode;
/* Set by the reader where no target follows TCP sockets: a FULL pass
 * lists none (each group's are then cut: not listed). */
__u32 skip_sockets;
/* The tasks the pass visited, the host's: zeroed by the reader. */
__u64 visits;

/* The members: bit tgid % 64 of word tgid / 64, set and cleared by the
 * reader. An array's lookup is a few instructions the verifier inlines,
 * where a hash's is a call: every task of the host is looked up. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, PT_TASKREC_PID_WORDS);
    __type(key, __u32);
    __type(value, __u64);
} members SEC(".maps");

/* The members again, as a list the reader keeps dense (list[0, list_end)
 * in any order), and the part of it one read of pt_statm covers. */
__u32 list[PT_TASKREC_LIST_MAX];
__u32 list_first, list_end;

static __always_inline bool is_member(__u32 tgid)
{
    __u32 word = tgid / 64;
    __u64 *bits = bpf_map_lookup_elem(&members, &word);
    return bits && (*bits >> (tgid % 64)) & 1;
}

/* A record is built here, not on the program's 512-byte stack. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct pt_taskrec);
} scratch SEC(".maps");

/* Where each CPU's part of a per-CPU variable lies: a per-CPU array's one
 * element, whose address on each CPU less its per-CPU pointer is that
 * CPU's offset (this kernel's BTF tags no per-CPU pointer, and its
 * kallsyms hold no per-CPU symbol, so neither bpf_per_cpu_ptr on the
 * counters nor __per_cpu_offset can be had). */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} probe SEC(".maps");

/* Fields are read by plain access (vmlinux.h makes each a CO-RE
 * relocation): the verifier knows the task and what it points to by
 * their BTF types and turns each load into a guarded one, with no helper
 * call; a NULL pointer reads 0. */
static __always_inline void copy_io(pt_rec_u64 out[PT_TR_IO_COUNT], const struct task_io_accounting *io)
{
    out[PT_TR_RCHAR] = io->rchar;
    out[PT_TR_WCHAR] = io->wchar;
    out[PT_TR_SYSCR] = io->syscr;
    out[PT_TR_SYSCW] = io->syscw;
    out[PT_TR_READ_BYTES] = io->read_bytes;
    out[PT_TR_WRITE_BYTES] = io->write_bytes;
    out[PT_TR_CANCELLED_WRITE_BYTES] = io->cancelled_write_bytes;
}

/* The address of the probe map's per-CPU data (its pptrs[0]): the
 * verifier sees the map as a map, so its address is read as a number. */
static __always_inline __u64 probe_base(void)
{
    __u64 map = 0, base = 0;
    void *volatile at = &probe;
    bpf_probe_read_kernel(&map, sizeof(map), (void *)&at);
    bpf_probe_read_kernel(&base, sizeof(base), (void *)(map + bpf_core_field_offset(struct bpf_array, pptrs)));
    return base;
}

/* Each CPU's per-CPU offset, found once (they hold for the kernel's life):
 * known when offsets_known is 1, each_cpu of them. */
__u64 cpu_offset[PT_CPUS_MAX];
__u32 offsets_known, offsets_count;

static __always_inline bool find_offsets(void)
{
    if (offsets_known)
        return true;
    __u64 base = probe_base();
    struct bpf_iter_num cpus;
    int *cpu;
    __u32 zero = 0, n = 0;
    bool ok = true;
    bpf_iter_num_new(&cpus, 0, nr_cpus < PT_CPUS_MAX ? (int)nr_cpus : PT_CPUS_MAX);
    while ((cpu = bpf_iter_num_next(&cpus))) {
        void *mine = bpf_map_lookup_percpu_elem(&probe, &zero, (__u32)*cpu);
        __u32 i = (__u32)*cpu;
        if (!mine || i >= PT_CPUS_MAX) {
            ok = false;
            break;
        }
        __u64 at = 0;
        void *volatile p = mine;
        bpf_probe_read_kernel(&at, sizeof(at), (void *)&p);
        cpu_offset[i] = at - base;
        n = i + 1;
    }
    bpf_iter_num_destroy(&cpus);
    if (ok) {
        offsets_count = n;
        offsets_known = 1;
    }
    return ok;
}

/* The four counters' per-CPU parts, added to sum: a global function, which
 * the verifier checks once, not once a loop that calls it (a poll's loop
 * over the members around this one over the CPUs took it a quarter of a
 * second). counters holds the parts' addresses (plain numbers: they are
 * read with bpf_probe_read_kernel); ok is cleared where a part could not
 * be read. */
struct pt_rss_parts {
    __s64 sum[4];
    __u64 counters[4];
    __u32 adjacent;
    __u32 ok;
};

__noinline int pt_add_cpu_parts(struct pt_rss_parts *p)
{
    if (!p)
        return 0;
    struct bpf_iter_num cpus;
    int *cpu;
    bpf_iter_num_new(&cpus, 0, p->ok ? (int)offsets_count : 0);
    while ((cpu = bpf_iter_num_next(&cpus))) {
        __u32 c = (__u32)*cpu;
        if (c >= PT_CPUS_MAX)
            break;
        __u64 offset = cpu_offset[c];
        __s32 v[4] = {0, 0, 0, 0};
        if (p->adjacent) {
            if (bpf_probe_read_kernel(v, sizeof(v), (void *)(p->counters[0] + offset)) != 0)
                p->ok = 0;
        } else {
            for (int i = 0; i < 4; i++)
                if (bpf_probe_read_kernel(&v[i], sizeof(v[i]), (void *)(p->counters[i] + offset)) != 0)
                    p->ok = 0;
        }
        for (int i = 0; i < 4; i++)
            p->sum[i] += v[i];
    }
    bpf_iter_num_destroy(&cpus);
    return 0;
}

/* statm's counts: each mm counter's shared count plus every CPU's part,
 * as percpu_counter_sum_positive sums them (offline CPUs' parts are 0).
 * The four counters' parts lie side by side (percpu_counter_init_many
 * allocates them as one, Linux >= 6.6): one read a CPU then, four where
 * they do not. The CPUs' offsets are found before (find_offsets). */
static __always_inline void read_rss(struct pt_taskrec_mm *out, struct mm_struct *mm)
{
    out->total_vm = 0;
    out->has_rss = 1; /* no mm (a zombie, a kernel thread): statm is all 0 */
    for (int i = 0; i < 4; i++)
        out->rss[i] = 0;
    if (!mm)
        return;
    out->total_vm = mm->total_vm;
    struct pt_rss_parts p;
    for (int i = 0; i < 4; i++) {
        p.sum[i] = mm->rss_stat[i].count;
        p.counters[i] = (__u64)mm->rss_stat[i].counters;
    }
    p.adjacent = 1;
    for (int i = 1; i < 4; i++)
        p.adjacent = p.adjacent && p.counters[i] == p.counters[0] + (__u64)i * sizeof(__s32);
    p.ok = offsets_known;
    pt_add_cpu_parts(&p);
    for (int i = 0; i < 4; i++)
        out->rss[i] = p.sum[i] < 0 ? 0 : (pt_rec_u64)p.sum[i];
    out->has_rss = p.ok;
}

static __always_inline void read_task(struct pt_taskrec *r, struct task_struct *task)
{
    r->kind = PT_TR_TASK;
    r->pid = (pt_rec_u32)task->pid;
    r->tgid = (pt_rec_u32)task->tgid;
    r->utime = task->utime;
    r->stime = task->stime;
    r->sum_exec_runtime = task->se.sum_exec_runtime;
    r->min_flt = task->min_flt;
    r->maj_flt = task->maj_flt;
    r->nvcsw = task->nvcsw;
    r->nivcsw = task->nivcsw;
    r->run_delay = task->sched_info.run_delay;
    r->pcount = task->sched_info.pcount;
    struct task_delay_info *delays = task->delays;
    r->blkio_delay = delays ? delays->blkio_delay : 0;
    r->start_boottime = task->start_boottime;
    copy_io(r->io, &task->ioac);
    r->state = task->__state;
    r->exit_state = (pt_rec_u32)task->exit_state;
    r->flags = task->flags;
    bpf_probe_read_kernel(r->comm, sizeof(r->comm), task->comm);
}

/* The open descriptors, as proc_readfd_count counts them for the size of
 * fd/: the bits of open_fds up to max_fds (a multiple of 64); 0 where the
 * task has no table (a zombie). The first word by a plain load (the
 * table's own, inside files_struct, for the 64 descriptors most processes
 * never pass), each further one by a read: a loop of reads costs a poll
 * about three times what the first word's load does. Read without the
 * task's lock, as the rest of the record is, under the RCU that frees a
 * table replaced. False where they cannot be counted (a table over
 * PT_TASKREC_FD_WORDS words, a word unread): the directory says then. */
static __always_inline bool count_fds(__u64 *out, struct task_struct *leader)
{
    *out = 0;
    struct files_struct *files = leader->files;
    if (!files)
        return true;
    struct fdtable *fdt = files->fdt;
    __u32 words = fdt->max_fds / 64;
    unsigned long *bits = fdt->open_fds;
    if (!bits || words == 0 || words > PT_TASKREC_FD_WORDS)
        return false;
    __u64 n = __builtin_popcountll(bits[0]);
    bool ok = true;
    if (words > 1) {
        struct bpf_iter_num each;
        int *i;
        bpf_iter_num_new(&each, 1, (int)words);
        while ((i = bpf_iter_num_next(&each))) {
            __u64 word = 0;
            if (bpf_probe_read_kernel(&word, sizeof(word), (void *)((__u64)bits + (__u64)(__u32)*i * 8)) != 0) {
                ok = false;
                break;
            }
            n += __builtin_popcountll(word);
        }
        bpf_iter_num_destroy(&each);
    }
    *out = ok ? n : 0;
    return ok;
}

#include "bpf/tasksockets.bpf.h"

/* The group's record, read at its leader's visit (after its own task's),
 * and its sockets' into the array. */
static __always_inline void read_group(struct pt_taskrec *r, struct task_struct *leader)
{
    struct pt_taskrec_group *g = &r->group;
    struct signal_struct *sig = leader->signal;
    r->kind = PT_TR_GROUP;
    g->utime = sig->utime;
    g->stime = sig->stime;
    g->sum_sched_runtime = sig->sum_sched_runtime;
    g->cutime = sig->cutime;
    g->cstime = sig->cstime;
    g->min_flt = sig->min_flt;
    g->maj_flt = sig->maj_flt;
    g->cmin_flt = sig->cmin_flt;
    g->cmaj_flt = sig->cmaj_flt;
    g->nvcsw = sig->nvcsw;
    g->nivcsw = sig->nivcsw;
    g->prev_utime = sig->prev_cputime.utime;
    g->prev_stime = sig->prev_cputime.stime;
    g->nr_threads = (pt_rec_u64)sig->nr_threads;
    copy_io(g->io, &sig->ioac);
    g->real_parent = (pt_rec_u64)leader->real_parent->tgid;
    read_rss(&g->mm, leader->mm);
    g->has_fds = count_fds(&g->fds, leader);
    if (skip_sockets) {
        g->sockets_first = socks_used;
        g->sockets = 0;
        g->sockets_cut = 1;
        g->sockets_any = 0;
    } else {
        read_sockets(g, leader);
    }
    struct nsproxy *ns = leader->nsproxy;
    g->netns = ns && ns->net_ns ? ns->net_ns->ns.inum : 0;
}

/* A poll's record of task's group; its descriptors counted when fds (a
 * member whose sockets a target follows: taskrec.h's PT_TASKREC_LIST_FDS). */
static __always_inline void write_statm(struct seq_file *seq, struct task_struct *task, bool fds)
{
    struct pt_taskrec_statm s;
    __builtin_memset(&s, 0, sizeof(s));
    s.kind = PT_TR_STATM;
    s.tgid = task->tgid;
    s.start_boottime = task->start_boottime;
    read_rss(&s.mm, task->mm);
    __u64 n = 0;
    s.has_fds = fds && count_fds(&n, task);
    s.fds = (__u32)n;
    bpf_seq_write(seq, &s, sizeof(s));
}

/* A poll by the list: attached to visit one task (the reader's), it looks
 * each listed member up by its pid, so that a poll costs what the members
 * are, not what the host runs. The record is the walk's (PT_TR_MODE_STATM),
 * of the leader: a member's pid is its leader's, whose task stays until the
 * whole group is reaped. A pid since taken by a thread of another group is
 * no member's and is passed over. */
SEC("iter/task")
int pt_statm(struct bpf_iter__task *ctx)
{
    struct seq_file *seq = ctx->meta->seq;
    if (!ctx->task)
        return 0;
    find_offsets();
    __u32 first = list_first, end = list_end;
    if (end > PT_TASKREC_LIST_MAX)
        end = PT_TASKREC_LIST_MAX;
    if (first > end)
        first = end;
    if (end - first > PT_TASKREC_STATM_CHUNK)
        end = first + PT_TASKREC_STATM_CHUNK;
    struct bpf_iter_num each;
    int *i;
    bpf_iter_num_new(&each, (int)first, (int)end);
    while ((i = bpf_iter_num_next(&each))) {
        __u32 k = (__u32)*i;
        if (k >= PT_TASKREC_LIST_MAX)
            break;
        __u32 tgid = list[k] & PT_TASKREC_LIST_PID;
        struct task_struct *task = bpf_task_from_pid((s32)tgid);
        if (!task)
            continue;
        if (task->tgid == tgid)
            write_statm(seq, task, list[k] & PT_TASKREC_LIST_FDS);
        bpf_task_release(task);
    }
    bpf_iter_num_destroy(&each);
    return 0;
}

SEC("iter/task")
int pt_task(struct bpf_iter__task *ctx)
{
    struct seq_file *seq = ctx->meta->seq;
    struct task_struct *task = ctx->task;
    if (!task)
        return 0;
    visits++;
    __u32 tgid = task->tgid, pid = task->pid;
    if (mode != PT_TR_MODE_FULL && pid != tgid)
        return 0; /* a poll and a discovery read the leaders alone */
    if (mode == PT_TR_MODE_CHILDREN) {
        struct pt_taskrec_child c = {.kind = PT_TR_ALIVE, .pid = tgid};
        if (is_member(tgid))
            bpf_seq_write(seq, &c, sizeof(c));
        __u32 parent = task->real_parent->tgid;
        if (parent != tgid && is_member(parent)) {
            c.kind = PT_TR_CHILD;
            c.parent = parent;
            bpf_seq_write(seq, &c, sizeof(c));
        }
        return 0;
    }
    if (!is_member(tgid))
        return 0;
    find_offsets(); /* before the first record's memory */
    if (mode == PT_TR_MODE_STATM) {
        write_statm(seq, task, false); /* the walk's: a holder's fd/ tells */
        return 0;
    }
    __u32 zero = 0;
    struct pt_taskrec *r = bpf_map_lookup_elem(&scratch, &zero);
    if (!r)
        return 0;
    read_task(r, task);
    bpf_seq_write(seq, r, sizeof(*r));
    if (pid == tgid) {
        read_group(r, task);
        bpf_seq_write(seq, r, sizeof(*r));
    }
    return 0;
}
