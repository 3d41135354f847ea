/* Unit tests for the BPF source: taskfold's arithmetic against the
 * kernel's (cputime_adjust, the state letters, ticks), and, side by side
 * for the same moment, every field the task iterator's records fold into
 * against what the same processes' /proc files say: a still tree of 1,000
 * processes and a busy one (threads, CPU, I/O, faults, reaped children),
 * stopped so that both reads see one moment; a poll by the members' list
 * as the membership changes.
 *
 * The side-by-side cases need the program loaded: as root on a build with
 * the BPF source and a kernel with BTF they must load (CI); elsewhere they
 * say why and pass without comparing. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/taskfold.h"
#include "bpf/taskiter.h"
#include "procfs/kvparse.h"
#include "procfs/procfile.h"
#include "proctree/buf.h"
#include "unit.h"

/* ---- the arithmetic -------------------------------------------------- */

START_TEST(test_cputime_adjust)
{
    struct pt_cputime prev = {0}, got;
    /* no ticks of system time: all of the run time is user time */
    got = pt_taskfold_cputime(30, 0, 1000, &prev);
    ck_assert_uint_eq(got.utime, 1000);
    ck_assert_uint_eq(got.stime, 0);
    /* the run time split in the ticks' ratio, truncated */
    prev = (struct pt_cputime){0};
    got = pt_taskfold_cputime(2, 1, 1000, &prev);
    ck_assert_uint_eq(got.stime, 333);
    ck_assert_uint_eq(got.utime, 667);
    /* neither side goes back: the ratio turns, stime stays */
    got = pt_taskfold_cputime(100, 1, 1100, &prev);
    ck_assert_uint_eq(got.stime, 333);
    ck_assert_uint_eq(got.utime, 767);
    /* no more run time than shown: the last split stands */
    got = pt_taskfold_cputime(5, 5, 1000, &prev);
    ck_assert_uint_eq(got.stime, 333);
    ck_assert_uint_eq(got.utime, 767);
    /* the product needs 128 bits */
    prev = (struct pt_cputime){0};
    got = pt_taskfold_cputime(UINT64_C(1) << 40, UINT64_C(1) << 40, UINT64_C(1) << 50, &prev);
    ck_assert_uint_eq(got.stime, UINT64_C(1) << 49);
    ck_assert_uint_eq(got.utime, UINT64_C(1) << 49);
}
END_TEST

START_TEST(test_state_letters)
{
    ck_assert_int_eq(pt_taskfold_state_letter(0x0, 0), 'R');
    ck_assert_int_eq(pt_taskfold_state_letter(0x1, 0), 'S');
    ck_assert_int_eq(pt_taskfold_state_letter(0x2, 0), 'D');
    ck_assert_int_eq(pt_taskfold_state_letter(0x402, 0), 'I');  /* TASK_IDLE */
    ck_assert_int_eq(pt_taskfold_state_letter(0x4, 0), 'T');    /* __TASK_STOPPED */
    ck_assert_int_eq(pt_taskfold_state_letter(0x8, 0), 't');    /* __TASK_TRACED */
    ck_assert_int_eq(pt_taskfold_state_letter(0x0, 0x20), 'Z'); /* EXIT_ZOMBIE */
    ck_assert_int_eq(pt_taskfold_state_letter(0x0, 0x10), 'X'); /* EXIT_DEAD */
    ck_assert_int_eq(pt_taskfold_state_letter(0x40, 0), 'P');   /* TASK_PARKED */
    ck_assert_int_eq(pt_taskfold_state_letter(0x1000, 0), 'D'); /* TASK_RTLOCK_WAIT */
    ck_assert_int_eq(pt_taskfold_state_letter(0x8000, 0), 'D'); /* TASK_FROZEN */
    ck_assert_int_eq(pt_taskfold_state_letter(0x100, 0), 'R');  /* TASK_WAKEKILL alone reports nothing */
    ck_assert_int_eq(pt_taskfold_state_letter(0x101, 0), 'S');
}
END_TEST

