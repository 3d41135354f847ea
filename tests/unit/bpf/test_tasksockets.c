/* Unit tests for the socket records of the task iterator's interval-end
 * pass (tasksockets.h): the reader's checks of the records it is handed
 * (a stream of task and group records, the array of socket records the
 * groups point into, and every way they can be short or wrong), and, with
 * the program loaded, this process's own TCP sockets (a pair on
 * 127.0.0.1 and one on ::1, with their listeners) against what fstat and
 * TCP_INFO say of the same descriptors: inode, family, state and the
 * bytes acked and received; a UDP socket and a pipe give no record; a
 * group of far more TCP sockets than one seq_file object could carry
 * (1,100 connected ones) listed whole, each one's bytes TCP_INFO's.
 *
 * The kernel cases need the program loaded: as root on a build with the
 * BPF source and a kernel with BTF they must load; elsewhere they say why
 * and pass without comparing. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpf/taskiter.h"
#include "bpf/tasksockets.h"
#include "unit.h"

/* ---- the reader's checks --------------------------------------------- */

/* A pass as the program writes it: task and group records appended to a
 * stream, socket records to an array. */
struct pass {
    char *bytes;
    size_t len;
    struct pt_taskrec_sock recs[16];
    size_t used;
};

static void append(struct pass *p, const struct pt_taskrec *r)
{
    p->bytes = realloc(p->bytes, p->len + sizeof(*r));
    ck_assert_ptr_nonnull(p->bytes);
    memcpy(p->bytes + p->len, r, sizeof(*r));
    p->len += sizeof(*r);
}

static void add_task(struct pass *p, uint32_t pid, uint32_t tgid)
{
    struct pt_taskrec r;
    memset(&r, 0, sizeof(r));
    r.kind = PT_TR_TASK;
    r.pid = pid;
    r.tgid = tgid;
    append(p, &r);
}

/* A group record whose sockets are the next n of the array (each added
 * with add_socket), or first and n as given when first is not ~0. */
static void add_group_at(struct pass *p, uint32_t tgid, uint64_t first, uint64_t n, uint64_t cut)
{
    struct pt_taskrec r;
    memset(&r, 0, sizeof(r));
    r.kind = PT_TR_GROUP;
    r.pid = r.tgid = tgid;
    r.group.sockets_first = first;
    r.group.sockets = n;
    r.group.sockets_cut = cut;
    append(p, &r);
}

static void add_group(struct pass *p, uint32_t tgid, uint64_t n, uint64_t cut)
{
    add_group_at(p, tgid, p->used, n, cut);
}

static void add_socket(struct pass *p, uint32_t tgid, uint32_t fd, uint64_t inode)
{
    ck_assert_uint_lt(p->used, sizeof(p->recs) / sizeof(p->recs[0]));
    p->recs[p->used++] =
        (struct pt_taskrec_sock){.inode = inode, .kind = PT_TR_SOCKET, .tgid = tgid, .fd = fd, .family = AF_INET};
}

/* take on exact heap copies of the stream and the array (the byte past
 * each a redzone), which stand while socks is used */
static int take(struct pt_tasksockets *socks, const struct pass *p, char **bytes, char **recs)
{
    *bytes = exact_copy(p->bytes ? p->bytes : "", p->len);
    *recs = exact_copy((const char *)p->recs, p->used * sizeof(p->recs[0]));
    return pt_tasksockets_take(socks, *bytes, p->len, (const struct pt_taskrec_sock *)(const void *)*recs, p->used);
}

static int take_once(struct pt_tasksockets *socks, const struct pass *p)
{
    char *bytes, *recs;
    int err = take(socks, p, &bytes, &recs);
    free(bytes);
    free(recs);
    return err;
}

