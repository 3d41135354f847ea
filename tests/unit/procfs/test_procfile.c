/* Unit tests for procfile: whole-file reads through kept descriptors
 * (pt_procfs_pread_all, pt_procfs_pread_record), their limits, pt_procfs_open_at, and what a
 * reader sees of a live and of a reaped process. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "member/member.h"
#include "member/member.h"
#include "procfs/procfile.h"
#include "unit.h"

/* A fixture root with file rel holding len bytes of a repeating pattern. */
static char *pattern(size_t len)
{
    char *data = malloc(len);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)('a' + i % 26 + (i % 4096 == 0));
    return data;
}

/* Both readers must return whole files: pt_procfs_pread_all for multi-record
 * files, pt_procfs_pread_record (one pread when the buffer is big enough) for
 * single-record ones. Loop tests run each case with both. */
static ssize_t (*const readers[])(int fd, struct pt_buf *buf) = {pt_procfs_pread_all, pt_procfs_pread_record};

START_TEST(test_pread_large_file)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    size_t len = 100003;
    char *data = pattern(len);
    fx_write(root, "big", data, (long)len);
    int fd = open_in(root, "big");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), (ssize_t)len);
    ck_assert_uint_eq(buf.len, len);
    ck_assert_uint_gt(buf.cap, len);
    ck_assert_mem_eq(buf.data, data, len);
    ck_assert_int_eq(buf.data[len], '\0');

    /* Reused: a shorter file shrinks len, not the buffer. */
    size_t cap = buf.cap;
    fx_write(root, "big", "short", -1);
    ck_assert_int_eq(read_file(fd, &buf), 5);
    ck_assert_str_eq(buf.data, "short");
    ck_assert_uint_eq(buf.cap, cap);

    fx_write(root, "big", "", -1);
    ck_assert_int_eq(read_file(fd, &buf), 0);
    ck_assert_str_eq(buf.data, "");

    pt_buf_free(&buf);
    ck_assert_ptr_null(buf.data);
    ck_assert_uint_eq(buf.cap, 0);
    close(fd);
    free(data);
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_empty_file_fresh_buffer)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    fx_write(root, "empty", "", -1);
    int fd = open_in(root, "empty");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), 0);
    ck_assert_ptr_nonnull(buf.data);
    ck_assert_str_eq(buf.data, "");
    pt_buf_free(&buf);
    close(fd);
    fx_root_free(root);
}
END_TEST

/* A kept fd reads the file as it is now, as on procfs. */
START_TEST(test_pread_sees_rewrite)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    fx_write(root, "1/stat", "first", -1);
    int fd = open_in(root, "1/stat");
    struct pt_buf buf = {0};
    ck_assert_int_eq(read_file(fd, &buf), 5);
    ck_assert_str_eq(buf.data, "first");
    fx_write(root, "1/stat", "second, and longer", -1);
    ck_assert_int_eq(read_file(fd, &buf), 18);
    ck_assert_str_eq(buf.data, "second, and longer");
    fx_write(root, "1/stat", "3", -1);
    ck_assert_int_eq(read_file(fd, &buf), 1);
    ck_assert_str_eq(buf.data, "3");
    pt_buf_free(&buf);
    close(fd);
    fx_root_free(root);
}
END_TEST

/* Sizes around the first buffer (4096 with room for the NUL): a read that
 * fills the buffer must not be taken for the whole file. */
