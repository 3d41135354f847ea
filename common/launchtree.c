/* launchtree: every descendant of ours signalled, breadth first
 * (launchtree.h). */
#include "launchtree.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base.h"
#include "procfile.h"
#include "procparse.h"

/* The processes of our tree, breadth first, and a buffer for the
 * children lists read on the way. */
struct tree_walk {
    pid_t *pids;
    size_t n, cap;
    pid_t pid; /* whose threads are being listed */
    struct pt_buf buf;
};

static int add_pid(pid_t pid, void *arg)
{
    struct tree_walk *w = arg;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->pids = pt_xrealloc_array(w->pids, w->cap, sizeof(*w->pids));
    }
    w->pids[w->n++] = pid;
    return 0;
}

static void add_thread_children(pid_t tid, void *arg)
{
    struct tree_walk *w = arg;
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)w->pid, (int)tid);
    ssize_t n = pt_read_file_at(AT_FDCWD, path, &w->buf);
    if (n > 0)
        pt_parse_children(w->buf.data, (size_t)n, add_pid, w);
}

/* Append the children of every thread of pid (a child belongs to the
 * thread that forked it). A process that is gone adds nothing. */
static void add_children(struct tree_walk *w, pid_t pid)
{
    char task[64];
    snprintf(task, sizeof(task), "/proc/%d/task", (int)pid);
    w->pid = pid;
    pt_for_each_pid_in(AT_FDCWD, task, add_thread_children, w);
}

size_t pt_launch_signal_tree(pid_t group, int sig)
{
    if (group > 0)
        kill(-group, sig);
    /* Breadth first from ourselves; each process is signalled before its
     * children are listed, so a SIGKILLed one forks no more. */
    struct tree_walk w = {0};
    add_children(&w, getpid());
    for (size_t i = 0; i < w.n; i++) {
        kill(w.pids[i], sig);
        add_children(&w, w.pids[i]);
    }
    size_t found = w.n;
    free(w.pids);
    pt_buf_free(&w.buf);
    return found;
}
