#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base.h"
#include "escape.h"
#include "procfile.h"
#include "procparse.h"

pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, char *err, size_t errlen)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    /* The child reports a failed exec through this pipe; a successful exec
     * closes it (O_CLOEXEC), so the parent reads 0 bytes. */
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        close(pipefd[0]);
        if (setpgid(0, 0) != 0 || (stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
            (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0) ||
            (stderr_fd >= 0 && dup2(stderr_fd, STDERR_FILENO) < 0)) {
            int e = errno;
            (void)!write(pipefd[1], &e, sizeof(e));
            _exit(127);
        }
        execvp(argv[0], argv);
        int e = errno;
        (void)!write(pipefd[1], &e, sizeof(e));
        _exit(127);
    }
    /* Also here: whichever of the two runs first, the group exists before
     * anyone signals it (EACCES once the child has exec'd is harmless). */
    setpgid(pid, pid);
    close(pipefd[1]);
    int child_errno = 0;
    ssize_t n;
    do
        n = read(pipefd[0], &child_errno, sizeof(child_errno));
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n == (ssize_t)sizeof(child_errno)) {
        char q[PT_QUOTED_MAX];
        snprintf(err, errlen, "cannot run \"%s\": %s", pt_escape(q, sizeof(q), argv[0]), strerror(child_errno));
        return -1; /* the child exits 127; it is reaped by the caller's reaping */
    }
    return pid;
}

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
