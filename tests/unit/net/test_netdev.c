/* Unit tests for netdev: /proc/PID/net/dev parsed as untrusted bytes
 * (every parse on an exact copy, so a read past its end is ASan's), the
 * kernel's layout whole, cut at every length, hostile names and counters,
 * too many interfaces; and read below a fixture proc root within a bound,
 * and below the real one. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "net/netdev.h"
#include "procfs/procmax.h"
#include "unit.h"

#define HEADER                                                                                                         \
    "Inter-|   Receive                                                |  Transmit\n"                                   \
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier " \
    "compressed\n"
/* Linux 6.18's, as read on this project's test machine */
static const char REAL[] = HEADER "    lo: 11336139  172769    0  848    0     0          0         0 11336139  "
                                  "172769    0    0    0     0       0          0\n"
                                  "  ifb0:       0       0    0    0    0     0          0         0        0       "
                                  "0    0    0    0     0       0          0\n"
                                  "  eth0: 259406614    9740    0    0    0     0          0         0   592902    "
                                  "5802    0    0    0     0       0          0\n";

static struct pt_netdev_if ifs[PT_NETDEV_MAX + 2];

/* pt_netdev_parse on an exact copy of text[0..len). */
static int parse_n(const char *text, size_t len, size_t max, bool *cut)
{
    char *copy = exact_copy(text, len);
    int n = pt_netdev_parse(copy, len, ifs, max, cut);
    free(copy);
    return n;
}

static int parse(const char *text, bool *cut)
{
    return parse_n(text, strlen(text), PT_NETDEV_MAX, cut);
}

/* The header and one interface's line: name, then the 16 counters. */
static int parse_line(const char *line)
{
    char text[1024];
    snprintf(text, sizeof(text), HEADER "%s", line);
    bool cut;
    return parse(text, &cut);
}

START_TEST(test_real_layout)
{
    bool cut = true;
    ck_assert_int_eq(parse(REAL, &cut), 3);
    ck_assert(!cut);
    ck_assert_str_eq(ifs[0].name, "lo");
    ck_assert_uint_eq(ifs[0].rx_bytes, 11336139);
    ck_assert_uint_eq(ifs[0].rx_packets, 172769);
    ck_assert_uint_eq(ifs[0].tx_bytes, 11336139);
    ck_assert_uint_eq(ifs[0].tx_packets, 172769);
    ck_assert_str_eq(ifs[1].name, "ifb0");
    ck_assert_str_eq(ifs[2].name, "eth0");
    ck_assert_uint_eq(ifs[2].rx_bytes, 259406614);
    ck_assert_uint_eq(ifs[2].rx_packets, 9740);
    ck_assert_uint_eq(ifs[2].tx_bytes, 592902);
    ck_assert_uint_eq(ifs[2].tx_packets, 5802);
    /* the header alone: a namespace of no interface (none has none: lo) */
    ck_assert_int_eq(parse(HEADER, &cut), 0);
}
END_TEST

/* Cut at every length: the header cut is no net/dev; past it, a last
 * line cut short is left out and said, the whole lines before it kept. */
START_TEST(test_cut_at_every_length)
{
    size_t len = strlen(REAL), header = strlen(HEADER);
    for (size_t n = 0; n <= len; n++) {
        bool cut = false;
        int got = parse_n(REAL, n, PT_NETDEV_MAX, &cut);
        if (n < header) {
            ck_assert_msg(got == -1, "cut at %zu: %d", n, got);
            continue;
        }
        int whole = 0;
        for (size_t k = header; k < n; k++)
            whole += REAL[k] == '\n';
        ck_assert_msg(got == whole, "cut at %zu: %d interfaces, %d whole lines", n, got, whole);
        ck_assert_msg(cut == (n > header && REAL[n - 1] != '\n'), "cut at %zu", n);
    }
}
END_TEST

/* Names are whoever made the interface's: any bytes but a colon, a '/'
 * and spaces, 1 to 15 of them. */
