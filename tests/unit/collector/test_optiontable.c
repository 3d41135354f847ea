/* Unit tests for optiontable.c: the one table both frontends parse their
 * options through. Each frontend finds an option by its own name, so the
 * names must be unique in it; each value a frontend reads must land in a
 * setting of the library, where its scope says. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proctree/optiontable.h"

START_TEST(test_names_unique)
{
    const struct pt_option_def *a = &pt_options[_i];

    ck_assert_int_eq(a->id, _i); /* indexed by id */
    ck_assert_msg(a->execd || a->collectd, "option %d is in neither frontend", _i);
    for (size_t j = 0; j < (size_t)_i; j++) {
        const struct pt_option_def *b = &pt_options[j];
        ck_assert_msg(!a->execd || !b->execd || strcmp(a->execd, b->execd) != 0, "--%s twice", a->execd);
        /* collectd compares keys without case */
        ck_assert_msg(!a->collectd || !b->collectd || strcasecmp(a->collectd, b->collectd) != 0, "%s twice",
                      a->collectd);
    }
    if (a->collectd)
        ck_assert_ptr_eq(pt_optiontable_by_key(a->collectd), a);
}
END_TEST

/* --help shows every execd option; a flag has no collectd form. */
START_TEST(test_execd_entries_have_help)
{
    const struct pt_option_def *o = &pt_options[_i];

    if (o->execd)
        ck_assert_msg(o->help && *o->help && o->metavar, "--%s has no help", o->execd);
    if (o->arg == PT_ARG_NONE)
        ck_assert_msg(!o->collectd, "%s is a flag", o->collectd);
}
END_TEST

/* What collectd reads is stored: a selector into the selector, a
 * per-target key into the target's options, a global one into the
 * collector's config; the other two are NULL, so a write where the scope
 * does not say crashes the test. The block's name alone is the frontend's. */
START_TEST(test_collectd_keys_are_stored)
{
    const struct pt_option_def *o = &pt_options[_i];
    struct pt_collector_config config;
    struct pt_target_options target;
    struct pt_selector selector = {.kind = PT_SELECT_CHILD};
    union pt_option_value v = {.whole = 1};

    if (!o->collectd || o->id == PT_O_NAME)
        return;
    pt_collector_config_init(&config);
    pt_target_options_init(&target);
    ck_assert_msg(pt_optiontable_store(o, &v, o->scope == PT_OPTION_GLOBAL ? &config : NULL,
                                       o->scope == PT_OPTION_TARGET ? &target : NULL,
                                       o->scope == PT_OPTION_SELECTOR ? &selector : NULL) == 0,
                  "%s: no setting", o->collectd);
    if (o->scope == PT_OPTION_SELECTOR)
        ck_assert_int_eq(selector.kind, o->selects);
}
END_TEST

static const struct {
    enum pt_option_id id;
    const char *text;
    int result;
} parses[] = {
    {PT_O_PID, "1", 0},
    {PT_O_PID, "4194303", 0},
    {PT_O_PID, "4194304", -1},
    {PT_O_PID, "0", -1},
    {PT_O_PID, "+1", -1},
    {PT_O_PID, " 1", -1},
    {PT_O_PID, "1.0", -1},
    {PT_O_PID, "", -1},
    {PT_O_PID, "99999999999999999999999", -1},
    {PT_O_BY_LIMIT, "1000", 0},
    {PT_O_BY_LIMIT, "1001", -1},
    {PT_O_DESCRIPTOR_BUDGET, "0", 0},
    /* 0 turns the guard off (selector.h); a duration > 0 sets it */
    {PT_O_PSS_BUDGET, "0", 0},
    {PT_O_PSS_BUDGET, "5ms", 0},
    {PT_O_PSS_BUDGET, "-1", -1},
    /* 1 reads every member at every sample; at most one read in 3600 */
    {PT_O_PSS_EVERY, "1", 0},
    {PT_O_PSS_EVERY, "3600", 0},
    {PT_O_PSS_EVERY, "0", -1},
    {PT_O_PSS_EVERY, "3601", -1},
    {PT_O_POLL_INTERVAL, "0", -1},
    {PT_O_POLL_INTERVAL, "100ms", 0},
    /* 1 ms to 24 h, both ends in (units.h) */
    {PT_O_POLL_INTERVAL, "1ms", 0},
    {PT_O_POLL_INTERVAL, "0.001", 0},
    {PT_O_POLL_INTERVAL, "999us", -1},
    {PT_O_POLL_INTERVAL, "1ns", -1},
    {PT_O_DISCOVERY_INTERVAL, "24h", 0},
    {PT_O_DISCOVERY_INTERVAL, "86400.001", -1},
    {PT_O_PSS_INTERVAL, "1441m", -1},
    {PT_O_INTERVAL, "1000us", 0},
    {PT_O_INTERVAL, "0.5ms", -1},
    {PT_O_PSS_BUDGET, "1ms", 0},
    {PT_O_PSS_BUDGET, "1us", -1},
    {PT_O_PSS_BUDGET, "25h", -1},
    {PT_O_PIDFILE, "", -1},
    {PT_O_MATCH, "", -1},
    {PT_O_BY, "cgroup", 0},
    {PT_O_BY, "none", -1},
    {PT_O_BY, "title", 0},
    /* compiled to check it: a bad one stops the start */
    {PT_O_BY_TITLE_PATTERN, "^postgres: (\\S+)", 0},
    {PT_O_BY_TITLE_PATTERN, "^postgres: (", -1},
    {PT_O_BY_TITLE_PATTERN, "a{2,1}", -1},
    {PT_O_BY_TITLE_PATTERN, "", -1},
    {PT_O_PROC_MEMORY_UNIT, "MB", 0},
    {PT_O_PROC_MEMORY_UNIT, "TB", -1},
    {PT_O_SYS_ROOT, "/", 0},
    {PT_O_SYS_ROOT, "/no/such/dir", -1},
};

