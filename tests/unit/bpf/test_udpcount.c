/* Unit tests for the UDP counters (udpcount.h, udpcount.bpf.c): the
 * programs loaded and attached, this test's process made a member of the
 * task iterator's map, and exact byte counts for what it sends and
 * receives over loopback: IPv4 over 127.0.0.1, IPv6 over ::1, an IPv4
 * destination through an AF_INET6 socket (v4-mapped: the kernel's IPv6
 * code hands it to IPv4's, and it must count once), sendmmsg and
 * recvmmsg, write and read on a connected socket, a peek (not counted);
 * a forked child that is no member counts for its parent, a member child
 * for itself, a process outside the tree (an orphan) and a member no
 * longer followed not at all, and with no entry; a retired entry leaves
 * the map.
 *
 * They need the programs loaded: as root on a build with the BPF source,
 * a kernel with BTF and the socket tracepoints (Linux >= 6.3) they must
 * load and attach (a failure fails); elsewhere the binary says why and
 * exits 77 (skipped). */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/taskiter.h"
#include "bpf/udpcount.h"
#include "unit.h"
#include "util/base.h"

struct kit {
    struct pt_taskiter *it;
    struct pt_udpcount *u;
};

/* The programs loaded and attached on a fresh members map (each case runs
 * in a process of its own, CK_FORK); why on failure. */
static bool kit_open(struct kit *k, char *why, size_t whylen)
{
    k->u = NULL;
    k->it = pt_taskiter_open(-1, why, whylen);
    if (!k->it)
        return false;
    k->u = pt_udpcount_open(pt_taskiter_members_fd(k->it), -1, why, whylen);
    if (!k->u || pt_udpcount_attach(k->u, why, whylen) != 0) {
        pt_udpcount_close(k->u);
        pt_taskiter_close(k->it);
        return false;
    }
    return true;
}

static void kit_close(struct kit *k)
{
    pt_udpcount_close(k->u);
    pt_taskiter_close(k->it);
}

/* A case's kit, this process a member of it. */
static struct kit start(void)
{
    struct kit k;
    char why[256];
    ck_assert_msg(kit_open(&k, why, sizeof(why)), "the programs did not load: %s", why);
    ck_assert_int_eq(pt_taskiter_follow(k.it, getpid()), 0);
    return k;
}

/* pid's starttime (clock ticks since boot), /proc/PID/stat's 22nd field. */
static uint64_t starttime_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')');
    ck_assert_ptr_nonnull(p);
    unsigned long long v = 0;
    int field = 2;
    for (p++; *p && field < 22; p++)
        if (*p == ' ')
            field++;
    ck_assert_int_eq(sscanf(p, "%llu", &v), 1);
    return v;
}

/* pid's bytes in a fresh read of the map; 0s without an entry. */
static struct pt_udpcount_bytes bytes_of(struct kit *k, pid_t pid, uint64_t starttime, bool *there)
{
    ck_assert_int_eq(pt_udpcount_read(k->u), 0);
    struct pt_udpcount_bytes b;
    bool got = pt_udpcount_get(k->u, pid, starttime, &b);
    if (there)
        *there = got;
    return b;
}

static struct pt_udpcount_bytes own(struct kit *k)
{
    return bytes_of(k, getpid(), starttime_of(getpid()), NULL);
}

/* A socket of family bound to its loopback, port chosen by the kernel,
 * its address in addr; reads time out after 5 s (no test hangs). */
static int bound(int family, struct sockaddr_storage *addr, socklen_t *len)
{
    int fd = socket(family, SOCK_DGRAM, 0);
    ck_assert_int_ge(fd, 0);
    memset(addr, 0, sizeof(*addr));
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)addr;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *len = sizeof(*a);
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)addr;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        *len = sizeof(*a);
    }
    if (bind(fd, (struct sockaddr *)addr, *len) != 0) {
        close(fd);
        return -1;
    }
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)addr, len), 0);
    struct timeval t = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
    return fd;
}

static char buf[65536];

/* Sizes sent one datagram each, then read back: their sum. */
static const size_t sizes[] = {1, 100, 1000, 1472, 8000, 30000};

