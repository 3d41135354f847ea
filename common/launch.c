#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "escape.h"

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

struct pid_list {
    pid_t *pids;
    size_t n, cap;
};

static void pid_list_add(struct pid_list *l, pid_t pid)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        pid_t *grown = realloc(l->pids, cap * sizeof(*grown));
        if (!grown)
            return; /* the next round finds the rest */
        l->pids = grown;
        l->cap = cap;
    }
    l->pids[l->n++] = pid;
}

/* Append the children of every thread of pid (a child belongs to the
 * thread that forked it). A process that is gone adds nothing. */
static void add_children(struct pid_list *l, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return;
    struct dirent *e;
    while ((e = readdir(tasks)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char file[96];
        snprintf(file, sizeof(file), "/proc/%d/task/%.16s/children", (int)pid, e->d_name);
        FILE *f = fopen(file, "re");
        if (!f)
            continue;
        int child;
        while (fscanf(f, "%d", &child) == 1)
            if (child > 0)
                pid_list_add(l, child);
        fclose(f);
    }
    closedir(tasks);
}

size_t pt_launch_signal_tree(pid_t group, int sig)
{
    if (group > 0)
        kill(-group, sig);
    /* Breadth first from ourselves; each process is signalled before its
     * children are listed, so a SIGKILLed one forks no more. */
    struct pid_list l = {0};
    add_children(&l, getpid());
    for (size_t i = 0; i < l.n; i++) {
        kill(l.pids[i], sig);
        add_children(&l, l.pids[i]);
    }
    size_t found = l.n;
    free(l.pids);
    return found;
}
