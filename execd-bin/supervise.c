#include "supervise.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree/base.h"

/* How long the supervisor keeps killing what its worker left: SIGKILL
 * acts at once, but a process in uninterruptible sleep dies when its I/O
 * ends. */
#define ORPHANS_KILL_WAIT 1.0

/* Every signal that asks proctree-execd for a batch or a stop. */
static const int forwarded[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT};

static int exit_status(int wstatus)
{
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* The worker is gone; what is left of its tree is ours (we are the
 * subreaper above it): SIGKILL to all of it until none is left, reaping
 * as it goes (pt_launch_signal_tree counts zombies too). */
static void end_orphans(void)
{
    double give_up = pt_now() + ORPHANS_KILL_WAIT;
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        size_t left = pt_launch_signal_tree(0, SIGKILL);
        if (left == 0)
            return;
        if (pt_now() >= give_up) {
            pt_logf(PT_LOG_ERROR, "%zu processes of the launched tree survive SIGKILL", left);
            return;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
}

/* Forward signals to the worker until it exits, then end what it left
 * and exit with its status. */
static _Noreturn void supervise(pid_t worker, struct pt_launch_cgroup *cg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < PT_ARRAY_LEN(forwarded); i++)
        sigaddset(&set, forwarded[i]);
    for (;;) {
        int sig = sigwaitinfo(&set, NULL);
        if (sig < 0)
            continue; /* EINTR */
        if (sig != SIGCHLD) {
            kill(worker, sig); /* by pid: our child, reaped only below, after which we exit */
            continue;
        }
        int wstatus;
        pid_t pid;
        while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
            if (pid == cg->keeper)
                cg->keeper = 0; /* reaped: its pid is no longer ours to signal */
            if (pid != worker)
                continue; /* an orphan of the tree, while it was being ended */
            if (WIFSIGNALED(wstatus))
                pt_logf(PT_LOG_ERROR,
                        "the process that follows the launched command (pid %d) was killed by signal %d: SIGKILL to "
                        "what is left of its tree",
                        (int)worker, WTERMSIG(wstatus));
            pt_launch_cgroup_keeper_end(cg); /* after the worker's last read; not of the tree */
            end_orphans();
            /* a worker that exits removes it itself, once its tree is
             * gone: said once, by the one that could not */
            if (WIFSIGNALED(wstatus))
                pt_launch_cgroup_remove(cg);
            /* the last of proctree's processes: its own cgroup as it was */
            pt_launch_cgroup_give_back(cg);
            exit(exit_status(wstatus));
        }
    }
}

/* The worker's supervisor, 0 in it and without a split. */
static pid_t supervisor;

bool execd_orphaned(void)
{
    return supervisor && getppid() != supervisor;
}

int execd_supervise(struct pt_launch_cgroup *cg)
{
    supervisor = getpid();
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        pt_logf(PT_LOG_ERROR, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    pt_launch_cgroup_keeper(cg); /* ours, not the worker's: ended after its last read */
    pid_t worker = fork();
    if (worker < 0) {
        pt_logf(PT_LOG_ERROR, "fork: %s", strerror(errno));
        return -1;
    }
    if (worker > 0) {
        supervisor = 0;
        supervise(worker, cg);
    }
    /* The worker: told when the supervisor dies, even if that was before
     * it asked (then the signal is raised here, and waits in the mask),
     * and woken if stopped (supervise.h). */
    if (prctl(PR_SET_PDEATHSIG, EXECD_ORPHANED_SIGNAL, 0, 0, 0) != 0)
        pt_logf(PT_LOG_WARNING,
                "cannot ask to be told of the supervisor's death (%s): should it be killed, the "
                "launched command outlives it",
                strerror(errno));
    else if (execd_orphaned())
        kill(getpid(), EXECD_ORPHANED_SIGNAL);
    return 0;
}
