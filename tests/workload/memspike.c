/* memspike MIB: memory charged for a moment, or beyond a cgroup's limit.
 *
 * Prints "ready PID", then for each line read on stdin forks a child that
 * maps MIB MiB of anonymous memory (huge pages where the kernel allows),
 * writes a byte of every page, unmaps it and exits 0. The parent reaps the child and
 * prints "exited STATUS USEC": the child's exit status, or 128 + the
 * signal that killed it (137 for an OOM kill), and the microseconds from
 * the fork to the reap (the spike lasts less than that). At EOF on stdin
 * it exits 0.
 *
 * The cgroup tests run it inside a memory cgroup: with no limit, the
 * cgroup's peak shows MIB MiB although the spike is shorter than a poll;
 * with a limit below MIB, the child is OOM-killed, exactly once per line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static long long now_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void spike(long mib)
{
    size_t len = (size_t)mib << 20;
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("mmap");
    /* huge pages where the kernel has them: a spike of a few milliseconds */
    (void)madvise(p, len, MADV_HUGEPAGE);
    for (size_t at = 0; at < len; at += (size_t)page)
        p[at] = 1;
    if (munmap(p, len) != 0)
        die("munmap");
    _exit(0);
}

int main(int argc, char **argv)
{
    long long mib;
    if (argc != 2 || !parse_number(argv[1], &mib) || mib < 1 || mib > 65536) {
        fprintf(stderr, "usage: memspike MIB (1..65536)\n");
        return 2;
    }
    say_ready();
    char c;
    for (;;) {
        ssize_t n = read(0, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read stdin");
        if (n == 0)
            return 0;
        if (c != '\n')
            continue;
        long long start = now_usec();
        pid_t pid = fork_or_die();
        if (pid == 0)
            spike((long)mib);
        int status;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR)
                die("waitpid");
        long long took = now_usec() - start;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        char line[64];
        int len = snprintf(line, sizeof(line), "exited %d %lld\n", code, took);
        write_all(1, line, (size_t)len);
    }
}
