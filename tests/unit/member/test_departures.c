/* departures.h: the members gone since the last drain of exit records;
 * its invariant (pt_departures_check) holds after every event, and is
 * caught when broken. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "member/departures.h"
#include "unit.h"

#define CHECKED(ds, call) UNIT_CHECKED(pt_departures_check, ds, call)

START_TEST(test_add_find_clear)
{
    struct pt_departures ds = {0};
    struct pt_departure *d = NULL;
    for (pid_t pid = 100; pid < 140; pid++) { /* past the first allocation: the array moves */
        CHECKED(&ds, d = pt_departures_add(&ds, pid));
        ck_assert_int_eq(d->pid, pid);
        ck_assert_int_eq(d->reaper, 0); /* zeroed but for its pid */
        d->reaper = pid - 1;
    }
    ck_assert_uint_eq(ds.n, 40);
    for (pid_t pid = 100; pid < 140; pid++)
        ck_assert_int_eq(pt_departures_of(&ds, pid)->reaper, pid - 1);
    ck_assert_ptr_null(pt_departures_of(&ds, 99));
    /* pid 120 reused within the drain, and leaving again: its second record is found */
    CHECKED(&ds, d = pt_departures_add(&ds, 120));
    d->reaper = 7;
    ck_assert_int_eq(pt_departures_of(&ds, 120)->reaper, 7);
    ck_assert_uint_eq(ds.n, 41);
    /* a record's threads' usage is the list's: freed when cleared */
    struct pt_departure *owner = pt_departures_of(&ds, 101);
    owner->threads.list = calloc(4, sizeof(*owner->threads.list));   /* count 0: nothing to close */
    owner->threads.ended = calloc(2, sizeof(*owner->threads.ended)); /* a leak under AddressSanitizer if kept */
    CHECKED(&ds, pt_departures_clear(&ds));
    ck_assert_uint_eq(ds.n, 0);
    ck_assert_ptr_null(pt_departures_of(&ds, 101));
    CHECKED(&ds, pt_departures_add(&ds, 5));
    ck_assert_ptr_nonnull(pt_departures_of(&ds, 5));
    pt_departures_free(&ds);
    ck_assert_ptr_null(ds.list);
}
END_TEST

START_TEST(test_a_broken_index_is_caught)
{
    char why[160];
    struct pt_departures ds = {0};
    pt_departures_add(&ds, 10);
    pt_departures_add(&ds, 11);
    pt_departures_add(&ds, 10);
    ck_assert_ptr_null(pt_departures_check(&ds, why, sizeof(why)));
    pt_pidmap_put(&ds.index, 10, 0); /* the first record of 10, not its last */
    ck_assert_str_eq(pt_departures_check(&ds, why, sizeof(why)), "the index finds the last record of each pid");
    pt_pidmap_put(&ds.index, 10, 2);
    pt_pidmap_put(&ds.index, 11, 2);
    ck_assert_str_eq(pt_departures_check(&ds, why, sizeof(why)), "the index finds the last record of each pid");
    ck_assert_ptr_nonnull(strstr(why, "departure 11 is at 1, its index says 2"));
    pt_departures_free(&ds);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("departures");
    TCase *tc = unit_tcase(s, "list");
    tcase_add_test(tc, test_add_find_clear);
    tcase_add_test(tc, test_a_broken_index_is_caught);
    return unit_run(s);
}
