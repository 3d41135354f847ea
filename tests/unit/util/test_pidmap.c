/* Unit tests for pidmap: the pid -> member index map that discovery and
 * accounting ask at every child and every poll. */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/pidmap.h"
#include "unit.h"

START_TEST(test_pidmap_empty)
{
    struct pt_pidmap map = {0};
    ck_assert_int_eq(pt_pidmap_get(&map, 1), -1);
    pt_pidmap_clear(&map); /* clearing a map that never held anything */
    ck_assert_int_eq(pt_pidmap_get(&map, 1), -1);
    pt_pidmap_free(&map);
}
END_TEST

START_TEST(test_pidmap_put_get_overwrite)
{
    struct pt_pidmap map = {0};
    pt_pidmap_put(&map, 42, 0);
    pt_pidmap_put(&map, 7, 3);
    pt_pidmap_put(&map, INT_MAX, UINT32_MAX);
    ck_assert_int_eq(pt_pidmap_get(&map, 42), 0);
    ck_assert_int_eq(pt_pidmap_get(&map, 7), 3);
    ck_assert_int_eq(pt_pidmap_get(&map, INT_MAX), (long)UINT32_MAX);
    ck_assert_int_eq(pt_pidmap_get(&map, 43), -1);
    ck_assert_uint_eq(map.count, 3);

    pt_pidmap_put(&map, 42, 9); /* overwrite: a new value, no new entry */
    ck_assert_int_eq(pt_pidmap_get(&map, 42), 9);
    ck_assert_uint_eq(map.count, 3);
    pt_pidmap_free(&map);
    ck_assert_ptr_null(map.keys);
    ck_assert_uint_eq(map.cap + map.count, 0);
}
END_TEST

/* Many times the first table's size: every entry survives each growth,
 * and the load factor stays at most 1/2. */
START_TEST(test_pidmap_growth)
{
    enum { N = 100000 };
    struct pt_pidmap map = {0};
    for (int i = 0; i < N; i++) {
        pt_pidmap_put(&map, 1 + 3 * i, (uint32_t)i);
        ck_assert_uint_le(map.count * 2, map.cap);
    }
    ck_assert_uint_eq(map.count, N);
    ck_assert_uint_eq(map.cap & (map.cap - 1), 0); /* a power of two */
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(pt_pidmap_get(&map, 1 + 3 * i), i);
        ck_assert_int_eq(pt_pidmap_get(&map, 2 + 3 * i), -1);
    }
    pt_pidmap_free(&map);
}
END_TEST

/* After a clear nothing is found, and the map fills again (members are
 * compacted by clear + put). */
START_TEST(test_pidmap_clear)
{
    struct pt_pidmap map = {0};
    for (int pid = 1; pid <= 1000; pid++)
        pt_pidmap_put(&map, pid, (uint32_t)pid);
    size_t cap = map.cap;
    pt_pidmap_clear(&map);
    ck_assert_uint_eq(map.count, 0);
    ck_assert_uint_eq(map.cap, cap); /* the table is kept */
    for (int pid = 1; pid <= 1000; pid++)
        ck_assert_int_eq(pt_pidmap_get(&map, pid), -1);
    pt_pidmap_put(&map, 500, 1);
    ck_assert_int_eq(pt_pidmap_get(&map, 500), 1);
    ck_assert_int_eq(pt_pidmap_get(&map, 501), -1);
    ck_assert_uint_eq(map.count, 1);
    pt_pidmap_free(&map);
}
END_TEST

/* pid 0 (a kernel parent, and the mark of a free slot) and negative pids
 * (garbage from a hostile or torn file) never name a member: putting one
 * stores and counts nothing. */