START_TEST(test_take)
{
    struct pass s = {0};
    add_task(&s, 10, 10);
    add_group(&s, 10, 2, 0);
    add_socket(&s, 10, 3, 1001);
    add_socket(&s, 10, 7, 1002);
    add_task(&s, 11, 10);
    add_task(&s, 20, 20);
    add_group(&s, 20, 0, 1); /* none listed, some missing */
    add_task(&s, 30, 30);
    add_group(&s, 30, 1, 0);
    add_socket(&s, 30, 4, 3001);

    struct pt_tasksockets socks = {0};
    char *bytes, *recs;
    ck_assert_int_eq(take(&socks, &s, &bytes, &recs), 0);
    const struct pt_taskrec_sock *r;
    bool cut = true;
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 10, &r, &cut), 2);
    ck_assert(!cut);
    ck_assert_uint_eq(r[0].inode, 1001);
    ck_assert_uint_eq(r[0].fd, 3);
    ck_assert_uint_eq(r[1].inode, 1002);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 20, &r, &cut), 0);
    ck_assert_ptr_null(r);
    ck_assert(cut);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 30, &r, NULL), 1);
    ck_assert_uint_eq(r[0].inode, 3001);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 11, &r, &cut), 0); /* a thread, no group record */
    ck_assert(!cut);
    ck_assert_uint_eq(pt_tasksockets_of(NULL, 10, &r, &cut), 0);
    ck_assert_ptr_null(r);
    free(bytes);
    free(recs);

    /* the same store again: the last pass's alone */
    struct pass t = {0};
    add_task(&t, 30, 30);
    add_group(&t, 30, 0, 0);
    ck_assert_int_eq(take(&socks, &t, &bytes, &recs), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 10, &r, &cut), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 30, &r, &cut), 0);
    free(bytes);
    free(recs);

    /* an empty pass, with no array */
    ck_assert_int_eq(pt_tasksockets_take(&socks, NULL, 0, NULL, 0), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 30, &r, &cut), 0);
    pt_tasksockets_free(&socks);
    free(s.bytes);
    free(t.bytes);
}
END_TEST

/* Every way the kernel's bytes could be wrong is refused whole, and
 * leaves nothing indexed. */
START_TEST(test_take_refuses)
{
    struct pt_tasksockets socks = {0};
    const struct pt_taskrec_sock *r;
    struct pass good = {0};
    add_task(&good, 5, 5);
    add_group(&good, 5, 1, 0);
    add_socket(&good, 5, 3, 55);
    ck_assert_int_eq(take_once(&socks, &good), 0);

    /* the stream cut inside a record */
    for (size_t less = 1; less < sizeof(struct pt_taskrec); less += sizeof(struct pt_taskrec) / 3) {
        struct pass s = good;
        s.len -= less;
        ck_assert_int_eq(take_once(&socks, &s), -EIO);
        ck_assert_uint_eq(pt_tasksockets_of(&socks, 5, &r, NULL), 0);
    }
    /* a group's sockets past the array's records: one missing, a count
     * or a first far past, both wrapping */
    struct pass s = good;
    s.used = 0;
    ck_assert_int_eq(take_once(&socks, &s), -EIO);
    uint64_t firsts[] = {0, 1, 2, UINT64_MAX, UINT64_MAX / sizeof(struct pt_taskrec_sock) + 1};
    uint64_t counts[] = {2, 1, 0, 1, 1};
    for (size_t i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
        struct pass bad = {0};
        add_group_at(&bad, 5, firsts[i], counts[i], 0);
        add_socket(&bad, 5, 3, 55);
        ck_assert_msg(take_once(&socks, &bad) == -EIO, "first %llu, count %llu", (unsigned long long)firsts[i],
                      (unsigned long long)counts[i]);
        free(bad.bytes);
    }
    struct pass huge = {0};
    add_group_at(&huge, 5, 0, UINT64_MAX, 0);
    add_socket(&huge, 5, 3, 55);
    ck_assert_int_eq(take_once(&socks, &huge), -EIO);
    /* an array's records with no array */
    ck_assert_int_eq(pt_tasksockets_take(&socks, good.bytes, good.len, NULL, 1), -EIO);

    /* a socket record of another group, or not a socket record */
    struct pass other = {0};
    add_group(&other, 5, 1, 0);
    add_socket(&other, 6, 3, 55);
    ck_assert_int_eq(take_once(&socks, &other), -EIO);
    struct pass kind = {0};
    add_group(&kind, 5, 1, 0);
    add_socket(&kind, 5, 3, 55);
    kind.recs[0].kind = PT_TR_TASK;
    ck_assert_int_eq(take_once(&socks, &kind), -EIO);

    /* the good one still reads after them */
    char *bytes, *recs;
    ck_assert_int_eq(take(&socks, &good, &bytes, &recs), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 5, &r, NULL), 1);
    ck_assert_uint_eq(r->inode, 55);
    pt_tasksockets_free(&socks);
    free(bytes);
    free(recs);
    free(good.bytes);
    free(huge.bytes);
    free(other.bytes);
    free(kind.bytes);
}
END_TEST

