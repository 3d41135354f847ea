/* launchtree: every descendant of ours signalled, depth first, each
 * through a pidfd shown to be our descendant's (launchtree.h). */
#include "proctree/launchtree.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "util/base.h"
#include "procfs/procfile.h"
#include "procfs/pidwalk.h"

/* A process on the walk's path down from us: its pidfd (-1 for us), the
 * children listed for it, and the next of them to visit. Depth first, so
 * that the pidfds held are one a level, not one a process of the tree. */
struct frame {
    pid_t pid;
    int fd;
    pid_t *kids;
    size_t n, cap, next;
};

struct tree_walk {
    struct frame *frames; /* frames[0] is us; kids arrays kept for reuse */
    size_t depth, cap;
    pid_t listing; /* whose threads are being listed */
    struct pt_buf buf;
};

/* The process behind fd is not reaped yet (a zombie counts: it still holds
 * its pid, so what /proc showed under that pid was its). */
static bool alive(int fd)
{
    return pidfd_send_signal(fd, 0, NULL, 0) == 0 || errno == EPERM;
}

static int add_kid(pid_t pid, void *arg)
{
    struct frame *f = arg;
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->kids = pt_xrealloc_array(f->kids, f->cap, sizeof(*f->kids));
    }
    f->kids[f->n++] = pid;
    return 0;
}

static void add_thread_children(pid_t tid, void *arg)
{
    struct tree_walk *w = arg;
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)w->listing, (int)tid);
    ssize_t n = pt_procfs_read_file_at(AT_FDCWD, path, &w->buf);
    if (n > 0)
        pt_pidparse_children(w->buf.data, (size_t)n, add_kid, &w->frames[w->depth - 1]);
}

/* Push pid (fd: its pidfd, -1 for us) with the children of every one of
 * its threads (a child belongs to the thread that forked it); the list is
 * dropped when pid is reaped by the end of the reading (it may then have
 * been another's). */
static void push(struct tree_walk *w, pid_t pid, int fd)
{
    if (w->depth == w->cap) {
        size_t old = w->cap;
        w->cap = w->cap ? 2 * w->cap : 8;
        w->frames = pt_xrealloc_array(w->frames, w->cap, sizeof(*w->frames));
        for (size_t i = old; i < w->cap; i++)
            w->frames[i] = (struct frame){0};
    }
    struct frame *f = &w->frames[w->depth++];
    f->pid = pid;
    f->fd = fd;
    f->n = f->next = 0;
    char task[64];
    snprintf(task, sizeof(task), "/proc/%d/task", (int)pid);
    w->listing = pid;
    pt_pidwalk_each(AT_FDCWD, task, add_thread_children, w);
    if (fd >= 0 && !alive(fd))
        f->n = 0;
}

/* A pidfd of pid, listed as a child of parent: -1 when it cannot be shown
 * to be that child. Its stat is read after the pidfd is opened, and the
 * process is then still there, so the stat was its own; its parent,
 * still there after that, held the pid stat names as ppid. Our own
 * children need no such proof: we alone reap them, and not meanwhile. */
static int open_kid(struct tree_walk *w, const struct frame *parent, pid_t pid)
{
    int fd = pidfd_open(pid, 0);
    if (fd < 0 || parent->fd < 0)
        return fd;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    struct pt_stat st;
    ssize_t n = pt_procfs_read_file_at(AT_FDCWD, path, &w->buf);
    if (n > 0 && pt_procfs_parse_stat(w->buf.data, (size_t)n, &st) == 0 && st.ppid == parent->pid && alive(fd) &&
        alive(parent->fd))
        return fd;
    close(fd);
    return -1;
}

size_t pt_launch_signal_tree(pid_t unreaped_leader, int sig)
{
    if (unreaped_leader > 0)
        kill(-unreaped_leader, sig); /* its number is held by our unreaped child: the group is the tree's */
    size_t found = 0;
    struct tree_walk w = {0};
    push(&w, getpid(), -1);
    while (w.depth > 0) {
        struct frame *f = &w.frames[w.depth - 1];
        if (f->next == f->n) {
            if (f->fd >= 0)
                close(f->fd);
            w.depth--;
            continue;
        }
        pid_t pid = f->kids[f->next++];
        found++;
        int fd = open_kid(&w, f, pid);
        if (fd < 0) {
            /* out of descriptors: a child of ours is signalled by pid (it
             * holds it until we reap it); a deeper one is left to the next
             * call, by when its parent (signalled) may have handed it to us */
            if (f->fd < 0 && errno != ESRCH)
                kill(pid, sig);
            continue;
        }
        /* signalled before its children are listed, so a SIGKILLed one
         * forks no more */
        pidfd_send_signal(fd, sig, NULL, 0);
        push(&w, pid, fd);
    }
    for (size_t i = 0; i < w.cap; i++)
        free(w.frames[i].kids);
    free(w.frames);
    pt_buf_free(&w.buf);
    return found;
}