START_TEST(test_pread_buffer_boundaries)
{
    ssize_t (*const read_file)(int, struct pt_buf *) = readers[_i];
    char *root = fx_root_new();
    size_t sizes[] = {4094, 4095, 4096, 4097, 8191, 8192};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *data = pattern(sizes[k]);
        fx_write(root, "f", data, (long)sizes[k]);
        int fd = open_in(root, "f");
        struct pt_buf buf = {0};
        ck_assert_int_eq(read_file(fd, &buf), (ssize_t)sizes[k]);
        ck_assert_mem_eq(buf.data, data, sizes[k]);
        pt_buf_free(&buf);
        close(fd);
        free(data);
    }
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_size_limit)
{
    const size_t limit = (size_t)16 << 20;
    char *root = fx_root_new();
    fx_write(root, "huge", "", -1);
    int fd = open_in(root, "huge");
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/huge", root), 0);
    struct pt_buf buf = {0};

    ck_assert_int_eq(truncate(path, (off_t)limit), 0);
    ck_assert_int_eq(pt_procfs_pread_all(fd, &buf), (ssize_t)limit);
    ck_assert_int_eq(buf.data[limit], '\0');

    ck_assert_int_eq(truncate(path, (off_t)limit + 1), 0);
    ck_assert_int_eq(pt_procfs_pread_all(fd, &buf), -EFBIG);
    ck_assert_uint_eq(buf.len, 0);
    ck_assert_str_eq(buf.data, "");
    ck_assert_uint_le(buf.cap, limit + 1);

    pt_buf_free(&buf);
    close(fd);
    free(path);
    fx_root_free(root);
}
END_TEST

START_TEST(test_pread_bad_descriptors)
{
    struct pt_buf buf = {0};
    int pipe_fds[2];
    ck_assert_int_eq(pipe(pipe_fds), 0);
    ck_assert_int_eq(pt_procfs_pread_all(pipe_fds[0], &buf), -ESPIPE);
    ck_assert_uint_eq(buf.len, 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    int dir = open("/", O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dir, 0);
    ck_assert_int_eq(pt_procfs_pread_all(dir, &buf), -EISDIR);
    close(dir);

    int path_fd = open("/proc/self/stat", O_PATH);
    ck_assert_int_ge(path_fd, 0);
    ck_assert_int_eq(pt_procfs_pread_all(path_fd, &buf), -EBADF);
    close(path_fd);

    ck_assert_int_eq(pt_procfs_pread_all(-1, &buf), -EBADF);
    ck_assert_uint_eq(buf.len, 0);
    pt_buf_free(&buf);
}
END_TEST

START_TEST(test_pread_proc_self_stat)
{
    int fd = pt_procfs_open_at(AT_FDCWD, "/proc/self/stat");
    ck_assert_int_ge(fd, 0);
    struct pt_buf buf = {0};
    ck_assert_int_gt(pt_procfs_pread_all(fd, &buf), 0);
    ck_assert_uint_eq(strlen(buf.data), buf.len);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_int_eq(st.pid, getpid());
    ck_assert_int_eq(st.ppid, getppid());

    char comm[32] = {0};
    ck_assert_int_eq(prctl(PR_GET_NAME, comm), 0);
    ck_assert_str_eq(st.comm, comm);
    ck_assert_int_ge(st.num_threads, 1);
    ck_assert_int_gt(st.rss_pages, 0);

    /* Sampled again through the same fd: the counters only move forward. */
    struct pt_stat later;
    ck_assert_int_gt(pt_procfs_pread_all(fd, &buf), 0);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &later), 0);
    ck_assert_uint_eq(later.starttime, st.starttime);
    ck_assert_uint_ge(later.minflt, st.minflt);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST

/* Start a child process that lives until gate_write is closed: `cat`
 * reading the gate's other end, exiting at EOF, which also comes if the
 * test dies. posix_spawn does not copy the address space, so a thousand
 * children are cheap even under ASan. Both gate ends must be O_CLOEXEC. */