START_TEST(test_ticks)
{
    ck_assert_uint_eq(pt_taskfold_ticks(9999999, 100), 0);
    ck_assert_uint_eq(pt_taskfold_ticks(10000000, 100), 1);
    ck_assert_uint_eq(pt_taskfold_ticks(UINT64_C(123456789012), 100), 12345);
    ck_assert_uint_eq(pt_taskfold_ticks(1000000, 1000), 1);
}
END_TEST

/* ---- side by side ---------------------------------------------------- */

static struct pt_taskiter *load_or_say(void)
{
    char why[256] = "";
    struct pt_taskiter *it = pt_taskiter_open(-1, why, sizeof(why));
    bool must = geteuid() == 0 && pt_taskiter_built() && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
    if (!it && must)
        ck_abort_msg("root, a BPF build and BTF, yet the task iterator did not load: %s", why);
    if (!it)
        fprintf(stderr, "test_bpfsource: no side-by-side comparison here: %s\n", why);
    return it;
}

static ssize_t read_proc(pid_t pid, const char *file, struct pt_buf *buf)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
    ssize_t n = pt_procfs_pread_record(fd, buf);
    close(fd);
    ck_assert_msg(n > 0, "%s: nothing read", path);
    return n;
}

/* What memberthreads.c sums over a process's threads' files. */
static void thread_counts(pid_t pid, int64_t tc[PT_TC_COUNT], struct pt_buf *buf)
{
    memset(tc, 0, PT_TC_COUNT * sizeof(*tc));
    char dir[64];
    snprintf(dir, sizeof(dir), "%d/task", (int)pid);
    pid_t tids[64];
    int n = 0;
    char path[96];
    snprintf(path, sizeof(path), "/proc/%s", dir);
    FILE *ls = NULL;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "ls %s", path);
    ls = popen(cmd, "r");
    ck_assert_ptr_nonnull(ls);
    int tid;
    while (n < 64 && fscanf(ls, "%d", &tid) == 1)
        tids[n++] = tid;
    pclose(ls);
    for (int i = 0; i < n; i++) {
        char file[96];
        struct pt_status st;
        struct pt_schedstat ss;
        struct pt_stat s;
        snprintf(file, sizeof(file), "task/%d/status", (int)tids[i]);
        ssize_t len = read_proc(pid, file, buf);
        ck_assert_int_eq(pt_kvparse_status(buf->data, (size_t)len, &st), 0);
        tc[PT_TC_VOLUNTARY] += (int64_t)st.voluntary_ctxt_switches;
        tc[PT_TC_INVOLUNTARY] += (int64_t)st.nonvoluntary_ctxt_switches;
        snprintf(file, sizeof(file), "task/%d/schedstat", (int)tids[i]);
        len = read_proc(pid, file, buf);
        ck_assert_int_eq(pt_procfs_parse_schedstat(buf->data, (size_t)len, &ss), 0);
        tc[PT_TC_RUN_DELAY] += (int64_t)ss.run_delay_ns;
        snprintf(file, sizeof(file), "task/%d/stat", (int)tids[i]);
        len = read_proc(pid, file, buf);
        ck_assert_int_eq(pt_procfs_parse_stat_with_blkio(buf->data, (size_t)len, &s), 0);
        tc[PT_TC_BLKIO_DELAY] += (int64_t)s.blkio_ticks * (1000000000 / sysconf(_SC_CLK_TCK));
    }
}

#define SAME(field)                                                                                                    \
    ck_assert_msg(a->field == b->field, "pid %d: " #field " %lld by procfs, %lld by BPF", (int)pid,                    \
                  (long long)a->field, (long long)b->field)

/* What the busy tree must show, so that its comparison is no 0 == 0. */
static struct {
    uint64_t cpu, child_cpu, wchar, minflt, threads, switches, resident, fds;
} seen;

