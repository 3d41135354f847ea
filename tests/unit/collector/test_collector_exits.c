/* The collector on a kernel whose exit records have no thread-group id
 * (taskstats version 12, Linux before 6.0). The listener is the real one
 * (registered with the kernel, so this suite needs CAP_NET_ADMIN, as it
 * has as root) and the target is this process on the real /proc (exit
 * records are only opened where process events can be had). The test
 * stands between the listener and the kernel by defining sendto, recv
 * and recvfrom itself (the program's own definitions are the ones the
 * library calls): it makes the kernel's answer at open, or one record of
 * a later drain, a version-12 one. The collector must say so once, stop
 * listening, and leave the exit metrics out from then on. */
#include <check.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proctree/collector.h"
#include "unit.h"

/* Where a record's (or an answer's) stats block begins: netlink and
 * generic netlink headers, AGGR_PID nesting PID (4 bytes) then STATS. */
#define STATS_AT (NLMSG_HDRLEN + GENL_HDRLEN + 2 * NLA_HDRLEN + NLA_ALIGN(4) + NLA_HDRLEN)

static uint16_t family;   /* the TASKSTATS family, as the listener's requests name it */
static int exits_fd = -1; /* the listener's socket */
static bool old_answer;   /* the answer for our own stats at open says version 12 */
static bool inject;       /* the next drain's first read returns a version-12 record */
static int reads_after;   /* reads of the listener's socket after the injection */
static char said[8192];   /* the log lines */

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)
{
    const struct nlmsghdr *nl = buf;
    /* a generic netlink socket's: sock_diag's requests (the TCP sockets'
     * dumps) have a type in the same range */
    int protocol = 0;
    socklen_t plen = sizeof(protocol);
    if (len >= sizeof(*nl) && nl->nlmsg_type >= GENL_MIN_ID && nl->nlmsg_type != GENL_ID_CTRL &&
        getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &plen) == 0 && protocol == NETLINK_GENERIC) {
        family = nl->nlmsg_type;
        exits_fd = fd;
    }
    return syscall(SYS_sendto, fd, buf, len, flags, to, tolen);
}

/* The answers to the listener's requests are read with recv: with
 * old_answer, the answer for our own stats (the family's message of
 * sequence 3) is made to say version 12, its block left full-sized. */
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    ssize_t n = syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
    if (old_answer && fd == exits_fd && n >= (ssize_t)(STATS_AT + sizeof(uint16_t))) {
        struct nlmsghdr *nl = buf;
        if (nl->nlmsg_type == family && nl->nlmsg_seq == 3) {
            uint16_t version = 12;
            memcpy((char *)buf + STATS_AT, &version, sizeof(version));
        }
    }
    return n;
}

/* A record as Linux 5.x sends it: version 12, the block ending before ac_tgid. */
static size_t old_record(void *out)
{
    struct taskstats ts;
    memset(&ts, 0, sizeof(ts));
    ts.version = 12;
    ts.ac_pid = (uint32_t)getpid();
    ts.ac_exitcode = 1 << 8;
    const size_t slen = offsetof(struct taskstats, ac_tgid);
    char *p = out;
    struct nlmsghdr *nl = (struct nlmsghdr *)p;
    *nl = (struct nlmsghdr){.nlmsg_type = family};
    struct genlmsghdr genl = {.cmd = TASKSTATS_CMD_NEW, .version = TASKSTATS_GENL_VERSION};
    memcpy(p + NLMSG_HDRLEN, &genl, sizeof(genl));
    size_t at = NLMSG_HDRLEN + GENL_HDRLEN;
    struct nlattr aggr = {.nla_len = (uint16_t)(STATS_AT - at + slen),
                          .nla_type = TASKSTATS_TYPE_AGGR_PID | NLA_F_NESTED};
    struct nlattr pid = {.nla_len = NLA_HDRLEN + 4, .nla_type = TASKSTATS_TYPE_PID};
    struct nlattr stats = {.nla_len = (uint16_t)(NLA_HDRLEN + slen), .nla_type = TASKSTATS_TYPE_STATS};
    memcpy(p + at, &aggr, sizeof(aggr));
    memcpy(p + at + NLA_HDRLEN, &pid, sizeof(pid));
    memcpy(p + at + 2 * NLA_HDRLEN, &ts.ac_pid, 4);
    memcpy(p + STATS_AT - NLA_HDRLEN, &stats, sizeof(stats));
    memcpy(p + STATS_AT, &ts, slen);
    nl->nlmsg_len = (uint32_t)(at + NLA_ALIGN(aggr.nla_len));
    return nl->nlmsg_len;
}

