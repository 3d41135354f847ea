/* Unit tests for targetnetns through a target on a fixture /proc: a tree
 * whose live members are all in one network namespace that is not
 * proctree's has that namespace's interface counters on its line, from a
 * member's net/dev (every interface but lo), the first reading a base;
 * members in two namespaces, in ours and another, or one whose namespace
 * cannot be read leave them out, and so does --no-net. Each member's
 * namespace is its ns/net link, written here as the kernel names it. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "net/sockscan.h"
#include "tree/target.h"
#include "unit.h"

#define HEADER                                                                                                         \
    "Inter-|   Receive                                                |  Transmit\n"                                   \
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier " \
    "compressed\n"

/* pid's ns/net link names namespace ns (0: proctree's own). */
static void put_ns(struct unit_tree *u, pid_t pid, uint64_t ns)
{
    char path[4096], link[64];
    snprintf(path, sizeof(path), "%s/%d/ns", u->root, (int)pid);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%d/ns/net", u->root, (int)pid);
    unlink(path);
    uint64_t own = pt_sockscan_netns_of(-1, 0);
    ck_assert_uint_ne(own, 0);
    snprintf(link, sizeof(link), "net:[%llu]", (unsigned long long)(ns ? ns : own));
    ck_assert_int_eq(symlink(link, path), 0);
}

/* pid's net/dev: lo, and eth0 with these counters. */
static void put_dev(struct unit_tree *u, pid_t pid, uint64_t rx_bytes, uint64_t rx_packets, uint64_t tx_bytes,
                    uint64_t tx_packets)
{
    char text[1024], rel[64];
    snprintf(text, sizeof(text),
             HEADER "    lo: %llu %llu 0 0 0 0 0 0 %llu %llu 0 0 0 0 0 0\n"
                    "  eth0: %llu %llu 0 0 0 0 0 0 %llu %llu 0 0 0 0 0 0\n",
             (unsigned long long)rx_bytes * 7, (unsigned long long)rx_packets, (unsigned long long)rx_bytes * 7,
             (unsigned long long)rx_packets, (unsigned long long)rx_bytes, (unsigned long long)rx_packets,
             (unsigned long long)tx_bytes, (unsigned long long)tx_packets);
    snprintf(rel, sizeof(rel), "%d/net/dev", (int)pid);
    fx_write(u->root, rel, text, -1);
}

static void end_interval(struct unit_tree *u, struct pt_report *r)
{
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    pt_target_discover(&u->target, pt_now());
    pt_target_net_walk(&u->target, true);
    pt_target_end_interval(&u->target, 1.0, &units, r);
}

static const enum pt_metric_id NETNS[] = {PT_M_NETNS_RECEIVED_BYTES, PT_M_NETNS_SENT_BYTES, PT_M_NETNS_RECEIVED_PACKETS,
                                          PT_M_NETNS_SENT_PACKETS};

static void assert_absent(const struct pt_report *r)
{
    for (size_t k = 0; k < (size_t)COUNT(NETNS); k++)
        ck_assert_msg(!r->v[NETNS[k]].present, "%s present", pt_catalog[NETNS[k]].name);
}

static void assert_netns(const struct pt_report *r, int64_t rx_bytes, int64_t rx_packets, int64_t tx_bytes,
                         int64_t tx_packets)
{
    int64_t want[] = {rx_bytes, tx_bytes, rx_packets, tx_packets};
    for (size_t k = 0; k < (size_t)COUNT(NETNS); k++) {
        ck_assert_msg(r->v[NETNS[k]].present, "%s absent", pt_catalog[NETNS[k]].name);
        ck_assert_msg(r->v[NETNS[k]].i == want[k], "%s: %lld, not %lld", pt_catalog[NETNS[k]].name,
                      (long long)r->v[NETNS[k]].i, (long long)want[k]);
    }
}

/* Two members in namespace 7: its eth0's growth from the second end on,
 * lo's never; TCP's metrics out (sock_diag does not answer for it). */
START_TEST(test_one_foreign_namespace)
{
    struct unit_tree u;
    unit_tree_open(&u);
    unit_tree_put(&u, 100, 1, "101");
    unit_tree_put(&u, 101, 100, "");
    put_ns(&u, 100, 7);
    put_ns(&u, 101, 7);
    put_dev(&u, 100, 1000, 10, 500, 5);
    put_dev(&u, 101, 1000, 10, 500, 5);
    struct pt_report r;
    end_interval(&u, &r);
    assert_absent(&r); /* the base */
    ck_assert(!r.v[PT_M_PROC_NET_TCP_SENT_BYTES].present);
    put_dev(&u, 100, 4000, 13, 2500, 9);
    put_dev(&u, 101, 4000, 13, 2500, 9);
    end_interval(&u, &r);
    assert_netns(&r, 3000, 3, 2000, 4);
    ck_assert(!r.v[PT_M_PROC_NET_TCP_SENT_BYTES].present);
    end_interval(&u, &r);
    assert_netns(&r, 0, 0, 0, 0);
    /* eth0 made again: its counters fell, a new base, 0 */
    put_dev(&u, 100, 100, 1, 100, 1);
    put_dev(&u, 101, 100, 1, 100, 1);
    end_interval(&u, &r);
    assert_netns(&r, 0, 0, 0, 0);
    put_dev(&u, 100, 150, 2, 130, 3);
    put_dev(&u, 101, 150, 2, 130, 3);
    end_interval(&u, &r);
    assert_netns(&r, 50, 1, 30, 2);
    /* the tree moved to namespace 9: a new base there */
    put_ns(&u, 100, 9);
    put_ns(&u, 101, 9);
    end_interval(&u, &r);
    assert_absent(&r);
    put_dev(&u, 100, 160, 3, 130, 3);
    put_dev(&u, 101, 160, 3, 130, 3);
    end_interval(&u, &r);
    assert_netns(&r, 10, 1, 0, 0);
    unit_tree_close(&u);
}
END_TEST

