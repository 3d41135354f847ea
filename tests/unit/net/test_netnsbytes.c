/* Unit tests for netnsbytes: a namespace's interface counters, the
 * growth of each reading since the last of the same namespace over its
 * interfaces but lo; never negative, never what came before the base: a
 * new namespace, a new interface, a counter that fell (a veth made again)
 * or an interface gone each restart from the new reading. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "net/netnsbytes.h"
#include "procfs/procmax.h"
#include "unit.h"

static struct pt_netdev_if dev(const char *name, uint64_t rx_bytes, uint64_t rx_packets, uint64_t tx_bytes,
                               uint64_t tx_packets)
{
    struct pt_netdev_if d = {
        .rx_bytes = rx_bytes, .rx_packets = rx_packets, .tx_bytes = tx_bytes, .tx_packets = tx_packets};
    snprintf(d.name, sizeof(d.name), "%s", name);
    return d;
}

static void assert_growth(const struct pt_netnsbytes *l, uint64_t rx_bytes, uint64_t rx_packets, uint64_t tx_bytes,
                          uint64_t tx_packets)
{
    ck_assert(l->known);
    ck_assert_uint_eq(l->rx_bytes, rx_bytes);
    ck_assert_uint_eq(l->rx_packets, rx_packets);
    ck_assert_uint_eq(l->tx_bytes, tx_bytes);
    ck_assert_uint_eq(l->tx_packets, tx_packets);
}

START_TEST(test_growth_but_lo)
{
    struct pt_netnsbytes l = {0};
    struct pt_netdev_if a[] = {dev("lo", 500, 5, 500, 5), dev("eth0", 1000, 10, 2000, 20)};
    pt_netnsbytes_take(&l, 7, a, 2);
    ck_assert(!l.known); /* the first reading: a base */
    struct pt_netdev_if b[] = {dev("lo", 90500, 905, 90500, 905), dev("eth0", 4000, 13, 2600, 24)};
    pt_netnsbytes_take(&l, 7, b, 2);
    assert_growth(&l, 3000, 3, 600, 4); /* lo's 90,000 never left */
    ck_assert_uint_eq(l.unknown, 0);
    pt_netnsbytes_take(&l, 7, b, 2);
    assert_growth(&l, 0, 0, 0, 0); /* nothing moved: 0, known */
    pt_netnsbytes_free(&l);
}
END_TEST

/* An interface new to the namespace counts from its first reading; one
 * gone counts no more; the kernel's order may change as they come and go. */
START_TEST(test_interfaces_come_and_go)
{
    struct pt_netnsbytes l = {0};
    struct pt_netdev_if a[] = {dev("lo", 0, 0, 0, 0), dev("eth0", 100, 1, 100, 1), dev("eth1", 50, 1, 50, 1)};
    pt_netnsbytes_take(&l, 7, a, 3);
    /* eth0 gone, veth9 new (moved in with 10^9 bytes of another namespace) */
    struct pt_netdev_if b[] = {dev("lo", 0, 0, 0, 0), dev("eth1", 80, 2, 70, 2), dev("veth9", 1000000000, 9, 9, 9)};
    pt_netnsbytes_take(&l, 7, b, 3);
    assert_growth(&l, 30, 1, 20, 1);
    ck_assert_uint_eq(l.unknown, 1);
    struct pt_netdev_if c[] = {dev("veth9", 1000000100, 10, 19, 10), dev("lo", 0, 0, 0, 0), dev("eth1", 80, 2, 70, 2)};
    pt_netnsbytes_take(&l, 7, c, 3);
    assert_growth(&l, 100, 1, 10, 1);
    ck_assert_uint_eq(l.unknown, 0);
    pt_netnsbytes_free(&l);
}
END_TEST

/* A counter that fell: the interface was made again (a veth recreated):
 * its new counters are a base, never a negative or a wrapped growth. */