/* The drain reads with recvfrom. */
ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
    if (fd == exits_fd)
        reads_after++;
    if (!inject || fd != exits_fd)
        return syscall(SYS_recvfrom, fd, buf, len, flags, from, fromlen);
    inject = false;
    ck_assert_uint_ge(len, 1024);
    *(struct sockaddr_nl *)from = (struct sockaddr_nl){.nl_family = AF_NETLINK}; /* the kernel */
    *fromlen = sizeof(struct sockaddr_nl);
    return (ssize_t)old_record(buf);
}

static void sink(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    strncat(said, line, sizeof(said) - strlen(said) - 2);
    strcat(said, "\n");
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static struct pt_collector *collector_of_self(void)
{
    pt_log_set_sink(sink, NULL);
    struct pt_collector *c = unit_collector();
    unit_add_self(c);
    return c;
}

static bool has_exit_metrics(const struct pt_batch *b)
{
    const struct pt_value *v = b->targets[0].report.v;
    return v[PT_M_PROC_PROCESSES_FAILED].present || v[PT_M_PROC_PROCESSES_KILLED].present ||
           v[PT_M_PROC_EXITED_RSS_PEAK_MAX].present || v[PT_M_COLLECTOR_EXIT_RECORDS].present;
}

#define TOO_OLD "exit records need Linux 6.0 or later (taskstats version 12 has no thread-group id)"

/* The answer for our own stats tells at open: no record is ever used. */
START_TEST(test_version_12_at_open)
{
    old_answer = true;
    struct pt_collector *c = collector_of_self();
    pt_collector_tick(c, 0);
    ck_assert_msg(count(said, TOO_OLD) == 1, "%s", said);
    ck_assert_msg(!strstr(said, "using the kernel's exit records"), "%s", said);
    reads_after = 0;
    for (int i = 0; i < 3; i++)
        pt_collector_tick(c, 0.1 + i * 0.1);
    ck_assert(!has_exit_metrics(pt_collector_end_interval(c, 1)));
    ck_assert_int_eq(reads_after, 0);
    pt_collector_free(c);
}
END_TEST

/* A drain that brings one (open's check passed): the same line, once, and
 * the exit metrics left out of that interval and every one after. */
START_TEST(test_version_12_in_a_drain)
{
    struct pt_collector *c = collector_of_self();
    pt_collector_tick(c, 0);
    ck_assert_msg(strstr(said, "using the kernel's exit records"), "the listener did not open: %s", said);
    const struct pt_batch *b = pt_collector_end_interval(c, 1);
    ck_assert(b->targets[0].report.v[PT_M_PROC_PROCESSES_FAILED].present);

    inject = true;
    pt_collector_tick(c, 1.1);
    ck_assert(!inject);
    ck_assert_msg(count(said, TOO_OLD) == 1, "%s", said);
    ck_assert(!has_exit_metrics(pt_collector_end_interval(c, 2)));

    /* not listening any more: no read of that socket, no second line, and
     * the target does not report 0 failed for an interval it cannot see */
    reads_after = 0;
    for (int i = 0; i < 5; i++)
        pt_collector_tick(c, 2.1 + i * 0.1);
    ck_assert(!has_exit_metrics(pt_collector_end_interval(c, 3)));
    ck_assert_int_eq(reads_after, 0);
    ck_assert_int_eq(count(said, "exit records need Linux 6.0"), 1);
    pt_collector_free(c);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("collector_exits");
    TCase *tc = unit_tcase(suite, "old kernel");
    tcase_add_test(tc, test_version_12_at_open);
    tcase_add_test(tc, test_version_12_in_a_drain);
    return unit_run(suite);
}
