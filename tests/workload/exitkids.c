/* exitkids: children that exit before a poll can see them, for the exit
 * record tests. The parent waits for a line on stdin before it starts them
 * (so proctree is attached first), and for end of file after (so it stays a
 * member while proctree ends an interval).
 *
 *   exitkids switches N
 *                  N children one after the other, each sleeping 1 ms 20
 *                  times (voluntary switches) and spinning 20 ms of CPU;
 *                  then print "rusage CPU NVCSW NIVCSW SELF SELFCPU": the
 *                  children's CPU seconds and switches as
 *                  getrusage(RUSAGE_CHILDREN) sums them, and the parent's
 *                  own switches and CPU seconds so far.
 *   exitkids fates one child exits 1, one is killed by SIGKILL, one touches
 *                  512 MiB, holds it 30 ms and exits 0; then print "done 3".
 *   exitkids groups N
 *                  N rounds of three children one after the other, named
 *                  alpha, beta and gamma (prctl) and spinning 40, 80 and
 *                  120 ms of CPU after sleeping 2 ms 4 times; each measures
 *                  itself (getrusage) last and tells the parent through a
 *                  pipe; then print one line per name, "group NAME CPU
 *                  NVCSW NIVCSW REAPED", the sums of its children (REAPED:
 *                  their CPU as the parent's RUSAGE_CHILDREN grew at each
 *                  reap, their exits included), the same of
 *                  itself since the line on stdin ("group exitkids ..."),
 *                  and "done 3".
 *   exitkids apart N
 *                  the same, but the names one after the other: N children
 *                  of alpha, its line, then at the next line on stdin N of
 *                  beta, its line, then gamma's and the rest.
 *   exitkids zombies N
 *                  N children one after the other, each spinning 40 ms of
 *                  CPU; each is waited for without being reaped (waitid
 *                  WNOWAIT), so all stay zombies; then print "zombies N".
 *                  At the next line on stdin reap them all and print
 *                  "rusage CPU ..." as switches does.
 *   exitkids latereap N
 *                  N children at once, each spinning 20 ms of CPU and
 *                  exiting; none is reaped until 4 s after the first fork
 *                  and 2 s after the last exit (waited for with WNOWAIT),
 *                  then all together; then print "rusage CPU ..." as
 *                  switches does, and "late EXITED REAPED SELFCPU FORKED":
 *                  when the last child had exited and when the reaping
 *                  began (CLOCK_REALTIME seconds, as line protocol's
 *                  timestamps), the parent's own CPU seconds at the first,
 *                  and when the first child was forked (before the fork).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <sys/prctl.h>
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
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L};
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

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double cpu_seconds(const struct rusage *u)
{
    return seconds(u->ru_utime) + seconds(u->ru_stime);
}

/* Print the children's CPU and switches as getrusage(RUSAGE_CHILDREN)
 * sums them (the reaped ones), and the parent's own switches and CPU (its
 * forks: a few ms here, a large part of the tree's CPU on an emulated CPU). */
static void say_rusage(void)
{
    struct rusage kids, self;
    getrusage(RUSAGE_CHILDREN, &kids);
    getrusage(RUSAGE_SELF, &self);
    printf("rusage %.6f %ld %ld %ld %.6f\n", cpu_seconds(&kids), kids.ru_nvcsw, kids.ru_nivcsw,
           self.ru_nvcsw + self.ru_nivcsw, cpu_seconds(&self));
    fflush(stdout);
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
    say_rusage();
}

static void zombies(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t pid = fork_or_die();
        if (pid == 0) {
            spin_cpu(0.04);
            _exit(0);
        }
        siginfo_t info;
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0)
            die("waitid");
    }
    say("zombies", n);
    char line[16];
    if (!fgets(line, sizeof(line), stdin))
        die("stdin");
    reap_children(n);
    say_rusage();
}