static pid_t spawn_gated_child(int gate_read)
{
    posix_spawn_file_actions_t actions;
    ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
    ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, gate_read, STDIN_FILENO), 0);
    ck_assert_int_eq(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0), 0);
    char *argv[] = {"cat", NULL};
    pid_t pid;
    ck_assert_int_eq(posix_spawnp(&pid, "cat", &actions, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

static size_t decimal_width(pid_t pid)
{
    size_t width = 1;
    while (pid >= 10)
        pid /= 10, width++;
    return width;
}

/* The real multi-record case: a children list longer than a page, which
 * procfs hands out one page per read. */
START_TEST(test_pread_real_children_over_a_page)
{
    pid_t kids[PID_LIST_MAX];
    int nkids = 0;
    size_t listed = 0;
    int gate[2];
    ck_assert_int_eq(pipe2(gate, O_CLOEXEC), 0);

    while (listed <= 6000) {
        ck_assert_int_lt(nkids, PID_LIST_MAX);
        pid_t pid = spawn_gated_child(gate[0]);
        kids[nkids++] = pid;
        listed += decimal_width(pid) + 1;
    }
    close(gate[0]);

    int fd = pt_procfs_open_at(AT_FDCWD, "/proc/thread-self/children");
    ck_assert_int_ge(fd, 0);
    char one_read[65536];
    ssize_t first = pread(fd, one_read, sizeof(one_read), 0);
    struct pt_buf buf = {0};
    ssize_t total = pt_procfs_pread_all(fd, &buf);
    ck_assert_int_eq(total, (ssize_t)listed);
    ck_assert_msg(first > 0 && first < total, "one read gave %zd of %zd bytes: the kernel no longer splits", first,
                  total);

    struct pid_list list = {.stop_at = -1};
    ck_assert_int_eq(pt_pidparse_children(buf.data, buf.len, collect_pid, &list), nkids);
    qsort(list.pids, (size_t)nkids, sizeof(pid_t), compare_pids);
    qsort(kids, (size_t)nkids, sizeof(pid_t), compare_pids);
    ck_assert_mem_eq(list.pids, kids, (size_t)nkids * sizeof(pid_t));

    close(gate[1]);
    for (int i = 0; i < nkids; i++)
        ck_assert_int_eq(waitpid(kids[i], NULL, 0), kids[i]);
    pt_buf_free(&buf);
    close(fd);
}
END_TEST
/* What a poller sees through fds kept across a process's death. */
START_TEST(test_pread_reaped_process)
{
    int gate[2];
    ck_assert_int_eq(pipe2(gate, O_CLOEXEC), 0);
    pid_t kid = spawn_gated_child(gate[0]);
    close(gate[0]);

    int proc = open("/proc", O_PATH | O_DIRECTORY);
    int dir = open_pid_dir(proc, kid);
    ck_assert_int_ge(dir, 0);
    static const char *const names[] = {"stat", "statm", "io", "smaps_rollup"};
    int fds[4];
    struct pt_buf buf = {0};
    for (int i = 0; i < 4; i++) {
        fds[i] = pt_procfs_open_at(dir, names[i]);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_gt(pt_procfs_pread_all(fds[i], &buf), 0);
    }
    char children_name[64];
    snprintf(children_name, sizeof(children_name), "task/%d/children", kid);
    int children = pt_procfs_open_at(dir, children_name);
    ck_assert_int_ge(children, 0);

    close(gate[1]);
    ck_assert_int_eq(waitpid(kid, NULL, 0), kid);

    for (int i = 0; i < 4; i++) {
        ssize_t rc = pt_procfs_pread_all(fds[i], &buf);
        ck_assert_msg(rc == -ESRCH, "%s: %zd", names[i], rc);
        ck_assert(pt_procfs_errno_is_gone((int)rc));
        close(fds[i]);
    }
    /* The children list of a reaped process reads empty, not ESRCH. */
    ck_assert_int_eq(pt_procfs_pread_all(children, &buf), 0);
    int again = open_pid_dir(proc, kid);
    ck_assert_int_eq(again, -ENOENT);
    ck_assert(pt_procfs_errno_is_gone(again));

    pt_buf_free(&buf);
    close(children);
    close(dir);
    close(proc);
}
END_TEST

/* A member's kept statm is its identity check (member.h): it says
 * OK while the process lives and while it is a zombie (its pid is still
 * its own), GONE once it is reaped (the pid may be another's), as the
 * stat's starttime would; and a file of another rank past the budget is
 * read by its path, vouched for by it. */
START_TEST(test_kept_statm_vouches_for_the_member)
{
    int gate[2];
    ck_assert_int_eq(pipe2(gate, O_CLOEXEC), 0);
    pid_t kid = spawn_gated_child(gate[0]);
    close(gate[0]);
    int proc = open("/proc", O_PATH | O_DIRECTORY);
    struct pt_fd_budget budget = {.limit = 1}; /* the statm only */
    struct pt_buf buf = {0};
    struct pt_member m;
    ck_assert_int_eq(pt_member_open(&m, proc, &budget, kid, 0, &buf), PT_READ_OK);
    struct pt_statm sm;
    ck_assert_int_eq(pt_member_read_statm(&m, proc, &buf, &sm), PT_READ_OK);
    ck_assert_int_ge(m.fd[PT_MF_STATM], 0);
    ck_assert(m.statm_vouches);
    ck_assert_int_lt(m.fd[PT_MF_STAT], 0);
    ck_assert_uint_eq(budget.kept, 1);
    ck_assert_int_eq(pt_member_check_identity(&m, proc), PT_READ_OK);
    ck_assert_int_eq(pt_member_read_counters(&m, proc, &buf, false), PT_READ_OK);

    close(gate[1]);
    siginfo_t info;
    ck_assert_int_eq(waitid(P_PID, (id_t)kid, &info, WEXITED | WNOWAIT), 0); /* a zombie */
    ck_assert_int_eq(pt_member_check_identity(&m, proc), PT_READ_OK);
    ck_assert_int_eq(waitpid(kid, NULL, 0), kid);
    ck_assert_int_eq(pt_member_check_identity(&m, proc), PT_READ_GONE);
    ck_assert_int_eq(pt_member_read_counters(&m, proc, &buf, false), PT_READ_GONE);

    pt_member_close(&m);
    ck_assert_uint_eq(budget.kept, 0);
    ck_assert_uint_eq(budget.members, 0);
    pt_buf_free(&buf);
    close(proc);
}
END_TEST

START_TEST(test_open_at)
{
    char *root = fx_root_new();
    fx_write(root, "a/b", "x", -1);
    int dir = open(root, O_PATH | O_DIRECTORY);
    ck_assert_int_ge(dir, 0);
    int fd = pt_procfs_open_at(dir, "a/b");
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
    close(fd);
    ck_assert_int_eq(pt_procfs_open_at(dir, "a/missing"), -ENOENT);
    ck_assert_int_eq(pt_procfs_open_at(dir, "a/b/c"), -ENOTDIR);
    ck_assert_int_eq(pt_procfs_open_at(-1, "a/b"), -EBADF);
    close(dir);
    fx_root_free(root);
}
END_TEST

START_TEST(test_errno_is_gone)
{
    ck_assert(pt_procfs_errno_is_gone(-ESRCH));
    ck_assert(pt_procfs_errno_is_gone(-ENOENT));
    ck_assert(!pt_procfs_errno_is_gone(0));
    ck_assert(!pt_procfs_errno_is_gone(ESRCH));
    ck_assert(!pt_procfs_errno_is_gone(ENOENT));
    ck_assert(!pt_procfs_errno_is_gone(-EACCES));
    ck_assert(!pt_procfs_errno_is_gone(-EBADF));
    ck_assert(!pt_procfs_errno_is_gone(-EFBIG));
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("procfile");

    TCase *tc = unit_tcase(suite, "procfile");
    tcase_add_loop_test(tc, test_pread_large_file, 0, 2);
    tcase_add_loop_test(tc, test_pread_empty_file_fresh_buffer, 0, 2);
    tcase_add_loop_test(tc, test_pread_sees_rewrite, 0, 2);
    tcase_add_loop_test(tc, test_pread_buffer_boundaries, 0, 2);
    tcase_add_test(tc, test_pread_size_limit);
    tcase_add_test(tc, test_pread_bad_descriptors);
    tcase_add_test(tc, test_pread_proc_self_stat);
    tcase_add_test(tc, test_pread_real_children_over_a_page);
    tcase_add_test(tc, test_pread_reaped_process);
    tcase_add_test(tc, test_kept_statm_vouches_for_the_member);
    tcase_add_test(tc, test_open_at);
    tcase_add_test(tc, test_errno_is_gone);

    return unit_run(suite);
}
