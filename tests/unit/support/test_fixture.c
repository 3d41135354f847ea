/* Unit tests for the fake /proc of fixture.c: what it writes reads back
 * through the real parsers, rewrites keep inodes, a vanished process
 * looks as it does on procfs, and a broken fixture aborts. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "procfs/procfile.h"
#include "unit.h"

static void read_rel(const char *root, const char *rel, struct pt_buf *buf)
{
    int fd = open_in(root, rel);
    ck_assert_int_ge(pt_procfs_pread_all(fd, buf), 0);
    close(fd);
}

static const struct fx_proc ROUND_TRIP = {
    .pid = 4242,
    .ppid = 17,
    .comm = ") (x\n\"=,\\\xff"
            "a b",
    .state = 'D',
    .starttime = 123456789,
    .utime = 11,
    .stime = 12,
    .cutime = 13,
    .cstime = 14,
    .minflt = 21,
    .cminflt = 22,
    .majflt = 23,
    .cmajflt = 24,
    .num_threads = 7,
    .size_pages = 1000,
    .resident_pages = 400,
    .shared_pages = 300,
    .io = {31, 32, 33, 34, 35, 36, 37},
    .children = "4243 4244 ",
    .pss_kb = 501,
    .swap_kb = 61,
    .shared_kb = 201,
    .private_kb = 301,
};

/* Read p's files back through the parsers and compare every field. */
static void assert_proc_files_match(const char *root, const struct fx_proc *p)
{
    struct pt_buf buf = {0};
    char rel[64];
    uint64_t page_size = (uint64_t)sysconf(_SC_PAGESIZE);

    snprintf(rel, sizeof(rel), "%d/stat", p->pid);
    read_rel(root, rel, &buf);
    struct pt_stat st, want = {
                           .pid = p->pid,
                           .state = p->state ? p->state : 'S',
                           .ppid = p->ppid,
                           .minflt = p->minflt,
                           .cminflt = p->cminflt,
                           .majflt = p->majflt,
                           .cmajflt = p->cmajflt,
                           .utime = p->utime,
                           .stime = p->stime,
                           .cutime = p->cutime,
                           .cstime = p->cstime,
                           .num_threads = p->num_threads ? p->num_threads : 1,
                           .starttime = p->starttime,
                           .vsize = p->size_pages * page_size,
                           .rss_pages = (int64_t)p->resident_pages,
                       };
    snprintf(want.comm, sizeof(want.comm), "%s", p->comm ? p->comm : "proc");
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    assert_stat_eq(&st, &want);

    snprintf(rel, sizeof(rel), "%d/statm", p->pid);
    read_rel(root, rel, &buf);
    struct pt_statm statm;
    ck_assert_int_eq(parse_statm(buf.data, buf.len, &statm), 0);
    ck_assert_uint_eq(statm.size, p->size_pages);
    ck_assert_uint_eq(statm.resident, p->resident_pages);
    ck_assert_uint_eq(statm.shared, p->shared_pages);

    snprintf(rel, sizeof(rel), "%d/io", p->pid);
    read_rel(root, rel, &buf);
    struct pt_io io;
    ck_assert_int_eq(parse_io(buf.data, buf.len, &io), 0);
    assert_io_eq(&io, &p->io);

    snprintf(rel, sizeof(rel), "%d/smaps_rollup", p->pid);
    read_rel(root, rel, &buf);
    struct pt_smaps_rollup r;
    ck_assert_int_eq(parse_rollup(buf.data, buf.len, &r), 0);
    ck_assert_uint_eq(r.rss, (p->shared_kb + p->private_kb) * 1024);
    ck_assert_uint_eq(r.pss, p->pss_kb * 1024);
    ck_assert_uint_eq(r.shared_clean, p->shared_kb * 1024);
    ck_assert_uint_eq(r.shared_dirty, 0);
    ck_assert_uint_eq(r.private_clean, 0);
    ck_assert_uint_eq(r.private_dirty, p->private_kb * 1024);
    ck_assert_uint_eq(r.swap, p->swap_kb * 1024);

    snprintf(rel, sizeof(rel), "%d/task/%d/children", p->pid, p->pid);
    read_rel(root, rel, &buf);
    ck_assert_str_eq(buf.data, p->children ? p->children : "");
    pt_buf_free(&buf);
}

