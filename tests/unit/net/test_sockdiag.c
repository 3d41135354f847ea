/* Unit tests for sockdiag's parser and sockscan's link parser: the
 * kernel's sock_diag messages and fd/ links taken as untrusted bytes,
 * whole, cut at every length, with lengths that lie. */
#include <check.h>
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
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "net/sockdiag.h"
#include "net/sockscan.h"
#include "unit.h"

struct seen {
    struct pt_tcpsock s[8];
    size_t n;
};

static void collect(const struct pt_tcpsock *s, void *arg)
{
    struct seen *seen = arg;
    if (seen->n < 8)
        seen->s[seen->n] = *s;
    seen->n++;
}

/* Append one inet_diag message at buf + *len: with a tcp_info of
 * info_len bytes (0: no attribute), its counters sent and received. */
static void put_msg(char *buf, size_t *len, uint32_t seq, uint32_t inode, uint64_t cookie, size_t info_len,
                    uint64_t sent, uint64_t received)
{
    struct nlmsghdr *h = (struct nlmsghdr *)(buf + *len);
    memset(h, 0, NLMSG_SPACE(sizeof(struct inet_diag_msg)) + RTA_SPACE(sizeof(struct tcp_info)));
    h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
    h->nlmsg_seq = seq;
    struct inet_diag_msg *m = NLMSG_DATA(h);
    m->idiag_family = AF_INET;
    m->idiag_state = 1;
    m->idiag_inode = inode;
    m->id.idiag_cookie[0] = (uint32_t)cookie;
    m->id.idiag_cookie[1] = (uint32_t)(cookie >> 32);
    size_t l = NLMSG_LENGTH(sizeof(*m));
    if (info_len) {
        struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(l));
        a->rta_type = INET_DIAG_INFO;
        a->rta_len = (unsigned short)RTA_LENGTH(info_len);
        struct tcp_info info;
        memset(&info, 0, sizeof(info));
        info.tcpi_bytes_acked = sent;
        info.tcpi_bytes_received = received;
        memcpy(RTA_DATA(a), &info, info_len < sizeof(info) ? info_len : sizeof(info));
        l = NLMSG_ALIGN(l) + RTA_ALIGN(a->rta_len);
    }
    h->nlmsg_len = (uint32_t)l;
    *len += NLMSG_ALIGN(l);
}

static void put_done(char *buf, size_t *len, uint32_t seq)
{
    struct nlmsghdr *h = (struct nlmsghdr *)(buf + *len);
    memset(h, 0, NLMSG_SPACE(sizeof(int)));
    h->nlmsg_type = NLMSG_DONE;
    h->nlmsg_seq = seq;
    h->nlmsg_len = NLMSG_LENGTH(sizeof(int));
    *len += NLMSG_SPACE(sizeof(int));
}

static int parse(const char *buf, size_t len, uint32_t seq, struct seen *seen)
{
    memset(seen, 0, sizeof(*seen));
    char *copy = exact_copy(buf, len);
    int r = pt_sockdiag_parse(copy, len, seq, collect, seen);
    free(copy);
    return r;
}

START_TEST(test_dump_whole)
{
    static char buf[4096];
    size_t len = 0;
    put_msg(buf, &len, 7, 1234, 0x100000002ULL, sizeof(struct tcp_info), 5000017, 2000000);
    put_msg(buf, &len, 7, 0, 99, sizeof(struct tcp_info), 1, 2);
    put_done(buf, &len, 7);
    struct seen seen;
    ck_assert_int_eq(parse(buf, len, 7, &seen), PT_SOCKDIAG_DONE);
    ck_assert_uint_eq(seen.n, 2);
    ck_assert_uint_eq(seen.s[0].inode, 1234);
    ck_assert_uint_eq(seen.s[0].cookie, 0x100000002ULL);
    ck_assert(seen.s[0].has_bytes);
    ck_assert_uint_eq(seen.s[0].sent, 5000017);
    ck_assert_uint_eq(seen.s[0].received, 2000000);
    ck_assert_uint_eq(seen.s[1].inode, 0); /* orphaned: its cookie names it */
    ck_assert_uint_eq(seen.s[1].cookie, 99);
    /* another dump's answer (an abandoned one's) is passed over */
    ck_assert_int_eq(parse(buf, len, 8, &seen), PT_SOCKDIAG_MORE);
    ck_assert_uint_eq(seen.n, 0);
    /* 0: any (a notification's) */
    ck_assert_int_eq(parse(buf, len, 0, &seen), PT_SOCKDIAG_DONE);
    ck_assert_uint_eq(seen.n, 2);
}
END_TEST

/* Every cut of two messages and DONE: never a read past the cut (the
 * exact copy's redzone), never a message told that was not whole. */
