/* hoststorm: a host-wide fork storm beside the tree a test watches, for
 * the test that a watched tree's process events and exit records are not
 * lost to another process's burst (every fork on the host reaches every
 * listener of them).
 *
 *   hoststorm PROCS
 *                  PROCS forkers, each vfork()ing children that _exit(0)
 *                  at once (SIGCHLD ignored: the kernel reaps them), as
 *                  fast as they can, until stdin reaches end of file; then
 *                  print "forks N" and "ms M": the forks made and the
 *                  milliseconds from the first to the stop, by its own
 *                  count and clock. It prints "ready PID" once the forkers
 *                  run.
 *
 * vfork: the parent waits for no page-table copy, so that one core makes
 * over 20,000 forks a second. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_PROCS 64
/* Forks between two updates of a forker's count and looks at the stop. */
#define BATCH 64

struct shared {
    atomic_int stop;
    atomic_llong forks[MAX_PROCS];
};

/* The child never leaves this function (it only _exits), as vfork
 * requires; the loop's variables are the caller's, out of its reach. */
__attribute__((noinline)) static int spawn(void)
{
    pid_t pid = vfork();
    if (pid == 0)
        _exit(0);
    return pid > 0;
}

static void forker(struct shared *s, int i)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGCHLD, SIG_IGN);
    while (!atomic_load(&s->stop)) {
        long long made = 0;
        for (int k = 0; k < BATCH; k++)
            made += spawn();
        atomic_fetch_add(&s->forks[i], made);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    long long procs;
    if (argc != 2 || !parse_number(argv[1], &procs) || procs < 1 || procs > MAX_PROCS) {
        fprintf(stderr, "usage: hoststorm PROCS (1..%d)\n", MAX_PROCS);
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        die("mmap");
    double start = clock_seconds(CLOCK_MONOTONIC);
    for (int i = 0; i < procs; i++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0)
            forker(s, i);
    }
    say_ready();
    wait_for_eof(STDIN_FILENO, "stdin");
    atomic_store(&s->stop, 1);
    double stop = clock_seconds(CLOCK_MONOTONIC);
    while (wait(NULL) > 0)
        ;
    long long forks = 0;
    for (int i = 0; i < procs; i++)
        forks += atomic_load(&s->forks[i]);
    say("forks", (long)forks);
    say("ms", (long)((stop - start) * 1000));
    return 0;
}