START_TEST(test_names)
{
    const char *zeros = "       0       0    0    0    0     0          0         0        0       0    0    0    0"
                        "     0       0          0\n";
    char line[512];
    struct {
        const char *name;
        int want;
    } cases[] = {
        {"123456789012345", 1},   /* 15 bytes: IFNAMSIZ - 1 */
        {"1234567890123456", -1}, /* 16: none the kernel makes */
        {"a\x7f"
         "b",
         1},                      /* a DEL: the kernel takes it */
        {"\xc3\xa9t\xff\xfe", 1}, /* bytes that are no UTF-8 */
        {"x|y%d", 1},             /* the header's bar, a format's percent */
        {"veth\x01", 1},          /* a control byte */
        {"", -1},                 /* no name */
        {"a b", -1},              /* a space (the kernel refuses one) */
        {"a\tb", -1},             /* a tab */
        {"a/b", -1},              /* a slash */
    };
    for (size_t i = 0; i < (size_t)COUNT(cases); i++) {
        snprintf(line, sizeof(line), "%6s:%s", cases[i].name, zeros);
        ck_assert_msg(parse_line(line) == cases[i].want, "name \"%s\"", cases[i].name);
        if (cases[i].want == 1)
            ck_assert_str_eq(ifs[0].name, cases[i].name);
    }
    /* a colon ends the name: "a:b" reads as "a" and a counter "b" */
    ck_assert_int_eq(parse_line("a:b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"), -1);
    /* a NUL inside a name */
    char text[512];
    size_t n = (size_t)snprintf(text, sizeof(text), HEADER "  e\x01h0:%s", zeros);
    text[strlen(HEADER) + 3] = '\0';
    bool cut;
    ck_assert_int_eq(parse_n(text, n, PT_NETDEV_MAX, &cut), -1);
    /* two interfaces of one name: no namespace has them */
    ck_assert_int_eq(parse_line("eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
                                "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"),
                     -1);
}
END_TEST

START_TEST(test_counters)
{
    /* a counter wider than its column follows the colon at once */
    ck_assert_int_eq(parse_line("eth0:123456789012 2 3 4 5 6 7 8 9876543210987 10 11 12 13 14 15 16\n"), 1);
    ck_assert_uint_eq(ifs[0].rx_bytes, 123456789012ULL);
    ck_assert_uint_eq(ifs[0].rx_packets, 2);
    ck_assert_uint_eq(ifs[0].tx_bytes, 9876543210987ULL);
    ck_assert_uint_eq(ifs[0].tx_packets, 10);
    /* trailing blanks are no counter */
    ck_assert_int_eq(parse_line("eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16   \n"), 1);
    /* fits uint64 but no interface moves it: clamped */
    ck_assert_int_eq(parse_line("eth0: 18446744073709551615 2 3 4 5 6 7 8 9223372036854775808 10 11 12 13 14 15 16\n"),
                     1);
    ck_assert_uint_eq(ifs[0].rx_bytes, PT_MAX_COUNT);
    ck_assert_uint_eq(ifs[0].tx_bytes, PT_MAX_COUNT);
    const char *bad[] = {
        "eth0: 18446744073709551616 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", /* past uint64 */
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",                       /* 15 counters */
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",                 /* 17 */
        "eth0: -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",                   /* a sign */
        "eth0: +1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0x16\n", /* not decimal */
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16x\n",
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 1516\n",
        "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 1\r6\n",
        "eth0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", /* no colon */
        "\n",                                            /* an empty line */
        "   \n",
    };
    for (size_t i = 0; i < (size_t)COUNT(bad); i++)
        ck_assert_msg(parse_line(bad[i]) == -1, "%s", bad[i]);
}
END_TEST

START_TEST(test_headers)
{
    bool cut;
    ck_assert_int_eq(parse("", &cut), -1);
    ck_assert_int_eq(parse("    lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", &cut), -1);
    ck_assert_int_eq(parse("Inter-|\n    lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", &cut), -1);
    ck_assert_int_eq(parse("Inter-|\n face |\n", &cut), 0);
    ck_assert_int_eq(parse("Inter-| face |\n", &cut), -1);
    ck_assert_int_eq(parse(" face |\nInter-|\n", &cut), -1);
}
END_TEST

