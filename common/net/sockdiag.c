#include "net/sockdiag.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/base.h"

/* One read's room: the kernel fills a dump's answer to a page or two of
 * messages a read (about 250 bytes a socket with its tcp_info); a
 * notification is one message. */
#define PT_SOCKDIAG_BUF (64 << 10)
/* Room for a burst of closes: a notification is about 300 bytes of
 * message, more of the socket's budget with its overhead, so 4 MiB
 * (8 as the kernel doubles it) hold some 10,000 closes between two
 * drains, a tenth of a second apart. Memory is taken only by what is
 * queued. */
#define PT_SOCKDIAG_RCVBUF (4 << 20)
/* A dump is answered at once; a kernel that stalls is not waited on. */
#define PT_SOCKDIAG_DUMP_TIMEOUT_S 1

/* The states dumped: every one but LISTEN (no connection: no bytes),
 * TIME_WAIT and NEW_SYN_RECV (mini sockets: no inode, their bytes
 * already told by the socket they were). */
enum { PT_TCP_TIME_WAIT = 6, PT_TCP_LISTEN = 10, PT_TCP_NEW_SYN_RECV = 12 }; /* the kernel's enum, net/tcp_states.h */
#define PT_TCP_STATES_DUMPED                                                                                           \
    (((1u << 16) - 1) & ~((1u << PT_TCP_LISTEN) | (1u << PT_TCP_TIME_WAIT) | (1u << PT_TCP_NEW_SYN_RECV)))

/* The two counters' end in struct tcp_info: a shorter one (a kernel
 * before 4.1) gives none. */
#define PT_TCP_INFO_MIN (offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(uint64_t))

bool pt_sockdiag_dumps_state(uint8_t state)
{
    return state < 16 && (PT_TCP_STATES_DUMPED >> state) & 1;
}

static void tell(const struct nlmsghdr *h, pt_tcpsock_fn fn, void *arg)
{
    const struct inet_diag_msg *msg = NLMSG_DATA(h);
    struct pt_tcpsock s = {
        .inode = msg->idiag_inode,
        .cookie = (uint64_t)msg->id.idiag_cookie[0] | (uint64_t)msg->id.idiag_cookie[1] << 32,
        .family = msg->idiag_family,
        .state = msg->idiag_state,
    };
    int left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*msg)));
    for (const struct rtattr *a = (const struct rtattr *)(msg + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
        if (a->rta_type != INET_DIAG_INFO || RTA_PAYLOAD(a) < PT_TCP_INFO_MIN)
            continue;
        struct tcp_info info;
        memset(&info, 0, sizeof(info));
        size_t n = RTA_PAYLOAD(a) < sizeof(info) ? RTA_PAYLOAD(a) : sizeof(info);
        memcpy(&info, RTA_DATA(a), n);
        s.sent = info.tcpi_bytes_acked;
        s.received = info.tcpi_bytes_received;
        s.has_bytes = true;
    }
    fn(&s, arg);
}

int pt_sockdiag_parse(const void *buf, size_t len, uint32_t seq, pt_tcpsock_fn fn, void *arg)
{
    if (len > INT32_MAX)
        len = INT32_MAX; /* NLMSG_OK's arithmetic is an int's */
    int left = (int)len;
    for (const struct nlmsghdr *h = buf; left > 0; h = NLMSG_NEXT(h, left)) {
        /* NLMSG_OK compares the length as an int: 0xffffffff would pass */
        if (!NLMSG_OK(h, left) || h->nlmsg_len > (uint32_t)left)
            return -EBADMSG; /* a header cut, or a length past the buffer */
        if (seq && h->nlmsg_seq != seq)
            continue;
        if (h->nlmsg_type == NLMSG_DONE)
            return PT_SOCKDIAG_DONE;
        if (h->nlmsg_type == NLMSG_ERROR) {
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
                return -EBADMSG;
            const struct nlmsgerr *e = NLMSG_DATA(h);
            return e->error < 0 && e->error > -4096 ? e->error : -EBADMSG;
        }
        if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
            continue;
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
            return -EBADMSG;
        tell(h, fn, arg);
    }
    return PT_SOCKDIAG_MORE;
}