/* The size of pid's fd/: its open descriptors, as procfs counts them. */
static int64_t fd_dir_size(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
    struct stat ds;
    ck_assert_int_eq(stat(dir, &ds), 0);
    return (int64_t)ds.st_size;
}

/* Every field of pid's stat, io and threads' counts, both ways. */
static void compare(struct pt_taskiter *it, pid_t pid, struct pt_buf *buf)
{
    struct pt_cputime prev = {0};
    struct pt_taskfold f;
    ck_assert_msg(pt_taskfold_group(it, pid, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE), &prev, &f),
                  "pid %d: no record", (int)pid);
    struct pt_stat st;
    ssize_t n = read_proc(pid, "stat", buf);
    ck_assert_int_eq(pt_procfs_parse_stat_with_blkio(buf->data, (size_t)n, &st), 0);
    const struct pt_stat *a = &st, *b = &f.stat;
    ck_assert_str_eq(a->comm, b->comm);
    SAME(pid);
    SAME(state);
    SAME(ppid);
    SAME(flags);
    SAME(minflt);
    SAME(cminflt);
    SAME(majflt);
    SAME(cmajflt);
    SAME(utime);
    SAME(stime);
    SAME(cutime);
    SAME(cstime);
    SAME(num_threads);
    SAME(starttime);
    SAME(vsize);
    SAME(blkio_ticks);
    /* statm: the resident set too, each counter's per-CPU parts summed */
    if (pt_taskiter_statm_sums(it)) {
        ck_assert_msg(f.has_statm, "pid %d: no statm from the records", (int)pid);
        struct pt_statm sm;
        n = read_proc(pid, "statm", buf);
        ck_assert_int_eq(pt_procfs_parse_statm(buf->data, (size_t)n, &sm), 0);
        const struct pt_statm *a = &sm, *b = &f.statm;
        SAME(size);
        SAME(resident);
        SAME(shared);
        seen.resident += b->resident;
    }
    struct pt_io io;
    n = read_proc(pid, "io", buf);
    ck_assert_int_eq(pt_kvparse_io(buf->data, (size_t)n, &io), 0);
    {
        const struct pt_io *a = &io, *b = &f.io;
        SAME(rchar);
        SAME(wchar);
        SAME(syscr);
        SAME(syscw);
        SAME(read_bytes);
        SAME(write_bytes);
        SAME(cancelled_write_bytes);
    }
    /* the open descriptors, as the size of its fd/ counts them */
    int64_t fds, dir_size = fd_dir_size(pid);
    uint64_t fd_start;
    ck_assert_msg(pt_taskfold_fds(it, pid, sysconf(_SC_CLK_TCK), &fds, &fd_start), "pid %d: no descriptor count",
                  (int)pid);
    ck_assert_msg(fds == dir_size, "pid %d: %lld descriptors by procfs, %lld by BPF", (int)pid, (long long)dir_size,
                  (long long)fds);
    ck_assert_uint_eq(fd_start, st.starttime);
    ck_assert_int_eq(f.fds, fds); /* the fold's, which a poll with a breakdown takes */
    seen.fds += (uint64_t)fds;
    seen.cpu += b->utime + b->stime;
    seen.child_cpu += b->cutime + b->cstime;
    seen.wchar += f.io.wchar;
    seen.minflt += b->minflt;
    seen.threads += (uint64_t)b->num_threads;
    seen.switches += (uint64_t)f.tc[PT_TC_VOLUNTARY] + (uint64_t)f.tc[PT_TC_INVOLUNTARY];
    int64_t tc[PT_TC_COUNT];
    thread_counts(pid, tc, buf);
    for (int k = 0; k < PT_TC_COUNT; k++)
        ck_assert_msg(tc[k] == f.tc[k], "pid %d: thread count %d %lld by procfs, %lld by BPF", (int)pid, k,
                      (long long)tc[k], (long long)f.tc[k]);
}

