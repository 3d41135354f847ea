/* taskiter.bpf: the task iterator proctree reads its members' counters
 * through, one record (taskrec.h) per task whose thread group is in the
 * members map. Built with clang against the running kernel's BTF (CO-RE:
 * libbpf moves each field access to where the target kernel has it).
 *
 * It only reads: nothing it is given but the members map's pids decides
 * what it touches, and what it writes goes to the reader's seq file. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "bpf/taskrec.h"

/* Both licences of the project's choice: the kernel lets a program whose
 * licence is GPL-compatible use the helpers a task iterator needs. */
char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* tgid -> how many targets follow it (the reader's count, not read here) */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PT_TASKREC_MEMBERS_MAX);
    __type(key, __u32);
    __type(value, __u32);
} members SEC(".maps");

static __always_inline void copy_io(pt_rec_u64 out[PT_TR_IO_COUNT], const struct task_io_accounting *io)
{
    out[PT_TR_RCHAR] = BPF_CORE_READ(io, rchar);
    out[PT_TR_WCHAR] = BPF_CORE_READ(io, wchar);
    out[PT_TR_SYSCR] = BPF_CORE_READ(io, syscr);
    out[PT_TR_SYSCW] = BPF_CORE_READ(io, syscw);
    out[PT_TR_READ_BYTES] = BPF_CORE_READ(io, read_bytes);
    out[PT_TR_WRITE_BYTES] = BPF_CORE_READ(io, write_bytes);
    out[PT_TR_CANCELLED_WRITE_BYTES] = BPF_CORE_READ(io, cancelled_write_bytes);
}

static __always_inline void read_group(struct pt_taskrec_group *g, struct task_struct *task)
{
    struct signal_struct *sig = BPF_CORE_READ(task, signal);
    struct mm_struct *mm = BPF_CORE_READ(task, mm);
    g->utime = BPF_CORE_READ(sig, utime);
    g->stime = BPF_CORE_READ(sig, stime);
    g->sum_sched_runtime = BPF_CORE_READ(sig, sum_sched_runtime);
    g->cutime = BPF_CORE_READ(sig, cutime);
    g->cstime = BPF_CORE_READ(sig, cstime);
    g->min_flt = BPF_CORE_READ(sig, min_flt);
    g->maj_flt = BPF_CORE_READ(sig, maj_flt);
    g->cmin_flt = BPF_CORE_READ(sig, cmin_flt);
    g->cmaj_flt = BPF_CORE_READ(sig, cmaj_flt);
    g->nvcsw = BPF_CORE_READ(sig, nvcsw);
    g->nivcsw = BPF_CORE_READ(sig, nivcsw);
    g->prev_utime = BPF_CORE_READ(sig, prev_cputime.utime);
    g->prev_stime = BPF_CORE_READ(sig, prev_cputime.stime);
    g->nr_threads = (pt_rec_u64)BPF_CORE_READ(sig, nr_threads);
    copy_io(g->io, &sig->ioac);
    g->real_parent = (pt_rec_u64)BPF_CORE_READ(task, real_parent, tgid);
    if (mm) {
        g->total_vm = BPF_CORE_READ(mm, total_vm);
        for (int i = 0; i < 4; i++)
            g->rss_shared[i] = (pt_rec_u64)BPF_CORE_READ(mm, rss_stat[i].count);
    }
}

SEC("iter/task")
int pt_task(struct bpf_iter__task *ctx)
{
    struct seq_file *seq = ctx->meta->seq;
    struct task_struct *task = ctx->task;
    if (!task)
        return 0;
    __u32 tgid = BPF_CORE_READ(task, tgid);
    if (!bpf_map_lookup_elem(&members, &tgid))
        return 0;
    struct pt_taskrec r;
    __builtin_memset(&r, 0, sizeof(r));
    r.pid = (pt_rec_u32)BPF_CORE_READ(task, pid);
    r.tgid = tgid;
    r.utime = BPF_CORE_READ(task, utime);
    r.stime = BPF_CORE_READ(task, stime);
    r.sum_exec_runtime = BPF_CORE_READ(task, se.sum_exec_runtime);
    r.min_flt = BPF_CORE_READ(task, min_flt);
    r.maj_flt = BPF_CORE_READ(task, maj_flt);
    r.nvcsw = BPF_CORE_READ(task, nvcsw);
    r.nivcsw = BPF_CORE_READ(task, nivcsw);
    r.run_delay = BPF_CORE_READ(task, sched_info.run_delay);
    r.pcount = BPF_CORE_READ(task, sched_info.pcount);
    r.blkio_delay = BPF_CORE_READ(task, delays, blkio_delay);
    r.start_boottime = BPF_CORE_READ(task, start_boottime);
    copy_io(r.io, &task->ioac);
    r.state = BPF_CORE_READ(task, __state);
    r.exit_state = (pt_rec_u32)BPF_CORE_READ(task, exit_state);
    r.flags = BPF_CORE_READ(task, flags);
    BPF_CORE_READ_STR_INTO(&r.comm, task, comm);
    r.leader = r.pid == tgid;
    if (r.leader)
        read_group(&r.group, task);
    bpf_seq_write(seq, &r, sizeof(r));
    return 0;
}