/* ---- this process's sockets, read by the program ---------------------- */

static struct pt_taskiter *load_or_say(void)
{
    char why[256] = "";
    struct pt_taskiter *it = pt_taskiter_open(-1, why, sizeof(why));
    bool must = geteuid() == 0 && pt_taskiter_built() && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
    if (!it && must)
        ck_abort_msg("root, a BPF build and BTF, yet the task iterator did not load: %s", why);
    if (!it)
        fprintf(stderr, "test_tasksockets: no comparison with the kernel here: %s\n", why);
    return it;
}

static uint64_t inode_of(int fd)
{
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    return (uint64_t)st.st_ino;
}

/* A connected pair on the loopback address of family, and its listener;
 * false when this host has no such address (IPv6 off). */
static bool tcp_pair(int family, int *listener, int *client, int *server)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl;
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sl = sizeof(*a);
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        sl = sizeof(*a);
    }
    *listener = socket(family, SOCK_STREAM, 0);
    if (*listener < 0 && family == AF_INET6)
        return false;
    ck_assert_int_ge(*listener, 0);
    if (bind(*listener, (struct sockaddr *)&ss, sl) != 0) {
        ck_assert_msg(family == AF_INET6 && (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT), "bind: %s",
                      strerror(errno));
        close(*listener);
        return false;
    }
    ck_assert_int_eq(listen(*listener, 4), 0);
    ck_assert_int_eq(getsockname(*listener, (struct sockaddr *)&ss, &sl), 0);
    *client = socket(family, SOCK_STREAM, 0);
    ck_assert_int_ge(*client, 0);
    ck_assert_int_eq(connect(*client, (struct sockaddr *)&ss, sl), 0);
    *server = accept(*listener, NULL, NULL);
    ck_assert_int_ge(*server, 0);
    return true;
}

/* n bytes from one end to the other, all of them read: both ends in this
 * thread, so neither side may block on the other. */
static void transfer(int from, int to, size_t n)
{
    static char chunk[16384];
    size_t sent = 0, got = 0;
    while (got < n) {
        struct pollfd p[2] = {{.fd = from, .events = sent < n ? POLLOUT : 0}, {.fd = to, .events = POLLIN}};
        ck_assert_int_gt(poll(p, 2, 10000), 0);
        if (p[0].revents & POLLOUT) {
            size_t want = n - sent < sizeof(chunk) ? n - sent : sizeof(chunk);
            ssize_t k = send(from, chunk, want, MSG_DONTWAIT);
            ck_assert_msg(k > 0 || errno == EAGAIN, "send: %s", strerror(errno));
            if (k > 0)
                sent += (size_t)k;
        }
        if (p[1].revents & POLLIN) {
            char in[16384];
            ssize_t k = recv(to, in, sizeof(in), MSG_DONTWAIT);
            ck_assert_msg(k > 0 || errno == EAGAIN, "recv: %s", strerror(errno));
            if (k > 0)
                got += (size_t)k;
        }
    }
    ck_assert_uint_eq(sent, n);
}

static struct tcp_info info_of(int fd)
{
    struct tcp_info ti;
    memset(&ti, 0, sizeof(ti));
    socklen_t len = sizeof(ti);
    ck_assert_int_eq(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
    ck_assert_uint_ge(len, offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received));
    return ti;
}

/* Until every byte sent is acked (the peer read them all before): from
 * then on, with no traffic, the counts stand still. */
static void until_acked(int fd)
{
    for (int i = 0; i < 1000; i++) {
        if (info_of(fd).tcpi_unacked == 0)
            return;
        struct timespec ms = {0, 10 * 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    ck_abort_msg("fd %d: bytes still unacked after 10 s on loopback", fd);
}

static const struct pt_taskrec_sock *find(const struct pt_taskrec_sock *r, size_t n, uint64_t inode)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].inode == inode)
            return &r[i];
    return NULL;
}