/* max interfaces and no more; a line of 16 counters at its narrowest */
START_TEST(test_too_many)
{
    size_t cap = strlen(HEADER) + (PT_NETDEV_MAX + 1) * 64;
    char *text = malloc(cap);
    size_t len = (size_t)snprintf(text, cap, "%s", HEADER);
    for (int i = 0; i < PT_NETDEV_MAX + 1; i++)
        len += (size_t)snprintf(text + len, cap - len, "i%d:0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", i);
    bool cut;
    ck_assert_int_eq(parse_n(text, len, PT_NETDEV_MAX + 1, &cut), PT_NETDEV_MAX + 1);
    ck_assert_int_eq(parse_n(text, len, PT_NETDEV_MAX, &cut), -1);
    ck_assert_int_eq(parse_n(text, len, 0, &cut), -1);
    free(text);
}
END_TEST

/* The read: to the end, within the bound, never past it. */
START_TEST(test_read_fixture)
{
    char *root = fx_root_new();
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    fx_write(root, "100/net/dev", REAL, -1);
    size_t len = strlen(REAL);
    char buf[1024];
    ck_assert_int_eq(pt_netdev_read(fd, 100, buf, sizeof(buf)), (ssize_t)len);
    ck_assert(memcmp(buf, REAL, len) == 0);
    ck_assert_int_eq(pt_netdev_read(fd, 100, buf, len), (ssize_t)len); /* exactly the bound */
    ck_assert_int_eq(pt_netdev_read(fd, 100, buf, len - 1), -E2BIG);   /* one byte past it */
    ck_assert_int_eq(pt_netdev_read(fd, 101, buf, sizeof(buf)), -ENOENT);
    /* a file of more than the bound: never read past it */
    char *big = malloc(PT_NETDEV_READ_MAX + 2);
    memset(big, 'x', PT_NETDEV_READ_MAX + 1);
    big[PT_NETDEV_READ_MAX + 1] = '\0';
    fx_write(root, "100/net/dev", big, -1);
    char *into = malloc(PT_NETDEV_READ_MAX);
    ck_assert_int_eq(pt_netdev_read(fd, 100, into, PT_NETDEV_READ_MAX), -E2BIG);
    free(into);
    free(big);
    /* a symbolic link out of the proc root is not followed */
    fx_write(root, "outside", REAL, -1);
    char path[4096], to[4096];
    snprintf(path, sizeof(path), "%s/102/net", root);
    fx_write(root, "102/stat", "", 0);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/102/net/dev", root);
    snprintf(to, sizeof(to), "%s/outside", root);
    ck_assert_int_eq(symlink(to, path), 0);
    ck_assert_int_lt(pt_netdev_read(fd, 102, buf, sizeof(buf)), 0);
    close(fd);
    fx_root_free(root);
}
END_TEST

/* The real file of this process's namespace: read whole and parsed. */
START_TEST(test_read_real)
{
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    char *buf = malloc(PT_NETDEV_READ_MAX);
    ssize_t len = pt_netdev_read(fd, getpid(), buf, PT_NETDEV_READ_MAX);
    ck_assert_int_gt(len, 0);
    bool cut = true;
    int n = parse_n(buf, (size_t)len, PT_NETDEV_MAX, &cut);
    ck_assert_int_ge(n, 1);
    ck_assert(!cut);
    bool lo = false;
    for (int i = 0; i < n; i++)
        lo |= strcmp(ifs[i].name, "lo") == 0;
    ck_assert(lo);
    free(buf);
    close(fd);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("netdev");
    TCase *tc = unit_tcase(suite, "netdev");
    tcase_add_test(tc, test_real_layout);
    tcase_add_test(tc, test_cut_at_every_length);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_headers);
    tcase_add_test(tc, test_too_many);
    tcase_add_test(tc, test_read_fixture);
    tcase_add_test(tc, test_read_real);
    return unit_run(suite);
}