/* A poll by the list counts the descriptors of the members asked for
 * (every other one here), each equal to its fd/'s size, and of no other. */
static void compare_polled_fds(struct pt_taskiter *it, const pid_t *pids, int n)
{
    if (!pt_taskiter_polls_by_list(it))
        return; /* a walk's poll counts none: the files say */
    for (int i = 0; i < n; i++)
        pt_taskiter_count_fds(it, pids[i], i % 2 == 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    long hz = sysconf(_SC_CLK_TCK);
    for (int i = 0; i < n; i++) {
        int64_t fds = -1;
        uint64_t starttime = 0;
        bool counted = pt_taskfold_fds(it, pids[i], hz, &fds, &starttime);
        ck_assert_msg(counted == (i % 2 == 0), "pid %d: counted %d", (int)pids[i], counted);
        if (counted)
            ck_assert_msg(fds == fd_dir_size(pids[i]), "pid %d: %lld descriptors by procfs, %lld by the poll",
                          (int)pids[i], (long long)fd_dir_size(pids[i]), (long long)fds);
        /* the same with the memory's, as a poll reads them */
        struct pt_statm sm;
        int64_t with_statm = -2;
        ck_assert(pt_taskfold_statm(it, pids[i], hz, &sm, &starttime, &with_statm) || !pt_taskiter_statm_sums(it));
        ck_assert_int_eq(with_statm, counted ? fds : -1);
    }
    for (int i = 0; i < n; i++)
        pt_taskiter_count_fds(it, pids[i], false);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    for (int i = 0; i < n; i++) {
        int64_t fds;
        uint64_t starttime;
        ck_assert(!pt_taskfold_fds(it, pids[i], hz, &fds, &starttime));
    }
}

/* A poll's snapshot: statm alone, equal to the file's; the descriptors
 * of the members asked for. */
static void compare_statm(struct pt_taskiter *it, const pid_t *pids, int n, struct pt_buf *buf)
{
    if (!pt_taskiter_statm_sums(it))
        return;
    compare_polled_fds(it, pids, n);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    ck_assert(pt_taskiter_valid(it, PT_TR_MODE_STATM));
    ck_assert(!pt_taskiter_valid(it, PT_TR_MODE_FULL));
    for (int i = 0; i < n; i++) {
        pid_t pid = pids[i];
        struct pt_statm got, sm;
        uint64_t starttime;
        ck_assert_msg(pt_taskfold_statm(it, pid, sysconf(_SC_CLK_TCK), &got, &starttime, NULL),
                      "pid %d: no statm record", (int)pid);
        ssize_t len = read_proc(pid, "statm", buf);
        ck_assert_int_eq(pt_procfs_parse_statm(buf->data, (size_t)len, &sm), 0);
        const struct pt_statm *a = &sm, *b = &got;
        SAME(size);
        SAME(resident);
        SAME(shared);
        struct pt_stat st;
        len = read_proc(pid, "stat", buf);
        ck_assert_int_eq(pt_procfs_parse_stat(buf->data, (size_t)len, &st), 0);
        ck_assert_uint_eq(st.starttime, starttime);
    }
    ck_assert_ptr_null(pt_taskiter_group(it, pids[0])); /* a poll's snapshot holds no group */
}

/* One interval end's snapshot and one poll's, each against the files. */
static void compare_tree(struct pt_taskiter *it, const pid_t *pids, int n, struct pt_buf *buf)
{
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    for (int i = 0; i < n; i++)
        compare(it, pids[i], buf);
    compare_statm(it, pids, n, buf);
}

/* Until each of pids is stopped (its counters then hold still). */
static void wait_stopped(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        siginfo_t si;
        ck_assert_int_eq(waitid(P_PID, (id_t)pids[i], &si, WSTOPPED | WNOWAIT), 0);
    }
}