/* The record of descriptor fd, against fstat and TCP_INFO of the same. */
static void check_socket(const struct pt_taskrec_sock *r, size_t n, int fd, int family)
{
    const struct pt_taskrec_sock *s = find(r, n, inode_of(fd));
    ck_assert_msg(s != NULL, "fd %d (inode %llu): no record", fd, (unsigned long long)inode_of(fd));
    struct tcp_info ti = info_of(fd);
    ck_assert_uint_eq(s->fd, (uint32_t)fd);
    ck_assert_uint_eq(s->tgid, (uint32_t)getpid());
    ck_assert_uint_eq(s->family, (uint32_t)family);
    ck_assert_uint_eq(s->state, ti.tcpi_state);
    ck_assert_msg(s->bytes_acked == ti.tcpi_bytes_acked, "fd %d: %llu bytes acked by the record, %llu by TCP_INFO", fd,
                  (unsigned long long)s->bytes_acked, (unsigned long long)ti.tcpi_bytes_acked);
    ck_assert_msg(s->bytes_received == ti.tcpi_bytes_received,
                  "fd %d: %llu bytes received by the record, %llu by TCP_INFO", fd,
                  (unsigned long long)s->bytes_received, (unsigned long long)ti.tcpi_bytes_received);
}

START_TEST(test_own_sockets)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { FORTH = 100000, BACK = 30000 };
    int families[2] = {AF_INET, AF_INET6};
    int lst[2], cli[2], srv[2];
    bool have[2];
    for (int f = 0; f < 2; f++) {
        have[f] = tcp_pair(families[f], &lst[f], &cli[f], &srv[f]);
        if (!have[f]) {
            fprintf(stderr, "test_tasksockets: no ::1 here: IPv6 not compared\n");
            continue;
        }
        transfer(cli[f], srv[f], FORTH);
        transfer(srv[f], cli[f], BACK);
        until_acked(cli[f]);
        until_acked(srv[f]);
    }
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    ck_assert_int_ge(udp, 0);
    int pipes[2];
    ck_assert_int_eq(pipe(pipes), 0);

    ck_assert_int_eq(pt_taskiter_follow(it, getpid()), 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    const struct pt_taskrec_sock *r;
    bool cut = true;
    size_t n = pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut);
    ck_assert(!cut);
    const struct pt_taskrec *g = pt_taskiter_group(it, getpid());
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_eq(g->group.sockets, n);
    ck_assert_uint_eq(g->group.sockets_cut, 0);
    for (int f = 0; f < 2; f++) {
        if (!have[f])
            continue;
        check_socket(r, n, cli[f], families[f]);
        check_socket(r, n, srv[f], families[f]);
        check_socket(r, n, lst[f], families[f]);
        /* what TCP guarantees of the counts: the payload, each way */
        const struct pt_taskrec_sock *c = find(r, n, inode_of(cli[f]));
        const struct pt_taskrec_sock *s = find(r, n, inode_of(srv[f]));
        ck_assert_uint_eq(c->bytes_received, BACK);
        ck_assert_uint_eq(s->bytes_received, FORTH);
        ck_assert_uint_ge(c->bytes_acked, FORTH);
        ck_assert_uint_ge(s->bytes_acked, BACK);
        ck_assert_uint_eq(c->state, 1);                             /* TCP_ESTABLISHED */
        ck_assert_uint_eq(find(r, n, inode_of(lst[f]))->state, 10); /* TCP_LISTEN */
    }
    ck_assert_ptr_null(find(r, n, inode_of(udp)));
    ck_assert_ptr_null(find(r, n, inode_of(pipes[0])));
    ck_assert_ptr_null(find(r, n, inode_of(pipes[1])));
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(r[i].kind, PT_TR_SOCKET);
        ck_assert(r[i].family == AF_INET || r[i].family == AF_INET6);
    }

    /* a pass told to list none (no target follows them) lists none, and
     * says they are missing; told again, it lists them */
    pt_taskiter_list_sockets(it, false);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), 0);
    ck_assert(cut);
    ck_assert_ptr_nonnull(pt_taskiter_group(it, getpid())); /* the rest of the pass stands */
    pt_taskiter_list_sockets(it, true);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), n);
    ck_assert(!cut);
    /* nor does a pass that wants none (a poll's), and the next lists them */
    ck_assert_int_eq(pt_taskiter_snapshot_sockets(it, PT_TR_MODE_FULL, false), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), 0);
    ck_assert(cut);
    ck_assert_int_eq(pt_taskiter_snapshot_sockets(it, PT_TR_MODE_FULL, true), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), n);
    ck_assert(!cut);

    /* a poll's snapshot holds none; nor does one of a process not followed */
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    ck_assert_ptr_null(pt_taskiter_sockets(it));
    pt_taskiter_unfollow(it, getpid());
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), 0);
    pt_taskiter_close(it);
}
END_TEST