START_TEST(test_parse)
{
    union pt_option_value v;
    char why[256] = "";
    int r = pt_optiontable_parse(&pt_options[parses[_i].id], parses[_i].text, &v, why, sizeof(why));

    ck_assert_msg(r == parses[_i].result, "--%s \"%s\": %d", pt_options[parses[_i].id].execd, parses[_i].text, r);
    if (r != 0)
        ck_assert_msg(why[0], "no reason for \"%s\"", parses[_i].text);
}
END_TEST

/* Every duration has the range that the tick honours and every
 * conversion fits (units.h); one without (min and max 0, as all were)
 * took 1 ns and 1e22 s, and collectd's frontend any positive number. */
START_TEST(test_durations_bounded)
{
    const struct pt_option_def *o = &pt_options[_i];
    char range[128];

    if (o->arg != PT_ARG_DURATION && o->arg != PT_ARG_DURATION_OR_0)
        return;
    ck_assert_uint_eq(o->min, PT_DURATION_MIN_MS);
    ck_assert_uint_eq(o->max, PT_DURATION_MAX_MS);
    ck_assert(!pt_optiontable_duration_ok(o, 1e-301));
    ck_assert(!pt_optiontable_duration_ok(o, 1e22));
    ck_assert(pt_optiontable_duration_ok(o, 0.001) && pt_optiontable_duration_ok(o, 86400));
    ck_assert(pt_optiontable_duration_ok(o, 0) == (o->arg == PT_ARG_DURATION_OR_0));
    pt_optiontable_duration_range(range, sizeof(range), o, false);
    ck_assert_msg(strstr(range, "a number of seconds from 0.001 to 86400 (1ms to 24h)") == range, "%s", range);
}
END_TEST

START_TEST(test_pss_budget_zero_stored)
{
    union pt_option_value v;
    char why[64];
    struct pt_target_options target;

    pt_target_options_init(&target);
    ck_assert_int_eq(pt_optiontable_parse(&pt_options[PT_O_PSS_BUDGET], "0", &v, why, sizeof(why)), 0);
    ck_assert_int_eq(pt_optiontable_store(&pt_options[PT_O_PSS_BUDGET], &v, NULL, &target, NULL), 0);
    ck_assert(target.pss_budget == 0);
}
END_TEST

START_TEST(test_selector_lists)
{
    char list[256];

    pt_optiontable_selector_list(list, sizeof(list), true);
    ck_assert_str_eq(list, "--pid, --pidfile, --match, --exe, --user, --cgroup or --unit");
    pt_optiontable_selector_list(list, sizeof(list), false);
    ck_assert_str_eq(list, "Pid, PidFile, Match, Exe, User, Cgroup or Unit");
    pt_optiontable_selector_list(list, 8, false); /* cut, terminated */
    ck_assert_str_eq(list, "Pid, Pi");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("optiontable");
    TCase *tc = tcase_create("table");
    SRunner *runner;
    int failed;

    tcase_add_loop_test(tc, test_names_unique, 0, PT_OPTION_COUNT);
    tcase_add_loop_test(tc, test_execd_entries_have_help, 0, PT_OPTION_COUNT);
    tcase_add_loop_test(tc, test_collectd_keys_are_stored, 0, PT_OPTION_COUNT);
    tcase_add_loop_test(tc, test_parse, 0, (int)(sizeof(parses) / sizeof(parses[0])));
    tcase_add_loop_test(tc, test_durations_bounded, 0, PT_OPTION_COUNT);
    tcase_add_test(tc, test_pss_budget_zero_stored);
    tcase_add_test(tc, test_selector_lists);
    suite_add_tcase(suite, tc);
    runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