START_TEST(test_fixture_round_trip)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    assert_proc_files_match(root, &ROUND_TRIP);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_defaults)
{
    char *root = fx_root_new();
    struct fx_proc p = {.pid = 5};
    fx_put_proc(root, &p);
    assert_proc_files_match(root, &p);

    struct pt_buf buf = {0};
    read_rel(root, "5/stat", &buf);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_str_eq(st.comm, "proc");
    ck_assert_int_eq(st.state, 'S');
    ck_assert_int_eq(st.num_threads, 1);
    read_rel(root, "5/task/5/children", &buf);
    struct pid_list list;
    ck_assert_int_eq(parse_children(buf.data, buf.len, &list), 0);
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

/* The stat line has the kernel's shape: 52 fields, one space apart, a newline. */
START_TEST(test_fixture_stat_shape)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    struct pt_buf buf = {0};
    read_rel(root, "4242/stat", &buf);
    ck_assert_int_eq(buf.data[buf.len - 1], '\n');
    const char *close = memrchr(buf.data, ')', buf.len);
    int spaces = 0;
    for (const char *p = close; p < buf.data + buf.len; p++) {
        spaces += *p == ' ';
        ck_assert(*p != ' ' || p[1] != ' ');
    }
    ck_assert_int_eq(spaces, 52 - 2); /* fields 3 to 52, each after a space */

    read_rel(root, "4242/statm", &buf);
    ck_assert_str_eq(buf.data, "1000 400 300 0 0 0 0\n");
    read_rel(root, "4242/smaps_rollup", &buf);
    ck_assert_ptr_nonnull(strstr(buf.data, "[rollup]\nRss:                 502 kB\nPss:                 501 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nSwapPss:"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nPss_Anon:"));
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

/* A second put rewrites the same inodes, and kept fds see the new values. */
START_TEST(test_fixture_rewrite_in_place)
{
    char *root = fx_root_new();
    struct fx_proc p = ROUND_TRIP;
    fx_put_proc(root, &p);
    int stat_fd = open_in(root, "4242/stat");
    int io_fd = open_in(root, "4242/io");
    struct stat before, after;
    ck_assert_int_eq(fstat(stat_fd, &before), 0);

    p.utime = 999999;
    p.comm = "short";
    p.io.rchar = 123456789012ULL;
    p.children = "";
    fx_put_proc(root, &p);
    ck_assert_int_eq(fstat(stat_fd, &after), 0);
    ck_assert_uint_eq(after.st_ino, before.st_ino);

    struct pt_buf buf = {0};
    struct pt_stat st;
    ck_assert_int_gt(pt_procfs_pread_all(stat_fd, &buf), 0);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_uint_eq(st.utime, 999999);
    ck_assert_str_eq(st.comm, "short");
    struct pt_io io;
    ck_assert_int_gt(pt_procfs_pread_all(io_fd, &buf), 0);
    ck_assert_int_eq(parse_io(buf.data, buf.len, &io), 0);
    ck_assert_uint_eq(io.rchar, 123456789012ULL);
    assert_proc_files_match(root, &p);

    pt_buf_free(&buf);
    close(stat_fd);
    close(io_fd);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_vanish)
{
    char *root = fx_root_new();
    fx_put_proc(root, &ROUND_TRIP);
    fx_put_proc(root, &(struct fx_proc){.pid = 4243, .ppid = 4242});
    int proc = open(root, O_PATH | O_DIRECTORY);
    int dir = open_pid_dir(proc, 4242);
    ck_assert_int_ge(dir, 0);
    int stat_fd = pt_procfs_open_at(dir, "stat");
    int children_fd = pt_procfs_open_at(dir, "task/4242/children");
    ck_assert_int_ge(stat_fd, 0);
    ck_assert_int_ge(children_fd, 0);

    fx_vanish(root, 4242);

    struct pt_buf buf = {0};
    ck_assert_int_eq(pt_procfs_pread_all(stat_fd, &buf), 0);
    ck_assert_int_eq(pt_procfs_pread_all(children_fd, &buf), 0);
    struct pt_stat st;
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), -1);
    int again = open_pid_dir(proc, 4242);
    ck_assert_int_eq(again, -ENOENT);
    ck_assert(pt_procfs_errno_is_gone(again));
    char *path;
    ck_assert_int_ge(asprintf(&path, "%s/4242", root), 0);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), -1);
    ck_assert_int_eq(errno, ENOENT);
    free(path);
    /* The sibling is untouched. */
    read_rel(root, "4243/stat", &buf);
    ck_assert_int_eq(parse_stat(buf.data, buf.len, &st), 0);
    ck_assert_int_eq(st.ppid, 4242);

    pt_buf_free(&buf);
    close(stat_fd);
    close(children_fd);
    close(dir);
    close(proc);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_meminfo)
{
    char *root = fx_root_new();
    fx_put_meminfo(root, 16000000, 8000000, 12000000, 3000000, 2000000, 1000000);
    struct pt_buf buf = {0};
    read_rel(root, "meminfo", &buf);
    struct pt_meminfo m;
    ck_assert_int_eq(parse_meminfo(buf.data, buf.len, &m), 0);
    ck_assert_uint_eq(m.mem_total, 16000000ULL * 1024);
    ck_assert_uint_eq(m.mem_free, 8000000ULL * 1024);
    ck_assert(m.has_available);
    ck_assert_uint_eq(m.mem_available, 12000000ULL * 1024);
    ck_assert_uint_eq(m.cached, 3000000ULL * 1024);
    ck_assert_uint_eq(m.anon_pages, 2000000ULL * 1024);
    ck_assert_uint_eq(m.swap_free, 1000000ULL * 1024);
    ck_assert_uint_eq(m.swap_total, 1000000ULL * 1024);
    ck_assert_uint_eq(m.buffers, 2048 * 1024);
    /* Laid out like the real file. */
    ck_assert_ptr_nonnull(strstr(buf.data, "MemTotal:       16000000 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nSwapCached:            0 kB\n"));
    ck_assert_ptr_nonnull(strstr(buf.data, "\nHugePages_Total:       0\n"));

    /* Rewritten in place, like every fixture file. */
    int fd = open_in(root, "meminfo");
    fx_put_meminfo(root, 1, 1, 1, 1, 1, 1);
    ck_assert_int_gt(pt_procfs_pread_all(fd, &buf), 0);
    ck_assert_int_eq(parse_meminfo(buf.data, buf.len, &m), 0);
    ck_assert_uint_eq(m.mem_total, 1024);
    close(fd);
    pt_buf_free(&buf);
    fx_root_free(root);
}
END_TEST

