/* Unit tests for the socket records of the task iterator's interval-end
 * pass (tasksockets.h): the reader's checks of the records it is handed
 * (a stream of tasks, groups and sockets, and every way it can be short
 * or wrong), and, with the program loaded, this process's own TCP
 * sockets (a pair on 127.0.0.1 and one on ::1, with their listeners)
 * against what fstat and TCP_INFO say of the same descriptors: inode,
 * family, state and the bytes acked and received; a UDP socket and a
 * pipe give no record; more TCP sockets than a group's bound are cut and
 * said to be.
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

/* A stream as the program writes it: records appended to a heap buffer. */
struct stream {
    char *bytes;
    size_t len;
};

static void append(struct stream *s, const void *rec, size_t size)
{
    s->bytes = realloc(s->bytes, s->len + size);
    ck_assert_ptr_nonnull(s->bytes);
    memcpy(s->bytes + s->len, rec, size);
    s->len += size;
}

static void add_task(struct stream *s, uint32_t pid, uint32_t tgid)
{
    struct pt_taskrec r;
    memset(&r, 0, sizeof(r));
    r.kind = PT_TR_TASK;
    r.pid = pid;
    r.tgid = tgid;
    append(s, &r, sizeof(r));
}

static void add_group(struct stream *s, uint32_t tgid, uint64_t sockets, uint64_t cut)
{
    struct pt_taskrec r;
    memset(&r, 0, sizeof(r));
    r.kind = PT_TR_GROUP;
    r.pid = r.tgid = tgid;
    r.group.sockets = sockets;
    r.group.sockets_cut = cut;
    append(s, &r, sizeof(r));
}

static void add_socket(struct stream *s, uint32_t tgid, uint32_t fd, uint64_t inode)
{
    struct pt_taskrec_sock r = {.inode = inode, .kind = PT_TR_SOCKET, .tgid = tgid, .fd = fd, .family = AF_INET};
    append(s, &r, sizeof(r));
}

/* take on an exact heap copy of the stream (the byte past it a redzone) */
static int take(struct pt_tasksockets *socks, const struct stream *s, size_t *len)
{
    char *copy = exact_copy(s->bytes, s->len);
    *len = s->len;
    int err = pt_tasksockets_take(socks, copy, len);
    if (err == 0) {
        /* what is packed is the task and group records, in order */
        for (size_t at = 0; at < *len; at += sizeof(struct pt_taskrec)) {
            const struct pt_taskrec *r = (const struct pt_taskrec *)(const void *)(copy + at);
            ck_assert(r->kind == PT_TR_TASK || r->kind == PT_TR_GROUP);
        }
    }
    free(copy);
    return err;
}