static int open_socket(bool nonblock)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), NETLINK_SOCK_DIAG);
    return fd >= 0 ? fd : -errno;
}

int pt_sockdiag_open(struct pt_sockdiag *d)
{
    d->dump_fd = d->destroy_fd = -1;
    d->seq = 0;
    d->buf = NULL;
    int fd = open_socket(false);
    if (fd < 0)
        return fd;
    struct timeval tv = {.tv_sec = PT_SOCKDIAG_DUMP_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    d->dump_fd = fd;
    d->buf_size = PT_SOCKDIAG_BUF;
    d->buf = pt_xalloc(d->buf_size);
    return 0;
}

int pt_sockdiag_listen(struct pt_sockdiag *d)
{
    int fd = open_socket(true);
    if (fd < 0)
        return fd;
    int size = PT_SOCKDIAG_RCVBUF;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    /* bound first: the kernel's broadcast passes over a socket whose port
     * id is its own, 0, and an unbound socket's is 0 (measured: an
     * unbound member of the groups hears nothing) */
    struct sockaddr_nl self = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&self, sizeof(self)) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    static const int groups[] = {SKNLGRP_INET_TCP_DESTROY, SKNLGRP_INET6_TCP_DESTROY};
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
        if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &groups[i], sizeof(groups[i])) != 0) {
            int err = -errno;
            close(fd);
            return err;
        }
    d->destroy_fd = fd;
    return 0;
}

void pt_sockdiag_close(struct pt_sockdiag *d)
{
    if (d->dump_fd >= 0)
        close(d->dump_fd);
    if (d->destroy_fd >= 0)
        close(d->destroy_fd);
    free(d->buf);
    d->dump_fd = d->destroy_fd = -1;
    d->buf = NULL;
}

static int dump_family(struct pt_sockdiag *d, uint8_t family, pt_tcpsock_fn fn, void *arg)
{
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } req;
    memset(&req, 0, sizeof(req));
    if (++d->seq == 0)
        d->seq = 1; /* 0 would take any answer */
    req.h.nlmsg_len = sizeof(req);
    req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = d->seq;
    req.r.sdiag_family = family;
    req.r.sdiag_protocol = IPPROTO_TCP;
    req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
    req.r.idiag_states = PT_TCP_STATES_DUMPED;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(d->dump_fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
        return -errno;
    for (;;) {
        ssize_t n = recv(d->dump_fd, d->buf, d->buf_size, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EBADMSG;
        int r = pt_sockdiag_parse(d->buf, (size_t)n, d->seq, fn, arg);
        if (r != PT_SOCKDIAG_MORE)
            return r == PT_SOCKDIAG_DONE ? 0 : r;
    }
}

int pt_sockdiag_dump(struct pt_sockdiag *d, pt_tcpsock_fn fn, void *arg)
{
    if (d->dump_fd < 0)
        return -EBADF;
    int r4 = dump_family(d, AF_INET, fn, arg);
    int r6 = dump_family(d, AF_INET6, fn, arg);
    /* a host without IPv6 answers its dump with ENOENT: nothing to tell */
    if (r6 == -ENOENT || r6 == -EAFNOSUPPORT)
        r6 = 0;
    return r4 ? r4 : r6;
}

int pt_sockdiag_drain(struct pt_sockdiag *d, pt_tcpsock_fn fn, void *arg)
{
    if (d->destroy_fd < 0)
        return 0;
    int lost = 0;
    for (;;) {
        ssize_t n = recv(d->destroy_fd, d->buf, d->buf_size, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOBUFS) {
                lost = -ENOBUFS;
                continue;
            }
            return lost;
        }
        pt_sockdiag_parse(d->buf, (size_t)n, 0, fn, arg);
    }
}
