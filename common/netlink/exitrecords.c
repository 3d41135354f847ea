#include "netlink/exitrecords.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/base.h"

/* How long each answer of the kernel is awaited, once, at start: it comes
 * at once, or never. */
#define PT_EXITRECORDS_ACK_MS 500
/* Room for a burst: a record is about 450 bytes, more of the socket's
 * budget with the buffer's overhead; every exit on the host comes to us
 * (one record per thread, and one per process). Sized as the process
 * events' socket is (procevents.c): the kernel doubles these 16 MiB to
 * 32, some 20,000 records, a fraction of a second of a host-wide storm
 * of 40,000 forks a second. Memory is taken only by what is queued;
 * without CAP_NET_ADMIN the kernel caps it at net.core.rmem_max. */
#define PT_EXITRECORDS_RCVBUF (16 << 20)
/* The stats block must reach ac_tgid (TASKSTATS_VERSION 13, Linux 6.0):
 * without it a thread cannot be told from its process. */
#define PT_STATS_MIN (offsetof(struct taskstats, ac_tgid) + sizeof(__u32))
#define PT_STATS_TGID_VERSION 13

/* A request: netlink header, generic netlink header, one attribute. */
struct request {
    struct nlmsghdr nl;
    struct genlmsghdr genl;
    struct nlattr attr;
    char value[256];
};

static int send_request(int fd, uint32_t seq, uint16_t type, uint8_t cmd, uint8_t version, uint16_t attr,
                        const void *value, size_t vlen)
{
    struct request req;
    memset(&req, 0, sizeof(req));
    if (vlen > sizeof(req.value))
        return -EINVAL;
    req.attr.nla_type = attr;
    req.attr.nla_len = (uint16_t)(NLA_HDRLEN + vlen);
    memcpy(req.value, value, vlen);
    req.nl.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(req.attr.nla_len));
    req.nl.nlmsg_type = type;
    req.nl.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.nl.nlmsg_seq = seq;
    req.genl.cmd = cmd;
    req.genl.version = version;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    ssize_t n = sendto(fd, &req, req.nl.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
    return n == (ssize_t)req.nl.nlmsg_len ? 0 : -errno;
}

/* The first attribute of this type in [attrs, attrs + len), bounds
 * checked; its payload length in *plen. */
static const void *find_attr(const char *attrs, size_t len, uint16_t type, size_t *plen)
{
    while (len >= NLA_HDRLEN) {
        const struct nlattr *a = (const struct nlattr *)attrs;
        if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
            return NULL;
        if ((a->nla_type & NLA_TYPE_MASK) == type) {
            *plen = a->nla_len - NLA_HDRLEN;
            return attrs + NLA_HDRLEN;
        }
        size_t step = NLA_ALIGN(a->nla_len);
        if (step >= len)
            return NULL;
        attrs += step;
        len -= step;
    }
    return NULL;
}

/* The attributes of a generic netlink message, or NULL when it is too
 * short to have any. */
static const char *genl_attrs(const struct nlmsghdr *nl, size_t *len)
{
    if (nl->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
        return NULL;
    *len = nl->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
    return (const char *)NLMSG_DATA(nl) + GENL_HDRLEN;
}

/* Wait for the kernel's acknowledgement of request seq: its error (0 is
 * success). With family_id, the controller's answer naming the family
 * comes first (and its absence is -ENOENT). With answers, the messages of
 * family answers->family that carry seq are parsed into it. Records that
 * arrive meanwhile are dropped. */
static int await_answer(int fd, uint32_t seq, uint16_t *family_id, struct pt_exitrecords *answers)
{
    bool named = false;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, PT_EXITRECORDS_ACK_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -ETIMEDOUT;
        _Alignas(struct nlmsghdr) char buf[8192];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ENOBUFS)
                continue;
            return -errno;
        }
        for (const struct nlmsghdr *nl = (const struct nlmsghdr *)buf; NLMSG_OK(nl, (size_t)n);
             nl = NLMSG_NEXT(nl, n)) {
            if (nl->nlmsg_seq != seq)
                continue;
            if (nl->nlmsg_type == NLMSG_ERROR && nl->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
                int err = ((const struct nlmsgerr *)NLMSG_DATA(nl))->error;
                return err == 0 && family_id && !named ? -ENOENT : err;
            }
            if (answers && nl->nlmsg_type == answers->family)
                pt_exitrecords_parse(answers, nl, nl->nlmsg_len);
            size_t len, plen;
            const char *attrs = genl_attrs(nl, &len);
            const void *id = family_id && nl->nlmsg_type == GENL_ID_CTRL && attrs
                                 ? find_attr(attrs, len, CTRL_ATTR_FAMILY_ID, &plen)
                                 : NULL;
            if (id && plen >= sizeof(uint16_t)) {
                memcpy(family_id, id, sizeof(*family_id));
                named = true;
            }
        }
    }
}

