/* exitkids: children that exit before a poll can see them, for the exit
 * record tests. The parent waits for a line on stdin before it starts them
 * (so proctree is attached first), and for end of file after (so it stays a
 * member while proctree ends an interval).
 *
 *   exitkids switches N
 *                  N children one after the other, each sleeping 1 ms 20
 *                  times (voluntary switches) and spinning 20 ms of CPU;
 *                  then print "rusage CPU NVCSW NIVCSW SELF": the children's
 *                  CPU seconds and switches as getrusage(RUSAGE_CHILDREN)
 *                  sums them, and the parent's own switches so far.
 *   exitkids fates one child exits 1, one is killed by SIGKILL, one touches
 *                  512 MiB, holds it 30 ms and exits 0; then print "done 3".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define BIG (512L << 20)

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void spin_cpu(double seconds)
{
    struct timespec ts;
    volatile unsigned long x = 0;
    for (;;) {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        if ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 >= seconds)
            return;
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
    }
}

static void reap(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
}

static void switches(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid = fork_or_die();
        if (pid == 0) {
            for (int k = 0; k < 20; k++)
                sleep_ms(1);
            spin_cpu(0.02);
            _exit(0);
        }
        reap(pid);
    }
    struct rusage kids, self;
    getrusage(RUSAGE_CHILDREN, &kids);
    getrusage(RUSAGE_SELF, &self);
    printf("rusage %.6f %ld %ld %ld\n",
           (double)kids.ru_utime.tv_sec + (double)kids.ru_utime.tv_usec / 1e6 + (double)kids.ru_stime.tv_sec +
               (double)kids.ru_stime.tv_usec / 1e6,
           kids.ru_nvcsw, kids.ru_nivcsw, self.ru_nvcsw + self.ru_nivcsw);
    fflush(stdout);
}

static void fates(void)
{
    pid_t failing = fork_or_die();
    if (failing == 0)
        _exit(1);
    reap(failing);
    pid_t killed = fork_or_die();
    if (killed == 0) {
        kill(getpid(), SIGKILL);
        _exit(0);
    }
    reap(killed);
    pid_t big = fork_or_die();
    if (big == 0) {
        char *p = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            die("mmap");
        memset(p, 1, BIG);
        sleep_ms(30);
        _exit(0);
    }
    reap(big);
    say("done", 3);
}

int main(int argc, char **argv)
{
    long long n = 0;
    bool is_switches = argc == 3 && strcmp(argv[1], "switches") == 0 && parse_number(argv[2], &n) && n > 0;
    if (!is_switches && !(argc == 2 && strcmp(argv[1], "fates") == 0)) {
        fprintf(stderr, "usage: exitkids switches N | exitkids fates\n");
        return 2;
    }
    char go[16];
    if (!fgets(go, sizeof(go), stdin))
        die("stdin");
    if (is_switches)
        switches((long)n);
    else
        fates();
    wait_for_eof(0, "stdin");
    return 0;
}
