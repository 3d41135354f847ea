/* Target rule: what a target takes and what it is called. Kernel
 * threads are never matched (but by --pid), --match sees a bounded command
 * line, a default name is the root's hostile comm as it is, and target
 * names are unique. docs/DESIGN.md, "Policies" (Hostile input). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "acct_fixture.h"
#include "select/matcher.h"
#include "unit.h"

START_TEST(hostile_comm_default_name)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.comm = "a) b\n,c=\"d\\";
    fx_put_proc(root, &r);
    c = collector_for(root);
    add_pid_target(NULL, 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_str_eq(b->targets[0].name, "a) b\n,c=\"d\\");
}
END_TEST

START_TEST(target_names_are_unique)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    c = collector_for(root);
    add_pid_target("app", 100);
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options opt = {0};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "duplicate"));
}
END_TEST

/* --exe, --match, --user and --cgroup never take kernel threads; --pid does. */
START_TEST(kernel_threads_are_not_matched)
{
    struct fx_proc kthreadd = proc(2, 0, 1, 0, 0, "3");
    kthreadd.comm = "kthreadd";
    kthreadd.flags = PT_PF_KTHREAD;
    struct fx_proc worker = proc(3, 2, 1, 0, 0, NULL);
    worker.comm = "kworker/0:0";
    worker.flags = PT_PF_KTHREAD;
    struct fx_proc user = proc(100, 1, 10, 0, 10, NULL);
    user.comm = "kthreadd"; /* a user process may take any name */
    fx_put_proc(root, &kthreadd);
    fx_put_proc(root, &worker);
    fx_put_proc(root, &user);
    c = collector_for(root);
    struct pt_selector exe = {.kind = PT_SELECT_EXE, .value = "kthreadd"};
    struct pt_selector pid = {.kind = PT_SELECT_PID, .pid = 2};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "exe", &exe, &opt, err, sizeof(err)), 0);
    ck_assert_int_eq(pt_collector_add_target(c, "pid", &pid, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 2);
}
END_TEST

/* --match sees the first PT_MATCH_TEXT_MAX bytes of a command line. */
START_TEST(match_text_is_bounded)
{
    struct fx_proc p = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &p);
    size_t len = PT_MATCH_TEXT_MAX + 100;
    char *cmdline = malloc(len + 1);
    memset(cmdline, 'x', len);
    memcpy(cmdline + len - 4, "MARK", 4);
    cmdline[len] = '\0';
    fx_write(root, "100/cmdline", cmdline, (long)len);
    free(cmdline);
    c = collector_for(root);
    struct pt_selector head = {.kind = PT_SELECT_MATCH, .value = "^xxx"};
    struct pt_selector tail = {.kind = PT_SELECT_MATCH, .value = "MARK"};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "head", &head, &opt, err, sizeof(err)), 0);
    ck_assert_int_eq(pt_collector_add_target(c, "tail", &tail, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_targets");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, hostile_comm_default_name);
    tcase_add_test(tc, target_names_are_unique);
    tcase_add_test(tc, kernel_threads_are_not_matched);
    tcase_add_test(tc, match_text_is_bounded);
    return unit_run(s);
}
