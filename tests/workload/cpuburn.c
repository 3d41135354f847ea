/* cpuburn: CPU work whose amount does not depend on how busy the machine is.
 *
 *   cpuburn SECONDS        spin in user mode until this process has used
 *                          SECONDS of CPU time (CLOCK_PROCESS_CPUTIME_ID)
 *   cpuburn -s SECONDS     the same in kernel mode: read(2) 64 KiB blocks
 *                          from /dev/zero (the kernel clears the buffer)
 *   cpuburn tally CMD ARG...
 *                          run CMD, wait for it, then print on stdout
 *                          "rusage USER SYSTEM": this process's own user and
 *                          system CPU plus that of every child it (and they)
 *                          reaped, in seconds (getrusage SELF + CHILDREN).
 *
 * A loop bounded by CPU time rather than by an iteration count uses the same
 * CPU in every run, whatever else runs on the machine, so the accounting tests
 * can compare proctree's proc_cpu_*_seconds with the kernel's rusage of the
 * same tree, taken in the same run (tally) or in a separate one
 * (/usr/bin/time). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static double cpu_seconds(void)
{
    return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static int tally(char **argv)
{
    pid_t pid = fork_or_die();
    if (pid == 0) {
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            die("waitpid");
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    printf("rusage %.6f %.6f\n", tv(self.ru_utime) + tv(kids.ru_utime), tv(self.ru_stime) + tv(kids.ru_stime));
    fflush(stdout);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "tally") == 0)
        return tally(argv + 2);
    int sys = argc == 3 && strcmp(argv[1], "-s") == 0;
    char *end;
    double seconds = argc == 2 + sys ? strtod(argv[1 + sys], &end) : -1;
    if (argc != 2 + sys || *end || seconds < 0) {
        fprintf(stderr, "usage: cpuburn [-s] SECONDS | cpuburn tally CMD [ARG]...\n");
        return 2;
    }
    if (sys) {
        static char buf[1 << 16];
        int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        if (zero < 0)
            die("/dev/zero");
        while (cpu_seconds() < seconds)
            if (read(zero, buf, sizeof buf) < 0 && errno != EINTR)
                die("read");
        return 0;
    }
    volatile unsigned long x = 0;
    while (cpu_seconds() < seconds)
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
    return 0;
}