static void kill_all(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        kill(pids[i], SIGKILL);
    for (int i = 0; i < n; i++)
        waitpid(pids[i], NULL, 0);
}

/* A child that pauses until it is killed, or its parent dies. */
static pid_t pausing_child(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;)
            pause();
    }
    return pid;
}

START_TEST(test_still_tree)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { N = 1000 };
    static pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = pausing_child();
        ck_assert_int_eq(pt_taskiter_follow(it, pids[i]), 0);
    }
    /* each child stopped: a stopped task's counters hold still */
    for (int i = 0; i < N; i++)
        kill(pids[i], SIGSTOP);
    wait_stopped(pids, N);
    struct pt_buf buf = {0};
    compare_tree(it, pids, N, &buf);
    pt_buf_free(&buf);
    kill_all(pids, N);
    pt_taskiter_close(it);
}
END_TEST

static void *spin(void *arg)
{
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < (uint64_t)(uintptr_t)arg; i++)
        x += i;
    return NULL;
}

/* A busy member: two threads of its own burning CPU, then one exited;
 * writes and reads a file; faults memory in; forks and reaps a child that
 * works too. Then it stops itself. */
static void busy(int k)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pthread_t th[2];
    pthread_create(&th[0], NULL, spin, (void *)(uintptr_t)(2000000u * (unsigned)(k + 1)));
    pthread_create(&th[1], NULL, spin, (void *)UINTPTR_MAX); /* until the group stop */
    pthread_join(th[0], NULL);
    char path[] = "/tmp/pt-bpfsource-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        static char block[65536];
        for (int i = 0; i < 16; i++)
            (void)!write(fd, block, sizeof(block));
        fsync(fd);
        lseek(fd, 0, SEEK_SET);
        while (read(fd, block, sizeof(block)) > 0)
            ;
        close(fd);
        unlink(path);
    }
    size_t len = (size_t)(k + 1) << 20;
    char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem != MAP_FAILED)
        memset(mem, 1, len);
    pid_t child = fork();
    if (child == 0) {
        spin((void *)(uintptr_t)40000000u);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    /* descriptors with holes, and one past 4,000: a table of 64 words */
    for (int i = 0; i < 20 + k; i++) {
        int d = open("/dev/null", O_RDONLY);
        if (d >= 0 && i % 3 == 0)
            close(d);
    }
    if (k % 2 == 0)
        dup2(0, 4000 + k);
    raise(SIGSTOP);
    for (;;)
        pause();
}

START_TEST(test_busy_tree)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { N = 8 };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0)
            busy(i);
        ck_assert_int_eq(pt_taskiter_follow(it, pids[i]), 0);
    }
    wait_stopped(pids, N);
    /* every thread of each stopped too (the spinning one's group stop) */
    usleep(100000);
    struct pt_buf buf = {0};
    memset(&seen, 0, sizeof(seen));
    compare_tree(it, pids, N, &buf);
    ck_assert_uint_gt(seen.cpu, 0);
    ck_assert_uint_gt(seen.child_cpu, 0);
    ck_assert_uint_ge(seen.wchar, N * 16 * 65536);
    ck_assert_uint_ge(seen.minflt, N * 256); /* at least 1 MiB of pages each */
    ck_assert_uint_gt(seen.threads, N);      /* the spinner still there */
    ck_assert_uint_gt(seen.switches, 0);
    ck_assert_uint_ge(seen.fds, N * (3 + 13)); /* stdio, and 13 or more of /dev/null each */
    if (pt_taskiter_statm_sums(it))
        ck_assert_uint_ge(seen.resident, N * 256); /* each faulted 1 MiB or more in */
    /* the snapshot's order does not matter: procfs read first, BPF after */
    compare_tree(it, pids, N, &buf);
    pt_buf_free(&buf);
    kill_all(pids, N);
    pt_taskiter_close(it);
}
END_TEST

