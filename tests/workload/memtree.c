/* memtree NPROCS MIB_EACH: a process tree whose size and memory are known.
 *
 * The integration tests compare what proctree reports against /proc, so they
 * need a tree that is deep enough to exercise discovery (root -> middle ->
 * leaves: depth 2 as soon as NPROCS >= 3), whose members each own a known
 * amount of anonymous, resident memory, and that stays idle while measured.
 *
 * Shape: the root forks one middle child; the middle child forks NPROCS-2
 * leaves. Every process first forks its children, then maps and writes
 * every page of MIB_EACH MiB (after the fork, so no page is shared
 * copy-on-write), then prints "ready PID" on stdout in one write, then waits.
 *
 * Stopping: the root waits for EOF on stdin or SIGTERM; every other process
 * waits for SIGTERM (and gets it when its parent dies, PR_SET_PDEATHSIG, so no
 * orphan outlives a killed root). Whoever stops sends SIGTERM to its own
 * children and reaps them before exiting, so when the root has exited the
 * whole tree is gone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll, PR_SET_PDEATHSIG */
#endif
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#define MAX_CHILDREN 1024

static volatile sig_atomic_t stop_requested;
static sigset_t wait_mask; /* the mask to wait with: SIGTERM unblocked */

static void on_sigterm(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static long parse_count(const char *text, long min, long max, const char *what)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < min || value > max) {
        fprintf(stderr, "memtree: bad %s '%s' (%ld..%ld)\n", what, text, min, max);
        exit(2);
    }
    return value;
}

/* Fork a child that runs body(arg) and exits; it dies with its parent. */
static pid_t spawn(void (*body)(long), long arg)
{
    pid_t parent = getpid();
    pid_t pid = fork_or_die();
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
            die("prctl");
        if (getppid() != parent) /* the parent died before prctl */
            _exit(0);
        body(arg);
        exit(0);
    }
    return pid;
}

static void stop_children(const pid_t *kids, int count)
{
    for (int i = 0; i < count; i++)
        kill(kids[i], SIGTERM);
    for (int i = 0; i < count; i++)
        while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
            ;
}

/* Non-root members: sleep until SIGTERM (blocked except while waiting, so
 * it cannot slip in between the check and the wait). */
static void wait_for_sigterm(void)
{
    while (!stop_requested)
        sigsuspend(&wait_mask);
}

/* The root: wait for EOF on stdin or SIGTERM, whichever comes first. */
static void wait_for_eof_or_sigterm(void)
{
    char buf[256];
    while (!stop_requested) {
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        int r = ppoll(&pfd, 1, NULL, &wait_mask);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die("ppoll");
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            return;
    }
}

static long mib_each;

static void leaf(long unused)
{
    (void)unused;
    touch_memory(mib_each);
    say_ready();
    wait_for_sigterm();
}

static void middle(long leaves)
{
    static pid_t kids[MAX_CHILDREN];
    for (long i = 0; i < leaves; i++)
        kids[i] = spawn(leaf, 0);
    touch_memory(mib_each);
    say_ready();
    wait_for_sigterm();
    stop_children(kids, (int)leaves);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: memtree NPROCS MIB_EACH\n");
        return 2;
    }
    long nprocs = parse_count(argv[1], 1, MAX_CHILDREN + 2, "NPROCS");
    mib_each = parse_count(argv[2], 0, 1L << 20, "MIB_EACH");

    struct sigaction sa = {.sa_handler = on_sigterm};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) < 0)
        die("sigaction");
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &block, &wait_mask) < 0)
        die("sigprocmask");
    sigdelset(&wait_mask, SIGTERM);

    pid_t kid = 0;
    if (nprocs >= 2)
        kid = spawn(middle, nprocs - 2);
    touch_memory(mib_each);
    say_ready();
    wait_for_eof_or_sigterm();
    if (kid)
        stop_children(&kid, 1);
    return 0;
}