static uint64_t send_and_read(int tx, int rx, const struct sockaddr_storage *to, socklen_t len)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < PT_ARRAY_LEN(sizes); i++) {
        ck_assert_int_eq(sendto(tx, buf, sizes[i], 0, (const struct sockaddr *)to, len), (ssize_t)sizes[i]);
        sum += sizes[i];
    }
    for (size_t i = 0; i < PT_ARRAY_LEN(sizes); i++)
        ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), (ssize_t)sizes[i]);
    return sum;
}

static void same_family(int family)
{
    struct kit k = start();
    struct sockaddr_storage to, from;
    socklen_t len, flen;
    int rx = bound(family, &to, &len);
    if (rx < 0) {
        fprintf(stderr, "test_udpcount: no loopback for family %d here: %s\n", family, strerror(errno));
        kit_close(&k);
        return;
    }
    int tx = bound(family, &from, &flen);
    ck_assert_int_ge(tx, 0);
    struct pt_udpcount_bytes b0 = own(&k);
    uint64_t sum = send_and_read(tx, rx, &to, len);
    /* a peek leaves the datagram queued: its read alone counts */
    ck_assert_int_eq(sendto(tx, buf, 777, 0, (struct sockaddr *)&to, len), 777);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), MSG_PEEK), 777);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 777);
    sum += 777;
    /* write and read on a connected socket are sends and receives too */
    ck_assert_int_eq(connect(tx, (struct sockaddr *)&to, len), 0);
    ck_assert_int_eq(write(tx, buf, 4321), 4321);
    ck_assert_int_eq(read(rx, buf, sizeof(buf)), 4321);
    sum += 4321;
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent - b0.sent, sum);
    ck_assert_uint_eq(b.received - b0.received, sum);
    ck_assert_uint_eq(pt_udpcount_entries(k.u), 1); /* ours alone */
    ck_assert_uint_eq(pt_udpcount_lost(k.u), 0);
    close(tx);
    close(rx);
    kit_close(&k);
}

START_TEST(test_ipv4)
{
    same_family(AF_INET);
}
END_TEST

START_TEST(test_ipv6)
{
    same_family(AF_INET6);
}
END_TEST

/* An AF_INET6 socket sending to ::ffff:127.0.0.1: udpv6_sendmsg hands
 * the message to udp_sendmsg; one sendmsg, counted once. */
START_TEST(test_v4_mapped)
{
    struct kit k = start();
    struct sockaddr_storage to;
    socklen_t len;
    int rx = bound(AF_INET, &to, &len);
    ck_assert_int_ge(rx, 0);
    int tx = socket(AF_INET6, SOCK_DGRAM, 0);
    if (tx < 0) {
        fprintf(stderr, "test_udpcount: no IPv6 sockets here: %s\n", strerror(errno));
        kit_close(&k);
        return;
    }
    int off = 0;
    ck_assert_int_eq(setsockopt(tx, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)), 0);
    struct sockaddr_in6 mapped = {.sin6_family = AF_INET6, .sin6_port = ((struct sockaddr_in *)&to)->sin_port};
    ck_assert_int_eq(inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped.sin6_addr), 1);
    struct pt_udpcount_bytes b0 = own(&k);
    ck_assert_int_eq(sendto(tx, buf, 1234, 0, (struct sockaddr *)&mapped, sizeof(mapped)), 1234);
    /* the same through a connected socket (udpv6's other path to udp_sendmsg) */
    ck_assert_int_eq(connect(tx, (struct sockaddr *)&mapped, sizeof(mapped)), 0);
    ck_assert_int_eq(send(tx, buf, 567, 0), 567);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 1234);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 567);
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent - b0.sent, 1234 + 567);
    ck_assert_uint_eq(b.received - b0.received, 1234 + 567);
    close(tx);
    close(rx);
    kit_close(&k);
}
END_TEST

