/* spawntree [--move-root MS] [--names K] [--sockets K PORT] N root TAG: build a tree of N
 * sleeping processes (this one included) and wait.
 *
 * Node i (0 = this process) forks nodes 8i+1 .. 8i+8 that are < N, so a 1000-process tree is
 * 4 levels deep. Every node writes one byte to stdout once it is up, then points stdout at
 * /dev/null and sleeps in pause(): the caller reads N bytes to know the tree is complete.
 * Every node gets PR_SET_PDEATHSIG SIGKILL, so killing a node (or the caller dying) removes
 * its whole subtree.
 * The root keeps its "root" argument; the others overwrite it in place with "node", so a
 * matcher can select the root alone (process-exporter + -children) or every member.
 * With --move-root MS the root (only) touches a fresh page every MS ms instead of sleeping in
 * pause(), so its statm resident moves between any two samples a second apart: the tree whose
 * memory moves, for which a collector must read every member's smaps_rollup again.
 * With --names K node i > 0 names itself (comm, PR_SET_NAME) nK where K = i mod K, 3 digits:
 * a tree of K process names besides the root's, for a breakdown by process of many names.
 * With --sockets K PORT every node holds K TCP connections to 127.0.0.1:PORT (the caller's
 * listener), made before it says it is up: the tree whose sockets a collector follows.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FANOUT 8
#define MOVE_PAGES 1024 /* 4 MiB: at one page per 200 ms, the root starts over every 205 s */

/* Touch page after page of a private region, one every period_ms; once all are touched, drop
 * them (resident falls, which is a move too) and start over. */
static void move_memory(long period_ms)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = MOVE_PAGES * page;
    char *region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        perror("spawntree: mmap");
        exit(1);
    }
    madvise(region, len, MADV_NOHUGEPAGE); /* one huge page would make 512 touches one move */
    struct timespec period = {period_ms / 1000, period_ms % 1000 * 1000000L};
    for (size_t i = 0;; i = (i + 1) % MOVE_PAGES) {
        if (i == 0)
            madvise(region, len, MADV_DONTNEED);
        region[i * page] = 1;
        nanosleep(&period, NULL);
    }
}

/* K connections to 127.0.0.1:port, kept open (the descriptors are never closed). */
static void connect_sockets(long k, long port)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (long i = 0; i < k; i++) {
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&to, sizeof(to)) != 0) {
            perror("spawntree: connect");
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    long move_ms = 0; /* 0: the root sleeps too */
    long names = 0;   /* 0: every node keeps the root's comm */
    long sockets = 0, port = 0;
    bool bad = false;
    while (argc > 4 && argv[1][0] == '-') {
        if (argc >= 6 && (strcmp(argv[1], "--move-root") == 0 || strcmp(argv[1], "--names") == 0)) {
            long v = strtol(argv[2], NULL, 10);
            if (strcmp(argv[1], "--move-root") == 0)
                move_ms = v;
            else
                names = v;
            bad |= v < 1;
            argc -= 2;
            argv += 2;
        } else if (argc >= 7 && strcmp(argv[1], "--sockets") == 0) {
            sockets = strtol(argv[2], NULL, 10);
            port = strtol(argv[3], NULL, 10);
            bad |= sockets < 1 || port < 1 || port > 65535;
            argc -= 3;
            argv += 3;
        } else {
            bad = true;
            break;
        }
    }
    if (argc != 4 || strcmp(argv[2], "root") != 0 || bad) {
        fprintf(stderr, "usage: spawntree [--move-root MS] [--names K] [--sockets K PORT] N root TAG\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    if (n < 1) {
        fprintf(stderr, "spawntree: N must be >= 1\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the caller's death takes the tree with it */
    long self = 0;
    for (long c = 1; c <= FANOUT; c++) {
        long child = self * FANOUT + c;
        if (child >= n)
            break;
        pid_t pid = fork();
        if (pid < 0) {
            perror("spawntree: fork");
            return 1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() == 1)
                _exit(1);
            memcpy(argv[2], "node", 4);
            self = child;
            if (names > 0) {
                char comm[24]; /* the kernel keeps 15 bytes */
                snprintf(comm, sizeof(comm), "n%03ld", self % names);
                prctl(PR_SET_NAME, comm);
            }
            c = 0; /* restart the loop as the child: fork its own children */
        }
    }
    if (sockets > 0)
        connect_sockets(sockets, port);
    if (write(STDOUT_FILENO, "x", 1) != 1)
        return 1;
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    if (self == 0 && move_ms > 0)
        move_memory(move_ms);
    for (;;)
        pause();
}
