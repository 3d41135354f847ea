/* Context-switch rule: what the live threads did since the last interval
 * (a new root's past not counted, a child born in the tree brings all of
 * its, never a negative delta), from the status of each process, or each
 * thread's of a multi-threaded one, kept while the thread lives and read
 * only after a switch in; the descriptor count is taken beside them.
 * docs/DESIGN.md, "Cadences" (interval end); docs/METRICS.md,
 * "Accounting" (Context switches of exited threads). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

/* Context switches: what live threads did since the last close; a new
 * root's past is not counted, a child born in the tree brings all of its. */
START_TEST(context_switches_and_fds)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 500, 40);
    fx_write(root, "100/fd/0", "", 0);
    fx_write(root, "100/fd/1", "", 0);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 2);
    put_status(100, 530, 45);
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    fx_put_proc(root, &k);
    put_status(101, 7, 1);
    fx_write(root, "101/fd/0", "", 0);
    r.children = "101";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 30 + 7);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY), 5 + 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
    /* a thread exits: the live sum goes down, the delta never does */
    put_status(100, 520, 45);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
}
END_TEST

/* Descriptors of this process open on a file whose path ends so. */
static int kept_on(const char *suffix)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char link[32], target[512];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        size_t sl = strlen(suffix);
        n += (size_t)len >= sl && strcmp(target + len - sl, suffix) == 0;
    }
    return n;
}

/* A multi-threaded member's threads are listed once and their status
 * files kept; the list is walked again when a kept file says its thread
 * is gone, even if the thread count did not change. */
START_TEST(threads_are_kept_while_they_live)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.num_threads = 2;
    fx_put_proc(root, &r);
    put_status(100, 10, 0);
    put_thread_status(100, 100, 10);
    put_thread_status(100, 1000, 5);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(kept_on("/100/task/1000/status"), 1);
    put_thread_status(100, 1000, 7);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 2);
    /* thread 1000 ends, 1001 starts: still two threads */
    char path[512];
    fx_write(root, "100/task/1000/status", "", 0);
    snprintf(path, sizeof(path), "%s/100/task/1000/status", root);
    ck_assert_int_eq(unlink(path), 0);
    put_thread_status(100, 1001, 3);
    b = pt_collector_end_interval(c, 3.0); /* 1000 reads empty: gone, 1001 not yet listed */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(kept_on("/100/task/1000/status"), 0);
    put_thread_status(100, 1001, 6);
    b = pt_collector_end_interval(c, 4.0); /* listed again: 10 + 6 against 10 */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 6);
    ck_assert_int_eq(kept_on("/100/task/1001/status"), 1);
}
END_TEST

/* A member not switched in since the last interval (schedstat's third
 * field unchanged) has no new context switches: its status is not read. */
START_TEST(status_read_only_after_a_switch_in)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 500, 40);
    fx_write(root, "100/schedstat", "1000 200 7\n", -1);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    put_status(100, 530, 40); /* a file made up: schedstat says it cannot have moved */
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    fx_write(root, "100/schedstat", "1500 200 9\n", -1);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 30);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_switches");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, context_switches_and_fds);
    tcase_add_test(tc, threads_are_kept_while_they_live);
    tcase_add_test(tc, status_read_only_after_a_switch_in);
    return unit_run(s);
}
