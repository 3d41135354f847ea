#include "member/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs/pidwalk.h"
#include "util/base.h"

static const char *const thread_file_name[PT_TF_COUNT] = {
    [PT_TF_STATUS] = "status",
    [PT_TF_CHILDREN] = "children",
    [PT_TF_STAT] = "stat",
    [PT_TF_SCHEDSTAT] = "schedstat",
};

static void close_thread(struct pt_thread *th, struct pt_fd_budget *budget)
{
    for (int f = 0; f < PT_TF_COUNT; f++) {
        if (th->fd[f] < 0)
            continue;
        close(th->fd[f]);
        th->fd[f] = -1;
        if (budget)
            pt_fdbudget_give(budget, false);
    }
}

void pt_threads_close(struct pt_threads *ts, struct pt_fd_budget *budget)
{
    for (uint32_t i = 0; i < ts->count; i++)
        close_thread(&ts->list[i], budget);
}

void pt_threads_free(struct pt_threads *ts, struct pt_fd_budget *budget)
{
    pt_threads_close(ts, budget);
    free(ts->list);
    free(ts->ended);
    *ts = (struct pt_threads){0};
}

void pt_threads_forget_ended(struct pt_threads *ts)
{
    free(ts->ended);
    ts->ended = NULL;
    ts->n_ended = 0;
}

/* The tids of task/, ascending, into a list the walk fills. */
struct tid_walk {
    pid_t *tids;
    uint32_t count, cap;
};

static void add_tid(pid_t tid, void *arg)
{
    struct tid_walk *w = arg;
    if (w->count == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        w->tids = pt_xrealloc_array(w->tids, w->cap, sizeof(*w->tids));
    }
    w->tids[w->count++] = tid;
}

static int by_tid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* Index of tid in list[0 .. count) (ascending tid), or count. */
static uint32_t find_in(const struct pt_thread *list, uint32_t count, pid_t tid)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (list[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && list[lo].tid == tid ? lo : count;
}

/* Index of tid in the list (ascending tid), or count when it is not there. */
static uint32_t threads_find(const struct pt_threads *ts, pid_t tid)
{
    return find_in(ts->list, ts->count, tid);
}

struct pt_thread_usage *pt_threads_usage_of(struct pt_threads *ts, pid_t tid)
{
    struct pt_thread_usage *settled = NULL;
    for (uint32_t e = 0; e < ts->n_ended; e++) { /* a few, in no order */
        if (ts->ended[e].tid != tid)
            continue;
        if (!ts->ended[e].usage.final)
            return &ts->ended[e].usage;
        settled = &ts->ended[e].usage;
    }
    uint32_t i = find_in(ts->list, ts->count, tid);
    return i < ts->count ? &ts->list[i].usage : settled;
}

/* Does an ended thread's usage wait for its exit record? Only one
 * credited from a read (--by thread) and not settled yet. */
static bool to_settle(const struct pt_thread_usage *u)
{
    return u->cpu_last && !u->final;
}

int pt_threads_refresh(struct pt_threads *ts, int proc_root_fd, const char *member_path, int64_t num_threads,
                       struct pt_fd_budget *budget)
{
    if (ts->fresh && (int64_t)ts->count == num_threads)
        return 0;
    char task[40];
    snprintf(task, sizeof(task), "%stask", member_path);
    struct tid_walk w = {0};
    int err = pt_pidwalk_each(proc_root_fd, task, add_tid, &w);
    if (err) {
        free(w.tids);
        return err;
    }
    qsort(w.tids, w.count, sizeof(*w.tids), by_tid);
    struct pt_thread *list = w.count ? pt_xalloc(w.count * sizeof(*list)) : NULL;
    for (uint32_t i = 0; i < w.count; i++) {
        uint32_t old = threads_find(ts, w.tids[i]);
        if (old < ts->count && !ts->list[old].gone) {
            list[i] = ts->list[old];
            ts->list[old].tid = 0; /* moved */
        } else {
            list[i] = (struct pt_thread){.tid = w.tids[i]};
            for (int f = 0; f < PT_TF_COUNT; f++)
                list[i].fd[f] = -1;
        }
    }
    free(w.tids);
    /* what is left of the old list: the threads that ended, their
     * descriptors closed; those whose usage was credited and is not
     * settled yet join the ended ones of the walks before (their records
     * may not be in yet either) */
    uint32_t ended = 0;
    for (uint32_t i = 0; i < ts->count; i++)
        ended += ts->list[i].tid != 0 && to_settle(&ts->list[i].usage);
    if (ended)
        ts->ended = pt_xrealloc_array(ts->ended, (size_t)ts->n_ended + ended, sizeof(*ts->ended));
    for (uint32_t i = 0; i < ts->count; i++) {
        if (ts->list[i].tid == 0)
            continue;
        close_thread(&ts->list[i], budget);
        if (to_settle(&ts->list[i].usage))
            ts->ended[ts->n_ended++] = ts->list[i];
    }
    free(ts->list);
    ts->list = list;
    ts->count = w.count;
    ts->fresh = true;
    return 0;
}

/* The thread a read went to is gone: the list is walked at the next
 * refresh, and a thread the walk finds with its tid is another. */
static void thread_gone(struct pt_threads *ts, struct pt_thread *th)
{
    th->gone = true;
    ts->fresh = false;
}

bool pt_threads_vouch(struct pt_threads *ts, uint32_t i, uint64_t starttime)
{
    struct pt_thread *th = &ts->list[i];
    if (th->starttime == 0)
        th->starttime = starttime;
    if (th->starttime == starttime)
        return true;
    thread_gone(ts, th);
    return false;
}

ssize_t pt_threads_read(struct pt_threads *ts, uint32_t i, enum pt_thread_file f, int proc_root_fd,
                        const char *member_path, struct pt_fd_budget *budget, struct pt_buf *buf)
{
    struct pt_thread *th = &ts->list[i];
    int fd = th->fd[f];
    bool kept = fd >= 0;
    if (!kept) {
        char path[96];
        snprintf(path, sizeof(path), "%stask/%d/%s", member_path, (int)th->tid, thread_file_name[f]);
        fd = pt_procfs_open_at(proc_root_fd, path);
        if (fd == -EMFILE || fd == -ENFILE)
            return fd;
        if (fd < 0) {
            /* the thread is gone; or, for a file but its status, this
             * kernel (a fixture) lacks it for a live thread */
            snprintf(path, sizeof(path), "%stask/%d", member_path, (int)th->tid);
            if (f == PT_TF_STATUS || faccessat(proc_root_fd, path, F_OK, 0) != 0)
                thread_gone(ts, th);
            return 0;
        }
        kept = budget && pt_fdbudget_take(budget, false);
        if (kept)
            th->fd[f] = fd;
    }
    ssize_t n = pt_procfs_pread_all(fd, buf);
    if (kept && budget && pt_fdbudget_over(budget, PT_FD_OTHER)) {
        /* a member's statm or stat wants its seat (fdbudget.h) */
        th->fd[f] = -1;
        pt_fdbudget_give(budget, false);
        kept = false;
    }
    if (!kept)
        close(fd);
    if ((n <= 0 && f == PT_TF_STATUS) /* a status is never empty: the thread is gone */
        || (n < 0 && pt_procfs_errno_is_gone((int)n)))
        thread_gone(ts, th);
    return n > 0 ? n : 0;
}