/* sendmmsg and recvmmsg: one count a message. */
START_TEST(test_mmsg)
{
    struct kit k = start();
    struct sockaddr_storage to, from;
    socklen_t len, flen;
    int rx = bound(AF_INET, &to, &len);
    int tx = bound(AF_INET, &from, &flen);
    ck_assert_int_ge(rx, 0);
    ck_assert_int_ge(tx, 0);
    ck_assert_int_eq(connect(tx, (struct sockaddr *)&to, len), 0);
    enum { N = 8 };
    struct iovec iov[N];
    struct mmsghdr msgs[N];
    memset(msgs, 0, sizeof(msgs));
    uint64_t sum = 0;
    for (int i = 0; i < N; i++) {
        iov[i] = (struct iovec){.iov_base = buf + i * 4096, .iov_len = (size_t)(i * 300 + 11)};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        sum += iov[i].iov_len;
    }
    struct pt_udpcount_bytes b0 = own(&k);
    ck_assert_int_eq(sendmmsg(tx, msgs, N, 0), N);
    for (int i = 0; i < N; i++)
        iov[i].iov_len = 4096;
    int got = 0;
    while (got < N) {
        int r = recvmmsg(rx, msgs + got, N - got, 0, NULL);
        ck_assert_int_gt(r, 0);
        got += r;
    }
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent - b0.sent, sum);
    ck_assert_uint_eq(b.received - b0.received, sum);
    close(tx);
    close(rx);
    kit_close(&k);
}
END_TEST

/* A child and a grandchild, no members: their bytes are the member's,
 * their nearest member ancestor's; no entry of their own. */
START_TEST(test_child_counts_for_parent)
{
    struct kit k = start();
    struct sockaddr_storage to;
    socklen_t len;
    int rx = bound(AF_INET, &to, &len);
    ck_assert_int_ge(rx, 0);
    struct pt_udpcount_bytes b0 = own(&k);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        int tx = socket(AF_INET, SOCK_DGRAM, 0);
        for (int i = 0; i < 3; i++)
            if (sendto(tx, buf, 300, 0, (struct sockaddr *)&to, len) != 300)
                _exit(1);
        pid_t grandchild = fork();
        if (grandchild == 0)
            _exit(sendto(tx, buf, 50, 0, (struct sockaddr *)&to, len) == 50 ? 0 : 1);
        int status = 1;
        waitpid(grandchild, &status, 0);
        _exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
    }
    int status = 1;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_gt(recv(rx, buf, sizeof(buf), 0), 0);
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent - b0.sent, 950);
    ck_assert_uint_eq(b.received - b0.received, 950);
    ck_assert_uint_eq(pt_udpcount_entries(k.u), 1);
    close(rx);
    kit_close(&k);
}
END_TEST

static bool followed(pid_t tgid, void *arg)
{
    return pt_taskiter_follows(arg, tgid);
}

/* A member child counts for itself; once no target follows it, its
 * retired entry leaves the map. */
START_TEST(test_member_child)
{
    struct kit k = start();
    struct sockaddr_storage to;
    socklen_t len;
    int rx = bound(AF_INET, &to, &len);
    ck_assert_int_ge(rx, 0);
    int go[2], done[2];
    ck_assert_int_eq(pipe(go), 0);
    ck_assert_int_eq(pipe(done), 0);
    struct pt_udpcount_bytes b0 = own(&k);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(1);
        int tx = socket(AF_INET, SOCK_DGRAM, 0);
        bool ok = sendto(tx, buf, 2000, 0, (struct sockaddr *)&to, len) == 2000;
        ok = write(done[1], "d", 1) == 1 && ok;
        if (read(go[0], &c, 1) != 1) /* kept alive until its entry was read */
            _exit(1);
        _exit(ok ? 0 : 1);
    }
    uint64_t child_start = starttime_of(child);
    ck_assert_int_eq(pt_taskiter_follow(k.it, child), 0);
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    char c;
    ck_assert_int_eq(read(done[0], &c, 1), 1);
    bool there = false;
    struct pt_udpcount_bytes theirs = bytes_of(&k, child, child_start, &there);
    ck_assert(there);
    ck_assert_uint_eq(theirs.sent, 2000);
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent, b0.sent); /* not the parent's */
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    int status = 1;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 2000);
    /* gone and no longer followed: its last bytes still there to take,
     * then retired */
    pt_taskiter_unfollow(k.it, child);
    theirs = bytes_of(&k, child, child_start, &there);
    ck_assert(there);
    ck_assert_uint_eq(theirs.sent, 2000);
    pt_udpcount_retire(k.u, followed, k.it);
    bytes_of(&k, child, child_start, &there);
    ck_assert(!there);
    bytes_of(&k, getpid(), starttime_of(getpid()), &there);
    ck_assert(there); /* ours stays: we are followed */
    close(rx);
    kit_close(&k);
}
END_TEST

