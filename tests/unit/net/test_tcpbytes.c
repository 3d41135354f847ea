/* Unit tests for tcpbytes: one target's ledger of TCP sockets, the
 * growth each dump and destroy notification adds, once per socket. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "net/tcpbytes.h"
#include "unit.h"

static struct pt_tcpsock sock(uint64_t inode, uint64_t cookie, uint64_t sent, uint64_t received)
{
    return (struct pt_tcpsock){
        .inode = inode, .cookie = cookie, .sent = sent, .received = received, .has_bytes = true, .state = 1};
}

/* One walk that notes inodes[0..n) (whole), then one dump of socks. */
static void walk(struct pt_tcpbytes *l, const uint64_t *inodes, size_t n, bool whole)
{
    pt_tcpbytes_walk(l);
    for (size_t i = 0; i < n; i++)
        pt_tcpbytes_note(l, inodes[i], whole, -1, NULL);
}

static void dump(struct pt_tcpbytes *l, const struct pt_tcpsock *socks, size_t n)
{
    pt_tcpbytes_dump(l);
    for (size_t i = 0; i < n; i++)
        pt_tcpbytes_take(l, &socks[i], NULL, NULL);
}

START_TEST(test_delta_and_baseline)
{
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, 16);
    uint64_t inodes[] = {100, 200};
    pt_tcpbytes_walk(&l);
    ck_assert_int_eq(pt_tcpbytes_note(&l, 100, false, -1, NULL), 1); /* there before: a baseline */
    ck_assert_int_eq(pt_tcpbytes_note(&l, 200, true, -1, NULL), 1);  /* appeared since: whole */
    ck_assert_int_eq(pt_tcpbytes_note(&l, 200, true, -1, NULL), 0);  /* a second holder: known */
    struct pt_tcpsock d1[] = {sock(100, 1, 1000, 500), sock(200, 2, 70, 30), sock(300, 3, 9999, 9999)};
    dump(&l, d1, 3);
    ck_assert_uint_eq(l.sent, 70); /* 100's 1000 before: not this interval's; 300 not the tree's */
    ck_assert_uint_eq(l.received, 30);
    pt_tcpbytes_sweep(&l);
    ck_assert_int_eq(l.connections, 2);
    pt_tcpbytes_end(&l);

    walk(&l, inodes, 2, true);
    struct pt_tcpsock d2[] = {sock(100, 1, 1500, 800), sock(200, 2, 100, 30)};
    dump(&l, d2, 2);
    ck_assert_uint_eq(l.sent, 500 + 30);
    ck_assert_uint_eq(l.received, 300);
    /* the same socket told twice in one dump counts once */
    pt_tcpbytes_take(&l, &d2[0], NULL, NULL);
    ck_assert_uint_eq(l.sent, 530);
    /* counters that went back (never, but): nothing, never negative */
    pt_tcpbytes_dump(&l);
    struct pt_tcpsock back = sock(100, 1, 10, 10);
    uint64_t s, r;
    ck_assert_ptr_nonnull(pt_tcpbytes_take(&l, &back, &s, &r));
    ck_assert_uint_eq(s + r, 0);
    pt_tcpbytes_free(&l);
}
END_TEST

/* A reused inode with a new cookie is a new socket: counted from zero. */
START_TEST(test_inode_reuse)
{
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, 16);
    uint64_t inodes[] = {100};
    walk(&l, inodes, 1, false);
    struct pt_tcpsock d1[] = {sock(100, 1, 1000, 1000)};
    dump(&l, d1, 1);
    ck_assert_uint_eq(l.sent, 0);
    pt_tcpbytes_end(&l);
    walk(&l, inodes, 1, true);
    struct pt_tcpsock d2[] = {sock(100, 77, 40, 60)}; /* the old one closed, its inode given again */
    dump(&l, d2, 1);
    ck_assert_uint_eq(l.sent, 40);
    ck_assert_uint_eq(l.received, 60);
    /* the new cookie names it from now on; the old one nothing */
    struct pt_tcpsock gone_old = sock(0, 1, 5000, 5000);
    ck_assert_ptr_null(pt_tcpbytes_destroyed(&l, &gone_old, NULL, NULL));
    struct pt_tcpsock closed = sock(0, 77, 50, 61);
    ck_assert_ptr_nonnull(pt_tcpbytes_destroyed(&l, &closed, NULL, NULL));
    ck_assert_uint_eq(l.sent, 50);
    ck_assert_uint_eq(l.received, 61);
    pt_tcpbytes_free(&l);
}
END_TEST

