#include "netlink/procevents.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/base.h"

/* How long the kernel's answer to the listen request is awaited in all,
 * once, at start, whatever else arrives meanwhile: it comes at once, or
 * the connector is not there (collectd's init waits on this). */
#define PT_PROCEVENTS_ACK_MS 500
/* Room for a burst. Every fork and exit on the host comes to every
 * listener, and each event takes about 830 bytes of the socket's budget
 * (its buffer's true size, measured: 10,082 events filled the 8 MiB the
 * kernel makes of 4 MiB asked). One core makes 25,000 to 40,000 forks a
 * second (vfork), 50,000 to 80,000 events: the kernel doubles these
 * 16 MiB to 32, about 40,000 events, half a second of such a storm, which
 * our start-up or a busy host's scheduling may keep us from draining
 * (4 MiB lost some at start-up beside a 36,000 forks/s storm). Memory is
 * taken only by what is queued. Without CAP_NET_ADMIN the kernel caps it
 * at net.core.rmem_max. */
#define PT_PROCEVENTS_RCVBUF (16 << 20)

/* One netlink message carrying a connector message carrying op. */
static int send_op(int fd, enum proc_cn_mcast_op op)
{
    struct {
        struct nlmsghdr nl;
        struct cn_msg cn;
        enum proc_cn_mcast_op op;
    } __attribute__((packed)) msg;
    memset(&msg, 0, sizeof(msg));
    msg.nl.nlmsg_len = sizeof(msg);
    msg.nl.nlmsg_type = NLMSG_DONE;
    msg.nl.nlmsg_pid = (uint32_t)getpid();
    msg.cn.id.idx = CN_IDX_PROC;
    msg.cn.id.val = CN_VAL_PROC;
    msg.cn.len = sizeof(op);
    msg.op = op;
    return send(fd, &msg, sizeof(msg), 0) == (ssize_t)sizeof(msg) ? 0 : -errno;
}

/* The event one netlink message carries, copied out: the connector's
 * 20-byte header leaves it only 4-aligned, and it holds 64-bit fields.
 * False when the message is too short or not the proc connector's. */
static bool event_of(const struct nlmsghdr *nl, struct proc_event *ev)
{
    if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event)))
        return false;
    const struct cn_msg *cn = NLMSG_DATA(nl);
    if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
        return false;
    memcpy(ev, cn->data, sizeof(*ev));
    return true;
}

/* The kernel answers the listen request with an event carrying an error
 * (EPERM where it wants CAP_NET_ADMIN); older kernels do not answer a
 * request from another namespace at all. The answer does not say whose
 * request it answers (6.18 numbers it its own way), so another listener's
 * could be taken for ours: then its events are still ours to read. Events
 * read meanwhile are dropped: the first discovery walks /proc anyway. */
static int await_ack(int fd)
{
    double give_up = pt_now() + PT_PROCEVENTS_ACK_MS / 1000.0;
    for (;;) {
        double left = give_up - pt_now();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -ETIMEDOUT;
        _Alignas(struct nlmsghdr) char buf[1024];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        const struct nlmsghdr *nl = (const struct nlmsghdr *)buf;
        struct proc_event ev;
        if (!NLMSG_OK(nl, (size_t)n) || !event_of(nl, &ev))
            continue;
        if (ev.what == PROC_EVENT_NONE)
            return ev.event_data.ack.err ? -(int)ev.event_data.ack.err : 0;
    }
}

int pt_procevents_open(struct pt_procevents *ev)
{
    *ev = (struct pt_procevents){.fd = -1};
    int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
    if (fd < 0)
        return -errno;
    int size = PT_PROCEVENTS_RCVBUF;
    /* FORCE passes rmem_max where permitted (CAP_NET_ADMIN, which we need anyway) */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    struct sockaddr_nl addr = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0};
    int err = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 ? 0 : -errno;
    if (!err)
        err = send_op(fd, PROC_CN_MCAST_LISTEN);
    if (!err)
        err = await_ack(fd);
    if (err) {
        close(fd);
        return err;
    }
    ev->fd = fd;
    return 0;
}

void pt_procevents_close(struct pt_procevents *ev)
{
    if (ev->fd >= 0) {
        send_op(ev->fd, PROC_CN_MCAST_IGNORE); /* the kernel counts its listeners */
        close(ev->fd);
    }
    free(ev->events);
    pt_pidmap_free(&ev->starts);
    *ev = (struct pt_procevents){.fd = -1};
}

static void add(struct pt_procevents *ev, enum pt_procevent_kind kind, pid_t pid, pid_t parent, uint64_t ns)
{
    if (ev->n_events == ev->cap_events) {
        ev->cap_events = ev->cap_events ? ev->cap_events * 2 : 256;
        ev->events = pt_xrealloc_array(ev->events, ev->cap_events, sizeof(*ev->events));
    }
    ev->events[ev->n_events] = (struct pt_procevent){kind, pid, parent, false, (double)ns / 1e9};
    if (kind == PT_PROCEVENT_START) {
        pt_pidmap_put(&ev->starts, pid, (uint32_t)ev->n_events);
    } else if (kind == PT_PROCEVENT_EXIT) {
        long start = pt_pidmap_get(&ev->starts, pid);
        if (start >= 0)
            ev->events[start].ends = true;
    }
    ev->n_events++;
}

/* One event, as proctree sees it; a thread's fork or exit is none. The
 * timestamp is the kernel's ktime_get_ns(): CLOCK_MONOTONIC. The fork's
 * parent is the child's real parent (the forker, or with CLONE_PARENT
 * the forker's parent): a process either way. */
static void hand_over(struct pt_procevents *ev, const struct proc_event *e)
{
    switch (e->what) {
    case PROC_EVENT_FORK:
        if (e->event_data.fork.child_pid == e->event_data.fork.child_tgid)
            add(ev, PT_PROCEVENT_START, e->event_data.fork.child_tgid, e->event_data.fork.parent_tgid, e->timestamp_ns);
        break;
    case PROC_EVENT_EXEC:
        add(ev, PT_PROCEVENT_EXEC, e->event_data.exec.process_tgid, 0, e->timestamp_ns);
        break;
    case PROC_EVENT_UID:
    case PROC_EVENT_GID:
        add(ev, PT_PROCEVENT_CREDS, e->event_data.id.process_tgid, 0, e->timestamp_ns);
        break;
    case PROC_EVENT_COMM:
        add(ev, PT_PROCEVENT_RENAME, e->event_data.comm.process_tgid, 0, e->timestamp_ns);
        break;
    case PROC_EVENT_EXIT:
        if (e->event_data.exit.process_pid == e->event_data.exit.process_tgid)
            add(ev, PT_PROCEVENT_EXIT, e->event_data.exit.process_tgid, 0, e->timestamp_ns);
        break;
    default:
        break;
    }
}

bool pt_procevents_drain(struct pt_procevents *ev)
{
    bool complete = true;
    ev->n_events = 0;
    pt_pidmap_clear(&ev->starts);
    if (ev->fd < 0)
        return complete;
    _Alignas(struct nlmsghdr) char buf[8192];
    for (;;) {
        ssize_t n = recv(ev->fd, buf, sizeof(buf), 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOBUFS) { /* the kernel dropped events: keep reading what is left */
                complete = false;
                continue;
            }
            return complete; /* EAGAIN: drained */
        }
        for (const struct nlmsghdr *nl = (const struct nlmsghdr *)buf; NLMSG_OK(nl, (size_t)n);
             nl = NLMSG_NEXT(nl, n)) {
            struct proc_event e;
            if (event_of(nl, &e))
                hand_over(ev, &e);
        }
    }
}