static void *fork_one(void *arg)
{
    *(pid_t *)arg = pausing_child();
    return NULL;
}

static int add_pid(pid_t pid, void *arg)
{
    pid_t **at = arg;
    *(*at)++ = pid;
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    return *(const pid_t *)a - *(const pid_t *)b;
}

/* A discovery's pass: the children its task/TID/children files list,
 * one forked by another thread of the member's too. */
START_TEST(test_children)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { N = 40 };
    pid_t pids[N + 1];
    for (int i = 0; i < N; i++)
        pids[i] = pausing_child();
    pthread_t th;
    pthread_create(&th, NULL, fork_one, &pids[N]);
    pthread_join(th, NULL);
    ck_assert_int_gt(pids[N], 0);
    ck_assert_int_eq(pt_taskiter_follow(it, getpid()), 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_CHILDREN), 0);
    ck_assert(pt_taskiter_alive(it, getpid()));
    ck_assert(!pt_taskiter_alive(it, pids[0])); /* not followed */
    /* the files: every thread's of this process */
    pid_t files[4 * N], *end = files;
    struct pt_buf buf = {0};
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char full[320];
        snprintf(full, sizeof(full), "/proc/%d/task/%s/children", (int)getpid(), e->d_name);
        int fd = open(full, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t n = pt_procfs_pread_all(fd, &buf);
        close(fd);
        if (n > 0)
            pt_pidparse_children(buf.data, (size_t)n, add_pid, &end);
    }
    closedir(d);
    pid_t got[4 * N];
    int n_got = 0;
    long cursor;
    for (pid_t c = pt_taskiter_child_first(it, getpid(), &cursor); c > 0; c = pt_taskiter_child_next(it, &cursor))
        got[n_got++] = c;
    int n_files = (int)(end - files);
    ck_assert_int_ge(n_files, N + 1);
    ck_assert_int_eq(n_got, n_files);
    qsort(files, (size_t)n_files, sizeof(pid_t), by_pid);
    qsort(got, (size_t)n_got, sizeof(pid_t), by_pid);
    for (int i = 0; i < n_got; i++)
        ck_assert_int_eq(got[i], files[i]);
    bool thread_child = false;
    for (int i = 0; i < n_got; i++)
        thread_child |= got[i] == pids[N];
    ck_assert(thread_child);
    pt_buf_free(&buf);
    kill_all(pids, N + 1);
    pt_taskiter_close(it);
}
END_TEST

/* A member reaped is no record; one not followed neither. */
START_TEST(test_gone_and_unfollowed)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    pid_t a = fork();
    if (a == 0)
        _exit(0);
    pid_t b = pausing_child();
    ck_assert_int_eq(pt_taskiter_follow(it, a), 0);
    ck_assert_int_eq(pt_taskiter_follow(it, b), 0);
    ck_assert_int_eq(pt_taskiter_follow(it, b), 0);
    waitpid(a, NULL, 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_ptr_null(pt_taskiter_task(it, a));
    ck_assert_ptr_nonnull(pt_taskiter_task(it, b));
    pt_taskiter_unfollow(it, b); /* followed twice: still followed */
    ck_assert(pt_taskiter_follows(it, b));
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_ptr_nonnull(pt_taskiter_task(it, b));
    pt_taskiter_unfollow(it, b);
    ck_assert(!pt_taskiter_follows(it, b));
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_ptr_null(pt_taskiter_task(it, b));
    pt_taskiter_forget(it);
    ck_assert(!pt_taskiter_valid(it, PT_TR_MODE_FULL));
    kill(b, SIGKILL);
    waitpid(b, NULL, 0);
    pt_taskiter_close(it);
}
END_TEST