/* A socket several members hold (inherited by a fork): one entry, its
 * bytes once. */
START_TEST(test_shared_once)
{
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, 16);
    uint64_t holders[] = {100, 100, 100};
    walk(&l, holders, 3, true);
    ck_assert_uint_eq(l.n, 1);
    struct pt_tcpsock d[] = {sock(100, 5, 300, 400)};
    dump(&l, d, 1);
    ck_assert_uint_eq(l.sent, 300);
    ck_assert_uint_eq(l.received, 400);
    pt_tcpbytes_sweep(&l);
    ck_assert_int_eq(l.connections, 1);
    pt_tcpbytes_free(&l);
}
END_TEST

/* Destroy notifications: an unknown socket's passed over; a known one's
 * last growth counted, by its cookie (an orphan's inode is 0), or by its
 * inode when no dump took it yet; then forgotten. */
START_TEST(test_destroyed)
{
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, 16);
    struct pt_tcpsock stranger = sock(0, 12345, 1 << 20, 1 << 20);
    ck_assert_ptr_null(pt_tcpbytes_destroyed(&l, &stranger, NULL, NULL)); /* an empty ledger */
    uint64_t inodes[] = {100, 200};
    walk(&l, inodes, 2, true);
    ck_assert_ptr_null(pt_tcpbytes_destroyed(&l, &stranger, NULL, NULL));
    struct pt_tcpsock stranger_inode = sock(999, 4, 1, 1);
    ck_assert_ptr_null(pt_tcpbytes_destroyed(&l, &stranger_inode, NULL, NULL));
    ck_assert_uint_eq(l.sent + l.received, 0);

    struct pt_tcpsock d[] = {sock(100, 1, 65553, 0)};
    dump(&l, d, 1);
    ck_assert_uint_eq(l.sent, 65553);
    struct pt_tcpsock last = sock(0, 1, 3000018, 2000001);
    uint64_t s, r;
    ck_assert_ptr_nonnull(pt_tcpbytes_destroyed(&l, &last, &s, &r));
    ck_assert_uint_eq(s, 3000018 - 65553);
    ck_assert_uint_eq(r, 2000001);
    ck_assert_uint_eq(l.sent, 3000018);
    ck_assert_ptr_null(pt_tcpbytes_destroyed(&l, &last, NULL, NULL)); /* forgotten */
    /* 200 never dumped: its notification names it by inode, counted whole */
    struct pt_tcpsock short_lived = sock(200, 2, 10, 20);
    ck_assert_ptr_nonnull(pt_tcpbytes_destroyed(&l, &short_lived, NULL, NULL));
    ck_assert_uint_eq(l.sent, 3000028);
    pt_tcpbytes_sweep(&l);
    ck_assert_uint_eq(l.n, 0);
    ck_assert(!pt_tcpbytes_holds(&l, 100));
    pt_tcpbytes_free(&l);
}
END_TEST

/* The sweep forgets what neither the walk nor the dump saw, keeps an
 * orphan the dump still tells (its last bytes come with its
 * notification), and counts as connections what both saw. */
START_TEST(test_sweep)
{
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, 16);
    uint64_t first[] = {1, 2, 3, 4};
    walk(&l, first, 4, true);
    struct pt_tcpsock d1[] = {sock(1, 11, 1, 1), sock(2, 12, 1, 1), sock(3, 13, 1, 1)};
    dump(&l, d1, 3);
    pt_tcpbytes_sweep(&l);
    ck_assert_uint_eq(l.n, 4); /* 4: a socket no dump tells (a listener, a UDP or unix one): walked */
    ck_assert_int_eq(l.connections, 3);
    uint64_t second[] = {1};
    walk(&l, second, 1, true);
    struct pt_tcpsock d2[] = {sock(1, 11, 2, 2), sock(0, 12, 5, 5)}; /* 2 closed, lingering */
    dump(&l, d2, 2);
    pt_tcpbytes_sweep(&l);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.connections, 1);
    ck_assert(pt_tcpbytes_holds(&l, 1));
    ck_assert(pt_tcpbytes_holds(&l, 2));
    ck_assert(!pt_tcpbytes_holds(&l, 3));
    ck_assert(!pt_tcpbytes_holds(&l, 4));
    struct pt_tcpsock last = sock(0, 12, 9, 9);
    uint64_t s;
    ck_assert_ptr_nonnull(pt_tcpbytes_destroyed(&l, &last, &s, NULL));
    ck_assert_uint_eq(s, 4);
    pt_tcpbytes_free(&l);
}
END_TEST

