/* Accounting rule: a target whose root is replaced (a pid file naming
 * another process, a restart on the same pid, a cgroup made again at its
 * path) counts one restart; the old tree leaves with its work counted, the
 * new root joins without its past, and a --pid target stays pinned.
 * docs/DESIGN.md, "Accounting"; docs/METRICS.md, "Accounting" (Identity)
 * and "Process states, age and restarts: what to alert on". */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "acct_fixture.h"
#include "unit.h"

/* svc.pid in the fixture, naming pid 300, and a collector with a
 * --pidfile target on it (its default name, svc; PSS switched off). */
static void watch_svc_pidfile(void)
{
    fx_write(root, "svc.pid", "300\n", -1);
    char pidfile[512];
    snprintf(pidfile, sizeof(pidfile), "%s/svc.pid", root);
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PIDFILE, .path = pidfile};
    struct pt_target_options opt = {.collect_pss = false};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, NULL, &sel, &opt, err, sizeof(err)), 0);
}

/* A pid file that names a new process moves the target to it; the new
 * root's past is not reported as this interval's work. The restart is
 * said though no discovery saw the target empty between the two. */
START_TEST(pidfile_follows_new_pid)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, NULL);
    fx_put_proc(root, &a);
    watch_svc_pidfile();
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_str_eq(b->targets[0].name, "svc");
    ck_assert(!value(b, 0, PT_M_PROC_PSS_MAX)->present); /* switched off: absent, not 0 */
    /* restart: the old process is reaped by init, a new one writes the file */
    a.io.rchar = 1100;
    fx_put_proc(root, &a);
    pt_collector_tick(c, 0.6);
    fx_vanish(root, 300);
    pt_collector_tick(c, 0.8); /* a poll: the old root is gone */
    struct fx_proc n = proc(301, 1, 20, 77777, 10, NULL);
    fx_put_proc(root, &n);
    fx_write(root, "svc.pid", "301\n", -1);
    listen_to_the_log();
    pt_collector_tick(c, 1.0);
    pt_log_set_sink(NULL, NULL);
    ck_assert_msg(strstr(said_text, "pid file names pid 301 now, was 300"), "said: %s", said_text);
    n.io.rchar = 77777 + 50;
    fx_put_proc(root, &n);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100 + 50);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 1);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 0);
}
END_TEST

/* A service restarted in a pid namespace of its own gets its old pid
 * again: the pid file is unchanged, its process is another (starttime),
 * and the old root's orphan is no part of the new tree. */
START_TEST(pidfile_restart_with_the_same_pid)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, "301");
    struct fx_proc a1 = proc(301, 300, 11, 500, 10, NULL);
    fx_put_proc(root, &a);
    fx_put_proc(root, &a1);
    watch_svc_pidfile();
    add_pid_target("pinned", 300);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 0);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_RESTARTS), 0);
    fx_vanish(root, 300);
    a1.ppid = 1;
    fx_put_proc(root, &a1);
    pt_collector_tick(c, 0.6); /* a poll: the old root is gone */
    struct fx_proc again = proc(300, 1, 50, 20, 10, NULL);
    fx_put_proc(root, &again);
    pt_collector_tick(c, 1.0); /* a discovery */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 1);
    /* --pid stays with the identity it pinned: the orphan, never a restart */
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_RESTARTS), 0);
}
END_TEST

/* A pid file that names another live process: the old tree leaves (its
 * work stays counted, it counts as exited), the new one joins without its
 * past; back to the first, exactly its tree again. Pid 1 is refused. */
START_TEST(pidfile_switch_leaves_old_tree)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, "301");
    struct fx_proc a1 = proc(301, 300, 11, 1000, 10, NULL);
    struct fx_proc b = proc(400, 1, 20, 50000, 10, NULL);
    struct fx_proc init = proc(1, 0, 1, 90000, 10, "300 400");
    fx_put_proc(root, &a);
    fx_put_proc(root, &a1);
    fx_put_proc(root, &b);
    fx_put_proc(root, &init);
    watch_svc_pidfile();
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b0 = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b0, 0, PT_M_PROC_PROCESSES), 2);
    fx_write(root, "svc.pid", "400\n", -1);
    pt_collector_tick(c, 1.0);
    const struct pt_batch *b1 = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_RESTARTS), 1);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_PROCESSES_EXITED), 2);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_IO_READ_BYTES), 0);
    fx_write(root, "svc.pid", "300\n", -1);
    pt_collector_tick(c, 2.0);
    const struct pt_batch *b2 = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_RESTARTS), 1);
    fx_write(root, "svc.pid", "1\n", -1);
    pt_collector_tick(c, 3.0);
    const struct pt_batch *b3 = pt_collector_end_interval(c, 3.5);
    ck_assert_int_eq(ivalue(b3, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b3, 0, PT_M_PROC_RESTARTS), 0); /* refused: no new root */
}
END_TEST

/* A cgroup made again at its path (another inode: a unit's restart)
 * counts a restart, with cgroup_* metrics or without; one that is gone
 * for a while and comes back counts one too. A --match target has none. */
START_TEST(cgroup_made_again_is_a_restart)
{
    struct fx_proc a = proc(200, 1, 20, 2000, 20, NULL);
    fx_put_proc(root, &a);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    collector_with_cgroup2();
    char err[256] = "";
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/svc"};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    opt.collect_cgroup = false;
    ck_assert_msg(pt_collector_add_target(c, "off", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    struct pt_selector match = {.kind = PT_SELECT_EXE, .value = "proc"};
    ck_assert_msg(pt_collector_add_target(c, "exe", &match, &opt, err, sizeof(err)) == 0, "%s", err);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 0);
    ck_assert(!value(b, 2, PT_M_PROC_RESTARTS)->present);
    /* made again: the old directory kept aside, so its inode cannot be reused */
    char from[600], to[600];
    snprintf(from, sizeof(from), "%s/sys/fs/cgroup/svc", root);
    snprintf(to, sizeof(to), "%s/sys/fs/cgroup/svc.old", root);
    ck_assert_int_eq(rename(from, to), 0);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    pt_collector_tick(c, 1.0); /* a discovery */
    b = pt_collector_end_interval(c, 1.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 1);
    /* gone for a discovery, then back */
    snprintf(to, sizeof(to), "%s/sys/fs/cgroup/svc.older", root);
    ck_assert_int_eq(rename(from, to), 0);
    pt_collector_tick(c, 2.0);
    b = pt_collector_end_interval(c, 2.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 0);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    pt_collector_tick(c, 3.0);
    b = pt_collector_end_interval(c, 3.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_restarts");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, pidfile_follows_new_pid);
    tcase_add_test(tc, pidfile_switch_leaves_old_tree);
    tcase_add_test(tc, pidfile_restart_with_the_same_pid);
    tcase_add_test(tc, cgroup_made_again_is_a_restart);
    return unit_run(s);
}