/* An orphan (its parent gone, re-parented away from the tree) and this
 * process once it is followed no more: nothing counted, no entry made. */
START_TEST(test_outside_not_counted)
{
    struct kit k = start();
    int subreaper = 0;
    ck_assert_int_eq(prctl(PR_GET_CHILD_SUBREAPER, &subreaper), 0);
    ck_assert_int_eq(subreaper, 0); /* else the orphan would be ours again */
    struct sockaddr_storage to;
    socklen_t len;
    int rx = bound(AF_INET, &to, &len);
    ck_assert_int_ge(rx, 0);
    int sent[2];
    ck_assert_int_eq(pipe(sent), 0);
    struct pt_udpcount_bytes b0 = own(&k);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        pid_t parent = getpid();
        pid_t orphan = fork();
        if (orphan == 0) {
            while (getppid() == parent) /* until its parent has exited */
                usleep(1000);
            int tx = socket(AF_INET, SOCK_DGRAM, 0);
            char ok = sendto(tx, buf, 999, 0, (struct sockaddr *)&to, len) == 999 ? 'y' : 'n';
            _exit(write(sent[1], &ok, 1) == 1 ? 0 : 1);
        }
        _exit(orphan > 0 ? 0 : 1);
    }
    int status = 1;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char ok = 0;
    ck_assert_int_eq(read(sent[0], &ok, 1), 1);
    ck_assert_int_eq(ok, 'y');
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 999);
    struct pt_udpcount_bytes b = own(&k);
    ck_assert_uint_eq(b.sent, b0.sent);
    ck_assert_uint_eq(b.received - b0.received, 999); /* our read of it is ours */
    ck_assert_uint_eq(pt_udpcount_entries(k.u), 1);
    /* no longer followed: our own sends are no one's */
    pt_taskiter_unfollow(k.it, getpid());
    int tx = socket(AF_INET, SOCK_DGRAM, 0);
    ck_assert_int_eq(sendto(tx, buf, 321, 0, (struct sockaddr *)&to, len), 321);
    ck_assert_int_eq(recv(rx, buf, sizeof(buf), 0), 321);
    struct pt_udpcount_bytes after = own(&k);
    ck_assert_uint_eq(after.sent, b.sent);
    ck_assert_uint_eq(after.received, b.received);
    close(tx);
    close(rx);
    kit_close(&k);
}
END_TEST

/* Must the programs load here (a failure is then a failure, not a skip)? */
static bool must_load(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    bool new_enough = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
                      (major > 6 || (major == 6 && minor >= 3)); /* the socket tracepoints */
    return geteuid() == 0 && pt_taskiter_built() && access("/sys/kernel/btf/vmlinux", R_OK) == 0 && new_enough;
}

int main(void)
{
    struct kit k;
    char why[256] = "";
    if (!kit_open(&k, why, sizeof(why))) {
        fprintf(stderr, "test_udpcount: the UDP counters cannot load here: %s\n", why);
        return must_load() ? EXIT_FAILURE : 77;
    }
    kit_close(&k);
    memset(buf, 'u', sizeof(buf));
    Suite *suite = suite_create("udpcount");
    TCase *tc = unit_tcase(suite, "kernel");
    tcase_add_test(tc, test_ipv4);
    tcase_add_test(tc, test_ipv6);
    tcase_add_test(tc, test_v4_mapped);
    tcase_add_test(tc, test_mmsg);
    tcase_add_test(tc, test_child_counts_for_parent);
    tcase_add_test(tc, test_member_child);
    tcase_add_test(tc, test_outside_not_counted);
    return unit_run(suite);
}
