/* Unit tests for threads: a member's thread list, walked again when a
 * read finds a thread gone, and a tid the walk then lists is another
 * thread's (threads.h), with files and usage of its own, and so is one
 * whose stat shows another starttime; the usage an
 * exit record settles is the ended thread's while it waits for it. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fixture.h"
#include "member/threads.h"
#include "procfs/procfile.h"
#include "unit.h"

#define PID 100
#define TID 1001

static char *root;
static int root_fd = -1;

static void put_thread_status(pid_t tid, int voluntary)
{
    char rel[64], text[128];
    snprintf(rel, sizeof(rel), "%d/task/%d/status", PID, (int)tid);
    snprintf(text, sizeof(text), "Name:\tworker\nvoluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t0\n",
             voluntary);
    fx_write(root, rel, text, -1);
}

/* The thread ends: its directory goes (no descriptor is kept here, so the
 * read is by path and finds it gone). */
static void end_thread(pid_t tid)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, PID, (int)tid);
    ck_assert_int_eq(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/%d/task/%d", root, PID, (int)tid);
    ck_assert_int_eq(rmdir(path), 0);
}

static void setup(void)
{
    root = fx_root_new();
    put_thread_status(PID, 1);
    put_thread_status(TID, 5);
    root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
    close(root_fd);
    fx_root_free(root);
}

static ssize_t read_status(struct pt_threads *ts, uint32_t i, struct pt_buf *buf)
{
    return pt_threads_read(ts, i, PT_TF_STATUS, root_fd, "100/", NULL, buf);
}

START_TEST(a_tid_found_gone_is_another_thread_after)
{
    struct pt_threads ts = {0};
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);
    ck_assert_uint_eq(ts.count, 2);
    ck_assert_int_eq(ts.list[1].tid, TID);
    ck_assert_int_gt(read_status(&ts, 0, &buf), 0);
    ck_assert_int_gt(read_status(&ts, 1, &buf), 0);
    /* both credited from a read, as --by thread does */
    ts.list[0].usage = (struct pt_thread_usage){.cpu_last = true, .last_utime = 7};
    ts.list[1].usage = (struct pt_thread_usage){.cpu_last = true, .last_utime = 50};

    end_thread(TID);
    ck_assert_int_eq(read_status(&ts, 1, &buf), 0);
    ck_assert(!ts.fresh);
    put_thread_status(TID, 2); /* a new thread with its tid: the pid space wrapped */
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);

    ck_assert_uint_eq(ts.count, 2);
    ck_assert_int_eq(ts.list[0].usage.last_utime, 7); /* the main thread carried */
    ck_assert_int_eq(ts.list[1].tid, TID);
    ck_assert(!ts.list[1].gone);
    ck_assert(!ts.list[1].usage.cpu_last); /* a baseline of its own: none yet */
    ck_assert_uint_eq(ts.n_ended, 1);      /* the one that ended waits for its record */
    ck_assert_int_eq(ts.ended[0].usage.last_utime, 50);
    /* a record of the tid is the ended thread's first, then the new one's */
    ck_assert_ptr_eq(pt_threads_usage_of(&ts, TID), &ts.ended[0].usage);
    ts.ended[0].usage.final = true;
    ck_assert_ptr_eq(pt_threads_usage_of(&ts, TID), &ts.list[1].usage);
    ck_assert_int_gt(read_status(&ts, 1, &buf), 0);
    pt_threads_forget_ended(&ts);
    ck_assert_ptr_eq(pt_threads_usage_of(&ts, TID), &ts.list[1].usage);
    pt_buf_free(&buf);
    pt_threads_free(&ts, NULL);
}
END_TEST

static bool read_and_vouch(struct pt_threads *ts, uint32_t i, struct pt_buf *buf)
{
    struct pt_stat st;
    ssize_t n = pt_threads_read(ts, i, PT_TF_STAT, root_fd, "100/", NULL, buf);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(pt_procfs_parse_stat(buf->data, (size_t)n, &st), 0);
    return pt_threads_vouch(ts, i, st.starttime);
}

/* Read by path (no descriptor kept to say ESRCH), a tid whose thread
 * ended and another took between two reads, the count unchanged: its
 * stat's starttime tells them apart. */
START_TEST(a_tid_read_by_path_with_another_start_is_another_thread)
{
    struct pt_threads ts = {0};
    struct pt_buf buf = {0};
    fx_put_thread(root, PID, &(struct fx_proc){.pid = TID, .starttime = 10, .utime = 50});
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);
    ck_assert(read_and_vouch(&ts, 1, &buf));
    ck_assert(read_and_vouch(&ts, 1, &buf)); /* the same thread again */
    ts.list[1].usage = (struct pt_thread_usage){.cpu_last = true, .last_utime = 50};

    fx_put_thread(root, PID, &(struct fx_proc){.pid = TID, .starttime = 30, .utime = 70});
    ck_assert(!read_and_vouch(&ts, 1, &buf));
    ck_assert(ts.list[1].gone);
    ck_assert(!ts.fresh);
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);
    ck_assert(!ts.list[1].usage.cpu_last);
    ck_assert_uint_eq(ts.n_ended, 1);
    ck_assert_int_eq(ts.ended[0].usage.last_utime, 50);
    ck_assert(read_and_vouch(&ts, 1, &buf));
    pt_buf_free(&buf);
    pt_threads_free(&ts, NULL);
}
END_TEST

/* A file a live thread lacks (a fixture's, a kernel without it) is no
 * sign of its end: the thread keeps its usage through a walk. */
START_TEST(a_missing_file_of_a_live_thread_is_no_end)
{
    struct pt_threads ts = {0};
    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);
    ts.list[1].usage = (struct pt_thread_usage){.cpu_last = true, .last_utime = 50};
    ck_assert_int_eq(pt_threads_read(&ts, 1, PT_TF_SCHEDSTAT, root_fd, "100/", NULL, &buf), 0);
    ck_assert(!ts.list[1].gone);
    ts.fresh = false;
    ck_assert_int_eq(pt_threads_refresh(&ts, root_fd, "100/", 2, NULL), 0);
    ck_assert_int_eq(ts.list[1].usage.last_utime, 50);
    ck_assert_uint_eq(ts.n_ended, 0);
    pt_buf_free(&buf);
    pt_threads_free(&ts, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_tid_found_gone_is_another_thread_after);
    tcase_add_test(tc, a_tid_read_by_path_with_another_start_is_another_thread);
    tcase_add_test(tc, a_missing_file_of_a_live_thread_is_no_end);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