/* Every possible CPU, as the kernel spells its list ("0-3"): records are
 * sent on the CPU where the task exits. */
static void possible_cpus(char *out, size_t outlen)
{
    int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, outlen - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n > 0) {
        out[n] = '\0';
        out[strcspn(out, "\n")] = '\0';
        if (out[0] && strspn(out, "0123456789,-") == strlen(out))
            return;
    }
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    snprintf(out, outlen, "0-%ld", cpus > 1 ? cpus - 1 : 0);
}

/* Stop the kernel sending records to fd. */
static void deregister(int fd, uint16_t family)
{
    char cpus[256];
    possible_cpus(cpus, sizeof(cpus));
    send_request(fd, 4, family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus,
                 strlen(cpus) + 1);
}

/* Ask for this process's own stats: the kernel answers in the format of
 * its exit records, so a kernel whose records have no ac_tgid is known
 * before any record is used (x->too_old). */
static int check_version(int fd, struct pt_exitrecords *x)
{
    uint32_t self = (uint32_t)getpid();
    int err = send_request(fd, 3, x->family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION, TASKSTATS_CMD_ATTR_PID, &self,
                           sizeof(self));
    if (!err)
        err = await_answer(fd, 3, NULL, x);
    x->n_records = 0; /* our own stats: not an exit */
    return !err && x->too_old ? -EPROTONOSUPPORT : err;
}

int pt_exitrecords_open(struct pt_exitrecords *x)
{
    *x = (struct pt_exitrecords){.fd = -1};
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0)
        return -errno;
    int size = PT_EXITRECORDS_RCVBUF;
    /* FORCE passes rmem_max where permitted (CAP_NET_ADMIN, which we need anyway) */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    struct sockaddr_nl addr = {.nl_family = AF_NETLINK};
    char cpus[256];
    possible_cpus(cpus, sizeof(cpus));
    uint16_t family = 0;
    int err = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 ? 0 : -errno;
    if (!err)
        err = send_request(fd, 1, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
                           sizeof(TASKSTATS_GENL_NAME));
    if (!err)
        err = await_answer(fd, 1, &family, NULL);
    if (!err)
        err = send_request(fd, 2, family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION,
                           TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus, strlen(cpus) + 1);
    if (!err)
        err = await_answer(fd, 2, NULL, NULL);
    x->family = family;
    if (!err && (err = check_version(fd, x)) != 0)
        deregister(fd, family);
    if (err) {
        close(fd);
        return err;
    }
    x->fd = fd;
    return 0;
}

void pt_exitrecords_close(struct pt_exitrecords *x)
{
    if (x->fd >= 0) {
        deregister(x->fd, x->family);
        close(x->fd);
    }
    free(x->records);
    *x = (struct pt_exitrecords){.fd = -1};
}

static int64_t clamp_u64(uint64_t v, uint64_t max)
{
    return (int64_t)(v > max ? max : v);
}

/* A stats block from before ac_tgid (taskstats version < 13, Linux
 * before 6.0)? Then no record can be used: say which version it was. */
static bool too_old(struct pt_exitrecords *x, const void *stats, size_t slen)
{
    uint16_t version = 0;
    if (slen >= sizeof(version))
        memcpy(&version, stats, sizeof(version)); /* the first field of every version */
    if (slen >= PT_STATS_MIN && version >= PT_STATS_TGID_VERSION)
        return false;
    x->too_old = true;
    x->old_version = version;
    return true;
}