static void latereap(long n)
{
    double start = clock_seconds(CLOCK_MONOTONIC), forked = clock_seconds(CLOCK_REALTIME);
    pid_t *kids = calloc((size_t)n, sizeof(*kids));
    if (!kids)
        die("calloc");
    for (long i = 0; i < n; i++) {
        kids[i] = fork_or_die();
        if (kids[i] == 0) {
            spin_cpu(0.02);
            _exit(0);
        }
    }
    for (long i = 0; i < n; i++) {
        siginfo_t info;
        if (waitid(P_PID, (id_t)kids[i], &info, WEXITED | WNOWAIT) != 0)
            die("waitid");
    }
    double exited = clock_seconds(CLOCK_REALTIME), now = clock_seconds(CLOCK_MONOTONIC);
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    double left = start + 4 - now > 2 ? start + 4 - now : 2;
    sleep_ms((long)(left * 1000));
    double reaped = clock_seconds(CLOCK_REALTIME);
    reap_children(n);
    free(kids);
    say_rusage();
    printf("late %.6f %.6f %.6f %.6f\n", exited, reaped, cpu_seconds(&self), forked);
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

/* What a child of the groups mode measured of itself; reaped: its CPU as
 * the parent's RUSAGE_CHILDREN grew by it, with what it ran after its own
 * measure (its exit: long on an emulated CPU). Its exit record lies between. */
struct own_usage {
    int name;
    double cpu;
    long nvcsw, nivcsw;
    double reaped;
};

static _Noreturn void group_child(int name, const char *comm, double cpu, int report_fd)
{
    if (prctl(PR_SET_NAME, comm) != 0)
        die("prctl");
    for (int k = 0; k < 4; k++)
        sleep_ms(2);
    spin_cpu(cpu);
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    struct own_usage u = {name, cpu_seconds(&self), self.ru_nvcsw, self.ru_nivcsw, 0};
    if (write(report_fd, &u, sizeof(u)) != (ssize_t)sizeof(u)) /* atomic: less than PIPE_BUF */
        die("write");
    _exit(0);
}

static const char *const group_names[] = {"alpha", "beta", "gamma"};
static const double group_cpu[] = {0.04, 0.08, 0.12};

/* One child of name g, reaped, its own measure (through the pipe report)
 * added to sum[g]. */
static void run_group_child(int g, const int report[2], struct own_usage *sum)
{
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    pid_t pid = fork_or_die();
    if (pid == 0)
        group_child(g, group_names[g], group_cpu[g], report[1]);
    reap(pid);
    getrusage(RUSAGE_CHILDREN, &after);
    sum[g].reaped += cpu_seconds(&after) - cpu_seconds(&before);
    struct own_usage u;
    if (read(report[0], &u, sizeof(u)) != (ssize_t)sizeof(u) || u.name != g)
        die("read");
    sum[g].cpu += u.cpu;
    sum[g].nvcsw += u.nvcsw;
    sum[g].nivcsw += u.nivcsw;
}

static void say_group(const char *name, const struct own_usage *u)
{
    printf("group %s %.6f %ld %ld %.6f\n", name, u->cpu, u->nvcsw, u->nivcsw, u->reaped);
    fflush(stdout);
}

/* apart: one name after the other, each after a line on stdin (the first
 * came already), its line said at once; else the names in turn. */
static void groups(long rounds, bool apart)
{
    struct own_usage sum[3] = {{0, 0, 0, 0, 0}};
    struct rusage before, self; /* its own, from "go": blocked since proctree attached */
    getrusage(RUSAGE_SELF, &before);
    int report[2];
    if (pipe(report) != 0)
        die("pipe");
    char line[16];
    for (int g = 0; g < 3 && apart; g++) {
        if (g > 0 && !fgets(line, sizeof(line), stdin))
            die("stdin");
        for (long i = 0; i < rounds; i++)
            run_group_child(g, report, sum);
        say_group(group_names[g], &sum[g]);
    }
    for (long i = 0; i < rounds && !apart; i++)
        for (int g = 0; g < 3; g++)
            run_group_child(g, report, sum);
    for (int g = 0; g < 3 && !apart; g++)
        say_group(group_names[g], &sum[g]);
    getrusage(RUSAGE_SELF, &self);
    struct own_usage own = {
        -1,
        cpu_seconds(&self) - cpu_seconds(&before),
        self.ru_nvcsw - before.ru_nvcsw,
        self.ru_nivcsw - before.ru_nivcsw,
        cpu_seconds(&self) - cpu_seconds(&before),
    };
    say_group("exitkids", &own);
    say("done", 3);
}

int main(int argc, char **argv)
{
    long long n = 0;
    bool counted = argc == 3 && parse_number(argv[2], &n) && n > 0;
    bool is_switches = counted && strcmp(argv[1], "switches") == 0;
    bool is_groups = counted && strcmp(argv[1], "groups") == 0;
    bool is_apart = counted && strcmp(argv[1], "apart") == 0;
    bool is_zombies = counted && strcmp(argv[1], "zombies") == 0;
    bool is_latereap = counted && strcmp(argv[1], "latereap") == 0;
    if (!is_switches && !is_groups && !is_apart && !is_zombies && !is_latereap &&
        !(argc == 2 && strcmp(argv[1], "fates") == 0)) {
        fprintf(stderr, "usage: exitkids switches N | exitkids groups N | exitkids apart N | exitkids zombies N | "
                        "exitkids latereap N | exitkids fates\n");
        return 2;
    }
    char go[16];
    if (!fgets(go, sizeof(go), stdin))
        die("stdin");
    if (is_switches)
        switches((long)n);
    else if (is_groups || is_apart)
        groups((long)n, is_apart);
    else if (is_zombies)
        zombies((long)n);
    else if (is_latereap)
        latereap((long)n);
    else
        fates();
    wait_for_eof(0, "stdin");
    return 0;
}