/* Members in two namespaces, or in ours and another: left out, and the
 * next interval wholly in one is a base again. */
START_TEST(test_several_namespaces)
{
    pid_t other[] = {0, 8}; /* ours, another foreign one */
    for (size_t k = 0; k < 2; k++) {
        struct unit_tree u;
        unit_tree_open(&u);
        unit_tree_put(&u, 100, 1, "101");
        unit_tree_put(&u, 101, 100, "");
        put_ns(&u, 100, 7);
        put_ns(&u, 101, 7);
        put_dev(&u, 100, 1000, 10, 500, 5);
        put_dev(&u, 101, 1000, 10, 500, 5);
        struct pt_report r;
        end_interval(&u, &r);
        end_interval(&u, &r);
        assert_netns(&r, 0, 0, 0, 0);
        put_ns(&u, 101, (uint64_t)other[k]);
        put_dev(&u, 100, 2000, 20, 500, 5);
        end_interval(&u, &r);
        assert_absent(&r);
        put_ns(&u, 101, 7);
        end_interval(&u, &r);
        assert_absent(&r); /* a base again: 7's growth while it was left out is not this interval's */
        put_dev(&u, 100, 2500, 25, 600, 6);
        end_interval(&u, &r);
        assert_netns(&r, 500, 5, 100, 1);
        unit_tree_close(&u);
    }
}
END_TEST

/* A member whose ns/net cannot be read (here: ns is no directory) beside
 * one in namespace 7: unknown, left out; one whose link is gone (an
 * exiting process loses its namespaces first): passed over. */
START_TEST(test_unknown_and_exiting_members)
{
    struct unit_tree u;
    unit_tree_open(&u);
    unit_tree_put(&u, 100, 1, "101");
    unit_tree_put(&u, 101, 100, "");
    put_ns(&u, 100, 7);
    put_dev(&u, 100, 1000, 10, 500, 5);
    fx_write(u.root, "101/ns", "no directory", -1);
    struct pt_report r;
    end_interval(&u, &r);
    end_interval(&u, &r);
    assert_absent(&r);
    char path[4096];
    snprintf(path, sizeof(path), "%s/101/ns", u.root);
    ck_assert_int_eq(unlink(path), 0); /* ENOENT: exiting */
    end_interval(&u, &r);
    assert_absent(&r); /* the base */
    put_dev(&u, 100, 1100, 11, 500, 5);
    end_interval(&u, &r);
    assert_netns(&r, 100, 1, 0, 0);
    unit_tree_close(&u);
}
END_TEST

/* A tree in our namespace: nothing (the TCP path's); a net/dev the
 * parser refuses, or none: left out. */
START_TEST(test_ours_and_bad_files)
{
    struct unit_tree u;
    unit_tree_open(&u);
    put_ns(&u, 100, 0);
    put_dev(&u, 100, 1000, 10, 500, 5);
    struct pt_report r;
    end_interval(&u, &r);
    end_interval(&u, &r);
    assert_absent(&r);
    put_ns(&u, 100, 7);
    end_interval(&u, &r);
    end_interval(&u, &r);
    assert_netns(&r, 0, 0, 0, 0);
    fx_write(u.root, "100/net/dev", HEADER "  eth0: 1 2 3\n", -1);
    end_interval(&u, &r);
    assert_absent(&r);
    put_dev(&u, 100, 1000, 10, 500, 5);
    end_interval(&u, &r);
    assert_absent(&r); /* a base after the refused one */
    fx_write(u.root, "100/net/dev", HEADER "  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", -1);
    end_interval(&u, &r);
    assert_absent(&r); /* a last line with no newline: cut, the file is not whole */
    char path[4096];
    snprintf(path, sizeof(path), "%s/100/net/dev", u.root);
    ck_assert_int_eq(unlink(path), 0);
    end_interval(&u, &r);
    assert_absent(&r);
    unit_tree_close(&u);
}
END_TEST

START_TEST(test_no_net)
{
    struct unit_tree u;
    unit_tree_open(&u);
    u.target.options.collect_net = false;
    put_ns(&u, 100, 7);
    put_dev(&u, 100, 1000, 10, 500, 5);
    struct pt_report r;
    end_interval(&u, &r);
    put_dev(&u, 100, 2000, 20, 500, 5);
    end_interval(&u, &r);
    assert_absent(&r);
    unit_tree_close(&u);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("netns");
    TCase *tc = unit_tcase(suite, "netns");
    tcase_add_test(tc, test_one_foreign_namespace);
    tcase_add_test(tc, test_several_namespaces);
    tcase_add_test(tc, test_unknown_and_exiting_members);
    tcase_add_test(tc, test_ours_and_bad_files);
    tcase_add_test(tc, test_no_net);
    return unit_run(suite);
}
