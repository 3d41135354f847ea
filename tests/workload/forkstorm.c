/* forkstorm: forks from the first instruction, for the launch-mode test
 * that no fork of a launched command is missed. It does nothing before
 * its first fork (no wait for proctree, unlike exitkids): a launched
 * command is followed from its exec, or not at all.
 *
 *   forkstorm N RATE
 *                  N children one after the other, at most RATE a second
 *                  (paced against CLOCK_MONOTONIC from the start), each
 *                  exiting 0 at once and reaped before the next fork; then
 *                  print "done N". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
    long long n, rate;
    if (argc != 3 || !parse_number(argv[1], &n) || !parse_number(argv[2], &rate) || n < 0 || rate <= 0) {
        fprintf(stderr, "usage: forkstorm N RATE\n");
        return 2;
    }
    double start = clock_seconds(CLOCK_MONOTONIC);
    for (long long i = 1; i <= n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0)
            _exit(0);
        if (waitpid(pid, NULL, 0) != pid)
            die("waitpid");
        double ahead = start + (double)i / (double)rate - clock_seconds(CLOCK_MONOTONIC);
        if (ahead > 0)
            nanosleep(&(struct timespec){0, (long)(ahead * 1e9)}, NULL);
    }
    say("done", (long)n);
    return 0;
}