START_TEST(test_dump_cut_everywhere)
{
    static char buf[4096];
    size_t len = 0;
    put_msg(buf, &len, 1, 11, 1, sizeof(struct tcp_info), 10, 20);
    size_t first = len;
    put_msg(buf, &len, 1, 12, 2, sizeof(struct tcp_info), 30, 40);
    put_done(buf, &len, 1);
    for (size_t cut = 0; cut < len; cut++) {
        struct seen seen;
        int r = parse(buf, cut, 1, &seen);
        ck_assert_msg(r == PT_SOCKDIAG_MORE || r == -EBADMSG, "cut %zu: %d", cut, r);
        ck_assert_uint_le(seen.n, cut >= first ? 2 : 0);
        for (size_t i = 0; i < seen.n && i < 8; i++)
            ck_assert(seen.s[i].inode == 11 || seen.s[i].inode == 12);
    }
}
END_TEST

/* Lengths that lie: a header longer than the buffer, shorter than a
 * header, a message too short for inet_diag_msg, an attribute past its
 * message, a tcp_info too short for the counters. */
START_TEST(test_hostile_lengths)
{
    static char buf[4096];
    struct seen seen;
    size_t len = 0;
    put_msg(buf, &len, 1, 5, 5, sizeof(struct tcp_info), 1, 1);
    ((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)len + 4096;
    ck_assert_int_eq(parse(buf, len, 0, &seen), -EBADMSG);
    ck_assert_uint_eq(seen.n, 0);
    ((struct nlmsghdr *)buf)->nlmsg_len = 3;
    ck_assert_int_eq(parse(buf, len, 0, &seen), -EBADMSG);
    ((struct nlmsghdr *)buf)->nlmsg_len = UINT32_MAX;
    ck_assert_int_eq(parse(buf, len, 0, &seen), -EBADMSG);
    /* a SOCK_DIAG_BY_FAMILY message shorter than inet_diag_msg */
    ((struct nlmsghdr *)buf)->nlmsg_len = NLMSG_LENGTH(8);
    ck_assert_int_eq(parse(buf, NLMSG_SPACE(8), 0, &seen), -EBADMSG);
    ck_assert_uint_eq(seen.n, 0);

    /* an attribute whose length runs past its message: no counters */
    len = 0;
    put_msg(buf, &len, 1, 6, 6, sizeof(struct tcp_info), 1, 1);
    struct rtattr *a = (struct rtattr *)(buf + NLMSG_SPACE(sizeof(struct inet_diag_msg)));
    a->rta_len = 60000;
    ck_assert_int_eq(parse(buf, len, 0, &seen), PT_SOCKDIAG_MORE);
    ck_assert_uint_eq(seen.n, 1);
    ck_assert(!seen.s[0].has_bytes);
    a->rta_len = 2; /* shorter than an attribute's header */
    ck_assert_int_eq(parse(buf, len, 0, &seen), PT_SOCKDIAG_MORE);
    ck_assert(!seen.s[0].has_bytes);

    /* a tcp_info of an old kernel, without the byte counters */
    len = 0;
    put_msg(buf, &len, 1, 7, 7, offsetof(struct tcp_info, tcpi_bytes_acked), 1, 1);
    ck_assert_int_eq(parse(buf, len, 0, &seen), PT_SOCKDIAG_MORE);
    ck_assert_uint_eq(seen.n, 1);
    ck_assert(!seen.s[0].has_bytes);
    /* a longer one (a newer kernel's): its counters, the rest not read */
    len = 0;
    put_msg(buf, &len, 1, 8, 8, sizeof(struct tcp_info) + 64, 3, 4);
    ck_assert_int_eq(parse(buf, len, 0, &seen), PT_SOCKDIAG_MORE);
    ck_assert(seen.s[0].has_bytes);
    ck_assert_uint_eq(seen.s[0].sent, 3);
    ck_assert_uint_eq(seen.s[0].received, 4);
}
END_TEST

START_TEST(test_error_message)
{
    static char buf[256];
    memset(buf, 0, sizeof(buf));
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    h->nlmsg_type = NLMSG_ERROR;
    h->nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
    ((struct nlmsgerr *)NLMSG_DATA(h))->error = -EPERM;
    struct seen seen;
    ck_assert_int_eq(parse(buf, NLMSG_SPACE(sizeof(struct nlmsgerr)), 0, &seen), -EPERM);
    ((struct nlmsgerr *)NLMSG_DATA(h))->error = 5; /* not an errno */
    ck_assert_int_eq(parse(buf, NLMSG_SPACE(sizeof(struct nlmsgerr)), 0, &seen), -EBADMSG);
    h->nlmsg_len = NLMSG_LENGTH(2); /* too short for its error */
    ck_assert_int_eq(parse(buf, NLMSG_SPACE(2), 0, &seen), -EBADMSG);
}
END_TEST

/* Random bytes: whatever they say, the parser ends within the buffer. */
START_TEST(test_random_bytes)
{
    static char buf[2048];
    srand(42);
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(rand() % (int)sizeof(buf));
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)rand();
        if (len >= sizeof(struct nlmsghdr) && round % 2) {
            struct nlmsghdr *h = (struct nlmsghdr *)buf; /* a plausible header, a lying body */
            h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
            h->nlmsg_len = (uint32_t)(rand() % (int)(len + 1));
        }
        struct seen seen;
        int r = parse(buf, len, 0, &seen);
        ck_assert(r == PT_SOCKDIAG_MORE || r == PT_SOCKDIAG_DONE || r < 0);
    }
}
END_TEST

