/* sockdiag: the host's TCP sockets as the kernel's sock_diag netlink
 * family tells them, without BPF.
 *
 * A dump (one request for IPv4, one for IPv6, every state but LISTEN,
 * TIME_WAIT and SYN_RECV: those hold no bytes of a connection, or no
 * inode) gives each socket's inode, its cookie (the kernel's id of the
 * socket, never reused while the host runs: an inode number may be) and
 * its struct tcp_info (INET_DIAG_INFO): tcpi_bytes_acked is what it
 * sent, tcpi_bytes_received what it received. Any user may dump.
 *
 * The destroy notifications (the multicast groups
 * SKNLGRP_INET_TCP_DESTROY and SKNLGRP_INET6_TCP_DESTROY) carry a TCP
 * socket's last counters as it is freed; Linux 6.18 lets any user join
 * them (measured as nobody, no capability: the kernel's sock_diag
 * netlink takes NL_CFG_F_NONROOT_RECV and its bind checks nothing); a
 * kernel that refuses says EPERM. A socket its process has
 * closed is orphaned: its inode then reads 0, and only its cookie names
 * it. The socket for them is non-blocking and drained by the thread that
 * polls; what overflowed its buffer is lost (the drain says so).
 *
 * The parser takes the kernel's bytes as untrusted: every message and
 * attribute length is checked against what is left (NLMSG_OK, RTA_OK),
 * a tcp_info shorter than the two counters' offset gives no counters. */
#ifndef PROCTREE_SOCKDIAG_H
#define PROCTREE_SOCKDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One TCP socket as a message told it. */
struct pt_tcpsock {
    uint64_t inode; /* 0: orphaned (closed by its process) */
    uint64_t cookie;
    uint64_t sent, received; /* tcpi_bytes_acked, tcpi_bytes_received */
    bool has_bytes;          /* the message held a tcp_info long enough for both */
    uint8_t family, state;
};

typedef void (*pt_tcpsock_fn)(const struct pt_tcpsock *s, void *arg);

/* pt_sockdiag_parse's ends. */
enum { PT_SOCKDIAG_MORE = 0, PT_SOCKDIAG_DONE = 1 };

/* The messages in buf[0..len): fn for each inet_diag message
 * (SOCK_DIAG_BY_FAMILY, both a dump's answer and a destroy
 * notification) of sequence number seq (0: any; a dump's answer carries
 * its request's, so what an abandoned dump left is passed over). Other
 * types are passed over. PT_SOCKDIAG_DONE at NLMSG_DONE, PT_SOCKDIAG_MORE when
 * the buffer ended first, -errno for an NLMSG_ERROR, -EBADMSG for a
 * message that is cut or malformed (the ones before it told). */
int pt_sockdiag_parse(const void *buf, size_t len, uint32_t seq, pt_tcpsock_fn fn, void *arg);

struct pt_sockdiag {
    int dump_fd;    /* -1: closed */
    int destroy_fd; /* -1: not listening (refused, or not asked) */
    uint32_t seq;
    void *buf; /* one read's room */
    size_t buf_size;
};

/* Does a dump tell a TCP socket in state (the kernel's TCP_ESTABLISHED,
 * TCP_LISTEN, ...)? Every state but LISTEN, TIME_WAIT and NEW_SYN_RECV:
 * what a walk of the sockets themselves finds is taken as a dump's where
 * it is in one of these alone. */
bool pt_sockdiag_dumps_state(uint8_t state);

/* The dump socket. Returns 0, or -errno (sock_diag missing). */
int pt_sockdiag_open(struct pt_sockdiag *d);
/* Join the destroy notifications' groups. Returns 0, or -errno (-EPERM
 * where the kernel wants CAP_NET_ADMIN for them). */
int pt_sockdiag_listen(struct pt_sockdiag *d);
void pt_sockdiag_close(struct pt_sockdiag *d);

/* fn for every TCP socket of both families. Returns 0, or -errno of the
 * first dump that failed (the sockets before it told). */
int pt_sockdiag_dump(struct pt_sockdiag *d, pt_tcpsock_fn fn, void *arg);
/* fn for every destroy notification queued, without waiting. Returns 0,
 * -ENOBUFS when notifications were lost since the last drain. */
int pt_sockdiag_drain(struct pt_sockdiag *d, pt_tcpsock_fn fn, void *arg);

#endif