/* Every descriptor's TCP socket however many a group holds: 550
 * connected pairs (1,100 sockets, and their listener), each pair with
 * bytes of its own each way, all listed in descriptor order, none cut,
 * each one's bytes TCP_INFO's; then all closed, none. One seq_file object
 * could carry no more than 600 or so. */
START_TEST(test_many)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { PAIRS = 550, N = 2 * PAIRS };
    struct rlimit lim;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &lim), 0);
    if (lim.rlim_cur < N + 64) {
        lim.rlim_cur = lim.rlim_max < N + 64 ? lim.rlim_max : N + 64;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
    }
    ck_assert_uint_ge(lim.rlim_cur, N + 64);
    int lst, fds[N];
    ck_assert(tcp_pair(AF_INET, &lst, &fds[0], &fds[1]));
    ck_assert_int_eq(listen(lst, PAIRS), 0);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    ck_assert_int_eq(getsockname(lst, (struct sockaddr *)&ss, &sl), 0);
    for (int i = 1; i < PAIRS; i++) {
        fds[2 * i] = socket(AF_INET, SOCK_STREAM, 0);
        ck_assert_int_ge(fds[2 * i], 0);
        ck_assert_int_eq(connect(fds[2 * i], (struct sockaddr *)&ss, sl), 0);
        fds[2 * i + 1] = accept(lst, NULL, NULL);
        ck_assert_int_ge(fds[2 * i + 1], 0);
    }
    for (int i = 0; i < PAIRS; i++) {
        transfer(fds[2 * i], fds[2 * i + 1], (size_t)i + 1);
        transfer(fds[2 * i + 1], fds[2 * i], 2 * (size_t)i + 1);
    }
    /* every byte acked (delayed acks come within a fraction of a second) */
    for (int tries = 0, left = N; left > 0; tries++) {
        ck_assert_msg(tries < 1000, "%d sockets with bytes unacked after 10 s on loopback", left);
        left = 0;
        for (int i = 0; i < N; i++)
            left += info_of(fds[i]).tcpi_unacked != 0;
        if (left) {
            struct timespec ms = {0, 10 * 1000 * 1000};
            nanosleep(&ms, NULL);
        }
    }
    ck_assert_int_eq(pt_taskiter_follow(it, getpid()), 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    const struct pt_taskrec_sock *r;
    bool cut = true;
    size_t n = pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut);
    ck_assert(!cut);
    ck_assert_uint_ge(n, N + 1);
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_lt(r[i - 1].fd, r[i].fd);
    for (int i = 0; i < N; i++)
        check_socket(r, n, fds[i], AF_INET);
    check_socket(r, n, lst, AF_INET);
    /* TCP's own guarantee, each way: the payload, and the SYN and FIN at most */
    for (int i = 0; i < PAIRS; i++) {
        const struct pt_taskrec_sock *c = find(r, n, inode_of(fds[2 * i]));
        ck_assert_uint_eq(c->bytes_received, 2 * (uint64_t)i + 1);
        ck_assert_uint_ge(c->bytes_acked, (uint64_t)i + 1);
    }
    uint64_t inodes[N];
    for (int i = 0; i < N; i++) {
        inodes[i] = inode_of(fds[i]);
        close(fds[i]);
    }
    close(lst);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    n = pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut);
    ck_assert(!cut);
    for (int i = 0; i < N; i++)
        ck_assert_ptr_null(find(r, n, inodes[i]));
    pt_taskiter_close(it);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("tasksockets");
    TCase *tc = unit_tcase(suite, "reader");
    tcase_add_test(tc, test_take);
    tcase_add_test(tc, test_take_refuses);
    tc = unit_tcase(suite, "kernel");
    tcase_add_test(tc, test_own_sockets);
    tcase_add_test(tc, test_many);
    return unit_run(suite);
}
