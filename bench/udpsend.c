/* udpsend: what the UDP counters (common/bpf/udpcount.h) cost a sender,
 * in nanoseconds a sendto, on loopback: N datagrams of SIZE bytes sent
 * to a socket of our own that drops them (SO_RCVBUF small: nothing is
 * read), timed four ways in one run, each ROUNDS times interleaved, the
 * median kept:
 *   off       no program attached
 *   outside   attached, this process no member and no member among its
 *             ancestors (the host's traffic outside any tree: the
 *             tracepoint's program, a protocol check, the walk up the
 *             real parents to init or 8 of them)
 *   member    attached, this process a member (its entry's two atomic adds)
 *   tcp       attached, a TCP send of the same size on loopback (the
 *             programs' cost for a socket that is not UDP: one check)
 * against a tcp run with none attached for the last. As root, on a BPF build.
 *
 *   udpsend [N [SIZE [ROUNDS]]]     default 1000000 64 5 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/taskiter.h"
#include "bpf/udpcount.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int udp_pair(struct sockaddr_in *to)
{
    int rx = socket(AF_INET, SOCK_DGRAM, 0);
    int small = 1;
    setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    *to = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(*to);
    if (rx < 0 || bind(rx, (struct sockaddr *)to, len) != 0 || getsockname(rx, (struct sockaddr *)to, &len) != 0) {
        perror("udpsend: the receiving socket");
        exit(1);
    }
    return rx;
}

/* ns a sendto of size bytes, n of them */
static double udp_run(long n, size_t size)
{
    static char buf[65536];
    struct sockaddr_in to;
    int rx = udp_pair(&to);
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    double t0 = now();
    for (long i = 0; i < n; i++)
        if (sendto(tx, buf, size, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)size) {
            perror("udpsend: sendto");
            exit(1);
        }
    double t = now() - t0;
    close(tx);
    close(rx);
    return t / (double)n * 1e9;
}

/* ns a send of size bytes on a loopback TCP connection, its peer reading */
static double tcp_run(long n, size_t size)
{
    static char buf[65536];
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (bind(l, (struct sockaddr *)&a, len) != 0 || listen(l, 1) != 0 || getsockname(l, (struct sockaddr *)&a, &len)) {
        perror("udpsend: listen");
        exit(1);
    }
    int tx = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(tx, (struct sockaddr *)&a, len) != 0) {
        perror("udpsend: connect");
        exit(1);
    }
    int rx = accept(l, NULL, NULL);
    pid_t reader = fork();
    if (reader == 0) { /* holding no end but its own: the sender's close is its EOF */
        close(tx);
        close(l);
        while (read(rx, buf, sizeof(buf)) > 0)
            ;
        _exit(0);
    }
    close(rx);
    double t0 = now();
    for (long i = 0; i < n; i++)
        if (send(tx, buf, size, 0) != (ssize_t)size) {
            perror("udpsend: send");
            exit(1);
        }
    double t = now() - t0;
    close(tx);
    close(l);
    waitpid(reader, NULL, 0);
    return t / (double)n * 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The interval end's read of the counters (pt_udpcount_read: the whole
 * map, batched lookups): empty, then with an entry for each of 1,000
 * member processes (each followed, then sending one datagram). */
static void read_cost(struct pt_taskiter *it, struct pt_udpcount *u, char *why, size_t whylen)
{
    if (pt_udpcount_attach(u, why, whylen) != 0) {
        fprintf(stderr, "udpsend: %s\n", why);
        return;
    }
    enum { READS = 200, MEMBERS = 1000 };
    for (int filled = 0; filled < 2; filled++) {
        if (filled) {
            struct sockaddr_in to;
            int rx = udp_pair(&to);
            for (int i = 0; i < MEMBERS; i++) {
                int go[2];
                if (pipe(go) != 0)
                    return;
                pid_t child = fork();
                if (child == 0) {
                    char c;
                    int tx = socket(AF_INET, SOCK_DGRAM, 0);
                    _exit(read(go[0], &c, 1) == 1 && sendto(tx, "u", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1
                              ? 0
                              : 1);
                }
                pt_taskiter_follow(it, child); /* followed to the end: its entry stays */
                if (write(go[1], "g", 1) != 1)
                    return;
                waitpid(child, NULL, 0);
                close(go[0]);
                close(go[1]);
            }
            close(rx);
        }
        double t0 = now();
        for (int i = 0; i < READS; i++)
            pt_udpcount_read(u);
        printf("  a read of the counters, %5zu entries          %8.1f us\n", pt_udpcount_entries(u),
               (now() - t0) / READS * 1e6);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    size_t size = argc > 2 ? (size_t)atol(argv[2]) : 64;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (n <= 0 || size == 0 || size > 60000 || rounds <= 0 || rounds > 99) {
        fprintf(stderr, "usage: udpsend [N [SIZE [ROUNDS]]]\n");
        return 2;
    }
    char why[256];
    struct pt_taskiter *it = pt_taskiter_open(-1, why, sizeof(why));
    struct pt_udpcount *u = it ? pt_udpcount_open(pt_taskiter_members_fd(it), -1, why, sizeof(why)) : NULL;
    if (!u) {
        fprintf(stderr, "udpsend: the UDP counters cannot load: %s\n", why);
        return 1;
    }
    /* no member at all while "outside" runs: each send walks this
     * process's real parents up to init (or 8 of them), the worst the
     * host's traffic outside any tree pays */
    enum { OFF, OUTSIDE, MEMBER, TCP_OFF, TCP_ON, RUNS };
    static const char *names[RUNS] = {"udp, none attached", "udp, attached, no member on the way",
                                      "udp, attached, a member's", "tcp, none attached", "tcp, attached"};
    double ns[RUNS][99];
    for (int r = 0; r < rounds; r++) {
        ns[OFF][r] = udp_run(n, size);
        ns[TCP_OFF][r] = tcp_run(n, size);
        if (pt_udpcount_attach(u, why, sizeof(why)) != 0) {
            fprintf(stderr, "udpsend: %s\n", why);
            return 1;
        }
        ns[OUTSIDE][r] = udp_run(n, size);
        ns[TCP_ON][r] = tcp_run(n, size);
        pt_taskiter_follow(it, getpid());
        ns[MEMBER][r] = udp_run(n, size);
        pt_taskiter_unfollow(it, getpid());
        pt_udpcount_close(u); /* detached: the next round's off runs see none */
        u = pt_udpcount_open(pt_taskiter_members_fd(it), -1, why, sizeof(why));
        if (!u) {
            fprintf(stderr, "udpsend: %s\n", why);
            return 1;
        }
    }
    printf("%ld sends of %zu bytes, median of %d rounds:\n", n, size, rounds);
    for (int k = 0; k < RUNS; k++) {
        qsort(ns[k], (size_t)rounds, sizeof(double), by_value);
        printf("  %-40s %8.1f ns a send\n", names[k], ns[k][rounds / 2]);
    }
    printf("  the counters' cost: outside a tree %+.1f ns, a member's %+.1f ns, a TCP send %+.1f ns\n",
           ns[OUTSIDE][rounds / 2] - ns[OFF][rounds / 2], ns[MEMBER][rounds / 2] - ns[OFF][rounds / 2],
           ns[TCP_ON][rounds / 2] - ns[TCP_OFF][rounds / 2]);
    read_cost(it, u, why, sizeof(why));
    pt_udpcount_close(u);
    pt_taskiter_close(it);
    return 0;
}