static void *wait_for_exit(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* A poll by the list follows the membership: a member taken out (the
 * list's last moved into its place) has no record, the rest do, and a
 * followed pid that names a thread, not a group, is no member's. Run where
 * the kernel has bpf_task_from_pid (Linux >= 6.2, as here); elsewhere
 * polls walk and the other cases hold them. */
START_TEST(test_poll_by_list)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    if (!pt_taskiter_statm_sums(it)) {
        pt_taskiter_close(it);
        return;
    }
    ck_assert_msg(pt_taskiter_polls_by_list(it), "a 6.16+ kernel, yet polls walk the host's tasks");
    enum { N = 4 };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = pausing_child();
        ck_assert_int_eq(pt_taskiter_follow(it, pids[i]), 0);
    }
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, wait_for_exit, NULL), 0);
    /* this process's second thread: its tid is no thread group's */
    pid_t tid = 0;
    for (int tries = 0; tries < 1000 && !tid; tries++) {
        DIR *d = opendir("/proc/self/task");
        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));)
            if (atoi(e->d_name) > 0 && atoi(e->d_name) != getpid())
                tid = atoi(e->d_name);
        closedir(d);
    }
    ck_assert_int_gt(tid, 0);
    ck_assert_int_eq(pt_taskiter_follow(it, tid), 0);
    pt_taskiter_unfollow(it, pids[0]);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    struct pt_statm sm;
    uint64_t starttime;
    long hz = sysconf(_SC_CLK_TCK);
    ck_assert(!pt_taskfold_statm(it, pids[0], hz, &sm, &starttime, NULL));
    ck_assert(!pt_taskfold_statm(it, tid, hz, &sm, &starttime, NULL));
    for (int i = 1; i < N; i++)
        ck_assert_msg(pt_taskfold_statm(it, pids[i], hz, &sm, &starttime, NULL), "pid %d: no record", (int)pids[i]);
    ck_assert_uint_gt(sm.size, 0);
    pt_taskiter_unfollow(it, pids[N - 1]); /* the list's last */
    ck_assert_int_eq(pt_taskiter_follow(it, pids[0]), 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    ck_assert(pt_taskfold_statm(it, pids[0], hz, &sm, &starttime, NULL));
    ck_assert(!pt_taskfold_statm(it, pids[N - 1], hz, &sm, &starttime, NULL));
    for (int i = 0; i < N - 1; i++)
        ck_assert(pt_taskfold_statm(it, pids[i], hz, &sm, &starttime, NULL));
    /* a member asked to have its descriptors counted keeps the ask when
     * its slot moves: pids[0], the list's last, fills pids[1]'s */
    pt_taskiter_count_fds(it, pids[0], true);
    pt_taskiter_unfollow(it, pids[1]);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    int64_t fds;
    ck_assert(pt_taskfold_fds(it, pids[0], hz, &fds, &starttime));
    ck_assert_int_eq(fds, fd_dir_size(pids[0]));
    ck_assert(pt_taskfold_statm(it, pids[0], hz, &sm, &starttime, NULL)); /* its record is its own */
    ck_assert(!pt_taskfold_fds(it, pids[2], hz, &fds, &starttime));
    ck_assert(!pt_taskfold_statm(it, pids[1], hz, &sm, &starttime, NULL));
    ck_assert_uint_eq(pt_taskiter_visits(it), 0); /* no walk was taken */
    kill_all(pids, N);
    pthread_cancel(th);
    pthread_join(th, NULL);
    pt_taskiter_close(it);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("bpfsource");
    TCase *tc = unit_tcase(suite, "taskfold");
    tcase_add_test(tc, test_cputime_adjust);
    tcase_add_test(tc, test_state_letters);
    tcase_add_test(tc, test_ticks);
    tc = unit_tcase(suite, "side_by_side");
    tcase_add_test(tc, test_still_tree);
    tcase_add_test(tc, test_busy_tree);
    tcase_add_test(tc, test_gone_and_unfollowed);
    tcase_add_test(tc, test_poll_by_list);
    tcase_add_test(tc, test_children);
    return unit_run(suite);
}