/* One AGGR_PID attribute's payload: the thread's stats. */
static void add_thread(struct pt_exitrecords *x, const char *nested, size_t len)
{
    size_t slen;
    const void *stats = find_attr(nested, len, TASKSTATS_TYPE_STATS, &slen);
    if (!stats || too_old(x, stats, slen))
        return;
    struct taskstats ts;
    memset(&ts, 0, sizeof(ts));
    memcpy(&ts, stats, slen < sizeof(ts) ? slen : sizeof(ts));
    if (ts.ac_pid == 0 || ts.ac_pid > INT32_MAX || ts.ac_tgid == 0 || ts.ac_tgid > INT32_MAX || ts.ac_ppid > INT32_MAX)
        return;
    if (x->n_records == x->cap_records) {
        x->cap_records = x->cap_records ? x->cap_records * 2 : 256;
        x->records = pt_xrealloc_array(x->records, x->cap_records, sizeof(*x->records));
    }
    struct pt_exitrecord *r = &x->records[x->n_records++];
    *r = (struct pt_exitrecord){
        .pid = (pid_t)ts.ac_pid,
        .tgid = (pid_t)ts.ac_tgid,
        .ppid = (pid_t)ts.ac_ppid,
        .exitcode = ts.ac_exitcode,
        .nvcsw = clamp_u64(ts.nvcsw, INT64_MAX),
        .nivcsw = clamp_u64(ts.nivcsw, INT64_MAX),
        .cpu_delay_ns = clamp_u64(ts.cpu_delay_total, INT64_MAX),
        .blkio_delay_ns = clamp_u64(ts.blkio_delay_total, INT64_MAX),
        .rss_peak_kb = clamp_u64(ts.hiwater_rss, INT64_MAX / 1024),
        .elapsed_us = clamp_u64(ts.ac_etime, INT64_MAX),
        .utime_us = clamp_u64(ts.ac_utime, INT64_MAX),
        .stime_us = clamp_u64(ts.ac_stime, INT64_MAX),
        .run_us = clamp_u64(ts.cpu_run_virtual_total / 1000, INT64_MAX),
        .minflt = clamp_u64(ts.ac_minflt, INT64_MAX),
        .majflt = clamp_u64(ts.ac_majflt, INT64_MAX),
        .rchar = clamp_u64(ts.read_char, INT64_MAX),
        .wchar = clamp_u64(ts.write_char, INT64_MAX),
        .syscr = clamp_u64(ts.read_syscalls, INT64_MAX),
        .syscw = clamp_u64(ts.write_syscalls, INT64_MAX),
        .read_bytes = clamp_u64(ts.read_bytes, INT64_MAX),
        .write_bytes = clamp_u64(ts.write_bytes, INT64_MAX),
        .cancelled_write_bytes = clamp_u64(ts.cancelled_write_bytes, INT64_MAX),
    };
    if (r->run_us == 0 && (r->utime_us > 0 || r->stime_us > 0))
        r->run_us = -1;
    /* ac_comm is the kernel's NUL-terminated name in a wider field; a
     * forged or future one may fill it */
    size_t n = strnlen(ts.ac_comm, sizeof(ts.ac_comm));
    n = n < sizeof(r->comm) - 1 ? n : sizeof(r->comm) - 1;
    memcpy(r->comm, ts.ac_comm, n);
    r->comm[n] = '\0';
}

void pt_exitrecords_parse(struct pt_exitrecords *x, const void *buf, size_t len)
{
    int left = len > INT_MAX ? INT_MAX : (int)len; /* NLMSG_NEXT may step below 0 */
    for (const struct nlmsghdr *nl = buf; NLMSG_OK(nl, left); nl = NLMSG_NEXT(nl, left)) {
        size_t alen, plen;
        const char *attrs = genl_attrs(nl, &alen);
        if (nl->nlmsg_type != x->family || !attrs)
            continue;
        const char *nested = find_attr(attrs, alen, TASKSTATS_TYPE_AGGR_PID, &plen);
        if (nested)
            add_thread(x, nested, plen);
    }
}

bool pt_exitrecords_drain(struct pt_exitrecords *x)
{
    bool complete = true;
    x->n_records = 0;
    if (x->fd < 0)
        return complete;
    _Alignas(struct nlmsghdr) char buf[16384];
    for (;;) {
        struct sockaddr_nl from;
        socklen_t fromlen = sizeof(from);
        ssize_t n = recvfrom(x->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOBUFS) { /* the kernel dropped records: keep reading what is left */
                complete = false;
                continue;
            }
            return complete; /* EAGAIN: drained */
        }
        if (fromlen == sizeof(from) && from.nl_pid == 0) /* any process may send to our port: the kernel only */
            pt_exitrecords_parse(x, buf, (size_t)n);
    }
}
