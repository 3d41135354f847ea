/* Unit tests for groupkey.c: each breakdown line's name unique as the
 * frontends write it (issue 24: "tab<TAB>x" and "tab_x" were one series;
 * so were two long names cut alike at collectd's 127 bytes). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "report/groupkey.h"
#include "unit.h"

#define N 64

static struct pt_group_report r[N];
static char keys[N][PT_GROUP_KEY_MAX], folds[N][PT_GROUP_KEY_MAX];
static size_t order[N];

static void keys_of(const char *const *names, size_t n, bool other_last, size_t cut)
{
    memset(r, 0, sizeof(r));
    for (size_t i = 0; i < n; i++)
        r[i].name = names[i];
    pt_groupkey_set(r, n, other_last, cut, keys, folds, order);
}

static bool is_suffixed(const char *key, const char *stem)
{
    size_t n = strlen(stem);
    return strncmp(key, stem, n) == 0 && key[n] == '~' && strlen(key + n + 1) == 8;
}

START_TEST(test_distinct_names_keep_theirs)
{
    const char *names[] = {"a", "tab\tx", "caf\xc3\xa9", "other"};
    keys_of(names, 4, true, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_str_eq(r[i].key, names[i]);
}
END_TEST

START_TEST(test_written_alike_get_a_suffix)
{
    /* both are written "tab_x": the name written as it is keeps it */
    const char *names[] = {"tab\tx", "tab_x", "tab/x", "nel\xc2\x85", "nel_"};
    keys_of(names, 5, false, 0);
    ck_assert_str_eq(r[1].key, "tab_x");
    ck_assert(is_suffixed(r[0].key, "tab\tx"));
    ck_assert(is_suffixed(r[2].key, "tab/x"));
    ck_assert_str_ne(r[0].key, r[2].key);
    ck_assert_str_eq(r[4].key, "nel_");
    ck_assert(is_suffixed(r[3].key, "nel\xc2\x85"));
}
END_TEST

START_TEST(test_suffix_is_stable)
{
    /* the same name gets the same key whatever else is there, in any order */
    const char *a[] = {"tab\tx", "tab_x"}, *b[] = {"x", "tab_x", "y", "tab\tx"};
    keys_of(a, 2, false, 0);
    char first[PT_GROUP_KEY_MAX];
    snprintf(first, sizeof(first), "%s", r[0].key);
    keys_of(b, 4, false, 0);
    ck_assert_str_eq(r[3].key, first);
}
END_TEST

START_TEST(test_cut_names_stay_apart)
{
    char one[200], two[200];
    memset(one, 'a', 150), memset(two, 'a', 150);
    strcpy(one + 150, "-one"), strcpy(two + 150, "-two");
    const char *names[] = {one, two, "short"};
    keys_of(names, 3, false, 100);
    ck_assert_uint_le(strlen(r[0].key), 100);
    ck_assert_uint_le(strlen(r[1].key), 100);
    ck_assert_str_ne(r[0].key, r[1].key);
    ck_assert_str_eq(r[2].key, "short");
    /* a long name alone is only cut */
    keys_of(names, 1, false, 100);
    ck_assert_uint_eq(strlen(r[0].key), 100);
}
END_TEST

START_TEST(test_cut_keeps_utf8_whole)
{
    char name[64] = "ab";
    for (int i = 0; i < 10; i++)
        strcat(name, "\xe2\x82\xac");
    const char *names[] = {name};
    keys_of(names, 1, false, 20); /* 2 + 6 * 3 = 20 */
    ck_assert_uint_eq(strlen(r[0].key), 20);
    keys_of(names, 1, false, 21);
    ck_assert_uint_eq(strlen(r[0].key), 20);
}
END_TEST

START_TEST(test_a_group_named_other)
{
    /* the group past the limit keeps "other"; the cgroup named so does not */
    const char *names[] = {"other", "b", "other"};
    keys_of(names, 3, true, 0);
    ck_assert_str_eq(r[2].key, "other");
    ck_assert(is_suffixed(r[0].key, "other"));
}
END_TEST

START_TEST(test_many_pairs)
{
    /* 30 pairs written alike, given in an order the sort must undo */
    static char names[60][16];
    const char *p[60];
    for (int i = 0; i < 30; i++) {
        snprintf(names[59 - 2 * i], sizeof(names[0]), "n%02d_", i);
        snprintf(names[2 * i % 59], sizeof(names[0]), "n%02d\t", i);
    }
    for (int i = 0; i < 60; i++)
        p[i] = names[i];
    keys_of(p, 60, false, 0);
    for (int i = 0; i < 60; i++)
        for (int j = i + 1; j < 60; j++)
            ck_assert_str_ne(r[i].key, r[j].key);
    for (int i = 0; i < 60; i++)
        if (strchr(names[i], '_'))
            ck_assert_str_eq(r[i].key, names[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("groupkey");
    TCase *tc = tcase_create("groupkey");
    tcase_add_test(tc, test_distinct_names_keep_theirs);
    tcase_add_test(tc, test_written_alike_get_a_suffix);
    tcase_add_test(tc, test_suffix_is_stable);
    tcase_add_test(tc, test_cut_names_stay_apart);
    tcase_add_test(tc, test_cut_keeps_utf8_whole);
    tcase_add_test(tc, test_a_group_named_other);
    tcase_add_test(tc, test_many_pairs);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