START_TEST(test_fixture_write)
{
    char *root = fx_root_new();
    fx_write(root, "deep/er/and/deeper/file", "with\0nul", 8);
    struct pt_buf buf = {0};
    read_rel(root, "deep/er/and/deeper/file", &buf);
    ck_assert_uint_eq(buf.len, 8);
    ck_assert_mem_eq(buf.data, "with\0nul", 8);
    fx_write(root, "deep/er/and/deeper/file", "x", -1);
    read_rel(root, "deep/er/and/deeper/file", &buf);
    ck_assert_str_eq(buf.data, "x");
    pt_buf_free(&buf);

    char *copy = strdup(root);
    fx_root_free(root);
    ck_assert_int_eq(access(copy, F_OK), -1);
    ck_assert_int_eq(errno, ENOENT);
    free(copy);
}
END_TEST

START_TEST(test_fixture_root_honours_tmpdir)
{
    const char *original = getenv("TMPDIR");
    char *saved = original ? strdup(original) : NULL;
    char *outer = fx_root_new();
    ck_assert_int_eq(setenv("TMPDIR", outer, 1), 0);
    char *inner = fx_root_new();
    ck_assert_int_eq(strncmp(inner, outer, strlen(outer)), 0);
    ck_assert_int_eq(saved ? setenv("TMPDIR", saved, 1) : unsetenv("TMPDIR"), 0);
    free(saved);
    fx_root_free(inner);
    fx_root_free(outer);
}
END_TEST

/* A fixture that cannot do what it was asked stops the test, saying why.
 * The failing call runs in a child of our own, to watch it die. */
START_TEST(test_fixture_aborts_on_error)
{
    char *root = fx_root_new();
    fx_write(root, "file", "x", -1);
    int err[2];
    ck_assert_int_eq(pipe(err), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(err[1], STDERR_FILENO);
        fx_write(root, "file/below", "x", -1); /* "file" is not a directory */
        _exit(0);
    }
    close(err[1]);
    char message[512] = {0};
    size_t got = 0;
    ssize_t n;
    while ((n = read(err[0], message + got, sizeof(message) - 1 - got)) > 0)
        got += (size_t)n;
    close(err[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    ck_assert_ptr_nonnull(strstr(message, "file/below"));
    ck_assert_ptr_nonnull(strstr(message, strerror(ENOTDIR)));
    fx_root_free(root);
}
END_TEST

/* ==== Runner ==== */

int main(void)
{
    Suite *suite = suite_create("fixture");

    TCase *tc = unit_tcase(suite, "fixture");
    tcase_add_test(tc, test_fixture_round_trip);
    tcase_add_test(tc, test_fixture_defaults);
    tcase_add_test(tc, test_fixture_stat_shape);
    tcase_add_test(tc, test_fixture_rewrite_in_place);
    tcase_add_test(tc, test_fixture_vanish);
    tcase_add_test(tc, test_fixture_meminfo);
    tcase_add_test(tc, test_fixture_write);
    tcase_add_test(tc, test_fixture_root_honours_tmpdir);
    tcase_add_test(tc, test_fixture_aborts_on_error);

    return unit_run(suite);
}
