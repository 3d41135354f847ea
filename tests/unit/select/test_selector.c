/* Unit tests for selector.c: the breakdown's keywords, which both
 * frontends parse with it (--by, BreakDown). */
#include <check.h>
#include <stdlib.h>

#include "select/selector.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *text;
    enum pt_breakdown by;
} good_breakdowns[] = {
    {"process", PT_BY_PROCESS},
    {"thread", PT_BY_THREAD},
    {"cgroup", PT_BY_CGROUP},
    {"title", PT_BY_TITLE},
};

START_TEST(test_breakdown_parse_good)
{
    enum pt_breakdown by = PT_BY_NONE;

    ck_assert_msg(pt_selector_breakdown_parse(good_breakdowns[_i].text, &by) == 0, "rejected \"%s\"",
                  good_breakdowns[_i].text);
    ck_assert_int_eq(by, good_breakdowns[_i].by);
    /* the keyword is also the lines' tag key */
    ck_assert_str_eq(pt_selector_breakdown_name(by), good_breakdowns[_i].text);
}
END_TEST

/* Exact spelling only. "none" too is refused: no breakdown is asked for
 * by giving none. */
static const char *const bad_breakdowns[] = {
    "",    "none",     "Process", "PROCESS",  "Thread", "processes", "threads", "proc",
    "pid", " process", "thread ", "thread\n", "Title",  "titles",    "args",    "cmdline",
};

START_TEST(test_breakdown_parse_bad)
{
    enum pt_breakdown by = PT_BY_THREAD;

    ck_assert_msg(pt_selector_breakdown_parse(bad_breakdowns[_i], &by) != 0, "accepted \"%s\"", bad_breakdowns[_i]);
    ck_assert_int_eq(by, PT_BY_THREAD); /* left alone */
}
END_TEST

START_TEST(test_breakdown_none_has_no_name)
{
    ck_assert_ptr_null(pt_selector_breakdown_name(PT_BY_NONE));
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("selector");
    TCase *tc = tcase_create("breakdown");
    SRunner *runner;
    int failed;

    tcase_add_loop_test(tc, test_breakdown_parse_good, 0, (int)COUNT(good_breakdowns));
    tcase_add_loop_test(tc, test_breakdown_parse_bad, 0, (int)COUNT(bad_breakdowns));
    tcase_add_test(tc, test_breakdown_none_has_no_name);
    suite_add_tcase(suite, tc);
    runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
