/* churn RATE: a process that forks RATE children a second, each exiting at
 * once, until killed: the workload of the bench row that measures what
 * following the kernel's exit records and fork events costs proctree. It
 * writes one byte to stdout once it runs. Its children are reaped as they
 * exit (SIGCHLD ignored: the kernel reaps them, as a busy server's often
 * are). PR_SET_PDEATHSIG SIGKILL: it dies with whoever started it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long rate = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (rate < 1 || rate > 100000) {
        fprintf(stderr, "usage: churn RATE (forks a second, 1..100000)\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGCHLD, SIG_IGN);
    if (write(STDOUT_FILENO, "r", 1) != 1)
        return 1;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long step = 1000000000L / rate;
    for (;;) {
        if (fork() == 0)
            _exit(0);
        next.tv_nsec += step;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
}