/* The bound: a note past max is refused, what is held still counted;
 * the hashes find every entry through the growths. */
START_TEST(test_bound)
{
    enum { MAX = 5000 };
    struct pt_tcpbytes l;
    pt_tcpbytes_init(&l, MAX);
    pt_tcpbytes_walk(&l);
    for (uint64_t i = 1; i <= MAX; i++)
        ck_assert_int_eq(pt_tcpbytes_note(&l, i * 7919, true, -1, NULL), 1);
    ck_assert_int_eq(pt_tcpbytes_note(&l, 1, true, -1, NULL), -1);
    ck_assert_int_eq(pt_tcpbytes_note(&l, 7919, true, -1, NULL), 0); /* known: still noted */
    ck_assert_uint_eq(l.n, MAX);
    ck_assert_uint_le(l.cap, MAX);
    pt_tcpbytes_dump(&l);
    for (uint64_t i = 1; i <= MAX + 10; i++) {
        struct pt_tcpsock s = sock(i * 7919, i, 1, 2);
        pt_tcpbytes_take(&l, &s, NULL, NULL);
    }
    ck_assert_uint_eq(l.sent, MAX);
    ck_assert_uint_eq(l.received, 2 * MAX);
    for (uint64_t i = 1; i <= MAX; i++) {
        struct pt_tcpsock s = sock(0, i, 3, 3);
        ck_assert_ptr_nonnull(pt_tcpbytes_destroyed(&l, &s, NULL, NULL));
    }
    pt_tcpbytes_sweep(&l);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_int_eq(pt_tcpbytes_note(&l, 1, true, -1, NULL), 1); /* room again */
    pt_tcpbytes_free(&l);
}
END_TEST

/* A walk that notes each socket where the last note leads (the entry
 * after it) and hands back where (pt_tcpbytes_note's at), then the same
 * sockets taken there (pt_tcpbytes_take_at), against the same run
 * through the hashes' lookups alone (note, pt_tcpbytes_take): every sum,
 * connection count and growth equal, at every step of a tree's life made
 * at random: sockets open and close (destroyed, or gone unnoticed),
 * inodes come back with new cookies (at once, the dead entry still
 * there, or later), a first dump tells no cookie of
 * some, holders shared, walks in another order, at given wrong. */
#define SOCKS 48
struct life {
    uint64_t inode, cookie, sent, received;
    bool open;
};

