#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "escape.h"

pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, char *err, size_t errlen)
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
        if ((stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
            (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0)) {
            int e = errno;
            (void)!write(pipefd[1], &e, sizeof(e));
            _exit(127);
        }
        execvp(argv[0], argv);
        int e = errno;
        (void)!write(pipefd[1], &e, sizeof(e));
        _exit(127);
    }
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