START_TEST(test_counter_fell)
{
    struct pt_netnsbytes l = {0};
    struct pt_netdev_if a[] = {dev("eth0", 5000, 50, 6000, 60), dev("eth1", 10, 1, 10, 1)};
    pt_netnsbytes_take(&l, 7, a, 2);
    uint64_t fell[][4] = {{4000, 60, 7000, 70}, {6000, 40, 7000, 70}, {6000, 60, 5000, 70}, {6000, 60, 7000, 50}};
    for (size_t k = 0; k < 4; k++) {
        struct pt_netdev_if b[] = {dev("eth0", fell[k][0], fell[k][1], fell[k][2], fell[k][3]),
                                   dev("eth1", 20, 2, 30, 3)};
        pt_netnsbytes_take(&l, 7, b, 2);
        assert_growth(&l, 10, 1, 20, 2); /* eth1's alone */
        ck_assert_uint_eq(l.unknown, 1);
        pt_netnsbytes_take(&l, 7, a, 2); /* back to a's: fell again */
        ck_assert_uint_eq(l.unknown, 2);
        assert_growth(&l, 0, 0, 0, 0);
    }
    pt_netnsbytes_free(&l);
}
END_TEST

/* Another namespace (the tree moved, or its namespace was made again):
 * a new base, the interval's growth unknown; so after a forget. */
START_TEST(test_namespace_changes)
{
    struct pt_netnsbytes l = {0};
    struct pt_netdev_if a[] = {dev("eth0", 100, 1, 100, 1)};
    struct pt_netdev_if b[] = {dev("eth0", 900, 9, 900, 9)};
    pt_netnsbytes_take(&l, 7, a, 1);
    pt_netnsbytes_take(&l, 8, b, 1);
    ck_assert(!l.known);
    pt_netnsbytes_take(&l, 7, b, 1);
    ck_assert(!l.known); /* 7 again: not the base's */
    pt_netnsbytes_take(&l, 7, b, 1);
    assert_growth(&l, 0, 0, 0, 0);
    pt_netnsbytes_forget(&l);
    ck_assert(!l.known);
    pt_netnsbytes_take(&l, 7, a, 1); /* fell, but after a forget: a base either way */
    ck_assert(!l.known);
    ck_assert_uint_eq(l.rx_bytes, 0);
    /* namespace 0 is none: never a growth */
    pt_netnsbytes_take(&l, 0, a, 1);
    pt_netnsbytes_take(&l, 0, b, 1);
    ck_assert(!l.known);
    pt_netnsbytes_free(&l);
}
END_TEST

/* Counters at the clamp (PT_MAX_COUNT) on many interfaces: the sums
 * saturate, never wrap. */
START_TEST(test_saturates)
{
    static struct pt_netdev_if a[PT_NETDEV_MAX], b[PT_NETDEV_MAX];
    char name[16];
    for (int i = 0; i < PT_NETDEV_MAX; i++) {
        snprintf(name, sizeof(name), "e%d", i);
        a[i] = dev(name, 0, 0, 0, 0);
        b[i] = dev(name, PT_MAX_COUNT, PT_MAX_COUNT, PT_MAX_COUNT, PT_MAX_COUNT);
    }
    struct pt_netnsbytes l = {0};
    pt_netnsbytes_take(&l, 7, a, PT_NETDEV_MAX);
    pt_netnsbytes_take(&l, 7, b, PT_NETDEV_MAX);
    assert_growth(&l, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX);
    pt_netnsbytes_free(&l);
}
END_TEST

START_TEST(test_loopback_name)
{
    ck_assert(pt_netnsbytes_is_loopback("lo"));
    ck_assert(!pt_netnsbytes_is_loopback("lo0"));
    ck_assert(!pt_netnsbytes_is_loopback("l"));
    ck_assert(!pt_netnsbytes_is_loopback(""));
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("netnsbytes");
    TCase *tc = unit_tcase(suite, "netnsbytes");
    tcase_add_test(tc, test_growth_but_lo);
    tcase_add_test(tc, test_interfaces_come_and_go);
    tcase_add_test(tc, test_counter_fell);
    tcase_add_test(tc, test_namespace_changes);
    tcase_add_test(tc, test_saturates);
    tcase_add_test(tc, test_loopback_name);
    return unit_run(suite);
}