START_TEST(test_take_at_same)
{
    struct pt_tcpbytes a, b;
    pt_tcpbytes_init(&a, 64);
    pt_tcpbytes_init(&b, 64);
    struct life socks[SOCKS];
    uint64_t next_cookie = 1;
    unsigned seed = 12345;
    for (int i = 0; i < SOCKS; i++)
        socks[i] = (struct life){.inode = 1000 + (uint64_t)i % 40, .cookie = next_cookie++, .open = i < 40};
    for (int step = 0; step < 400; step++) {
        /* the sockets move bytes; some close (a notification, or none),
         * some open again on an inode that was another's */
        for (int i = 0; i < SOCKS; i++) {
            struct life *k = &socks[i];
            if (!k->open) {
                bool clash = false;
                for (int j = 0; j < SOCKS; j++)
                    clash |= j != i && socks[j].open && socks[j].inode == k->inode;
                if (!clash && rand_r(&seed) % 8 == 0)
                    *k = (struct life){.inode = k->inode, .cookie = next_cookie++, .open = true};
                continue;
            }
            k->sent += (uint64_t)(rand_r(&seed) % 1000);
            k->received += (uint64_t)(rand_r(&seed) % 1000);
            if (rand_r(&seed) % 16 == 0) {
                k->open = false;
                if (rand_r(&seed) % 2) {
                    struct pt_tcpsock d = sock(0, k->cookie, k->sent, k->received);
                    uint64_t s1, r1, s2, r2;
                    const struct pt_tcp_entry *ea = pt_tcpbytes_destroyed(&a, &d, &s1, &r1);
                    const struct pt_tcp_entry *eb = pt_tcpbytes_destroyed(&b, &d, &s2, &r2);
                    ck_assert((ea == NULL) == (eb == NULL));
                    ck_assert_uint_eq(s1, s2);
                    ck_assert_uint_eq(r1, r2);
                }
                if (rand_r(&seed) % 3 == 0) /* its inode another's at once, before the walk */
                    *k = (struct life){.inode = k->inode, .cookie = next_cookie++, .open = true};
            }
        }
        /* a walk: the open ones, in order or from a point on and around,
         * one holder's twice */
        pt_tcpbytes_walk(&a);
        pt_tcpbytes_walk(&b);
        size_t at[SOCKS];
        int from = rand_r(&seed) % 3 == 0 ? rand_r(&seed) % SOCKS : 0;
        for (int n = 0; n < SOCKS; n++) {
            int i = (from + n) % SOCKS;
            at[i] = SIZE_MAX;
            if (!socks[i].open)
                continue;
            bool whole = rand_r(&seed) % 2;
            a.next = SIZE_MAX; /* a's notes by the lookup alone */
            int ra = pt_tcpbytes_note(&a, socks[i].inode, whole, -1, NULL);
            int rb = pt_tcpbytes_note(&b, socks[i].inode, whole, -1, &at[i]);
            ck_assert_int_eq(ra, rb);
            if (rand_r(&seed) % 10 == 0) { /* a second holder */
                a.next = SIZE_MAX;
                pt_tcpbytes_note(&a, socks[i].inode, whole, -1, NULL);
                pt_tcpbytes_note(&b, socks[i].inode, whole, -1, &at[i]);
            }
        }
        /* a dump, the sockets' cookies told (0 for a few: none made yet),
         * at now and then wrong */
        pt_tcpbytes_dump(&a);
        pt_tcpbytes_dump(&b);
        for (int i = 0; i < SOCKS; i++) {
            if (!socks[i].open)
                continue;
            struct pt_tcpsock d =
                sock(socks[i].inode, rand_r(&seed) % 20 == 0 ? 0 : socks[i].cookie, socks[i].sent, socks[i].received);
            size_t where = rand_r(&seed) % 25 == 0 ? (size_t)(rand_r(&seed) % 64) : at[i];
            uint64_t s1, r1, s2, r2;
            const struct pt_tcp_entry *ea = pt_tcpbytes_take(&a, &d, &s1, &r1);
            const struct pt_tcp_entry *eb = pt_tcpbytes_take_at(&b, where, &d, &s2, &r2);
            ck_assert((ea == NULL) == (eb == NULL));
            ck_assert_msg(s1 == s2 && r1 == r2, "step %d, socket %d: %llu/%llu by lookups, %llu/%llu at %zu", step, i,
                          (unsigned long long)s1, (unsigned long long)r1, (unsigned long long)s2,
                          (unsigned long long)r2, where);
        }
        pt_tcpbytes_sweep(&a);
        pt_tcpbytes_sweep(&b);
        ck_assert_uint_eq(a.sent, b.sent);
        ck_assert_uint_eq(a.received, b.received);
        ck_assert_int_eq(a.connections, b.connections);
        ck_assert_uint_eq(a.n, b.n);
        if (step % 5 == 4) {
            pt_tcpbytes_end(&a);
            pt_tcpbytes_end(&b);
        }
    }
    ck_assert_uint_gt(next_cookie, SOCKS + 20); /* inodes came back */
    pt_tcpbytes_free(&a);
    pt_tcpbytes_free(&b);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("tcpbytes");
    TCase *tc = unit_tcase(suite, "tcpbytes");
    tcase_add_test(tc, test_delta_and_baseline);
    tcase_add_test(tc, test_inode_reuse);
    tcase_add_test(tc, test_shared_once);
    tcase_add_test(tc, test_destroyed);
    tcase_add_test(tc, test_sweep);
    tcase_add_test(tc, test_bound);
    tcase_add_test(tc, test_take_at_same);
    return unit_run(suite);
}