START_TEST(test_take)
{
    struct stream s = {0};
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
    size_t len;
    ck_assert_int_eq(take(&socks, &s, &len), 0);
    ck_assert_uint_eq(len, 7 * sizeof(struct pt_taskrec));
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

    /* the same store again: the last pass's alone */
    struct stream t = {0};
    add_task(&t, 30, 30);
    add_group(&t, 30, 0, 0);
    ck_assert_int_eq(take(&socks, &t, &len), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 10, &r, &cut), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 30, &r, &cut), 0);

    /* an empty pass */
    struct stream e = {0};
    ck_assert_int_eq(take(&socks, &e, &len), 0);
    ck_assert_uint_eq(len, 0);
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
    size_t len;
    struct stream good = {0};
    add_task(&good, 5, 5);
    add_group(&good, 5, 1, 0);
    add_socket(&good, 5, 3, 55);

    /* cut short: inside a task record, inside a socket record, a socket missing */
    for (size_t less = 1; less <= sizeof(struct pt_taskrec_sock) + 1; less += sizeof(struct pt_taskrec_sock) / 2) {
        struct stream s = {0};
        append(&s, good.bytes, good.len - less);
        ck_assert_int_eq(take(&socks, &s, &len), -EIO);
        ck_assert_uint_eq(pt_tasksockets_of(&socks, 5, &r, NULL), 0);
        free(s.bytes);
    }
    struct stream s = {0};
    append(&s, good.bytes, sizeof(struct pt_taskrec) - 8);
    ck_assert_int_eq(take(&socks, &s, &len), -EIO);
    free(s.bytes);

    /* a count past the bound, or past the bytes there */
    struct stream big = {0};
    add_group(&big, 5, PT_TASKREC_SOCK_MAX + 1, 0);
    for (int i = 0; i <= PT_TASKREC_SOCK_MAX; i++)
        add_socket(&big, 5, (uint32_t)i, (uint64_t)i);
    ck_assert_int_eq(take(&socks, &big, &len), -EIO);
    struct stream huge = {0};
    add_group(&huge, 5, UINT64_MAX, 0);
    add_socket(&huge, 5, 3, 55);
    ck_assert_int_eq(take(&socks, &huge, &len), -EIO);

    /* a socket record of another group, or not a socket record */
    struct stream other = {0};
    add_group(&other, 5, 1, 0);
    add_socket(&other, 6, 3, 55);
    ck_assert_int_eq(take(&socks, &other, &len), -EIO);
    struct stream kind = {0};
    add_group(&kind, 5, 1, 0);
    struct pt_taskrec_sock wrong = {.kind = PT_TR_TASK, .tgid = 5};
    append(&kind, &wrong, sizeof(wrong));
    ck_assert_int_eq(take(&socks, &kind, &len), -EIO);

    /* the good one still reads after them */
    ck_assert_int_eq(take(&socks, &good, &len), 0);
    ck_assert_uint_eq(pt_tasksockets_of(&socks, 5, &r, NULL), 1);
    ck_assert_uint_eq(r->inode, 55);
    pt_tasksockets_free(&socks);
    free(good.bytes);
    free(big.bytes);
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

    /* a poll's snapshot holds none; nor does one of a process not followed */
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_STATM), 0);
    ck_assert_ptr_null(pt_taskiter_sockets(it));
    pt_taskiter_unfollow(it, getpid());
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), 0);
    pt_taskiter_close(it);
}
END_TEST

/* More TCP sockets than a group's bound: the first PT_TASKREC_SOCK_MAX,
 * in descriptor order, and the group says some are missing. */
START_TEST(test_cut)
{
    struct pt_taskiter *it = load_or_say();
    if (!it)
        return;
    enum { N = PT_TASKREC_SOCK_MAX + 40 };
    struct rlimit lim;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &lim), 0);
    if (lim.rlim_cur < N + 64) {
        lim.rlim_cur = lim.rlim_max < N + 64 ? lim.rlim_max : N + 64;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
    }
    ck_assert_uint_ge(lim.rlim_cur, N + 64);
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = socket(i % 2 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
        if (fds[i] < 0) /* IPv6 off: v4 alone */
            fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        ck_assert_int_ge(fds[i], 0);
    }
    ck_assert_int_eq(pt_taskiter_follow(it, getpid()), 0);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    const struct pt_taskrec_sock *r;
    bool cut = false;
    size_t n = pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut);
    ck_assert_uint_eq(n, PT_TASKREC_SOCK_MAX);
    ck_assert(cut);
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_lt(r[i - 1].fd, r[i].fd);
    /* the lowest descriptors listed, the highest left out */
    ck_assert_ptr_nonnull(find(r, n, inode_of(fds[0])));
    ck_assert_ptr_null(find(r, n, inode_of(fds[N - 1])));
    for (int i = 0; i < N; i++)
        close(fds[i]);
    ck_assert_int_eq(pt_taskiter_snapshot(it, PT_TR_MODE_FULL), 0);
    ck_assert_uint_eq(pt_tasksockets_of(pt_taskiter_sockets(it), getpid(), &r, &cut), 0);
    ck_assert(!cut);
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
    tcase_add_test(tc, test_cut);
    return unit_run(suite);
}