START_TEST(test_socket_links)
{
    static const struct {
        const char *link;
        uint64_t inode;
    } cases[] = {
        {"socket:[12345]", 12345},
        {"socket:[18446744073709551615]", UINT64_MAX},
        {"socket:[18446744073709551616]", 0}, /* past 64 bits */
        {"socket:[]", 0},
        {"socket:[12", 0},
        {"socket:[12]x", 0},
        {"socket:[1a]", 0},
        {"pipe:[12345]", 0},
        {"/dev/null", 0},
        {"", 0},
        {"anon_inode:[eventpoll]", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = strlen(cases[i].link);
        char *copy = exact_copy(cases[i].link, len);
        ck_assert_msg(pt_sockscan_inode_parse(copy, len) == cases[i].inode, "%s", cases[i].link);
        free(copy);
    }
    static const struct {
        const char *link;
        uint64_t inode;
    } namespaces[] = {
        {"net:[4026531840]", 4026531840u}, {"net:[]", 0},           {"net:[4026531840", 0},
        {"socket:[4026531840]", 0},        {"pid:[4026531836]", 0},
    };
    for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++) {
        size_t len = strlen(namespaces[i].link);
        char *copy = exact_copy(namespaces[i].link, len);
        ck_assert_msg(pt_sockscan_netns_inode_parse(copy, len) == namespaces[i].inode, "%s", namespaces[i].link);
        free(copy);
    }
    ck_assert_uint_ne(pt_sockscan_netns_of(-1, 0), 0); /* our own */
}
END_TEST

/* The states a dump tells, as the dump's request asks for them: a
 * listener of this process is not told, its connection's two ends are,
 * and pt_sockdiag_dumps_state says the same of each. */
static void find_inode(const struct pt_tcpsock *s, void *arg)
{
    uint64_t *want = arg;
    for (int i = 0; i < 3; i++)
        if (s->inode == want[2 * i])
            want[2 * i + 1] = (uint64_t)s->state + 1;
}

static uint64_t inode_of(int fd)
{
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    return (uint64_t)st.st_ino;
}

/* The kernel's TCP states (net/tcp_states.h): linux/tcp.h, which the
 * parser's tests need, has no names for them in user space. */
enum { ESTABLISHED = 1, SYN_SENT = 2, TIME_WAIT = 6, CLOSE = 7, CLOSE_WAIT = 8, LISTEN = 10, NEW_SYN_RECV = 12 };

START_TEST(test_states_dumped)
{
    ck_assert(pt_sockdiag_dumps_state(ESTABLISHED));
    ck_assert(pt_sockdiag_dumps_state(SYN_SENT));
    ck_assert(pt_sockdiag_dumps_state(CLOSE_WAIT));
    ck_assert(pt_sockdiag_dumps_state(CLOSE));
    ck_assert(!pt_sockdiag_dumps_state(LISTEN));
    ck_assert(!pt_sockdiag_dumps_state(TIME_WAIT));
    ck_assert(!pt_sockdiag_dumps_state(NEW_SYN_RECV));
    ck_assert(!pt_sockdiag_dumps_state(16));
    ck_assert(!pt_sockdiag_dumps_state(255));

    int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(l, 0);
    ck_assert_int_ge(c, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    ck_assert_int_eq(bind(l, (struct sockaddr *)&a, al), 0);
    ck_assert_int_eq(listen(l, 4), 0);
    ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
    ck_assert_int_eq(connect(c, (struct sockaddr *)&a, al), 0);
    int s = accept(l, NULL, NULL);
    ck_assert_int_ge(s, 0);
    struct pt_sockdiag d;
    ck_assert_int_eq(pt_sockdiag_open(&d), 0);
    uint64_t want[6] = {inode_of(l), 0, inode_of(c), 0, inode_of(s), 0};
    ck_assert_int_eq(pt_sockdiag_dump(&d, find_inode, want), 0);
    pt_sockdiag_close(&d);
    ck_assert_uint_eq(want[1], 0); /* the listener: not told */
    ck_assert_uint_eq(want[3], ESTABLISHED + 1);
    ck_assert_uint_eq(want[5], ESTABLISHED + 1);
    close(s);
    close(c);
    close(l);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("sockdiag");
    TCase *tc = unit_tcase(suite, "sockdiag");
    tcase_add_test(tc, test_dump_whole);
    tcase_add_test(tc, test_dump_cut_everywhere);
    tcase_add_test(tc, test_hostile_lengths);
    tcase_add_test(tc, test_error_message);
    tcase_add_test(tc, test_random_bytes);
    tcase_add_test(tc, test_socket_links);
    tcase_add_test(tc, test_states_dumped);
    return unit_run(suite);
}