START_TEST(test_pidmap_zero_and_negative)
{
    struct pt_pidmap map = {0};
    ck_assert_int_eq(pt_pidmap_get(&map, 0), -1);
    ck_assert_int_eq(pt_pidmap_get(&map, -1), -1);
    for (int pid = 1; pid <= 100; pid++)
        pt_pidmap_put(&map, pid, (uint32_t)pid);
    pt_pidmap_put(&map, -1, 5);
    pt_pidmap_put(&map, INT_MIN, 6);
    pt_pidmap_put(&map, 0, 7);
    ck_assert_uint_eq(map.count, 100);
    ck_assert_int_eq(pt_pidmap_get(&map, 0), -1);
    ck_assert_int_eq(pt_pidmap_get(&map, -1), -1);
    ck_assert_int_eq(pt_pidmap_get(&map, INT_MIN), -1);
    for (int pid = 1; pid <= 100; pid++)
        ck_assert_int_eq(pt_pidmap_get(&map, pid), pid);
    pt_pidmap_free(&map);
}
END_TEST

/* pids that differ by a multiple of the table size start at the same
 * slot, whatever the hash: a run of them, from every start slot of the
 * first table (64), probes past each other and wraps at the table's end. */
START_TEST(test_pidmap_collisions)
{
    enum { FIRST_CAP = 64, RUN = 31 }; /* 31 entries: no growth yet */
    for (int start = 1; start <= FIRST_CAP; start++) {
        struct pt_pidmap map = {0};
        for (int k = 0; k < RUN; k++)
            pt_pidmap_put(&map, start + FIRST_CAP * k, (uint32_t)k);
        ck_assert_uint_eq(map.cap, FIRST_CAP);
        for (int k = 0; k < RUN; k++)
            ck_assert_int_eq(pt_pidmap_get(&map, start + FIRST_CAP * k), k);
        /* a colliding pid that is not there ends at the first empty slot */
        ck_assert_int_eq(pt_pidmap_get(&map, start + FIRST_CAP * RUN), -1);
        pt_pidmap_put(&map, start + FIRST_CAP * 3, 99); /* overwrite in the middle of the run */
        ck_assert_int_eq(pt_pidmap_get(&map, start + FIRST_CAP * 3), 99);
        ck_assert_int_eq(pt_pidmap_get(&map, start + FIRST_CAP * 4), 4);
        ck_assert_uint_eq(map.count, RUN);
        pt_pidmap_free(&map);
    }
}
END_TEST

/* Removing any entry of a wrapped run, and of a run mixed with pids of
 * other home slots, leaves every other entry found, in every order. */
START_TEST(test_pidmap_remove)
{
    enum { FIRST_CAP = 64, N = 30 };
    for (int gone = 0; gone < N; gone++) {
        struct pt_pidmap map = {0};
        /* even k: one home slot (wrapping at 60); odd k: consecutive pids */
        pid_t pids[N];
        for (int k = 0; k < N; k++) {
            pids[k] = k % 2 ? 1000 + k : 60 + FIRST_CAP * k;
            pt_pidmap_put(&map, pids[k], (uint32_t)k);
        }
        ck_assert(pt_pidmap_remove(&map, pids[gone]));
        ck_assert(!pt_pidmap_remove(&map, pids[gone]));
        ck_assert_int_eq(pt_pidmap_get(&map, pids[gone]), -1);
        for (int k = 0; k < N; k++)
            if (k != gone)
                ck_assert_int_eq(pt_pidmap_get(&map, pids[k]), k);
        ck_assert_uint_eq(map.count, N - 1);
        for (int k = 0; k < N; k++) { /* then all of them, the others in order */
            ck_assert(pt_pidmap_remove(&map, pids[k]) == (k != gone));
            for (int j = k + 1; j < N; j++)
                if (j != gone)
                    ck_assert_int_eq(pt_pidmap_get(&map, pids[j]), j);
        }
        ck_assert_uint_eq(map.count, 0);
        ck_assert(!pt_pidmap_remove(&map, 0));
        pt_pidmap_free(&map);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("pidmap");
    TCase *tc = unit_tcase(suite, "pidmap");
    tcase_add_test(tc, test_pidmap_empty);
    tcase_add_test(tc, test_pidmap_put_get_overwrite);
    tcase_add_test(tc, test_pidmap_growth);
    tcase_add_test(tc, test_pidmap_clear);
    tcase_add_test(tc, test_pidmap_zero_and_negative);
    tcase_add_test(tc, test_pidmap_collisions);
    tcase_add_test(tc, test_pidmap_remove);
    return unit_run(suite);
}
